/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Kernel uevents (NETLINK_KOBJECT_UEVENT): RDMA devices appearing and disappearing
 * (SUBSYSTEM=infiniband) and modules being loaded (SUBSYSTEM=module). The parser is pure.
 */
#pragma once

#include <stddef.h>

struct uevent {
	char action[16];    /* "add", "remove", ... */
	char subsystem[32]; /* "infiniband", "module", ... */
	char devpath[256];
	char name[64]; /* NAME=, else the last component of DEVPATH */
};

/*
 * Parses one kernel message: "ACTION@DEVPATH\0KEY=VALUE\0...". 0, or -EINVAL for something that
 * is not a kernel uevent (e.g. libudev's "libudev" messages) or lacks ACTION/SUBSYSTEM/DEVPATH.
 */
int uevent_parse(const char *buf, size_t len, struct uevent *u);

/* A non-blocking, close-on-exec socket bound to the kernel's uevent group. fd or -errno. */
int uevent_open(void);

/* Receives one message from the kernel (others are dropped): 1 parsed, 0 nothing (EAGAIN, or a
 * message not from the kernel or not parseable), -errno. */
int uevent_receive(int fd, struct uevent *u);
