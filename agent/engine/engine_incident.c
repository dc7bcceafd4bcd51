/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The engine's side of incidents (incident.h): each alert is assigned its incident before it is
 * written (the alert names it), joins it after it was emitted (with the raw event behind it, as
 * `daemon --record` writes it, when asked for), and the incident's records go to the same emit
 * callback as the alerts, marked (struct rg_alert.incident), with the seat's identity the alerts
 * carry, in ECS's names as the alerts have them.
 */
#include <errno.h>
#include <string.h>

#include "engine-internal.h"
#include "common/log.h"
#include "common/macro.h"
#include "event/ecs_map.h"
#include "event/event_json.h"

/*
 * ECS's categorisation of a record (docs/incidents.md#records): what an intrusion detection
 * concluded, as information (intrusion_detection expects allowed, denied or info; whether it
 * opened, changed or closed is event.action); no outcome, as there is no operation.
 */
static const char *const incident_category[] = {"intrusion_detection", NULL};
static const char *const incident_type[] = {"info", NULL};

static void record(const struct incident *inc, const char *action, void *ud)
{
	struct rg_engine *e = ud;
	struct rg_alert a = {.rule_id = "INCIDENT", .incident = true};
	char rid[INCIDENT_RECORD_ID_LEN];
	int r;

	if (!e->inc_emit) /* nobody takes the records (replay without --incidents) */
		return;
	jw_reset(e->ijw);
	engine_incident_to_jw(e, inc, action, e->ijw);
	a.severity = incident_severity(inc);
	r = jw_finish(e->ijw, &a.json, &a.len);
	if (r < 0) {
		log_oom();
		return;
	}
	incident_record_id(inc, rid);
	a.uuid = rid;
	a.ts_ns = e->now;
	r = e->inc_emit ? e->inc_emit(&a, e->inc_ud) : 0;
	if (r < 0 && !e->emit_err)
		e->emit_err = r;
}

void engine_incident_to_jw(struct rg_engine *e, const struct incident *inc, const char *action,
			   struct jw *w)
{
	incident_to_jw(inc, action, w);
	engine_identity_to_jw(e, w);
	ecs_add_jw(w, incident_category, incident_type, "unknown");
	ecs_map_jw(w);
}

int engine_incidents_new(struct rg_engine *e)
{
	struct incident_config ic = {
	    .max_open = e->cfg.incident_max_open,
	    .quiet_ns = e->cfg.incident_quiet_ns,
	    .boot_id = e->boot_id,
	    .seat = e->policy ? e->policy->seat : NULL,
	    .boot_realtime_ns = e->cfg.boot_realtime_ns,
	};

	if (e->cfg.incidents_off)
		return 0;
	e->ijw = jw_new();
	if (!e->ijw)
		return -ENOMEM;
	return incident_store_new(&ic, &e->incidents);
}

void engine_incident_assign(struct rg_engine *e, const struct erule *er, struct cond_ctx *ctx,
			    char id[static INCIDENT_ID_LEN])
{
	id[0] = 0;
	if (e->incidents && incident_assign(e->incidents, ctx, e->games, e->n_games, er->rule->id,
					    id, record, e) < 0)
		log_oom();
}

void engine_incident_add(struct rg_engine *e, const char *id, struct cond_ctx *ctx,
			 const struct rg_alert *a, uint64_t count, uint64_t first_ns,
			 uint64_t last_ns)
{
	struct incident_alert ia = {
	    .uuid = a->uuid,
	    .rule_id = a->rule_id,
	    .severity = a->severity,
	    .count = count,
	    .first_ns = first_ns,
	    .last_ns = last_ns,
	    .json = a->json,
	    .len = a->len,
	    .event = ctx->ev,
	};

	if (!e->incidents)
		return;
	incident_add_alert(e->incidents, id, ctx, &ia, record, e);
}

void engine_incident_expire(struct rg_engine *e, uint64_t now)
{
	if (e->incidents)
		incident_expire(e->incidents, now, e->tree, e->games, e->n_games, record, e);
}

void engine_set_incident_fn(struct rg_engine *e, engine_emit_fn fn, void *ud)
{
	e->inc_emit = fn;
	e->inc_ud = ud;
}

const struct incident_store *engine_incidents(const struct rg_engine *e)
{
	return e->incidents;
}
