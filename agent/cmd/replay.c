/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdio.h>

#include "cmd.h"
#include "../common/exitcode.h"

/* Placeholder until the engine module lands. */
int cmd_replay(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "rdmaguard replay: not implemented yet\n");
	return RG_EXIT_ERROR;
}
