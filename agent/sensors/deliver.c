/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Delivery of events to the consumer's callback (sensors_poll()'s cb), which every event source
 * of the module goes through: counting them, stopping at the callback's first error; the
 * AGENT_SENSOR events raised outside sensors_poll() (a hook point that changed flavour), queued
 * until the next one; and AGENT_TAMPER events from the agent's own checks.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "common/clock.h"
#include "common/log.h"
#include "common/macro.h"
#include "common/strutil.h"
#include "sensors_state.h"

/* One event to the callback; after the callback's first error, none (sensors_poll() returns it). */
int deliver(struct rg_sensors *s, struct rg_event *ev)
{
	int r;

	if (s->cb_error < 0)
		return s->cb_error;
	r = s->cb(ev, s->ud);
	if (r < 0) {
		s->cb_error = r;
		return r;
	}
	s->delivered++;
	return 0;
}

/* The queued events first, at the start of sensors_poll(). 0, or the callback's error. */
int deliver_queued(struct rg_sensors *s)
{
	while (s->nqueued) {
		struct rg_event ev = s->queued[0];

		memmove(s->queued, s->queued + 1, (s->nqueued - 1) * sizeof(s->queued[0]));
		s->nqueued--;
		if (deliver(s, &ev) < 0)
			return s->cb_error;
	}
	return 0;
}

void queue_sensor_event(struct rg_sensors *s, unsigned hp, bool ok, const char *fmt, ...)
{
	struct rg_event *ev;
	va_list ap;

	if (s->nqueued >= ARRAY_SIZE(s->queued))
		return;
	ev = &s->queued[s->nqueued++];
	memset(ev, 0, sizeof(*ev));
	ev->type = RG_EV_AGENT_SENSOR;
	ev->provider = RG_PROV_AGENT;
	ev->ts = now_realtime_ns();
	ev->u.agent.ok = ok;
	strscpy_ok(ev->u.agent.what, hook_defs[hp].name, sizeof(ev->u.agent.what));
	va_start(ap, fmt);
	vsnprintf(ev->u.agent.text, sizeof(ev->u.agent.text), fmt, ap);
	va_end(ap);
}

/* An AGENT_TAMPER event found by the agent's own checks (no kernel event names the process). */
void tamper_event(struct rg_sensors *s, const char *what, uint64_t count, const char *fmt, ...)
{
	struct rg_event ev = {0};
	va_list ap;

	ev.type = RG_EV_AGENT_TAMPER;
	ev.provider = RG_PROV_AGENT;
	ev.ts = now_realtime_ns();
	ev.u.agent.ok = 1;
	ev.u.agent.count = count;
	strscpy_ok(ev.u.agent.what, what, sizeof(ev.u.agent.what));
	va_start(ap, fmt);
	vsnprintf(ev.u.agent.text, sizeof(ev.u.agent.text), fmt, ap);
	va_end(ap);
	log_warning("Tampering: %s", ev.u.agent.text);
	(void)deliver(s, &ev);
}
