/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The devices and modules hook points, from kernel uevents (uevent.c): RDMA devices added and
 * removed (with what sysfs says of a new one), and RDMA modules loaded where the module_load
 * tracepoint (which also names the loading process) is not in use; and what a uevent changes
 * for the other hook points: a module rescan (links.c) and a TC rescan (tc.c).
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/log.h"
#include "common/macro.h"
#include "common/strutil.h"
#include "sensors_state.h"
#include "uevent.h"

/* A new device's description, from sysfs. */
static void fill_device(const char *name, struct rg_ev_device *d, uint32_t *flags)
{
	char path[512], buf[128];
	_cleanup_(closedirp) DIR *ports = NULL;
	struct dirent *pe;

	strscpy_ok(d->name, name, sizeof(d->name));
	snprintf_ok(path, sizeof(path), "/sys/class/infiniband/%s/node_type", name);
	read_word(path, buf, sizeof(buf));
	d->node_type = (uint32_t)atoi(buf);
	snprintf_ok(path, sizeof(path), "/sys/class/infiniband/%s/parent", name);
	read_word(path, d->parent, sizeof(d->parent));
	if (d->parent[0]) {
		*flags |= RG_EVF_SOFT;
		strscpy_ok(d->driver, d->node_type == 4 ? "siw" : "rdma_rxe", sizeof(d->driver));
	} else {
		char link[PATH_MAX];
		ssize_t n;

		snprintf_ok(path, sizeof(path), "/sys/class/infiniband/%s/device/driver", name);
		n = readlink(path, link, sizeof(link) - 1);
		if (n > 0) {
			const char *base;

			link[n] = 0;
			base = strrchr(link, '/');
			strscpy_ok(d->driver, base ? base + 1 : link, sizeof(d->driver));
		}
	}
	snprintf_ok(path, sizeof(path), "/sys/class/infiniband/%s/ports", name);
	ports = opendir(path);
	while (ports && (pe = readdir(ports))) {
		if (pe->d_name[0] == '.')
			continue;
		d->ports++;
		snprintf_ok(path, sizeof(path), "/sys/class/infiniband/%s/ports/%s/state", name,
			    pe->d_name);
		read_word(path, buf, sizeof(buf));
		if (strstr(buf, "ACTIVE"))
			d->ports_active++;
		if (d->transport == RG_TRANSPORT_UNKNOWN) {
			snprintf_ok(path, sizeof(path),
				    "/sys/class/infiniband/%s/ports/%s/link_layer", name,
				    pe->d_name);
			read_word(path, buf, sizeof(buf));
			if (d->node_type == 4)
				d->transport = RG_TRANSPORT_IWARP;
			else if (d->node_type == 5 || d->node_type == 6)
				d->transport = RG_TRANSPORT_USNIC;
			else if (strcmp(buf, "Ethernet") == 0)
				d->transport = RG_TRANSPORT_ROCE;
			else if (strcmp(buf, "InfiniBand") == 0)
				d->transport = RG_TRANSPORT_IB;
		}
	}
}

/* Reads what the uevent socket holds (at most 256 messages a call). */
void handle_uevents(struct rg_sensors *s)
{
	struct uevent u;
	int r;

	for (int budget = 0; budget < 256; budget++) {
		struct rg_event ev = {0};

		r = uevent_receive(s->uevent_fd, &u);
		if (r < 0) {
			if (r == -ENOBUFS) {
				/* Overrun: rescan what uevents would have told. */
				log_warning(
				    "Uevent socket overrun; rescanning devices and modules.");
				modules_changed(s);
				tc_scan(s);
				continue;
			}
			log_warning_errno(r, "Failed to receive a uevent: %m");
			return;
		}
		if (r == 0) {
			/* EAGAIN or a foreign message: stop when the socket is empty */
			int avail = 0;

			if (ioctl(s->uevent_fd, FIONREAD, &avail) < 0 || avail <= 0)
				return;
			continue;
		}
		ev.provider = RG_PROV_NETLINK;
		ev.ts = now_realtime_ns();
		if (strcmp(u.subsystem, "infiniband") == 0 &&
		    (strcmp(u.action, "add") == 0 || strcmp(u.action, "remove") == 0)) {
			bool add = u.action[0] == 'a';

			devcache_clear(&s->devcache);
			if (s->plan.hp[HP_DEVICES].active < 0)
				continue;
			ev.type = add ? RG_EV_DEVICE_ADD : RG_EV_DEVICE_REMOVE;
			if (add)
				fill_device(u.name, &ev.u.dev, &ev.flags);
			else
				strscpy_ok(ev.u.dev.name, u.name, sizeof(ev.u.dev.name));
			if (add)
				tc_scan(s);
			if (deliver(s, &ev) < 0)
				return;
		} else if (strcmp(u.subsystem, "module") == 0) {
			bool soft = false;

			modules_changed(s);
			if (strcmp(u.action, "add") != 0 || !rdma_module_name(u.name, &soft))
				continue;
			{
				const struct variant *v =
				    variant_of(HP_MODULES, s->plan.hp[HP_MODULES].active);

				if (!v || v->flavor != FL_UEVENT)
					continue; /* the tracepoint reports it, with the process */
			}
			ev.type = RG_EV_MODULE_LOAD;
			strscpy_ok(ev.u.mod.name, u.name, sizeof(ev.u.mod.name));
			if (soft)
				ev.flags |= RG_EVF_SOFT;
			if (deliver(s, &ev) < 0)
				return;
		}
	}
}
