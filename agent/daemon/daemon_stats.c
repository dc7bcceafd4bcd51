/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the daemon says of itself: the counters of `rdmaguard status` and of the heartbeat, the
 * start/stop/heartbeat notices for the SIEM, and the outputs' and the process tree's losses as
 * AGENT-001 events.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/log.h"
#include "common/macro.h"
#include "common/timestamp.h"
#include "config.h"
#include "enforce/enforce.h"
#include "event/ecs_map.h"
#include "engine/engine.h"
#include "policy/policy.h"
#include "rules/rules.h"
#include "output/output.h"
#include "sensors/sensors.h"
#include "daemon-internal.h"

#define ADD(o, k, v) json_object_object_add((o), (k), (v))

static uint64_t rss_bytes(void)
{
	char buf[128];
	unsigned long long size, rss;
	FILE *f = fopen("/proc/self/statm", "re");

	if (!f)
		return 0;
	if (!fgets(buf, sizeof(buf), f) || sscanf(buf, "%llu %llu", &size, &rss) != 2)
		rss = 0;
	fclose(f);
	return (uint64_t)rss * (uint64_t)sysconf(_SC_PAGESIZE);
}

/* Counters for the heartbeat and `rdmaguard status`. */
struct json_object *daemon_stats(struct daemon *d, bool with_hooks)
{
	struct json_object *o = json_object_new_object(), *ev, *by, *al, *rl, *sev, *sn, *lost, *pt;
	const struct rg_ruleset *rules = engine_rules(d->engine);
	struct engine_stats es;
	uint64_t per_cpu[1024], lost_total = 0;
	char ts[32];
	int ncpu;

	if (!o)
		return NULL;
	engine_get_stats(d->engine, &es);
	format_timestamp(d->start_rt_ns, ts);
	ADD(o, "version", json_object_new_string(RG_VERSION));
	ADD(o, "pid", json_object_new_int64(getpid()));
	ADD(o, "started", json_object_new_string(ts));
	ADD(o, "uptime_s", json_object_new_uint64((now_monotonic_ns() - d->start_mono_ns) / 1000000000ull));
	ADD(o, "policy", d->policy_path ? json_object_new_string(d->policy_path) : NULL);
	ADD(o, "rules_dir", json_object_new_string(d->rules_dir));
	ADD(o, "rules", json_object_new_uint64(rules->n));

	ev = json_object_new_object();
	by = json_object_new_object();
	ADD(ev, "total", json_object_new_uint64(es.events));
	for (unsigned t = 1; t < RG_EV__MAX; t++)
		if (es.events_by_type[t])
			ADD(by, event_type_to_string(t), json_object_new_uint64(es.events_by_type[t]));
	ADD(ev, "by_type", by);
	ADD(ev, "record_errors", json_object_new_uint64(d->record_errors));
	ADD(o, "events", ev);

	al = json_object_new_object();
	rl = json_object_new_object();
	sev = json_object_new_object();
	ADD(al, "total", json_object_new_uint64(es.alerts));
	ADD(al, "sent", json_object_new_uint64(d->alerts_sent));
	ADD(al, "below_threshold", json_object_new_uint64(d->alerts_below_threshold));
	ADD(al, "too_large", json_object_new_uint64(d->alerts_too_large));
	ADD(al, "submit_errors", json_object_new_uint64(d->submit_errors));
	ADD(al, "pending_repeats", json_object_new_uint64(es.agg_pending));
	for (size_t i = 0; i < rules->n; i++) {
		uint64_t n, m;

		engine_rule_stats(d->engine, i, &n, &m);
		if (n)
			ADD(rl, rules->rules[i].id, json_object_new_uint64(n));
	}
	for (int s = 0; s < RG_SEV__MAX; s++)
		if (es.alerts_by_severity[s])
			ADD(sev, severity_to_string(s), json_object_new_uint64(es.alerts_by_severity[s]));
	ADD(al, "by_rule", rl);
	ADD(al, "by_severity", sev);
	ADD(o, "alerts", al);

	sn = json_object_new_object();
	lost = json_object_new_array();
	ncpu = sensors_lost(d->sensors, per_cpu, ARRAY_SIZE(per_cpu));
	for (int c = 0; c < ncpu && c < (int)ARRAY_SIZE(per_cpu); c++) {
		json_object_array_add(lost, json_object_new_uint64(per_cpu[c]));
		lost_total += per_cpu[c];
	}
	ADD(sn, "lost_per_cpu", lost);
	ADD(sn, "lost_total", json_object_new_uint64(lost_total));
	ADD(sn, "ring", sensors_ring_describe(d->sensors));
	if (with_hooks && d->hooks)
		ADD(sn, "hooks", json_object_get(d->hooks));
	ADD(o, "sensors", sn);

	outputs_stats(d->outputs, o);
	daemon_evidence_sign_heads(d, o);
	if (d->enf)
		ADD(o, "enforce", enforce_describe(d->enf));
	if (d->hw)
		ADD(o, "hardware", daemon_hw_stats(d));
	if (with_hooks) /* `status` */
		ADD(o, "capabilities", daemon_privs_describe(d));

	pt = json_object_new_object();
	ADD(pt, "capacity", json_object_new_uint64(es.proc.capacity));
	ADD(pt, "live", json_object_new_uint64(es.proc.live));
	ADD(pt, "exited", json_object_new_uint64(es.proc.exited));
	ADD(pt, "evicted_live", json_object_new_uint64(es.proc.evicted_live));
	ADD(pt, "evicted_kept", json_object_new_uint64(es.proc.evicted_kept));
	ADD(pt, "evicted_exited", json_object_new_uint64(es.proc.evicted_exited));
	ADD(pt, "games_running", json_object_new_uint64(es.games_running));
	ADD(o, "proctree", pt);
	pt = json_object_new_object();
	ADD(pt, "open", json_object_new_uint64(es.incidents.open));
	ADD(pt, "closed_kept", json_object_new_uint64(es.incidents.closed_kept));
	ADD(pt, "opened", json_object_new_uint64(es.incidents.opened));
	ADD(pt, "updated", json_object_new_uint64(es.incidents.updated));
	ADD(pt, "closed", json_object_new_uint64(es.incidents.closed));
	ADD(pt, "evicted", json_object_new_uint64(es.incidents.evicted));
	ADD(pt, "forgotten", json_object_new_uint64(es.incidents.forgotten));
	ADD(pt, "log_dropped", json_object_new_uint64(es.incidents.log_dropped));
	ADD(pt, "records_sent", json_object_new_uint64(d->incident_records_sent));
	ADD(o, "incidents", pt);
	pt = json_object_new_object();
	ADD(pt, "hashed", json_object_new_uint64(es.hash.hashed));
	ADD(pt, "cached", json_object_new_uint64(es.hash.cached));
	ADD(pt, "queued", json_object_new_uint64(es.hash.queued));
	ADD(pt, "waiting", json_object_new_uint64(es.hash.waiting));
	ADD(pt, "refused", json_object_new_uint64(es.hash.refused));
	ADD(pt, "too_big", json_object_new_uint64(es.hash.too_big));
	ADD(pt, "errors", json_object_new_uint64(es.hash.errors));
	ADD(o, "exe_hash", pt);

	ev = json_object_new_object();
	ADD(ev, "ok", json_object_new_uint64(d->reloads_ok));
	ADD(ev, "rejected", json_object_new_uint64(d->reloads_rejected));
	ADD(o, "reloads", ev);
	ev = json_object_new_object();
	ADD(ev, "runs", json_object_new_uint64(d->reconcile_runs));
	ADD(ev, "new", json_object_new_uint64(d->reconcile_new));
	ADD(ev, "errors", json_object_new_uint64(d->reconcile_errors));
	if (d->reconcile_last_error)
		ADD(ev, "last_error", json_object_new_string(strerror(-d->reconcile_last_error)));
	ADD(o, "reconcile", ev);
	ADD(o, "rss_bytes", json_object_new_uint64(rss_bytes()));
	/* the heads of hash-chained file outputs, signed: a collector holds them against the
	 * log (evidence verify-log --heads, docs/evidence.md) */
	outputs_chain_heads(d->outputs, o);
	daemon_evidence_sign_heads(d, o);
	return o;
}

/* Start, stop and heartbeat notices for the SIEM: not alerts, but it must see a live agent. */
void daemon_notice(struct daemon *d, const char *action, const char *kind, const char *message,
		   struct json_object *agent)
{
	struct json_object *o = json_object_new_object(), *ev = json_object_new_object();
	char ts[32];

	format_timestamp(now_realtime_ns(), ts);
	ADD(o, "@timestamp", json_object_new_string(ts));
	ADD(ev, "kind", json_object_new_string(kind));
	ADD(ev, "action", json_object_new_string(action));
	ADD(ev, "dataset", json_object_new_string("rdmaguard.agent"));
	ADD(o, "event", ev);
	ADD(o, "severity", json_object_new_string("info"));
	ADD(o, "message", json_object_new_string(message));
	daemon_identity_add(d, o);
	ADD(agent, "type", json_object_new_string("rdmaguard"));
	ADD(agent, "version", json_object_new_string(RG_VERSION));
	ADD(o, "agent", agent);
	/* ECS's names and categories, as the alerts have them (event/ecs_map.h) */
	ecs_add_event_json(o, event_type_from_string(action), 0);
	if (ecs_map_json(o) < 0 || outputs_submit(d->outputs, o) < 0)
		d->submit_errors++;
	json_object_put(o);
}

void daemon_loss_cb(const struct output_loss *loss, void *ud)
{
	struct daemon *d = ud;
	const char *what;
	char text[RG_TEXT_LEN];

	(void)output_loss_describe(loss, &what, text, sizeof(text));
	log_warning("%s", text);
	/* The loss report must not be lost itself: it rides in the spool's reserve. */
	d->submit_flags = OUTPUT_SUBMIT_LOSS;
	daemon_agent_event(d, RG_EV_AGENT_LOST, false, what, text, loss->total, loss->total_since_start);
	d->submit_flags = 0;
}

/* The seat's identity (docs/seat.md) into the alerts (the engine) and notices: the addresses
 * are re-read on every heartbeat, and the engine told only when they changed. */
void daemon_identity_refresh(struct daemon *d, bool force)
{
	struct json_object *host;
	int r = identity_refresh_addrs(&d->id);

	if (r < 0)
		log_warning_errno(r, "Failed to read the interfaces' addresses: %m");
	if (r <= 0 && !force)
		return;
	host = identity_host_json(&d->id);
	if (!host || engine_set_identity(d->engine, json_object_to_json_string_ext(
							host, JSON_C_TO_STRING_PLAIN |
								  JSON_C_TO_STRING_NOSLASHESCAPE),
					 RG_VERSION) < 0)
		log_oom();
	json_object_put(host);
}

/* host.*, labels.seat, rdmaguard.policy.sha256, hw.fingerprint and pci.dsn[] into o (a notice,
 * or the status). */
void daemon_identity_add(struct daemon *d, struct json_object *o)
{
	const struct rg_policy *p = engine_policy(d->engine);
	struct json_object *rg;

	ADD(o, "host", identity_host_json(&d->id));
	if (p->seat) {
		struct json_object *labels = json_object_new_object();

		ADD(labels, "seat", json_object_new_string(p->seat));
		ADD(o, "labels", labels);
	}
	if (!json_object_object_get_ex(o, "rdmaguard", &rg)) {
		rg = json_object_new_object();
		ADD(o, "rdmaguard", rg);
	}
	if (p->sha256[0]) {
		struct json_object *pol = json_object_new_object();

		ADD(pol, "sha256", json_object_new_string(p->sha256));
		ADD(rg, "policy", pol);
	}
	daemon_evidence_add(d, rg);
	/* hw.fingerprint and pci.dsn[]: the names the fleet's ingest() reads
	 * (fleet/postgresql/schema.sql). */
	daemon_hw_print_add(d, o);
}

void daemon_proctree_loss(struct daemon *d)
{
	struct engine_stats es;
	char text[RG_TEXT_LEN];
	uint64_t n;

	engine_get_stats(d->engine, &es);
	if (es.proc.evicted_live <= d->proc_evicted_reported)
		return;
	n = es.proc.evicted_live - d->proc_evicted_reported;
	d->proc_evicted_reported = es.proc.evicted_live;
	/* What is lost is state, not events: lineage, RDMA use and game membership of live
	 * processes, which RDMA-006/008 need later. */
	snprintf(text, sizeof(text),
		 "live processes dropped from the full process tree (%zu entries): their lineage "
		 "and RDMA use are forgotten; %llu of all such drops used RDMA or ran a game",
		 es.proc.capacity, (unsigned long long)es.proc.evicted_kept);
	log_warning("%s", text);
	daemon_agent_event(d, RG_EV_AGENT_LOST, false, "proctree", text, n, es.proc.evicted_live);
}

/* The heartbeat's counters: a slim state document of what a SIEM charts per seat and what the
 * fleet store keeps (every
 * counter is in `status` and the metrics; the full set in every heartbeat of every seat was
 * about 2.4 KB a minute each). */
static struct json_object *heartbeat_stats(struct daemon *d, const struct engine_stats *es)
{
	struct json_object *o = json_object_new_object(), *ev = json_object_new_object(),
			   *al = json_object_new_object(), *sn = json_object_new_object();
	uint64_t per_cpu[1024], lost = 0;
	int c, ncpu = sensors_lost(d->sensors, per_cpu, ARRAY_SIZE(per_cpu));

	for (c = 0; c < ncpu && c < (int)ARRAY_SIZE(per_cpu); c++)
		lost += per_cpu[c];
	ADD(o, "uptime_s",
	    json_object_new_uint64((now_monotonic_ns() - d->start_mono_ns) / 1000000000ull));
	ADD(ev, "total", json_object_new_uint64(es->events));
	ADD(o, "events", ev);
	ADD(al, "total", json_object_new_uint64(es->alerts));
	ADD(al, "sent", json_object_new_uint64(d->alerts_sent));
	ADD(al, "submit_errors", json_object_new_uint64(d->submit_errors));
	ADD(o, "alerts", al);
	ADD(sn, "lost_total", json_object_new_uint64(lost));
	ADD(o, "sensors", sn);
	/* the fleet store's seat state reads it (fleet/postgresql/schema.sql) */
	sn = json_object_new_object();
	ADD(sn, "games_running", json_object_new_uint64(es->games_running));
	ADD(o, "proctree", sn);
	ADD(o, "rss_bytes", json_object_new_uint64(rss_bytes()));
	/* the heads of hash-chained file outputs, signed: a collector holds them against the
	 * log (evidence verify-log --heads, docs/evidence.md) */
	outputs_chain_heads(d->outputs, o);
	daemon_evidence_sign_heads(d, o);
	return o;
}

void daemon_heartbeat(struct daemon *d)
{
	struct json_object *stats;
	struct engine_stats es;
	char msg[160];

	daemon_identity_refresh(d, false);
	engine_get_stats(d->engine, &es);
	stats = heartbeat_stats(d, &es);

	snprintf(msg, sizeof(msg), "rdmaguard alive: %llu events, %llu alerts, uptime %llu s",
		 (unsigned long long)es.events, (unsigned long long)es.alerts,
		 (unsigned long long)((now_monotonic_ns() - d->start_mono_ns) / 1000000000ull));
	daemon_agent_event(d, RG_EV_AGENT_HEARTBEAT, true, "heartbeat", msg, es.events, es.alerts);
	if (stats)
		daemon_notice(d, "agent_heartbeat", "metric", msg, stats);
}

/* "process=tracepoint verbs=kprobe ..." for the start event's text. */
void daemon_hooks_summary(struct json_object *desc, char *buf, size_t size)
{
	struct json_object *hooks;
	size_t off = 0;

	buf[0] = 0;
	if (!desc || !json_object_object_get_ex(desc, "hooks", &hooks))
		return;
	json_object_object_foreach(hooks, name, h)
	{
		struct json_object *act;
		int n;

		if (!json_object_object_get_ex(h, "active", &act))
			continue;
		n = snprintf(buf + off, size - off, "%s%s=%s", off ? " " : "", name,
			     json_object_get_string(act));
		if (n < 0 || (size_t)n >= size - off)
			break;
		off += (size_t)n;
	}
}
