/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Reading the spool for sending: records handed out in sequence order across the per-severity
 * queues (the order of submission), confirming a delivered record (removing it), and rewinding
 * to the oldest live record when a connection is lost.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "spool-internal.h"

static int spool_next_once(struct spool *s, struct spool_record *ret)
{
	struct rec_hdr h;
	struct squeue *q;
	int best = -1;
	unsigned i;
	ssize_t n;
	int r;

	for (i = 0; i < SPOOL_QUEUES; i++) {
		q = &s->q[i];
		if (q->unsent == 0)
			continue;
		if (!q->send_cached) {
			r = spool_read_hdr(q, q->send, &h);
			if (r < 0)
				return r;
			q->send_seq = h.seq;
			q->send_len = h.len;
			q->send_cached = true;
		}
		if (best < 0 || q->send_seq < s->q[best].send_seq)
			best = (int)i;
	}
	if (best < 0)
		return 0;
	q = &s->q[best];
	if (q->send_len > s->cfg.max_record_bytes)
		return -EBADMSG;
	n = pread(q->segs[q->send.seg].fd, s->rbuf, SPOOL_HEADER_SIZE + q->send_len,
		  (off_t)q->send.off);
	if (n < 0)
		return -errno;
	if ((size_t)n != SPOOL_HEADER_SIZE + q->send_len)
		return -EBADMSG;
	memcpy(&h, s->rbuf, sizeof(h));
	if (h.magic != REC_MAGIC || h.seq != q->send_seq ||
	    spool_rec_crc(&h, s->rbuf + sizeof(h), h.len) != h.crc)
		return -EBADMSG;
	*ret = (struct spool_record){
		.seq = h.seq,
		.ts_ns = h.ts_ns,
		.queue = (unsigned)best,
		.data = s->rbuf + sizeof(h),
		.len = h.len,
	};
	q->send.off += sizeof(h) + h.len;
	pos_normalize(q, &q->send);
	q->send_cached = false;
	q->unsent--;
	return 1;
}

int spool_next(struct spool *s, struct spool_record *ret)
{
	int r = spool_next_once(s, ret);

	if (r == -EBADMSG) {
		r = spool_reload(s);
		return r < 0 ? r : -EBADMSG;
	}
	return r;
}

void spool_confirm(struct spool *s, unsigned qi, uint64_t seq)
{
	struct squeue *q;

	if (qi >= SPOOL_QUEUES)
		return;
	q = &s->q[qi];
	if (q->live_records == 0 || q->head_seq != seq)
		return;
	if (spool_queue_pop(s, qi) == -EBADMSG)
		(void)spool_reload(s);
}

void spool_rewind(struct spool *s)
{
	unsigned i;

	for (i = 0; i < SPOOL_QUEUES; i++) {
		s->q[i].send = s->q[i].head;
		s->q[i].unsent = s->q[i].live_records;
		s->q[i].send_cached = false;
	}
}

uint64_t spool_unsent(const struct spool *s)
{
	uint64_t n = 0;
	unsigned i;

	for (i = 0; i < SPOOL_QUEUES; i++)
		n += s->q[i].unsent;
	return n;
}
