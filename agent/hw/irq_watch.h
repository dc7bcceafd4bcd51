/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * "Not breathing": a function that claims to be a network device, whose netdev is up, but whose
 * interrupt vectors have never fired. A real NIC with its link up counts interrupts within
 * seconds (broadcasts, link events); a clone whose donor driver bound to it, or that fakes a
 * netdev, counts none. The counters are the kernel's: the function's MSI/MSI-X vectors (sysfs
 * msi_irqs/N) summed over every CPU in /proc/interrupts. A shared legacy INTx line is not
 * attributable to one function and is not used.
 *
 * The daemon checks over a window: a function is noted when first seen silent, and reported
 * when it is still silent, still up and still has its vectors a window later.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "common/root.h"
#include "hw/pci.h"

#define HW_IRQ_MAX_VECTORS 256 /* vectors of one function summed */
#define HW_IRQ_WATCH_MAX   64  /* functions watched at once */
#define HW_IRQ_WINDOW_NS   (600ull * 1000000000ull)

struct hw_irq_sample {
	unsigned vectors; /* MSI/MSI-X vectors the kernel allocated to it */
	uint64_t count;	  /* their interrupts since boot, every CPU */
	bool up;	  /* a netdev on it is up (operstate "up") */
};

/* Whether the class says the function is busy whenever its netdev is up: network, wireless. */
bool hw_irq_class_breathes(uint32_t class_code);

/* The counts of /proc/interrupts text for a set of IRQ numbers (pure; the fuzzable part). */
uint64_t hw_irq_count(const char *text, size_t len, const unsigned *irqs, unsigned n);

/* Samples one function below root. 0, -ENOENT (no such function), -errno. */
int hw_irq_sample(const struct rg_root *root, const char *addr, struct hw_irq_sample *ret);

struct hw_irq_watch {
	struct {
		char addr[16];
		uint64_t since_ns;
	} w[HW_IRQ_WATCH_MAX];
	unsigned n;
};

/*
 * One check of a scan at now_ns (monotonic): every function of a class that breathes, up, with
 * vectors that have never counted, is watched from the first time it is seen so; cb is called
 * for each one watched for window_ns or more (once: it is dropped from the watch), with
 * fn->not_breathing set and the fact added. Functions that counted or went down leave the watch.
 */
void hw_irq_watch_check(struct hw_irq_watch *w, const struct rg_root *root, struct hw_scan *s,
			uint64_t now_ns, uint64_t window_ns,
			void (*cb)(const struct hw_fn *fn, void *ud), void *ud);
