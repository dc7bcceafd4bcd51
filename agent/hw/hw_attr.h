/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Reading sysfs attributes below the root for the hardware layer's report: what could not be
 * read is kept, as "PATH: why" ("missing", "empty", "not a number: 'zzzz'"), in a bounded list
 * on the function, the IOMMU posture or the Thunderbolt entry it belongs to.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "common/root.h"

#define HW_MAX_ERRORS 6

struct hw_errors {
	char msg[HW_MAX_ERRORS][200];
	unsigned n, dropped;
};

void hw_errors_add(struct hw_errors *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* An attribute's first line into buf: 0 or -errno. A required one that is missing or empty, or
 * any one that cannot be read otherwise, is an error in e. */
int hw_attr(const struct rg_root *root, struct hw_errors *e, bool required, const char *path,
	    char *buf, size_t size);
/* The same, as a number in base (0: C syntax); one that is not a number is an error too. */
int hw_attr_u32(const struct rg_root *root, struct hw_errors *e, bool required, const char *path,
		int base, uint32_t *ret);
