/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The hook points and their variants (a flavour and its programs, best first; hooks.c), and the
 * state of each hook point in a plan: which variant it wants and which it uses. Plain data: the
 * plan (plan.h) chooses, compat.c reads what a plan leaves unseen.
 */
#pragma once

#include <stdbool.h>

enum flavor {
	FL_NONE = 0,
	FL_TRACEPOINT,
	FL_KPROBE,
	FL_FENTRY,
	FL_LSM,
	FL_UPROBE,
	FL_TC,
	FL_UEVENT,
};

extern const char *const flavor_names[];

struct variant {
	enum flavor flavor;
	const char *progs[8];
	const char *kfunc;  /* must exist: BTF for fentry/lsm, kallsyms for kprobes */
	const char *module; /* kfunc lives in this module: usable once it is loaded */
	bool mod_obj;	    /* programs are in the sensors_mod object */
};

struct hook_def {
	const char *name;
	struct variant v[4];
};

enum {
	HP_PROCESS,
	HP_OPEN,
	HP_VERBS,
	HP_RDMA_CM,
	HP_MMAP,
	HP_MEMORY,
	HP_LIBRARY,
	HP_MODULES,
	HP_DEVICES,
	HP_ROCE,
	HP_SELF,
	HP_SOCKETS,
	HP_COMPAT, /* 32-bit calls of the hook points on the syscall level (bpf/compat.bpf.h) */
	HP__MAX,
};

extern const struct hook_def hook_defs[HP__MAX];

struct hook_state {
	int want;   /* variant chosen: best possible, now or once its module is loaded */
	int active; /* variant attached now, -1 for none */
	char note[160];
};

struct plan {
	struct hook_state hp[HP__MAX];
};

/* Variant idx of hook point hp, or NULL (idx -1, or past the last). */
const struct variant *variant_of(unsigned hp, int idx);
