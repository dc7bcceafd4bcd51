/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Listing a directory below the root (bounded, version-sorted, so that a cap cuts the same way
 * every time) and a short description of a read failure, as reports print them: what the
 * inventory and the hardware layer both read sysfs with.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/root.h"

/* A short description of a read failure: "empty", "not a regular file", "value too long", ... */
const char *read_strerror(int r);

/*
 * The names in a directory below the root ("." and ".." left out), sorted in version order, at
 * most max of them (the smallest: *ret_truncated says whether there were more; at most
 * 16 * max + 4096 entries are examined), sanitized. Returns how many, or -errno.
 */
int root_list_dir(const struct rg_root *root, const char *path, unsigned max, char ***ret,
		  bool *ret_truncated);
void strv_free(char **v, unsigned n);

/*
 * A sysfs attribute's first line into buf: 0 or -errno. When it is worth reporting (a required
 * one missing or empty, any one that cannot be read otherwise, or with ret set and not a number
 * in base) why says so ("missing", "empty", "not a number: 'zzzz'"); "" otherwise. ret: NULL
 * for text.
 */
int root_read_attr(const struct rg_root *root, const char *path, bool required, char *buf,
		   size_t size, int base, uint32_t *ret, char *why, size_t why_size);
