/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The rule action names (action.h): the one table both directions read. */
#include <errno.h>
#include <string.h>

#include "action.h"
#include "macro.h"

static const char *const action_names[] = {"alert", "deny", "kill"};

int action_from_string(const char *s)
{
	int i;

	for (i = 0; s && i < (int)ARRAY_SIZE(action_names); i++)
		if (strcmp(action_names[i], s) == 0)
			return i;
	return -EINVAL;
}

const char *action_to_string(int a)
{
	return a >= 0 && a < (int)ARRAY_SIZE(action_names) ? action_names[a] : NULL;
}
