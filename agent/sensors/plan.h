/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The sensor plan (plan.c): the hook points, the variants of each (a flavour and its programs,
 * best first) and which one each hook point wants and uses, chosen from the feature probes
 * (probe.h). Knows nothing of a loaded object: sensors.c loads what the plan names, links.c
 * attaches it and moves a hook point between variants.
 */
#pragma once

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>

#include "probe.h"
#include "sensors.h"

struct bpf_object;

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

/* The mode (--sensor) lets hook point hp use flavour fl. */
bool mode_allows(enum sensors_mode mode, unsigned hp, enum flavor fl);

/* Can the variant work on this kernel? *deferred: only once its module is loaded. Else why. */
bool variant_possible(const struct sensors_features *f, unsigned hp, const struct variant *v,
		      bool *deferred, char *why, size_t whylen);

/* Chooses each hook point's variant. -EOPNOTSUPP (logged) when a forced flavour cannot be had. */
int make_plan(const struct sensors_config *cfg, const struct sensors_features *f, struct plan *p);

/*
 * The plan as JSON (sensors.h: sensors_plan()); main_obj and mod_obj (may be NULL) give the
 * programs' section names. extra, if set, adds to each hook point's object what only a running
 * instance knows (attached interfaces, the library), last.
 */
struct json_object *plan_describe(const struct sensors_config *cfg,
				  const struct sensors_features *f, const struct plan *p,
				  struct bpf_object *main_obj, struct bpf_object *mod_obj,
				  void (*extra)(void *ud, unsigned hp, struct json_object *h),
				  void *ud);
