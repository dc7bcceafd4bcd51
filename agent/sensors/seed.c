/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Seeding: the RDMA fds that processes already hold when the sensors start (from /proc/PID/fd)
 * go into the map rdma_fds, so that their commands are seen although their open was not; and
 * sensors_remember_fd(), which also sets the programs' rdma_seen latch.
 */
#include <bpf/bpf.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/log.h"
#include "common/macro.h"
#include "common/number.h"
#include "common/strutil.h"
#include "sensors_state.h"
#include "sensors.skel.h"

int sensors_remember_fd(struct rg_sensors *s, pid_t pid, int fd, unsigned node_kind)
{
	struct rg_fd_key k = {.tgid = (uint32_t)pid, .fd = fd};
	struct rg_fd_val v = {.node = node_kind};
	uint32_t zero = 0, one = 1, tgid = (uint32_t)pid;

	/* the programs' latch first: while it is 0 they do not look in the two maps */
	if (bpf_map_update_elem(bpf_map__fd(s->skel->maps.rdma_seen), &zero, &one, BPF_ANY) < 0)
		return -errno;
	if (bpf_map_update_elem(bpf_map__fd(s->skel->maps.rdma_fds), &k, &v, BPF_ANY) < 0)
		return -errno;
	if (bpf_map_update_elem(bpf_map__fd(s->skel->maps.rdma_procs), &tgid, &one, BPF_ANY) < 0)
		return -errno;
	return 0;
}

static unsigned node_of_path(const char *path)
{
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	if (startswith(base, "uverbs"))
		return RG_NODE_UVERBS_FD;
	if (strcmp(base, "rdma_cm") == 0)
		return RG_NODE_RDMA_CM_FD;
	if (startswith(base, "umad"))
		return RG_NODE_UMAD_FD;
	return RG_NODE_OTHER_FD;
}

int sensors_seed_fds(struct rg_sensors *s, const char *proc_root)
{
	_cleanup_(closedirp) DIR *proc = opendir(proc_root);
	struct dirent *de;
	int n = 0, pids = 0;

	if (!proc)
		return log_warning_errno(-errno, "Failed to open %s: %m", proc_root);
	while ((de = readdir(proc)) && pids < SEED_MAX_PIDS) {
		char path[PATH_MAX];
		_cleanup_(closedirp) DIR *fds = NULL;
		struct dirent *fe;
		uint32_t pid;
		int nfds = 0;

		if (safe_atou32(de->d_name, 10, &pid) < 0)
			continue;
		pids++;
		snprintf_ok(path, sizeof(path), "%s/%s/fd", proc_root, de->d_name);
		fds = opendir(path);
		if (!fds)
			continue;
		while ((fe = readdir(fds)) && nfds++ < SEED_MAX_FDS) {
			char target[256];
			struct stat st;
			ssize_t len;
			int fd;

			if (safe_atoi(fe->d_name, &fd) < 0 || fd < 0)
				continue;
			len = readlinkat(dirfd(fds), fe->d_name, target, sizeof(target) - 1);
			if (len <= 0)
				continue;
			target[len] = 0;
			/* A character device, as the BPF side requires (classify_file()): a
			 * user's own /dev in a mount namespace holds only regular files. */
			if (!startswith(target, "/dev/infiniband/") ||
			    fstatat(dirfd(fds), fe->d_name, &st, 0) < 0 || !S_ISCHR(st.st_mode))
				continue;
			if (sensors_remember_fd(s, (pid_t)pid, fd, node_of_path(target)) == 0)
				n++;
		}
	}
	if (n)
		log_info("Remembered %d RDMA fds held by running processes.", n);
	return n;
}
