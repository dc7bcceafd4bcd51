/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The IOMMU posture (stub). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hw/iommu.h"

int hw_posture_read(const struct rg_root *root, struct hw_posture *ret)
{
	(void)root;
	memset(ret, 0, sizeof(*ret));
	return -EOPNOTSUPP;
}

void hw_posture_done(struct hw_posture *p)
{
	if (p)
		free(p->groups);
}

bool hw_cmdline_weakens(const char *opt)
{
	(void)opt;
	return false;
}

void hw_posture_to_event(const struct hw_posture *p, uint64_t now_ns, struct rg_event *ev)
{
	(void)p;
	memset(ev, 0, sizeof(*ev));
	ev->type = RG_EV_IOMMU_POSTURE;
	ev->ts = now_ns;
}
