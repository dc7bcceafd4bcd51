/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * PCI and Thunderbolt uevents: the parser and the kernel-only socket (hw_uevent.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/macro.h"
#include "common/uevent_kv.h"
#include "common/ueventsock.h"
#include "dma_fault.h"
#include "hw_uevent.h"

static const char *const action_names[] = {
	[HW_UEV_OTHER] = "other", [HW_UEV_ADD] = "add",	      [HW_UEV_REMOVE] = "remove",
	[HW_UEV_BIND] = "bind",	  [HW_UEV_UNBIND] = "unbind", [HW_UEV_CHANGE] = "change",
};

const char *hw_uevent_action_to_string(unsigned a)
{
	return a < ARRAY_SIZE(action_names) ? action_names[a] : NULL;
}

/* "HHHH:HHHH" (PCI_ID, PCI_SUBSYS_ID) */
static bool parse_id_pair(const char *v, size_t n, uint32_t *a, uint32_t *b)
{
	char tmp[16], *end;
	unsigned long x, y;

	if (n == 0 || n >= sizeof(tmp))
		return false;
	memcpy(tmp, v, n);
	tmp[n] = 0;
	if (tmp[0] == '-' || tmp[0] == '+' || tmp[0] == ' ')
		return false;
	errno = 0;
	x = strtoul(tmp, &end, 16);
	if (errno || *end != ':' || x > 0xffff || end == tmp || end[1] == '-' || end[1] == '+' ||
	    end[1] == ' ')
		return false;
	y = strtoul(end + 1, &end, 16);
	if (errno || *end || y > 0xffff)
		return false;
	*a = (uint32_t)x;
	*b = (uint32_t)y;
	return true;
}

static unsigned parse_action(const char *v, size_t n)
{
	static const struct {
		const char *s;
		unsigned a;
	} t[] = {{"add", HW_UEV_ADD},	  {"remove", HW_UEV_REMOVE}, {"bind", HW_UEV_BIND},
		 {"unbind", HW_UEV_UNBIND}, {"change", HW_UEV_CHANGE}};

	for (size_t i = 0; i < ARRAY_SIZE(t); i++)
		if (strlen(t[i].s) == n && memcmp(t[i].s, v, n) == 0)
			return t[i].a;
	return HW_UEV_OTHER;
}

#define KEY(k) uevent_kv_is(p, klen, k)

int hw_uevent_parse(const char *buf, size_t len, struct hw_uevent *u)
{
	bool has_action = false, tb_device = false, tb_subsys = false, has_slot = false;
	char subsystem[32] = "";
	struct uevent_kv it;
	const char *p, *v;
	size_t klen, vlen;

	memset(u, 0, sizeof(*u));
	u->authorized = -1;
	/* "ACTION@DEVPATH": libudev's messages start "libudev" */
	if (uevent_kv_init(&it, buf, len) < 0)
		return -EINVAL;
	while (uevent_kv_next(&it, &p, &klen, &v, &vlen)) {
		if (KEY("ACTION")) {
			u->action = parse_action(v, vlen);
			has_action = true;
		} else if (KEY("SUBSYSTEM")) {
			uevent_kv_copy(subsystem, sizeof(subsystem), v, vlen);
		} else if (KEY("DEVPATH")) {
			uevent_kv_copy(u->devpath, sizeof(u->devpath), v, vlen);
		} else if (KEY("DEVTYPE")) {
			tb_device = vlen == 18 && memcmp(v, "thunderbolt_device", 18) == 0;
		} else if (KEY("PCI_SLOT_NAME")) {
			char tmp[20];

			uevent_kv_copy(tmp, sizeof(tmp), v, vlen);
			has_slot = vlen == 12 && hw_parse_bdf(tmp, u->slot) == 12;
		} else if (KEY("DRIVER")) {
			uevent_kv_copy(u->driver, sizeof(u->driver), v, vlen);
		} else if (KEY("PCI_ID")) {
			u->has_id = parse_id_pair(v, vlen, &u->vendor, &u->device);
		} else if (KEY("PCI_SUBSYS_ID")) {
			(void)parse_id_pair(v, vlen, &u->subsys_vendor, &u->subsys_device);
		} else if (KEY("PCI_CLASS")) {
			char tmp[12], *e;
			unsigned long c;

			uevent_kv_copy(tmp, sizeof(tmp), v, vlen);
			errno = 0;
			c = strtoul(tmp, &e, 16);
			u->has_class = tmp[0] && tmp[0] != '-' && tmp[0] != '+' && tmp[0] != ' ' &&
				       !*e && !errno && c <= 0xffffff;
			u->class_code = u->has_class ? (uint32_t)c : 0;
		} else if (KEY("AUTHORIZED")) {
			if (vlen == 1 && v[0] >= '0' && v[0] <= '2')
				u->authorized = v[0] - '0';
		}
	}
	if (!has_action || !u->devpath[0] || !subsystem[0])
		return -EINVAL;
	if (strcmp(subsystem, "pci") == 0) {
		if (!has_slot)
			return -EINVAL;
		u->pci = true;
		return 1;
	}
	tb_subsys = strcmp(subsystem, "thunderbolt") == 0;
	if (tb_subsys && tb_device) {
		const char *slash = strrchr(u->devpath, '/');

		uevent_kv_copy(u->tb_name, sizeof(u->tb_name), slash ? slash + 1 : u->devpath,
			       strlen(slash ? slash + 1 : u->devpath));
		if (!u->tb_name[0] || strchr(u->tb_name, '.') == u->tb_name)
			return -EINVAL;
		u->thunderbolt = true;
		return 1;
	}
	return 0;
}

int hw_uevent_open(void)
{
	return uevent_sock_open();
}

int hw_uevent_receive(int fd, struct hw_uevent *u)
{
	char buf[8192];
	ssize_t n = uevent_sock_recv(fd, buf, sizeof(buf));

	if (n <= 0)
		return n < 0 ? (int)n : 0;
	return hw_uevent_parse(buf, (size_t)n, u) == 1 ? 1 : 0;
}
