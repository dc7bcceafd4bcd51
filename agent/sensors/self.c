/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Self-protection (AGENT-004): the agent's own BPF maps and links, registered by id in the map
 * self_objs so that the self hook point (bpf/self.bpf.c) reports any bpf() command by another
 * process that changes one (the kernel's event, naming that process); forgotten again before a
 * link of ours goes. Also the sensors_watch_*() API, for enforcement's objects.
 */
#include <bpf/bpf.h>
#include <errno.h>
#include <string.h>

#include "common/log.h"
#include "common/macro.h"
#include "common/strutil.h"
#include "sensors_state.h"
#include "sensors.skel.h"

/* The kernel's id of the map (RG_SELF_MAP) or link behind fd; 0 if unknown. */
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
void self_forget_link(struct rg_sensors *s, struct bpf_link *link)
{
	uint32_t id = obj_id(RG_SELF_LINK, bpf_link__fd(link));

	for (size_t i = s->nself; id && i-- > 0;)
		if (s->self[i].kind == RG_SELF_LINK && s->self[i].id == id)
			self_forget_at(s, i);
}

void self_forget_mod(struct rg_sensors *s)
{
	for (size_t i = s->nself; i-- > 0;)
		if (s->self[i].mod)
			self_forget_at(s, i);
}

/*
 * Registers one of our own maps or links in self_objs: the self hook point then reports any bpf()
 * command by another process that changes it (the kernel's event, naming that process).
 */
void self_register(struct rg_sensors *s, uint32_t kind, int fd, const char *name, bool mod)
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

void self_register_maps(struct rg_sensors *s, struct bpf_object *obj, bool mod)
{
	struct bpf_map *map;

	bpf_object__for_each_map(map, obj)
	    self_register(s, RG_SELF_MAP, bpf_map__fd(map), bpf_map__name(map), mod);
}

/* convert_ctx.self_name (records.c): the name an id was registered under. */
void self_name(void *ud, uint32_t kind, uint32_t id, char *buf, size_t size)
{
	struct rg_sensors *s = ud;

	for (size_t i = 0; i < s->nself; i++)
		if (s->self[i].kind == kind && s->self[i].id == id) {
			strscpy_ok(buf, s->self[i].name, size);
			return;
		}
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
