/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rdmaguard audit: one report of every trace of RDMA on this machine (or below --root), then the
 * inventory's facts, as events, through the rule engine; the exit code says whether an alert
 * reached the severity threshold.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd.h"
#include "common/clock.h"
#include "common/exitcode.h"
#include "common/log.h"
#include "common/macro.h"
#include "common/root.h"
#include "common/strutil.h"
#include "config.h"
#include "engine/engine.h"
#include "hw/baseline.h"
#include "identity/identity.h"
#include "inventory/inventory.h"
#include "output/output.h"

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: rdmaguard audit [--root DIR] [--policy FILE] [--rules DIR] "
		"[--format json|text]\n"
		"\n"
		"Reports, in one document, every trace of RDMA on this machine: RDMA devices, ports\n"
		"and GIDs, RDMA links, RDMA-capable PCI functions (also with no driver), DMA exposure\n"
		"(IOMMU, Thunderbolt, functions with no kernel driver), /dev/infiniband nodes, RDMA\n"
		"kernel modules, libibverbs' device list, the kernel's QP/MR/PD/context/CM ID tables\n"
		"(RDMA netlink), processes holding RDMA device fds or RDMA libraries, and RoCE v2\n"
		"sockets (UDP 4791). Then every fact goes through the rule engine as an event.\n"
		"\n"
		"Options:\n"
		"  --root DIR          read /sys, /proc, /dev and /etc below DIR (a mounted image, a\n"
		"                      test fixture); libibverbs and netlink ask the running kernel\n"
		"                      and are skipped then\n"
		"  --policy FILE       policy (games, allowlists, severity threshold); default: the\n"
		"                      built-in one (role managed, threshold medium). On this\n"
		"                      machine (no --root) it must be owned by root and not\n"
		"                      writable by group or others\n"
		"  --rules DIR         rule directory (default: the installed rules)\n"
		"  --format json|text  JSON document (default) or readable tables, on stdout\n"
		"  -h, --help          this text\n"
		"\n"
		"Every fact goes through the rules as an event; the alerts are in \"alerts\".\n"
		"\n"
		"Exit status: 0 no alert at or above the policy's threshold (default medium), 1 alerts\n"
		"at or above it, 2 error (bad usage, unreadable --root, invalid --policy or --rules\n"
		"(file:line:column: what), output failure).\n"
		"A source that cannot be read is reported in its section, not an error.\n");
}

static int check_readable(const char *what, const char *path, bool dir)
{
	struct stat st;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | (dir ? O_DIRECTORY : 0));
	if (fd < 0) {
		fprintf(stderr, "rdmaguard audit: %s %s: %s\n", what, path, strerror(errno));
		return -errno;
	}
	if (fstat(fd, &st) < 0 || (!dir && !S_ISREG(st.st_mode))) {
		fprintf(stderr, "rdmaguard audit: %s %s: not a regular file\n", what, path);
		close(fd);
		return -EINVAL;
	}
	close(fd);
	return 0;
}

struct audit {
	struct rg_engine *engine;
	struct json_object *alerts; /* what the rule engine raised */
	int threshold;		    /* enum rg_severity */
	unsigned events;
	unsigned at_or_above;
};

static int audit_alert(const struct rg_alert *alert, void *ud)
{
	struct audit *a = ud;
	struct json_object *o = json_tokener_parse(alert->json);

	if (!o || json_object_array_add(a->alerts, o) < 0) {
		json_object_put(o);
		return -ENOMEM;
	}
	if (alert->severity >= a->threshold)
		a->at_or_above++;
	return 0;
}

/* Every inventory fact, as an event, through the rules. */
static int audit_event(const struct rg_event *ev, void *userdata)
{
	struct audit *a = userdata;

	a->events++;
	return engine_process(a->engine, ev, audit_alert, a);
}

/* The seat's identity in every alert, as the daemon's (docs/seat.md): the image's own below
 * --root, without addresses or kernel. */
static void audit_set_identity(struct audit *a, const char *root_path, bool is_host,
			       const struct inventory *inv)
{
	struct rg_identity id;
	struct json_object *host;

	if (identity_collect(root_path, &id) != 0)
		return;
	if (!id.name[0])
		strscpy_ok(id.name, inv->hostname[0] ? inv->hostname : "-", sizeof(id.name));
	if (is_host)
		(void)identity_refresh_addrs(&id);
	host = identity_host_json(&id);
	if (!host || engine_set_identity(a->engine,
					 json_object_to_json_string_ext(host, JSON_C_TO_STRING_PLAIN),
					 RG_VERSION) < 0)
		log_oom();
	json_object_put(host);
}

/* The report's "evaluation": what went through the rules, and what came out. */
static struct json_object *audit_evaluation(const struct audit *a, const char *policy_path,
					    const char *rules_dir)
{
	struct json_object *ev = json_object_new_object();

	json_object_object_add(ev, "policy_file",
			       policy_path ? json_object_new_string(policy_path) : NULL);
	json_object_object_add(ev, "rules_dir",
			       json_object_new_string(rules_dir ? rules_dir : rules_default_dir()));
	json_object_object_add(ev, "rules",
			       json_object_new_int64((int64_t)engine_rules(a->engine)->n));
	json_object_object_add(ev, "threshold", json_object_new_string(severity_to_string(a->threshold)));
	json_object_object_add(ev, "events", json_object_new_int64(a->events));
	json_object_object_add(ev, "alerts", json_object_new_int64(
						     (int64_t)json_object_array_length(a->alerts)));
	json_object_object_add(ev, "at_or_above_threshold", json_object_new_int64(a->at_or_above));
	json_object_object_add(ev, "rules_evaluated", json_object_new_boolean(true));
	return ev;
}

/* The report on stdout, as JSON or text; 0, or -errno logged. */
static int audit_print(struct json_object *report, const char *format)
{
	int r;

	if (strcmp(format, "text") == 0) {
		r = inventory_print_text(report, stdout);
	} else {
		const char *s = json_object_to_json_string_ext(
			report, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
					JSON_C_TO_STRING_NOSLASHESCAPE);

		r = s && fputs(s, stdout) >= 0 && fputc('\n', stdout) != EOF ? 0 : -EIO;
	}
	if (r < 0 || fflush(stdout) != 0 || ferror(stdout)) {
		log_error_errno(r < 0 ? r : -EIO, "Failed to write the report: %m");
		return -EIO;
	}
	return 0;
}

int cmd_audit(int argc, char **argv)
{
	static const struct option opts[] = {
		{"root", required_argument, NULL, 'r'},
		{"policy", required_argument, NULL, 'p'},
		{"rules", required_argument, NULL, 'R'},
		{"format", required_argument, NULL, 'f'},
		{"help", no_argument, NULL, 'h'},
		{},
	};
	_cleanup_(inventory_freep) struct inventory *inv = NULL;
	const char *root_path = "/", *policy_path = NULL, *rules_dir = NULL, *format = "json";
	struct audit a = {0};
	struct rg_root root = {.fd = -1};
	struct rg_policy *policy = NULL;
	_cleanup_(hw_baseline_freep) struct hw_baseline *baseline = NULL;
	struct rg_ruleset *rules = NULL;
	struct engine_config cfg = {0};
	struct json_object *report = NULL;
	struct rg_error err;
	char buf[1200];
	int c, r, ret = RG_EXIT_ERROR;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'r':
			root_path = optarg;
			break;
		case 'p':
			policy_path = optarg;
			break;
		case 'R':
			rules_dir = optarg;
			break;
		case 'f':
			format = optarg;
			break;
		case 'h':
			usage(stdout);
			return RG_EXIT_OK;
		default:
			return cmd_usage_error("audit", "invalid option");
		}
	}
	if (optind < argc)
		return cmd_usage_error("audit", "unexpected argument '%s'", argv[optind]);
	if (strcmp(format, "json") != 0 && strcmp(format, "text") != 0)
		return cmd_usage_error("audit", "--format must be json or text, not '%s'", format);
	if (policy_path && check_readable("--policy", policy_path, false) < 0)
		return RG_EXIT_ERROR;
	if (rules_dir && check_readable("--rules", rules_dir, true) < 0)
		return RG_EXIT_ERROR;

	r = root_init(&root, root_path);
	if (r < 0) {
		fprintf(stderr, "rdmaguard audit: --root %s: %s\n", root_path, strerror(-r));
		return RG_EXIT_ERROR;
	}
	/* The policy is refused if others could have written it, except for an image or fixture. */
	r = engine_load_config(policy_path, root.is_host, rules_dir, output_spec_check, &policy,
			       &rules, &err);
	if (r < 0) {
		fprintf(stderr, "%s\n", rg_error_format(&err, buf, sizeof(buf)));
		goto out;
	}
	a.threshold = policy->threshold;
	/* The seat baseline is validated like the policy: a bad one is an error, before anything. */
	if (policy->baseline) {
		r = hw_baseline_load(policy->baseline, root.is_host, &baseline, &err);
		if (r < 0) {
			if (r == -ENOMEM)
				rg_error_set(&err, policy->baseline, 0, 0, "out of memory");
			fprintf(stderr, "%s\n", rg_error_format(&err, buf, sizeof(buf)));
			goto out;
		}
	}

	r = inventory_collect(&root, INV_F_ALL, &inv);
	if (r < 0) {
		log_error_errno(r, "Failed to collect the inventory: %m");
		goto out;
	}
	hw_facts_baseline(inv->hw, baseline);
	/* Live processes can be hashed and dated only on this machine itself. */
	cfg.hostname = inv->hostname[0] ? inv->hostname : NULL;
	cfg.hash_live = root.is_host;
	cfg.boot_realtime_ns = root.is_host ? boot_to_realtime_offset_ns() : 0;
	r = engine_new(policy, rules, &cfg, &a.engine, &err);
	if (r < 0) {
		fprintf(stderr, "%s\n", rg_error_format(&err, buf, sizeof(buf)));
		goto out;
	}
	policy = NULL; /* the engine's now */
	rules = NULL;
	audit_set_identity(&a, root_path, root.is_host, inv);

	report = inventory_to_json(inv);
	a.alerts = json_object_new_array();
	if (!report || !a.alerts) {
		log_oom();
		goto out;
	}
	r = inventory_foreach_event(inv, audit_event, &a);
	/* Every function added, removed or changed against the seat baseline. */
	if (r >= 0 && baseline && inv->hw)
		r = hw_baseline_compare(baseline, inv->hw, inv->collected_ns, audit_event, &a);
	if (r >= 0)
		r = engine_flush(a.engine, audit_alert, &a);
	if (r < 0) {
		log_error_errno(r, "Failed to evaluate the inventory: %m");
		goto out;
	}

	json_object_object_add(report, "evaluation",
			       audit_evaluation(&a, policy_path, rules_dir));
	json_object_object_add(report, "alerts", json_object_get(a.alerts));

	if (audit_print(report, format) < 0)
		goto out;
	ret = a.at_or_above > 0 ? RG_EXIT_FINDINGS : RG_EXIT_OK;
out:
	engine_free(a.engine);
	policy_free(policy);
	ruleset_free(rules);
	json_object_put(a.alerts);
	json_object_put(report);
	root_done(&root);
	return ret;
}
