/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The spool's on-disk format and its recovery (layout in spool.h): record headers and their CRC,
 * segment files, the A/B cursor; opening a spool (lock, load, repair torn and damaged records),
 * reloading it when a record goes bad while running, removing records and empty segments, and
 * closing. Appending and eviction are spool_append.c, sending spool_send.c.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "common/log.h"
#include "common/macro.h"
#include "common/number.h"
#include "common/strutil.h"
#include "spool-internal.h"

#define CURSOR_MAGIC 0x43534752u /* "RGSC" */
#define CURSOR_VERSION 1
#define CURSOR_SLOT  256
/* A segment is read whole when the spool is opened; larger files are cut here. */
#define SEGMENT_READ_MAX (16u << 20)
/* Sequence numbers at or past this are damage (2^62: 146,000 years at a million alerts a
 * second): a record or cursor that claims one is refused, so that the next number never wraps
 * past 2^64 to below the records in the spool. */
#define SEQ_LIMIT (1ull << 62)

struct cursor_disk {
	uint32_t magic;
	uint32_t version;
	uint64_t gen;
	uint64_t next_seq;
	uint64_t head[SPOOL_QUEUES];
	uint64_t dropped[SPOOL_QUEUES];
	uint64_t reported[SPOOL_QUEUES];
	uint32_t crc;
	uint32_t pad;
};
_Static_assert(sizeof(struct cursor_disk) <= CURSOR_SLOT, "cursor slot size");

DEFINE_TRIVIAL_CLEANUP_FUNC(DIR *, closedir);

uint32_t spool_rec_crc(const struct rec_hdr *h, const void *payload, size_t len)
{
	struct rec_hdr tmp = *h;
	uLong c;

	tmp.crc = 0;
	c = crc32(0L, (const Bytef *)&tmp, sizeof(tmp));
	return (uint32_t)crc32(c, (const Bytef *)payload, (uInt)len);
}

static uint32_t cursor_crc(const struct cursor_disk *c)
{
	return (uint32_t)crc32(0L, (const Bytef *)c, offsetof(struct cursor_disk, crc));
}

void spool_seg_name(unsigned q, uint64_t first_seq, char buf[static 32])
{
	snprintf(buf, 32, "%u-%016" PRIx64 ".seg", q, first_seq);
}

int spool_read_hdr(const struct squeue *q, struct pos p, struct rec_hdr *h)
{
	ssize_t n;

	if (p.seg >= q->n)
		return -ERANGE;
	n = pread(q->segs[p.seg].fd, h, sizeof(*h), (off_t)p.off);
	if (n < 0)
		return -errno;
	if ((size_t)n != sizeof(*h) || h->magic != REC_MAGIC ||
	    p.off + sizeof(*h) + h->len > q->segs[p.seg].size)
		return -EBADMSG;
	return 0;
}

/* Removes the first segment of a queue (all of its records are gone). */
static void queue_drop_first_seg(struct spool *s, unsigned qi)
{
	struct squeue *q = &s->q[qi];
	char name[32];

	spool_seg_name(qi, q->segs[0].first_seq, name);
	if (unlinkat(s->dfd, name, 0) < 0 && errno != ENOENT)
		log_warning_errno(-errno, "spool %s: failed to remove %s: %m", s->name, name);
	close(q->segs[0].fd);
	memmove(&q->segs[0], &q->segs[1], (q->n - 1) * sizeof(q->segs[0]));
	q->n--;
	if (q->head.seg > 0)
		q->head.seg--;
	if (q->send.seg > 0)
		q->send.seg--;
	s->dir_dirty = true;
}

/* Deletes segments that hold no live record; keeps "n == 0 iff the queue is empty". */
void spool_queue_trim(struct spool *s, unsigned qi)
{
	struct squeue *q = &s->q[qi];

	pos_normalize(q, &q->head);
	pos_normalize(q, &q->send);
	while (q->n > 0 && q->head.seg > 0)
		queue_drop_first_seg(s, qi);
	if (q->n == 1 && q->live_records == 0) {
		queue_drop_first_seg(s, qi);
		q->head = q->send = (struct pos){0, 0};
	}
}

/* Removes the oldest live record of a queue. */
int spool_queue_pop(struct spool *s, unsigned qi)
{
	struct squeue *q = &s->q[qi];
	struct rec_hdr h;
	uint64_t size;
	bool send_at_head;
	int r;

	if (q->live_records == 0)
		return -ENOENT;
	r = spool_read_hdr(q, q->head, &h);
	if (r < 0)
		return r;
	size = sizeof(h) + h.len;
	send_at_head = pos_eq(q->send, q->head);
	q->head.off += size;
	q->live_records--;
	q->live_bytes -= MIN(size, q->live_bytes);
	if (send_at_head) {
		q->send = q->head;
		q->send_cached = false;
		if (q->unsent > 0)
			q->unsent--;
	}
	spool_queue_trim(s, qi);
	if (q->live_records > 0) {
		r = spool_read_hdr(q, q->head, &h);
		if (r < 0)
			return r;
		q->head_seq = h.seq;
	}
	s->cursor_dirty = true;
	return 0;
}

int spool_seg_add(struct squeue *q, uint64_t first_seq, uint64_t size, int fd)
{
	if (q->n == q->cap) {
		size_t cap = q->cap ? q->cap * 2 : 4;
		struct seg *n = realloc(q->segs, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		q->segs = n;
		q->cap = cap;
	}
	q->segs[q->n++] = (struct seg){.first_seq = first_seq, .size = size, .fd = fd};
	return 0;
}

int spool_cursor_write(struct spool *s)
{
	struct cursor_disk c = {.magic = CURSOR_MAGIC, .version = CURSOR_VERSION};
	char slot[CURSOR_SLOT] = {0};
	unsigned i;
	ssize_t n;

	c.gen = ++s->cursor_gen;
	c.next_seq = s->next_seq;
	for (i = 0; i < SPOOL_QUEUES; i++) {
		c.head[i] = s->q[i].live_records > 0 ? s->q[i].head_seq : s->next_seq;
		c.dropped[i] = s->dropped[i];
		c.reported[i] = s->reported[i];
	}
	c.crc = cursor_crc(&c);
	memcpy(slot, &c, sizeof(c));
	n = pwrite(s->cursor_fd, slot, sizeof(slot), (off_t)((c.gen & 1) * CURSOR_SLOT));
	if (n < 0)
		return -errno;
	if ((size_t)n != sizeof(slot))
		return -EIO;
	if (fdatasync(s->cursor_fd) < 0)
		return -errno;
	s->cursor_dirty = false;
	return 0;
}

static void cursor_read(struct spool *s, struct cursor_disk *best)
{
	char buf[2 * CURSOR_SLOT];
	ssize_t n;
	unsigned i;

	memset(best, 0, sizeof(*best));
	n = pread(s->cursor_fd, buf, sizeof(buf), 0);
	for (i = 0; i < 2; i++) {
		struct cursor_disk c;

		if (n < (ssize_t)((i + 1) * CURSOR_SLOT))
			break;
		memcpy(&c, buf + i * CURSOR_SLOT, sizeof(c));
		if (c.magic != CURSOR_MAGIC || c.version != CURSOR_VERSION ||
		    c.crc != cursor_crc(&c))
			continue;
		if (best->magic == 0 || c.gen > best->gen)
			*best = c;
	}
}

/* Is there a valid record at buf[off]? Returns its total size, or 0. */
static size_t valid_rec_at(const struct spool *s, unsigned qi, const char *buf, size_t size,
			   size_t off, uint64_t min_seq)
{
	struct rec_hdr h;

	if (size - off < sizeof(h))
		return 0;
	memcpy(&h, buf + off, sizeof(h));
	if (h.magic != REC_MAGIC || h.len > s->cfg.max_record_bytes || h.queue != qi ||
	    h.seq < min_seq || h.seq >= SEQ_LIMIT || h.len > size - off - sizeof(h))
		return 0;
	if (spool_rec_crc(&h, buf + off + sizeof(h), h.len) != h.crc)
		return 0;
	return sizeof(h) + h.len;
}

/* Reads a whole segment (at most SEGMENT_READ_MAX bytes of it). */
static int segment_read(const struct seg *sg, char **ret, size_t *ret_len, bool *truncated)
{
	struct stat st;
	size_t size, done = 0;
	char *buf;

	if (fstat(sg->fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EBADFD;
	size = (size_t)MIN((uint64_t)st.st_size, (uint64_t)SEGMENT_READ_MAX);
	*truncated = (uint64_t)st.st_size > SEGMENT_READ_MAX;
	buf = malloc(size + 1);
	if (!buf)
		return -ENOMEM;
	while (done < size) {
		ssize_t n = pread(sg->fd, buf + done, size - done, (off_t)done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			int r = n < 0 ? -errno : 0;

			if (r < 0) {
				free(buf);
				return r;
			}
			break; /* shrank under us */
		}
		done += (size_t)n;
	}
	*ret = buf;
	*ret_len = done;
	return 0;
}

/*
 * Checks every record of a segment file. A bad tail is truncated; valid records after a bad
 * region are kept by rewriting the file without the bad bytes. Sequence numbers must increase
 * across the queue's segments too (*queue_min: one past the last number of the segments before,
 * and at least the first number the file name gives): a record that repeats or goes back (a
 * copied or forged segment) is damage, not a second copy to send.
 */
static int segment_repair(struct spool *s, unsigned qi, struct seg *sg, uint64_t *max_seq,
			  uint64_t *queue_min)
{
	_cleanup_free_ char *buf = NULL;
	_cleanup_free_ char *out = NULL;
	size_t len = 0, off = 0, outlen = 0, good_prefix = 0;
	uint64_t min_seq = MAX(*queue_min, sg->first_seq);
	bool truncated = false, damaged = false, in_prefix = true;
	unsigned gaps = 0;
	char name[32], tmp[40];
	int r;

	r = segment_read(sg, &buf, &len, &truncated);
	if (r < 0)
		return r;
	out = malloc(len + 1);
	if (!out)
		return -ENOMEM;
	while (off < len) {
		size_t rs = valid_rec_at(s, qi, buf, len, off, min_seq);

		if (rs == 0) {
			/* Resynchronise: the next offset where a valid record starts. */
			size_t p;

			damaged = true;
			in_prefix = false;
			gaps++;
			for (p = off + 1; p < len; p++)
				if (valid_rec_at(s, qi, buf, len, p, min_seq))
					break;
			off = p;
			continue;
		}
		{
			struct rec_hdr h;
			memcpy(&h, buf + off, sizeof(h));
			min_seq = h.seq + 1;
			*max_seq = MAX(*max_seq, h.seq);
		}
		memcpy(out + outlen, buf + off, rs);
		outlen += rs;
		if (in_prefix)
			good_prefix = outlen;
		off += rs;
	}
	*queue_min = min_seq;
	if (truncated) {
		damaged = true;
		gaps++;
	}
	if (!damaged)
		return 0;
	spool_seg_name(qi, sg->first_seq, name);
	s->corrupt += gaps;
	if (outlen == good_prefix && !truncated) {
		log_warning("spool %s: %s: cutting a torn record at offset %zu (%zu bytes)", s->name,
			    name, good_prefix, len - good_prefix);
		if (ftruncate(sg->fd, (off_t)good_prefix) < 0)
			return -errno;
		sg->size = good_prefix;
		return fsync(sg->fd) < 0 ? -errno : 0;
	}
	/* Damage in the middle: write the valid records to a new file, then replace. */
	log_warning("spool %s: %s: cutting %u damaged region(s), keeping %zu of %zu bytes", s->name,
		    name, gaps, outlen, len);
	snprintf(tmp, sizeof(tmp), "%s.tmp", name);
	{
		_cleanup_close_ int fd = openat(s->dfd, tmp,
						O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW,
						0600);
		size_t done = 0;

		if (fd < 0)
			return -errno;
		while (done < outlen) {
			ssize_t n = write(fd, out + done, outlen - done);
			if (n < 0) {
				if (errno == EINTR)
					continue;
				return -errno;
			}
			done += (size_t)n;
		}
		if (fsync(fd) < 0)
			return -errno;
		if (renameat(s->dfd, tmp, s->dfd, name) < 0)
			return -errno;
		close(sg->fd);
		sg->fd = TAKE_FD(fd);
		sg->size = outlen;
		s->dir_dirty = true;
	}
	return 0;
}

static int seg_cmp(const void *a, const void *b)
{
	const struct seg *x = a, *y = b;

	return x->first_seq < y->first_seq ? -1 : x->first_seq > y->first_seq;
}

static int spool_load(struct spool *s, const struct cursor_disk *cur)
{
	_cleanup_(closedirp) DIR *d = NULL;
	struct dirent *de;
	uint64_t max_seq = 0;
	unsigned qi;
	int dfd2, r;

	dfd2 = openat(s->dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd2 < 0)
		return -errno;
	d = fdopendir(dfd2);
	if (!d) {
		r = -errno;
		close(dfd2);
		return r;
	}
	while ((de = readdir(d))) {
		unsigned q;
		uint64_t first;
		char hex[17], check[32];
		struct stat st;
		int fd;

		if (endswith(de->d_name, ".tmp")) {
			unlinkat(s->dfd, de->d_name, 0);
			continue;
		}
		if (strlen(de->d_name) != 22 || de->d_name[1] != '-' || !endswith(de->d_name, ".seg"))
			continue;
		q = (unsigned)(de->d_name[0] - '0');
		if (q >= SPOOL_QUEUES)
			continue;
		memcpy(hex, de->d_name + 2, 16);
		hex[16] = 0;
		if (safe_atou64(hex, 16, &first) < 0)
			continue;
		spool_seg_name(q, first, check);
		if (strcmp(check, de->d_name) != 0)
			continue;
		fd = openat(s->dfd, de->d_name, O_RDWR | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
		if (fd < 0) {
			log_warning_errno(-errno, "spool %s: ignoring %s: %m", s->name, de->d_name);
			continue;
		}
		if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
			log_warning("spool %s: ignoring %s: not a regular file", s->name, de->d_name);
			close(fd);
			continue;
		}
		r = spool_seg_add(&s->q[q], first, (uint64_t)st.st_size, fd);
		if (r < 0) {
			close(fd);
			return r;
		}
	}

	for (qi = 0; qi < SPOOL_QUEUES; qi++) {
		struct squeue *q = &s->q[qi];
		uint64_t head_min = cur->magic ? cur->head[qi] : 0;
		uint64_t queue_min = 0;
		bool found_head = false;
		size_t i;

		if (q->n > 1) /* qsort(NULL, 0, ...) is undefined */
			qsort(q->segs, q->n, sizeof(q->segs[0]), seg_cmp);
		for (i = 0; i < q->n; i++) {
			r = segment_repair(s, qi, &q->segs[i], &max_seq, &queue_min);
			if (r < 0)
				return log_error_errno(r, "spool %s: failed to check a segment: %m",
						       s->name);
		}
		/* The head: the first record at or after the persisted cursor. */
		q->head = (struct pos){0, 0};
		for (i = 0; i < q->n; i++) {
			uint64_t off = 0;

			while (off < q->segs[i].size) {
				struct rec_hdr h;

				r = spool_read_hdr(q, (struct pos){i, off}, &h);
				if (r < 0)
					return r;
				if (h.seq >= head_min) {
					if (!found_head) {
						found_head = true;
						q->head = (struct pos){i, off};
						q->head_seq = h.seq;
					}
					q->live_records++;
					q->live_bytes += sizeof(h) + h.len;
				}
				off += sizeof(h) + h.len;
			}
		}
		if (!found_head)
			q->head = (struct pos){q->n ? q->n - 1 : 0, q->n ? q->segs[q->n - 1].size : 0};
		q->send = q->head;
		q->unsent = q->live_records;
		spool_queue_trim(s, qi);
	}
	s->next_seq = MAX(cur->magic && cur->next_seq < SEQ_LIMIT ? cur->next_seq : 0, max_seq + 1);
	if (cur->magic) {
		memcpy(s->dropped, cur->dropped, sizeof(s->dropped));
		memcpy(s->reported, cur->reported, sizeof(s->reported));
		s->cursor_gen = cur->gen;
	}
	return 0;
}

static void queues_free(struct spool *s)
{
	unsigned i;
	size_t j;

	for (i = 0; i < SPOOL_QUEUES; i++) {
		for (j = 0; j < s->q[i].n; j++) {
			if (s->q[i].segs[j].dirty)
				(void)fdatasync(s->q[i].segs[j].fd);
			close(s->q[i].segs[j].fd);
		}
		free(s->q[i].segs);
		memset(&s->q[i], 0, sizeof(s->q[i]));
	}
}

/*
 * A record went bad under us (someone wrote into our files): persist where we are, then load
 * the spool again from disk, which cuts out what is damaged. Everything is unsent afterwards.
 */
int spool_reload(struct spool *s)
{
	struct cursor_disk cur;
	int r;

	log_warning("spool %s: damaged record found while running, reloading", s->name);
	(void)spool_cursor_write(s);
	queues_free(s);
	cursor_read(s, &cur);
	r = spool_load(s, &cur);
	if (r < 0)
		return log_error_errno(r, "spool %s: failed to reload: %m", s->name);
	return 0;
}

int spool_open(int parent_fd, const char *name, const struct spool_config *cfg,
	       struct spool **ret)
{
	struct cursor_disk cur;
	struct spool *s;
	struct stat st;
	unsigned i;
	int r;

	if (!name || !*name || strchr(name, '/') || strcmp(name, ".") == 0 ||
	    strcmp(name, "..") == 0 || cfg->max_record_bytes == 0 || cfg->segment_bytes == 0)
		return -EINVAL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->dfd = s->lock_fd = s->cursor_fd = -1;
	s->cfg = *cfg;
	strscpy_ok(s->name, name, sizeof(s->name));
	s->rbuf = malloc(SPOOL_HEADER_SIZE + (size_t)cfg->max_record_bytes);
	if (!s->rbuf) {
		r = -ENOMEM;
		goto fail;
	}
	if (mkdirat(parent_fd, name, 0700) < 0 && errno != EEXIST) {
		r = -errno;
		goto fail;
	}
	s->dfd = openat(parent_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (s->dfd < 0) {
		r = -errno;
		goto fail;
	}
	if (fstat(s->dfd, &st) < 0) {
		r = -errno;
		goto fail;
	}
	if (st.st_uid != geteuid()) {
		log_error("spool %s: directory is owned by uid %u, not by us", name,
			  (unsigned)st.st_uid);
		r = -EPERM;
		goto fail;
	}
	if ((st.st_mode & 077) && fchmod(s->dfd, 0700) < 0) {
		r = -errno;
		goto fail;
	}
	s->lock_fd = openat(s->dfd, "lock", O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (s->lock_fd < 0) {
		r = -errno;
		goto fail;
	}
	if (flock(s->lock_fd, LOCK_EX | LOCK_NB) < 0) {
		r = errno == EWOULDBLOCK ? -EBUSY : -errno;
		goto fail;
	}
	s->cursor_fd = openat(s->dfd, "cursor", O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (s->cursor_fd < 0) {
		r = -errno;
		goto fail;
	}
	if (fstat(s->cursor_fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		r = -EBADFD;
		goto fail;
	}
	cursor_read(s, &cur);
	r = spool_load(s, &cur);
	if (r < 0)
		goto fail;
	for (i = 0; i < SPOOL_QUEUES; i++)
		if (s->dropped[i] < s->reported[i])
			s->reported[i] = s->dropped[i];
	r = spool_cursor_write(s);
	if (r < 0)
		goto fail;
	if (s->dir_dirty && fsync(s->dfd) == 0)
		s->dir_dirty = false;
	*ret = s;
	return 0;
fail:
	spool_close(s);
	return r;
}

void spool_close(struct spool *s)
{
	if (!s)
		return;
	if (s->cursor_fd >= 0 && s->cursor_dirty)
		(void)spool_cursor_write(s);
	queues_free(s);
	if (s->dir_dirty && s->dfd >= 0)
		(void)fsync(s->dfd);
	if (s->cursor_fd >= 0)
		close(s->cursor_fd);
	if (s->lock_fd >= 0)
		close(s->lock_fd);
	if (s->dfd >= 0)
		close(s->dfd);
	free(s->rbuf);
	free(s);
}
