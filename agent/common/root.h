/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Hostile-input-safe file access below a root.
 *
 * Everything the agent reads from /proc, /sys, /dev or /etc goes through a struct rg_root, so that
 * `--root DIR` redirects it to a mounted image or a fixture tree. Below a non-host root, paths are
 * resolved with openat2(RESOLVE_IN_ROOT) so an absolute symlink in the image cannot reach the host.
 * Reads are bounded, refuse non-regular files (a FIFO would hang us) and never trust contents.
 */
#pragma once

#include <dirent.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

struct rg_root {
	int fd;		 /* O_PATH directory fd of the root */
	bool is_host;	 /* root is "/": netlink, libibverbs and live sensors are meaningful */
	char path[4096]; /* as given, for messages */
};

int root_init(struct rg_root *root, const char *path);
void root_done(struct rg_root *root);

/*
 * open()/opendir()/readlink() of an absolute path ("/sys/...") below the root. Without openat2
 * (kernels before 5.6, valgrind) the same containment is done in userspace.
 */
int root_open(const struct rg_root *root, const char *path, int flags);
DIR *root_opendir(const struct rg_root *root, const char *path);
int root_readlink(const struct rg_root *root, const char *path, char *buf, size_t size);
int root_stat(const struct rg_root *root, const char *path, struct stat *st, bool follow);
/* Tests: resolve below roots as without openat2, for the rest of the process. */
void root_disable_openat2(void);

/*
 * Reads at most max bytes of a regular file into a NUL-terminated buffer. *ret_truncated (may be
 * NULL) tells whether the file had more. Returns 0 or -errno (-EBADFD: not a regular file).
 */
int read_fd_bounded(int fd, size_t max, char **ret, size_t *ret_len, bool *ret_truncated);
int root_read_file(const struct rg_root *root, const char *path, size_t max, char **ret,
		   size_t *ret_len, bool *ret_truncated);

/*
 * Reads the first line of a small (sysfs-style) file into buf, without its newline, with
 * non-printable bytes replaced by '?'. Returns the length, or -errno; -ENODATA for an empty file,
 * -E2BIG when the line does not fit.
 */
int root_read_line(const struct rg_root *root, const char *path, char *buf, size_t size);
