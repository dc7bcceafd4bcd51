/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rdmaguard policy check [--rules DIR] [--no-owner-check] FILE... */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "common/clock.h"
#include "common/exitcode.h"
#include "common/macro.h"
#include "common/timestamp.h"
#include "engine/engine.h"
#include "hw/baseline.h"
#include "output/output.h"

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: rdmaguard policy check [--rules DIR] [--no-owner-check] FILE...\n\n"
		"Validates policy files as the daemon would load them: syntax, every key and\n"
		"value, per-rule overrides against the rules (--rules DIR, default the installed\n"
		"rules), and that the file is owned by root and not writable by group or other\n"
		"(--no-owner-check skips that, for files being prepared elsewhere).\n"
		"Errors are printed as FILE:LINE:COLUMN: message.\n\n"
		"Exit status: 0 all valid, 2 an error.\n");
}

static void warn_expired(const struct rg_policy *p)
{
	uint64_t now = now_realtime_ns();
	char ts[32];
	size_t i;

	for (i = 0; i < p->n_allow; i++) {
		const struct rg_policy_allow *a = &p->allow[i];

		if (!a->expires_ns || a->expires_ns > now)
			continue;
		format_timestamp(a->expires_ns, ts);
		fprintf(stderr, "%s:%u:%u: warning: allow entry for %s expired at %s\n", p->path,
			a->line, a->column, a->exe, ts);
	}
}

int cmd_policy(int argc, char **argv)
{
	static const struct option opts[] = {
		{"help", no_argument, NULL, 'h'},
		{"rules", required_argument, NULL, 'r'},
		{"no-owner-check", no_argument, NULL, 'O'},
		{},
	};
	const char *rules_dir = NULL;
	struct rg_ruleset *rules = NULL;
	bool check_owner = true;
	struct rg_error err;
	char buf[1200];
	int c, i, status = RG_EXIT_OK, r;

	optind = 1;
	while ((c = getopt_long(argc, argv, "hr:", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			usage(stdout);
			return RG_EXIT_OK;
		case 'r':
			rules_dir = optarg;
			break;
		case 'O':
			check_owner = false;
			break;
		default:
			return cmd_usage_error("policy", "invalid option");
		}
	}
	if (optind >= argc)
		return cmd_usage_error("policy", "missing subcommand (check)");
	if (strcmp(argv[optind], "check") != 0)
		return cmd_usage_error("policy", "unknown subcommand '%s'", argv[optind]);
	optind++;
	if (optind >= argc)
		return cmd_usage_error("policy", "check needs at least one FILE");

	r = rules_load_dir(rules_dir ? rules_dir : rules_default_dir(), check_owner, &rules, &err);
	if (r < 0) {
		fprintf(stderr, "%s\n", rg_error_format(&err, buf, sizeof(buf)));
		return RG_EXIT_ERROR;
	}
	for (i = optind; i < argc; i++) {
		struct rg_policy *p = NULL;

		r = policy_load(argv[i], check_owner, &p, &err);
		if (r >= 0)
			r = policy_check_outputs(p, output_spec_check, &err);
		if (r >= 0)
			r = engine_check(p, rules, &err);
		if (r >= 0 && p->baseline) {
			struct hw_baseline *b = NULL;

			r = hw_baseline_load(p->baseline, check_owner, &b, &err);
			hw_baseline_free(b);
		}
		if (r < 0) {
			if (r == -ENOMEM)
				rg_error_set(&err, argv[i], 0, 0, "out of memory");
			fprintf(stderr, "%s\n", rg_error_format(&err, buf, sizeof(buf)));
			status = RG_EXIT_ERROR;
		} else {
			warn_expired(p);
			printf(
			    "%s: ok (role %s, %zu game%s, %zu allow entr%s, %zu rule override%s, "
			    "threshold %s%s)\n",
			    argv[i], p->role == RG_ROLE_SERVER ? "server" : "managed", p->n_games,
			    p->n_games == 1 ? "" : "s", p->n_allow, p->n_allow == 1 ? "y" : "ies",
			    p->n_overrides, p->n_overrides == 1 ? "" : "s",
			    severity_to_string(p->threshold), p->enforce ? ", enforce" : "");
		}
		policy_free(p);
	}
	ruleset_free(rules);
	return status;
}
