/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Incidents read back from JSON lines (incident_reader.h): records, and the alerts naming them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "incident_reader.h"
#include "event/ecs_map.h"
#include "event/event_json.h"
#include "common/macro.h"

bool incident_id_valid(const char *id)
{
	if (!id || strlen(id) != INCIDENT_ID_LEN - 1 || strncmp(id, "INC-", 4) != 0)
		return false;
	for (const char *p = id + 4; *p; p++)
		if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f')))
			return false;
	return true;
}

void incident_set_free(struct incident_set *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n; i++) {
		json_object_put(s->v[i].record);
		for (size_t k = 0; k < s->v[i].n_alerts; k++)
			json_object_put(s->v[i].alerts[k]);
		free(s->v[i].alerts);
	}
	free(s->v);
	memset(s, 0, sizeof(*s));
}

struct incident_view *incident_set_find(struct incident_set *s, const char *id)
{
	for (size_t i = 0; i < s->n; i++)
		if (strcmp(s->v[i].id, id) == 0)
			return &s->v[i];
	return NULL;
}

/* The view of id, made if new; NULL when the set is full (counted) or on ENOMEM. */
static struct incident_view *view_of(struct incident_set *s, const char *id, int *err)
{
	struct incident_view *v = incident_set_find(s, id);

	*err = 0;
	if (v)
		return v;
	if (s->n >= INCIDENT_READER_MAX) {
		s->dropped++;
		return NULL;
	}
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 16;
		struct incident_view *nv = realloc(s->v, cap * sizeof(*nv));

		if (!nv) {
			*err = -ENOMEM;
			return NULL;
		}
		s->v = nv;
		s->cap = cap;
	}
	v = &s->v[s->n++];
	memset(v, 0, sizeof(*v));
	memcpy(v->id, id, INCIDENT_ID_LEN);
	return v;
}

static const char *str_at(struct json_object *o, const char *path)
{
	struct json_object *v = json_get_path(o, path);

	return v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

bool incident_line_is_event(const char *line, size_t len)
{
	struct json_tokener *tok = json_tokener_new();
	struct json_object *o;
	const char *kind;
	bool r = false;

	if (!tok)
		return false;
	o = json_tokener_parse_ex(tok, line, (int)MIN(len, (size_t)INT32_MAX));
	kind = o ? str_at(o, "event.kind") : NULL;
	/* what the daemon records says "event"; hand-written event files may say nothing */
	r = kind ? strcmp(kind, "event") == 0 : o && str_at(o, "event.action");
	json_object_put(o);
	json_tokener_free(tok);
	return r;
}

static int bad(char *err, size_t errlen, size_t *col, size_t c, const char *what)
{
	*col = c;
	snprintf(err, errlen, "%s", what);
	return -EINVAL;
}

static int add_alert(struct incident_view *v, struct json_object *o)
{
	if (v->n_alerts >= INCIDENT_READER_MAX_ALERTS) {
		v->alerts_dropped++;
		return 0;
	}
	if (v->n_alerts == v->cap_alerts) {
		size_t cap = v->cap_alerts ? v->cap_alerts * 2 : 16;
		struct json_object **na = realloc(v->alerts, cap * sizeof(*na));

		if (!na)
			return -ENOMEM;
		v->alerts = na;
		v->cap_alerts = cap;
	}
	v->alerts[v->n_alerts++] = json_object_get(o);
	return 0;
}

int incident_set_feed(struct incident_set *s, const char *line, size_t len, size_t *col, char *err,
		      size_t errlen)
{
	struct json_tokener *tok;
	struct json_object *o;
	struct incident_view *v;
	const char *kind, *dataset, *id;
	int r = 0;

	*col = 0;
	s->lines++;
	if (len > INCIDENT_READER_MAX_LINE)
		return bad(err, errlen, col, 0, "line too long");
	if (memchr(line, 0, len))
		return bad(err, errlen, col,
			   (size_t)((const char *)memchr(line, 0, len) - line) + 1,
			   "NUL byte in line");
	tok = json_tokener_new();
	if (!tok)
		return -ENOMEM;
	o = json_tokener_parse_ex(tok, line, (int)len);
	if (!o || json_tokener_get_error(tok) != json_tokener_success) {
		enum json_tokener_error e = json_tokener_get_error(tok);
		size_t at = json_tokener_get_parse_end(tok) + 1;

		json_object_put(o);
		json_tokener_free(tok);
		return bad(err, errlen, col, at,
			   e == json_tokener_success || e == json_tokener_continue
			       ? "invalid JSON: incomplete"
			       : json_tokener_error_desc(e));
	}
	if (json_tokener_get_parse_end(tok) < len &&
	    strspn(line + json_tokener_get_parse_end(tok), " \t\r\n") !=
		len - json_tokener_get_parse_end(tok)) {
		r = bad(err, errlen, col, json_tokener_get_parse_end(tok) + 1,
			"text after the JSON object");
		goto out;
	}
	if (!json_object_is_type(o, json_type_object)) {
		r = bad(err, errlen, col, 1, "not a JSON object");
		goto out;
	}
	kind = str_at(o, "event.kind");
	dataset = str_at(o, "event.dataset");
	if (dataset && strcmp(dataset, "rdmaguard.incident") == 0) {
		id = str_at(o, "rdmaguard.incident.id");
		if (!incident_id_valid(id)) {
			r = bad(err, errlen, col, 0,
				"incident record without a valid rdmaguard.incident.id");
			goto out;
		}
		s->records++;
		v = view_of(s, id, &r);
		if (v) {
			json_object_put(v->record);
			v->record = json_object_get(o);
		}
	} else if (kind && strcmp(kind, "alert") == 0) {
		s->alerts++;
		id = str_at(o, "rdmaguard.incident.id");
		if (!id) {
			s->alerts_without_incident++;
			goto out;
		}
		if (!incident_id_valid(id)) {
			r = bad(err, errlen, col, 0, "alert with an invalid rdmaguard.incident.id");
			goto out;
		}
		v = view_of(s, id, &r);
		/* an alert in ECS's layout read with the event's names (event/ecs_map.h) */
		if (v && json_object_get_int(json_get_path(o, "rdmaguard.schema_version")) == 2 &&
		    ecs_unmap_json(o) < 0)
			r = -ENOMEM;
		else if (v)
			r = add_alert(v, o);
	} else if (kind && strcmp(kind, "event") == 0)
		s->events++;
	else
		s->other++;
out:
	json_object_put(o);
	json_tokener_free(tok);
	return r;
}
