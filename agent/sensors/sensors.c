/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Loading, choosing and attaching the sensors; consuming their records. See sensors.h for the hook
 * points. The plan is computed per hook point from feature probes; the tracepoint flavour is
 * always loaded (not attached) as the fallback, so that a hook that fails to attach, or waits for
 * a module, degrades to it without reloading.
 */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <infiniband/verbs.h>
#include <inttypes.h>
#include <net/if.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "bpf/events.h"
#include "common/log.h"
#include "common/macro.h"
#include "common/procstat.h"
#include "common/util.h"
#include "convert.h"
#include "elfsym.h"
#include "probe.h"
#include "ringwake.h"
#include "sensors.h"
#include "sensors.skel.h"
#include "sensors_mod.skel.h"
#include "uevent.h"

#define DEFAULT_ROCE_S	10
#define MAX_LINKS	64
#define MAX_TC_IFS	32
#define MAX_CM_IDS	1024
#define MAX_FLOWS	4096
#define DEVCACHE	32
#define SEED_MAX_PIDS	65536
#define SEED_MAX_FDS	65536
#define MAX_SELF_OBJS	128
#define RG_TC_HANDLE	0x52474

DEFINE_TRIVIAL_CLEANUP_FUNC(DIR *, closedir)

enum flavor {
	FL_NONE = 0,
	FL_TRACEPOINT,
	FL_KPROBE,
	FL_FENTRY,
	FL_LSM,
	FL_UPROBE,
	FL_TC,
	FL_UEVENT,
};

static const char *const flavor_names[] = {
    [FL_NONE] = "none",	    [FL_TRACEPOINT] = "tracepoint",
    [FL_KPROBE] = "kprobe", [FL_FENTRY] = "fentry",
    [FL_LSM] = "lsm",	    [FL_UPROBE] = "uprobe",
    [FL_TC] = "tc",	    [FL_UEVENT] = "uevent",
};

struct variant {
	enum flavor flavor;
	const char *progs[8];
	const char *kfunc;  /* must exist: BTF for fentry/lsm, kallsyms for kprobes */
	const char *module; /* kfunc lives in this module: usable once it is loaded */
	bool mod_obj;	    /* programs are in the sensors_mod object */
};

struct hook_def {
	const char *name;
	struct variant v[4];
};

#define TP_MEM                                                                                     \
	{                                                                                          \
		"tp_enter_pvm_readv", "tp_exit_pvm_readv", "tp_enter_pvm_writev",                  \
		    "tp_exit_pvm_writev", "tp_enter_ptrace", "tp_exit_ptrace"                      \
	}

enum {
	HP_PROCESS,
	HP_OPEN,
	HP_VERBS,
	HP_RDMA_CM,
	HP_MMAP,
	HP_MEMORY,
	HP_LIBRARY,
	HP_MODULES,
	HP_DEVICES,
	HP_ROCE,
	HP_SELF,
	HP__MAX,
};

static const struct hook_def hook_defs[HP__MAX] = {
    [HP_PROCESS] = {"process",
		    {{FL_TRACEPOINT, {"tp_sched_exec", "rawtp_sched_fork", "tp_sched_exit"}}}},
    [HP_OPEN] = {"open",
		 {{FL_FENTRY, {"fe_fd_install"}, "fd_install"},
		  {FL_KPROBE, {"kp_fd_install"}, "fd_install"},
		  {FL_TRACEPOINT, {"tp_exit_openat", "tp_exit_open", "tp_exit_openat2"}}}},
    [HP_VERBS] = {"verbs",
		  {{FL_FENTRY,
		    {"fx_uverbs_ioctl", "fx_uverbs_write", "fe_uverbs_mmap"},
		    "ib_uverbs_ioctl",
		    "ib_uverbs",
		    true},
		   {FL_KPROBE,
		    {"kp_uverbs_ioctl", "krp_uverbs_ioctl", "kp_uverbs_write", "krp_uverbs_write",
		     "kp_uverbs_mmap"},
		    "ib_uverbs_ioctl",
		    "ib_uverbs"},
		   /* the syscall level, while ib_uverbs is absent */
		   {FL_FENTRY,
		    {"fe_sys_ioctl", "fx_sys_ioctl", "fe_sys_write", "fx_sys_write", "fe_sys_writev",
		     "fx_sys_writev", "fe_sys_pwritev2", "fx_sys_pwritev2"},
		    RG_SYSCALL_FN("ioctl")},
		   {FL_TRACEPOINT,
		    {"tp_enter_ioctl", "tp_exit_ioctl", "tp_enter_write", "tp_exit_write",
		     "tp_enter_writev", "tp_exit_writev", "tp_enter_pwritev2", "tp_exit_pwritev2"}}}},
    [HP_RDMA_CM] = {"rdma_cm",
		    {{FL_FENTRY, {"fx_ucma_write"}, "ucma_write", "rdma_ucm", true},
		     {FL_KPROBE, {"kp_ucma_write", "krp_ucma_write"}, "ucma_write", "rdma_ucm"},
		     {FL_FENTRY,
		      {"fe_sys_write", "fx_sys_write", "fe_sys_writev", "fx_sys_writev",
		       "fe_sys_pwritev2", "fx_sys_pwritev2"},
		      RG_SYSCALL_FN("write")},
		     {FL_TRACEPOINT,
		      {"tp_enter_write", "tp_exit_write", "tp_enter_writev", "tp_exit_writev",
		       "tp_enter_pwritev2", "tp_exit_pwritev2"}}}},
    [HP_MMAP] = {"mmap",
		 {{FL_LSM, {"lsm_mmap_file"}, "bpf_lsm_mmap_file"},
		  {FL_FENTRY, {"fe_security_mmap_file"}, "security_mmap_file"},
		  {FL_KPROBE, {"kp_security_mmap_file"}, "security_mmap_file"},
		  {FL_TRACEPOINT, {"tp_enter_mmap"}}}},
    [HP_MEMORY] = {"memory",
		   {{FL_LSM, {"lsm_ptrace_access_check"}, "bpf_lsm_ptrace_access_check"},
		    {FL_FENTRY, {"fx_ptrace_access_check"}, "security_ptrace_access_check"},
		    {FL_KPROBE, {"kp_ptrace_access_check"}, "security_ptrace_access_check"},
		    {FL_TRACEPOINT, TP_MEM}}},
    [HP_LIBRARY] = {"library", {{FL_UPROBE, {"up_ibv_get_device_list", "up_ibv_open_device"}}}},
    [HP_MODULES] = {"modules", {{FL_TRACEPOINT, {"tp_module_load"}}, {FL_UEVENT}}},
    [HP_DEVICES] = {"devices", {{FL_UEVENT}}},
    [HP_ROCE] = {"roce", {{FL_TC, {"tc_roce_ingress", "tc_roce_egress"}}}},
    [HP_SELF] = {"self",
		 {{FL_FENTRY, {"fx_sys_bpf"}, RG_SYSCALL_FN("bpf")},
		  {FL_KPROBE, {"krp_sys_bpf"}, RG_SYSCALL_FN("bpf")},
		  {FL_TRACEPOINT, {"tp_enter_bpf", "tp_exit_bpf"}}}},
};

struct hook_state {
	int want;   /* variant chosen: best possible, now or once its module is loaded */
	int active; /* variant attached now, -1 for none */
	char note[160];
};

struct plan {
	struct hook_state hp[HP__MAX];
};

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

struct self_obj { /* one of our own BPF maps or links, as registered in self_objs */
	uint32_t kind; /* RG_SELF_* */
	uint32_t id;
	bool mod; /* a map of the module object: forgotten when it is unloaded */
	char name[32];
};

struct devcache_ent {
	uint32_t rdev;
	char name[RG_DEVNAME_LEN];
};

struct rg_sensors {
	struct sensors_config cfg;
	struct sensors_features feat;
	struct plan plan;
	struct sensors_bpf *skel;
	struct sensors_mod_bpf *mod;
	bool mod_has_uverbs, mod_has_cm;
	struct ring_buffer *rb;
	struct ringwake wake; /* when rb's records wake the reader */
	struct link_ent links[MAX_LINKS];
	size_t nlinks;
	struct bpf_link *uprobes[2];
	char ibverbs_path[PATH_MAX];
	struct tc_if tc[MAX_TC_IFS];
	size_t ntc;
	int epfd, uevent_fd, timer_fd;
	bool mods_present[2]; /* ib_uverbs, rdma_ucm */
	uint64_t ticks;
	uint64_t *lost_prev;
	int ncpus;
	struct cm_ent cm[MAX_CM_IDS];
	size_t cm_next;
	struct task_cache tasks; /* fork/exec in ring order, for targets named by pid */
	struct exit_ring exits;	 /* exits reported lately: each process's once */
	struct flow_ent *flows;
	size_t nflows;
	struct devcache_ent devcache[DEVCACHE];
	size_t devcache_next;
	uint64_t tick_ns;
	struct convert_ctx cctx;
	/* During sensors_poll(). */
	sensors_cb cb;
	void *ud;
	int delivered;
	int cb_error;
	struct self_obj self[MAX_SELF_OBJS];
	size_t nself;
	int extra_rb[4]; /* other ring buffers consumed by rb (enforcement's) */
	size_t n_extra_rb;
	/* AGENT_SENSOR events raised outside sensors_poll(), delivered at the next one. */
	struct rg_event queued[16];
	size_t nqueued;
};

static const char *const mode_names[SENSORS__MAX] = {
    [SENSORS_AUTO] = "auto",
    [SENSORS_FENTRY] = "fentry",
    [SENSORS_KPROBE] = "kprobe",
    [SENSORS_TRACEPOINT] = "tracepoint",
};

const char *sensors_mode_to_string(unsigned m)
{
	return m < SENSORS__MAX ? mode_names[m] : NULL;
}

int sensors_mode_from_string(const char *s)
{
	for (unsigned i = 0; i < SENSORS__MAX; i++)
		if (s && strcmp(s, mode_names[i]) == 0)
			return (int)i;
	return -EINVAL;
}

static const struct variant *variant_of(unsigned hp, int idx)
{
	if (idx < 0 || idx >= 4 || hook_defs[hp].v[idx].flavor == FL_NONE)
		return NULL;
	return &hook_defs[hp].v[idx];
}

/* ---- planning ---- */

static bool mode_allows(enum sensors_mode mode, unsigned hp, enum flavor fl)
{
	switch (fl) {
	case FL_UPROBE:
	case FL_TC:
	case FL_UEVENT:
	case FL_TRACEPOINT:
		return true;
	case FL_LSM:
		return mode == SENSORS_AUTO;
	case FL_FENTRY:
		return mode == SENSORS_AUTO || mode == SENSORS_FENTRY;
	case FL_KPROBE:
		return mode == SENSORS_AUTO || mode == SENSORS_KPROBE;
	default:
		return false;
	}
}

/* Can the variant work on this kernel? *deferred: only once its module is loaded. */
static bool variant_possible(const struct sensors_features *f, unsigned hp, const struct variant *v,
			     bool *deferred, char *why, size_t whylen)
{
	*deferred = false;
	switch (v->flavor) {
	case FL_TRACEPOINT:
		if (hp == HP_PROCESS) {
			if (!f->tracefs || !f->raw_tp) {
				snprintf(why, whylen, "no tracefs or raw tracepoints");
				return false;
			}
			return true;
		}
		if (hp == HP_MODULES) {
			if (!f->module_tp)
				snprintf(why, whylen, "no module:module_load tracepoint");
			return f->module_tp;
		}
		if (!f->syscall_tp)
			snprintf(why, whylen, "no syscall tracepoints");
		return f->syscall_tp;
	case FL_UPROBE:
		if (!f->uprobe)
			snprintf(why, whylen, "no uprobes");
		return f->uprobe;
	case FL_TC:
		if (!f->tc)
			snprintf(why, whylen, "no TC BPF programs");
		return f->tc;
	case FL_UEVENT:
		return true;
	case FL_LSM:
		if (!f->lsm) {
			snprintf(why, whylen, "BPF LSM not active");
			return false;
		}
		return kfunc_in_btf(v->kfunc, NULL);
	case FL_FENTRY:
		if (!f->fentry) {
			snprintf(why, whylen, "fentry refused");
			return false;
		}
		if (v->module) {
			if (!module_present(v->module)) {
				*deferred = true;
				return true;
			}
			if (!module_has_btf(v->module)) {
				snprintf(why, whylen, "no BTF for %s", v->module);
				return false;
			}
			return kfunc_in_btf(v->kfunc, v->module);
		}
		if (!kfunc_in_btf(v->kfunc, NULL)) {
			snprintf(why, whylen, "%s not in BTF", v->kfunc);
			return false;
		}
		return true;
	case FL_KPROBE:
		if (!f->kprobe) {
			snprintf(why, whylen, "no kprobes");
			return false;
		}
		if (v->module && !module_present(v->module)) {
			*deferred = true;
			return true;
		}
		if (!kfunc_in_kallsyms(v->kfunc)) {
			snprintf(why, whylen, "%s not in kallsyms", v->kfunc);
			return false;
		}
		return true;
	default:
		return false;
	}
}

static int make_plan(const struct sensors_config *cfg, const struct sensors_features *f,
		     struct plan *p)
{
	for (unsigned hp = 0; hp < HP__MAX; hp++) {
		struct hook_state *st = &p->hp[hp];
		bool forced_has = false;
		char why[96] = "";

		st->want = st->active = -1;
		st->note[0] = 0;
		for (int i = 0; i < 4; i++) {
			const struct variant *v = variant_of(hp, i);
			bool deferred;

			if (!v || !mode_allows(cfg->mode, hp, v->flavor))
				continue;
			if ((cfg->mode == SENSORS_FENTRY && v->flavor == FL_FENTRY) ||
			    (cfg->mode == SENSORS_KPROBE && v->flavor == FL_KPROBE))
				forced_has = true;
			if (hp == HP_LIBRARY && cfg->no_uprobes)
				continue;
			if (hp == HP_ROCE && cfg->no_roce)
				continue;
			if ((hp == HP_DEVICES || (hp == HP_MODULES && v->flavor == FL_UEVENT)) &&
			    cfg->no_uevents)
				continue;
			if (!variant_possible(f, hp, v, &deferred, why, sizeof(why))) {
				/* fentry on the syscalls only stands in for a module's: the
				 * tracepoints do that where it cannot */
				if (forced_has && v->flavor != FL_TRACEPOINT &&
				    !(v->flavor == FL_FENTRY && !v->module && st->want >= 0)) {
					log_error("Hook point %s: %s is not available: %s.",
						  hook_defs[hp].name, flavor_names[v->flavor], why);
					return -EOPNOTSUPP;
				}
				continue;
			}
			if (st->want < 0)
				st->want = i;
			if (!deferred) {
				st->active = i;
				break;
			}
			if (st->want == i)
				snprintf(st->note, sizeof(st->note), "%s once %s is loaded",
					 flavor_names[v->flavor], v->module);
		}
		if (st->want < 0 && why[0])
			snprintf(st->note, sizeof(st->note), "unavailable: %s", why);
	}
	return 0;
}

static _printf_(2, 0) int libbpf_log(enum libbpf_print_level level, const char *fmt, va_list ap);

/* ---- JSON description ---- */

static struct json_object *describe(const struct sensors_config *cfg,
				    const struct sensors_features *f, const struct plan *p,
				    struct rg_sensors *s, struct bpf_object *main_obj,
				    struct bpf_object *mod_obj)
{
	struct json_object *o = json_object_new_object(), *feat, *hooks, *mods;

	if (!o)
		return NULL;
	json_object_object_add(o, "mode", json_object_new_string(mode_names[cfg->mode]));
	json_object_object_add(o, "ring_buffer_bytes",
			       json_object_new_int64((int64_t)(cfg->ringbuf_bytes
								   ? cfg->ringbuf_bytes
								   : SENSORS_DEFAULT_RINGBUF)));
	json_object_object_add(o, "ring_wakeups",
			       json_object_new_string(cfg->ring_always_wake ? "always" : "burst"));
	feat = json_object_new_object();
	json_object_object_add(feat, "tracepoint", json_object_new_boolean(f->syscall_tp));
	json_object_object_add(feat, "raw_tracepoint", json_object_new_boolean(f->raw_tp));
	json_object_object_add(feat, "kprobe", json_object_new_boolean(f->kprobe));
	json_object_object_add(feat, "fentry", json_object_new_boolean(f->fentry));
	json_object_object_add(feat, "lsm", json_object_new_boolean(f->lsm));
	json_object_object_add(feat, "uprobe", json_object_new_boolean(f->uprobe));
	json_object_object_add(feat, "ringbuf", json_object_new_boolean(f->ringbuf));
	json_object_object_add(feat, "tc", json_object_new_boolean(f->tc));
	json_object_object_add(feat, "lsms", json_object_new_string(f->lsms));
	json_object_object_add(o, "features", feat);
	mods = json_object_new_object();
	json_object_object_add(mods, "ib_uverbs",
			       json_object_new_boolean(module_present("ib_uverbs")));
	json_object_object_add(mods, "rdma_ucm",
			       json_object_new_boolean(module_present("rdma_ucm")));
	json_object_object_add(o, "modules", mods);
	hooks = json_object_new_object();
	for (unsigned hp = 0; hp < HP__MAX; hp++) {
		const struct hook_state *st = &p->hp[hp];
		const struct variant *want = variant_of(hp, st->want),
				     *act = variant_of(hp, st->active);
		struct json_object *h = json_object_new_object(), *progs = json_object_new_array();

		json_object_object_add(
		    h, "chosen",
		    json_object_new_string(flavor_names[want ? want->flavor : FL_NONE]));
		json_object_object_add(
		    h, "active", json_object_new_string(flavor_names[act ? act->flavor : FL_NONE]));
		if (act)
			for (int i = 0; i < 8 && act->progs[i]; i++) {
				const char *name = act->progs[i];
				struct bpf_program *prog = NULL;

				if (act->mod_obj && mod_obj)
					prog = bpf_object__find_program_by_name(mod_obj, name);
				else if (!act->mod_obj && main_obj)
					prog = bpf_object__find_program_by_name(main_obj, name);
				/* section names say where; "tc" and "uprobe" say nothing */
				json_object_array_add(
				    progs,
				    json_object_new_string(prog && act->flavor != FL_TC &&
								   act->flavor != FL_UPROBE
							       ? bpf_program__section_name(prog)
							       : name));
			}
		json_object_object_add(h, "programs", progs);
		if (st->note[0])
			json_object_object_add(h, "note", json_object_new_string(st->note));
		if (hp == HP_ROCE && s) {
			struct json_object *ifs = json_object_new_array();

			for (size_t i = 0; i < s->ntc; i++)
				json_object_array_add(ifs, json_object_new_string(s->tc[i].name));
			json_object_object_add(h, "interfaces", ifs);
		}
		if (hp == HP_LIBRARY && s && s->ibverbs_path[0])
			json_object_object_add(h, "library",
					       json_object_new_string(s->ibverbs_path));
		json_object_object_add(hooks, hook_defs[hp].name, h);
	}
	json_object_object_add(o, "hooks", hooks);
	return o;
}

int sensors_plan(const struct sensors_config *cfg, struct json_object **ret)
{
	struct sensors_features f;
	struct plan p;
	int r;

	struct sensors_bpf *skel;
	struct sensors_mod_bpf *mod;

	libbpf_set_print(libbpf_log);
	sensors_probe_features(&f);
	r = make_plan(cfg, &f, &p);
	if (r < 0)
		return r;
	/* Opened, not loaded: only for the programs' section names. */
	skel = sensors_bpf__open();
	mod = sensors_mod_bpf__open();
	*ret = describe(cfg, &f, &p, NULL, skel ? skel->obj : NULL, mod ? mod->obj : NULL);
	sensors_mod_bpf__destroy(mod);
	sensors_bpf__destroy(skel);
	return *ret ? 0 : -ENOMEM;
}

struct json_object *sensors_describe(struct rg_sensors *s)
{
	return describe(&s->cfg, &s->feat, &s->plan, s, s->skel->obj, s->mod ? s->mod->obj : NULL);
}

/* ---- queued agent events ---- */

static void queue_sensor_event(struct rg_sensors *s, unsigned hp, bool ok, const char *fmt, ...)
    _printf_(4, 5);
static void queue_sensor_event(struct rg_sensors *s, unsigned hp, bool ok, const char *fmt, ...)
{
	struct rg_event *ev;
	va_list ap;

	if (s->nqueued >= ARRAY_SIZE(s->queued))
		return;
	ev = &s->queued[s->nqueued++];
	memset(ev, 0, sizeof(*ev));
	ev->type = RG_EV_AGENT_SENSOR;
	ev->provider = RG_PROV_AGENT;
	ev->ts = now_realtime_ns();
	ev->u.agent.ok = ok;
	strscpy_ok(ev->u.agent.what, hook_defs[hp].name, sizeof(ev->u.agent.what));
	va_start(ap, fmt);
	vsnprintf(ev->u.agent.text, sizeof(ev->u.agent.text), fmt, ap);
	va_end(ap);
}

/* ---- self-protection ---- */

/*
 * Registers one of our own maps or links in self_objs: the self hook point then reports any bpf()
 * command by another process that changes it (the kernel's event, naming that process).
 */
static uint32_t obj_id(uint32_t kind, int fd)
{
	int r;

	if (fd < 0)
		return 0;
	if (kind == RG_SELF_MAP) {
		struct bpf_map_info info;
		uint32_t len = sizeof(info);

		memset(&info, 0, sizeof(info));
		r = bpf_obj_get_info_by_fd(fd, &info, &len);
		return r < 0 ? 0 : info.id;
	} else {
		struct bpf_link_info info;
		uint32_t len = sizeof(info);

		memset(&info, 0, sizeof(info));
		r = bpf_obj_get_info_by_fd(fd, &info, &len);
		return r < 0 ? 0 : info.id;
	}
}

/* Our own bpf() calls are not reported (is_self()): forgetting one is no tampering. */
static void self_forget_at(struct rg_sensors *s, size_t i)
{
	struct rg_self_key k = {.kind = s->self[i].kind, .id = s->self[i].id};

	(void)bpf_map_delete_elem(bpf_map__fd(s->skel->maps.self_objs), &k);
	s->self[i] = s->self[--s->nself];
}

/* Before a link of ours goes (a hook point changed flavour): its id is no longer ours. */
static void self_forget_link(struct rg_sensors *s, struct bpf_link *link)
{
	uint32_t id = obj_id(RG_SELF_LINK, bpf_link__fd(link));

	for (size_t i = s->nself; id && i-- > 0;)
		if (s->self[i].kind == RG_SELF_LINK && s->self[i].id == id)
			self_forget_at(s, i);
}

static void self_forget_mod(struct rg_sensors *s)
{
	for (size_t i = s->nself; i-- > 0;)
		if (s->self[i].mod)
			self_forget_at(s, i);
}

static void self_register(struct rg_sensors *s, uint32_t kind, int fd, const char *name, bool mod)
{
	struct rg_self_key k = {.kind = kind};
	uint32_t one = 1;
	int mfd;

	if (fd < 0 || !s->skel)
		return;
	k.id = obj_id(kind, fd);
	if (!k.id) {
		log_debug("No id for BPF object %s: %s", name, strerror(errno));
		return;
	}
	for (size_t i = 0; i < s->nself; i++)
		if (s->self[i].kind == kind && s->self[i].id == k.id)
			return;
	if (s->nself >= MAX_SELF_OBJS) {
		log_warning("More than %d BPF objects: %s is not watched for tampering.",
			    MAX_SELF_OBJS, name);
		return;
	}
	mfd = bpf_map__fd(s->skel->maps.self_objs);
	if (mfd < 0 || bpf_map_update_elem(mfd, &k, &one, BPF_ANY) < 0) {
		log_warning_errno(-errno,
				  "Failed to register BPF object %s for self-protection: %m", name);
		return;
	}
	s->self[s->nself] = (struct self_obj){.kind = kind, .id = k.id, .mod = mod};
	strscpy_ok(s->self[s->nself].name, name, sizeof(s->self[s->nself].name));
	s->nself++;
}

static void self_register_maps(struct rg_sensors *s, struct bpf_object *obj, bool mod)
{
	struct bpf_map *map;

	bpf_object__for_each_map(map, obj)
	    self_register(s, RG_SELF_MAP, bpf_map__fd(map), bpf_map__name(map), mod);
}

static void self_name(void *ud, uint32_t kind, uint32_t id, char *buf, size_t size)
{
	struct rg_sensors *s = ud;

	for (size_t i = 0; i < s->nself; i++)
		if (s->self[i].kind == kind && s->self[i].id == id) {
			strscpy_ok(buf, s->self[i].name, size);
			return;
		}
}

/* An AGENT_TAMPER event found by the agent's own checks (no kernel event names the process). */
static void tamper_event(struct rg_sensors *s, const char *what, uint64_t count, const char *fmt,
			 ...) _printf_(4, 5);

/* ---- links ---- */

static struct bpf_object *obj_of(struct rg_sensors *s, bool mod)
{
	if (mod)
		return s->mod ? s->mod->obj : NULL;
	return s->skel->obj;
}

static bool prog_loaded(struct rg_sensors *s, const char *name, bool mod)
{
	struct bpf_object *obj = obj_of(s, mod);
	struct bpf_program *prog = obj ? bpf_object__find_program_by_name(obj, name) : NULL;

	return prog && bpf_program__fd(prog) >= 0;
}

static bool variant_loaded(struct rg_sensors *s, const struct variant *v)
{
	if (v->flavor == FL_UEVENT)
		return true;
	for (int i = 0; i < 8 && v->progs[i]; i++)
		if (!prog_loaded(s, v->progs[i], v->mod_obj))
			return false;
	return true;
}

/* Can hook point hp switch to v now: the mode allows it, its programs are loaded and it works on
 * this kernel without waiting for a module. */
static bool variant_ready(struct rg_sensors *s, unsigned hp, const struct variant *v)
{
	bool deferred;
	char why[96];

	return v && mode_allows(s->cfg.mode, hp, v->flavor) && variant_loaded(s, v) &&
	       variant_possible(&s->feat, hp, v, &deferred, why, sizeof(why)) && !deferred;
}

/* What a hook point that waits for its module uses meanwhile: its first syscall-level variant
 * (fentry on the syscalls, else their tracepoints) that is ready; -1 for none. */
static int waiting_variant(struct rg_sensors *s, unsigned hp)
{
	for (int i = 0; i < 4; i++) {
		const struct variant *v = variant_of(hp, i);

		if (v && !v->module && variant_ready(s, hp, v))
			return i;
	}
	return -1;
}

/* A variant that watches the syscalls themselves (write() of any fd), not a module's functions. */
static bool syscall_level(const struct variant *v)
{
	return v && !v->module && (v->flavor == FL_TRACEPOINT || v->flavor == FL_FENTRY);
}

static bool link_wanted(struct rg_sensors *s, const char *prog, bool mod)
{
	for (unsigned hp = 0; hp < HP__MAX; hp++) {
		const struct variant *v = variant_of(hp, s->plan.hp[hp].active);

		if (!v || v->flavor == FL_UPROBE || v->flavor == FL_TC || v->mod_obj != mod)
			continue;
		for (int i = 0; i < 8 && v->progs[i]; i++)
			if (strcmp(v->progs[i], prog) == 0)
				return true;
	}
	return false;
}

static struct link_ent *link_find(struct rg_sensors *s, const char *prog, bool mod)
{
	for (size_t i = 0; i < s->nlinks; i++)
		if (s->links[i].mod == mod && strcmp(s->links[i].prog, prog) == 0)
			return &s->links[i];
	return NULL;
}

static int link_attach(struct rg_sensors *s, const char *name, bool mod)
{
	struct bpf_object *obj = obj_of(s, mod);
	struct bpf_program *prog;
	struct bpf_link *link;

	if (link_find(s, name, mod))
		return 0;
	if (s->nlinks >= MAX_LINKS)
		return -E2BIG;
	prog = obj ? bpf_object__find_program_by_name(obj, name) : NULL;
	if (!prog || bpf_program__fd(prog) < 0)
		return -ENOENT;
	link = bpf_program__attach(prog);
	if (!link)
		return log_warning_errno(-errno, "Failed to attach %s (%s): %m", name,
					 bpf_program__section_name(prog));
	s->links[s->nlinks++] = (struct link_ent){.prog = name, .mod = mod, .link = link};
	self_register(s, RG_SELF_LINK, bpf_link__fd(link), name, false);
	log_debug("Attached %s (%s).", name, bpf_program__section_name(prog));
	return 0;
}

static void link_drop(struct rg_sensors *s, size_t i)
{
	self_forget_link(s, s->links[i].link);
	bpf_link__destroy(s->links[i].link);
	s->links[i] = s->links[--s->nlinks];
}

/* Attaches what the active variants need and detaches the rest. A hook point whose programs do
 * not attach falls back to its next loaded variant. */
static void sync_links(struct rg_sensors *s)
{
	for (unsigned hp = 0; hp < HP__MAX; hp++) {
		struct hook_state *st = &s->plan.hp[hp];

		while (st->active >= 0) {
			const struct variant *v = variant_of(hp, st->active);
			int r = 0, next;

			if (v->flavor == FL_UPROBE || v->flavor == FL_TC || v->flavor == FL_UEVENT)
				break;
			for (int i = 0; i < 8 && v->progs[i] && r == 0; i++) {
				/* tracepoints that this kernel lacks were not loaded (arm64 has no
				 * open(2)); the others of the variant cover the hook point */
				if (v->flavor == FL_TRACEPOINT &&
				    !prog_loaded(s, v->progs[i], false))
					continue;
				r = link_attach(s, v->progs[i], v->mod_obj);
			}
			if (r == 0)
				break;
			for (next = st->active + 1; next < 4; next++)
				if (variant_ready(s, hp, variant_of(hp, next)))
					break;
			queue_sensor_event(s, hp, false, "%s: %s failed to attach (%s)%s%s",
					   hook_defs[hp].name, flavor_names[v->flavor],
					   strerror(-r), next < 4 ? ", falling back to " : "",
					   next < 4 ? flavor_names[hook_defs[hp].v[next].flavor]
						    : "");
			snprintf(st->note, sizeof(st->note), "%s failed to attach: %s",
				 flavor_names[v->flavor], strerror(-r));
			st->active = next < 4 ? next : -1;
		}
	}
	for (size_t i = s->nlinks; i-- > 0;)
		if (!link_wanted(s, s->links[i].prog, s->links[i].mod))
			link_drop(s, i);
	/* The syscall-level write() programs report the fds of the hook points on them only: a
	 * write to a uverbs fd is not reported again while verbs is on ib_uverbs' hooks and
	 * rdma_cm still on the syscalls. */
	if (s->skel->bss)
		s->skel->bss->rg_sys_write_nodes =
		    (syscall_level(variant_of(HP_VERBS, s->plan.hp[HP_VERBS].active))
			 ? 1u << RG_NODE_UVERBS_FD
			 : 0) |
		    (syscall_level(variant_of(HP_RDMA_CM, s->plan.hp[HP_RDMA_CM].active))
			 ? 1u << RG_NODE_RDMA_CM_FD
			 : 0);
}

/* ---- knobs ---- */

#define SET_KNOBS(rodata)                                                                          \
	do {                                                                                       \
		(rodata)->rg_tick_ns = s->tick_ns;                                                 \
		(rodata)->rg_self_tgid = (uint32_t)getpid();                                       \
		(rodata)->rg_nr_ioctl = SYS_ioctl;                                                 \
		(rodata)->rg_nr_write = SYS_write;                                                 \
		(rodata)->rg_nr_mmap = SYS_mmap;                                                   \
		(rodata)->rg_nr_openat = SYS_openat;                                               \
		(rodata)->rg_nr_ptrace = SYS_ptrace;                                               \
		(rodata)->rg_nr_process_vm_readv = SYS_process_vm_readv;                           \
		(rodata)->rg_nr_process_vm_writev = SYS_process_vm_writev;                         \
		(rodata)->rg_ibv_device_name_off = offsetof(struct ibv_device, name);              \
		(void)kernel_inode_ctime_offsets((uint32_t *)&(rodata)->rg_ctime_sec_off,          \
						 (uint32_t *)&(rodata)->rg_ctime_nsec_off);         \
		(rodata)->rg_have_loop = kernel_has_bpf_loop();                                    \
	} while (0)

/* ---- the module object (fentry on ib_uverbs/rdma_ucm) ---- */

static void mod_unload(struct rg_sensors *s)
{
	for (size_t i = s->nlinks; i-- > 0;)
		if (s->links[i].mod)
			link_drop(s, i);
	self_forget_mod(s);
	sensors_mod_bpf__destroy(s->mod);
	s->mod = NULL;
	s->mod_has_uverbs = s->mod_has_cm = false;
}

static int mod_load(struct rg_sensors *s, bool uverbs, bool cm)
{
	struct sensors_mod_bpf *mod;
	struct bpf_map *map;
	int r;

	mod = sensors_mod_bpf__open();
	if (!mod)
		return log_warning_errno(-errno, "Failed to open the ib_uverbs sensors: %m");
	bpf_object__for_each_map(map, mod->obj)
	{
		struct bpf_map *mine;

		if (bpf_map__is_internal(map))
			continue;
		/* fd_cache is the module object's own (uverbs_mod.bpf.c): a new one per load */
		if (strcmp(bpf_map__name(map), "fd_cache") == 0)
			continue;
		mine = bpf_object__find_map_by_name(s->skel->obj, bpf_map__name(map));
		r = mine ? bpf_map__reuse_fd(map, bpf_map__fd(mine)) : -ENOENT;
		if (r < 0) {
			log_warning_errno(r, "Failed to share map %s: %m", bpf_map__name(map));
			goto fail;
		}
	}
	SET_KNOBS(mod->rodata);
	bpf_program__set_autoload(mod->progs.fx_uverbs_ioctl, uverbs);
	bpf_program__set_autoload(mod->progs.fx_uverbs_write, uverbs);
	bpf_program__set_autoload(mod->progs.fe_uverbs_mmap, uverbs);
	bpf_program__set_autoload(mod->progs.fx_ucma_write, cm);
	r = sensors_mod_bpf__load(mod);
	if (r < 0) {
		log_warning_errno(r, "Failed to load fentry programs on ib_uverbs/rdma_ucm: %m");
		goto fail;
	}
	if (s->mod) {
		/* Hand over: the new links attach first, then the old object goes. */
		struct sensors_mod_bpf *old = s->mod;

		for (size_t i = s->nlinks; i-- > 0;)
			if (s->links[i].mod)
				link_drop(s, i);
		self_forget_mod(s);
		sensors_mod_bpf__destroy(old);
	}
	s->mod = mod;
	self_register_maps(s, mod->obj, true);
	s->mod_has_uverbs = uverbs;
	s->mod_has_cm = cm;
	return 0;
fail:
	sensors_mod_bpf__destroy(mod);
	return r;
}

/* Re-evaluates the hook points that wait for ib_uverbs/rdma_ucm. */
static void modules_changed(struct rg_sensors *s)
{
	bool uverbs = module_present("ib_uverbs"), cm = module_present("rdma_ucm");
	bool need_mod_uverbs = false, need_mod_cm = false;
	static const unsigned hps[] = {HP_VERBS, HP_RDMA_CM};

	if (uverbs == s->mods_present[0] && cm == s->mods_present[1])
		return;
	s->mods_present[0] = uverbs;
	s->mods_present[1] = cm;

	for (size_t k = 0; k < ARRAY_SIZE(hps); k++) {
		unsigned hp = hps[k];
		struct hook_state *st = &s->plan.hp[hp];
		const struct variant *want = variant_of(hp, st->want);
		bool present;

		if (!want || !want->module)
			continue;
		present = module_present(want->module);
		if (want->flavor == FL_FENTRY && present && module_has_btf(want->module)) {
			if (hp == HP_VERBS)
				need_mod_uverbs = true;
			else
				need_mod_cm = true;
		}
	}
	if ((need_mod_uverbs || need_mod_cm) &&
	    (!s->mod || s->mod_has_uverbs != need_mod_uverbs || s->mod_has_cm != need_mod_cm))
		(void)mod_load(s, need_mod_uverbs, need_mod_cm);

	for (size_t k = 0; k < ARRAY_SIZE(hps); k++) {
		unsigned hp = hps[k];
		struct hook_state *st = &s->plan.hp[hp];
		int old = st->active, cand;
		const struct variant *want = variant_of(hp, st->want);

		if (!want || !want->module)
			continue;
		st->active = waiting_variant(s, hp);
		if (module_present(want->module)) {
			for (cand = st->want; cand < 4; cand++) {
				const struct variant *v = variant_of(hp, cand);

				if (!v || !mode_allows(s->cfg.mode, hp, v->flavor))
					continue;
				if (syscall_level(v))
					break;
				if (variant_ready(s, hp, v)) {
					st->active = cand;
					break;
				}
			}
			snprintf(st->note, sizeof(st->note), "%s loaded", want->module);
		} else {
			snprintf(st->note, sizeof(st->note), "%s once %s is loaded",
				 flavor_names[want->flavor], want->module);
		}
		if (st->active != old) {
			const struct variant *a = variant_of(hp, st->active);

			queue_sensor_event(s, hp, st->active >= 0, "%s: %s (%s)",
					   hook_defs[hp].name, a ? flavor_names[a->flavor] : "none",
					   st->note);
		}
	}
	sync_links(s);
	if (s->mod && !need_mod_uverbs && !need_mod_cm)
		mod_unload(s);
}

/* ---- uprobes and libibverbs ---- */

static int find_ibverbs(char *buf, size_t size)
{
	static const char *const dirs[] = {
#if defined(__x86_64__)
		"/usr/lib/x86_64-linux-gnu",
		"/lib/x86_64-linux-gnu",
#elif defined(__aarch64__)
		"/usr/lib/aarch64-linux-gnu",
		"/lib/aarch64-linux-gnu",
#endif
		"/usr/lib64",
		"/lib64",
		"/usr/lib",
		"/lib",
	};
	char path[PATH_MAX];

	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++) {
		snprintf_ok(path, sizeof(path), "%s/libibverbs.so.1", dirs[i]);
		/* uprobes bind to the inode: resolve the symlink chain */
		if (realpath(path, buf) && strlen(buf) < size)
			return 0;
	}
	return -ENOENT;
}

static void attach_uprobes(struct rg_sensors *s)
{
	static const char *const funcs[] = {"ibv_get_device_list", "ibv_open_device"};
	struct bpf_program *progs[] = {s->skel->progs.up_ibv_get_device_list,
				       s->skel->progs.up_ibv_open_device};
	struct hook_state *st = &s->plan.hp[HP_LIBRARY];

	if (st->active < 0)
		return;
	for (size_t i = 0; i < ARRAY_SIZE(funcs); i++) {
		LIBBPF_OPTS(bpf_uprobe_opts, opts);
		uint64_t off;
		int r;

		if (bpf_program__fd(progs[i]) < 0)
			continue;
		/* libbpf 1.1 refuses versioned symbols: find the default version ourselves */
		r = elf_func_offset(s->ibverbs_path, funcs[i], &off);
		if (r < 0) {
			log_warning_errno(r, "Failed to find %s in %s: %m", funcs[i],
					  s->ibverbs_path);
			continue;
		}
		s->uprobes[i] = bpf_program__attach_uprobe_opts(progs[i], -1, s->ibverbs_path,
								(size_t)off, &opts);
		if (s->uprobes[i])
			self_register(s, RG_SELF_LINK, bpf_link__fd(s->uprobes[i]), funcs[i], false);
		if (!s->uprobes[i]) {
			log_warning_errno(-errno, "Failed to attach a uprobe to %s in %s: %m",
					  funcs[i], s->ibverbs_path);
			snprintf(st->note, sizeof(st->note), "uprobe on %s failed", funcs[i]);
		}
	}
	if (!s->uprobes[0] && !s->uprobes[1])
		st->active = -1;
}

/* ---- RoCE counters (TC) ---- */

static bool tc_attached(struct rg_sensors *s, int ifindex)
{
	for (size_t i = 0; i < s->ntc; i++)
		if (s->tc[i].ifindex == ifindex)
			return true;
	return false;
}

static struct bpf_program *tc_prog(struct rg_sensors *s, bool egress)
{
	return egress ? s->skel->progs.tc_roce_egress : s->skel->progs.tc_roce_ingress;
}

/*
 * Attaches one direction's counter, replacing what has our handle and priority there. TC filters
 * outlive the process that attached them: a daemon that was killed (SIGKILL, the OOM killer)
 * leaves its own behind, and a plain attach would then fail with EEXIST on every restart.
 */
static int tc_attach_dir(struct rg_sensors *s, int ifindex, bool egress)
{
	LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = ifindex,
		    .attach_point = egress ? BPF_TC_EGRESS : BPF_TC_INGRESS);
	LIBBPF_OPTS(bpf_tc_opts, o, .handle = RG_TC_HANDLE, .priority = 1,
		    .flags = BPF_TC_F_REPLACE, .prog_fd = bpf_program__fd(tc_prog(s, egress)));

	return bpf_tc_attach(&hook, &o);
}

static int tc_attach_if(struct rg_sensors *s, const char *ifname)
{
	int ifindex = (int)if_nametoindex(ifname), r;
	struct tc_if *t;

	if (ifindex <= 0 || tc_attached(s, ifindex))
		return 0;
	if (s->ntc >= MAX_TC_IFS)
		return -E2BIG;
	t = &s->tc[s->ntc];
	*t = (struct tc_if){.ifindex = ifindex};
	strscpy_ok(t->name, ifname, sizeof(t->name));
	{
		LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = ifindex, .attach_point = BPF_TC_INGRESS);
		LIBBPF_OPTS(bpf_tc_opts, in, .handle = RG_TC_HANDLE, .priority = 1);

		r = bpf_tc_hook_create(&hook);
		if (r == 0)
			t->created_hook = true;
		else if (r != -EEXIST) {
			/* Degraded, not silent: AGENT-002 names the netdev. */
			queue_sensor_event(s, HP_ROCE, false, "roce: no clsact qdisc on %s (%s)",
					   ifname, strerror(-r));
			return log_warning_errno(r, "Failed to add a clsact qdisc to %s: %m",
						 ifname);
		}
		r = tc_attach_dir(s, ifindex, false);
		if (r == 0)
			r = tc_attach_dir(s, ifindex, true);
		if (r < 0) {
			log_warning_errno(r, "Failed to attach the RoCE counters to %s: %m",
					  ifname);
			queue_sensor_event(s, HP_ROCE, false, "roce: counters not attached to %s (%s)",
					   ifname, strerror(-r));
			(void)bpf_tc_detach(&hook, &in);
			if (t->created_hook) {
				hook.attach_point = BPF_TC_INGRESS | BPF_TC_EGRESS;
				(void)bpf_tc_hook_destroy(&hook);
			}
			return r;
		}
	}
	s->ntc++;
	log_info("RoCE counters attached to %s.", ifname);
	return 0;
}

static void tc_detach_all(struct rg_sensors *s)
{
	for (size_t i = 0; i < s->ntc; i++) {
		LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = s->tc[i].ifindex,
			    .attach_point = BPF_TC_INGRESS);
		LIBBPF_OPTS(bpf_tc_opts, o, .handle = RG_TC_HANDLE, .priority = 1);

		(void)bpf_tc_detach(&hook, &o);
		hook.attach_point = BPF_TC_EGRESS;
		(void)bpf_tc_detach(&hook, &o);
		if (s->tc[i].created_hook) {
			hook.attach_point = BPF_TC_INGRESS | BPF_TC_EGRESS;
			(void)bpf_tc_hook_destroy(&hook);
		}
	}
	s->ntc = 0;
}

static uint32_t prog_id(struct bpf_program *prog)
{
	struct bpf_prog_info info;
	uint32_t len = sizeof(info);

	memset(&info, 0, sizeof(info));
	if (bpf_program__fd(prog) < 0 || bpf_obj_get_info_by_fd(bpf_program__fd(prog), &info, &len))
		return 0;
	return info.id;
}

/*
 * TC filters are removed over netlink (`tc filter del`), not bpf(): no kernel event names who
 * did it. Every second each RoCE counter filter must still be there with our program; one that
 * is gone or replaced is reported (AGENT-004) and put back.
 */
static void tc_verify(struct rg_sensors *s)
{
	static const char *const dirs[] = {"ingress", "egress"};

	for (size_t i = 0; i < s->ntc;) {
		struct tc_if *t = &s->tc[i];
		char name[IF_NAMESIZE];

		if (!if_indextoname((unsigned)t->ifindex, name)) {
			/* The netdev is gone: nothing to protect (tc_scan attaches a new one). */
			s->tc[i] = s->tc[--s->ntc];
			continue;
		}
		for (int dir = 0; dir < 2; dir++) {
			LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = t->ifindex,
				    .attach_point = dir ? BPF_TC_EGRESS : BPF_TC_INGRESS);
			LIBBPF_OPTS(bpf_tc_opts, q, .handle = RG_TC_HANDLE, .priority = 1);
			uint32_t want = prog_id(tc_prog(s, dir));
			int r = bpf_tc_query(&hook, &q), r2;

			if (r == 0 && (!want || q.prog_id == want))
				continue;
			r2 = bpf_tc_hook_create(&hook);
			if (r2 == 0 || r2 == -EEXIST)
				r2 = tc_attach_dir(s, t->ifindex, dir);
			tamper_event(s, "tc_filter", (uint64_t)t->ifindex,
				     "the RoCE counters' %s filter on %s was %s by another process "
				     "(tc, netlink: the process is not known)%s",
				     dirs[dir], name, r == 0 ? "replaced" : "removed",
				     r2 == 0 ? "; put back" : "; could not be put back");
		}
		i++;
	}
}

static void read_word(const char *path, char *buf, size_t size)
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	ssize_t n;

	buf[0] = 0;
	if (fd < 0)
		return;
	n = read(fd, buf, size - 1);
	if (n <= 0) {
		buf[0] = 0;
		return;
	}
	buf[n] = 0;
	strstrip(buf);
	str_sanitize(buf);
}

/* Netdevs that carry an RDMA device: the soft device's parent, and the GID table's netdevs. */
static void tc_scan(struct rg_sensors *s)
{
	_cleanup_(closedirp) DIR *d = NULL;
	struct dirent *de;

	if (s->plan.hp[HP_ROCE].active < 0)
		return;
	for (size_t i = 0; i < ARRAY_SIZE(s->cfg.roce_ifaces); i++)
		if (s->cfg.roce_ifaces[i])
			(void)tc_attach_if(s, s->cfg.roce_ifaces[i]);
	d = opendir("/sys/class/infiniband");
	if (!d)
		return;
	while ((de = readdir(d))) {
		char path[512], name[IF_NAMESIZE + 8];
		_cleanup_(closedirp) DIR *ports = NULL;
		struct dirent *pe;

		if (de->d_name[0] == '.')
			continue;
		snprintf_ok(path, sizeof(path), "/sys/class/infiniband/%s/parent", de->d_name);
		read_word(path, name, sizeof(name));
		if (name[0])
			(void)tc_attach_if(s, name);
		snprintf_ok(path, sizeof(path), "/sys/class/infiniband/%s/ports", de->d_name);
		ports = opendir(path);
		if (!ports)
			continue;
		while ((pe = readdir(ports))) {
			if (pe->d_name[0] == '.')
				continue;
			for (int g = 0; g < 4; g++) {
				snprintf_ok(path, sizeof(path),
					    "/sys/class/infiniband/%s/ports/%s/gid_attrs/ndevs/%d",
					    de->d_name, pe->d_name, g);
				read_word(path, name, sizeof(name));
				if (name[0])
					(void)tc_attach_if(s, name);
			}
		}
	}
}

static void v4mapped_to_addr(const uint8_t in[16], struct rg_addr *a)
{
	static const uint8_t prefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};

	memcpy(a->addr, in, 16);
	a->family = memcmp(in, prefix, 12) == 0 ? AF_INET : AF_INET6;
}

static int deliver(struct rg_sensors *s, struct rg_event *ev);

/* Reports the traffic of each flow since the previous report. */
static void roce_harvest(struct rg_sensors *s)
{
	struct rg_flow_key k, next, *prev = NULL;
	int fd;

	if (!s->ntc)
		return;
	fd = bpf_map__fd(s->skel->maps.roce_flows);
	while (bpf_map_get_next_key(fd, prev, &next) == 0) {
		struct rg_flow_val v, delta;
		struct flow_ent *fe = NULL;
		struct rg_event ev = {0};

		k = next;
		prev = &k;
		if (bpf_map_lookup_elem(fd, &k, &v) < 0)
			continue;
		for (size_t i = 0; i < s->nflows; i++)
			if (memcmp(&s->flows[i].k, &k, sizeof(k)) == 0) {
				fe = &s->flows[i];
				break;
			}
		if (!fe) {
			if (s->nflows >= MAX_FLOWS)
				continue;
			fe = &s->flows[s->nflows++];
			fe->k = k;
			memset(&fe->v, 0, sizeof(fe->v));
		}
		delta.packets_in = v.packets_in - fe->v.packets_in;
		delta.bytes_in = v.bytes_in - fe->v.bytes_in;
		delta.packets_out = v.packets_out - fe->v.packets_out;
		delta.bytes_out = v.bytes_out - fe->v.bytes_out;
		fe->v = v;
		if (!delta.packets_in && !delta.packets_out)
			continue;
		ev.type = RG_EV_ROCE_TRAFFIC;
		ev.provider = RG_PROV_SENSOR;
		ev.ts = now_realtime_ns();
		v4mapped_to_addr(k.peer, &ev.u.roce.peer);
		v4mapped_to_addr(k.local, &ev.u.roce.local);
		ev.u.roce.packets_in = delta.packets_in;
		ev.u.roce.bytes_in = delta.bytes_in;
		ev.u.roce.packets_out = delta.packets_out;
		ev.u.roce.bytes_out = delta.bytes_out;
		ev.u.roce.protocol = k.proto;
		if (!if_indextoname(k.ifindex, ev.u.roce.ifname))
			ev.u.roce.ifname[0] = 0;
		if (deliver(s, &ev) < 0)
			return;
	}
}

/* ---- lookups for the conversion ---- */

static void devname_lookup(void *ud, uint32_t rdev, char *buf, size_t size)
{
	struct rg_sensors *s = ud;
	uint32_t major = rdev >> 20, minor = rdev & 0xfffff;
	char path[128], name[RG_DEVNAME_LEN];
	struct devcache_ent *e;

	buf[0] = 0;
	if (major != 231)
		return;
	for (size_t i = 0; i < DEVCACHE; i++)
		if (s->devcache[i].rdev == rdev && s->devcache[i].name[0]) {
			strscpy_ok(buf, s->devcache[i].name, size);
			return;
		}
	if (minor >= 192)
		snprintf_ok(path, sizeof(path), "/sys/class/infiniband_verbs/uverbs%u/ibdev",
			    minor - 192);
	else if (minor < 64)
		snprintf_ok(path, sizeof(path), "/sys/class/infiniband_mad/umad%u/ibdev", minor);
	else
		snprintf_ok(path, sizeof(path), "/sys/class/infiniband_mad/issm%u/ibdev",
			    minor - 64);
	read_word(path, name, sizeof(name));
	if (!name[0])
		return;
	e = &s->devcache[s->devcache_next++ % DEVCACHE];
	e->rdev = rdev;
	strscpy_ok(e->name, name, sizeof(e->name));
	strscpy_ok(buf, name, size);
}

static int proc_info(void *ud, uint32_t pid, uint64_t *start, char comm[RG_COMM_LEN])
{
	struct rg_sensors *s = ud;
	struct proc_stat st;
	char buf[4096];
	int r;

	/* What the ring said this pid was first: /proc is now, and the target may be gone. */
	if (task_cache_find(&s->tasks, pid, start, comm) == 0)
		return 0;
	r = proc_stat_read(pid, buf, sizeof(buf), &st);
	if (r < 0)
		return r;
	event_set_str(comm, RG_COMM_LEN, st.comm, st.comm_len);
	*start = st.start_ticks * s->tick_ns;
	return 0;
}

/* ---- rdma_cm id table: CONNECT/ACCEPT/LISTEN carry no address; earlier commands did ---- */

static struct cm_ent *cm_find(struct rg_sensors *s, uint32_t pid, int32_t fd, uint32_t id)
{
	for (size_t i = 0; i < MAX_CM_IDS; i++)
		if (s->cm[i].used && s->cm[i].pid == pid && s->cm[i].fd == fd && s->cm[i].id == id)
			return &s->cm[i];
	return NULL;
}

static struct cm_ent *cm_get(struct rg_sensors *s, uint32_t pid, int32_t fd, uint32_t id)
{
	struct cm_ent *e = cm_find(s, pid, fd, id);

	if (e)
		return e;
	for (size_t i = 0; i < MAX_CM_IDS; i++)
		if (!s->cm[i].used) {
			e = &s->cm[i];
			break;
		}
	if (!e) /* full: replace round-robin (bounded memory) */
		e = &s->cm[s->cm_next++ % MAX_CM_IDS];
	*e = (struct cm_ent){.used = true, .pid = pid, .fd = fd, .id = id};
	return e;
}

static void iwarp_port(struct rg_sensors *s, uint16_t port)
{
	uint8_t one = 1;

	if (port && s->ntc)
		(void)bpf_map_update_elem(bpf_map__fd(s->skel->maps.iwarp_ports), &port, &one,
					  BPF_ANY);
}

static void cm_track(struct rg_sensors *s, struct rg_event *ev)
{
	struct rg_ev_rdma_cm *cm = &ev->u.cm;
	struct cm_ent *e;

	if (ev->flags & RG_EVF_FAILED)
		return;
	switch (cm->op) {
	case RG_CM_CREATE_ID:
		if (cm->id || cm->port_space) {
			e = cm_get(s, ev->proc.pid, cm->fd, cm->id);
			e->ps = cm->port_space;
		}
		return;
	case RG_CM_DESTROY_ID:
		e = cm_find(s, ev->proc.pid, cm->fd, cm->id);
		if (e) {
			if (!cm->src.family)
				cm->src = e->src;
			if (!cm->dst.family)
				cm->dst = e->dst;
			e->used = false;
		}
		return;
	default:
		break;
	}
	e = cm_get(s, ev->proc.pid, cm->fd, cm->id);
	if (cm->src.family)
		e->src = cm->src;
	else
		cm->src = e->src;
	if (cm->dst.family)
		e->dst = cm->dst;
	else
		cm->dst = e->dst;
	if (!cm->port_space)
		cm->port_space = e->ps;
	iwarp_port(s, cm->src.port);
	iwarp_port(s, cm->dst.port);
}

static void forget_process(struct rg_sensors *s, uint32_t pid)
{
	int fd = bpf_map__fd(s->skel->maps.rdma_fds);
	struct rg_fd_key k, next, *prev = NULL, dead[256];
	size_t n = 0;

	for (size_t i = 0; i < MAX_CM_IDS; i++)
		if (s->cm[i].used && s->cm[i].pid == pid)
			s->cm[i].used = false;
	while (bpf_map_get_next_key(fd, prev, &next) == 0 && n < ARRAY_SIZE(dead)) {
		k = next;
		prev = &k;
		if (k.tgid == pid)
			dead[n++] = k;
	}
	for (size_t i = 0; i < n; i++)
		(void)bpf_map_delete_elem(fd, &dead[i]);
}

/* ---- delivery ---- */

static int deliver(struct rg_sensors *s, struct rg_event *ev)
{
	int r;

	if (s->cb_error < 0)
		return s->cb_error;
	r = s->cb(ev, s->ud);
	if (r < 0) {
		s->cb_error = r;
		return r;
	}
	s->delivered++;
	return 0;
}

static int on_record(void *ctx, void *data, size_t size)
{
	struct rg_sensors *s = ctx;
	const struct rg_rec_hdr *h = data;
	struct rg_event ev;
	int r;

	r = record_to_event(data, size, &s->cctx, &ev);
	if (r < 0) {
		log_debug("Dropped a malformed sensor record (type %u, %zu bytes).",
			  size >= sizeof(*h) ? h->type : 0, size);
		return 0;
	}
	if (h->type == RG_REC_EXIT && size >= sizeof(struct rg_rec_exit) &&
	    ((const struct rg_rec_exit *)data)->rdma)
		forget_process(s, h->pid);
	if (r == 0)
		return 0;
	/* two threads exiting together can both report the process's exit (convert.h) */
	if (ev.type == RG_EV_EXIT && exit_ring_seen(&s->exits, PROC_KEY(ev.proc.pid, ev.proc.start_boot_ns)))
		return 0;
	if (ev.type == RG_EV_FORK || ev.type == RG_EV_EXEC)
		task_cache_note(&s->tasks, PROC_KEY(ev.proc.pid, ev.proc.start_boot_ns), ev.proc.comm);
	if (ev.type == RG_EV_RDMA_CM)
		cm_track(s, &ev);
	return deliver(s, &ev);
}

/* ---- uevents ---- */

static void fill_device(const char *name, struct rg_ev_device *d, uint32_t *flags)
{
	char path[512], buf[128];
	_cleanup_(closedirp) DIR *ports = NULL;
	struct dirent *pe;

	strscpy_ok(d->name, name, sizeof(d->name));
	snprintf_ok(path, sizeof(path), "/sys/class/infiniband/%s/node_type", name);
	read_word(path, buf, sizeof(buf));
	d->node_type = (uint32_t)atoi(buf);
	snprintf_ok(path, sizeof(path), "/sys/class/infiniband/%s/parent", name);
	read_word(path, d->parent, sizeof(d->parent));
	if (d->parent[0]) {
		*flags |= RG_EVF_SOFT;
		strscpy_ok(d->driver, d->node_type == 4 ? "siw" : "rdma_rxe", sizeof(d->driver));
	} else {
		char link[PATH_MAX];
		ssize_t n;

		snprintf_ok(path, sizeof(path), "/sys/class/infiniband/%s/device/driver", name);
		n = readlink(path, link, sizeof(link) - 1);
		if (n > 0) {
			const char *base;

			link[n] = 0;
			base = strrchr(link, '/');
			strscpy_ok(d->driver, base ? base + 1 : link, sizeof(d->driver));
		}
	}
	snprintf_ok(path, sizeof(path), "/sys/class/infiniband/%s/ports", name);
	ports = opendir(path);
	while (ports && (pe = readdir(ports))) {
		if (pe->d_name[0] == '.')
			continue;
		d->ports++;
		snprintf_ok(path, sizeof(path), "/sys/class/infiniband/%s/ports/%s/state", name,
			    pe->d_name);
		read_word(path, buf, sizeof(buf));
		if (strstr(buf, "ACTIVE"))
			d->ports_active++;
		if (d->transport == RG_TRANSPORT_UNKNOWN) {
			snprintf_ok(path, sizeof(path),
				    "/sys/class/infiniband/%s/ports/%s/link_layer", name,
				    pe->d_name);
			read_word(path, buf, sizeof(buf));
			if (d->node_type == 4)
				d->transport = RG_TRANSPORT_IWARP;
			else if (d->node_type == 5 || d->node_type == 6)
				d->transport = RG_TRANSPORT_USNIC;
			else if (strcmp(buf, "Ethernet") == 0)
				d->transport = RG_TRANSPORT_ROCE;
			else if (strcmp(buf, "InfiniBand") == 0)
				d->transport = RG_TRANSPORT_IB;
		}
	}
}

static void handle_uevents(struct rg_sensors *s)
{
	struct uevent u;
	int r;

	for (int budget = 0; budget < 256; budget++) {
		struct rg_event ev = {0};

		r = uevent_receive(s->uevent_fd, &u);
		if (r < 0) {
			if (r == -ENOBUFS) {
				/* Overrun: rescan what uevents would have told. */
				log_warning(
				    "Uevent socket overrun; rescanning devices and modules.");
				modules_changed(s);
				tc_scan(s);
				continue;
			}
			log_warning_errno(r, "Failed to receive a uevent: %m");
			return;
		}
		if (r == 0) {
			/* EAGAIN or a foreign message: stop when the socket is empty */
			int avail = 0;

			if (ioctl(s->uevent_fd, FIONREAD, &avail) < 0 || avail <= 0)
				return;
			continue;
		}
		ev.provider = RG_PROV_NETLINK;
		ev.ts = now_realtime_ns();
		if (strcmp(u.subsystem, "infiniband") == 0 &&
		    (strcmp(u.action, "add") == 0 || strcmp(u.action, "remove") == 0)) {
			bool add = u.action[0] == 'a';

			memset(s->devcache, 0, sizeof(s->devcache));
			if (s->plan.hp[HP_DEVICES].active < 0)
				continue;
			ev.type = add ? RG_EV_DEVICE_ADD : RG_EV_DEVICE_REMOVE;
			if (add)
				fill_device(u.name, &ev.u.dev, &ev.flags);
			else
				strscpy_ok(ev.u.dev.name, u.name, sizeof(ev.u.dev.name));
			if (add)
				tc_scan(s);
			if (deliver(s, &ev) < 0)
				return;
		} else if (strcmp(u.subsystem, "module") == 0) {
			bool soft = false;

			modules_changed(s);
			if (strcmp(u.action, "add") != 0 || !rdma_module_name(u.name, &soft))
				continue;
			{
				const struct variant *v =
				    variant_of(HP_MODULES, s->plan.hp[HP_MODULES].active);

				if (!v || v->flavor != FL_UEVENT)
					continue; /* the tracepoint reports it, with the process */
			}
			ev.type = RG_EV_MODULE_LOAD;
			strscpy_ok(ev.u.mod.name, u.name, sizeof(ev.u.mod.name));
			if (soft)
				ev.flags |= RG_EVF_SOFT;
			if (deliver(s, &ev) < 0)
				return;
		}
	}
}

/* ---- lost records ---- */

int sensors_lost(struct rg_sensors *s, uint64_t *per_cpu, size_t n)
{
	uint32_t key = RG_CNT_RINGBUF_FULL;
	uint64_t *vals;
	int ncpus = libbpf_num_possible_cpus();

	if (ncpus <= 0)
		return ncpus < 0 ? ncpus : -EIO;
	vals = calloc((size_t)ncpus, sizeof(*vals));
	if (!vals)
		return -ENOMEM;
	if (bpf_map_lookup_elem(bpf_map__fd(s->skel->maps.counters), &key, vals) < 0) {
		int r = -errno;

		free(vals);
		return r;
	}
	for (size_t i = 0; i < n && i < (size_t)ncpus; i++)
		per_cpu[i] = vals[i];
	free(vals);
	return ncpus;
}

static void check_lost(struct rg_sensors *s)
{
	uint64_t *now;
	int n;

	if (s->ncpus <= 0)
		return;
	now = calloc((size_t)s->ncpus, sizeof(*now));
	if (!now)
		return;
	n = sensors_lost(s, now, (size_t)s->ncpus);
	for (int cpu = 0; cpu < n && cpu < s->ncpus; cpu++) {
		struct rg_event ev = {0};

		if (now[cpu] < s->lost_prev[cpu]) {
			/* Only the agent writes these counters, and they only grow. */
			tamper_event(s, "map_counters", (uint64_t)cpu,
				     "the sensors' loss counter on CPU %d went back from %" PRIu64
				     " to %" PRIu64 ": reset by another process",
				     cpu, s->lost_prev[cpu], now[cpu]);
			s->lost_prev[cpu] = now[cpu];
			continue;
		}
		if (now[cpu] == s->lost_prev[cpu])
			continue;
		ev.type = RG_EV_AGENT_LOST;
		ev.provider = RG_PROV_AGENT;
		ev.ts = now_realtime_ns();
		ev.u.agent.count = now[cpu] - s->lost_prev[cpu];
		ev.u.agent.count2 = (uint64_t)cpu;
		strscpy_ok(ev.u.agent.what, "ringbuf", sizeof(ev.u.agent.what));
		snprintf(ev.u.agent.text, sizeof(ev.u.agent.text),
			 "%" PRIu64 " sensor records lost on CPU %d (ring buffer full)",
			 ev.u.agent.count, cpu);
		s->lost_prev[cpu] = now[cpu];
		if (deliver(s, &ev) < 0)
			break;
	}
	free(now);
}

static void tamper_event(struct rg_sensors *s, const char *what, uint64_t count, const char *fmt,
			 ...)
{
	struct rg_event ev = {0};
	va_list ap;

	ev.type = RG_EV_AGENT_TAMPER;
	ev.provider = RG_PROV_AGENT;
	ev.ts = now_realtime_ns();
	ev.u.agent.ok = 1;
	ev.u.agent.count = count;
	strscpy_ok(ev.u.agent.what, what, sizeof(ev.u.agent.what));
	va_start(ap, fmt);
	vsnprintf(ev.u.agent.text, sizeof(ev.u.agent.text), fmt, ap);
	va_end(ap);
	log_warning("Tampering: %s", ev.u.agent.text);
	(void)deliver(s, &ev);
}

static void on_timer(struct rg_sensors *s)
{
	uint64_t expirations;
	unsigned period = s->cfg.roce_interval_s ? s->cfg.roce_interval_s : DEFAULT_ROCE_S;

	if (read(s->timer_fd, &expirations, sizeof(expirations)) != sizeof(expirations))
		return;
	s->ticks++;
	check_lost(s);
	tc_verify(s);
	/* Modules may come and go without a uevent reaching us (socket overrun, no listener). */
	modules_changed(s);
	if (s->ticks % period == 0) {
		tc_scan(s);
		roce_harvest(s);
	}
}

/* ---- seeding ---- */

int sensors_remember_fd(struct rg_sensors *s, pid_t pid, int fd, unsigned node_kind)
{
	struct rg_fd_key k = {.tgid = (uint32_t)pid, .fd = fd};
	struct rg_fd_val v = {.node = node_kind};
	uint32_t zero = 0, one = 1, tgid = (uint32_t)pid;

	/* the programs' latch first: while it is 0 they do not look in the two maps */
	if (bpf_map_update_elem(bpf_map__fd(s->skel->maps.rdma_seen), &zero, &one, BPF_ANY) < 0)
		return -errno;
	if (bpf_map_update_elem(bpf_map__fd(s->skel->maps.rdma_fds), &k, &v, BPF_ANY) < 0)
		return -errno;
	if (bpf_map_update_elem(bpf_map__fd(s->skel->maps.rdma_procs), &tgid, &one, BPF_ANY) < 0)
		return -errno;
	return 0;
}

static unsigned node_of_path(const char *path)
{
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	if (startswith(base, "uverbs"))
		return RG_NODE_UVERBS_FD;
	if (strcmp(base, "rdma_cm") == 0)
		return RG_NODE_RDMA_CM_FD;
	if (startswith(base, "umad"))
		return RG_NODE_UMAD_FD;
	return RG_NODE_OTHER_FD;
}

int sensors_seed_fds(struct rg_sensors *s, const char *proc_root)
{
	_cleanup_(closedirp) DIR *proc = opendir(proc_root);
	struct dirent *de;
	int n = 0, pids = 0;

	if (!proc)
		return log_warning_errno(-errno, "Failed to open %s: %m", proc_root);
	while ((de = readdir(proc)) && pids < SEED_MAX_PIDS) {
		char path[PATH_MAX];
		_cleanup_(closedirp) DIR *fds = NULL;
		struct dirent *fe;
		uint32_t pid;
		int nfds = 0;

		if (safe_atou32(de->d_name, 10, &pid) < 0)
			continue;
		pids++;
		snprintf_ok(path, sizeof(path), "%s/%s/fd", proc_root, de->d_name);
		fds = opendir(path);
		if (!fds)
			continue;
		while ((fe = readdir(fds)) && nfds++ < SEED_MAX_FDS) {
			char target[256];
			ssize_t len;
			int fd;

			if (safe_atoi(fe->d_name, &fd) < 0 || fd < 0)
				continue;
			len = readlinkat(dirfd(fds), fe->d_name, target, sizeof(target) - 1);
			if (len <= 0)
				continue;
			target[len] = 0;
			if (!startswith(target, "/dev/infiniband/"))
				continue;
			if (sensors_remember_fd(s, (pid_t)pid, fd, node_of_path(target)) == 0)
				n++;
		}
	}
	if (n)
		log_info("Remembered %d RDMA fds held by running processes.", n);
	return n;
}

/* ---- open/close ---- */

static _printf_(2, 0) int libbpf_log(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	char buf[1024];
	size_t n;

	if (level == LIBBPF_DEBUG && log_get_max_level() < LOG_LEVEL_DEBUG)
		return 0;
	if (log_get_max_level() >= LOG_LEVEL_DEBUG) {
		/* Verifier logs are long: with --verbose, print them whole. */
		fputs("rdmaguard: libbpf: ", stderr);
		vfprintf(stderr, fmt, ap);
		return 0;
	}
	vsnprintf(buf, sizeof(buf), fmt, ap);
	n = strlen(buf);
	while (n && buf[n - 1] == '\n')
		buf[--n] = 0;
	log_warning("libbpf: %s", buf);
	return 0;
}

/* Which programs of the main object to load for this plan. */
static void set_autoload(struct rg_sensors *s, bool safe)
{
	struct bpf_program *prog;

	bpf_object__for_each_program(prog, s->skel->obj) bpf_program__set_autoload(prog, false);
	for (unsigned hp = 0; hp < HP__MAX; hp++) {
		const struct hook_state *st = &s->plan.hp[hp];

		for (int i = 0; i < 4; i++) {
			const struct variant *v = variant_of(hp, i);
			bool load, deferred;
			char why[96];

			if (!v || v->mod_obj || v->flavor == FL_UEVENT)
				continue;
			if (!mode_allows(s->cfg.mode, hp, v->flavor))
				continue;
			switch (v->flavor) {
			case FL_TRACEPOINT:
				/* always loaded where it can be: the fallback */
				load =
				    variant_possible(&s->feat, hp, v, &deferred, why, sizeof(why));
				break;
			case FL_KPROBE:
				/* loaded when chosen, or as the fallback of a module fentry hook */
				load = !safe && s->feat.kprobe &&
				       (i == st->want || i == st->active ||
					(v->module && st->want >= 0 && st->want < i));
				break;
			case FL_UPROBE:
				load = !safe && st->want == i && s->ibverbs_path[0];
				break;
			default:
				/* fentry on the syscalls: also while a module hook is chosen, for
				 * when its module goes */
				load = !safe && (i == st->want || i == st->active ||
						 (v->flavor == FL_FENTRY && !v->module &&
						  st->want >= 0 && st->want < i &&
						  variant_of(hp, st->want)->module));
				break;
			}
			for (int p = 0; load && p < 8 && v->progs[p]; p++) {
				prog = bpf_object__find_program_by_name(s->skel->obj, v->progs[p]);
				if (!prog)
					continue;
				if (v->flavor == FL_TRACEPOINT) {
					/* "tracepoint/syscalls/sys_exit_open": skip the ones absent
					 */
					const char *sec = bpf_program__section_name(prog), *cat,
						   *nm;
					char buf[128];

					if (startswith(sec, "tracepoint/")) {
						strscpy_ok(buf, sec + strlen("tracepoint/"),
							   sizeof(buf));
						cat = buf;
						nm = strchr(buf, '/');
						if (nm) {
							*(char *)nm = 0;
							if (!tracepoint_exists(cat, nm + 1))
								continue;
						}
					}
				}
				bpf_program__set_autoload(prog, true);
			}
		}
	}
}

static int load_main(struct rg_sensors *s, bool safe)
{
	size_t rb = s->cfg.ringbuf_bytes ? s->cfg.ringbuf_bytes : SENSORS_DEFAULT_RINGBUF;
	int r;

	s->skel = sensors_bpf__open();
	if (!s->skel)
		return log_error_errno(-errno, "Failed to open the BPF sensors: %m");
	if (rb & (rb - 1) || rb < 4096)
		return log_error_errno(-EINVAL,
				       "Ring buffer size %zu is not a power of two >= 4096.", rb);
	bpf_map__set_max_entries(s->skel->maps.events, (uint32_t)rb);
	for (size_t i = 0; i < ARRAY_SIZE(s->cfg.shared_maps); i++) {
		const struct sensors_shared_map *m = &s->cfg.shared_maps[i];
		struct bpf_map *map;

		if (!m->name || m->fd < 0)
			continue;
		map = bpf_object__find_map_by_name(s->skel->obj, m->name);
		r = map ? bpf_map__reuse_fd(map, m->fd) : -ENOENT;
		if (r < 0) {
			log_error_errno(r, "Failed to share map %s with the sensors: %m", m->name);
			sensors_bpf__destroy(s->skel);
			s->skel = NULL;
			return r;
		}
	}
	SET_KNOBS(s->skel->rodata);
	set_autoload(s, safe);
	r = sensors_bpf__load(s->skel);
	if (r < 0) {
		log_error_errno(r, "Failed to load the BPF sensors%s: %m",
				safe ? " (tracepoints only)" : "");
		sensors_bpf__destroy(s->skel);
		s->skel = NULL;
	}
	return r;
}

static int epoll_add(int epfd, int fd)
{
	struct epoll_event e = {.events = EPOLLIN, .data.fd = fd};

	return epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &e) < 0 ? -errno : 0;
}

int sensors_open(const struct sensors_config *cfg, struct rg_sensors **ret)
{
	struct rg_sensors *s;
	struct itimerspec its = {.it_interval = {1, 0}, .it_value = {1, 0}};
	int r;

	libbpf_set_print(libbpf_log);
	s = calloc(1, sizeof(*s));
	if (!s)
		return log_oom();
	s->cfg = *cfg;
	s->epfd = s->uevent_fd = s->timer_fd = -1;
	s->tick_ns = 1000000000ull / (uint64_t)clock_ticks_per_sec();
	s->cctx = (struct convert_ctx){
	    .devname = devname_lookup, .proc_info = proc_info, .self_name = self_name, .ud = s};
	s->flows = calloc(MAX_FLOWS, sizeof(*s->flows));
	if (!s->flows) {
		r = log_oom();
		goto fail;
	}

	sensors_probe_features(&s->feat);
	if (!s->feat.ringbuf) {
		if (s->feat.ringbuf_error == -EPERM || s->feat.ringbuf_error == -EACCES)
			r = log_error_errno(s->feat.ringbuf_error,
					    "Not allowed to use BPF (needs root, or CAP_BPF and "
					    "CAP_PERFMON): %m");
		else
			r = log_error_errno(-EOPNOTSUPP,
					    "This kernel has no BPF ring buffer (Linux 5.8).");
		goto fail;
	}
	r = make_plan(&s->cfg, &s->feat, &s->plan);
	if (r < 0)
		goto fail;
	if (!s->cfg.no_uprobes) {
		if (s->cfg.ibverbs_path) {
			if (!realpath(s->cfg.ibverbs_path, s->ibverbs_path))
				log_warning_errno(-errno, "Failed to resolve %s: %m",
						  s->cfg.ibverbs_path);
		} else if (find_ibverbs(s->ibverbs_path, sizeof(s->ibverbs_path)) < 0) {
			log_info("libibverbs.so.1 not found: no uprobes on it.");
		}
		if (!s->ibverbs_path[0]) {
			s->plan.hp[HP_LIBRARY].active = s->plan.hp[HP_LIBRARY].want = -1;
			strscpy_ok(s->plan.hp[HP_LIBRARY].note, "libibverbs.so.1 not found",
				   sizeof(s->plan.hp[HP_LIBRARY].note));
		}
	}

	r = load_main(s, false);
	if (r < 0 && s->cfg.mode == SENSORS_AUTO) {
		log_warning("Retrying with the syscall tracepoint sensors only.");
		s->cfg.mode = SENSORS_TRACEPOINT;
		r = make_plan(&s->cfg, &s->feat, &s->plan);
		if (r == 0)
			r = load_main(s, true);
	}
	if (r < 0)
		goto fail;

	self_register_maps(s, s->skel->obj, false);
	/* Hook points that wait for a module start on the syscalls (fentry on them, else their
	 * tracepoints). */
	for (unsigned hp = 0; hp < HP__MAX; hp++) {
		struct hook_state *st = &s->plan.hp[hp];

		if (st->active < 0 && st->want >= 0 && variant_of(hp, st->want)->module)
			st->active = waiting_variant(s, hp);
	}
	s->mods_present[0] = s->mods_present[1] = false;
	/* Attach hooks on loaded modules (loads the fentry object when one is wanted). */
	{
		bool uverbs = module_present("ib_uverbs"), cm = module_present("rdma_ucm");

		if (uverbs || cm)
			modules_changed(s);
		else
			sync_links(s);
	}
	attach_uprobes(s);
	if (s->plan.hp[HP_ROCE].active >= 0)
		tc_scan(s);

	s->rb = ring_buffer__new(bpf_map__fd(s->skel->maps.events), on_record, s, NULL);
	if (!s->rb) {
		r = log_error_errno(-errno, "Failed to set up the ring buffer: %m");
		goto fail;
	}
	s->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (s->epfd < 0) {
		r = log_error_errno(-errno, "Failed to create an epoll fd: %m");
		goto fail;
	}
	r = epoll_add(s->epfd, ring_buffer__epoll_fd(s->rb));
	if (r < 0)
		goto fail;
	/* on failure (logged), or asked for: a wake-up per record, the kernel's default */
	if (!s->cfg.ring_always_wake)
		(void)ringwake_init(&s->wake, bpf_map__fd(s->skel->maps.events),
				    bpf_map__fd(s->skel->maps.rb_poll));
	if (s->plan.hp[HP_DEVICES].active >= 0 || !s->cfg.no_uevents) {
		s->uevent_fd = uevent_open();
		if (s->uevent_fd < 0) {
			log_warning_errno(s->uevent_fd, "Failed to listen to uevents: %m");
			s->plan.hp[HP_DEVICES].active = -1;
		} else if ((r = epoll_add(s->epfd, s->uevent_fd)) < 0)
			goto fail;
	}
	s->timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (s->timer_fd < 0 || timerfd_settime(s->timer_fd, 0, &its, NULL) < 0) {
		r = log_error_errno(-errno, "Failed to create a timer: %m");
		goto fail;
	}
	r = epoll_add(s->epfd, s->timer_fd);
	if (r < 0)
		goto fail;
	s->ncpus = libbpf_num_possible_cpus();
	if (s->ncpus > 0) {
		s->lost_prev = calloc((size_t)s->ncpus, sizeof(*s->lost_prev));
		if (!s->lost_prev) {
			r = log_oom();
			goto fail;
		}
	}
	if (!s->cfg.no_seed)
		(void)sensors_seed_fds(s, "/proc");
	*ret = s;
	return 0;
fail:
	sensors_close(s);
	return r;
}

int sensors_fd(struct rg_sensors *s)
{
	return s->epfd;
}

int sensors_poll(struct rg_sensors *s, int timeout_ms, sensors_cb cb, void *userdata)
{
	struct epoll_event evs[8];
	int n, r;

	s->cb = cb;
	s->ud = userdata;
	s->delivered = 0;
	s->cb_error = 0;
	s->cctx.boot_to_real_ns = boot_to_realtime_offset_ns();
	while (s->nqueued) {
		struct rg_event ev = s->queued[0];

		memmove(s->queued, s->queued + 1, (s->nqueued - 1) * sizeof(s->queued[0]));
		s->nqueued--;
		if (deliver(s, &ev) < 0)
			return s->cb_error;
	}
	n = epoll_wait(s->epfd, evs, ARRAY_SIZE(evs),
		       s->delivered ? 0 : ringwake_timeout_ms(&s->wake.st, timeout_ms));
	if (n < 0)
		return errno == EINTR ? s->delivered : -errno;
	for (int i = 0; i < n; i++) {
		int fd = evs[i].data.fd;

		if (fd == s->uevent_fd)
			handle_uevents(s);
		else if (fd == s->timer_fd)
			on_timer(s);
		if (s->cb_error < 0)
			return s->cb_error;
	}
	/* Always drain the ring buffer: records may be ready without a wake-up (ringwake.h). */
	r = ring_buffer__consume(s->rb);
	if (s->cb_error < 0)
		return s->cb_error;
	if (r < 0)
		return r;
	ringwake_after_read(&s->wake, (unsigned)r);
	return s->delivered;
}

int sensors_timeout_ms(const struct rg_sensors *s, int want_ms)
{
	return ringwake_timeout_ms(&s->wake.st, want_ms);
}

struct json_object *sensors_ring_describe(const struct rg_sensors *s)
{
	struct json_object *o = json_object_new_object();

	if (!o)
		return NULL;
	json_object_object_add(o, "wakeups",
			       json_object_new_string(s->wake.pos ? ringwake_mode_to_string(
									s->wake.st.mode)
								  : "always"));
	json_object_object_add(o, "bursts", json_object_new_uint64(s->wake.st.bursts));
	json_object_object_add(o, "policy_errors", json_object_new_uint64(s->wake.errors));
	return o;
}

int sensors_add_ringbuf(struct rg_sensors *s, int map_fd)
{
	int r;

	if (s->n_extra_rb >= ARRAY_SIZE(s->extra_rb))
		return -E2BIG;
	r = ring_buffer__add(s->rb, map_fd, on_record, s);
	if (r < 0)
		return log_error_errno(r, "Failed to read ring buffer map %d: %m", map_fd);
	s->extra_rb[s->n_extra_rb++] = map_fd;
	return 0;
}

void sensors_watch_maps(struct rg_sensors *s, struct bpf_object *obj)
{
	if (s && obj)
		self_register_maps(s, obj, false);
}

void sensors_watch_link(struct rg_sensors *s, struct bpf_link *link, const char *name)
{
	if (s && link)
		self_register(s, RG_SELF_LINK, bpf_link__fd(link), name, false);
}

void sensors_unwatch_link(struct rg_sensors *s, struct bpf_link *link)
{
	if (s && link && s->skel)
		self_forget_link(s, link);
}

uint32_t sensors_watch_map(struct rg_sensors *s, int fd, const char *name)
{
	uint32_t id = obj_id(RG_SELF_MAP, fd);

	if (!s || !id)
		return 0;
	self_register(s, RG_SELF_MAP, fd, name, false);
	for (size_t i = 0; i < s->nself; i++)
		if (s->self[i].kind == RG_SELF_MAP && s->self[i].id == id)
			return id;
	return 0;
}

void sensors_unwatch_map(struct rg_sensors *s, uint32_t id)
{
	if (!s || !s->skel || !id)
		return;
	for (size_t i = s->nself; i-- > 0;)
		if (s->self[i].kind == RG_SELF_MAP && s->self[i].id == id)
			self_forget_at(s, i);
}

bool sensors_lsm_active(const struct rg_sensors *s)
{
	return s->feat.lsm;
}

int sensors_map_fd(struct rg_sensors *s, const char *name)
{
	struct bpf_map *m = bpf_object__find_map_by_name(s->skel->obj, name);

	return m ? bpf_map__fd(m) : -ENOENT;
}

void sensors_close(struct rg_sensors *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < ARRAY_SIZE(s->uprobes); i++)
		bpf_link__destroy(s->uprobes[i]);
	if (s->skel)
		tc_detach_all(s);
	while (s->nlinks)
		link_drop(s, s->nlinks - 1);
	ring_buffer__free(s->rb);
	ringwake_close(&s->wake);
	sensors_mod_bpf__destroy(s->mod);
	sensors_bpf__destroy(s->skel);
	if (s->epfd >= 0)
		close(s->epfd);
	if (s->uevent_fd >= 0)
		close(s->uevent_fd);
	if (s->timer_fd >= 0)
		close(s->timer_fd);
	free(s->lost_prev);
	free(s->flows);
	free(s);
}
