/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Whether a process sees the file system as init does: the same root directory and the same
 * mount namespace. A path seen from anywhere else (a chroot, a mount namespace with a user
 * namespace's bind mounts) is shaped by whoever set it up, so it matches no policy pattern.
 * The sensors check it in the kernel at each exec (bpf/proc.bpf.c, from these knobs); the
 * inventory checks the processes it seeds.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

struct hostns {
	uint64_t root_ino; /* the root directory's inode */
	uint32_t root_kdev; /* its device, in the kernel's encoding (major << 20 | minor) */
	uint32_t mnt_ns;    /* the mount namespace's inode number */
};

/*
 * init's (/proc/1), or, without the right to look at init (a user's unit tests, a sandbox that
 * hides it), the nearest ancestor's in another mount namespace than the caller's (the service
 * manager that gave the daemon a private one), else the caller's own. 0 or -errno.
 */
int hostns_read(struct hostns *ret);
/* The process whose /proc directory is dfd. 0 or -errno (-ENOENT, -EACCES, -ESRCH...). */
int hostns_of(int dfd, struct hostns *ret);
static inline bool hostns_same(const struct hostns *a, const struct hostns *b)
{
	return a->root_ino == b->root_ino && a->root_kdev == b->root_kdev && a->mnt_ns == b->mnt_ns;
}
