/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A process's root directory and mount namespace, from /proc (hostns.h). */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "hostns.h"

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

int hostns_read(struct hostns *ret)
{
	int r = hostns_of_path("/proc/1", ret);

	if (r < 0)
		r = hostns_of_path("/proc/self", ret);
	return r;
}
