/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Shared between output.c (queues, stdout/file threads, the API) and net.c (syslog threads). */
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
	_Atomic uint64_t submitted, queued, queued_bytes, written, spooled, spool_records,
		spool_bytes, sent, replayed, delivered, connects, connect_failures, disconnects,
		spool_corrupt, loss_reports_dropped;
	_Atomic uint64_t dropped[_OUTPUT_DROP_N];
	_Atomic uint64_t dropped_by_severity[RG_SEV__MAX];
	atomic_bool connected;
};

struct net;

struct output {
	struct rg_outputs *parent;
	struct output_spec spec;
	pthread_t thread;
	bool thread_started;
	int wake_fd; /* eventfd: the thread's wake-up */

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

	/* Flush: published by the thread under parent->flush_lock. */
	uint64_t done_gen;
	bool settled;
	atomic_bool flush_req;

	struct counters c;

	int fd;		 /* stdout, file */
	struct net *net; /* syslog */
};

struct rg_outputs {
	struct outputs_config cfg;
	int facility;
	char hostname[256];
	char procid[16];
	int event_fd;
	atomic_bool event_signaled; /* set before event_fd is written (outputs_signaled) */
	int spool_dfd;
	pthread_mutex_t flush_lock;
	pthread_cond_t flush_cond;
	size_t n;
	struct output *outs;
};

/* Both under out->lock. */
void output_count_drop_locked(struct output *out, unsigned sev, enum output_drop_reason reason,
			      bool is_loss_report);
void output_set_error_locked(struct output *out, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Takes up to max queue entries; *gen_if_empty is set if that emptied the queue. */
size_t output_take(struct output *out, struct qent *batch, size_t max, bool *emptied,
		   uint64_t *gen, bool *stop);
/* Publishes flush progress: everything submitted up to gen is done; settled: nothing in flight. */
void output_publish(struct output *out, bool have_gen, uint64_t gen, bool settled);
/* Signals a loss report when one is due; returns ms until the next one may be, or -1. */
int output_loss_tick(struct output *out, uint64_t now_ns);
/* Blocks every signal in the calling thread (SIGPIPE from a socket write becomes EPIPE). */
void output_block_signals(void);
void output_drain_eventfd(int fd);

struct spool;
/* Opens the spool of a syslog output (output.c). */
int output_spool_open(struct output *out, struct spool **ret);

/* net.c */
int net_new(struct output *out, struct net **ret);
void net_free(struct net *n);
void *net_thread(void *arg);
