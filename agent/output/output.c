/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The outputs API (output.h) and the outputs' lifecycle: outputs_new() sets up the queue and the
 * sink of each output and starts its thread; submission copies an alert once and queues it on
 * every output; flush, loss dispatch, counters and stats; outputs_free(). The sinks (sink.h) are
 * known only through their interface.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "common/caps.h"
#include "common/log.h"
#include "common/macro.h"
#include "common/strutil.h"
#include "common/timestamp.h"
#include "common/uuid.h"
#include "rfc5424.h"
#include "sink.h"
#include "spooldir.h"

struct rg_outputs {
	struct outputs_shared sh;
	size_t n;
	struct output *outs;
};

static const struct output_sink *const sinks[] = {
	[OUTPUT_STDOUT] = &output_file_sink,
	[OUTPUT_FILE] = &output_file_sink,
	[OUTPUT_SYSLOG_TCP] = &output_net_sink,
	[OUTPUT_SYSLOG_TLS] = &output_net_sink,
	[OUTPUT_RELP] = &output_relp_sink,
	[OUTPUT_RELP_TLS] = &output_relp_sink,
};

static const struct output_sink *sink_of(enum output_type t)
{
	return (unsigned)t < ARRAY_SIZE(sinks) ? sinks[t] : NULL;
}

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
	if (a->len > o->sh.cfg.max_alert_bytes) {
		for (i = 0; i < o->n; i++) {
			pthread_mutex_lock(&o->outs[i].lock);
			output_count_drop_locked(&o->outs[i], (unsigned)sev, OUTPUT_DROP_TOO_LARGE,
						 flags & OUTPUT_SUBMIT_LOSS);
			pthread_mutex_unlock(&o->outs[i].lock);
			/* its thread decides when to report the loss */
			output_wake(o->outs[i].wake_fd);
		}
		log_warning("Dropping alert %s: %zu bytes exceed the limit of %u", a->uuid, a->len,
			    o->sh.cfg.max_alert_bytes);
		return -E2BIG;
	}
	rec = output_rec_new(a, sev, flags);
	if (!rec)
		return -ENOMEM;
	for (i = 0; i < o->n; i++) {
		enum output_records want = o->outs[i].spec.records;

		if ((want == OUTPUT_RECORDS_ALERTS && a->incident) ||
		    (want == OUTPUT_RECORDS_INCIDENTS && !a->incident &&
		     !(flags & OUTPUT_SUBMIT_LOSS)))
			continue;
		output_enqueue(&o->outs[i], rec, QE_ALERT);
	}
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
	/* rdmaguard.severity in ECS's layout (event/ecs_map.h); severity in a document not mapped */
	ts_s = get_string(alert, "rdmaguard.severity");
	a.severity = severity_from_string(ts_s ? ts_s : get_string(alert, "severity"));
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
		if (o->outs[i].sink->spooled && atomic_load(&o->outs[i].c.spool_records) > 0)
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
		output_wake(o->outs[i].wake_fd);
	}
	clock_gettime(CLOCK_MONOTONIC, &deadline);
	deadline.tv_sec += timeout_ms / 1000;
	deadline.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
	if (deadline.tv_nsec >= 1000000000L) {
		deadline.tv_sec++;
		deadline.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&o->sh.flush_lock);
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
		if (pthread_cond_timedwait(&o->sh.flush_cond, &o->sh.flush_lock, &deadline) ==
		    ETIMEDOUT)
			break;
	}
	pthread_mutex_unlock(&o->sh.flush_lock);
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
	return o->sh.event_fd;
}

bool outputs_signaled(struct rg_outputs *o)
{
	return atomic_load_explicit(&o->sh.event_signaled, memory_order_relaxed) &&
	       atomic_exchange(&o->sh.event_signaled, false);
}

/* final: every pending loss now, whether or not its interval has passed. */
static int dispatch(struct rg_outputs *o, bool final)
{
	size_t i;

	output_drain_eventfd(o->sh.event_fd);
	for (i = 0; i < o->n; i++) {
		struct output *out = &o->outs[i];
		struct output_loss loss = {.output = out->spec.name};

		if (!output_loss_take(out, final, &loss))
			continue;
		/* The thread may have more to say once the interval has passed. */
		output_wake(out->wake_fd);
		if (o->sh.cfg.loss_cb)
			o->sh.cfg.loss_cb(&loss, o->sh.cfg.loss_userdata);
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

int outputs_type(const struct rg_outputs *o, size_t i)
{
	return i < o->n ? (int)o->outs[i].spec.type : -ENOENT;
}

uint64_t outputs_spool_max_bytes(const struct rg_outputs *o)
{
	return o->sh.cfg.spool_max_bytes;
}

static const char *const fail_names[_OUTPUT_FAIL_N] = {"write_error", "connection_lost",
						       "spool_error"};

const char *output_fail_reason_to_string(enum output_fail_reason r)
{
	return (unsigned)r < _OUTPUT_FAIL_N ? fail_names[r] : "unknown";
}

bool output_fail_reason_applies(enum output_type t, enum output_fail_reason r)
{
	return output_type_is_network(t) ? r != OUTPUT_FAIL_WRITE_ERROR
					 : r == OUTPUT_FAIL_WRITE_ERROR;
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
	ret->written_bytes = atomic_load(&c->written_bytes);
	ret->spooled = atomic_load(&c->spooled);
	ret->spooled_bytes = atomic_load(&c->spooled_bytes);
	ret->spool_records = atomic_load(&c->spool_records);
	ret->spool_bytes = atomic_load(&c->spool_bytes);
	ret->sent = atomic_load(&c->sent);
	ret->sent_bytes = atomic_load(&c->sent_bytes);
	ret->replayed = atomic_load(&c->replayed);
	ret->delivered = atomic_load(&c->delivered);
	ret->delivered_bytes = atomic_load(&c->delivered_bytes);
	for (k = 0; k < _OUTPUT_FAIL_N; k++) {
		ret->failed[k] = atomic_load(&c->failed[k]);
		ret->failed_bytes[k] = atomic_load(&c->failed_bytes[k]);
	}
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

/* {"seq": N, "head": HEX} of a file+chain: output: the heartbeats carry it (docs/evidence.md). */
static struct json_object *chain_stats(struct output *out)
{
	struct json_object *ch = json_object_new_object();
	char head[65];
	uint64_t seq;

	pthread_mutex_lock(&out->lock);
	seq = out->chain_seq;
	memcpy(head, out->chain_head, sizeof(head));
	pthread_mutex_unlock(&out->lock);
	head[64] = 0;
	json_object_object_add(ch, "seq", json_object_new_uint64(seq));
	json_object_object_add(ch, "head", json_object_new_string(head));
	return ch;
}

void outputs_chain_heads(const struct rg_outputs *o, struct json_object *into)
{
	struct json_object *arr = NULL;

	for (size_t i = 0; o && i < o->n; i++) {
		struct output *out = &o->outs[i];
		struct json_object *e;

		if (!out->spec.chain)
			continue;
		if (!arr && !(arr = json_object_new_array()))
			return;
		e = json_object_new_object();
		if (!e)
			break;
		json_object_object_add(e, "name", json_object_new_string(out->spec.name));
		json_object_object_add(e, "chain", chain_stats(out));
		json_object_array_add(arr, e);
	}
	if (arr)
		json_object_object_add(into, "outputs", arr);
}

void outputs_stats(const struct rg_outputs *o, struct json_object *into)
{
	struct json_object *arr = json_object_new_array();
	size_t i;

	if (!arr)
		return;
	for (i = 0; o && i < o->n; i++) {
		struct output *out = &o->outs[i];
		struct json_object *e = json_object_new_object(), *d = json_object_new_object(),
				   *fr = json_object_new_object(), *fb = json_object_new_object();
		struct output_counters c;
		bool net = out->sink->spooled;
		uint64_t total = 0;
		char err[sizeof(out->last_error)];
		unsigned k;

		if (!e || !d || !fr || !fb) {
			json_object_put(e);
			json_object_put(d);
			json_object_put(fr);
			json_object_put(fb);
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
			ADD_U64(e, "spooled_bytes", c.spooled_bytes);
			ADD_U64(e, "spool_records", c.spool_records);
			ADD_U64(e, "spool_bytes", c.spool_bytes);
			ADD_U64(e, "sent", c.sent);
			ADD_U64(e, "sent_bytes", c.sent_bytes);
			ADD_U64(e, "replayed", c.replayed);
			ADD_U64(e, "connects", c.connects);
			ADD_U64(e, "reconnects", c.connects > 0 ? c.connects - 1 : 0);
			ADD_U64(e, "connect_failures", c.connect_failures);
			ADD_U64(e, "disconnects", c.disconnects);
			ADD_U64(e, "spool_corrupt", c.spool_corrupt);
		} else {
			ADD_U64(e, "written", c.written);
			ADD_U64(e, "written_bytes", c.written_bytes);
			if (out->spec.chain)
				json_object_object_add(e, "chain", chain_stats(out));
		}
		ADD_U64(e, "delivered", c.delivered);
		ADD_U64(e, "delivered_bytes", c.delivered_bytes);
		for (k = 0; k < _OUTPUT_FAIL_N; k++) {
			if (!output_fail_reason_applies(out->spec.type, k))
				continue;
			ADD_U64(fr, output_fail_reason_to_string(k), c.failed[k]);
			ADD_U64(fb, output_fail_reason_to_string(k), c.failed_bytes[k]);
		}
		json_object_object_add(e, "failed", fr);
		json_object_object_add(e, "failed_bytes", fb);
		for (k = 0; k < _OUTPUT_DROP_N; k++) {
			ADD_U64(d, output_drop_reason_to_string(k), c.dropped[k]);
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

static int output_init(struct rg_outputs *o, struct output *out, const struct output_spec *sp)
{
	int r;

	r = output_queue_init(out, &o->sh, sp);
	if (r < 0)
		return r;
	out->sink = sink_of(sp->type);
	if (!out->sink)
		return -EINVAL;
	out->wake_always = out->sink->wake_always;
	return out->sink->new(out, &out->sink_state);
}

/*
 * An output's thread: formats, writes, connects, speaks TLS and reads its spool with no
 * capability at all (everything it opens is root's own, or a socket), whatever the thread that
 * started it holds (capabilities are per thread: the daemon's main thread drops its own later).
 */
static void *output_thread(void *arg)
{
	struct output *out = arg;
	int r = caps_limit_worker();

	if (r < 0)
		log_warning_errno(r, "output %s: failed to drop its thread's capabilities: %m",
				  out->spec.name);
	return out->sink->thread(out);
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
	o->sh.event_fd = o->sh.spool_dfd = -1;
	pthread_mutex_init(&o->sh.flush_lock, NULL);
	{
		pthread_condattr_t ca;

		pthread_condattr_init(&ca);
		pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
		pthread_cond_init(&o->sh.flush_cond, &ca);
		pthread_condattr_destroy(&ca);
	}
	if (cfg)
		o->sh.cfg = *cfg;
	apply_defaults(&o->sh.cfg);
	o->sh.facility = syslog_facility_from_string(o->sh.cfg.facility ? o->sh.cfg.facility
									: "authpriv");
	if (o->sh.facility < 0) {
		r = log_error_errno(-EINVAL, "Unknown syslog facility \"%s\"", o->sh.cfg.facility);
		goto fail;
	}
	if (o->sh.cfg.hostname)
		strscpy_ok(o->sh.hostname, o->sh.cfg.hostname, sizeof(o->sh.hostname));
	else if (gethostname(o->sh.hostname, sizeof(o->sh.hostname) - 1) < 0)
		o->sh.hostname[0] = 0;
	snprintf(o->sh.procid, sizeof(o->sh.procid), "%d", (int)getpid());
	o->sh.event_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (o->sh.event_fd < 0) {
		r = log_error_errno(-errno, "Failed to create an eventfd: %m");
		goto fail;
	}

	for (i = 0; i < n; i++) {
		const struct output_sink *sink = sink_of(specs[i].type);

		for (j = 0; j < i; j++)
			if (strcmp(specs[i].name, specs[j].name) == 0) {
				r = log_error_errno(-EEXIST, "output %s: given twice", specs[i].name);
				goto fail;
			}
		if (sink && sink->spooled) {
			need_spool = true;
			if (!o->sh.cfg.state_dir || !*o->sh.cfg.state_dir) {
				r = log_error_errno(-EINVAL,
						    "output %s: syslog outputs need a state directory "
						    "for their spool",
						    specs[i].name);
				goto fail;
			}
		}
	}
	if (need_spool) {
		r = output_spool_dir_open(o->sh.cfg.state_dir, &o->sh.spool_dfd);
		if (r < 0)
			goto fail;
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
		output_spool_dir_warn_orphans(o->sh.spool_dfd, o->sh.cfg.state_dir, specs, n);

	/* Threads start with every signal blocked: the daemon's signalfd sees them all (and
	 * SIGPIPE from a socket write becomes EPIPE). */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	for (i = 0; i < o->n; i++) {
		struct output *out = &o->outs[i];

		r = -pthread_create(&out->thread, NULL, output_thread, out);
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
	for (i = 0; i < o->n; i++)
		output_stop(&o->outs[i]);
	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_sec += o->sh.cfg.stop_timeout_ms / 1000;
	deadline.tv_nsec += (long)(o->sh.cfg.stop_timeout_ms % 1000) * 1000000L;
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
				  o->sh.cfg.stop_timeout_ms);
			leak = true;
		}
	}
	if (leak)
		return; /* a thread still runs and uses this memory: the process is exiting anyway */
	for (i = 0; i < o->n; i++) {
		struct output *out = &o->outs[i];

		if (out->sink)
			out->sink->free(out->sink_state);
		output_queue_fini(out);
	}
	free(o->outs);
	if (o->sh.event_fd >= 0)
		close(o->sh.event_fd);
	if (o->sh.spool_dfd >= 0)
		close(o->sh.spool_dfd);
	pthread_mutex_destroy(&o->sh.flush_lock);
	pthread_cond_destroy(&o->sh.flush_cond);
	free(o);
}
