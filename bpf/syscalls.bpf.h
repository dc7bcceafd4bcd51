/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The syscall-level handlers that the 32-bit programs (bpf/compat.bpf.c) share with the native
 * ones: global BPF functions (verified once each, scalars in), defined next to the native
 * programs of their hook point (files.bpf.c, verbs.bpf.c, memory.bpf.c). Arguments are the
 * 32-bit call's, zero-extended.
 */
#pragma once

/* files.bpf.c: an open, openat, openat2 or creat returned ret; an mmap (off in bytes) */
int rg_compat_open_ret(long ret);
int rg_compat_mmap(int fd, __u64 len, __u64 off, __u32 prot, __u64 flags);
/* verbs.bpf.c: ioctl and write(), entry and exit */
int rg_compat_ioctl_enter(int fd, __u64 cmd, __u64 arg);
int rg_compat_ioctl_exit(long ret);
int rg_compat_write_enter(int fd, __u64 buf, __u64 cnt);
int rg_compat_write_exit(long ret);
/* memory.bpf.c: process_vm_readv/writev, ptrace (op: MEM_*), entry and exit */
int rg_compat_mem_enter(__u32 op, __u32 target);
int rg_compat_mem_exit(long ret);
