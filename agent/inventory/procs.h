/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * /proc scanning: every process (the daemon seeds its process tree from it before attaching its
 * sensors) and, per process, the RDMA traces /proc shows: open fds on /dev/infiniband/<node> (and the
 * uverbs event/completion anon inodes), RDMA libraries mapped (/proc/PID/maps), and mappings of a
 * uverbs device (queues, doorbells).
 *
 * Processes are named by (pid, start_boot_ns): the start time from /proc/PID/stat in ns since boot,
 * at clock-tick resolution, exactly as event.h defines it. Device numbers (exe_dev, lib dev) are
 * userspace dev_t values (makedev(major, minor), what stat() gives), as the sensors convert them.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/macro.h"
#include "common/root.h"
#include "event/event.h"

#define PROCS_MAX	     32768 /* processes kept */
#define PROCS_MAX_SCAN	     65536 /* /proc entries examined */
#define PROCS_MAX_FD_SCAN    16384 /* fds examined per process */
#define PROCS_MAX_RDMA_FDS   64	   /* RDMA fds kept per process */
#define PROCS_MAX_LIBS	     32	   /* RDMA libraries kept per process */
#define PROCS_MAX_MAPS_LINES 65536 /* /proc/PID/maps lines examined per process */
#define PROCS_MAX_CMDLINE    4096  /* bytes of /proc/PID/cmdline kept */
#define PROCS_MAX_ERRORS     4
#define PROCS_MAX_READERS    4	   /* threads reading /proc at once in procs_scan() (and CPUs) */

enum {
	PROCS_F_FDS = 1u << 0,	/* look at /proc/PID/fd */
	PROCS_F_MAPS = 1u << 1, /* look at /proc/PID/maps */
	PROCS_F_ALL = PROCS_F_FDS | PROCS_F_MAPS,
};

struct proc_fd {
	int32_t fd;
	uint32_t node_kind; /* enum rg_node_kind; OTHER for anon_inode:[infinibandevent] */
	uint32_t minor;	    /* from the node, or its sysfs `dev`; 0 unknown */
	char path[64];
	char device[64]; /* the RDMA device behind uverbsN/umadN/issmN, when sysfs says */
};

struct proc_lib {
	uint32_t kind; /* enum rg_lib_kind */
	uint64_t ino;
	uint64_t dev; /* makedev(major, minor) from the maps line */
	bool executable; /* mapped executable (not only read) */
	char path[256];
};

struct proc_info {
	uint32_t pid, ppid, pgid, sid;
	uint32_t uid, euid; /* real, effective */
	uint64_t start_boot_ns;
	uint64_t parent_start_boot_ns; /* 0 when the parent was not found */
	char state;
	char comm[RG_COMM_LEN];
	bool kernel_thread;
	char *exe; /* readlink of /proc/PID/exe, NULL when unreadable (kernel threads) */
	bool exe_deleted;
	bool exe_foreign; /* seen from another root or mount namespace than init's (hostns.h) */
	uint64_t exe_ino, exe_dev;
	char *cmdline; /* NUL-separated argv */
	size_t cmdline_len;
	bool cmdline_truncated;
	/* RDMA traces */
	struct proc_fd *fds;
	unsigned n_fds;
	bool fds_truncated;
	struct proc_lib *libs;
	unsigned n_libs;
	bool libs_truncated, maps_truncated;
	unsigned uverbs_mappings; /* mappings of /dev/infiniband/uverbs* */
	int exe_error, fd_error, maps_error; /* -errno when exe, fd/ or maps could not be read */
	unsigned n_errors;
	char *errors[PROCS_MAX_ERRORS];
};

struct proc_table {
	struct proc_info *procs; /* sorted by pid */
	size_t n;
	unsigned scanned;    /* /proc entries examined */
	unsigned vanished;   /* processes that exited while we read them */
	uint32_t self_pid;   /* our own process, never listed */
	bool truncated;	     /* PROCS_MAX or PROCS_MAX_SCAN reached */
	int error;	     /* -errno when /proc could not be listed */
};

/*
 * Scans every process below root, with up to PROCS_MAX_READERS threads (the caller's among them)
 * when there are many. 0, or -ENOMEM/-EINVAL; an unreadable /proc is t->error.
 */
int procs_scan(const struct rg_root *root, unsigned flags, struct proc_table **ret);
/* Reads one process (for a daemon that learns of a pid). -ENOENT when it is gone. */
int procs_read_one(const struct rg_root *root, uint32_t pid, unsigned flags, struct proc_info *ret);
void proc_info_done(struct proc_info *p);
void proc_table_free(struct proc_table *t);
DEFINE_TRIVIAL_CLEANUP_FUNC(struct proc_table *, proc_table_free);

const struct proc_info *proc_table_find(const struct proc_table *t, uint32_t pid);
/* True when the process holds an RDMA fd, maps an RDMA library, or maps a uverbs device. */
bool proc_info_uses_rdma(const struct proc_info *p);

/* Fills the common process part of an event (pid, tid, ppid, uid, start, comm). */
void proc_info_to_task(const struct proc_info *p, struct rg_task *task);
/* A PROCESS_PRESENT event (provider inventory) for p. */
void proc_info_to_event(const struct proc_info *p, struct rg_event *ev);

/* Classifies a path from /proc/PID/fd or maps: an RDMA library kind, or -1 when it is none. */
int procs_lib_kind(const char *path);
/* Classifies an fd target: a node kind and true when it is an RDMA fd at all. */
bool procs_fd_kind(const char *target, uint32_t *ret_kind);

/*
 * Calls cb with each process in start order (parents before children), for PROCESS_PRESENT
 * seeding. Non-zero from cb stops and is returned.
 */
int proc_table_foreach_by_start(const struct proc_table *t,
				int (*cb)(const struct proc_info *p, void *userdata), void *userdata);
