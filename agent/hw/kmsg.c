/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * /dev/kmsg records: the parser and the non-blocking reader (kmsg.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kmsg.h"
#include "common/macro.h"

/* A decimal number of at most 20 digits ending at one of the stop bytes. */
static int parse_u64(const char **p, const char *end, uint64_t *ret)
{
	uint64_t v = 0;
	int digits = 0;

	while (*p < end && **p >= '0' && **p <= '9') {
		unsigned d = (unsigned)(**p - '0');

		if (v > (UINT64_MAX - d) / 10)
			return -EINVAL;
		v = v * 10 + d;
		(*p)++;
		if (++digits > 20)
			return -EINVAL;
	}
	if (!digits)
		return -EINVAL;
	*ret = v;
	return 0;
}

static void copy_clean(char *dst, size_t size, const char *src, size_t n)
{
	if (n >= size)
		n = size - 1;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)src[i];

		dst[i] = (c < 0x20 || c == 0x7f) ? '?' : (char)c;
	}
	dst[n] = 0;
}

/*
 * The fields after FLAGS, up to ';': the caller ("caller=T123", "caller=C0"; a bare "T123" is
 * taken too). Anything else is ignored, as the ABI asks.
 */
static void parse_extra(const char *p, const char *semi, struct kmsg_record *rec)
{
	const char *f = memchr(p, ',', (size_t)(semi - p));

	while (f && f < semi) {
		const char *v = f + 1, *next = memchr(v, ',', (size_t)(semi - v));
		uint64_t id;

		if ((size_t)(semi - v) > 7 && memcmp(v, "caller=", 7) == 0)
			v += 7;
		if (v < semi && (*v == 'T' || *v == 'C')) {
			const char *d = v + 1;

			if (parse_u64(&d, semi, &id) == 0 && id <= UINT32_MAX &&
			    (d == semi || *d == ',')) {
				rec->caller = *v;
				rec->caller_id = (uint32_t)id;
			}
		}
		f = next;
	}
}

int kmsg_parse(const char *buf, size_t len, struct kmsg_record *rec)
{
	const char *p = buf, *end, *semi, *nl, *line;
	uint64_t pri;

	memset(rec, 0, sizeof(*rec));
	if (!buf || len == 0 || len > KMSG_RECORD_MAX)
		return -EINVAL;
	end = buf + len;
	semi = memchr(buf, ';', len);
	if (!semi)
		return -EINVAL;
	/* "PRI,SEQ,TS,FLAGS" and perhaps more comma-separated fields before ';' */
	if (parse_u64(&p, semi, &pri) < 0 || pri > 0x7ffffff || p >= semi || *p++ != ',')
		return -EINVAL;
	if (parse_u64(&p, semi, &rec->seq) < 0 || p >= semi || *p++ != ',')
		return -EINVAL;
	if (parse_u64(&p, semi, &rec->ts_us) < 0 || p >= semi || *p++ != ',')
		return -EINVAL;
	if (p >= semi)
		return -EINVAL;
	rec->cont = *p == 'c';
	parse_extra(p, semi, rec);
	rec->facility = (unsigned)(pri >> 3);
	rec->level = (unsigned)(pri & 7);
	/* the text: up to the first newline (a literal newline in a message is escaped) */
	line = semi + 1;
	nl = memchr(line, '\n', (size_t)(end - line));
	copy_clean(rec->text, sizeof(rec->text), line, (size_t)((nl ? nl : end) - line));
	/* the dictionary: " KEY=VALUE\n" lines */
	for (p = nl ? nl + 1 : end; p < end; p = nl ? nl + 1 : end) {
		size_t n;

		nl = memchr(p, '\n', (size_t)(end - p));
		n = (size_t)((nl ? nl : end) - p);
		if (n < 2 || p[0] != ' ')
			continue;
		rec->has_dict = true;
		if (n > 11 && memcmp(p, " SUBSYSTEM=", 11) == 0)
			copy_clean(rec->subsystem, sizeof(rec->subsystem), p + 11, n - 11);
		else if (n > 8 && memcmp(p, " DEVICE=", 8) == 0)
			copy_clean(rec->device, sizeof(rec->device), p + 8, n - 8);
	}
	return 0;
}

int kmsg_open(struct kmsg_reader *r, const char *path, bool history)
{
	memset(r, 0, sizeof(*r));
	r->fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (r->fd < 0)
		return -errno;
	/* SEEK_SET: the oldest record still in the buffer; SEEK_END: the first logged after now */
	if (lseek(r->fd, 0, history ? SEEK_SET : SEEK_END) < 0) {
		int e = -errno;

		close(r->fd);
		r->fd = -1;
		return e;
	}
	r->in_history = history;
	return 0;
}

void kmsg_close(struct kmsg_reader *r)
{
	if (r && r->fd >= 0)
		close(r->fd);
	if (r)
		r->fd = -1;
}

/*
 * A sequence number that does not follow the last one: records were lost between the two. After
 * an EPIPE (counted as the gap already) the jump is only its size.
 */
static void note_seq(struct kmsg_reader *r, uint64_t seq)
{
	if (r->have_seq && seq > r->last_seq + 1) {
		if (!r->epipe)
			r->lost_gaps++;
		r->lost_records += seq - r->last_seq - 1;
	}
	r->epipe = false;
	r->last_seq = seq;
	r->have_seq = true;
}

int kmsg_read(struct kmsg_reader *r, struct kmsg_record *rec)
{
	char buf[KMSG_RECORD_MAX + 1];

	for (int budget = 0; budget < 64; budget++) {
		ssize_t n = read(r->fd, buf, KMSG_RECORD_MAX);

		if (n < 0) {
			if (errno == EAGAIN) {
				r->in_history = false;
				return 0;
			}
			if (errno == EINTR)
				continue;
			if (errno == EPIPE) {
				/* overwritten before we read them: the next read resumes at the
				 * oldest record left (its sequence number says how many) */
				r->lost_gaps++;
				r->epipe = true;
				continue;
			}
			return -errno;
		}
		if (n == 0)
			return 0;
		r->records++;
		if (kmsg_parse(buf, (size_t)n, rec) < 0) {
			r->bad++;
			continue;
		}
		note_seq(r, rec->seq);
		rec->historical = r->in_history;
		if (rec->historical)
			r->historical++;
		if (!kmsg_from_kernel(rec)) {
			r->user++;
			continue;
		}
		return 1;
	}
	return 0; /* the caller comes back: the fd stays readable */
}
