/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Runtime hardware events (hw_runtime.h): uevents and kernel log lines to events.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/log.h"
#include "common/macro.h"
#include "common/number.h"
#include "common/root.h"
#include "common/strutil.h"
#include "dma_fault.h"
#include "hw/iommu.h"
#include "hw/hw_scanner.h"
#include "hw/pci.h"
#include "hw_runtime.h"
#include "hw_uevent.h"
#include "kmsg.h"

/* Functions whose driver's probe failed (the kernel's log), until they are removed. */
#define HW_PROBE_FAILED_MAX 64
struct probe_failed {
	char addr[16];
	char driver[32];
};

struct hw_runtime {
	int uevent_fd;
	struct hw_scanner *examiner; /* examines PCI uevents' functions off the caller's thread */
	struct probe_failed probe[HW_PROBE_FAILED_MAX];
	unsigned n_probe;
	struct hw_runtime_losses reported; /* the counts at the last hw_runtime_losses() */
	struct kmsg_reader kmsg;
	struct rg_root root;
	struct hw_bursts bursts;
	struct hw_group_watch groups; /* the IOMMU groups' types at the last tick */
	struct hw_runtime_stats st;
	/* for the burst callback */
	hw_runtime_emit emit;
	void *ud;
};

int hw_runtime_open(const char *kmsg_path, struct hw_runtime **ret)
{
	struct hw_runtime *rt = calloc(1, sizeof(*rt));
	int r;

	if (!rt)
		return -ENOMEM;
	rt->kmsg.fd = -1;
	rt->root.fd = -1;
	rt->uevent_fd = hw_uevent_open();
	if (rt->uevent_fd < 0) {
		log_warning_errno(rt->uevent_fd, "Failed to listen to PCI uevents: %m");
		rt->uevent_fd = -1;
	}
	r = kmsg_open(&rt->kmsg, kmsg_path ? kmsg_path : "/dev/kmsg", true);
	if (r < 0) {
		log_warning_errno(r, "Failed to open the kernel log for DMA faults: %m");
		rt->kmsg.fd = -1;
	}
	r = root_init(&rt->root, "/");
	if (r < 0) {
		hw_runtime_free(rt);
		return r;
	}
	(void)hw_groups_watch(&rt->root, &rt->groups, NULL, NULL); /* primes */
	*ret = rt;
	return 0;
}

void hw_runtime_free(struct hw_runtime *rt)
{
	if (!rt)
		return;
	if (rt->uevent_fd >= 0)
		close(rt->uevent_fd);
	kmsg_close(&rt->kmsg);
	hw_groups_watch_done(&rt->groups);
	if (rt->root.fd >= 0)
		root_done(&rt->root);
	free(rt);
}

int hw_runtime_uevent_fd(const struct hw_runtime *rt)
{
	return rt ? rt->uevent_fd : -1;
}

int hw_runtime_kmsg_fd(const struct hw_runtime *rt)
{
	return rt ? rt->kmsg.fd : -1;
}

static struct probe_failed *probe_find(const struct hw_runtime *rt, const char *addr)
{
	for (unsigned i = 0; i < rt->n_probe; i++)
		if (strcmp(rt->probe[i].addr, addr) == 0)
			return (struct probe_failed *)&rt->probe[i];
	return NULL;
}

/* The function's fingerprint into ev (type, provider set) from fn as examined (r: hw_describe()'s
 * result); from what the uevent says when the function could not be examined (gone already: a
 * remove, or a race). */
static void describe_from(struct hw_runtime *rt, const char *addr, const struct hw_uevent *u,
			  unsigned type, struct hw_fn *fn, int r, struct rg_event *ev)
{
	uint64_t now = now_realtime_ns();

	if (r >= 0) {
		if (probe_find(rt, addr))
			hw_fn_note_probe_failed(fn); /* the fact, before the event is built */
		hw_fn_to_event(fn, type, RG_PROV_NETLINK, now, ev);
		hw_runtime_annotate(rt, ev);
		return;
	}
	if (!u || u->action != HW_UEV_REMOVE)
		rt->st.describe_errors++;
	memset(ev, 0, sizeof(*ev));
	ev->type = (uint16_t)type;
	ev->provider = RG_PROV_NETLINK;
	ev->ts = now;
	strscpy_ok(ev->u.pci.addr, addr, sizeof(ev->u.pci.addr));
	if (u) {
		ev->u.pci.vendor = u->vendor;
		ev->u.pci.device = u->device;
		ev->u.pci.class_code = u->class_code;
		ev->u.pci.subsys_vendor = u->subsys_vendor;
		ev->u.pci.subsys_device = u->subsys_device;
		strscpy_ok(ev->u.pci.driver, u->driver, sizeof(ev->u.pci.driver));
		ev->u.pci.has_driver = u->driver[0] != 0;
	}
}

/* The function examined now, on the caller's thread (describe_from()). */
static void describe(struct hw_runtime *rt, const char *addr, const struct hw_uevent *u,
		     unsigned type, struct rg_event *ev)
{
	struct hw_fn *fn = calloc(1, sizeof(*fn));
	int r = fn ? hw_describe(&rt->root, addr, fn) : -ENOMEM;

	describe_from(rt, addr, u, type, fn, r, ev);
	free(fn);
}

/* A failed probe of addr by driver: remembered (the oldest forgotten when the table is full). */
static void probe_note(struct hw_runtime *rt, const char *addr, const char *driver)
{
	struct probe_failed *p = probe_find(rt, addr);

	if (!p) {
		if (rt->n_probe == HW_PROBE_FAILED_MAX)
			memmove(&rt->probe[0], &rt->probe[1], sizeof(rt->probe[0]) * --rt->n_probe);
		p = &rt->probe[rt->n_probe++];
	}
	strscpy_ok(p->addr, addr, sizeof(p->addr));
	strscpy_ok(p->driver, driver, sizeof(p->driver));
}

static void probe_forget(struct hw_runtime *rt, const char *addr)
{
	struct probe_failed *p = probe_find(rt, addr);

	if (!p)
		return;
	memmove(p, p + 1, sizeof(*p) * (size_t)(&rt->probe[--rt->n_probe] - p));
}

void hw_runtime_annotate(const struct hw_runtime *rt, struct rg_event *ev)
{
	const struct probe_failed *p;

	if (!rt || (ev->type != RG_EV_PCI_FUNCTION && ev->type != RG_EV_PCI_CHANGE &&
		    ev->type != RG_EV_DMA_FAULT && ev->type != RG_EV_HW_BASELINE))
		return;
	p = probe_find(rt, ev->u.pci.addr);
	if (!p)
		return;
	ev->u.pci.probe_failed = 1;
	strscpy_ok(ev->u.pci.probe_driver, p->driver, sizeof(ev->u.pci.probe_driver));
	/* the fact as hw_fn_note_probe_failed() sets it, on an event already built */
	if (!ev->u.pci.has_driver)
		ev->u.pci.facts |= RG_PCI_FACT_DRIVER_PROBE_FAILED;
}

static void tb_read(struct hw_runtime *rt, const char *name, const char *attr, char *buf,
		    size_t size)
{
	char path[160];

	buf[0] = 0;
	if (!snprintf_ok(path, sizeof(path), "/sys/bus/thunderbolt/devices/%s/%s", name, attr) ||
	    root_read_line(&rt->root, path, buf, size) < 0)
		buf[0] = 0;
}

static void thunderbolt_event(struct hw_runtime *rt, const struct hw_uevent *u,
			      struct rg_event *ev)
{
	struct rg_ev_tb *tb = &ev->u.tb;
	char buf[64], domain[24];
	uint32_t v;

	memset(ev, 0, sizeof(*ev));
	ev->type = RG_EV_THUNDERBOLT;
	ev->provider = RG_PROV_NETLINK;
	ev->ts = now_realtime_ns();
	strscpy_ok(tb->name, u->tb_name, sizeof(tb->name));
	tb->change = u->action == HW_UEV_ADD	    ? RG_HW_ADD
		     : u->action == HW_UEV_REMOVE ? RG_HW_REMOVE
		     : u->authorized > 0	    ? RG_HW_AUTHORIZE
						    : RG_HW_NONE;
	tb->authorized = u->authorized > 0 ? (uint32_t)u->authorized : 0;
	if (u->action == HW_UEV_REMOVE)
		return;
	tb_read(rt, u->tb_name, "vendor", buf, sizeof(buf));
	if (safe_atou32(buf, 16, &v) == 0 || (startswith(buf, "0x") && safe_atou32(buf + 2, 16, &v) == 0))
		tb->vendor = v;
	tb_read(rt, u->tb_name, "device", buf, sizeof(buf));
	if (safe_atou32(buf, 16, &v) == 0 || (startswith(buf, "0x") && safe_atou32(buf + 2, 16, &v) == 0))
		tb->device = v;
	tb_read(rt, u->tb_name, "vendor_name", tb->vendor_name, sizeof(tb->vendor_name));
	tb_read(rt, u->tb_name, "device_name", tb->device_name, sizeof(tb->device_name));
	if (u->authorized < 0) {
		tb_read(rt, u->tb_name, "authorized", buf, sizeof(buf));
		if (safe_atou32(buf, 10, &v) == 0)
			tb->authorized = v;
	}
	/* the domain's security level: "0-1" is in domain0 */
	snprintf(domain, sizeof(domain), "domain%.*s", (int)strcspn(u->tb_name, "-"), u->tb_name);
	tb_read(rt, domain, "security", tb->security, sizeof(tb->security));
}

void hw_runtime_uevents(struct hw_runtime *rt, hw_runtime_emit emit, void *ud)
{
	if (!rt || rt->uevent_fd < 0)
		return;
	for (int budget = 0; budget < 256; budget++) {
		struct hw_uevent u;
		int r = hw_uevent_receive(rt->uevent_fd, &u);

		if (r == -ENOBUFS) {
			/* counted in status; the next scan (reload, start) sees the bus as it is */
			if (!rt->st.uevent_overruns++)
				log_warning("PCI uevent socket overrun: uevents were lost.");
			continue;
		}
		if (r < 0) {
			log_warning_errno(r, "Failed to receive a uevent: %m");
			return;
		}
		if (r == 0) {
			int avail = 0;

			if (ioctl(rt->uevent_fd, FIONREAD, &avail) < 0 || avail <= 0)
				return;
			continue;
		}
		hw_runtime_uevent(rt, &u, emit, ud);
	}
}

/* A PCI uevent's event from its function as examined (fn, r: describe_from()). */
static void pci_event(struct hw_runtime *rt, const struct hw_uevent *u, struct hw_fn *fn, int r,
		      hw_runtime_emit emit, void *ud)
{
	struct rg_event ev;

	describe_from(rt, u->slot, u, RG_EV_PCI_CHANGE, fn, r, &ev);
	switch (u->action) {
	case HW_UEV_ADD:
		ev.u.pci.change = RG_HW_ADD;
		break;
	case HW_UEV_REMOVE:
		ev.u.pci.change = RG_HW_REMOVE;
		probe_forget(rt, u->slot);
		break;
	case HW_UEV_BIND:
		ev.u.pci.change = RG_HW_BIND;
		break;
	case HW_UEV_UNBIND:
		ev.u.pci.change = RG_HW_UNBIND;
		break;
	default:
		ev.u.pci.change = RG_HW_NONE;
		break;
	}
	rt->st.pci_events++;
	(void)emit(&ev, ud);
}

void hw_runtime_set_examiner(struct hw_runtime *rt, struct hw_scanner *sc)
{
	if (rt)
		rt->examiner = sc;
}

void hw_runtime_uevent(struct hw_runtime *rt, const struct hw_uevent *u, hw_runtime_emit emit,
		       void *ud)
{
	struct rg_event ev;
	int r;

	rt->st.uevents++;
	if (u->thunderbolt) {
		thunderbolt_event(rt, u, &ev);
		rt->st.tb_events++;
		(void)emit(&ev, ud);
		return;
	}
	if (!rt->examiner) {
		struct hw_fn *fn = calloc(1, sizeof(*fn));

		r = fn ? hw_describe(&rt->root, u->slot, fn) : -ENOMEM;
		pci_event(rt, u, fn, r, emit, ud);
		free(fn);
		return;
	}
	/* examined on the examiner's thread, in order; its event comes from hw_runtime_examined() */
	r = hw_scanner_examine(rt->examiner, u);
	if (r == 0)
		return;
	if (!rt->st.uevent_queue_full++)
		log_warning_errno(r, "PCI uevent of %s not examined (%s): uevents were lost.",
				  u->slot, r == -ENOSPC ? "examination queue full" : "no thread");
}

void hw_runtime_examined(struct hw_runtime *rt, hw_runtime_emit emit, void *ud)
{
	struct hw_exam x;

	while (rt && rt->examiner && hw_scanner_examined(rt->examiner, &x) > 0) {
		pci_event(rt, &x.u, x.fn, x.err, emit, ud);
		free(x.fn);
	}
}

static void burst_report(const struct hw_burst_report *rep, void *data)
{
	struct hw_runtime *rt = data;
	struct rg_event ev;

	rt->st.fault_reports++;
	if (rep->kind == HW_KLINE_PROBE_FAILED) {
		/* once per function and driver: the event says which driver failed */
		if (!rep->first)
			return;
		probe_note(rt, rep->addr, rep->driver);
		describe(rt, rep->addr, NULL, RG_EV_PCI_CHANGE, &ev);
		ev.u.pci.change = RG_HW_PROBE_FAILED;
		hw_runtime_annotate(rt, &ev);
	} else {
		/* a burst's first line is reported while the function is still there to be
		 * described */
		describe(rt, rep->addr, NULL, RG_EV_DMA_FAULT, &ev);
		ev.u.pci.count = (uint32_t)(rep->count > UINT32_MAX ? UINT32_MAX : rep->count);
		ev.u.pci.fault_addr = rep->n_addrs ? rep->addrs[0] : 0;
		hw_burst_describe(rep, ev.u.pci.text, sizeof(ev.u.pci.text));
	}
	if (rep->historical)
		ev.flags |= RG_EVF_HISTORICAL;
	(void)rt->emit(&ev, rt->ud);
}

static void set_cb(struct hw_runtime *rt, hw_runtime_emit emit, void *ud)
{
	rt->emit = emit;
	rt->ud = ud;
}

void hw_runtime_kmsg(struct hw_runtime *rt, hw_runtime_emit emit, void *ud)
{
	struct kmsg_record *rec;

	if (!rt || rt->kmsg.fd < 0)
		return;
	rec = malloc(sizeof(*rec));
	if (!rec)
		return;
	set_cb(rt, emit, ud);
	for (int budget = 0; budget < 1024; budget++) {
		struct hw_kline l;
		int r = kmsg_read(&rt->kmsg, rec);

		if (r < 0) {
			log_warning_errno(r, "Failed to read the kernel log: %m");
			break;
		}
		if (r == 0)
			break;
		if (!hw_kline_parse(rec, &l))
			continue;
		switch (l.kind) {
		case HW_KLINE_DMA_FAULT:
			rt->st.fault_lines++;
			break;
		case HW_KLINE_AER:
			rt->st.aer_lines++;
			break;
		case HW_KLINE_PROBE_FAILED:
			rt->st.probe_lines++;
			break;
		default:
			/* a slot's link: the uevents that follow carry the evidence */
			rt->st.link_lines++;
			log_debug("PCI slot %s: %s", l.addr, l.reason);
			continue;
		}
		hw_bursts_add(&rt->bursts, &l, now_monotonic_ns(), burst_report, rt);
	}
	free(rec);
}

/* A group's type changed: the posture as it is now, with the group, its type and the one
 * before (iommu.change group_type: DMA-004's runtime clause). */
static void group_changed(uint32_t id, const char *type, const char *previous, void *data)
{
	struct hw_runtime *rt = data;
	struct hw_posture p;
	struct rg_event ev;

	rt->st.group_changes++;
	if (hw_posture_read(&rt->root, &p) < 0)
		memset(&p, 0, sizeof(p));
	hw_posture_to_event(&p, now_realtime_ns(), &ev);
	hw_posture_done(&p);
	ev.provider = RG_PROV_NETLINK;
	ev.u.iommu.change = RG_HW_GROUP_TYPE;
	ev.u.iommu.has_group = 1;
	ev.u.iommu.group = id;
	(void)strscpy_ok(ev.u.iommu.group_type, type, sizeof(ev.u.iommu.group_type));
	(void)strscpy_ok(ev.u.iommu.previous_type, previous, sizeof(ev.u.iommu.previous_type));
	hw_posture_event_summary(&ev); /* the group's change in iommu.summary */
	log_info("IOMMU group %u: type %s -> %s", id, previous[0] ? previous : "(new)", type);
	(void)rt->emit(&ev, rt->ud);
}

void hw_runtime_tick(struct hw_runtime *rt, bool flush, hw_runtime_emit emit, void *ud)
{
	if (!rt)
		return;
	set_cb(rt, emit, ud);
	hw_bursts_tick(&rt->bursts, now_monotonic_ns(), flush, burst_report, rt);
	if (!flush)
		(void)hw_groups_watch(&rt->root, &rt->groups, group_changed, rt);
}

void hw_runtime_stats(const struct hw_runtime *rt, struct hw_runtime_stats *ret)
{
	memset(ret, 0, sizeof(*ret));
	if (!rt)
		return;
	*ret = rt->st;
	ret->kmsg_records = rt->kmsg.records;
	ret->kmsg_gaps = rt->kmsg.lost_gaps;
	ret->kmsg_user = rt->kmsg.user;
	ret->kmsg_bad = rt->kmsg.bad;
	ret->fault_dropped = rt->bursts.dropped;
	ret->kmsg_lost_records = rt->kmsg.lost_records;
	ret->kmsg_historical = rt->kmsg.historical;
}

void hw_runtime_history(struct hw_runtime *rt, hw_runtime_emit emit, void *ud)
{
	/* 1024 records a round: a 16 MiB log buffer holds fewer than 256 rounds' worth */
	for (unsigned round = 0; rt && rt->kmsg.fd >= 0 && rt->kmsg.in_history && round < 256;
	     round++)
		hw_runtime_kmsg(rt, emit, ud);
}

bool hw_runtime_losses(struct hw_runtime *rt, struct hw_runtime_losses *ret)
{
	struct hw_runtime_losses now = {0};

	memset(ret, 0, sizeof(*ret));
	if (!rt)
		return false;
	now.uevents = rt->st.uevent_overruns;
	now.uevents_unexamined = rt->st.uevent_queue_full;
	now.kmsg_gaps = rt->kmsg.lost_gaps;
	now.kmsg_records = rt->kmsg.lost_records;
	now.fault_lines = rt->bursts.dropped;
	ret->uevents = now.uevents - rt->reported.uevents;
	ret->uevents_unexamined = now.uevents_unexamined - rt->reported.uevents_unexamined;
	ret->kmsg_gaps = now.kmsg_gaps - rt->reported.kmsg_gaps;
	ret->kmsg_records = now.kmsg_records - rt->reported.kmsg_records;
	ret->fault_lines = now.fault_lines - rt->reported.fault_lines;
	rt->reported = now;
	return ret->uevents || ret->uevents_unexamined || ret->kmsg_gaps || ret->kmsg_records ||
	       ret->fault_lines;
}
