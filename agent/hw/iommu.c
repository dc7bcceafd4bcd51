/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The IOMMU posture (iommu.h): the one control that makes a card's DMA fault (and be reported)
 * instead of succeeding silently. Read below the root like everything else; facts only.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hw/cmdline.h"
#include "hw/iommu.h"
#include "common/number.h"
#include "common/root.h"
#include "common/strutil.h"

static int cmp_group(const void *a, const void *b)
{
	const struct hw_group *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

bool hw_cmdline_weakens(const char *opt)
{
	struct hw_cmdline c;

	hw_cmdline_parse(opt, strlen(opt), &c);
	return hw_cmdline_weakened(&c);
}

static void read_cmdline(const struct rg_root *root, struct hw_posture *p)
{
	_cleanup_free_ char *data = NULL;
	struct hw_cmdline c;
	size_t len = 0;

	if (root_read_file(root, "/proc/cmdline", 16384, &data, &len, NULL) < 0)
		return;
	p->cmdline_read = true;
	hw_cmdline_parse(data, len, &c);
	(void)strscpy_ok(p->weakening, c.weakening, sizeof(p->weakening));
	str_sanitize(p->weakening);
}

/* Security levels from the weakest: a domain's is ranked by its place here (unknown: after). */
static unsigned tb_rank(const char *level)
{
	static const char *const order[] = {"none", "user", "secure", "dponly", "usbonly", "nopcie"};

	for (unsigned i = 0; i < ARRAY_SIZE(order); i++)
		if (strcmp(level, order[i]) == 0)
			return i;
	return ARRAY_SIZE(order);
}

/* Every Thunderbolt domain: the posture is the weakest one's (its security level; DMA
 * protection off when any domain has it off). */
static void read_thunderbolt(const struct rg_root *root, struct hw_posture *p)
{
	struct dirent *de;
	unsigned seen = 0;
	DIR *d;

	p->tb_dma_protection = -1;
	d = root_opendir(root, "/sys/bus/thunderbolt/devices");
	if (!d)
		return;
	while ((de = readdir(d)) && seen++ < 1024) {
		char path[600], buf[32];
		uint32_t v;

		if (!startswith(de->d_name, "domain"))
			continue;
		p->has_tb = true;
		p->tb_domains++;
		snprintf(path, sizeof(path), "/sys/bus/thunderbolt/devices/%s/security",
			 de->d_name);
		if (root_read_line(root, path, buf, sizeof(buf)) > 0 &&
		    (!p->tb_security[0] || tb_rank(buf) < tb_rank(p->tb_security)))
			(void)strscpy_ok(p->tb_security, buf, sizeof(p->tb_security));
		snprintf(path, sizeof(path), "/sys/bus/thunderbolt/devices/%s/iommu_dma_protection",
			 de->d_name);
		if (root_read_line(root, path, buf, sizeof(buf)) > 0 &&
		    safe_atou32(buf, 10, &v) == 0 && p->tb_dma_protection != 0)
			p->tb_dma_protection = v != 0;
	}
	closedir(d);
	str_sanitize(p->tb_security);
}

/* Every group below root, in id order, with its type. 0 or -ENOMEM. */
static int read_groups(const struct rg_root *root, struct hw_group **ret, unsigned *ret_n,
		       unsigned *identity)
{
	struct hw_group *groups = NULL;
	unsigned n = 0, cap = 0, seen = 0;
	struct dirent *de;
	DIR *d;

	*ret = NULL;
	*ret_n = 0;
	if (identity)
		*identity = 0;
	d = root_opendir(root, "/sys/kernel/iommu_groups");
	if (!d)
		return 0;
	while ((de = readdir(d)) && seen++ < 4 * HW_MAX_GROUPS) {
		struct hw_group *g;
		char path[300];
		uint32_t id;

		if (safe_atou32(de->d_name, 10, &id) < 0)
			continue;
		if (n == HW_MAX_GROUPS)
			break;
		if (n == cap) {
			unsigned ncap = cap ? cap * 2 : 32;
			struct hw_group *ng = realloc(groups, ncap * sizeof(*ng));

			if (!ng) {
				closedir(d);
				free(groups);
				return -ENOMEM;
			}
			groups = ng;
			cap = ncap;
		}
		g = &groups[n++];
		memset(g, 0, sizeof(*g));
		g->id = id;
		snprintf(path, sizeof(path), "/sys/kernel/iommu_groups/%u/type", id);
		if (root_read_line(root, path, g->type, sizeof(g->type)) < 0)
			g->type[0] = 0;
		str_sanitize(g->type);
		if (identity && strcmp(g->type, "identity") == 0)
			(*identity)++;
	}
	closedir(d);
	if (n)
		qsort(groups, n, sizeof(*groups), cmp_group);
	*ret = groups;
	*ret_n = n;
	return 0;
}

int hw_posture_read(const struct rg_root *root, struct hw_posture *p)
{
	struct dirent *de;
	unsigned seen = 0;
	DIR *d;
	int r;

	memset(p, 0, sizeof(*p));
	d = root_opendir(root, "/sys/class/iommu");
	if (d) {
		while ((de = readdir(d)) && seen++ < 4096)
			if (de->d_name[0] != '.')
				p->units++;
		closedir(d);
	}
	r = read_groups(root, &p->groups, &p->n_groups, &p->identity_groups);
	if (r < 0)
		return r;
	read_cmdline(root, p);
	read_thunderbolt(root, p);
	return 0;
}

static const struct hw_group *group_find(const struct hw_group *g, unsigned n, uint32_t id)
{
	struct hw_group key = {.id = id};

	return n ? bsearch(&key, g, n, sizeof(*g), cmp_group) : NULL;
}

int hw_groups_watch(const struct rg_root *root, struct hw_group_watch *w, hw_group_change_cb cb,
		    void *ud)
{
	struct hw_group *now;
	unsigned n;
	int r = read_groups(root, &now, &n, NULL);

	if (r < 0)
		return r;
	for (unsigned i = 0; w->primed && i < n; i++) {
		const struct hw_group *before = group_find(w->groups, w->n, now[i].id);

		if (before ? strcmp(before->type, now[i].type) != 0
			   : strcmp(now[i].type, "identity") == 0)
			cb(now[i].id, now[i].type, before ? before->type : "", ud);
	}
	free(w->groups);
	w->groups = now;
	w->n = n;
	w->primed = true;
	return 0;
}

void hw_groups_watch_done(struct hw_group_watch *w)
{
	if (!w)
		return;
	free(w->groups);
	*w = (struct hw_group_watch){0};
}

void hw_posture_done(struct hw_posture *p)
{
	if (!p)
		return;
	free(p->groups);
	p->groups = NULL;
	p->n_groups = 0;
}

void hw_posture_to_event(const struct hw_posture *p, uint64_t now_ns, struct rg_event *ev)
{
	struct rg_ev_iommu *e = &ev->u.iommu;

	memset(ev, 0, sizeof(*ev));
	ev->type = RG_EV_IOMMU_POSTURE;
	ev->provider = RG_PROV_INVENTORY;
	ev->ts = now_ns;
	e->present = p->units > 0;
	e->units = p->units;
	e->groups = p->n_groups;
	e->identity_groups = p->identity_groups;
	e->weakened = p->weakening[0] != 0;
	e->has_tb = p->has_tb;
	e->tb_dma_protection = p->tb_dma_protection > 0;
	event_set_str(e->cmdline, sizeof(e->cmdline), p->weakening, sizeof(p->weakening));
	event_set_str(e->tb_security, sizeof(e->tb_security), p->tb_security,
		      sizeof(p->tb_security));
}
