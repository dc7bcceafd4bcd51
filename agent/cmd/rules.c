/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rdmaguard rules list [--rules DIR] [--format text|json]; rdmaguard rules check DIR... */
#include <errno.h>
#include <getopt.h>
#include <json-c/json.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "common/exitcode.h"
#include "rules/cond.h"
#include "engine/engine.h"
#include "event/event_json.h"

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: rdmaguard rules list [--rules DIR] [--format text|json]\n"
		"       rdmaguard rules check DIR...\n\n"
		"list: the rules of DIR (default: the installed rules) with id, severity, action\n"
		"and name, or everything as JSON. check: validates every *.json file of each DIR;\n"
		"errors are printed as FILE:LINE:COLUMN: message.\n\n"
		"Exit status: 0 valid, 2 an error.\n");
}

static struct json_object *rule_json(const struct rg_rule *r)
{
	struct json_object *o = json_object_new_object(), *a;
	size_t i;

	if (!o)
		return NULL;
	json_object_object_add(o, "id", json_object_new_string(r->id));
	json_object_object_add(o, "name", json_object_new_string(r->name));
	if (r->description)
		json_object_object_add(o, "description", json_object_new_string(r->description));
	json_object_object_add(o, "severity",
			       json_object_new_string(severity_to_string(r->severity)));
	json_object_object_add(o, "action", json_object_new_string(action_to_string(r->action)));
	json_object_object_add(o, "enabled", json_object_new_boolean(r->enabled));
	a = json_object_new_array();
	for (i = 0; i < r->n_tags; i++)
		json_object_array_add(a, json_object_new_string(r->tags[i]));
	json_object_object_add(o, "tags", a);
	if (r->threat) {
		json_set_path(o, "threat.tactic.id", json_object_new_string(r->threat->tactic_id));
		json_set_path(o, "threat.tactic.name",
			      json_object_new_string(r->threat->tactic_name));
		json_set_path(o, "threat.technique.id",
			      json_object_new_string(r->threat->technique_id));
		json_set_path(o, "threat.technique.name",
			      json_object_new_string(r->threat->technique_name));
	}
	json_object_object_add(o, "condition", json_object_new_string(cond_text(r->cond)));
	a = json_object_new_array();
	for (i = 0; i < r->n_exceptions; i++)
		json_object_array_add(a, json_object_new_string(cond_text(r->exceptions[i])));
	json_object_object_add(o, "exceptions", a);
	json_object_object_add(o, "message", json_object_new_string(rule_message_text(r)));
	json_object_object_add(o, "aggregate", json_object_new_boolean(r->aggregate));
	json_object_object_add(o, "file", json_object_new_string(r->file));
	json_object_object_add(o, "line", json_object_new_int((int)r->line));
	return o;
}

static int do_list(const char *dir, bool json)
{
	struct rg_ruleset *rules;
	struct rg_error err;
	char buf[1200];
	size_t i;
	int r;

	r = rules_load_dir(dir, false, &rules, &err);
	if (r < 0) {
		fprintf(stderr, "%s\n", rg_error_format(&err, buf, sizeof(buf)));
		return RG_EXIT_ERROR;
	}
	if (json) {
		struct json_object *a = json_object_new_array();

		for (i = 0; a && i < rules->n; i++)
			json_object_array_add(a, rule_json(&rules->rules[i]));
		if (!a) {
			ruleset_free(rules);
			return RG_EXIT_ERROR;
		}
		printf("%s\n", json_object_to_json_string_ext(
				   a, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
		json_object_put(a);
	} else {
		printf("%-10s %-8s %-6s %s\n", "ID", "SEVERITY", "ACTION", "NAME");
		for (i = 0; i < rules->n; i++) {
			const struct rg_rule *ru = &rules->rules[i];

			printf("%-10s %-8s %-6s %s%s\n", ru->id, severity_to_string(ru->severity),
			       action_to_string(ru->action), ru->name,
			       ru->enabled ? "" : " (disabled)");
		}
	}
	ruleset_free(rules);
	return RG_EXIT_OK;
}

int cmd_rules(int argc, char **argv)
{
	static const struct option opts[] = {
		{"help", no_argument, NULL, 'h'},
		{"rules", required_argument, NULL, 'r'},
		{"format", required_argument, NULL, 'f'},
		{},
	};
	const char *dir = NULL, *format = "text";
	struct rg_error err;
	char buf[1200];
	int c, i, status = RG_EXIT_OK;

	optind = 1;
	while ((c = getopt_long(argc, argv, "hr:f:", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			usage(stdout);
			return RG_EXIT_OK;
		case 'r':
			dir = optarg;
			break;
		case 'f':
			format = optarg;
			if (strcmp(format, "text") != 0 && strcmp(format, "json") != 0)
				return cmd_usage_error(
				    "rules", "unknown format '%s' (text or json)", format);
			break;
		default:
			return cmd_usage_error("rules", "invalid option");
		}
	}
	if (optind >= argc)
		return cmd_usage_error("rules", "missing subcommand (list or check)");
	if (strcmp(argv[optind], "list") == 0) {
		if (optind + 1 < argc)
			return cmd_usage_error("rules", "unexpected argument '%s'",
					       argv[optind + 1]);
		return do_list(dir ? dir : rules_default_dir(), strcmp(format, "json") == 0);
	}
	if (strcmp(argv[optind], "check") != 0)
		return cmd_usage_error("rules", "unknown subcommand '%s'", argv[optind]);
	if (optind + 1 >= argc)
		return cmd_usage_error("rules", "check needs at least one DIR");
	for (i = optind + 1; i < argc; i++) {
		struct rg_ruleset *rules;
		int r = rules_load_dir(argv[i], false, &rules, &err);

		if (r < 0) {
			if (r == -ENOMEM)
				rg_error_set(&err, argv[i], 0, 0, "out of memory");
			fprintf(stderr, "%s\n", rg_error_format(&err, buf, sizeof(buf)));
			status = RG_EXIT_ERROR;
			continue;
		}
		printf("%s: ok (%zu rules)\n", argv[i], rules->n);
		ruleset_free(rules);
	}
	return status;
}
