/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Reads of config space off the event loop: hw_scan() reads every function's config space, and a
 * card that stalls its config reads (or a bus with thousands of functions) would hold up
 * whatever thread runs it. The daemon asks here for a scan of the bus, or for the examination of
 * the function a PCI uevent names; a thread of its own (started for the work, gone after it)
 * runs them and makes the scanner's fd readable when a result is there.
 *
 * Examinations run one at a time in the order they were asked for, and come back in that order:
 * the uevents of one function (add, bind, unbind, remove) are never reordered. At most
 * HW_EXAM_QUEUE_MAX are queued or finished and not taken: one more is refused (-ENOSPC), a loss
 * that the caller reports. They go before scans. One scan at a time: a request while one runs is
 * remembered, and one more scan follows it.
 */
#pragma once

#include "hw/hw_uevent.h"
#include "hw/pci.h"

#define HW_EXAM_QUEUE_MAX 64

struct hw_scanner;

/* A finished examination: the uevent as asked for, the function as examined. */
struct hw_exam {
	struct hw_uevent u;
	struct hw_fn *fn; /* the caller frees it; NULL when it could not be examined (err) */
	int err;	  /* hw_describe()'s -errno (-ENOENT: gone), 0 */
};

/* A scanner of the bus below root_dir ("/" for the machine). 0 or -errno. */
int hw_scanner_new(const char *root_dir, struct hw_scanner **ret);
/* Frees it; work still running is left to finish on its own (its result is then dropped). */
void hw_scanner_free(struct hw_scanner *sc);

/* An eventfd, readable when a scan or an examination has finished. */
int hw_scanner_fd(const struct hw_scanner *sc);

/* Asks for a scan. 0 (started, or one more after the one running), -errno. */
int hw_scanner_request(struct hw_scanner *sc);

/* Whether a scan is running or asked for. */
bool hw_scanner_busy(const struct hw_scanner *sc);
/* Whether its thread runs (scans or examinations asked for and not finished). */
bool hw_scanner_working(const struct hw_scanner *sc);

/*
 * The last finished scan (the caller frees it), or NULL when none is there (yet). *err gets a
 * failed scan's -errno (0 none). Clears the fd's readiness: take the examinations after it.
 */
struct hw_scan *hw_scanner_take(struct hw_scanner *sc, int *err);

/* Asks for the examination of the function u->slot names, after those asked for before it.
 * 0, -ENOSPC HW_EXAM_QUEUE_MAX are queued or not taken yet, -errno (no thread). */
int hw_scanner_examine(struct hw_scanner *sc, const struct hw_uevent *u);

/* The oldest finished examination into *ret (1), or 0 when it has not finished (or none). */
int hw_scanner_examined(struct hw_scanner *sc, struct hw_exam *ret);

/* For tests: fn(data) runs on the thread before each examination, as a config read that stalls
 * would (NULL: nothing). Set before any work is asked for. */
void hw_scanner_set_stall(struct hw_scanner *sc, void (*fn)(void *data), void *data);
