/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Writes docs/reference/event-fields.md on stdout: every event type's fields, from the field
 * table the JSON writer, the event reader and the rule engine share, through the public API of
 * agent/event/event_json.h only (event_fields(), event_field_find(), event_to_json() and the
 * name functions of event.h), so that the page cannot drift from the code.
 * docs/gen/check-reference.py compares the output with the committed page (meson test
 * reference-docs, suite unit).
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "event/event.h"
#include "event/event_json.h"

#define MAX_COMMON 64

static const char *const kind_text[] = {
    [EFK_U32] = "integer",
    [EFK_I32] = "integer (signed)",
    [EFK_U64] = "integer (64 bits)",
    [EFK_HEX32] = "text: hexadecimal, `0x` and at least 4 digits",
    [EFK_STR] = "text",
    [EFK_ENUM] = "name",
    [EFK_ACCESS] = "list of access flags",
    [EFK_FLAGS] = "list of event flags",
    [EFK_GID] = "text: a GID as IPv6 address",
    [EFK_GID_V4] = "text: the dotted quad of an IPv4-mapped GID (absent otherwise)",
    [EFK_ADDR] = "text: an IPv4 or IPv6 address",
    [EFK_PORT] = "integer: a port",
    [EFK_ARGS] = "list of text",
    [EFK_BOOLFLAG] = "`true` (absent when not set)",
    [EFK_TIME] = "text: RFC 3339 UTC, microseconds",
};

/* The names an enum field can take. Zero is never written (a zero field is omitted) unless the
 * field has its own presence test. */
static void print_enum_values(const struct event_field *f)
{
	const char *sep = "";
	unsigned v;

	for (v = f->present ? 0 : 1; v < 4096; v++) {
		const char *s = f->to_str(v);

		if (!s)
			continue;
		printf("%s`%s`", sep, s);
		sep = " ";
	}
}

/* The names of the event flags, read back through the JSON writer one bit at a time. */
static void print_flag_values(const struct event_field *f)
{
	const char *sep = "";
	unsigned bit;

	for (bit = 0; bit < 32; bit++) {
		struct rg_event ev = {.type = RG_EV_AGENT_STOP};
		struct json_object *o, *a;
		uint32_t v = 1u << bit;

		memcpy((char *)&ev + f->offset, &v, sizeof(v));
		o = event_to_json(&ev);
		if (!o) {
			fputs("gen-event-fields: out of memory\n", stderr);
			exit(1);
		}
		a = json_get_path(o, f->name);
		if (a && json_object_is_type(a, json_type_array) &&
		    json_object_array_length(a) == 1) {
			printf("%s`%s`", sep,
			       json_object_get_string(json_object_array_get_idx(a, 0)));
			sep = " ";
		}
		json_object_put(o);
	}
}

static void print_field(const struct event_field *f)
{
	unsigned i;

	printf("| `%s` | ", f->name);
	if (f->kind < sizeof(kind_text) / sizeof(kind_text[0]) && kind_text[f->kind])
		fputs(kind_text[f->kind], stdout);
	else
		printf("kind %u", f->kind);
	if (f->kind == EFK_U32 && f->size == 2)
		fputs(" (16 bits)", stdout);
	if (f->kind == EFK_STR && f->size > 1)
		printf(", at most %u bytes", f->size - 1u);
	if (f->kind == EFK_ARGS)
		printf(", at most %u bytes in all", f->size);
	fputs(" | ", stdout);
	switch (f->kind) {
	case EFK_ENUM:
		print_enum_values(f);
		break;
	case EFK_ACCESS:
		for (i = 0; i < access_names_count; i++)
			printf("%s`%s`", i ? " " : "", access_names[i].name);
		break;
	case EFK_FLAGS:
		print_flag_values(f);
		break;
	default:
		break;
	}
	fputs(" |\n", stdout);
}

/* Appends the dotted paths of obj's leaves (arrays are leaves) under prefix. */
static void leaves(struct json_object *obj, const char *prefix, char names[][128], size_t *n)
{
	json_object_object_foreach(obj, key, val)
	{
		char path[128];

		snprintf(path, sizeof(path), "%s%s%s", prefix, *prefix ? "." : "", key);
		if (json_object_is_type(val, json_type_object))
			leaves(val, path, names, n);
		else if (*n < MAX_COMMON * 4)
			snprintf(names[(*n)++], 128, "%s", path);
	}
}

/*
 * The fields every event type has. event_fields() lists a type's own fields only, so they are
 * found by writing an event whose every byte is set and keeping the members that
 * event_field_find() knows for every type (it finds no own field of RG_EV_NONE).
 */
static size_t common_fields(const struct event_field **ret)
{
	static char names[MAX_COMMON * 4][128];
	struct rg_event ev;
	struct json_object *o;
	size_t i, n = 0, k = 0;

	memset(&ev, 0x01, sizeof(ev));
	ev.type = RG_EV_AGENT_STOP;
	ev.provider = 1;
	o = event_to_json(&ev);
	if (!o) {
		fputs("gen-event-fields: out of memory\n", stderr);
		exit(1);
	}
	leaves(o, "", names, &n);
	json_object_put(o);
	for (i = 0; i < n && k < MAX_COMMON; i++) {
		const struct event_field *f = event_field_find(RG_EV_NONE, names[i]);

		if (f)
			ret[k++] = f;
	}
	return k;
}

static bool same_fields(unsigned a, unsigned b)
{
	const struct event_field *fa, *fb;
	size_t na = event_fields(a, &fa), nb = event_fields(b, &fb);

	return na == nb && fa == fb;
}

int main(void)
{
	const struct event_field *common[MAX_COMMON];
	size_t i, n, ncommon;
	unsigned t, u;

	ncommon = common_fields(common);
	puts("<!-- Generated by docs/gen/gen-event-fields.c from the field table of agent/event/; "
	     "do not"
	     " edit.\n     Regenerate: ninja -C build update-reference -->");
	puts("# Event fields\n");
	puts("Every event is one JSON object (one line in a `daemon --record` file, what `replay` "
	     "reads).\nA dotted name is a path of nested objects (`rdma.mr.length` is "
	     "`{\"rdma\": {\"mr\": {\"length\": ...}}}`);\na field whose value is zero is omitted. "
	     "The "
	     "same names are the fields of rule conditions\n([rules and "
	     "policy](../rules-and-policy.md)"
	     ", which also lists the fields the engine derives).\nAlerts carry the fields of the "
	     "event "
	     "that raised them (`rules/schema/alert.schema.json`).\n");
	puts("## Every event type\n");
	puts("| field | type | values |\n|---|---|---|");
	for (i = 0; i < ncommon; i++)
		print_field(common[i]);
	puts("| `event.kind` | text | `event` (alerts: `alert`; the heartbeat notice: `metric`) |");
	for (t = 1; t < RG_EV__MAX; t++) {
		const struct event_field *f;
		bool seen = false;

		for (u = 1; u < t; u++)
			if (same_fields(u, t))
				seen = true;
		if (seen)
			continue;
		fputs("\n## ", stdout);
		for (u = t; u < RG_EV__MAX; u++)
			if (same_fields(t, u))
				printf("%s`%s`", u == t ? "" : ", ", event_type_to_string(u));
		puts("\n");
		n = event_fields(t, &f);
		if (n == 0) {
			puts("No fields besides those of every event type.");
			continue;
		}
		puts("| field | type | values |\n|---|---|---|");
		for (i = 0; i < n; i++)
			print_field(&f[i]);
	}
	return ferror(stdout) || fflush(stdout) ? 1 : 0;
}
