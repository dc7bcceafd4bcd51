/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Errors with their place in a configuration file (rg_error.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

#include "rg_error.h"
#include "strutil.h"

int rg_error_set(struct rg_error *err, const char *file, unsigned line, unsigned column,
		 const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return -EINVAL;
	strscpy_ok(err->file, file ? file : "", sizeof(err->file));
	err->line = line;
	err->column = line ? column : 0;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return -EINVAL;
}

const char *rg_error_format(const struct rg_error *err, char *buf, size_t size)
{
	if (err->file[0] && err->line)
		snprintf(buf, size, "%s:%u:%u: %s", err->file, err->line, err->column, err->msg);
	else if (err->file[0])
		snprintf(buf, size, "%s: %s", err->file, err->msg);
	else
		snprintf(buf, size, "%s", err->msg);
	return buf;
}
