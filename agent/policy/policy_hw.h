/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The policy's hardware keys (policy_hw.c): "hardware", the PCI functions this machine may have
 * whatever the rules say (by vendor:device, subsystem IDs, address and Device Serial Number,
 * with expiry), and "baseline", the seat baseline file the hardware is checked against
 * (agent/hw/baseline.h reads it), and "hardware_refuse_drivers", the drivers hardware
 * enforcement refuses to functions that appear while a game runs (agent/hw/hw_refuse.h).
 * Matching works on an event's PCI fields, so the engine derives pci.allowed from the policy in
 * force, reloads included.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "event/event.h"
#include "config/jsondoc.h"

struct hw_fn;
struct rg_policy;

#define POLICY_MAX_HARDWARE 1024
#define POLICY_MAX_REFUSE_DRIVERS 64

/* "hardware_refuse_drivers": true: the PCI drivers of Linux's RDMA-capable adapters (NULL-ended). */
extern const char *const policy_hw_default_refuse_drivers[];

struct rg_policy_hw {
	bool has_id, any_device;
	uint32_t vendor, device;
	bool has_subsys;
	uint32_t subsys_vendor, subsys_device;
	char address[16]; /* "" any */
	char dsn[24];	  /* "" any; lowercase "01-23-45-67-89-ab-cd-ef" */
	uint64_t expires_ns;
	char *comment;
	unsigned line, column;
};

/* Parses "hardware", "baseline" and "hardware_refuse_drivers" of a policy document's root into p. 0, -EINVAL (err), -ENOMEM.
 */
int policy_hw_parse(const struct jdoc *doc, struct json_object *root, struct rg_policy *p,
		    struct rg_error *err);
void policy_hw_free(struct rg_policy *p);

/* Whether an entry of the policy covers the function of a hardware event at time now_ns. */
bool policy_hw_allowed(const struct rg_policy *p, const struct rg_ev_pci *fn, uint64_t now_ns);

/*
 * The same for a function as the hardware layer examined it (hw/pci.h), through its event fields,
 * so that the audit's and the daemon's view and the rules' pci.allowed can never disagree. A
 * function covered by the policy's baseline is not "allowed" by this (see hw/baseline.h).
 */
bool hw_allowed(const struct rg_policy *policy, const struct hw_fn *fn, uint64_t now_ns);
