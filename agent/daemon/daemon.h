/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The daemon: sensors -> rule engine -> outputs, for months.
 *
 * Start-up: load and validate policy and rules, open the outputs (their spools deliver what an
 * earlier run left), attach the sensors (their ring buffer holds what happens meanwhile), take the
 * inventory (every process, so the process tree is seeded and an already running game counts; every
 * RDMA device, module, library mapping, open fd, QP and MR that existed before us), drain the
 * sensors, then report agent_start with the chosen hooks and tell systemd READY=1.
 *
 * One thread runs the loop (epoll over a signalfd, the sensors' fd, the outputs' loss eventfd, a
 * one-second timerfd and the status socket); outputs write in their own threads and never block it.
 *
 *   SIGHUP   reload policy and rules: parse and validate fully, swap atomically, or keep the old
 *            set; either way an agent_policy event (AGENT-003). Sensors stay attached throughout.
 *   SIGUSR1  reopen file outputs and the record file (logrotate).
 *   SIGTERM  drain the sensors, flush the engine's pending repeats, report agent_stop, flush the
 *   SIGINT   outputs (bounded wait; spools keep the rest), detach, exit 0. Enforcement stays
 *            pinned: only `rdmaguard enforce --off` lifts it.
 *
 * Enforcement (--enforce, or "enforce": true, or pins an earlier daemon left): see
 * agent/enforce/enforce.h. Prepared before the sensors (they share its pinned maps), started
 * after the inventory (the engine then knows the games already running).
 *
 * Timers: engine_tick every second (aggregation windows), reconciliation with the kernel's RDMA
 * resource tables every reconcile_s (QPs/MRs the sensors missed), a heartbeat every heartbeat_s.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "sensors/sensors.h"

#define DAEMON_MAX_OUTPUTS	    16
#define DAEMON_DEFAULT_HEARTBEAT_S  60
#define DAEMON_DEFAULT_RECONCILE_S  30
#define DAEMON_FLUSH_TIMEOUT_MS	    3000
#define DAEMON_RECONCILE_MAX_KEYS   65536 /* QPs + MRs remembered between reconciliations */

struct daemon_config {
	const char *policy_path;   /* NULL: RG_SYSCONFDIR/policy.json if it exists, else built-in */
	const char *rules_dir;	   /* NULL: the installed rules */
	const char *outputs[DAEMON_MAX_OUTPUTS]; /* --output specs; none: the policy's, else stdout */
	size_t n_outputs;
	struct sensors_config sensors;
	const char *state_dir;	   /* NULL: RG_STATEDIR */
	const char *record_path;   /* every event as a JSON line ("-": stdout); NULL: none */
	const char *pid_file;	   /* NULL: none */
	const char *status_socket; /* NULL: STATUS_SOCKET_DEFAULT; "": none */
	const char *ready_file;	   /* created once running (tests); NULL: none */
	const char *facility;	   /* syslog facility; NULL: the output module's default */
	unsigned heartbeat_s;	   /* 0: DAEMON_DEFAULT_HEARTBEAT_S */
	unsigned reconcile_s;	   /* 0: DAEMON_DEFAULT_RECONCILE_S */
	bool no_inventory;	   /* skip the start-up inventory (tests of the sensors alone) */
	unsigned proc_capacity;	   /* process tree entries; 0: PROCTREE_DEFAULT_CAPACITY */
	bool enforce;		   /* --enforce: enforce even if the policy does not say so */
	const char *pin_dir;	   /* enforcement pins; NULL: ENFORCE_PIN_DIR */
	const char *metrics_listen; /* --metrics ADDR:PORT: the /metrics endpoint; NULL: none */
};

/* Runs until SIGTERM/SIGINT. Returns an exit code (common/exitcode.h). */
int daemon_run(const struct daemon_config *cfg);

/* Checks policy, rules and outputs as daemon_run() would, prints the sensor plan. Exit code. */
int daemon_dry_run(const struct daemon_config *cfg);
