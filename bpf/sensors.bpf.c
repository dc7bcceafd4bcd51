// SPDX-License-Identifier: GPL-2.0-only
/* Placeholder sensor until the sensors land: counts execs, proves the build pipeline. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

__u64 exec_count;

SEC("tracepoint/sched/sched_process_exec")
int handle_exec(void *ctx)
{
	__sync_fetch_and_add(&exec_count, 1);
	return 0;
}
