/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rdmaguard daemon: option parsing; the daemon itself is agent/daemon/daemon.c. */
#include <getopt.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "config.h"
#include "common/exitcode.h"
#include "common/log.h"
#include "common/macro.h"
#include "common/number.h"
#include "daemon/control.h"
#include "daemon/daemon.h"
#include "daemon/metrics_http.h"
#include "enforce/enforce.h"
#include "proctree/proctree.h"

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: rdmaguard daemon [OPTIONS]\n\n"
		"Watches the machine with eBPF sensors, correlates what they see with the policy's\n"
		"games and allowlist through the rules, and sends alerts to the outputs. Runs until\n"
		"SIGTERM or SIGINT; SIGHUP reloads policy and rules, SIGUSR1 reopens file outputs.\n\n"
		"Options:\n"
		"  --policy FILE        policy (default " RG_SYSCONFDIR "/policy.json if it exists,\n"
		"                       else the built-in one); refused unless root-owned and not\n"
		"                       writable by group or others\n"
		"  --rules DIR          rules directory (default " RG_RULESDIR ")\n"
		"  --output SPEC        where alerts go, repeatable: stdout, file:PATH,\n"
		"                       syslog+tcp://HOST:PORT, syslog+tls://HOST:PORT?ca=FILE&cert=FILE&key=FILE,\n"
		"                       relp://HOST:PORT, relp+tls://HOST:PORT?ca=FILE&cert=FILE&key=FILE\n"
		"                       (default: the policy's outputs, else stdout)\n"
		"  --sensor MODE        auto (default: the best hook the kernel allows), fentry,\n"
		"                       kprobe or tracepoint\n"
		"  --state-dir DIR      spools of network outputs (default " RG_STATEDIR ")\n"
		"  --record FILE|-      also append every event as a JSON line (for replay)\n"
		"  --pid-file FILE      write the PID to FILE and lock it\n"
		"  --status-socket PATH where `rdmaguard status` asks (default " STATUS_SOCKET_DEFAULT ");\n"
		"                       an empty PATH disables it\n"
		"  --heartbeat SEC      heartbeat interval (default %d)\n"
		"  --reconcile SEC      reconcile with the kernel's RDMA tables every SEC (default %d)\n"
		"  --facility NAME      syslog facility (default authpriv)\n"
		"  --ready-file FILE    create FILE once running (for scripts; systemd gets sd_notify)\n"
		"  --metrics ADDR:PORT  serve Prometheus metrics at http://ADDR:PORT/metrics (off by\n"
		"                       default; numeric address: 127.0.0.1:9466, [::1]:9466; a bare\n"
		"                       PORT is loopback). Elsewhere than loopback the policy's\n"
		"                       \"metrics\" must give HTTPS and a bearer token, or opt out\n"
		"  --roce-if IFACE      also count RoCE v2/iWARP traffic on IFACE (up to 8)\n"
		"  --roce-interval SEC  report RoCE traffic every SEC seconds (default 10)\n"
		"  --ring-buffer SIZE   the sensors' BPF ring buffer: a power of two from 64K to 256M,\n"
		"                       suffix K or M (default %zuM); mapped twice into the daemon,\n"
		"                       so its RSS grows by twice SIZE; too small loses records in a\n"
		"                       burst (counted and reported: agent_lost)\n"
		"  --ring-wakeups WHEN  burst (default): during a burst of records the daemon reads\n"
		"                       the ring every 2 ms and records wake nobody; always: every\n"
		"                       record that finds the daemon idle wakes it (the kernel's way:\n"
		"                       microseconds more in the system call a record reports)\n"
		"  --no-inventory       skip the start-up inventory but for the process tree\n"
		"  --proc-capacity N    processes the tree holds (default %d, 4 to %u); more live\n"
		"                       ones are given up and reported (agent_lost, proctree)\n"
		"  --enforce            enforce the policy (also \"enforce\": true in it): BPF LSM\n"
		"                       denies what the allowlist does not allow; rule actions kill\n"
		"                       kill. Pinned: it outlives the daemon (rdmaguard enforce lifts it)\n"
		"  --pin-dir DIR        where enforcement is pinned (default " ENFORCE_PIN_DIR ")\n"
		"  --dry-run            check policy, rules and outputs, print the hooks that would be\n"
		"                       chosen, and exit\n"
		"  -h, --help           this help\n\n"
		"Exit codes: 0 stopped by a signal, 2 error (invalid policy, rules or output, sensors\n"
		"that cannot attach, not root).\n",
		DAEMON_DEFAULT_HEARTBEAT_S, DAEMON_DEFAULT_RECONCILE_S, (size_t)SENSORS_DEFAULT_RINGBUF >> 20,
		PROCTREE_DEFAULT_CAPACITY, PROCTREE_MAX_CAPACITY);
}

static int parse_seconds(const char *opt, const char *s, unsigned *ret)
{
	uint32_t u;

	if (safe_atou32(s, 10, &u) < 0 || u == 0 || u > 86400)
		return cmd_usage_error("daemon", "%s: not a number of seconds (1-86400): '%s'", opt, s);
	*ret = u;
	return 0;
}

/* A power of two between SENSORS_MIN_RINGBUF and SENSORS_MAX_RINGBUF; suffix K or M (KiB, MiB). */
static int parse_ring_size(const char *s, size_t *ret)
{
	char num[24];
	size_t n = strlen(s), shift = 0;
	uint64_t u;

	if (n && (s[n - 1] == 'K' || s[n - 1] == 'k'))
		shift = 10;
	else if (n && (s[n - 1] == 'M' || s[n - 1] == 'm'))
		shift = 20;
	if (shift)
		n--;
	if (n == 0 || n >= sizeof(num))
		goto bad;
	memcpy(num, s, n);
	num[n] = 0;
	if (safe_atou64(num, 10, &u) < 0 || u > (uint64_t)SENSORS_MAX_RINGBUF >> shift)
		goto bad;
	u <<= shift;
	if (u < SENSORS_MIN_RINGBUF || (u & (u - 1)))
		goto bad;
	*ret = (size_t)u;
	return 0;
bad:
	return cmd_usage_error("daemon", "--ring-buffer: not a power of two from 64K to 256M "
					 "(suffix K or M): '%s'", s);
}

/* What the options fill: the daemon's configuration and the command's own choices. */
struct daemon_args {
	struct daemon_config cfg;
	bool dry_run;
	size_t nifs; /* --roce-if given */
};

struct daemon_option;
/* Stores arg where o says; 0, or the exit code of a usage error (printed). */
typedef int (*daemon_option_parser)(const struct daemon_option *o, const char *arg,
				    struct daemon_args *a);

/* One long option, in the manner of systemd's conf-parser: a parser and where it stores. */
struct daemon_option {
	const char *name;
	int has_arg;
	daemon_option_parser parse;
	size_t offset; /* in struct daemon_args */
};

#define FIELD(a, o, type) ((type *)((char *)(a) + (o)->offset))

static int opt_string(const struct daemon_option *o, const char *arg, struct daemon_args *a)
{
	*FIELD(a, o, const char *) = arg;
	return 0;
}

static int opt_true(const struct daemon_option *o, const char *arg, struct daemon_args *a)
{
	*FIELD(a, o, bool) = true;
	return 0;
}

static int opt_seconds(const struct daemon_option *o, const char *arg, struct daemon_args *a)
{
	char opt[32];

	snprintf(opt, sizeof(opt), "--%s", o->name);
	return parse_seconds(opt, arg, FIELD(a, o, unsigned)) != 0 ? RG_EXIT_ERROR : 0;
}

static int opt_output(const struct daemon_option *o, const char *arg, struct daemon_args *a)
{
	if (a->cfg.n_outputs >= DAEMON_MAX_OUTPUTS)
		return cmd_usage_error("daemon", "at most %d --output", DAEMON_MAX_OUTPUTS);
	a->cfg.outputs[a->cfg.n_outputs++] = arg;
	return 0;
}

static int opt_sensor(const struct daemon_option *o, const char *arg, struct daemon_args *a)
{
	int r = sensors_mode_from_string(arg);

	if (r < 0)
		return cmd_usage_error("daemon", "unknown sensor '%s' (auto, fentry, "
						 "kprobe, tracepoint)", arg);
	a->cfg.sensors.mode = (enum sensors_mode)r;
	return 0;
}

static int opt_metrics(const struct daemon_option *o, const char *arg, struct daemon_args *a)
{
	struct sockaddr_storage sa;
	unsigned salen;

	if (metrics_http_parse_listen(arg, &sa, &salen) < 0)
		return cmd_usage_error("daemon", "--metrics: not ADDRESS:PORT or PORT "
						 "(127.0.0.1:9466, [::1]:9466, 9466): "
						 "'%s'", arg);
	a->cfg.metrics_listen = arg;
	return 0;
}

static int opt_roce_if(const struct daemon_option *o, const char *arg, struct daemon_args *a)
{
	if (a->nifs >= ARRAY_SIZE(a->cfg.sensors.roce_ifaces))
		return cmd_usage_error("daemon", "at most %zu --roce-if",
				       ARRAY_SIZE(a->cfg.sensors.roce_ifaces));
	a->cfg.sensors.roce_ifaces[a->nifs++] = arg;
	return 0;
}

static int opt_ring_buffer(const struct daemon_option *o, const char *arg, struct daemon_args *a)
{
	return parse_ring_size(arg, &a->cfg.sensors.ringbuf_bytes) != 0 ? RG_EXIT_ERROR : 0;
}

static int opt_ring_wakeups(const struct daemon_option *o, const char *arg, struct daemon_args *a)
{
	if (strcmp(arg, "always") == 0)
		a->cfg.sensors.ring_always_wake = true;
	else if (strcmp(arg, "burst") != 0)
		return cmd_usage_error("daemon", "--ring-wakeups: 'burst' or 'always', "
						 "not '%s'", arg);
	return 0;
}

static int opt_proc_capacity(const struct daemon_option *o, const char *arg,
			     struct daemon_args *a)
{
	uint32_t u;

	if (safe_atou32(arg, 10, &u) < 0 || u < 4 || u > PROCTREE_MAX_CAPACITY)
		return cmd_usage_error("daemon", "--proc-capacity: not a number from 4 "
						 "to %u: '%s'",
				       PROCTREE_MAX_CAPACITY, arg);
	a->cfg.proc_capacity = u;
	return 0;
}

static int opt_pin_dir(const struct daemon_option *o, const char *arg, struct daemon_args *a)
{
	if (arg[0] != '/')
		return cmd_usage_error("daemon", "--pin-dir: not an absolute path: '%s'", arg);
	a->cfg.pin_dir = arg;
	return 0;
}

#define CFG(f) offsetof(struct daemon_args, cfg.f)
static const struct daemon_option daemon_options[] = {
	{"policy", required_argument, opt_string, CFG(policy_path)},
	{"rules", required_argument, opt_string, CFG(rules_dir)},
	{"output", required_argument, opt_output, 0},
	{"sensor", required_argument, opt_sensor, 0},
	{"state-dir", required_argument, opt_string, CFG(state_dir)},
	{"record", required_argument, opt_string, CFG(record_path)},
	{"pid-file", required_argument, opt_string, CFG(pid_file)},
	{"status-socket", required_argument, opt_string, CFG(status_socket)},
	{"heartbeat", required_argument, opt_seconds, CFG(heartbeat_s)},
	{"reconcile", required_argument, opt_seconds, CFG(reconcile_s)},
	{"facility", required_argument, opt_string, CFG(facility)},
	{"ready-file", required_argument, opt_string, CFG(ready_file)},
	{"roce-if", required_argument, opt_roce_if, 0},
	{"roce-interval", required_argument, opt_seconds, CFG(sensors.roce_interval_s)},
	{"ring-buffer", required_argument, opt_ring_buffer, 0},
	{"ring-wakeups", required_argument, opt_ring_wakeups, 0},
	{"no-inventory", no_argument, opt_true, CFG(no_inventory)},
	{"proc-capacity", required_argument, opt_proc_capacity, 0},
	{"dry-run", no_argument, opt_true, offsetof(struct daemon_args, dry_run)},
	{"enforce", no_argument, opt_true, CFG(enforce)},
	{"pin-dir", required_argument, opt_pin_dir, 0},
	{"metrics", required_argument, opt_metrics, 0},
};
#undef CFG

/* getopt_long()'s value for daemon_options[i]: OPT_FIRST + i. */
#define OPT_FIRST 256

int cmd_daemon(int argc, char **argv)
{
	struct option opts[ARRAY_SIZE(daemon_options) + 2] = {};
	struct daemon_args a = {.cfg.sensors.mode = SENSORS_AUTO};
	size_t n = ARRAY_SIZE(daemon_options);
	int c, r;

	for (size_t i = 0; i < n; i++)
		opts[i] = (struct option){daemon_options[i].name, daemon_options[i].has_arg, NULL,
					  OPT_FIRST + (int)i};
	opts[n] = (struct option){"help", no_argument, NULL, 'h'};
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (c == 'h') {
			usage(stdout);
			return RG_EXIT_OK;
		}
		if (c < OPT_FIRST || c >= OPT_FIRST + (int)n)
			return cmd_usage_error("daemon", "unrecognised option");
		r = daemon_options[c - OPT_FIRST].parse(&daemon_options[c - OPT_FIRST], optarg, &a);
		if (r != 0)
			return r;
	}
	if (optind < argc)
		return cmd_usage_error("daemon", "unexpected argument '%s'", argv[optind]);
	if (a.cfg.record_path && strcmp(a.cfg.record_path, "-") == 0)
		for (size_t i = 0; i < a.cfg.n_outputs; i++)
			if (strcmp(a.cfg.outputs[i], "stdout") == 0)
				return cmd_usage_error("daemon", "--record - and --output stdout "
								 "would mix on standard output");
	return a.dry_run ? daemon_dry_run(&a.cfg) : daemon_run(&a.cfg);
}
