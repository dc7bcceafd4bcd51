/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Every map of the sensors objects, and the types of their keys and values that userspace does
 * not share (those are in events.h). Enforcement's own maps (enf_*) are in enforce.bpf.h.
 *
 * Each .bpf.c file of an object includes this header (through common.bpf.h) and the maps are
 * __weak: `bpftool gen object` links the copies into one. Which object gets which map:
 *   every object (sensors, sensors_mod, enforce)  events, counters, scratch, enf_game_pids
 *   sensors and sensors_mod                       events_hi, rdma_fds, rdma_procs, rdma_seen,
 *                                                 pending,
 *                                                 pending_count, posts, rb_poll (the agent
 *                                                 shares the main object's with sensors_mod)
 *   sensors only                                  roce_flows, iwarp_ports, self_objs, budget,
 *                                                 opened_files
 *   sensors_mod only                              fd_cache (a new one per load)
 * The enforcement object defines RG_ENFORCE_OBJECT (its pinned maps stay small) and sensors_mod
 * RG_SENSORS_MOD_OBJECT, before they include anything.
 */
#pragma once

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

#include "events.h"
#include "enforce_abi.h"

/* The ring buffer every record goes to, but those of events_hi. Its size is set by the agent
 * (sensors_config.ringbuf_bytes). */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4 << 20);
} events __weak SEC(".maps");

#ifndef RG_ENFORCE_OBJECT
/* The RDMA ring: records of RDMA nodes, verbs and rdma_cm commands, RDMA libraries and sockets,
 * module loads, the agent's own maps, and memory access by RDMA processes. Nothing a process
 * without RDMA does can fill it, so a flood of other records cannot hide these. Sized by the
 * agent (half the main ring). */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 20);
} events_hi __weak SEC(".maps");
#endif

/*
 * Game processes (tgid -> RG_ENF_GAME_*): enforcement's (pinned, shared with the sensors while
 * enforcement is on; filled by its programs and the daemon), else the sensors' own, which the
 * daemon fills from the engine's game tracking (agent/enforce/game_pids.c). The sensors send
 * records about a game's memory to the RDMA ring, outside the budget of low-value records.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, RG_ENF_GAME_PIDS_MAX);
	__type(key, __u32);
	__type(value, __u32);
} enf_game_pids __weak SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, RG_CNT__MAX);
	__type(key, __u32);
	__type(value, __u64);
} counters __weak SEC(".maps");

/*
 * The sensors' own state (RDMA fds, syscalls in flight, post_send aggregation). The enforcement
 * object (bpf/enforce.bpf.c) defines RG_ENFORCE_OBJECT: it keeps no such state, and its pinned maps
 * stay small.
 */
#ifndef RG_ENFORCE_OBJECT
/* (tgid, fd) of every fd known to be an RDMA node: the cheap in-kernel filter for write(). */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, struct rg_fd_key);
	__type(value, struct rg_fd_val);
} rdma_fds __weak SEC(".maps");

/* tgids that hold (or held) an RDMA fd; inherited at fork. A write() on an fd not in rdma_fds
 * is examined only for these (an fd inherited, dup'ed or received over a socket). */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 8192);
	__type(key, __u32);
	__type(value, __u32);
} rdma_procs __weak SEC(".maps");

/* A latch, set (slot 0 = 1) before the first entry ever goes into rdma_fds or rdma_procs (by the
 * programs or the agent's seeding) and never cleared: while it is 0 both maps are empty, and the
 * write()/writev() filter and the fork and exit hooks skip their hash lookups (an array slot the
 * verifier inlines to a load). A machine that never had an RDMA user, the one a guard protects,
 * pays no lookup on any write(). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} rdma_seen __weak SEC(".maps");

/* Syscall entry -> exit, per thread. */
#define PK_IOCTL 1
#define PK_WRITE 2
#define PK_MEM	 3
#define PK_OPEN	 4
#define PK_BPF	 5
#define PK_WRITEV 6
#define PK__MAX	 7

struct pending {
	__u32 kind;
	__s32 fd;
	__u64 a0;
	__u64 a1;
	__u32 node;
	__u32 rdev;
	__u32 op; /* PK_MEM: the operation; PK_IOCTL/PK_WRITE: enforcement's verdict at entry */
	__u32 pad;
	__u64 file; /* PK_IOCTL/PK_WRITE/PK_WRITEV: the struct file, for enforcement's mark */
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, struct pending);
} pending __weak SEC(".maps");

/* How many entries of each kind are pending: exits of unrelated syscalls check this array
 * (inlined by the verifier to a load) and skip the hash lookup while it is 0. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, PK__MAX);
	__type(key, __u32);
	__type(value, __u64);
} pending_count __weak SEC(".maps");

/* post_send/post_recv aggregation per (tgid, fd, cmd). */
struct post_key {
	__u32 tgid;
	__s32 fd;
	__u32 cmd;
	__u32 pad;
};

struct post_val {
	__u64 calls;
	__u64 last_emit_ns;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, struct post_key);
	__type(value, struct post_val);
} posts __weak SEC(".maps");

#endif /* !RG_ENFORCE_OBJECT */

#define RG_NAME_MAX 64

struct rg_scratch {
	char path[2 * RG_REC_PATH];
	char name[RG_NAME_MAX];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct rg_scratch);
} scratch __weak SEC(".maps");

#ifndef RG_ENFORCE_OBJECT
/*
 * The reader's wake-up policy, slot 0 (agent/sensors/ringwake.c): 1 while the agent drains this
 * ring on a timer, during a burst of records, and a record then wakes nobody; 0, the kernel's
 * default: a record that finds the reader caught up wakes it. That wake-up is an irq_work on the
 * submitting CPU (a self-IPI) and the reader's wake-up, both inside the program, so inside the
 * verbs call it reports: microseconds a record, most of a record's cost when records come one
 * at a time. The slot is read after the record was reserved: the agent relies on that order when
 * it goes back to wake-ups (ringwake.c).
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} rb_poll __weak SEC(".maps");
#endif /* !RG_ENFORCE_OBJECT */

#if !defined(RG_ENFORCE_OBJECT) && !defined(RG_SENSORS_MOD_OBJECT)
/* RoCE v2 and iWARP packets and bytes per flow (roce.bpf.c): the agent reports the deltas. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, struct rg_flow_key);
	__type(value, struct rg_flow_val);
} roce_flows __weak SEC(".maps");

/* The budget of low-value records, per process (events.h: struct rg_budget). */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, struct rg_budget);
} budget __weak SEC(".maps");

/* Files of interest reported at their open (security_file_open) outside an open syscall, with
 * no fd yet (io_uring, open_by_handle_at()): their fd_install(), if one comes, is not reported
 * again. Keyed by the struct file; taken by the first fd_install() of that file. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 1024);
	__type(key, __u64);
	__type(value, __u32);
} opened_files __weak SEC(".maps");

/* The TCP ports iWARP uses, learnt by the agent from rdma_cm's addresses. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 256);
	__type(key, __u16); /* host order */
	__type(value, __u8);
} iwarp_ports __weak SEC(".maps");

/* The policy's fleet, seats and servers (events.h): a RoCE/iWARP peer outside it is dropped
 * while tc_cfg says so. 8192: the policy's 4096 seats and 4096 servers. */
struct {
	__uint(type, BPF_MAP_TYPE_LPM_TRIE);
	__uint(max_entries, 8192);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct rg_fleet_key);
	__type(value, __u32);
} fleet_nets __weak SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct rg_tc_cfg);
} tc_cfg __weak SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, RG_TC_DROP__MAX);
	__type(key, __u32);
	__type(value, __u64);
} tc_drops __weak SEC(".maps");

/* The agent's own maps and links (self.bpf.c): a bpf() command by another process that changes
 * one is reported. Filled by the agent after load. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 256);
	__type(key, struct rg_self_key);
	__type(value, __u32);
} self_objs __weak SEC(".maps");
#endif /* !RG_ENFORCE_OBJECT && !RG_SENSORS_MOD_OBJECT */

#ifdef RG_SENSORS_MOD_OBJECT
/*
 * The last fd each thread's commands were remembered for (remember_fd(): two LRU hash lookups
 * and a probe read, a fifth of a verbs command's cost in the -icount runs of bench/results/): a
 * command on the same fd and file skips it. Task storage, in this object only (the fentry kernels have it; the
 * main object loads on kernels that may not): a thread's entry goes with the thread. A stale
 * entry (rdma_fds' entry evicted or deleted meanwhile) costs no event: the syscall-level
 * lookup_rdma_fd() relearns an fd of a process in rdma_procs.
 */
struct rg_fd_cache {
	__u64 file, inode;
	__s32 fd;
	__u32 rdev;
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct rg_fd_cache);
} fd_cache __weak SEC(".maps");
#endif /* RG_SENSORS_MOD_OBJECT */
