/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rdmaguard: detects and blocks abuse of RDMA on managed machines. Subcommand dispatch. */
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "common/exitcode.h"
#include "common/log.h"

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
} commands[] = {
	{"audit", cmd_audit, "one-shot inventory of every trace of RDMA on this machine"},
	{"baseline", cmd_baseline, "save or check the seat's hardware baseline (baseline save FILE)"},
	{"daemon", cmd_daemon, "watch continuously with eBPF sensors and raise alerts"},
	{"evidence", cmd_evidence, "signed incident bundles, the seat key, chained logs"},
	{"enforce", cmd_enforce, "show or lift the pinned enforcement (enforce --status|--off)"},
	{"explain", cmd_explain, "tell one incident's timeline (explain INCIDENT-ID [FILE])"},
	{"incidents", cmd_incidents, "list the incidents of the daemon or of a file"},
	{"policy", cmd_policy, "validate policy files (policy check FILE...)"},
	{"rules", cmd_rules, "list or validate rules (rules list, rules check DIR)"},
	{"replay", cmd_replay, "feed a recorded event file through the rule engine"},
	{"status", cmd_status, "show a running daemon's counters"},
	{"version", cmd_version, "print the version"},
};

static void usage(FILE *f)
{
	size_t i;

	fprintf(f, "Usage: rdmaguard [--verbose] COMMAND [OPTIONS]...\n\n"
		   "Detects (and optionally blocks) use of RDMA on managed machines.\n\n"
		   "Commands:\n");
	for (i = 0; i < ARRAY_SIZE(commands); i++)
		fprintf(f, "  %-9s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "\nRun 'rdmaguard COMMAND --help' for a command's options.\n"
		   "Exit codes: 0 success (no findings), 1 findings at or above the threshold,\n"
		   "2 error (bad usage, invalid input, failure).\n");
}

int main(int argc, char **argv)
{
	size_t i;

	/* Global options come before the command so that each command owns its own getopt. */
	while (argc > 1 && argv[1][0] == '-') {
		if (strcmp(argv[1], "--verbose") == 0 || strcmp(argv[1], "-v") == 0)
			log_set_max_level(LOG_LEVEL_DEBUG);
		else if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
			usage(stdout);
			return RG_EXIT_OK;
		} else if (strcmp(argv[1], "--version") == 0)
			return cmd_version(1, (char *[]){"version", NULL});
		else {
			fprintf(stderr, "rdmaguard: unknown option '%s'\n", argv[1]);
			usage(stderr);
			return RG_EXIT_ERROR;
		}
		argv++;
		argc--;
	}
	if (argc < 2) {
		usage(stderr);
		return RG_EXIT_ERROR;
	}
	for (i = 0; i < ARRAY_SIZE(commands); i++)
		if (strcmp(argv[1], commands[i].name) == 0)
			return commands[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "rdmaguard: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return RG_EXIT_ERROR;
}
