/* SPDX-License-Identifier: GPL-2.0-or-later */
/* An error in a configuration file with its place, as every reader of one reports it. */
#pragma once

#include <stddef.h>

/* An error with its place: "file:line:column: message". */
struct rg_error {
	char file[512];
	unsigned line;	 /* 0: no position */
	unsigned column; /* 1-based, bytes */
	char msg[512];
};

/* Sets err (may be NULL) and returns -EINVAL. line 0 means "no position". */
int rg_error_set(struct rg_error *err, const char *file, unsigned line, unsigned column,
		 const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* "file:line:column: message" (or "file: message" without a position) into buf; returns buf. */
const char *rg_error_format(const struct rg_error *err, char *buf, size_t size);
