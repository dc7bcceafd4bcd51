/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The daemon's side of the hardware layer at runtime (agent/hw/hw_runtime.h): its two fds in the
 * event loop, its bursts closed on the one-second tick and flushed at the stop, its events on
 * the daemon's one path (daemon_event()).
 */
#include <errno.h>
#include <linux/capability.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
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
#include "hw/hw_scanner.h"
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

static void append(char *text, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
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
	struct rg_root root = {.fd = -1};
	unsigned acted = 0;
	int r;

	if (p->hw_enforce == RG_HW_ENFORCE_OFF || !hw_enforcing(d) ||
	    (!d->baseline && !p->n_hardware))
		return;
	r = root_init(&root, "/");
	if (r >= 0) {
		r = hw_scan(&root, &s);
		root_done(&root);
	}
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

/* The functions the daemon knows are there: the start's scan, then every add and remove. */
static void known_set(struct daemon *d, const char *addr, bool there)
{
	unsigned i;

	for (i = 0; i < d->n_hw_known; i++)
		if (strcmp(d->hw_known[i], addr) == 0)
			break;
	if (!there) {
		if (i < d->n_hw_known)
			memcpy(d->hw_known[i], d->hw_known[--d->n_hw_known], 16);
		return;
	}
	if (i < d->n_hw_known || d->n_hw_known == HW_MAX_FUNCTIONS)
		return;
	if (d->n_hw_known == d->cap_hw_known) {
		unsigned cap = d->cap_hw_known ? d->cap_hw_known * 2 : 64;
		char(*k)[16] = realloc(d->hw_known, cap * sizeof(*k));

		if (!k)
			return;
		d->hw_known = k;
		d->cap_hw_known = cap;
	}
	(void)strscpy_ok(d->hw_known[d->n_hw_known++], addr, 16);
}

static void known_from_scan(struct daemon *d, const struct hw_scan *s)
{
	d->n_hw_known = 0;
	for (unsigned i = 0; i < s->n; i++)
		known_set(d, s->fn[i].addr, true);
}

static int emit(const struct rg_event *ev, void *ud);

/*
 * After a loss (uevents, kernel-log records, fault lines): what the scan finds and the daemon did
 * not know is a pci_change add, what it knew and the scan does not find a remove, each through
 * the same path as a uevent's (rules, enforcement).
 */
static void rescan_diff(struct daemon *d, const struct hw_scan *s)
{
	unsigned added = 0, removed = 0;
	struct rg_event ev;

	for (unsigned i = 0; i < s->n; i++) {
		bool known = false;

		for (unsigned k = 0; k < d->n_hw_known && !known; k++)
			known = strcmp(d->hw_known[k], s->fn[i].addr) == 0;
		if (known)
			continue;
		hw_fn_to_event(&s->fn[i], RG_EV_PCI_CHANGE, RG_PROV_INVENTORY, now_realtime_ns(),
			       &ev);
		hw_runtime_annotate(d->hw, &ev);
		ev.u.pci.change = RG_HW_ADD;
		(void)emit(&ev, d);
		added++;
	}
	for (unsigned k = 0; k < d->n_hw_known;) {
		if (hw_scan_find(s, d->hw_known[k])) {
			k++;
			continue;
		}
		memset(&ev, 0, sizeof(ev));
		ev.type = RG_EV_PCI_CHANGE;
		ev.provider = RG_PROV_INVENTORY;
		ev.ts = now_realtime_ns();
		(void)strscpy_ok(ev.u.pci.addr, d->hw_known[k], sizeof(ev.u.pci.addr));
		ev.u.pci.change = RG_HW_REMOVE;
		(void)emit(&ev, d); /* takes it out of the known set */
		removed++;
	}
	log_info("PCI rescan after a loss: %u function(s) added, %u removed, %u there.", added,
		 removed, s->n);
}

/* A scan finished on the scanner's thread: the fingerprint from it, and after a loss what
 * changed. */
static void scan_done(struct daemon *d)
{
	_cleanup_(hw_scan_freep) struct hw_scan *s = NULL;
	int err = 0;
	bool diff = d->hw_rescan_diff;

	s = hw_scanner_take(d->hw_scanner, &err);
	if (!s) {
		if (err)
			log_warning_errno(err, "Failed to examine the PCI functions: %m");
		return;
	}
	if (hw_scanner_busy(d->hw_scanner))
		return; /* another one follows: that one is the bus as it is */
	d->hw_rescan_diff = false;
	if (hw_print_from_scan(s, &d->hwprint) >= 0)
		d->hwprint_fresh = true;
	if (diff)
		rescan_diff(d, s);
	known_from_scan(d, s);
}

static void request_scan(struct daemon *d, bool diff)
{
	int r;

	if (!d->hw_scanner)
		return;
	d->hw_rescan_diff |= diff;
	r = hw_scanner_request(d->hw_scanner);
	if (r < 0)
		log_warning_errno(r, "Failed to start a PCI scan: %m");
}

/* What the hardware layer lost since the last tick: AGENT-001 for each kind, then a rescan. */
static void report_losses(struct daemon *d)
{
	struct hw_runtime_losses l;
	char text[RG_TEXT_LEN];

	if (!hw_runtime_losses(d->hw, &l))
		return;
	if (l.uevents) {
		snprintf(text, sizeof(text),
			 "PCI/Thunderbolt uevents lost (%llu socket overruns): the bus is scanned "
			 "again",
			 (unsigned long long)l.uevents);
		log_warning("%s", text);
		daemon_agent_event(d, RG_EV_AGENT_LOST, false, "hw_uevents", text, l.uevents, 0);
	}
	if (l.kmsg_gaps || l.kmsg_records) {
		snprintf(text, sizeof(text),
			 "kernel log records lost before the daemon read them (%llu gap(s), %llu "
			 "record(s)): DMA faults and failed probes among them are not seen; the bus "
			 "is scanned again",
			 (unsigned long long)l.kmsg_gaps, (unsigned long long)l.kmsg_records);
		log_warning("%s", text);
		daemon_agent_event(d, RG_EV_AGENT_LOST, false, "kmsg", text,
				   l.kmsg_records ? l.kmsg_records : l.kmsg_gaps, l.kmsg_gaps);
	}
	if (l.fault_lines) {
		snprintf(text, sizeof(text),
			 "DMA fault, AER or probe lines dropped (%llu: no burst slot free for their "
			 "source); the bus is scanned again",
			 (unsigned long long)l.fault_lines);
		log_warning("%s", text);
		daemon_agent_event(d, RG_EV_AGENT_LOST, false, "hw_fault_slots", text,
				   l.fault_lines, 0);
	}
	request_scan(d, true);
}

static int emit(const struct rg_event *ev, void *ud)
{
	struct daemon *d = ud;

	/* Added, removed, bound or unbound: the fingerprint is scanned again when next sent, once
	 * for a whole card's worth of uevents rather than once per uevent. */
	if (ev->type == RG_EV_PCI_CHANGE) {
		d->hwprint_fresh = false;
		/* a scan running now may have missed it: one more follows */
		if (d->hw_scanner && hw_scanner_busy(d->hw_scanner))
			request_scan(d, false);
		if (ev->u.pci.change == RG_HW_ADD || ev->u.pci.change == RG_HW_REMOVE)
			known_set(d, ev->u.pci.addr, ev->u.pci.change == RG_HW_ADD);
	}
	(void)daemon_event(ev, d);
	/* Records logged before the daemon read the log are evidence (alerts), not a reason to
	 * act now: the function they name may be another one by now, and the start-up sweep
	 * (daemon_hw_enforce_present()) acts on what is there. */
	if (ev->flags & RG_EVF_HISTORICAL)
		return 0;
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

	if (!s && d->hw_scanner) {
		/* off the event loop: the print said until then is the last one made */
		request_scan(d, false);
		return;
	}
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
	} else {
		known_from_scan(d, s);
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
	struct hw_runtime_stats st;
	int r = hw_runtime_open(NULL, &d->hw);

	if (r < 0)
		return log_warning_errno(r, "Failed to watch PCI hotplug and DMA faults: %m");
	r = hw_scanner_new("/", &d->hw_scanner);
	if (r < 0)
		log_warning_errno(r, "Failed to set up PCI scans off the event loop: %m");
	/* what the kernel logged before: faults and failed probes are evidence, flagged
	 * historical; the failed probes also mark the functions' events from now on */
	hw_runtime_history(d->hw, emit, d);
	hw_runtime_stats(d->hw, &st);
	log_debug("Kernel log: %llu records already in the buffer read.",
		  (unsigned long long)st.kmsg_historical);
	return 0;
}

int daemon_hw_inventory_event(const struct rg_event *ev, void *ud)
{
	struct daemon *d = ud;
	struct rg_event *copy;
	int r;

	if (ev->type != RG_EV_PCI_FUNCTION || !d->hw)
		return daemon_event(ev, d);
	copy = malloc(sizeof(*copy));
	if (!copy)
		return daemon_event(ev, d);
	*copy = *ev;
	hw_runtime_annotate(d->hw, copy);
	r = daemon_event(copy, d);
	free(copy);
	return r;
}

void daemon_hw_close(struct daemon *d)
{
	hw_runtime_free(d->hw);
	d->hw = NULL;
	hw_scanner_free(d->hw_scanner);
	d->hw_scanner = NULL;
	free(d->hw_known);
	d->hw_known = NULL;
	d->n_hw_known = d->cap_hw_known = 0;
}

int daemon_hw_scanner_fd(const struct daemon *d)
{
	return hw_scanner_fd(d->hw_scanner);
}

void daemon_hw_dispatch(struct daemon *d, int fd)
{
	if (fd >= 0 && d->hw_scanner && fd == hw_scanner_fd(d->hw_scanner)) {
		scan_done(d);
		return;
	}
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
	if (!flush) {
		enforce_pending(d);
		report_losses(d);
	}
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
	U("probe_failed_lines", st.probe_lines);
	U("kmsg_historical", st.kmsg_historical);
	U("kmsg_lost_records", st.kmsg_lost_records);
	U("fault_reports", st.fault_reports);
	U("fault_lines_dropped", st.fault_dropped);
	U("describe_errors", st.describe_errors);
	U("iommu_group_changes", st.group_changes);
#undef U
	json_object_object_add(o, "uevent_socket",
			       json_object_new_boolean(hw_runtime_uevent_fd(d->hw) >= 0));
	json_object_object_add(o, "kernel_log",
			       json_object_new_boolean(hw_runtime_kmsg_fd(d->hw) >= 0));
	return o;
}
