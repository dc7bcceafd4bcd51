/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Exporting one incident as a signed evidence bundle (bundle.h): the incident record, its alerts
 * and the raw events behind them as the agent kept them, the config space of every PCI function
 * they name (read now, through libpci), the policy and every rule file with their sha256, the
 * agent's version and the seat's identity (seat.json), all signed by the seat key. Where the
 * incident comes from (the daemon's store, a file read offline) is the caller's business.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include <openssl/evp.h>

#include "common/root.h"

#define EVIDENCE_MAX_PCI 64 /* PCI functions one bundle carries */

struct evidence_source {
	const char *incident_id;
	const char *incident; /* the incident record: one JSON object */
	size_t incident_len;
	const char *alerts; /* its alerts, JSON lines, as the outputs got them */
	size_t alerts_len;
	const char *events; /* the raw events behind them, JSON lines, as recorded */
	size_t events_len;
	const char *policy_path;   /* NULL: the built-in default policy */
	const char *policy_sha256; /* of the policy in force, "" or NULL if not known */
	const char *rules_dir;
	const char *origin;	    /* "daemon", or the file it was read from */
	const struct rg_root *root; /* where PCI functions are read: the host */
};

/*
 * Writes the bundle directory out (it must not exist) signed by key. On error the partial
 * bundle is removed and err says what failed. 0 or -errno.
 */
int evidence_export(const struct evidence_source *src, const char *out, EVP_PKEY *key, char *err,
		    size_t errlen);
/* The PCI addresses (pci.address, pci.upstream.address) named by JSON lines text, appended to
 * addrs (unique, at most EVIDENCE_MAX_PCI). Lines that are not JSON are skipped. */
void evidence_pci_addrs(const char *text, size_t len, char addrs[][16], size_t *n);
