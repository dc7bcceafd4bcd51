/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What the hardware layer's files share and do not export: the scan calls the facts. */
#pragma once

#include <stdbool.h>

#include "hw/pci.h"
#include "hw/pci_ids.h"

/* Fills fn's vendor_name and device_name from pci.ids (a function not on the bus: the baseline's).
 */
void hw_fn_lookup_names(struct hw_fn *fn);

/* Computes every function's facts (pci_facts.c): those of one function and those that need the
 * others (the bridge above, functions of the same device, duplicate DSNs). */
void hw_facts_compute(struct hw_scan *s);
