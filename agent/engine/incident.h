/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Incidents: the engine's alerts grouped into one record per actor, with the stages of a cheat
 * that the actor reached, the evidence of each stage, and a verdict (docs/incidents.md).
 *
 * Grouping. Every alert belongs to exactly one incident, and the alert names it
 * (rdmaguard.incident.id). An incident is one of:
 *   actor  the alert's process and its chain: the subtree rooted at the actor root, the
 *          ancestor-or-self of the process whose parent is a starter (pid 1, a session leader,
 *          a process with no known parent, or a command interpreter or launcher named by its
 *          trusted executable path: the list in incident_assign.c and docs/incidents.md). An alert whose
 * process descends from the root of an open incident joins that incident, whatever lies between.
 *   pci    the alert's PCI function (pci.address) for the hardware rules;
 *   seat   the machine itself: alerts that name neither a process nor a PCI function
 *          (a device or module present, the IOMMU posture, the agent's own alerts).
 * An incident is bounded by a game session: an open incident not yet tied to a game is tied to
 * the first game session during which one of its alerts fires; once that session ended, an
 * alert whose event came later opens a new incident.
 *
 * Life. Opened by its first alert; updated when it reaches a new stage; closed once every actor
 * has exited and nothing fired for the quiet period, or when its game session ended (after the
 * grace period, so that the game's pending repeats still fold in), or when it is evicted. Each
 * of those is a record (incident_record_fn) that the engine hands to the outputs next to the
 * alerts. Time is the events' own, so a replay of recorded events gives the same incidents, with
 * the same ids (given the same boot id), as the live daemon did.
 *
 * Memory: at most max_open open incidents and max_closed closed ones kept for a while (the
 * oldest closed go first); when max_open are open, the one with the oldest last alert is closed
 * early (reason "evicted"), counted in incident_stats.evicted, which the daemon reports. Each
 * incident keeps the alerts and the raw events behind them, as recorded (event_to_jw()), up to
 * max_log_records records and max_log_bytes bytes; what does not fit is counted
 * (log_dropped), never silently lost.
 *
 * Not thread-safe: the engine's thread calls everything.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/jsonw.h"
#include "common/prockey.h"

struct cond_ctx;
struct rg_event;
struct game_session;
struct proctree;

enum incident_stage {
	INCIDENT_STAGE_PRESENCE,     /* a device, module or card */
	INCIDENT_STAGE_ACCESS,	     /* a device opened, a library loaded */
	INCIDENT_STAGE_CAPABILITY,   /* an MR with remote access, a QP to a peer */
	INCIDENT_STAGE_TARGET,	     /* the game running, its memory read, a library injected */
	INCIDENT_STAGE_EXFILTRATION, /* traffic to a peer, a DMA fault */
	INCIDENT_STAGE__MAX,
	/* Rule table values that are not stages: */
	INCIDENT_STAGE_NONE = 100,  /* the agent's own health: joins the seat incident, no stage */
	INCIDENT_STAGE_EVENT = 101, /* derived from the event (incident_event_stage()) */
};

enum incident_kind {
	INCIDENT_KIND_ACTOR,
	INCIDENT_KIND_PCI,
	INCIDENT_KIND_SEAT,
};

#define INCIDENT_ID_LEN		     21 /* "INC-" + 16 hex digits + NUL */
#define INCIDENT_DEFAULT_MAX_OPEN    256
#define INCIDENT_DEFAULT_MAX_CLOSED  64
#define INCIDENT_DEFAULT_QUIET_NS    (120ull * 1000000000ull)
#define INCIDENT_DEFAULT_GRACE_NS    (60ull * 1000000000ull)
#define INCIDENT_DEFAULT_LOG_RECORDS 256
#define INCIDENT_DEFAULT_LOG_BYTES   (512u * 1024)
#define INCIDENT_DEFAULT_LOG_TOTAL   (16u * 1024 * 1024)
#define INCIDENT_MAX_CAPACITY	     65536

const char *incident_stage_to_string(unsigned stage); /* "presence", ..., "none", "event" */
int incident_stage_from_string(const char *s);	      /* -EINVAL if unknown */
const char *incident_kind_to_string(unsigned kind);

/*
 * The stage of a shipped rule (the table in incident_stage.c, docs/incidents.md): an enum
 * incident_stage, INCIDENT_STAGE_NONE, or INCIDENT_STAGE_EVENT; -ENOENT for a rule not in the
 * table (a site's own: its alerts take their event's stage). incident_rule_stage_at(): the
 * i-th entry of the table, NULL past the end.
 */
int incident_rule_stage(const char *rule_id);
const char *incident_rule_stage_at(size_t i, int *stage);
/* The stage an event shows by its action (presence for device_present, ...); NONE if none. */
int incident_event_stage(const struct cond_ctx *ctx);
int incident_action_stage(unsigned event_type);
/* The decisive facts' field names of a stage (NULL-terminated), as the records list them. */
const char *const *incident_stage_fact_fields(unsigned stage);

/* Every field may be 0/NULL for its default. */
struct incident_config {
	size_t max_open;	   /* INCIDENT_DEFAULT_MAX_OPEN */
	size_t max_closed;	   /* INCIDENT_DEFAULT_MAX_CLOSED */
	uint64_t quiet_ns;	   /* INCIDENT_DEFAULT_QUIET_NS */
	uint64_t grace_ns;	   /* after the game ended: INCIDENT_DEFAULT_GRACE_NS */
	size_t max_log_records;	   /* per incident: INCIDENT_DEFAULT_LOG_RECORDS */
	size_t max_log_bytes;	   /* per incident: INCIDENT_DEFAULT_LOG_BYTES */
	size_t max_log_total;	   /* all incidents: INCIDENT_DEFAULT_LOG_TOTAL */
	const char *boot_id;	   /* mixed into the ids; "" if NULL */
	const char *seat;	   /* the policy's seat name (the summary); NULL if none */
	uint64_t boot_realtime_ns; /* process start times (cond_proc_start_time()) */
};

struct incident_stats {
	uint64_t opened, updated, closed;
	uint64_t evicted;   /* open incidents closed early because max_open were open */
	uint64_t forgotten; /* closed incidents dropped from memory (oldest first) */
	uint64_t alerts;    /* alerts assigned (each to exactly one incident) */
	uint64_t
	    log_dropped; /* alerts and raw events not kept because an incident's log was full */
	size_t open, closed_kept;
};

struct incident;
struct incident_store;

int incident_store_new(const struct incident_config *cfg, struct incident_store **ret);
void incident_store_free(struct incident_store *s);
/* After a reload (engine_reload()): the policy's seat name (the summaries); the new rules. */
void incident_store_set_seat(struct incident_store *s, const char *seat);
void incident_store_stats(const struct incident_store *s, struct incident_stats *ret);

/* What the store kept: open incidents and the closed ones not forgotten, in opening order. */
size_t incident_store_count(const struct incident_store *s);
const struct incident *incident_store_at(const struct incident_store *s, size_t i);
/* NULL if the store does not hold it (never opened here, or forgotten). */
const struct incident *incident_store_find(const struct incident_store *s, const char *id);

const char *incident_id(const struct incident *inc);
/* The event.id of its latest record: "INC-<16 hex>-<record number>". */
#define INCIDENT_RECORD_ID_LEN (INCIDENT_ID_LEN + 21)
void incident_record_id(const struct incident *inc, char out[static INCIDENT_RECORD_ID_LEN]);
bool incident_is_open(const struct incident *inc);
int incident_severity(const struct incident *inc);    /* enum rg_severity, from the stages */
uint64_t incident_alerts(const struct incident *inc); /* alerts assigned, repeats included */

/*
 * The incident's record (docs/incidents.md#records) into w's top-level object, as it stands:
 * what the outputs get, `rdmaguard incidents --format json` prints and the evidence bundle
 * holds. action: "opened", "updated", "closed", or NULL for "state" (a listing).
 */
void incident_to_jw(const struct incident *inc, const char *action, struct jw *w);

/* The kept log: the incident's alerts and the raw events behind them, in arrival order. */
enum incident_log_kind {
	INCIDENT_LOG_ALERT, /* an alert as the outputs got it */
	INCIDENT_LOG_EVENT, /* the event that raised it, as `daemon --record` writes it */
};
size_t incident_log_count(const struct incident *inc);
/*
 * One JSON line (no newline) of the log; -ENOENT past the end, -ENOMEM. An event is kept as the
 * event itself and written when asked for: its text is valid until the next call.
 */
int incident_log_get(const struct incident *inc, size_t i, enum incident_log_kind *kind,
		     const char **json, size_t *len);

/*
 * Engine side. A record of an incident (opened, updated or closed) for the outputs; the
 * incident and the strings are valid during the call only.
 */
typedef void (*incident_record_fn)(const struct incident *inc, const char *action, void *ud);

/*
 * The incident an alert of rule_id raised on ctx's event belongs to: found, or opened (evicting
 * if full). Writes its id into id_out. -ENOMEM only when nothing could be opened (id_out "").
 */
int incident_assign(struct incident_store *s, struct cond_ctx *ctx,
		    const struct game_session *games, size_t n_games, const char *rule_id,
		    char id_out[static INCIDENT_ID_LEN], incident_record_fn rec, void *ud);
/*
 * After incident_assign(): the alert (uuid, rule, severity, count, its JSON text) and the raw
 * event (JSON text, may be NULL) are added; stage evidence and counts updated; a record goes to
 * rec for a new incident ("opened") or a new stage ("updated").
 */
struct incident_alert {
	const char *uuid;
	const char *rule_id;
	int severity;
	uint64_t count;
	uint64_t first_ns, last_ns;
	const char *message;
	const char *json;
	size_t len;
	const struct rg_event *event; /* the event that raised it (kept as it is), or NULL */
};
void incident_add_alert(struct incident_store *s, const char *id, struct cond_ctx *ctx,
			const struct incident_alert *a, incident_record_fn rec, void *ud);
/*
 * Closes what is due at now (event time): every actor exited (tree: the engine's process tree)
 * and quiet since, or its game session ended (games: the engine's sessions) and the grace
 * period passed. The close time in the record is when it became due, not now.
 */
void incident_expire(struct incident_store *s, uint64_t now, struct proctree *tree,
		     const struct game_session *games, size_t n_games, incident_record_fn rec,
		     void *ud);
