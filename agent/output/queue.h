/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The in-memory queue of one output, which every sink (file.c, net.c) takes its records from:
 * refcounted records shared by every output's queue, the bounded ring and its eviction, the
 * flush progress the sink publishes, and the loss accounting behind the loss reports.
 *
 * The lifecycle (output.c) owns struct outputs_shared and the array of struct output; a sink
 * sees only its own struct output and what the outputs share, never the other outputs.
 */
#pragma once

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "output.h"

#define OUTPUT_BATCH_MAX 256 /* alerts a thread takes from its queue at once */
#define OUTPUT_RING_SLACK 64 /* queue slots beyond queue_max_records: loss reports, reopen marks */
#define OUTPUT_UUID_MAX 64
#define OUTPUT_RULE_MAX 64

/* One serialised alert, shared (refcounted) by every output's queue. */
struct output_rec {
	atomic_uint refs;
	uint64_t ts_ns;
	uint8_t sev;   /* enum rg_severity */
	uint8_t flags; /* OUTPUT_SUBMIT_* */
	char uuid[OUTPUT_UUID_MAX + 1];
	char rule[OUTPUT_RULE_MAX + 1];
	size_t len;
	char json[]; /* NUL-terminated */
};

/* A record of a->len bytes holding a copy of a's text, with one reference; NULL when out of
 * memory. sev must be in range (the caller clamps it). */
struct output_rec *output_rec_new(const struct rg_alert *a, int sev, unsigned flags);
void output_rec_unref(struct output_rec *rec);

enum qent_kind {
	QE_ALERT,
	QE_REOPEN,
};

struct qent {
	struct output_rec *rec; /* NULL for QE_REOPEN */
	uint8_t kind;
};

struct counters {
	_Atomic uint64_t submitted, queued, queued_bytes, written, written_bytes, spooled,
		spooled_bytes, spool_records, spool_bytes, sent, sent_bytes, replayed, delivered,
		delivered_bytes, connects, connect_failures, disconnects, spool_corrupt,
		loss_reports_dropped;
	_Atomic uint64_t failed[_OUTPUT_FAIL_N], failed_bytes[_OUTPUT_FAIL_N];
	_Atomic uint64_t dropped[_OUTPUT_DROP_N];
	_Atomic uint64_t dropped_by_severity[RG_SEV__MAX];
	atomic_bool connected;
};

/* What every output of one rg_outputs shares: set up by outputs_new(), read-only afterwards
 * except for the loss eventfd and the flush condition. */
struct outputs_shared {
	struct outputs_config cfg;
	int facility;
	char hostname[256];
	char procid[16];
	int event_fd;
	atomic_bool event_signaled; /* set before event_fd is written (outputs_signaled) */
	int spool_dfd;		    /* STATE_DIR/spool, -1 without syslog outputs */
	pthread_mutex_t flush_lock;
	pthread_cond_t flush_cond;
};

struct output_sink;

struct output {
	struct outputs_shared *shared;
	struct output_spec spec;
	pthread_t thread;
	bool thread_started;
	int wake_fd; /* eventfd: the thread's wake-up */
	/* The thread is woken by every record, not only by the first into an empty queue. */
	bool wake_always;

	pthread_mutex_t lock; /* protects everything down to last_error */
	struct qent *ring;
	size_t ring_cap, ring_head, ring_count;
	size_t alerts_queued; /* ordinary alerts in the ring (the capped ones) */
	uint64_t queue_bytes;
	uint64_t submit_gen; /* bumped by every enqueue */
	bool stop;
	/* Losses not yet reported. */
	uint64_t loss_sev[RG_SEV__MAX];
	uint64_t loss_reason[_OUTPUT_DROP_N];
	uint64_t loss_superseded;
	uint64_t loss_total;
	bool loss_pending, loss_ready;
	uint64_t loss_signal_ns;
	char last_error[256];
	/* file+chain: the chain's head as the thread last wrote it (stats, heartbeats) */
	uint64_t chain_seq;
	char chain_head[65];

	/* Flush: published by the thread under shared->flush_lock. */
	uint64_t done_gen;
	bool settled;
	atomic_bool flush_req;

	struct counters c;

	const struct output_sink *sink;
	void *sink_state; /* what sink->new() made */
};

/* Sets up the queue of out (its ring and wake-up eventfd); logs. output_queue_fini() undoes it,
 * also after a failure. */
int output_queue_init(struct output *out, struct outputs_shared *shared,
		      const struct output_spec *spec);
/* Releases what is left in the queue. The thread must have stopped. */
void output_queue_fini(struct output *out);

/* Queues rec (taking a reference) or drops what the caps say; never waits for I/O. */
void output_enqueue(struct output *out, struct output_rec *rec, enum qent_kind kind);
/* Takes up to max queue entries; *emptied is set if that emptied the queue. */
size_t output_take(struct output *out, struct qent *batch, size_t max, bool *emptied,
		   uint64_t *gen, bool *stop);
/* Tells the thread to stop once its queue is drained. */
void output_stop(struct output *out);
/* Publishes flush progress: everything submitted up to gen is done; settled: nothing in flight. */
void output_publish(struct output *out, bool have_gen, uint64_t gen, bool settled);

/* Counts n records of bytes in all as failed for reason (no lock: atomics). */
static inline void output_count_failed(struct output *out, enum output_fail_reason reason,
				       uint64_t n, uint64_t bytes)
{
	if (n == 0)
		return;
	atomic_fetch_add(&out->c.failed[reason], n);
	atomic_fetch_add(&out->c.failed_bytes[reason], bytes);
}

/* Both under out->lock. */
void output_count_drop_locked(struct output *out, unsigned sev, enum output_drop_reason reason,
			      bool is_loss_report);
void output_set_error_locked(struct output *out, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Signals a loss report when one is due; returns ms until the next one may be, or -1. */
int output_loss_tick(struct output *out, uint64_t now_ns);
/*
 * Moves the losses of out not yet reported into *loss (whose output field the caller set) when
 * a report is due, or with final, whenever there are any. Returns whether there was one.
 */
bool output_loss_take(struct output *out, bool final, struct output_loss *loss);

/* Wakes the thread that polls the eventfd fd. */
void output_wake(int fd);
void output_drain_eventfd(int fd);
