/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A bounded line reader over a regular file below a root (line_reader.c). */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "common/root.h"

/* FIFOs and devices are refused. */
struct line_reader {
	int fd;
	size_t start, end;
	bool eof;
	bool skipping; /* the rest of an overlong line */
	char buf[65536];
};
int line_reader_open(struct line_reader *lr, const struct rg_root *root, const char *path);
/* The same over an open fd, which it takes (closed on failure); check_regular: refuse others. */
int line_reader_open_fd(struct line_reader *lr, int fd, bool check_regular);
/* 1 with *line (NUL-terminated, no newline) set; 0 at the end; -errno. *overlong: cut at 64 KiB. */
int line_reader_next(struct line_reader *lr, char **line, bool *overlong);
void line_reader_close(struct line_reader *lr);
