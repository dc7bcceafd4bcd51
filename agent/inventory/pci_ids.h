/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the inventory knows about RDMA PCI IDs and drivers (pci_ids.c), shared with the hardware
 * layer (agent/hw/), which classifies every function the same way. A leaf header.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

/* Known RDMA PCI vendors (rdma-abi.md §5): the vendor's short name, or NULL. */
const char *inv_pci_vendor_name(uint32_t vendor);
/* Vendors whose network functions are RDMA NICs as a rule (Mellanox, Chelsio, ...), unlike
 * vendors whose plain NICs are common (Intel, Broadcom): a driverless one is an RDMA card. */
bool inv_pci_vendor_is_rdma_first(uint32_t vendor);
/* True for drivers that register RDMA devices on the function they bind (mlx5_core, bnxt_en, ...). */
bool inv_pci_driver_is_rdma(const char *driver);
/* True for vendor:device pairs that are RDMA functions whatever their class (EFA, pvrdma, ...). */
bool inv_pci_device_is_rdma(uint32_t vendor, uint32_t device);
