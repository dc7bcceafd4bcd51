/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Repeats (engine.h): a rule's first match for a process and object is an alert at once; the
 * next ones within the window are counted in a fixed table (hash chains over agg_cap entries,
 * those in use first) and summed up in one alert when the window ends, the table is full, or
 * the engine is flushed or reloaded.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "engine-internal.h"
#include "common/macro.h"

static uint32_t agg_bucket(const struct rg_engine *e, uint64_t key)
{
	return (uint32_t)(key ^ (key >> 29)) & e->agg_mask;
}

static struct agg *agg_find(struct rg_engine *e, uint64_t key)
{
	int32_t i;

	for (i = e->agg_buckets[agg_bucket(e, key)]; i >= 0; i = e->aggs[i].next)
		if (e->aggs[i].key == key)
			return &e->aggs[i];
	return NULL;
}

static void agg_remove(struct rg_engine *e, struct agg *a)
{
	int32_t *p = &e->agg_buckets[agg_bucket(e, a->key)], idx = (int32_t)(a - e->aggs);

	while (*p >= 0) {
		if (*p == idx) {
			*p = a->next;
			break;
		}
		p = &e->aggs[*p].next;
	}
	a->key = 0;
	/* Swap it with the last entry in use, which then ends the free part. */
	e->agg_used--;
	e->agg_order[a->live] = e->agg_order[e->agg_used];
	e->aggs[e->agg_order[a->live]].live = a->live;
	e->agg_order[e->agg_used] = idx;
	a->live = (int32_t)e->agg_used;
}

static void flush_one(struct rg_engine *e, struct agg *a, engine_emit_fn emit, void *ud)
{
	struct cond_ctx ctx;
	struct proc_node *n = NULL;

	if (!a->pending)
		return;
	if (a->last.proc.pid)
		n = proctree_find(e->tree, PROC_KEY(a->last.proc.pid, a->last.proc.start_boot_ns));
	engine_ctx_init(e, &a->last, n, &ctx);
	ctx.game = a->has_game ? &a->game : NULL;
	ctx.game_running = a->game_running;
	ctx.game_ended_ns = a->game_ended_ns;
	e->st.agg_pending -= a->pending;
	engine_emit_alert(e, &e->erules[a->rule], &ctx, a->severity, a->pending, a->first_ns,
			  a->last_ns, emit, ud);
	a->pending = 0;
	a->severity = 0;
}

static int cmp_agg(const void *x, const void *y, void *ud)
{
	const struct rg_engine *e = ud;
	const struct agg *a = &e->aggs[*(const int32_t *)x], *b = &e->aggs[*(const int32_t *)y];

	if (a->window_end != b->window_end)
		return a->window_end < b->window_end ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

void engine_agg_expire(struct rg_engine *e, uint64_t now, bool force, engine_emit_fn emit,
		       void *ud)
{
	size_t i, n = 0;

	if (!force && now < e->next_deadline)
		return;
	for (i = 0; i < e->agg_used; i++)
		if (force || e->aggs[e->agg_order[i]].window_end <= now)
			e->agg_scratch[n++] = e->agg_order[i];
	qsort_r(e->agg_scratch, n, sizeof(*e->agg_scratch), cmp_agg, e);
	for (i = 0; i < n; i++) {
		struct agg *a = &e->aggs[e->agg_scratch[i]];
		bool had = a->pending > 0;

		flush_one(e, a, emit, ud);
		if (had && !force) {
			uint64_t w = e->erules[a->rule].window_ns;
			a->window_end = MAX(a->window_end + w, now + 1);
		} else
			agg_remove(e, a);
	}
	e->next_deadline = UINT64_MAX;
	for (i = 0; i < e->agg_used; i++)
		e->next_deadline = MIN(e->next_deadline, e->aggs[e->agg_order[i]].window_end);
}

static struct agg *agg_new(struct rg_engine *e, uint64_t key, engine_emit_fn emit, void *ud)
{
	struct agg *a = NULL;
	uint32_t b;
	size_t i;

	if (e->agg_used == e->agg_cap) {
		/* Full: flush the entry closest to the end of its window. */
		struct agg *victim = NULL;

		for (i = 0; i < e->agg_cap; i++)
			if (!victim || e->aggs[i].window_end < victim->window_end)
				victim = &e->aggs[i];
		flush_one(e, victim, emit, ud);
		agg_remove(e, victim);
		e->st.agg_evicted++;
	}
	if (e->agg_used == e->agg_cap)
		return NULL;
	a = &e->aggs[e->agg_order[e->agg_used]];
	memset(a, 0, offsetof(struct agg, last));
	a->key = key;
	a->live = (int32_t)e->agg_used;
	a->seq = ++e->agg_seq;
	b = agg_bucket(e, key);
	a->next = e->agg_buckets[b];
	e->agg_buckets[b] = (int32_t)(a - e->aggs);
	e->agg_used++;
	return a;
}

static uint64_t agg_key(struct rg_engine *e, size_t ri, struct cond_ctx *ctx)
{
	const struct rg_rule *rule = e->erules[ri].rule;
	uint64_t h = 1469598103934665603ull;
	uint64_t v[3] = {ri, 0, 0};
	unsigned char *p = (unsigned char *)v;
	size_t i;

	if (ctx->proc) {
		v[1] = ctx->proc->pid;
		v[2] = ctx->proc->start_boot_ns;
	}
	for (i = 0; i < sizeof(v); i++) {
		h ^= p[i];
		h *= 1099511628211ull;
	}
	for (i = 0; i < rule->n_agg_by; i++)
		h = field_ref_hash(rule->agg_by[i], ctx, h);
	return h ? h : 1;
}

void engine_rule_fired(struct rg_engine *e, size_t ri, struct cond_ctx *ctx, int sev,
		       engine_emit_fn emit, void *ud)
{
	struct erule *er = &e->erules[ri];
	uint64_t ts = ctx->ev->ts, key;
	struct agg *a;

	er->matches++;
	e->st.matches++;
	if (!er->rule->aggregate || er->window_ns == 0) {
		engine_emit_alert(e, er, ctx, sev, 1, ts, ts, emit, ud);
		return;
	}
	key = agg_key(e, ri, ctx);
	a = agg_find(e, key);
	if (a && a->rule == ri) {
		if (!a->pending)
			a->first_ns = ts;
		a->last_ns = ts;
		a->pending++;
		if (sev > a->severity)
			a->severity = sev;
		a->last = *ctx->ev;
		a->has_game = ctx->game != NULL;
		if (ctx->game)
			a->game = *ctx->game;
		a->game_running = ctx->game_running;
		a->game_ended_ns = ctx->game_ended_ns;
		e->st.agg_pending++;
		return;
	}
	engine_emit_alert(e, er, ctx, sev, 1, ts, ts, emit, ud);
	a = agg_new(e, key, emit, ud);
	if (!a)
		return; /* cannot happen: agg_new always frees a slot */
	a->rule = (uint32_t)ri;
	a->window_end = (ts ? ts : e->now) + er->window_ns;
	if (a->window_end < e->next_deadline)
		e->next_deadline = a->window_end;
}
