/* SPDX-License-Identifier: GPL-2.0-or-later */
/* RDMA PCI vendors, devices and drivers (pci_ids.h). */
#include <stddef.h>
#include <string.h>

#include "pci_ids.h"
#include "common/macro.h"

static const struct {
	uint32_t id;
	const char *name;
} rdma_vendors[] = {
    {0x15b3, "Mellanox"},  {0x14e4, "Broadcom"}, {0x8086, "Intel"},    {0x1425, "Chelsio"},
    {0x1077, "QLogic"},	   {0x19e5, "Huawei"},	 {0x1d0f, "Amazon"},   {0x1ded, "Alibaba"},
    {0x1414, "Microsoft"}, {0x15ad, "VMware"},	 {0x1dd8, "Pensando"}, {0x10df, "Emulex"},
    {0x1137, "Cisco"},
};

const char *inv_pci_vendor_name(uint32_t vendor)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(rdma_vendors); i++)
		if (rdma_vendors[i].id == vendor)
			return rdma_vendors[i].name;
	return NULL;
}

bool inv_pci_vendor_is_rdma_first(uint32_t vendor)
{
	static const uint32_t ids[] = {0x15b3, 0x1425, 0x1077, 0x19e5, 0x1dd8, 0x10df, 0x1137};

	for (size_t i = 0; i < ARRAY_SIZE(ids); i++)
		if (ids[i] == vendor)
			return true;
	return false;
}

bool inv_pci_driver_is_rdma(const char *driver)
{
	/* Drivers whose functions carry an RDMA device (directly or through an auxiliary device).
	 */
	static const char *const drivers[] = {
	    "mlx5_core", "mlx4_core", "bnxt_en", "ice",	       "qede",	 "cxgb4",  "hns3",
	    "efa",	 "erdma",     "mana",	 "vmw_pvrdma", "hfi1",	 "ib_qib", "ib_mthca",
	    "enic",	 "ionic",     "be2net",	 "irdma",      "ocrdma", "qedr",
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(drivers); i++)
		if (strcmp(drivers[i], driver) == 0)
			return true;
	return false;
}

bool inv_pci_device_is_rdma(uint32_t vendor, uint32_t device)
{
	/* Amazon EFA, VMware PVRDMA, Alibaba ERDMA, Microsoft MANA. */
	return (vendor == 0x1d0f && device >= 0xefa0 && device <= 0xefa3) ||
	       (vendor == 0x15ad && device == 0x0820) || (vendor == 0x1ded && device == 0x107f) ||
	       (vendor == 0x1414 && device == 0x00ba);
}
