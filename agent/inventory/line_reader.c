/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A bounded line reader over a regular file below a root (line_reader.h). */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "line_reader.h"
#include "common/macro.h"
#include "common/root.h"

int line_reader_open_fd(struct line_reader *lr, int fd, bool check_regular)
{
	struct stat st;

	lr->fd = -1;
	lr->start = lr->end = 0;
	lr->eof = false;
	lr->skipping = false;
	if (check_regular) {
		if (fstat(fd, &st) < 0) {
			int r = -errno;
			close(fd);
			return r;
		}
		if (!S_ISREG(st.st_mode)) {
			close(fd);
			return -EBADFD;
		}
	}
	lr->fd = fd;
	return 0;
}

int line_reader_open(struct line_reader *lr, const struct rg_root *root, const char *path)
{
	int fd = root_open(root, path, O_RDONLY | O_NONBLOCK | O_NOCTTY);

	if (fd < 0) {
		lr->fd = -1;
		return fd;
	}
	return line_reader_open_fd(lr, fd, true);
}

int line_reader_next(struct line_reader *lr, char **line, bool *overlong)
{
	*overlong = false;
	for (;;) {
		char *nl;
		ssize_t n;

		if (lr->start < lr->end) {
			nl = memchr(lr->buf + lr->start, '\n', lr->end - lr->start);
			if (nl) {
				char *l = lr->buf + lr->start;

				*nl = 0;
				lr->start = (size_t)(nl - lr->buf) + 1;
				if (lr->skipping) {
					lr->skipping = false;
					continue;
				}
				*line = l;
				return 1;
			}
			if (lr->eof) {
				/* A last line without a newline. */
				char *l = lr->buf + lr->start;

				lr->buf[lr->end] = 0;
				lr->start = lr->end;
				if (lr->skipping)
					return 0;
				*line = l;
				return 1;
			}
		} else if (lr->eof) {
			return 0;
		}
		/* Need more: compact, then read. */
		if (lr->start > 0) {
			memmove(lr->buf, lr->buf + lr->start, lr->end - lr->start);
			lr->end -= lr->start;
			lr->start = 0;
		}
		if (lr->end >= sizeof(lr->buf) - 1) {
			/* The line does not fit: return its beginning, skip the rest. */
			lr->buf[lr->end] = 0;
			*line = lr->buf;
			*overlong = !lr->skipping;
			lr->start = lr->end = 0;
			if (lr->skipping)
				continue;
			lr->skipping = true;
			return 1;
		}
		n = read(lr->fd, lr->buf + lr->end, sizeof(lr->buf) - 1 - lr->end);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			lr->eof = true;
		lr->end += (size_t)n;
	}
}

void line_reader_close(struct line_reader *lr)
{
	if (lr->fd >= 0)
		close(lr->fd);
	lr->fd = -1;
}
