/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The connection of a syslog output: resolving and connecting without blocking the loop
 * (non-blocking connect and TLS handshake with a deadline), the TLS client context (RFC 5425),
 * reading what the collector sends, and losing the connection: failed attempts and dropped
 * connections back off exponentially with jitter up to backoff_max_ms.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <openssl/x509v3.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/log.h"
#include "common/macro.h"
#include "common/strutil.h"
#include "net_state.h"
#include "tls_files.h"
#include "spool.h"

static uint64_t rng_next(struct net *n)
{
	/* xorshift64*: jitter only, not security. */
	n->rng ^= n->rng >> 12;
	n->rng ^= n->rng << 25;
	n->rng ^= n->rng >> 27;
	return n->rng * 2685821657736338717ull;
}

void net_error_v(struct net *n, bool warn, char *last, size_t last_size, const char *fmt,
		 va_list ap)
{
	char msg[256];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	pthread_mutex_lock(&n->out->lock);
	strscpy_ok(n->out->last_error, msg, sizeof(n->out->last_error));
	pthread_mutex_unlock(&n->out->lock);
	if (warn && strcmp(msg, last) != 0)
		log_warning("output %s: %s", n->out->spec.name, msg);
	else
		log_debug("output %s: %s", n->out->spec.name, msg);
	strscpy_ok(last, msg, last_size);
}

/* A connection error: logged when it is new (a collector that stays down for hours gives one
 * warning, not one per attempt), remembered apart from spool errors (net.c). */
static _printf_(3, 4) void set_error(struct net *n, bool warn, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	net_error_v(n, warn, n->last_logged, sizeof(n->last_logged), fmt, ap);
	va_end(ap);
}

void net_close(struct net *n)
{
	if (n->ssl) {
		SSL_free(n->ssl);
		n->ssl = NULL;
	}
	if (n->fd >= 0) {
		close(n->fd);
		n->fd = -1;
	}
	n->state = NET_IDLE;
	n->want = 0;
	n->sb_start = n->sb_end = 0;
	n->plain_queued = n->plain_written = 0;
	n->tls_chunk = 0;
	n->inf_head = n->inf_count = n->inf_marked = n->inf_acked = 0;
	n->inf_bytes = 0;
	atomic_store(&n->out->c.connected, false);
	/* Everything not confirmed goes again on the next connection. */
	spool_rewind(n->spool);
}

static void schedule_retry(struct net *n, uint64_t now)
{
	const struct outputs_config *c = cfg_of(n);
	uint64_t d = c->backoff_min_ms;
	unsigned i;

	for (i = 0; i < n->failures && d < c->backoff_max_ms; i++)
		d *= 2;
	d = MIN(d, (uint64_t)c->backoff_max_ms);
	/* Jitter in [d/2, d] so that a fleet of agents does not reconnect in lockstep. */
	d = d / 2 + rng_next(n) % (d / 2 + 1);
	n->next_attempt_ns = now + ms_to_ns(d);
}

void net_fail(struct net *n, uint64_t now, const char *fmt, ...)
{
	char msg[200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	net_close(n);
	atomic_fetch_add(&n->out->c.connect_failures, 1);
	n->failures++;
	schedule_retry(n, now);
	set_error(n, true, "%s", msg);
}

void net_drop(struct net *n, uint64_t now, const char *fmt, ...)
{
	char msg[200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* What this connection took from the spool and did not confirm failed on it (it goes
	 * again on the next one: replayed). */
	output_count_failed(n->out, OUTPUT_FAIL_CONNECTION_LOST, n->inf_count, n->inf_bytes);
	net_close(n);
	atomic_fetch_add(&n->out->c.disconnects, 1);
	if (now - n->connected_ns >= NET_HEALTHY_NS)
		n->failures = 0;
	else
		n->failures++;
	schedule_retry(n, now);
	set_error(n, true, "connection to %s lost: %s", n->peer, msg);
}

static void net_up(struct net *n, uint64_t now)
{
	n->state = NET_CONNECTED;
	n->want = 0;
	n->connected_ns = now;
	atomic_fetch_add(&n->out->c.connects, 1);
	atomic_store(&n->out->c.connected, true);
	if (n->ssl)
		log_info("output %s: connected to %s (%s, %s)", n->out->spec.name, n->peer,
			 SSL_get_version(n->ssl), SSL_get_cipher_name(n->ssl));
	else
		log_info("output %s: connected to %s", n->out->spec.name, n->peer);
	n->last_logged[0] = 0;
}

void net_tls_error_string(struct net *n, int ret, int err, char *buf, size_t size)
{
	long v = SSL_get_verify_result(n->ssl);
	unsigned long e = ERR_peek_last_error();

	if (v != X509_V_OK)
		snprintf(buf, size, "certificate verification failed: %s",
			 X509_verify_cert_error_string(v));
	else if (e) {
		char es[160];

		ERR_error_string_n(e, es, sizeof(es));
		snprintf(buf, size, "TLS error: %s", es);
	} else if (err == SSL_ERROR_SYSCALL && errno && ret < 0)
		snprintf(buf, size, "%s", strerror(errno));
	else if (err == SSL_ERROR_ZERO_RETURN)
		snprintf(buf, size, "closed by the collector (TLS close_notify)");
	else
		snprintf(buf, size, "closed by the collector");
	ERR_clear_error();
}

void net_handshake(struct net *n, uint64_t now)
{
	char msg[200];
	int r, e;

	ERR_clear_error();
	errno = 0;
	r = SSL_do_handshake(n->ssl);
	if (r == 1) {
		net_up(n, now);
		return;
	}
	e = SSL_get_error(n->ssl, r);
	if (e == SSL_ERROR_WANT_READ) {
		n->want = POLLIN;
		return;
	}
	if (e == SSL_ERROR_WANT_WRITE) {
		n->want = POLLOUT;
		return;
	}
	net_tls_error_string(n, r, e, msg, sizeof(msg));
	net_fail(n, now, "TLS handshake with %s failed: %s", n->peer, msg);
}

static void net_tcp_up(struct net *n, uint64_t now)
{
	const struct output_spec *sp = &n->out->spec;

	if (sp->type != OUTPUT_SYSLOG_TLS) {
		net_up(n, now);
		return;
	}
	n->ssl = SSL_new(n->ctx);
	if (!n->ssl || SSL_set_fd(n->ssl, n->fd) != 1) {
		net_fail(n, now, "failed to set up TLS");
		return;
	}
	if (sp->host_is_ip) {
		if (X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(n->ssl), sp->host) != 1) {
			net_fail(n, now, "failed to set the expected IP address");
			return;
		}
	} else if (SSL_set_tlsext_host_name(n->ssl, sp->host) != 1 ||
		   SSL_set1_host(n->ssl, sp->host) != 1) {
		net_fail(n, now, "failed to set the expected host name");
		return;
	}
	SSL_set_connect_state(n->ssl);
	n->state = NET_HANDSHAKE;
	n->deadline_ns = now + ms_to_ns(cfg_of(n)->connect_timeout_ms);
	net_handshake(n, now);
}

static void set_sockopts(int fd)
{
	int one = 1, idle = 30, intvl = 10, cnt = 3;
	unsigned uto = NET_TCP_USER_TIMEOUT_MS;

	/* Best effort: a dead peer is noticed by keepalives when idle, by the user timeout when
	 * data is outstanding. */
	(void)setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof(one));
	(void)setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof(idle));
	(void)setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &intvl, sizeof(intvl));
	(void)setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &cnt, sizeof(cnt));
	(void)setsockopt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT, &uto, sizeof(uto));
}

void net_connect(struct net *n, uint64_t now)
{
	const struct output_spec *sp = &n->out->spec;
	struct addrinfo hints = {
		.ai_socktype = SOCK_STREAM,
		.ai_flags = AI_NUMERICSERV | (sp->host_is_ip ? AI_NUMERICHOST : 0),
	};
	struct addrinfo *res = NULL, *ai;
	char port[8], addr[INET6_ADDRSTRLEN];
	unsigned count = 0, pick;
	int r;

	snprintf(port, sizeof(port), "%u", sp->port);
	/* Blocks this thread for a DNS lookup; IP literals never do. */
	r = getaddrinfo(sp->host, port, &hints, &res);
	if (r != 0) {
		net_fail(n, now, "cannot resolve %s: %s", sp->host,
			 r == EAI_SYSTEM ? strerror(errno) : gai_strerror(r));
		return;
	}
	for (ai = res; ai; ai = ai->ai_next)
		count++;
	pick = n->rotor++ % count;
	for (ai = res; pick > 0; ai = ai->ai_next)
		pick--;
	if (ai->ai_family == AF_INET6)
		inet_ntop(AF_INET6, &((struct sockaddr_in6 *)ai->ai_addr)->sin6_addr, addr,
			  sizeof(addr));
	else
		inet_ntop(AF_INET, &((struct sockaddr_in *)ai->ai_addr)->sin_addr, addr,
			  sizeof(addr));
	snprintf(n->peer, sizeof(n->peer), ai->ai_family == AF_INET6 ? "[%s]:%u" : "%s:%u", addr,
		 sp->port);
	n->fd = socket(ai->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, IPPROTO_TCP);
	if (n->fd < 0) {
		freeaddrinfo(res);
		net_fail(n, now, "socket: %s", strerror(errno));
		return;
	}
	set_sockopts(n->fd);
	r = connect(n->fd, ai->ai_addr, ai->ai_addrlen);
	freeaddrinfo(res);
	if (r == 0) {
		net_tcp_up(n, now);
		return;
	}
	if (errno != EINPROGRESS) {
		net_fail(n, now, "connect to %s: %s", n->peer, strerror(errno));
		return;
	}
	n->state = NET_CONNECTING;
	n->deadline_ns = now + ms_to_ns(cfg_of(n)->connect_timeout_ms);
}

void net_connect_done(struct net *n, uint64_t now)
{
	int err = 0;
	socklen_t len = sizeof(err);

	if (getsockopt(n->fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0)
		err = errno;
	if (err) {
		net_fail(n, now, "connect to %s: %s", n->peer, strerror(err));
		return;
	}
	net_tcp_up(n, now);
}

int net_read(struct net *n, uint64_t now, short revents)
{
	char buf[4096];
	char msg[200];

	if (!n->ssl) {
		for (;;) {
			ssize_t k = recv(n->fd, buf, sizeof(buf), MSG_DONTWAIT);

			if (k > 0)
				continue;
			if (k == 0) {
				net_drop(n, now, "closed by the collector");
				return -ECONNRESET;
			}
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				break;
			net_drop(n, now, "%s", strerror(errno));
			return -ECONNRESET;
		}
		if (revents & (POLLERR | POLLHUP)) {
			int err = 0;
			socklen_t len = sizeof(err);

			getsockopt(n->fd, SOL_SOCKET, SO_ERROR, &err, &len);
			net_drop(n, now, "%s", err ? strerror(err) : "hang-up");
			return -ECONNRESET;
		}
		return 0;
	}
	for (;;) {
		int k, e;

		ERR_clear_error();
		errno = 0;
		k = SSL_read(n->ssl, buf, sizeof(buf));
		if (k > 0)
			continue;
		e = SSL_get_error(n->ssl, k);
		if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE)
			return 0;
		net_tls_error_string(n, k, e, msg, sizeof(msg));
		net_drop(n, now, "%s", msg);
		return -ECONNRESET;
	}
}

void net_shutdown(struct net *n)
{
	if (n->ssl && n->state == NET_CONNECTED) {
		ERR_clear_error();
		(void)SSL_shutdown(n->ssl); /* best effort, non-blocking */
	}
	n->state = NET_IDLE;
	if (n->ssl) {
		SSL_free(n->ssl);
		n->ssl = NULL;
	}
	if (n->fd >= 0) {
		close(n->fd);
		n->fd = -1;
	}
	atomic_store(&n->out->c.connected, false);
}

static int ssl_fail(const char *name, const char *what, const char *path)
{
	char es[200] = "unknown error";
	unsigned long e = ERR_peek_last_error();

	if (e)
		ERR_error_string_n(e, es, sizeof(es));
	ERR_clear_error();
	log_error("output %s: failed to load %s %s: %s", name, what, path, es);
	return -EINVAL;
}

int net_tls_ctx_new(const struct output_spec *sp, SSL_CTX **ret)
{
	SSL_CTX *ctx;
	int r;

	ctx = SSL_CTX_new(TLS_client_method());
	if (!ctx)
		return log_oom();
	SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
	SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
	SSL_CTX_set_mode(ctx, SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
	SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_OFF);
	r = output_tls_files_check(sp);
	if (r < 0)
		goto fail;
	if (sp->ca[0]) {
		if (SSL_CTX_load_verify_locations(ctx, sp->ca, NULL) != 1) {
			r = ssl_fail(sp->name, "CA file", sp->ca);
			goto fail;
		}
	} else if (SSL_CTX_set_default_verify_paths(ctx) != 1) {
		r = ssl_fail(sp->name, "the system's trust store", "");
		goto fail;
	}
	if (sp->cert[0]) {
		if (SSL_CTX_use_certificate_chain_file(ctx, sp->cert) != 1) {
			r = ssl_fail(sp->name, "certificate", sp->cert);
			goto fail;
		}
		if (SSL_CTX_use_PrivateKey_file(ctx, sp->key, SSL_FILETYPE_PEM) != 1) {
			r = ssl_fail(sp->name, "key", sp->key);
			goto fail;
		}
		if (SSL_CTX_check_private_key(ctx) != 1) {
			r = log_error_errno(-EINVAL, "output %s: key %s does not match certificate %s",
					    sp->name, sp->key, sp->cert);
			ERR_clear_error();
			goto fail;
		}
	}
	*ret = ctx;
	return 0;
fail:
	SSL_CTX_free(ctx);
	return r;
}
