// SPDX-License-Identifier: GPL-2.0
/*
 * One tiny program per attach type, for the VM lab's bpf-features scenario: which program
 * types load and fire on Debian's 6.1 kernel with rdma_rxe. Built once per PROBE_* macro
 * (each object holds a single program, so one refusal does not hide the others). The programs
 * only count their runs (bpftool reports run_cnt); the LSM one also denies file_open to a task
 * whose comm is "rg-denyme", to show that BPF LSM can enforce.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

#if defined(PROBE_FENTRY)
SEC("fentry/ib_uverbs_ioctl")
int probe(unsigned long long *ctx)
{
	return 0;
}
#elif defined(PROBE_FEXIT)
SEC("fexit/ib_uverbs_write")
int probe(unsigned long long *ctx)
{
	return 0;
}
#elif defined(PROBE_KPROBE)
SEC("kprobe/ib_uverbs_write")
int probe(void *ctx)
{
	return 0;
}
#elif defined(PROBE_TP_BTF)
SEC("tp_btf/sys_enter")
int probe(unsigned long long *ctx)
{
	return 0;
}
#elif defined(PROBE_RAW_TP)
SEC("raw_tp/sys_enter")
int probe(void *ctx)
{
	return 0;
}
#elif defined(PROBE_TRACEPOINT)
SEC("tracepoint/syscalls/sys_enter_ioctl")
int probe(void *ctx)
{
	return 0;
}
#elif defined(PROBE_UPROBE_REG_MR)
/* Two versions in libibverbs (IBVERBS_1.0 and 1.1): libbpf 1.1 cannot pick one by name. */
SEC("uprobe//usr/lib/x86_64-linux-gnu/libibverbs.so.1:ibv_reg_mr")
int probe(void *ctx)
{
	return 0;
}
#elif defined(PROBE_UPROBE_REG_MR_IOVA2)
/* One version (IBVERBS_1.8); ibv_reg_mr() ends up here. */
SEC("uprobe//usr/lib/x86_64-linux-gnu/libibverbs.so.1:ibv_reg_mr_iova2")
int probe(void *ctx)
{
	return 0;
}
#elif defined(PROBE_LSM)
#define EPERM 1
SEC("lsm/file_open")
int probe(unsigned long long *ctx)
{
	static const char deny[16] = "rg-denyme";
	char comm[16];
	int i;

	if (bpf_get_current_comm(comm, sizeof(comm)))
		return 0;
	for (i = 0; i < 16; i++) {
		if (comm[i] != deny[i])
			return 0;
		if (!comm[i])
			break;
	}
	return -EPERM;
}
#else
#error "define one PROBE_*"
#endif
