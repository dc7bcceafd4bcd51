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
#include "../common/exitcode.h"
#include "../common/log.h"
#include "../inventory/inventory.h"

static const char *const severities[] = {"info", "low", "medium", "high", "critical"};

static int severity_rank(const char *s)
{
	size_t i;

	for (i = 0; s && i < ARRAY_SIZE(severities); i++)
		if (strcmp(severities[i], s) == 0)
			return (int)i;
	return -1;
}

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
		"  --policy FILE       policy (games, allowlists, severity threshold)\n"
		"  --rules DIR         rule directory\n"
		"  --format json|text  JSON document (default) or readable tables, on stdout\n"
		"  -h, --help          this text\n"
		"\n"
		"The policy and rules are checked for readability now; they are evaluated once the\n"
		"rule engine is built in (until then \"alerts\" is always empty).\n"
		"\n"
		"Exit status: 0 no alert at or above the threshold (default medium), 1 alerts at or\n"
		"above it, 2 error (bad usage, unreadable --root/--policy/--rules, output failure).\n"
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
	struct json_object *alerts; /* what the rule engine raised */
	int threshold;		    /* severity rank */
	unsigned events;
	unsigned at_or_above;
};

/*
 * Every inventory fact, as an event. The rule engine (issue 5, branch `engine`) plugs in here:
 *
 *	static int audit_alert(struct json_object *alert, int severity, void *ud)
 *	{
 *		struct audit *a = ud;
 *
 *		json_object_array_add(a->alerts, json_object_get(alert));
 *		a->at_or_above += severity >= a->threshold;
 *		return 0;
 *	}
 *	... in audit_event(): return engine_process(a->engine, ev, audit_alert, a);
 *	... after inventory_foreach_event(): engine_flush(a->engine, audit_alert, &a);
 *
 * with the engine from engine_load_config(policy, false, rules, ...) + engine_new() (hash_live),
 * a->threshold from the policy, and the "evaluation" object saying rules_evaluated: true. The
 * severity ranks here (info 0 ... critical 4) are enum rg_severity's order.
 */
static int audit_event(const struct rg_event *ev, void *userdata)
{
	struct audit *a = userdata;

	(void)ev;
	a->events++;
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
	const char *root_path = "/", *policy = NULL, *rules = NULL, *format = "json";
	struct audit a = {.threshold = severity_rank("medium")};
	struct rg_root root = {.fd = -1};
	struct json_object *report = NULL, *pol;
	size_t i;
	int c, r, ret = RG_EXIT_ERROR;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'r':
			root_path = optarg;
			break;
		case 'p':
			policy = optarg;
			break;
		case 'R':
			rules = optarg;
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
	if (policy && check_readable("--policy", policy, false) < 0)
		return RG_EXIT_ERROR;
	if (rules && check_readable("--rules", rules, true) < 0)
		return RG_EXIT_ERROR;

	r = root_init(&root, root_path);
	if (r < 0) {
		fprintf(stderr, "rdmaguard audit: --root %s: %s\n", root_path, strerror(-r));
		return RG_EXIT_ERROR;
	}
	r = inventory_collect(&root, INV_F_ALL, &inv);
	if (r < 0) {
		log_error_errno(r, "Failed to collect the inventory: %m");
		goto out;
	}
	report = inventory_to_json(inv);
	a.alerts = json_object_new_array();
	if (!report || !a.alerts) {
		log_oom();
		goto out;
	}
	r = inventory_foreach_event(inv, audit_event, &a);
	if (r < 0) {
		log_error_errno(r, "Failed to evaluate the inventory: %m");
		goto out;
	}

	pol = json_object_new_object();
	json_object_object_add(pol, "policy_file", policy ? json_object_new_string(policy) : NULL);
	json_object_object_add(pol, "rules_dir", rules ? json_object_new_string(rules) : NULL);
	json_object_object_add(pol, "threshold", json_object_new_string(severities[a.threshold]));
	json_object_object_add(pol, "events", json_object_new_int64(a.events));
	json_object_object_add(pol, "rules_evaluated", json_object_new_boolean(false));
	json_object_object_add(pol, "note",
			       json_object_new_string("the rule engine is not built in yet: no rule "
						      "was evaluated and no alert can be raised"));
	json_object_object_add(report, "evaluation", pol);
	json_object_object_add(report, "alerts", json_object_get(a.alerts));
	for (i = 0; i < json_object_array_length(a.alerts); i++) {
		struct json_object *al = json_object_array_get_idx(a.alerts, i), *sev;

		if (json_object_object_get_ex(al, "severity", &sev) &&
		    severity_rank(json_object_get_string(sev)) >= a.threshold)
			a.at_or_above++;
	}

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
		goto out;
	}
	ret = a.at_or_above > 0 ? RG_EXIT_FINDINGS : RG_EXIT_OK;
out:
	json_object_put(a.alerts);
	json_object_put(report);
	root_done(&root);
	return ret;
}
