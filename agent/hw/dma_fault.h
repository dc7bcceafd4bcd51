/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the kernel logs about a PCI function's DMA and link (docs/hardware-runtime.md), read from
 * its records (kmsg.h), and how a burst of it becomes a bounded number of events.
 *
 *   dma_fault.c    hw_kline_parse(): one kernel record -> a DMA fault (Intel VT-d "DMAR: [DMA
 *                  Read ...] Request device [01:00.0] fault addr ...", AMD-Vi "IO_PAGE_FAULT"),
 *                  an AER error ("AER: ... error received: 0000:01:00.0"), a slot's link
 *                  change (pciehp "Slot(2): Link Down", "Card present"), or a driver's failed
 *                  probe ("r8169: probe of 0000:03:00.0 failed with error -5"). Pure.
 *   fault_burst.c  per function and kind: the first line of a burst is reported at once, the
 *                  rest counted (with up to HW_BURST_ADDRS distinct addresses) and reported once
 *                  when the burst's window closes. At most HW_BURST_SLOTS functions at a time,
 *                  HW_BURST_PER_SOURCE of one source; beyond that lines are counted as dropped.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kmsg.h"

enum hw_kline_kind {
	HW_KLINE_NONE = 0,
	HW_KLINE_DMA_FAULT, /* the IOMMU refused the function's DMA */
	HW_KLINE_AER,	    /* an AER error the function caused (reported by its root port) */
	HW_KLINE_LINK,	    /* a hotplug slot's link or presence changed (the port's address) */
	HW_KLINE_PROBE_FAILED, /* a driver's probe of the function failed */
	HW_KLINE__MAX,
};

struct hw_kline {
	unsigned kind;	   /* enum hw_kline_kind */
	char addr[16];	   /* the function, "0000:01:00.0" */
	bool has_fault_addr;
	uint64_t fault_addr;
	char source[8];	   /* "vt-d", "amd-vi", "aer", "pciehp", "probe" */
	char reason[96];   /* "DMA Read: [fault reason 0x06] PTE Read access is not set" */
	char driver[32];   /* probe_failed: the driver whose probe failed */
	bool historical;   /* the record was in the buffer when the reader opened it */
};

/* 1 and *out filled when the record is one of the above as the kernel's driver printed it
 * (facility, level, dictionary, caller and the whole line: dma_fault.c), 0 when not. */
int hw_kline_parse(const struct kmsg_record *rec, struct hw_kline *out);

const char *hw_kline_kind_to_string(unsigned kind); /* "dma_fault", "aer", "link" */

/* Parses "0000:01:00.0" or "01:00.0" (segment 0) at s; writes the canonical form. Returns the
 * number of bytes read, 0 when s does not start with one. */
unsigned hw_parse_bdf(const char *s, char out[16]);

#define HW_BURST_SLOTS	     64
#define HW_BURST_PER_SOURCE  16 /* slots one source may hold (a source: "vt-d", "aer", ...,
				 * historical or not): no source fills the slots for the others */
#define HW_BURST_ADDRS	     8
#define HW_BURST_WINDOW_NS   (10ull * 1000000000ull)

/* What a burst reports: the first line (count 1), then at the window's end the rest. */
struct hw_burst_report {
	unsigned kind;
	char addr[16];
	char source[8];
	char reason[96];
	char driver[32];       /* probe_failed: the driver */
	bool historical;       /* from records logged before the reader opened the log */
	uint64_t count;	       /* lines this report covers */
	bool first;	       /* the burst's first line, reported at once */
	unsigned n_addrs;      /* distinct fault addresses, the first HW_BURST_ADDRS */
	uint64_t addrs[HW_BURST_ADDRS];
};

typedef void (*hw_burst_cb)(const struct hw_burst_report *rep, void *ud);

struct hw_burst_slot {
	bool used;
	struct hw_burst_report rep; /* what is pending: lines after the first */
	uint64_t window_end_ns;
};

struct hw_bursts {
	struct hw_burst_slot slot[HW_BURST_SLOTS];
	uint64_t window_ns; /* 0: HW_BURST_WINDOW_NS */
	uint64_t lines, reports, dropped;
};

/* One parsed line at monotonic time now_ns: reported through cb at once when it opens a burst. */
void hw_bursts_add(struct hw_bursts *b, const struct hw_kline *l, uint64_t now_ns, hw_burst_cb cb,
		   void *ud);

/* Closes the bursts whose window has ended (all of them with flush), reporting what they
 * counted after their first line. */
void hw_bursts_tick(struct hw_bursts *b, uint64_t now_ns, bool flush, hw_burst_cb cb, void *ud);

/* "DMA Read: ...; 3 faults at 0x1000 0x2000 0x3000" into buf (for the event's text). */
void hw_burst_describe(const struct hw_burst_report *rep, char *buf, size_t size);
