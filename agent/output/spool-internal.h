/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Shared by the parts of the spool (spool.h): spool.c (the on-disk format, opening, recovery,
 * removing records), spool_append.c (appending, eviction, sync, drop accounting) and
 * spool_send.c (handing records out in order, confirming, rewinding).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "spool.h"

#define REC_MAGIC 0x31534752u /* "RGS1" */

struct rec_hdr {
	uint32_t magic;
	uint32_t len;
	uint64_t seq;
	uint64_t ts_ns;
	uint8_t queue;
	uint8_t pad[3];
	uint32_t crc;
};
_Static_assert(sizeof(struct rec_hdr) == SPOOL_HEADER_SIZE, "spool record header size");

struct seg {
	uint64_t first_seq;
	uint64_t size;
	int fd;
	bool dirty; /* appended since the last sync */
};

struct pos {
	size_t seg;
	uint64_t off;
};

struct squeue {
	struct seg *segs;
	size_t n, cap;
	struct pos head, send;
	uint64_t head_seq; /* valid when live_records > 0 */
	uint64_t live_records, live_bytes;
	uint64_t unsent;
	bool send_cached;
	uint64_t send_seq;
	uint32_t send_len;
};

struct spool {
	int dfd;
	int lock_fd;
	int cursor_fd;
	struct spool_config cfg;
	struct squeue q[SPOOL_QUEUES];
	uint64_t next_seq;
	uint64_t dropped[SPOOL_QUEUES], reported[SPOOL_QUEUES];
	uint64_t cursor_gen;
	bool cursor_dirty, dir_dirty;
	uint64_t corrupt;
	char *rbuf; /* SPOOL_HEADER_SIZE + max_record_bytes */
	char name[256];
};

static inline void pos_normalize(const struct squeue *q, struct pos *p)
{
	while (p->seg + 1 < q->n && p->off >= q->segs[p->seg].size) {
		p->seg++;
		p->off = 0;
	}
}

static inline bool pos_eq(struct pos a, struct pos b)
{
	return a.seg == b.seg && a.off == b.off;
}

/* spool.c */
/* CRC-32 of the header (crc field zeroed) and the payload. */
uint32_t spool_rec_crc(const struct rec_hdr *h, const void *payload, size_t len);
/* The file name of the segment of queue q that starts at first_seq. */
void spool_seg_name(unsigned q, uint64_t first_seq, char buf[static 32]);
/* Reads and checks the header of the record at p (not its CRC). */
int spool_read_hdr(const struct squeue *q, struct pos p, struct rec_hdr *h);
int spool_seg_add(struct squeue *q, uint64_t first_seq, uint64_t size, int fd);
/* Deletes segments that hold no live record; keeps "n == 0 iff the queue is empty". */
void spool_queue_trim(struct spool *s, unsigned qi);
/* Removes the oldest live record of a queue. */
int spool_queue_pop(struct spool *s, unsigned qi);
/* Writes the cursor into the older slot and syncs it. */
int spool_cursor_write(struct spool *s);
/* A record went bad under us: persists the cursor and loads the spool from disk again. */
int spool_reload(struct spool *s);
