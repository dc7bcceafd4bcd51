/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The event reader's index of the field table (see event_schema.h), built once from
 * event_fields.c's tables: a slot for each dotted field name, the nodes on the way to them,
 * and the names of each enum's values, which from_str would give the same value for.
 */
#include <pthread.h>
#include <stdlib.h>

#include "event_schema.h"

struct event_schema event_schema;
static pthread_once_t schema_once = PTHREAD_ONCE_INIT;

static struct key_entry *key_add(unsigned parent, const char *s, size_t len)
{
	uint64_t w0;
	uint32_t h = key_hash(parent, s, len, s + len, &w0);
	struct key_entry *k;

	if (event_schema.nkey >= MAX_KEYS)
		abort(); /* the field tables outgrew MAX_KEYS: a build-time mistake */
	while (event_schema.hash[h])
		h = (h + 1) & (KEY_HASH_SIZE - 1);
	k = &event_schema.key[event_schema.nkey];
	*k = (struct key_entry){.key = s, .w0 = w0, .len = (uint16_t)len,
				.parent = (uint16_t)parent, .slot = -1, .node = -1,
				.id = (uint16_t)event_schema.nkey};
	event_schema.hash[h] = (int16_t)++event_schema.nkey;
	return k;
}

/* The slot of a dotted field name, made (with the nodes on its way) if it is new. */
static uint16_t slot_add(const char *name)
{
	unsigned node = 0, path[MAX_NODES], depth = 0, i;
	const char *c = name, *dot;
	struct key_entry *k;

	while ((dot = strchr(c, '.'))) {
		k = (struct key_entry *)key_find(node, c, (size_t)(dot - c), dot);
		if (!k) {
			if (event_schema.nnode + 1 >= MAX_NODES)
				abort();
			k = key_add(node, c, (size_t)(dot - c));
			k->node = (int16_t)++event_schema.nnode;
		}
		if (k->slot >= 0 || depth >= MAX_NODES)
			abort(); /* a field inside a field: a table mistake */
		node = (unsigned)k->node;
		path[depth++] = node;
		c = dot + 1;
	}
	k = (struct key_entry *)key_find(node, c, strlen(c), c + strlen(c));
	if (k) {
		if (k->slot < 0)
			abort(); /* a field that is also an object on the way to others */
		return (uint16_t)k->slot;
	}
	if (event_schema.n >= MAX_SLOTS)
		abort();
	k = key_add(node, c, strlen(c));
	k->slot = (int16_t)event_schema.n;
	for (i = 0; i < depth; i++)
		event_schema.below[path[i]][event_schema.n / 64] |= 1ull << (event_schema.n % 64);
	return (uint16_t)event_schema.n++;
}

/* The enum of field f (by its from_str), made with its names if it is new. Only names that
 * from_str gives back the same value for are taken, so a lookup here answers as from_str. */
static unsigned enum_add(const struct event_field *f)
{
	unsigned e, v;

	for (e = 0; e < event_schema.nenum; e++)
		if (event_schema.enum_from[e] == f->from_str)
			return e;
	if (event_schema.nenum >= MAX_ENUMS)
		abort();
	event_schema.enum_from[e = event_schema.nenum++] = f->from_str;
	for (v = 0; v < ENUM_VALUES; v++) {
		const char *name = f->to_str(v);

		if (name && f->from_str(name) == (int)v &&
		    !key_find(ENUM_NODE(e), name, strlen(name), name + strlen(name)))
			key_add(ENUM_NODE(e), name, strlen(name))->slot = (int16_t)v;
	}
	return e;
}

static void fields_add(const struct event_field *f, size_t n, uint16_t *slots)
{
	size_t i;

	for (i = 0; i < n; i++) {
		slots[i] = slot_add(f[i].name);
		if (f[i].kind == EFK_ENUM && f[i].from_str && f[i].to_str)
			(void)enum_add(&f[i]);
	}
}

static void schema_build(void)
{
	unsigned t;

	fields_add(event_common_fields, EVENT_NCOMMON, event_schema.common);
	for (t = 1; t < RG_EV__MAX; t++) {
		const struct event_field *f;
		size_t n = event_fields(t, &f);

		fields_add(f, n, event_schema.type[t]);
	}
	event_schema.qp_state = slot_add("rdma.qp.state");
	event_schema.action = slot_add("event.action");
	event_schema.action_enum = enum_add(event_field_find(RG_EV_EXEC, "event.action"));
}

void event_schema_init(void)
{
	(void)pthread_once(&schema_once, schema_build);
}
