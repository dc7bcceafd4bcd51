/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <systemd/sd-daemon.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "control.h"
#include "common/clock.h"
#include "common/log.h"
#include "common/macro.h"

static int unix_addr(const char *path, struct sockaddr_un *sa, socklen_t *len)
{
	size_t n = strlen(path);

	if (n == 0 || n >= sizeof(sa->sun_path))
		return -ENAMETOOLONG;
	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	memcpy(sa->sun_path, path, n);
	*len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n + 1);
	return 0;
}

int status_listen(const char *path)
{
	struct sockaddr_un sa;
	socklen_t len;
	struct stat st;
	mode_t old;
	int fd, r;

	r = unix_addr(path, &sa, &len);
	if (r < 0)
		return r;
	/* Replace only a stale socket, never some other file an attacker put there. */
	if (lstat(path, &st) == 0) {
		if (!S_ISSOCK(st.st_mode))
			return -EEXIST;
		if (unlink(path) < 0)
			return -errno;
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	old = umask(0177);
	r = bind(fd, (struct sockaddr *)&sa, len);
	umask(old);
	if (r < 0 || chmod(path, 0600) < 0 || listen(fd, 8) < 0) {
		r = -errno;
		close(fd);
		return r;
	}
	return fd;
}

static int write_all_timeout(int fd, const char *buf, size_t len, int timeout_ms)
{
	while (len > 0) {
		struct pollfd p = {.fd = fd, .events = POLLOUT};
		ssize_t n;
		int r = poll(&p, 1, timeout_ms);

		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (r == 0)
			return -ETIMEDOUT;
		n = send(fd, buf, len, MSG_NOSIGNAL);
		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			return -errno;
		}
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

int control_accept(int listen_fd)
{
	_cleanup_close_ int fd = -1;
	struct ucred cred;
	socklen_t clen = sizeof(cred);

	fd = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
	if (fd < 0)
		return errno == EWOULDBLOCK ? -EAGAIN : -errno;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &clen) < 0)
		return -errno;
	if (cred.uid != 0)
		return -EPERM;
	return TAKE_FD(fd);
}

int control_read_request(int fd, char *buf, size_t size)
{
	uint64_t deadline = now_monotonic_ns() + CONTROL_REQUEST_WAIT_MS * 1000000ull;
	size_t len = 0;

	buf[0] = 0;
	while (len + 1 < size) {
		struct pollfd p = {.fd = fd, .events = POLLIN};
		uint64_t now = now_monotonic_ns();
		ssize_t n;
		int r;

		if (now >= deadline)
			return 0; /* an old client that asks nothing: the status */
		r = poll(&p, 1, (int)((deadline - now) / 1000000ull) + 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return r < 0 ? -errno : 0;
		n = recv(fd, buf + len, size - 1 - len, 0);
		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			return -errno;
		}
		if (n == 0)
			break;
		len += (size_t)n;
		buf[len] = 0;
		if (memchr(buf, '\n', len))
			break;
	}
	buf[len] = 0;
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

int control_write(int fd, const char *text, size_t len)
{
	/* A slow client must not stall the daemon: bounded wait, then drop it. */
	return write_all_timeout(fd, text, len, 200);
}

int status_serve_one(int listen_fd, struct json_object *doc)
{
	_cleanup_close_ int fd = control_accept(listen_fd);
	const char *txt;
	int r;

	if (fd < 0)
		return fd;
	txt = json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PLAIN);
	r = control_write(fd, txt, strlen(txt));
	if (r >= 0)
		r = control_write(fd, "\n", 1);
	return r;
}

int control_query(const char *path, const char *request, size_t max, char **ret)
{
	_cleanup_close_ int fd = -1;
	_cleanup_free_ char *buf = NULL;
	struct sockaddr_un sa;
	socklen_t slen;
	size_t len = 0;
	int r;

	r = unix_addr(path, &sa, &slen);
	if (r < 0)
		return r;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&sa, slen) < 0)
		return -errno;
	if (request && request[0]) {
		r = write_all_timeout(fd, request, strlen(request), 5000);
		if (r >= 0)
			r = write_all_timeout(fd, "\n", 1, 5000);
		if (r < 0)
			return r;
	}
	(void)shutdown(fd, SHUT_WR); /* the request is complete: no wait for one */
	buf = malloc(max + 1);
	if (!buf)
		return -ENOMEM;
	for (;;) {
		struct pollfd p = {.fd = fd, .events = POLLIN};
		ssize_t n;

		r = poll(&p, 1, 5000);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return r < 0 ? -errno : -ETIMEDOUT;
		n = read(fd, buf + len, max - len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			break;
		len += (size_t)n;
		if (len == max)
			return -EFBIG;
	}
	if (len == 0)
		return -ECONNRESET;
	buf[len] = 0;
	*ret = TAKE_PTR(buf);
	return 0;
}

int status_query(const char *path, char **ret)
{
	return control_query(path, NULL, STATUS_REPLY_MAX, ret);
}

int pidfile_acquire(const char *path)
{
	_cleanup_close_ int fd = -1;
	char buf[32];
	int n;

	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0)
		return -errno;
	if (flock(fd, LOCK_EX | LOCK_NB) < 0)
		return errno == EWOULDBLOCK ? -EBUSY : -errno;
	if (ftruncate(fd, 0) < 0)
		return -errno;
	n = snprintf(buf, sizeof(buf), "%d\n", (int)getpid());
	if (pwrite(fd, buf, (size_t)n, 0) != n)
		return -EIO;
	return TAKE_FD(fd);
}

void pidfile_release(int fd, const char *path)
{
	if (fd < 0)
		return;
	(void)unlink(path);
	close(fd);
}

void notify_ready(const char *status)
{
	(void)sd_notifyf(0, "READY=1\nSTATUS=%s", status ? status : "running");
}

void notify_reloading(void)
{
	uint64_t usec = now_monotonic_ns() / 1000;

	/* MONOTONIC_USEC lets newer systemd (Type=notify-reload) time the reload. */
	(void)sd_notifyf(0, "RELOADING=1\nMONOTONIC_USEC=%llu", (unsigned long long)usec);
}

void notify_stopping(void)
{
	(void)sd_notify(0, "STOPPING=1");
}

void notify_status(const char *status)
{
	(void)sd_notifyf(0, "STATUS=%s", status);
}
