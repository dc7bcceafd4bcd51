/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <string.h>

#include "common/macro.h"
#include "common/strutil.h"
#include "common/ueventsock.h"
#include "uevent.h"

static void copy_field(char *dst, size_t size, const char *src, size_t n)
{
	if (n >= size)
		n = size - 1;
	memcpy(dst, src, n);
	dst[n] = 0;
	str_sanitize(dst);
}

int uevent_parse(const char *buf, size_t len, struct uevent *u)
{
	const char *p = buf, *end, *at;
	size_t n;

	memset(u, 0, sizeof(*u));
	if (!buf || len == 0)
		return -EINVAL;
	end = buf + len; /* not before the check: NULL + 0 is undefined */
	/* The header "ACTION@DEVPATH" */
	n = strnlen(p, len);
	at = memchr(p, '@', n);
	if (!at || at == p)
		return -EINVAL;
	p += n + 1;
	while (p < end) {
		const char *eq;

		n = strnlen(p, (size_t)(end - p));
		eq = memchr(p, '=', n);
		if (eq) {
			size_t klen = (size_t)(eq - p), vlen = n - klen - 1;

			if (klen == 6 && memcmp(p, "ACTION", 6) == 0)
				copy_field(u->action, sizeof(u->action), eq + 1, vlen);
			else if (klen == 9 && memcmp(p, "SUBSYSTEM", 9) == 0)
				copy_field(u->subsystem, sizeof(u->subsystem), eq + 1, vlen);
			else if (klen == 7 && memcmp(p, "DEVPATH", 7) == 0)
				copy_field(u->devpath, sizeof(u->devpath), eq + 1, vlen);
			else if (klen == 4 && memcmp(p, "NAME", 4) == 0)
				copy_field(u->name, sizeof(u->name), eq + 1, vlen);
		}
		p += n + 1;
	}
	if (!u->action[0] || !u->subsystem[0] || !u->devpath[0])
		return -EINVAL;
	if (!u->name[0]) {
		const char *slash = strrchr(u->devpath, '/');

		copy_field(u->name, sizeof(u->name), slash ? slash + 1 : u->devpath,
			   strlen(slash ? slash + 1 : u->devpath));
	}
	return 0;
}

int uevent_open(void)
{
	return uevent_sock_open();
}

int uevent_receive(int fd, struct uevent *u)
{
	char buf[8192];
	ssize_t n = uevent_sock_recv(fd, buf, sizeof(buf));

	if (n <= 0)
		return n < 0 ? (int)n : 0;
	return uevent_parse(buf, (size_t)n, u) == 0 ? 1 : 0;
}
