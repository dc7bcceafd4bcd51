/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What the hardware layer's files share and do not export: the scan calls the facts. */
#pragma once

#include <stdbool.h>

#include "hw/pci.h"

/* "0000:01:00.0": four, two, two hex digits, a function 0-7; nothing else. */
bool hw_is_pci_addr(const char *s);

/* Fills fn's vendor_name and device_name from pci.ids (a function not on the bus: the baseline's).
 */
void hw_fn_lookup_names(struct hw_fn *fn);

/* Computes every function's facts (pci_facts.c): those of one function and those that need the
 * others (the bridge above, functions of the same device, duplicate DSNs). */
void hw_facts_compute(struct hw_scan *s);
