/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdio.h>

#include "cmd.h"
#include "../common/exitcode.h"

/* Placeholder until the inventory module lands. */
int cmd_audit(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "rdmaguard audit: not implemented yet\n");
	return RG_EXIT_ERROR;
}
