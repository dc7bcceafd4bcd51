// SPDX-License-Identifier: GPL-2.0-only
/*
 * 32-bit system calls on the syscall-level flavours: an ia32 process (gcc -m32), or int $0x80
 * from 64-bit code, calls the kernel through the ia32 table, which the syscalls:* tracepoints
 * skip altogether and whose entry functions (__ia32_sys_*, __ia32_compat_sys_ioctl) are not the
 * __x64_sys_* ones the fentry flavour hooks. The raw_syscalls tracepoints see every call; these
 * two programs return at once for a 64-bit one (one load: thread_info.status), and hand a 32-bit
 * one to the native programs' handlers (bpf/syscalls.bpf.h), for the hook points that are on the
 * syscall level (rg_compat_hooks, set by the agent):
 *   open, openat, openat2, creat       HP_OPEN on the tracepoints (fd_install() sees them else)
 *   ioctl, write                       HP_VERBS/HP_RDMA_CM on the syscalls (the ib_uverbs and
 *                                      rdma_ucm hooks see them else; write() follows
 *                                      rg_sys_write_nodes as the native one does)
 *   mmap2, old mmap                    HP_MMAP on the tracepoints
 *   process_vm_readv/writev, ptrace    HP_MEMORY on the tracepoints
 * Not read: writev() and pwritev2() (32-bit iovecs) on a uverbs or rdma_cm fd; the sensor plan
 * says so (agent/sensors/compat.c).
 */
#include "common.bpf.h"
#include "compat_nr.h"
#include "syscalls.bpf.h"

#define PTRACE_ATTACH 16
#define PTRACE_SEIZE  0x4206

/* enum rg_mem_op (agent/event/event.h), as memory.bpf.c */
#define MEM_READV  1
#define MEM_WRITEV 2
#define MEM_ATTACH 3
#define MEM_SEIZE  4

/* RG_COMPAT_*: set by the agent when hook points move between flavours */
__u32 rg_compat_hooks;

/* struct mmap_arg_struct32, old mmap's one argument */
struct rg_mmap_arg32 {
	__u32 addr, len, prot, flags, fd, offset;
};

SEC("tracepoint/raw_syscalls/sys_enter")
int tp_compat_enter(struct trace_event_raw_sys_enter *ctx)
{
	__u32 hooks = rg_compat_hooks;
	struct rg_mmap_arg32 a;
	long id;

	if (!hooks || !in_compat_syscall_())
		return 0;
	id = ctx->id;
	switch (id) {
	case RG_IA32_IOCTL:
		if (hooks & RG_COMPAT_VERBS)
			rg_compat_ioctl_enter((int)ctx->args[0], (__u32)ctx->args[1],
					      (__u32)ctx->args[2]);
		break;
	case RG_IA32_WRITE:
		rg_compat_write_enter((int)ctx->args[0], (__u32)ctx->args[1], (__u32)ctx->args[2]);
		break;
	case RG_IA32_MMAP2:
		if (hooks & RG_COMPAT_MMAP)
			rg_compat_mmap((int)ctx->args[4], (__u32)ctx->args[1],
				       (__u64)(__u32)ctx->args[5] << 12, (__u32)ctx->args[2],
				       (__u32)ctx->args[3]);
		break;
	case RG_IA32_OLD_MMAP:
		if ((hooks & RG_COMPAT_MMAP) &&
		    !bpf_probe_read_user(&a, sizeof(a), (void *)(__u64)(__u32)ctx->args[0]))
			rg_compat_mmap((int)a.fd, a.len, a.offset, a.prot, a.flags);
		break;
	case RG_IA32_PROCESS_VM_READV:
		if (hooks & RG_COMPAT_MEMORY)
			rg_compat_mem_enter(MEM_READV, (__u32)ctx->args[0]);
		break;
	case RG_IA32_PROCESS_VM_WRITEV:
		if (hooks & RG_COMPAT_MEMORY)
			rg_compat_mem_enter(MEM_WRITEV, (__u32)ctx->args[0]);
		break;
	case RG_IA32_PTRACE:
		if (!(hooks & RG_COMPAT_MEMORY))
			break;
		if ((__s32)ctx->args[0] == PTRACE_ATTACH)
			rg_compat_mem_enter(MEM_ATTACH, (__u32)ctx->args[1]);
		else if ((__s32)ctx->args[0] == PTRACE_SEIZE)
			rg_compat_mem_enter(MEM_SEIZE, (__u32)ctx->args[1]);
		break;
	}
	return 0;
}

SEC("tracepoint/raw_syscalls/sys_exit")
int tp_compat_exit(struct trace_event_raw_sys_exit *ctx)
{
	__u32 hooks = rg_compat_hooks;
	long id, ret;

	if (!hooks || !in_compat_syscall_())
		return 0;
	id = ctx->id;
	ret = ctx->ret;
	switch (id) {
	case RG_IA32_OPEN:
	case RG_IA32_OPENAT:
	case RG_IA32_OPENAT2:
	case RG_IA32_CREAT:
		if (hooks & RG_COMPAT_OPEN)
			rg_compat_open_ret(ret);
		break;
	case RG_IA32_IOCTL:
		rg_compat_ioctl_exit(ret); /* only what the entry left pending */
		break;
	case RG_IA32_WRITE:
		rg_compat_write_exit(ret);
		break;
	case RG_IA32_PROCESS_VM_READV:
	case RG_IA32_PROCESS_VM_WRITEV:
	case RG_IA32_PTRACE:
		rg_compat_mem_exit(ret);
		break;
	}
	return 0;
}
