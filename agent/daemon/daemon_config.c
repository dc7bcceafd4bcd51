/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The daemon's configuration: which policy, the policy and rules loaded and checked (with the
 * seat baseline the policy names), the outputs they give, and the reload on SIGHUP, which keeps
 * the previous set in force when the new one is refused.
 */
#include <errno.h>
#include <unistd.h>

#include "config.h"
#include "control.h"
#include "common/clock.h"
#include "common/log.h"
#include "common/macro.h"
#include "enforce/game_pids.h"
#include "engine/engine.h"
#include "policy/policy.h"
#include "rules/rules.h"
#include "hw/baseline.h"
#include "output/output.h"
#include "proctree/proctree.h"
#include "daemon.h"
#include "daemon-internal.h"
#include "metrics_http.h"

#define DEFAULT_POLICY RG_SYSCONFDIR "/policy.json"

const char *daemon_policy_path(const struct daemon_config *cfg)
{
	if (cfg->policy_path)
		return cfg->policy_path;
	return access(DEFAULT_POLICY, F_OK) == 0 ? DEFAULT_POLICY : NULL;
}

/* baseline: the policy's seat baseline is kept there (NULL: only validated). */
int daemon_load_config(const char *policy_path, const char *rules_dir, struct rg_policy **policy,
		       struct rg_ruleset **rules, struct hw_baseline **baseline)
{
	struct rg_error err;
	char buf[1200];
	int r;

	/* The daemon always refuses policy files that others could write. */
	r = engine_load_config(policy_path, true, rules_dir, output_spec_check, policy, rules,
			       &err);
	if (r < 0) {
		log_error("%s", rg_error_format(&err, buf, sizeof(buf)));
		return r;
	}
	if ((*policy)->baseline) {
		_cleanup_(hw_baseline_freep) struct hw_baseline *b = NULL;

		r = hw_baseline_load((*policy)->baseline, true, &b, &err);
		if (r < 0) {
			if (r == -ENOMEM)
				return log_oom();
			log_error("%s", rg_error_format(&err, buf, sizeof(buf)));
			return r;
		}
		if (baseline)
			*baseline = TAKE_PTR(b);
	}
	r = policy_resolve_inodes(*policy, NULL);
	if (r < 0)
		log_warning_errno(r, "Failed to resolve the allowlist's executables: %m");
	return 0;
}

/* Whether an output keeps a spool in the state directory (the network ones). */
bool daemon_outputs_need_state_dir(const struct output_spec *specs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (output_type_is_network(specs[i].type))
			return true;
	return false;
}

int daemon_parse_outputs(const struct daemon_config *cfg, const struct rg_policy *policy,
			 struct output_spec *specs, size_t *n)
{
	static const char *const fallback[] = {"stdout"};
	const char *const *src =
	    cfg->n_outputs ? cfg->outputs : (const char *const *)policy->outputs;
	size_t count = cfg->n_outputs ? cfg->n_outputs : policy->n_outputs;
	char err[512];

	if (count > DAEMON_MAX_OUTPUTS) {
		log_error("At most %d outputs.", DAEMON_MAX_OUTPUTS);
		return -E2BIG;
	}
	if (count == 0) {
		count = 1;
		src = fallback;
	}
	for (size_t i = 0; i < count; i++)
		if (output_spec_parse(src[i], &specs[i], err, sizeof(err)) < 0) {
			log_error("%s", err);
			return -EINVAL;
		}
	*n = count;
	/* a managed seat (the policy's role, the default) is where a cheat shares the LAN */
	if (policy->role == RG_ROLE_MANAGED)
		output_specs_warn_plaintext(specs, count);
	/* and the metrics endpoint's gate, before anything is loaded (also --dry-run) */
	if (cfg->metrics_listen && metrics_http_check(cfg->metrics_listen, policy) < 0)
		return -EPERM;
	return 0;
}

void daemon_reload(struct daemon *d)
{
	_cleanup_(hw_baseline_freep) struct hw_baseline *b = NULL;
	struct rg_policy *policy = NULL;
	struct rg_ruleset *rules = NULL;
	struct rg_error err;
	struct rg_event ev;
	char buf[1200];
	int r;

	notify_reloading();
	log_info("Reloading policy %s and rules %s.",
		 d->policy_path ? d->policy_path : "(built-in)", d->rules_dir);
	r = engine_load_config(d->policy_path, true, d->rules_dir, output_spec_check, &policy,
			       &rules, &err);
	/* A bad seat baseline rejects the policy naming it, as at start. */
	if (r >= 0 && policy->baseline) {
		r = hw_baseline_load(policy->baseline, true, &b, &err);
		if (r == -ENOMEM)
			rg_error_set(&err, policy->baseline, 0, 0, "out of memory");
	}
	if (r >= 0) {
		(void)policy_resolve_inodes(policy, NULL);
		r = engine_reload(d->engine, policy, rules, daemon_alert, d, &err);
	}
	if (r >= 0) {
		/* the baseline of the policy in force: hardware enforcement never touches its
		 * own */
		hw_baseline_free(d->baseline);
		d->baseline = TAKE_PTR(b);
	}
	if (r < 0) {
		/* The old set stays in force; the sensors never stopped. */
		policy_free(policy);
		ruleset_free(rules);
		rg_error_format(&err, buf, sizeof(buf));
		log_error("Reload rejected, keeping the previous policy and rules: %s", buf);
		d->reloads_rejected++;
		engine_policy_event(&ev, now_realtime_ns(), false, r,
				    d->policy_path ? d->policy_path : d->rules_dir, buf);
	} else {
		d->reloads_ok++;
		if (engine_policy(d->engine)->n_outputs && !d->cfg->n_outputs)
			log_notice("Outputs named in the policy take effect at the next start.");
		daemon_enforce_after_reload(d);
		game_pids_push_all(d->game_pids_fd, d->engine, PROC_F_GAME_SENSORS);
		engine_policy_event(&ev, now_realtime_ns(), true, 0,
				    d->policy_path ? d->policy_path : d->rules_dir, "reloaded");
	}
	ev.proc.pid = (uint32_t)getpid();
	(void)daemon_event(&ev, d);
	notify_ready("running");
}
