/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "macro.h"
#include "procstat.h"
#include "clock.h"
#include "number.h"

int proc_stat_parse(char *buf, size_t len, struct proc_stat *ret)
{
	char *open_paren, *close_paren = NULL, *f[20], *p, *end = buf + len;
	unsigned n = 0;

	open_paren = memchr(buf, '(', len);
	for (p = buf + len; p > buf; p--)
		if (p[-1] == ')') {
			close_paren = p - 1;
			break;
		}
	if (!open_paren || !close_paren || close_paren < open_paren)
		return -EBADMSG;
	ret->comm = open_paren + 1;
	ret->comm_len = (size_t)(close_paren - open_paren - 1);
	/* fields 3..22, separated by single spaces; the last may end at '\n' or the end */
	for (p = close_paren + 1; p < end && n < ARRAY_SIZE(f);) {
		char *q;

		while (p < end && *p == ' ')
			p++;
		if (p >= end || *p == '\n')
			break;
		f[n++] = p;
		q = p;
		while (q < end && *q != ' ' && *q != '\n')
			q++;
		*q = 0; /* q may be end: buf[len] is the text's NUL */
		p = q + 1;
	}
	/* f[0] = field 3 (state) ... f[19] = field 22 (starttime) */
	if (n < ARRAY_SIZE(f) || strlen(f[0]) != 1 || safe_atou32(f[1], 10, &ret->ppid) < 0 ||
	    safe_atou32(f[2], 10, &ret->pgid) < 0 || safe_atou32(f[3], 10, &ret->sid) < 0 ||
	    safe_atou64(f[6], 10, &ret->flags) < 0 || safe_atou64(f[19], 10, &ret->start_ticks) < 0)
		return -EBADMSG;
	ret->state = f[0][0];
	return 0;
}

uint64_t proc_ticks_to_ns(uint64_t ticks)
{
	long h = clock_ticks_per_sec();
	uint64_t hz = h > 0 ? (uint64_t)h : 100;

	return ticks / hz * 1000000000ull + ticks % hz * 1000000000ull / hz;
}

int proc_stat_read(uint32_t pid, char *buf, size_t size, struct proc_stat *ret)
{
	char path[32];
	ssize_t len;
	int fd, r;

	if (size < 2)
		return -EINVAL;
	snprintf(path, sizeof(path), "/proc/%u/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	/* procfs gives the whole of stat in one read when the buffer holds it */
	len = read(fd, buf, size);
	r = len < 0 ? -errno : 0;
	close(fd);
	if (r < 0)
		return r;
	if ((size_t)len >= size)
		return -EBADMSG;
	buf[len] = 0;
	return proc_stat_parse(buf, (size_t)len, ret);
}
