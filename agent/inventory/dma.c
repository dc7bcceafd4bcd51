/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * DMA exposure. RDMA is DMA, and the same cheats also use plain PCIe DMA cards, so the audit
 * reports the facts a rule needs to judge that: is there an IOMMU, how are devices grouped and
 * translated (DMA, DMA-FQ, identity, blocked), what the kernel command line asks of it,
 * Thunderbolt security and authorized devices, and PCI functions whose driver is missing, hands
 * DMA to userspace, or comes from an out-of-tree module (pci.c finds them). All of it is the
 * hardware layer's posture (agent/hw/iommu.h, the one reader of the IOMMU and Thunderbolt),
 * rendered here. Facts only: rules decide.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hw/iommu.h"
#include "inv_internal.h"
#include "common/root.h"
#include "common/strutil.h"

static void group_types(const struct hw_posture *p, struct inv_dma *dma)
{
	for (unsigned i = 0; i < p->n_groups; i++) {
		const char *type = p->groups[i].type;
		unsigned k;

		if (!type[0])
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
}

static void thunderbolt(const struct hw_tb_list *l, struct inventory *inv)
{
	struct inv_dma *dma = &inv->dma;

	dma->tb_present = l->present;
	if (l->error[0])
		inv_errors_add(&dma->errors, "%s", l->error);
	if (l->truncated)
		inv_section_truncated(&inv->s_dma, "thunderbolt: more than %u devices", HW_MAX_TB);
	if (!l->n)
		return;
	dma->tb = calloc(l->n, sizeof(*dma->tb));
	if (!dma->tb)
		return;
	for (unsigned i = 0; i < l->n; i++) {
		const struct hw_tb *h = &l->tb[i];
		struct inv_tb *t = &dma->tb[dma->n_tb++];

		inv_strcpy(t->name, sizeof(t->name), h->name);
		t->domain = h->domain;
		inv_strcpy(t->security, sizeof(t->security), h->security);
		t->iommu_dma_protection = h->iommu_dma_protection;
		t->authorized = h->authorized;
		t->vendor = h->vendor;
		t->device = h->device;
		inv_strcpy(t->vendor_name, sizeof(t->vendor_name), h->vendor_name);
		inv_strcpy(t->device_name, sizeof(t->device_name), h->device_name);
		inv_errors_from_hw(&t->errors, &h->errors);
	}
}

void inv_dma_collect(struct inventory *inv)
{
	const struct hw_posture *p = inv->hw ? inv->hw->posture : NULL;
	struct inv_dma *dma = &inv->dma;

	inv->s_dma.collected = true;
	if (!p)
		return;
	for (unsigned i = 0; i < p->n_unit_names && i < INV_MAX_IOMMU_UNITS; i++)
		inv_strcpy(dma->iommu_units[dma->n_iommu_units++], 64, p->unit_names[i]);
	dma->n_iommu_groups = p->n_groups;
	if (p->truncated)
		inv_section_truncated(&inv->s_dma, "iommu: more units or groups than are examined");
	group_types(p, dma);
	inv_errors_from_hw(&dma->errors, &p->errors);
	if (p->cmdline_read) {
		dma->cmdline_iommu = strdup(p->cmdline_report ? p->cmdline_report : "");
		dma->cmdline_read = dma->cmdline_iommu != NULL;
	}
	thunderbolt(&p->tb, inv);
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
