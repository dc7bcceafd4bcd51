/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the decoders (decode_verbs_cmd.c, decode_verbs_ioctl.c, decode_rdma_cm.c) share: bounded
 * readers of the copied bytes, and the MR access flags as the kernel takes them.
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

/*
 * MR access flags as the kernel takes them (ib_check_mr_access(), IB_UVERBS_ACCESS_OPTIONAL_RANGE):
 * unknown bits in the optional range are dropped, unknown mandatory ones make the call fail.
 * Keeps the bits the event model names, so that an event and its JSON agree; RG_EVF_MALFORMED
 * when the kernel would refuse the flags, else 0.
 */
uint32_t decode_access_known(struct rg_ev_verbs *v);
