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
#include "enforce/enforce.h"
#include "hw/baseline.h"
#include "hw/fingerprint.h"
#include "hw/hw_enforce.h"
#include "hw/hw_refuse.h"
#include "hw/hw_runtime.h"
#include "hw/irq_watch.h"
#include "daemon-internal.h"

/*
 * Hardware enforcement (hw/hw_enforce.h): with enforcement on and "hardware_enforce" in the
 * policy, a function added at runtime, or one whose DMA the IOMMU refused, that the policy's
 * hardware allowlist does not cover is removed from the bus or loses bus mastering (and then,
 * where its IOMMU group is identity, the group is switched to a translating domain), and a
 * pci_change event flagged denied says which (pci.enforcement). A function the seat baseline
 * has (whatever its driver) is never touched, nor a bridge (what is behind it may be the
 * machine's own); one present when the daemon started only when its DMA faults.
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

/* ADDR examined now (hw_describe()) into *fn. 0 or -errno. */
static int examine(const char *addr, struct hw_fn *fn)
{
	struct rg_root root = {.fd = -1};
	int r = root_init(&root, "/");

	if (r < 0)
		return r;
	r = hw_describe(&root, addr, fn);
	root_done(&root);
	return r;
}

/*
 * Whether the seat baseline has ADDR as it is now (hw_baseline_covers()): the machine's own,
 * which hardware enforcement never touches; with_driver, bound to the driver it is bound to
 * (the golden seat ran it with that driver). Examined again here: the event carries what the
 * rules need, the baseline compares the whole fingerprint.
 */
static bool baseline_covers(const struct daemon *d, const char *addr, bool with_driver)
{
	_cleanup_free_ struct hw_fn *fn = NULL;

	if (!d->baseline)
		return false;
	fn = calloc(1, sizeof(*fn));
	return fn && examine(addr, fn) >= 0 &&
	       hw_baseline_covers(d->baseline, fn, with_driver);
}

/* ADDR's fingerprint now as an event of type. 0 or -errno. */
static int describe(const char *addr, unsigned type, struct rg_event *ev)
{
	_cleanup_free_ struct hw_fn *fn = calloc(1, sizeof(*fn));
	int r = fn ? examine(addr, fn) : -ENOMEM;

	if (r >= 0)
		hw_fn_to_event(fn, type, RG_PROV_NETLINK, now_realtime_ns(), ev);
	return r;
}

/* Enforcement is asked for (command line or policy) and not lifted by `enforce --off`. */
static bool hw_enforcing(const struct daemon *d)
{
	const struct rg_policy *p = engine_policy(d->engine);

	return (d->cfg->enforce || p->enforce) && !enforce_lifted(d->enf);
}

static void enforce_hw(struct daemon *d, const struct rg_event *ev)
{
	const struct rg_policy *p = engine_policy(d->engine);
	const char *addr = ev->u.pci.addr;
	struct rg_event out;
	bool was_set = true, raised, rawio;
	int r;

	if (p->hw_enforce == RG_HW_ENFORCE_OFF || !hw_enforcing(d))
		return;
	if (!(ev->type == RG_EV_PCI_CHANGE && ev->u.pci.change == RG_HW_ADD) &&
	    ev->type != RG_EV_DMA_FAULT)
		return;
	if ((ev->u.pci.class_code >> 16) == 0x06 ||
	    policy_hw_allowed(p, &ev->u.pci, now_realtime_ns()))
		return;
	/* the seat baseline's own (a remove + rescan, a driver's DMA bug): whatever its driver */
	if (baseline_covers(d, addr, false)) {
		log_debug("Hardware enforcement: %s is the seat baseline's, left alone.", addr);
		return;
	}
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

/*
 * Refusing RDMA drivers to new functions while a game runs (hw/hw_refuse.h decides): on a bind
 * of a driver of "hardware_refuse_drivers" to a function that appeared after the running game
 * session began, not allowed by the policy nor covered by the baseline, the function's
 * driver_override is set to a name no driver has (so that no rescan or drivers_probe binds it
 * again), then the driver is unbound; a pci_change flagged denied (change unbind, pci.driver
 * the refused driver) says what was done (DMA-010). The override first: between the two, the
 * function stays bound to the driver it already has; the other way round a probe could slip in.
 */
static void refuse_driver(struct daemon *d, const struct rg_event *ev)
{
	const struct rg_policy *p = engine_policy(d->engine);
	const char *addr = ev->u.pci.addr;
	struct hw_refuse_in in = {0};
	char driver[sizeof(ev->u.pci.driver)], e[48];
	struct rg_event out;
	unsigned v;
	int ro, ru;

	if (ev->type != RG_EV_PCI_CHANGE)
		return;
	hw_added_note(&d->hw_added, ev->u.pci.change, addr, ev->ts ? ev->ts : now_realtime_ns());
	if (ev->u.pci.change != RG_HW_BIND || !p->n_refuse_drivers)
		return;
	(void)strscpy_ok(driver, ev->u.pci.driver, sizeof(driver));
	in.enforcing = hw_enforcing(d);
	in.drivers = (const char *const *)p->refuse_drivers;
	in.n_drivers = p->n_refuse_drivers;
	in.change = ev->u.pci.change;
	in.driver = driver;
	in.class_code = ev->u.pci.class_code;
	in.game_since = engine_game_since(d->engine);
	in.added_ns = hw_added_at(&d->hw_added, addr);
	in.allowed = policy_hw_allowed(p, &ev->u.pci, now_realtime_ns());
	v = hw_refuse_decide(&in);
	if (v == HW_REFUSE_YES && d->baseline) {
		in.baseline = baseline_covers(d, addr, true);
		v = hw_refuse_decide(&in);
	}
	if (v != HW_REFUSE_YES) {
		if (v >= HW_REFUSE_NO_GAME)
			log_debug("Driver %s bound to %s: not refused (%s).", driver, addr,
				  hw_refuse_verdict_to_string(v));
		return;
	}
	ro = hw_enforce_override(NULL, addr, HW_REFUSE_OVERRIDE);
	if (ro == -ENOENT)
		return; /* gone already */
	if (ro == 0)
		(void)hw_enforce_note(NULL, "override", addr);
	ru = hw_enforce_unbind(NULL, addr, driver);
	/* the function as the unbind left it (the driver's remove usually clears bus mastering),
	 * pci.driver the driver refused */
	if (describe(addr, RG_EV_PCI_CHANGE, &out) < 0)
		out = *ev;
	out.provider = ev->provider;
	out.flags = ev->flags | RG_EVF_DENIED;
	out.ts = 0;
	out.u.pci.change = RG_HW_UNBIND;
	(void)strscpy_ok(out.u.pci.driver, driver, sizeof(out.u.pci.driver));
	memset(out.u.pci.text, 0, sizeof(out.u.pci.text));
	snprintf(out.u.pci.text, sizeof(out.u.pci.text), "%s: %s unbound",
		 ru < 0 || ro < 0 ? "failed" : "done", driver);
	if (ru < 0) {
		snprintf(e, sizeof(e), " (%s)", strerror(-ru));
		strncat(out.u.pci.text, e, sizeof(out.u.pci.text) - strlen(out.u.pci.text) - 1);
	}
	if (ro == 0)
		snprintf(e, sizeof(e), ", driver_override %s", HW_REFUSE_OVERRIDE);
	else
		snprintf(e, sizeof(e), ", driver_override not set (%s)", strerror(-ro));
	strncat(out.u.pci.text, e, sizeof(out.u.pci.text) - strlen(out.u.pci.text) - 1);
	log_notice("Hardware enforcement: %s %s", addr, out.u.pci.text);
	(void)daemon_event(&out, d);
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
	refuse_driver(d, ev);
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

static void not_breathing(const struct hw_fn *fn, void *ud)
{
	struct rg_event ev;

	/* an alert's matter, not enforcement's: not through emit() */
	hw_fn_to_event(fn, RG_EV_PCI_FUNCTION, RG_PROV_INVENTORY, now_realtime_ns(), &ev);
	(void)daemon_event(&ev, ud);
}

/* Once a minute: the network functions that are up but whose vectors never counted, reported
 * after a window of HW_IRQ_WINDOW_NS (irq_watch.h). */
static void irq_watch_tick(struct daemon *d)
{
	_cleanup_(hw_scan_freep) struct hw_scan *s = NULL;
	uint64_t now = now_monotonic_ns();
	struct rg_root root = {.fd = -1};

	if (now < d->next_irq_check_ns)
		return;
	d->next_irq_check_ns = now + 60ull * 1000000000ull;
	if (!d->irq_watch) {
		d->irq_watch = calloc(1, sizeof(*d->irq_watch));
		if (!d->irq_watch)
			return;
	}
	if (root_init(&root, "/") < 0)
		return;
	if (hw_scan(&root, &s) == 0) {
		hw_facts_baseline(s, d->baseline);
		hw_irq_watch_check(d->irq_watch, &root, s, now, HW_IRQ_WINDOW_NS, not_breathing, d);
	}
	root_done(&root);
}

void daemon_hw_tick(struct daemon *d, bool flush)
{
	hw_runtime_tick(d->hw, flush, emit, d);
	if (!flush)
		irq_watch_tick(d);
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
