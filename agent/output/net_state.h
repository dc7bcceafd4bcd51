/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Shared by the three parts of the syslog sink: net.c (the thread: queue -> spool, the poll
 * loop), net_conn.c (connecting, TLS, reading, losing the connection) and net_send.c (spool ->
 * send buffer -> socket, the in-flight window and its confirmation). The RELP sink (relp.c)
 * shares the first half: its records go through the same queue -> spool steps of net.c.
 */
#pragma once

#include <netinet/in.h>
#include <openssl/ssl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>

#include "common/macro.h"
#include "queue.h"

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

	/* The connection (net_conn.c). */
	enum net_state state;
	int fd;
	SSL *ssl;
	short want; /* poll events the pending TLS operation waits for */
	uint64_t deadline_ns, next_attempt_ns, connected_ns;
	unsigned failures, rotor;
	char peer[INET6_ADDRSTRLEN + 16];

	/* The send buffer and the in-flight window (net_send.c); reset by net_close(). */
	char *sbuf;
	size_t sbuf_cap, sb_start, sb_end;
	uint64_t plain_queued, plain_written;
	size_t tls_chunk; /* length of an SSL_write to repeat, 0 if none */

	struct inflight *inf;
	size_t inf_head, inf_count, inf_marked, inf_acked;
	uint64_t inf_bytes;
	uint64_t max_seq_sent;
	bool any_sent;

	/* Queue -> spool (net.c). */
	char *fbuf; /* one formatted record */
	size_t fbuf_cap;

	struct qent batch[OUTPUT_BATCH_MAX];
	size_t batch_n;
	bool batch_emptied, need_sync, gen_valid;
	uint64_t batch_gen;
	uint64_t spool_retry_ns, cursor_sync_ns;
	bool cursor_dirty;
	char last_logged[256]; /* connection errors */
	char last_logged_spool[256]; /* spool errors apart: they alternate with connection ones */
	uint64_t rng; /* reconnect jitter */
};

static inline uint64_t ms_to_ns(uint64_t ms)
{
	return ms * 1000000ull;
}

static inline const struct outputs_config *cfg_of(struct net *n)
{
	return &n->out->shared->cfg;
}

static inline struct inflight *inf_at(struct net *n, size_t i)
{
	return &n->inf[(n->inf_head + i) % NET_INFLIGHT_MAX];
}

/* net.c: the queue -> spool half, shared with relp.c */
/* Sets up the state of a spooled output (buffers, the spool); logs. */
int net_state_new(struct output *out, struct net **ret);
void net_state_free(struct net *n);
/* Takes from the queue, spools (group commit) and syncs; true once stopping with nothing left
 * (the last progress published). */
bool net_spool_step(struct net *n, uint64_t now);
/* Persists the spool cursor at most every NET_CURSOR_SYNC_MS once records were confirmed. */
void net_cursor_sync(struct net *n, uint64_t now);
/* The poll timeout the spooling half needs (-1: none). */
int net_spool_timeout(struct net *n, uint64_t now);
/* Counters and flush progress for the lifecycle. */
void net_publish(struct net *n);
/* Moves the drops the spool counted and nobody reported yet (also from an earlier run) into the
 * output's loss counters. */
void net_take_spool_losses(struct net *n);
int net_ns_to_timeout(uint64_t deadline, uint64_t now);
/* *t = the smaller of the two, -1 meaning none */
void net_timeout_min(int *t, int v);

/* net_conn.c */
/* Records the error for the stats; logs it when it differs from *last (a collector that stays
 * down for hours gives one warning, not one per attempt). */
_printf_(5, 0) void net_error_v(struct net *n, bool warn, char *last, size_t last_size,
				const char *fmt, va_list ap);
/* Closes the connection; what was not confirmed goes again on the next one. */
void net_close(struct net *n);
/* An established connection was lost: close, count, back off. */
_printf_(3, 4) void net_drop(struct net *n, uint64_t now, const char *fmt, ...);
/* Starts a connection attempt (NET_IDLE -> NET_CONNECTING, or on to NET_HANDSHAKE/CONNECTED). */
void net_connect(struct net *n, uint64_t now);
/* The socket of a NET_CONNECTING connection became writable. */
void net_connect_done(struct net *n, uint64_t now);
/* NET_HANDSHAKE: runs the TLS handshake on. */
void net_handshake(struct net *n, uint64_t now);
/* A connection attempt timed out or failed: close, count, back off. */
_printf_(3, 4) void net_fail(struct net *n, uint64_t now, const char *fmt, ...);
/* Reads and discards what the collector sends; notices a close. 0, or -errno (dropped). */
int net_read(struct net *n, uint64_t now, short revents);
/* What went wrong in an SSL call that returned ret with SSL_get_error() err. */
void net_tls_error_string(struct net *n, int ret, int err, char *buf, size_t size);
/* Stopping: a best-effort TLS close_notify, then the socket is closed. */
void net_shutdown(struct net *n);
/* The TLS client context of a syslog+tls:// output (trust store, client certificate); logs. */
int net_tls_ctx_new(const struct output_spec *sp, SSL_CTX **ret);

/* net_send.c */
/* Writes what is buffered, without blocking. 0, or -errno (the caller drops the connection). */
int net_write(struct net *n, char *msg, size_t msgsize);
/* Moves records from the spool into the send buffer and the in-flight window. */
int net_fill(struct net *n);
/* Acknowledged bytes (SIOCOUTQ) and confirmation of records that stayed acknowledged. */
void net_confirm(struct net *n, uint64_t now);
