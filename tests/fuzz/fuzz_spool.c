/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The on-disk spool as the agent finds it after a crash, a full disk or tampering: the input is
 * one flags byte, then an archive (fuzz.h) of the spool directory's files (cursor,
 * Q-SSSSSSSSSSSSSSSS.seg segments, anything else). Flags bit 0: fix up the CRCs of every record
 * and cursor slot that is otherwise well framed, so that the fuzzer gets past them; bit 1: a
 * record cap. Then: open (repair), read every record, confirm some, append one per queue, sync,
 * close, reopen and read again.
 * Properties: records come out in sequence order (strictly increasing within a queue), within
 * the size limit, in a valid queue; the
 * caps hold after an append; after a reopen exactly the live records come out.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "fuzz.h"
#include "output/spool.h"

#define REC_MAGIC      0x31534752u /* spool.c's on-disk format */
#define CURSOR_MAGIC   0x43534752u
#define CURSOR_SLOT    256
#define CURSOR_CRC_OFF (4 + 4 + 8 + 8 + 3 * 8 * SPOOL_QUEUES)
#define MAX_RECORD     4096

static int tmpfd = -1;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_quiet();
	tmpfd = open(fuzz_tmpdir(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (tmpfd < 0)
		abort();
	return 0;
}

static void fix_segment(int dfd, const char *name)
{
	int fd = openat(dfd, name, O_RDWR | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	struct stat st;
	uint8_t *buf;
	size_t off = 0;

	if (fd < 0)
		return;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size > (1 << 20)) {
		close(fd);
		return;
	}
	buf = malloc((size_t)st.st_size + 1);
	if (!buf)
		abort();
	if (pread(fd, buf, (size_t)st.st_size, 0) != st.st_size) {
		free(buf);
		close(fd);
		return;
	}
	while (off + 32 <= (size_t)st.st_size) {
		uint32_t magic, len, crc;
		uLong c;

		memcpy(&magic, buf + off, 4);
		memcpy(&len, buf + off + 4, 4);
		if (magic != REC_MAGIC || len > (size_t)st.st_size - off - 32)
			break;
		memset(buf + off + 28, 0, 4);
		c = crc32(0L, buf + off, 32);
		crc = (uint32_t)crc32(c, buf + off + 32, len);
		memcpy(buf + off + 28, &crc, 4);
		off += 32 + len;
	}
	if (pwrite(fd, buf, (size_t)st.st_size, 0) < 0)
		abort();
	free(buf);
	close(fd);
}

static void fix_cursor(int dfd)
{
	int fd = openat(dfd, "cursor", O_RDWR | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	uint8_t slot[CURSOR_SLOT];
	int i;

	if (fd < 0)
		return;
	for (i = 0; i < 2; i++) {
		uint32_t magic, crc;

		if (pread(fd, slot, sizeof(slot), (off_t)i * CURSOR_SLOT) < CURSOR_CRC_OFF + 4)
			break;
		memcpy(&magic, slot, 4);
		if (magic != CURSOR_MAGIC)
			continue;
		crc = (uint32_t)crc32(0L, slot, CURSOR_CRC_OFF);
		if (pwrite(fd, &crc, 4, (off_t)i * CURSOR_SLOT + CURSOR_CRC_OFF) != 4)
			abort();
	}
	close(fd);
}

static void fix_crcs(int dfd)
{
	char name[64];
	int fd = dup(dfd);
	struct dirent *de;
	DIR *d;

	if (fd < 0)
		return;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return;
	}
	while ((de = readdir(d))) {
		size_t l = strlen(de->d_name);

		if (l > 4 && l < sizeof(name) && strcmp(de->d_name + l - 4, ".seg") == 0) {
			strcpy(name, de->d_name);
			fix_segment(dfd, name);
		}
	}
	closedir(d);
	fix_cursor(dfd);
}

/* Reads every record; returns how many. Confirms each one with confirm set. */
static uint64_t drain(struct spool *s, const struct spool_config *cfg, bool confirm)
{
	uint64_t n = 0, last = 0, qlast[SPOOL_QUEUES] = {0};
	bool qseen[SPOOL_QUEUES] = {false};
	struct spool_record rec;
	int r;

	while ((r = spool_next(s, &rec)) == 1 && n < 100000) {
		FUZZ_ASSERT(rec.queue < SPOOL_QUEUES, "queue %u", rec.queue);
		FUZZ_ASSERT(rec.len <= cfg->max_record_bytes, "record of %u bytes", rec.len);
		/*
		 * Merged in sequence order. A damaged (or forged) spool may hold one number in two
		 * queues; the sender confirms by queue and number, so that is harmless. Within a
		 * queue, numbers strictly increase.
		 */
		FUZZ_ASSERT(n == 0 || rec.seq >= last, "seq %llu after %llu",
			    (unsigned long long)rec.seq, (unsigned long long)last);
		FUZZ_ASSERT(!qseen[rec.queue] || rec.seq > qlast[rec.queue],
			    "queue %u: seq %llu after %llu", rec.queue, (unsigned long long)rec.seq,
			    (unsigned long long)qlast[rec.queue]);
		last = rec.seq;
		qlast[rec.queue] = rec.seq;
		qseen[rec.queue] = true;
		if (confirm && (rec.seq & 1))
			spool_confirm(s, rec.queue, rec.seq);
		n++;
	}
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct spool_config cfg = {
		.max_bytes = 16384,
		.loss_max_bytes = 4096,
		.segment_bytes = 2048,
		.max_record_bytes = MAX_RECORD,
	};
	struct spool_stats st;
	struct spool *s = NULL;
	char payload[200];
	uint64_t n;
	unsigned q;
	int dfd;

	if (size < 1)
		return 0;
	if (data[0] & 2)
		cfg.max_records = 20;
	FUZZ_ASSERT(fuzz_clear_dir(tmpfd) == 0, "cannot clear %s", fuzz_tmpdir());
	if (mkdirat(tmpfd, "sp", 0700) < 0)
		abort();
	dfd = openat(tmpfd, "sp", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		abort();
	fuzz_archive_extract(data + 1, size - 1, dfd);
	if (data[0] & 1)
		fix_crcs(dfd);
	close(dfd);

	if (spool_open(tmpfd, "sp", &cfg, &s) < 0)
		return 0;
	drain(s, &cfg, true);
	for (q = 0; q < SPOOL_QUEUES; q++) {
		int r;

		snprintf(payload, sizeof(payload), "{\"fuzz\":%u}", q);
		r = spool_append(s, q, 1000 + q, payload, strlen(payload));
		FUZZ_ASSERT(r == SPOOL_STORED || r == SPOOL_DROPPED || r == -E2BIG || r < 0,
			    "spool_append %d", r);
		spool_get_stats(s, &st);
		FUZZ_ASSERT(st.bytes <= cfg.max_bytes && st.loss_bytes <= cfg.loss_max_bytes,
			    "caps exceeded: %llu + %llu bytes", (unsigned long long)st.bytes,
			    (unsigned long long)st.loss_bytes);
		FUZZ_ASSERT(!cfg.max_records || st.records <= cfg.max_records, "%llu records",
			    (unsigned long long)st.records);
	}
	spool_sync(s);
	spool_close(s);

	s = NULL;
	if (spool_open(tmpfd, "sp", &cfg, &s) < 0)
		return 0;
	spool_get_stats(s, &st);
	n = drain(s, &cfg, false);
	FUZZ_ASSERT(n == st.records + st.loss_records, "%llu records read, %llu + %llu live",
		    (unsigned long long)n, (unsigned long long)st.records,
		    (unsigned long long)st.loss_records);
	spool_close(s);
	return 0;
}
