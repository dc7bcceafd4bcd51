/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fields copied by table (struct field_copy, decode-internal.h): from the bytes of a command or
 * its response into the event's struct, each only if the bytes hold all of it, a narrower one
 * zero-extended.
 */
#include <string.h>

#include "decode-internal.h"

static uint64_t load_uint(const uint8_t *p, size_t n)
{
	uint8_t u8;
	uint16_t u16;
	uint32_t u32;
	uint64_t u64;

	switch (n) {
	case 1:
		memcpy(&u8, p, 1);
		return u8;
	case 2:
		memcpy(&u16, p, 2);
		return u16;
	case 4:
		memcpy(&u32, p, 4);
		return u32;
	default:
		memcpy(&u64, p, 8);
		return u64;
	}
}

static void store_uint(uint8_t *p, size_t n, uint64_t x)
{
	uint16_t u16 = (uint16_t)x;
	uint32_t u32 = (uint32_t)x;

	if (n == 2)
		memcpy(p, &u16, 2);
	else if (n == 4)
		memcpy(p, &u32, 4);
	else
		memcpy(p, &x, 8);
}

/* Copies one field if the bytes hold it; false (the event untouched) if they do not. */
static bool copy_field(const uint8_t *b, size_t len, const struct field_copy *c, void *ev)
{
	uint8_t *to = (uint8_t *)ev + c->to, tmp[8];

	if (c->size == c->to_size)
		return rdn(b, len, c->from, to, c->size);
	if (c->size > sizeof(tmp) || !rdn(b, len, c->from, tmp, c->size))
		return false;
	store_uint(to, c->to_size, load_uint(tmp, c->size));
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
