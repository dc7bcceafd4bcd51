/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Shared between the engine's own files (cond.c, engine.c, alert.c): not a public interface. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "event/event.h"
#include "proctree/proctree.h"

struct rg_policy;
struct rg_engine;

/* One game of the policy: a session runs while at least one of its processes lives. */
struct game_session {
	int32_t game;	 /* policy index */
	uint32_t live;	 /* live processes counted in it */
	uint32_t pid;	 /* the first process of the running (or last) session */
	uint64_t start_boot_ns;
	uint32_t uid;
	uint32_t sid;
	uint64_t started_ns; /* wall clock; the process start time when known */
	uint64_t ended_ns;   /* 0 while running */
	uint64_t rdma_events; /* RDMA events of other processes during the session */
	bool running;
	bool ever;	      /* a session has been seen */
};

/* What a condition is evaluated against. Filled by the engine per event; no allocation. */
struct cond_ctx {
	const struct rg_event *ev;
	const struct rg_policy *policy;
	struct rg_engine *engine;
	struct proctree *tree;
	struct proc_node *proc;	  /* the acting process, NULL if none */
	struct proc_node *target; /* memory_access: the target process, NULL if unknown */
	struct proc_node *cur;	  /* what process.* fields read (lineage() moves it) */
	const struct game_session *game; /* the game relevant to this event, NULL if none */
	bool game_running;		 /* any game session runs */
	uint64_t game_ended_ns;		 /* the last end of any session, 0 if none */
	int8_t allowed;			 /* process.allowed of proc: -1 not computed yet */
};

/* Implemented in engine.c for cond.c. */
bool engine_proc_allowed(struct cond_ctx *ctx, struct proc_node *n);
/* Wall-clock start time of a process, 0 if not known. */
uint64_t engine_proc_start_time(const struct cond_ctx *ctx, const struct proc_node *n);
