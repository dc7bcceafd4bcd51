/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rdmaguard daemon: option parsing; the daemon itself is agent/daemon/daemon.c. */
#include <getopt.h>
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

int cmd_daemon(int argc, char **argv)
{
	enum {
		OPT_POLICY = 256,
		OPT_RULES,
		OPT_OUTPUT,
		OPT_SENSOR,
		OPT_STATE_DIR,
		OPT_RECORD,
		OPT_PID_FILE,
		OPT_STATUS_SOCKET,
		OPT_HEARTBEAT,
		OPT_RECONCILE,
		OPT_FACILITY,
		OPT_READY_FILE,
		OPT_ROCE_IF,
		OPT_ROCE_INTERVAL,
		OPT_RING_BUFFER,
		OPT_RING_WAKEUPS,
		OPT_NO_INVENTORY,
		OPT_PROC_CAPACITY,
		OPT_DRY_RUN,
		OPT_ENFORCE,
		OPT_PIN_DIR,
		OPT_METRICS,
	};
	static const struct option opts[] = {
		{"policy", required_argument, NULL, OPT_POLICY},
		{"rules", required_argument, NULL, OPT_RULES},
		{"output", required_argument, NULL, OPT_OUTPUT},
		{"sensor", required_argument, NULL, OPT_SENSOR},
		{"state-dir", required_argument, NULL, OPT_STATE_DIR},
		{"record", required_argument, NULL, OPT_RECORD},
		{"pid-file", required_argument, NULL, OPT_PID_FILE},
		{"status-socket", required_argument, NULL, OPT_STATUS_SOCKET},
		{"heartbeat", required_argument, NULL, OPT_HEARTBEAT},
		{"reconcile", required_argument, NULL, OPT_RECONCILE},
		{"facility", required_argument, NULL, OPT_FACILITY},
		{"ready-file", required_argument, NULL, OPT_READY_FILE},
		{"roce-if", required_argument, NULL, OPT_ROCE_IF},
		{"roce-interval", required_argument, NULL, OPT_ROCE_INTERVAL},
		{"ring-buffer", required_argument, NULL, OPT_RING_BUFFER},
		{"ring-wakeups", required_argument, NULL, OPT_RING_WAKEUPS},
		{"no-inventory", no_argument, NULL, OPT_NO_INVENTORY},
		{"proc-capacity", required_argument, NULL, OPT_PROC_CAPACITY},
		{"dry-run", no_argument, NULL, OPT_DRY_RUN},
		{"enforce", no_argument, NULL, OPT_ENFORCE},
		{"pin-dir", required_argument, NULL, OPT_PIN_DIR},
		{"metrics", required_argument, NULL, OPT_METRICS},
		{"help", no_argument, NULL, 'h'},
		{},
	};
	struct daemon_config cfg = {.sensors.mode = SENSORS_AUTO};
	bool dry_run = false;
	size_t nifs = 0;
	int c, r;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case OPT_POLICY:
			cfg.policy_path = optarg;
			break;
		case OPT_RULES:
			cfg.rules_dir = optarg;
			break;
		case OPT_OUTPUT:
			if (cfg.n_outputs >= DAEMON_MAX_OUTPUTS)
				return cmd_usage_error("daemon", "at most %d --output",
						       DAEMON_MAX_OUTPUTS);
			cfg.outputs[cfg.n_outputs++] = optarg;
			break;
		case OPT_SENSOR:
			r = sensors_mode_from_string(optarg);
			if (r < 0)
				return cmd_usage_error("daemon", "unknown sensor '%s' (auto, fentry, "
								 "kprobe, tracepoint)", optarg);
			cfg.sensors.mode = (enum sensors_mode)r;
			break;
		case OPT_STATE_DIR:
			cfg.state_dir = optarg;
			break;
		case OPT_RECORD:
			cfg.record_path = optarg;
			break;
		case OPT_PID_FILE:
			cfg.pid_file = optarg;
			break;
		case OPT_STATUS_SOCKET:
			cfg.status_socket = optarg;
			break;
		case OPT_HEARTBEAT:
			if (parse_seconds("--heartbeat", optarg, &cfg.heartbeat_s) != 0)
				return RG_EXIT_ERROR;
			break;
		case OPT_RECONCILE:
			if (parse_seconds("--reconcile", optarg, &cfg.reconcile_s) != 0)
				return RG_EXIT_ERROR;
			break;
		case OPT_FACILITY:
			cfg.facility = optarg;
			break;
		case OPT_READY_FILE:
			cfg.ready_file = optarg;
			break;
		case OPT_METRICS: {
			struct sockaddr_storage sa;
			unsigned salen;

			if (metrics_http_parse_listen(optarg, &sa, &salen) < 0)
				return cmd_usage_error("daemon", "--metrics: not ADDRESS:PORT or PORT "
								 "(127.0.0.1:9466, [::1]:9466, 9466): "
								 "'%s'", optarg);
			cfg.metrics_listen = optarg;
			break;
		}
		case OPT_ROCE_IF:
			if (nifs >= ARRAY_SIZE(cfg.sensors.roce_ifaces))
				return cmd_usage_error("daemon", "at most %zu --roce-if",
						       ARRAY_SIZE(cfg.sensors.roce_ifaces));
			cfg.sensors.roce_ifaces[nifs++] = optarg;
			break;
		case OPT_ROCE_INTERVAL:
			if (parse_seconds("--roce-interval", optarg, &cfg.sensors.roce_interval_s) != 0)
				return RG_EXIT_ERROR;
			break;
		case OPT_RING_BUFFER:
			if (parse_ring_size(optarg, &cfg.sensors.ringbuf_bytes) != 0)
				return RG_EXIT_ERROR;
			break;
		case OPT_RING_WAKEUPS:
			if (strcmp(optarg, "always") == 0)
				cfg.sensors.ring_always_wake = true;
			else if (strcmp(optarg, "burst") != 0)
				return cmd_usage_error("daemon", "--ring-wakeups: 'burst' or 'always', "
								 "not '%s'", optarg);
			break;
		case OPT_NO_INVENTORY:
			cfg.no_inventory = true;
			break;
		case OPT_PROC_CAPACITY: {
			uint32_t u;

			if (safe_atou32(optarg, 10, &u) < 0 || u < 4 || u > PROCTREE_MAX_CAPACITY)
				return cmd_usage_error("daemon", "--proc-capacity: not a number from 4 "
								 "to %u: '%s'",
						       PROCTREE_MAX_CAPACITY, optarg);
			cfg.proc_capacity = u;
			break;
		}
		case OPT_DRY_RUN:
			dry_run = true;
			break;
		case OPT_ENFORCE:
			cfg.enforce = true;
			break;
		case OPT_PIN_DIR:
			if (optarg[0] != '/')
				return cmd_usage_error("daemon", "--pin-dir: not an absolute path: '%s'",
						       optarg);
			cfg.pin_dir = optarg;
			break;
		case 'h':
			usage(stdout);
			return RG_EXIT_OK;
		default:
			return cmd_usage_error("daemon", "unrecognised option");
		}
	}
	if (optind < argc)
		return cmd_usage_error("daemon", "unexpected argument '%s'", argv[optind]);
	if (cfg.record_path && strcmp(cfg.record_path, "-") == 0)
		for (size_t i = 0; i < cfg.n_outputs; i++)
			if (strcmp(cfg.outputs[i], "stdout") == 0)
				return cmd_usage_error("daemon", "--record - and --output stdout "
								 "would mix on standard output");
	return dry_run ? daemon_dry_run(&cfg) : daemon_run(&cfg);
}
