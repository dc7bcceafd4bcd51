/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The on-disk spool of one syslog output: a write-ahead log of formatted records that survives
 * restarts and crashes, and gives them back in the order they were appended.
 *
 * Layout, in DIR (created 0700; every file 0600, opened relative to DIR, no symlinks followed):
 *   lock                    flock()ed while open: one process per spool
 *   cursor                  two 256-byte slots (A/B, newest valid generation wins): for each
 *                           queue the sequence number of its first live record, the next
 *                           sequence number, and the persistent drop counters
 *   Q-SSSSSSSSSSSSSSSS.seg  segment files of queue Q (0 info .. 4 critical, 5 loss reports),
 *                           SSSS the first sequence number in it (hex); records appended
 * There is one queue per severity so that evicting "the oldest alert of the lowest severity" is
 * dropping the head of a queue; sending merges the queues by sequence number, which restores
 * the order of submission.
 *
 * Record: a 32-byte header {magic "RGS1", payload length, seq, timestamp, queue, crc32 of header
 * and payload} and the payload. On open, every segment is checked: a torn last record (crash
 * mid-write) is truncated away, a damaged record in the middle is cut out by rewriting the
 * segment with the valid records around it. Both are counted (corrupt), never fatal.
 *
 * Capacity: max_bytes and max_records bound the live records (headers included) of queues 0..4;
 * the loss queue has its own loss_max_bytes. Disk use stays below max_bytes + loss_max_bytes +
 * 6 * segment_bytes (+ one record per segment), because a segment is deleted only when all of its
 * records are gone.
 *
 * Not thread-safe: one thread (the output's) owns a spool.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SPOOL_QUEUES	   6
#define SPOOL_Q_LOSS	   5
#define SPOOL_HEADER_SIZE  32

struct spool_config {
	uint64_t max_bytes;	   /* live bytes of queues 0..4 */
	uint32_t max_records;	   /* live records of queues 0..4; 0: no record cap */
	uint64_t loss_max_bytes;   /* live bytes of the loss queue */
	uint64_t segment_bytes;	   /* start a new segment file beyond this size */
	uint32_t max_record_bytes; /* payload size limit */
};

struct spool_record {
	uint64_t seq;
	uint64_t ts_ns;
	unsigned queue;
	const char *data; /* valid until the next spool call */
	uint32_t len;
};

struct spool_stats {
	uint64_t records, bytes;	   /* live, queues 0..4 */
	uint64_t loss_records, loss_bytes; /* live, loss queue */
	uint64_t unsent;		   /* live records not yet handed out by spool_next() */
	uint64_t dropped[SPOOL_QUEUES];	   /* evicted or refused, cumulative, persistent */
	uint64_t corrupt;		   /* torn or damaged records cut out when opening */
	uint64_t files;			   /* segment files */
};

struct spool;

/* Opens (creating) the spool NAME below the directory parent_fd. -EBUSY: in use. */
int spool_open(int parent_fd, const char *name, const struct spool_config *cfg,
	       struct spool **ret);
/* Persists the cursor and closes. NULL is fine. */
void spool_close(struct spool *s);

enum {
	SPOOL_STORED = 0,
	SPOOL_DROPPED = 1, /* not stored: every live record is more severe (counted in dropped) */
};
/*
 * Appends a record to queue q (0..4 severities, SPOOL_Q_LOSS), evicting what the caps require.
 * Durable after spool_sync(). Returns SPOOL_STORED, SPOOL_DROPPED, -E2BIG (larger than
 * max_record_bytes or than the queue's whole capacity; not counted), or -errno from the disk
 * (nothing stored, nothing evicted: try again later).
 */
int spool_append(struct spool *s, unsigned q, uint64_t ts_ns, const void *data, size_t len);
/* fdatasync()s appended data, then writes and syncs the cursor if it changed. */
int spool_sync(struct spool *s);

/*
 * The next record not yet handed out, in sequence order: 1 and *ret, 0 if none, or -errno.
 * -EBADMSG: a record was damaged on disk since the spool was opened; the spool reloaded itself,
 * cutting it out, and rewound (what was handed out before will be handed out again).
 */
int spool_next(struct spool *s, struct spool_record *ret);
/* Removes a delivered record. Must be the oldest live record of its queue, else a no-op. */
void spool_confirm(struct spool *s, unsigned q, uint64_t seq);
/* Forgets what spool_next() handed out: the next spool_next() starts at the oldest live record. */
void spool_rewind(struct spool *s);

void spool_get_stats(const struct spool *s, struct spool_stats *ret);
/* Live records not yet handed out by spool_next(). */
uint64_t spool_unsent(const struct spool *s);
/* Drops counted but not yet taken (persistent across restarts); marks them taken. */
void spool_take_unreported(struct spool *s, uint64_t out[SPOOL_QUEUES]);
