/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rg-output-driver: the outputs module driven the way the daemon drives it, for the tests
 * against a real rsyslog (tests/integration/output/test_rsyslog.py).
 *
 *   rg-output-driver [--output SPEC]... [--state-dir DIR] [--hostname NAME] [--facility F]
 *                    [--spool-max-bytes N] [--spool-max-records N] [--backoff-min-ms MS]
 *                    [--backoff-max-ms MS] [--confirm-ms MS] [--loss-interval-ms MS]
 *                    [--connect-timeout-ms MS] [--exit-flush-ms MS]
 *
 * Reads stdin line by line: a JSON object is an alert for outputs_submit(); "!stats", "!flush MS",
 * "!reopen" and "!ping" are commands, answered with one JSON line on stdout. A loss report (the
 * loss callback) becomes an AGENT-001 alert, submitted with OUTPUT_SUBMIT_LOSS and echoed as
 * {"loss": ...} on stdout. At end of input: outputs_flush(exit-flush-ms), {"exit": rc}, free.
 * Exit status: 0, or 2 for bad usage, a bad spec, a bad line or a failure to start the outputs.
 */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/log.h"
#include "common/macro.h"
#include "common/number.h"
#include "common/strutil.h"
#include "common/timestamp.h"
#include "output/output.h"

#define MAX_OUTPUTS 8
#define LINE_MAX_BYTES (1u << 20)

static struct rg_outputs *outputs;

static void emit(struct json_object *o)
{
	printf("%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
	fflush(stdout);
	json_object_put(o);
}

static void on_loss(const struct output_loss *loss, void *userdata)
{
	struct json_object *a = json_object_new_object(), *ev = json_object_new_object(),
			   *rule = json_object_new_object(), *agent = json_object_new_object(),
			   *l = json_object_new_object(), *echo = json_object_new_object();
	char ts[32], msg[512];

	(void)userdata;
	format_timestamp(now_realtime_ns(), ts);
	output_loss_to_json(loss, l);
	snprintf(msg, sizeof(msg), "%llu alert(s) lost on output %s",
		 (unsigned long long)loss->total, loss->output);
	json_object_object_add(a, "@timestamp", json_object_new_string(ts));
	json_object_object_add(ev, "kind", json_object_new_string("alert"));
	json_object_object_add(a, "event", ev);
	json_object_object_add(rule, "id", json_object_new_string("AGENT-001"));
	json_object_object_add(rule, "name", json_object_new_string("events lost"));
	json_object_object_add(a, "rule", rule);
	json_object_object_add(a, "severity", json_object_new_string("high"));
	json_object_object_add(a, "message", json_object_new_string(msg));
	json_object_object_add(agent, "loss", l);
	json_object_object_add(a, "agent", agent);
	/* Adds event.id. */
	if (outputs_submit_flags(outputs, a, OUTPUT_SUBMIT_LOSS) < 0)
		fprintf(stderr, "rg-output-driver: failed to submit a loss report\n");
	json_object_object_add(echo, "loss", json_object_get(a));
	emit(echo);
	json_object_put(a);
}

static int command(const char *line)
{
	struct json_object *r = json_object_new_object();

	if (strcmp(line, "!stats") == 0) {
		struct json_object *s = json_object_new_object();

		outputs_stats(outputs, s);
		json_object_object_add(r, "stats", s);
	} else if (startswith(line, "!flush ")) {
		int ms;

		if (safe_atoi(line + 7, &ms) < 0 || ms < 0) {
			json_object_put(r);
			return -EINVAL;
		}
		json_object_object_add(r, "flush", json_object_new_int(outputs_flush(outputs, ms)));
	} else if (strcmp(line, "!reopen") == 0)
		json_object_object_add(r, "reopen", json_object_new_int(outputs_reopen(outputs)));
	else if (strcmp(line, "!ping") == 0)
		json_object_object_add(r, "pong", json_object_new_boolean(true));
	else {
		json_object_put(r);
		return -EINVAL;
	}
	emit(r);
	return 0;
}

static int handle_line(char *line, unsigned lineno)
{
	struct json_object *a;
	int r;

	line = strstrip(line);
	if (!*line)
		return 0;
	if (line[0] == '!') {
		r = command(line);
		if (r < 0)
			fprintf(stderr, "stdin:%u:1: unknown command \"%s\"\n", lineno, line);
		return r;
	}
	a = json_tokener_parse(line);
	if (!json_object_is_type(a, json_type_object)) {
		fprintf(stderr, "stdin:%u:1: not a JSON object\n", lineno);
		json_object_put(a);
		return -EINVAL;
	}
	r = outputs_submit(outputs, a);
	json_object_put(a);
	if (r < 0 && r != -E2BIG) {
		fprintf(stderr, "stdin:%u: submit failed: %s\n", lineno, strerror(-r));
		return r;
	}
	return 0;
}

static int parse_u32(const char *opt, const char *s, uint32_t *ret)
{
	if (safe_atou32(s, 10, ret) < 0) {
		fprintf(stderr, "rg-output-driver: invalid %s \"%s\"\n", opt, s);
		return -EINVAL;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"output", required_argument, NULL, 'o'},
		{"state-dir", required_argument, NULL, 's'},
		{"hostname", required_argument, NULL, 'H'},
		{"facility", required_argument, NULL, 'f'},
		{"spool-max-bytes", required_argument, NULL, 'B'},
		{"spool-max-records", required_argument, NULL, 'R'},
		{"backoff-min-ms", required_argument, NULL, 'm'},
		{"backoff-max-ms", required_argument, NULL, 'M'},
		{"confirm-ms", required_argument, NULL, 'c'},
		{"loss-interval-ms", required_argument, NULL, 'l'},
		{"connect-timeout-ms", required_argument, NULL, 't'},
		{"exit-flush-ms", required_argument, NULL, 'x'},
		{"verbose", no_argument, NULL, 'v'},
		{},
	};
	static struct output_spec specs[MAX_OUTPUTS];
	struct outputs_config cfg = {0};
	uint32_t exit_flush_ms = 10000, v32;
	size_t n = 0, len = 0;
	unsigned lineno = 0;
	char *buf;
	bool eof = false;
	int c, r, status = 0;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) >= 0) {
		char err[512];
		uint64_t v64;

		switch (c) {
		case 'o':
			if (n == MAX_OUTPUTS) {
				fprintf(stderr, "rg-output-driver: too many outputs\n");
				return 2;
			}
			if (output_spec_parse(optarg, &specs[n], err, sizeof(err)) < 0) {
				fprintf(stderr, "rg-output-driver: %s\n", err);
				return 2;
			}
			n++;
			break;
		case 's':
			cfg.state_dir = optarg;
			break;
		case 'H':
			cfg.hostname = optarg;
			break;
		case 'f':
			cfg.facility = optarg;
			break;
		case 'B':
			if (safe_atou64(optarg, 10, &v64) < 0)
				return 2;
			cfg.spool_max_bytes = v64;
			break;
		case 'R':
			if (parse_u32("--spool-max-records", optarg, &cfg.spool_max_records) < 0)
				return 2;
			break;
		case 'm':
			if (parse_u32("--backoff-min-ms", optarg, &cfg.backoff_min_ms) < 0)
				return 2;
			break;
		case 'M':
			if (parse_u32("--backoff-max-ms", optarg, &cfg.backoff_max_ms) < 0)
				return 2;
			break;
		case 'c':
			if (parse_u32("--confirm-ms", optarg, &cfg.confirm_ms) < 0)
				return 2;
			break;
		case 'l':
			if (parse_u32("--loss-interval-ms", optarg, &cfg.loss_interval_ms) < 0)
				return 2;
			break;
		case 't':
			if (parse_u32("--connect-timeout-ms", optarg, &cfg.connect_timeout_ms) < 0)
				return 2;
			break;
		case 'x':
			if (parse_u32("--exit-flush-ms", optarg, &v32) < 0)
				return 2;
			exit_flush_ms = v32;
			break;
		case 'v':
			log_set_max_level(LOG_LEVEL_DEBUG);
			break;
		default:
			return 2;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "rg-output-driver: unexpected argument \"%s\"\n", argv[optind]);
		return 2;
	}
	cfg.loss_cb = on_loss;
	r = outputs_new(specs, n, &cfg, &outputs);
	if (r < 0)
		return 2;
	buf = malloc(LINE_MAX_BYTES + 1);
	if (!buf)
		return 2;

	/* The daemon's main loop in miniature: input and the outputs' loss reports. */
	while (!eof) {
		struct pollfd p[2] = {
			{.fd = STDIN_FILENO, .events = POLLIN},
			{.fd = outputs_get_fd(outputs), .events = POLLIN},
		};
		ssize_t k;
		char *nl;

		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			status = 2;
			break;
		}
		if (p[1].revents)
			outputs_dispatch(outputs);
		if (!p[0].revents)
			continue;
		k = read(STDIN_FILENO, buf + len, LINE_MAX_BYTES - len);
		if (k < 0) {
			if (errno == EINTR)
				continue;
			status = 2;
			break;
		}
		if (k == 0)
			eof = true;
		len += (size_t)k;
		buf[len] = 0;
		while ((nl = memchr(buf, '\n', len)) || (eof && len > 0)) {
			size_t ll = nl ? (size_t)(nl - buf) + 1 : len;

			if (nl)
				*nl = 0;
			lineno++;
			if (handle_line(buf, lineno) < 0) {
				status = 2;
				eof = true;
				len = 0;
				break;
			}
			memmove(buf, buf + ll, len - ll);
			len -= ll;
			buf[len] = 0;
		}
		if (len == LINE_MAX_BYTES) {
			fprintf(stderr, "stdin:%u: line too long\n", lineno + 1);
			status = 2;
			break;
		}
	}
	free(buf);
	{
		struct json_object *o = json_object_new_object();

		r = outputs_flush(outputs, (int)exit_flush_ms);
		outputs_dispatch(outputs);
		json_object_object_add(o, "exit", json_object_new_int(r));
		emit(o);
	}
	outputs_free(outputs);
	return status;
}
