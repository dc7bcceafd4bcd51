/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Hardware enforcement (docs/hardware-runtime.md): what the daemon does, with enforcement on and
 * the policy's "hardware_enforce", to a PCI function the policy does not allow: remove it from
 * the bus (the kernel forgets it; behind an IOMMU a card that goes on anyway faults and is
 * reported), or clear its bus-master bit (an honest card stops; a malicious FPGA may ignore it).
 * What it did is kept in a state file (one line per action) so that `rdmaguard enforce --off`
 * can undo it: a rescan of the bus, and bus mastering set again where it was cleared.
 *
 * Paths are built from a canonical address only ("0000:01:00.0", hw_parse_bdf()), below sysfs
 * (a parameter, for tests).
 */
#pragma once

#include <stdbool.h>

#define HW_ENFORCE_STATE_FILE "/run/rdmaguard/hw-enforced"

struct hw_enforce_paths {
	const char *sysfs; /* NULL: /sys */
	const char *state; /* NULL: HW_ENFORCE_STATE_FILE */
};

/* sysfs remove. 0 or -errno (-EINVAL: not a canonical address). */
int hw_enforce_remove(const struct hw_enforce_paths *p, const char *addr);

/* Clears bit 2 of the command register (a 2-byte config write). *was_set says whether it was on.
 * 0 or -errno. */
int hw_enforce_clear_master(const struct hw_enforce_paths *p, const char *addr, bool *was_set);

/*
 * Where ADDR's IOMMU group (the function's iommu_group link, below sysfs) is "identity", switches
 * it to a translating domain: writes "DMA" to ROOT/kernel/iommu_groups/N/type (kernel 5.11+) and
 * reads the type back. The kernel refuses while a driver is bound (-EBUSY), while the group has
 * more than one device (-EINVAL before 6.7), without CAP_SYS_ADMIN and CAP_SYS_RAWIO (-EACCES).
 * *group gets N (-1: none) and after the type read back ("" unreadable; may be NULL).
 * 1 switched, 0 nothing to do (no group, or not identity), -errno.
 */
int hw_enforce_translate(const struct hw_enforce_paths *p, const char *addr, int *group,
			 char *after, size_t after_size);

/* Appends "remove ADDR" or "bus_master ADDR" to the state file. */
int hw_enforce_note(const struct hw_enforce_paths *p, const char *what, const char *addr);

/*
 * Undoes what the state file lists: rescans the bus if anything was removed, sets bus mastering
 * again on each function whose bit was cleared (if it is still there), then deletes the file.
 * *n_rescan and *n_master (may be NULL) count what was done. 0, -ENOENT (nothing to undo),
 * -errno (the first failure; the rest is still tried).
 */
int hw_enforce_undo(const struct hw_enforce_paths *p, unsigned *n_rescan, unsigned *n_master);
