/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * DMA exposure. RDMA is DMA, and the same cheats also use plain PCIe DMA cards, so the audit
 * reports the facts a rule needs to judge that: is there an IOMMU (/sys/class/iommu), how are
 * devices grouped and translated (/sys/kernel/iommu_groups/N/type: DMA, DMA-FQ, identity, blocked),
 * what the kernel command line asks of it, Thunderbolt security and authorized devices
 * (/sys/bus/thunderbolt), and PCI functions whose driver is missing, hands DMA to userspace, or
 * comes from an out-of-tree module (pci.c finds them). Facts only: rules decide.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inv_internal.h"
#include "common/root.h"
#include "common/strutil.h"

#define SYS_TB "/sys/bus/thunderbolt/devices"

static bool cmdline_relevant(const char *tok)
{
	static const char *const prefixes[] = {
		"intel_iommu=", "amd_iommu=", "amd_iommu_", "iommu=", "iommu.", "iommu_", "vfio",
		"swiotlb=", "pci=", "thunderbolt.", "efi=", "module_blacklist=", "modprobe.blacklist=",
		"initcall_blacklist=", "lockdown=", "nomodule", "module.sig_enforce",
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(prefixes); i++)
		if (startswith(tok, prefixes[i]))
			return true;
	return false;
}

static void read_cmdline(const struct rg_root *root, struct inv_dma *dma)
{
	_cleanup_free_ char *data = NULL;
	char *out, *tok, *save = NULL;
	size_t len = 0, olen = 0;
	bool truncated;
	int r;

	r = root_read_file(root, "/proc/cmdline", 16384, &data, &len, &truncated);
	if (r < 0) {
		inv_errors_add(&dma->errors, "/proc/cmdline: %s", inv_strerror(r));
		return;
	}
	if (truncated)
		inv_errors_add(&dma->errors, "/proc/cmdline: longer than 16384 bytes, the rest ignored");
	if (memchr(data, 0, len))
		inv_errors_add(&dma->errors, "/proc/cmdline: contains NUL bytes");
	out = calloc(1, len + 1);
	if (!out)
		return;
	for (tok = strtok_r(data, " \t\n", &save); tok; tok = strtok_r(NULL, " \t\n", &save)) {
		size_t n = strlen(tok);

		if (!cmdline_relevant(tok))
			continue;
		if (olen)
			out[olen++] = ' ';
		memcpy(out + olen, tok, n);
		olen += n;
	}
	out[olen] = 0;
	str_sanitize(out);
	dma->cmdline_iommu = out;
	dma->cmdline_read = true;
}

static void read_iommu(const struct rg_root *root, struct inventory *inv)
{
	struct inv_dma *dma = &inv->dma;
	char **names = NULL, path[512], type[24];
	bool truncated;
	int n, i;

	n = inv_list_dir(root, "/sys/class/iommu", INV_MAX_IOMMU_UNITS, &names, &truncated);
	if (n < 0 && n != -ENOENT)
		inv_errors_add(&dma->errors, "/sys/class/iommu: %s", inv_strerror(n));
	if (truncated)
		inv_section_truncated(&inv->s_dma, "iommu units: more than %u", INV_MAX_IOMMU_UNITS);
	for (i = 0; i < n; i++)
		inv_strcpy(dma->iommu_units[dma->n_iommu_units++], 64, names[i]);
	inv_strv_free(names, n > 0 ? (unsigned)n : 0);

	n = inv_list_dir(root, "/sys/kernel/iommu_groups", INV_MAX_IOMMU_GROUPS, &names, &truncated);
	if (n < 0 && n != -ENOENT)
		inv_errors_add(&dma->errors, "/sys/kernel/iommu_groups: %s", inv_strerror(n));
	if (truncated)
		inv_section_truncated(&inv->s_dma, "iommu groups: more than %u, the rest not examined",
				      INV_MAX_IOMMU_GROUPS);
	for (i = 0; i < n; i++) {
		unsigned k;

		dma->n_iommu_groups++;
		if (inv_path(path, sizeof(path), "/sys/kernel/iommu_groups/%s/type", names[i]) < 0)
			continue;
		if (inv_attr(root, &dma->errors, INV_ATTR_OPTIONAL, path, type, sizeof(type)) < 0)
			continue;
		for (k = 0; k < dma->n_group_types; k++)
			if (strcmp(dma->group_types[k].type, type) == 0)
				break;
		if (k == dma->n_group_types) {
			if (k >= ARRAY_SIZE(dma->group_types))
				continue;
			inv_strcpy(dma->group_types[k].type, sizeof(dma->group_types[k].type), type);
			dma->n_group_types++;
		}
		dma->group_types[k].count++;
	}
	inv_strv_free(names, n > 0 ? (unsigned)n : 0);
}

static void read_thunderbolt(const struct rg_root *root, struct inventory *inv)
{
	struct inv_dma *dma = &inv->dma;
	char **names = NULL, path[512];
	bool truncated;
	int n, i;

	n = inv_list_dir(root, SYS_TB, INV_MAX_TB * 4, &names, &truncated);
	if (n == -ENOENT)
		return;
	dma->tb_present = true;
	if (n < 0) {
		inv_errors_add(&dma->errors, SYS_TB ": %s", inv_strerror(n));
		return;
	}
	if (truncated)
		inv_section_truncated(&inv->s_dma, "thunderbolt: more than %u entries", INV_MAX_TB * 4);
	dma->tb = calloc(INV_MAX_TB, sizeof(*dma->tb));
	if (!dma->tb) {
		inv_strv_free(names, (unsigned)n);
		return;
	}
	for (i = 0; i < n; i++) {
		struct inv_tb *t;
		bool domain = startswith(names[i], "domain");
		uint32_t v;

		/* Domains ("domain0") and routers/devices ("0-0", "0-1", "1-301"); skip XDomain
		 * services, retimers and ports ("0-0:1.1", "usb4_port1"). */
		if (!domain && (!strchr(names[i], '-') || strchr(names[i], ':') ||
				startswith(names[i], "usb4")))
			continue;
		if (dma->n_tb >= INV_MAX_TB) {
			inv_section_truncated(&inv->s_dma, "thunderbolt: more than %u devices",
					      INV_MAX_TB);
			break;
		}
		t = &dma->tb[dma->n_tb++];
		inv_strcpy(t->name, sizeof(t->name), names[i]);
		t->domain = domain;
		t->iommu_dma_protection = -1;
		t->authorized = -1;
#define ATTR(a) (inv_path(path, sizeof(path), SYS_TB "/%s/" a, names[i]) < 0 ? "" : path)
		if (domain) {
			(void)inv_attr(root, &t->errors, INV_ATTR_REQUIRED, ATTR("security"),
				       t->security, sizeof(t->security));
			if (inv_attr_u32(root, &t->errors, INV_ATTR_OPTIONAL,
					 ATTR("iommu_dma_protection"), 10, &v) == 0)
				t->iommu_dma_protection = (int)(v != 0);
			continue;
		}
		/* The host router ("N-0") has no `authorized`. */
		if (inv_attr_u32(root, &t->errors, INV_ATTR_OPTIONAL, ATTR("authorized"), 10, &v) == 0)
			t->authorized = (int)MIN(v, 2u);
		(void)inv_attr_u32(root, &t->errors, INV_ATTR_OPTIONAL, ATTR("vendor"), 16, &t->vendor);
		(void)inv_attr_u32(root, &t->errors, INV_ATTR_OPTIONAL, ATTR("device"), 16, &t->device);
		(void)inv_attr(root, &t->errors, INV_ATTR_OPTIONAL, ATTR("vendor_name"), t->vendor_name,
			       sizeof(t->vendor_name));
		(void)inv_attr(root, &t->errors, INV_ATTR_OPTIONAL, ATTR("device_name"), t->device_name,
			       sizeof(t->device_name));
#undef ATTR
	}
	inv_strv_free(names, (unsigned)n);
}

void inv_dma_collect(const struct rg_root *root, struct inventory *inv)
{
	inv->s_dma.collected = true;
	read_iommu(root, inv);
	read_cmdline(root, &inv->dma);
	read_thunderbolt(root, inv);
}

struct json_object *inv_dma_to_json(const struct inventory *inv)
{
	const struct inv_dma *dma = &inv->dma;
	struct json_object *sec = json_object_new_object(), *o, *a, *tbo, *doms, *devs;
	unsigned i;

	json_add_section(sec, &inv->s_dma);

	o = json_object_new_object();
	a = json_object_new_array();
	for (i = 0; i < dma->n_iommu_units; i++)
		json_arr_add(a, json_object_new_string(dma->iommu_units[i]));
	json_add_obj(o, "units", a);
	json_add_int(o, "groups", dma->n_iommu_groups);
	a = json_object_new_object();
	for (i = 0; i < dma->n_group_types; i++)
		json_add_int(a, dma->group_types[i].type, dma->group_types[i].count);
	json_add_obj(o, "group_types", a);
	json_add_bool(o, "enabled", dma->n_iommu_units > 0 || dma->n_iommu_groups > 0);
	json_add_obj(sec, "iommu", o);

	if (dma->cmdline_read) {
		char *copy = strdup(dma->cmdline_iommu), *tok, *save = NULL;

		a = json_object_new_array();
		for (tok = copy ? strtok_r(copy, " ", &save) : NULL; tok;
		     tok = strtok_r(NULL, " ", &save))
			json_arr_add(a, json_object_new_string(tok));
		free(copy);
		json_add_obj(sec, "cmdline", a);
	} else {
		json_add_obj(sec, "cmdline", NULL);
	}

	tbo = json_object_new_object();
	json_add_bool(tbo, "present", dma->tb_present);
	doms = json_object_new_array();
	devs = json_object_new_array();
	for (i = 0; i < dma->n_tb; i++) {
		const struct inv_tb *t = &dma->tb[i];

		o = json_object_new_object();
		json_add_str(o, "name", t->name);
		if (t->domain) {
			json_add_str_nonempty(o, "security", t->security);
			if (t->iommu_dma_protection >= 0)
				json_add_bool(o, "iommu_dma_protection", t->iommu_dma_protection);
		} else {
			if (t->authorized >= 0)
				json_add_int(o, "authorized", t->authorized);
			json_add_hex(o, "vendor_id", t->vendor, 4);
			json_add_hex(o, "device_id", t->device, 4);
			json_add_str_nonempty(o, "vendor_name", t->vendor_name);
			json_add_str_nonempty(o, "device_name", t->device_name);
		}
		json_add_errors(o, &t->errors);
		json_arr_add(t->domain ? doms : devs, o);
	}
	json_add_obj(tbo, "domains", doms);
	json_add_obj(tbo, "devices", devs);
	json_add_obj(sec, "thunderbolt", tbo);

	a = json_object_new_array();
	for (i = 0; i < inv->n_pci; i++)
		if (inv->pci[i].dma)
			json_arr_add(a, inv_pci_item_to_json(&inv->pci[i]));
	json_add_obj(sec, "pci_functions", a);
	json_add_errors(sec, &dma->errors);
	return sec;
}
