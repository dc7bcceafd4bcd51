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
 * (net_conn.c), so alerts keep being spooled meanwhile; sending and confirming is net_send.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/log.h"
#include "common/macro.h"
#include "net_state.h"
#include "rfc5424.h"
#include "sink.h"
#include "spool.h"
#include "spooldir.h"

int net_ns_to_timeout(uint64_t deadline, uint64_t now)
{
	uint64_t ms;

	if (deadline <= now)
		return 0;
	ms = (deadline - now + 999999) / 1000000;
	return ms > INT32_MAX ? INT32_MAX : (int)ms;
}

void net_timeout_min(int *t, int v)
{
	if (v >= 0 && (*t < 0 || v < *t))
		*t = v;
}

/* A spool error (a full disk): remembered apart from connection errors (net_conn.c), which
 * retry at their own pace, so that the two alternating do not log a line per attempt. */
static _printf_(2, 3) void set_spool_error(struct net *n, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	net_error_v(n, true, n->last_logged_spool, sizeof(n->last_logged_spool), fmt, ap);
	va_end(ap);
}

static void spool_ok(struct net *n)
{
	if (!n->last_logged_spool[0])
		return;
	log_info("output %s: the spool is writable again", n->out->spec.name);
	n->last_logged_spool[0] = 0;
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

void net_take_spool_losses(struct net *n)
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
		size_t len = 0;

		r = net_format(n, rec, &len);
		if (r == 0)
			r = spool_append(n->spool, is_loss ? SPOOL_Q_LOSS : rec->sev, rec->ts_ns,
					 n->fbuf, len);
		if (r == SPOOL_STORED) {
			atomic_fetch_add(&out->c.spooled, 1);
			atomic_fetch_add(&out->c.spooled_bytes, len);
			spool_ok(n);
			any = true;
		} else if (r == SPOOL_DROPPED)
			any = true; /* counted by the spool, taken below */
		else if (r == -E2BIG) {
			pthread_mutex_lock(&out->lock);
			output_count_drop_locked(out, rec->sev, OUTPUT_DROP_TOO_LARGE, is_loss);
			pthread_mutex_unlock(&out->lock);
		} else {
			output_count_failed(out, OUTPUT_FAIL_SPOOL_ERROR, 1, len);
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
	net_take_spool_losses(n);
}

void net_publish(struct net *n)
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

bool net_spool_step(struct net *n, uint64_t now)
{
	struct output *out = n->out;
	bool stop = false;
	unsigned rounds;
	int r;

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
		net_publish(n);
		return true;
	}
	return false;
}

void net_cursor_sync(struct net *n, uint64_t now)
{
	int r;

	if (!n->cursor_dirty || now < n->cursor_sync_ns)
		return;
	r = spool_sync(n->spool);
	if (r < 0)
		set_spool_error(n, "failed to sync the spool: %s", strerror(-r));
	n->cursor_dirty = false;
	n->cursor_sync_ns = now + ms_to_ns(NET_CURSOR_SYNC_MS);
}

int net_spool_timeout(struct net *n, uint64_t now)
{
	int timeout = -1;

	net_timeout_min(&timeout, output_loss_tick(n->out, now));
	if (n->batch_n > 0)
		net_timeout_min(&timeout, net_ns_to_timeout(n->spool_retry_ns, now));
	if (n->need_sync)
		net_timeout_min(&timeout, net_ns_to_timeout(n->spool_retry_ns, now));
	if (n->cursor_dirty)
		net_timeout_min(&timeout, net_ns_to_timeout(n->cursor_sync_ns, now));
	if (n->batch_n == 0 && !n->batch_emptied)
		timeout = 0; /* more in the queue */
	return timeout;
}

static void *net_thread(void *arg)
{
	struct output *out = arg;
	struct net *n = out->sink_state;

	net_take_spool_losses(n); /* unreported drops of an earlier run */
	for (;;) {
		uint64_t now = now_monotonic_ns();
		struct pollfd p[2];
		int timeout, np, r;
		unsigned rounds;
		char msg[200];

		if (net_spool_step(n, now))
			break;

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
		net_cursor_sync(n, now);
		net_publish(n);

		/* Sleep until something happens or a deadline. */
		timeout = net_spool_timeout(n, now);
		p[0] = (struct pollfd){.fd = out->wake_fd, .events = POLLIN};
		np = 1;
		switch (n->state) {
		case NET_IDLE:
			net_timeout_min(&timeout, net_ns_to_timeout(n->next_attempt_ns, now));
			break;
		case NET_CONNECTING:
			p[np++] = (struct pollfd){.fd = n->fd, .events = POLLOUT};
			net_timeout_min(&timeout, net_ns_to_timeout(n->deadline_ns, now));
			break;
		case NET_HANDSHAKE:
			p[np++] = (struct pollfd){.fd = n->fd, .events = n->want ? n->want : POLLIN};
			net_timeout_min(&timeout, net_ns_to_timeout(n->deadline_ns, now));
			break;
		case NET_CONNECTED:
			p[np++] = (struct pollfd){
				.fd = n->fd,
				.events = POLLIN | POLLRDHUP |
					  (n->sb_start < n->sb_end ? (n->want ? n->want : POLLOUT)
								   : 0),
			};
			if (n->inf_acked < n->inf_marked)
				net_timeout_min(&timeout, NET_ACK_TICK_MS);
			else if (n->inf_acked > 0)
				net_timeout_min(&timeout,
					    net_ns_to_timeout(inf_at(n, 0)->acked_ns +
								  ms_to_ns(cfg_of(n)->confirm_ms),
							  now));
			break;
		}
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
	net_shutdown(n);
	(void)spool_sync(n->spool);
	return NULL;
}

int net_state_new(struct output *out, struct net **ret)
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
	net_state_free(n);
	return r;
}

static int net_new(struct output *out, void **ret)
{
	struct net *n;
	int r;

	r = net_state_new(out, &n);
	if (r < 0)
		return r;
	if (out->spec.type == OUTPUT_SYSLOG_TLS) {
		r = net_tls_ctx_new(&out->spec, &n->ctx);
		if (r < 0) {
			net_state_free(n);
			return r;
		}
	}
	*ret = n;
	return 0;
}

static void net_free(void *state)
{
	net_state_free(state);
}

void net_state_free(struct net *n)
{

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
