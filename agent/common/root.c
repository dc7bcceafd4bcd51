/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Confined root access: files below a struct rg_root, bounded reads (root.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "root.h"
#include "strutil.h"

int root_init(struct rg_root *root, const char *path)
{
	char real[PATH_MAX];
	int fd;

	if (!path || !*path)
		path = "/";
	if (!realpath(path, real))
		return -errno;
	fd = open(real, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	root->fd = fd;
	root->is_host = strcmp(real, "/") == 0;
	strscpy_ok(root->path, real, sizeof(root->path));
	return 0;
}

void root_done(struct rg_root *root)
{
	if (root->fd >= 0)
		close(root->fd);
	root->fd = -1;
}

static bool openat2_disabled;

void root_disable_openat2(void)
{
	openat2_disabled = true;
}

#define ROOT_MAX_LINKS 40 /* like the kernel's MAXSYMLINKS */

/*
 * RESOLVE_IN_ROOT in userspace, for kernels without openat2 (before 5.6) and for valgrind, which
 * does not know the syscall: walks path one component at a time below the root, resolving each
 * symbolic link textually (an absolute target starts again at the root, ".." stops at the root).
 * Writes the resolved path relative to the root into out. Racy against a tree that changes
 * meanwhile, which an image or fixture tree under audit does not.
 */
static int root_resolve_fallback(int rootfd, const char *path, bool follow, char *out, size_t size)
{
	char rest[PATH_MAX], next[PATH_MAX], target[PATH_MAX], cand[PATH_MAX];
	unsigned links = 0;
	size_t outlen = 0;

	if (!strscpy_ok(rest, path, sizeof(rest)))
		return -ENAMETOOLONG;
	out[0] = 0;
	for (;;) {
		char *p = rest, *comp, *after;
		struct stat st;
		bool last;
		ssize_t n;
		int w;

		while (*p == '/')
			p++;
		if (!*p)
			break;
		comp = p;
		while (*p && *p != '/')
			p++;
		after = p;
		while (*after == '/')
			after++;
		last = !*after;
		if (*p)
			*p = 0;
		if (strcmp(comp, ".") == 0) {
			memmove(rest, after, strlen(after) + 1);
			continue;
		}
		if (strcmp(comp, "..") == 0) {
			char *slash = strrchr(out, '/');

			outlen = slash ? (size_t)(slash - out) : 0;
			out[outlen] = 0;
			memmove(rest, after, strlen(after) + 1);
			continue;
		}
		w = snprintf(cand, sizeof(cand), "%s%s%s", out, outlen ? "/" : "", comp);
		if (w < 0 || (size_t)w >= sizeof(cand) || (size_t)w >= size)
			return -ENAMETOOLONG;
		if ((last && !follow) || fstatat(rootfd, cand, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    !S_ISLNK(st.st_mode)) {
			/* Not a link (or not there: the final open says so). */
			memcpy(out, cand, (size_t)w + 1);
			outlen = (size_t)w;
			memmove(rest, after, strlen(after) + 1);
			continue;
		}
		if (++links > ROOT_MAX_LINKS)
			return -ELOOP;
		n = readlinkat(rootfd, cand, target, sizeof(target));
		if (n < 0)
			return -errno;
		if ((size_t)n >= sizeof(target))
			return -ENAMETOOLONG;
		target[n] = 0;
		w = snprintf(next, sizeof(next), "%s/%s", target, after);
		if (w < 0 || (size_t)w >= sizeof(next))
			return -ENAMETOOLONG;
		memcpy(rest, next, (size_t)w + 1);
		if (target[0] == '/') {
			outlen = 0;
			out[0] = 0;
		}
	}
	if (!outlen) {
		if (size < 2)
			return -ENAMETOOLONG;
		strcpy(out, ".");
	}
	return 0;
}

static int root_openat(const struct rg_root *root, const char *path, int flags, bool follow)
{
	struct open_how how = {
	    .flags = (uint64_t)(flags | O_CLOEXEC),
	    .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};
	char resolved[PATH_MAX];
	int fd, r;

	if (!path || path[0] != '/')
		return -EINVAL;
	if (root->is_host) {
		fd = open(path, flags | O_CLOEXEC | (follow ? 0 : O_NOFOLLOW));
		return fd < 0 ? -errno : fd;
	}
	if (!follow)
		how.flags |= O_NOFOLLOW;
	if (!openat2_disabled) {
		fd = (int)syscall(SYS_openat2, root->fd, path + 1, &how, sizeof(how));
		if (fd >= 0 || errno != ENOSYS)
			return fd < 0 ? -errno : fd;
	}
	r = root_resolve_fallback(root->fd, path, follow, resolved, sizeof(resolved));
	if (r < 0)
		return r;
	/* The last component is no link any more; O_NOFOLLOW keeps it so if the tree changed. */
	fd = openat(root->fd, resolved, flags | O_CLOEXEC | O_NOFOLLOW);
	return fd < 0 ? -errno : fd;
}

int root_open(const struct rg_root *root, const char *path, int flags)
{
	return root_openat(root, path, flags, true);
}

DIR *root_opendir(const struct rg_root *root, const char *path)
{
	int fd = root_openat(root, path, O_RDONLY | O_DIRECTORY, true);
	DIR *d;

	if (fd < 0) {
		errno = -fd;
		return NULL;
	}
	d = fdopendir(fd);
	if (!d) {
		int saved = errno;
		close(fd);
		errno = saved;
	}
	return d;
}

int root_readlink(const struct rg_root *root, const char *path, char *buf, size_t size)
{
	_cleanup_close_ int fd = -1;
	const char *slash;
	char dir[PATH_MAX];
	ssize_t n;

	if (size == 0 || !path || path[0] != '/')
		return -EINVAL;
	if (root->is_host) {
		n = readlink(path, buf, size - 1);
	} else {
		/* Resolve the parent inside the root, then read the link itself. */
		slash = strrchr(path, '/');
		if ((size_t)(slash - path) >= sizeof(dir))
			return -ENAMETOOLONG;
		if (slash == path)
			strcpy(dir, "/");
		else {
			memcpy(dir, path, (size_t)(slash - path));
			dir[slash - path] = 0;
		}
		fd = root_openat(root, dir, O_PATH | O_DIRECTORY, true);
		if (fd < 0)
			return fd;
		n = readlinkat(fd, slash + 1, buf, size - 1);
	}
	if (n < 0)
		return -errno;
	if ((size_t)n >= size - 1)
		return -ENAMETOOLONG;
	buf[n] = 0;
	return (int)n;
}

int root_stat(const struct rg_root *root, const char *path, struct stat *st, bool follow)
{
	_cleanup_close_ int fd = root_openat(root, path, O_PATH, follow);

	if (fd < 0)
		return fd;
	if (fstat(fd, st) < 0)
		return -errno;
	return 0;
}

int read_fd_bounded(int fd, size_t max, char **ret, size_t *ret_len, bool *ret_truncated)
{
	struct stat st;
	char *buf;
	size_t len = 0;
	bool truncated = false;

	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EBADFD;
	buf = malloc(max + 1);
	if (!buf)
		return -ENOMEM;
	while (len < max) {
		ssize_t n = read(fd, buf + len, max - len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			int r = -errno;
			free(buf);
			return r;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	if (len == max) {
		char c;
		ssize_t n;
		do
			n = read(fd, &c, 1);
		while (n < 0 && errno == EINTR);
		truncated = n > 0;
	}
	buf[len] = 0;
	*ret = buf;
	if (ret_len)
		*ret_len = len;
	if (ret_truncated)
		*ret_truncated = truncated;
	return 0;
}

int root_read_file(const struct rg_root *root, const char *path, size_t max, char **ret,
		   size_t *ret_len, bool *ret_truncated)
{
	_cleanup_close_ int fd = root_open(root, path, O_RDONLY | O_NONBLOCK | O_NOCTTY);

	if (fd < 0)
		return fd;
	return read_fd_bounded(fd, max, ret, ret_len, ret_truncated);
}

int root_read_line(const struct rg_root *root, const char *path, char *buf, size_t size)
{
	_cleanup_free_ char *data = NULL;
	size_t len, i;
	char *nl;
	int r;

	if (size < 2)
		return -EINVAL;
	r = root_read_file(root, path, size, &data, &len, NULL);
	if (r < 0)
		return r;
	nl = memchr(data, '\n', len);
	if (nl)
		len = (size_t)(nl - data);
	else if (len >= size)
		return -E2BIG;
	if (len >= size)
		return -E2BIG;
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)data[i];
		buf[i] = (c < 0x20 || c == 0x7f) ? '?' : (char)c;
	}
	buf[len] = 0;
	while (len > 0 && (buf[len - 1] == ' ' || buf[len - 1] == '\t'))
		buf[--len] = 0;
	if (len == 0)
		return -ENODATA;
	return (int)len;
}
