/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <bpf/libbpf.h>
#include <getopt.h>
#include <json-c/json.h>
#include <stdio.h>

#include "cmd.h"
#include "common/exitcode.h"
#include "config.h"

int cmd_version(int argc, char **argv)
{
	static const struct option opts[] = {
		{"help", no_argument, NULL, 'h'},
		{},
	};
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			printf("Usage: rdmaguard version\n\nPrints the version of rdmaguard and of the "
			       "libraries it runs with.\n");
			return RG_EXIT_OK;
		default:
			return cmd_usage_error("version", "invalid option");
		}
	}
	if (optind < argc)
		return cmd_usage_error("version", "unexpected argument '%s'", argv[optind]);
	printf("rdmaguard %s\n", RG_VERSION);
	printf("libbpf %u.%u, json-c %s\n", libbpf_major_version(), libbpf_minor_version(),
	       json_c_version());
	return RG_EXIT_OK;
}
