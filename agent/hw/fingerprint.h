/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The seat's hardware fingerprint in short, for the heartbeat and `status` (docs/seat.md): the
 * sha256 of the scan's canonical form, which is the seat baseline's (baseline.h) with an empty
 * host name, so that identical seats give one digest whatever their names, and the Device
 * Serial Numbers of its PCI functions. The fleet compares both across seats (the same DSN on two
 * seats: one donor card cloned; a digest unlike the majority's: a seat with other hardware).
 */
#pragma once

#include <stdbool.h>

#include "hw/pci.h"

#define HW_PRINT_MAX_DSNS 64 /* DSNs kept; more: dsn_truncated */

struct hw_print {
	bool valid;			 /* the scan examined the bus: digest is set */
	char digest[65];		 /* 64 lowercase hex digits */
	char dsn[HW_PRINT_MAX_DSNS][24]; /* hw_dsn_format(), sorted, each once */
	unsigned n_dsns;
	bool dsn_truncated;
};

/*
 * Fills p from a scan: valid only when the scan examined at least one function without a
 * failure of the bus as a whole. 0, -ENOMEM, -EIO (the digest could not be computed).
 */
int hw_print_from_scan(const struct hw_scan *s, struct hw_print *p);

/* The digest alone: sha256 of hw_baseline_write(s, "", ...). 0 or -errno. */
int hw_print_digest(const struct hw_scan *s, char out[static 65]);
