/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The kernel's log as /dev/kmsg gives it (Documentation/ABI/testing/dev-kmsg), read as journald
 * reads it: one record per read(), non-blocking, an EPIPE (records overwritten before we read
 * them) or a jump in the sequence numbers counted as a gap. At start the reader begins with the
 * records already in the buffer: those read before the first "nothing more" are historical (they
 * were logged before the daemon read them, most before it started). Only the kernel's own records
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
	bool has_dict;	 /* the record has a dictionary (" KEY=VALUE" lines) */
	bool historical; /* in the buffer when the reader opened it (kmsg_read()) */
	char caller;	 /* CONFIG_PRINTK_CALLER: 'T' (a task), 'C' (a CPU: interrupt), 0 none */
	uint32_t caller_id; /* the task's pid or the CPU */
	char text[KMSG_TEXT_MAX]; /* the message, unescaped \xNN kept as is, NUL-terminated */
	char subsystem[16];	  /* dictionary SUBSYSTEM= (dev_printk), "" */
	char device[48];	  /* dictionary DEVICE= ("+pci:0000:01:00.0"), "" */
};

/*
 * Parses one record as read() returns it: "PRI,SEQ,TS,FLAGS[,caller=T123][,...];TEXT\n
 * [ KEY=VALUE\n]...".
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
	uint64_t records, lost_gaps, bad, user; /* read; gaps; unparsable; not the kernel's */
	uint64_t lost_records; /* records known lost in gaps (sequence jumps) */
	uint64_t historical;   /* records read that were already in the buffer */
	uint64_t last_seq;
	bool have_seq;	       /* last_seq is set */
	bool in_history;       /* still reading what was in the buffer at open */
	bool epipe;	       /* the last read was an EPIPE */
};

/*
 * Opens path (/dev/kmsg) non-blocking. With history, reading starts at the oldest record still
 * in the buffer, and what is read before the first "nothing more" is marked historical;
 * without, at the end of the buffer: only what is logged from now on.
 */
int kmsg_open(struct kmsg_reader *r, const char *path, bool history);
void kmsg_close(struct kmsg_reader *r);

/*
 * Reads one record: 1 a kernel record in *rec, 0 nothing more now (EAGAIN), -errno. Records of
 * user space and unparsable ones are counted and skipped; an overrun (EPIPE) or a sequence number
 * that jumps is counted in lost_gaps (the caller compares it to see a loss) and reading goes on
 * at the oldest record still there.
 */
int kmsg_read(struct kmsg_reader *r, struct kmsg_record *rec);
