/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Private to agent/sensors/: struct rg_sensors, the state the files of the module share, and the
 * functions they offer each other. Each file's own comment says what it owns; the calls go one
 * way, from the top down, never back up:
 *
 *   sensors.c   open (load, attach, seed) and close; sensors_plan()
 *   loop.c      sensors_poll(): the epoll loop, the one-second timer
 *   status.c    sensors_describe(), the ring's mode, lost records (and their alerts)
 *   devices.c   device and module uevents
 *   records.c   ring buffer records -> events (convert.c), the rdma_cm id table
 *   tc.c        RoCE/iWARP counters: TC attach, verify, scan, harvest
 *   tc_fleet.c  the TC programs' drop: the fleet's map, on/off, the drop counters
 *   uprobes.c   the libibverbs uprobes
 *   links.c     attach/detach per the plan, the module object (ib_uverbs, rdma_ucm)
 *   seed.c      RDMA fds of running processes, from /proc
 *   self.c      self-protection: the agent's own maps and links in self_objs
 *   sysfs.c     what sysfs says about RDMA devices (names, their netdevs)
 *   deliver.c   events to the consumer's callback, queued ones, tamper alerts
 *   hooks.c     hook points and their variants (hooks.h)
 *   plan.c      the plan: a variant per hook point (plan.h; knows no struct rg_sensors)
 */
#pragma once

#include <bpf/libbpf.h>
#include <dirent.h>
#include <infiniband/verbs.h>
#include <limits.h>
#include <net/if.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "bpf/events.h"
#include "common/hostns.h"
#include "common/macro.h"
#include "convert.h"
#include "plan.h"
#include "probe.h"
#include "ringwake.h"
#include "sensors.h"

#define DEFAULT_ROCE_S 10
#define MAX_LINKS      64
#define MAX_TC_IFS     32
#define MAX_CM_IDS     1024
#define MAX_FLOWS      4096
#define DEVCACHE       32
#define SEED_MAX_PIDS  65536
#define SEED_MAX_FDS   65536
#define MAX_SELF_OBJS  128
#define RG_TC_HANDLE   0x52474

DEFINE_TRIVIAL_CLEANUP_FUNC(DIR *, closedir)

/* The skeletons (sensors.skel.h, sensors_mod.skel.h): included by the files that use them. */
struct sensors_bpf;
struct sensors_mod_bpf;

struct link_ent {
	const char *prog;
	bool mod;
	struct bpf_link *link;
};

struct tc_if {
	int ifindex;
	bool created_hook; /* we created the clsact qdisc: remove it at close */
	char name[IF_NAMESIZE];
};

struct cm_ent {
	bool used;
	uint32_t pid;
	int32_t fd;
	uint32_t id;
	uint32_t ps;
	struct rg_addr src, dst;
};

struct flow_ent {
	struct rg_flow_key k;
	struct rg_flow_val v;
};

struct self_obj {      /* one of our own BPF maps or links, as registered in self_objs */
	uint32_t kind; /* RG_SELF_* */
	uint32_t id;
	bool mod; /* a map of the module object: forgotten when it is unloaded */
	char name[32];
};

/* The RDMA device names behind char devices, lately looked up (sysfs.c). */
struct devcache {
	struct {
		uint32_t rdev;
		char name[RG_DEVNAME_LEN];
	} e[DEVCACHE];
	size_t next;
};

struct rg_sensors {
	struct sensors_config cfg;
	struct sensors_features feat;
	struct plan plan;
	struct sensors_bpf *skel;
	/* links.c: the module object, what is attached */
	struct sensors_mod_bpf *mod;
	bool mod_has_uverbs, mod_has_cm;
	struct link_ent links[MAX_LINKS];
	size_t nlinks;
	bool mods_present[2]; /* ib_uverbs, rdma_ucm */
	/* uprobes.c */
	struct bpf_link *uprobes[2];
	char ibverbs_path[PATH_MAX];
	/* tc.c */
	struct tc_if tc[MAX_TC_IFS];
	size_t ntc;
	struct flow_ent *flows;
	size_t nflows;
	/* tc_fleet.c: the fleet's generation in fleet_nets, whether the programs drop */
	uint32_t fleet_gen;
	size_t fleet_n;
	int fleet_err;
	bool fleet_drop;
	/* loop.c */
	struct ring_buffer *rb;
	/* the RDMA ring (events_hi), read after rb; before a record of it newer than the start of
	 * rb's last reading, rb is read again (loop.c: on_record_hi) */
	struct ring_buffer *rb_hi;
	uint64_t rb_read_at; /* CLOCK_BOOTTIME of the start of rb's last reading */
	struct ringwake wake; /* when rb's records wake the reader */
	int epfd, uevent_fd, timer_fd;
	uint64_t ticks;
	int extra_rb[4]; /* other ring buffers consumed by rb (enforcement's) */
	size_t n_extra_rb;
	/* status.c: lost records; budget drops reported, per process (the latest seen) */
	uint64_t *lost_prev;
	int ncpus;
	struct budget_seen {
		uint32_t tgid;
		char comm[16];
		uint64_t reported, start_boot_ns, seen_ns;
	} budget_seen[64];
	/* records.c */
	struct cm_ent cm[MAX_CM_IDS];
	size_t cm_next;
	struct task_cache tasks; /* fork/exec in ring order, for targets named by pid */
	struct exit_ring exits;	 /* exits reported lately: each process's once */
	struct devcache devcache;
	uint64_t tick_ns;
	struct convert_ctx cctx;
	/* deliver.c. During sensors_poll(): */
	sensors_cb cb;
	void *ud;
	int delivered;
	int cb_error;
	/* AGENT_SENSOR events raised outside sensors_poll(), delivered at the next one. */
	struct rg_event queued[16];
	/* init's root and mount namespace (common/hostns.h); zero: unknown */
	struct hostns hostns;
	size_t nqueued;
	/* self.c */
	struct self_obj self[MAX_SELF_OBJS];
	size_t nself;
};

/* Syscalls an architecture may lack (arm64 has no open or creat): -1 there. */
#ifdef SYS_open
#define RG_SYS_OPEN SYS_open
#else
#define RG_SYS_OPEN (-1)
#endif
#ifdef SYS_creat
#define RG_SYS_CREAT SYS_creat
#else
#define RG_SYS_CREAT (-1)
#endif
#ifdef SYS_openat2
#define RG_SYS_OPENAT2 SYS_openat2
#else
#define RG_SYS_OPENAT2 (-1)
#endif

/* The knobs of either skeleton's rodata, set before load. */
#define SET_KNOBS(rodata, s)                                                                       \
	do {                                                                                       \
		(rodata)->rg_tick_ns = (s)->tick_ns;                                               \
		(rodata)->rg_self_tgid = (uint32_t)getpid();                                       \
		(rodata)->rg_nr_ioctl = SYS_ioctl;                                                 \
		(rodata)->rg_nr_write = SYS_write;                                                 \
		(rodata)->rg_nr_mmap = SYS_mmap;                                                   \
		(rodata)->rg_nr_openat = SYS_openat;                                               \
		(rodata)->rg_nr_open = RG_SYS_OPEN;                                                \
		(rodata)->rg_nr_openat2 = RG_SYS_OPENAT2;                                          \
		(rodata)->rg_nr_creat = RG_SYS_CREAT;                                              \
		(rodata)->rg_nr_ptrace = SYS_ptrace;                                               \
		(rodata)->rg_nr_process_vm_readv = SYS_process_vm_readv;                           \
		(rodata)->rg_nr_process_vm_writev = SYS_process_vm_writev;                         \
		(rodata)->rg_ibv_device_name_off = offsetof(struct ibv_device, name);              \
		(void)kernel_inode_ctime_offsets((uint32_t *)&(rodata)->rg_ctime_sec_off,          \
						 (uint32_t *)&(rodata)->rg_ctime_nsec_off);        \
		(rodata)->rg_have_loop = kernel_has_bpf_loop();                                    \
		(rodata)->rg_host_root_ino = (s)->hostns.root_ino;                                 \
		(rodata)->rg_host_root_dev = (s)->hostns.root_kdev;                                \
		(rodata)->rg_host_mnt_ns = (s)->hostns.mnt_ns;                                     \
	} while (0)

/* deliver.c */
int deliver(struct rg_sensors *s, struct rg_event *ev);
int deliver_queued(struct rg_sensors *s);
void queue_sensor_event(struct rg_sensors *s, unsigned hp, bool ok, const char *fmt, ...)
    _printf_(4, 5);
void tamper_event(struct rg_sensors *s, const char *what, uint64_t count, const char *fmt, ...)
    _printf_(4, 5);

/* sysfs.c */
void read_word(const char *path, char *buf, size_t size);
void devcache_lookup(struct devcache *c, uint32_t rdev, char *buf, size_t size);
void devcache_clear(struct devcache *c);
void rdma_netdevs_foreach(void (*cb)(void *ud, const char *ifname), void *ud);

/* self.c */
void self_register(struct rg_sensors *s, uint32_t kind, int fd, const char *name, bool mod);
void self_register_maps(struct rg_sensors *s, struct bpf_object *obj, bool mod);
void self_forget_link(struct rg_sensors *s, struct bpf_link *link);
void self_forget_mod(struct rg_sensors *s);
void self_name(void *ud, uint32_t kind, uint32_t id, char *buf, size_t size);

/* links.c */
int waiting_variant(struct rg_sensors *s, unsigned hp);
void link_drop(struct rg_sensors *s, size_t i);
void sync_links(struct rg_sensors *s);
void modules_changed(struct rg_sensors *s);

/* uprobes.c */
int find_ibverbs(char *buf, size_t size);
void attach_uprobes(struct rg_sensors *s);

/* tc.c */
void tc_scan(struct rg_sensors *s);
void tc_verify(struct rg_sensors *s);
void tc_detach_all(struct rg_sensors *s);
void roce_harvest(struct rg_sensors *s);

/* records.c */
void records_init(struct rg_sensors *s);
int on_record(void *ctx, void *data, size_t size);
int on_record_hi(void *ctx, void *data, size_t size);
/* Reads rb (the main ring and the extra ones), noting when: the count, or -errno. */
int sensors_read_main(struct rg_sensors *s);

/* devices.c */
void handle_uevents(struct rg_sensors *s);

/* status.c */
void check_lost(struct rg_sensors *s);

/* loop.c */
int epoll_add(int epfd, int fd);
