/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Bounded string copies and formatting, prefix and suffix tests, sanitising and trimming. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "macro.h"

/* Copies src into dst (size bytes), always NUL-terminated; returns true if it fit. */
bool strscpy_ok(char *dst, const char *src, size_t size);
/* snprintf() that says whether it fit (a truncated path must not be used); buf always ends. */
bool snprintf_ok(char *buf, size_t size, const char *fmt, ...) _printf_(3, 4);
/* Replaces bytes outside printable ASCII/UTF-8 continuation with '?' in place. */
void str_sanitize(char *s);
/* Inline: with a literal prefix or suffix its length is folded (and the compare may be too). */
static inline bool startswith(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

static inline bool endswith(const char *s, const char *suffix)
{
	size_t ls = strlen(s), lx = strlen(suffix);

	return ls >= lx && memcmp(s + ls - lx, suffix, lx) == 0;
}
/* Strips leading/trailing whitespace in place; returns s. */
char *strstrip(char *s);
