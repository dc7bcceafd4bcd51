/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The running enforcement: load, fill, attach, pin, take over, refill, lift. See enforce.h.
 *
 * Pins, under the pin directory (default /sys/fs/bpf/rdmaguard):
 *   maps/{enf_policy,enf_game_pids,enf_state,events,counters}
 *   progs/<program>    links/<program>
 * A pin is replaced by pinning the new object under a temporary name (new-NAME: bpffs refuses dots
 * in names) and renaming it over the old one: the old link loses its last reference (if no daemon
 * holds it) only once the new link is attached.
 */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <rdma/ib_user_verbs.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "bpf/compat_nr.h"
#include "bpf/events.h"
#include "common/clock.h"
#include "common/log.h"
#include "common/macro.h"
#include "common/strutil.h"
#include "enforce.h"
#include "enforce-internal.h"
#include "enforce.skel.h"
#include "game_pids.h"
#include "proctree/proctree.h"
#include "sensors/probe.h"

/* The BPF <-> agent contract: pin the layouts, and the ABI offsets enforce.bpf.h reads. */
_Static_assert(sizeof(struct rg_enf_key) == 16, "rg_enf_key");
_Static_assert(sizeof(struct rg_enf_variant) == 112, "rg_enf_variant");
_Static_assert(sizeof(struct rg_enf_config) == 32, "rg_enf_config");
_Static_assert(sizeof(struct rg_enf_val) == 8 + RG_ENF_VARIANTS * 112, "rg_enf_val");
_Static_assert(sizeof(struct rg_enf_state) == 24, "rg_enf_state");
_Static_assert(sizeof(struct rg_enf_mark) == 24, "rg_enf_mark");
_Static_assert(offsetof(struct ib_uverbs_reg_mr, access_flags) == 36, "REG_MR access @36");
_Static_assert(offsetof(struct ib_uverbs_rereg_mr, flags) == 12, "REREG_MR flags @12");
_Static_assert(offsetof(struct ib_uverbs_rereg_mr, access_flags) == 44, "REREG_MR access @44");
_Static_assert(offsetof(struct ib_uverbs_modify_qp, attr_mask) == 68, "MODIFY_QP mask @68");
_Static_assert(offsetof(struct ib_uverbs_modify_qp, qp_state) == 96, "MODIFY_QP state @96");
_Static_assert(offsetof(struct ib_uverbs_ex_modify_qp, base) == 0, "EX_MODIFY_QP base first");
_Static_assert(sizeof(struct ib_uverbs_cmd_hdr) == 8 && sizeof(struct ib_uverbs_ex_cmd_hdr) == 16,
	       "command headers");
_Static_assert(IB_USER_VERBS_CMD_REG_MR == 9 && IB_USER_VERBS_CMD_REREG_MR == 11 &&
		   IB_USER_VERBS_CMD_CREATE_QP == 24 && IB_USER_VERBS_CMD_MODIFY_QP == 26 &&
		   IB_USER_VERBS_CMD_OPEN_QP == 40,
	       "commands enforce.bpf.h names");

enum prog_kind {
	P_LSM,	 /* denies (and kills) where BPF LSM is active */
	P_TRACK, /* follows game processes: always */
	P_KILL,	 /* kills on the syscall tracepoints where there is no LSM, when a kill is armed */
};

#define KILL_GAME (RG_ENF_KILL_GAME_ANY | RG_ENF_KILL_GAME_SELF)
#define KILL_CMD  (RG_ENF_KILL_MR | RG_ENF_KILL_CONNECT | KILL_GAME)

static const struct prog_def {
	const char *name;
	enum prog_kind kind;
	const char *need; /* LSM: the bpf_lsm_ function in BTF; KILL: "category/tracepoint" */
	uint32_t kills;	  /* KILL: attached only when one of these RG_ENF_KILL_* is armed */
} prog_defs[] = {
    {"enf_file_open", P_LSM, "bpf_lsm_file_open"},
    {"enf_file_ioctl", P_LSM, "bpf_lsm_file_ioctl"},
    {"enf_file_ioctl_compat", P_LSM, "bpf_lsm_file_ioctl_compat"},
    {"enf_file_permission", P_LSM, "bpf_lsm_file_permission"},
    {"enf_mmap_file", P_LSM, "bpf_lsm_mmap_file"},
    {"enf_file_mprotect", P_LSM, "bpf_lsm_file_mprotect"},
    {"enf_kmod_request", P_LSM, "bpf_lsm_kernel_module_request"},
    {"enf_kernel_read_file", P_LSM, "bpf_lsm_kernel_read_file"},
    {"enf_kernel_load_data", P_LSM, "bpf_lsm_kernel_load_data"},
    {"enf_netlink_send", P_LSM, "bpf_lsm_netlink_send"},
    {"enf_rtp_exec", P_TRACK, NULL},
    {"enf_rtp_fork", P_TRACK, NULL},
    {"enf_rtp_exit", P_TRACK, NULL},
    /* every process's syscalls pay for these: only those an armed kill needs are attached */
    {"enf_tp_exit_openat", P_KILL, "syscalls/sys_exit_openat", RG_ENF_KILL_OPEN | KILL_GAME},
    {"enf_tp_exit_open", P_KILL, "syscalls/sys_exit_open", RG_ENF_KILL_OPEN | KILL_GAME},
    {"enf_tp_exit_openat2", P_KILL, "syscalls/sys_exit_openat2", RG_ENF_KILL_OPEN | KILL_GAME},
    {"enf_tp_exit_creat", P_KILL, "syscalls/sys_exit_creat", RG_ENF_KILL_OPEN | KILL_GAME},
    /* 32-bit calls (the syscalls:* tracepoints skip them): every syscall runs these */
    {"enf_tp_compat_exit", P_KILL, "raw_syscalls/sys_exit", RG_ENF_KILL_OPEN | KILL_GAME},
    {"enf_tp_compat_enter_ioctl", P_KILL, "raw_syscalls/sys_enter", KILL_CMD},
    {"enf_tp_compat_enter_write", P_KILL, "raw_syscalls/sys_enter", KILL_CMD},
    {"enf_tp_enter_write", P_KILL, "syscalls/sys_enter_write", KILL_CMD},
    {"enf_tp_enter_writev", P_KILL, "syscalls/sys_enter_writev", KILL_CMD},
    {"enf_tp_enter_pwritev2", P_KILL, "syscalls/sys_enter_pwritev2", KILL_CMD},
    {"enf_tp_enter_ioctl", P_KILL, "syscalls/sys_enter_ioctl", KILL_CMD},
    {"enf_tp_enter_mmap", P_KILL, "syscalls/sys_enter_mmap", KILL_GAME},
};
#define NPROGS ARRAY_SIZE(prog_defs)

const char *const enforce_map_names[ENFORCE_NMAPS] = {"enf_policy", "enf_game_pids", "enf_state",
						     "events",	   "counters",	    "enf_acted"};
#define map_names enforce_map_names
#define NMAPS	  ENFORCE_NMAPS

/* The maps the sensors share (they ask the same verdicts, and take enforcement's marks). */
static bool map_shared(size_t i)
{
	return i <= 2 || i == 5;
}

struct rg_enforce {
	char pin_dir[PATH_MAX];
	bool lsm;
	bool pinned;	   /* pins exist: an earlier daemon's, or ours */
	bool took_over;	   /* they were an earlier daemon's, and we reuse its maps */
	bool incompatible; /* an earlier daemon's pins of another layout: replaced */
	bool started;
	bool lifted; /* the pins were removed under us */
	int pinned_fd[NMAPS];
	int map_fd[NMAPS]; /* the maps in use (not owned: the skeleton's or pinned_fd) */
	struct enforce_bpf *skel;
	struct bpf_link *links[NPROGS];
	bool wanted[NPROGS];
	struct enforce_tables tables;
	uint32_t generation;
	uint32_t kill;
	int game_daemon; /* last value written; -1 unknown */
	uint64_t self_start_ns;
	struct rg_sensors *sensors; /* self-protection watches our maps and links (AGENT-004) */
	uint32_t inner_id;	    /* the policy generation in force, as watched there */
};

static bool exists(const char *path)
{
	return access(path, F_OK) == 0;
}

static uint64_t self_start_ns(void)
{
	char buf[4096], *p;
	int fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
	ssize_t n;
	unsigned long long ticks = 0;
	long hz = clock_ticks_per_sec();

	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0 || hz <= 0)
		return 0;
	buf[n] = 0;
	p = strrchr(buf, ')');
	if (!p)
		return 0;
	p += 2;
	for (int i = 3; i < 22 && p; i++) {
		p = strchr(p, ' ');
		if (p)
			p++;
	}
	if (!p || sscanf(p, "%llu", &ticks) != 1)
		return 0;
	return (uint64_t)ticks * (1000000000ull / (uint64_t)hz);
}

/* The expected shape of each pinned map, from a skeleton opened (not loaded) for the purpose. */
static bool map_compatible(int fd, struct bpf_map *want)
{
	struct bpf_map_info info = {0};
	__u32 len = sizeof(info);

	if (bpf_obj_get_info_by_fd(fd, &info, &len) < 0)
		return false;
	return info.type == bpf_map__type(want) && info.key_size == bpf_map__key_size(want) &&
	       info.value_size == bpf_map__value_size(want) &&
	       (info.type == BPF_MAP_TYPE_RINGBUF ||
		info.max_entries == bpf_map__max_entries(want));
}

static void close_pinned(struct rg_enforce *e)
{
	for (size_t i = 0; i < NMAPS; i++) {
		if (e->pinned_fd[i] >= 0)
			close(e->pinned_fd[i]);
		e->pinned_fd[i] = -1;
	}
}

static int open_pins(struct rg_enforce *e)
{
	struct enforce_bpf *probe = enforce_bpf__open();
	struct rg_enf_state st;
	char path[PATH_MAX];
	__u32 zero = 0;
	bool ok = true;

	memset(&st, 0, sizeof(st));
	if (!probe)
		return log_error_errno(-errno, "Failed to open the enforcement programs: %m");
	for (size_t i = 0; i < NMAPS; i++) {
		struct bpf_map *m = bpf_object__find_map_by_name(probe->obj, map_names[i]);

		if (!snprintf_ok(path, sizeof(path), "%s/maps/%s", e->pin_dir, map_names[i]))
			ok = false;
		e->pinned_fd[i] = ok ? bpf_obj_get(path) : -1;
		if (e->pinned_fd[i] < 0 || !m || !map_compatible(e->pinned_fd[i], m))
			ok = false;
	}
	enforce_bpf__destroy(probe);
	if (ok && (bpf_map_lookup_elem(e->pinned_fd[2], &zero, &st) < 0 || st.abi != RG_ENF_ABI))
		ok = false;
	if (!ok) {
		close_pinned(e);
		e->incompatible = true;
		log_warning(
		    "Enforcement pinned in %s is of another version: it stays in force until "
		    "this daemon's replaces it.",
		    e->pin_dir);
		return 0;
	}
	e->took_over = true;
	/* The pinned programs exempt the daemon that pinned them: make that us before our own
	 * inventory opens the devices (our programs replace theirs only later). */
	st.daemon_tgid = (uint32_t)getpid();
	st.daemon_start_ns = self_start_ns();
	if (bpf_map_update_elem(e->pinned_fd[2], &zero, &st, BPF_ANY) < 0)
		log_warning_errno(-errno, "Failed to write the enforcement state: %m");
	return 0;
}

int enforce_prepare(const struct enforce_opts *o, struct rg_enforce **ret)
{
	struct rg_enforce *e = calloc(1, sizeof(*e));
	char path[PATH_MAX];
	int r;

	if (!e)
		return log_oom();
	for (size_t i = 0; i < NMAPS; i++)
		e->pinned_fd[i] = e->map_fd[i] = -1;
	e->game_daemon = -1;
	if (!strscpy_ok(e->pin_dir, o->pin_dir ? o->pin_dir : ENFORCE_PIN_DIR,
			sizeof(e->pin_dir))) {
		free(e);
		return -ENAMETOOLONG;
	}
	r = enforce_pins_ensure_bpffs(e->pin_dir);
	if (r < 0) {
		free(e);
		return r;
	}
	snprintf_ok(path, sizeof(path), "%s/maps/%s", e->pin_dir, map_names[0]);
	if (exists(path)) {
		e->pinned = true;
		r = open_pins(e);
		if (r < 0) {
			enforce_close(e);
			return r;
		}
	}
	*ret = e;
	return 0;
}

void enforce_set_lsm(struct rg_enforce *e, bool lsm)
{
	e->lsm = lsm;
}

bool enforce_pinned(const struct rg_enforce *e)
{
	return e && e->pinned && !e->lifted;
}

bool enforce_pins_incompatible(const struct rg_enforce *e)
{
	return e && e->incompatible;
}

bool enforce_started(const struct rg_enforce *e)
{
	return e && e->started && !e->lifted;
}

bool enforce_lifted(const struct rg_enforce *e)
{
	char path[PATH_MAX];

	if (!e)
		return false;
	if (e->lifted)
		return true;
	return e->started && snprintf_ok(path, sizeof(path), "%s/maps/%s", e->pin_dir, map_names[0]) &&
	       !exists(path);
}

void enforce_shared_maps(const struct rg_enforce *e, struct sensors_shared_map out[4])
{
	size_t n = 0;

	for (size_t i = 0; i < 4; i++)
		out[i] = (struct sensors_shared_map){.name = NULL, .fd = -1};
	for (size_t i = 0; i < NMAPS && n < 4; i++)
		if (map_shared(i))
			out[n++] = (struct sensors_shared_map){.name = map_names[i],
							       .fd = e ? e->pinned_fd[i] : -1};
}

/* ---- pins ---- */

static int pin_maps(struct rg_enforce *e)
{
	char path[PATH_MAX];
	int r;

	for (size_t i = 0; i < NMAPS; i++) {
		/* our own (taken over) pins stay; new maps replace another version's */
		if (e->took_over && e->pinned_fd[i] >= 0 && e->map_fd[i] == e->pinned_fd[i] &&
		    snprintf_ok(path, sizeof(path), "%s/maps/%s", e->pin_dir, map_names[i]) &&
		    exists(path))
			continue;
		r = enforce_pin_replace(e->pin_dir, "maps", map_names[i], e->map_fd[i]);
		if (r < 0)
			return r;
	}
	return 0;
}

/* ---- programs ---- */

static struct bpf_program *prog_of(struct rg_enforce *e, size_t i)
{
	return bpf_object__find_program_by_name(e->skel->obj, prog_defs[i].name);
}

/* Whether a pin's name is one of this daemon's programs (enforce_pins_drop_stale()). */
static bool prog_known(const char *name)
{
	for (size_t i = 0; i < NPROGS; i++)
		if (strcmp(name, prog_defs[i].name) == 0)
			return true;
	return false;
}

static bool prog_possible(struct rg_enforce *e, size_t i)
{
	const struct prog_def *d = &prog_defs[i];
	char cat[64], *nm;

	switch (d->kind) {
	case P_LSM:
		return e->lsm && kfunc_in_btf(d->need, NULL);
	case P_TRACK:
		return true;
	case P_KILL:
		if (e->lsm || !strscpy_ok(cat, d->need, sizeof(cat)))
			return false;
		nm = strchr(cat, '/');
		if (!nm)
			return false;
		*nm++ = 0;
		return tracepoint_exists(cat, nm);
	}
	return false;
}

static void set_knobs(struct rg_enforce *e)
{
	e->skel->rodata->rg_tick_ns = 1000000000ull / (uint64_t)clock_ticks_per_sec();
	e->skel->rodata->rg_self_tgid = 0; /* the verdicts exempt the daemon via enf_state */
	e->skel->rodata->rg_nr_ioctl = SYS_ioctl;
	e->skel->rodata->rg_nr_write = SYS_write;
	e->skel->rodata->rg_nr_mmap = SYS_mmap;
	e->skel->rodata->rg_nr_openat = SYS_openat;
	(void)kernel_inode_ctime_offsets((uint32_t *)&e->skel->rodata->rg_ctime_sec_off,
					 (uint32_t *)&e->skel->rodata->rg_ctime_nsec_off);
	e->skel->rodata->rg_have_loop = kernel_has_bpf_loop();
}

static int load_programs(struct rg_enforce *e, struct rg_sensors *s)
{
	int r;

	e->skel = enforce_bpf__open();
	if (!e->skel)
		return log_error_errno(-errno, "Failed to open the enforcement programs: %m");
	bpf_map__set_max_entries(e->skel->maps.events, ENFORCE_RINGBUF);
	for (size_t i = 0; i < NMAPS; i++) {
		struct bpf_map *m = bpf_object__find_map_by_name(e->skel->obj, map_names[i]);
		int fd = e->pinned_fd[i];

		/* no (usable) pins: the sensors' own instances of the shared maps */
		if (fd < 0 && map_shared(i))
			fd = sensors_map_fd(s, map_names[i]);
		if (fd < 0)
			continue;
		r = m ? bpf_map__reuse_fd(m, fd) : -ENOENT;
		if (r < 0)
			return log_error_errno(r, "Failed to share map %s: %m", map_names[i]);
	}
	set_knobs(e);
	for (size_t i = 0; i < NPROGS; i++) {
		struct bpf_program *p = prog_of(e, i);

		if (p)
			bpf_program__set_autoload(p, prog_possible(e, i));
	}
	r = enforce_bpf__load(e->skel);
	if (r < 0)
		return log_error_errno(r, "Failed to load the enforcement programs: %m");
	for (size_t i = 0; i < NMAPS; i++)
		e->map_fd[i] =
		    bpf_map__fd(bpf_object__find_map_by_name(e->skel->obj, map_names[i]));
	return 0;
}

/* The RG_KILLTP_* bit of an open-exit kill program, 0 for the others. */
static uint32_t killtp_bit(size_t i)
{
	static const struct {
		const char *name;
		uint32_t bit;
	} bits[] = {
	    {"enf_tp_exit_open", RG_KILLTP_OPEN},     {"enf_tp_exit_openat", RG_KILLTP_OPENAT},
	    {"enf_tp_exit_openat2", RG_KILLTP_OPENAT2}, {"enf_tp_exit_creat", RG_KILLTP_CREAT},
	    {"enf_tp_compat_exit", RG_KILLTP_COMPAT_OPENS},
	};

	for (size_t k = 0; k < ARRAY_SIZE(bits); k++)
		if (strcmp(prog_defs[i].name, bits[k].name) == 0)
			return bits[k].bit;
	return 0;
}

/*
 * Tells the sensors which open-exit kill programs are attached: where one runs on the same
 * syscall as a sensor, the open it kills for is its to report, whichever runs first.
 * before_sync: before links go, only the bits of those that stay (set again once attached).
 */
static void publish_kill_hooks(struct rg_enforce *e, bool before_sync)
{
	uint32_t m = 0;

	for (size_t i = 0; i < NPROGS; i++)
		if (e->links[i] && !e->lifted && (!before_sync || e->wanted[i]))
			m |= killtp_bit(i);
	sensors_set_enforce_kill_hooks(e->sensors, m);
}

/* Attaches what is wanted now (pinning each new link over an older one), drops the rest. */
static int sync_links(struct rg_enforce *e)
{
	char path[PATH_MAX];
	int r, failures = 0;

	/* what goes is no longer counted on by the sensors, before it goes */
	for (size_t i = 0; i < NPROGS; i++) {
		const struct prog_def *d = &prog_defs[i];
		struct bpf_program *p = prog_of(e, i);

		e->wanted[i] =
		    p && bpf_program__fd(p) >= 0 && (d->kind != P_KILL || (e->kill & d->kills));
	}
	publish_kill_hooks(e, true);
	for (size_t i = 0; i < NPROGS; i++) {
		const struct prog_def *d = &prog_defs[i];
		struct bpf_program *p = prog_of(e, i);
		bool want =
		    p && bpf_program__fd(p) >= 0 && (d->kind != P_KILL || (e->kill & d->kills));

		e->wanted[i] = want;
		if (!want) {
			if (e->links[i]) {
				sensors_unwatch_link(e->sensors, e->links[i]);
				bpf_link__destroy(e->links[i]);
				e->links[i] = NULL;
			}
			/* an earlier daemon's link of this program goes too */
			if (snprintf_ok(path, sizeof(path), "%s/links/%s", e->pin_dir, d->name))
				(void)unlink(path);
			if (snprintf_ok(path, sizeof(path), "%s/progs/%s", e->pin_dir, d->name))
				(void)unlink(path);
			continue;
		}
		if (e->links[i])
			continue;
		e->links[i] = bpf_program__attach(p);
		if (!e->links[i]) {
			r = -errno;
			log_error_errno(r, "Failed to attach enforcement program %s (%s): %m",
					d->name, bpf_program__section_name(p));
			failures++;
			continue;
		}
		sensors_watch_link(e->sensors, e->links[i], d->name);
		r = enforce_pin_replace(e->pin_dir, "links", d->name, bpf_link__fd(e->links[i]));
		if (r == 0)
			r = enforce_pin_replace(e->pin_dir, "progs", d->name, bpf_program__fd(p));
		if (r < 0)
			failures++;
	}
	publish_kill_hooks(e, false);
	return failures ? -EIO : 0;
}

/* ---- filling ---- */

static void write_state(struct rg_enforce *e, struct rg_engine *eng)
{
	struct rg_enf_state st = {0};
	struct engine_stats es;
	__u32 zero = 0;

	(void)bpf_map_lookup_elem(e->map_fd[2], &zero, &st);
	engine_get_stats(eng, &es);
	st.daemon_tgid = (uint32_t)getpid();
	st.daemon_start_ns = e->self_start_ns;
	st.abi = RG_ENF_ABI;
	st.game_daemon = es.games_running > 0;
	if (bpf_map_update_elem(e->map_fd[2], &zero, &st, BPF_ANY) < 0)
		log_warning_errno(-errno, "Failed to write the enforcement state: %m");
	e->game_daemon = (int)st.game_daemon;
}

static uint32_t current_generation(struct rg_enforce *e)
{
	struct rg_enf_key k = {.kind = RG_ENF_KEY_CONFIG};
	struct rg_enf_val v;
	__u32 zero = 0, id = 0;
	int inner;
	uint32_t g = 0;

	if (bpf_map_lookup_elem(e->map_fd[0], &zero, &id) < 0 || !id)
		return 0;
	inner = bpf_map_get_fd_by_id(id);
	if (inner < 0)
		return 0;
	if (bpf_map_lookup_elem(inner, &k, &v) == 0)
		g = v.cfg.generation;
	close(inner);
	return g;
}

/* Builds the policy's generation and swaps it in. */
static int fill(struct rg_enforce *e, const struct rg_policy *p, struct rg_engine *eng)
{
	struct enforce_build_opts o = {.lsm = e->lsm};
	uint32_t cs, cn;
	struct enforce_tables t;
	struct rg_enf_key ck = {.kind = RG_ENF_KEY_CONFIG};
	struct rg_enf_val cv = {0};
	LIBBPF_OPTS(bpf_map_create_opts, mo, .map_flags = BPF_F_NO_PREALLOC);
	__u32 zero = 0;
	int inner, r;

	e->kill = enforce_kill_mask(eng, NULL, NULL, NULL);
	o.kill = e->kill;
	o.generation = ++e->generation;
	o.no_ctime = kernel_inode_ctime_offsets(&cs, &cn) < 0;
	r = enforce_tables_build(p, &o, &t);
	if (r < 0)
		return log_error_errno(r, "Failed to turn the policy into enforcement maps: %m");
	inner = bpf_map_create(BPF_MAP_TYPE_HASH, "enf_generation", sizeof(struct rg_enf_key),
			       sizeof(struct rg_enf_val), RG_ENF_POLICY_MAX, &mo);
	if (inner < 0) {
		r = log_error_errno(-errno, "Failed to create an enforcement map: %m");
		enforce_tables_free(&t);
		return r;
	}
	cv.cfg = t.cfg;
	r = bpf_map_update_elem(inner, &ck, &cv, BPF_NOEXIST) < 0 ? -errno : 0;
	for (size_t i = 0; i < t.n && r == 0; i++)
		if (bpf_map_update_elem(inner, &t.entries[i].key, &t.entries[i].val, BPF_NOEXIST) <
		    0)
			r = -errno;
	if (r == 0) {
		write_state(e, eng);
		/* the one moment the policy changes for the programs */
		if (bpf_map_update_elem(e->map_fd[0], &zero, &inner, BPF_ANY) < 0)
			r = -errno;
	}
	if (r == 0) {
		uint32_t id = sensors_watch_map(e->sensors, inner, "enf_generation");

		sensors_unwatch_map(e->sensors, e->inner_id);
		e->inner_id = id;
	}
	close(inner);
	if (r < 0) {
		enforce_tables_free(&t);
		return log_error_errno(r, "Failed to fill the enforcement maps: %m");
	}
	enforce_tables_free(&e->tables);
	e->tables = t;
	log_info("Enforcement generation %" PRIu32 ": %s, scope %s, %zu allowlisted executable(s), "
		 "%zu game file(s)%s.",
		 e->generation, e->lsm ? "deny (BPF LSM) and kill" : "kill only (no BPF LSM)",
		 t.cfg.scope == RG_ENF_SCOPE_WHILE_GAME ? "while a game runs" : "always", t.n_allow,
		 t.n_games,
		 t.unresolved ? " (some allow entries could not be expressed: denied)" : "");
	return 0;
}

void enforce_push_games(struct rg_enforce *e, struct rg_engine *eng)
{
	struct engine_stats es;

	if (!enforce_started(e))
		return;
	game_pids_push_all(e->map_fd[1], eng, PROC_F_GAME_PUSHED);
	engine_get_stats(eng, &es);
	if ((int)(es.games_running > 0) != e->game_daemon)
		write_state(e, eng);
}

int enforce_start(struct rg_enforce *e, struct rg_sensors *s, const struct rg_policy *p,
		  struct rg_engine *eng)
{
	int r;

	if (e->started)
		return enforce_reload(e, p, eng);
	e->self_start_ns = self_start_ns();
	e->sensors = s;
	r = load_programs(e, s);
	if (r < 0)
		return r;
	sensors_watch_maps(s, e->skel->obj);
	if (e->took_over) {
		e->generation = current_generation(e);
		log_info("Taking over the enforcement pinned in %s (generation %" PRIu32 ").",
			 e->pin_dir, e->generation);
	}
	r = fill(e, p, eng);
	if (r < 0)
		return r;
	game_pids_push_all(e->map_fd[1], eng, PROC_F_GAME_PUSHED);
	r = pin_maps(e);
	if (r < 0)
		return r;
	r = sync_links(e);
	if (r < 0)
		return r;
	enforce_pins_drop_stale(e->pin_dir, prog_known);
	r = sensors_add_ringbuf(s, e->map_fd[3]);
	if (r < 0)
		return r;
	e->pinned = true;
	e->started = true;
	e->lifted = false;
	return 0;
}

int enforce_reload(struct rg_enforce *e, const struct rg_policy *p, struct rg_engine *eng)
{
	int r;

	if (!e->started)
		return -ENOTCONN;
	r = fill(e, p, eng);
	if (r < 0)
		return r;
	if (e->lifted) {
		/* lifted by `rdmaguard enforce --off`: a reload that still asks for it re-arms */
		r = pin_maps(e);
		if (r < 0)
			return r;
		e->lifted = false;
	}
	return sync_links(e);
}

void enforce_event(struct rg_enforce *e, const struct rg_event *ev, struct rg_engine *eng)
{
	struct engine_stats es;

	if (!enforce_started(e))
		return;
	switch (ev->type) {
	case RG_EV_DEVICE_ADD:
	case RG_EV_DEVICE_REMOVE:
		if (!(ev->flags & RG_EVF_DENIED) && e->tables.has_devices)
			(void)fill(e, engine_policy(eng), eng);
		return;
	case RG_EV_MODULE_LOAD:
		if (!(ev->flags & RG_EVF_DENIED) && !e->tables.cfg.rdma_cm_rdev &&
		    strcmp(ev->u.mod.name, "rdma_ucm") == 0)
			(void)fill(e, engine_policy(eng), eng);
		return;
	default:
		break;
	}
	if (!game_pids_event(e->map_fd[1], ev, eng, PROC_F_GAME_PUSHED))
		return;
	engine_get_stats(eng, &es);
	if ((int)(es.games_running > 0) != e->game_daemon)
		write_state(e, eng);
}

int enforce_tick(struct rg_enforce *e, struct rg_engine *eng)
{
	char path[PATH_MAX];

	if (!enforce_started(e))
		return 0;
	if (snprintf_ok(path, sizeof(path), "%s/maps/%s", e->pin_dir, map_names[0]) &&
	    !exists(path)) {
		sensors_set_enforce_kill_hooks(e->sensors, 0);
		for (size_t i = 0; i < NPROGS; i++) {
			sensors_unwatch_link(e->sensors, e->links[i]);
			bpf_link__destroy(e->links[i]);
			e->links[i] = NULL;
		}
		e->lifted = true;
		log_warning("The enforcement pins in %s were removed: enforcement is lifted.",
			    e->pin_dir);
		return 1;
	}
	if (e->tables.next_expiry_ns && now_realtime_ns() >= e->tables.next_expiry_ns)
		(void)fill(e, engine_policy(eng), eng);
	return 0;
}

struct json_object *enforce_describe(struct rg_enforce *e)
{
	struct json_object *o = json_object_new_object(), *hooks = json_object_new_array(),
			   *kills = json_object_new_array();
	static const char *const kill_names[] = {"RDMA-004", "RDMA-005", "RDMA-009", "RDMA-006",
						 "RDMA-007"};

	if (!o)
		return NULL;
	json_object_object_add(o, "mode",
			       json_object_new_string(!enforce_started(e) ? "off"
						      : e->lsm		  ? "deny"
									  : "kill"));
	json_object_object_add(o, "lsm", json_object_new_boolean(e->lsm));
	json_object_object_add(o, "pin_dir", json_object_new_string(e->pin_dir));
	json_object_object_add(o, "took_over", json_object_new_boolean(e->took_over));
	json_object_object_add(o, "generation", json_object_new_int64(e->generation));
	for (size_t i = 0; i < NPROGS; i++)
		if (e->links[i])
			json_object_array_add(hooks, json_object_new_string(prog_defs[i].name));
	json_object_object_add(o, "programs", hooks);
	for (size_t i = 0; i < ARRAY_SIZE(kill_names); i++)
		if (e->kill & (1u << i))
			json_object_array_add(kills, json_object_new_string(kill_names[i]));
	json_object_object_add(o, "kill_rules", kills);
	json_object_object_add(o, "allow_executables",
			       json_object_new_int64((int64_t)e->tables.n_allow));
	json_object_object_add(o, "game_files", json_object_new_int64((int64_t)e->tables.n_games));
	json_object_object_add(o, "unresolved",
			       json_object_new_int64((int64_t)e->tables.unresolved));
	return o;
}

void enforce_summary(struct rg_enforce *e, char *buf, size_t size)
{
	snprintf(buf, size, "%s%s",
		 !enforce_started(e) ? "off"
		 : e->lsm	     ? "deny"
				     : "kill",
		 e->took_over ? ",takeover" : "");
}

void enforce_close(struct rg_enforce *e)
{
	if (!e)
		return;
	/* The pins hold maps, programs and links: closing ours detaches nothing. */
	for (size_t i = 0; i < NPROGS; i++)
		bpf_link__destroy(e->links[i]);
	enforce_bpf__destroy(e->skel);
	close_pinned(e);
	enforce_tables_free(&e->tables);
	free(e);
}
