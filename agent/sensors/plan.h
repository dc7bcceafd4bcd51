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

#include "hooks.h"
#include "probe.h"
#include "sensors.h"

struct bpf_object;

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
