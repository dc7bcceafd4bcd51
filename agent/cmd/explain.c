/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rdmaguard explain INCIDENT-ID [FILE|-] [--format text|json] [--socket PATH] [--policy FILE]
 *                   [--rules DIR] [--hostname NAME] [--boot-id ID] [--boot-time TIME]
 *
 * One incident's timeline, from the running daemon (no FILE) or a file (cmd_incidents_load()).
 */
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "config.h"
#include "common/exitcode.h"
#include "common/log.h"
#include "daemon/control.h"
#include "engine/incident_reader.h"

static void usage(void)
{
	printf(
	    "Usage: rdmaguard explain INCIDENT-ID [FILE|-] [--format text|json] [--socket PATH]\n"
	    "                         [--policy FILE] [--rules DIR] [--hostname NAME]\n"
	    "                         [--boot-id ID] [--boot-time TIME]\n\n"
	    "Tells one incident: its verdict, the stages with their decisive facts, and the\n"
	    "timeline of its alerts, each with its time, process and lineage, device, MR flags,\n"
	    "peer, game, the rule that fired and the facts that decided it. Without FILE, from\n"
	    "the running daemon (the alerts it keeps for the incident); with FILE, from a file\n"
	    "output or an event file the daemon recorded, as `rdmaguard incidents` reads them.\n\n"
	    "  -f, --format FMT    text (default) or json (one document)\n"
	    "  -s, --socket PATH   status socket (default " STATUS_SOCKET_DEFAULT ")\n"
	    "      --policy, --rules, --hostname, --boot-id, --boot-time   as for `incidents`\n"
	    "  -h, --help          this help\n\n"
	    "Exit codes: 0 told, 2 an error (no such incident, the daemon did not answer).\n");
}

int cmd_explain(int argc, char **argv)
{
	struct incident_load_opts o = {0};
	struct incident_set set = {0};
	const char *socket = STATUS_SOCKET_DEFAULT, *format = "text", *file = NULL, *id;
	struct incident_view *v;
	int r;

	r = cmd_incidents_parse("explain", argc, argv, usage, &format, &o, &socket);
	if (r != 0)
		return r > 0 ? RG_EXIT_OK : RG_EXIT_ERROR;
	if (strcmp(format, "text") != 0 && strcmp(format, "json") != 0)
		return cmd_usage_error("explain", "unknown format '%s' (text or json)", format);
	if (optind >= argc)
		return cmd_usage_error("explain", "missing INCIDENT-ID");
	id = argv[optind++];
	if (!incident_id_valid(id))
		return cmd_usage_error("explain",
				       "not an incident id: '%s' (INC- and 16 hex digits)", id);
	if (optind < argc)
		file = argv[optind++];
	if (optind < argc)
		return cmd_usage_error("explain", "unexpected argument '%s'", argv[optind]);
	r = cmd_incidents_load(file, socket, id, &o, &set);
	if (r < 0) {
		incident_set_free(&set);
		return RG_EXIT_ERROR;
	}
	v = incident_set_find(&set, id);
	if (!v) {
		log_error("No incident %s in %s.", id, file ? file : socket);
		incident_set_free(&set);
		return RG_EXIT_ERROR;
	}
	incident_view_sort(v);
	if (strcmp(format, "json") == 0)
		incident_explain_json(stdout, v);
	else
		incident_explain_text(stdout, v);
	incident_set_free(&set);
	return RG_EXIT_OK;
}
