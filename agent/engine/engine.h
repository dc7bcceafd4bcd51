/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The rule engine: events in, alerts (JSON text, the schema in rules/schema/alert.schema.json)
 * out. It keeps the correlation state: the process tree (fed only by events), game sessions, which
 * processes used RDMA, and the aggregation of repeats.
 *
 * Repeats: the first match of a rule for a process and object (the rule's aggregate.by fields)
 * is emitted at once with count 1; further matches within the window (policy aggregate_window,
 * default 60 s, or the rule's own) are counted, and when the window ends one alert says how many
 * there were (count, event.start, event.end). Nothing is silenced: pending counts are emitted by
 * engine_tick() when their window ends, by engine_flush(), on reload, and when the table is full
 * (the entry closest to its end is flushed early). Time is the events' own (@timestamp), so a
 * replay aggregates exactly as the live daemon did.
 *
 * Bounded memory: the process tree (engine_config.proc_capacity entries) and the aggregation table
 * (agg_capacity entries) are allocated at creation; events are evaluated without allocating.
 * Alerts are written by one reused writer (common/jsonw.h): a steady state allocates nothing.
 *
 * Not thread-safe: one thread calls everything (the daemon's event loop).
 */
#pragma once

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "event/alert.h"
#include "event/event.h"
#include "hasher.h"
#include "incident.h"
#include "config/jsondoc.h"
#include "policy/policy.h"
#include "proctree/proctree.h"
#include "rules/rules.h"

#define ENGINE_DEFAULT_AGG_CAPACITY 1024
#define ENGINE_MAX_AGG_CAPACITY	    (1u << 20)
#define ENGINE_MESSAGE_MAX	    512
#define ENGINE_HASH_MAX_BYTES	    (256ull << 20) /* executables larger than this are not hashed */

struct rg_engine;

/*
 * Receives each alert. Its text and strings are the engine's and valid only during the call:
 * copy what is kept. A negative return is passed back to the caller of engine_process/tick/flush
 * (after the remaining alerts of that call are emitted).
 */
typedef int (*engine_emit_fn)(const struct rg_alert *alert, void *ud);

struct engine_config {
	const char *hostname;	   /* NULL: gethostname() */
	const char *boot_id;	   /* NULL: /proc/sys/kernel/random/boot_id; "" if unreadable */
	uint64_t
	    boot_realtime_ns; /* wall clock at boot (boot_to_realtime_offset_ns()); 0: unknown */
	size_t proc_capacity;	   /* 0: PROCTREE_DEFAULT_CAPACITY */
	size_t agg_capacity;	   /* 0: ENGINE_DEFAULT_AGG_CAPACITY */
	/*
	 * How to get the sha256 of a process's executable (policy games and allow entries that
	 * name one). hash_live: read /proc/PID/exe of the live process, checking that pid, start
	 * time and inode are still the node's (the daemon and audit). hash_exe: a custom function
	 * (tests). Neither: nothing is hashed and sha256 conditions never match (replay).
	 */
	bool hash_live;
	/*
	 * With hash_live: hash on a worker thread (engine/hasher.h), never on the caller's; until
	 * a file is read its process matches no sha256 (not allowed, not a game by hash). The
	 * caller polls engine_hash_fd() and calls engine_hash_done() (the daemon).
	 */
	bool hash_async;
	int (*hash_exe)(void *ud, const struct proc_node *n, char out[65]);
	void *hash_ud;
	/* Incidents (incident.h): on unless incidents_off. 0: the defaults. */
	bool incidents_off;
	size_t incident_max_open;
	uint64_t incident_quiet_ns;
};

/*
 * Checks that policy and rules fit together (every per-rule override names a rule). -EINVAL with
 * err at the override's position in the policy file.
 */
int engine_check(const struct rg_policy *policy, const struct rg_ruleset *rules,
		 struct rg_error *err);
/*
 * Loads what an engine needs, as every command does it: the policy file (NULL: the built-in
 * default policy; check_owner as in policy_load()), its "outputs" checked with check_outputs
 * (policy_check_outputs(); output_spec_check() of the output module, NULL: not checked), and the
 * rules directory (NULL: rules_default_dir()), then engine_check(). On error nothing is returned
 * and err says where.
 */
int engine_load_config(const char *policy_path, bool check_owner, const char *rules_dir,
		       policy_output_check_fn check_outputs, struct rg_policy **ret_policy,
		       struct rg_ruleset **ret_rules, struct rg_error *err);

/* Creates an engine; on success it owns policy and rules. cfg may be NULL. */
int engine_new(struct rg_policy *policy, struct rg_ruleset *rules, const struct engine_config *cfg,
	       struct rg_engine **ret, struct rg_error *err);
void engine_free(struct rg_engine *e);

/*
 * Swaps in a new policy and rule set (SIGHUP), keeping the process tree, RDMA history and game
 * sessions (recomputed for the new games). Pending repeats of the old rules are emitted first.
 * On error (-EINVAL, err set) nothing changes and the caller still owns policy and rules; on
 * success the engine owns them and has freed the old ones.
 */
int engine_reload(struct rg_engine *e, struct rg_policy *policy, struct rg_ruleset *rules,
		  engine_emit_fn emit, void *ud, struct rg_error *err);

/* Feeds one event. Returns 0, or the first negative value emit returned. */
int engine_process(struct rg_engine *e, const struct rg_event *ev, engine_emit_fn emit, void *ud);
/* Emits the aggregated repeats whose window ended at or before now_ns (wall clock). */
int engine_tick(struct rg_engine *e, uint64_t now_ns, engine_emit_fn emit, void *ud);
/* Emits every pending repeat now (shutdown, end of a replay). */
int engine_flush(struct rg_engine *e, engine_emit_fn emit, void *ud);

/* hash_async: an fd readable when an executable's hash is done (-1 otherwise). */
int engine_hash_fd(const struct rg_engine *e);
/* After engine_hash_fd() was readable: processes waiting for a hash get it (game membership). */
void engine_hash_done(struct rg_engine *e);

const struct rg_policy *engine_policy(const struct rg_engine *e);
/* When the earliest of the game sessions running now started (wall clock, ns); 0: none runs. */
uint64_t engine_game_since(const struct rg_engine *e);
const struct rg_ruleset *engine_rules(const struct rg_engine *e);
struct proctree *engine_proctree(struct rg_engine *e);
/* The incidents (incident.h: lookup, iteration, records, kept logs); NULL with incidents_off. */
const struct incident_store *engine_incidents(const struct rg_engine *e);
/*
 * Where incident records go (opened, updated, closed: struct rg_alert with .incident set, the
 * seat's identity as on alerts), called on the engine's calls like emit; NULL: nowhere (they
 * are still kept). The daemon sends them to the outputs next to the alerts.
 */
void engine_set_incident_fn(struct rg_engine *e, engine_emit_fn fn, void *ud);
/* An incident's record as the outputs get it (incident_to_jw() and the seat's identity, in
 * ECS's names: event/ecs_map.h). */
void engine_incident_to_jw(struct rg_engine *e, const struct incident *inc, const char *action,
			   struct jw *w);

struct engine_stats {
	uint64_t events;
	uint64_t events_by_type[RG_EV__MAX];
	uint64_t alerts; /* emitted */
	uint64_t alerts_by_severity[RG_SEV__MAX];
	uint64_t matches;    /* rule matches, including repeats folded into counts */
	uint64_t agg_pending; /* repeats counted but not emitted yet */
	uint64_t agg_evicted; /* entries flushed early because the table was full */
	int max_severity;    /* highest severity emitted, -1 if none */
	size_t games_running;
	struct proctree_stats proc;
	struct hasher_stats hash;
	struct incident_stats incidents;
};
void engine_get_stats(const struct rg_engine *e, struct engine_stats *ret);
/*
 * The i-th rule of engine_rules() as the policy leaves it: enabled, and its action (enum rg_action;
 * enforcement, docs/enforcement.md, arms deny/kill for these). -ENOENT past the end.
 */
int engine_rule_effective(const struct rg_engine *e, size_t i, bool *enabled, int *action);
/* Alerts emitted for the i-th rule of engine_rules(), and matches (repeats included). */
void engine_rule_stats(const struct rg_engine *e, size_t i, uint64_t *alerts, uint64_t *matches);
/* Alerts of the i-th rule raised at severity (enum rg_severity, after the fleet's raise). */
uint64_t engine_rule_alerts_at(const struct rg_engine *e, size_t i, int severity);

/*
 * Fills an AGENT_POLICY event (what AGENT-003 reports) for the daemon: ok after a (re)load, or
 * not ok with the reason (rg_error_format() text) when a new set was rejected and the old one
 * stays in force. file is the policy path (or the rules directory).
 */
void engine_policy_event(struct rg_event *ev, uint64_t ts, bool ok, int error, const char *file,
			 const char *text);

/*
 * The seat's identity on every alert from now on (docs/seat.md): host_json, the "host" object as
 * JSON text (identity_host_json()), and agent.version; with it the alerts also carry
 * rdmaguard.policy.sha256. Without (NULL): host.hostname only, as replay writes. Copied; the
 * daemon calls it again when the addresses change. 0 or -ENOMEM (nothing changed).
 */
int engine_set_identity(struct rg_engine *e, const char *host_json, const char *agent_version);

/* process.entity_id for a process on this engine's host boot: 32 hex digits. */
void engine_entity_id(struct rg_engine *e, struct proc_key key, char out[static 33]);
