/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Kernel uevents of the hardware layer (docs/hardware-runtime.md): PCI functions added, removed,
 * bound to and unbound from a driver (SUBSYSTEM=pci: add, remove, bind, unbind, change; a
 * `remove` + `rescan` is a remove and an add), and Thunderbolt devices added, authorised (a
 * `change` with AUTHORIZED=) and removed (SUBSYSTEM=thunderbolt, DEVTYPE=thunderbolt_device).
 *
 * Read from a NETLINK_KOBJECT_UEVENT socket of the hardware layer's own (the sensors keep theirs
 * for RDMA devices and modules), and only from the kernel: a message whose sender is not port 0
 * (udevd's re-broadcasts, any process) is dropped. hw_uevent_parse() is pure (fuzz target
 * "hw_uevent").
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum hw_uevent_action {
	HW_UEV_OTHER = 0,
	HW_UEV_ADD,
	HW_UEV_REMOVE,
	HW_UEV_BIND,
	HW_UEV_UNBIND,
	HW_UEV_CHANGE,
};

struct hw_uevent {
	unsigned action;     /* enum hw_uevent_action */
	bool pci, thunderbolt; /* SUBSYSTEM=pci; SUBSYSTEM=thunderbolt with DEVTYPE=thunderbolt_device */
	char devpath[256];
	char slot[16];	     /* PCI_SLOT_NAME, canonical "0000:01:00.0" */
	char driver[32];     /* DRIVER= (bind; the driver bound), "" */
	bool has_id;
	uint32_t vendor, device; /* PCI_ID=1234:11E8 */
	bool has_class;
	uint32_t class_code;	 /* PCI_CLASS=FF00 (24 bits) */
	uint32_t subsys_vendor, subsys_device; /* PCI_SUBSYS_ID= */
	char tb_name[32];    /* thunderbolt: the device's name, the last part of DEVPATH ("0-1") */
	int authorized;	     /* thunderbolt: AUTHORIZED=, -1 when absent */
};

/*
 * Parses one kernel message "ACTION@DEVPATH\0KEY=VALUE\0...": 1 a PCI or Thunderbolt event in
 * *u, 0 another subsystem, -EINVAL not a uevent or a malformed PCI one (no valid PCI_SLOT_NAME).
 */
int hw_uevent_parse(const char *buf, size_t len, struct hw_uevent *u);

const char *hw_uevent_action_to_string(unsigned a); /* "add", "remove", ... */

/* A non-blocking, close-on-exec socket on the kernel's uevent group. fd or -errno. */
int hw_uevent_open(void);

/* Receives one message: 1 a PCI or Thunderbolt event from the kernel in *u, 0 nothing more
 * (EAGAIN) or a message to skip (from user space, truncated, another subsystem), -errno
 * (-ENOBUFS: the socket overran; rescan). */
int hw_uevent_receive(int fd, struct hw_uevent *u);
