/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * An incident's record (docs/incidents.md#records): ECS fields where ECS has them (event.*,
 * message, process, related.ip), the rest under rdmaguard.incident; its severity and verdict,
 * which follow the stages reached; and its summary, one sentence a referee can read aloud.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "incident-internal.h"
#include "common/macro.h"
#include "common/severity.h"
#include "common/timestamp.h"

static bool reached(const struct incident *inc, unsigned stage)
{
	return inc->stages & (1u << stage);
}

/* A cheat: the means to reach memory (capability) and the game as its target, during a game;
 * or data leaving (exfiltration) during a game. */
static bool is_cheat(const struct incident *inc)
{
	if (!inc->during_game)
		return false;
	return (reached(inc, INCIDENT_STAGE_CAPABILITY) && reached(inc, INCIDENT_STAGE_TARGET)) ||
	       reached(inc, INCIDENT_STAGE_EXFILTRATION);
}

int incident_severity(const struct incident *inc)
{
	if (is_cheat(inc))
		return RG_SEV_CRITICAL;
	if (reached(inc, INCIDENT_STAGE_CAPABILITY) || reached(inc, INCIDENT_STAGE_TARGET) ||
	    reached(inc, INCIDENT_STAGE_EXFILTRATION))
		return RG_SEV_HIGH;
	if (reached(inc, INCIDENT_STAGE_ACCESS))
		return RG_SEV_MEDIUM;
	if (reached(inc, INCIDENT_STAGE_PRESENCE))
		return RG_SEV_LOW;
	return inc->max_alert_severity >= 0 ? inc->max_alert_severity : RG_SEV_INFO;
}

static const char *verdict(const struct incident *inc)
{
	if (is_cheat(inc))
		return "cheat";
	if (reached(inc, INCIDENT_STAGE_CAPABILITY) || reached(inc, INCIDENT_STAGE_TARGET) ||
	    reached(inc, INCIDENT_STAGE_EXFILTRATION))
		return "suspicious";
	if (inc->stages)
		return "notice";
	return "agent";
}

static int highest_stage(const struct incident *inc)
{
	for (int i = INCIDENT_STAGE__MAX - 1; i >= 0; i--)
		if (reached(inc, (unsigned)i))
			return i;
	return -1;
}

/* "1 MiB", "4096 bytes" */
static void size_text(uint64_t n, char *buf, size_t size)
{
	if (n >= (1ull << 30) && n % (1ull << 30) == 0)
		snprintf(buf, size, "%" PRIu64 " GiB", n >> 30);
	else if (n >= (1ull << 20) && n % (1ull << 20) == 0)
		snprintf(buf, size, "%" PRIu64 " MiB", n >> 20);
	else if (n >= (1ull << 10) && n % (1ull << 10) == 0)
		snprintf(buf, size, "%" PRIu64 " KiB", n >> 10);
	else
		snprintf(buf, size, "%" PRIu64 " bytes", n);
}

struct sentence {
	char *buf;
	size_t size, off;
};

static void say(struct sentence *s, const char *fmt, ...) _printf_(2, 3);
static void say(struct sentence *s, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (s->off + 1 >= s->size)
		return;
	va_start(ap, fmt);
	n = vsnprintf(s->buf + s->off, s->size - s->off, fmt, ap);
	va_end(ap);
	if (n > 0)
		s->off = MIN(s->off + (size_t)n, s->size - 1);
}

/* The stage clauses of an actor: "registered ..., read Arena's memory into it". */
static size_t actor_clauses(const struct incident *inc, char cl[][200], size_t max)
{
	const char *game = inc->target_game[0] ? inc->target_game
			   : inc->game_name[0] ? inc->game_name
					       : "the game";
	size_t n = 0;
	char sz[32];

	if (reached(inc, INCIDENT_STAGE_CAPABILITY) && n < max) {
		if (inc->mr_bytes || inc->mr_access[0]) {
			bool rd = strstr(inc->mr_access, "remote_read"),
			     wr = strstr(inc->mr_access, "remote_write");

			size_text(inc->mr_bytes, sz, sizeof(sz));
			snprintf(cl[n++], 200, "registered %s of %s memory%s%s", sz,
				 rd && wr ? "remote-readable and -writable"
				 : rd	  ? "remote-readable"
				 : wr	  ? "remote-writable"
					  : "remote-accessible",
				 inc->device[0] ? " on " : "", inc->device);
		} else
			snprintf(cl[n++], 200, "set up RDMA%s%s", inc->device[0] ? " on " : "",
				 inc->device);
	} else if (reached(inc, INCIDENT_STAGE_ACCESS) && n < max)
		snprintf(cl[n++], 200, "opened RDMA%s%s", inc->device[0] ? " on " : "",
			 inc->device);
	if (reached(inc, INCIDENT_STAGE_TARGET) && n < max) {
		const char *op = inc->target_op;

		if (op[0] && strstr(op, "read"))
			snprintf(cl[n++], 200, "read %s's memory%s", game,
				 reached(inc, INCIDENT_STAGE_CAPABILITY) ? " into it" : "");
		else if (op[0] && strstr(op, "write"))
			snprintf(cl[n++], 200, "wrote to %s's memory", game);
		else if (op[0])
			snprintf(cl[n++], 200, "accessed %s's memory (%s)", game, op);
		else if (inc->library[0])
			snprintf(cl[n++], 200, "had %s load %s", game, inc->library);
		/* else only the game running: said after the clauses */
	}
	if (reached(inc, INCIDENT_STAGE_EXFILTRATION) && n < max)
		snprintf(cl[n++], 200, "exchanged RDMA traffic%s%s", inc->peer[0] ? " with " : "",
			 inc->peer);
	return n;
}

static void stage_list(const struct incident *inc, struct sentence *s)
{
	bool first = true;

	for (unsigned i = 0; i < INCIDENT_STAGE__MAX; i++) {
		const struct inc_stage *st = &inc->st[i];

		if (!reached(inc, i))
			continue;
		say(s, "%s%s", first ? "" : "; ", incident_stage_to_string(i));
		if (st->n_facts)
			say(s, " (%s%s%s)", st->facts[0], st->n_facts > 1 ? ", " : "",
			    st->n_facts > 1 ? st->facts[1] : "");
		first = false;
	}
	if (first)
		say(s, "agent health (%" PRIu64 " alert%s)", inc->alerts,
		    inc->alerts == 1 ? "" : "s");
}

void incident_summary(const struct incident *inc, char *buf, size_t size)
{
	const char *seat = inc->seat;
	struct sentence s = {.buf = buf, .size = size};
	char cl[4][200];
	size_t n;

	buf[0] = 0;
	if (inc->kind == INCIDENT_KIND_PCI) {
		say(&s, "PCI function %s%s%s: ", inc->pci, seat[0] ? " on seat " : "", seat);
		stage_list(inc, &s);
		goto game;
	}
	if (inc->kind == INCIDENT_KIND_SEAT) {
		if (seat[0])
			say(&s, "Seat %s: ", seat);
		else
			say(&s, "This seat: ");
		stage_list(inc, &s);
		goto game;
	}
	say(&s, "%s (pid %u", inc->root_comm[0] ? inc->root_comm : "?", inc->root.pid);
	if (inc->starter_comm[0])
		say(&s, ", started by %s", inc->starter_comm);
	else if (inc->starter_pid)
		say(&s, ", started by pid %u", inc->starter_pid);
	if (inc->starter_comm[0] && inc->starter_session && inc->starter_pid != 1)
		say(&s, " in a login session");
	if (seat[0])
		say(&s, " on seat %s", seat);
	say(&s, ")");
	n = actor_clauses(inc, cl, ARRAY_SIZE(cl));
	for (size_t i = 0; i < n; i++)
		say(&s, "%s%s", i == 0 ? " " : i + 1 == n ? " and " : ", ", cl[i]);
	if (!n) {
		say(&s, ": ");
		stage_list(inc, &s);
	}
game:
	if (inc->during_game && inc->game_name[0]) {
		if (strstr(buf, inc->game_name))
			say(&s, " during the match");
		else
			say(&s, " while %s ran", inc->game_name);
	}
	if (inc->peer[0] && !reached(inc, INCIDENT_STAGE_EXFILTRATION))
		say(&s, "; peer %s", inc->peer);
}

void incident_record_id(const struct incident *inc, char out[static INCIDENT_RECORD_ID_LEN])
{
	snprintf(out, INCIDENT_RECORD_ID_LEN, "%s-%" PRIu64, inc->id, inc->records);
}

static void jw_time(struct jw *w, jw_node o, const char *key, uint64_t ns)
{
	char buf[32];

	if (!ns)
		return;
	format_timestamp(ns, buf);
	jw_string(w, o, key, buf);
}

static void stages_to_jw(const struct incident *inc, struct jw *w, jw_node o)
{
	for (unsigned i = 0; i < INCIDENT_STAGE__MAX; i++) {
		const struct inc_stage *st = &inc->st[i];
		jw_node so, a;

		if (!reached(inc, i))
			continue;
		so = jw_object(w, o, incident_stage_to_string(i));
		jw_time(w, so, "first", st->first_ns);
		jw_time(w, so, "last", st->last_ns);
		jw_uint(w, so, "alerts", st->alerts);
		a = jw_new_array(w, so, "alert_ids");
		for (size_t k = 0; k < st->n_ids; k++)
			jw_string(w, a, NULL, st->ids[k]);
		a = jw_new_array(w, so, "facts");
		for (size_t k = 0; k < st->n_facts; k++)
			jw_string(w, a, NULL, st->facts[k]);
	}
}

static void actors_to_jw(const struct incident *inc, struct jw *w, jw_node o)
{
	jw_node a = jw_new_array(w, o, "actors"), x;

	for (size_t i = 0; i < inc->n_actors; i++) {
		x = jw_new_object(w, a, NULL);
		jw_int(w, x, "pid", inc->actors[i].key.pid);
		jw_uint(w, x, "start_boot_ns", inc->actors[i].key.start_boot_ns);
		jw_int(w, x, "ppid", inc->actors[i].ppid);
		if (inc->actors[i].comm[0])
			jw_string(w, x, "name", inc->actors[i].comm);
		if (inc->actors[i].exe[0])
			jw_string(w, x, "executable", inc->actors[i].exe);
		jw_uint(w, x, "alerts", inc->actors[i].alerts);
	}
	if (inc->actors_dropped)
		jw_uint(w, o, "actors_dropped", inc->actors_dropped);
}

static void rules_to_jw(const struct incident *inc, struct jw *w, jw_node o)
{
	jw_node a = jw_new_array(w, o, "rules"), x;

	for (size_t i = 0; i < inc->n_rules; i++) {
		x = jw_new_object(w, a, NULL);
		jw_string(w, x, "id", inc->rules[i].id);
		jw_uint(w, x, "alerts", inc->rules[i].alerts);
		jw_uint(w, x, "count", inc->rules[i].count);
		jw_string(w, x, "severity", severity_to_string(inc->rules[i].severity));
	}
	if (inc->rules_dropped)
		jw_uint(w, o, "rules_dropped", inc->rules_dropped);
}

/* ECS: process (the actor root), its parent the starter; game as the alerts have it. */
static void ecs_to_jw(const struct incident *inc, struct jw *w)
{
	jw_node o;

	if (inc->kind == INCIDENT_KIND_ACTOR) {
		o = jw_object(w, JW_ROOT, "process");
		jw_int(w, o, "pid", inc->root.pid);
		if (inc->root_comm[0])
			jw_string(w, o, "name", inc->root_comm);
		if (inc->root_exe[0])
			jw_string(w, o, "executable", inc->root_exe);
		jw_time(w, o, "start_time", inc->root_start_ns);
		jw_uint(w, o, "start_boot_ns", inc->root.start_boot_ns);
		jw_int(w, jw_object(w, o, "user"), "id", inc->root_uid);
		if (inc->root_sid)
			jw_int(w, jw_object(w, o, "session"), "id", inc->root_sid);
		o = jw_object(w, o, "parent");
		jw_int(w, o, "pid", inc->starter_pid);
		if (inc->starter_comm[0])
			jw_string(w, o, "name", inc->starter_comm);
	}
	if (inc->game >= 0) {
		o = jw_object(w, JW_ROOT, "game");
		if (inc->game_name[0])
			jw_string(w, o, "name", inc->game_name);
		if (inc->game_pid)
			jw_int(w, o, "pid", inc->game_pid);
		jw_time(w, o, "started", inc->game_started_ns);
		jw_time(w, o, "ended", inc->game_ended_ns);
	}
	if (inc->peer[0])
		jw_string(w, jw_new_array(w, jw_object(w, JW_ROOT, "related"), "ip"), NULL,
			  inc->peer);
}

void incident_to_jw(const struct incident *inc, const char *action, struct jw *w)
{
	int sev = incident_severity(inc), hs = highest_stage(inc);
	const char *type = !action			   ? "info"
			   : strcmp(action, "opened") == 0 ? "start"
			   : strcmp(action, "closed") == 0 ? "end"
							   : "change";
	uint64_t ts = !action			      ? inc->last_ns
		      : strcmp(action, "opened") == 0 ? inc->first_ns
		      : strcmp(action, "closed") == 0 ? inc->closed_ns
						      : inc->last_ns;
	char summary[512], rid[INCIDENT_RECORD_ID_LEN], act[32];
	jw_node o, e;

	incident_summary(inc, summary, sizeof(summary));
	incident_record_id(inc, rid);
	snprintf(act, sizeof(act), "incident_%s", action ? action : "state");
	jw_time(w, JW_ROOT, "@timestamp", ts);
	e = jw_object(w, JW_ROOT, "event");
	jw_string(w, e, "kind", "state");
	jw_string(w, e, "dataset", "rdmaguard.incident");
	jw_string(w, e, "action", act);
	jw_string(w, jw_new_array(w, e, "category"), NULL, "intrusion_detection");
	jw_string(w, jw_new_array(w, e, "type"), NULL, type);
	jw_string(w, e, "id", rid);
	jw_time(w, e, "start", inc->first_ns);
	jw_time(w, e, "end", inc->open ? inc->last_ns : inc->closed_ns);
	jw_int(w, e, "severity", sev);
	jw_string(w, JW_ROOT, "severity", severity_to_string(sev));
	jw_string(w, JW_ROOT, "message", summary);
	o = jw_object(w, jw_object(w, JW_ROOT, "rdmaguard"), "incident");
	jw_string(w, o, "id", inc->id);
	jw_string(w, o, "status", inc->open ? "open" : "closed");
	jw_string(w, o, "kind", incident_kind_to_string(inc->kind));
	jw_string(w, o, "verdict", verdict(inc));
	if (hs >= 0)
		jw_string(w, o, "stage", incident_stage_to_string((unsigned)hs));
	if (inc->pci[0])
		jw_string(w, o, "pci", inc->pci);
	jw_uint(w, o, "alerts", inc->alerts);
	jw_uint(w, o, "count", inc->matches);
	jw_bool(w, o, "during_game", inc->during_game);
	stages_to_jw(inc, w, jw_object(w, o, "stages"));
	rules_to_jw(inc, w, o);
	actors_to_jw(inc, w, o);
	if (!inc->open && inc->close_reason)
		jw_string(w, o, "close_reason", inc->close_reason);
	jw_uint(w, o, "records", inc->records);
	jw_uint(w, o, "log_kept", inc->n_log);
	if (inc->log_dropped)
		jw_uint(w, o, "log_dropped", inc->log_dropped);
	ecs_to_jw(inc, w);
}
