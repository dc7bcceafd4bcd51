/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Loading the sensors and letting them go: sensors_open() probes the kernel, makes the plan
 * (plan.c), loads the programs it names into the main object, with the tracepoint flavour always
 * loaded (not attached) as the fallback, so that a hook that fails to attach, or waits for a
 * module, degrades to it without reloading; then attaches (links.c, uprobes.c, tc.c), sets up the
 * ring buffer, uevents and the timer (loop.c) and seeds the RDMA fds (seed.c). sensors_close()
 * undoes it; sensors_plan() says what sensors_open() would choose. sensors_state.h lists
 * the other files of the module.
 */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/log.h"
#include "common/macro.h"
#include "common/strutil.h"
#include "sensors_state.h"
#include "sensors.skel.h"
#include "sensors_mod.skel.h"
#include "uevent.h"

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
	*ret =
	    plan_describe(cfg, &f, &p, skel ? skel->obj : NULL, mod ? mod->obj : NULL, NULL, NULL);
	sensors_mod_bpf__destroy(mod);
	sensors_bpf__destroy(skel);
	return *ret ? 0 : -ENOMEM;
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
				load = !safe &&
				       (i == st->want || i == st->active ||
					(v->flavor == FL_FENTRY && !v->module && st->want >= 0 &&
					 st->want < i && variant_of(hp, st->want)->module));
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
	/* the RDMA ring: half the main one (a page at the least) */
	bpf_map__set_max_entries(s->skel->maps.events_hi,
				 (uint32_t)(rb / 2 < 4096 ? 4096 : rb / 2));
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
	SET_KNOBS(s->skel->rodata, s);
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
	r = hostns_read(&s->hostns);
	if (r < 0)
		log_warning_errno(r, "Cannot read init's root and mount namespace: execs in a chroot or "
				     "another mount namespace are not told apart: %m");
	records_init(s);
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
	/* Read after the main ring, whose records (an exec) explain this one's: a record here
	 * newer than the main ring's last reading has it read again first (on_record_hi), as
	 * the exec that came before it may have been written since. */
	s->rb_hi = ring_buffer__new(bpf_map__fd(s->skel->maps.events_hi), on_record_hi, s, NULL);
	if (!s->rb_hi) {
		r = log_error_errno(-errno, "Failed to set up the RDMA ring buffer: %m");
		goto fail;
	}
	r = epoll_add(s->epfd, ring_buffer__epoll_fd(s->rb));
	if (r < 0)
		goto fail;
	r = epoll_add(s->epfd, ring_buffer__epoll_fd(s->rb_hi));
	if (r < 0)
		goto fail;
	/* on failure (logged), or asked for: a wake-up per record, the kernel's default */
	if (!s->cfg.ring_always_wake &&
	    ringwake_init(&s->wake, bpf_map__fd(s->skel->maps.events),
			  bpf_map__fd(s->skel->maps.rb_poll)) == 0)
		(void)ringwake_add_ring(&s->wake, bpf_map__fd(s->skel->maps.events_hi));
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
	ring_buffer__free(s->rb_hi);
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
