/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rdmaguard incidents [FILE|-] [--format table|json] [--socket PATH] [--policy FILE]
 *                     [--rules DIR] [--hostname NAME] [--boot-id ID] [--boot-time TIME]
 *
 * Lists incidents: from the running daemon (no FILE), or offline from a file output or a
 * `--record`ed event file. Also the loader `rdmaguard explain` shares (cmd.h).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "config.h"
#include "common/exitcode.h"
#include "common/log.h"
#include "common/macro.h"
#include "common/timestamp.h"
#include "daemon/control.h"
#include "engine/incident_reader.h"

int cmd_incidents_load(const char *file, const char *socket, const char *id,
		       const struct incident_load_opts *o, struct incident_set *s)
{
	_cleanup_free_ char *reply = NULL, *req = NULL;
	char err[1024];
	const char *p;
	unsigned long lineno = 0;
	int r;

	if (file) {
		r = incident_set_load(s, file, o, err, sizeof(err));
		if (r < 0)
			log_error("%s", err);
		return r;
	}
	if (asprintf(&req, id ? "incident %s" : "incidents", id) < 0)
		return log_oom();
	r = control_query(socket, req, CONTROL_REPLY_MAX, &reply);
	if (r < 0)
		return log_error_errno(r, "Failed to ask the daemon at %s: %m", socket);
	for (p = reply; *p;) {
		size_t len = strcspn(p, "\n"), col;

		lineno++;
		if (len) {
			r = incident_set_feed(s, p, len, &col, err, sizeof(err));
			if (r < 0) {
				log_error("%s: answer line %lu: %s", socket, lineno, err);
				return r;
			}
		}
		p += len + (p[len] == '\n');
	}
	return 0;
}

static void usage(void)
{
	printf(
	    "Usage: rdmaguard incidents [FILE|-] [--format table|json] [--socket PATH]\n"
	    "                           [--policy FILE] [--rules DIR] [--hostname NAME]\n"
	    "                           [--boot-id ID] [--boot-time TIME]\n\n"
	    "Lists the incidents: the alerts grouped by actor chain, PCI function or seat, with\n"
	    "the stage reached, the verdict and one sentence for a referee (docs/incidents.md).\n"
	    "Without FILE, from the running daemon over its root-only socket; with FILE, offline\n"
	    "from a file output (file:PATH) or an event file the daemon recorded, which is fed\n"
	    "through the rule engine as `rdmaguard replay` does ('-' reads stdin).\n\n"
	    "  -f, --format FMT    table (default) or json (one incident record a line)\n"
	    "  -s, --socket PATH   status socket (default " STATUS_SOCKET_DEFAULT ")\n"
	    "      --policy FILE   recorded events: the policy (default: the built-in one)\n"
	    "      --rules DIR     recorded events: the rules directory\n"
	    "      --hostname, --boot-id, --boot-time   recorded events: the machine that\n"
	    "                      recorded them (the incident ids mix the boot id in)\n"
	    "  -h, --help          this help\n\n"
	    "Exit codes: 0 listed, 2 an error (the daemon did not answer, a bad line).\n");
}

int cmd_incidents_parse(const char *cmd, int argc, char **argv, void (*usage_fn)(void),
			const char **format, struct incident_load_opts *o, const char **socket)
{
	static const struct option opts[] = {
	    {"format", required_argument, NULL, 'f'},
	    {"socket", required_argument, NULL, 's'},
	    {"policy", required_argument, NULL, 'p'},
	    {"rules", required_argument, NULL, 'r'},
	    {"hostname", required_argument, NULL, 'H'},
	    {"boot-id", required_argument, NULL, 'B'},
	    {"boot-time", required_argument, NULL, 'T'},
	    {"help", no_argument, NULL, 'h'},
	    {},
	};
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "f:s:h", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			usage_fn();
			return 1;
		case 'f':
			*format = optarg;
			break;
		case 's':
			*socket = optarg;
			break;
		case 'p':
			o->policy = optarg;
			break;
		case 'r':
			o->rules = optarg;
			break;
		case 'H':
			o->hostname = optarg;
			break;
		case 'B':
			o->boot_id = optarg;
			break;
		case 'T':
			if (parse_timestamp(optarg, &o->boot_realtime_ns) < 0 ||
			    !o->boot_realtime_ns)
				return cmd_usage_error(
					   cmd, "invalid --boot-time '%s' (RFC 3339 UTC)", optarg)
					   ? -1
					   : -1;
			break;
		default:
			return cmd_usage_error(cmd, "invalid option") ? -1 : -1;
		}
	}
	return 0;
}

int cmd_incidents(int argc, char **argv)
{
	struct incident_load_opts o = {0};
	struct incident_set set = {0};
	const char *socket = STATUS_SOCKET_DEFAULT, *format = "table", *file = NULL;
	int r;

	r = cmd_incidents_parse("incidents", argc, argv, usage, &format, &o, &socket);
	if (r != 0)
		return r > 0 ? RG_EXIT_OK : RG_EXIT_ERROR;
	if (strcmp(format, "table") != 0 && strcmp(format, "json") != 0)
		return cmd_usage_error("incidents", "unknown format '%s' (table or json)", format);
	if (optind < argc)
		file = argv[optind++];
	if (optind < argc)
		return cmd_usage_error("incidents", "unexpected argument '%s'", argv[optind]);
	r = cmd_incidents_load(file, socket, NULL, &o, &set);
	if (r >= 0) {
		if (strcmp(format, "json") == 0)
			incident_print_json(stdout, &set);
		else
			incident_print_table(stdout, &set);
		if (set.alerts_without_incident)
			log_warning("%llu alert(s) name no incident (written by an older agent).",
				    (unsigned long long)set.alerts_without_incident);
	}
	incident_set_free(&set);
	return r < 0 ? RG_EXIT_ERROR : RG_EXIT_OK;
}
