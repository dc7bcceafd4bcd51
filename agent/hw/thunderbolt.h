/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Thunderbolt below the root (/sys/bus/thunderbolt/devices): every domain (security level,
 * iommu_dma_protection) and every router or device (authorized, IDs, names). XDomain services,
 * retimers and ports are not read. Part of the IOMMU posture (iommu.h).
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "common/root.h"
#include "hw/hw_attr.h"

#define HW_MAX_TB 64 /* domains + devices */

struct hw_tb {
	char name[64]; /* "domain0", "0-1" */
	bool domain;
	char security[32];	  /* domain: none, user, secure, dponly, usbonly, nopcie */
	int iommu_dma_protection; /* domain: 0/1, -1 unknown */
	int authorized;		  /* device: 0, 1, 2; -1 none (the host router) */
	uint32_t vendor, device;
	char vendor_name[64], device_name[64];
	struct hw_errors errors;
};

struct hw_tb_list {
	bool present; /* /sys/bus/thunderbolt/devices exists */
	struct hw_tb *tb;
	unsigned n;
	bool truncated;
	char error[128]; /* the directory could not be listed */
};

/* Reads every domain and device below root. 0 or -ENOMEM. */
int hw_tb_read(const struct rg_root *root, struct hw_tb_list *ret);
void hw_tb_done(struct hw_tb_list *l);
