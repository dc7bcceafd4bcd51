/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What sysfs says about RDMA devices: one-word attributes, the ib device behind a uverbs or umad
 * char device (cached: every verbs record names one), and the netdevs that carry an RDMA device
 * (a soft device's parent, the GID tables' netdevs), where the RoCE counters go (tc.c).
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/macro.h"
#include "common/strutil.h"
#include "sensors_state.h"

/* A small sysfs file (its first size - 1 bytes), stripped and sanitized; "" if unreadable. */
void read_word(const char *path, char *buf, size_t size)
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	ssize_t n;

	buf[0] = 0;
	if (fd < 0)
		return;
	n = read(fd, buf, size - 1);
	if (n <= 0) {
		buf[0] = 0;
		return;
	}
	buf[n] = 0;
	strstrip(buf);
	str_sanitize(buf);
}

/* The ib device behind an RDMA char device (kernel dev_t), "" if none; looked up in c first. */
void devcache_lookup(struct devcache *c, uint32_t rdev, char *buf, size_t size)
{
	uint32_t major = rdev >> 20, minor = rdev & 0xfffff;
	char path[128], name[RG_DEVNAME_LEN];
	size_t slot;

	buf[0] = 0;
	if (major != 231)
		return;
	for (size_t i = 0; i < DEVCACHE; i++)
		if (c->e[i].rdev == rdev && c->e[i].name[0]) {
			strscpy_ok(buf, c->e[i].name, size);
			return;
		}
	if (minor >= 192)
		snprintf_ok(path, sizeof(path), "/sys/class/infiniband_verbs/uverbs%u/ibdev",
			    minor - 192);
	else if (minor < 64)
		snprintf_ok(path, sizeof(path), "/sys/class/infiniband_mad/umad%u/ibdev", minor);
	else
		snprintf_ok(path, sizeof(path), "/sys/class/infiniband_mad/issm%u/ibdev",
			    minor - 64);
	read_word(path, name, sizeof(name));
	if (!name[0])
		return;
	slot = c->next++ % DEVCACHE;
	c->e[slot].rdev = rdev;
	strscpy_ok(c->e[slot].name, name, sizeof(c->e[slot].name));
	strscpy_ok(buf, name, size);
}

/* A device came or went: its char devices' names may now be another's. */
void devcache_clear(struct devcache *c)
{
	memset(c->e, 0, sizeof(c->e));
}

/*
 * Calls cb for each netdev that carries an RDMA device: the soft device's parent, and the GID
 * table's netdevs (a netdev may come more than once).
 */
void rdma_netdevs_foreach(void (*cb)(void *ud, const char *ifname), void *ud)
{
	_cleanup_(closedirp) DIR *d = NULL;
	struct dirent *de;

	d = opendir("/sys/class/infiniband");
	if (!d)
		return;
	while ((de = readdir(d))) {
		char path[512], name[IF_NAMESIZE + 8];
		_cleanup_(closedirp) DIR *ports = NULL;
		struct dirent *pe;

		if (de->d_name[0] == '.')
			continue;
		snprintf_ok(path, sizeof(path), "/sys/class/infiniband/%s/parent", de->d_name);
		read_word(path, name, sizeof(name));
		if (name[0])
			cb(ud, name);
		snprintf_ok(path, sizeof(path), "/sys/class/infiniband/%s/ports", de->d_name);
		ports = opendir(path);
		if (!ports)
			continue;
		while ((pe = readdir(ports))) {
			if (pe->d_name[0] == '.')
				continue;
			for (int g = 0; g < 4; g++) {
				snprintf_ok(path, sizeof(path),
					    "/sys/class/infiniband/%s/ports/%s/gid_attrs/ndevs/%d",
					    de->d_name, pe->d_name, g);
				read_word(path, name, sizeof(name));
				if (name[0])
					cb(ud, name);
			}
		}
	}
}
