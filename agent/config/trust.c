/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Trust in configuration files: open, fstat, owner, mode, and the directories above (trust.h).
 * The policy and every rule file go through here, so that one set of checks guards all that the
 * root daemon reads as configuration.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trust.h"
#include "common/macro.h"

/* Owner and mode of st (what names it in messages: "" for the file itself). */
static int check_stat(const char *path, const char *what, const struct stat *st, bool sticky_ok,
		      struct rg_error *err)
{
	if (st->st_uid != 0) {
		rg_error_set(err, path, 0, 0, "refused: %s%sowned by uid %u, not root", what,
			     *what ? " " : "", (unsigned)st->st_uid);
		return -EPERM;
	}
	if ((st->st_mode & (S_IWGRP | S_IWOTH)) && !(sticky_ok && (st->st_mode & S_ISVTX))) {
		rg_error_set(err, path, 0, 0, "refused: %s%swritable by group or other (mode %04o)",
			     what, *what ? " " : "", (unsigned)(st->st_mode & 07777));
		return -EPERM;
	}
	return 0;
}

/* Every directory above the open file fd: root's, and not writable by others unless sticky. The
 * names come from the kernel (/proc/self/fd), after the open: symbolic links already resolved. */
static int check_chain(int fd, const char *path, struct rg_error *err)
{
	char link[64], real[PATH_MAX], what[PATH_MAX + 16];
	struct stat st;
	ssize_t n;
	char *slash;
	int r;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, real, sizeof(real) - 1);
	if (n < 0 || n == (ssize_t)sizeof(real) - 1 || real[0] != '/') {
		r = n < 0 ? -errno : -ENAMETOOLONG;
		rg_error_set(err, path, 0, 0, "cannot resolve its directories: %s", strerror(-r));
		return r;
	}
	real[n] = 0;
	for (;;) {
		slash = strrchr(real, '/');
		if (!slash)
			return 0;
		if (slash == real)
			slash[1] = 0;
		else
			*slash = 0;
		if (lstat(real, &st) < 0) {
			r = -errno;
			rg_error_set(err, path, 0, 0, "cannot stat directory %s: %s", real,
				     strerror(-r));
			return r;
		}
		snprintf(what, sizeof(what), "directory %s", real);
		r = check_stat(path, what, &st, true, err);
		if (r < 0)
			return r;
		if (strcmp(real, "/") == 0)
			return 0;
	}
}

static int trust_open(int dirfd, const char *name, const char *path, bool dir, bool check_owner,
		      struct rg_error *err)
{
	_cleanup_close_ int fd = -1;
	struct stat st;
	int r;

	fd = openat(dirfd, name,
		    O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | (dir ? O_DIRECTORY : 0));
	if (fd < 0) {
		r = -errno;
		rg_error_set(err, path, 0, 0, "%s: %s",
			     dir ? "cannot open rules directory" : "cannot open", strerror(-r));
		return r;
	}
	if (fstat(fd, &st) < 0) {
		r = -errno;
		rg_error_set(err, path, 0, 0, "cannot stat: %s", strerror(-r));
		return r;
	}
	if (!dir && !S_ISREG(st.st_mode)) {
		rg_error_set(err, path, 0, 0, "not a regular file");
		return -EINVAL;
	}
	if (check_owner) {
		r = check_stat(path, "", &st, false, err);
		if (r < 0)
			return r;
		r = check_chain(fd, path, err);
		if (r < 0)
			return r;
	}
	return TAKE_FD(fd);
}

int trust_open_file(int dirfd, const char *name, const char *path, bool check_owner,
		    struct rg_error *err)
{
	return trust_open(dirfd, name, path, false, check_owner, err);
}

int trust_open_dir(const char *path, bool check_owner, struct rg_error *err)
{
	return trust_open(AT_FDCWD, path, path, true, check_owner, err);
}
