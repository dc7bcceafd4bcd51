/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fnmatch(3) patterns checked before use. */
#pragma once

#include <stddef.h>

/*
 * Checks an fnmatch(3) pattern (backslash escapes on) for what fnmatch would silently treat as
 * "never matches" or as a literal by accident, so that a typo in a policy or rule is an error
 * instead of a pattern that protects nothing: a trailing backslash, an unterminated '[', an
 * unknown [:class:], an empty range (z-a), [. .] and [= =]. Returns 0, or -EINVAL with the byte
 * offset of the problem in *ret_off and a description in *ret_why (static text).
 */
int glob_check(const char *pat, size_t *ret_off, const char **ret_why);
