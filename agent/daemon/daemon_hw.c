/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The daemon's side of the hardware layer at runtime (agent/hw/hw_runtime.h): its two fds in the
 * event loop, its bursts closed on the one-second tick and flushed at the stop, its events on
 * the daemon's one path (daemon_event()).
 */
#include <errno.h>
#include <linux/capability.h>
#include <stdio.h>
#include <string.h>

#include "common/caps.h"
#include "common/log.h"
#include "common/util.h"
#include "engine/engine.h"
#include "engine/policy.h"
#include "engine/policy_hw.h"
#include "hw/fingerprint.h"
#include "hw/hw_enforce.h"
#include "hw/hw_runtime.h"
#include "daemon-internal.h"

/*
 * Hardware enforcement (hw/hw_enforce.h): with enforcement on and "hardware_enforce" in the
 * policy, a function added at runtime, or one whose DMA the IOMMU refused, that the policy's
 * hardware allowlist does not cover is removed from the bus or loses bus mastering (and then,
 * where its IOMMU group is identity, the group is switched to a translating domain), and a
 * pci_change event flagged denied says which (pci.enforcement). A function present when the
 * daemon starts is never touched (the machine may need it), nor a bridge (what is behind it may
 * be the machine's own).
 */
/*
 * Switches the function's IOMMU group from identity to a translating domain where the kernel
 * allows (hw_enforce_translate()) and appends what came of it to text: "; IOMMU group 7 identity
 * -> DMA", or "; IOMMU group 7 stays identity (Device or resource busy)" (a driver is bound).
 */
static void translate_group(const char *addr, char *text, size_t size)
{
	char after[16], e[80];
	int group, r = hw_enforce_translate(NULL, addr, &group, after, sizeof(after));

	if (r == 0)
		return;
	if (r > 0)
		snprintf(e, sizeof(e), "; IOMMU group %d identity -> %s", group, after);
	else if (group >= 0)
		snprintf(e, sizeof(e), "; IOMMU group %d stays identity (%s)", group, strerror(-r));
	else
		snprintf(e, sizeof(e), "; IOMMU group unknown (%s)", strerror(-r));
	strncat(text, e, size - strlen(text) - 1);
}

static void enforce_hw(struct daemon *d, const struct rg_event *ev)
{
	const struct rg_policy *p = engine_policy(d->engine);
	const char *addr = ev->u.pci.addr;
	struct rg_event out;
	bool was_set = true, raised, rawio;
	int r;

	if (!(d->cfg->enforce || p->enforce) || p->hw_enforce == RG_HW_ENFORCE_OFF)
		return;
	if (!(ev->type == RG_EV_PCI_CHANGE && ev->u.pci.change == RG_HW_ADD) &&
	    ev->type != RG_EV_DMA_FAULT)
		return;
	if ((ev->u.pci.class_code >> 16) == 0x06 ||
	    policy_hw_allowed(p, &ev->u.pci, now_realtime_ns()))
		return;
	out = *ev;
	out.type = RG_EV_PCI_CHANGE;
	out.flags |= RG_EVF_DENIED;
	out.ts = 0;
	memset(out.u.pci.text, 0, sizeof(out.u.pci.text));
	out.u.pci.count = 0;
	out.u.pci.fault_addr = 0;
	/* config space writes are CAP_SYS_ADMIN's (kept permitted for this: daemon_privs.c); the
	 * IOMMU group's type also wants CAP_SYS_RAWIO, which the unit does not grant */
	raised = caps_raise(CAP_SYS_ADMIN);
	rawio = caps_raise(CAP_SYS_RAWIO);
	if (p->hw_enforce == RG_HW_ENFORCE_REMOVE) {
		r = hw_enforce_remove(NULL, addr);
		if (r == -ENOENT)
			goto done; /* gone already */
		out.u.pci.change = RG_HW_REMOVE;
		if (r == 0)
			(void)hw_enforce_note(NULL, "remove", addr);
		snprintf(out.u.pci.text, sizeof(out.u.pci.text), "%s: removed from the bus",
			 r < 0 ? "failed" : "done");
	} else {
		r = hw_enforce_clear_master(NULL, addr, &was_set);
		if (r == -ENOENT || (r == 0 && !was_set && ev->type == RG_EV_DMA_FAULT))
			goto done; /* gone, or stopped already: a fault of the same burst */
		out.u.pci.change = RG_HW_NONE;
		out.u.pci.bus_master = 0;
		if (r == 0)
			(void)hw_enforce_note(NULL, "bus_master", addr);
		snprintf(out.u.pci.text, sizeof(out.u.pci.text), "%s: bus mastering cleared%s",
			 r < 0 ? "failed" : "done", r == 0 && !was_set ? " (it was off)" : "");
	}
	if (r < 0) {
		char e[64];

		snprintf(e, sizeof(e), " (%s)", strerror(-r));
		strncat(out.u.pci.text, e, sizeof(out.u.pci.text) - strlen(out.u.pci.text) - 1);
	}
	/* the function stays: an identity group lets its DMA reach all memory untranslated */
	if (p->hw_enforce == RG_HW_ENFORCE_BUS_MASTER)
		translate_group(addr, out.u.pci.text, sizeof(out.u.pci.text));
	log_notice("Hardware enforcement: %s %s", addr, out.u.pci.text);
	(void)daemon_event(&out, d);
done:
	if (rawio)
		caps_lower(CAP_SYS_RAWIO);
	if (raised)
		caps_lower(CAP_SYS_ADMIN);
}

static int emit(const struct rg_event *ev, void *ud)
{
	struct daemon *d = ud;

	/* Added, removed, bound or unbound: the fingerprint is scanned again when next sent, once
	 * for a whole card's worth of uevents rather than once per uevent. */
	if (ev->type == RG_EV_PCI_CHANGE)
		d->hwprint_fresh = false;
	(void)daemon_event(ev, d);
	enforce_hw(d, ev);
	return 0;
}

void daemon_hw_print_update(struct daemon *d, const struct hw_scan *s)
{
	_cleanup_(hw_scan_freep) struct hw_scan *own = NULL;
	struct rg_root root = {.fd = -1};
	uint64_t t0 = now_monotonic_ns();
	int r;

	if (!s) {
		r = root_init(&root, "/");
		if (r >= 0) {
			r = hw_scan(&root, &own);
			root_done(&root);
		}
		if (r < 0) {
			log_warning_errno(r, "Failed to examine the PCI functions: %m");
			return;
		}
		s = own;
	}
	r = hw_print_from_scan(s, &d->hwprint);
	if (r < 0) {
		log_warning_errno(r, "Failed to compute the hardware fingerprint: %m");
		return;
	}
	d->hwprint_fresh = true;
	log_debug("Hardware fingerprint %s (%u DSNs)%s in %llu us.",
		  d->hwprint.valid ? d->hwprint.digest : "none", d->hwprint.n_dsns,
		  own ? ", scanned" : "", (unsigned long long)((now_monotonic_ns() - t0) / 1000));
}

void daemon_hw_print_add(struct daemon *d, struct json_object *o)
{
	struct json_object *hw, *pci, *arr;

	if (!d->hwprint_fresh)
		daemon_hw_print_update(d, NULL);
	if (!d->hwprint.valid)
		return;
	hw = json_object_new_object();
	json_object_object_add(hw, "fingerprint", json_object_new_string(d->hwprint.digest));
	json_object_object_add(o, "hw", hw);
	pci = json_object_new_object();
	arr = json_object_new_array();
	for (unsigned i = 0; i < d->hwprint.n_dsns; i++)
		json_object_array_add(arr, json_object_new_string(d->hwprint.dsn[i]));
	json_object_object_add(pci, "dsn", arr);
	json_object_object_add(o, "pci", pci);
}

int daemon_hw_open(struct daemon *d)
{
	int r = hw_runtime_open(NULL, &d->hw);

	if (r < 0)
		return log_warning_errno(r, "Failed to watch PCI hotplug and DMA faults: %m");
	return 0;
}

void daemon_hw_dispatch(struct daemon *d, int fd)
{
	if (fd < 0 || !d->hw)
		return;
	if (fd == hw_runtime_uevent_fd(d->hw))
		hw_runtime_uevents(d->hw, emit, d);
	else if (fd == hw_runtime_kmsg_fd(d->hw))
		hw_runtime_kmsg(d->hw, emit, d);
}

void daemon_hw_tick(struct daemon *d, bool flush)
{
	hw_runtime_tick(d->hw, flush, emit, d);
}

struct json_object *daemon_hw_stats(struct daemon *d)
{
	struct json_object *o = json_object_new_object();
	struct hw_runtime_stats st;

	hw_runtime_stats(d->hw, &st);
#define U(k, v) json_object_object_add(o, k, json_object_new_uint64(v))
	U("uevents", st.uevents);
	U("pci_events", st.pci_events);
	U("thunderbolt_events", st.tb_events);
	U("uevent_overruns", st.uevent_overruns);
	U("kmsg_records", st.kmsg_records);
	U("kmsg_gaps", st.kmsg_gaps);
	U("kmsg_not_kernel", st.kmsg_user);
	U("kmsg_unparsable", st.kmsg_bad);
	U("dma_fault_lines", st.fault_lines);
	U("aer_lines", st.aer_lines);
	U("link_lines", st.link_lines);
	U("fault_reports", st.fault_reports);
	U("fault_lines_dropped", st.fault_dropped);
	U("describe_errors", st.describe_errors);
#undef U
	json_object_object_add(o, "uevent_socket",
			       json_object_new_boolean(hw_runtime_uevent_fd(d->hw) >= 0));
	json_object_object_add(o, "kernel_log",
			       json_object_new_boolean(hw_runtime_kmsg_fd(d->hw) >= 0));
	return o;
}
