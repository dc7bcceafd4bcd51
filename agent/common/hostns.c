/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A process's root directory and mount namespace, from /proc (hostns.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "hostns.h"
#include "procstat.h"

int hostns_of(int dfd, struct hostns *ret)
{
	struct stat st;

	/* the magic links followed: the directory and the namespace themselves */
	if (fstatat(dfd, "root", &st, 0) < 0)
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	ret->root_ino = (uint64_t)st.st_ino;
	ret->root_kdev = (uint32_t)(major(st.st_dev) << 20 | (minor(st.st_dev) & 0xfffff));
	if (fstatat(dfd, "ns/mnt", &st, 0) < 0)
		return -errno;
	ret->mnt_ns = (uint32_t)st.st_ino;
	return 0;
}

static int hostns_of_path(const char *dir, struct hostns *ret)
{
	int dfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC), r;

	if (dfd < 0)
		return -errno;
	r = hostns_of(dfd, ret);
	close(dfd);
	return r;
}

/* The parent of pid (procstat.h), or 0. */
static uint32_t parent_of(uint32_t pid)
{
	char buf[4096];
	struct proc_stat st;

	return proc_stat_read(pid, buf, sizeof(buf), &st) == 0 ? st.ppid : 0;
}

int hostns_read(struct hostns *ret)
{
	struct hostns own, h;
	char dir[32];
	uint32_t pid;
	int r = hostns_of_path("/proc/1", ret);

	if (r >= 0)
		return r;
	/* init is out of reach (a sandbox whose own init hides itself): the nearest ancestor in
	 * another mount namespace than ours, i.e. the manager that gave us a private one
	 * (PrivateMounts=), else ours. */
	r = hostns_of_path("/proc/self", &own);
	if (r < 0)
		return r;
	*ret = own;
	pid = (uint32_t)getpid();
	for (unsigned depth = 0; depth < 32 && (pid = parent_of(pid)) > 1; depth++) {
		snprintf(dir, sizeof(dir), "/proc/%u", pid);
		if (hostns_of_path(dir, &h) < 0)
			break;
		if (h.mnt_ns != own.mnt_ns) {
			*ret = h;
			break;
		}
	}
	return 0;
}
