/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The in-memory queue of one output (queue.h): records and their references, enqueue with
 * eviction of the lowest severity, taking batches, flush progress, and the accounting of drops
 * until the loss report that carries them.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/log.h"
#include "common/macro.h"
#include "common/strutil.h"
#include "queue.h"

struct output_rec *output_rec_new(const struct rg_alert *a, int sev, unsigned flags)
{
	struct output_rec *rec = malloc(sizeof(*rec) + a->len + 1);

	if (!rec)
		return NULL;
	memset(rec, 0, sizeof(*rec));
	atomic_init(&rec->refs, 1);
	rec->ts_ns = a->ts_ns ? a->ts_ns : now_realtime_ns();
	rec->sev = (uint8_t)sev;
	rec->flags = (uint8_t)(flags & OUTPUT_SUBMIT_LOSS);
	strscpy_ok(rec->uuid, a->uuid, sizeof(rec->uuid));
	strscpy_ok(rec->rule, a->rule_id ? a->rule_id : "", sizeof(rec->rule));
	rec->len = a->len;
	memcpy(rec->json, a->json, a->len);
	rec->json[a->len] = 0;
	return rec;
}

void output_rec_unref(struct output_rec *rec)
{
	if (rec && atomic_fetch_sub(&rec->refs, 1) == 1)
		free(rec);
}

void output_drain_eventfd(int fd)
{
	uint64_t v;

	/* One read() resets an eventfd's counter (not EFD_SEMAPHORE). */
	(void)!read(fd, &v, sizeof(v));
}

void output_wake(int fd)
{
	uint64_t one = 1;
	ssize_t n;

	do
		n = write(fd, &one, sizeof(one));
	while (n < 0 && errno == EINTR);
}

void output_count_drop_locked(struct output *out, unsigned sev, enum output_drop_reason reason,
			      bool is_loss_report)
{
	if (is_loss_report) {
		/* Not reported again (that could loop); the next report carries the count. */
		out->loss_superseded++;
		atomic_fetch_add(&out->c.loss_reports_dropped, 1);
		return;
	}
	if (sev >= RG_SEV__MAX)
		sev = RG_SEV_MEDIUM;
	out->loss_sev[sev]++;
	out->loss_reason[reason]++;
	out->loss_total++;
	out->loss_pending = true;
	atomic_fetch_add(&out->c.dropped[reason], 1);
	atomic_fetch_add(&out->c.dropped_by_severity[sev], 1);
}

void output_set_error_locked(struct output *out, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(out->last_error, sizeof(out->last_error), fmt, ap);
	va_end(ap);
}

int output_queue_init(struct output *out, struct outputs_shared *shared,
		      const struct output_spec *spec)
{
	out->shared = shared;
	out->spec = *spec;
	out->wake_fd = -1;
	pthread_mutex_init(&out->lock, NULL);
	out->settled = true;
	out->ring_cap = shared->cfg.queue_max_records + OUTPUT_RING_SLACK;
	out->ring = calloc(out->ring_cap, sizeof(*out->ring));
	if (!out->ring)
		return log_oom();
	out->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (out->wake_fd < 0)
		return log_error_errno(-errno, "Failed to create an eventfd: %m");
	return 0;
}

static struct qent *ring_at(struct output *out, size_t i)
{
	return &out->ring[(out->ring_head + i) % out->ring_cap];
}

void output_queue_fini(struct output *out)
{
	while (out->ring && out->ring_count > 0) {
		output_rec_unref(ring_at(out, 0)->rec);
		out->ring_head = (out->ring_head + 1) % out->ring_cap;
		out->ring_count--;
	}
	free(out->ring);
	out->ring = NULL;
	if (out->wake_fd >= 0)
		close(out->wake_fd);
	out->wake_fd = -1;
	pthread_mutex_destroy(&out->lock);
}

static void ring_remove(struct output *out, size_t idx)
{
	size_t i;

	for (i = idx; i + 1 < out->ring_count; i++)
		*ring_at(out, i) = *ring_at(out, i + 1);
	out->ring_count--;
}

static void publish_queue_locked(struct output *out)
{
	atomic_store(&out->c.queued, out->ring_count);
	atomic_store(&out->c.queued_bytes, out->queue_bytes);
}

void output_enqueue(struct output *out, struct output_rec *rec, enum qent_kind kind)
{
	const struct outputs_config *cfg = &out->shared->cfg;
	bool is_loss = rec && (rec->flags & OUTPUT_SUBMIT_LOSS), need_wake = true;

	pthread_mutex_lock(&out->lock);
	if (kind == QE_ALERT && !is_loss) {
		while (out->alerts_queued >= cfg->queue_max_records ||
		       out->queue_bytes + rec->len > cfg->queue_max_bytes) {
			/* Full: the oldest alert of the lowest severity goes, maybe this one. */
			size_t i, best = SIZE_MAX;
			struct output_rec *victim;

			for (i = 0; i < out->ring_count; i++) {
				struct qent *e = ring_at(out, i);

				if (e->kind != QE_ALERT || (e->rec->flags & OUTPUT_SUBMIT_LOSS))
					continue;
				if (best == SIZE_MAX || e->rec->sev < ring_at(out, best)->rec->sev)
					best = i;
			}
			if (best == SIZE_MAX || ring_at(out, best)->rec->sev > rec->sev) {
				output_count_drop_locked(out, rec->sev, OUTPUT_DROP_QUEUE_FULL, false);
				goto out;
			}
			victim = ring_at(out, best)->rec;
			output_count_drop_locked(out, victim->sev, OUTPUT_DROP_QUEUE_FULL, false);
			ring_remove(out, best);
			out->alerts_queued--;
			out->queue_bytes -= victim->len;
			output_rec_unref(victim);
		}
	}
	if (out->ring_count == out->ring_cap) {
		/* Only loss reports and reopen marks can get here: the slack is used up. */
		if (rec)
			output_count_drop_locked(out, rec->sev, OUTPUT_DROP_QUEUE_FULL, is_loss);
		goto out;
	}
	if (rec)
		atomic_fetch_add(&rec->refs, 1);
	/* A file output's thread sleeps only once it has found its queue empty (file.c), so only
	 * the first record into an empty queue needs to wake it: not one eventfd write and two
	 * context switches per alert. A network output's thread is woken every time. */
	need_wake = out->wake_always || out->ring_count == 0;
	*ring_at(out, out->ring_count++) = (struct qent){.rec = rec, .kind = (uint8_t)kind};
	if (rec) {
		out->queue_bytes += rec->len;
		if (!is_loss)
			out->alerts_queued++;
		atomic_fetch_add(&out->c.submitted, 1);
	}
out:
	out->submit_gen++;
	publish_queue_locked(out);
	pthread_mutex_unlock(&out->lock);
	if (need_wake)
		output_wake(out->wake_fd);
}

size_t output_take(struct output *out, struct qent *batch, size_t max, bool *emptied,
		   uint64_t *gen, bool *stop)
{
	size_t n = 0;

	pthread_mutex_lock(&out->lock);
	while (n < max && out->ring_count > 0) {
		struct qent *e = ring_at(out, 0);

		batch[n++] = *e;
		if (e->rec) {
			out->queue_bytes -= e->rec->len;
			if (!(e->rec->flags & OUTPUT_SUBMIT_LOSS))
				out->alerts_queued--;
		}
		out->ring_head = (out->ring_head + 1) % out->ring_cap;
		out->ring_count--;
	}
	*emptied = out->ring_count == 0;
	*gen = out->submit_gen;
	*stop = out->stop;
	publish_queue_locked(out);
	pthread_mutex_unlock(&out->lock);
	return n;
}

void output_stop(struct output *out)
{
	pthread_mutex_lock(&out->lock);
	out->stop = true;
	pthread_mutex_unlock(&out->lock);
	if (out->wake_fd >= 0)
		output_wake(out->wake_fd);
}

void output_publish(struct output *out, bool have_gen, uint64_t gen, bool settled)
{
	struct outputs_shared *sh = out->shared;

	pthread_mutex_lock(&sh->flush_lock);
	if (have_gen && gen > out->done_gen)
		out->done_gen = gen;
	out->settled = settled;
	pthread_cond_broadcast(&sh->flush_cond);
	pthread_mutex_unlock(&sh->flush_lock);
}

int output_loss_tick(struct output *out, uint64_t now_ns)
{
	uint64_t interval = (uint64_t)out->shared->cfg.loss_interval_ms * 1000000ull;
	bool signal = false;
	int timeout = -1;

	pthread_mutex_lock(&out->lock);
	if (out->loss_pending && !out->loss_ready) {
		if (out->loss_signal_ns == 0 || now_ns >= out->loss_signal_ns + interval) {
			out->loss_ready = true;
			out->loss_signal_ns = now_ns;
			signal = true;
		} else
			timeout = (int)((out->loss_signal_ns + interval - now_ns) / 1000000ull) + 1;
	}
	pthread_mutex_unlock(&out->lock);
	if (signal) {
		atomic_store(&out->shared->event_signaled, true);
		output_wake(out->shared->event_fd);
	}
	return timeout;
}

bool output_loss_take(struct output *out, bool final, struct output_loss *loss)
{
	bool have = false;
	unsigned k;

	pthread_mutex_lock(&out->lock);
	if (out->loss_ready || (final && out->loss_pending)) {
		have = out->loss_pending;
		memcpy(loss->by_severity, out->loss_sev, sizeof(loss->by_severity));
		memcpy(loss->by_reason, out->loss_reason, sizeof(loss->by_reason));
		loss->loss_reports_dropped = out->loss_superseded;
		loss->total_since_start = out->loss_total;
		memset(out->loss_sev, 0, sizeof(out->loss_sev));
		memset(out->loss_reason, 0, sizeof(out->loss_reason));
		out->loss_superseded = 0;
		out->loss_pending = false;
		out->loss_ready = false;
	}
	pthread_mutex_unlock(&out->lock);
	if (!have)
		return false;
	loss->total = 0;
	for (k = 0; k < RG_SEV__MAX; k++)
		loss->total += loss->by_severity[k];
	return true;
}
