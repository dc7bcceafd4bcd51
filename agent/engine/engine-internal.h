/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Shared between the engine's own files, not a public interface: the engine's state and what
 * each file offers the others.
 *
 *   engine.c        creation, reload, the event path (engine_process/tick/flush), accessors
 *   engine_load.c   policy and rules for an engine: checks, loading, the per-rule view (erule)
 *   engine_proc.c   executables' identity and sha256, the allowlist (process.allowed)
 *   engine_game.c   game sessions, RDMA history, the condition context of an event
 *   engine_agg.c    a rule's match: emitted at once, or counted as a repeat (aggregation)
 *   engine_alert.c  alert documents, entity ids
 *   engine_incident.c  alerts into incidents (incident.h), their records to the outputs
 */
#pragma once

#include <openssl/evp.h>
#include <stdbool.h>
#include <stdint.h>

#include "rules/cond.h"
#include "engine.h"
#include "hasher.h"
#include "common/jsonw.h"
#include "event/event.h"
#include "proctree/proctree.h"

/* The per-rule view the engine evaluates: the rule with the policy's override applied. */
struct erule {
	const struct rg_rule *rule;
	const struct rg_rule_override *ov; /* NULL if none */
	bool enabled;
	int action;
	uint64_t window_ns;
	uint64_t alerts, matches;
	uint64_t alerts_by_severity[RG_SEV__MAX]; /* after the fleet's raise */
	/* The alerts' "rule", "tags" and "threat" values, written once (erule_render): the rule's
	 * JSON text, then the tags' (none: 0 bytes), then the threat's (the same). */
	char *json;
	uint32_t rule_len, tags_len, threat_len;
};

struct agg {
	uint64_t key;	     /* 0: free */
	int32_t next;	     /* hash chain */
	int32_t live;	     /* position in agg_order */
	uint32_t rule;	     /* index into rules */
	uint64_t seq;	     /* creation order, for a stable flush order */
	uint64_t window_end; /* event time */
	uint64_t first_ns, last_ns;
	uint64_t pending; /* matches since the last alert */
	int severity;	  /* highest of the pending matches */
	/* The game state at the last repeat: the summary describes then, not the flush. */
	bool has_game, game_running;
	uint64_t game_ended_ns;
	struct game_session game;
	struct rg_event last; /* the last repeat (must stay last: agg_new clears up to it) */
};

#define ENTITY_CACHE_SIZE 256 /* power of two */

struct rg_engine {
	struct rg_policy *policy;
	struct rg_ruleset *rules;
	struct erule *erules;
	/* The enabled rules whose condition can hold for an event of type t, in rule order:
	 * rule_idx[rule_start[t] .. rule_start[t + 1]) (cond_type_mask); the rest are not tried. */
	uint32_t *rule_idx;
	uint32_t rule_start[RG_EV__MAX + 1];
	struct proctree *tree;
	struct engine_config cfg;
	char hostname[256];
	char boot_id[64];
	char *host_json;       /* engine_set_identity(): the "host" object; NULL: host.hostname */
	size_t host_json_len;
	char *agent_version;   /* NULL: no agent.* identity (replay, tests) */

	struct cond_env env;	    /* what conditions read of the policy and the engine */
	struct game_session *games; /* one per policy game */
	size_t n_games;
	uint64_t game_ended_ns;

	struct agg *aggs;
	size_t agg_cap;
	int32_t *agg_buckets;
	uint32_t agg_mask;
	int32_t *agg_scratch;
	/* Every entry's index, the agg_used in use first, then the free ones: the window check
	 * touches only what is in use and a new entry is the first free one, not a scan of all
	 * agg_cap entries. */
	int32_t *agg_order;
	uint64_t agg_seq;
	uint64_t next_deadline; /* earliest window_end, UINT64_MAX if none */
	size_t agg_used;

	uint64_t now;	      /* latest event/tick time seen */
	uint64_t alert_seq;
	int emit_err;

	struct hasher *hasher; /* live mode: executables' sha256 (hasher.h); NULL otherwise */

	/* SHA-256 for entity ids, fetched once: an implicit fetch on every digest cost more than
	 * the digest. NULL when libcrypto refused (then EVP_Digest each time). */
	EVP_MD *sha256;
	EVP_MD_CTX *md_ctx;
	struct jw *jw; /* alerts are written here, one at a time */
	struct incident_store *incidents; /* NULL: incidents_off */
	struct jw *ijw;			  /* incident records */
	engine_emit_fn inc_emit;	  /* engine_set_incident_fn() */
	void *inc_ud;
	/* Entity ids of recent processes (direct-mapped by pid and start): an alert names its
	 * process, parent and ancestors, mostly the same few shells and services again. */
	struct {
		uint32_t pid;
		uint64_t start_boot_ns;
		char id[33]; /* "" if empty */
	} idcache[ENTITY_CACHE_SIZE];

	struct engine_stats st;
};

/* engine_load.c: the per-rule view of rules under policy (erule_render()s each). */
int engine_erules_build(const struct rg_policy *policy, const struct rg_ruleset *rules,
			struct jw *w, struct erule **ret, uint32_t **ret_idx,
			uint32_t start[RG_EV__MAX + 1]);
void engine_erules_free(struct erule *er);

/* engine_proc.c */
/*
 * The executable's sha256, computed at most once per exec; "" if it cannot be, or while the
 * hasher's worker has not read it yet (PROC_F_HASH_PENDING: not hashed, asked again).
 */
const char *engine_proc_sha256(struct rg_engine *e, struct proc_node *n);
/*
 * Whether n's exe path may be matched against an allow, parent or game pattern: known, the whole
 * path (not a truncated tail) and seen from init's root and mount namespace (the event said so:
 * RG_EXE_TRUNC, RG_EXE_FOREIGN).
 */
bool engine_proc_path_trusted(const struct proc_node *n);
/* Live mode, when the events did not say: n's executable's inode and device, read once per exec
 * from the live process. */
void engine_proc_exe_id(struct rg_engine *e, struct proc_node *n);
/* process.allowed (struct cond_env's proc_allowed; ud is the engine). */
bool engine_proc_allowed(void *ud, struct proc_node *n, const struct rg_event *ev);

/* engine_game.c */
/* The sessions of policy's games, none seen yet. */
void engine_games_init(struct game_session *games, const struct rg_policy *policy);
/* Live processes whose hash was pending: asked again, their game membership updated. */
void engine_games_rehash(struct rg_engine *e);
/* Game membership under the current policy; sessions restart from the live processes. */
void engine_games_resync(struct rg_engine *e);
/* The process tree's exit hook: the process leaves its game's session. */
void engine_game_exit_hook(struct proc_node *n, bool evicted, void *ud);
/* What an event changes besides the tree: game membership and sessions, RDMA history. */
void engine_update_state(struct rg_engine *e, const struct rg_event *ev, struct proc_node *n);
/* The condition context of ev, whose acting process is proc (NULL if none). */
void engine_ctx_init(struct rg_engine *e, const struct rg_event *ev, struct proc_node *proc,
		     struct cond_ctx *c);

/* engine_identity.c */
/* host.* (or host.hostname), agent.*, rdmaguard.policy.sha256, labels.seat: as on every alert. */
void engine_identity_to_jw(struct rg_engine *e, struct jw *w);

/* engine_alert.c */
/* What a rule's alerts say of the rule itself, into er->json. 0 or -ENOMEM. */
int engine_erule_render(struct erule *er, struct jw *w);
/* Builds an alert and hands it to emit; a failure is kept in e->emit_err. */
void engine_emit_alert(struct rg_engine *e, struct erule *er, struct cond_ctx *ctx, int severity,
		       uint64_t count, uint64_t first_ns, uint64_t last_ns, engine_emit_fn emit,
		       void *ud);

/* engine_incident.c */
int engine_incidents_new(struct rg_engine *e);
/* Before the alert is built: its incident's id into id ("" if none). */
void engine_incident_assign(struct rg_engine *e, const struct erule *er, struct cond_ctx *ctx,
			    char id[static INCIDENT_ID_LEN]);
/* After it was emitted: the alert joins its incident (stages, counts, kept log, records). */
void engine_incident_add(struct rg_engine *e, const char *id, struct cond_ctx *ctx,
			 const struct rg_alert *a, uint64_t count, uint64_t first_ns,
			 uint64_t last_ns);
/* Closes what is due at now. */
void engine_incident_expire(struct rg_engine *e, uint64_t now);

/* engine_agg.c */
/* Rule ri matched ctx's event with severity sev: an alert now, or a repeat counted. */
void engine_rule_fired(struct rg_engine *e, size_t ri, struct cond_ctx *ctx, int sev,
		       engine_emit_fn emit, void *ud);
/*
 * Ends every window that ended at or before now (all of them with force): emits the pending
 * counts in order; an entry that had repeats starts a new window, one that had none goes.
 */
void engine_agg_expire(struct rg_engine *e, uint64_t now, bool force, engine_emit_fn emit,
		       void *ud);
