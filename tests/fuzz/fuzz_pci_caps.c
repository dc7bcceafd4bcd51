/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hw_caps_walk(): one PCI function's config space (the hardware layer's capability walk, what a
 * DMA card's firmware controls). Input: the config bytes, in an exact-size allocation (ASan
 * catches a read past them), at most 4096. Properties: the walk ends; every capability offset it
 * kept lies inside what was read (standard ones in 0x40..0xff, extended ones at 0x100 or above,
 * 4-aligned); a malformed list is a fact with its reason; the function's event survives the JSON
 * round trip.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "hw/pci.h"
#include "hw/pci_caps.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_quiet();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *cfg;
	struct hw_fn fn;
	struct rg_event ev;

	if (size > 4096)
		return -1;
	cfg = malloc(size ? size : 1);
	if (!cfg)
		abort();
	if (size)
		memcpy(cfg, data, size);
	memset(&fn, 0, sizeof(fn));
	memcpy(fn.addr, "0000:01:00.0", 13);
	fn.iommu_group = -1;
	hw_caps_walk(cfg, size, &fn);
	FUZZ_ASSERT(fn.n_caps <= HW_MAX_CAPS && fn.n_ecaps <= HW_MAX_ECAPS, "counts");
	for (unsigned i = 0; i < fn.n_caps; i++)
		FUZZ_ASSERT(fn.cap_offsets[i] >= 0x40 && (size_t)fn.cap_offsets[i] + 2 <= size &&
				fn.cap_offsets[i] < 0x100 && fn.cap_offsets[i] % 4 == 0,
			    "capability %u at 0x%x of %zu bytes", i, fn.cap_offsets[i], size);
	for (unsigned i = 0; i < fn.n_ecaps; i++)
		FUZZ_ASSERT(fn.ecap_offsets[i] >= 0x100 && (size_t)fn.ecap_offsets[i] + 4 <= size &&
				fn.ecap_offsets[i] % 4 == 0,
			    "extended capability %u at 0x%x of %zu bytes", i, fn.ecap_offsets[i],
			    size);
	FUZZ_ASSERT(memchr(fn.caps_error, 0, sizeof(fn.caps_error)), "caps_error terminated");
	FUZZ_ASSERT(!(fn.facts & (RG_PCI_FACT_CAPS_MALFORMED | RG_PCI_FACT_CAPS_ZERO)) ||
			fn.caps_error[0],
		    "a malformed list says why");
	hw_fn_to_event(&fn, RG_EV_PCI_FUNCTION, RG_PROV_INVENTORY, 1000000000ull, &ev);
	fuzz_check_event(&ev);
	free(cfg);
	return 0;
}
