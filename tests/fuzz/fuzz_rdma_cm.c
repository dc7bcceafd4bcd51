/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * decode_rdma_cm_write() and decode_sockaddr(): write() on /dev/infiniband/rdma_cm (struct
 * rdma_ucm_cmd_hdr and a command with socket addresses: AF_INET, AF_INET6, AF_IB). Input:
 * [count u64][resp_len u16][resp] then the written bytes, each piece in an exact-size allocation;
 * the written bytes also go to decode_sockaddr(). Properties: known flags only, op in range,
 * the event survives the JSON round trip.
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t count;
	uint16_t resp_len;
	uint8_t *resp, *buf;
	struct rg_addr a;
	struct rg_event ev;
	uint32_t flags;
	size_t len;

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
	ev.type = RG_EV_RDMA_CM;
	ev.ts = 1768003200123456789ull;
	ev.proc.pid = 1;
	flags = decode_rdma_cm_write(buf, len, count, resp_len ? resp : NULL, resp_len, &ev.u.cm);
	FUZZ_ASSERT(!(flags & ~(RG_EVF_TRUNC | RG_EVF_MALFORMED)), "flags 0x%x", flags);
	FUZZ_ASSERT(ev.u.cm.op < RG_CM__MAX, "op %u", ev.u.cm.op);
	ev.flags = flags;
	fuzz_check_event(&ev);

	memset(&a, 0, sizeof(a));
	flags = decode_sockaddr(buf, len, &a);
	FUZZ_ASSERT(!(flags & ~(RG_EVF_TRUNC | RG_EVF_MALFORMED)), "flags 0x%x", flags);
	free(resp);
	free(buf);
	return 0;
}
