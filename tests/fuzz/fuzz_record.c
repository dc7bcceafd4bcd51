/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * record_to_event(): a BPF ring buffer record (bpf/events.h) as the agent receives it, with the
 * strings, lengths and user buffers a hostile process controls (exec arguments, paths, ioctl and
 * write() buffers, device names) and counts the agent must not trust. Input: the record (in an
 * exact-size, 8-byte aligned allocation, as the ring buffer hands it out).
 * Properties: a converted event has a valid type, known flags and survives the JSON round trip.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "bpf/events.h"
#include "common/macro.h"
#include "common/strutil.h"
#include "sensors/convert.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_quiet();
	return 0;
}

static void devname(void *ud, uint32_t rdev, char *buf, size_t size)
{
	if (rdev & 1)
		strscpy_ok(buf, "rxe0", size);
}

static int proc_info(void *ud, uint32_t pid, uint64_t *start_boot_ns, char comm[RG_COMM_LEN])
{
	if (pid % 3 == 0)
		return -ESRCH;
	*start_boot_ns = (uint64_t)pid * 1000000000ull;
	strscpy_ok(comm, "target", RG_COMM_LEN);
	return 0;
}

static void self_name(void *ud, uint32_t kind, uint32_t id, char *buf, size_t size)
{
	if (id & 1)
		strscpy_ok(buf, kind == RG_SELF_MAP ? "counters" : "tp_sched_exec", size);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct convert_ctx ctx = {
		.boot_to_real_ns = 1768003200ull * 1000000000ull,
		.devname = devname,
		.proc_info = proc_info,
		.self_name = self_name,
	};
	void *rec = malloc(size ? size : 1);
	struct rg_event ev;
	int r;

	if (!rec)
		abort();
	if (size)
		memcpy(rec, data, size);
	r = record_to_event(rec, size, &ctx, &ev);
	FUZZ_ASSERT(r == 1 || r == 0 || r == -EBADMSG, "record_to_event returned %d", r);
	if (r == 1) {
		FUZZ_ASSERT(!(ev.flags & ~0x3fu), "flags 0x%x", ev.flags);
		fuzz_check_event(&ev);
	}
	free(rec);
	return 0;
}
