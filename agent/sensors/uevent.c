/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <string.h>

#include "common/macro.h"
#include "common/uevent_kv.h"
#include "common/ueventsock.h"
#include "uevent.h"

int uevent_parse(const char *buf, size_t len, struct uevent *u)
{
	struct uevent_kv it;
	const char *k, *v;
	size_t klen, vlen;

	memset(u, 0, sizeof(*u));
	if (uevent_kv_init(&it, buf, len) < 0)
		return -EINVAL;
	while (uevent_kv_next(&it, &k, &klen, &v, &vlen)) {
		if (uevent_kv_is(k, klen, "ACTION"))
			uevent_kv_copy(u->action, sizeof(u->action), v, vlen);
		else if (uevent_kv_is(k, klen, "SUBSYSTEM"))
			uevent_kv_copy(u->subsystem, sizeof(u->subsystem), v, vlen);
		else if (uevent_kv_is(k, klen, "DEVPATH"))
			uevent_kv_copy(u->devpath, sizeof(u->devpath), v, vlen);
		else if (uevent_kv_is(k, klen, "NAME"))
			uevent_kv_copy(u->name, sizeof(u->name), v, vlen);
	}
	if (!u->action[0] || !u->subsystem[0] || !u->devpath[0])
		return -EINVAL;
	if (!u->name[0]) {
		const char *slash = strrchr(u->devpath, '/');

		uevent_kv_copy(u->name, sizeof(u->name), slash ? slash + 1 : u->devpath,
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
