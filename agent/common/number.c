/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Strict number parsing (number.h). */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>

#include "number.h"

int safe_atou64(const char *s, int base, uint64_t *ret)
{
	char *end;
	unsigned long long v;

	if (!s || !*s || isspace((unsigned char)*s) || *s == '-' || *s == '+')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, base);
	if (errno == ERANGE)
		return -ERANGE;
	if (errno || end == s || *end)
		return -EINVAL;
	*ret = v;
	return 0;
}

int safe_atou32(const char *s, int base, uint32_t *ret)
{
	uint64_t v;
	int r = safe_atou64(s, base, &v);

	if (r < 0)
		return r;
	if (v > UINT32_MAX)
		return -ERANGE;
	*ret = (uint32_t)v;
	return 0;
}

int safe_atoi(const char *s, int *ret)
{
	char *end;
	long v;

	if (!s || !*s || isspace((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno == ERANGE || v > INT_MAX || v < INT_MIN)
		return -ERANGE;
	if (errno || end == s || *end)
		return -EINVAL;
	*ret = (int)v;
	return 0;
}
