/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <getopt.h>
#include <json-c/json.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "config.h"
#include "common/exitcode.h"
#include "common/log.h"
#include "daemon/control.h"

static void usage(void)
{
	printf("Usage: rdmaguard status [--socket PATH] [--format json|text]\n\n"
	       "Asks the running daemon for its counters (events by type, alerts by rule, drops per\n"
	       "CPU, spool depth, reconnects, chosen hooks, the seat key's public half) over its\n"
	       "root-only unix socket.\n\n"
	       "  -s, --socket PATH   status socket (default " STATUS_SOCKET_DEFAULT ")\n"
	       "  -f, --format FMT    json (default, one document) or text (key = value lines)\n"
	       "  -h, --help          this help\n\n"
	       "Exit codes: 0 the daemon answered, 2 it did not (not running, not root, error).\n");
}

static void print_text(struct json_object *o, char *prefix, size_t plen)
{
	size_t base = strlen(prefix);

	json_object_object_foreach(o, key, val)
	{
		snprintf(prefix + base, plen - base, "%s%s", base ? "." : "", key);
		if (json_object_is_type(val, json_type_object))
			print_text(val, prefix, plen);
		else
			printf("%s = %s\n", prefix,
			       json_object_to_json_string_ext(val, JSON_C_TO_STRING_PLAIN));
		prefix[base] = 0;
	}
}

int cmd_status(int argc, char **argv)
{
	static const struct option opts[] = {
		{"socket", required_argument, NULL, 's'},
		{"format", required_argument, NULL, 'f'},
		{"help", no_argument, NULL, 'h'},
		{},
	};
	const char *path = STATUS_SOCKET_DEFAULT, *format = "json";
	_cleanup_free_ char *reply = NULL;
	struct json_object *doc;
	char prefix[512] = "";
	int c, r;

	optind = 1;
	while ((c = getopt_long(argc, argv, "s:f:h", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			path = optarg;
			break;
		case 'f':
			format = optarg;
			break;
		case 'h':
			usage();
			return RG_EXIT_OK;
		default:
			return cmd_usage_error("status", "invalid option");
		}
	}
	if (optind < argc)
		return cmd_usage_error("status", "unexpected argument '%s'", argv[optind]);
	if (strcmp(format, "json") != 0 && strcmp(format, "text") != 0)
		return cmd_usage_error("status", "unknown format '%s' (json or text)", format);

	r = status_query(path, &reply);
	if (r < 0) {
		log_error_errno(r, "Failed to query the daemon at %s: %m", path);
		return RG_EXIT_ERROR;
	}
	doc = json_tokener_parse(reply);
	if (!doc || !json_object_is_type(doc, json_type_object)) {
		json_object_put(doc);
		log_error("The daemon at %s sent something that is not a JSON object.", path);
		return RG_EXIT_ERROR;
	}
	if (strcmp(format, "text") == 0)
		print_text(doc, prefix, sizeof(prefix));
	else
		printf("%s\n", json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PRETTY |
									   JSON_C_TO_STRING_SPACED));
	json_object_put(doc);
	return RG_EXIT_OK;
}
