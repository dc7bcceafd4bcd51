/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The event reader's index of the field table (event_schema.c builds it once): every member
 * name that leads to a field, in a tree of nodes (node 0 is the top level, then "process",
 * "process.parent", ...), each field's slot, and the names of the enum fields' values, all in
 * one open-addressing hash on (parent node, name). The lookups are inline here: the reader
 * (event_reader.c) does one per member of every line.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "event_json-internal.h"

#define MAX_SLOTS	 256
#define MAX_NODES	 64
#define MAX_ENUMS	 16
#define ENUM_VALUES	 256 /* looked up in the table: values below this */
#define ENUM_NODE(e)	 (MAX_NODES + (e)) /* an enum's names, under a node of their own */
#define MAX_KEYS	 1024
#define KEY_HASH_SIZE	 2048 /* power of two, > 2 x MAX_KEYS */

/* A member name under a node: a field (slot >= 0) or an object on the way to fields; under
 * ENUM_NODE(e), a name of enum e (slot: its value). */
struct key_entry {
	const char *key; /* not NUL-terminated: len bytes */
	uint64_t w0;	 /* its first 8 bytes, as key_hash() loads them */
	uint16_t len;
	uint16_t parent;
	int16_t slot;
	int16_t node;
	uint16_t id; /* its index in event_schema.key */
};

struct event_schema {
	unsigned n; /* slots */
	uint16_t common[EVENT_NCOMMON];
	uint16_t type[RG_EV__MAX][EVENT_MAX_TYPE_FIELDS];
	int qp_state, action;
	struct key_entry key[MAX_KEYS];
	unsigned nkey, nnode;
	/* The enum fields' names, by their from_str (a field name may have two: rdma.op). */
	int (*enum_from[MAX_ENUMS])(const char *);
	unsigned nenum, action_enum;
	int16_t hash[KEY_HASH_SIZE]; /* key + 1; 0: empty */
	/* The slots below each node: a member met again replaces the first one whole, as in
	 * json-c, so entering one forgets what an earlier member of that name left in them. */
	uint64_t below[MAX_NODES][MAX_SLOTS / 64];
};
extern struct event_schema event_schema __attribute__((visibility("hidden")));

/* Builds event_schema from the field table, once (thread-safe). */
void event_schema_init(void);

#define KEY_GOLDEN 0x9e3779b97f4a7c15ull

/* The n (< 8) bytes at s as a little-endian word, zero above them; s[0..8) is read whole where
 * it lies before end. */
static inline uint64_t load_tail(const char *s, size_t n, const char *end)
{
	uint64_t w = 0;

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	if (end - s >= 8) {
		memcpy(&w, s, 8);
		return n ? w & (~0ull >> (64 - 8 * n)) : 0;
	}
#endif
	memcpy(&w, s, n);
	return w;
}

/* A member name's hash under its parent node, a word at a time; *w0: its first 8 bytes. */
static inline uint32_t key_hash(unsigned parent, const char *s, size_t len, const char *end,
				uint64_t *w0)
{
	uint64_t h = (parent + 1) * KEY_GOLDEN ^ len, w;
	size_t i;

	for (i = 0; i + 8 <= len; i += 8) {
		memcpy(&w, s + i, 8);
		if (i == 0)
			*w0 = w;
		h = (h ^ w) * KEY_GOLDEN;
		h ^= h >> 29;
	}
	w = load_tail(s + i, len - i, end);
	if (i == 0)
		*w0 = w;
	h = (h ^ w) * KEY_GOLDEN;
	return (uint32_t)(h >> 40) & (KEY_HASH_SIZE - 1);
}

/* Whether the text at s (before end, where a NUL is) is entry k's name and its closing
 * quote. */
static inline bool key_at(const struct key_entry *k, const char *s, const char *end)
{
	size_t len = k->len, i = 8;
	uint64_t w0;

	if ((size_t)(end - s) < len + 1 || s[len] != '"')
		return false;
	if (len >= 8)
		memcpy(&w0, s, 8);
	else
		w0 = load_tail(s, len, end);
	if (k->w0 != w0)
		return false;
	while (i < len && k->key[i] == s[i])
		i++;
	return i >= len;
}

/* The entry for the name s[0..len) under parent, or NULL; end: where the text ends. */
static inline const struct key_entry *key_find(unsigned parent, const char *s, size_t len,
					       const char *end)
{
	uint64_t w0;
	uint32_t h = key_hash(parent, s, len, end, &w0);

	for (; event_schema.hash[h]; h = (h + 1) & (KEY_HASH_SIZE - 1)) {
		const struct key_entry *k = &event_schema.key[event_schema.hash[h] - 1];
		size_t i = 8;

		if (k->w0 != w0 || k->parent != parent || k->len != len)
			continue;
		while (i < len && k->key[i] == s[i])
			i++;
		if (i >= len)
			return k;
	}
	return NULL;
}
