/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What a loss report says (output.h): the drop reasons' names, its JSON and its one-line text. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "common/macro.h"
#include "output.h"

static const char *const drop_names[_OUTPUT_DROP_N] = {"queue_full", "spool_full", "too_large",
						       "write_error"};

const char *output_drop_reason_to_string(enum output_drop_reason r)
{
	return (unsigned)r < _OUTPUT_DROP_N ? drop_names[r] : "unknown";
}

int output_loss_to_json(const struct output_loss *loss, struct json_object *into)
{
	struct json_object *d, *rs;
	unsigned i;

	d = json_object_new_object();
	rs = json_object_new_object();
	if (!d || !rs) {
		json_object_put(d);
		json_object_put(rs);
		return -ENOMEM;
	}
	json_object_object_add(d, "total", json_object_new_uint64(loss->total));
	for (i = 0; i < RG_SEV__MAX; i++)
		json_object_object_add(d, severity_to_string((int)i),
				       json_object_new_uint64(loss->by_severity[i]));
	for (i = 0; i < _OUTPUT_DROP_N; i++)
		json_object_object_add(rs, drop_names[i], json_object_new_uint64(loss->by_reason[i]));
	json_object_object_add(into, "output", json_object_new_string(loss->output));
	json_object_object_add(into, "dropped", d);
	json_object_object_add(into, "reasons", rs);
	json_object_object_add(into, "total_since_start",
			       json_object_new_uint64(loss->total_since_start));
	json_object_object_add(into, "loss_reports_dropped",
			       json_object_new_uint64(loss->loss_reports_dropped));
	return 0;
}

size_t output_loss_describe(const struct output_loss *loss, const char **what, char *text,
			    size_t size)
{
	char buf[512];
	size_t o;
	unsigned i;
	bool first = true;

	if (what)
		*what = loss->by_reason[OUTPUT_DROP_SPOOL_FULL]	  ? "spool"
			: loss->by_reason[OUTPUT_DROP_QUEUE_FULL] ? "queue"
								  : "output";
	o = (size_t)snprintf(buf, sizeof(buf), "%s: %" PRIu64 " alert(s) dropped (", loss->output,
			     loss->total);
	for (i = 0; i < RG_SEV__MAX && o < sizeof(buf); i++)
		if (loss->by_severity[i]) {
			o += (size_t)snprintf(buf + o, sizeof(buf) - o, "%s%s %" PRIu64,
					      first ? "" : ", ", severity_to_string((int)i),
					      loss->by_severity[i]);
			first = false;
		}
	first = true;
	for (i = 0; i < _OUTPUT_DROP_N && o < sizeof(buf); i++)
		if (loss->by_reason[i]) {
			o += (size_t)snprintf(buf + o, sizeof(buf) - o, "%s%s %" PRIu64,
					      first ? "; " : ", ", drop_names[i], loss->by_reason[i]);
			first = false;
		}
	if (o < sizeof(buf))
		o += (size_t)snprintf(buf + o, sizeof(buf) - o, ")");
	o = MIN(o, sizeof(buf) - 1);
	if (size > 0) {
		memcpy(text, buf, MIN(o, size - 1));
		text[MIN(o, size - 1)] = 0;
	}
	return o;
}
