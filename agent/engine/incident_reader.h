/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Incidents read back from JSON lines: a file output (alerts, incident records, heartbeats and
 * notices as the daemon writes them), the daemon's control socket answers (control.h), or what
 * a replay of a `--record`ed event file produces. Each incident keeps its latest record and the
 * alerts that name it (rdmaguard.incident.id), in the order read; `rdmaguard incidents` lists
 * them, `rdmaguard explain` tells one's timeline, the evidence export takes them.
 *
 * The input is hostile (a file anyone may have edited): every line must be a JSON object, or it
 * is an error at its line and column; an incident id must have the form INC-<16 hex>; at most
 * INCIDENT_READER_MAX incidents and INCIDENT_READER_MAX_ALERTS alerts per incident are kept, the
 * rest counted (dropped).
 */
#pragma once

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "incident.h"

struct rg_engine;

#define INCIDENT_READER_MAX	   65536
#define INCIDENT_READER_MAX_ALERTS 4096
#define INCIDENT_READER_MAX_LINE   (1u << 20)

struct incident_view {
	char id[INCIDENT_ID_LEN];
	struct json_object *record; /* the latest record; NULL if only alerts named it */
	struct json_object **alerts;
	size_t n_alerts, cap_alerts;
	uint64_t alerts_dropped;
};

struct incident_set {
	struct incident_view *v;
	size_t n, cap;
	uint64_t lines, records, alerts, events, other;
	uint64_t alerts_without_incident; /* alerts that name no incident (older agents) */
	uint64_t dropped;		  /* incidents past INCIDENT_READER_MAX */
};

void incident_set_free(struct incident_set *s);
/*
 * One line. 0; -EINVAL (not a JSON object, a bad incident id) with the message and its 1-based
 * column (0: the line as a whole) in err/col; -ENOMEM.
 */
int incident_set_feed(struct incident_set *s, const char *line, size_t len, size_t *col, char *err,
		      size_t errlen);
struct incident_view *incident_set_find(struct incident_set *s, const char *id);
/* Whether id has the form INC-<16 lowercase hex digits>. */
bool incident_id_valid(const char *id);
/* Whether a line is a recorded event (event.kind "event", or no kind and an event.action). */
bool incident_line_is_event(const char *line, size_t len);

/*
 * Reads a file output, a `--record`ed event file (first line an event: fed through an engine
 * made with these options, as replay does) or "-" (stdin) into s (incident_load.c). 0, or
 * -errno with "FILE:LINE:COLUMN: what" in err.
 */
struct incident_load_opts {
	const char *policy;	   /* NULL: the built-in default policy */
	const char *rules;	   /* NULL: the installed rules */
	const char *hostname;	   /* NULL: this machine's */
	const char *boot_id;	   /* NULL: this machine's (incident ids mix it in) */
	uint64_t boot_realtime_ns; /* 0: unknown */
	/* A --record'ed file: called with the engine once every event went through it (the
	 * evidence export reads the kept logs there); NULL: not called. */
	void (*with_engine)(struct rg_engine *e, void *ud);
	void *ud;
};
int incident_set_load(struct incident_set *s, const char *path, const struct incident_load_opts *o,
		      char *err, size_t errlen);

/* Output (incident_view.c). */
/* The table's header and one row a incident: ID, STATUS, SEVERITY, VERDICT, STAGE, ALERTS... */
void incident_print_table(FILE *f, const struct incident_set *s);
/* The incident's records one a line (JSON, as the outputs had them). */
void incident_print_json(FILE *f, const struct incident_set *s);
/* The alerts in time order (explain does this first). */
void incident_view_sort(struct incident_view *v);
/* The timeline: text for a person, or one JSON document. */
void incident_explain_text(FILE *f, const struct incident_view *v);
void incident_explain_json(FILE *f, const struct incident_view *v);
