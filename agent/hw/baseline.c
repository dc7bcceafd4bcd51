/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The seat baseline (stub). */
#include <errno.h>

#include "hw/baseline.h"

int hw_baseline_load(const char *path, struct hw_baseline **ret, struct rg_error *err)
{
	(void)path;
	(void)ret;
	(void)err;
	return -EOPNOTSUPP;
}

int hw_baseline_parse(const char *file, const char *text, size_t len, struct hw_baseline **ret,
		      struct rg_error *err)
{
	(void)file;
	(void)text;
	(void)len;
	(void)ret;
	(void)err;
	return -EOPNOTSUPP;
}

void hw_baseline_free(struct hw_baseline *b)
{
	(void)b;
}

int hw_baseline_write(const struct hw_scan *s, const char *hostname, FILE *f)
{
	(void)s;
	(void)hostname;
	(void)f;
	return -EOPNOTSUPP;
}

unsigned hw_baseline_check(const struct hw_baseline *b, const struct hw_fn *fn, char *diff,
			   size_t size)
{
	(void)b;
	(void)fn;
	if (size)
		diff[0] = 0;
	return RG_HW_NONE;
}

int hw_baseline_compare(const struct hw_baseline *b, const struct hw_scan *s,
			const struct rg_policy *policy, uint64_t now_ns,
			int (*cb)(const struct rg_event *ev, void *userdata), void *userdata)
{
	(void)b;
	(void)s;
	(void)policy;
	(void)now_ns;
	(void)cb;
	(void)userdata;
	return -EOPNOTSUPP;
}
