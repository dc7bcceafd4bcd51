/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rdmaguard replay EVENTS.jsonl [--policy FILE] [--rules DIR] [--output SPEC]...
 *
 * Feeds a recorded event file (one event_to_json() object per line, as `daemon --record` writes)
 * through the engine and writes the alerts as JSON lines.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "common/clock.h"
#include "common/exitcode.h"
#include "common/log.h"
#include "common/macro.h"
#include "common/number.h"
#include "common/timestamp.h"
#include "engine/engine.h"
#include "event/ecs_map.h"
#include "event/event_json.h"
#include "output/output.h"
#include "config.h"

#define REPLAY_MAX_LINE	   (64u * 1024)
#define REPLAY_MAX_OUTPUTS 8
#define REPLAY_FLUSH_MS	   10000
#define REPLAY_DISPATCH_EVERY 4096

struct replay {
	struct rg_outputs *outputs;
	int threshold;
	uint64_t alerts, findings, submit_errors;
};

/* A line of a sent alert file (rdmaguard.schema_version 2, ECS's names: event/ecs_map.h) as
 * the event it carries, in the event's names again. */
static int read_sent(const char *line, size_t len, struct rg_event *ev, char *msg, size_t size)
{
	struct json_tokener *tok = json_tokener_new();
	struct json_object *doc = tok ? json_tokener_parse_ex(tok, line, (int)len) : NULL;
	int r = -EINVAL;

	if (doc && json_object_is_type(doc, json_type_object) && ecs_unmap_json(doc) == 0)
		r = event_from_json(doc, ev, msg, size);
	else
		snprintf(msg, size, "not a JSON object");
	json_object_put(doc);
	json_tokener_free(tok);
	return r;
}

/* --incidents: the incident records go to the outputs too (not counted as findings). */
static int emit_incident(const struct rg_alert *rec, void *ud)
{
	struct replay *rp = ud;

	if (outputs_submit_alert(rp->outputs, rec, 0) < 0)
		rp->submit_errors++;
	return 0;
}

static int emit(const struct rg_alert *alert, void *ud)
{
	struct replay *rp = ud;

	rp->alerts++;
	if (alert->severity >= rp->threshold)
		rp->findings++;
	if (outputs_submit_alert(rp->outputs, alert, 0) < 0)
		rp->submit_errors++; /* counted (and reported by the outputs' loss report) */
	return 0;
}

/* --rate: sleeps so that event n is not fed before start + n / rate. */
static void pace(uint64_t start_ns, unsigned long n, unsigned rate)
{
	uint64_t due = start_ns + (uint64_t)n * 1000000000ull / rate, now = now_monotonic_ns();
	struct timespec ts;

	if (due <= now)
		return;
	ts.tv_sec = (time_t)((due - now) / 1000000000ull);
	ts.tv_nsec = (long)((due - now) % 1000000000ull);
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static void loss_report(const struct output_loss *loss, void *ud)
{
	const char *what;
	char text[512];

	(void)ud;
	(void)output_loss_describe(loss, &what, text, sizeof(text));
	log_warning("%s", text);
}

/* Lines from a stream, found with memchr() in a buffer of 2 x REPLAY_MAX_LINE + 2 (a byte
 * at a time with getc() was a sixth of what replaying an event cost). */
struct lines {
	FILE *f;
	char *buf;
	size_t cap, start, end;
	bool eof;
};

/*
 * The next line, without its newline, NUL-terminated in place (it may hold NUL bytes of its
 * own: *len says where it ends); valid until the next call. 1: a line, 0: the end, -E2BIG: a
 * line longer than max, -EIO.
 */
static int next_line(struct lines *l, size_t max, char **line, size_t *len)
{
	for (;;) {
		char *at = l->buf + l->start, *nl = memchr(at, '\n', l->end - l->start);
		size_t n;

		if (nl) {
			*line = at;
			*len = (size_t)(nl - at);
			if (*len > max)
				return -E2BIG;
			*nl = 0;
			l->start += *len + 1;
			return 1;
		}
		if (l->end - l->start > max)
			return -E2BIG;
		if (l->eof) {
			if (l->end == l->start)
				return 0;
			*line = at;
			*len = l->end - l->start;
			at[*len] = 0;
			l->start = l->end;
			return 1;
		}
		memmove(l->buf, at, l->end - l->start);
		l->end -= l->start;
		l->start = 0;
		n = fread(l->buf + l->end, 1, l->cap - 1 - l->end, l->f);
		l->end += n;
		if (n == 0) {
			if (ferror(l->f))
				return -EIO;
			l->eof = true;
		}
	}
}

static void usage(FILE *f)
{
	fprintf(
	    f,
	    "Usage: rdmaguard replay EVENTS.jsonl [--policy FILE] [--rules DIR] [--output "
	    "SPEC]...\n"
	    "                        [--hostname NAME] [--boot-id ID] [--boot-time TIME]\n"
	    "                        [--state-dir DIR] [--rate N] [--flush-timeout SEC]\n"
	    "                        [--incidents]\n\n"
	    "Feeds a recorded event file (JSON lines, '-' for stdin) through the rule engine and\n"
	    "sends the alerts to each output, as the daemon does: stdout (default), file:PATH,\n"
	    "syslog+tcp://HOST:PORT, syslog+tls://HOST:PORT?ca=FILE&cert=FILE&key=FILE,\n"
	    "relp://HOST:PORT, relp+tls://HOST:PORT?ca=FILE&cert=FILE&key=FILE.\n"
	    "Network outputs spool under --state-dir (default " RG_STATEDIR "); at the end replay\n"
	    "waits up to --flush-timeout seconds (default 10) for delivery, and what is left in\n"
	    "the spool is delivered by the next replay or daemon with the same state directory.\n"
	    "--rate N feeds at most N events per second (tests, benchmarks).\n"
	    "--incidents sends the incident records (docs/incidents.md) to the outputs too, next\n"
	    "to the alerts, as the daemon does; without it replay writes alerts only.\n"
	    "--hostname, --boot-id (process.entity_id) and --boot-time (RFC 3339, to give\n"
	    "process start times) describe the machine that recorded the events; they default\n"
	    "to this machine's name and boot id, and no boot time.\n"
	    "Unlike the daemon, replay does not require the policy file to be owned by root.\n\n"
	    "Exit status: 0 no alert at or above the policy's threshold, 1 some, 2 an error.\n");
}

/* The event file, or stdin for "-": a regular file only (a FIFO would hang). */
static int open_events(const char *path, FILE **ret)
{
	struct stat st;
	FILE *f;
	int fd;

	if (strcmp(path, "-") == 0) {
		*ret = stdin;
		return 0;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return log_error_errno(-errno, "Failed to open %s: %m", path);
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		log_error("%s: not a regular file", path);
		return -EINVAL;
	}
	f = fdopen(fd, "re");
	if (!f) {
		close(fd);
		return log_oom();
	}
	*ret = f;
	return 0;
}

/*
 * Every event of f through the engine, at most rate a second (0: no limit) counted from start_ns;
 * *ret_lineno: the lines read. A bad line is reported as path:line[:column] and ends the replay.
 */
static int replay_feed(struct replay *rp, struct rg_engine *e, FILE *f, const char *path,
		       unsigned rate, uint64_t start_ns, unsigned long *ret_lineno)
{
	_cleanup_free_ char *buf_lines = NULL;
	struct event_reader *reader = NULL;
	struct lines lines = {0};
	unsigned long lineno = 0;
	char *line;
	size_t len;
	int r;

	lines.f = f;
	lines.cap = 2 * REPLAY_MAX_LINE + 2;
	lines.buf = buf_lines = malloc(lines.cap);
	if (!lines.buf)
		return log_oom();
	r = event_reader_new(REPLAY_MAX_LINE, &reader);
	if (r < 0)
		return log_oom();
	for (;;) {
		struct rg_event ev;
		char msg[256];
		size_t col;

		r = next_line(&lines, REPLAY_MAX_LINE, &line, &len);
		if (r == 0)
			break;
		lineno++;
		if (r == -E2BIG) {
			fprintf(stderr, "%s:%lu: line longer than %u bytes\n", path, lineno,
				REPLAY_MAX_LINE);
			break;
		}
		if (r < 0) {
			log_error_errno(r, "Failed to read %s: %m", path);
			break;
		}
		if ((len == 0 || line[0] == ' ' || line[0] == '\t' || line[0] == '\r') &&
		    strspn(line, " \t\r") == len)
			continue; /* a blank line */
		r = event_reader_read(reader, line, len, &ev, &col, msg, sizeof(msg));
		if (r == 0 && memmem(line, len, "\"schema_version\":2", 18))
			r = read_sent(line, len, &ev, msg, sizeof(msg));
		/* A NUL byte inside a line is always an error to the reader (in a string, outside
		 * one, after the object): looked for only then, for the clearer message. */
		if (r < 0 && memchr(line, 0, len)) {
			fprintf(stderr, "%s:%lu:%zu: NUL byte in line\n", path, lineno,
				(size_t)((char *)memchr(line, 0, len) - line) + 1);
			break;
		}
		if (r < 0) {
			if (col)
				fprintf(stderr, "%s:%lu:%zu: invalid JSON: %s\n", path, lineno, col,
					msg);
			else
				fprintf(stderr, "%s:%lu: %s\n", path, lineno, msg);
			break;
		}
		if (rate)
			pace(start_ns, lineno, rate);
		r = engine_process(e, &ev, emit, rp);
		if (r < 0)
			break;
		/* Loss reports: when an output has signalled one, seen without a system call (a
		 * read() of the outputs' eventfd each time cost a fifth of replaying an event). */
		if (outputs_signaled(rp->outputs) || lineno % REPLAY_DISPATCH_EVERY == 0)
			(void)outputs_dispatch(rp->outputs);
	}
	event_reader_free(reader);
	*ret_lineno = lineno;
	return r;
}

int cmd_replay(int argc, char **argv)
{
	static const struct option opts[] = {
		{"help", no_argument, NULL, 'h'},
		{"policy", required_argument, NULL, 'p'},
		{"rules", required_argument, NULL, 'r'},
		{"output", required_argument, NULL, 'o'},
		{"hostname", required_argument, NULL, 'H'},
		{"boot-id", required_argument, NULL, 'B'},
		{"boot-time", required_argument, NULL, 'T'},
		{"state-dir", required_argument, NULL, 'S'},
		{"rate", required_argument, NULL, 'Q'},
		{"flush-timeout", required_argument, NULL, 'F'},
		{"incidents", no_argument, NULL, 'I'},
		{},
	};
	const char *policy_path = NULL, *rules_dir = NULL, *specs[REPLAY_MAX_OUTPUTS], *path;
	struct engine_config cfg = {0};
	struct output_spec *ospecs = NULL;
	struct outputs_config ocfg = {.state_dir = RG_STATEDIR, .loss_cb = loss_report};
	unsigned rate = 0, flush_s = REPLAY_FLUSH_MS / 1000;
	uint32_t u;
	uint64_t start_ns;
	char oerr[512];
	struct rg_policy *policy = NULL;
	struct rg_ruleset *rules = NULL;
	struct rg_engine *e = NULL;
	struct replay rp = {0};
	struct rg_error err;
	size_t n_specs = 0, i;
	unsigned long lineno = 0;
	char buf[1200];
	FILE *f = NULL;
	bool incidents = false;
	int c, r, status = RG_EXIT_ERROR;

	optind = 1;
	while ((c = getopt_long(argc, argv, "hp:r:o:", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			usage(stdout);
			return RG_EXIT_OK;
		case 'p':
			policy_path = optarg;
			break;
		case 'r':
			rules_dir = optarg;
			break;
		case 'o':
			if (n_specs == REPLAY_MAX_OUTPUTS)
				return cmd_usage_error("replay", "at most %d outputs",
						       REPLAY_MAX_OUTPUTS);
			specs[n_specs++] = optarg;
			break;
		case 'H':
			cfg.hostname = optarg;
			break;
		case 'I':
			incidents = true;
			break;
		case 'B':
			cfg.boot_id = optarg;
			break;
		case 'S':
			ocfg.state_dir = optarg;
			break;
		case 'Q':
			if (safe_atou32(optarg, 10, &u) < 0 || u == 0)
				return cmd_usage_error("replay", "--rate: not a positive number: '%s'",
						       optarg);
			rate = u;
			break;
		case 'F':
			if (safe_atou32(optarg, 10, &u) < 0 || u > 86400)
				return cmd_usage_error("replay", "--flush-timeout: not a number of "
								 "seconds (0-86400): '%s'", optarg);
			flush_s = u;
			break;
		case 'T':
			if (parse_timestamp(optarg, &cfg.boot_realtime_ns) < 0 ||
			    !cfg.boot_realtime_ns)
				return cmd_usage_error("replay",
						       "invalid --boot-time '%s' (RFC 3339 "
						       "UTC, e.g. 2026-01-02T03:04:05Z)",
						       optarg);
			break;
		default:
			return cmd_usage_error("replay", "invalid option");
		}
	}
	if (optind >= argc)
		return cmd_usage_error("replay", "missing EVENTS file");
	if (optind + 1 < argc)
		return cmd_usage_error("replay", "unexpected argument '%s'", argv[optind + 1]);
	path = argv[optind];
	if (n_specs == 0)
		specs[n_specs++] = "stdout";

	r = engine_load_config(policy_path, false, rules_dir, output_spec_check, &policy, &rules,
			       &err);
	if (r < 0) {
		fprintf(stderr, "%s\n", rg_error_format(&err, buf, sizeof(buf)));
		return RG_EXIT_ERROR;
	}
	rp.threshold = policy->threshold;
	r = engine_new(policy, rules, &cfg, &e, &err);
	if (r < 0) {
		fprintf(stderr, "%s\n", rg_error_format(&err, buf, sizeof(buf)));
		policy_free(policy);
		ruleset_free(rules);
		return RG_EXIT_ERROR;
	}
	ospecs = calloc(n_specs, sizeof(*ospecs));
	if (!ospecs) {
		log_oom();
		goto out;
	}
	for (i = 0; i < n_specs; i++)
		if (output_spec_parse(specs[i], &ospecs[i], oerr, sizeof(oerr)) < 0) {
			fprintf(stderr, "rdmaguard replay: %s\n", oerr);
			goto out;
		}
	ocfg.hostname = cfg.hostname;
	if (outputs_new(ospecs, n_specs, &ocfg, &rp.outputs) < 0)
		goto out;
	if (incidents)
		engine_set_incident_fn(e, emit_incident, &rp);
	start_ns = now_monotonic_ns();
	if (open_events(path, &f) < 0)
		goto out;
	if (replay_feed(&rp, e, f, path, rate, start_ns, &lineno) < 0)
		goto out;
	if (engine_flush(e, emit, &rp) < 0)
		goto out;
	if (outputs_flush_delivered(rp.outputs, (int)flush_s * 1000) < 0)
		log_warning("Not every alert was delivered within %u s; the spool under %s keeps the "
			    "rest for the next run.", flush_s, ocfg.state_dir);
	(void)outputs_dispatch_final(rp.outputs);
	status = rp.findings ? RG_EXIT_FINDINGS : RG_EXIT_OK;
	log_debug("%lu events, %" PRIu64 " alerts, %" PRIu64 " at or above %s", lineno, rp.alerts,
		  rp.findings, severity_to_string(rp.threshold));
out:
	if (f && f != stdin)
		fclose(f);
	outputs_free(rp.outputs);
	free(ospecs);
	engine_free(e);
	return status;
}
