/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Alerts: the JSON document of an alert (rules/schema/alert.schema.json) written into the
 * engine's one reused writer with the event's names, then mapped to ECS's (event/ecs_map.h), the rule's part of it rendered once per rule, the message, and
 * the entity ids that name processes across alerts (sha256 of boot id, pid and start time).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "engine-internal.h"
#include "common/clock.h"
#include "common/hex.h"
#include "common/log.h"
#include "common/macro.h"
#include "common/timestamp.h"
#include "common/uuid.h"
#include "event/ecs_map.h"
#include "event/event_json.h"

void engine_entity_id(struct rg_engine *e, struct proc_key key, char out[static 33])
{
	uint32_t pid = key.pid;
	uint64_t start_boot_ns = key.start_boot_ns;
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;
	char buf[160];
	int n;
	uint64_t h =
	    ((uint64_t)pid * 0x9e3779b97f4a7c15ull) ^ (start_boot_ns * 0xc2b2ae3d27d4eb4full);
	size_t slot = (size_t)(h >> 56) & (ENTITY_CACHE_SIZE - 1);

	if (e->idcache[slot].id[0] && e->idcache[slot].pid == pid &&
	    e->idcache[slot].start_boot_ns == start_boot_ns) {
		memcpy(out, e->idcache[slot].id, 33);
		return;
	}
	n = snprintf(buf, sizeof(buf), "%s:%u:%" PRIu64, e->boot_id, pid, start_boot_ns);
	if (e->md_ctx ? EVP_DigestInit_ex2(e->md_ctx, e->sha256, NULL) == 1 &&
				EVP_DigestUpdate(e->md_ctx, buf, (size_t)n) == 1 &&
				EVP_DigestFinal_ex(e->md_ctx, md, &mdlen) == 1
		      : EVP_Digest(buf, (size_t)n, md, &mdlen, EVP_sha256(), NULL) == 1) {
		if (mdlen >= 16) {
			hex_encode(md, 16, out);
			e->idcache[slot].pid = pid;
			e->idcache[slot].start_boot_ns = start_boot_ns;
			memcpy(e->idcache[slot].id, out, 33);
			return;
		}
	}
	/* Cannot happen with a working libcrypto; still give something stable. */
	snprintf(out, 33, "%08x%024" PRIx64, pid, start_boot_ns);
}

static void jw_time(struct jw *w, jw_node obj, const char *key, uint64_t ns)
{
	char buf[32];

	format_timestamp(ns, buf);
	jw_string(w, obj, key, buf);
}

/* {pid, name, executable, start_time, entity_id} of a process (ancestors, parent) into o. */
static void proc_brief(struct rg_engine *e, const struct proc_node *n, jw_node o)
{
	uint64_t start = cond_proc_start_time(e->cfg.boot_realtime_ns, n);
	struct jw *w = e->jw;
	char id[33];

	engine_entity_id(e, PROC_KEY(n->pid, n->start_boot_ns), id);
	jw_int(w, o, "pid", n->pid);
	if (n->comm[0])
		jw_string(w, o, "name", n->comm);
	if ((n->flags & PROC_F_EXEC_KNOWN) && n->exe[0])
		jw_string(w, o, "executable", n->exe);
	if (start)
		jw_time(w, o, "start_time", start);
	jw_string(w, o, "entity_id", id);
}

static void set_process(struct rg_engine *e, const struct proc_node *n)
{
	struct proc_node *anc[PROCTREE_MAX_DEPTH], *p;
	uint64_t start = cond_proc_start_time(e->cfg.boot_realtime_ns, n);
	struct jw *w = e->jw;
	jw_node o = jw_object(w, JW_ROOT, "process"), a;
	size_t na, i;
	char id[33];

	engine_entity_id(e, PROC_KEY(n->pid, n->start_boot_ns), id);
	jw_int(w, o, "pid", n->pid);
	if (n->comm[0])
		jw_string(w, o, "name", n->comm);
	if ((n->flags & PROC_F_EXEC_KNOWN) && n->exe[0]) {
		jw_string(w, o, "executable", n->exe);
		jw_string_list(w, o, "args", n->args, MIN(n->args_len, (uint32_t)RG_ARGS_LEN));
	}
	/* a path that is not what the kernel resolved from init's root says so (process flags) */
	if ((n->flags & PROC_F_EXEC_KNOWN) && (n->flags & PROC_F_EXE_TRUNC))
		jw_bool(w, o, "exe_truncated", true);
	if ((n->flags & PROC_F_EXEC_KNOWN) && (n->flags & PROC_F_EXE_FOREIGN))
		jw_bool(w, o, "exe_foreign_root", true);
	if (start)
		jw_time(w, o, "start_time", start);
	if (n->start_boot_ns)
		jw_uint(w, o, "start_boot_ns", n->start_boot_ns);
	jw_string(w, o, "entity_id", id);
	jw_int(w, jw_object(w, o, "user"), "id", n->uid);
	if (n->flags & PROC_F_EXEC_KNOWN && n->sid)
		jw_int(w, jw_object(w, o, "session"), "id", n->sid);
	if ((n->flags & PROC_F_HASHED) && n->sha256[0])
		jw_string(w, jw_object(w, o, "hash"), "sha256", n->sha256);
	if (n->flags & PROC_F_GAME)
		jw_bool(w, o, "is_game", true);
	p = proctree_parent(e->tree, n);
	if (p)
		proc_brief(e, p, jw_new_object(w, o, "parent"));
	else if (n->ppid)
		jw_int(w, jw_object(w, o, "parent"), "pid", n->ppid);
	na = proctree_ancestors(e->tree, n, anc, PROCTREE_MAX_DEPTH);
	a = jw_new_array(w, o, "ancestors");
	for (i = 0; i < na; i++)
		proc_brief(e, anc[i], jw_new_object(w, a, NULL));
}

/* The seat (host.*, agent.*, labels.seat, the policy's hash) and the peer: related.ip and what
 * the peer is to the fleet (docs/seat.md). */
static void set_identity(struct rg_engine *e, const struct rg_event *ev)
{
	const struct rg_policy *p = e->policy;
	struct jw *w = e->jw;
	struct rg_addr peer, local;
	jw_node o;

	engine_identity_to_jw(e, w);
	if (event_peer(ev, &peer, &local)) {
		char buf[64];
		const char *name;
		int c = policy_fleet_classify(p, peer.addr, &name);

		o = jw_new_array(w, jw_object(w, JW_ROOT, "related"), "ip");
		addr_to_string(&peer, buf);
		jw_string(w, o, NULL, buf);
		addr_to_string(&local, buf);
		if (buf[0])
			jw_string(w, o, NULL, buf);
		if (c != RG_PEER_NONE) {
			o = jw_object(w, jw_object(w, JW_ROOT, "rdmaguard"), "peer");
			jw_string(w, o, "class", peer_class_to_string((unsigned)c));
			if (name)
				jw_string(w, o, "name", name);
		}
	}
}

/* An RDMA peer that is no seat and no server (an unmanaged device: the likely cheat box)
 * raises the alert one severity step, up to critical (docs/seat.md). */
static int fleet_severity(const struct rg_engine *e, const struct rg_event *ev, int severity)
{
	struct rg_addr peer, local;

	if (severity < RG_SEV_CRITICAL && event_peer(ev, &peer, &local) &&
	    policy_fleet_classify(e->policy, peer.addr, NULL) == RG_PEER_UNKNOWN)
		return severity + 1;
	return severity;
}

/* Writes node of w's document to the end of er->json. */
static int erule_append(struct erule *er, struct jw *w, jw_node node, uint32_t *len)
{
	const char *text;
	size_t n, have = (size_t)er->rule_len + er->tags_len + er->threat_len;
	char *p;
	int r;

	r = jw_finish_node(w, node, &text, &n);
	if (r < 0)
		return r;
	p = realloc(er->json, have + n + 1);
	if (!p)
		return -ENOMEM;
	memcpy(p + have, text, n + 1);
	er->json = p;
	*len = (uint32_t)n;
	return 0;
}

/* tags and threat, written once for all of a rule's alerts (jw_raw). */
int engine_erule_render(struct erule *er, struct jw *w)
{
	const struct rg_rule *rule = er->rule;
	jw_node r, tags = 0, threat = 0;
	size_t i;
	int ret = 0;

	jw_reset(w);
	/* rule.* is written with each alert (ecs_map_jw() moves rule.action) */
	er->rule_len = 0;
	if (rule->n_tags) {
		tags = jw_new_array(w, JW_ROOT, "tags");
		for (i = 0; i < rule->n_tags; i++)
			jw_string(w, tags, NULL, rule->tags[i]);
	}
	if (rule->threat) {
		threat = jw_object(w, JW_ROOT, "threat");
		jw_string(w, threat, "framework", "MITRE ATT&CK");
		r = jw_object(w, threat, "tactic");
		jw_string(w, r, "id", rule->threat->tactic_id);
		jw_string(w, r, "name", rule->threat->tactic_name);
		r = jw_object(w, threat, "technique");
		jw_string(w, r, "id", rule->threat->technique_id);
		jw_string(w, r, "name", rule->threat->technique_name);
	}
	if (ret == 0 && tags)
		ret = erule_append(er, w, tags, &er->tags_len);
	if (ret == 0 && threat)
		ret = erule_append(er, w, threat, &er->threat_len);
	jw_reset(w);
	return ret;
}

/* Writes the alert into e->jw and fills *ret (uuid: the caller's buffer). 0 or -ENOMEM. */
static int alert_build(struct rg_engine *e, const struct erule *er, struct cond_ctx *ctx,
		       int severity, uint64_t count, uint64_t first_ns, uint64_t last_ns,
		       const char *incident, char uuid[static 37], struct rg_alert *ret)
{
	const struct rg_rule *rule = er->rule;
	const struct rg_event *ev = ctx->ev;
	struct jw *w = e->jw;
	char msg[ENGINE_MESSAGE_MAX];
	const char *outcome = "alert";
	uint64_t ts = last_ns ? last_ns : now_realtime_ns();
	jw_node o;

	if (uuid_v4(uuid) < 0)
		return -ENOMEM;
	if (ev->flags & RG_EVF_KILLED)
		outcome = "killed";
	else if (ev->flags & RG_EVF_DENIED)
		outcome = "denied";
	jw_reset(w);
	event_to_jw(ev, w);
	jw_time(w, JW_ROOT, "@timestamp", ts);
	o = jw_object(w, JW_ROOT, "event");
	jw_string(w, o, "kind", "alert");
	jw_string(w, o, "id", uuid);
	jw_uint(w, o, "sequence", ++e->alert_seq);
	jw_time(w, o, "created", now_realtime_ns());
	if (first_ns)
		jw_time(w, o, "start", first_ns);
	if (last_ns)
		jw_time(w, o, "end", last_ns);
	jw_int(w, o, "severity", severity);
	o = jw_object(w, JW_ROOT, "rule");
	jw_string(w, o, "id", rule->id);
	jw_string(w, o, "name", rule->name);
	if (rule->description)
		jw_string(w, o, "description", rule->description);
	jw_string(w, o, "action", action_to_string(er->action));
	jw_string(w, JW_ROOT, "severity", severity_to_string(severity));
	rule_render_message(rule, ctx, msg, sizeof(msg));
	jw_string(w, JW_ROOT, "message", msg);
	jw_uint(w, JW_ROOT, "count", count);
	jw_string(w, JW_ROOT, "action", outcome);
	set_identity(e, ev);
	if (incident[0])
		jw_string(w, jw_object(w, jw_object(w, JW_ROOT, "rdmaguard"), "incident"), "id",
			  incident);
	if (ctx->proc)
		set_process(e, ctx->proc);
	if (ctx->target) {
		char id[33];

		o = jw_object(w, jw_object(w, JW_ROOT, "target"), "process");
		engine_entity_id(e, PROC_KEY(ctx->target->pid, ctx->target->start_boot_ns), id);
		jw_string(w, o, "entity_id", id);
		if ((ctx->target->flags & PROC_F_EXEC_KNOWN) && ctx->target->exe[0])
			jw_string(w, o, "executable", ctx->target->exe);
		if ((ctx->target->flags & PROC_F_EXEC_KNOWN) &&
		    (ctx->target->flags & PROC_F_EXE_TRUNC))
			jw_bool(w, o, "exe_truncated", true);
		if ((ctx->target->flags & PROC_F_EXEC_KNOWN) &&
		    (ctx->target->flags & PROC_F_EXE_FOREIGN))
			jw_bool(w, o, "exe_foreign_root", true);
		if (ctx->target->flags & PROC_F_GAME)
			jw_bool(w, o, "is_game", true);
	}
	if (ctx->game && ctx->game->game >= 0 && (size_t)ctx->game->game < e->policy->n_games) {
		const struct game_session *g = ctx->game;

		o = jw_object(w, JW_ROOT, "game");
		jw_string(w, o, "name", e->policy->games[g->game].name);
		jw_int(w, o, "pid", g->pid);
		if (g->started_ns)
			jw_time(w, o, "started", g->started_ns);
		jw_bool(w, o, "running", g->running);
		if (!g->running && g->ended_ns)
			jw_time(w, o, "ended", g->ended_ns);
		jw_uint(w, o, "rdma_events", g->rdma_events);
	}
	if (er->tags_len)
		jw_raw(w, JW_ROOT, "tags", er->json + er->rule_len, er->tags_len);
	if (er->threat_len)
		jw_raw(w, JW_ROOT, "threat", er->json + er->rule_len + er->tags_len,
		       er->threat_len);
	/* The document in ECS's names (the event's are the rules' and the recorded events'). */
	ecs_add_event_jw(w, ev->type, ev->flags);
	ecs_map_jw(w);
	*ret = (struct rg_alert){.uuid = uuid,
				 .rule_id = rule->id,
				 .severity = severity,
				 .ts_ns = ts - ts % 1000}; /* as @timestamp says: microseconds */
	return jw_finish(w, &ret->json, &ret->len);
}

void engine_emit_alert(struct rg_engine *e, struct erule *er, struct cond_ctx *ctx, int severity,
		       uint64_t count, uint64_t first_ns, uint64_t last_ns, engine_emit_fn emit,
		       void *ud)
{
	char uuid[37], incident[INCIDENT_ID_LEN] = "";
	struct rg_alert a;
	int r;

	severity = fleet_severity(e, ctx->ev, severity);
	engine_incident_assign(e, er, ctx, incident);
	if (alert_build(e, er, ctx, severity, count, first_ns, last_ns, incident, uuid, &a) < 0) {
		log_oom();
		if (!e->emit_err)
			e->emit_err = -ENOMEM;
		return;
	}
	er->alerts++;
	er->alerts_by_severity[severity]++;
	e->st.alerts++;
	e->st.alerts_by_severity[severity]++;
	if (severity > e->st.max_severity)
		e->st.max_severity = severity;
	r = emit ? emit(&a, ud) : 0;
	if (r < 0 && !e->emit_err)
		e->emit_err = r;
	if (incident[0])
		engine_incident_add(e, incident, ctx, &a, count, first_ns, last_ns);
}
