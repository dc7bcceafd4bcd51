/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The seat baseline ("golden seat"): the hardware fingerprint of a known-good machine, one entry
 * per PCI function (IDs, class, capability layout, DSN, BAR sizes, link, driver; never the
 * volatile registers: status, command, BAR addresses, interrupt line), written by
 * `rdmaguard baseline save FILE` and named by the policy's "baseline" key. The same file taken on
 * one seat checks every identical seat: each function added, removed or changed against it is an
 * RG_EV_HW_BASELINE event naming what changed. The file is JSON, validated like a policy (errors
 * at file:line:column).
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "config/jsondoc.h"
#include "hw/pci.h"

struct hw_baseline;

/*
 * Loads and validates a baseline file. check_owner: refuse a file not owned by root or writable by
 * group/other (-EPERM), as for the policy. -EINVAL with err at file:line:column; -ENOMEM; -errno.
 */
int hw_baseline_load(const char *path, bool check_owner, struct hw_baseline **ret,
		     struct rg_error *err);
/* The same from text (file names it in messages). */
int hw_baseline_parse(const char *file, const char *text, size_t len, struct hw_baseline **ret,
		      struct rg_error *err);
void hw_baseline_free(struct hw_baseline *b);
DEFINE_TRIVIAL_CLEANUP_FUNC(struct hw_baseline *, hw_baseline_free);

/* Writes a scan as a baseline file (JSON, one function a line). 0 or -errno. */
int hw_baseline_write(const struct hw_scan *s, const char *hostname, FILE *f);

/*
 * One function against the baseline: RG_HW_NONE when it matches its entry, RG_HW_ADDED when the
 * baseline has no function at its address, RG_HW_CHANGED with what differs in diff ("device_id
 * 0x1533 -> 0x0666; dsn") otherwise.
 */
unsigned hw_baseline_check(const struct hw_baseline *b, const struct hw_fn *fn, char *diff,
			   size_t size);

/*
 * Whether the baseline has fn as it is: an entry at its address whose every field matches, the
 * driver too when with_driver (a function just added may have no driver yet, or be probing one:
 * hardware enforcement leaves the machine's own alone either way; a driver being bound is
 * judged with it). b may be NULL (false).
 */
bool hw_baseline_covers(const struct hw_baseline *b, const struct hw_fn *fn, bool with_driver);

/*
 * Whether hardware enforcement leaves fn alone as the seat's own: HW_BL_COVERED when the baseline
 * has it with every field, its driver included (or the baseline has no driver there);
 * HW_BL_DRIVERLESS when every field but the driver
 * matches, the baseline has a driver there and fn has none (a clone of the seat's own device
 * whose probe failed, or the seat's own before its driver binds: the caller decides, by waiting
 * for the bind); HW_BL_NOT otherwise (no entry, another fingerprint, another driver).
 */
enum { HW_BL_NOT = 0, HW_BL_COVERED, HW_BL_DRIVERLESS };
unsigned hw_baseline_exempt(const struct hw_baseline *b, const struct hw_fn *fn);

/*
 * A whole scan against the baseline: cb for every function added or changed (with the event, its
 * baseline.change and baseline.diff filled) and every function of the baseline not on the machine
 * (removed: its fingerprint from the baseline). A non-zero return from cb stops and is returned.
 */
int hw_baseline_compare(const struct hw_baseline *b, const struct hw_scan *s, uint64_t now_ns,
			int (*cb)(const struct rg_event *ev, void *userdata), void *userdata);

/* How many functions the baseline lists. */
size_t hw_baseline_size(const struct hw_baseline *b);
