/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The /metrics endpoint over libmicrohttpd (metrics_http.h): HTTP parsing, TLS (GnuTLS), limits
 * and timeouts are the library's; this file says which address, which path, and what the answer
 * is; metrics_gate.c says who may have it.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <microhttpd.h>

#include "common/log.h"
#include "common/macro.h"
#include "common/number.h"
#include "policy/policy.h"
#include "metrics_gate.h"
#include "metrics_http.h"

#define CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"

struct metrics_http {
	struct MHD_Daemon *mhd;
	metrics_render_fn render;
	void *ud;
	unsigned long long served, refused;
	struct metrics_gate gate;
	char url[96];
};

int metrics_http_parse_listen(const char *s, struct sockaddr_storage *ret, unsigned *ret_len)
{
	char host[64];
	const char *colon, *h = s;
	size_t hl;
	uint32_t port;

	memset(ret, 0, sizeof(*ret));
	if (s[0] && strspn(s, "0123456789") == strlen(s)) {
		/* a bare port: loopback */
		struct sockaddr_in *a = (struct sockaddr_in *)ret;

		if (safe_atou32(s, 10, &port) < 0 || port == 0 || port > 65535)
			return -EINVAL;
		a->sin_family = AF_INET;
		a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		a->sin_port = htons((uint16_t)port);
		*ret_len = sizeof(*a);
		return 0;
	}
	if (s[0] == '[') {
		const char *end = strchr(s, ']');

		if (!end || end[1] != ':')
			return -EINVAL;
		h = s + 1;
		hl = (size_t)(end - h);
		colon = end + 1;
	} else {
		colon = strrchr(s, ':');
		if (!colon)
			return -EINVAL;
		hl = (size_t)(colon - s);
	}
	if (hl == 0 || hl >= sizeof(host) || safe_atou32(colon + 1, 10, &port) < 0 || port == 0 ||
	    port > 65535)
		return -EINVAL;
	memcpy(host, h, hl);
	host[hl] = 0;
	if (s[0] != '[') {
		struct sockaddr_in *a = (struct sockaddr_in *)ret;

		if (inet_pton(AF_INET, host, &a->sin_addr) != 1)
			return -EINVAL;
		a->sin_family = AF_INET;
		a->sin_port = htons((uint16_t)port);
		*ret_len = sizeof(*a);
	} else {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)ret;

		if (inet_pton(AF_INET6, host, &a->sin6_addr) != 1)
			return -EINVAL;
		a->sin6_family = AF_INET6;
		a->sin6_port = htons((uint16_t)port);
		*ret_len = sizeof(*a);
	}
	return 0;
}

static enum MHD_Result reply(struct MHD_Connection *c, unsigned status, const char *text,
			     size_t len, bool copy)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(
	    len, (void *)text, copy ? MHD_RESPMEM_MUST_COPY : MHD_RESPMEM_MUST_FREE);
	enum MHD_Result ret;

	if (!r) {
		if (!copy)
			free((void *)text);
		return MHD_NO;
	}
	(void)MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
				      status == MHD_HTTP_OK ? CONTENT_TYPE : "text/plain");
	if (status == MHD_HTTP_UNAUTHORIZED) {
		(void)MHD_add_response_header(r, MHD_HTTP_HEADER_WWW_AUTHENTICATE,
					      "Bearer realm=\"rdmaguard\"");
		(void)MHD_add_response_header(r, MHD_HTTP_HEADER_CONNECTION, "close");
	}
	ret = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
				  const char *method, const char *version, const char *upload,
				  size_t *upload_size, void **con_cls)
{
	static const char not_found[] = "not found: the metrics are at /metrics\n";
	static const char bad_method[] = "only GET and HEAD\n";
	static const char unauthorized[] = "unauthorized: a bearer token is needed\n";
	struct metrics_http *m = cls;
	char *buf;
	size_t len;

	/* a body (there should be none) is read and ignored; the answer comes after it */
	if (*upload_size) {
		*upload_size = 0;
		return MHD_YES;
	}
	if (!metrics_gate_authorized(&m->gate, MHD_lookup_connection_value(
						   c, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION))) {
		m->refused++;
		return reply(c, MHD_HTTP_UNAUTHORIZED, unauthorized, sizeof(unauthorized) - 1,
			     true);
	}
	if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 && strcmp(method, MHD_HTTP_METHOD_HEAD) != 0)
		return reply(c, MHD_HTTP_METHOD_NOT_ALLOWED, bad_method, sizeof(bad_method) - 1,
			     true);
	if (strcmp(url, "/metrics") != 0)
		return reply(c, MHD_HTTP_NOT_FOUND, not_found, sizeof(not_found) - 1, true);
	if (m->render(m->ud, m->gate.sensitive, &buf, &len) < 0)
		return MHD_NO;
	m->served++;
	return reply(c, MHD_HTTP_OK, buf, len, false);
}

__attribute__((format(printf, 2, 0))) static void on_log(void *cls, const char *fmt, va_list ap)
{
	char msg[256];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	msg[strcspn(msg, "\n")] = 0;
	log_debug("metrics endpoint: %s", msg);
}

static enum MHD_Result on_accept(void *cls, const struct sockaddr *addr, socklen_t addrlen)
{
	struct metrics_http *m = cls;

	if (metrics_gate_accept(&m->gate, addr, addrlen))
		return MHD_YES;
	m->refused++;
	return MHD_NO;
}

static void set_url(struct metrics_http *m, const struct sockaddr_storage *sa)
{
	char host[INET6_ADDRSTRLEN] = "?";
	const char *scheme = m->gate.cert ? "https" : "http";

	if (sa->ss_family == AF_INET) {
		const struct sockaddr_in *a = (const struct sockaddr_in *)sa;

		inet_ntop(AF_INET, &a->sin_addr, host, sizeof(host));
		snprintf(m->url, sizeof(m->url), "%s://%s:%u/metrics", scheme, host,
			 ntohs(a->sin_port));
	} else {
		const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)sa;

		inet_ntop(AF_INET6, &a->sin6_addr, host, sizeof(host));
		snprintf(m->url, sizeof(m->url), "%s://[%s]:%u/metrics", scheme, host,
			 ntohs(a->sin6_port));
	}
}

static struct MHD_Daemon *start_mhd(struct metrics_http *m, const struct sockaddr_storage *sa)
{
	unsigned flags = MHD_USE_EPOLL | MHD_USE_ERROR_LOG;
	struct MHD_OptionItem tls[] = {
	    {MHD_OPTION_HTTPS_MEM_KEY, 0, m->gate.key},
	    {MHD_OPTION_HTTPS_MEM_CERT, 0, m->gate.cert},
	    {MHD_OPTION_END, 0, NULL},
	};

	if (sa->ss_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	if (m->gate.cert)
		flags |= MHD_USE_TLS;
	else
		tls[0].option = MHD_OPTION_END;
	return MHD_start_daemon(
	    flags, 0, on_accept, m, on_request, m, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)sa,
	    MHD_OPTION_CONNECTION_LIMIT, (unsigned)METRICS_HTTP_MAX_CONN,
	    MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned)METRICS_HTTP_PER_IP,
	    MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)METRICS_HTTP_TIMEOUT_S,
	    MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)METRICS_HTTP_MEMORY_LIMIT,
	    MHD_OPTION_LISTEN_BACKLOG_SIZE, (unsigned)METRICS_HTTP_MAX_CONN,
	    MHD_OPTION_EXTERNAL_LOGGER, on_log, NULL, MHD_OPTION_ARRAY, tls, MHD_OPTION_END);
}

int metrics_http_start(const char *listen, const struct rg_policy *policy, metrics_render_fn render,
		       void *ud, struct metrics_http **ret)
{
	struct sockaddr_storage sa;
	unsigned salen;
	struct metrics_http *m;
	int r;

	r = metrics_http_parse_listen(listen, &sa, &salen);
	if (r < 0)
		return r;
	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	m->render = render;
	m->ud = ud;
	r = metrics_gate_init(&m->gate, &sa, policy ? &policy->metrics : NULL, listen);
	if (r < 0) {
		free(m);
		return r;
	}
	if (m->gate.cert && !MHD_is_feature_supported(MHD_FEATURE_TLS)) {
		metrics_gate_done(&m->gate);
		free(m);
		return log_error_errno(-EOPNOTSUPP, "metrics %s: libmicrohttpd was built without TLS",
				       listen);
	}
	if (!m->gate.loopback && !m->gate.cert)
		log_warning("metrics %s: plain HTTP off loopback (\"plaintext_lan\"): anyone on the "
			    "path can read %sthe metrics; the sensors' hooks are not shown",
			    listen, m->gate.token ? "the token and " : "");
	set_url(m, &sa);
	errno = 0;
	m->mhd = start_mhd(m, &sa);
	if (!m->mhd) {
		r = errno ? -errno : -EADDRNOTAVAIL;
		metrics_gate_done(&m->gate);
		free(m);
		return r;
	}
	*ret = m;
	return 0;
}

int metrics_http_check(const char *listen, const struct rg_policy *policy)
{
	struct sockaddr_storage sa;
	struct metrics_gate g;
	unsigned salen;
	int r;

	r = metrics_http_parse_listen(listen, &sa, &salen);
	if (r < 0)
		return log_error_errno(r, "--metrics: not ADDRESS:PORT or PORT: %s", listen);
	r = metrics_gate_init(&g, &sa, policy ? &policy->metrics : NULL, listen);
	if (r >= 0)
		metrics_gate_done(&g);
	return r;
}

const char *metrics_http_url(const struct metrics_http *m)
{
	return m->url;
}

int metrics_http_fd(const struct metrics_http *m)
{
	const union MHD_DaemonInfo *i = MHD_get_daemon_info(m->mhd, MHD_DAEMON_INFO_EPOLL_FD);

	return i ? i->epoll_fd : -EBADF;
}

void metrics_http_run(struct metrics_http *m)
{
	if (m)
		(void)MHD_run(m->mhd);
}

unsigned long long metrics_http_served(const struct metrics_http *m)
{
	return m ? m->served : 0;
}

unsigned long long metrics_http_refused(const struct metrics_http *m)
{
	return m ? m->refused : 0;
}

void metrics_http_stop(struct metrics_http *m)
{
	if (!m)
		return;
	MHD_stop_daemon(m->mhd);
	metrics_gate_done(&m->gate);
	free(m);
}
