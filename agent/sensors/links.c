/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Link sync and module moves: attaches the programs of each hook point's active variant and
 * detaches the rest (a variant that fails to attach falls back to the next loaded one); loads the
 * module object (sensors_mod: fentry on ib_uverbs and rdma_ucm, sharing the main object's maps)
 * when those modules appear, late or not, and moves verbs and rdma_cm between the syscall level
 * and the module's own functions as they come and go. uprobes and TC attach elsewhere (uprobes.c,
 * tc.c).
 */
#include <bpf/bpf.h>
#include <errno.h>
#include <linux/capability.h>
#include <stdio.h>
#include <string.h>

#include "bpf/compat_nr.h"
#include "common/caps.h"
#include "common/log.h"
#include "sensors_state.h"
#include "sensors.skel.h"
#include "sensors_mod.skel.h"

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
int waiting_variant(struct rg_sensors *s, unsigned hp)
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

void link_drop(struct rg_sensors *s, size_t i)
{
	self_forget_link(s, s->links[i].link);
	bpf_link__destroy(s->links[i].link);
	s->links[i] = s->links[--s->nlinks];
}

/* The hook points whose 32-bit calls the compat programs report (RG_COMPAT_*): those on the
 * syscall level, which the ia32 entry points pass by. */
static uint32_t compat_hooks(struct rg_sensors *s)
{
	const struct variant *v;
	uint32_t m = 0;

	v = variant_of(HP_OPEN, s->plan.hp[HP_OPEN].active);
	if (v && v->flavor == FL_TRACEPOINT)
		m |= RG_COMPAT_OPEN;
	if (syscall_level(variant_of(HP_VERBS, s->plan.hp[HP_VERBS].active)) ||
	    syscall_level(variant_of(HP_RDMA_CM, s->plan.hp[HP_RDMA_CM].active)))
		m |= RG_COMPAT_VERBS;
	v = variant_of(HP_MMAP, s->plan.hp[HP_MMAP].active);
	if (v && v->flavor == FL_TRACEPOINT)
		m |= RG_COMPAT_MMAP;
	v = variant_of(HP_MEMORY, s->plan.hp[HP_MEMORY].active);
	if (v && v->flavor == FL_TRACEPOINT)
		m |= RG_COMPAT_MEMORY;
	return m;
}

/* Attaches what the active variants need and detaches the rest. A hook point whose programs do
 * not attach falls back to its next loaded variant. */
void sync_links(struct rg_sensors *s)
{
	uint32_t compat = 0;

	for (unsigned hp = 0; hp < HP__MAX; hp++) {
		struct hook_state *st = &s->plan.hp[hp];

		/* last in the table: the others' flavours are settled. Every syscall of the
		 * machine runs its programs, so only while one is on the syscall level. */
		if (hp == HP_COMPAT) {
			compat = compat_hooks(s);
			st->active = compat && variant_ready(s, hp, variant_of(hp, st->want))
					 ? st->want
					 : -1;
			if (st->want >= 0)
				snprintf(st->note, sizeof(st->note), "%s",
					 compat ? "for the hook points on the syscall level"
						: "no hook point on the syscall level");
		}
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
	if (s->skel->bss)
		s->skel->bss->rg_compat_hooks = s->plan.hp[HP_COMPAT].active >= 0 ? compat : 0;
}

void sensors_set_enforce_kill_hooks(struct rg_sensors *s, uint32_t killtps)
{
	if (s && s->skel && s->skel->bss)
		s->skel->bss->rg_enf_kill_tps = killtps;
}

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
	bool raised;
	int r;

	mod = sensors_mod_bpf__open();
	if (!mod)
		return log_warning_errno(-errno, "Failed to open the ib_uverbs sensors: %m");
	bpf_object__for_each_map(map, mod->obj)
	{
		struct bpf_map *mine;

		if (bpf_map__is_internal(map))
			continue;
		/* fd_cache is the module object's own (bpf/maps.bpf.h): a new one per load */
		if (strcmp(bpf_map__name(map), "fd_cache") == 0)
			continue;
		mine = bpf_object__find_map_by_name(s->skel->obj, bpf_map__name(map));
		r = mine ? bpf_map__reuse_fd(map, bpf_map__fd(mine)) : -ENOENT;
		if (r < 0) {
			log_warning_errno(r, "Failed to share map %s: %m", bpf_map__name(map));
			goto fail;
		}
	}
	SET_KNOBS(mod->rodata, s);
	bpf_program__set_autoload(mod->progs.fx_uverbs_ioctl, uverbs);
	bpf_program__set_autoload(mod->progs.fx_uverbs_write, uverbs);
	bpf_program__set_autoload(mod->progs.fe_uverbs_mmap, uverbs);
	bpf_program__set_autoload(mod->progs.fx_ucma_write, cm);
	/* libbpf finds the module's BTF by id (BPF_BTF_GET_NEXT_ID, _GET_FD_BY_ID): CAP_SYS_ADMIN,
	 * which the daemon keeps only permitted after start (caps.h) */
	raised = caps_raise(CAP_SYS_ADMIN);
	r = sensors_mod_bpf__load(mod);
	if (raised)
		caps_lower(CAP_SYS_ADMIN);
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

bool sensors_may_attach_later(const struct rg_sensors *s)
{
	for (unsigned hp = 0; hp < HP__MAX; hp++) {
		const struct variant *want = variant_of(hp, s->plan.hp[hp].want);

		if (want && want->module)
			return true;
	}
	return false;
}

bool sensors_may_load_module_programs(const struct rg_sensors *s)
{
	static const unsigned hps[] = {HP_VERBS, HP_RDMA_CM};

	for (size_t k = 0; k < ARRAY_SIZE(hps); k++) {
		const struct variant *want = variant_of(hps[k], s->plan.hp[hps[k]].want);

		if (want && want->module && want->flavor == FL_FENTRY)
			return true;
	}
	return false;
}

/* Re-evaluates the hook points that wait for ib_uverbs/rdma_ucm. */
void modules_changed(struct rg_sensors *s)
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
