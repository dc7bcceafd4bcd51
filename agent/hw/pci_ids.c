/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The RDMA PCI ID tables and the PCI address check (pci_ids.h). */
#include <string.h>

#include "common/strutil.h"
#include "hw/pci_ids.h"

static const struct {
	uint32_t id;
	const char *name;
} rdma_vendors[] = {
    {0x15b3, "Mellanox"},  {0x14e4, "Broadcom"}, {0x8086, "Intel"},    {0x1425, "Chelsio"},
    {0x1077, "QLogic"},	   {0x19e5, "Huawei"},	 {0x1d0f, "Amazon"},   {0x1ded, "Alibaba"},
    {0x1414, "Microsoft"}, {0x15ad, "VMware"},	 {0x1dd8, "Pensando"}, {0x10df, "Emulex"},
    {0x1137, "Cisco"},
};

const char *hw_rdma_vendor_name(uint32_t vendor)
{
	for (size_t i = 0; i < ARRAY_SIZE(rdma_vendors); i++)
		if (rdma_vendors[i].id == vendor)
			return rdma_vendors[i].name;
	return NULL;
}

bool hw_rdma_vendor_first(uint32_t vendor)
{
	static const uint32_t ids[] = {0x15b3, 0x1425, 0x1077, 0x19e5, 0x1dd8, 0x10df, 0x1137};

	for (size_t i = 0; i < ARRAY_SIZE(ids); i++)
		if (ids[i] == vendor)
			return true;
	return false;
}

bool hw_rdma_driver(const char *driver)
{
	/* Drivers whose functions carry an RDMA device (directly or through an auxiliary device).
	 */
	static const char *const drivers[] = {
	    "mlx5_core", "mlx4_core", "bnxt_en", "ice",	       "qede",	 "cxgb4",  "hns3",
	    "efa",	 "erdma",     "mana",	 "vmw_pvrdma", "hfi1",	 "ib_qib", "ib_mthca",
	    "enic",	 "ionic",     "be2net",	 "irdma",      "ocrdma", "qedr",
	};

	for (size_t i = 0; i < ARRAY_SIZE(drivers); i++)
		if (strcmp(drivers[i], driver) == 0)
			return true;
	return false;
}

bool hw_rdma_device(uint32_t vendor, uint32_t device)
{
	/* Amazon EFA, VMware PVRDMA, Alibaba ERDMA, Microsoft MANA. */
	return (vendor == 0x1d0f && device >= 0xefa0 && device <= 0xefa3) ||
	       (vendor == 0x15ad && device == 0x0820) || (vendor == 0x1ded && device == 0x107f) ||
	       (vendor == 0x1414 && device == 0x00ba);
}

static bool hex_run(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return true;
}

bool hw_is_pci_addr(const char *s)
{
	const char *colon = strchr(s, ':');
	size_t dom;

	if (!colon)
		return false;
	dom = (size_t)(colon - s);
	/* DOMAIN ":" BB ":" DD "." F */
	if (dom < 4 || dom > 7 || strlen(colon) != 8 || !hex_run(s, dom))
		return false;
	if (!hex_run(colon + 1, 2) || colon[3] != ':' || !hex_run(colon + 4, 2) || colon[6] != '.')
		return false;
	if (colon[7] < '0' || colon[7] > '7')
		return false;
	/* device number: 5 bits */
	return (colon[4] == '0' || colon[4] == '1');
}
