/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The library hook point: uprobes on the system's libibverbs.so.1 (ibv_get_device_list,
 * ibv_open_device), found in the usual library directories, the functions' offsets read from its
 * ELF symbols (elfsym.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/macro.h"
#include "common/strutil.h"
#include "elfsym.h"
#include "sensors_state.h"
#include "sensors.skel.h"

int find_ibverbs(char *buf, size_t size)
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

void attach_uprobes(struct rg_sensors *s)
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
			self_register(s, RG_SELF_LINK, bpf_link__fd(s->uprobes[i]), funcs[i],
				      false);
		if (!s->uprobes[i]) {
			log_warning_errno(-errno, "Failed to attach a uprobe to %s in %s: %m",
					  funcs[i], s->ibverbs_path);
			snprintf(st->note, sizeof(st->note), "uprobe on %s failed", funcs[i]);
		}
	}
	if (!s->uprobes[0] && !s->uprobes[1])
		st->active = -1;
}
