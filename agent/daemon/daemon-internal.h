/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The daemon's state, and what its files lend each other. daemon.c (lifecycle, loop, signals)
 * calls down into the others, daemon_config.c (configuration, reload) among them;
 * daemon_events.c, the one path of every event, is the bottom that the others feed. None calls
 * back up into daemon.c.
 */
#pragma once

#include <json-c/json.h>
#include <openssl/evp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/signalfd.h>

#include "daemon.h"
#include "event/alert.h"
#include "event/event.h"
#include "hw/fingerprint.h"
#include "hw/hw_refuse.h"
#include "identity/identity.h"

struct output_loss;
struct metrics_http;
struct hw_runtime;
struct hw_baseline;
struct hw_scan;
struct output_spec;
struct rg_policy;
struct rg_ruleset;

struct daemon {
	const struct daemon_config *cfg;
	const char *policy_path; /* NULL: built-in default */
	const char *rules_dir;
	struct rg_engine *engine;
	struct rg_outputs *outputs;
	struct rg_sensors *sensors;
	struct rg_enforce *enf;	 /* NULL: no enforcement */
	int game_pids_fd; /* the sensors' own game map (not enforcement's), or -1: game_pids.h */
	struct hw_runtime *hw;	 /* uevents and kernel log of the hardware layer; NULL: none */
	struct hw_print hwprint; /* the seat's fingerprint digest and DSNs (heartbeat, status) */
	bool hwprint_fresh;	 /* hwprint is the bus as it is: no PCI change since it was made */
	struct hw_baseline *baseline; /* the policy's seat baseline, NULL none (daemon_hw.c) */
	struct hw_irq_watch *irq_watch; /* network functions whose vectors never counted */
	uint64_t next_irq_check_ns;	/* monotonic */
	struct hw_added_table hw_added; /* when each PCI function appeared (hw_refuse.h) */
	/* functions just added, left to hardware enforcement until their driver binds */
	struct {
		char addr[16];
		uint64_t deadline_ns; /* monotonic */
	} hw_pending[8];
	unsigned n_hw_pending;
	struct hw_scanner *hw_scanner; /* PCI scans off the event loop (hw/hw_scanner.h) */
	bool hw_rescan_diff;	       /* the scan asked for follows a loss: report what changed */
	bool irq_check_pending;	       /* the scan asked for is the not-breathing check's too */
	char (*hw_known)[16];	       /* the PCI functions the daemon knows are there */
	unsigned n_hw_known, cap_hw_known;
	struct json_object *hooks; /* sensors_describe() at start */
	int epfd, sigfd, timerfd, status_fd, pid_fd;
	FILE *record;
	struct jw *record_jw; /* --record: each event written here, then to the file */
	uint64_t seq;
	uint64_t start_mono_ns, start_rt_ns;
	uint64_t next_heartbeat_ns, next_reconcile_ns;
	unsigned submit_flags; /* OUTPUT_SUBMIT_LOSS while a loss report goes through the engine */
	char hostname[256];
	struct rg_identity id; /* the seat: host.* of alerts, notices and status */
	/* counters for heartbeat and status */
	uint64_t alerts_sent, alerts_below_threshold, alerts_too_large, submit_errors;
	uint64_t incident_records_sent; /* of the submitted, incident records (not alerts) */
	uint64_t record_errors;
	uint64_t events_by[RG_EV__MAX][RG_PROV__MAX]; /* event.action x event.provider */
	uint64_t enforce_denied, enforce_killed;     /* events the kernel refused, processes killed */
	bool tc_dropping;   /* the TC programs drop RDMA traffic of peers outside the fleet */
	bool tc_drop_warned; /* said once that they cannot */
	struct metrics_http *metrics;		      /* NULL: no /metrics endpoint */
	uint64_t reloads_ok, reloads_rejected;
	uint64_t reconcile_runs, reconcile_new, reconcile_errors;
	int reconcile_last_error;
	uint64_t proc_evicted_reported; /* live process-tree evictions already reported */
	bool service; /* started by systemd (INVOCATION_ID): a stop from elsewhere is tampering */
	/* the capabilities kept once started (daemon_privs.c): effective, permitted only */
	uint64_t caps_effective, caps_on_demand;
	bool caps_dropped, caps_bounded; /* dropped; the bounding set cut to them too */
	/* QPs and MRs of the last reconciliation (sorted keys): only new ones become events. */
	uint64_t *keys, *next_keys;
	size_t nkeys, nnext;
	bool keys_overflow;
	/* the seat key (daemon_evidence.c); NULL: none, nothing is signed */
	EVP_PKEY *sigkey;
	char sigkey_text[64], sigkey_fp[72];
};

/* daemon_config.c: the policy file in use (cfg's, else the default one if it exists, else NULL:
 * the built-in policy); policy and rules loaded and checked, the seat baseline kept in *baseline
 * (NULL: only validated), 0 or -errno logged; the outputs' specs (cfg's, else the policy's, else
 * stdout); whether any keeps a spool in the state directory; the reload on SIGHUP. */
const char *daemon_policy_path(const struct daemon_config *cfg);
int daemon_load_config(const char *policy_path, const char *rules_dir, struct rg_policy **policy,
		       struct rg_ruleset **rules, struct hw_baseline **baseline);
int daemon_parse_outputs(const struct daemon_config *cfg, const struct rg_policy *policy,
			 struct output_spec *specs, size_t *n);
bool daemon_outputs_need_state_dir(const struct output_spec *specs, size_t n);
void daemon_reload(struct daemon *d);

/* daemon_events.c */
int daemon_alert(const struct rg_alert *alert, void *ud);
/* daemon_incidents.c: a control request about incidents (id NULL: all of them). */
int daemon_incidents_serve(struct daemon *d, int fd, const char *id);
int daemon_event(const struct rg_event *in, void *ud);
void daemon_agent_event(struct daemon *d, unsigned type, bool ok, const char *what,
			const char *text, uint64_t count, uint64_t count2);

/* daemon_evidence.c: the seat key, made if missing and loaded; its public half into rg (the
 * "rdmaguard" object of notices and status); the chain heads of stats' outputs signed. */
int daemon_evidence_start(struct daemon *d, const char *state_dir);
void daemon_evidence_done(struct daemon *d);
void daemon_evidence_add(struct daemon *d, struct json_object *rg);
void daemon_evidence_sign_heads(struct daemon *d, struct json_object *stats);

/* daemon_stats.c */
struct json_object *daemon_stats(struct daemon *d, bool with_hooks);
void daemon_notice(struct daemon *d, const char *action, const char *kind, const char *message,
		   struct json_object *agent);
void daemon_loss_cb(const struct output_loss *loss, void *ud);
/* Live processes the full process tree gave up since the last call, as an AGENT-001 event. */
void daemon_proctree_loss(struct daemon *d);
void daemon_heartbeat(struct daemon *d);
void daemon_hooks_summary(struct json_object *desc, char *buf, size_t size);
void daemon_identity_refresh(struct daemon *d, bool force);
void daemon_identity_add(struct daemon *d, struct json_object *o);

/* daemon_metrics.c: the Prometheus text exposition of the counters (docs/metrics.md) into a
 * malloc'ed buffer. 0 or -ENOMEM. */
int daemon_metrics_render(struct daemon *d, bool sensitive, char **ret, size_t *ret_len);

/* daemon_reconcile.c */
void daemon_reconcile(struct daemon *d);

/* daemon_privs.c: what the daemon keeps once started (effective, and permitted only), and the
 * drop of the rest for the calling (event) thread, with no_new_privs. 0 or -errno. */
void daemon_privs_plan(const struct daemon *d, uint64_t *effective, uint64_t *on_demand);
int daemon_privs_drop(struct daemon *d);
/* {"effective": ["cap_bpf", ...], "on_demand": [...], "bounding": "cut"|"unit"} for the start
 * notice and `status`; what the event thread holds now. */
struct json_object *daemon_privs_describe(const struct daemon *d);

/* daemon_tamper.c */
void daemon_stop_signal(struct daemon *d, const struct signalfd_siginfo *si);

/* daemon_hw.c */
int daemon_hw_open(struct daemon *d);

/* daemon_hw_enforce.c */
/* Hardware enforcement at start: every function the baseline and allowlist do not cover. */
void daemon_hw_enforce_present(struct daemon *d);
/* What hardware enforcement does about a hardware event (not a historical one). */
void daemon_hw_enforce_event(struct daemon *d, const struct rg_event *ev);
/* Once a second: functions added whose driver did not bind in time. */
void daemon_hw_enforce_tick(struct daemon *d);
/* daemon_event() for the start-up inventory: a PCI function's event gets what the kernel's log
 * said of it (a failed probe) */
int daemon_hw_inventory_event(const struct rg_event *ev, void *ud);
void daemon_hw_dispatch(struct daemon *d, int fd);
void daemon_hw_tick(struct daemon *d, bool flush);
void daemon_hw_close(struct daemon *d);
int daemon_hw_scanner_fd(const struct daemon *d); /* -1: none */
struct json_object *daemon_hw_stats(struct daemon *d); /* `status`: "hardware" */
/* The seat's fingerprint from a scan (the start-up inventory's; NULL: scan now). */
void daemon_hw_print_update(struct daemon *d, const struct hw_scan *s);
/* hw.fingerprint and pci.dsn[] into o (heartbeat, status), scanning again first when a PCI
 * function changed since the last scan. */
void daemon_hw_print_add(struct daemon *d, struct json_object *o);


/* daemon_enforce.c */
int daemon_enforce_prepare(struct daemon *d, struct daemon_config *cfg);
int daemon_enforce_start(struct daemon *d);
/* The sensors' game map, where enforcement does not fill it (detect-only): game_pids.h. */
void daemon_game_pids_open(struct daemon *d, const struct daemon_config *cfg);
void daemon_enforce_after_reload(struct daemon *d);
void daemon_enforce_sync_tc(struct daemon *d);
