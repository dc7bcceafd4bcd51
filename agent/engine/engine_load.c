/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Policy and rules for an engine: checking that they fit together, loading both as every
 * command does, the per-rule view the engine evaluates (a rule with its policy override) and
 * the AGENT_POLICY event that reports a (re)load.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine-internal.h"
#include "common/macro.h"

int engine_check(const struct rg_policy *policy, const struct rg_ruleset *rules,
		 struct rg_error *err)
{
	size_t i, j;

	for (i = 0; i < policy->n_overrides; i++) {
		const struct rg_rule_override *ov = &policy->overrides[i];

		if (!ruleset_find(rules, ov->rule_id))
			return rg_error_set(err, policy->path ? policy->path : "policy", ov->line,
					    ov->column, "\"rules\" overrides unknown rule \"%s\"",
					    ov->rule_id);
		for (j = 0; j < i; j++)
			if (strcmp(policy->overrides[j].rule_id, ov->rule_id) == 0)
				return rg_error_set(err, policy->path ? policy->path : "policy",
						    ov->line, ov->column,
						    "rule \"%s\" is overridden twice", ov->rule_id);
	}
	return 0;
}

int engine_load_config(const char *policy_path, bool check_owner, const char *rules_dir,
		       policy_output_check_fn check_outputs, struct rg_policy **ret_policy,
		       struct rg_ruleset **ret_rules, struct rg_error *err)
{
	struct rg_policy *p = NULL;
	struct rg_ruleset *rs = NULL;
	int r;

	if (policy_path)
		r = policy_load(policy_path, check_owner, &p, err);
	else
		r = policy_new_default(&p);
	if (r >= 0 && check_outputs)
		r = policy_check_outputs(p, check_outputs, err);
	if (r < 0) {
		policy_free(p);
		return r;
	}
	r = rules_load_dir(rules_dir ? rules_dir : rules_default_dir(), check_owner, &rs, err);
	if (r < 0) {
		policy_free(p);
		return r;
	}
	r = engine_check(p, rs, err);
	if (r < 0) {
		policy_free(p);
		ruleset_free(rs);
		return r;
	}
	*ret_policy = p;
	*ret_rules = rs;
	return 0;
}

/* er ends with an entry of no rule. */
void engine_erules_free(struct erule *er)
{
	for (struct erule *p = er; p && p->rule; p++)
		free(p->json);
	free(er);
}

int engine_erules_build(const struct rg_policy *policy, const struct rg_ruleset *rules,
			struct jw *w, struct erule **ret, uint32_t **ret_idx,
			uint32_t start[RG_EV__MAX + 1])
{
	struct erule *er = calloc(rules->n + 1, sizeof(*er));
	uint32_t *idx = calloc(rules->n * RG_EV__MAX + 1, sizeof(*idx)), n = 0;
	size_t i, j, t;

	if (!er || !idx) {
		free(er);
		free(idx);
		return -ENOMEM;
	}
	for (i = 0; i < rules->n; i++) {
		const struct rg_rule *rule = &rules->rules[i];

		er[i].rule = rule;
		er[i].enabled = rule->enabled;
		er[i].action = rule->action;
		er[i].window_ns = rule->window_ns ? rule->window_ns : policy->aggregate_window_ns;
		for (j = 0; j < policy->n_overrides; j++)
			if (strcmp(policy->overrides[j].rule_id, rule->id) == 0)
				er[i].ov = &policy->overrides[j];
		if (er[i].ov && er[i].ov->enabled >= 0)
			er[i].enabled = er[i].ov->enabled;
		if (er[i].ov && er[i].ov->action >= 0)
			er[i].action = er[i].ov->action;
		if (engine_erule_render(&er[i], w) < 0) {
			engine_erules_free(er);
			free(idx);
			return -ENOMEM;
		}
	}
	/* A rule matches only where its condition holds, so only those of the event's type. */
	for (t = 0; t < RG_EV__MAX; t++) {
		start[t] = n;
		for (i = 0; i < rules->n; i++)
			if (er[i].enabled && (cond_type_mask(rules->rules[i].cond) & RG_EV_BIT(t)))
				idx[n++] = (uint32_t)i;
	}
	start[RG_EV__MAX] = n;
	*ret = er;
	*ret_idx = idx;
	return 0;
}

void engine_policy_event(struct rg_event *ev, uint64_t ts, bool ok, int error, const char *file,
			 const char *text)
{
	memset(ev, 0, sizeof(*ev));
	ev->type = RG_EV_AGENT_POLICY;
	ev->provider = RG_PROV_AGENT;
	ev->ts = ts;
	ev->proc.pid = ev->proc.tid = (uint32_t)getpid();
	event_set_str(ev->proc.comm, sizeof(ev->proc.comm), "rdmaguard", 9);
	ev->u.agent.ok = ok;
	ev->u.agent.error = ok ? 0 : error;
	if (file)
		event_set_str(ev->u.agent.what, sizeof(ev->u.agent.what), file, strlen(file));
	if (text)
		event_set_str(ev->u.agent.text, sizeof(ev->u.agent.text), text, strlen(text));
}
