/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The daemon's side of enforcement: whether it is wanted (command line or policy), preparing it
 * before the sensors (they share its pins), starting or taking it over, a reload's policy, and
 * the TC programs' drop of RDMA traffic with peers outside the fleet (docs/enforcement.md).
 */
#include <errno.h>
#include <limits.h>
#include <linux/capability.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/caps.h"
#include "common/log.h"
#include "common/macro.h"
#include "enforce/enforce.h"
#include "engine/engine.h"
#include "policy/policy.h"
#include "sensors/sensors.h"
#include "daemon-internal.h"

/* Enforcement is wanted: asked for on the command line or by the policy. */
static bool enforce_wanted(const struct daemon *d)
{
	return d->cfg->enforce || engine_policy(d->engine)->enforce;
}

/*
 * The TC programs drop RoCE v2/iWARP traffic with a peer that is no seat and no server while
 * enforcement is in force and the policy has a fleet; otherwise they only count. After start,
 * reload and `enforce --off`.
 */
void daemon_enforce_sync_tc(struct daemon *d)
{
	const struct rg_policy *p = engine_policy(d->engine);
	bool drop = enforce_started(d->enf) && p->has_fleet;
	int r;

	if (!d->sensors)
		return;
	sensors_fleet_begin(d->sensors);
	for (size_t i = 0; drop && i < p->n_fleet_servers; i++)
		sensors_fleet_add(d->sensors, p->fleet_servers[i].addr, p->fleet_servers[i].prefix);
	for (size_t i = 0; drop && i < p->n_fleet_seats; i++)
		sensors_fleet_add(d->sensors, p->fleet_seats[i].addr, p->fleet_seats[i].prefix);
	r = sensors_fleet_commit(d->sensors, drop);
	if (r == -EOPNOTSUPP && !d->tc_drop_warned) {
		d->tc_drop_warned = true;
		log_warning("RDMA traffic with peers outside the fleet is not dropped: the RoCE "
			    "counters (TC) are not attached.");
		daemon_agent_event(d, RG_EV_AGENT_SENSOR, false, "enforce_tc",
				   "RDMA traffic with peers outside the fleet is not dropped: the "
				   "TC programs are not attached",
				   0, 0);
	} else if (r == 0 && drop != d->tc_dropping) {
		log_info("RoCE v2/iWARP traffic with peers outside the fleet (%zu seat and %zu "
			 "server ranges) is %s.",
			 p->n_fleet_seats, p->n_fleet_servers, drop ? "dropped" : "no longer dropped");
	}
	d->tc_dropping = sensors_fleet_dropping(d->sensors);
}

/* Before the sensors: pins of an earlier daemon are shared with them. */
int daemon_enforce_prepare(struct daemon *d, struct daemon_config *cfg)
{
	struct enforce_opts o = {.pin_dir = cfg->pin_dir};
	char path[PATH_MAX];
	int r;

	snprintf(path, sizeof(path), "%s/maps", cfg->pin_dir ? cfg->pin_dir : ENFORCE_PIN_DIR);
	if (!enforce_wanted(d) && access(path, F_OK) < 0)
		return 0;
	r = enforce_prepare(&o, &d->enf);
	if (r < 0)
		return r;
	enforce_shared_maps(d->enf, cfg->sensors.shared_maps);
	return 0;
}

void daemon_game_pids_open(struct daemon *d, const struct daemon_config *cfg)
{
	d->game_pids_fd = -1;
	for (size_t i = 0; i < ARRAY_SIZE(cfg->sensors.shared_maps); i++) {
		const struct sensors_shared_map *m = &cfg->sensors.shared_maps[i];

		if (m->name && m->fd >= 0 && strcmp(m->name, "enf_game_pids") == 0)
			return; /* enforcement's: it fills it */
	}
	d->game_pids_fd = sensors_map_fd(d->sensors, "enf_game_pids");
	if (d->game_pids_fd < 0)
		log_warning_errno(d->game_pids_fd, "The sensors have no game map: records about "
				  "the game's memory stay in the budget of other records: %m");
}

/* After the inventory: start (or take over) enforcement; AGENT-002 where it cannot deny. */
int daemon_enforce_start(struct daemon *d)
{
	char text[RG_TEXT_LEN];
	int r;

	if (!d->enf)
		return 0;
	if (!enforce_wanted(d) && !enforce_pinned(d->enf))
		return 0;
	if (!enforce_wanted(d))
		log_warning("Enforcement pinned in %s by an earlier run stays in force, with this "
			    "policy's allowlist, although the policy does not ask for it: `rdmaguard "
			    "enforce --off` lifts it.",
			    d->cfg->pin_dir ? d->cfg->pin_dir : ENFORCE_PIN_DIR);
	enforce_set_lsm(d->enf, sensors_lsm_active(d->sensors));
	r = enforce_start(d->enf, d->sensors, engine_policy(d->engine), d->engine);
	if (r < 0)
		return r;
	daemon_enforce_sync_tc(d);
	if (!sensors_lsm_active(d->sensors)) {
		struct json_object *feat = NULL, *lsms = NULL;

		if (d->hooks)
			json_object_object_get_ex(d->hooks, "features", &feat);
		if (feat)
			json_object_object_get_ex(feat, "lsms", &lsms);
		snprintf(text, sizeof(text),
			 "enforcement cannot deny: BPF LSM is not active (lsm=%s); only rule actions "
			 "kill act (SIGKILL from the tracepoint programs); soft RDMA (rdma_rxe, siw, "
			 "rdma link add) is only alerted",
			 lsms ? json_object_get_string(lsms) : "?");
		log_warning("%s.", text);
		daemon_agent_event(d, RG_EV_AGENT_SENSOR, false, "enforce", text, 0, 0);
	}
	return 0;
}

/* A reload that asks for enforcement starts it; enforcement in force takes the new policy. */
void daemon_enforce_after_reload(struct daemon *d)
{
	int r;

	if (enforce_started(d->enf) || (d->enf && enforce_pinned(d->enf))) {
		if (!enforce_wanted(d))
			log_notice("The policy no longer asks for enforcement, but it is pinned: it "
				   "stays in force with this policy's allowlist.");
		r = enforce_reload(d->enf, engine_policy(d->engine), d->engine);
	} else if (enforce_wanted(d)) {
		struct enforce_opts o = {.pin_dir = d->cfg->pin_dir};

		r = d->enf ? 0 : enforce_prepare(&o, &d->enf);
		if (r == 0)
			r = daemon_enforce_start(d);
		/* the daemon started without enforcement and kept only what that needed */
		if (r < 0 && d->caps_dropped && !(d->caps_effective & CAPS_BIT(CAP_SYS_ADMIN)))
			log_notice("Enforcement turned on by a reload needs capabilities this daemon "
				   "dropped when it started without it (docs/security-model.md): "
				   "restart it (systemctl restart rdmaguard).");
	} else {
		return;
	}
	if (r < 0)
		log_error_errno(r, "Failed to apply the new policy to enforcement: %m");
	daemon_enforce_sync_tc(d);
}
