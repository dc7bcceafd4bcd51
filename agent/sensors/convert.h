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
 * The processes the ring buffer has named, in its order: pid, start time and comm from fork and
 * exec records. A record about another process (a ptrace or process_vm_* target, which the syscall
 * tracepoints name only by pid) is resolved against it before /proc: /proc is read when the record
 * is converted, by which time the target may have exited (its pid gone, or reused), while the
 * target's fork or exec came through the ring before the record that names it. Fixed size
 * (TASK_CACHE_SIZE entries, 16 KiB); the oldest entry gives way.
 */
#define TASK_CACHE_SIZE 512
struct task_cache {
	struct {
		uint32_t pid;
		uint64_t start_boot_ns;
		char comm[RG_COMM_LEN];
	} e[TASK_CACHE_SIZE];
	unsigned next; /* where the next entry goes */
	unsigned used;
};

/* Remembers that pid is the process that started at start_boot_ns, named comm. */
void task_cache_note(struct task_cache *c, uint32_t pid, uint64_t start_boot_ns, const char *comm);

/* The latest entry for pid: 0, or -ENOENT. */
int task_cache_find(const struct task_cache *c, uint32_t pid, uint64_t *start_boot_ns,
		    char comm[RG_COMM_LEN]);

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
