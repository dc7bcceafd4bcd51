/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rdmaguard enforce: what enforcement is pinned, and the one way to lift it. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "common/exitcode.h"
#include "common/log.h"
#include "enforce/enforce.h"
#include "hw/hw_enforce.h"

static void usage(FILE *f)
{
	fprintf(
	    f,
	    "Usage: rdmaguard enforce [--pin-dir DIR] [--status | --off] [--format json|text]\n\n"
	    "The daemon's enforcement is pinned in bpffs so that it stays in force when the\n"
	    "daemon stops or dies. This shows it, or lifts it.\n\n"
	    "Options:\n"
	    "  --status          what is pinned: policy generation, scope, mode, allowlisted\n"
	    "                    executables, game processes, operations denied and processes\n"
	    "                    killed (default)\n"
	    "  --off             remove the pins: enforcement is lifted (a running daemon lets go\n"
	    "                    of it within a second and raises AGENT-002; a reload or restart\n"
	    "                    whose policy asks for enforcement pins it again); undo hardware\n"
	    "                    enforcement: rescan the PCI bus, set bus mastering again,\n"
	    "                    clear the driver_override it set and probe those functions\n"
	    "  --pin-dir DIR     the pin directory (default " ENFORCE_PIN_DIR ")\n"
	    "  --format FMT      json (default) or text\n"
	    "  -h, --help        this help\n\n"
	    "Exit codes: 0 done (--status: enforcement is pinned), 1 --status: nothing is pinned,\n"
	    "2 error.\n");
}

static void print_text(struct json_object *o)
{
	json_object_object_foreach(o, key, val)
	{
		if (json_object_is_type(val, json_type_object)) {
			json_object_object_foreach(val, k2, v2)
			    printf("%s.%s: %s\n", key, k2, json_object_get_string(v2));
		} else {
			printf("%s: %s\n", key, json_object_get_string(val));
		}
	}
}

int cmd_enforce(int argc, char **argv)
{
	enum { OPT_PIN_DIR = 256, OPT_STATUS, OPT_OFF, OPT_FORMAT };
	static const struct option opts[] = {
	    {"pin-dir", required_argument, NULL, OPT_PIN_DIR},
	    {"status", no_argument, NULL, OPT_STATUS},
	    {"off", no_argument, NULL, OPT_OFF},
	    {"format", required_argument, NULL, OPT_FORMAT},
	    {"help", no_argument, NULL, 'h'},
	    {},
	};
	const char *pin_dir = ENFORCE_PIN_DIR;
	bool off = false, text = false;
	struct json_object *o = NULL;
	size_t removed = 0;
	int c, r;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case OPT_PIN_DIR:
			if (optarg[0] != '/')
				return cmd_usage_error(
				    "enforce", "--pin-dir: not an absolute path: '%s'", optarg);
			pin_dir = optarg;
			break;
		case OPT_STATUS:
			off = false;
			break;
		case OPT_OFF:
			off = true;
			break;
		case OPT_FORMAT:
			if (strcmp(optarg, "text") == 0)
				text = true;
			else if (strcmp(optarg, "json") != 0)
				return cmd_usage_error("enforce",
						       "unknown format '%s' (json, text)", optarg);
			break;
		case 'h':
			usage(stdout);
			return RG_EXIT_OK;
		default:
			return cmd_usage_error("enforce", "unrecognised option");
		}
	}
	if (optind < argc)
		return cmd_usage_error("enforce", "unexpected argument '%s'", argv[optind]);

	if (off) {
		struct hw_enforce_undone u = {0};
		int h;

		/* The pins first: a running daemon then sees enforcement lifted (enforce_lifted())
		 * before the functions the undo gives back reach it as uevents. */
		r = enforce_unpin(pin_dir, &removed);
		if (r == -ENOENT)
			printf("Nothing is pinned in %s: enforcement is not in force.\n", pin_dir);
		else if (r < 0)
			log_error_errno(r, "Failed to lift enforcement (%zu pins removed): %m",
					removed);
		else
			printf("Removed %zu pins from %s: enforcement is lifted.\n", removed, pin_dir);
		/* hardware enforcement's undo (hw/hw_enforce.h): its state file says what it did */
		h = hw_enforce_undo(NULL, &u);
		if (h != -ENOENT && u.ports)
			printf("Hardware: %u port(s) above stopped cards given back their bus "
			       "mastering or link.\n",
			       u.ports);
		if (h != -ENOENT)
			printf("Hardware: PCI bus rescanned %u time(s), bus mastering set again on %u "
			       "function(s), driver_override cleared on %u function(s).\n",
			       u.rescans, u.masters, u.overrides);
		if (h < 0 && h != -ENOENT)
			log_error_errno(h, "Failed to undo hardware enforcement: %m");
		return (r < 0 && r != -ENOENT) || (h < 0 && h != -ENOENT) ? RG_EXIT_ERROR
									    : RG_EXIT_OK;
	}
	r = enforce_status(pin_dir, &o);
	if (r == -ENOENT) {
		o = json_object_new_object();
		json_object_object_add(o, "pinned", json_object_new_boolean(0));
		json_object_object_add(o, "pin_dir", json_object_new_string(pin_dir));
	} else if (r < 0) {
		log_error_errno(r, "Failed to read the enforcement pinned in %s: %m", pin_dir);
		return RG_EXIT_ERROR;
	}
	if (text)
		print_text(o);
	else
		puts(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
							   JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
	return r == -ENOENT ? RG_EXIT_FINDINGS : RG_EXIT_OK;
}
