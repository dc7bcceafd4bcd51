/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The seat's hardware fingerprint in short (fingerprint.h): the digest of the baseline's one
 * canonical form, never a second format, and the sorted DSNs.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/macro.h"
#include "common/sha256.h"
#include "hw/baseline.h"
#include "hw/fingerprint.h"

static int cmp_fn(const void *a, const void *b)
{
	return strcmp(((const struct hw_fn *)a)->addr, ((const struct hw_fn *)b)->addr);
}

int hw_print_digest(const struct hw_scan *s, char out[static 65])
{
	struct hw_scan sorted;
	struct hw_fn *copy = NULL;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	int r;

	/* hw_scan() lists in address order; a scan put together otherwise is sorted here, so that
	 * the digest never depends on the order the kernel or a caller listed the functions in. */
	for (unsigned i = 1; i < s->n; i++)
		if (cmp_fn(&s->fn[i - 1], &s->fn[i]) > 0) {
			copy = malloc(s->n * sizeof(*copy));
			if (!copy)
				return -ENOMEM;
			memcpy(copy, s->fn, s->n * sizeof(*copy));
			qsort(copy, s->n, sizeof(*copy), cmp_fn);
			sorted = *s;
			sorted.fn = copy;
			s = &sorted;
			break;
		}
	f = open_memstream(&buf, &len);
	if (!f) {
		free(copy);
		return -ENOMEM;
	}
	/* The host name is the one value of the file that differs between identical seats. */
	r = hw_baseline_write(s, "", f);
	if (fclose(f) != 0 && r >= 0)
		r = -ENOMEM;
	if (r >= 0)
		r = sha256_mem(buf, len, out);
	free(buf);
	free(copy);
	return r;
}

static int cmp_dsn(const void *a, const void *b)
{
	return strcmp(a, b);
}

int hw_print_from_scan(const struct hw_scan *s, struct hw_print *p)
{
	char(*dsn)[24];
	unsigned n = 0, k = 0;
	int r;

	memset(p, 0, sizeof(*p));
	if (!s || s->error[0] || s->n == 0)
		return 0;
	r = hw_print_digest(s, p->digest);
	if (r < 0)
		return r;
	dsn = calloc(s->n, sizeof(*dsn));
	if (!dsn)
		return -ENOMEM;
	for (unsigned i = 0; i < s->n; i++)
		if (s->fn[i].has_dsn)
			hw_dsn_format(s->fn[i].dsn, dsn[n++]);
	qsort(dsn, n, sizeof(*dsn), cmp_dsn);
	/* The functions of one device share its serial number by design: each once. */
	for (unsigned i = 0; i < n; i++) {
		if (k && strcmp(p->dsn[k - 1], dsn[i]) == 0)
			continue;
		if (k == HW_PRINT_MAX_DSNS) {
			p->dsn_truncated = true;
			break;
		}
		memcpy(p->dsn[k++], dsn[i], sizeof(dsn[i]));
	}
	free(dsn);
	p->n_dsns = k;
	p->valid = true;
	return 0;
}
