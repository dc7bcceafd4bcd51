/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * decode_uverbs_ioctl(): what a process passes to ioctl(RDMA_VERBS_IOCTL), as the BPF sensor
 * copies it. Input: [nblobs % 9] then nblobs times {attr u16, len u16, len bytes} (the
 * contents of pointer attributes), then the ioctl buffer (header and attributes). Every piece is
 * in its own exact-size allocation, so a read past any of them is an ASan error.
 * Properties: known flags only, enums in range, and the event survives the JSON round trip.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "sensors/decode.h"

#define MAX_BLOBS 8

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_quiet();
	return 0;
}

static uint8_t *piece(const uint8_t *data, size_t len)
{
	uint8_t *p = malloc(len ? len : 1);

	if (!p)
		abort();
	if (len)
		memcpy(p, data, len);
	return p;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct uverbs_blob blobs[MAX_BLOBS];
	uint8_t *owned[MAX_BLOBS], *buf;
	const uint8_t *p = data, *end = data + size;
	size_t nblobs, i;
	struct rg_event ev;
	uint32_t flags;

	if (size < 1)
		return 0;
	nblobs = *p++ % (MAX_BLOBS + 1);
	for (i = 0; i < nblobs; i++) {
		uint16_t attr = 0, len = 0;

		if (end - p >= 4) {
			memcpy(&attr, p, 2);
			memcpy(&len, p + 2, 2);
			p += 4;
		}
		if (len > end - p)
			len = (uint16_t)(end - p);
		owned[i] = piece(p, len);
		blobs[i] = (struct uverbs_blob){.attr = attr, .len = len, .data = owned[i]};
		p += len;
	}
	buf = piece(p, (size_t)(end - p));

	memset(&ev, 0, sizeof(ev));
	ev.type = RG_EV_VERBS;
	ev.ts = 1768003200123456789ull;
	ev.proc.pid = 1;
	flags = decode_uverbs_ioctl(buf, (size_t)(end - p), nblobs ? blobs : NULL, nblobs,
				    &ev.u.verbs);
	FUZZ_ASSERT(!(flags & ~(RG_EVF_TRUNC | RG_EVF_MALFORMED)), "flags 0x%x", flags);
	FUZZ_ASSERT(ev.u.verbs.op < RG_OP__MAX && ev.u.verbs.via < RG_VIA__MAX, "op %u via %u",
		    ev.u.verbs.op, ev.u.verbs.via);
	ev.flags = flags;
	fuzz_check_event(&ev);
	for (i = 0; i < nblobs; i++)
		free(owned[i]);
	free(buf);
	return 0;
}
