/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fnmatch(3) patterns checked for what fnmatch would silently never match (globcheck.h). */
#include <errno.h>
#include <string.h>

#include "globcheck.h"
#include "macro.h"

static const char *const glob_classes[] = {"alnum", "alpha", "blank", "cntrl", "digit", "graph",
					   "lower", "print", "punct", "space", "upper", "xdigit"};

static int glob_fail(size_t off, const char *why, size_t *ret_off, const char **ret_why)
{
	*ret_off = off;
	*ret_why = why;
	return -EINVAL;
}

/* One character of a bracket expression at *j (escapes resolved); -1 if [. or [= comes. */
static int bracket_char(const char *pat, size_t *j)
{
	if (pat[*j] == '[' && (pat[*j + 1] == '.' || pat[*j + 1] == '='))
		return -1;
	if (pat[*j] == '\\' && pat[*j + 1]) {
		*j += 2;
		return (unsigned char)pat[*j - 1];
	}
	return (unsigned char)pat[(*j)++];
}

int glob_check(const char *pat, size_t *ret_off, const char **ret_why)
{
	size_t i = 0;

	while (pat[i]) {
		size_t j, start = i;

		if (pat[i] == '\\') {
			if (!pat[i + 1])
				return glob_fail(i, "a pattern cannot end in a backslash", ret_off,
						 ret_why);
			i += 2;
			continue;
		}
		if (pat[i] != '[') {
			i++;
			continue;
		}
		j = i + 1;
		if (pat[j] == '!' || pat[j] == '^')
			j++;
		if (pat[j] == ']')
			j++; /* a ']' first is a member */
		while (pat[j] && pat[j] != ']') {
			int lo, hi;

			if (pat[j] == '[' && pat[j + 1] == ':') {
				const char *end = strstr(pat + j + 2, ":]");
				size_t k, n;

				if (!end)
					return glob_fail(j, "unterminated [:class:]", ret_off,
							 ret_why);
				n = (size_t)(end - (pat + j + 2));
				for (k = 0; k < ARRAY_SIZE(glob_classes); k++)
					if (strlen(glob_classes[k]) == n &&
					    strncmp(glob_classes[k], pat + j + 2, n) == 0)
						break;
				if (k == ARRAY_SIZE(glob_classes))
					return glob_fail(
					    j,
					    "unknown character class (alnum, alpha, "
					    "blank, cntrl, digit, graph, lower, print, "
					    "punct, space, upper, xdigit)",
					    ret_off, ret_why);
				j = (size_t)(end - pat) + 2;
				continue;
			}
			if (pat[j] == '\\' && !pat[j + 1])
				break;
			lo = bracket_char(pat, &j);
			if (lo < 0)
				return glob_fail(j, "[. .] and [= =] are not supported", ret_off,
						 ret_why);
			if (pat[j] != '-' || !pat[j + 1] || pat[j + 1] == ']')
				continue;
			j++;
			hi = bracket_char(pat, &j);
			if (hi < 0)
				return glob_fail(j, "[. .] and [= =] are not supported", ret_off,
						 ret_why);
			if (hi < lo)
				return glob_fail(start,
						 "empty range in [...] (the first character "
						 "is above the last)",
						 ret_off, ret_why);
		}
		if (pat[j] != ']')
			return glob_fail(start, "unterminated '[' (write [[] for a literal '[')",
					 ret_off, ret_why);
		i = j + 1;
	}
	return 0;
}
