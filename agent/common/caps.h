/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The calling thread's capabilities (Linux keeps them per thread): limit them for good, raise one
 * that is kept "on demand" (permitted, not effective) around the call that needs it, name them.
 * Built on libcap-ng, whose state is per thread too.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CAPS_BIT(cap) (UINT64_C(1) << (cap))

/*
 * Leaves the calling thread these capabilities and no others: effective, and on_demand only
 * permitted (caps_raise() makes one effective for a while); none inheritable or ambient; the
 * bounding set cut to the same where the thread may change it (CAP_SETPCAP: run by hand as root;
 * under a unit without it the bounding set stays the unit's); no_new_privs set, so that nothing
 * it executes gains any. Threads it creates afterwards inherit all of it; threads that exist
 * keep theirs. *bounded (may be NULL): whether the bounding set was cut. 0 or -errno.
 */
int caps_limit(uint64_t effective, uint64_t on_demand, bool *bounded);

/* For worker threads that need no capability at all (outputs, hashing): caps_limit(0, 0). */
int caps_limit_worker(void);

/*
 * Makes cap effective in the calling thread when it is permitted but not effective; true when it
 * did (the caller then calls caps_lower()). Without caps_limit() before, a capability root holds is
 * effective already and nothing happens.
 */
bool caps_raise(int cap);
void caps_lower(int cap);

/* The calling thread's sets as masks (capget). 0 or -errno. */
int caps_get(uint64_t *effective, uint64_t *permitted, uint64_t *bounding);

/* "cap_bpf cap_perfmon ..." (libcap-ng's names, lowercase, with their cap_ prefix), "none". */
void caps_format(uint64_t mask, char *buf, size_t size);

/* Whether this kernel knows CAP_BPF and CAP_PERFMON (5.8+). */
bool caps_kernel_has_bpf(void);
