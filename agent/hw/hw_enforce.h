/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Hardware enforcement (docs/hardware-runtime.md): what the daemon does, with enforcement on and
 * the policy's "hardware_enforce", to a PCI function the policy does not allow: remove it from
 * the bus (the kernel forgets it; behind an IOMMU a card that goes on anyway faults and is
 * reported), or clear its bus-master bit (an honest card stops; a malicious FPGA may ignore it).
 * While a game runs it also refuses RDMA drivers to functions that appeared during the game
 * (hw_refuse.h decides): the function's driver_override is set to a name no driver has, then its
 * driver is unbound. What it did is kept in a state file (one line per action) so that
 * `rdmaguard enforce --off` can undo it: a rescan of the bus, bus mastering set again where it
 * was cleared, driver_override cleared (where it is still ours) and the function probed again.
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
 * Whether ADDR is a bridge: its header type is 1 (the card says) and the kernel made a
 * subordinate bus for it (ADDR/pci_bus/). An endpoint that only claims a bridge's class
 * (0x0604, 0x0680) is not one.
 */
bool hw_enforce_is_bridge(const struct hw_enforce_paths *p, const char *addr);

/*
 * The port above ADDR, where stopping it stops ADDR's device alone: a bridge (above) that is a
 * PCIe root port or downstream port, with nothing below it but ADDR's device's functions.
 * 0 and port, -ENODEV (no such port: a root-bus function, a PCI bridge), -EBUSY (other devices
 * below it), -errno.
 */
int hw_enforce_port_above(const struct hw_enforce_paths *p, const char *addr, char port[16]);

/*
 * Stops the port above a card (hw_enforce_port_above()): clears its bus-master bit (the port
 * forwards no more memory requests upstream from below: the card's DMA goes nowhere, whatever the
 * card's own bit says), or with link sets Link Disable in its Link Control register (the card is
 * off the link). 0 or -errno.
 */
int hw_enforce_port_stop(const struct hw_enforce_paths *p, const char *port, bool link);

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

/* Writes name to ADDR's driver_override ("" clears it: no override). 0 or -errno. */
int hw_enforce_override(const struct hw_enforce_paths *p, const char *addr, const char *name);

/*
 * Unbinds ADDR from driver: writes ADDR to ROOT/bus/pci/drivers/DRIVER/unbind. The kernel does
 * it only if ADDR is bound to that very driver (-ENODEV otherwise), so a driver name that is not
 * the bound one does nothing. -EINVAL: not a canonical address, or a driver name that is not 1
 * to 31 of [A-Za-z0-9_-]. 0 or -errno.
 */
int hw_enforce_unbind(const struct hw_enforce_paths *p, const char *addr, const char *driver);

/* Appends "remove ADDR", "bus_master ADDR", "override ADDR", "port_master PORT" or
 * "port_link PORT" to the state file. */
int hw_enforce_note(const struct hw_enforce_paths *p, const char *what, const char *addr);

struct hw_enforce_undone {
	unsigned rescans;   /* bus rescans (functions removed) */
	unsigned masters;   /* functions whose bus mastering was set again */
	unsigned overrides; /* functions whose driver_override was cleared and that were probed */
	unsigned ports;	    /* ports whose bus mastering or link was given back */
};

/*
 * Undoes what the state file lists: gives the ports above stopped cards their bus mastering or
 * link back, rescans the bus if anything was removed, sets bus mastering
 * again on each function whose bit was cleared, clears driver_override where it is still
 * HW_REFUSE_OVERRIDE (someone else's is left alone) and has the kernel probe the function again
 * (ROOT/bus/pci/drivers_probe), each only where the function is still there; then deletes the
 * file. *ret (may be NULL) counts what was done. 0, -ENOENT (nothing to undo), -errno (the
 * first failure; the rest is still tried).
 */
int hw_enforce_undo(const struct hw_enforce_paths *p, struct hw_enforce_undone *ret);
