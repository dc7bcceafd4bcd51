/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Thunderbolt domains and devices below the root (thunderbolt.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/listdir.h"
#include "common/macro.h"
#include "common/strutil.h"
#include "hw/thunderbolt.h"

#define SYS_TB "/sys/bus/thunderbolt/devices"

static void read_entry(const struct rg_root *root, const char *name, struct hw_tb *t)
{
	char path[512];
	uint32_t v;

	(void)strscpy_ok(t->name, name, sizeof(t->name));
	t->domain = startswith(name, "domain");
	t->iommu_dma_protection = -1;
	t->authorized = -1;
#define ATTR(a) (snprintf_ok(path, sizeof(path), SYS_TB "/%s/" a, name) ? path : "")
	if (t->domain) {
		(void)hw_attr(root, &t->errors, true, ATTR("security"), t->security,
			      sizeof(t->security));
		if (hw_attr_u32(root, &t->errors, false, ATTR("iommu_dma_protection"), 10, &v) == 0)
			t->iommu_dma_protection = v != 0;
		return;
	}
	/* The host router ("N-0") has no `authorized`. */
	if (hw_attr_u32(root, &t->errors, false, ATTR("authorized"), 10, &v) == 0)
		t->authorized = (int)MIN(v, 2u);
	(void)hw_attr_u32(root, &t->errors, false, ATTR("vendor"), 16, &t->vendor);
	(void)hw_attr_u32(root, &t->errors, false, ATTR("device"), 16, &t->device);
	(void)hw_attr(root, &t->errors, false, ATTR("vendor_name"), t->vendor_name,
		      sizeof(t->vendor_name));
	(void)hw_attr(root, &t->errors, false, ATTR("device_name"), t->device_name,
		      sizeof(t->device_name));
#undef ATTR
}

int hw_tb_read(const struct rg_root *root, struct hw_tb_list *l)
{
	char **names = NULL;
	bool truncated = false;
	int n;

	memset(l, 0, sizeof(*l));
	n = root_list_dir(root, SYS_TB, HW_MAX_TB * 4, &names, &truncated);
	if (n == -ENOENT)
		return 0;
	l->present = true;
	if (n == -ENOMEM)
		return n;
	if (n < 0) {
		snprintf(l->error, sizeof(l->error), SYS_TB ": %s", read_strerror(n));
		return 0;
	}
	l->truncated = truncated;
	l->tb = calloc(HW_MAX_TB, sizeof(*l->tb));
	if (!l->tb) {
		strv_free(names, (unsigned)n);
		return -ENOMEM;
	}
	for (int i = 0; i < n; i++) {
		bool domain = startswith(names[i], "domain");

		/* Domains ("domain0") and routers/devices ("0-0", "0-1", "1-301"); not XDomain
		 * services, retimers and ports ("0-0:1.1", "usb4_port1"). */
		if (!domain && (!strchr(names[i], '-') || strchr(names[i], ':') ||
				startswith(names[i], "usb4")))
			continue;
		if (l->n >= HW_MAX_TB) {
			l->truncated = true;
			break;
		}
		read_entry(root, names[i], &l->tb[l->n++]);
	}
	strv_free(names, (unsigned)n);
	return 0;
}

void hw_tb_done(struct hw_tb_list *l)
{
	free(l->tb);
	l->tb = NULL;
	l->n = 0;
}
