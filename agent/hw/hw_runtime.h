/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The hardware layer at runtime (docs/hardware-runtime.md): what the daemon watches between
 * scans. PCI and Thunderbolt uevents (hw_uevent.h) become pci_change and thunderbolt_device
 * events carrying the function's full fingerprint (hw_describe(), pci.h); the kernel's DMA
 * fault and AER lines (kmsg.h, dma_fault.h) become dma_fault events, one at once per burst and
 * one with the count when the burst ends. Events go to a callback: this module knows nothing of
 * the daemon.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "event/event.h"

struct hw_runtime;
struct hw_scanner;
struct hw_uevent;

typedef int (*hw_runtime_emit)(const struct rg_event *ev, void *ud);

struct hw_runtime_stats {
	uint64_t uevents, pci_events, tb_events, uevent_overruns;
	uint64_t uevent_queue_full; /* PCI uevents not examined: the examination queue was full */
	uint64_t kmsg_records, kmsg_gaps, kmsg_user, kmsg_bad;
	uint64_t kmsg_lost_records, kmsg_historical;
	uint64_t fault_lines, aer_lines, link_lines, probe_lines, fault_reports, fault_dropped;
	uint64_t describe_errors; /* a function gone (or unreadable) before it was described */
	uint64_t group_changes;	  /* IOMMU groups whose type changed */
};

/*
 * Opens the uevent socket and /dev/kmsg (kmsg_path; NULL: /dev/kmsg) at the oldest record still
 * in the buffer: what is read before the log's first "nothing more" is historical (events
 * flagged RG_EVF_HISTORICAL). Either may fail alone (logged; its fd is then -1). 0 or -ENOMEM.
 */
int hw_runtime_open(const char *kmsg_path, struct hw_runtime **ret);

/* Reads the kernel log until what was in the buffer at open has been read (bounded). */
void hw_runtime_history(struct hw_runtime *rt, hw_runtime_emit emit, void *ud);

/* Sets pci.driver_probe_failed and pci.probe_failed_driver on a PCI event about a function
 * whose driver's probe the kernel logged as failed (and that has not been removed since). */
void hw_runtime_annotate(const struct hw_runtime *rt, struct rg_event *ev);

/* What was lost since the last call: uevents (socket overruns), kernel-log records (gaps),
 * fault lines (no burst slot). */
struct hw_runtime_losses {
	uint64_t uevents, uevents_unexamined, kmsg_gaps, kmsg_records, fault_lines;
};
/* true when anything was lost since the last call */
bool hw_runtime_losses(struct hw_runtime *rt, struct hw_runtime_losses *ret);
void hw_runtime_free(struct hw_runtime *rt);

int hw_runtime_uevent_fd(const struct hw_runtime *rt); /* -1: none */
int hw_runtime_kmsg_fd(const struct hw_runtime *rt);   /* -1: none */

/*
 * PCI uevents' functions examined on sc's thread from now on (hw_scanner_examine()), not on the
 * caller's: a card that stalls its config reads holds up that thread only. NULL: on the
 * caller's. sc outlives rt's use of it.
 */
void hw_runtime_set_examiner(struct hw_runtime *rt, struct hw_scanner *sc);

/* What the fds hold now, as events through emit (pci.allowed is the engine's to derive). With an
 * examiner, a PCI uevent's event comes later from hw_runtime_examined(). */
void hw_runtime_uevents(struct hw_runtime *rt, hw_runtime_emit emit, void *ud);
/* One uevent as received (hw_uevent_receive()): a Thunderbolt one's event now, a PCI one's now
 * or, with an examiner, queued (a full queue is a loss: hw_runtime_losses().uevents_unexamined). */
void hw_runtime_uevent(struct hw_runtime *rt, const struct hw_uevent *u, hw_runtime_emit emit,
		       void *ud);
/* The examinations finished on the examiner's thread, as events in the order their uevents came
 * (call when the examiner's fd is readable, after hw_scanner_take()). */
void hw_runtime_examined(struct hw_runtime *rt, hw_runtime_emit emit, void *ud);
void hw_runtime_kmsg(struct hw_runtime *rt, hw_runtime_emit emit, void *ud);

/* Once a second: the bursts whose window ended are reported, flush reports all (at stop); the
 * IOMMU groups whose type changed since the last tick become iommu_posture events (iommu.change
 * group_type). */
void hw_runtime_tick(struct hw_runtime *rt, bool flush, hw_runtime_emit emit, void *ud);

void hw_runtime_stats(const struct hw_runtime *rt, struct hw_runtime_stats *ret);
