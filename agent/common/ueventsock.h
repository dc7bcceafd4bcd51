/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The kernel's uevent socket (NETLINK_KOBJECT_UEVENT, group 1), shared by the sensors' device
 * watch (sensors/uevent.c) and the hardware layer's PCI/Thunderbolt watch (hw/hw_uevent.c):
 * each parses what it needs from the same datagrams.
 */
#ifndef RG_COMMON_UEVENTSOCK_H
#define RG_COMMON_UEVENTSOCK_H

#include <stddef.h>
#include <sys/types.h>

/* A non-blocking socket bound to the kernel's uevent group, asking for a 1 MiB receive buffer.
 * The fd or -errno. */
int uevent_sock_open(void);

/* One datagram into buf: its length; 0 when none waits, or when it is not the kernel's (only
 * port 0 is: udevd or a forger on the group is not evidence) or was truncated; -errno. */
ssize_t uevent_sock_recv(int fd, char *buf, size_t size);

#endif
