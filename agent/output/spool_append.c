/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Appending to the spool and what bounds it: the caps of spool.h, evicting the oldest record of
 * the lowest severity (or refusing one that nothing less severe can make room for), the loss
 * queue's own reserve, sync, and the persistent drop counters behind the loss reports.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "common/log.h"
#include "common/macro.h"
#include "spool-internal.h"

static int lowest_nonempty(const struct spool *s)
{
	unsigned i;

	for (i = 0; i < SPOOL_Q_LOSS; i++)
		if (s->q[i].live_records > 0)
			return (int)i;
	return -1;
}

static int queue_append(struct spool *s, unsigned qi, uint64_t ts_ns, const void *data,
			size_t len)
{
	struct squeue *q = &s->q[qi];
	struct rec_hdr h = {
		.magic = REC_MAGIC,
		.len = (uint32_t)len,
		.seq = s->next_seq,
		.ts_ns = ts_ns,
		.queue = (uint8_t)qi,
	};
	struct iovec iov[2];
	struct seg *sg;
	ssize_t n;
	int r;

	if (q->n == 0 || q->segs[q->n - 1].size >= s->cfg.segment_bytes) {
		char name[32];
		int fd;

		spool_seg_name(qi, h.seq, name);
		fd = openat(s->dfd, name, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW,
			    0600);
		if (fd < 0)
			return -errno;
		r = spool_seg_add(q, h.seq, 0, fd);
		if (r < 0) {
			close(fd);
			unlinkat(s->dfd, name, 0);
			return r;
		}
		s->dir_dirty = true;
	}
	sg = &q->segs[q->n - 1];
	h.crc = spool_rec_crc(&h, data, len);
	iov[0] = (struct iovec){.iov_base = &h, .iov_len = sizeof(h)};
	iov[1] = (struct iovec){.iov_base = (void *)data, .iov_len = len};
	n = pwritev(sg->fd, iov, 2, (off_t)sg->size);
	if (n >= 0 && n < (ssize_t)(sizeof(h) + len)) {
		/* A short write (a full disk): writing the rest says why (ENOSPC, EDQUOT, EFBIG). */
		size_t done = (size_t)n;
		int iovcnt = 2;
		struct iovec *v = iov;

		while (v->iov_len <= done) {
			done -= v->iov_len;
			v++;
			iovcnt--;
		}
		v->iov_base = (char *)v->iov_base + done;
		v->iov_len -= done;
		r = (int)pwritev(sg->fd, v, iovcnt, (off_t)sg->size + n);
		n = r < 0 ? -1 : n + r;
	}
	if (n != (ssize_t)(sizeof(h) + len)) {
		r = n < 0 ? -errno : -EIO;
		/* Leave no partial record behind: later appends go at sg->size (and if the cut
		 * fails, the CRC check drops the torn record when the spool is next opened). */
		if (ftruncate(sg->fd, (off_t)sg->size) < 0)
			log_debug_errno(-errno, "Failed to cut a partial spool record: %m");
		if (sg->size == 0)
			spool_queue_trim(s, qi);
		return r;
	}
	sg->size += sizeof(h) + len;
	sg->dirty = true;
	if (q->live_records == 0) {
		q->head_seq = h.seq;
		q->head = (struct pos){q->n - 1, sg->size - sizeof(h) - len};
		q->send = q->head;
		q->send_cached = false;
	}
	q->live_records++;
	q->live_bytes += sizeof(h) + len;
	q->unsent++;
	pos_normalize(q, &q->send);
	s->next_seq++;
	return 0;
}

static int spool_append_once(struct spool *s, unsigned qi, uint64_t ts_ns, const void *data,
			     size_t len)
{
	uint64_t size = SPOOL_HEADER_SIZE + (uint64_t)len;
	unsigned i;
	int r;

	if (qi >= SPOOL_QUEUES)
		return -EINVAL;
	if (len > s->cfg.max_record_bytes)
		return -E2BIG;
	if (qi == SPOOL_Q_LOSS) {
		struct squeue *q = &s->q[qi];

		if (size > s->cfg.loss_max_bytes)
			return -E2BIG;
		while (q->live_records > 0 && q->live_bytes + size > s->cfg.loss_max_bytes) {
			r = spool_queue_pop(s, qi);
			if (r < 0)
				return r;
			s->dropped[qi]++;
		}
	} else {
		uint64_t bytes = 0, recs = 0, le_bytes = 0, le_recs = 0;

		if (size > s->cfg.max_bytes)
			return -E2BIG;
		for (i = 0; i < SPOOL_Q_LOSS; i++) {
			bytes += s->q[i].live_bytes;
			recs += s->q[i].live_records;
			if (i <= qi) {
				le_bytes += s->q[i].live_bytes;
				le_recs += s->q[i].live_records;
			}
		}
		/* Would it fit after evicting every record not more severe than it? Else drop it. */
		if (bytes - le_bytes + size > s->cfg.max_bytes ||
		    (s->cfg.max_records && recs - le_recs + 1 > s->cfg.max_records)) {
			s->dropped[qi]++;
			s->cursor_dirty = true;
			return SPOOL_DROPPED;
		}
		while (bytes + size > s->cfg.max_bytes ||
		       (s->cfg.max_records && recs + 1 > s->cfg.max_records)) {
			int v = lowest_nonempty(s);
			uint64_t before_b, before_r;

			if (v < 0 || (unsigned)v > qi)
				break; /* cannot happen after the check above */
			before_b = s->q[v].live_bytes;
			before_r = s->q[v].live_records;
			r = spool_queue_pop(s, (unsigned)v);
			if (r < 0)
				return r;
			s->dropped[v]++;
			bytes -= before_b - s->q[v].live_bytes;
			recs -= before_r - s->q[v].live_records;
		}
	}
	r = queue_append(s, qi, ts_ns, data, len);
	if (r < 0)
		return r;
	return SPOOL_STORED;
}

int spool_append(struct spool *s, unsigned qi, uint64_t ts_ns, const void *data, size_t len)
{
	int r = spool_append_once(s, qi, ts_ns, data, len);

	if (r == -EBADMSG) {
		r = spool_reload(s);
		if (r < 0)
			return r;
		r = spool_append_once(s, qi, ts_ns, data, len);
	}
	return r;
}

int spool_sync(struct spool *s)
{
	unsigned i;
	size_t j;
	int r = 0;

	for (i = 0; i < SPOOL_QUEUES; i++)
		for (j = 0; j < s->q[i].n; j++) {
			struct seg *sg = &s->q[i].segs[j];

			if (!sg->dirty)
				continue;
			if (fdatasync(sg->fd) < 0 && r == 0)
				r = -errno;
			else
				sg->dirty = false;
		}
	if (s->dir_dirty) {
		if (fsync(s->dfd) < 0 && r == 0)
			r = -errno;
		else
			s->dir_dirty = false;
	}
	if (r == 0 && s->cursor_dirty)
		r = spool_cursor_write(s);
	return r;
}

void spool_get_stats(const struct spool *s, struct spool_stats *ret)
{
	unsigned i;

	memset(ret, 0, sizeof(*ret));
	for (i = 0; i < SPOOL_QUEUES; i++) {
		const struct squeue *q = &s->q[i];

		if (i == SPOOL_Q_LOSS) {
			ret->loss_records = q->live_records;
			ret->loss_bytes = q->live_bytes;
		} else {
			ret->records += q->live_records;
			ret->bytes += q->live_bytes;
		}
		ret->unsent += q->unsent;
		ret->dropped[i] = s->dropped[i];
		ret->files += q->n;
	}
	ret->corrupt = s->corrupt;
}

void spool_take_unreported(struct spool *s, uint64_t out[SPOOL_QUEUES])
{
	unsigned i;

	for (i = 0; i < SPOOL_QUEUES; i++) {
		out[i] = s->dropped[i] - s->reported[i];
		if (out[i])
			s->cursor_dirty = true;
		s->reported[i] = s->dropped[i];
	}
}
