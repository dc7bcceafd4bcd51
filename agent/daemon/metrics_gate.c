/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Who may read the /metrics endpoint (metrics_gate.h): the policy's "metrics", read at start. */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/crypto.h>

#include "common/log.h"
#include "common/macro.h"
#include "policy/policy.h"
#include "config/trust.h"
#include "metrics_gate.h"
#include "metrics_http.h"

static bool sockaddr_loopback(const struct sockaddr_storage *sa)
{
	if (sa->ss_family == AF_INET)
		return (ntohl(((const struct sockaddr_in *)sa)->sin_addr.s_addr) >> 24) == 127;
	return sa->ss_family == AF_INET6 &&
	       IN6_IS_ADDR_LOOPBACK(&((const struct sockaddr_in6 *)sa)->sin6_addr);
}

/* The whole of a file the policy names, checked as the policy itself is (config/trust.h). */
static int read_trusted(const char *listen, const char *what, const char *path, bool root_only,
			char **ret)
{
	_cleanup_close_ int fd = -1;
	struct rg_error err = {0};
	char msg[sizeof(err.file) + sizeof(err.msg) + 8], *buf;
	struct stat st;
	size_t got = 0;
	ssize_t n;

	fd = trust_open_file(AT_FDCWD, path, path, geteuid() == 0, &err);
	if (fd < 0)
		return log_error_errno(-EPERM, "metrics %s: %s %s", listen, what,
				       rg_error_format(&err, msg, sizeof(msg)));
	if (fstat(fd, &st) < 0)
		return log_error_errno(-errno, "metrics %s: %s %s: %m", listen, what, path);
	if (st.st_mode & (S_IWGRP | S_IWOTH))
		return log_error_errno(-EPERM,
				       "metrics %s: %s %s: refused: writable by group or "
				       "other (mode %04o)",
				       listen, what, path, (unsigned)(st.st_mode & 07777));
	if (root_only && (st.st_mode & (S_IRWXG | S_IRWXO)))
		return log_error_errno(-EPERM,
				       "metrics %s: %s %s: refused: readable by group or "
				       "other (mode %04o); it is root's alone",
				       listen, what, path, (unsigned)(st.st_mode & 07777));
	if (!root_only && strcmp(what, "key") == 0 && (st.st_mode & (S_IRGRP | S_IROTH)))
		log_warning("metrics %s: private key %s is accessible to group or others", listen,
			    path);
	buf = malloc(METRICS_HTTP_FILE_MAX + 1);
	if (!buf)
		return -ENOMEM;
	while (got <= METRICS_HTTP_FILE_MAX &&
	       (n = read(fd, buf + got, METRICS_HTTP_FILE_MAX + 1 - got)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			free(buf);
			return log_error_errno(-errno, "metrics %s: %s %s: %m", listen, what, path);
		}
		got += (size_t)n;
	}
	if (got > METRICS_HTTP_FILE_MAX || memchr(buf, 0, got)) {
		explicit_bzero(buf, got);
		free(buf);
		return log_error_errno(-EPERM, "metrics %s: %s %s: refused: %s", listen, what, path,
				       got > METRICS_HTTP_FILE_MAX ? "larger than 64 KiB"
								   : "not text");
	}
	buf[got] = 0;
	*ret = buf;
	return 0;
}

/* RFC 6750's b64token, METRICS_HTTP_TOKEN_MIN to _MAX characters; a final newline is dropped. */
static int check_token(const char *listen, const char *path, char *t)
{
	size_t n = strlen(t), i;

	while (n && (t[n - 1] == '\n' || t[n - 1] == '\r'))
		t[--n] = 0;
	for (i = 0; i < n; i++)
		if (!strchr("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~+/=",
			    t[i]))
			break;
	if (i < n || n < METRICS_HTTP_TOKEN_MIN || n > METRICS_HTTP_TOKEN_MAX)
		return log_error_errno(-EPERM,
				       "metrics %s: token %s: refused: not %d to %d "
				       "characters of A-Z a-z 0-9 -._~+/=",
				       listen, path, METRICS_HTTP_TOKEN_MIN,
				       METRICS_HTTP_TOKEN_MAX);
	return 0;
}

static int load_files(struct metrics_gate *g, const struct rg_policy_metrics *pm,
		      const char *listen)
{
	int r = 0;

	if (pm->cert) {
		r = read_trusted(listen, "certificate", pm->cert, false, &g->cert);
		if (r >= 0)
			r = read_trusted(listen, "key", pm->key, false, &g->key);
	}
	if (r >= 0 && pm->token_file) {
		r = read_trusted(listen, "token", pm->token_file, true, &g->token);
		if (r >= 0)
			r = check_token(listen, pm->token_file, g->token);
	}
	if (r >= 0 && pm->n_scrapers) {
		g->scrapers = calloc(pm->n_scrapers, sizeof(*g->scrapers));
		if (!g->scrapers)
			return -ENOMEM;
		memcpy(g->scrapers, pm->scrapers, pm->n_scrapers * sizeof(*g->scrapers));
		for (size_t i = 0; i < pm->n_scrapers; i++)
			g->scrapers[i].name = NULL; /* not copied, not used */
		g->n_scrapers = pm->n_scrapers;
	}
	return r;
}

int metrics_gate_init(struct metrics_gate *g, const struct sockaddr_storage *sa,
		      const struct rg_policy_metrics *pm, const char *listen)
{
	static const struct rg_policy_metrics none;
	int r;

	memset(g, 0, sizeof(*g));
	if (!pm)
		pm = &none;
	g->loopback = sockaddr_loopback(sa);
	if (!g->loopback && !pm->plaintext_lan && !(pm->cert && pm->token_file))
		return log_error_errno(
		    -EPERM,
		    "metrics %s: not a loopback address: the policy's \"metrics\" "
		    "must give \"cert\", \"key\" and \"token_file\" (HTTPS and a "
		    "bearer token), or say \"plaintext_lan\": true",
		    listen);
	r = load_files(g, pm, listen);
	if (r < 0) {
		metrics_gate_done(g);
		return r;
	}
	g->sensitive = g->loopback || g->cert;
	return 0;
}

void metrics_gate_done(struct metrics_gate *g)
{
	if (g->key)
		explicit_bzero(g->key, strlen(g->key));
	if (g->token)
		explicit_bzero(g->token, strlen(g->token));
	free(g->cert);
	free(g->key);
	free(g->token);
	free(g->scrapers);
	memset(g, 0, sizeof(*g));
}

bool metrics_gate_accept(const struct metrics_gate *g, const struct sockaddr *sa, socklen_t len)
{
	uint8_t a[16] = {0};

	if (!g->n_scrapers)
		return true;
	if (sa->sa_family == AF_INET && len >= (socklen_t)sizeof(struct sockaddr_in)) {
		a[10] = a[11] = 0xff;
		memcpy(a + 12, &((const struct sockaddr_in *)sa)->sin_addr, 4);
	} else if (sa->sa_family == AF_INET6 && len >= (socklen_t)sizeof(struct sockaddr_in6)) {
		memcpy(a, &((const struct sockaddr_in6 *)sa)->sin6_addr, 16);
	} else {
		return false;
	}
	return fleet_nets_match(g->scrapers, g->n_scrapers, a);
}

bool metrics_gate_authorized(const struct metrics_gate *g, const char *authorization)
{
	size_t n;

	if (!g->token)
		return true;
	if (!authorization || strncasecmp(authorization, "Bearer ", 7) != 0)
		return false;
	authorization += 7;
	n = strlen(g->token);
	return strlen(authorization) == n && CRYPTO_memcmp(authorization, g->token, n) == 0;
}
