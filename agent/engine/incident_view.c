/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Incidents shown (incident_reader.h): the table of `rdmaguard incidents`, its JSON lines, and
 * the timeline of `rdmaguard explain`: every alert of the incident with its time, process and
 * lineage, device, MR flags, peer, game, the rule that fired and the facts that decided it.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "incident_reader.h"
#include "event/ecs_map.h"
#include "event/event.h"
#include "event/event_json.h"
#include "common/macro.h"

/* The member named path (the event's name) of an alert read with the event's names, or of a
 * record in either layout: a record in ECS's layout has it under the name the table gives it
 * (event/ecs_map.h: severity is rdmaguard.severity there, game.name rdmaguard.game.name). */
static struct json_object *at(struct json_object *o, const char *path)
{
	struct json_object *v = o ? json_get_path(o, path) : NULL;
	char name[128];

	if (!v && o && ecs_map_name(path, name, sizeof(name)) == 0 && strcmp(name, path) != 0)
		v = json_get_path(o, name);
	return v;
}

static const char *str_at(struct json_object *o, const char *path)
{
	struct json_object *v = at(o, path);

	return v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

static const char * or (const char *s, const char *dflt)
{
	return s && s[0] ? s : dflt;
}

/* A value as text: strings as they are, the rest as JSON ("" if absent). */
static const char *val_at(struct json_object *o, const char *path)
{
	struct json_object *v = at(o, path);

	if (!v)
		return NULL;
	if (json_object_is_type(v, json_type_string))
		return json_object_get_string(v);
	return json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN |
						     JSON_C_TO_STRING_NOSLASHESCAPE);
}

static void actor_of(struct json_object *rec, char *buf, size_t size)
{
	const char *kind = str_at(rec, "rdmaguard.incident.kind");

	if (kind && strcmp(kind, "pci") == 0)
		snprintf(buf, size, "pci %s", or (str_at(rec, "rdmaguard.incident.pci"), "?"));
	else if (kind && strcmp(kind, "seat") == 0)
		snprintf(buf, size, "seat");
	else
		snprintf(buf, size, "%s(%s)", or (str_at(rec, "process.name"), "?"),
			 or (val_at(rec, "process.pid"), "?"));
}

void incident_print_table(FILE *f, const struct incident_set *s)
{
	fprintf(f, "%-20s %-6s %-8s %-10s %-12s %6s  %-24s %-12s %s\n", "ID", "STATUS", "SEVERITY",
		"VERDICT", "STAGE", "ALERTS", "ACTOR", "GAME", "SUMMARY");
	for (size_t i = 0; i < s->n; i++) {
		struct json_object *r = s->v[i].record;
		const char *n = val_at(r, "rdmaguard.incident.alerts");
		char actor[64], count[24];

		actor_of(r, actor, sizeof(actor));
		/* A file may hold alerts its last record does not count yet (repeats folded later).
		 */
		if (!n || strtoull(n, NULL, 10) < s->v[i].n_alerts)
			snprintf(count, sizeof(count), "%zu", s->v[i].n_alerts);
		else
			snprintf(count, sizeof(count), "%s", n);
		fprintf(f, "%-20s %-6s %-8s %-10s %-12s %6s  %-24s %-12s %s\n", s->v[i].id,
			or (str_at(r, "rdmaguard.incident.status"), "?"),
			or (str_at(r, "severity"), "?"),
			or (str_at(r, "rdmaguard.incident.verdict"), "?"),
			or (str_at(r, "rdmaguard.incident.stage"), "-"), count, actor,
			or (str_at(r, "game.name"), "-"), or (str_at(r, "message"), ""));
	}
}

void incident_print_json(FILE *f, const struct incident_set *s)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->v[i].record)
			fprintf(
			    f, "%s\n",
			    json_object_to_json_string_ext(s->v[i].record, JSON_C_TO_STRING_PLAIN));
}

/* The stage an alert shows: its rule's, else its event's action (incident_stage.c). */
static int alert_stage(struct json_object *a)
{
	int st = incident_rule_stage(str_at(a, "rule.id"));
	const char *action = str_at(a, "event.action");
	int t = action ? event_type_from_string(action) : -1;

	if (st == INCIDENT_STAGE_EVENT || st < 0)
		st = t >= 0 ? incident_action_stage((unsigned)t) : INCIDENT_STAGE_NONE;
	return st;
}

/* The alert's facts of its stage, "name=value" joined by ", ". */
static void facts_text(struct json_object *a, int stage, char *buf, size_t size)
{
	const char *const *names = incident_stage_fact_fields(stage >= 0 ? (unsigned)stage : 99);
	size_t off = 0;

	buf[0] = 0;
	for (size_t i = 0; names && names[i] && off + 1 < size; i++) {
		const char *v = val_at(a, names[i]);
		int n;

		if (!v)
			continue;
		n = snprintf(buf + off, size - off, "%s%s=%s", off ? ", " : "", names[i], v);
		if (n > 0)
			off = MIN(off + (size_t)n, size - 1);
	}
}

static void lineage_text(struct json_object *a, char *buf, size_t size)
{
	struct json_object *anc = json_get_path(a, "process.ancestors");
	size_t off = 0, n = anc && json_object_is_type(anc, json_type_array)
				? json_object_array_length(anc)
				: 0;

	buf[0] = 0;
	for (size_t i = 0; i < n && off + 1 < size; i++) {
		struct json_object *p = json_object_array_get_idx(anc, i);
		int k = snprintf(buf + off, size - off, "%s%s(%s)", i ? " < " : "",
				 or (str_at(p, "name"), "?"), or (val_at(p, "pid"), "?"));

		if (k > 0)
			off = MIN(off + (size_t)k, size - 1);
	}
}

static const char *peer_of(struct json_object *a)
{
	const char *p = str_at(a, "destination.ip");
	struct json_object *r = json_get_path(a, "related.ip");

	if (p)
		return p;
	if (r && json_object_is_type(r, json_type_array) && json_object_array_length(r))
		return json_object_get_string(json_object_array_get_idx(r, 0));
	return NULL;
}

/* The alerts in time order (@timestamp, then as read): a repeat's alert comes when its window
 * ends, after later first alerts. */
static int cmp_time(const void *x, const void *y)
{
	struct json_object *a = *(struct json_object *const *)x,
			   *b = *(struct json_object *const *)y;
	int c = strcmp(or (str_at(a, "@timestamp"), ""), or (str_at(b, "@timestamp"), ""));

	return c ? c : (x < y ? -1 : x > y);
}

void incident_view_sort(struct incident_view *v)
{
	if (v->n_alerts > 1)
		qsort(v->alerts, v->n_alerts, sizeof(*v->alerts), cmp_time);
}

void incident_explain_text(FILE *f, const struct incident_view *v)
{
	struct json_object *r = v->record, *stages = json_get_path(r, "rdmaguard.incident.stages");
	char buf[1024];

	fprintf(f, "Incident %s: %s, %s, verdict %s, %s alert(s)\n", v->id,
		or (str_at(r, "rdmaguard.incident.status"), "?"), or (str_at(r, "severity"), "?"),
		or (str_at(r, "rdmaguard.incident.verdict"), "?"),
		or (val_at(r, "rdmaguard.incident.alerts"), "?"));
	fprintf(f, "  %s\n", or (str_at(r, "message"), "(no record of it was read)"));
	if (str_at(r, "game.name"))
		fprintf(
		    f, "  game: %s (pid %s, started %s%s%s)\n", or (str_at(r, "game.name"), "?"),
		    or (val_at(r, "game.pid"), "?"), or (str_at(r, "game.started"), "?"),
		    str_at(r, "game.ended") ? ", ended " : "", or (str_at(r, "game.ended"), ""));
	if (stages && json_object_is_type(stages, json_type_object)) {
		fprintf(f, "Stages:\n");
		json_object_object_foreach(stages, name, st)
		{
			fprintf(f, "  %-13s %s alert(s) from %s", name,
				or (val_at(st, "alerts"), "?"), or (str_at(st, "first"), "?"));
			fprintf(f, "  %s\n", or (val_at(st, "facts"), "[]"));
		}
	}
	fprintf(f, "Timeline:\n");
	for (size_t i = 0; i < v->n_alerts; i++) {
		struct json_object *a = v->alerts[i];
		int st = alert_stage(a);
		const char *mr = val_at(a, "rdma.mr.access");

		fprintf(f, "  %s  %s %s (%s, %s)\n", or (str_at(a, "@timestamp"), "?"),
			or (str_at(a, "rule.id"), "?"), or (str_at(a, "rule.name"), ""),
			or (str_at(a, "severity"), "?"),
			or (incident_stage_to_string((unsigned)st), "?"));
		fprintf(f, "      process  %s (pid %s) %s\n", or (str_at(a, "process.name"), "?"),
			or (val_at(a, "process.pid"), "?"),
			or (str_at(a, "process.executable"), ""));
		lineage_text(a, buf, sizeof(buf));
		if (buf[0])
			fprintf(f, "      lineage  %s\n", buf);
		if (str_at(a, "rdma.device") || str_at(a, "file.path") || str_at(a, "pci.address"))
			fprintf(f, "      device   %s\n",
				or (str_at(a, "rdma.device"),
				    or (str_at(a, "file.path"), str_at(a, "pci.address"))));
		if (mr)
			fprintf(f, "      mr       %s, %s bytes\n", mr,
				or (val_at(a, "rdma.mr.length"), "?"));
		if (peer_of(a))
			fprintf(f, "      peer     %s\n", or (peer_of(a), "?"));
		if (str_at(a, "game.name"))
			fprintf(f, "      game     %s (pid %s, %s)\n",
				or (str_at(a, "game.name"), "?"), or (val_at(a, "game.pid"), "?"),
				json_object_get_boolean(json_get_path(a, "game.running"))
				    ? "running"
				    : "ended");
		if (str_at(a, "target.process.executable") || val_at(a, "target.process.entity_id"))
			fprintf(f, "      target   %s\n",
				or (str_at(a, "target.process.executable"),
				    or (str_at(a, "target.process.entity_id"), "?")));
		fprintf(f, "      said     %s", or (str_at(a, "message"), ""));
		if (val_at(a, "count") && strcmp(val_at(a, "count"), "1") != 0)
			fprintf(f, " (x%s)", val_at(a, "count"));
		fprintf(f, "\n");
		facts_text(a, st, buf, sizeof(buf));
		if (buf[0])
			fprintf(f, "      facts    %s\n", buf);
	}
	if (v->alerts_dropped)
		fprintf(f, "  (%" PRIu64 " more alerts not kept)\n", v->alerts_dropped);
}

static void copy_to(struct json_object *from, const char *path, struct json_object *to,
		    const char *key)
{
	struct json_object *v = json_get_path(from, path);

	if (v)
		json_object_object_add(to, key, json_object_get(v));
}

void incident_explain_json(FILE *f, const struct incident_view *v)
{
	struct json_object *doc = json_object_new_object(), *tl = json_object_new_array();

	if (v->record)
		json_object_object_add(doc, "incident", json_object_get(v->record));
	else
		json_object_object_add(doc, "incident", json_object_new_string(v->id));
	for (size_t i = 0; i < v->n_alerts; i++) {
		struct json_object *a = v->alerts[i], *s = json_object_new_object(), *facts;
		int st = alert_stage(a);
		const char *const *names = incident_stage_fact_fields(st >= 0 ? (unsigned)st : 99);

		copy_to(a, "@timestamp", s, "@timestamp");
		copy_to(a, "event.id", s, "alert_id");
		copy_to(a, "rule.id", s, "rule");
		copy_to(a, "rule.name", s, "rule_name");
		copy_to(a, "severity", s, "severity");
		json_object_object_add(
		    s, "stage",
		    json_object_new_string(or (incident_stage_to_string((unsigned)st), "none")));
		copy_to(a, "process.pid", s, "pid");
		copy_to(a, "process.name", s, "name");
		copy_to(a, "process.executable", s, "executable");
		copy_to(a, "process.ancestors", s, "lineage");
		copy_to(a, "rdma.device", s, "device");
		copy_to(a, "file.path", s, "file");
		copy_to(a, "pci.address", s, "pci");
		copy_to(a, "rdma.mr", s, "mr");
		if (peer_of(a))
			json_object_object_add(s, "peer", json_object_new_string(peer_of(a)));
		copy_to(a, "game", s, "game");
		copy_to(a, "target.process", s, "target");
		copy_to(a, "message", s, "message");
		copy_to(a, "count", s, "count");
		facts = json_object_new_object();
		for (size_t k = 0; names && names[k]; k++)
			copy_to(a, names[k], facts, names[k]);
		json_object_object_add(s, "facts", facts);
		json_object_array_add(tl, s);
	}
	json_object_object_add(doc, "timeline", tl);
	fprintf(f, "%s\n", json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PLAIN));
	json_object_put(doc);
}
