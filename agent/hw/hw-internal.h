/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What the hardware layer's files share and do not export: the scan calls the facts, the facts
 * and the baseline's part in them tell functions of one device apart. */
#pragma once

#include <stdbool.h>
#include <string.h>

#include "hw/pci.h"
#include "hw/pci_ids.h"

/* Fills fn's vendor_name and device_name from pci.ids (a function not on the bus: the baseline's).
 */
void hw_fn_lookup_names(struct hw_fn *fn);

/* Computes every function's facts (pci_facts.c): those of one function and those that need the
 * others (the bridge above, functions of the same device, duplicate DSNs). */
void hw_facts_compute(struct hw_scan *s);

/* Whether two functions are of one device: "0000:01:00" of "0000:01:00.0". */
static inline bool hw_fn_same_device(const struct hw_fn *a, const struct hw_fn *b)
{
	return strncmp(a->addr, b->addr, 10) == 0;
}
