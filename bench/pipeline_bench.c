/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pipeline_bench EVENTS.jsonl POLICY RULES_DIR ALERTS_FILE: the daemon's share of the event
 * pipeline, without replay's JSON input: the rule engine (process tree, rules, aggregation),
 * building each alert, serialising and queueing it, and the file output's thread writing it.
 *
 * The events are read and decoded from JSON in chunks of 8192 (not counted: the daemon gets them
 * as binary BPF records, which the decoders turn into events for far less), then fed to
 * engine_process() as the daemon feeds them, alerts to outputs_submit() of a file output.
 * Counted is CPU time, not wall time: the process's CPU time (every thread: the output's
 * thread writes on another core when there is one) minus the main thread's CPU time spent
 * reading and decoding. Prints one JSON line:
 *   {"events":N,"alerts":A,"cpu_ns":T,"events_per_cpu_s":E,"decode_cpu_ns":D}
 * Exit 0, 2 on an error.
 */
#include <errno.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine/engine.h"
#include "event/event_json.h"
#include "output/output.h"
#include "common/macro.h"

#define CHUNK	 8192
#define MAX_LINE (64 * 1024)

struct ctx {
	struct rg_outputs *outputs;
	uint64_t alerts;
};

static uint64_t cpu_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int emit(const struct rg_alert *alert, void *ud)
{
	struct ctx *c = ud;

	c->alerts++;
	(void)outputs_submit_alert(c->outputs, alert, 0);
	return 0;
}

/* Incident records go to the output too, as the daemon sends them. */
static int emit_incident(const struct rg_alert *rec, void *ud)
{
	struct ctx *c = ud;

	(void)outputs_submit_alert(c->outputs, rec, 0);
	return 0;
}

static int fail(const char *what)
{
	fprintf(stderr, "pipeline_bench: %s\n", what);
	return 2;
}

int main(int argc, char **argv)
{
	static struct rg_event evs[CHUNK];
	static char line[MAX_LINE + 2];
	struct engine_config cfg = {.hostname = "bench-host",
				    .boot_id = "00000000-0000-4000-8000-000000000000"};
	struct outputs_config ocfg = {.state_dir = "/nonexistent"};
	struct output_spec spec;
	struct rg_policy *policy = NULL;
	struct rg_ruleset *rules = NULL;
	struct rg_engine *e = NULL;
	struct rg_error err;
	struct ctx c = {0};
	uint64_t events = 0, decode_ns = 0, t0, total_ns;
	char buf[1200], spec_text[4200], msg[256];
	FILE *f;
	size_t n, i;
	int eof = 0;

	if (argc != 5)
		return fail("usage: pipeline_bench EVENTS.jsonl POLICY RULES_DIR ALERTS_FILE");
	t0 = cpu_ns(CLOCK_PROCESS_CPUTIME_ID);
	if (engine_load_config(argv[2], false, argv[3], output_spec_check, &policy, &rules, &err) <
		0 ||
	    engine_new(policy, rules, &cfg, &e, &err) < 0)
		return fail(rg_error_format(&err, buf, sizeof(buf)));
	snprintf(spec_text, sizeof(spec_text), "file:%s", argv[4]);
	if (output_spec_parse(spec_text, &spec, buf, sizeof(buf)) < 0)
		return fail(buf);
	if (outputs_new(&spec, 1, &ocfg, &c.outputs) < 0)
		return fail("cannot open the output");
	engine_set_incident_fn(e, emit_incident, &c);
	f = fopen(argv[1], "re");
	if (!f)
		return fail("cannot open the events file");
	/* start-up (rules, outputs) is not the pipeline */
	t0 = cpu_ns(CLOCK_PROCESS_CPUTIME_ID) - t0;
	total_ns = cpu_ns(CLOCK_PROCESS_CPUTIME_ID);
	while (!eof) {
		uint64_t d0 = cpu_ns(CLOCK_THREAD_CPUTIME_ID);

		for (n = 0; n < CHUNK;) {
			struct json_object *o;

			if (!fgets(line, sizeof(line), f)) {
				eof = 1;
				break;
			}
			if (line[0] == '\n')
				continue;
			o = json_tokener_parse(line);
			if (!o)
				return fail("invalid JSON line");
			if (event_from_json(o, &evs[n], msg, sizeof(msg)) < 0)
				return fail(msg);
			json_object_put(o);
			n++;
		}
		decode_ns += cpu_ns(CLOCK_THREAD_CPUTIME_ID) - d0;
		for (i = 0; i < n; i++)
			if (engine_process(e, &evs[i], emit, &c) < 0)
				return fail("engine_process failed");
		events += n;
	}
	if (engine_flush(e, emit, &c) < 0 || outputs_flush(c.outputs, 60000) < 0)
		return fail("flushing failed");
	total_ns = cpu_ns(CLOCK_PROCESS_CPUTIME_ID) - total_ns - decode_ns;
	printf("{\"events\":%" PRIu64 ",\"alerts\":%" PRIu64 ",\"cpu_ns\":%" PRIu64
	       ",\"events_per_cpu_s\":%.0f,\"decode_cpu_ns\":%" PRIu64
	       ",\"startup_cpu_ns\":%" PRIu64 "}\n",
	       events, c.alerts, total_ns, total_ns ? (double)events * 1e9 / (double)total_ns : 0.0,
	       decode_ns, t0);
	fclose(f);
	outputs_free(c.outputs);
	engine_free(e);
	return 0;
}
