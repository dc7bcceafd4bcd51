/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The sensor plan: the --sensor modes, and the choice of a variant per hook point (hooks.c has
 * the table) from the feature probes (never from the kernel version); and the plan as JSON
 * (`--dry-run`, `status`). It loads nothing: plan.h says who does.
 */
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "bpf/events.h"
#include "common/log.h"
#include "compat.h"
#include "plan.h"

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

/* ---- planning ---- */

bool mode_allows(enum sensors_mode mode, unsigned hp, enum flavor fl)
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
bool variant_possible(const struct sensors_features *f, unsigned hp, const struct variant *v,
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
		if (hp == HP_OPEN && !f->fentry) { /* with fentry on fd_install() */
			snprintf(why, whylen, "fentry refused");
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

int make_plan(const struct sensors_config *cfg, const struct sensors_features *f, struct plan *p)
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

/* ---- JSON description ---- */

struct json_object *plan_describe(const struct sensors_config *cfg,
				  const struct sensors_features *f, const struct plan *p,
				  struct bpf_object *main_obj, struct bpf_object *mod_obj,
				  void (*extra)(void *ud, unsigned hp, struct json_object *h),
				  void *ud)
{
	struct json_object *o = json_object_new_object(), *feat, *hooks, *mods;

	if (!o)
		return NULL;
	json_object_object_add(o, "mode", json_object_new_string(mode_names[cfg->mode]));
	json_object_object_add(
	    o, "ring_buffer_bytes",
	    json_object_new_int64(
		(int64_t)(cfg->ringbuf_bytes ? cfg->ringbuf_bytes : SENSORS_DEFAULT_RINGBUF)));
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
		if (hp == HP_COMPAT)
			json_object_object_add(h, "not_seen", compat_not_seen(p));
		if (extra)
			extra(ud, hp, h);
		json_object_object_add(hooks, hook_defs[hp].name, h);
	}
	json_object_object_add(o, "hooks", hooks);
	return o;
}
