/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The eBPF sensors: probe the kernel's features, choose a hook for each hook point, load and
 * attach the BPF programs (bpf/), consume the ring buffer and turn its records into struct
 * rg_event (agent/event/event.h). Also: RDMA device and module uevents, RoCE v2/iWARP traffic
 * counters (TC), per-CPU lost-record counters, late attach to ib_uverbs/rdma_ucm.
 *
 * Hook points and their flavours, best first (`--sensor auto`):
 *   process   exec/fork/exit             sched tracepoints (every flavour)
 *   open      new fds on RDMA nodes and  fentry | kprobe on fd_install (opens, io_uring opens,
 *             /proc/PID/mem              dup, SCM_RIGHTS) | sys_exit_open* (open syscalls only)
 *   verbs     uverbs ioctl/write/mmap    fexit | kprobe on ib_uverbs_*; while ib_uverbs is absent
 *                                        fentry/fexit on the ioctl/write/writev/pwritev2
 *                                        syscalls | their sys_enter/exit tracepoints
 *   rdma_cm   rdma_cm write              fexit | kprobe on ucma_write; while rdma_ucm is absent
 *                                        fentry/fexit on the write/writev/pwritev2 syscalls |
 *                                        their sys_enter/exit tracepoints
 *   mmap      library loads (+uverbs)    lsm mmap_file | fentry | kprobe on security_mmap_file |
 *                                        sys_enter_mmap
 *   memory    process_vm_*, ptrace       lsm ptrace_access_check | fexit | kprobe on
 *                                        security_ptrace_access_check | syscall tracepoints
 *   library   libibverbs entry points    uprobes
 *   modules   RDMA module loads          module_load tracepoint, else uevents
 *   devices   RDMA device add/remove     uevents (NETLINK_KOBJECT_UEVENT)
 *   roce      RoCE v2/iWARP per peer     TC clsact on netdevs that carry an RDMA device
 *   self      bpf() on the agent         fexit | kretprobe on the bpf syscall | sys_enter/exit_bpf
 *
 * Threading: a struct rg_sensors is used by one thread. Memory is bounded: the ring buffer
 * (sensors_config.ringbuf_bytes), fixed-size tables (RDMA fds 16384, rdma_cm ids 1024, flows
 * 4096, pending internal events 64).
 */
#pragma once

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "event/event.h"

/*
 * The ring buffer of sensor records. The daemon maps its data pages twice (the kernel's
 * wrap-around trick) and they are resident from the start: its RSS includes 2 x the size.
 */
#define SENSORS_DEFAULT_RINGBUF (2u << 20)
#define SENSORS_MIN_RINGBUF	(64u << 10)
#define SENSORS_MAX_RINGBUF	(256u << 20)

enum sensors_mode {
	SENSORS_AUTO = 0,   /* best flavour per hook point: lsm > fentry > kprobe > tracepoint */
	SENSORS_FENTRY,	    /* fentry/fexit where a hook point has one (error if refused) */
	SENSORS_KPROBE,	    /* kprobes where a hook point has one (error if unavailable) */
	SENSORS_TRACEPOINT, /* the syscall tracepoint fallback only */
	SENSORS__MAX,
};

const char *sensors_mode_to_string(unsigned m);
int sensors_mode_from_string(const char *s); /* -EINVAL if unknown */

struct sensors_config {
	enum sensors_mode mode;
	size_t ringbuf_bytes;	  /* power of two; 0: SENSORS_DEFAULT_RINGBUF */
	unsigned roce_interval_s; /* RoCE traffic report period; 0: 10 s */
	bool no_uprobes;	  /* do not attach the libibverbs uprobes */
	bool no_roce;		  /* no TC counters */
	bool no_uevents;	  /* no device/module uevent listener */
	bool no_seed;		  /* do not seed the RDMA fd map from /proc */
	bool ring_always_wake;	  /* every record wakes the reader (no burst timer: ringwake.h) */
	const char *ibverbs_path; /* libibverbs for uprobes; NULL: the system's */
	/* More netdevs to count RoCE/iWARP traffic on, besides those that carry an RDMA device
	 * (found in sysfs): e.g. a NIC whose RDMA function is not bound yet. At most 8. */
	const char *roce_ifaces[8];
	/*
	 * Maps to share with another BPF object instead of creating them (enforcement's pinned
	 * maps: "enf_policy", "enf_game_pids", "enf_state"), by name; fd -1 or no entry: ours.
	 */
	struct sensors_shared_map {
		const char *name;
		int fd;
	} shared_maps[4];
};

struct rg_sensors;

/* Callback for each event; a negative return stops sensors_poll() and is returned by it. */
typedef int (*sensors_cb)(const struct rg_event *ev, void *userdata);

/*
 * Probes the kernel and describes what sensors_open() would choose, without loading anything
 * (mounts tracefs/securityfs if needed). *ret: the same object as sensors_describe().
 */
int sensors_plan(const struct sensors_config *cfg, struct json_object **ret);

/* Probes, loads, attaches, seeds. 0 or -errno (logged). Needs root (CAP_BPF, CAP_PERFMON...). */
int sensors_open(const struct sensors_config *cfg, struct rg_sensors **ret);

/* An fd (epoll) that becomes readable when sensors_poll() has work. */
int sensors_fd(struct rg_sensors *s);

/*
 * Waits up to timeout_ms (0: do not wait, -1: forever) and delivers events to cb: sensor records,
 * device/module uevents, RoCE traffic reports, lost-record alerts (RG_EV_AGENT_LOST, one per
 * CPU that lost records since the last report), hook changes (RG_EV_AGENT_SENSOR). Events have
 * seq 0: the consumer numbers them. Returns the number of events delivered, or -errno, or the
 * callback's negative return. EINTR is not an error (returns 0).
 */
int sensors_poll(struct rg_sensors *s, int timeout_ms, sensors_cb cb, void *userdata);

/*
 * How long a caller that waits on sensors_fd() may block when it wants want_ms (-1: forever):
 * during a burst of records the ring wakes nobody and must be read on a timer (ringwake.h), so
 * this is then at most RINGWAKE_POLL_MS. sensors_poll() applies it to its own timeout.
 */
int sensors_timeout_ms(const struct rg_sensors *s, int want_ms);

/* The ring buffer's wake-up policy: {"wakeups": "wake"|"poll"|"closing"|"always", "bursts": N,
 * "policy_errors": N} ("always": the policy could not be set up, every record wakes the reader). */
struct json_object *sensors_ring_describe(const struct rg_sensors *s);

/* What is attached: mode, features, and per hook point the chosen and active flavour. */
struct json_object *sensors_describe(struct rg_sensors *s);

/*
 * Records lost (a ring buffer full: the main one or the RDMA one) per CPU since start: fills
 * per_cpu[0..n) and returns the number of possible CPUs (which may exceed n), or -errno.
 */
int sensors_lost(struct rg_sensors *s, uint64_t *per_cpu, size_t n);

/* Low-value records dropped since start because their process was over its budget (bpf/events.h:
 * RG_BUDGET_*), into *total: 0 or -errno. */
int sensors_budget_dropped(struct rg_sensors *s, uint64_t *total);

/* BPF LSM is active (what enforcement needs to deny). */
bool sensors_lsm_active(const struct rg_sensors *s);

/*
 * What the sensors may still do after start that needs privilege (the daemon keeps the
 * capabilities for it, agent/daemon/daemon_privs.c): attach or detach programs as ib_uverbs or
 * rdma_ucm come and go (a hook point whose chosen variant lives in a module: perf_event_open for
 * kprobes and the syscall-level fallback, BPF links), and, of those, load the fentry programs on
 * the module's own functions (libbpf reads the module's BTF by id: CAP_SYS_ADMIN, raised around
 * that load alone with caps_raise()).
 */
bool sensors_may_attach_later(const struct rg_sensors *s);
bool sensors_may_load_module_programs(const struct rg_sensors *s);

/* Detaches everything (NULL is fine). */
void sensors_close(struct rg_sensors *s);
/*
 * Run counts and run time of every loaded sensor program, where the kernel keeps them
 * (kernel.bpf_stats_enabled=1, which costs each program run two clock reads): cb per program
 * (name: the program's function name). 1 if enabled, 0 if not (cb not called), -errno.
 */
typedef void (*sensors_prog_stats_fn)(void *ud, const char *name, uint64_t runs, uint64_t ns);
int sensors_prog_stats(struct rg_sensors *s, sensors_prog_stats_fn cb, void *ud);

/*
 * For the enforcement programs (docs/enforcement.md) and tests: the fd of a map of the sensors object by
 * name ("rdma_fds", "rdma_procs", "events", ...), or -ENOENT.
 */
int sensors_map_fd(struct rg_sensors *s, const char *name);

/*
 * Also consumes another ring buffer of sensor records (bpf/events.h), e.g. enforcement's: its
 * records become events through the same callback of sensors_poll(). At most 4. 0 or -errno.
 */
int sensors_add_ringbuf(struct rg_sensors *s, int map_fd);

/*
 * Self-protection (AGENT-004) for another BPF object of the agent's (enforcement): another
 * process's bpf() command on its maps, or on a link watched here, raises the alert. Unwatch a
 * link before destroying it. Best effort: what cannot be registered is logged.
 */
struct bpf_object;
struct bpf_link;
void sensors_watch_maps(struct rg_sensors *s, struct bpf_object *obj);
void sensors_watch_link(struct rg_sensors *s, struct bpf_link *link, const char *name);
void sensors_unwatch_link(struct rg_sensors *s, struct bpf_link *link);
/* One map created at run time (enforcement's policy generation): its id, or 0 if not watched. */
uint32_t sensors_watch_map(struct rg_sensors *s, int fd, const char *name);
void sensors_unwatch_map(struct rg_sensors *s, uint32_t id);

/*
 * Dropping RoCE v2 and iWARP traffic of peers outside the fleet, in the TC programs (bpf/roce.bpf.c,
 * docs/enforcement.md): begin, add each seat and server range (IPv4 as IPv4-mapped IPv6, its
 * prefix + 96), commit with drop on or off. The ranges of the previous fleet stay until commit,
 * so a reload never drops a peer that both fleets have. commit: 0; -EOPNOTSUPP when drop is asked
 * but the TC programs are not in the plan (--no-roce); another -errno (logged) when the fleet
 * could not be loaded whole: then nothing is dropped.
 */
void sensors_fleet_begin(struct rg_sensors *s);
void sensors_fleet_add(struct rg_sensors *s, const uint8_t addr[16], unsigned prefix);
int sensors_fleet_commit(struct rg_sensors *s, bool drop);
/* The TC programs drop now (drop committed, and the programs are in the plan). */
bool sensors_fleet_dropping(const struct rg_sensors *s);
/* Packets dropped since start, summed over CPUs, by reason: RoCE v2 (UDP 4791), iWARP (TCP). */
#define SENSORS_TC_DROP_REASONS 2
int sensors_tc_drops(struct rg_sensors *s, uint64_t out[SENSORS_TC_DROP_REASONS]);
/* Enforcement's kill programs on the open exits that are attached now (RG_KILLTP_*,
 * bpf/compat_nr.h): an open that the verdict kills, seen on such a syscall, is left to them to
 * report. Set after attaching, cleared before detaching. */
void sensors_set_enforce_kill_hooks(struct rg_sensors *s, uint32_t killtps);

/* Inserts (pid, fd) into the RDMA fd map as an RDMA node of that kind (RG_NODE_*). 0 or -errno. */
int sensors_remember_fd(struct rg_sensors *s, pid_t pid, int fd, unsigned node_kind);

/* Scans /proc/<pid>/fd of every process for fds on /dev/infiniband nodes and remembers them.
 * Returns the number remembered or -errno. Called by sensors_open() unless no_seed. */
int sensors_seed_fds(struct rg_sensors *s, const char *proc_root);
