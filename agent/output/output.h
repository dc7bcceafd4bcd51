/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Alert outputs: stdout, file:PATH (JSON lines), syslog+tcp:// and syslog+tls:// (RFC 5424 with
 * octet-counted framing, RFC 6587 3.4.1; TLS per RFC 5425), relp:// (RFC 5424 messages over RELP,
 * rsyslog's acknowledged protocol, through librelp: relp.c) and relp+tls:// (the same inside
 * librelp's TLS, the server's certificate verified).
 *
 * Threading: outputs_submit(), outputs_reopen(), outputs_flush(), outputs_dispatch(),
 * outputs_stats() and outputs_free() are called from the daemon's main thread. Each output runs
 * in its own thread behind a bounded in-memory queue, so outputs_submit() never waits for I/O:
 * it serialises the alert once, takes a short mutex per output and returns.
 *
 * Nothing lost: a syslog output writes every alert to its on-disk spool (a write-ahead log under
 * STATE_DIR/spool/, fsync'd in batches) before sending it, and removes it only once delivered
 * (see "delivered" below). The spool survives restarts and crashes; on start, what it holds is
 * sent first, in order. When the spool is full, the oldest alert of the lowest severity goes
 * first; every drop is counted and reported through the loss callback, which the daemon turns
 * into an AGENT-001 alert and submits with OUTPUT_SUBMIT_LOSS (kept in a reserve of the spool
 * that ordinary alerts cannot evict).
 *
 * Delivered: RFC 5424/6587/5425 have no application acknowledgement. A record counts as
 * delivered once every byte of it was acknowledged by the collector's TCP stack (SIOCOUTQ) and
 * the connection was still healthy confirm_ms later. Until then it stays in the spool, and a
 * connection that fails before that makes the whole unconfirmed window be sent again on the next
 * connection: at-least-once delivery, duplicates (same event.id) rather than loss. RELP has an
 * application acknowledgement: a relp:// record is delivered once the collector acknowledged it,
 * and across a collector restart only what it did not acknowledge is sent again (relp.c).
 */
#pragma once

#include <json-c/json.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/severity.h"
#include "event/alert.h"
#include "output/spec.h"

/* Why an alert was dropped. */
enum output_drop_reason {
	OUTPUT_DROP_QUEUE_FULL,	 /* the in-memory queue was full (the output thread is stuck) */
	OUTPUT_DROP_SPOOL_FULL,	 /* evicted from (or refused by) a full spool */
	OUTPUT_DROP_TOO_LARGE,	 /* the alert exceeds max_alert_bytes (or the spool's size) */
	OUTPUT_DROP_WRITE_ERROR, /* stdout/file: write failed (ENOSPC, EIO, EPIPE) */
	_OUTPUT_DROP_N,
};
const char *output_drop_reason_to_string(enum output_drop_reason r);

/* What one output lost since its last report; passed to the loss callback. */
struct output_loss {
	const char *output;		       /* the output's name (struct output_spec.name) */
	uint64_t by_severity[RG_SEV__MAX];   /* dropped since the last report */
	uint64_t by_reason[_OUTPUT_DROP_N];    /* the same drops, by cause */
	uint64_t total;			       /* sum of by_severity */
	uint64_t total_since_start;	       /* every drop of this output since outputs_new() */
	uint64_t loss_reports_dropped;	       /* earlier loss reports superseded (docs/operations.md) */
};
/* Adds {"output","dropped":{"total",info..critical},"reasons":{...},"total_since_start"} */
int output_loss_to_json(const struct output_loss *loss, struct json_object *into);

/*
 * For the daemon's agent_lost event that becomes AGENT-001 (struct rg_ev_agent: count = total,
 * what, text): *what is "spool" when the spool shed alerts, "queue" when only the memory queue
 * did, "output" otherwise; text reads "syslog+tcp://10.0.0.1:514: 20 alert(s) dropped (info 15,
 * low 5; spool_full 20)". Returns the length of the whole text, like snprintf.
 */
size_t output_loss_describe(const struct output_loss *loss, const char **what, char *text,
			    size_t size);

/* Called from outputs_dispatch() (the main thread), at most once per loss_interval_ms per output. */
typedef void (*outputs_loss_fn)(const struct output_loss *loss, void *userdata);

/* Every field may be left 0/NULL for its default (in brackets). Memory is bounded by these caps. */
struct outputs_config {
	const char *state_dir;	     /* spools live in STATE_DIR/spool/; required for syslog outputs */
	const char *hostname;	     /* RFC 5424 HOSTNAME [gethostname()] */
	const char *facility;	     /* default syslog facility name or number ["authpriv"] */
	uint32_t queue_max_records;  /* per output in-memory queue [4096] */
	uint64_t queue_max_bytes;    /* per output in-memory queue [16 MiB] */
	uint32_t max_alert_bytes;    /* one serialised alert [64 KiB] */
	uint64_t spool_max_bytes;    /* per syslog output, ordinary alerts [64 MiB] */
	uint32_t spool_max_records;  /* per syslog output, ordinary alerts [0: only the byte cap] */
	uint64_t spool_loss_reserve; /* per syslog output, loss reports only [1 MiB] */
	uint32_t connect_timeout_ms; /* TCP connect and TLS handshake [5000] */
	uint32_t backoff_min_ms;     /* first reconnect delay, doubled per failure [500] */
	uint32_t backoff_max_ms;     /* cap of the reconnect delay; jitter: [d/2, d] [30000] */
	uint32_t confirm_ms;	     /* acked bytes must survive this long to count delivered [1000] */
	uint32_t loss_interval_ms;   /* minimum time between two loss reports of an output [10000] */
	uint32_t stop_timeout_ms;    /* outputs_free(): wait this long for each thread [5000] */
	outputs_loss_fn loss_cb;
	void *loss_userdata;
};

struct rg_outputs;

/*
 * Opens every output: creates/opens files (0600) and spools, loads TLS material, starts the
 * threads. Logs a message naming the output and returns -errno on failure. n may be 0.
 */
int outputs_new(const struct output_spec *specs, size_t n, const struct outputs_config *cfg,
		struct rg_outputs **ret);

enum {
	OUTPUT_SUBMIT_LOSS = 1 << 0, /* a loss report: never evicted by ordinary alerts */
};

/*
 * Queues an alert (a JSON object with "event.id", "rule.id", "severity", "@timestamp",
 * "message"; dotted names may be nested objects or flat keys) on every output. Adds a uuid as
 * event.id when it has none. Never blocks on I/O. Returns 0 (also when a full queue dropped
 * something: that is counted and reported), -EINVAL (not an object), -E2BIG (too large; counted).
 */
int outputs_submit(struct rg_outputs *o, struct json_object *alert);
int outputs_submit_flags(struct rg_outputs *o, struct json_object *alert, unsigned flags);
/* The same for an alert already written (the rule engine's): its text is copied as it is.
 * -EINVAL without json or uuid; a severity out of range counts as medium, ts_ns 0 as now. */
int outputs_submit_alert(struct rg_outputs *o, const struct rg_alert *a, unsigned flags);

/* SIGUSR1: file outputs reopen their path; alerts submitted after this go to the new file. */
int outputs_reopen(struct rg_outputs *o);

/*
 * SIGTERM: waits up to timeout_ms until every queued alert is written (stdout, file: also
 * fdatasync) or durably spooled (syslog), and while a syslog output is connected, until its
 * spool is delivered. Returns 0, or -ETIMEDOUT if something was still in a memory queue.
 * Alerts left in a spool are delivered after the next start.
 */
int outputs_flush(struct rg_outputs *o, int timeout_ms);

/*
 * `rdmaguard replay`: as outputs_flush(), and waits up to timeout_ms until every syslog spool is
 * empty, through reconnects (a collector that is down now may be back within the timeout).
 * Returns 0, or -ETIMEDOUT if something was not delivered.
 */
int outputs_flush_delivered(struct rg_outputs *o, int timeout_ms);

/* An eventfd that becomes readable when outputs_dispatch() has loss reports to deliver. */
int outputs_get_fd(const struct rg_outputs *o);
/* Runs the loss callback for pending reports. Main thread; cheap when there is nothing. */
int outputs_dispatch(struct rg_outputs *o);
/* The same for every loss not yet reported, without waiting for its interval: at the end
 * (after outputs_flush), so that the last losses are reported too. */
int outputs_dispatch_final(struct rg_outputs *o);
/*
 * Whether the eventfd was signalled since the last call (and clears that), without a system
 * call: for a loop that does not poll the eventfd (replay) to know when to call
 * outputs_dispatch(). The state it reports is set before the signal.
 */
bool outputs_signaled(struct rg_outputs *o);

/*
 * Why an output failed to write or send a record (the failed counters). Unlike a drop, a failed
 * network record is not lost: it stays in the spool and goes again.
 */
enum output_fail_reason {
	OUTPUT_FAIL_WRITE_ERROR,     /* stdout/file: write(2) failed; the record is dropped too */
	OUTPUT_FAIL_CONNECTION_LOST, /* network: handed to a connection that ended before the
				      * collector confirmed it; sent again on the next one */
	OUTPUT_FAIL_SPOOL_ERROR,     /* network: appending it to the spool failed (a full disk);
				      * tried again after a second, counted at each try */
	_OUTPUT_FAIL_N,
};
const char *output_fail_reason_to_string(enum output_fail_reason r);
/* The reasons an output of type t can fail with (the others stay 0). */
bool output_fail_reason_applies(enum output_type t, enum output_fail_reason r);

/*
 * Counters of one output, for the heartbeat, `rdmaguard status` and the metrics. Bytes are the
 * record as the output writes it: stdout/file, the JSON line with its newline; syslog, the
 * octet-counted frame (RFC 6587 length prefix and RFC 5424 message, before TLS); RELP, the
 * RFC 5424 message (librelp's own framing left out). Spooled bytes are the RFC 5424 message.
 * Delivered: stdout/file, written (the kernel took the whole line; fdatasync only at a flush);
 * syslog, confirmed (acknowledged by the collector's TCP and the connection still up confirm_ms
 * later); RELP, acknowledged by the collector's RELP rsp. Either way removed from the spool.
 */
struct output_counters {
	uint64_t submitted;		     /* accepted into the memory queue */
	uint64_t queued, queued_bytes;	     /* in the memory queue now */
	uint64_t written, written_bytes;     /* stdout/file: lines written */
	uint64_t spooled, spooled_bytes;     /* network: appended to the spool */
	uint64_t spool_records, spool_bytes; /* network: in the spool now (not yet delivered) */
	uint64_t sent, sent_bytes;	     /* network: records written whole to a connection */
	uint64_t replayed;		     /* network: of which re-sent after a failed connection */
	uint64_t delivered, delivered_bytes; /* every output: see "Delivered" above */
	uint64_t failed[_OUTPUT_FAIL_N], failed_bytes[_OUTPUT_FAIL_N];
	uint64_t connects, connect_failures, disconnects;
	uint64_t spool_corrupt;		     /* records or torn tails skipped when opening */
	uint64_t dropped[_OUTPUT_DROP_N];
	uint64_t dropped_by_severity[RG_SEV__MAX];
	uint64_t loss_reports_dropped;
	bool connected;
};
size_t outputs_count(const struct rg_outputs *o);
int outputs_get_counters(const struct rg_outputs *o, size_t i, struct output_counters *ret);
const char *outputs_name(const struct rg_outputs *o, size_t i);
/* The i-th output's enum output_type, -ENOENT past the end. */
int outputs_type(const struct rg_outputs *o, size_t i);
/* A syslog output's spool capacity for ordinary alerts, in bytes (the metrics' spool use). */
uint64_t outputs_spool_max_bytes(const struct rg_outputs *o);
/* Adds "outputs": [{"name", "type", counters..., "last_error"}] to into. */
void outputs_stats(const struct rg_outputs *o, struct json_object *into);
/* Adds "outputs": [{"name", "chain": {"seq", "head"}}] of the file+chain: outputs alone (none:
 * nothing), what a slim heartbeat carries of the outputs (docs/evidence.md). */
void outputs_chain_heads(const struct rg_outputs *o, struct json_object *into);

/* Drains memory queues (files written, syslog alerts spooled), stops the threads, frees. */
void outputs_free(struct rg_outputs *o);
