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
	uint64_t count;
	uint16_t resp_len;
	uint8_t *resp, *buf;
	size_t len;
	struct rg_event ev;

	if (size < 10)
		return 0;
	memcpy(&count, data, 8);
	memcpy(&resp_len, data + 8, 2);
	data += 10;
	size -= 10;
	if (resp_len > size)
		resp_len = (uint16_t)size;
	resp = malloc(resp_len ? resp_len : 1);
	if (!resp)
		abort();
	memcpy(resp, data, resp_len);
	len = size - resp_len;
	buf = malloc(len ? len : 1);
	if (!buf)
		abort();
	memcpy(buf, data + resp_len, len);

	memset(&ev, 0, sizeof(ev));
	ev.type = RG_EV_VERBS;
	ev.ts = 1768003200123456789ull;
	ev.proc.pid = 1;
	check(&ev, decode_uverbs_write(buf, len, count, resp_len ? resp : NULL, resp_len,
				       &ev.u.verbs));
	memset(&ev.u.verbs, 0, sizeof(ev.u.verbs));
	check(&ev, decode_uverbs_cmd((uint32_t)count, buf, len, resp_len ? resp : NULL, resp_len,
				     &ev.u.verbs));
	free(resp);
	free(buf);
	return 0;
}
