/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The daemon's hardware enforcement (hw/hw_enforce.h, hw/hw_refuse.h, docs/hardware-runtime.md):
 * what it decides about a PCI function the policy does not cover (at start, when it is added,
 * when its DMA faults, when an RDMA driver binds to it during a game), and what it does.
 */
#include <errno.h>
#include <linux/capability.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/caps.h"
#include "common/clock.h"
#include "common/log.h"
#include "common/macro.h"
#include "common/root.h"
#include "common/strutil.h"
#include "engine/engine.h"
#include "policy/policy.h"
#include "policy/policy_hw.h"
#include "enforce/enforce.h"
#include "hw/baseline.h"
#include "hw/hw_enforce.h"
#include "hw/hw_refuse.h"
#include "hw/hw_runtime.h"
#include "daemon-internal.h"

/*
 * Hardware enforcement (hw/hw_enforce.h): with enforcement on and "hardware_enforce" in the
 * policy, a function that the policy's hardware allowlist and the seat baseline do not cover is
 * removed from the bus or loses bus mastering (and then, where its IOMMU group is identity, the
 * group is switched to a translating domain); with "hardware_enforce_port" the port above it
 * (where the card is alone below it) loses bus mastering or its link too. It acts when the
 * function is added at runtime, when its DMA faults, and at start, on what is there (with a
 * baseline or an allowlist to say what the seat's own is). A pci_change event flagged denied
 * says what was done (pci.enforcement). A bridge (header type 1 with a subordinate bus, not a
 * class it claims) is never touched: what is behind it may be the machine's own.
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
	return fn && examine(addr, fn) >= 0 && hw_baseline_covers(d->baseline, fn, with_driver);
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

#define HW_DRIVER_WAIT_NS (5ull * 1000000000ull)

enum hw_why { WHY_ADDED, WHY_FAULT, WHY_PRESENT };

/*
 * Whether hardware enforcement leaves ADDR alone: a bridge, allowed by the policy, or the seat
 * baseline's (its driver included: a driverless function where the baseline has a driver is not
 * the seat's own). With wait_driver (a function just added, whose driver may not have bound
 * yet) such a driverless function is left alone for now and *pending says so. fn: ADDR examined
 * (NULL: examined here).
 */
static bool hw_exempt(struct daemon *d, const struct rg_event *ev, const struct hw_fn *fn,
		      bool wait_driver, bool *pending)
{
	const struct rg_policy *p = engine_policy(d->engine);
	_cleanup_free_ struct hw_fn *own = NULL;
	unsigned v;

	*pending = false;
	if (hw_enforce_is_bridge(NULL, ev->u.pci.addr) ||
	    policy_hw_allowed(p, &ev->u.pci, now_realtime_ns()))
		return true;
	if (!d->baseline)
		return false;
	if (!fn) {
		own = calloc(1, sizeof(*own));
		if (!own || examine(ev->u.pci.addr, own) < 0)
			return false;
		fn = own;
	}
	v = hw_baseline_exempt(d->baseline, fn);
	if (v == HW_BL_DRIVERLESS && wait_driver) {
		*pending = true;
		return true;
	}
	return v == HW_BL_COVERED;
}

static void append(char *text, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void append(char *text, size_t size, const char *fmt, ...)
{
	size_t len = strlen(text);
	va_list ap;

	if (len + 1 >= size)
		return;
	va_start(ap, fmt);
	vsnprintf(text + len, size - len, fmt, ap);
	va_end(ap);
}

/* The port above ADDR stopped as the policy says (found before ADDR is removed); what came of it
 * appended to text. */
static void stop_port(const struct rg_policy *p, const char *port, int found, char *text,
		      size_t size)
{
	bool link = p->hw_enforce_port == RG_HW_PORT_LINK;
	int r;

	if (p->hw_enforce_port == RG_HW_PORT_OFF)
		return;
	if (found < 0) {
		append(text, size, "; port above not stopped (%s)",
		       found == -EBUSY ? "other devices below it" : strerror(-found));
		return;
	}
	r = hw_enforce_port_stop(NULL, port, link);
	if (r == 0)
		(void)hw_enforce_note(NULL, link ? "port_link" : "port_master", port);
	append(text, size, "; port %s %s%s%s", port,
	       link ? "link disabled" : "bus mastering cleared", r < 0 ? ": failed, " : "",
	       r < 0 ? strerror(-r) : "");
}

static void hw_act(struct daemon *d, const struct rg_event *ev, enum hw_why why)
{
	const struct rg_policy *p = engine_policy(d->engine);
	const char *addr = ev->u.pci.addr;
	char port[16] = "";
	struct rg_event out;
	bool was_set = true, raised, rawio;
	int r, found;

	out = *ev;
	out.type = RG_EV_PCI_CHANGE;
	out.flags = (ev->flags & ~RG_EVF_HISTORICAL) | RG_EVF_DENIED;
	out.ts = 0;
	memset(out.u.pci.text, 0, sizeof(out.u.pci.text));
	out.u.pci.count = 0;
	out.u.pci.fault_addr = 0;
	/* config space writes are CAP_SYS_ADMIN's (kept permitted for this: daemon_privs.c); the
	 * IOMMU group's type also wants CAP_SYS_RAWIO, which the unit does not grant */
	raised = caps_raise(CAP_SYS_ADMIN);
	rawio = caps_raise(CAP_SYS_RAWIO);
	found = p->hw_enforce_port != RG_HW_PORT_OFF ? hw_enforce_port_above(NULL, addr, port)
						     : -ENODEV;
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
	if (r < 0)
		append(out.u.pci.text, sizeof(out.u.pci.text), " (%s)", strerror(-r));
	/* the function stays: an identity group lets its DMA reach all memory untranslated */
	if (p->hw_enforce == RG_HW_ENFORCE_BUS_MASTER)
		translate_group(addr, out.u.pci.text, sizeof(out.u.pci.text));
	stop_port(p, port, found, out.u.pci.text, sizeof(out.u.pci.text));
	/* there since boot: the seat's own new hardware, or a card; the baseline says which once
	 * it is saved again */
	if (why == WHY_PRESENT)
		append(out.u.pci.text, sizeof(out.u.pci.text), "; at start, not in the %s",
		       d->baseline ? "baseline (re-save it if this is the seat's own)"
				   : "hardware allowlist");
	log_notice("Hardware enforcement: %s %s", addr, out.u.pci.text);
	(void)daemon_event(&out, d);
done:
	if (rawio)
		caps_lower(CAP_SYS_RAWIO);
	if (raised)
		caps_lower(CAP_SYS_ADMIN);
}

/* Functions just added whose baseline entry has a driver and that have none yet: judged when a
 * driver binds, or when HW_DRIVER_WAIT_NS have passed without one. */
static void pending_set(struct daemon *d, const char *addr, bool on)
{
	unsigned i;

	for (i = 0; i < d->n_hw_pending; i++)
		if (strcmp(d->hw_pending[i].addr, addr) == 0)
			break;
	if (!on) {
		if (i < d->n_hw_pending)
			d->hw_pending[i] = d->hw_pending[--d->n_hw_pending];
		return;
	}
	if (i == d->n_hw_pending) {
		if (i == ARRAY_SIZE(d->hw_pending))
			i = 0; /* full: the oldest is judged at once by the next tick's look */
		else
			d->n_hw_pending++;
	}
	(void)strscpy_ok(d->hw_pending[i].addr, addr, sizeof(d->hw_pending[i].addr));
	d->hw_pending[i].deadline_ns = now_monotonic_ns() + HW_DRIVER_WAIT_NS;
}

static bool pending_has(const struct daemon *d, const char *addr)
{
	for (unsigned i = 0; i < d->n_hw_pending; i++)
		if (strcmp(d->hw_pending[i].addr, addr) == 0)
			return true;
	return false;
}

static void enforce_hw(struct daemon *d, const struct rg_event *ev)
{
	const struct rg_policy *p = engine_policy(d->engine);
	bool add = ev->type == RG_EV_PCI_CHANGE && ev->u.pci.change == RG_HW_ADD, pending;
	bool bind = ev->type == RG_EV_PCI_CHANGE && ev->u.pci.change == RG_HW_BIND &&
		    pending_has(d, ev->u.pci.addr);

	if (ev->type == RG_EV_PCI_CHANGE && ev->u.pci.change == RG_HW_REMOVE)
		pending_set(d, ev->u.pci.addr, false);
	if (p->hw_enforce == RG_HW_ENFORCE_OFF || !hw_enforcing(d))
		return;
	if (!add && !bind && ev->type != RG_EV_DMA_FAULT)
		return;
	if (bind)
		pending_set(d, ev->u.pci.addr, false);
	if (hw_exempt(d, ev, NULL, add, &pending)) {
		if (pending)
			pending_set(d, ev->u.pci.addr, true);
		log_debug("Hardware enforcement: %s left alone%s.", ev->u.pci.addr,
			  pending ? " until its driver binds" : "");
		return;
	}
	hw_act(d, ev, ev->type == RG_EV_DMA_FAULT ? WHY_FAULT : WHY_ADDED);
}

/* Once a second: a pending function whose driver has not bound in time is judged as it is. */
static void enforce_pending(struct daemon *d)
{
	uint64_t now = now_monotonic_ns();

	for (unsigned i = 0; i < d->n_hw_pending;) {
		struct rg_event ev;
		bool pending;

		if (now < d->hw_pending[i].deadline_ns) {
			i++;
			continue;
		}
		if (describe(d->hw_pending[i].addr, RG_EV_PCI_CHANGE, &ev) < 0) {
			pending_set(d, d->hw_pending[i].addr, false);
			continue;
		}
		pending_set(d, ev.u.pci.addr, false);
		ev.u.pci.change = RG_HW_ADD;
		if (hw_enforcing(d) && engine_policy(d->engine)->hw_enforce != RG_HW_ENFORCE_OFF &&
		    !hw_exempt(d, &ev, NULL, false, &pending))
			hw_act(d, &ev, WHY_ADDED);
	}
}

void daemon_hw_enforce_present(struct daemon *d)
{
	const struct rg_policy *p = engine_policy(d->engine);
	_cleanup_(hw_scan_freep) struct hw_scan *s = NULL;
	unsigned acted = 0;
	int r;

	if (p->hw_enforce == RG_HW_ENFORCE_OFF || !hw_enforcing(d) ||
	    (!d->baseline && !p->n_hardware))
		return;
	r = hw_scan_host(&s);
	if (r < 0) {
		log_warning_errno(r, "Failed to examine the PCI functions for enforcement: %m");
		return;
	}
	for (unsigned i = 0; i < s->n; i++) {
		struct rg_event ev;
		bool pending;

		/* with an allowlist alone, what is on a root bus is the machine's own: a card
		 * sits behind a port (a baseline lists those too) */
		if (!d->baseline && !s->fn[i].upstream[0])
			continue;
		hw_fn_to_event(&s->fn[i], RG_EV_PCI_CHANGE, RG_PROV_INVENTORY, now_realtime_ns(),
			       &ev);
		hw_runtime_annotate(d->hw, &ev);
		if (hw_exempt(d, &ev, &s->fn[i], false, &pending))
			continue;
		hw_act(d, &ev, WHY_PRESENT);
		acted++;
	}
	log_info("Hardware enforcement at start: %u of %u PCI functions acted on.", acted, s->n);
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
	in.bridge = hw_enforce_is_bridge(NULL, addr);
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

void daemon_hw_enforce_event(struct daemon *d, const struct rg_event *ev)
{
	enforce_hw(d, ev);
	refuse_driver(d, ev);
}

void daemon_hw_enforce_tick(struct daemon *d)
{
	enforce_pending(d);
}
