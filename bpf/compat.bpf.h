/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * 32-bit system calls on the syscall-level flavours: an ia32 process (gcc -m32), or int $0x80
 * from 64-bit code, calls the kernel through the ia32 table, which the syscalls:* tracepoints skip
 * altogether and whose entry functions (__ia32_sys_*, __ia32_compat_sys_ioctl) are not the
 * __x64_sys_* ones the fentry flavour hooks. The raw_syscalls tracepoints see every call: each
 * hook point's file has its own programs there (tp_compat_*: files.bpf.c for open, openat,
 * openat2, creat, mmap2 and old mmap; verbs.bpf.c for ioctl and write; memory.bpf.c for
 * process_vm_readv/writev and ptrace), which return at once unless their hook point is on the
 * syscall level (rg_compat_hooks) and the call is a 32-bit one (in_compat_syscall_(): one load),
 * then run the native handlers with the ia32 numbers (compat_nr.h). One program per file keeps
 * each as deep as the native ones (a dispatcher calling global functions went past the 512-byte
 * stack on 6.1). Not read: a 32-bit writev() or pwritev2() on a uverbs or rdma_cm fd.
 */
#pragma once

#include "common.bpf.h"
#include "compat_nr.h"

/* RG_COMPAT_*: set by the agent (agent/sensors/links.c) as hook points move between flavours */
__u32 rg_compat_hooks __weak;
