/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * BPF ring buffer records (bpf/events.h) -> struct rg_event. No I/O of its own: what needs the
 * system (device names, a target process's start time) comes through the context's callbacks,
 * so that a fuzzer and the unit tests can drive it with any bytes.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "event/event.h"

struct convert_ctx {
	uint64_t boot_to_real_ns; /* add to a boot-time stamp for wall-clock time */
	/* Name of the RDMA device behind an RDMA char device (kernel dev_t); may be NULL. */
	void (*devname)(void *ud, uint32_t rdev, char *buf, size_t size);
	/* Start time (ns since boot, tick-rounded) and comm of a process; 0 or -errno; may be NULL.
	 */
	int (*proc_info)(void *ud, uint32_t pid, uint64_t *start_boot_ns, char comm[RG_COMM_LEN]);
	void *ud;
};

/*
 * Converts one record of size bytes. Returns 1 when ev was filled, 0 when the record is not
 * reported (e.g. a module that is not an RDMA module), -EBADMSG when it is malformed.
 */
int record_to_event(const void *rec, size_t size, const struct convert_ctx *ctx,
		    struct rg_event *ev);

/* RDMA kernel modules (rdma-abi.md §5): true for one; *soft for rdma_rxe and siw. */
bool rdma_module_name(const char *name, bool *soft);

/* A refused module's file or request name as the module's name: "rdma_rxe.ko" and
 * "rdma-link-rxe" become "rdma_rxe", "siw.ko.xz" "siw". In place. */
void module_name_normalize(char *name);

/* Library kind from a path's basename (libibverbs*, librdmacm*, else a provider). */
unsigned lib_kind_from_path(const char *path);

/* Target process of a /proc/PID/mem or /proc/PID/task/TID/mem path (the PID), or 0. */
uint32_t proc_mem_target(const char *path);

/* Kernel dev_t encoding (major << 20 | minor) to the userspace one (makedev). */
uint64_t kdev_to_dev(uint32_t kdev);
