/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A private /dev for the test and benchmark drivers that stand in for RDMA nodes on a machine
 * with no RDMA device (tests/host/rg-host-driver.c, tests/load/rg-storm.c, bench/event_storm.c):
 * a new mount namespace, / made private, a tmpfs on /dev and an empty /dev/infiniband, where the
 * caller then creates regular files named as the nodes. The sensors see the same path, fd and
 * bytes as with the real device. Root only.
 *
 * Returns NULL, or the step that failed (errno tells why).
 */
#pragma once

#include <sched.h>
#include <stddef.h>
#include <sys/mount.h>
#include <sys/stat.h>

static inline const char *standin_dev_enter(void)
{
	if (unshare(CLONE_NEWNS) < 0)
		return "unshare(CLONE_NEWNS)";
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		return "make / private";
	if (mount("rgdev", "/dev", "tmpfs", MS_NOSUID, "mode=0755,size=4m") < 0)
		return "mount tmpfs on /dev";
	if (mkdir("/dev/infiniband", 0755) < 0)
		return "mkdir /dev/infiniband";
	return NULL;
}
