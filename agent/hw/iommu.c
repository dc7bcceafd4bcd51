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
#include "hw/iommu.h"

static int cmp_group(const void *a, const void *b)
{
	const struct hw_group *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

bool hw_cmdline_weakens(const char *opt)
{
	static const char *const exact[] = {
	    "iommu=pt",
	    "iommu=off",
	    "iommu=soft",
	    "iommu.passthrough=1",
	    "iommu.passthrough=y",
	    "iommu.passthrough=on",
	    "amd_iommu=off",
	    "efi=no_disable_early_pci_dma",
	    "intremap=off",
	};
	const char *v;

	for (size_t i = 0; i < ARRAY_SIZE(exact); i++)
		if (strcmp(opt, exact[i]) == 0)
			return true;
	/* intel_iommu takes a comma list: "on,igfx_off" keeps it, "off" anywhere disables it. */
	if (startswith(opt, "intel_iommu=")) {
		char buf[128], *tok, *save = NULL;

		v = opt + strlen("intel_iommu=");
		if (!snprintf_ok(buf, sizeof(buf), "%s", v))
			return false;
		for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
			if (strcmp(tok, "off") == 0 || strcmp(tok, "tboot_noforce") == 0)
				return true;
	}
	return false;
}

bool hw_cmdline_relevant(const char *opt)
{
	static const char *const prefixes[] = {
	    "intel_iommu=", "amd_iommu=", "amd_iommu_", "iommu=", "iommu.", "iommu_", "vfio",
	    "swiotlb=", "pci=", "thunderbolt.", "efi=", "module_blacklist=", "modprobe.blacklist=",
	    "initcall_blacklist=", "lockdown=", "nomodule", "module.sig_enforce",
	};

	for (size_t i = 0; i < ARRAY_SIZE(prefixes); i++)
		if (startswith(opt, prefixes[i]))
			return true;
	return false;
}

static int read_cmdline(const struct rg_root *root, struct hw_posture *p)
{
	_cleanup_free_ char *data = NULL;
	char *tok, *save = NULL;
	size_t len = 0, used = 0, rused = 0;
	bool truncated = false, init = false;
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
	for (tok = strtok_r(data, " \t\n", &save); tok; tok = strtok_r(NULL, " \t\n", &save)) {
		size_t n = strlen(tok);

		if (strcmp(tok, "--") == 0)
			init = true; /* what follows is init's, not the kernel's */
		if (hw_cmdline_relevant(tok)) {
			if (rused)
				p->cmdline_report[rused++] = ' ';
			memcpy(p->cmdline_report + rused, tok, n);
			rused += n;
		}
		if (init || !hw_cmdline_weakens(tok) || used + n + 2 > sizeof(p->weakening))
			continue;
		if (used)
			p->weakening[used++] = ' ';
		memcpy(p->weakening + used, tok, n);
		used += n;
		p->weakening[used] = 0;
	}
	str_sanitize(p->weakening);
	str_sanitize(p->cmdline_report);
	return 0;
}

/* The posture's Thunderbolt fields: the first domain's. */
static int read_thunderbolt(const struct rg_root *root, struct hw_posture *p)
{
	int r = hw_tb_read(root, &p->tb);

	p->tb_dma_protection = -1;
	for (unsigned i = 0; i < p->tb.n; i++) {
		const struct hw_tb *t = &p->tb.tb[i];

		if (!t->domain || p->has_tb)
			continue;
		p->has_tb = true;
		(void)strscpy_ok(p->tb_security, t->security, sizeof(p->tb_security));
		p->tb_dma_protection = t->iommu_dma_protection;
	}
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

int hw_posture_read(const struct rg_root *root, struct hw_posture *p)
{
	struct dirent *de;
	unsigned cap = 0, seen = 0;
	DIR *d;

	memset(p, 0, sizeof(*p));
	if (read_units(root, p) < 0)
		return -ENOMEM;
	d = root_opendir(root, "/sys/kernel/iommu_groups");
	if (d) {
		while ((de = readdir(d)) && seen++ < 4 * HW_MAX_GROUPS) {
			struct hw_group *g;
			char path[300];
			uint32_t id;

			if (safe_atou32(de->d_name, 10, &id) < 0)
				continue;
			if (p->n_groups == HW_MAX_GROUPS) {
				p->truncated = true;
				break;
			}
			if (p->n_groups == cap) {
				unsigned ncap = cap ? cap * 2 : 32;
				struct hw_group *ng = realloc(p->groups, ncap * sizeof(*ng));

				if (!ng) {
					closedir(d);
					return -ENOMEM;
				}
				p->groups = ng;
				cap = ncap;
			}
			g = &p->groups[p->n_groups++];
			memset(g, 0, sizeof(*g));
			g->id = id;
			snprintf(path, sizeof(path), "/sys/kernel/iommu_groups/%u/type", id);
			if (root_read_line(root, path, g->type, sizeof(g->type)) < 0)
				g->type[0] = 0;
			if (strcmp(g->type, "identity") == 0)
				p->identity_groups++;
		}
		closedir(d);
		if (p->n_groups)
			qsort(p->groups, p->n_groups, sizeof(*p->groups), cmp_group);
	}
	if (read_cmdline(root, p) < 0 || read_thunderbolt(root, p) < 0)
		return -ENOMEM;
	return 0;
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
	if (e->change == RG_HW_GROUP_TYPE && e->has_group)
		ADD("group %u switched from %.*s to %.*s", e->group,
		    (int)sizeof(e->previous_type),
		    e->previous_type[0] ? e->previous_type : "unknown", (int)sizeof(e->group_type),
		    e->group_type[0] ? e->group_type : "unknown");
	if (!off)
		ADD("nothing weakens it");
#undef ADD
	s[size - 1] = 0;
}
