/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The daemon's incidents: their records go to the outputs next to the alerts (daemon_alert()),
 * and the control socket's "incidents" and "incident ID" requests are answered from the
 * engine's store (control.h, docs/incidents.md).
 */
#include <errno.h>
#include <string.h>

#include "common/jsonw.h"
#include "common/log.h"
#include "common/macro.h"
#include "daemon/control.h"
#include "engine/engine.h"
#include "daemon-internal.h"

DEFINE_TRIVIAL_CLEANUP_FUNC(struct jw *, jw_free);

static int write_record(struct daemon *d, int fd, struct jw *w, const struct incident *inc)
{
	const char *text;
	size_t len;
	int r;

	jw_reset(w);
	engine_incident_to_jw(d->engine, inc, NULL, w);
	r = jw_finish(w, &text, &len);
	if (r >= 0)
		r = control_write(fd, text, len);
	if (r >= 0)
		r = control_write(fd, "\n", 1);
	return r;
}

int daemon_incidents_serve(struct daemon *d, int fd, const char *id)
{
	const struct incident_store *s = engine_incidents(d->engine);
	_cleanup_(jw_freep) struct jw *w = jw_new();
	const struct incident *inc;
	int r = 0;

	if (!w)
		return -ENOMEM;
	if (!s)
		return control_write(fd, "{\"error\":\"incidents are off\"}\n", 30);
	if (!id) {
		for (size_t i = 0; r >= 0 && i < incident_store_count(s); i++)
			r = write_record(d, fd, w, incident_store_at(s, i));
		return r;
	}
	inc = incident_store_find(s, id);
	if (!inc)
		return control_write(fd, "{\"error\":\"no such incident\"}\n", 29);
	r = write_record(d, fd, w, inc);
	for (size_t i = 0; r >= 0 && i < incident_log_count(inc); i++) {
		enum incident_log_kind kind;
		const char *text;
		size_t len;

		if (incident_log_get(inc, i, &kind, &text, &len) < 0)
			break;
		r = control_write(fd, text, len);
		if (r >= 0)
			r = control_write(fd, "\n", 1);
	}
	return r;
}
