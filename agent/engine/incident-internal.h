/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Shared between the incident files, not a public interface: the incident and the store.
 *
 *   incident.c        the store: slots, the open ones by key, opening, eviction, ids, closing
 *   incident_assign.c grouping: actor roots, PCI functions, the seat, game sessions
 *   incident_add.c    what an alert adds: rules, actors, stages, records, the kept log
 *   incident_stage.c  stages: the rule table, the event's stage, the decisive facts
 *   incident_json.c   the record and its summary sentence
 */
#pragma once

#include <openssl/types.h>

#include "incident.h"
#include "rules/cond.h"

#define INC_MAX_ACTORS	     16
#define INC_MAX_RULES	     24
#define INC_MAX_FACTS	     8
#define INC_FACT_ALERTS	     8 /* facts read from a stage's first alerts only */
#define INC_FACT_LEN	     160
#define INC_MAX_STAGE_ALERTS 4
#define INC_UUID_LEN	     37
#define INC_NAME_LEN	     64

struct inc_stage {
	uint64_t first_ns, last_ns;
	uint64_t alerts;
	uint8_t n_ids, n_facts;
	char ids[INC_MAX_STAGE_ALERTS][INC_UUID_LEN];
	char facts[INC_MAX_FACTS][INC_FACT_LEN];
};

struct inc_rule {
	char id[32];
	uint64_t alerts; /* alert records */
	uint64_t count;	 /* matches they stand for (repeats folded) */
	int severity;	 /* highest */
};

struct inc_actor {
	struct proc_key key;
	uint32_t ppid;
	uint64_t alerts;
	char comm[16];
	char exe[128]; /* the path's tail if longer */
};

struct inc_log {
	uint8_t kind; /* enum incident_log_kind */
	uint32_t len;
	void *data; /* an alert's JSON text (NUL-terminated), or a copy of the struct rg_event */
};

/*
 * The kept log's bytes: blocks of INC_LOG_BLOCK bytes (an entry larger than that has a block of
 * its own), filled in turn and freed together, instead of an allocation per entry.
 */
#define INC_LOG_BLOCK 8192
struct inc_log_block {
	struct inc_log_block *next; /* the block filled before this one */
	size_t used, size;
	_Alignas(16) unsigned char data[];
};

struct incident {
	struct incident_store *store;
	int32_t hnext; /* open incidents' hash chain */
	bool in_use, open;
	uint8_t kind; /* enum incident_kind */
	uint64_t seq; /* opening order */
	char id[INCIDENT_ID_LEN];

	/* The key: the actor root, or the PCI function. */
	struct proc_key root;
	char pci[32];

	/* The root and what started it. */
	uint32_t root_ppid, root_uid, root_sid;
	char root_comm[16];
	char root_exe[128];
	uint64_t root_start_ns;
	uint32_t starter_pid;
	bool starter_session; /* the starter leads its session */
	char starter_comm[16];

	/* The game session it is bound to (game >= 0). */
	int32_t game;
	uint64_t game_started_ns, game_ended_ns;
	uint32_t game_pid;
	char game_name[INC_NAME_LEN];

	uint64_t first_ns, last_ns, closed_ns;
	const char *close_reason;
	uint64_t records; /* records written (opened, updated...) */
	uint32_t stages;  /* bit per enum incident_stage reached */
	bool during_game; /* an alert fired while a game ran */
	size_t n_rules;
	uint64_t rules_dropped;
	size_t n_actors;
	uint64_t actors_dropped;
	uint64_t alerts, matches;
	int max_alert_severity;

	/* For the summary: the strongest capability, target and peer seen. */
	uint64_t mr_bytes;
	char mr_access[64];
	char device[INC_NAME_LEN];
	char peer[64];
	char target_game[INC_NAME_LEN];
	char target_op[32];
	uint32_t target_pid;
	char library[INC_NAME_LEN];
	char seat[INC_NAME_LEN]; /* the policy's, when it opened */

	struct inc_log *log;
	struct inc_log_block *blocks; /* the block being filled, the others behind it */
	size_t n_log, log_cap, log_bytes;
	uint64_t log_dropped;

	/* The large arrays last: a slot is cleared up to st only (new_slot()), each stage up to
	 * its ids; entries past a count are never read, and are written whole when added. */
	struct inc_stage st[INCIDENT_STAGE__MAX];
	struct inc_rule rules[INC_MAX_RULES];
	struct inc_actor actors[INC_MAX_ACTORS];
};

struct incident_store {
	struct incident_config cfg;
	struct incident *inc; /* max_open + max_closed slots */
	size_t cap;
	uint32_t *order;  /* the slots in use, in opening order */
	int32_t *buckets; /* open incidents by key (find_open()) */
	uint32_t bucket_mask;
	struct {
		const char *rule; /* a rule id's pointer (the engine's, stable) */
		int stage;
	} stage_cache[16];
	size_t n_order;
	struct incident *last;	 /* the one incident_assign() gave last (NULL: none) */
	struct incident *recent; /* the same, kept: the next alert's first guess */
	size_t n_open, n_closed;
	uint64_t seq;
	uint64_t next_check;
	size_t log_total;
	struct incident_stats st;
	/* The decisive facts' fields, per stage (incident_stage.c). */
	struct field_ref **facts[INCIDENT_STAGE__MAX];
	size_t n_facts[INCIDENT_STAGE__MAX];
	struct field_ref *f_pci, *f_device, *f_peer, *f_mr_len, *f_mr_access, *f_mem_op, *f_dll;
	char boot_id[64];
	char seat[INC_NAME_LEN];
	struct jw *jw; /* a kept event written when asked for (incident_log_get) */
	/* The ids' SHA-256 (make_id()), fetched once: an implicit fetch per digest costs more
	 * than the digest. NULL: EVP_sha256() each time. */
	EVP_MD *sha256;
	EVP_MD_CTX *md_ctx;
	char *raw; /* a record's stages, rules and actors as JSON text (incident_json.c) */
	size_t raw_cap;
};

/* incident.c */
/* A cleared slot for a new open incident (the oldest open one evicted if need be); NULL: none. */
struct incident *incident_new_slot(struct incident_store *s, uint64_t now, incident_record_fn rec,
				   void *ud);
/* Gives a new incident, its key set, its id and files it among the open ones. */
void incident_file(struct incident_store *s, struct incident *inc);
/* The open incident of this key (root for actors, pci for PCI functions), NULL if none. */
struct incident *incident_find_open(struct incident_store *s, uint8_t kind, struct proc_key root,
				    const char *pci);
/* When inc is due to close (UINT64_MAX: not yet foreseeable), and why. */
uint64_t incident_due_at(struct incident_store *s, struct incident *inc, struct proctree *tree,
			 const struct game_session *games, size_t n_games, const char **why);
/* When the incident's game session ended (0: it is bound to none, or it still runs). */
uint64_t incident_game_end(struct incident *inc, const struct game_session *games, size_t n_games);
void incident_close(struct incident_store *s, struct incident *inc, uint64_t at,
		    const char *reason, incident_record_fn rec, void *ud);
/* Forgets the oldest closed incident (its slot and log go). */
void incident_forget_oldest_closed(struct incident_store *s);

/* incident_stage.c */
int incident_facts_init(struct incident_store *s);
void incident_facts_free(struct incident_store *s);
/* The stage an alert of rule_id on ctx shows (rule table, else the event). */
int incident_alert_stage(struct incident_store *s, const char *rule_id, const struct cond_ctx *ctx);
/* Adds ctx's decisive facts for stage to inc (and what the summary uses). */
void incident_add_facts(struct incident_store *s, struct incident *inc, unsigned stage,
			struct cond_ctx *ctx);

/* The target stage's weakest evidence: "game.running=NAME". */
void incident_add_game_fact(struct incident *inc, struct cond_ctx *ctx);

/* incident_json.c */
/* One sentence a referee can read aloud. */
void incident_summary(const struct incident *inc, char *buf, size_t size);
