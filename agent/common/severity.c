/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The severity names (severity.h): the one table both directions read. */
#include <errno.h>
#include <string.h>

#include "severity.h"

static const char *const severity_names[RG_SEV__MAX] = {"info", "low", "medium", "high",
							"critical"};

int severity_from_string(const char *s)
{
	int i;

	for (i = 0; s && i < RG_SEV__MAX; i++)
		if (strcmp(severity_names[i], s) == 0)
			return i;
	return -EINVAL;
}

const char *severity_to_string(int sev)
{
	return sev >= 0 && sev < RG_SEV__MAX ? severity_names[sev] : NULL;
}
