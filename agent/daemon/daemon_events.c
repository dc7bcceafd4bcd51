/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The daemon's one path for events: every event, from the sensors, the inventory, the
 * reconciliation or the agent itself, is numbered, recorded (--record), evaluated by the rule
 * engine and shown to enforcement; the alerts it raises go to the outputs above the threshold.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/log.h"
#include "common/macro.h"
#include "common/strutil.h"
#include "enforce/enforce.h"
#include "enforce/game_pids.h"
#include "engine/engine.h"
#include "event/event_json.h"
#include "output/output.h"
#include "daemon-internal.h"

int daemon_alert(const struct rg_alert *alert, void *ud)
{
	struct daemon *d = ud;
	int r;

	/* The threshold keeps low-value alerts off the SIEM; the agent's own alerts always go, and
	 * so do incident records (a few an incident, and its alerts may have passed). */
	if (alert->severity < engine_policy(d->engine)->threshold && !alert->incident &&
	    !startswith(alert->rule_id, "AGENT-")) {
		d->alerts_below_threshold++;
		return 0;
	}
	r = outputs_submit_alert(d->outputs, alert, d->submit_flags);
	if (r == -E2BIG)
		d->alerts_too_large++; /* counted and reported by the outputs as a loss */
	else if (r < 0)
		d->submit_errors++;
	else if (alert->incident)
		d->incident_records_sent++;
	else
		d->alerts_sent++;
	return 0;
}

static void record_event(struct daemon *d, const struct rg_event *ev)
{
	const char *s;
	size_t len;

	if (!d->record)
		return;
	if (!d->record_jw)
		d->record_jw = jw_new();
	if (!d->record_jw) {
		d->record_errors++;
		return;
	}
	jw_reset(d->record_jw);
	if (event_to_jw(ev, d->record_jw) < 0 || jw_finish(d->record_jw, &s, &len) < 0 ||
	    fwrite(s, 1, len, d->record) != len || fputc('\n', d->record) == EOF)
		d->record_errors++;
}

/* Every event, whatever its source, goes through here: numbered, recorded, evaluated. */
int daemon_event(const struct rg_event *in, void *ud)
{
	struct daemon *d = ud;
	struct rg_event ev = *in;
	int r;

	ev.seq = ++d->seq;
	if (!ev.ts)
		ev.ts = now_realtime_ns();
	record_event(d, &ev);
	r = engine_process(d->engine, &ev, daemon_alert, d);
	if (r < 0)
		log_warning_errno(r, "Rule engine failed on event %llu: %m", (unsigned long long)ev.seq);
	enforce_event(d->enf, &ev, d->engine);
	if (d->game_pids_fd >= 0)
		(void)game_pids_event(d->game_pids_fd, &ev, d->engine, PROC_F_GAME_SENSORS);
	if (ev.type < RG_EV__MAX && ev.provider < RG_PROV__MAX)
		d->events_by[ev.type][ev.provider]++;
	if (ev.flags & RG_EVF_DENIED)
		d->enforce_denied++;
	if (ev.flags & RG_EVF_KILLED)
		d->enforce_killed++;
	return 0; /* one bad event must not stop the sensors */
}

void daemon_agent_event(struct daemon *d, unsigned type, bool ok, const char *what,
			const char *text, uint64_t count, uint64_t count2)
{
	struct rg_event ev = {0};

	ev.type = (uint16_t)type;
	ev.provider = RG_PROV_AGENT;
	ev.ts = now_realtime_ns();
	ev.proc.pid = (uint32_t)getpid();
	strscpy_ok(ev.proc.comm, "rdmaguard", sizeof(ev.proc.comm));
	ev.u.agent.ok = ok;
	ev.u.agent.count = count;
	ev.u.agent.count2 = count2;
	strscpy_ok(ev.u.agent.what, what, sizeof(ev.u.agent.what));
	strscpy_ok(ev.u.agent.text, text, sizeof(ev.u.agent.text));
	(void)daemon_event(&ev, d);
}
