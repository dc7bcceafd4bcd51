/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What every subcommand prints for bad usage (cmd.h): one place, so they all read alike. */
#include <stdarg.h>
#include <stdio.h>

#include "cmd/cmd.h"
#include "common/exitcode.h"

int cmd_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "rdmaguard %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'rdmaguard %s --help'.\n", cmd);
	return RG_EXIT_ERROR;
}
