/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the agent knows about PCI IDs, drivers and addresses without reading anything: the RDMA
 * vendors, devices and drivers (the hardware layer classifies every function with them, the
 * audit reports them) and the one check of a PCI address as sysfs names a function. A leaf
 * header: the inventory and the hardware layer both include it; it includes neither.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

/* Known RDMA PCI vendors: the vendor's short name ("Mellanox"), or NULL. */
const char *hw_rdma_vendor_name(uint32_t vendor);
/* Vendors whose network functions are RDMA NICs as a rule (Mellanox, Chelsio, ...), unlike
 * vendors whose plain NICs are common (Intel, Broadcom): a driverless one is an RDMA card. */
bool hw_rdma_vendor_first(uint32_t vendor);
/* Drivers that register RDMA devices on the function they bind (mlx5_core, bnxt_en, ...). */
bool hw_rdma_driver(const char *driver);
/* vendor:device pairs that are RDMA functions whatever their class (EFA, pvrdma, ...). */
bool hw_rdma_device(uint32_t vendor, uint32_t device);

/*
 * A PCI address as the kernel names a function ("%04x:%02x:%02x.%u"): a domain of 4 to 7
 * lower-case hex digits (VMD domains start at 10000), a bus of two, a device of two below 0x20,
 * a function 0-7, nothing else. Fits the 16 bytes every address buffer has.
 */
bool hw_is_pci_addr(const char *s);
