/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Policy files: the games, the machine's role, the allowlist, the severity threshold, per-rule
 * overrides and enforcement settings. JSON with comments; every key is documented in docs/rules-and-policy.md
 * ("Rules, policies and alerts"); unknown keys are errors, so a typo never disables protection.
 *
 * Matching rules (why they differ): a game pattern's '*' also matches '/' (a pattern names a whole
 * install tree; wider means more protection); an allow pattern's '*' stops at '/' (wider would mean
 * less protection). A game matches by exe pattern OR sha256; an allow entry needs ALL it names.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/action.h"
#include "common/severity.h"
#include "jsondoc.h"
#include "policy_hw.h"

struct cond;

enum rg_role {
	RG_ROLE_MANAGED = 0, /* a managed desktop: RDMA is unexpected */
	RG_ROLE_SERVER,	     /* RDMA is legitimate here; only game-related rules matter */
};

/* What hardware enforcement does to a PCI function the policy does not allow (docs/hardware-runtime.md):
 * "hardware_enforce", acted on only while enforcement is on. */
enum rg_hw_enforce {
	RG_HW_ENFORCE_OFF = 0,	  /* report only (default) */
	RG_HW_ENFORCE_REMOVE,	  /* remove it from the bus (sysfs remove) */
	RG_HW_ENFORCE_BUS_MASTER, /* clear its bus-master bit */
};

enum rg_enforce_scope {
	RG_ENFORCE_ALWAYS = 0,	 /* deny non-allowlisted RDMA at any time */
	RG_ENFORCE_WHILE_GAME, /* only while a game session runs */
};

#define POLICY_MAX_GAMES     64
#define POLICY_MAX_ALLOW     1024
#define POLICY_MAX_LIST	     64 /* exe patterns, hashes, uids, devices, operations per entry */
#define POLICY_DEFAULT_MR_MAX (1ull << 30)
#define POLICY_DEFAULT_WINDOW_NS (60ull * 1000000000ull)

struct rg_policy_game {
	char *name;
	char **exe; /* glob patterns, '*' matches '/' */
	size_t n_exe;
	char (*sha256)[65];
	size_t n_sha256;
};

struct rg_policy_allow {
	char *exe;	    /* glob pattern (FNM_PATHNAME) */
	bool exe_literal;   /* no glob characters: policy_resolve_inodes() can pin it */
	bool pinned;	    /* ino/dev are set: the process's exe must be that very file */
	bool pin_failed;    /* literal, but the file could not be pinned: the entry allows nothing */
	uint64_t ino, dev;
	char sha256[65];    /* "" if none */
	uint32_t *uids;
	size_t n_uids;
	char *parent;	    /* glob pattern (FNM_PATHNAME) of the parent's exe, NULL if none */
	char **devices;	    /* RDMA device names, none: any */
	size_t n_devices;
	bool has_ops;	    /* restricted to operations: */
	uint32_t op_types;  /* bit per event type (event.action) */
	uint32_t op_verbs;  /* bit per enum rg_verbs_op */
	uint32_t op_cm;	    /* bit per enum rg_cm_op */
	uint64_t expires_ns; /* wall clock; 0: never */
	char *comment;
	unsigned line, column; /* where the entry starts, for messages */
};

struct rg_rule_override {
	char *rule_id;
	int enabled;  /* -1 unset, 0, 1 */
	int severity; /* -1 unset */
	int action;   /* -1 unset */
	struct cond **exceptions;
	size_t n_exceptions;
	unsigned line, column; /* of the rule id key */
};

/* Where a value is in the policy file, for messages (line 0: nowhere). */
struct rg_policy_pos {
	unsigned line, column;
};

struct rg_policy {
	char *path;		/* NULL for the built-in default */
	int role;		/* enum rg_role */
	int threshold;		/* enum rg_severity: audit/replay exit 1 at or above it */
	char *description;
	struct rg_policy_game *games;
	size_t n_games;
	struct rg_policy_allow *allow;
	size_t n_allow;
	struct rg_rule_override *overrides;
	size_t n_overrides;
	uint64_t mr_max_bytes;	     /* RDMA-010: an MR larger than this is oversized */
	uint64_t aggregate_window_ns; /* default window for repeats */
	bool enforce;
	int enforce_scope; /* enum rg_enforce_scope */
	int hw_enforce;	   /* enum rg_hw_enforce */
	struct rg_policy_hw *hardware; /* policy_hw.h: the hardware allowlist */
	size_t n_hardware;
	char *baseline;		/* the seat baseline file (agent/hw/baseline.h), NULL none */
	struct rg_policy_pos baseline_pos;
	char **outputs;	   /* output specs for the daemon, as written: policy_check_outputs() */
	struct rg_policy_pos *outputs_pos; /* where each is */
	size_t n_outputs;
};

/*
 * Loads and validates a policy file. check_owner: refuse a file not owned by root or writable by
 * group/other (-EPERM). Errors: -EINVAL with err set to file:line:column: message. The "outputs"
 * specs are the output module's language: policy_check_outputs() checks them.
 */
int policy_load(const char *path, bool check_owner, struct rg_policy **ret, struct rg_error *err);
/* Parses policy text (for tests and `policy check`); file names it in messages. */
int policy_parse(const char *file, const char *text, size_t len, struct rg_policy **ret,
		 struct rg_error *err);
/*
 * Checks one output spec as the output module would take it; on error writes why to msg (size
 * bytes) and returns -EINVAL, or -ENOMEM (no message).
 */
typedef int (*policy_output_check_fn)(const char *spec, char *msg, size_t size);
/*
 * Checks every "outputs" spec of p with check (the engine does not know the output module; its
 * user passes output_spec_check()). -EINVAL with err at the first bad spec's place in the policy
 * file and check's message; -ENOMEM.
 */
int policy_check_outputs(const struct rg_policy *p, policy_output_check_fn check,
			 struct rg_error *err);
/* The policy used when none is given: role managed, no games, empty allowlist, threshold medium. */
int policy_new_default(struct rg_policy **ret);
void policy_free(struct rg_policy *p);

/*
 * Pins allow entries with a literal exe path to that file's inode and device (stat below root, NULL
 * for "/"), so a copy elsewhere or a different file at that path in another mount namespace does
 * not inherit the allowance. A literal entry whose file does not exist (or is not a regular file)
 * cannot be verified and allows nothing until a reload finds it (pin_failed). Without this call
 * (replay, audit --root) literal entries match by path. Returns the number pinned.
 */
int policy_resolve_inodes(struct rg_policy *p, const char *root);

/* Matching helpers (exe may be ""). */
bool policy_game_exe_match(const struct rg_policy_game *g, const char *exe);
bool policy_game_sha_match(const struct rg_policy_game *g, const char *sha256);
bool policy_games_need_hash(const struct rg_policy *p);
/* Whether an operation name is valid in "operations" (event action, verbs op or rdma_cm op). */
bool policy_operation_valid(const char *name);
