/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The userspace process tree, fed only by events: PROCESS_PRESENT (seeded from /proc by the
 * inventory), FORK, EXEC and EXIT. Any other event that names a process creates a stub entry for it
 * if the tree has none, so that state (RDMA use, game membership) can hang off it.
 *
 * A process is keyed by (pid, start_boot_ns), so a reused pid is a new entry and the old one is
 * marked exited. Entries live in one array allocated up front (capacity fixed at creation, default
 * PROCTREE_DEFAULT_CAPACITY): when it is full the oldest exited entry is recycled; only if none
 * is exited, the oldest live entry that neither used RDMA nor runs a game (PROC_F_HAS_RDMA,
 * PROC_F_GAME: state no event repeats), and only if every live entry is one of those, the oldest
 * of them. Every live eviction is counted (evicted_live; evicted_kept for the RDMA and game ones)
 * for the owner to report as lost state. Nothing on the update path allocates. Parents are found by key, not by pointer, so an evicted parent just ends the chain.
 *
 * Memory: an entry is 160 bytes; its exe, args and sha256 are interned strings (one copy for all
 * the entries with the same exe, argv or hash), kept in pools allocated with the table: 2 x
 * capacity slots of 272 bytes (exe, args) and capacity slots of 88 bytes (sha256). All is reserved
 * up front (capacity x ~800 bytes: 6.3 MiB at the default) but pages are touched only as entries
 * and distinct strings are used: ~1.3 MiB for a full tree of processes that share a few images,
 * 6.3 MiB at most whatever the load.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/prockey.h"
#include "event/event.h"

#define PROCTREE_DEFAULT_CAPACITY 8192
#define PROCTREE_MAX_CAPACITY	  (1u << 20)
#define PROCTREE_MAX_DEPTH	  32 /* ancestors walked at most */

enum {
	PROC_F_EXITED = 1u << 0,
	PROC_F_EXEC_KNOWN =
	    1u << 1, /* exe/args known: EXEC, PROCESS_PRESENT, or inherited at FORK */
	PROC_F_FROM_EXEC = 1u << 2, /* exe/args come from an EXEC event (newer than any seed) */
	PROC_F_SEEDED = 1u << 3,    /* first seen in a PROCESS_PRESENT event */
	PROC_F_HAS_RDMA =
	    1u << 4,		 /* opened an RDMA device, issued verbs/rdma_cm, loaded a library */
	PROC_F_GAME = 1u << 5,	 /* runs a game of the policy (see game) */
	PROC_F_HASHED = 1u << 6, /* sha256 was computed (empty string: could not be) */
	PROC_F_RDMA_IN_GAME = 1u << 7, /* had RDMA activity while a game session ran */
	PROC_F_GAME_COUNTED = 1u << 8, /* the engine counts it in its game's session */
	PROC_F_EXE_STATTED = 1u << 9,  /* the engine looked up exe_ino/exe_dev itself */
	PROC_F_GAME_PUSHED = 1u << 10, /* enforcement gave its pid to the kernel's games */
	/* exe is a truncated tail (RG_EXE_TRUNC), or seen from another root or mount namespace
	 * than init's (RG_EXE_FOREIGN): a path the user shapes, matched by no pattern; alerts say
	 * which (process.exe_truncated, process.exe_foreign_root) */
	PROC_F_EXE_TRUNC = 1u << 11,
	PROC_F_HASH_PENDING = 1u << 12, /* its sha256 is being computed (engine/hasher.h) */
	PROC_F_EXE_FOREIGN = 1u << 13,
	PROC_F_GAME_SENSORS = 1u << 14, /* its pid is in the sensors' own game map (detect-only) */
	PROC_F_EXE_UNTRUSTED = PROC_F_EXE_TRUNC | PROC_F_EXE_FOREIGN,
};

struct proc_node {
	uint32_t pid;
	uint32_t ppid;
	uint32_t uid;
	uint32_t sid;
	uint64_t start_boot_ns; /* 0: not known (stub from an event without it) */
	uint64_t parent_start_boot_ns;
	uint64_t exe_ino;
	uint64_t exe_dev;
	uint64_t first_seen_ns; /* wall clock of the first event that named it */
	uint64_t fork_ns;	/* wall clock of its FORK event, 0 if not seen */
	uint64_t exec_ns;	/* wall clock of its last EXEC event, 0 if not seen */
	uint64_t exit_ns;	/* wall clock of its exit, 0 while live */
	uint64_t rdma_first_ns; /* first RDMA activity, 0 if none */
	uint32_t flags;		/* PROC_F_* */
	int32_t game;		/* index of the policy game it runs, -1 if none */
	uint32_t args_len;
	char comm[RG_COMM_LEN];
	/* Interned (shared, read-only, owned by the tree), never NULL: "" while unknown. */
	const char *exe;	/* NUL-terminated, < RG_PATH_LEN bytes */
	const char *args;	/* NUL-separated argv, args_len bytes (<= RG_ARGS_LEN) */
	const char *sha256;	/* 64 hex digits with PROC_F_HASHED, else "" (proctree_set_sha256) */

	/* Private to proctree.c. */
	int32_t hnext;
	int32_t lprev, lnext;
	uint8_t in_use;
};

struct proctree_stats {
	size_t capacity;
	size_t live;
	size_t exited;
	uint64_t created;
	uint64_t evicted_exited; /* recycled exited entries */
	uint64_t evicted_live;	 /* live entries dropped because the tree was full */
	uint64_t evicted_kept;	 /* of those, entries that used RDMA or ran a game */
	uint64_t pid_reused;	 /* a new (pid, start) replaced a live entry with that pid */
};

struct proctree;

/*
 * Called when a live entry stops being live: its EXIT, a new process with the same pid, or (evicted
 * = true) eviction from a full tree. The node is still readable during the call.
 */
typedef void (*proctree_exit_fn)(struct proc_node *n, bool evicted, void *ud);

int proctree_new(size_t capacity, struct proctree **ret); /* 0: default capacity */
void proctree_free(struct proctree *t);
void proctree_set_exit_hook(struct proctree *t, proctree_exit_fn fn, void *ud);

/*
 * Applies an event: lifecycle events change the tree; every other event that names a process
 * (pid != 0) gets an entry (a stub if the process was unknown). Returns the acting process's entry,
 * or NULL when the event names none. For FORK it is the child. Never allocates.
 */
struct proc_node *proctree_update(struct proctree *t, const struct rg_event *ev);

/*
 * The entry for key. start_boot_ns 0 means "not known": the live entry with that pid, else the most recently exited one. NULL if none.
 */
struct proc_node *proctree_find(const struct proctree *t, struct proc_key key);
/* The parent's entry, NULL if unknown or evicted. */
struct proc_node *proctree_parent(const struct proctree *t, const struct proc_node *n);
/* Fills out[] with the parent, grandparent, ... (at most max, at most PROCTREE_MAX_DEPTH). */
size_t proctree_ancestors(const struct proctree *t, const struct proc_node *n,
			  struct proc_node **out, size_t max);

/* Calls fn for every live entry (oldest first, but RDMA and game entries a full tree kept). */
void proctree_foreach_live(struct proctree *t, void (*fn)(struct proc_node *n, void *ud), void *ud);
void proctree_get_stats(const struct proctree *t, struct proctree_stats *ret);
/* Sets n->sha256 to (an interned copy of) the hex digest, "" for none. Never allocates. */
void proctree_set_sha256(struct proctree *t, struct proc_node *n, const char *hex);

static inline bool proc_node_live(const struct proc_node *n)
{
	return !(n->flags & PROC_F_EXITED);
}
