/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The thread of a syslog output: memory queue -> spool (fsync'd) -> connection, one poll loop.
 *
 * Every alert is formatted (RFC 5424) and appended to the spool first; the sender reads the spool
 * in order and writes octet-counted frames (RFC 6587 3.4.1) to a non-blocking TCP socket, or
 * through OpenSSL (RFC 5425). A record stays in the spool, and in the in-flight window, until its
 * last byte was acknowledged by the peer's TCP (bytes written - SIOCOUTQ) and the connection was
 * still healthy confirm_ms later; a connection that dies before then makes the whole window be
 * sent again on the next connection (duplicates, never loss). Connecting never blocks the loop
 * (non-blocking connect and handshake with a deadline), so alerts keep being spooled meanwhile;
 * failed attempts back off exponentially with jitter up to backoff_max_ms.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/sockios.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/log.h"
#include "common/macro.h"
#include "common/util.h"
#include "rfc5424.h"
#include "sink.h"
#include "spool.h"
#include "spooldir.h"

#define NET_INFLIGHT_MAX	16384	   /* records written but not yet confirmed */
#define NET_INFLIGHT_BYTES	(8u << 20) /* and their bytes */
#define NET_ACK_TICK_MS		20	   /* how often SIOCOUTQ is polled while bytes are unacked */
#define NET_CURSOR_SYNC_MS	100	   /* the spool cursor is persisted at most this often */
#define NET_SPOOL_RETRY_MS	1000	   /* after a spool write error */
#define NET_SPOOL_ROUNDS	16	   /* batches spooled per fdatasync */
#define NET_SEND_ROUNDS		16	   /* send buffers written per loop iteration */
#define NET_TLS_CHUNK		16384
#define NET_TCP_USER_TIMEOUT_MS 30000	   /* unacked data this old kills the connection */
#define NET_HEALTHY_NS		(10ull * 1000000000ull) /* a connection that lived this long resets
							 * the backoff */

enum net_state {
	NET_IDLE,
	NET_CONNECTING,
	NET_HANDSHAKE,
	NET_CONNECTED,
};

struct inflight {
	uint64_t seq;
	uint64_t plain_end; /* end of its frame in this connection's plaintext stream */
	uint64_t wire_end;  /* end in bytes written to the socket (TLS: ciphertext) */
	uint64_t acked_ns;
	uint32_t bytes;
	uint8_t q;
};

struct net {
	struct output *out;
	struct spool *spool;
	SSL_CTX *ctx;
	unsigned facility;

	enum net_state state;
	int fd;
	SSL *ssl;
	short want; /* poll events the pending TLS operation waits for */
	uint64_t deadline_ns, next_attempt_ns, connected_ns;
	unsigned failures, rotor;
	char peer[INET6_ADDRSTRLEN + 16];

	char *sbuf;
	size_t sbuf_cap, sb_start, sb_end;
	uint64_t plain_queued, plain_written;
	size_t tls_chunk; /* length of an SSL_write to repeat, 0 if none */

	struct inflight *inf;
	size_t inf_head, inf_count, inf_marked, inf_acked;
	uint64_t inf_bytes;
	uint64_t max_seq_sent;
	bool any_sent;

	char *fbuf;
	size_t fbuf_cap;

	struct qent batch[OUTPUT_BATCH_MAX];
	size_t batch_n;
	bool batch_emptied, need_sync, gen_valid;
	uint64_t batch_gen;
	uint64_t spool_retry_ns, cursor_sync_ns;
	bool cursor_dirty;
	char last_logged[256];
	char last_logged_spool[256]; /* spool errors apart: they alternate with connection ones */
	uint64_t rng;
};

static uint64_t ms_to_ns(uint64_t ms)
{
	return ms * 1000000ull;
}

static int ns_to_timeout(uint64_t deadline, uint64_t now)
{
	uint64_t ms;

	if (deadline <= now)
		return 0;
	ms = (deadline - now + 999999) / 1000000;
	return ms > INT32_MAX ? INT32_MAX : (int)ms;
}

static void timeout_min(int *t, int v)
{
	if (v >= 0 && (*t < 0 || v < *t))
		*t = v;
}

static uint64_t rng_next(struct net *n)
{
	/* xorshift64*: jitter only, not security. */
	n->rng ^= n->rng >> 12;
	n->rng ^= n->rng << 25;
	n->rng ^= n->rng >> 27;
	return n->rng * 2685821657736338717ull;
}

static const struct outputs_config *cfg_of(struct net *n)
{
	return &n->out->shared->cfg;
}

static _printf_(5, 0) void set_error_v(struct net *n, bool warn, char *last, size_t last_size,
				       const char *fmt, va_list ap)
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

/* Records the error for the stats; logs it when it is new (a collector that stays down for
 * hours gives one warning, not one per attempt). */
static _printf_(3, 4) void set_error(struct net *n, bool warn, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	set_error_v(n, warn, n->last_logged, sizeof(n->last_logged), fmt, ap);
	va_end(ap);
}

/* The same for the spool (a full disk): remembered apart from connection errors, which retry
 * at their own pace, so that the two alternating do not log a line per attempt. */
static _printf_(2, 3) void set_spool_error(struct net *n, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	set_error_v(n, true, n->last_logged_spool, sizeof(n->last_logged_spool), fmt, ap);
	va_end(ap);
}

static void spool_ok(struct net *n)
{
	if (!n->last_logged_spool[0])
		return;
	log_info("output %s: the spool is writable again", n->out->spec.name);
	n->last_logged_spool[0] = 0;
}

static struct inflight *inf_at(struct net *n, size_t i)
{
	return &n->inf[(n->inf_head + i) % NET_INFLIGHT_MAX];
}

static void net_close(struct net *n)
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

/* A connection attempt failed (connect, TLS handshake). */
static void net_fail(struct net *n, uint64_t now, const char *fmt, ...) _printf_(3, 4);

static void net_fail(struct net *n, uint64_t now, const char *fmt, ...)
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

/* An established connection was lost. */
static void net_drop(struct net *n, uint64_t now, const char *fmt, ...) _printf_(3, 4);

static void net_drop(struct net *n, uint64_t now, const char *fmt, ...)
{
	char msg[200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
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

static void tls_error_string(struct net *n, int ret, int err, char *buf, size_t size)
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

static void net_handshake(struct net *n, uint64_t now)
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
	tls_error_string(n, r, e, msg, sizeof(msg));
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

static void net_connect(struct net *n, uint64_t now)
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

static void net_connect_done(struct net *n, uint64_t now)
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

/* Reads and discards what the collector sends; notices a close. 0, or -errno (dropped). */
static int net_read(struct net *n, uint64_t now, short revents)
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
		tls_error_string(n, k, e, msg, sizeof(msg));
		net_drop(n, now, "%s", msg);
		return -ECONNRESET;
	}
}

static void mark_written(struct net *n)
{
	uint64_t wire = n->ssl ? BIO_number_written(SSL_get_wbio(n->ssl)) : n->plain_written;

	while (n->inf_marked < n->inf_count) {
		struct inflight *e = inf_at(n, n->inf_marked);

		if (e->plain_end > n->plain_written)
			break;
		e->wire_end = n->ssl ? wire : e->plain_end;
		n->inf_marked++;
		atomic_fetch_add(&n->out->c.sent, 1);
	}
}

/* Writes what is buffered, without blocking. 0, or -errno (the caller drops the connection). */
static int net_write(struct net *n, char *msg, size_t msgsize)
{
	while (n->sb_start < n->sb_end) {
		if (!n->ssl) {
			ssize_t k = send(n->fd, n->sbuf + n->sb_start, n->sb_end - n->sb_start,
					 MSG_NOSIGNAL | MSG_DONTWAIT);

			if (k < 0) {
				if (errno == EINTR)
					continue;
				if (errno == EAGAIN || errno == EWOULDBLOCK) {
					n->want = POLLOUT;
					break;
				}
				snprintf(msg, msgsize, "%s", strerror(errno));
				return -errno;
			}
			n->sb_start += (size_t)k;
			n->plain_written += (uint64_t)k;
		} else {
			size_t chunk = n->tls_chunk ? n->tls_chunk
						    : MIN(n->sb_end - n->sb_start, (size_t)NET_TLS_CHUNK);
			int k, e;

			ERR_clear_error();
			errno = 0;
			k = SSL_write(n->ssl, n->sbuf + n->sb_start, (int)chunk);
			if (k > 0) {
				n->sb_start += (size_t)k;
				n->plain_written += (uint64_t)k;
				n->tls_chunk = 0;
				continue;
			}
			e = SSL_get_error(n->ssl, k);
			if (e == SSL_ERROR_WANT_WRITE || e == SSL_ERROR_WANT_READ) {
				n->tls_chunk = chunk;
				n->want = e == SSL_ERROR_WANT_WRITE ? POLLOUT : POLLIN;
				break;
			}
			tls_error_string(n, k, e, msg, msgsize);
			return -EIO;
		}
	}
	if (n->sb_start == n->sb_end) {
		n->sb_start = n->sb_end = 0;
		n->want = 0;
	}
	mark_written(n);
	return 0;
}

/* Moves records from the spool into the send buffer and the in-flight window. */
static int net_fill(struct net *n)
{
	size_t need = n->fbuf_cap + 32;

	while (n->inf_count < NET_INFLIGHT_MAX && n->inf_bytes < NET_INFLIGHT_BYTES) {
		struct spool_record rec;
		struct inflight *e;
		char pfx[24];
		size_t pl;
		int r;

		if (n->sbuf_cap - n->sb_end < need) {
			if (n->sb_start > 0 && n->tls_chunk == 0) {
				memmove(n->sbuf, n->sbuf + n->sb_start, n->sb_end - n->sb_start);
				n->sb_end -= n->sb_start;
				n->sb_start = 0;
			}
			if (n->sbuf_cap - n->sb_end < need)
				break;
		}
		r = spool_next(n->spool, &rec);
		if (r <= 0)
			return r;
		pl = rfc6587_prefix(rec.len, pfx);
		memcpy(n->sbuf + n->sb_end, pfx, pl);
		memcpy(n->sbuf + n->sb_end + pl, rec.data, rec.len);
		n->sb_end += pl + rec.len;
		n->plain_queued += pl + rec.len;
		e = inf_at(n, n->inf_count++);
		*e = (struct inflight){
			.seq = rec.seq,
			.plain_end = n->plain_queued,
			.bytes = (uint32_t)(pl + rec.len),
			.q = (uint8_t)rec.queue,
		};
		n->inf_bytes += e->bytes;
		if (n->any_sent && rec.seq <= n->max_seq_sent)
			atomic_fetch_add(&n->out->c.replayed, 1);
		else {
			n->max_seq_sent = rec.seq;
			n->any_sent = true;
		}
	}
	return 0;
}

/* Acknowledged bytes (SIOCOUTQ) and confirmation of records that stayed acknowledged. */
static void net_confirm(struct net *n, uint64_t now)
{
	uint64_t confirm = ms_to_ns(cfg_of(n)->confirm_ms);

	if (n->inf_acked < n->inf_marked) {
		int outq = 0;

		if (ioctl(n->fd, SIOCOUTQ, &outq) == 0 && outq >= 0) {
			uint64_t total = n->ssl ? BIO_number_written(SSL_get_wbio(n->ssl))
						: n->plain_written;
			uint64_t acked = total - MIN((uint64_t)outq, total);

			while (n->inf_acked < n->inf_marked &&
			       inf_at(n, n->inf_acked)->wire_end <= acked)
				inf_at(n, n->inf_acked++)->acked_ns = now;
		}
	}
	while (n->inf_acked > 0 && now >= inf_at(n, 0)->acked_ns + confirm) {
		struct inflight *e = inf_at(n, 0);

		spool_confirm(n->spool, e->q, e->seq);
		atomic_fetch_add(&n->out->c.delivered, 1);
		n->inf_bytes -= e->bytes;
		n->inf_head = (n->inf_head + 1) % NET_INFLIGHT_MAX;
		n->inf_count--;
		n->inf_marked--;
		n->inf_acked--;
		n->cursor_dirty = true;
	}
}

static int net_format(struct net *n, const struct output_rec *rec, size_t *ret_len)
{
	static const unsigned sevmap[RG_SEV__MAX] = {SYSLOG_INFO, SYSLOG_NOTICE, SYSLOG_WARNING,
						       SYSLOG_ERR, SYSLOG_CRIT};
	const struct outputs_shared *o = n->out->shared;
	const struct rfc5424_param params[] = {
		{"rule", rec->rule},
		{"severity", severity_to_string(rec->sev)},
		{"id", rec->uuid},
	};
	const struct rfc5424_msg m = {
		.facility = n->facility,
		.severity = sevmap[rec->sev < RG_SEV__MAX ? rec->sev : RG_SEV_MEDIUM],
		.timestamp_ns = rec->ts_ns,
		.hostname = o->hostname,
		.app_name = "rdmaguard",
		.procid = o->procid,
		.msgid = rec->rule,
		.sd_id = RFC5424_SD_ID,
		.params = params,
		.n_params = ARRAY_SIZE(params),
		.msg = rec->json,
		.msg_len = rec->len,
		.bom = n->out->spec.bom,
	};
	size_t len = rfc5424_format(&m, n->fbuf, n->fbuf_cap);

	if (len >= n->fbuf_cap)
		return -E2BIG;
	*ret_len = len;
	return 0;
}

static void take_spool_losses(struct net *n)
{
	uint64_t d[SPOOL_QUEUES];
	struct output *out = n->out;
	unsigned q;

	spool_take_unreported(n->spool, d);
	pthread_mutex_lock(&out->lock);
	for (q = 0; q < SPOOL_QUEUES; q++) {
		uint64_t k;

		for (k = 0; k < d[q]; k++)
			output_count_drop_locked(out, q, OUTPUT_DROP_SPOOL_FULL, q == SPOOL_Q_LOSS);
	}
	pthread_mutex_unlock(&out->lock);
}

static void net_spool_batch(struct net *n, uint64_t now, bool stop)
{
	struct output *out = n->out;
	size_t i;
	bool any = false;
	int r = 0;

	for (i = 0; i < n->batch_n; i++) {
		struct output_rec *rec = n->batch[i].rec;
		bool is_loss = rec->flags & OUTPUT_SUBMIT_LOSS;
		size_t len;

		r = net_format(n, rec, &len);
		if (r == 0)
			r = spool_append(n->spool, is_loss ? SPOOL_Q_LOSS : rec->sev, rec->ts_ns,
					 n->fbuf, len);
		if (r == SPOOL_STORED) {
			atomic_fetch_add(&out->c.spooled, 1);
			spool_ok(n);
			any = true;
		} else if (r == SPOOL_DROPPED)
			any = true; /* counted by the spool, taken below */
		else if (r == -E2BIG) {
			pthread_mutex_lock(&out->lock);
			output_count_drop_locked(out, rec->sev, OUTPUT_DROP_TOO_LARGE, is_loss);
			pthread_mutex_unlock(&out->lock);
		} else {
			set_spool_error(n, "failed to write to the spool: %s", strerror(-r));
			n->spool_retry_ns = now + ms_to_ns(NET_SPOOL_RETRY_MS);
			break;
		}
		output_rec_unref(rec);
	}
	memmove(n->batch, n->batch + i, (n->batch_n - i) * sizeof(n->batch[0]));
	n->batch_n -= i;
	if (stop && n->batch_n > 0) {
		log_error("output %s: stopping with %zu alert(s) that could not be spooled: lost",
			  out->spec.name, n->batch_n);
		pthread_mutex_lock(&out->lock);
		for (i = 0; i < n->batch_n; i++) {
			output_count_drop_locked(out, n->batch[i].rec->sev, OUTPUT_DROP_WRITE_ERROR,
						 n->batch[i].rec->flags & OUTPUT_SUBMIT_LOSS);
			output_rec_unref(n->batch[i].rec);
		}
		pthread_mutex_unlock(&out->lock);
		n->batch_n = 0;
	}
	if (any)
		n->need_sync = true;
	take_spool_losses(n);
}

static void publish(struct net *n)
{
	struct spool_stats st;
	bool settled;

	spool_get_stats(n->spool, &st);
	atomic_store(&n->out->c.spool_records, st.records + st.loss_records);
	atomic_store(&n->out->c.spool_bytes, st.bytes + st.loss_bytes);
	atomic_store(&n->out->c.spool_corrupt, st.corrupt);
	settled = n->batch_n == 0 && !n->need_sync &&
		  (st.records + st.loss_records == 0 || n->state != NET_CONNECTED);
	output_publish(n->out, n->gen_valid, n->batch_gen, settled);
	n->gen_valid = false;
}

static void *net_thread(void *arg)
{
	struct output *out = arg;
	struct net *n = out->sink_state;
	bool stop = false;

	take_spool_losses(n); /* unreported drops of an earlier run */
	for (;;) {
		uint64_t now = now_monotonic_ns();
		struct pollfd p[2];
		int timeout = -1, np, r;
		unsigned rounds;
		char msg[200];

		if (n->batch_n == 0) {
			n->batch_n = output_take(out, n->batch, OUTPUT_BATCH_MAX, &n->batch_emptied,
						 &n->batch_gen, &stop);
		} else {
			pthread_mutex_lock(&out->lock);
			stop = out->stop;
			pthread_mutex_unlock(&out->lock);
		}
		/* Group commit: spool what the queue holds (up to NET_SPOOL_ROUNDS batches), then
		 * one fdatasync for all of it. */
		for (rounds = 0; n->batch_n > 0 && (now >= n->spool_retry_ns || stop); rounds++) {
			net_spool_batch(n, now, stop);
			if (n->batch_n > 0 || n->batch_emptied || rounds + 1 == NET_SPOOL_ROUNDS)
				break;
			n->batch_n = output_take(out, n->batch, OUTPUT_BATCH_MAX, &n->batch_emptied,
						 &n->batch_gen, &stop);
		}
		if (n->need_sync) {
			r = spool_sync(n->spool);
			if (r < 0) {
				set_spool_error(n, "failed to sync the spool: %s", strerror(-r));
				n->spool_retry_ns = now + ms_to_ns(NET_SPOOL_RETRY_MS);
			} else {
				n->need_sync = false;
				n->cursor_dirty = false;
			}
		}
		/* Everything taken up to batch_gen is durable: flush may count it done. */
		if (n->batch_n == 0 && n->batch_emptied && !n->need_sync)
			n->gen_valid = true;
		if (stop && n->batch_n == 0 && n->batch_emptied) {
			publish(n);
			break;
		}

		switch (n->state) {
		case NET_IDLE:
			if (now >= n->next_attempt_ns)
				net_connect(n, now);
			break;
		case NET_CONNECTING:
		case NET_HANDSHAKE:
			if (now >= n->deadline_ns)
				net_fail(n, now, "%s to %s timed out after %u ms",
					 n->state == NET_CONNECTING ? "connect" : "TLS handshake",
					 n->peer, cfg_of(n)->connect_timeout_ms);
			break;
		case NET_CONNECTED:
			break;
		}
		/* Spooling first: while the memory queue is not drained, do not spend time sending
		 * (a burst would otherwise overflow the queue; the spool is the buffer). */
		for (rounds = 0; n->state == NET_CONNECTED && (n->batch_emptied || n->batch_n > 0) &&
				 rounds < NET_SEND_ROUNDS;
		     rounds++) {
			r = net_fill(n);
			if (r == -EBADMSG) {
				net_drop(n, now, "spool damaged and reloaded, sending it again");
				break;
			}
			if (r < 0) {
				/* Start over on a new connection after a backoff, not in a busy loop. */
				net_drop(n, now, "failed to read the spool: %s", strerror(-r));
				break;
			}
			if (n->sb_start == n->sb_end)
				break; /* nothing to send, or the in-flight window is full */
			if (net_write(n, msg, sizeof(msg)) < 0) {
				net_drop(n, now, "%s", msg);
				break;
			}
			if (n->sb_start < n->sb_end)
				break; /* the socket is full: wait for POLLOUT */
		}
		if (n->state == NET_CONNECTED)
			net_confirm(n, now);
		if (n->cursor_dirty && now >= n->cursor_sync_ns) {
			r = spool_sync(n->spool);
			if (r < 0)
				set_spool_error(n, "failed to sync the spool: %s", strerror(-r));
			n->cursor_dirty = false;
			n->cursor_sync_ns = now + ms_to_ns(NET_CURSOR_SYNC_MS);
		}
		publish(n);

		/* Sleep until something happens or a deadline. */
		timeout_min(&timeout, output_loss_tick(out, now));
		if (n->batch_n > 0)
			timeout_min(&timeout, ns_to_timeout(n->spool_retry_ns, now));
		if (n->need_sync)
			timeout_min(&timeout, ns_to_timeout(n->spool_retry_ns, now));
		if (n->cursor_dirty)
			timeout_min(&timeout, ns_to_timeout(n->cursor_sync_ns, now));
		p[0] = (struct pollfd){.fd = out->wake_fd, .events = POLLIN};
		np = 1;
		switch (n->state) {
		case NET_IDLE:
			timeout_min(&timeout, ns_to_timeout(n->next_attempt_ns, now));
			break;
		case NET_CONNECTING:
			p[np++] = (struct pollfd){.fd = n->fd, .events = POLLOUT};
			timeout_min(&timeout, ns_to_timeout(n->deadline_ns, now));
			break;
		case NET_HANDSHAKE:
			p[np++] = (struct pollfd){.fd = n->fd, .events = n->want ? n->want : POLLIN};
			timeout_min(&timeout, ns_to_timeout(n->deadline_ns, now));
			break;
		case NET_CONNECTED:
			p[np++] = (struct pollfd){
				.fd = n->fd,
				.events = POLLIN | POLLRDHUP |
					  (n->sb_start < n->sb_end ? (n->want ? n->want : POLLOUT)
								   : 0),
			};
			if (n->inf_acked < n->inf_marked)
				timeout_min(&timeout, NET_ACK_TICK_MS);
			else if (n->inf_acked > 0)
				timeout_min(&timeout,
					    ns_to_timeout(inf_at(n, 0)->acked_ns +
								  ms_to_ns(cfg_of(n)->confirm_ms),
							  now));
			break;
		}
		if (n->batch_n == 0 && !n->batch_emptied)
			timeout = 0; /* more in the queue */
		if (n->state == NET_CONNECTED && n->sb_start == n->sb_end &&
		    n->inf_count < NET_INFLIGHT_MAX && n->inf_bytes < NET_INFLIGHT_BYTES &&
		    spool_unsent(n->spool) > 0)
			timeout = 0; /* more in the spool to send */
		r = poll(p, (nfds_t)np, timeout);
		if (r <= 0)
			continue;
		now = now_monotonic_ns();
		if (p[0].revents)
			output_drain_eventfd(out->wake_fd);
		if (np < 2 || !p[1].revents)
			continue;
		switch (n->state) {
		case NET_CONNECTING:
			net_connect_done(n, now);
			break;
		case NET_HANDSHAKE:
			net_handshake(n, now);
			break;
		case NET_CONNECTED:
			if (p[1].revents & (POLLIN | POLLRDHUP | POLLHUP | POLLERR))
				(void)net_read(n, now, p[1].revents);
			break;
		case NET_IDLE:
			break;
		}
	}
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
	atomic_store(&out->c.connected, false);
	(void)spool_sync(n->spool);
	return NULL;
}

static int check_regular(const char *what, const char *path, const char *name)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return log_error_errno(-errno, "output %s: %s %s: %m", name, what, path);
	if (!S_ISREG(st.st_mode))
		return log_error_errno(-EBADFD, "output %s: %s %s: not a regular file", name, what,
				       path);
	return 0;
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

static int tls_ctx_new(const struct output_spec *sp, SSL_CTX **ret)
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
	if (sp->ca[0]) {
		r = check_regular("CA file", sp->ca, sp->name);
		if (r < 0)
			goto fail;
		if (SSL_CTX_load_verify_locations(ctx, sp->ca, NULL) != 1) {
			r = ssl_fail(sp->name, "CA file", sp->ca);
			goto fail;
		}
	} else if (SSL_CTX_set_default_verify_paths(ctx) != 1) {
		r = ssl_fail(sp->name, "the system's trust store", "");
		goto fail;
	}
	if (sp->cert[0]) {
		struct stat st;

		r = check_regular("certificate", sp->cert, sp->name);
		if (r == 0)
			r = check_regular("key", sp->key, sp->name);
		if (r < 0)
			goto fail;
		if (stat(sp->key, &st) == 0 && (st.st_mode & 077))
			log_warning("output %s: private key %s is accessible to group or others",
				    sp->name, sp->key);
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

static void net_free(void *state);

static int net_new(struct output *out, void **ret)
{
	const struct outputs_config *c = &out->shared->cfg;
	struct spool_stats st;
	struct net *n;
	int r;

	n = calloc(1, sizeof(*n));
	if (!n)
		return log_oom();
	n->out = out;
	n->fd = -1;
	n->facility = (unsigned)(out->spec.facility >= 0 ? out->spec.facility
							 : out->shared->facility);
	n->fbuf_cap = (size_t)c->max_alert_bytes + 4096;
	n->sbuf_cap = 2 * (n->fbuf_cap + 32);
	n->fbuf = malloc(n->fbuf_cap);
	n->sbuf = malloc(n->sbuf_cap);
	n->inf = calloc(NET_INFLIGHT_MAX, sizeof(*n->inf));
	if (!n->fbuf || !n->sbuf || !n->inf) {
		r = log_oom();
		goto fail;
	}
	if (getrandom(&n->rng, sizeof(n->rng), GRND_NONBLOCK) != sizeof(n->rng) || !n->rng)
		n->rng = now_monotonic_ns() ^ ((uint64_t)getpid() << 32) ^ 0x9e3779b97f4a7c15ull;
	if (out->spec.type == OUTPUT_SYSLOG_TLS) {
		r = tls_ctx_new(&out->spec, &n->ctx);
		if (r < 0)
			goto fail;
	}
	r = output_spool_open(out, &n->spool);
	if (r < 0)
		goto fail;
	spool_get_stats(n->spool, &st);
	atomic_store(&out->c.spool_records, st.records + st.loss_records);
	atomic_store(&out->c.spool_bytes, st.bytes + st.loss_bytes);
	atomic_store(&out->c.spool_corrupt, st.corrupt);
	if (st.records + st.loss_records > 0)
		log_info("output %s: %" PRIu64 " alert(s) in the spool from an earlier run",
			 out->spec.name, st.records + st.loss_records);
	*ret = n;
	return 0;
fail:
	net_free(n);
	return r;
}

static void net_free(void *state)
{
	struct net *n = state;

	if (!n)
		return;
	if (n->ssl)
		SSL_free(n->ssl);
	if (n->fd >= 0)
		close(n->fd);
	SSL_CTX_free(n->ctx);
	spool_close(n->spool);
	while (n->batch_n > 0)
		output_rec_unref(n->batch[--n->batch_n].rec);
	free(n->fbuf);
	free(n->sbuf);
	free(n->inf);
	free(n);
}

const struct output_sink output_net_sink = {
	.new = net_new,
	.free = net_free,
	.thread = net_thread,
	.wake_always = true,
	.spooled = true,
};
