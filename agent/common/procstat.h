/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * /proc/PID/stat, parsed in one place (the audit's process scan, the engine's and the sensors'
 * checks that a pid still names the same process).
 *
 * The text is hostile: comm may hold spaces, parentheses and newlines, so comm runs from the
 * first '(' to the LAST ')', and the fields after it are counted from there. Numbers are parsed
 * strictly (whole field, no sign, no overflow); a stat with fewer than 22 fields is malformed.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

struct proc_stat {
	const char *comm; /* into the parsed buffer, not NUL-terminated */
	size_t comm_len;
	char state;		  /* field 3 */
	uint32_t ppid, pgid, sid; /* fields 4, 5, 6 */
	uint64_t flags;		  /* field 9 (PF_*) */
	uint64_t start_ticks;	  /* field 22, clock ticks since boot */
};

#ifndef PF_KTHREAD
#define PF_KTHREAD 0x00200000 /* include/linux/sched.h */
#endif

/* Parses the stat text in buf, len bytes and a NUL after them (fields are cut in place).
 * 0 or -EBADMSG. */
int proc_stat_parse(char *buf, size_t len, struct proc_stat *ret);

/* Clock ticks since boot (field 22) in nanoseconds (exact for centuries of uptime). */
uint64_t proc_ticks_to_ns(uint64_t ticks);

/*
 * Reads and parses /proc/PID/stat of the host into buf (size bytes: 4096 holds any stat), so
 * ret->comm points into buf. 0, -errno of open/read (-ENOENT: the process is gone), -EBADMSG
 * (malformed or longer than size - 1).
 */
int proc_stat_read(uint32_t pid, char *buf, size_t size, struct proc_stat *ret);
