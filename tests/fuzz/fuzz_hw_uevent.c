/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hw_uevent_parse(): a NETLINK_KOBJECT_UEVENT message of the PCI or Thunderbolt subsystem, which
 * the daemon turns into pci_change and thunderbolt_device events (agent/hw/hw_uevent.h). Input:
 * the message, in an exact-size allocation. Properties: a PCI event has a canonical slot
 * address, a Thunderbolt one a device name; every string is terminated; IDs are in range.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "hw/dma_fault.h"
#include "hw/hw_uevent.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_quiet();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size ? size : 1);
	struct hw_uevent u;

	if (!buf)
		abort();
	if (size)
		memcpy(buf, data, size);
	memset(&u, 0x55, sizeof(u));
	if (hw_uevent_parse(buf, size, &u) == 1) {
		FUZZ_ASSERT(u.pci != u.thunderbolt, "one subsystem");
		FUZZ_ASSERT(hw_uevent_action_to_string(u.action), "action");
		FUZZ_ASSERT(memchr(u.devpath, 0, sizeof(u.devpath)) && u.devpath[0], "devpath");
		FUZZ_ASSERT(memchr(u.driver, 0, sizeof(u.driver)), "driver");
		FUZZ_ASSERT(u.vendor <= 0xffff && u.device <= 0xffff && u.class_code <= 0xffffff,
			    "ids");
		if (u.pci) {
			char again[16];

			FUZZ_ASSERT(strlen(u.slot) == 12 && hw_parse_bdf(u.slot, again) == 12 &&
					strcmp(again, u.slot) == 0,
				    "slot %s", u.slot);
		} else {
			FUZZ_ASSERT(memchr(u.tb_name, 0, sizeof(u.tb_name)) && u.tb_name[0], "name");
			FUZZ_ASSERT(u.authorized >= -1 && u.authorized <= 2, "authorized");
		}
	}
	free(buf);
	return 0;
}
