/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * An incident's record (docs/incidents.md#records), written with the event's names as an
 * alert is (engine_incident_to_jw() gives it ECS's: event/ecs_map.h), the incident's own
 * members under rdmaguard.incident; its severity and verdict,
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

/* Appends n bytes of p, as far as they fit (what vsnprintf() would have kept). */
static void put(struct sentence *s, const char *p, size_t n)
{
	n = MIN(n, s->size - 1 - s->off);
	memcpy(s->buf + s->off, p, n);
	s->off += n;
}

/* Whether fmt converts only %s and %u: say() writes those itself, without printf. */
static bool plain_format(const char *fmt)
{
	for (const char *p = strchr(fmt, '%'); p; p = strchr(p + 2, '%'))
		if (p[1] != 's' && p[1] != 'u')
			return false;
	return true;
}

static void vsay(struct sentence *s, const char *fmt, va_list ap) _printf_(2, 0);
static void vsay(struct sentence *s, const char *fmt, va_list ap)
{
	int n;

	if (s->off + 1 >= s->size)
		return;
	if (plain_format(fmt)) {
		/* a record's summary is a dozen of these: printf was most of its cost */
		for (const char *p = fmt; *p; p++) {
			char d[10], *e = d + sizeof(d), *q = e;
			const char *a;
			unsigned u;

			if (*p != '%') {
				put(s, p, 1);
				continue;
			}
			if (*++p == 's') {
				a = va_arg(ap, const char *);
				put(s, a, strlen(a));
				continue;
			}
			u = va_arg(ap, unsigned);
			do
				*--q = (char)('0' + u % 10);
			while ((u /= 10));
			put(s, q, (size_t)(e - q));
		}
		s->buf[s->off] = 0;
		return;
	}
	n = vsnprintf(s->buf + s->off, s->size - s->off, fmt, ap);
	if (n > 0)
		s->off = MIN(s->off + (size_t)n, s->size - 1);
}

static void say(struct sentence *s, const char *fmt, ...) _printf_(2, 3);
static void say(struct sentence *s, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsay(s, fmt, ap);
	va_end(ap);
}

#define CLAUSE_LEN 200

/* One clause into buf (CLAUSE_LEN bytes), as snprintf() would write it. */
static void clause(char *buf, const char *fmt, ...) _printf_(2, 3);
static void clause(char *buf, const char *fmt, ...)
{
	struct sentence s = {.buf = buf, .size = CLAUSE_LEN};
	va_list ap;

	buf[0] = 0;
	va_start(ap, fmt);
	vsay(&s, fmt, ap);
	va_end(ap);
}

/* The stage clauses of an actor: "registered ..., read Arena's memory into it". */
static size_t actor_clauses(const struct incident *inc, char cl[][CLAUSE_LEN], size_t max)
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
			clause(cl[n++], "registered %s of %s memory%s%s", sz,
			       rd && wr ? "remote-readable and -writable"
			       : rd	? "remote-readable"
			       : wr	? "remote-writable"
					: "remote-accessible",
			       inc->device[0] ? " on " : "", inc->device);
		} else
			clause(cl[n++], "set up RDMA%s%s", inc->device[0] ? " on " : "",
			       inc->device);
	} else if (reached(inc, INCIDENT_STAGE_ACCESS) && n < max)
		clause(cl[n++], "opened RDMA%s%s", inc->device[0] ? " on " : "", inc->device);
	if (reached(inc, INCIDENT_STAGE_TARGET) && n < max) {
		const char *op = inc->target_op;

		if (op[0] && strstr(op, "read"))
			clause(cl[n++], "read %s's memory%s", game,
			       reached(inc, INCIDENT_STAGE_CAPABILITY) ? " into it" : "");
		else if (op[0] && strstr(op, "write"))
			clause(cl[n++], "wrote to %s's memory", game);
		else if (op[0])
			clause(cl[n++], "accessed %s's memory (%s)", game, op);
		else if (inc->library[0])
			clause(cl[n++], "had %s load %s", game, inc->library);
		/* else only the game running: said after the clauses */
	}
	if (reached(inc, INCIDENT_STAGE_EXFILTRATION) && n < max)
		clause(cl[n++], "exchanged RDMA traffic%s%s", inc->peer[0] ? " with " : "",
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
	char cl[4][CLAUSE_LEN];
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
	/* "%s-%" PRIu64, without printf: two of these a record */
	size_t n = strnlen(inc->id, INCIDENT_ID_LEN - 1), k = 0;
	uint64_t v = inc->records;
	char dec[20];

	memcpy(out, inc->id, n);
	out[n++] = '-';
	do
		dec[k++] = (char)('0' + v % 10);
	while ((v /= 10) && k < sizeof(dec));
	while (k)
		out[n++] = dec[--k];
	out[n] = 0;
}

static void jw_time(struct jw *w, jw_node o, const char *key, uint64_t ns)
{
	char buf[32];

	if (!ns)
		return;
	format_timestamp(ns, buf);
	jw_string(w, o, key, buf);
}

/*
 * The stages, rules and actors (most of a record) are written here as JSON text and added
 * whole (jw_raw()), the same bytes that jw_finish() would write for them as nodes: a record
 * is written for each change of an incident, and building them as nodes was a third of its
 * cost. The text goes into the store's buffer (struct incident_store.raw), kept for the next.
 */
struct raw {
	struct incident_store *s;
	size_t len;
	bool failed;
};

/* Room for more bytes; false (and failed) if none could be had. */
static bool raw_room(struct raw *r, size_t more)
{
	struct incident_store *s = r->s;
	size_t cap = s->raw_cap ? s->raw_cap : 4096;
	char *p;

	if (r->failed)
		return false;
	if (r->len + more <= s->raw_cap)
		return true;
	while (cap < r->len + more)
		cap *= 2;
	p = realloc(s->raw, cap);
	if (!p) {
		r->failed = true;
		return false;
	}
	s->raw = p;
	s->raw_cap = cap;
	return true;
}

/* Text that needs no escape (punctuation, member names from the code). */
static void raw_put(struct raw *r, const char *t, size_t n)
{
	if (!raw_room(r, n))
		return;
	memcpy(r->s->raw + r->len, t, n);
	r->len += n;
}

/* lit: a string literal (its size is taken) */
#define RAW_LIT(r, lit) raw_put(r, "" lit, sizeof(lit) - 1)
/* "\"name\":" and its length, for a string literal name */
#define MEMBER(name) "\"" name "\":", sizeof(name) + 2

static void raw_str(struct raw *r, const char *v)
{
	size_t n = strlen(v);

	if (raw_room(r, 6 * n + 3))
		jw_escape(r->s->raw, &r->len, v, n);
}

static void raw_u64(struct raw *r, uint64_t v)
{
	char d[20];
	size_t k = 0;

	do
		d[sizeof(d) - ++k] = (char)('0' + v % 10);
	while ((v /= 10));
	raw_put(r, d + sizeof(d) - k, k);
}

static void raw_i64(struct raw *r, int64_t v)
{
	if (v < 0)
		RAW_LIT(r, "-");
	raw_u64(r, v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v);
}

static void raw_time(struct raw *r, const char *member, size_t mlen, uint64_t ns, bool *first)
{
	char buf[32];

	if (!ns)
		return;
	format_timestamp(ns, buf);
	if (!*first)
		RAW_LIT(r, ",");
	*first = false;
	raw_put(r, member, mlen);
	raw_str(r, buf);
}

static void raw_strings(struct raw *r, const char *member, size_t mlen, const char *v,
			size_t stride, size_t n)
{
	raw_put(r, member, mlen);
	RAW_LIT(r, "[");
	for (size_t k = 0; k < n; k++) {
		if (k)
			RAW_LIT(r, ",");
		raw_str(r, v + k * stride);
	}
	RAW_LIT(r, "]");
}

/* Adds what r holds as the member key of o (nothing if writing it failed: the record then
 * lacks it, as jw would have failed the document). */
static void raw_add(struct raw *r, struct jw *w, jw_node o, const char *key)
{
	if (!r->failed)
		jw_raw(w, o, key, r->s->raw, r->len);
	r->len = 0;
}

static void stages_to_jw(const struct incident *inc, struct raw *r)
{
	bool first_stage = true;

	RAW_LIT(r, "{");
	for (unsigned i = 0; i < INCIDENT_STAGE__MAX; i++) {
		const struct inc_stage *st = &inc->st[i];
		bool first = true;

		if (!reached(inc, i))
			continue;
		if (!first_stage)
			RAW_LIT(r, ",");
		first_stage = false;
		raw_str(r, incident_stage_to_string(i));
		RAW_LIT(r, ":{");
		raw_time(r, MEMBER("first"), st->first_ns, &first);
		raw_time(r, MEMBER("last"), st->last_ns, &first);
		if (!first)
			RAW_LIT(r, ",");
		RAW_LIT(r, "\"alerts\":");
		raw_u64(r, st->alerts);
		RAW_LIT(r, ",");
		raw_strings(r, MEMBER("alert_ids"), st->ids[0], sizeof(st->ids[0]), st->n_ids);
		RAW_LIT(r, ",");
		raw_strings(r, MEMBER("facts"), st->facts[0], sizeof(st->facts[0]), st->n_facts);
		RAW_LIT(r, "}");
	}
	RAW_LIT(r, "}");
}

static void actors_to_jw(const struct incident *inc, struct raw *r)
{
	RAW_LIT(r, "[");
	for (size_t i = 0; i < inc->n_actors; i++) {
		const struct inc_actor *a = &inc->actors[i];

		if (i)
			RAW_LIT(r, ",");
		RAW_LIT(r, "{\"pid\":");
		raw_i64(r, a->key.pid);
		RAW_LIT(r, ",\"start_boot_ns\":");
		raw_u64(r, a->key.start_boot_ns);
		RAW_LIT(r, ",\"ppid\":");
		raw_i64(r, a->ppid);
		if (a->comm[0]) {
			RAW_LIT(r, ",\"name\":");
			raw_str(r, a->comm);
		}
		if (a->exe[0]) {
			RAW_LIT(r, ",\"executable\":");
			raw_str(r, a->exe);
		}
		RAW_LIT(r, ",\"alerts\":");
		raw_u64(r, a->alerts);
		RAW_LIT(r, "}");
	}
	RAW_LIT(r, "]");
}

static void rules_to_jw(const struct incident *inc, struct raw *r)
{
	RAW_LIT(r, "[");
	for (size_t i = 0; i < inc->n_rules; i++) {
		const struct inc_rule *x = &inc->rules[i];

		if (i)
			RAW_LIT(r, ",");
		RAW_LIT(r, "{\"id\":");
		raw_str(r, x->id);
		RAW_LIT(r, ",\"alerts\":");
		raw_u64(r, x->alerts);
		RAW_LIT(r, ",\"count\":");
		raw_u64(r, x->count);
		RAW_LIT(r, ",\"severity\":");
		raw_str(r, severity_to_string(x->severity));
		RAW_LIT(r, "}");
	}
	RAW_LIT(r, "]");
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
	uint64_t ts = !action			      ? inc->last_ns
		      : strcmp(action, "opened") == 0 ? inc->first_ns
		      : strcmp(action, "closed") == 0 ? inc->closed_ns
						      : inc->last_ns;
	const char *act = !action			   ? "incident_state"
			  : strcmp(action, "opened") == 0  ? "incident_opened"
			  : strcmp(action, "updated") == 0 ? "incident_updated"
			  : strcmp(action, "closed") == 0  ? "incident_closed"
							   : NULL;
	char summary[512], rid[INCIDENT_RECORD_ID_LEN], abuf[32];
	struct raw r = {.s = inc->store};
	jw_node o, e;

	incident_summary(inc, summary, sizeof(summary));
	incident_record_id(inc, rid);
	if (!act) {
		snprintf(abuf, sizeof(abuf), "incident_%s", action);
		act = abuf;
	}
	jw_time(w, JW_ROOT, "@timestamp", ts);
	e = jw_object(w, JW_ROOT, "event");
	jw_string(w, e, "kind", "state");
	jw_string(w, e, "dataset", "rdmaguard.incident");
	jw_string(w, e, "action", act);
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
	stages_to_jw(inc, &r);
	raw_add(&r, w, o, "stages");
	rules_to_jw(inc, &r);
	raw_add(&r, w, o, "rules");
	if (inc->rules_dropped)
		jw_uint(w, o, "rules_dropped", inc->rules_dropped);
	actors_to_jw(inc, &r);
	raw_add(&r, w, o, "actors");
	if (inc->actors_dropped)
		jw_uint(w, o, "actors_dropped", inc->actors_dropped);
	if (!inc->open && inc->close_reason)
		jw_string(w, o, "close_reason", inc->close_reason);
	jw_uint(w, o, "records", inc->records);
	jw_uint(w, o, "log_kept", inc->n_log);
	if (inc->log_dropped)
		jw_uint(w, o, "log_dropped", inc->log_dropped);
	ecs_to_jw(inc, w);
}
