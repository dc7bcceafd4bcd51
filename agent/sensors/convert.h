/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * BPF ring buffer records (bpf/events.h) -> struct rg_event. No I/O of its own: what needs the
 * system (device names, a target process's start time) comes through the context's callbacks,
 * so that a fuzzer and the unit tests can drive it with any bytes.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "common/prockey.h"
#include "event/event.h"

struct convert_ctx {
	uint64_t boot_to_real_ns; /* add to a boot-time stamp for wall-clock time */
	/* Name of the RDMA device behind an RDMA char device (kernel dev_t); may be NULL. */
	void (*devname)(void *ud, uint32_t rdev, char *buf, size_t size);
	/* Start time (ns since boot, tick-rounded) and comm of a process; 0 or -errno; may be NULL.
	 */
	int (*proc_info)(void *ud, uint32_t pid, uint64_t *start_boot_ns, char comm[RG_COMM_LEN]);
	/* Name of the agent's own map or link (RG_SELF_*, kernel id); may be NULL. */
	void (*self_name)(void *ud, uint32_t kind, uint32_t id, char *buf, size_t size);
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

/* Remembers that key.pid is the process that started at key.start_boot_ns, named comm. */
void task_cache_note(struct task_cache *c, struct proc_key key, const char *comm);

/* The latest entry for pid: 0, or -ENOENT. */
int task_cache_find(const struct task_cache *c, uint32_t pid, uint64_t *start_boot_ns,
		    char comm[RG_COMM_LEN]);

/*
 * The processes whose exit was reported lately. sched_process_exit fires in every thread, and the
 * BPF side reports the one that sees signal->live at 0; but live is decremented earlier in
 * do_exit(), so when threads exit together (exit_group) two of them can both see 0 and the ring
 * carries two exit records of one process (seen in the VM lab: rping's main thread and its CQ
 * thread). Those arrive close together: a fixed ring of EXIT_RING_SIZE (pid, start time) pairs
 * (1 KiB) is enough to report each exit once.
 */
#define EXIT_RING_SIZE 64
struct exit_ring {
	struct proc_key e[EXIT_RING_SIZE];
	unsigned next;
};

/* true when the exit of key was noted already; else notes it and returns false. */
bool exit_ring_seen(struct exit_ring *r, struct proc_key key);

/*
 * Converts one record of size bytes. Returns 1 when ev was filled, 0 when the record is not
 * reported (e.g. a module that is not an RDMA module), -EBADMSG when it is malformed.
 */
int record_to_event(const void *rec, size_t size, const struct convert_ctx *ctx,
		    struct rg_event *ev);

/* "bpf_map_update_elem" for BPF_MAP_UPDATE_ELEM..., of the commands the self hook point
 * reports; NULL for any other. */
const char *bpf_cmd_name(uint32_t cmd);

/* RDMA kernel modules (docs/verbs-abi.md#kernel-modules): true for one; *soft for rdma_rxe and siw. */
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
