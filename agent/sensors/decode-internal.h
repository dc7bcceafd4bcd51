/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the decoders (decode_verbs_cmd.c, decode_verbs_ioctl.c, decode_rdma_cm.c) share: bounded
 * readers of the copied bytes, fields copied by table (decode_fields.c), and the MR access flags
 * as the kernel takes them.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "decode.h"

/* ---- bounded little-endian readers: false (nothing written) past len or without b ---- */
static inline bool rdn(const uint8_t *b, size_t len, size_t off, void *out, size_t n)
{
	if (!b || off > len || len - off < n)
		return false;
	memcpy(out, b + off, n);
	return true;
}

static inline bool rd16(const uint8_t *b, size_t len, size_t off, uint16_t *out)
{
	return rdn(b, len, off, out, 2);
}

static inline bool rd64(const uint8_t *b, size_t len, size_t off, uint64_t *out)
{
	return rdn(b, len, off, out, 8);
}

/* One field copied from a command (or its response) into the event's struct. */
struct field_copy {
	uint16_t from;	 /* offset in the command or the response */
	uint8_t size;	 /* its size there; 0 ends a list */
	uint8_t to_size; /* the event's field: as large, or larger (zero-extended) */
	uint16_t to;	 /* offset in the event's struct */
};

#define FIELD_SIZE(T, F) sizeof(((T *)0)->F)
/* Field F of struct T into field D of the event's struct E, which must be at least as large. */
#define FIELD_COPY(T, F, E, D)                                                                     \
	{                                                                                          \
		.from = offsetof(T, F), .size = FIELD_SIZE(T, F),                                  \
		.to_size = FIELD_SIZE(E, D) +                                                      \
			   0 * sizeof(char[FIELD_SIZE(E, D) >= FIELD_SIZE(T, F) ? 1 : -1]),        \
		.to = offsetof(E, D),                                                              \
	}

/*
 * Copies the fields of the list c (at most n, up to one of size 0) that the len bytes at b hold
 * into ev; the others are left as they are. Whether all were there.
 */
bool decode_copy_fields(const uint8_t *b, size_t len, const struct field_copy *c, size_t n,
			void *ev);

/*
 * MR access flags as the kernel takes them (ib_check_mr_access(), IB_UVERBS_ACCESS_OPTIONAL_RANGE):
 * unknown bits in the optional range are dropped, unknown mandatory ones make the call fail.
 * Keeps the bits the event model names, so that an event and its JSON agree; RG_EVF_MALFORMED
 * when the kernel would refuse the flags, else 0.
 */
uint32_t decode_access_known(struct rg_ev_verbs *v);
