/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The key of a process: its tgid and its start time in nanoseconds since boot (the task's
 * start_boot_time, as the BPF records and /proc/PID/stat give it). A pid alone is reused; the
 * pair names one process for the whole boot.
 */
#pragma once

#include <stdint.h>

struct proc_key {
	uint32_t pid;
	uint64_t start_boot_ns; /* 0: not known (lookups then take the live process with that pid) */
};

#define PROC_KEY(p, s) ((struct proc_key){.pid = (p), .start_boot_ns = (s)})
