/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Writing a hash-chained log: the chain member of each line, and resuming from a file's end. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "chain.h"
#include "common/sha256.h"
#include "common/strutil.h"

void chain_init(struct chain_state *st)
{
	st->seq = 0;
	memcpy(st->head, CHAIN_ZERO, sizeof(st->head));
}

long chain_line(struct chain_state *st, const char *json, size_t len, char *out, size_t size)
{
	size_t end = len, o;
	bool empty;
	int n;

	while (end > 0 && (json[end - 1] == ' ' || json[end - 1] == '\n'))
		end--;
	if (end < 2 || json[0] != '{' || json[end - 1] != '}')
		return -EINVAL;
	end--; /* the closing brace goes after the chain member */
	o = end;
	while (o > 1 && (json[o - 1] == ' ' || json[o - 1] == '\n'))
		o--;
	empty = o == 1;
	if (size < end + CHAIN_SUFFIX_MAX)
		return -ENOBUFS;
	memcpy(out, json, end);
	n = snprintf(out + end, size - end, "%s\"chain\":{\"seq\":%llu,\"prev\":\"%s\"}}",
		     empty ? "" : ",", (unsigned long long)st->seq + 1, st->head);
	if (n < 0 || (size_t)n >= size - end)
		return -ENOBUFS;
	if (sha256_mem(out, end + (size_t)n, st->head) < 0)
		return -EIO;
	st->seq++;
	return (long)(end + (size_t)n);
}

int chain_parse_suffix(const char *line, size_t len, uint64_t *seq, char prev[static 65])
{
	static const char mid[] = ",\"prev\":\"", pre[] = "\"chain\":{\"seq\":";
	const size_t tail = 64 + 3; /* HEX"}} */
	size_t p, digits = 0;
	uint64_t v = 0;

	if (len < tail + sizeof(mid) - 1 + 1 + sizeof(pre) - 1 + 2)
		return -EBADMSG;
	if (memcmp(line + len - 3, "\"}}", 3) != 0)
		return -EBADMSG;
	for (size_t i = len - tail; i < len - 3; i++)
		if (!((line[i] >= '0' && line[i] <= '9') || (line[i] >= 'a' && line[i] <= 'f')))
			return -EBADMSG;
	p = len - tail - (sizeof(mid) - 1);
	if (memcmp(line + p, mid, sizeof(mid) - 1) != 0)
		return -EBADMSG;
	while (p > 0 && line[p - 1] >= '0' && line[p - 1] <= '9' && digits < 20) {
		p--;
		digits++;
	}
	if (digits == 0 || (digits > 1 && line[p] == '0') || p < sizeof(pre) - 1 + 1)
		return -EBADMSG;
	for (size_t i = 0; i < digits; i++) {
		uint64_t d = (uint64_t)(line[p + i] - '0');

		if (v > (UINT64_MAX - d) / 10)
			return -EBADMSG;
		v = v * 10 + d;
	}
	p -= sizeof(pre) - 1;
	if (memcmp(line + p, pre, sizeof(pre) - 1) != 0 ||
	    (line[p - 1] != ',' && line[p - 1] != '{'))
		return -EBADMSG;
	if (v == 0)
		return -EBADMSG;
	*seq = v;
	memcpy(prev, line + len - tail, 64);
	prev[64] = 0;
	return 0;
}

int chain_resume_fd(int fd, struct chain_state *st)
{
	_cleanup_free_ char *buf = NULL;
	struct stat s;
	size_t want, got = 0, start, end;
	uint64_t seq;
	char prev[65];
	off_t off;

	if (fstat(fd, &s) < 0)
		return -errno;
	if (s.st_size == 0)
		return 0;
	want = (size_t)(s.st_size < (off_t)CHAIN_TAIL_MAX ? s.st_size : (off_t)CHAIN_TAIL_MAX);
	off = s.st_size - (off_t)want;
	buf = malloc(want);
	if (!buf)
		return -ENOMEM;
	while (got < want) {
		ssize_t n = pread(fd, buf + got, want - got, off + (off_t)got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		got += (size_t)n;
	}
	/* The last whole line: the file ends in a newline when the writer finished it. */
	if (buf[want - 1] != '\n')
		return -EBADMSG;
	end = want - 1;
	start = end;
	while (start > 0 && buf[start - 1] != '\n')
		start--;
	if (start == 0 && off > 0)
		return -EBADMSG; /* a line longer than the tail read: not one of ours */
	if (chain_parse_suffix(buf + start, end - start, &seq, prev) < 0)
		return -EBADMSG;
	if (sha256_mem(buf + start, end - start, st->head) < 0)
		return -EIO;
	st->seq = seq;
	return 1;
}

int chain_head_message(const char *output, uint64_t seq, const char *head, char *buf, size_t size)
{
	int n = snprintf(buf, size, CHAIN_HEAD_SIGNED "\n%s\n%llu\n%s\n", output,
			 (unsigned long long)seq, head);

	return n < 0 || (size_t)n >= size ? -ENOBUFS : n;
}
