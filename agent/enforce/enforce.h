/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Enforcement (docs/enforcement.md): the policy, turned into BPF maps, decided on in the kernel.
 *
 * The BPF programs (bpf/enforce.bpf.c) deny with BPF LSM where it is active and kill (rule actions
 * `kill`) on any kernel; they decide alone from the maps. This module
 *   - translates a policy into one map generation (enforce_tables_build(): allowlisted executables
 *     by inode and device, checked against their sha256 before they go in; game files; the
 *     config), pure and unit-tested;
 *   - loads and attaches the programs, and PINS maps, programs and links under the pin directory
 *     (default /sys/fs/bpf/rdmaguard), so that when the daemon dies the enforcement stays
 *     attached with the last policy;
 *   - takes over the pins a previous daemon left (its maps, with the game processes the kernel
 *     followed meanwhile, and the denials recorded meanwhile in its ring buffer), replacing its
 *     programs with this binary's: new links attach before the old ones go;
 *   - refills the maps atomically: a whole new generation is built, then swapped into the one slot
 *     the programs read, so no moment allows what either policy denies.
 * A clean stop does NOT unpin: only enforce_unpin() (`rdmaguard enforce --off`) lifts
 * enforcement.
 *
 * Threading: one thread (the daemon's loop).
 */
#pragma once

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "bpf/enforce_abi.h"
#include "engine/engine.h"
#include "policy/policy.h"
#include "sensors/sensors.h"

#define ENFORCE_PIN_DIR	     "/sys/fs/bpf/rdmaguard"
#define ENFORCE_RINGBUF	     (1u << 20) /* denials recorded while no daemon reads them */
#define ENFORCE_MAX_FILES    1024	/* files one glob of the policy may resolve to */

/* ---- the policy as a map generation (pure; enforce_policy.c) ---- */

struct enforce_entry {
	struct rg_enf_key key;
	struct rg_enf_val val;
};

struct enforce_tables {
	struct rg_enf_config cfg;
	struct enforce_entry *entries; /* ALLOW and GAME keys */
	size_t n, cap;
	size_t n_allow, n_games; /* keys of each kind */
	size_t unresolved;	 /* allow entries (or parts) that cannot be expressed: denied */
	uint64_t next_expiry_ns; /* wall clock of the next allow entry to expire; 0: none */
	bool has_devices;	 /* some allow entry names devices: refill when devices change */
};

struct enforce_build_opts {
	const char *root;	 /* resolve the policy's paths and sysfs below this; NULL: "/" */
	uint64_t now_ns;	 /* wall clock (expiry); 0: now */
	uint64_t boot_offset_ns; /* CLOCK_REALTIME - CLOCK_BOOTTIME; 0: now */
	bool lsm;		 /* BPF LSM is active: the programs deny */
	uint32_t kill;		 /* RG_ENF_KILL_* (enforce_kill_mask()) */
	uint32_t generation;
	bool no_ctime; /* the kernel's inode ctime cannot be read: no ctime checks */
	/* The sha256 of an open file; NULL: sha256_fd() (tests count the calls). */
	int (*hash)(void *ud, int fd, char out[65]);
	void *hash_ud;
	/* Each problem found, as "file:line:column: text" where the policy says; NULL: logged. */
	void (*warn)(void *ud, const char *text);
	void *warn_ud;
};

/* Builds the generation of policy p. 0, or -ENOMEM/-E2BIG (more than RG_ENF_POLICY_MAX keys). */
int enforce_tables_build(const struct rg_policy *p, const struct enforce_build_opts *o,
			 struct enforce_tables *t);
void enforce_tables_free(struct enforce_tables *t);
const struct enforce_entry *enforce_tables_find(const struct enforce_tables *t, uint64_t ino,
						uint32_t dev, uint32_t kind);

/* Policy "operations" as RG_ENF_OP_* bits (none: every operation). */
uint32_t enforce_ops_mask(const struct rg_policy_allow *a);

/*
 * Rule actions `kill` that the kernel can carry out (RG_ENF_KILL_*): RDMA-004, -005, -006, -007,
 * -009 with their effective action kill. *unarmed (may be NULL) gets how many enabled rules have
 * action kill without an in-kernel trigger (they only alert); warn names them.
 */
uint32_t enforce_kill_mask(const struct rg_engine *e, size_t *unarmed,
			   void (*warn)(void *ud, const char *text), void *ud);

/* Kernel dev_t encoding of a "MAJOR:MINOR" sysfs dev file's text; 0 if malformed. */
uint32_t enforce_parse_devt(const char *s);

/* ---- the running enforcement (enforce.c) ---- */

struct rg_enforce;

struct enforce_opts {
	const char *pin_dir; /* NULL: ENFORCE_PIN_DIR */
};

/*
 * Prepares: mounts bpffs on /sys/fs/bpf if the pin directory is below it and nothing is mounted,
 * finds the pins of an earlier daemon and opens their maps (enforce_pinned() then says so). Does
 * not attach anything. The maps to share with the sensors come from enforce_shared_maps().
 */
int enforce_prepare(const struct enforce_opts *o, struct rg_enforce **ret);

/* Whether BPF LSM is active (sensors_lsm_active()): set before enforce_start(). */
void enforce_set_lsm(struct rg_enforce *e, bool lsm);

/* Enforcement is pinned (by an earlier daemon, or by us once started). */
bool enforce_pinned(const struct rg_enforce *e);
/* Pins of an earlier daemon were found but cannot be reused (another layout): replaced at start. */
bool enforce_pins_incompatible(const struct rg_enforce *e);

/* The pinned maps the sensors must share (names and fds; fd -1 when there is none yet). */
void enforce_shared_maps(const struct rg_enforce *e, struct sensors_shared_map out[4]);

/*
 * Starts (or takes over) enforcement for policy p with the rules' kill actions of engine eng:
 * loads the programs (sharing the sensors' maps when no pins exist), fills the maps, attaches and
 * pins; replaces a previous daemon's programs; hands the record ring buffer to the sensors.
 * Games already running (per the engine) are told to the kernel. 0 or -errno (logged).
 */
int enforce_start(struct rg_enforce *e, struct rg_sensors *s, const struct rg_policy *p,
		  struct rg_engine *eng);
bool enforce_started(const struct rg_enforce *e);
/*
 * Enforcement was lifted (`rdmaguard enforce --off`): noticed on the tick already, or its pins
 * are gone now (checked here, so that an action taken between `--off` and the next tick, such
 * as hardware enforcement on the uevent of the very function `--off` gives back, sees it).
 */
bool enforce_lifted(const struct rg_enforce *e);

/* A new policy (SIGHUP): a new generation swapped in; links follow the kill actions. */
int enforce_reload(struct rg_enforce *e, const struct rg_policy *p, struct rg_engine *eng);

/*
 * After each event the engine processed: game processes and the game-running flag for the
 * kernel; devices that come and go (allow entries that name devices). Cheap when nothing changed.
 */
/* Gives the kernel every live game process the daemon knows (a game recognised late, by hash). */
void enforce_push_games(struct rg_enforce *e, struct rg_engine *eng);
void enforce_event(struct rg_enforce *e, const struct rg_event *ev, struct rg_engine *eng);

/*
 * Every second: refills when an allow entry expired; checks that the pins are still there.
 * Returns 1 when they were removed (enforce --off, or tampering): enforcement is then lifted here
 * too (our links destroyed) until a reload or restart; 0 otherwise.
 */
int enforce_tick(struct rg_enforce *e, struct rg_engine *eng);

/* A JSON description (mode, hooks, pin dir, counters) for agent_start, status and --dry-run. */
struct json_object *enforce_describe(struct rg_enforce *e);
/* "deny", "kill" or "off", with ",takeover" when an earlier daemon's pins were taken over: for
 * the agent_start text ("enforce=deny"). */
void enforce_summary(struct rg_enforce *e, char *buf, size_t size);

/* Releases our fds. The pins (and so the enforcement) stay. NULL is fine. */
void enforce_close(struct rg_enforce *e);

/* ---- administration (`rdmaguard enforce`) ---- */

/* Removes the pins under pin_dir: enforcement is lifted once no daemon holds the links (a running
 * daemon notices within a second). *removed: how many pins went. 0, -ENOENT when nothing was
 * pinned, or -errno. */
int enforce_unpin(const char *pin_dir, size_t *removed);

/* What is pinned under pin_dir: config, counts, counters, links. -ENOENT when nothing. */
int enforce_status(const char *pin_dir, struct json_object **ret);
