/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fields copied by table (struct field_copy, decode-internal.h): from the bytes of a command or
 * its response into the event's struct, each only if the bytes hold all of it; a number into a
 * wider field is zero-extended.
 */
#include <string.h>

#include "decode-internal.h"

/* Copies one field if the bytes hold it; false (the event untouched) if they do not. The sizes
 * are those of struct fields: constant-size copies, no call to memcpy() on this path. */
static bool copy_field(const uint8_t *b, size_t len, const struct field_copy *c, void *ev)
{
	uint8_t *to = (uint8_t *)ev + c->to;
	const uint8_t *from;
	uint16_t u16;
	uint32_t u32;
	uint64_t x;

	if (!b || c->from > len || len - c->from < c->size)
		return false;
	from = b + c->from;
	switch (c->size) {
	case 1:
		x = *from;
		break;
	case 2:
		memcpy(&u16, from, 2);
		x = u16;
		break;
	case 4:
		memcpy(&u32, from, 4);
		x = u32;
		break;
	case 8:
		memcpy(&x, from, 8);
		break;
	default:
		memcpy(to, from, c->size); /* bytes (a GID): as large as the event's */
		return true;
	}
	/* a number: zero-extended to the event's field */
	switch (c->to_size) {
	case 1:
		*to = (uint8_t)x;
		break;
	case 2:
		u16 = (uint16_t)x;
		memcpy(to, &u16, 2);
		break;
	case 4:
		u32 = (uint32_t)x;
		memcpy(to, &u32, 4);
		break;
	default:
		memcpy(to, &x, 8);
		break;
	}
	return true;
}

bool decode_copy_fields(const uint8_t *b, size_t len, const struct field_copy *c, size_t n,
			void *ev)
{
	bool all = true;

	for (size_t i = 0; i < n && c[i].size; i++)
		if (!copy_field(b, len, &c[i], ev))
			all = false;
	return all;
}
