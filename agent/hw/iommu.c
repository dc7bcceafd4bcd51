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

#include "common/listdir.h"
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

static int read_cmdline(const struct rg_root *root, struct hw_posture *p)
{
	_cleanup_free_ char *data = NULL;
	struct hw_cmdline c;
	size_t len = 0;
	bool truncated = false;
	int r;

	r = root_read_file(root, "/proc/cmdline", 16384, &data, &len, &truncated);
	if (r < 0) {
		hw_errors_add(&p->errors, "/proc/cmdline: %s", read_strerror(r));
		return r == -ENOMEM ? r : 0;
	}
	if (truncated)
		hw_errors_add(&p->errors, "/proc/cmdline: longer than 16384 bytes, the rest ignored");
	if (memchr(data, 0, len))
		hw_errors_add(&p->errors, "/proc/cmdline: contains NUL bytes");
	p->cmdline_report = calloc(1, len + 1);
	if (!p->cmdline_report)
		return -ENOMEM;
	p->cmdline_read = true;
	hw_cmdline_parse_report(data, len, &c, p->cmdline_report, len + 1);
	(void)strscpy_ok(p->weakening, c.weakening, sizeof(p->weakening));
	str_sanitize(p->weakening);
	str_sanitize(p->cmdline_report);
	return 0;
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

/* Every Thunderbolt domain (hw/thunderbolt.c): the posture is the weakest one's (its security
 * level; DMA protection off when any domain has it off). */
static int read_thunderbolt(const struct rg_root *root, struct hw_posture *p)
{
	int r = hw_tb_read(root, &p->tb);

	p->tb_dma_protection = -1;
	for (unsigned i = 0; i < p->tb.n; i++) {
		const struct hw_tb *t = &p->tb.tb[i];

		if (!t->domain)
			continue;
		p->has_tb = true;
		p->tb_domains++;
		if (t->security[0] &&
		    (!p->tb_security[0] || tb_rank(t->security) < tb_rank(p->tb_security)))
			(void)strscpy_ok(p->tb_security, t->security, sizeof(p->tb_security));
		if (t->iommu_dma_protection >= 0 && p->tb_dma_protection != 0)
			p->tb_dma_protection = t->iommu_dma_protection != 0;
	}
	str_sanitize(p->tb_security);
	return r;
}

/* The IOMMU units: how many, and the first HW_MAX_UNITS names. */
static int read_units(const struct rg_root *root, struct hw_posture *p)
{
	struct dirent *de;
	unsigned seen = 0;
	char **names = NULL;
	bool truncated = false;
	DIR *d;
	int n;

	d = root_opendir(root, "/sys/class/iommu");
	if (d) {
		while ((de = readdir(d)) && seen++ < 4096)
			if (de->d_name[0] != '.')
				p->units++;
		closedir(d);
	}
	n = root_list_dir(root, "/sys/class/iommu", HW_MAX_UNITS, &names, &truncated);
	if (n == -ENOMEM)
		return n;
	if (n < 0 && n != -ENOENT)
		hw_errors_add(&p->errors, "/sys/class/iommu: %s", read_strerror(n));
	p->truncated |= truncated;
	for (int i = 0; i < n; i++)
		(void)strscpy_ok(p->unit_names[p->n_unit_names++], names[i], 64);
	strv_free(names, n > 0 ? (unsigned)n : 0);
	return 0;
}

/* Every group below root, in id order, with its type; *truncated when there were more than
 * HW_MAX_GROUPS. 0 or -ENOMEM. */
static int read_groups(const struct rg_root *root, struct hw_group **ret, unsigned *ret_n,
		       unsigned *identity, bool *truncated)
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
		if (n == HW_MAX_GROUPS) {
			if (truncated)
				*truncated = true;
			break;
		}
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
	int r;

	memset(p, 0, sizeof(*p));
	if (read_units(root, p) < 0)
		return -ENOMEM;
	r = read_groups(root, &p->groups, &p->n_groups, &p->identity_groups, &p->truncated);
	if (r < 0)
		return r;
	if (read_cmdline(root, p) < 0 || read_thunderbolt(root, p) < 0)
		return -ENOMEM;
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
	int r = read_groups(root, &now, &n, NULL, NULL);

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
	free(p->cmdline_report);
	p->cmdline_report = NULL;
	hw_tb_done(&p->tb);
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
	hw_posture_event_summary(ev);
}

void hw_posture_event_summary(struct rg_event *ev)
{
	struct rg_ev_iommu *e = &ev->u.iommu;
	char *s = e->summary;
	size_t size = sizeof(e->summary), off = 0;

#define ADD(...)                                                                                   \
	do {                                                                                       \
		if (off && off + 2 < size)                                                         \
			off += (size_t)snprintf(s + off, size - off, "; ");                         \
		if (off < size)                                                                    \
			off += (size_t)snprintf(s + off, size - off, __VA_ARGS__);                  \
	} while (0)
	s[0] = 0;
	if (e->weakened)
		ADD("command line %.*s", (int)sizeof(e->cmdline), e->cmdline);
	if (e->has_tb && !e->tb_dma_protection)
		ADD("Thunderbolt without IOMMU DMA protection");
	if (e->has_tb && strncmp(e->tb_security, "none", sizeof(e->tb_security)) == 0)
		ADD("Thunderbolt security level none");
	if (e->change == RG_HW_GROUP_TYPE && e->has_group && e->previous_type[0])
		ADD("group %u switched from %.*s to %.*s", e->group,
		    (int)sizeof(e->previous_type), e->previous_type, (int)sizeof(e->group_type),
		    e->group_type[0] ? e->group_type : "unknown");
	else if (e->change == RG_HW_GROUP_TYPE && e->has_group)
		ADD("new group %u of type %.*s", e->group, (int)sizeof(e->group_type),
		    e->group_type[0] ? e->group_type : "unknown");
	if (e->identity_groups)
		ADD("%u group%s of type identity", e->identity_groups,
		    e->identity_groups == 1 ? "" : "s");
	if (!e->present)
		ADD("no IOMMU translates DMA");
	if (!off)
		ADD("nothing weakens it");
#undef ADD
	s[size - 1] = 0;
}
