/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Scans of the PCI bus off the event loop: hw_scan() reads every function's config space, and a
 * card that stalls its config reads (or a bus with thousands of functions) would hold up
 * whatever thread runs it. The daemon asks for a scan here; a thread of its own (started for the
 * scan, gone after it) runs it and makes the scanner's fd readable when the result is there.
 * One scan at a time: a request while one runs is remembered, and one more scan follows it.
 */
#pragma once

#include "hw/pci.h"

struct hw_scanner;

/* A scanner of the bus below root_dir ("/" for the machine). 0 or -errno. */
int hw_scanner_new(const char *root_dir, struct hw_scanner **ret);
/* Frees it; a scan still running is left to finish on its own (its result is then dropped). */
void hw_scanner_free(struct hw_scanner *sc);

/* An eventfd, readable when a scan has finished (hw_scanner_take()). */
int hw_scanner_fd(const struct hw_scanner *sc);

/* Asks for a scan. 0 (started, or one more after the one running), -errno. */
int hw_scanner_request(struct hw_scanner *sc);

/* Whether a scan is running or asked for. */
bool hw_scanner_busy(const struct hw_scanner *sc);

/*
 * The last finished scan (the caller frees it), or NULL when none is there (yet). *err gets a
 * failed scan's -errno (0 none). Clears the fd's readiness.
 */
struct hw_scan *hw_scanner_take(struct hw_scanner *sc, int *err);
