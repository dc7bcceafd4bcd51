/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A private /dev for the test and benchmark drivers that stand in for RDMA nodes on a machine
 * with no RDMA device (tests/integration/host/rg-host-driver.c,
 * tests/integration/load/rg-storm.c, bench/event_storm.c):
 * a new mount namespace, / made private, a tmpfs on /dev, /dev/null, and /dev/infiniband with
 * the nodes uverbs0, rdma_cm and umad0 as character devices 1:5 (the kernel's /dev/zero: write()
 * takes any bytes, ioctl() fails with ENOTTY, mmap() works). The agent counts only a character
 * device in a directory "infiniband" as a stand-in node (only root can make one), never a regular
 * file: so the sensors see the same path, fd and bytes as with the real device, and a user's
 * ~/infiniband/uverbs0 is nothing. Root only.
 *
 * Returns NULL, or the step that failed (errno tells why).
 */
#pragma once

#include <sched.h>
#include <stddef.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

static inline const char *standin_dev_enter(void)
{
	static const char *const nodes[] = {"/dev/infiniband/uverbs0", "/dev/infiniband/rdma_cm",
					    "/dev/infiniband/umad0"};

	if (unshare(CLONE_NEWNS) < 0)
		return "unshare(CLONE_NEWNS)";
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		return "make / private";
	if (mount("rgdev", "/dev", "tmpfs", MS_NOSUID, "mode=0755,size=4m") < 0)
		return "mount tmpfs on /dev";
	if (mknod("/dev/null", S_IFCHR | 0666, makedev(1, 3)) < 0)
		return "mknod /dev/null";
	if (mkdir("/dev/infiniband", 0755) < 0)
		return "mkdir /dev/infiniband";
	for (size_t i = 0; i < sizeof(nodes) / sizeof(nodes[0]); i++)
		if (mknod(nodes[i], S_IFCHR | 0666, makedev(1, 5)) < 0)
			return nodes[i];
	return NULL;
}
