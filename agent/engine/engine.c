/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The engine (engine.h): creation and reload, the path of an event (state, then the rules that
 * can match its type, then each match's alert or repeat), ticks and flushes, and the accessors.
 * The other engine_*.c files hold the parts (engine-internal.h lists them).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine-internal.h"
#include "common/macro.h"
#include "common/root.h"
#include "common/strutil.h"

/* What conditions read of the policy (policy.* fields). */
static void env_set_policy(struct cond_env *env, const struct rg_policy *policy)
{
	env->role = policy->role == RG_ROLE_SERVER ? "server" : "managed";
	env->mr_max_bytes = policy->mr_max_bytes;
	env->require_iommu = policy->require_iommu;
}

/* pci.allowed (struct cond_env's pci_allowed; ud is the engine). */
static bool engine_pci_allowed(void *ud, const struct rg_ev_pci *fn, uint64_t ts)
{
	const struct rg_engine *e = ud;

	return policy_hw_allowed(e->policy, fn, ts);
}

static int rule_severity(const struct erule *er, struct cond_ctx *ctx)
{
	const struct rg_rule *rule = er->rule;
	size_t i;

	if (er->ov && er->ov->severity >= 0)
		return er->ov->severity;
	for (i = 0; i < rule->n_sev_when; i++)
		if (cond_eval(rule->sev_when[i].cond, ctx))
			return rule->sev_when[i].severity;
	return rule->severity;
}

static bool rule_matches(const struct erule *er, struct cond_ctx *ctx)
{
	const struct rg_rule *rule = er->rule;
	size_t i;

	if (!cond_eval(rule->cond, ctx))
		return false;
	for (i = 0; i < rule->n_exceptions; i++)
		if (cond_eval(rule->exceptions[i], ctx))
			return false;
	for (i = 0; er->ov && i < er->ov->n_exceptions; i++)
		if (cond_eval(er->ov->exceptions[i], ctx))
			return false;
	return true;
}

int engine_process(struct rg_engine *e, const struct rg_event *ev, engine_emit_fn emit, void *ud)
{
	struct proc_node *n;
	struct cond_ctx ctx;
	size_t i, lo = 0, hi = 0;
	int r;

	e->emit_err = 0;
	e->st.events++;
	if (ev->type < RG_EV__MAX)
		e->st.events_by_type[ev->type]++;
	if (ev->ts > e->now)
		e->now = ev->ts;
	engine_agg_expire(e, e->now, false, emit, ud);
	engine_incident_expire(e, e->now);
	n = proctree_update(e->tree, ev);
	engine_update_state(e, ev, n);
	engine_ctx_init(e, ev, n, &ctx);
	if (ev->type < RG_EV__MAX) {
		lo = e->rule_start[ev->type];
		hi = e->rule_start[ev->type + 1];
	}
	for (i = lo; i < hi; i++) {
		uint32_t ri = e->rule_idx[i];

		if (!rule_matches(&e->erules[ri], &ctx))
			continue;
		ctx.cur = ctx.proc;
		engine_rule_fired(e, ri, &ctx, rule_severity(&e->erules[ri], &ctx), emit, ud);
	}
	r = e->emit_err;
	e->emit_err = 0;
	return r;
}

int engine_tick(struct rg_engine *e, uint64_t now_ns, engine_emit_fn emit, void *ud)
{
	int r;

	e->emit_err = 0;
	if (now_ns > e->now)
		e->now = now_ns;
	engine_agg_expire(e, now_ns, false, emit, ud);
	engine_incident_expire(e, now_ns);
	r = e->emit_err;
	e->emit_err = 0;
	return r;
}

int engine_flush(struct rg_engine *e, engine_emit_fn emit, void *ud)
{
	int r;

	e->emit_err = 0;
	engine_agg_expire(e, e->now, true, emit, ud);
	r = e->emit_err;
	e->emit_err = 0;
	return r;
}

/* Creation, reload. */

static void read_boot_id(char *buf, size_t size)
{
	_cleanup_close_ int fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);
	_cleanup_free_ char *s = NULL;

	buf[0] = 0;
	if (fd < 0 || read_fd_bounded(fd, 64, &s, NULL, NULL) < 0)
		return;
	strscpy_ok(buf, strstrip(s), size);
}

void engine_free(struct rg_engine *e)
{
	if (!e)
		return;
	hasher_free(e->hasher);
	incident_store_free(e->incidents);
	jw_free(e->ijw);
	proctree_free(e->tree);
	policy_free(e->policy);
	ruleset_free(e->rules);
	engine_erules_free(e->erules);
	free(e->rule_idx);
	free(e->games);
	free(e->aggs);
	free(e->agg_buckets);
	free(e->agg_scratch);
	free(e->agg_order);
	EVP_MD_CTX_free(e->md_ctx);
	free(e->host_json);
	free(e->agent_version);
	jw_free(e->jw);
	EVP_MD_free(e->sha256);
	free(e);
}

int engine_new(struct rg_policy *policy, struct rg_ruleset *rules, const struct engine_config *cfg,
	       struct rg_engine **ret, struct rg_error *err)
{
	struct rg_engine *e;
	size_t nb = 16, i;
	int r;

	r = engine_check(policy, rules, err);
	if (r < 0)
		return r;
	e = calloc(1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	if (cfg)
		e->cfg = *cfg;
	e->agg_cap = e->cfg.agg_capacity ? e->cfg.agg_capacity : ENGINE_DEFAULT_AGG_CAPACITY;
	if (e->agg_cap > ENGINE_MAX_AGG_CAPACITY) {
		free(e);
		return rg_error_set(err, NULL, 0, 0, "aggregation capacity too large");
	}
	r = proctree_new(e->cfg.proc_capacity, &e->tree);
	if (r < 0) {
		free(e);
		return r == -EINVAL ? rg_error_set(err, NULL, 0, 0, "invalid process capacity") : r;
	}
	proctree_set_exit_hook(e->tree, engine_game_exit_hook, e);
	if (e->cfg.hash_live && !e->cfg.hash_exe) {
		r = hasher_new(e->cfg.hash_async, ENGINE_HASH_MAX_BYTES, &e->hasher);
		if (r < 0) {
			proctree_free(e->tree);
			free(e);
			return r;
		}
	}
	while (nb < e->agg_cap)
		nb <<= 1;
	e->aggs = calloc(e->agg_cap, sizeof(*e->aggs));
	e->agg_buckets = malloc(nb * sizeof(*e->agg_buckets));
	e->agg_scratch = calloc(e->agg_cap, sizeof(*e->agg_scratch));
	e->agg_order = calloc(e->agg_cap, sizeof(*e->agg_order));
	e->jw = jw_new();
	e->games = calloc(policy->n_games ? policy->n_games : 1, sizeof(*e->games));
	if (!e->aggs || !e->agg_buckets || !e->agg_scratch || !e->agg_order || !e->jw ||
	    !e->games ||
	    engine_erules_build(policy, rules, e->jw, &e->erules, &e->rule_idx, e->rule_start) < 0) {
		e->policy = NULL;
		e->rules = NULL;
		engine_free(e);
		return -ENOMEM;
	}
	memset(e->agg_buckets, 0xff, nb * sizeof(*e->agg_buckets));
	for (i = 0; i < e->agg_cap; i++)
		e->agg_order[i] = (int32_t)i;
	e->agg_mask = (uint32_t)nb - 1;
	e->next_deadline = UINT64_MAX;
	e->n_games = policy->n_games;
	engine_games_init(e->games, policy);
	e->st.max_severity = -1;
	if (e->cfg.hostname)
		strscpy_ok(e->hostname, e->cfg.hostname, sizeof(e->hostname));
	else if (gethostname(e->hostname, sizeof(e->hostname) - 1) < 0)
		strcpy(e->hostname, "localhost");
	if (e->cfg.boot_id)
		strscpy_ok(e->boot_id, e->cfg.boot_id, sizeof(e->boot_id));
	else
		read_boot_id(e->boot_id, sizeof(e->boot_id));
	e->cfg.hostname = NULL;
	e->cfg.boot_id = NULL;
	e->env.boot_realtime_ns = e->cfg.boot_realtime_ns;
	e->env.proc_allowed = engine_proc_allowed;
	e->env.pci_allowed = engine_pci_allowed;
	e->env.ud = e;
	env_set_policy(&e->env, policy);
	e->sha256 = EVP_MD_fetch(NULL, "SHA256", NULL);
	e->md_ctx = e->sha256 ? EVP_MD_CTX_new() : NULL;
	e->policy = policy;
	e->rules = rules;
	r = engine_incidents_new(e);
	if (r < 0) {
		engine_free(e);
		return r == -EINVAL ? rg_error_set(err, NULL, 0, 0, "invalid incident capacity") : r;
	}
	*ret = e;
	return 0;
}

int engine_reload(struct rg_engine *e, struct rg_policy *policy, struct rg_ruleset *rules,
		  engine_emit_fn emit, void *ud, struct rg_error *err)
{
	struct game_session *games;
	struct erule *er;
	uint32_t *idx, start[RG_EV__MAX + 1];
	int r;

	r = engine_check(policy, rules, err);
	if (r < 0)
		return r;
	games = calloc(policy->n_games ? policy->n_games : 1, sizeof(*games));
	if (!games || engine_erules_build(policy, rules, e->jw, &er, &idx, start) < 0) {
		free(games);
		return -ENOMEM;
	}
	/* The old rules' pending repeats go out under the old rules. */
	e->emit_err = 0;
	engine_agg_expire(e, e->now, true, emit, ud);
	r = e->emit_err;
	e->emit_err = 0;

	policy_free(e->policy);
	ruleset_free(e->rules);
	engine_erules_free(e->erules);
	free(e->rule_idx);
	free(e->games);
	e->policy = policy;
	e->rules = rules;
	e->erules = er;
	e->rule_idx = idx;
	memcpy(e->rule_start, start, sizeof(start));
	e->games = games;
	e->n_games = policy->n_games;
	engine_games_init(e->games, policy);
	env_set_policy(&e->env, policy);
	engine_games_resync(e);
	if (e->incidents)
		incident_store_set_seat(e->incidents, policy->seat);
	return r;
}

const struct rg_policy *engine_policy(const struct rg_engine *e)
{
	return e->policy;
}

const struct rg_ruleset *engine_rules(const struct rg_engine *e)
{
	return e->rules;
}

struct proctree *engine_proctree(struct rg_engine *e)
{
	return e->tree;
}

int engine_hash_fd(const struct rg_engine *e)
{
	return e->hasher ? hasher_fd(e->hasher) : -1;
}

void engine_hash_done(struct rg_engine *e)
{
	if (e->hasher && hasher_drain(e->hasher))
		engine_games_rehash(e);
}

void engine_get_stats(const struct rg_engine *e, struct engine_stats *ret)
{
	*ret = e->st;
	ret->games_running = 0;
	for (size_t i = 0; i < e->n_games; i++)
		ret->games_running += e->games[i].running;
	proctree_get_stats(e->tree, &ret->proc);
	memset(&ret->incidents, 0, sizeof(ret->incidents));
	if (e->incidents)
		incident_store_stats(e->incidents, &ret->incidents);
	memset(&ret->hash, 0, sizeof(ret->hash));
	if (e->hasher)
		hasher_get_stats(e->hasher, &ret->hash);
}

int engine_rule_effective(const struct rg_engine *e, size_t i, bool *enabled, int *action)
{
	if (i >= e->rules->n)
		return -ENOENT;
	*enabled = e->erules[i].enabled;
	*action = e->erules[i].action;
	return 0;
}

void engine_rule_stats(const struct rg_engine *e, size_t i, uint64_t *alerts, uint64_t *matches)
{
	*alerts = i < e->rules->n ? e->erules[i].alerts : 0;
	*matches = i < e->rules->n ? e->erules[i].matches : 0;
}

uint64_t engine_rule_alerts_at(const struct rg_engine *e, size_t i, int severity)
{
	if (i >= e->rules->n || severity < 0 || severity >= RG_SEV__MAX)
		return 0;
	return e->erules[i].alerts_by_severity[severity];
}


int engine_set_identity(struct rg_engine *e, const char *host_json, const char *agent_version)
{
	char *h = host_json ? strdup(host_json) : NULL, *v = agent_version ? strdup(agent_version) : NULL;

	if ((host_json && !h) || (agent_version && !v)) {
		free(h);
		free(v);
		return -ENOMEM;
	}
	free(e->host_json);
	free(e->agent_version);
	e->host_json = h;
	e->host_json_len = h ? strlen(h) : 0;
	e->agent_version = v;
	return 0;
}
