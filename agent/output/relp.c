/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The thread of a relp:// output: memory queue -> spool (net.c's half, shared with syslog) ->
 * RELP, rsyslog's acknowledged protocol, through Debian's librelp (the client omrelp uses).
 *
 * Why RELP: syslog over TCP or TLS has no application acknowledgement, so a syslog output counts
 * a record delivered only when the collector's TCP stack acknowledged it and the connection was
 * still up confirm_ms later; a connection that fails before then is sent again whole (about a
 * second of alerts duplicated across a collector restart). A RELP collector answers every
 * message after it took it, and librelp keeps what is not answered yet ("unacked") and, on
 * relpCltReconnect(), sends exactly that again on the new session: across a collector restart
 * nothing is lost and nothing repeated.
 *
 * What librelp does not say is which message was answered. Two facts give it: a send returns
 * only once fewer than RELP_WINDOW messages are unanswered (librelp waits for the window before
 * sending), and a RELP server answers in order. So once message k was handed over, every message
 * before the last RELP_WINDOW handed over was answered, and its record leaves the spool. The
 * last RELP_WINDOW are confirmed when the output goes idle: a graceful close waits for the
 * server's answer to "close", which comes after every earlier answer; when no error was reported
 * during the session (librelp reports every broken session through the error callback), all of
 * them were answered.
 *
 * Where a duplicate remains possible (documented in operations.md): the agent stopped or killed
 * while messages are unanswered (they stay in the spool and are sent again on the next start), or
 * the collector failing in the middle of that idle close. A message librelp could not hand over
 * (the send failed) was not sent whole and is held here, sent first once the session is back.
 *
 * librelp is blocking: a connection attempt waits up to connect_timeout_ms and a send for the
 * window up to the same (rounded up to seconds); meanwhile alerts wait in the memory queue.
 *
 * relp+tls:// is the same inside librelp's own TLS, through GnuTLS (Debian 12's librelp 1.11 has
 * both; its OpenSSL client shares one SSL_CTX per process, loaded with the first client's CA,
 * where GnuTLS reads the files of each connection). The server is authenticated by name
 * ("name", rsyslog's x509/name: its chain verified against ?ca=, then a subjectAltName dNSName or
 * the CN equal to ?peer=, by default HOST). librelp 1.11 falls back to anonymous TLS, verifying
 * nothing, when the client has no certificate of its own, and trusts no CA unless given one: so
 * spec.c requires ca, cert and key, and a wrong name or CA fails the handshake (a failed connect,
 * counted; the records stay in the spool). The files are checked at start (tls_files.h) and read
 * again by librelp at each connection.
 *
 * Over TLS the window is 2, not 32: librelp reads one TLS record, so one answer, before each
 * send, where a plain recv() takes every answer waiting. With a wide window its count of
 * unanswered messages lags behind the server's answers, and at a break it sends again what the
 * server had answered (10 to 22 of 200 repeated across an imrelp restart with a window of 32,
 * 2 with 4, none with 2: rsyslog-relp-tls). Throughput is the same (about 2,300 alerts a second
 * either way on the test machine: the spool, not the window, bounds it).
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <stddef.h> /* before librelp.h, which needs size_t */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <librelp.h>

#include "common/clock.h"
#include "common/log.h"
#include "common/macro.h"
#include "net_state.h"
#include "sink.h"
#include "spool.h"
#include "tls_files.h"

#define RELP_WINDOW	 32  /* messages librelp may have unanswered */
#define RELP_TLS_WINDOW	 2   /* the same over TLS (see the top of the file) */
/* librelp ignores a window below 2 (it keeps its default, 128): the counting below would lie. */
_Static_assert(RELP_TLS_WINDOW >= 2 && RELP_WINDOW >= 2, "librelp's smallest window is 2");
_Static_assert(2 * RELP_WINDOW >= RELP_TLS_WINDOW + 1, "pend[] holds a window and one");
#define RELP_SEND_ROUNDS 256 /* messages per loop iteration, between spooling rounds */

struct relp_pending {
	uint64_t seq;
	uint32_t len; /* the message's bytes (the counters') */
	uint8_t q;
};

struct relp {
	struct net *n;
	relpEngine_t *engine;
	relpClt_t *clt;
	bool session;	 /* clt has a session (relpCltConnect() succeeded): reconnect keeps it */
	unsigned window; /* RELP_WINDOW, or RELP_TLS_WINDOW */
	unsigned errors; /* error callbacks since the client was made */
	char last_error[200];
	bool auth_failed; /* in this connection attempt: last_error says which certificate */

	/* Handed to librelp and not yet known answered, in order. */
	struct relp_pending pend[2 * RELP_WINDOW];
	size_t pend_head, pend_n;

	/* A record librelp could not take: sent first on the next session. */
	char *held;
	uint32_t held_len;
	struct relp_pending held_rec;
	bool has_held;

	uint64_t last_send_ns;
};

static void relp_on_err(void *usr, char *objinfo, char *msg, relpRetVal code)
{
	struct relp *rl = usr;

	if (!rl)
		return;
	rl->errors++;
	if (rl->auth_failed)
		return; /* the handshake failing after a refused certificate: keep why */
	snprintf(rl->last_error, sizeof(rl->last_error), "%s: %s (librelp %d)",
		 objinfo ? objinfo : "?", msg ? msg : "?", code);
}

/* A certificate refused (wrong CA, wrong name): says why, with the names the server offered. */
static void relp_on_auth_err(void *usr, char *authinfo, char *msg, relpRetVal code)
{
	struct relp *rl = usr;

	if (!rl)
		return;
	rl->errors++;
	rl->auth_failed = true;
	snprintf(rl->last_error, sizeof(rl->last_error),
		 "server certificate refused: %s%s%s (librelp %d)", msg ? msg : "?",
		 authinfo && *authinfo ? ": " : "", authinfo ? authinfo : "", code);
}

static void relp_on_generic_err(char *objinfo, char *msg, relpRetVal code)
{
	log_debug("librelp: %s: %s (%d)", objinfo ? objinfo : "?", msg ? msg : "?", code);
}

/* librelp calls its debug hook unconditionally (a NULL one crashes): keep it quiet. */
static void relp_dbgprint(char *fmt, ...)
{
	(void)fmt;
}

static void relp_confirm_one(struct relp *rl)
{
	struct net *n = rl->n;
	struct relp_pending *p = &rl->pend[rl->pend_head];

	spool_confirm(n->spool, p->q, p->seq);
	atomic_fetch_add(&n->out->c.delivered, 1);
	atomic_fetch_add(&n->out->c.delivered_bytes, p->len);
	rl->pend_head = (rl->pend_head + 1) % ARRAY_SIZE(rl->pend);
	rl->pend_n--;
	n->cursor_dirty = true;
}

/* Frees the client. graceful: a RELP close first; returns whether every message was answered. */
static bool relp_client_free(struct relp *rl, bool graceful)
{
	unsigned before = rl->errors;

	if (!rl->clt)
		return false;
	if (!graceful)
		rl->errors++; /* the destructor closes politely anyway: do not trust it */
	(void)relpEngineCltDestruct(rl->engine, &rl->clt);
	rl->clt = NULL;
	rl->session = false;
	atomic_store(&rl->n->out->c.connected, false);
	rl->n->state = NET_IDLE;
	return graceful && rl->errors == before;
}

/* The client is gone: what librelp held is not known delivered (failed on this connection);
 * the spool sends it again. */
static void relp_forget(struct relp *rl)
{
	uint64_t bytes = 0;

	for (size_t i = 0; i < rl->pend_n; i++)
		bytes += rl->pend[(rl->pend_head + i) % ARRAY_SIZE(rl->pend)].len;
	output_count_failed(rl->n->out, OUTPUT_FAIL_CONNECTION_LOST, rl->pend_n, bytes);
	rl->pend_n = 0;
	rl->pend_head = 0;
	rl->has_held = false;
	spool_rewind(rl->n->spool);
}

static void relp_schedule_retry(struct relp *rl, uint64_t now)
{
	const struct outputs_config *c = cfg_of(rl->n);
	uint64_t d = c->backoff_min_ms;
	unsigned i;

	for (i = 0; i < rl->n->failures && d < c->backoff_max_ms; i++)
		d *= 2;
	d = MIN(d, (uint64_t)c->backoff_max_ms);
	rl->n->rng ^= rl->n->rng << 13;
	rl->n->rng ^= rl->n->rng >> 7;
	rl->n->rng ^= rl->n->rng << 17;
	d = d / 2 + rl->n->rng % (d / 2 + 1); /* jitter: a fleet does not reconnect in lockstep */
	rl->n->next_attempt_ns = now + ms_to_ns(d);
}

static void relp_warn(struct relp *rl, const char *what)
{
	char msg[sizeof(rl->n->last_logged)];

	snprintf(msg, sizeof(msg), "%s: %s", what, rl->last_error[0] ? rl->last_error : "?");
	pthread_mutex_lock(&rl->n->out->lock); /* the status' last_error */
	snprintf(rl->n->out->last_error, sizeof(rl->n->out->last_error), "%s", msg);
	pthread_mutex_unlock(&rl->n->out->lock);
	if (strcmp(msg, rl->n->last_logged) != 0) {
		log_warning("output %s: %s", rl->n->out->spec.name, msg);
		snprintf(rl->n->last_logged, sizeof(rl->n->last_logged), "%s", msg);
	}
}

/* librelp's TLS, the server authenticated by name (see the top of the file). */
static int relp_client_tls(struct relp *rl)
{
	const struct output_spec *sp = &rl->n->out->spec;

	if (sp->type != OUTPUT_RELP_TLS)
		return 0;
	if (relpCltEnableTLS(rl->clt) != RELP_RET_OK ||
	    relpCltSetAuthMode(rl->clt, (char *)"name") != RELP_RET_OK ||
	    relpCltSetCACert(rl->clt, (char *)sp->ca) != RELP_RET_OK ||
	    relpCltSetOwnCert(rl->clt, (char *)sp->cert) != RELP_RET_OK ||
	    relpCltSetPrivKey(rl->clt, (char *)sp->key) != RELP_RET_OK ||
	    relpCltAddPermittedPeer(rl->clt, (char *)(sp->peer[0] ? sp->peer : sp->host)) !=
		    RELP_RET_OK)
		return -EINVAL;
	return 0;
}

static int relp_client_new(struct relp *rl)
{
	const struct outputs_config *c = cfg_of(rl->n);
	unsigned secs = (c->connect_timeout_ms + 999) / 1000;

	if (relpEngineCltConstruct(rl->engine, &rl->clt) != RELP_RET_OK)
		return -ENOMEM;
	rl->errors = 0;
	if (relpCltSetUsrPtr(rl->clt, rl) != RELP_RET_OK ||
	    relpCltSetWindowSize(rl->clt, (int)rl->window) != RELP_RET_OK ||
	    relpCltSetTimeout(rl->clt, MAX(secs, 1u)) != RELP_RET_OK ||
	    relpCltSetConnTimeout(rl->clt, (int)MAX(secs, 1u)) != RELP_RET_OK ||
	    relp_client_tls(rl) < 0) {
		relp_client_free(rl, false);
		return -EINVAL;
	}
	return 0;
}

/* Connects (a new session) or reconnects (librelp sends its unanswered messages again). */
static void relp_connect(struct relp *rl, uint64_t now)
{
	struct net *n = rl->n;
	const struct output_spec *sp = &n->out->spec;
	char port[8];
	relpRetVal r;

	rl->last_error[0] = 0;
	rl->auth_failed = false;
	if (!rl->clt && relp_client_new(rl) < 0) {
		snprintf(rl->last_error, sizeof(rl->last_error), "cannot make a librelp client");
		goto fail;
	}
	if (rl->session)
		r = relpCltReconnect(rl->clt);
	else {
		int family = AF_UNSPEC;

		if (sp->host_is_ip)
			family = strchr(sp->host, ':') ? AF_INET6 : AF_INET;
		snprintf(port, sizeof(port), "%u", sp->port);
		r = relpCltConnect(rl->clt, family, (unsigned char *)port,
				   (unsigned char *)sp->host);
		if (r == RELP_RET_OK)
			rl->session = true;
	}
	if (r != RELP_RET_OK) {
		if (!rl->last_error[0])
			snprintf(rl->last_error, sizeof(rl->last_error), "librelp error %d", r);
		goto fail;
	}
	n->state = NET_CONNECTED;
	n->connected_ns = now;
	rl->last_send_ns = now;
	atomic_fetch_add(&n->out->c.connects, 1);
	atomic_store(&n->out->c.connected, true);
	if (n->last_logged[0]) {
		log_info("output %s: connected", sp->name);
		n->last_logged[0] = 0;
	}
	return;
fail:
	atomic_fetch_add(&n->out->c.connect_failures, 1);
	n->failures++;
	relp_warn(rl, "cannot connect");
	relp_schedule_retry(rl, now);
}

/* The session broke in a send: keep librelp's unanswered messages for relpCltReconnect(). */
static void relp_broken(struct relp *rl, uint64_t now)
{
	struct net *n = rl->n;

	n->state = NET_IDLE;
	atomic_store(&n->out->c.connected, false);
	atomic_fetch_add(&n->out->c.disconnects, 1);
	if (now - n->connected_ns >= NET_HEALTHY_NS)
		n->failures = 0;
	else
		n->failures++;
	relp_warn(rl, "connection lost");
	relp_schedule_retry(rl, now);
}

/* Hands one message to librelp. 0, or -EPIPE when the session broke (the record is held). */
static int relp_send_one(struct relp *rl, const char *data, uint32_t len, struct relp_pending rec,
			 uint64_t now)
{
	relpRetVal r = relpCltSendSyslog(rl->clt, (unsigned char *)data, len);

	if (r != RELP_RET_OK) {
		output_count_failed(rl->n->out, OUTPUT_FAIL_CONNECTION_LOST, 1, len);
		if (data != rl->held) {
			memcpy(rl->held, data, len);
			rl->held_len = len;
			rl->held_rec = rec;
		}
		rl->has_held = true; /* also when the held record itself failed again */
		/* SESSION_CLOSED: the server's "serverclose" hint (a collector stopping), which
		 * librelp takes as a broken session without calling the error callback. */
		if (r != RELP_RET_SESSION_BROKEN && r != RELP_RET_SESSION_CLOSED &&
		    r != RELP_RET_IO_ERR && r != RELP_RET_TIMED_OUT) {
			/* Not a broken session (librelp could not reconnect it): start over. */
			snprintf(rl->last_error, sizeof(rl->last_error), "librelp error %d", r);
			relp_client_free(rl, false);
			relp_forget(rl);
		}
		relp_broken(rl, now);
		return -EPIPE;
	}
	atomic_fetch_add(&rl->n->out->c.sent, 1);
	atomic_fetch_add(&rl->n->out->c.sent_bytes, len);
	rl->pend[(rl->pend_head + rl->pend_n) % ARRAY_SIZE(rl->pend)] = rec;
	rl->pend_n++;
	/* Fewer than the window were unanswered before this one went: all but the last
	 * window's worth handed over were answered. */
	while (rl->pend_n > rl->window)
		relp_confirm_one(rl);
	rl->last_send_ns = now;
	return 0;
}

static void relp_send(struct relp *rl, uint64_t now)
{
	struct net *n = rl->n;
	unsigned rounds;

	if (rl->has_held) {
		rl->has_held = false;
		if (relp_send_one(rl, rl->held, rl->held_len, rl->held_rec, now) < 0)
			return;
	}
	for (rounds = 0; rounds < RELP_SEND_ROUNDS && n->state == NET_CONNECTED; rounds++) {
		struct spool_record rec;
		int r = spool_next(n->spool, &rec);

		if (r == 0)
			return;
		if (r < 0) {
			/* Damaged spool (reloaded and rewound) or a read error: start over. */
			snprintf(rl->last_error, sizeof(rl->last_error), "spool: %s", strerror(-r));
			relp_client_free(rl, false);
			relp_forget(rl);
			relp_broken(rl, now);
			return;
		}
		if (n->any_sent && rec.seq <= n->max_seq_sent)
			atomic_fetch_add(&n->out->c.replayed, 1);
		else {
			n->max_seq_sent = rec.seq;
			n->any_sent = true;
		}
		if (relp_send_one(rl, rec.data, rec.len,
				  (struct relp_pending){.seq = rec.seq, .len = rec.len,
							.q = (uint8_t)rec.queue},
				  now) < 0)
			return;
	}
}

/* Nothing more to send: close the session so that its last messages count as answered. */
static void relp_idle_close(struct relp *rl)
{
	if (relp_client_free(rl, true)) {
		while (rl->pend_n > 0)
			relp_confirm_one(rl);
	} else {
		relp_warn(rl, "closing the idle session failed; unconfirmed alerts go again");
		relp_forget(rl);
	}
}

static bool relp_has_work(struct relp *rl)
{
	return rl->has_held || rl->pend_n > 0 || spool_unsent(rl->n->spool) > 0;
}

static void *relp_thread(void *arg)
{
	struct output *out = arg;
	struct relp *rl = out->sink_state;
	struct net *n = rl->n;

	net_take_spool_losses(n); /* unreported drops of an earlier run */
	for (;;) {
		uint64_t now = now_monotonic_ns();
		uint64_t idle_at;
		struct pollfd p;
		int timeout;

		if (net_spool_step(n, now))
			break;
		if (n->state == NET_IDLE && relp_has_work(rl) && now >= n->next_attempt_ns)
			relp_connect(rl, now);
		/* Spooling first: the spool is the buffer while the memory queue fills. */
		if (n->state == NET_CONNECTED && (n->batch_emptied || n->batch_n > 0))
			relp_send(rl, now);
		now = now_monotonic_ns();
		idle_at = rl->last_send_ns + ms_to_ns(cfg_of(n)->confirm_ms);
		if (n->state == NET_CONNECTED && !rl->has_held && spool_unsent(n->spool) == 0 &&
		    now >= idle_at)
			relp_idle_close(rl);
		net_cursor_sync(n, now);
		net_publish(n);

		timeout = net_spool_timeout(n, now);
		if (n->state == NET_IDLE && relp_has_work(rl))
			net_timeout_min(&timeout, net_ns_to_timeout(n->next_attempt_ns, now));
		if (n->state == NET_CONNECTED) {
			if (rl->has_held || spool_unsent(n->spool) > 0)
				timeout = 0;
			else
				net_timeout_min(&timeout, net_ns_to_timeout(idle_at, now));
		}
		p = (struct pollfd){.fd = out->wake_fd, .events = POLLIN};
		if (poll(&p, 1, timeout) > 0 && p.revents)
			output_drain_eventfd(out->wake_fd);
	}
	/* Stopping: what is answered leaves the spool; the rest goes after the next start. */
	if (rl->clt && n->state == NET_CONNECTED)
		relp_idle_close(rl);
	else
		relp_client_free(rl, false);
	(void)spool_sync(n->spool);
	return NULL;
}

static void relp_free(void *state)
{
	struct relp *rl = state;

	if (!rl)
		return;
	if (rl->clt)
		(void)relpEngineCltDestruct(rl->engine, &rl->clt);
	if (rl->engine)
		(void)relpEngineDestruct(&rl->engine);
	net_state_free(rl->n);
	free(rl->held);
	free(rl);
}

static int relp_new(struct output *out, void **ret)
{
	struct relp *rl;
	int r;

	if (out->spec.type == OUTPUT_RELP_TLS) {
		r = output_tls_files_check(&out->spec);
		if (r < 0)
			return r;
	}
	rl = calloc(1, sizeof(*rl));
	if (!rl)
		return log_oom();
	rl->window = out->spec.type == OUTPUT_RELP_TLS ? RELP_TLS_WINDOW : RELP_WINDOW;
	r = net_state_new(out, &rl->n);
	if (r < 0)
		goto fail;
	rl->held = malloc(rl->n->fbuf_cap);
	if (!rl->held) {
		r = log_oom();
		goto fail;
	}
	if (relpEngineConstruct(&rl->engine) != RELP_RET_OK ||
	    relpEngineSetDbgprint(rl->engine, relp_dbgprint) != RELP_RET_OK ||
	    relpEngineSetEnableCmd(rl->engine, (unsigned char *)"syslog",
				   eRelpCmdState_Required) != RELP_RET_OK ||
	    relpEngineSetDnsLookupMode(rl->engine, 0) != RELP_RET_OK ||
	    relpEngineSetOnErr(rl->engine, relp_on_err) != RELP_RET_OK ||
	    relpEngineSetOnGenericErr(rl->engine, relp_on_generic_err) != RELP_RET_OK) {
		r = log_error_errno(-ENOMEM, "output %s: failed to set up librelp", out->spec.name);
		goto fail;
	}
	if (out->spec.type == OUTPUT_RELP_TLS &&
	    (relpEngineSetTLSLibByName(rl->engine, "gnutls") != RELP_RET_OK ||
	     relpEngineSetOnAuthErr(rl->engine, relp_on_auth_err) != RELP_RET_OK)) {
		r = log_error_errno(-EOPNOTSUPP, "output %s: librelp has no GnuTLS support",
				    out->spec.name);
		goto fail;
	}
	*ret = rl;
	return 0;
fail:
	relp_free(rl);
	return r;
}

const struct output_sink output_relp_sink = {
	.new = relp_new,
	.free = relp_free,
	.thread = relp_thread,
	.wake_always = true,
	.spooled = true,
};
