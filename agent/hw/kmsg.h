/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The kernel's log as /dev/kmsg gives it (Documentation/ABI/testing/dev-kmsg), read as journald
 * reads it: one record per read(), non-blocking, from the end of the buffer at start, an EPIPE
 * (records overwritten before we read them) counted and skipped. Only the kernel's own records
 * count: a process may write to /dev/kmsg too (its records carry facility LOG_USER, 1, or
 * whatever it chose but 0: the kernel turns a facility 0 from user space into LOG_USER), so a
 * forged "DMAR: ..." line from a user is never taken for the kernel's.
 *
 * kmsg_parse() is pure (fixtures, fuzz target "kmsg"); the reader is a thin loop over it.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define KMSG_RECORD_MAX 8192 /* the kernel's CONSOLE_EXT_LOG_MAX: a read() gets one whole record */
#define KMSG_TEXT_MAX	1024 /* what is kept of a message */

struct kmsg_record {
	unsigned facility, level;
	uint64_t seq;
	uint64_t ts_us;	 /* CLOCK_MONOTONIC at the printk, microseconds */
	bool cont;	 /* a continuation fragment (flag 'c') */
	char text[KMSG_TEXT_MAX]; /* the message, unescaped \xNN kept as is, NUL-terminated */
	char subsystem[16];	  /* dictionary SUBSYSTEM= (dev_printk), "" */
	char device[48];	  /* dictionary DEVICE= ("+pci:0000:01:00.0"), "" */
};

/*
 * Parses one record as read() returns it: "PRI,SEQ,TS,FLAGS[,...];TEXT\n[ KEY=VALUE\n]...".
 * 0, or -EINVAL for anything else. Control bytes in TEXT end up as '?' (the kernel escapes them
 * as \xNN already; a record is still hostile input).
 */
int kmsg_parse(const char *buf, size_t len, struct kmsg_record *rec);

/* The kernel's record: facility 0 (LOG_KERN). User-space writes never have it. */
static inline bool kmsg_from_kernel(const struct kmsg_record *rec)
{
	return rec->facility == 0;
}

struct kmsg_reader {
	int fd;
	uint64_t records, lost_gaps, bad, user; /* read; EPIPE gaps; unparsable; not the kernel's */
	uint64_t last_seq;
};

/* Opens path (/dev/kmsg) non-blocking and seeks to its end: only what is logged from now on. */
int kmsg_open(struct kmsg_reader *r, const char *path);
void kmsg_close(struct kmsg_reader *r);

/*
 * Reads one record: 1 a kernel record in *rec, 0 nothing more now (EAGAIN), -errno. Records of
 * user space and unparsable ones are counted and skipped; an overrun (EPIPE) is counted and
 * reading goes on at the oldest record still there.
 */
int kmsg_read(struct kmsg_reader *r, struct kmsg_record *rec);
