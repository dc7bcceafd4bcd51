/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Bounded string copies and formatting, sanitising, trimming (strutil.h). */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "strutil.h"

bool snprintf_ok(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n >= 0 && (size_t)n < size;
}

bool strscpy_ok(char *dst, const char *src, size_t size)
{
	size_t n;

	if (size == 0)
		return false;
	n = strnlen(src, size);
	if (n >= size) {
		memcpy(dst, src, size - 1);
		dst[size - 1] = 0;
		return false;
	}
	memcpy(dst, src, n + 1);
	return true;
}

void str_sanitize(char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c < 0x20 || c == 0x7f)
			*s = '?';
	}
}

char *strstrip(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = 0;
	return s;
}
