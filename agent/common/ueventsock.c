/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The kernel's uevent socket: open, and receive what the kernel sent (ueventsock.h). */
#include <errno.h>
#include <linux/netlink.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ueventsock.h"

int uevent_sock_open(void)
{
	struct sockaddr_nl sa = {.nl_family = AF_NETLINK, .nl_groups = 1};
	int fd, sz = 1 << 20;

	fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, NETLINK_KOBJECT_UEVENT);
	if (fd < 0)
		return -errno;
	/* A burst of device events must not overflow the socket: ask for 1 MiB. */
	(void)setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &sz, sizeof(sz));
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		int r = -errno;

		close(fd);
		return r;
	}
	return fd;
}

ssize_t uevent_sock_recv(int fd, char *buf, size_t size)
{
	struct sockaddr_nl sa;
	struct iovec iov = {.iov_base = buf, .iov_len = size};
	struct msghdr msg = {
	    .msg_name = &sa, .msg_namelen = sizeof(sa), .msg_iov = &iov, .msg_iovlen = 1};
	ssize_t n;

	n = recvmsg(fd, &msg, MSG_DONTWAIT);
	if (n < 0)
		return (errno == EAGAIN || errno == EINTR) ? 0 : -errno;
	if (msg.msg_namelen != sizeof(sa) || sa.nl_pid != 0 || (msg.msg_flags & MSG_TRUNC))
		return 0;
	return n;
}
