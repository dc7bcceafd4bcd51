/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rdmaguard evidence export INCIDENT-ID OUT: where the incident comes from. From the running
 * daemon, its control socket's "incident ID" answer (the record, then the kept alerts and raw
 * events, a JSON line each) and its status (the policy and rules in force); offline, a
 * `--record`ed event file fed through an engine (incident_set_load()), whose store keeps the
 * same log. The bundle itself is evidence/export.c's.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "cmd.h"
#include "config.h"
#include "common/exitcode.h"
#include "common/jsonw.h"
#include "common/log.h"
#include "daemon/control.h"
#include "engine/engine.h"
#include "engine/incident_reader.h"
#include "rules/rules.h"
#include "evidence-cmd.h"
#include "evidence/export.h"
#include "evidence/sigkey.h"
#include "common/root.h"
#include "common/strutil.h"

DEFINE_TRIVIAL_CLEANUP_FUNC(struct json_object *, json_object_put);

struct text {
	char *p;
	size_t len, cap;
};

static int text_add(struct text *t, const char *s, size_t len)
{
	if (t->len + len + 2 > t->cap) {
		size_t cap = MAX(t->cap * 2, t->len + len + 2);
		char *n = realloc(t->p, cap);

		if (!n)
			return -ENOMEM;
		t->p = n;
		t->cap = cap;
	}
	memcpy(t->p + t->len, s, len);
	t->len += len;
	t->p[t->len++] = '\n';
	t->p[t->len] = 0;
	return 0;
}

static size_t count_lines(const char *p, size_t len)
{
	size_t n = 0;

	for (size_t i = 0; i < len; i++)
		n += p[i] == '\n';
	return n;
}

/* What one incident is made of, however it came. */
struct collected {
	const char *id;
	bool found;
	int err;
	struct text incident, alerts, events;
};

static void collected_done(struct collected *c)
{
	free(c->incident.p);
	free(c->alerts.p);
	free(c->events.p);
}

/* An alert (event.kind "alert") or a raw event, by the line's own JSON. */
static bool line_is_alert(const char *line, size_t len)
{
	struct json_tokener *tok = json_tokener_new_ex(64);
	struct json_object *o = tok && len < INT32_MAX ? json_tokener_parse_ex(tok, line, (int)len)
						       : NULL,
			   *ev, *kind;
	bool alert = o && json_object_object_get_ex(o, "event", &ev) &&
		     json_object_object_get_ex(ev, "kind", &kind) &&
		     strcmp(json_object_get_string(kind), "alert") == 0;

	json_object_put(o);
	json_tokener_free(tok);
	return alert;
}

/* Offline: the engine that replayed the record keeps the incident and its log. */
static void from_engine(struct rg_engine *e, void *ud)
{
	struct collected *c = ud;
	const struct incident_store *s = engine_incidents(e);
	const struct incident *inc = s ? incident_store_find(s, c->id) : NULL;
	struct jw *w;
	const char *text;
	size_t len;

	if (!inc)
		return;
	c->found = true;
	w = jw_new();
	if (!w) {
		c->err = -ENOMEM;
		return;
	}
	engine_incident_to_jw(e, inc, NULL, w);
	if (jw_finish(w, &text, &len) < 0 || text_add(&c->incident, text, len) < 0)
		c->err = -ENOMEM;
	jw_free(w);
	for (size_t i = 0; !c->err && i < incident_log_count(inc); i++) {
		enum incident_log_kind kind;

		if (incident_log_get(inc, i, &kind, &text, &len) < 0)
			break;
		if (text_add(kind == INCIDENT_LOG_ALERT ? &c->alerts : &c->events, text, len) < 0)
			c->err = -ENOMEM;
	}
}

static int collect_record(const struct evidence_export_opts *o, struct collected *c)
{
	struct incident_load_opts lo = {.policy = o->policy,
					.rules = o->rules,
					.boot_id = o->boot_id,
					.with_engine = from_engine,
					.ud = c};
	struct incident_set set = {0};
	char err[1200];
	int r;

	r = incident_set_load(&set, o->record, &lo, err, sizeof(err));
	incident_set_free(&set);
	if (r < 0)
		return log_error_errno(r, "%s", err);
	if (c->err)
		return log_oom();
	return 0;
}

/* The daemon's answer to "incident ID": the record, then the log. */
static int collect_daemon(const char *socket, struct collected *c)
{
	_cleanup_free_ char *reply = NULL, *req = NULL;
	size_t lineno = 0;
	int r;

	if (asprintf(&req, "incident %s", c->id) < 0)
		return log_oom();
	r = control_query(socket, req, CONTROL_REPLY_MAX, &reply);
	if (r < 0)
		return log_error_errno(r, "Failed to ask the daemon at %s: %m", socket);
	for (const char *p = reply; *p;) {
		size_t len = strcspn(p, "\n");

		if (len && lineno++ == 0) {
			if (startswith(p, "{\"error\":")) {
				log_error("The daemon at %s: %.*s", socket, (int)MIN(len, 200u), p);
				return -ENOENT;
			}
			c->found = true;
			r = text_add(&c->incident, p, len);
		} else if (len)
			r = text_add(line_is_alert(p, len) ? &c->alerts : &c->events, p, len);
		if (r < 0)
			return log_oom();
		p += len + (p[len] == '\n');
	}
	return 0;
}

/* The daemon's policy path, its sha256 and the rules directory, from its status. */
static int daemon_config(const char *socket, char **policy, char **sha, char **rules)
{
	_cleanup_(json_object_putp) struct json_object *doc = NULL;
	_cleanup_free_ char *reply = NULL;
	struct json_object *v, *rg, *pol;
	int r = control_query(socket, NULL, STATUS_REPLY_MAX, &reply);

	if (r < 0)
		return log_error_errno(r, "Failed to ask the daemon at %s: %m", socket);
	doc = json_tokener_parse(reply);
	if (!doc || !json_object_is_type(doc, json_type_object))
		return log_error_errno(-EINVAL, "The daemon at %s sent no JSON object.", socket);
	if (json_object_object_get_ex(doc, "policy", &v) &&
	    json_object_is_type(v, json_type_string))
		*policy = strdup(json_object_get_string(v));
	if (json_object_object_get_ex(doc, "rules_dir", &v) &&
	    json_object_is_type(v, json_type_string))
		*rules = strdup(json_object_get_string(v));
	if (json_object_object_get_ex(doc, "rdmaguard", &rg) &&
	    json_object_object_get_ex(rg, "policy", &pol) &&
	    json_object_object_get_ex(pol, "sha256", &v))
		*sha = strdup(json_object_get_string(v));
	return 0;
}

int cmd_evidence_export(int argc, char **argv, const struct evidence_export_opts *o)
{
	_cleanup_free_ char *dpolicy = NULL, *dsha = NULL, *drules = NULL;
	_cleanup_(sigkey_freep) EVP_PKEY *key = NULL;
	struct collected c = {0};
	struct evidence_source src = {0};
	const char *socket = o->socket ? o->socket : STATUS_SOCKET_DEFAULT;
	char err[1400];
	struct rg_root root;
	int r, status = RG_EXIT_ERROR;

	if (argc != 2)
		return cmd_usage_error("evidence", "export takes INCIDENT-ID and OUT");
	if (!incident_id_valid(argv[0]))
		return cmd_usage_error("evidence",
				       "'%s' is not an incident id (INC-<16 hex digits>)", argv[0]);
	c.id = argv[0];
	/* The key first: without it there is nothing to sign with. */
	r = sigkey_load_private(o->state_dir, geteuid() == 0, &key, err, sizeof(err));
	if (r < 0) {
		log_error("%s%s", err, r == -ENOENT ? " (rdmaguard evidence keygen makes it)" : "");
		return RG_EXIT_ERROR;
	}
	if (o->record)
		r = collect_record(o, &c);
	else {
		r = collect_daemon(socket, &c);
		if (r >= 0)
			r = daemon_config(socket, &dpolicy, &dsha, &drules);
	}
	if (r < 0)
		goto out;
	if (!c.found) {
		log_error("No incident %s in %s.", c.id, o->record ? o->record : socket);
		goto out;
	}
	r = root_init(&root, "/");
	if (r < 0) {
		log_error_errno(r, "Failed to open /: %m");
		goto out;
	}
	src = (struct evidence_source){
	    .incident_id = c.id,
	    .incident = c.incident.p,
	    .incident_len = c.incident.len,
	    .alerts = c.alerts.p,
	    .alerts_len = c.alerts.len,
	    .events = c.events.p,
	    .events_len = c.events.len,
	    .policy_path = o->policy ? o->policy : dpolicy,
	    .policy_sha256 = o->policy ? NULL : dsha,
	    .rules_dir = o->rules ? o->rules
			 : drules ? drules
				  : rules_default_dir(),
	    .origin = o->record ? o->record : "daemon",
	    .root = &root,
	};
	r = evidence_export(&src, argv[1], key, err, sizeof(err));
	root_done(&root);
	if (r < 0) {
		log_error("%s", err);
		goto out;
	}
	printf("%s: incident %s, %zu alert line(s), %zu event line(s), signed\n", argv[1], c.id,
	       count_lines(c.alerts.p, c.alerts.len), count_lines(c.events.p, c.events.len));
	status = RG_EXIT_OK;
out:
	collected_done(&c);
	return status;
}
