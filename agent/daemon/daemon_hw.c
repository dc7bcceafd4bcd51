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
#include "hw/fingerprint.h"
#include "hw/hw_enforce.h"
#include "hw/hw_refuse.h"
#include "hw/hw_runtime.h"
#include "hw/hw_scanner.h"
#include "hw/irq_watch.h"
#include "daemon-internal.h"

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

static void not_breathing(const struct hw_fn *fn, void *ud)
{
	struct rg_event ev;

	/* an alert's matter, not enforcement's: not through emit() */
	hw_fn_to_event(fn, RG_EV_PCI_FUNCTION, RG_PROV_INVENTORY, now_realtime_ns(), &ev);
	(void)daemon_event(&ev, ud);
}

/* The network functions of a fresh scan that are up but whose vectors never counted, reported
 * after a window of HW_IRQ_WINDOW_NS (irq_watch.h). */
static void irq_watch_check(struct daemon *d, struct hw_scan *s)
{
	struct rg_root root = {.fd = -1};

	d->irq_check_pending = false;
	if (!d->irq_watch) {
		d->irq_watch = calloc(1, sizeof(*d->irq_watch));
		if (!d->irq_watch)
			return;
	}
	if (root_init(&root, "/") < 0)
		return;
	hw_facts_baseline(s, d->baseline);
	hw_irq_watch_check(d->irq_watch, &root, s, now_monotonic_ns(), HW_IRQ_WINDOW_NS,
			   not_breathing, d);
	root_done(&root);
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
	if (d->irq_check_pending)
		irq_watch_check(d, s);
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

/* One kind of loss: logged, and AGENT-001 (agent.what what, agent.count n). */
static void lost(struct daemon *d, const char *what, uint64_t n, uint64_t n2, const char *fmt,
		 ...) __attribute__((format(printf, 5, 6)));
static void lost(struct daemon *d, const char *what, uint64_t n, uint64_t n2, const char *fmt,
		 ...)
{
	char text[RG_TEXT_LEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	log_warning("%s", text);
	daemon_agent_event(d, RG_EV_AGENT_LOST, false, what, text, n, n2);
}

/* What the hardware layer lost since the last tick: AGENT-001 for each kind, then a rescan. */
static void report_losses(struct daemon *d)
{
	struct hw_runtime_losses l;

	if (!hw_runtime_losses(d->hw, &l))
		return;
	if (l.uevents || l.uevents_unexamined)
		lost(d, "hw_uevents", l.uevents + l.uevents_unexamined, l.uevents_unexamined,
		     "PCI/Thunderbolt uevents lost (%llu socket overruns, %llu not examined: the "
		     "examination queue was full): the bus is scanned again",
		     (unsigned long long)l.uevents, (unsigned long long)l.uevents_unexamined);
	if (l.kmsg_gaps || l.kmsg_records)
		lost(d, "kmsg", l.kmsg_records ? l.kmsg_records : l.kmsg_gaps, l.kmsg_gaps,
		     "kernel log records lost before the daemon read them (%llu gap(s), %llu "
		     "record(s)): DMA faults and failed probes among them are not seen; the bus is "
		     "scanned again",
		     (unsigned long long)l.kmsg_gaps, (unsigned long long)l.kmsg_records);
	if (l.fault_lines)
		lost(d, "hw_fault_slots", l.fault_lines, 0,
		     "DMA fault, AER or probe lines dropped (%llu: no burst slot free for their "
		     "source); the bus is scanned again",
		     (unsigned long long)l.fault_lines);
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
	daemon_hw_enforce_event(d, ev);
	return 0;
}

void daemon_hw_print_update(struct daemon *d, const struct hw_scan *s)
{
	_cleanup_(hw_scan_freep) struct hw_scan *own = NULL;
	uint64_t t0 = now_monotonic_ns();
	int r;

	if (!s) {
		r = hw_scan_host(&own);
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

	/* off the event loop: what is said until the scan is done is the last print made (none:
	 * a scan of its own, as at start); a scan running now was asked for after the change, or
	 * is followed by one that was (emit()) */
	if (!d->hwprint_fresh && d->hw_scanner && d->hwprint.valid) {
		if (!hw_scanner_busy(d->hw_scanner))
			request_scan(d, false);
	} else if (!d->hwprint_fresh) {
		daemon_hw_print_update(d, NULL);
	}
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
	/* a uevent's function is examined on the scanner's thread: a card that stalls its config
	 * reads holds up that thread, not the event loop (its events follow in order) */
	hw_runtime_set_examiner(d->hw, d->hw_scanner);
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
	hw_runtime_set_examiner(d->hw, NULL);
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
		/* the uevents examined first (in order), then a scan; examinations that finish
		 * while hw_scanner_take() clears the fd are taken after it */
		hw_runtime_examined(d->hw, emit, d);
		scan_done(d);
		hw_runtime_examined(d->hw, emit, d);
		return;
	}
	if (fd < 0 || !d->hw)
		return;
	if (fd == hw_runtime_uevent_fd(d->hw))
		hw_runtime_uevents(d->hw, emit, d);
	else if (fd == hw_runtime_kmsg_fd(d->hw))
		hw_runtime_kmsg(d->hw, emit, d);
}

/* Once a minute: a scan on the scanner's thread (not on the event loop), whose result
 * irq_watch_check() reads. */
static void irq_watch_tick(struct daemon *d)
{
	uint64_t now = now_monotonic_ns();

	if (now < d->next_irq_check_ns)
		return;
	d->next_irq_check_ns = now + 60ull * 1000000000ull;
	d->irq_check_pending = true;
	request_scan(d, false);
}

void daemon_hw_tick(struct daemon *d, bool flush)
{
	hw_runtime_tick(d->hw, flush, emit, d);
	if (!flush) {
		daemon_hw_enforce_tick(d);
		report_losses(d);
		irq_watch_tick(d);
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
	U("uevent_queue_full", st.uevent_queue_full);
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
