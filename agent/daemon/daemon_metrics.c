/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The daemon's counters as Prometheus text exposition (version 0.0.4), for the /metrics
 * endpoint (metrics_http.c) and docs/metrics.md. Names follow Prometheus' conventions (the
 * rdmaguard_ prefix, _total for counters, units in the name); every label has a bounded set of
 * values: event types and providers, rule ids of the loaded rules, severities, CPUs, the
 * configured outputs (a file output by its kind, never its path), the hooks of the sensor
 * plan. No pid, path or peer address. The process_* families are the client libraries'
 * standard ones.
 */
#include <dirent.h>
#include <errno.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "config.h"
#include "common/clock.h"
#include "common/macro.h"
#include "common/procstat.h"
#include "enforce/enforce.h"
#include "engine/engine.h"
#include "policy/policy.h"
#include "rules/rules.h"
#include "output/output.h"
#include "sensors/sensors.h"
#include "daemon-internal.h"

/* One family's HELP and TYPE: its samples follow, together. */
static void family(FILE *f, const char *name, const char *type, const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* A label value: \, " and newline escaped. */
static void label_value(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			fputc('\\', f);
		if (*s == '\n') {
			fputs("\\n", f);
			continue;
		}
		fputc(*s, f);
	}
}

/* name{k1="v1",k2="v2"} value; labels: NULL-terminated key, value pairs. */
static void sample(FILE *f, const char *name, uint64_t v, ...)
{
	const char *k;
	va_list ap;
	bool first = true;

	fputs(name, f);
	va_start(ap, v);
	while ((k = va_arg(ap, const char *))) {
		const char *val = va_arg(ap, const char *);

		fprintf(f, "%s%s=\"", first ? "{" : ",", k);
		label_value(f, val ? val : "");
		fputc('"', f);
		first = false;
	}
	va_end(ap);
	fprintf(f, "%s %llu\n", first ? "" : "}", (unsigned long long)v);
}

/*
 * An output's label: its name, but for file outputs, whose name carries a path: "file", or
 * "file#N" for the Nth of several (in the order of the policy, as `rdmaguard status` lists
 * them). A label never holds a path; the returned string lives until the next call.
 */
static const char *output_label(struct daemon *d, size_t i)
{
	static char buf[32]; /* the metrics are rendered on the event thread alone */
	size_t nth = 0, files = 0;

	if (outputs_type(d->outputs, i) != OUTPUT_FILE)
		return outputs_name(d->outputs, i);
	for (size_t j = 0; j < outputs_count(d->outputs); j++)
		if (outputs_type(d->outputs, j) == OUTPUT_FILE) {
			files++;
			if (j <= i)
				nth++;
		}
	if (files == 1)
		return "file";
	snprintf(buf, sizeof(buf), "file#%zu", nth);
	return buf;
}

static void metrics_events(struct daemon *d, FILE *f)
{
	family(f, "rdmaguard_events_total", "counter",
	       "Events evaluated, by event.action and event.provider (source).");
	for (unsigned t = 1; t < RG_EV__MAX; t++)
		for (unsigned p = 1; p < RG_PROV__MAX; p++)
			if (d->events_by[t][p])
				sample(f, "rdmaguard_events_total", d->events_by[t][p], "action",
				       event_type_to_string(t), "source", provider_to_string(p),
				       NULL);
	family(f, "rdmaguard_record_errors_total", "counter",
	       "Events that could not be written to the --record file.");
	sample(f, "rdmaguard_record_errors_total", d->record_errors, NULL);
}

static void metrics_lost(struct daemon *d, FILE *f)
{
	uint64_t per_cpu[1024];
	int n = sensors_lost(d->sensors, per_cpu, ARRAY_SIZE(per_cpu));
	size_t no = outputs_count(d->outputs);
	uint64_t dropped;
	char cpu[16];

	family(f, "rdmaguard_ringbuf_lost_records_total", "counter",
	       "Sensor records lost because the BPF ring buffer was full, per CPU.");
	for (int c = 0; c < n && c < (int)ARRAY_SIZE(per_cpu); c++) {
		snprintf(cpu, sizeof(cpu), "%d", c);
		sample(f, "rdmaguard_ringbuf_lost_records_total", per_cpu[c], "cpu", cpu, NULL);
	}
	family(f, "rdmaguard_budget_dropped_records_total", "counter",
	       "Memory-access records of processes without RDMA dropped over their budget.");
	if (sensors_budget_dropped(d->sensors, &dropped) == 0)
		sample(f, "rdmaguard_budget_dropped_records_total", dropped, NULL);
	family(f, "rdmaguard_output_dropped_records_total", "counter",
	       "Alerts an output dropped, by output and reason.");
	for (size_t i = 0; i < no; i++) {
		struct output_counters c;

		if (outputs_get_counters(d->outputs, i, &c) < 0)
			continue;
		for (unsigned k = 0; k < _OUTPUT_DROP_N; k++)
			sample(f, "rdmaguard_output_dropped_records_total", c.dropped[k], "output",
			       output_label(d, i), "reason",
			       output_drop_reason_to_string(k), NULL);
	}
}

/* Whether one of the rule's severity_when clauses gives severity s. */
static bool rule_may_have(const struct rg_rule *r, int s)
{
	for (size_t k = 0; k < r->n_sev_when; k++)
		if (r->sev_when[k].severity == s)
			return true;
	return false;
}

static void metrics_alerts(struct daemon *d, FILE *f)
{
	const struct rg_ruleset *rules = engine_rules(d->engine);
	struct engine_stats es;

	engine_get_stats(d->engine, &es);
	family(f, "rdmaguard_alerts_total", "counter",
	       "Alerts raised, by rule and severity (after the fleet's raise).");
	for (size_t i = 0; i < rules->n; i++) {
		const struct rg_rule *r = &rules->rules[i];

		/* A rule's own severities start at 0, so that a first alert is an increase; a
		 * severity the fleet's raise gave it appears with its first alert. */
		for (int s = 0; s < RG_SEV__MAX; s++)
			if (s == r->severity || rule_may_have(r, s) ||
			    engine_rule_alerts_at(d->engine, i, s))
				sample(f, "rdmaguard_alerts_total",
				       engine_rule_alerts_at(d->engine, i, s), "rule", r->id,
				       "severity", severity_to_string(s), NULL);
	}
	family(f, "rdmaguard_rule_matches_total", "counter",
	       "Rule matches, by rule, repeats folded into an alert's count included.");
	for (size_t i = 0; i < rules->n; i++) {
		uint64_t a, m;

		engine_rule_stats(d->engine, i, &a, &m);
		sample(f, "rdmaguard_rule_matches_total", m, "rule", rules->rules[i].id, NULL);
	}
	family(f, "rdmaguard_alert_repeats_pending", "gauge",
	       "Repeats counted into an aggregation window, not yet emitted.");
	sample(f, "rdmaguard_alert_repeats_pending", es.agg_pending, NULL);
	family(f, "rdmaguard_alert_repeats_evicted_total", "counter",
	       "Aggregation entries emitted early because the table was full.");
	sample(f, "rdmaguard_alert_repeats_evicted_total", es.agg_evicted, NULL);
	family(f, "rdmaguard_alerts_submitted_total", "counter",
	       "Alerts handed to the outputs, by result.");
	sample(f, "rdmaguard_alerts_submitted_total", d->alerts_sent, "result", "sent", NULL);
	sample(f, "rdmaguard_alerts_submitted_total", d->alerts_below_threshold, "result",
	       "below_threshold", NULL);
	sample(f, "rdmaguard_alerts_submitted_total", d->alerts_too_large, "result", "too_large",
	       NULL);
	sample(f, "rdmaguard_alerts_submitted_total", d->submit_errors, "result", "error", NULL);
}

/* Which outputs a per-output family covers. */
enum output_kinds {
	KINDS_ALL,
	KINDS_FILE, /* stdout and file: */
	KINDS_NET,  /* syslog+tcp, syslog+tls, relp, relp+tls: a spool and a connection */
};

static bool output_in(struct daemon *d, size_t i, enum output_kinds kinds)
{
	int t = outputs_type(d->outputs, i);

	if (t < 0)
		return false;
	return kinds == KINDS_ALL || (kinds == KINDS_NET) == output_type_is_network(t);
}

/* One counter or gauge family over the outputs of kinds. */
static void per_output(struct daemon *d, FILE *f, const char *name, const char *type,
		       const char *help, size_t off, enum output_kinds kinds)
{
	family(f, name, type, help);
	for (size_t i = 0; i < outputs_count(d->outputs); i++) {
		struct output_counters c;

		if (!output_in(d, i, kinds) || outputs_get_counters(d->outputs, i, &c) < 0)
			continue;
		sample(f, name, *(const uint64_t *)((const char *)&c + off), "output",
		       output_label(d, i), NULL);
	}
}

/* A counter family by output and failure reason, the reasons that apply to each output. */
static void per_output_failed(struct daemon *d, FILE *f, const char *name, const char *help,
			      bool bytes)
{
	family(f, name, "counter", help);
	for (size_t i = 0; i < outputs_count(d->outputs); i++) {
		struct output_counters c;
		int t = outputs_type(d->outputs, i);

		if (t < 0 || outputs_get_counters(d->outputs, i, &c) < 0)
			continue;
		for (unsigned k = 0; k < _OUTPUT_FAIL_N; k++)
			if (output_fail_reason_applies(t, k))
				sample(f, name, bytes ? c.failed_bytes[k] : c.failed[k], "output",
				       output_label(d, i), "reason",
				       output_fail_reason_to_string(k), NULL);
	}
}

#define OC(m) offsetof(struct output_counters, m)

static void metrics_outputs(struct daemon *d, FILE *f)
{
	per_output(d, f, "rdmaguard_output_submitted_records_total", "counter",
		   "Alerts accepted into an output's memory queue.", OC(submitted), KINDS_ALL);
	per_output(d, f, "rdmaguard_output_queue_records", "gauge",
		   "Alerts in an output's memory queue now.", OC(queued), KINDS_ALL);
	per_output(d, f, "rdmaguard_output_queue_bytes", "gauge",
		   "Bytes in an output's memory queue now.", OC(queued_bytes), KINDS_ALL);
	per_output(d, f, "rdmaguard_output_written_records_total", "counter",
		   "Alerts a stdout or file output wrote.", OC(written), KINDS_FILE);
	per_output(d, f, "rdmaguard_output_written_bytes_total", "counter",
		   "Bytes a stdout or file output wrote (JSON lines with their newline).",
		   OC(written_bytes), KINDS_FILE);
	per_output(d, f, "rdmaguard_output_spooled_records_total", "counter",
		   "Alerts a syslog or RELP output appended to its spool.", OC(spooled), KINDS_NET);
	per_output(d, f, "rdmaguard_output_spooled_bytes_total", "counter",
		   "Bytes of RFC 5424 messages a syslog or RELP output appended to its spool.",
		   OC(spooled_bytes), KINDS_NET);
	per_output(d, f, "rdmaguard_output_sent_records_total", "counter",
		   "Records a syslog or RELP output wrote to a connection (re-sent ones included).",
		   OC(sent), KINDS_NET);
	per_output(d, f, "rdmaguard_output_sent_bytes_total", "counter",
		   "Bytes of the records a syslog or RELP output wrote to a connection (syslog: "
		   "octet-counted frames before TLS; RELP: RFC 5424 messages).",
		   OC(sent_bytes), KINDS_NET);
	per_output(d, f, "rdmaguard_output_delivered_records_total", "counter",
		   "Records delivered: written (stdout, file), confirmed by the collector's TCP "
		   "(syslog) or acknowledged (RELP), and removed from the spool.",
		   OC(delivered), KINDS_ALL);
	per_output(d, f, "rdmaguard_output_delivered_bytes_total", "counter",
		   "Bytes of the records delivered, counted as written or sent.",
		   OC(delivered_bytes), KINDS_ALL);
	per_output_failed(d, f, "rdmaguard_output_failed_records_total",
			  "Records an output failed to write or send, by reason.", false);
	per_output_failed(d, f, "rdmaguard_output_failed_bytes_total",
			  "Bytes of the records an output failed to write or send, by reason.", true);
	per_output(d, f, "rdmaguard_output_connect_failures_total", "counter",
		   "Failed connections to the collector.", OC(connect_failures), KINDS_NET);
	per_output(d, f, "rdmaguard_output_spool_records", "gauge",
		   "Records in a syslog or RELP output's spool, not yet delivered.",
		   OC(spool_records), KINDS_NET);
	per_output(d, f, "rdmaguard_output_spool_bytes", "gauge",
		   "Bytes in a syslog or RELP output's spool, not yet delivered.", OC(spool_bytes),
		   KINDS_NET);
	family(f, "rdmaguard_output_spool_max_bytes", "gauge",
	       "A syslog or RELP output's spool capacity for ordinary alerts.");
	for (size_t i = 0; i < outputs_count(d->outputs); i++)
		if (output_in(d, i, KINDS_NET))
			sample(f, "rdmaguard_output_spool_max_bytes",
			       outputs_spool_max_bytes(d->outputs), "output",
			       output_label(d, i), NULL);
	family(f, "rdmaguard_output_connected", "gauge",
	       "1 while a syslog or RELP output is connected to its collector.");
	for (size_t i = 0; i < outputs_count(d->outputs); i++) {
		struct output_counters c;

		if (output_in(d, i, KINDS_NET) && outputs_get_counters(d->outputs, i, &c) == 0)
			sample(f, "rdmaguard_output_connected", c.connected, "output",
			       output_label(d, i), NULL);
	}
}

static void metrics_sensors(struct daemon *d, FILE *f)
{
	struct json_object *hooks = NULL, *h;

	if (d->hooks)
		json_object_object_get_ex(d->hooks, "hooks", &hooks);
	family(f, "rdmaguard_sensor_info", "gauge",
	       "The hook flavour each sensor runs on (fentry, kprobe, tracepoint, ...; none).");
	if (hooks) {
		json_object_object_foreach(hooks, name, v)
		{
			const char *flavour = "none";

			if (json_object_object_get_ex(v, "active", &h) && json_object_get_string(h))
				flavour = json_object_get_string(h);
			sample(f, "rdmaguard_sensor_info", 1, "sensor", name, "flavour", flavour,
			       NULL);
		}
	}
	family(f, "rdmaguard_sensor_programs", "gauge", "BPF programs attached, per sensor.");
	if (hooks) {
		json_object_object_foreach(hooks, name2, v2)
		{
			size_t n = 0;

			if (json_object_object_get_ex(v2, "programs", &h) &&
			    json_object_is_type(h, json_type_array))
				n = json_object_array_length(h);
			sample(f, "rdmaguard_sensor_programs", n, "sensor", name2, NULL);
		}
	}
}

struct prog_pass {
	FILE *f;
	bool seconds; /* run time in seconds, else run counts */
};

static void prog_sample(void *ud, const char *name, uint64_t runs, uint64_t ns)
{
	struct prog_pass *p = ud;

	if (p->seconds)
		fprintf(p->f, "rdmaguard_bpf_program_run_seconds_total{program=\"%s\"} %.9f\n",
			name, (double)ns / 1e9);
	else
		sample(p->f, "rdmaguard_bpf_program_runs_total", runs, "program", name, NULL);
}

/* Only where kernel.bpf_stats_enabled=1: otherwise the kernel counts nothing. */
static void metrics_bpf(struct daemon *d, FILE *f)
{
	struct prog_pass p = {.f = f};

	family(f, "rdmaguard_bpf_program_runs_total", "counter",
	       "Runs of each sensor BPF program (only with kernel.bpf_stats_enabled=1).");
	if (sensors_prog_stats(d->sensors, prog_sample, &p) <= 0)
		return;
	p.seconds = true;
	family(f, "rdmaguard_bpf_program_run_seconds_total", "counter",
	       "Time spent in each sensor BPF program (only with kernel.bpf_stats_enabled=1).");
	(void)sensors_prog_stats(d->sensors, prog_sample, &p);
}

/* The TC programs' drop of RDMA traffic with peers outside the fleet (docs/enforcement.md). */
static void metrics_tc_drops(struct daemon *d, FILE *f)
{
	uint64_t n[SENSORS_TC_DROP_REASONS] = {0};

	if (!d->sensors || sensors_tc_drops(d->sensors, n) < 0)
		memset(n, 0, sizeof(n));
	family(f, "rdmaguard_rdma_peer_drop_active", "gauge",
	       "1 while the TC programs drop RoCE v2/iWARP traffic with peers outside the fleet.");
	sample(f, "rdmaguard_rdma_peer_drop_active", d->tc_dropping, NULL);
	family(f, "rdmaguard_rdma_dropped_packets_total", "counter",
	       "RoCE v2 (UDP 4791) and iWARP (TCP) packets with a peer outside the fleet dropped, "
	       "by protocol.");
	sample(f, "rdmaguard_rdma_dropped_packets_total", n[0], "protocol", "roce_v2", NULL);
	sample(f, "rdmaguard_rdma_dropped_packets_total", n[1], "protocol", "iwarp", NULL);
}

static void metrics_state(struct daemon *d, FILE *f)
{
	const struct rg_policy *p = engine_policy(d->engine);
	struct engine_stats es;
	bool active = enforce_started(d->enf);

	engine_get_stats(d->engine, &es);
	family(f, "rdmaguard_enforcement_requested", "gauge",
	       "1 when the policy or --enforce asks for enforcement.");
	sample(f, "rdmaguard_enforcement_requested", d->cfg->enforce || p->enforce, NULL);
	family(f, "rdmaguard_enforcement_active", "gauge",
	       "1 while enforcement is in force in the kernel.");
	sample(f, "rdmaguard_enforcement_active", active, NULL);
	family(f, "rdmaguard_enforcement_actions_total", "counter",
	       "Operations enforcement refused (denied) and processes it killed.");
	sample(f, "rdmaguard_enforcement_actions_total", d->enforce_denied, "action", "denied",
	       NULL);
	sample(f, "rdmaguard_enforcement_actions_total", d->enforce_killed, "action", "killed",
	       NULL);
	metrics_tc_drops(d, f);
	family(f, "rdmaguard_policy_generation", "gauge",
	       "The policy in force: 1 at start, one more for each accepted reload.");
	sample(f, "rdmaguard_policy_generation", 1 + d->reloads_ok, NULL);
	family(f, "rdmaguard_policy_reloads_total", "counter", "Reloads (SIGHUP), by result.");
	sample(f, "rdmaguard_policy_reloads_total", d->reloads_ok, "result", "ok", NULL);
	sample(f, "rdmaguard_policy_reloads_total", d->reloads_rejected, "result", "rejected",
	       NULL);
	family(f, "rdmaguard_proctree_capacity", "gauge", "Entries the process tree can hold.");
	sample(f, "rdmaguard_proctree_capacity", es.proc.capacity, NULL);
	family(f, "rdmaguard_proctree_processes", "gauge", "Processes in the tree, by state.");
	sample(f, "rdmaguard_proctree_processes", es.proc.live, "state", "live", NULL);
	sample(f, "rdmaguard_proctree_processes", es.proc.exited, "state", "exited", NULL);
	family(f, "rdmaguard_proctree_evictions_total", "counter",
	       "Entries evicted from the full process tree, by state.");
	sample(f, "rdmaguard_proctree_evictions_total", es.proc.evicted_live, "state", "live",
	       NULL);
	sample(f, "rdmaguard_proctree_evictions_total", es.proc.evicted_exited, "state", "exited",
	       NULL);
	family(f, "rdmaguard_incidents_open", "gauge", "Incidents open now.");
	sample(f, "rdmaguard_incidents_open", es.incidents.open, NULL);
	family(f, "rdmaguard_incidents_total", "counter", "Incidents by what happened to them.");
	sample(f, "rdmaguard_incidents_total", es.incidents.opened, "event", "opened", NULL);
	sample(f, "rdmaguard_incidents_total", es.incidents.closed, "event", "closed", NULL);
	sample(f, "rdmaguard_incidents_total", es.incidents.evicted, "event", "evicted", NULL);
	family(f, "rdmaguard_incident_log_dropped_total", "counter",
	       "Alerts and raw events an incident could not keep (its log was full).");
	sample(f, "rdmaguard_incident_log_dropped_total", es.incidents.log_dropped, NULL);
	family(f, "rdmaguard_games_running", "gauge", "Game sessions running now.");
	sample(f, "rdmaguard_games_running", es.games_running, NULL);
	family(f, "rdmaguard_reconcile_runs_total", "counter",
	       "Reconciliations with the kernel's RDMA resource tables, by result.");
	sample(f, "rdmaguard_reconcile_runs_total", d->reconcile_runs - d->reconcile_errors,
	       "result", "ok", NULL);
	sample(f, "rdmaguard_reconcile_runs_total", d->reconcile_errors, "result", "error", NULL);
}

/* name value, a gauge or counter in seconds or bytes that is not a whole number. */
static void sample_double(FILE *f, const char *name, double v)
{
	fprintf(f, "%s %.6f\n", name, v);
}

/*
 * The standard process metrics of Prometheus' client libraries (process_cpu_seconds_total,
 * memory, file descriptors, start time), so that the agent's own cost is watched like any
 * exporter's. Read from the kernel about this process: getrusage(), /proc/self/statm,
 * /proc/self/fd, getrlimit(); a value that cannot be read is left out.
 */
static void metrics_process(FILE *f)
{
	char buf[4096];
	struct proc_stat st;
	struct rusage ru;
	struct rlimit rl;
	unsigned long long vm_pages, rss_pages;
	long page = sysconf(_SC_PAGESIZE);
	FILE *m;
	DIR *dir;

	if (getrusage(RUSAGE_SELF, &ru) == 0) {
		family(f, "process_cpu_seconds_total", "counter",
		       "Total user and system CPU time spent in seconds.");
		sample_double(f, "process_cpu_seconds_total",
			      (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
				  (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6);
	}
	m = fopen("/proc/self/statm", "re");
	if (m) {
		if (fscanf(m, "%llu %llu", &vm_pages, &rss_pages) == 2 && page > 0) {
			family(f, "process_virtual_memory_bytes", "gauge",
			       "Virtual memory size in bytes.");
			sample(f, "process_virtual_memory_bytes", vm_pages * (uint64_t)page, NULL);
			family(f, "process_resident_memory_bytes", "gauge",
			       "Resident memory size in bytes.");
			sample(f, "process_resident_memory_bytes", rss_pages * (uint64_t)page, NULL);
		}
		fclose(m);
	}
	dir = opendir("/proc/self/fd");
	if (dir) {
		uint64_t n = 0;
		struct dirent *de;

		while ((de = readdir(dir)))
			if (de->d_name[0] != '.')
				n++;
		closedir(dir);
		family(f, "process_open_fds", "gauge", "Number of open file descriptors.");
		sample(f, "process_open_fds", n > 0 ? n - 1 : 0, NULL); /* less opendir()'s own */
	}
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY) {
		family(f, "process_max_fds", "gauge", "Maximum number of open file descriptors.");
		sample(f, "process_max_fds", rl.rlim_cur, NULL);
	}
	if (proc_stat_read((uint32_t)getpid(), buf, sizeof(buf), &st) == 0) {
		family(f, "process_start_time_seconds", "gauge",
		       "Start time of the process since unix epoch in seconds.");
		sample_double(f, "process_start_time_seconds",
			      (double)(proc_ticks_to_ns(st.start_ticks) +
				       boot_to_realtime_offset_ns()) /
				  1e9);
	}
}

int daemon_metrics_render(struct daemon *d, bool sensitive, char **ret, size_t *ret_len)
{
	const struct rg_policy *p = engine_policy(d->engine);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return -ENOMEM;
	family(f, "rdmaguard_build_info", "gauge", "The agent's version; always 1.");
	sample(f, "rdmaguard_build_info", 1, "version", RG_VERSION, NULL);
	family(f, "rdmaguard_seat_info", "gauge",
	       "The seat: labels.seat of the policy and host.id (machine-id); always 1.");
	sample(f, "rdmaguard_seat_info", 1, "seat", p->seat ? p->seat : "", "host_id", d->id.id,
	       NULL);
	family(f, "rdmaguard_start_time_seconds", "gauge", "When the daemon started, Unix time.");
	sample(f, "rdmaguard_start_time_seconds", d->start_rt_ns / 1000000000ull, NULL);
	metrics_events(d, f);
	metrics_lost(d, f);
	metrics_alerts(d, f);
	metrics_outputs(d, f);
	if (sensitive) /* which hook each sensor runs on: behind the gate (metrics_gate.h) */
		metrics_sensors(d, f);
	metrics_bpf(d, f);
	metrics_state(d, f);
	metrics_process(f);
	if (fclose(f) != 0 || !buf) {
		free(buf);
		return -ENOMEM;
	}
	*ret = buf;
	*ret_len = len;
	return 0;
}
