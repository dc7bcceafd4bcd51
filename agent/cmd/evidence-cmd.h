/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What `evidence` (evidence.c) hands to its export (evidence_export.c). */
#pragma once

struct evidence_export_opts {
	const char *state_dir; /* the seat key */
	const char *record;    /* offline: a `daemon --record` file to replay; NULL: the daemon */
	const char *policy, *rules, *socket;
	const char *boot_id; /* --record: the boot the events were recorded in (incident ids) */
};

/* rdmaguard evidence export INCIDENT-ID OUT: argv holds the two. Returns an exit code. */
int cmd_evidence_export(int argc, char **argv, const struct evidence_export_opts *o);
