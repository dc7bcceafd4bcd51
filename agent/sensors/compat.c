/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * 32-bit system calls: the ia32 numbers the tp_compat_* programs dispatch on (bpf/compat.bpf.h),
 * checked against the kernel's table, and what the chosen flavours do not see of them (the sensor
 * plan says so).
 * An ia32 process, or int $0x80 from 64-bit code, enters through the ia32 table: the syscalls:*
 * tracepoints skip those calls and the fentry flavour's __x64_sys_* functions are not called;
 * fd_install(), the ib_uverbs/rdma_ucm functions and security_* hooks see them like any other.
 */
#include <stdio.h>
#if defined(__x86_64__)
#include <asm/unistd_32.h>
#endif

#include "bpf/compat_nr.h"
#include "compat.h"

#if defined(__x86_64__)
_Static_assert(__NR_write == RG_IA32_WRITE && __NR_open == RG_IA32_OPEN &&
		   __NR_creat == RG_IA32_CREAT && __NR_ptrace == RG_IA32_PTRACE &&
		   __NR_ioctl == RG_IA32_IOCTL && __NR_mmap == RG_IA32_OLD_MMAP &&
		   __NR_writev == RG_IA32_WRITEV && __NR_mmap2 == RG_IA32_MMAP2 &&
		   __NR_openat == RG_IA32_OPENAT && __NR_process_vm_readv == RG_IA32_PROCESS_VM_READV &&
		   __NR_process_vm_writev == RG_IA32_PROCESS_VM_WRITEV &&
		   __NR_pwritev2 == RG_IA32_PWRITEV2 && __NR_openat2 == RG_IA32_OPENAT2,
	       "ia32 syscall numbers (bpf/compat_nr.h)");
#endif

static bool on_flavor(const struct plan *p, unsigned hp, enum flavor fl)
{
	const struct variant *v = variant_of(hp, p->hp[hp].active);

	return v && v->flavor == fl && !v->module;
}

static bool on_syscalls(const struct plan *p, unsigned hp)
{
	return on_flavor(p, hp, FL_TRACEPOINT) || on_flavor(p, hp, FL_FENTRY);
}

static void add(struct json_object *a, const char *s)
{
	json_object_array_add(a, json_object_new_string(s));
}

struct json_object *compat_not_seen(const struct plan *p)
{
	struct json_object *a = json_object_new_array();
	bool syscalls = on_flavor(p, HP_OPEN, FL_TRACEPOINT) || on_syscalls(p, HP_VERBS) ||
			on_syscalls(p, HP_RDMA_CM) || on_flavor(p, HP_MMAP, FL_TRACEPOINT) ||
			on_flavor(p, HP_MEMORY, FL_TRACEPOINT);

	if (!a)
		return NULL;
#if !defined(__x86_64__)
	(void)syscalls;
	add(a, "32-bit system calls of the hook points on the syscall level: no ia32 table on "
	       "this architecture is decoded");
#else
	if (syscalls && p->hp[HP_COMPAT].active < 0)
		add(a, "every 32-bit system call of the hook points on the syscall level (open, "
		       "creat, ioctl, write, mmap2, process_vm_readv/writev, ptrace): no "
		       "raw_syscalls tracepoint");
	if (on_syscalls(p, HP_VERBS) || on_syscalls(p, HP_RDMA_CM))
		add(a, "writev() and pwritev2() of a 32-bit process on a uverbs or rdma_cm fd: "
		       "its 32-bit iovecs are not read");
	if (!on_syscalls(p, HP_VERBS) && p->hp[HP_VERBS].active >= 0)
		add(a, "the fd number of a 32-bit process's verbs command (reported as -1)");
#endif
	return a;
}
