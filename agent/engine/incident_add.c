/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What an alert adds to its incident (incident.h): its rule, its process among the actors, the
 * evidence of its stage, the records "opened" and "updated", and the kept copies of the alert
 * and its raw event (the log: blocks filled in turn, within the incident's and the store's
 * budgets; the oldest closed incidents are forgotten first).
 */
#include <stdlib.h>
#include <string.h>

#include "incident-internal.h"
#include "common/macro.h"
#include "common/strutil.h"
#include "proctree/proctree.h"

/* Room for size bytes (16-byte aligned) in inc's log blocks; NULL if none could be had. */
static unsigned char *log_room(struct incident *inc, size_t size)
{
	struct inc_log_block *b = inc->blocks;
	unsigned char *p;

	size = (size + 15) & ~(size_t)15;
	if (!b || b->size - b->used < size) {
		size_t bs = MAX(size, (size_t)INC_LOG_BLOCK);

		b = malloc(sizeof(*b) + bs);
		if (!b)
			return NULL;
		b->used = 0;
		b->size = bs;
		b->next = inc->blocks;
		inc->blocks = b;
	}
	p = b->data + b->used;
	b->used += size;
	return p;
}

/* Keeps a copy of one log entry (len bytes), within the incident's and the store's budgets. */
static void log_add(struct incident_store *s, struct incident *inc, uint8_t kind, const void *data,
		    size_t len)
{
	struct inc_log *l;
	unsigned char *copy;

	if (!data || !len)
		return;
	if (inc->n_log >= s->cfg.max_log_records || inc->log_bytes + len > s->cfg.max_log_bytes) {
		inc->log_dropped++;
		s->st.log_dropped++;
		return;
	}
	while (s->log_total + len > s->cfg.max_log_total && s->n_closed)
		incident_forget_oldest_closed(s);
	if (s->log_total + len > s->cfg.max_log_total) {
		inc->log_dropped++;
		s->st.log_dropped++;
		return;
	}
	if (inc->n_log == inc->log_cap) {
		size_t cap = inc->log_cap ? inc->log_cap * 2 : 16;

		l = realloc(inc->log, cap * sizeof(*l));
		if (!l)
			goto fail;
		inc->log = l;
		inc->log_cap = cap;
	}
	copy = log_room(inc, len + 1);
	if (!copy)
		goto fail;
	memcpy(copy, data, len);
	copy[len] = 0;
	inc->log[inc->n_log++] = (struct inc_log){.kind = kind, .len = (uint32_t)len, .data = copy};
	inc->log_bytes += len;
	s->log_total += len;
	return;
fail:
	inc->log_dropped++;
	s->st.log_dropped++;
}

static void add_rule(struct incident *inc, const struct incident_alert *a)
{
	size_t i;

	for (i = 0; i < inc->n_rules; i++)
		if (strcmp(inc->rules[i].id, a->rule_id) == 0)
			break;
	if (i == inc->n_rules) {
		if (i == INC_MAX_RULES) {
			inc->rules_dropped++;
			return;
		}
		inc->rules[i] = (struct inc_rule){.severity = -1};
		strscpy_ok(inc->rules[i].id, a->rule_id, sizeof(inc->rules[i].id));
		inc->n_rules++;
	}
	inc->rules[i].alerts++;
	inc->rules[i].count += a->count;
	inc->rules[i].severity = MAX(inc->rules[i].severity, a->severity);
}

static void add_actor(struct incident *inc, const struct proc_node *n)
{
	size_t i;

	for (i = 0; i < inc->n_actors; i++)
		if (inc->actors[i].key.pid == n->pid &&
		    inc->actors[i].key.start_boot_ns == n->start_boot_ns) {
			inc->actors[i].alerts++;
			return;
		}
	if (i == INC_MAX_ACTORS) {
		inc->actors_dropped++;
		return;
	}
	inc->actors[i] = (struct inc_actor){
	    .key = PROC_KEY(n->pid, n->start_boot_ns), .ppid = n->ppid, .alerts = 1};
	strscpy_ok(inc->actors[i].comm, n->comm, sizeof(inc->actors[i].comm));
	if (n->flags & PROC_F_EXEC_KNOWN) {
		size_t len = strlen(n->exe);

		strscpy_ok(inc->actors[i].exe,
			   n->exe + (len >= sizeof(inc->actors[i].exe)
					 ? len - sizeof(inc->actors[i].exe) + 1
					 : 0),
			   sizeof(inc->actors[i].exe));
	}
	inc->n_actors++;
}

/*
 * Evidence of stage for the alert; true if the stage is new to the incident. weak: the target
 * stage shown by the game running only (its one fact the game's name).
 */
static bool add_stage(struct incident_store *s, struct incident *inc, unsigned stage,
		      struct cond_ctx *ctx, const struct incident_alert *a, bool weak)
{
	struct inc_stage *st = &inc->st[stage];
	bool fresh = !(inc->stages & (1u << stage));
	uint64_t ts = ctx->ev->ts;

	if (fresh)
		st->first_ns = ts;
	st->last_ns = MAX(st->last_ns, ts);
	st->alerts++;
	for (size_t i = 0; i < st->n_ids; i++)
		if (strcmp(st->ids[i], a->uuid) == 0)
			goto facts;
	if (st->n_ids < INC_MAX_STAGE_ALERTS)
		strscpy_ok(st->ids[st->n_ids++], a->uuid, INC_UUID_LEN);
facts:
	if (weak)
		incident_add_game_fact(inc, ctx);
	else
		incident_add_facts(s, inc, stage, ctx);
	inc->stages |= 1u << stage;
	return fresh;
}

void incident_add_alert(struct incident_store *s, const char *id, struct cond_ctx *ctx,
			const struct incident_alert *a, incident_record_fn rec, void *ud)
{
	struct incident *inc = s->last;
	int stage = incident_alert_stage(s, a->rule_id, ctx), sev;
	bool fresh = false, strong;

	if (!inc || strcmp(inc->id, id) != 0)
		inc = (struct incident *)incident_store_find(s, id);
	if (!inc)
		return;
	sev = incident_severity(inc);
	strong = inc->target_op[0] || inc->library[0];
	inc->alerts++;
	inc->matches += a->count;
	inc->max_alert_severity = MAX(inc->max_alert_severity, a->severity);
	inc->last_ns = MAX(inc->last_ns, MAX(a->last_ns, ctx->ev->ts));
	add_rule(inc, a);
	if (inc->kind == INCIDENT_KIND_ACTOR && ctx->proc)
		add_actor(inc, ctx->proc);
	if (stage >= 0 && stage < INCIDENT_STAGE__MAX)
		fresh = add_stage(s, inc, (unsigned)stage, ctx, a, false);
	/* The game running is the target stage's weakest evidence (docs/incidents.md). */
	if (stage != INCIDENT_STAGE_NONE && ctx->game_running && stage != INCIDENT_STAGE_TARGET) {
		inc->during_game = true;
		fresh |= add_stage(s, inc, INCIDENT_STAGE_TARGET, ctx, a, true);
	} else if (ctx->game_running)
		inc->during_game = true;
	log_add(s, inc, INCIDENT_LOG_ALERT, a->json, a->len);
	log_add(s, inc, INCIDENT_LOG_EVENT, a->event, a->event ? sizeof(*a->event) : 0);
	if (!inc->records) {
		inc->records++;
		if (rec)
			rec(inc, "opened", ud);
	} else if (fresh || incident_severity(inc) != sev ||
		   strong != (inc->target_op[0] || inc->library[0])) {
		/* a new stage, a new severity, or the game's memory read after the game only ran */
		inc->records++;
		s->st.updated++;
		if (rec)
			rec(inc, "updated", ud);
	}
}
