/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The console's API: login and logout, the session, the room, a seat, an incident's export and
 * a referee's review note. Every answer is JSON made by PostgreSQL (json_agg, row_to_json) or
 * by json-c: never text pasted into JSON by hand. Writes need a session, the referee role, a
 * JSON body and the session's CSRF token in X-CSRF-Token.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "common/log.h"
#include "db.h"
#include "http.h"

#define ARG_MAX_LEN 200

static const char room_sql[] =
    "SELECT json_build_object('seats', coalesce(json_agg(t ORDER BY t.row_label, "
    "t.seat_number, t.seat), '[]'), 'at', now()) FROM (SELECT seat, row_label, seat_number, "
    "state, host_name, weak_reasons, open_info, open_low, open_medium, open_high, "
    "open_critical, open_incidents FROM rdmaguard.seat_overview) t";

static const char seat_sql[] =
    "SELECT json_build_object("
    "'overview', (SELECT row_to_json(o) FROM rdmaguard.seat_overview o WHERE o.seat = $1), "
    "'identity', (SELECT row_to_json(s) FROM (SELECT seat, host_name, host_id, host_ips, "
    "host_macs, agent_version, policy_sha256, fingerprint, pci_dsns, first_seen, last_seen, "
    "last_heartbeat, last_notice, games_running, game, weak_reasons, weak_since, "
    "identity_changed_at, heartbeats, host(sender_ip) AS sender_ip "
    "FROM rdmaguard.seat_state WHERE seat = $1) s), "
    "'incidents', (SELECT coalesce(json_agg(x ORDER BY x.open DESC, x.updated_at DESC), '[]') "
    "FROM (SELECT i.incident_id, i.state, i.stage, i.severity, i.verdict, i.summary, "
    "i.opened_at, i.updated_at, i.closed_at, i.records, i.reviewed_at, i.notes, i.open, "
    "(SELECT coalesce(json_agg(t ORDER BY t.at, t.kind), '[]') FROM (SELECT tl.at, tl.ts, "
    "tl.kind, tl.what, tl.severity, tl.text, tl.detail, tl.who "
    "FROM rdmaguard.incident_timeline tl WHERE tl.incident_id = i.incident_id "
    "ORDER BY tl.at, tl.kind LIMIT 200) t) AS timeline "
    "FROM rdmaguard.seat_incidents i WHERE i.seat = $1 "
    "ORDER BY i.open DESC, i.updated_at DESC LIMIT 50) x), "
    "'alerts', (SELECT coalesce(json_agg(a ORDER BY a.received_at DESC), '[]') FROM (SELECT "
    "received_at, ts, event_id, rule_id, severity, incident_id, game, process_name, message, "
    "peer_ips, reviewed FROM rdmaguard.seat_alerts WHERE seat = $1 "
    "ORDER BY received_at DESC LIMIT 50) a), "
    "'notes', (SELECT coalesce(json_agg(n ORDER BY n.recorded_at DESC), '[]') FROM (SELECT "
    "incident_id, note, account, reviewer, recorded_at FROM rdmaguard.review_notes "
    "WHERE seat = $1 ORDER BY recorded_at DESC LIMIT 50) n))";

/* What the store holds of an incident, whole: its records, its alerts, the notes. */
static const char export_sql[] =
    "SELECT json_build_object('incident', (SELECT row_to_json(i) FROM rdmaguard.incidents i "
    "WHERE i.incident_id = $1), "
    "'records', (SELECT coalesce(json_agg(e.doc ORDER BY e.received_at), '[]') "
    "FROM rdmaguard.incident_events e WHERE e.incident_id = $1), "
    "'alerts', (SELECT coalesce(json_agg(a.doc ORDER BY a.received_at), '[]') "
    "FROM rdmaguard.alerts a WHERE a.incident_id = $1), "
    "'notes', (SELECT coalesce(json_agg(n ORDER BY n.id), '[]') FROM rdmaguard.review_notes n "
    "WHERE n.incident_id = $1)) WHERE EXISTS (SELECT 1 FROM rdmaguard.incidents "
    "WHERE incident_id = $1)";

static const char review_incident_sql[] =
    "INSERT INTO rdmaguard.review_notes (incident_id, seat, note, account) "
    "VALUES ($1, '', $2, $3) RETURNING json_build_object('id', id, 'seat', seat, "
    "'recorded_at', recorded_at, 'reviewer', reviewer, 'account', account)";
static const char review_seat_sql[] =
    "INSERT INTO rdmaguard.review_notes (seat, note, account) "
    "VALUES ($1, $2, $3) RETURNING json_build_object('id', id, 'seat', seat, "
    "'recorded_at', recorded_at, 'reviewer', reviewer, 'account', account)";

static void fail(struct reply *rp, unsigned status, const char *what)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "error", json_object_new_string(what));
	rp->status = status;
	free(rp->body);
	rp->body = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
	json_object_put(o);
}

static void answer(struct reply *rp, json_object *o)
{
	rp->status = 200;
	rp->body = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
	json_object_put(o);
}

static void query(struct reply *rp, const char *sql, int n, const char *const *params,
		  const char *none)
{
	char err[512];
	int r = db_query_json(sql, n, params, &rp->body, err, sizeof(err));

	if (r == -EACCES) {
		log_warning("The database refused: %s", err);
		fail(rp, 403, err);
	} else if (r < 0) {
		log_warning("The database: %s", err);
		fail(rp, 503, "the database is not reachable");
	} else if (!rp->body) {
		fail(rp, 404, none);
	}
}

static bool arg_ok(const char *s)
{
	return s && s[0] && strlen(s) <= ARG_MAX_LEN;
}

static void session_json(struct reply *rp, const struct session_info *s, bool open)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "user", open ? NULL : json_object_new_string(s->user));
	json_object_object_add(o, "role",
			       json_object_new_string(open ? "viewer" : role_name(s->role)));
	json_object_object_add(o, "csrf", json_object_new_string(open ? "" : s->csrf));
	json_object_object_add(o, "open", json_object_new_boolean(open));
	answer(rp, o);
}

static const char *body_string(json_object *body, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(body, key, &v) || !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

static void cookie(struct reply *rp, const char *value, int max_age)
{
	snprintf(rp->set_cookie, sizeof(rp->set_cookie),
		 "rgc_session=%s; Path=/; Max-Age=%d; HttpOnly; SameSite=Strict%s", value, max_age,
		 console_cfg->tls_cert ? "; Secure" : "");
}

static void login(struct request *rq, struct reply *rp, json_object *body)
{
	const char *user = body_string(body, "user"), *pw = body_string(body, "password");
	const struct account *acc;
	struct session_info info;
	char token[TOKEN_HEX + 1];

	if (!console_cfg->accounts)
		return fail(rp, 404, "this console has no accounts (open, read-only, loopback)");
	if (!user || !pw || strlen(pw) > 1024)
		return fail(rp, 400, "user and password are strings");
	acc = accounts_check(console_cfg->accounts, user, pw);
	if (!acc) {
		log_notice("Login refused for \"%.64s\"", account_name_valid(user) ? user : "?");
		return fail(rp, 401, "wrong user or password");
	}
	if (session_create(acc->name, acc->role, token, &info) < 0)
		return fail(rp, 500, "no session");
	log_info("Login: %s (%s)", acc->name, role_name(acc->role));
	cookie(rp, token, SESSION_LIFE_S);
	session_json(rp, &info, false);
	(void)rq;
}

static void review(struct request *rq, struct reply *rp, json_object *body)
{
	const char *inc = body_string(body, "incident_id"), *seat = body_string(body, "seat");
	const char *note = body_string(body, "note");
	const char *params[3];

	if (rq->session.role != ROLE_REFEREE)
		return fail(rp, 403, "only a referee marks incidents reviewed");
	if (!note || !note[0] || strlen(note) > 4000)
		return fail(rp, 400, "a note of 1 to 4000 characters");
	if (!(arg_ok(inc) ^ arg_ok(seat)))
		return fail(rp, 400, "an incident_id or a seat");
	params[0] = inc ? inc : seat;
	params[1] = note;
	params[2] = rq->session.user;
	query(rp, inc ? review_incident_sql : review_seat_sql, 3, params, "nothing recorded");
	if (rp->status == 200)
		log_notice("Review note by %s on %s %.200s", rq->session.user,
			   inc ? "incident" : "seat", params[0]);
}

/* POST: a JSON body, and but for the login a session and its CSRF token. */
static void post(struct request *rq, struct reply *rp)
{
	const char *ctype = request_header(rq, "Content-Type");
	json_object *body;

	if (!ctype || strncmp(ctype, "application/json", 16) != 0)
		return fail(rp, 415, "the body is application/json");
	if (strcmp(rq->path, "/api/login") != 0) {
		if (!rq->has_session)
			return fail(rp, 401, "log in first");
		if (!token_equal(request_header(rq, "X-CSRF-Token"), rq->session.csrf))
			return fail(rp, 403, "missing or wrong CSRF token");
	}
	body = json_tokener_parse(rq->body);
	if (!body || !json_object_is_type(body, json_type_object)) {
		json_object_put(body);
		return fail(rp, 400, "the body is a JSON object");
	}
	if (strcmp(rq->path, "/api/login") == 0) {
		login(rq, rp, body);
	} else if (strcmp(rq->path, "/api/logout") == 0) {
		session_destroy(rq->token);
		cookie(rp, "", 0);
		rp->body = strdup("{}");
	} else if (strcmp(rq->path, "/api/review") == 0) {
		review(rq, rp, body);
	} else {
		fail(rp, 404, "no such call");
	}
	json_object_put(body);
}

static void get(struct request *rq, struct reply *rp)
{
	bool open = !console_cfg->accounts;
	const char *arg;

	if (strcmp(rq->path, "/api/session") == 0) {
		if (!open && !rq->has_session)
			return fail(rp, 401, "log in first");
		return session_json(rp, &rq->session, open);
	}
	if (!open && !rq->has_session)
		return fail(rp, 401, "log in first");
	if (strcmp(rq->path, "/api/room") == 0) {
		query(rp, room_sql, 0, NULL, "no room");
	} else if (strcmp(rq->path, "/api/layout") == 0) {
		rp->body = strdup(console_cfg->layout_json ? console_cfg->layout_json : "null");
	} else if (strcmp(rq->path, "/api/seat") == 0) {
		arg = request_arg(rq, "seat");
		if (!arg_ok(arg))
			return fail(rp, 400, "seat=LABEL");
		query(rp, seat_sql, 1, &arg, "no such seat");
	} else if (strcmp(rq->path, "/api/export") == 0) {
		arg = request_arg(rq, "incident");
		if (!arg_ok(arg))
			return fail(rp, 400, "incident=ID");
		query(rp, export_sql, 1, &arg, "no such incident");
		snprintf(rp->disposition, sizeof(rp->disposition),
			 "attachment; filename=\"incident-store-export.json\"");
	} else {
		fail(rp, 404, "no such call");
	}
}

void api_handle(struct request *rq, struct reply *rp)
{
	if (strncmp(rq->path, "/api/", 5) != 0)
		return fail(rp, 404, "not found");
	if (strcmp(rq->method, "GET") == 0)
		get(rq, rp);
	else if (strcmp(rq->method, "POST") == 0)
		post(rq, rp);
	else
		fail(rp, 405, "GET or POST");
	if (!rp->body)
		fail(rp, 500, "out of memory");
}
