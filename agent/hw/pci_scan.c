/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The scan: every PCI function through libpci (stub while the API settles).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hw/pci.h"

int hw_scan(const struct rg_root *root, struct hw_scan **ret)
{
	(void)root;
	(void)ret;
	return -EOPNOTSUPP;
}

void hw_scan_free(struct hw_scan *s)
{
	if (!s)
		return;
	free(s->fn);
	free(s);
}

int hw_describe(const struct rg_root *root, const char *addr, struct hw_fn *ret)
{
	(void)root;
	(void)addr;
	(void)ret;
	return -EOPNOTSUPP;
}

const struct hw_fn *hw_scan_find(const struct hw_scan *s, const char *addr)
{
	for (unsigned i = 0; s && i < s->n; i++)
		if (strcmp(s->fn[i].addr, addr) == 0)
			return &s->fn[i];
	return NULL;
}
