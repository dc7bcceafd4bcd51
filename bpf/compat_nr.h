/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The ia32 system call numbers the 32-bit programs dispatch on (bpf/compat.bpf.h, and
 * enforcement's in bpf/enforce.bpf.c): the raw_syscalls tracepoints give a 32-bit call's number
 * from the ia32 table, not the x86-64 one. Checked against <asm/unistd_32.h> in
 * agent/sensors/compat.c. Also the agent's knobs about them (plain constants: included by the
 * agent too).
 */
#pragma once

#define RG_IA32_WRITE		  4
#define RG_IA32_OPEN		  5
#define RG_IA32_CREAT		  8
#define RG_IA32_PTRACE		  26
#define RG_IA32_IOCTL		  54
#define RG_IA32_OLD_MMAP	  90 /* one argument: a struct mmap_arg_struct32 */
#define RG_IA32_WRITEV		  146
#define RG_IA32_MMAP2		  192
#define RG_IA32_OPENAT		  295
#define RG_IA32_PROCESS_VM_READV  347
#define RG_IA32_PROCESS_VM_WRITEV 348
#define RG_IA32_PWRITEV2	  379
#define RG_IA32_OPENAT2		  437

/* rg_compat_hooks (the sensors' bss, agent/sensors/links.c): which hook points' 32-bit calls the
 * compat programs report; a hook point below the syscalls (fd_install, the ib_uverbs functions,
 * security_*) sees them itself. */
#define RG_COMPAT_OPEN	 0x1u
#define RG_COMPAT_VERBS	 0x2u /* ioctl; write() follows rg_sys_write_nodes */
#define RG_COMPAT_MMAP	 0x4u
#define RG_COMPAT_MEMORY 0x8u

/* rg_enf_kill_tps (the sensors' bss, set by agent/enforce/enforce.c): enforcement's kill
 * programs on the open exits that are attached; a sensor running on such a syscall leaves the
 * open out when the verdict kills, since that program reports it (bpf/files.bpf.c). */
#define RG_KILLTP_OPEN	       0x01u /* syscalls/sys_exit_open */
#define RG_KILLTP_OPENAT       0x02u
#define RG_KILLTP_OPENAT2      0x04u
#define RG_KILLTP_CREAT	       0x08u
#define RG_KILLTP_COMPAT_OPENS 0x10u /* raw_syscalls/sys_exit: the ia32 open, openat, openat2, creat */
