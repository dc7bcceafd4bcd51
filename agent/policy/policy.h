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
#include "common/globfiles.h"
#include "common/severity.h"
#include "config/jsondoc.h"
#include "policy_hw.h"

struct cond;

enum rg_role {
	RG_ROLE_MANAGED = 0, /* a managed desktop: RDMA is unexpected */
	RG_ROLE_SERVER,	     /* RDMA is legitimate here; only game-related rules matter */
};

/* What hardware enforcement does to a PCI function the policy does not allow (docs/hardware-runtime.md):
 * "hardware_enforce", acted on only while enforcement is on. */
/* "hardware_enforce_port": where hardware enforcement stops a card, also stop the port above it
 * (hw/hw_enforce.h: only a root or downstream port with nothing else below it). */
enum rg_hw_enforce_port {
	RG_HW_PORT_OFF = 0,	/* the card only (default) */
	RG_HW_PORT_BUS_MASTER,	/* clear the port's bus-master bit */
	RG_HW_PORT_LINK,	/* disable the port's link (Link Control, Link Disable) */
};

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
#define POLICY_MAX_FILES     1024 /* files one allow pattern resolves to; more are not allowed */
#define POLICY_DEFAULT_MR_MAX (1ull << 30)
#define POLICY_DEFAULT_WINDOW_NS (60ull * 1000000000ull)

struct rg_policy_game {
	char *name;
	char **exe; /* glob patterns, '*' matches '/' */
	size_t n_exe;
	char (*sha256)[65];
	size_t n_sha256;
	/* policy_resolve_inodes(): the executable files the exe patterns name now, as enforcement
	 * finds them; a process running one is the game whatever path, root or namespace it shows */
	struct glob_files files;
};

struct rg_policy_allow {
	char *exe;	    /* glob pattern (FNM_PATHNAME) */
	bool exe_literal;   /* no glob characters */
	/* policy_resolve_inodes(): the process's exe must be one of exe_files (and its parent's
	 * one of parent_files, with a parent) */
	bool pinned;
	bool pin_failed;    /* exe (or parent) names no file now: the entry allows nothing */
	struct glob_files exe_files, parent_files;
	char sha256[65];    /* "" if none */
	uint32_t *uids;
	size_t n_uids;
	char *parent;	    /* glob pattern (FNM_PATHNAME) of the parent's exe, NULL if none */
	char **devices;	    /* RDMA device names, none: any */
	size_t n_devices;
	bool has_ops;	    /* restricted to operations: */
	uint64_t op_types;  /* bit per event type (event.action) */
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

#define POLICY_MAX_FLEET 4096 /* entries of fleet.seats, of fleet.servers */
#define POLICY_SEAT_MAX	 64   /* characters of "seat" and of a server's name */

/* What a peer address is to the fleet the policy describes (docs/seat.md). */
enum rg_peer_class {
	RG_PEER_NONE = 0, /* no fleet in the policy, or no peer address */
	RG_PEER_SEAT,
	RG_PEER_SERVER,
	RG_PEER_UNKNOWN, /* neither: an unmanaged device */
	RG_PEER__MAX,
};

/* An address range of the fleet: IPv4 as IPv4-mapped IPv6 (prefix + 96), as rg_addr keeps it. */
struct rg_fleet_net {
	uint8_t addr[16];
	uint8_t prefix;
	char *name; /* servers: the operator's name for it, or NULL */
};

/*
 * "metrics": how the daemon's /metrics endpoint (--metrics) may be reached from elsewhere than
 * loopback (docs/metrics.md): TLS with a bearer token, or the explicit opt-out; and which
 * addresses may connect at all. Read at start; a reload keeps the endpoint as it started.
 */
struct rg_policy_metrics {
	char *cert, *key;     /* "cert", "key": PEM files, both or neither: HTTPS */
	char *token_file;     /* "token_file": the bearer token, a root-only file */
	struct rg_fleet_net *scrapers; /* "scrapers": only these addresses may connect; none: any */
	size_t n_scrapers;
	bool plaintext_lan;   /* "plaintext_lan": true: the opt-out, plain HTTP off loopback */
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
	int hw_enforce_port; /* enum rg_hw_enforce_port: what is also done to the port above */
	bool require_iommu;  /* "require_iommu": a managed seat without a translating IOMMU alerts */
	struct rg_policy_hw *hardware; /* policy_hw.h: the hardware allowlist */
	size_t n_hardware;
	char *baseline;		/* the seat baseline file (agent/hw/baseline.h), NULL none */
	struct rg_policy_pos baseline_pos;
	/* "hardware_refuse_drivers": PCI drivers refused to functions new during a game; none: off */
	char **refuse_drivers;
	size_t n_refuse_drivers;
	char **outputs;	   /* output specs for the daemon, as written: policy_check_outputs() */
	struct rg_policy_pos *outputs_pos; /* where each is */
	size_t n_outputs;
	/* The fleet (policy_fleet.c). */
	char sha256[65];   /* of the policy file's bytes; "" for the built-in default */
	char *seat;	   /* the operator's label, labels.seat; NULL if none */
	bool has_fleet;	   /* "fleet" is present: peers are classified */
	struct rg_fleet_net *fleet_seats, *fleet_servers;
	size_t n_fleet_seats, n_fleet_servers;
	struct rg_policy_metrics metrics;
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
 * Pins every allow entry to the files its exe pattern (and its parent pattern) names now, below
 * root (NULL for "/"): their (inode, device), at most POLICY_MAX_FILES each, found as
 * enforcement finds them (common/globfiles.h). A process then matches only while it runs one of
 * those very files: a copy elsewhere, a file at a matching path in a chroot, another mount
 * namespace or a later-created file is not allowed (until a reload finds it). An entry whose exe
 * or parent names no regular file now cannot be verified and allows nothing (pin_failed).
 * Without this call (replay, audit --root) entries match by path. Also pins every game to the
 * executable files its exe patterns name now (games[].files), exactly as enforcement's game table
 * is built: a process running one of them is the game, whatever path, root or mount namespace it
 * shows; a game's patterns still match trusted paths besides. Returns the number of allow
 * entries pinned.
 */
int policy_resolve_inodes(struct rg_policy *p, const char *root);

/* policy_fleet.c: the "seat" and "fleet" keys and the sha256 of doc's text into p. */
/* policy_keys.c: every top-level key of doc into p (defaults set). 0 or the error. */
int policy_keys_parse(const struct jdoc *doc, struct rg_policy *p, struct rg_error *err);
int policy_parse_fleet(const struct jdoc *doc, struct json_object *root, struct rg_policy *p,
		       struct rg_error *err);
void policy_fleet_done(struct rg_policy *p);
/* Whether addr (IPv4 as IPv4-mapped IPv6) is in one of the n ranges of v. */
bool fleet_nets_match(const struct rg_fleet_net *v, size_t n, const uint8_t addr[16]);
/* "10.0.0.0/24", "10.0.0.7", "fd00::/64". -EINVAL, or -EDOM for host bits beyond the prefix. */
int fleet_parse_cidr(const char *s, struct rg_fleet_net *n);
/* The class (enum rg_peer_class) of a peer address (16 bytes, IPv4-mapped for IPv4); *name
 * (may be NULL) gets a server's name. RG_PEER_NONE without a fleet or for the zero address. */
int policy_fleet_classify(const struct rg_policy *p, const uint8_t addr[16], const char **name);
const char *peer_class_to_string(unsigned c); /* "seat", "server", "unknown"; NULL for NONE */

/* Matching helpers (exe may be ""). */
bool policy_game_exe_match(const struct rg_policy_game *g, const char *exe);
bool policy_game_sha_match(const struct rg_policy_game *g, const char *sha256);
bool policy_games_need_hash(const struct rg_policy *p);
/* Whether an operation name is valid in "operations" (event action, verbs op or rdma_cm op). */
bool policy_operation_valid(const char *name);
