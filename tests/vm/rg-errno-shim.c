/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rg-errno-shim.so: an LD_PRELOAD library for the VM lab's enforcement scenarios. rdma-core's
 * tools say "Couldn't get context" whatever the reason; with this preloaded, every open of a node
 * under /dev/infiniband/ also writes what the kernel answered to stderr:
 *
 *   rg-errno-shim: pid=123 open(/dev/infiniband/uverbs0) = -1 EPERM
 *   rg-errno-shim: pid=123 open(/dev/infiniband/uverbs0) = 5
 *
 * and every sendto() on a netlink socket (iproute2's rdma sends through libmnl, and says only
 * "Failed to send to socket with err -1"):
 *
 *   rg-errno-shim: pid=123 sendto(netlink) = -1 EPERM
 *
 * so that a refusal is proven by the kernel's EPERM, not by the tool's exit status. The process
 * is still the tool (its executable's inode is what enforcement's allowlist matches). libibverbs
 * and librdmacm open the nodes with open() (and openat()): the variants glibc exports are
 * wrapped.
 */
/* open and open64 are two symbols here, each wrapped as is: no redirection, no fortify inlines */
#undef _FILE_OFFSET_BITS
#undef _FORTIFY_SOURCE
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define PREFIX "/dev/infiniband/"

static void say(const char *call, long r, int e)
{
	char buf[512];
	const char *n = strerrorname_np(e);
	int len;

	if (r >= 0)
		len = snprintf(buf, sizeof(buf), "rg-errno-shim: pid=%d %s = %ld\n", getpid(), call,
			       r);
	else
		len = snprintf(buf, sizeof(buf), "rg-errno-shim: pid=%d %s = -1 %s\n", getpid(),
			       call, n ? n : "?");
	if (len > 0)
		(void)!write(STDERR_FILENO, buf,
			     (size_t)len < sizeof(buf) ? (size_t)len : sizeof(buf));
	errno = e;
}

static void report(const char *path, int r, int e)
{
	char call[300];

	if (!path || strncmp(path, PREFIX, sizeof(PREFIX) - 1) != 0)
		return;
	snprintf(call, sizeof(call), "open(%s)", path);
	say(call, r, e);
}

static mode_t mode_of(int flags, va_list ap)
{
	return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE ? va_arg(ap, mode_t) : 0;
}

#define WRAP_OPEN(name)                                                                            \
	int name(const char *path, int flags, ...)                                                 \
	{                                                                                          \
		static int (*real)(const char *, int, ...);                                        \
		va_list ap;                                                                        \
		mode_t mode;                                                                       \
		int r;                                                                             \
                                                                                                   \
		if (!real)                                                                         \
			real = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, #name);           \
		va_start(ap, flags);                                                               \
		mode = mode_of(flags, ap);                                                         \
		va_end(ap);                                                                        \
		r = real(path, flags, mode);                                                       \
		report(path, r, errno);                                                            \
		return r;                                                                          \
	}

#define WRAP_OPENAT(name)                                                                          \
	int name(int dirfd, const char *path, int flags, ...)                                      \
	{                                                                                          \
		static int (*real)(int, const char *, int, ...);                                   \
		va_list ap;                                                                        \
		mode_t mode;                                                                       \
		int r;                                                                             \
                                                                                                   \
		if (!real)                                                                         \
			real = (int (*)(int, const char *, int, ...))dlsym(RTLD_NEXT, #name);      \
		va_start(ap, flags);                                                               \
		mode = mode_of(flags, ap);                                                         \
		va_end(ap);                                                                        \
		r = real(dirfd, path, flags, mode);                                                \
		report(path, r, errno);                                                            \
		return r;                                                                          \
	}

WRAP_OPEN(open)
WRAP_OPEN(open64)
WRAP_OPENAT(openat)
WRAP_OPENAT(openat64)

ssize_t sendto(int fd, const void *buf, size_t len, int flags, const struct sockaddr *to,
	       socklen_t tolen)
{
	static ssize_t (*real)(int, const void *, size_t, int, const struct sockaddr *, socklen_t);
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	ssize_t r;
	int e;

	if (!real)
		real = (ssize_t(*)(int, const void *, size_t, int, const struct sockaddr *,
				   socklen_t))dlsym(RTLD_NEXT, "sendto");
	r = real(fd, buf, len, flags, to, tolen);
	e = errno;
	if (getsockname(fd, (struct sockaddr *)&ss, &sl) == 0 && ss.ss_family == AF_NETLINK)
		say("sendto(netlink)", (long)r, e);
	errno = e;
	return r;
}

/* _FORTIFY_SOURCE's checked variants (no mode argument) */
#define WRAP_OPEN_2(name)                                                                          \
	int name(const char *path, int flags)                                                      \
	{                                                                                          \
		static int (*real)(const char *, int);                                             \
		int r;                                                                             \
                                                                                                   \
		if (!real)                                                                         \
			real = (int (*)(const char *, int))dlsym(RTLD_NEXT, #name);                \
		r = real(path, flags);                                                             \
		report(path, r, errno);                                                            \
		return r;                                                                          \
	}

WRAP_OPEN_2(__open_2)
WRAP_OPEN_2(__open64_2)
