/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The seat's identity as alerts and incident records both carry it: host.*, agent.*, the
 * policy's hash and labels.seat (docs/seat.md).
 */
#include "engine-internal.h"

void engine_identity_to_jw(struct rg_engine *e, struct jw *w)
{
	const struct rg_policy *p = e->policy;
	jw_node o;

	if (e->host_json)
		jw_raw(w, JW_ROOT, "host", e->host_json, e->host_json_len);
	else
		jw_string(w, jw_object(w, JW_ROOT, "host"), "hostname", e->hostname);
	if (e->agent_version) {
		o = jw_object(w, JW_ROOT, "agent");
		jw_string(w, o, "type", "rdmaguard");
		jw_string(w, o, "version", e->agent_version);
		if (p->sha256[0])
			jw_string(w, jw_object(w, jw_object(w, JW_ROOT, "rdmaguard"), "policy"),
				  "sha256", p->sha256);
	}
	if (p->seat)
		jw_string(w, jw_object(w, JW_ROOT, "labels"), "seat", p->seat);
}
