/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The IOMMU posture: is there an IOMMU (/sys/class/iommu), the domain type of every group
 * (/sys/kernel/iommu_groups/N/type: DMA, DMA-FQ, identity = no translation, blocked), the kernel
 * command-line options that weaken it (iommu=pt, intel_iommu=off, amd_iommu=off, ...), and the
 * Thunderbolt domains' security level and iommu_dma_protection. Facts only: rules decide.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "common/macro.h"
#include "common/root.h"
#include "event/event.h"
#include "hw/hw_attr.h"
#include "hw/thunderbolt.h"

#define HW_MAX_GROUPS 4096
#define HW_MAX_UNITS  64 /* IOMMU unit names kept */

struct hw_group {
	uint32_t id;
	char type[16]; /* "" when unreadable */
};

struct hw_posture {
	unsigned units;		 /* /sys/class/iommu entries */
	char unit_names[HW_MAX_UNITS][64]; /* the first of them, version order ("dmar0") */
	unsigned n_unit_names;
	bool truncated; /* more units or groups than are kept */
	struct hw_group *groups; /* in id order */
	unsigned n_groups;
	unsigned identity_groups;
	bool cmdline_read;
	char weakening[96];    /* the weakening command-line options, space-separated */
	char *cmdline_report; /* the IOMMU/DMA-relevant options (hw/cmdline.h), "" */
	bool has_tb;	       /* a Thunderbolt domain exists */
	unsigned tb_domains;   /* how many */
	char tb_security[16];  /* the weakest domain's security level */
	int tb_dma_protection; /* -1 unknown; 0 when any domain has it off */
	struct hw_tb_list tb; /* every Thunderbolt domain and device */
	struct hw_errors errors; /* what could not be read ("PATH: why") */
	char error[256];
};

/* Reads the posture below root. 0 or -ENOMEM; what could not be read is in ->error. */
int hw_posture_read(const struct rg_root *root, struct hw_posture *ret);
void hw_posture_done(struct hw_posture *p);

/* Whether a kernel command line (one option or more, hw/cmdline.h) leaves the IOMMU weakened
 * ("iommu=pt", "intel_iommu=off", "iommu=force,pt", ...). */
bool hw_cmdline_weakens(const char *opt);

/*
 * The groups' types from one look to the next (the daemon's tick): each group whose type changed
 * since the last look (root switched it: identity takes the group's DMA out of translation), or
 * that is new and identity, is reported through cb with its type and the one before ("" new).
 * The first look only primes. 0 or -ENOMEM.
 */
struct hw_group_watch {
	struct hw_group *groups; /* the last look, in id order */
	unsigned n;
	bool primed;
};
typedef void (*hw_group_change_cb)(uint32_t id, const char *type, const char *previous, void *ud);
int hw_groups_watch(const struct rg_root *root, struct hw_group_watch *w, hw_group_change_cb cb,
		    void *ud);
void hw_groups_watch_done(struct hw_group_watch *w);

/* The posture as an RG_EV_IOMMU_POSTURE event (change RG_HW_NONE). */
void hw_posture_to_event(const struct hw_posture *p, uint64_t now_ns, struct rg_event *ev);

/*
 * Writes iommu.summary from the event's own fields: what weakens the IOMMU, in words ("command
 * line iommu=pt; Thunderbolt without IOMMU DMA protection; group 5 switched from DMA-FQ to
 * identity"), "nothing weakens it" otherwise; never an empty field. hw_posture_to_event() calls
 * it; whoever then sets the group-type change fields calls it again.
 */
void hw_posture_event_summary(struct rg_event *ev);
