/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The outputs API: submission into bounded queues, stdout/file threads, loss reports, stats. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "common/log.h"
#include "common/macro.h"
#include "common/util.h"
#include "output-internal.h"
#include "rfc5424.h"
#include "spool.h"

static const char *const drop_names[_OUTPUT_DROP_N] = {"queue_full", "spool_full", "too_large",
						       "write_error"};

const char *output_drop_reason_to_string(enum output_drop_reason r)
{
	return (unsigned)r < _OUTPUT_DROP_N ? drop_names[r] : "unknown";
}

int output_loss_to_json(const struct output_loss *loss, struct json_object *into)
{
	struct json_object *d, *rs;
	unsigned i;

	d = json_object_new_object();
	rs = json_object_new_object();
	if (!d || !rs) {
		json_object_put(d);
		json_object_put(rs);
		return -ENOMEM;
	}
	json_object_object_add(d, "total", json_object_new_uint64(loss->total));
	for (i = 0; i < RG_SEV__MAX; i++)
		json_object_object_add(d, severity_to_string((int)i),
				       json_object_new_uint64(loss->by_severity[i]));
	for (i = 0; i < _OUTPUT_DROP_N; i++)
		json_object_object_add(rs, drop_names[i], json_object_new_uint64(loss->by_reason[i]));
	json_object_object_add(into, "output", json_object_new_string(loss->output));
	json_object_object_add(into, "dropped", d);
	json_object_object_add(into, "reasons", rs);
	json_object_object_add(into, "total_since_start",
			       json_object_new_uint64(loss->total_since_start));
	json_object_object_add(into, "loss_reports_dropped",
			       json_object_new_uint64(loss->loss_reports_dropped));
	return 0;
}

size_t output_loss_describe(const struct output_loss *loss, const char **what, char *text,
			    size_t size)
{
	char buf[512];
	size_t o;
	unsigned i;
	bool first = true;

	if (what)
		*what = loss->by_reason[OUTPUT_DROP_SPOOL_FULL]	  ? "spool"
			: loss->by_reason[OUTPUT_DROP_QUEUE_FULL] ? "queue"
								  : "output";
	o = (size_t)snprintf(buf, sizeof(buf), "%s: %" PRIu64 " alert(s) dropped (", loss->output,
			     loss->total);
	for (i = 0; i < RG_SEV__MAX && o < sizeof(buf); i++)
		if (loss->by_severity[i]) {
			o += (size_t)snprintf(buf + o, sizeof(buf) - o, "%s%s %" PRIu64,
					      first ? "" : ", ", severity_to_string((int)i),
					      loss->by_severity[i]);
			first = false;
		}
	first = true;
	for (i = 0; i < _OUTPUT_DROP_N && o < sizeof(buf); i++)
		if (loss->by_reason[i]) {
			o += (size_t)snprintf(buf + o, sizeof(buf) - o, "%s%s %" PRIu64,
					      first ? "; " : ", ", drop_names[i], loss->by_reason[i]);
			first = false;
		}
	if (o < sizeof(buf))
		o += (size_t)snprintf(buf + o, sizeof(buf) - o, ")");
	o = MIN(o, sizeof(buf) - 1);
	if (size > 0) {
		memcpy(text, buf, MIN(o, size - 1));
		text[MIN(o, size - 1)] = 0;
	}
	return o;
}

void output_rec_unref(struct output_rec *rec)
{
	if (rec && atomic_fetch_sub(&rec->refs, 1) == 1)
		free(rec);
}

void output_block_signals(void)
{
	sigset_t all;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
}

void output_drain_eventfd(int fd)
{
	uint64_t v;

	/* One read() resets an eventfd's counter (not EFD_SEMAPHORE). */
	(void)!read(fd, &v, sizeof(v));
}

static void wake(int fd)
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

static struct qent *ring_at(struct output *out, size_t i)
{
	return &out->ring[(out->ring_head + i) % out->ring_cap];
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

/* Queues rec (taking a reference) or drops what the caps say; never waits for I/O. */
static void output_enqueue(struct output *out, struct output_rec *rec, enum qent_kind kind)
{
	const struct outputs_config *cfg = &out->parent->cfg;
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
	/* A file output's thread sleeps only once it has found its queue empty (file_thread), so
	 * only the first record into an empty queue needs to wake it: not one eventfd write and
	 * two context switches per alert. A network output's thread is woken every time. */
	need_wake = out->net || out->ring_count == 0;
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
		wake(out->wake_fd);
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

void output_publish(struct output *out, bool have_gen, uint64_t gen, bool settled)
{
	struct rg_outputs *o = out->parent;

	pthread_mutex_lock(&o->flush_lock);
	if (have_gen && gen > out->done_gen)
		out->done_gen = gen;
	out->settled = settled;
	pthread_cond_broadcast(&o->flush_cond);
	pthread_mutex_unlock(&o->flush_lock);
}

int output_loss_tick(struct output *out, uint64_t now_ns)
{
	uint64_t interval = (uint64_t)out->parent->cfg.loss_interval_ms * 1000000ull;
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
		atomic_store(&out->parent->event_signaled, true);
		wake(out->parent->event_fd);
	}
	return timeout;
}

/* stdout and file outputs */

static int file_open(const char *path, int *ret)
{
	struct stat st;
	int fd, flags;

	/* O_NONBLOCK so that a FIFO planted at the path cannot hang us; refused below. */
	fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW |
				O_NONBLOCK,
		  0600);
	if (fd < 0)
		return errno == ENXIO ? -EBADFD : -errno; /* ENXIO: a FIFO without a reader */
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return -EBADFD;
	}
	flags = fcntl(fd, F_GETFL);
	if (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) < 0) {
		close(fd);
		return -errno;
	}
	*ret = fd;
	return 0;
}

/*
 * Writes the alerts of b[0..n) as lines, with one writev() for all of them where the kernel
 * takes it (a file output used to make one system call per alert). Returns how many were
 * written whole: n, or on an error (*err, else 0) the index of the one it stopped in. In a
 * regular file (file), a line that the failure cut short (ENOSPC, EFBIG halfway) is cut off
 * again, so that the file holds whole lines only.
 */
static size_t write_lines(int fd, bool file, const struct qent *b, size_t n, int *err)
{
	struct iovec iov[2 * OUTPUT_BATCH_MAX];
	size_t i, first = 0, niov = 2 * n;

	*err = 0;
	for (i = 0; i < n; i++) {
		iov[2 * i] = (struct iovec){.iov_base = b[i].rec->json, .iov_len = b[i].rec->len};
		iov[2 * i + 1] = (struct iovec){.iov_base = (void *)"\n", .iov_len = 1};
	}
	while (first < niov) {
		ssize_t w = writev(fd, iov + first, (int)MIN(niov - first, (size_t)IOV_MAX));

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			size_t r = first / 2, part;
			off_t end;

			*err = w < 0 ? -errno : -EIO;
			part = first % 2 ? b[r].rec->len : b[r].rec->len - iov[first].iov_len;
			if (file && part > 0 && (end = lseek(fd, 0, SEEK_END)) >= (off_t)part)
				(void)!ftruncate(fd, end - (off_t)part);
			return r;
		}
		/* Past what was written; a record is whole once its newline is. */
		while (first < niov && (size_t)w >= iov[first].iov_len) {
			w -= (ssize_t)iov[first].iov_len;
			first++;
		}
		if (w > 0) {
			iov[first].iov_base = (char *)iov[first].iov_base + w;
			iov[first].iov_len -= (size_t)w;
		}
	}
	return n;
}

static void file_reopen(struct output *out)
{
	int fd, r;

	r = file_open(out->spec.path, &fd);
	if (r < 0) {
		log_error_errno(r, "output %s: failed to reopen, still writing to the old file: %m",
				out->spec.name);
		pthread_mutex_lock(&out->lock);
		output_set_error_locked(out, "reopen: %s", strerror(-r));
		pthread_mutex_unlock(&out->lock);
		return;
	}
	close(out->fd);
	out->fd = fd;
	log_debug("output %s: reopened", out->spec.name);
}

static void *file_thread(void *arg)
{
	struct output *out = arg;
	struct qent batch[OUTPUT_BATCH_MAX];
	struct sched_param sp = {0};
	int last_err = 0;

	/* Writing alerts is batch work: as SCHED_BATCH this thread does not preempt the event
	 * loop each time an alert wakes it, it runs when that loop waits or at the next tick and
	 * takes what piled up in one go. Best effort: on failure it stays SCHED_OTHER. */
	(void)pthread_setschedparam(pthread_self(), SCHED_BATCH, &sp);

	for (;;) {
		bool emptied, stop;
		uint64_t gen;
		size_t n, i;
		int timeout;

		n = output_take(out, batch, ARRAY_SIZE(batch), &emptied, &gen, &stop);
		for (i = 0; i < n;) {
			size_t end = i, w, k;
			struct output_rec *rec;
			int r;

			if (batch[i].kind == QE_REOPEN) {
				if (out->spec.type == OUTPUT_FILE)
					file_reopen(out);
				i++;
				continue;
			}
			while (end < n && batch[end].kind == QE_ALERT)
				end++;
			/* The alerts up to the next reopen mark, in as few writes as can be. */
			w = write_lines(out->fd, out->spec.type == OUTPUT_FILE, batch + i, end - i, &r);
			atomic_fetch_add(&out->c.written, w);
			for (k = i; k < i + w; k++)
				output_rec_unref(batch[k].rec);
			i += w;
			if (!r) {
				last_err = 0;
				continue;
			}
			/* The one it stopped in is lost (counted); the rest are tried again. */
			rec = batch[i++].rec;
			pthread_mutex_lock(&out->lock);
			output_count_drop_locked(out, rec->sev, OUTPUT_DROP_WRITE_ERROR,
						 rec->flags & OUTPUT_SUBMIT_LOSS);
			output_set_error_locked(out, "write: %s", strerror(-r));
			pthread_mutex_unlock(&out->lock);
			if (r != last_err)
				log_error_errno(r, "output %s: failed to write an alert: %m",
						out->spec.name);
			last_err = r;
			output_rec_unref(rec);
		}
		if (emptied && atomic_exchange(&out->flush_req, false) && out->spec.type == OUTPUT_FILE)
			(void)fdatasync(out->fd);
		if (emptied)
			output_publish(out, true, gen, true);
		timeout = output_loss_tick(out, now_monotonic_ns());
		if (stop && emptied)
			break;
		if (n > 0 && !emptied)
			continue;
		{
			struct pollfd p = {.fd = out->wake_fd, .events = POLLIN};

			if (poll(&p, 1, timeout) > 0)
				output_drain_eventfd(out->wake_fd);
		}
	}
	return NULL;
}

/* The API */

static struct json_object *get_dotted(struct json_object *o, const char *dotted)
{
	struct json_object *v = NULL;
	char buf[64], *save = NULL, *tok;

	if (json_object_object_get_ex(o, dotted, &v))
		return v;
	if (!strscpy_ok(buf, dotted, sizeof(buf)))
		return NULL;
	v = o;
	for (tok = strtok_r(buf, ".", &save); tok; tok = strtok_r(NULL, ".", &save)) {
		if (!json_object_is_type(v, json_type_object) ||
		    !json_object_object_get_ex(v, tok, &v))
			return NULL;
	}
	return v;
}

static const char *get_string(struct json_object *o, const char *dotted)
{
	struct json_object *v = get_dotted(o, dotted);

	return json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

/* Makes sure the alert carries event.id; adds a fresh uuid where it does not. */
static int ensure_uuid(struct json_object *alert, const char **ret)
{
	struct json_object *ev = NULL;
	const char *id = get_string(alert, "event.id");
	char uuid[37];
	int r;

	if (id && *id) {
		*ret = id;
		return 0;
	}
	r = uuid_v4(uuid);
	if (r < 0)
		return r;
	if (!json_object_object_get_ex(alert, "event", &ev) ||
	    !json_object_is_type(ev, json_type_object)) {
		if (json_object_object_get_ex(alert, "event", NULL))
			return -EINVAL; /* "event" is there but not an object */
		ev = json_object_new_object();
		if (!ev)
			return -ENOMEM;
		json_object_object_add(alert, "event", ev);
	}
	json_object_object_add(ev, "id", json_object_new_string(uuid));
	*ret = get_string(alert, "event.id");
	return *ret ? 0 : -ENOMEM;
}

int outputs_submit_alert(struct rg_outputs *o, const struct rg_alert *a, unsigned flags)
{
	struct output_rec *rec;
	size_t i;
	int sev;

	if (!o || !a || !a->json || !a->uuid)
		return -EINVAL;
	sev = a->severity >= 0 && a->severity < RG_SEV__MAX ? a->severity : RG_SEV_MEDIUM;
	if (a->len > o->cfg.max_alert_bytes) {
		for (i = 0; i < o->n; i++) {
			pthread_mutex_lock(&o->outs[i].lock);
			output_count_drop_locked(&o->outs[i], (unsigned)sev, OUTPUT_DROP_TOO_LARGE,
						 flags & OUTPUT_SUBMIT_LOSS);
			pthread_mutex_unlock(&o->outs[i].lock);
			wake(o->outs[i].wake_fd); /* its thread decides when to report the loss */
		}
		log_warning("Dropping alert %s: %zu bytes exceed the limit of %u", a->uuid, a->len,
			    o->cfg.max_alert_bytes);
		return -E2BIG;
	}
	rec = malloc(sizeof(*rec) + a->len + 1);
	if (!rec)
		return -ENOMEM;
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
	for (i = 0; i < o->n; i++)
		output_enqueue(&o->outs[i], rec, QE_ALERT);
	output_rec_unref(rec);
	return 0;
}

int outputs_submit_flags(struct rg_outputs *o, struct json_object *alert, unsigned flags)
{
	struct rg_alert a = {0};
	const char *ts_s;
	int r;

	if (!o || !json_object_is_type(alert, json_type_object))
		return -EINVAL;
	r = ensure_uuid(alert, &a.uuid);
	if (r < 0)
		return r;
	a.rule_id = get_string(alert, "rule.id");
	a.severity = severity_from_string(get_string(alert, "severity"));
	ts_s = get_string(alert, "@timestamp");
	if (!ts_s || parse_timestamp(ts_s, &a.ts_ns) < 0)
		a.ts_ns = 0;
	a.json = json_object_to_json_string_ext(alert, JSON_C_TO_STRING_PLAIN |
							   JSON_C_TO_STRING_NOSLASHESCAPE);
	if (!a.json)
		return -ENOMEM;
	a.len = strlen(a.json);
	return outputs_submit_alert(o, &a, flags);
}

int outputs_submit(struct rg_outputs *o, struct json_object *alert)
{
	return outputs_submit_flags(o, alert, 0);
}

int outputs_reopen(struct rg_outputs *o)
{
	size_t i;

	for (i = 0; i < o->n; i++)
		if (o->outs[i].spec.type == OUTPUT_FILE)
			output_enqueue(&o->outs[i], NULL, QE_REOPEN);
	return 0;
}

static bool spools_empty(struct rg_outputs *o)
{
	for (size_t i = 0; i < o->n; i++)
		if (o->outs[i].net && atomic_load(&o->outs[i].c.spool_records) > 0)
			return false;
	return true;
}

static int flush(struct rg_outputs *o, int timeout_ms, bool deliver)
{
	struct timespec deadline;
	uint64_t *target;
	size_t i;
	bool all_queued = false, delivered = !deliver;

	if (o->n == 0)
		return 0;
	target = calloc(o->n, sizeof(*target));
	if (!target)
		return -ENOMEM;
	for (i = 0; i < o->n; i++) {
		pthread_mutex_lock(&o->outs[i].lock);
		target[i] = o->outs[i].submit_gen;
		pthread_mutex_unlock(&o->outs[i].lock);
		atomic_store(&o->outs[i].flush_req, true);
		wake(o->outs[i].wake_fd);
	}
	clock_gettime(CLOCK_MONOTONIC, &deadline);
	deadline.tv_sec += timeout_ms / 1000;
	deadline.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
	if (deadline.tv_nsec >= 1000000000L) {
		deadline.tv_sec++;
		deadline.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&o->flush_lock);
	for (;;) {
		bool done = true;

		all_queued = true;
		for (i = 0; i < o->n; i++) {
			if (o->outs[i].done_gen < target[i])
				all_queued = false;
			if (o->outs[i].done_gen < target[i] || !o->outs[i].settled)
				done = false;
		}
		/* deliver: also across a reconnect (a syslog output not connected now is settled) */
		if (done && deliver)
			done = delivered = spools_empty(o);
		if (done)
			break;
		if (pthread_cond_timedwait(&o->flush_cond, &o->flush_lock, &deadline) == ETIMEDOUT)
			break;
	}
	pthread_mutex_unlock(&o->flush_lock);
	free(target);
	return all_queued && delivered ? 0 : -ETIMEDOUT;
}

int outputs_flush(struct rg_outputs *o, int timeout_ms)
{
	return flush(o, timeout_ms, false);
}

int outputs_flush_delivered(struct rg_outputs *o, int timeout_ms)
{
	return flush(o, timeout_ms, true);
}

int outputs_get_fd(const struct rg_outputs *o)
{
	return o->event_fd;
}

bool outputs_signaled(struct rg_outputs *o)
{
	return atomic_load_explicit(&o->event_signaled, memory_order_relaxed) &&
	       atomic_exchange(&o->event_signaled, false);
}

/* final: every pending loss now, whether or not its interval has passed. */
static int dispatch(struct rg_outputs *o, bool final)
{
	size_t i;

	output_drain_eventfd(o->event_fd);
	for (i = 0; i < o->n; i++) {
		struct output *out = &o->outs[i];
		struct output_loss loss = {.output = out->spec.name};
		bool have = false;
		unsigned k;

		pthread_mutex_lock(&out->lock);
		if (out->loss_ready || (final && out->loss_pending)) {
			have = out->loss_pending;
			memcpy(loss.by_severity, out->loss_sev, sizeof(loss.by_severity));
			memcpy(loss.by_reason, out->loss_reason, sizeof(loss.by_reason));
			loss.loss_reports_dropped = out->loss_superseded;
			loss.total_since_start = out->loss_total;
			memset(out->loss_sev, 0, sizeof(out->loss_sev));
			memset(out->loss_reason, 0, sizeof(out->loss_reason));
			out->loss_superseded = 0;
			out->loss_pending = false;
			out->loss_ready = false;
		}
		pthread_mutex_unlock(&out->lock);
		if (!have)
			continue;
		for (k = 0; k < RG_SEV__MAX; k++)
			loss.total += loss.by_severity[k];
		/* The thread may have more to say once the interval has passed. */
		wake(out->wake_fd);
		if (o->cfg.loss_cb)
			o->cfg.loss_cb(&loss, o->cfg.loss_userdata);
		else
			log_warning("output %s: %" PRIu64 " alert(s) lost", loss.output, loss.total);
	}
	return 0;
}

int outputs_dispatch(struct rg_outputs *o)
{
	return dispatch(o, false);
}

int outputs_dispatch_final(struct rg_outputs *o)
{
	return dispatch(o, true);
}

size_t outputs_count(const struct rg_outputs *o)
{
	return o ? o->n : 0;
}

const char *outputs_name(const struct rg_outputs *o, size_t i)
{
	return i < o->n ? o->outs[i].spec.name : NULL;
}

int outputs_get_counters(const struct rg_outputs *o, size_t i, struct output_counters *ret)
{
	const struct counters *c;
	unsigned k;

	if (i >= o->n)
		return -ERANGE;
	c = &o->outs[i].c;
	memset(ret, 0, sizeof(*ret));
	ret->submitted = atomic_load(&c->submitted);
	ret->queued = atomic_load(&c->queued);
	ret->queued_bytes = atomic_load(&c->queued_bytes);
	ret->written = atomic_load(&c->written);
	ret->spooled = atomic_load(&c->spooled);
	ret->spool_records = atomic_load(&c->spool_records);
	ret->spool_bytes = atomic_load(&c->spool_bytes);
	ret->sent = atomic_load(&c->sent);
	ret->replayed = atomic_load(&c->replayed);
	ret->delivered = atomic_load(&c->delivered);
	ret->connects = atomic_load(&c->connects);
	ret->connect_failures = atomic_load(&c->connect_failures);
	ret->disconnects = atomic_load(&c->disconnects);
	ret->spool_corrupt = atomic_load(&c->spool_corrupt);
	ret->loss_reports_dropped = atomic_load(&c->loss_reports_dropped);
	ret->connected = atomic_load(&c->connected);
	for (k = 0; k < _OUTPUT_DROP_N; k++)
		ret->dropped[k] = atomic_load(&c->dropped[k]);
	for (k = 0; k < RG_SEV__MAX; k++)
		ret->dropped_by_severity[k] = atomic_load(&c->dropped_by_severity[k]);
	return 0;
}

#define ADD_U64(obj, key, v) json_object_object_add((obj), (key), json_object_new_uint64(v))

void outputs_stats(const struct rg_outputs *o, struct json_object *into)
{
	struct json_object *arr = json_object_new_array();
	size_t i;

	if (!arr)
		return;
	for (i = 0; o && i < o->n; i++) {
		struct output *out = &o->outs[i];
		struct json_object *e = json_object_new_object(), *d = json_object_new_object();
		struct output_counters c;
		bool net = out->spec.type == OUTPUT_SYSLOG_TCP || out->spec.type == OUTPUT_SYSLOG_TLS;
		uint64_t total = 0;
		char err[sizeof(out->last_error)];
		unsigned k;

		if (!e || !d) {
			json_object_put(e);
			json_object_put(d);
			break;
		}
		outputs_get_counters(o, i, &c);
		json_object_object_add(e, "name", json_object_new_string(out->spec.name));
		json_object_object_add(e, "type",
				       json_object_new_string(output_type_to_string(out->spec.type)));
		ADD_U64(e, "submitted", c.submitted);
		ADD_U64(e, "queued", c.queued);
		ADD_U64(e, "queued_bytes", c.queued_bytes);
		if (net) {
			json_object_object_add(e, "connected", json_object_new_boolean(c.connected));
			ADD_U64(e, "spooled", c.spooled);
			ADD_U64(e, "spool_records", c.spool_records);
			ADD_U64(e, "spool_bytes", c.spool_bytes);
			ADD_U64(e, "sent", c.sent);
			ADD_U64(e, "replayed", c.replayed);
			ADD_U64(e, "delivered", c.delivered);
			ADD_U64(e, "connects", c.connects);
			ADD_U64(e, "reconnects", c.connects > 0 ? c.connects - 1 : 0);
			ADD_U64(e, "connect_failures", c.connect_failures);
			ADD_U64(e, "disconnects", c.disconnects);
			ADD_U64(e, "spool_corrupt", c.spool_corrupt);
		} else
			ADD_U64(e, "written", c.written);
		for (k = 0; k < _OUTPUT_DROP_N; k++) {
			ADD_U64(d, drop_names[k], c.dropped[k]);
			total += c.dropped[k];
		}
		for (k = 0; k < RG_SEV__MAX; k++)
			ADD_U64(d, severity_to_string((int)k), c.dropped_by_severity[k]);
		ADD_U64(d, "total", total);
		ADD_U64(d, "loss_reports", c.loss_reports_dropped);
		json_object_object_add(e, "dropped", d);
		pthread_mutex_lock(&out->lock);
		memcpy(err, out->last_error, sizeof(err));
		pthread_mutex_unlock(&out->lock);
		if (err[0])
			json_object_object_add(e, "last_error", json_object_new_string(err));
		json_object_array_add(arr, e);
	}
	json_object_object_add(into, "outputs", arr);
}

static void apply_defaults(struct outputs_config *c)
{
	if (!c->queue_max_records)
		c->queue_max_records = 4096;
	if (!c->queue_max_bytes)
		c->queue_max_bytes = 16ull << 20;
	if (!c->max_alert_bytes)
		c->max_alert_bytes = 64u << 10;
	if (!c->spool_max_bytes)
		c->spool_max_bytes = 64ull << 20;
	if (!c->spool_loss_reserve)
		c->spool_loss_reserve = 1ull << 20;
	if (!c->connect_timeout_ms)
		c->connect_timeout_ms = 5000;
	if (!c->backoff_min_ms)
		c->backoff_min_ms = 500;
	if (!c->backoff_max_ms)
		c->backoff_max_ms = 30000;
	if (c->backoff_max_ms < c->backoff_min_ms)
		c->backoff_max_ms = c->backoff_min_ms;
	if (!c->confirm_ms)
		c->confirm_ms = 1000;
	if (!c->loss_interval_ms)
		c->loss_interval_ms = 10000;
	if (!c->stop_timeout_ms)
		c->stop_timeout_ms = 5000;
}

/*
 * Spool directory name of a syslog output: tcp-HOST-PORT (or tls-), HOST with odd bytes
 * hex-escaped; a host too long for a file name is cut and followed by its CRC-32.
 */
#define SPOOL_HOST_SHOWN 160
static void spool_name(const struct output_spec *sp, char *buf, size_t size)
{
	char host[3 * OUTPUT_HOST_MAX + 1];
	size_t o = 0, i;

	for (i = 0; sp->host[i]; i++) {
		char c = sp->host[i];

		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		    c == '.' || c == '-')
			host[o++] = c;
		else
			o += (size_t)snprintf(host + o, sizeof(host) - o, "_%02x", (unsigned char)c);
	}
	host[o] = 0;
	if (o > SPOOL_HOST_SHOWN)
		snprintf(host + SPOOL_HOST_SHOWN, sizeof(host) - SPOOL_HOST_SHOWN, "_%08lx",
			 crc32(0L, (const Bytef *)sp->host, (uInt)strlen(sp->host)));
	snprintf(buf, size, "%s-%s-%u", sp->type == OUTPUT_SYSLOG_TLS ? "tls" : "tcp", host,
		 sp->port);
}

static bool spool_dir_has_records(int parent_fd, const char *name)
{
	int fd = openat(parent_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct dirent *de;
	bool found = false;
	DIR *d;

	if (fd < 0)
		return false;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return false;
	}
	while (!found && (de = readdir(d)))
		found = endswith(de->d_name, ".seg");
	closedir(d);
	return found;
}

static void warn_orphan_spools(struct rg_outputs *o)
{
	DIR *d;
	struct dirent *de;
	int fd = openat(o->spool_dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return;
	}
	while ((de = readdir(d))) {
		char name[300];
		bool used = false;
		size_t i;

		if (de->d_name[0] == '.')
			continue;
		for (i = 0; i < o->n; i++) {
			if (o->outs[i].spec.type != OUTPUT_SYSLOG_TCP &&
			    o->outs[i].spec.type != OUTPUT_SYSLOG_TLS)
				continue;
			spool_name(&o->outs[i].spec, name, sizeof(name));
			if (strcmp(name, de->d_name) == 0)
				used = true;
		}
		if (!used && spool_dir_has_records(o->spool_dfd, de->d_name))
			log_warning("Spool %s/spool/%s belongs to no configured output; alerts in it "
				    "are not delivered",
				    o->cfg.state_dir, de->d_name);
	}
	closedir(d);
}

static int output_init(struct rg_outputs *o, struct output *out, const struct output_spec *sp)
{
	int r;

	out->parent = o;
	out->spec = *sp;
	out->fd = -1;
	out->wake_fd = -1;
	pthread_mutex_init(&out->lock, NULL);
	out->settled = true;
	out->ring_cap = o->cfg.queue_max_records + OUTPUT_RING_SLACK;
	out->ring = calloc(out->ring_cap, sizeof(*out->ring));
	if (!out->ring)
		return log_oom();
	out->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (out->wake_fd < 0)
		return log_error_errno(-errno, "Failed to create an eventfd: %m");

	switch (sp->type) {
	case OUTPUT_STDOUT:
		out->fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
		if (out->fd < 0)
			return log_error_errno(-errno, "output stdout: failed to dup stdout: %m");
		return 0;
	case OUTPUT_FILE:
		if (sp->path[0] != '/') {
			char cwd[PATH_MAX], abs[PATH_MAX];

			if (!getcwd(cwd, sizeof(cwd)))
				return log_error_errno(-errno, "output %s: getcwd: %m", sp->name);
			if ((size_t)snprintf(abs, sizeof(abs), "%s/%s", cwd, sp->path) >= sizeof(abs))
				return log_error_errno(-ENAMETOOLONG, "output %s: path too long",
						       sp->name);
			strcpy(out->spec.path, abs);
		}
		r = file_open(out->spec.path, &out->fd);
		if (r == -EBADFD)
			return log_error_errno(r, "output %s: not a regular file", sp->name);
		if (r == -ELOOP)
			return log_error_errno(r, "output %s: is a symbolic link (refused)",
					       sp->name);
		if (r < 0)
			return log_error_errno(r, "output %s: failed to open: %m", sp->name);
		return 0;
	case OUTPUT_SYSLOG_TCP:
	case OUTPUT_SYSLOG_TLS:
		return net_new(out, &out->net);
	}
	return -EINVAL;
}

int outputs_new(const struct output_spec *specs, size_t n, const struct outputs_config *cfg,
		struct rg_outputs **ret)
{
	struct rg_outputs *o;
	sigset_t all, old;
	bool need_spool = false;
	size_t i, j;
	int r;

	o = calloc(1, sizeof(*o));
	if (!o)
		return log_oom();
	o->event_fd = o->spool_dfd = -1;
	pthread_mutex_init(&o->flush_lock, NULL);
	{
		pthread_condattr_t ca;

		pthread_condattr_init(&ca);
		pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
		pthread_cond_init(&o->flush_cond, &ca);
		pthread_condattr_destroy(&ca);
	}
	if (cfg)
		o->cfg = *cfg;
	apply_defaults(&o->cfg);
	o->facility = syslog_facility_from_string(o->cfg.facility ? o->cfg.facility : "authpriv");
	if (o->facility < 0) {
		r = log_error_errno(-EINVAL, "Unknown syslog facility \"%s\"", o->cfg.facility);
		goto fail;
	}
	if (o->cfg.hostname)
		strscpy_ok(o->hostname, o->cfg.hostname, sizeof(o->hostname));
	else if (gethostname(o->hostname, sizeof(o->hostname) - 1) < 0)
		o->hostname[0] = 0;
	snprintf(o->procid, sizeof(o->procid), "%d", (int)getpid());
	o->event_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (o->event_fd < 0) {
		r = log_error_errno(-errno, "Failed to create an eventfd: %m");
		goto fail;
	}

	for (i = 0; i < n; i++) {
		for (j = 0; j < i; j++)
			if (strcmp(specs[i].name, specs[j].name) == 0) {
				r = log_error_errno(-EEXIST, "output %s: given twice", specs[i].name);
				goto fail;
			}
		if (specs[i].type == OUTPUT_SYSLOG_TCP || specs[i].type == OUTPUT_SYSLOG_TLS) {
			need_spool = true;
			if (!o->cfg.state_dir || !*o->cfg.state_dir) {
				r = log_error_errno(-EINVAL,
						    "output %s: syslog outputs need a state directory "
						    "for their spool",
						    specs[i].name);
				goto fail;
			}
		}
	}
	if (need_spool) {
		_cleanup_close_ int sfd = -1;

		if (mkdir(o->cfg.state_dir, 0700) < 0 && errno != EEXIST) {
			r = log_error_errno(-errno, "Failed to create state directory %s: %m",
					    o->cfg.state_dir);
			goto fail;
		}
		sfd = open(o->cfg.state_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (sfd < 0) {
			r = log_error_errno(-errno, "Failed to open state directory %s: %m",
					    o->cfg.state_dir);
			goto fail;
		}
		if (mkdirat(sfd, "spool", 0700) < 0 && errno != EEXIST) {
			r = log_error_errno(-errno, "Failed to create %s/spool: %m",
					    o->cfg.state_dir);
			goto fail;
		}
		o->spool_dfd = openat(sfd, "spool", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (o->spool_dfd < 0) {
			r = log_error_errno(-errno, "Failed to open %s/spool: %m", o->cfg.state_dir);
			goto fail;
		}
	}

	o->outs = calloc(n ? n : 1, sizeof(*o->outs));
	if (!o->outs) {
		r = log_oom();
		goto fail;
	}
	for (i = 0; i < n; i++) {
		o->n = i + 1;
		r = output_init(o, &o->outs[i], &specs[i]);
		if (r < 0)
			goto fail;
	}
	if (need_spool)
		warn_orphan_spools(o);

	/* Threads start with every signal blocked: the daemon's signalfd sees them all. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	for (i = 0; i < o->n; i++) {
		struct output *out = &o->outs[i];

		r = -pthread_create(&out->thread, NULL, out->net ? net_thread : file_thread, out);
		if (r < 0) {
			pthread_sigmask(SIG_SETMASK, &old, NULL);
			log_error_errno(r, "output %s: failed to start its thread: %m",
					out->spec.name);
			goto fail;
		}
		out->thread_started = true;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	*ret = o;
	return 0;
fail:
	outputs_free(o);
	return r;
}

void outputs_free(struct rg_outputs *o)
{
	struct timespec deadline;
	bool leak = false;
	size_t i;

	if (!o)
		return;
	for (i = 0; i < o->n; i++) {
		pthread_mutex_lock(&o->outs[i].lock);
		o->outs[i].stop = true;
		pthread_mutex_unlock(&o->outs[i].lock);
		if (o->outs[i].wake_fd >= 0)
			wake(o->outs[i].wake_fd);
	}
	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_sec += o->cfg.stop_timeout_ms / 1000;
	deadline.tv_nsec += (long)(o->cfg.stop_timeout_ms % 1000) * 1000000L;
	if (deadline.tv_nsec >= 1000000000L) {
		deadline.tv_sec++;
		deadline.tv_nsec -= 1000000000L;
	}
	for (i = 0; i < o->n; i++) {
		struct output *out = &o->outs[i];

		if (!out->thread_started)
			continue;
		if (pthread_timedjoin_np(out->thread, NULL, &deadline) != 0) {
			log_error("output %s: its thread did not stop within %u ms", out->spec.name,
				  o->cfg.stop_timeout_ms);
			leak = true;
		}
	}
	if (leak)
		return; /* a thread still runs and uses this memory: the process is exiting anyway */
	for (i = 0; i < o->n; i++) {
		struct output *out = &o->outs[i];

		while (out->ring && out->ring_count > 0) {
			output_rec_unref(ring_at(out, 0)->rec);
			out->ring_head = (out->ring_head + 1) % out->ring_cap;
			out->ring_count--;
		}
		free(out->ring);
		if (out->fd >= 0)
			close(out->fd);
		if (out->wake_fd >= 0)
			close(out->wake_fd);
		net_free(out->net);
		pthread_mutex_destroy(&out->lock);
	}
	free(o->outs);
	if (o->event_fd >= 0)
		close(o->event_fd);
	if (o->spool_dfd >= 0)
		close(o->spool_dfd);
	pthread_mutex_destroy(&o->flush_lock);
	pthread_cond_destroy(&o->flush_cond);
	free(o);
}

/* For net.c: the spool of a syslog output. */
int output_spool_open(struct output *out, struct spool **ret)
{
	struct rg_outputs *o = out->parent;
	struct spool_config sc = {
		.max_bytes = o->cfg.spool_max_bytes,
		.max_records = o->cfg.spool_max_records,
		.loss_max_bytes = o->cfg.spool_loss_reserve,
		.max_record_bytes = o->cfg.max_alert_bytes + 4096,
	};
	char name[300];
	int r;

	sc.segment_bytes = MIN(MAX(sc.max_bytes / 16, 64ull << 10), 8ull << 20);
	spool_name(&out->spec, name, sizeof(name));
	r = spool_open(o->spool_dfd, name, &sc, ret);
	if (r == -EBUSY)
		return log_error_errno(r, "output %s: spool %s/spool/%s is in use by another process",
				       out->spec.name, o->cfg.state_dir, name);
	if (r < 0)
		return log_error_errno(r, "output %s: failed to open spool %s/spool/%s: %m",
				       out->spec.name, o->cfg.state_dir, name);
	return 0;
}
