/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * decode_uverbs_write() and decode_uverbs_cmd(): write() on a uverbs fd (the legacy command ABI,
 * extended commands included) as the sensor copies it. Input: [count u64][resp_len u16][resp]
 * then the written bytes; each piece in an exact-size allocation. The same bytes also go to
 * decode_uverbs_cmd() as the body of the command word count's low 32 bits (what INVOKE_WRITE
 * tunnels). Properties: known flags only, enums in range, the events survive the JSON round trip.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "sensors/decode.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_quiet();
	return 0;
}

static void check(struct rg_event *ev, uint32_t flags)
{
	FUZZ_ASSERT(!(flags & ~(RG_EVF_TRUNC | RG_EVF_MALFORMED)), "flags 0x%x", flags);
	FUZZ_ASSERT(ev->u.verbs.op < RG_OP__MAX && ev->u.verbs.via < RG_VIA__MAX, "op %u via %u",
		    ev->u.verbs.op, ev->u.verbs.via);
	ev->flags = flags;
	fuzz_check_event(ev);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_write w;
	struct rg_event ev;

	if (!fuzz_split_write(data, size, &w))
		return 0;

	memset(&ev, 0, sizeof(ev));
	ev.type = RG_EV_VERBS;
	ev.ts = 1768003200123456789ull;
	ev.proc.pid = 1;
	check(&ev, decode_uverbs_write(w.buf, w.len, w.count, w.resp_len ? w.resp : NULL,
				       w.resp_len, &ev.u.verbs));
	memset(&ev.u.verbs, 0, sizeof(ev.u.verbs));
	check(&ev, decode_uverbs_cmd((uint32_t)w.count, w.buf, w.len, w.resp_len ? w.resp : NULL,
				     w.resp_len, &ev.u.verbs));
	free(w.resp);
	free(w.buf);
	return 0;
}
