/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The event writer: an event as JSON (event_to_jw() into common/jsonw, event_to_json() as a
 * json-c object), its fields in the table's order (event_fields.c), zero-valued ones left out,
 * dotted names as nested objects.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "event_json-internal.h"
#include "common/macro.h"
#include "common/timestamp.h"

static int field_is_zero(const struct rg_event *ev, const struct event_field *f)
{
	switch (f->kind) {
	case EFK_ENUM:
		return event_enum_get(ev, f) == 0;
	case EFK_U32:
		/* also 16-bit fields (rdma.object_id, rdma.method_id) */
		return f->size == 2 ? *CAT(ev, f, uint16_t) == 0 : *CAT(ev, f, uint32_t) == 0;
	case EFK_I32:
	case EFK_HEX32:
	case EFK_ACCESS:
	case EFK_FLAGS:
		return *CAT(ev, f, uint32_t) == 0;
	case EFK_U64:
	case EFK_TIME:
		return *CAT(ev, f, uint64_t) == 0;
	case EFK_STR:
		return *CAT(ev, f, char) == 0;
	case EFK_ARGS:
		return *(const uint32_t *)((const char *)ev + f->aux) == 0;
	case EFK_GID:
	case EFK_GID_V4: {
		static const uint8_t zero[16];
		return memcmp(CAT(ev, f, uint8_t), zero, 16) == 0;
	}
	case EFK_ADDR:
		return CAT(ev, f, struct rg_addr)->family == 0;
	case EFK_PORT:
		return CAT(ev, f, struct rg_addr)->port == 0;
	case EFK_BOOLFLAG:
		return !(*CAT(ev, f, uint32_t) & f->aux);
	}
	return 1;
}

static void names_to_jw(struct jw *w, jw_node obj, const char *key, const struct event_field *f,
			uint32_t bits)
{
	jw_node a = jw_new_array(w, obj, key);
	unsigned i;

	if (f->kind == EFK_ACCESS) {
		for (i = 0; i < access_names_count; i++)
			if (bits & access_names[i].bit)
				jw_string(w, a, NULL, access_names[i].name);
	} else {
		for (i = 0; i < EVENT_NFLAGS; i++)
			if (bits & (1u << i))
				jw_string(w, a, NULL, event_flag_names[i]);
	}
}

/* The object of the last field's path ("rdma.mr" of "rdma.mr.length"): the fields that follow
 * under the same one (the tables keep them together) skip jw_path's walk. Within one event. */
struct path_cache {
	const char *name;
	size_t plen;
	jw_node obj;
};

static jw_node field_obj(struct jw *w, const char *name, const char **key, struct path_cache *pc)
{
	const char *dot = strrchr(name, '.');
	size_t plen = dot ? (size_t)(dot - name) : 0;
	jw_node obj;

	if (pc->name && plen && plen == pc->plen && memcmp(name, pc->name, plen) == 0) {
		*key = dot + 1;
		return pc->obj;
	}
	obj = jw_path(w, JW_ROOT, name, key);
	*pc = (struct path_cache){.name = name, .plen = plen, .obj = obj};
	return obj;
}

static void field_to_jw(const struct rg_event *ev, const struct event_field *f, struct jw *w,
			struct path_cache *pc)
{
	char buf[64];
	const char *key;
	jw_node obj;

	/* The one field that may have no value although it is not zero: no path made for it. */
	if (f->kind == EFK_GID_V4 && !gid_to_ipv4(CAT(ev, f, uint8_t), buf))
		return;
	obj = field_obj(w, f->name, &key, pc);
	switch (f->kind) {
	case EFK_U32:
		jw_int(w, obj, key, f->size == 2 ? *CAT(ev, f, uint16_t) : *CAT(ev, f, uint32_t));
		return;
	case EFK_I32:
		jw_int(w, obj, key, *CAT(ev, f, int32_t));
		return;
	case EFK_U64:
		jw_uint(w, obj, key, *CAT(ev, f, uint64_t));
		return;
	case EFK_HEX32:
		snprintf(buf, sizeof(buf), "0x%04x", *CAT(ev, f, uint32_t));
		jw_string(w, obj, key, buf);
		return;
	case EFK_STR:
		jw_string_len(w, obj, key, CAT(ev, f, char), strnlen(CAT(ev, f, char), f->size));
		return;
	case EFK_ENUM: {
		const char *s = f->to_str(event_enum_get(ev, f));

		if (!s) {
			snprintf(buf, sizeof(buf), "%u", event_enum_get(ev, f));
			s = buf;
		}
		jw_string(w, obj, key, s);
		return;
	}
	case EFK_ACCESS:
	case EFK_FLAGS:
		names_to_jw(w, obj, key, f, *CAT(ev, f, uint32_t));
		return;
	case EFK_GID:
		gid_to_string(CAT(ev, f, uint8_t), buf);
		jw_string(w, obj, key, buf);
		return;
	case EFK_GID_V4:
		jw_string(w, obj, key, buf);
		return;
	case EFK_ADDR:
		addr_to_string(CAT(ev, f, struct rg_addr), buf);
		jw_string(w, obj, key, buf);
		return;
	case EFK_PORT:
		jw_int(w, obj, key, CAT(ev, f, struct rg_addr)->port);
		return;
	case EFK_ARGS: {
		uint32_t len = *(const uint32_t *)((const char *)ev + f->aux);

		jw_string_list(w, obj, key, CAT(ev, f, char), MIN(len, (uint32_t)f->size));
		return;
	}
	case EFK_BOOLFLAG:
		jw_bool(w, obj, key, true);
		return;
	case EFK_TIME:
		format_timestamp(*CAT(ev, f, uint64_t), buf);
		jw_string(w, obj, key, buf);
		return;
	}
}

static void add_fields(struct jw *w, const struct rg_event *ev, const struct event_field *f,
		       size_t n, struct path_cache *pc)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (f[i].present ? f[i].present(ev) : !field_is_zero(ev, &f[i]))
			field_to_jw(ev, &f[i], w, pc);
}

int event_to_jw(const struct rg_event *ev, struct jw *w)
{
	const struct event_field *f;
	size_t n = event_fields(ev->type, &f);
	struct path_cache pc = {0};

	add_fields(w, ev, event_common_fields, EVENT_NCOMMON, &pc);
	jw_string(w, jw_object(w, JW_ROOT, "event"), "kind", "event");
	add_fields(w, ev, f, n, &pc);
	return jw_failed(w) ? -ENOMEM : 0;
}

struct json_object *event_to_json(const struct rg_event *ev)
{
	struct json_object *o = NULL;
	struct jw *w = jw_new();
	const char *text;
	size_t len;

	if (w && event_to_jw(ev, w) == 0 && jw_finish(w, &text, &len) == 0)
		o = json_tokener_parse(text);
	jw_free(w);
	return o;
}
