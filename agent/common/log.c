/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "log.h"

static enum log_level max_level = LOG_LEVEL_INFO;
static bool journal_prefix;

void log_set_max_level(enum log_level level)
{
	max_level = level;
}

enum log_level log_get_max_level(void)
{
	return max_level;
}

void log_set_journal_prefix(bool on)
{
	journal_prefix = on;
}

int log_internal(enum log_level level, int error, const char *file, int line, const char *fmt, ...)
{
	char buf[2048];
	va_list ap;
	int saved = errno;

	if (error > 0)
		error = -error;
	if (level > max_level)
		return error;

	/* %m means strerror of the error passed in, not of whatever errno happens to be. */
	errno = error < 0 ? -error : saved;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);

	if (journal_prefix)
		fprintf(stderr, "<%d>%s\n", (int)level, buf);
	else if (max_level >= LOG_LEVEL_DEBUG)
		fprintf(stderr, "rdmaguard: %s (%s:%d)\n", buf, file, line);
	else
		fprintf(stderr, "rdmaguard: %s\n", buf);

	errno = saved;
	return error;
}
