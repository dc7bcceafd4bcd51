/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The capability walk over one function's config space bytes (pci_caps.c): the standard list
 * from the header's pointer, the extended list from 0x100, each bounded and loop-checked, and what
 * the hardware layer reads out of them (PCIe type and link, DSN, PM, ATS, ACS). Pure: a buffer in,
 * struct hw_fn fields out; also the fuzz target's entry point.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "hw/pci.h"

#define PCI_CAP_PM   0x01
#define PCI_CAP_MSI  0x05
#define PCI_CAP_EXP  0x10
#define PCI_CAP_MSIX 0x11
#define PCI_ECAP_DSN 0x0003
#define PCI_ECAP_ACS 0x000d
#define PCI_ECAP_ATS 0x000f

/*
 * Walks cfg[0..len) (len: what could be read, 64..4096) into fn: caps/ecaps and their offsets,
 * caps_error, pcie/pcie_type/link, aspm/l0s_exit/l1_exit, has_dsn/dsn, ats, acs, header_type,
 * command, bus_master, mem_enable, int_pin, msi_enabled/msix_enabled, and the facts CAPS_ZERO, CAPS_MALFORMED, HEADER_INVALID and NO_PM_CAP. Never reads
 * outside the buffer; terminates on any input.
 */
void hw_caps_walk(const uint8_t *cfg, size_t len, struct hw_fn *fn);

/* Whether fn has standard capability id / extended capability id. */
bool hw_fn_has_cap(const struct hw_fn *fn, uint8_t id);
bool hw_fn_has_ecap(const struct hw_fn *fn, uint16_t id);
