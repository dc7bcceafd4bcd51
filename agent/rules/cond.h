/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The condition language of rules (docs/rules-and-policy.md documents it for users).
 *
 *   expr     := or
 *   or       := and ("or" and)*
 *   and      := unary ("and" unary)*
 *   unary    := "not" unary | primary
 *   primary  := "(" expr ")" | "true" | "false"
 *             | FIELD                                   truthy: bool true, number != 0, text not ""
 *             | FIELD ("=="|"!="|"<"|"<="|">"|">=") (VALUE | FIELD)
 *             | FIELD ["not"] "in" "(" VALUE ("," VALUE)* ")"
 *             | FIELD ("contains"|"glob"|"startswith"|"endswith") VALUE
 *             | ("lineage"|"ancestor"|"parent") "(" expr ")"   process.* fields of the process
 *                                          and/or its ancestors (only process.* fields inside)
 *             | "within" "(" FIELD "," DURATION ")"      |event time - FIELD| <= DURATION
 *   VALUE    := 'text' | "text" | word | NUMBER | true | false
 *   NUMBER   := decimal or 0x hex, optional size suffix KiB MiB GiB TiB; may start with '-'
 *   DURATION := NUMBER with ms, s, m, h or d
 *
 * FIELD is an event field by its JSON name (event_json.h's table) or a field the engine derives
 * (process.executable, process.ancestors, game.running, process.allowed, ...; see cond_fields.c).
 * A comparison on a field the event does not have is false (so is `!=`), whatever the value.
 *
 * Compiled once to a flat node array; evaluation walks it without allocating. The language knows
 * nothing of the engine: what it reads besides the event (the process tree, the game session,
 * the policy's role, the allowlist) comes in struct cond_ctx, which the engine fills.
 *
 * Files: cond_lex.c (tokens, numbers), cond_parse.c (the compiler), cond_eval.c (evaluation),
 * cond_fields.c (field names, their values, formatting and hashing), cond-internal.h (shared).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "event/event.h"

struct cond;
struct field_ref;
struct proc_node;
struct proctree;

#define COND_MAX_NODES	512
#define COND_MAX_TEXT	8192
#define COND_MAX_DEPTH	32
#define COND_LIST_MAX	64 /* list values (args, ancestors) are cut at this many items */

/* One game of the policy: a session runs while at least one of its processes lives. */
struct game_session {
	int32_t game;	 /* policy index */
	const char *name; /* the policy's name of the game (game.name); NULL if none */
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

/*
 * What conditions read besides the event and the processes, set once by the engine (at creation
 * and on reload): the policy.* fields, the clock of process.start_time, and process.allowed.
 */
struct cond_env {
	const char *role;	   /* policy.role: "managed" or "server" */
	uint64_t mr_max_bytes;	   /* policy.mr_max_bytes */
	bool require_iommu;	   /* policy.require_iommu */
	uint64_t boot_realtime_ns; /* wall clock at boot; 0: unknown */
	/* Whether the allowlist allows process n for event ev. NULL: it allows nothing. */
	bool (*proc_allowed)(void *ud, struct proc_node *n, const struct rg_event *ev);
	/* pci.allowed: whether the hardware allowlist allows fn at time ts. NULL: nothing. */
	bool (*pci_allowed)(void *ud, const struct rg_ev_pci *fn, uint64_t ts);
	void *ud;
};

/* What a condition is evaluated against. Filled by the engine per event; no allocation. */
struct cond_ctx {
	const struct rg_event *ev;
	const struct cond_env *env; /* NULL: no policy.* fields, nothing allowed */
	struct proctree *tree;
	struct proc_node *proc;	  /* the acting process, NULL if none */
	struct proc_node *target; /* memory_access: the target process, NULL if unknown */
	struct proc_node *cur;	  /* what process.* fields read (lineage() moves it) */
	const struct game_session *game; /* the game relevant to this event, NULL if none */
	bool game_running;		 /* any game session runs */
	uint64_t game_ended_ns;		 /* the last end of any session, 0 if none */
	int8_t allowed;			 /* process.allowed of proc: -1 not computed yet */
};

/*
 * Compiles text (len bytes). On error returns -EINVAL, with the byte offset of the problem in
 * *err_off and the message in errbuf; -ENOMEM on allocation failure.
 */
int cond_compile(const char *text, size_t len, struct cond **ret, size_t *err_off, char *errbuf,
		 size_t errlen);
void cond_free(struct cond *c);
bool cond_eval(const struct cond *c, struct cond_ctx *ctx);
/* Bit t set: the condition can be true for events of type t (bit 0: none). */
uint64_t cond_type_mask(const struct cond *c);
const char *cond_text(const struct cond *c);

/*
 * A named field, for message templates and aggregation keys. Same names as in conditions.
 * -EINVAL (unknown field) with a message in errbuf.
 */
int field_ref_new(const char *name, struct field_ref **ret, char *errbuf, size_t errlen);
void field_ref_free(struct field_ref *f);
const char *field_ref_name(const struct field_ref *f);
/* Writes the field's value as text; returns false (and writes "?") if the event lacks it. */
bool field_ref_format(const struct field_ref *f, struct cond_ctx *ctx, char *buf, size_t size);
/* Mixes the field's value (or its absence) into a 64-bit FNV-1a hash. */
uint64_t field_ref_hash(const struct field_ref *f, struct cond_ctx *ctx, uint64_t h);

/* Names of the fields the engine derives (i = 0, 1, ... until NULL), for docs and tests. */
const char *cond_derived_field(size_t i);

/*
 * process.start_time of n: boot_realtime_ns (the wall clock at boot, 0 if unknown) plus its start
 * since boot, else the time of its fork; 0 if neither is known.
 */
uint64_t cond_proc_start_time(uint64_t boot_realtime_ns, const struct proc_node *n);
