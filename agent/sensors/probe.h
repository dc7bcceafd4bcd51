/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Kernel feature probes for the sensors: each answer comes from trying (loading a two-instruction
 * program, attaching it, detaching it) or from what the kernel exposes (tracefs, kallsyms, BTF),
 * never from the kernel version.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

struct sensors_features {
	bool tracefs;	 /* tracefs mounted (mounted by us if it was not) */
	bool syscall_tp; /* syscalls:sys_enter_ioctl exists */
	bool raw_tp;	 /* BPF_PROG_TYPE_RAW_TRACEPOINT loads */
	bool kprobe;	 /* the kprobe PMU or kprobe_events exists */
	bool uprobe;	 /* the uprobe PMU or uprobe_events exists */
	bool fentry;	 /* an fentry program loads and attaches */
	bool lsm;	 /* BPF LSM is active and an LSM program loads and attaches */
	bool ringbuf;	 /* BPF_MAP_TYPE_RINGBUF */
	int ringbuf_error; /* why the probe failed (-EPERM: not privileged), 0 if it ran */
	bool tc;	 /* BPF_PROG_TYPE_SCHED_CLS */
	bool module_tp;	 /* module:module_load exists */
	char lsms[256];	 /* /sys/kernel/security/lsm */
};

/* Mounts tracefs (and securityfs) if needed and probes. Never fails: missing means false. */
void sensors_probe_features(struct sensors_features *f);

/* The tracing events directory in use ("/sys/kernel/tracing/events" or the debugfs one). */
const char *tracefs_events_dir(void);
bool tracepoint_exists(const char *category, const char *name);

/* Kernel functions: in vmlinux or module BTF (for fentry), or in kallsyms (for kprobes). */
bool kfunc_in_btf(const char *func, const char *module);
bool kfunc_in_kallsyms(const char *func);

/*
 * Byte offsets of struct inode's ctime seconds and nanoseconds in the running kernel, from its
 * BTF (i_ctime_sec/i_ctime_nsec since 6.11, __i_ctime or i_ctime timespec64 before). 0 or
 * -ENOENT (cached after the first call).
 */
int kernel_inode_ctime_offsets(uint32_t *sec, uint32_t *nsec);

/*
 * The kernel offers the bpf_loop() helper (5.17). Unknown (the probe fails): assumed. Cached.
 * probe_assume_no_bpf_loop() makes it false from then on (tests of the pre-5.17 path).
 */
bool kernel_has_bpf_loop(void);
void probe_assume_no_bpf_loop(void);

/* A module is loaded (live) or built in. */
bool module_present(const char *name);
bool module_has_btf(const char *name);
