/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Enforcement (docs/enforcement.md): the maps the daemon fills from the policy and the BPF programs decide
 * from, in the kernel. Shared by bpf/enforce.bpf.c (the pinned enforcement object), the sensors
 * (which read the same maps so that they do not report twice what enforcement reports) and the
 * agent (agent/enforce/). Plain __u32/__u64 fields, explicit padding; sizes pinned with
 * _Static_assert in agent/enforce/enforce.c.
 *
 * One policy generation is one hash map (keys: the config, allowlisted executables, game files)
 * that the daemon builds whole and then swaps into the one slot of enf_policy (an array of maps):
 * the programs see the old generation or the new one, never a mixture.
 */
#pragma once

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

#define RG_ENF_ABI	     2 /* bumped when a map layout changes: pins of another ABI are replaced */
#define RG_ENF_POLICY_MAX    4096 /* entries of one generation: 1 config, allow exes, game files */
#define RG_ENF_GAME_PIDS_MAX 8192
#define RG_ENF_VARIANTS	     8 /* allow entries (or their splits) per executable */
#define RG_ENF_UIDS	     8
#define RG_ENF_RDEVS	     8

/* rg_enf_key.kind */
#define RG_ENF_KEY_CONFIG 1 /* ino 0, dev 0 */
#define RG_ENF_KEY_ALLOW  2 /* an allowlisted executable */
#define RG_ENF_KEY_GAME	  3 /* a file a policy game runs from */

struct rg_enf_key {
	__u64 ino;
	__u32 dev; /* kernel dev_t encoding: major << 20 | minor (inode->i_sb->s_dev) */
	__u32 kind;
};

/*
 * Operations, as bits of rg_enf_variant.ops. A verbs or rdma_cm command that is not one of the
 * named ones needs RG_ENF_OP_VERBS / RG_ENF_OP_CM; a command that cannot be decoded needs every
 * bit of its kind.
 */
#define RG_ENF_OP_OPEN		0x0001u /* device_open of any /dev/infiniband node; umad I/O */
#define RG_ENF_OP_VERBS		0x0002u /* a verbs command not named below; mmap of a uverbs fd */
#define RG_ENF_OP_REG_MR	0x0004u
#define RG_ENF_OP_REREG_MR	0x0008u
#define RG_ENF_OP_REG_DMABUF_MR 0x0010u
#define RG_ENF_OP_CREATE_QP	0x0020u
#define RG_ENF_OP_OPEN_QP	0x0040u
#define RG_ENF_OP_CM		0x0080u /* an rdma_cm command not named below */
#define RG_ENF_OP_CM_CONNECT	0x0100u
#define RG_ENF_OP_CM_LISTEN	0x0200u
#define RG_ENF_OP_CM_ACCEPT	0x0400u
#define RG_ENF_OP_LIBRARY	0x0800u /* executable mapping of an RDMA library (library_load) */
#define RG_ENF_OP_MODULE	0x1000u /* loading rdma_rxe/siw (module_load) */
#define RG_ENF_OP_LINK		0x2000u /* creating a software RDMA link (device_add) */
#define RG_ENF_OP_ALL_VERBS                                                                        \
	(RG_ENF_OP_VERBS | RG_ENF_OP_REG_MR | RG_ENF_OP_REREG_MR | RG_ENF_OP_REG_DMABUF_MR |       \
	 RG_ENF_OP_CREATE_QP | RG_ENF_OP_OPEN_QP)
#define RG_ENF_OP_ALL_CM                                                                           \
	(RG_ENF_OP_CM | RG_ENF_OP_CM_CONNECT | RG_ENF_OP_CM_LISTEN | RG_ENF_OP_CM_ACCEPT)
#define RG_ENF_OP_ALL 0x3fffu

/* rg_enf_variant.flags: RG_ENF_VF_CTIME, the file's ctime must still be ctime_sec/nsec (its
 * hash was checked) */
#define RG_ENF_VF_CTIME 0x1u

/* One way an executable is allowed: an allow entry of the policy, or a part of one. */
struct rg_enf_variant {
	__u64 expires_ns; /* CLOCK_BOOTTIME; 0: never */
	__u64 parent_ino; /* 0: any parent; else the parent's executable must be this file */
	__u32 parent_dev;
	__u32 ops;     /* RG_ENF_OP_* */
	__u32 n_uids;  /* 0: any real uid */
	__u32 n_rdevs; /* 0: any device; else the node's (or the fd's) rdev must be listed */
	__u32 uids[RG_ENF_UIDS];
	__u32 rdevs[RG_ENF_RDEVS]; /* kernel dev_t encoding */
	__u64 ctime_sec;	   /* RG_ENF_VF_CTIME */
	__u32 ctime_nsec;
	__u32 flags; /* RG_ENF_VF_* */
};

/* rg_enf_config.scope */
#define RG_ENF_SCOPE_ALWAYS	0
#define RG_ENF_SCOPE_WHILE_GAME 1

/*
 * rg_enf_config.kill: rule actions `kill` armed in the kernel (the rule whose action arms each,
 * and what its condition says, is in agent/enforce/enforce_policy.c).
 */
#define RG_ENF_KILL_OPEN      0x01u /* RDMA-004: a uverbs node opened by a process not allowed */
#define RG_ENF_KILL_MR	      0x02u /* RDMA-005: an MR with remote access, not allowed */
#define RG_ENF_KILL_CONNECT   0x04u /* RDMA-009: QP to RTR/RTS, rdma_cm connect/accept */
#define RG_ENF_KILL_GAME_ANY  0x08u /* RDMA-006: any RDMA use while a game runs, not allowed */
#define RG_ENF_KILL_GAME_SELF 0x10u /* RDMA-007: the game process itself uses RDMA */

struct rg_enf_config {
	__u32 abi;	    /* RG_ENF_ABI */
	__u32 enforce;	    /* 0: the programs do nothing */
	__u32 scope;	    /* RG_ENF_SCOPE_* */
	__u32 lsm;	    /* 1: the LSM programs deny (BPF LSM active); 0: only kills */
	__u32 kill;	    /* RG_ENF_KILL_* */
	__u32 role;	    /* 0 managed, 1 server (enum rg_role) */
	__u32 rdma_cm_rdev; /* /dev/infiniband/rdma_cm (misc major, dynamic minor); 0: unknown */
	__u32 generation;   /* counts the daemon's fills, for `rdmaguard enforce status` */
};

struct rg_enf_val {
	__u32 n;    /* ALLOW: variants used */
	__u32 game; /* GAME: index of the game in the policy */
	union {
		struct rg_enf_variant v[RG_ENF_VARIANTS]; /* ALLOW */
		struct rg_enf_config cfg;		  /* CONFIG */
	};
};

/*
 * enf_state (array): what persists across fills and daemon restarts. Entry RG_ENF_STATE_DAEMON is
 * written by the daemon only, entry RG_ENF_STATE_KERNEL by the programs only (game_live), so
 * that neither overwrites what the other counts.
 */
#define RG_ENF_STATE_DAEMON 0
#define RG_ENF_STATE_KERNEL 1

struct rg_enf_state {
	__u32 game_live;   /* KERNEL: game processes the kernel saw start (exec of a game, forks) */
	__u32 game_daemon; /* DAEMON: 1 when the daemon's engine says a game session runs */
	__u32 daemon_tgid; /* the daemon (exempt: its inventory opens devices), with its start */
	__u32 abi;	   /* RG_ENF_ABI of the daemon that wrote it */
	__u64 daemon_start_ns; /* task start_boottime, ns */
};

/* enf_game_pids values */
#define RG_ENF_GAME_KERNEL 1 /* the kernel added it (exec of a game file, fork): counted */
#define RG_ENF_GAME_DAEMON 2 /* the daemon added it (a game matched by hash or seeded) */

/*
 * enf_acted (LRU hash, thread id -> mark): enforcement acted on an operation of this thread and
 * reported it. Set by the enforcement program that kills; taken by the sensor that would report
 * the same operation, which then leaves its own record out. A record is left out only on such a
 * mark (or where enforcement's program runs on that very system call: bpf/enforce.bpf.h,
 * enf_acted_take()), never on a verdict alone: an fd received over SCM_RIGHTS, from dup() or
 * pidfd_getfd(), io_uring and 32-bit calls reach the driver past the kill programs.
 */
#define RG_ENF_ACTED_MAX 4096

#define RG_ENF_MARK_OPEN 1 /* an RDMA node opened: the struct file */
#define RG_ENF_MARK_CMD	 2 /* a verbs or rdma_cm command (ioctl, write, writev) on a file */

struct rg_enf_mark {
	__u64 file;	/* struct file * the operation was on */
	__u64 start_ns; /* the thread's start time (a thread id reused is not the same thread) */
	__u32 kind;	/* RG_ENF_MARK_* */
	__u32 pad;
};
