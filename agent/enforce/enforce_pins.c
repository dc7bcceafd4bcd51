/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The pin directory (enforce.c's comment draws it): its parent checked to be bpffs (mounted on
 * /sys/fs/bpf if nothing is), an object pinned by a rename over the older one, and the pins an
 * earlier daemon of another version left behind.
 */
#include <bpf/bpf.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <linux/magic.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "common/log.h"
#include "common/macro.h"
#include "common/strutil.h"
#include "enforce-internal.h"

static bool is_bpffs(const char *path)
{
	struct statfs sf;

	return statfs(path, &sf) == 0 && (unsigned long)sf.f_type == (unsigned long)BPF_FS_MAGIC;
}

int enforce_pins_ensure_bpffs(const char *pin_dir)
{
	char parent[PATH_MAX];
	char *slash;

	if (!strscpy_ok(parent, pin_dir, sizeof(parent)))
		return -ENAMETOOLONG;
	slash = strrchr(parent, '/');
	if (!slash || slash == parent)
		return log_error_errno(-EINVAL, "Pin directory %s must be below a bpffs mount.",
				       pin_dir);
	*slash = 0;
	if (is_bpffs(parent))
		return 0;
	if (strcmp(parent, "/sys/fs/bpf") == 0) {
		if (mount("bpf", parent, "bpf", MS_NOSUID | MS_NODEV | MS_NOEXEC, "mode=0700") < 0)
			return log_error_errno(-errno, "Failed to mount bpffs on %s: %m", parent);
		log_info("Mounted bpffs on %s.", parent);
		return 0;
	}
	return log_error_errno(-ENOTDIR, "%s is not a bpffs mount: cannot pin enforcement there.",
			       parent);
}

static int mkdir_p(const char *dir)
{
	if (mkdir(dir, 0700) < 0 && errno != EEXIST)
		return -errno;
	return 0;
}

int enforce_pin_replace(const char *pin_dir, const char *sub, const char *name, int fd)
{
	char dir[PATH_MAX], path[PATH_MAX], tmp[PATH_MAX];
	int r;

	if (!snprintf_ok(dir, sizeof(dir), "%s/%s", pin_dir, sub) ||
	    !snprintf_ok(path, sizeof(path), "%s/%s", dir, name) ||
	    !snprintf_ok(tmp, sizeof(tmp), "%s/new-%s", dir, name))
		return -ENAMETOOLONG;
	r = mkdir_p(pin_dir);
	if (r == 0)
		r = mkdir_p(dir);
	if (r < 0)
		return log_error_errno(r, "Failed to create %s: %m", dir);
	(void)unlink(tmp);
	if (bpf_obj_pin(fd, tmp) < 0)
		return log_error_errno(-errno, "Failed to pin %s: %m", tmp);
	if (rename(tmp, path) < 0) {
		r = -errno;
		(void)unlink(tmp);
		return log_error_errno(r, "Failed to pin %s: %m", path);
	}
	return 0;
}

void enforce_pins_drop_stale(const char *pin_dir, bool (*known)(const char *name))
{
	static const char *const subs[] = {"links", "progs"};

	for (size_t s = 0; s < ARRAY_SIZE(subs); s++) {
		char dir[PATH_MAX], path[PATH_MAX + 256];
		struct dirent *de;
		DIR *d;

		if (!snprintf_ok(dir, sizeof(dir), "%s/%s", pin_dir, subs[s]) ||
		    !(d = opendir(dir)))
			continue;
		while ((de = readdir(d))) {
			if (de->d_name[0] == '.')
				continue;
			if (!known(de->d_name) &&
			    snprintf_ok(path, sizeof(path), "%s/%s", dir, de->d_name)) {
				if (unlink(path) == 0)
					log_info("Removed the stale enforcement pin %s.", path);
			}
		}
		closedir(d);
	}
}
