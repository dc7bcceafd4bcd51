/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Refusing RDMA drivers to new PCI functions while a game runs (docs/hardware-runtime.md,
 * "Refusing RDMA drivers"): the decision, pure (unit test hw_enforce), and the table of when
 * each PCI function appeared while the daemon watched, which says whether a function was there
 * when the game started. The actions (driver_override, unbind) and their undo are
 * hw_enforce.h's; the daemon (daemon_hw.c) feeds both.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What driver_override is set to: a name no driver has, so no probe binds the function. */
#define HW_REFUSE_OVERRIDE "rdmaguard-refused"

#define HW_ADDED_MAX 1024

/* When each function last appeared (a pci_change add) since the daemon started. */
struct hw_added_table {
	struct {
		char addr[16];
		uint64_t ns; /* wall clock */
	} e[HW_ADDED_MAX];
	unsigned n;
};

/*
 * One pci_change (enum rg_hw_change) into the table: add records ADDR's time (the oldest entry
 * makes room when the table is full), remove forgets ADDR, the rest changes nothing.
 */
void hw_added_note(struct hw_added_table *t, unsigned change, const char *addr, uint64_t ns);
/* When ADDR appeared; 0: not since the daemon started (present at its start). */
uint64_t hw_added_at(const struct hw_added_table *t, const char *addr);

enum hw_refuse_verdict {
	HW_REFUSE_OFF = 0,	   /* enforcement off or lifted, or no driver is refused */
	HW_REFUSE_NOT_BIND,	   /* not a driver bound (add, remove, unbind...) */
	HW_REFUSE_NOT_LISTED,	   /* the driver is not one of the policy's */
	HW_REFUSE_NO_GAME,	   /* no game session runs */
	HW_REFUSE_PRESENT,	   /* the function was there when the game started */
	HW_REFUSE_BRIDGE,	   /* a bridge: what is behind it may be the machine's own */
	HW_REFUSE_ALLOWED,	   /* the policy's hardware allowlist covers it */
	HW_REFUSE_BASELINE,	   /* the seat baseline has it, with this driver */
	HW_REFUSE_YES,		   /* refuse: override, then unbind */
};

struct hw_refuse_in {
	bool enforcing;		     /* enforcement wanted and not lifted */
	const char *const *drivers; /* the policy's refused drivers */
	size_t n_drivers;
	unsigned change;	     /* the pci_change's enum rg_hw_change */
	const char *driver;	     /* the driver bound now ("" none) */
	bool bridge;		     /* hw_enforce_is_bridge(): header type 1 and a subordinate bus */
	uint64_t game_since;	     /* the earliest start of the running game sessions; 0: none */
	uint64_t added_ns;	     /* hw_added_at(); 0: present when the daemon started */
	bool allowed;		     /* policy_hw_allowed() */
	bool baseline;		     /* the seat baseline covers it, bound to this driver */
};

/* enum hw_refuse_verdict: the first reason not to act, in the order above, or HW_REFUSE_YES. */
unsigned hw_refuse_decide(const struct hw_refuse_in *in);
const char *hw_refuse_verdict_to_string(unsigned v); /* "off", "not_bind", ..., "refuse" */
