/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The report's PCI functions, rendered from the hardware layer's scan (agent/hw/, the one reader
 * of PCI functions): those that are RDMA-capable (by class, vendor, vendor:device, bound driver,
 * or because an RDMA device sits on them) are reported in "pci", whether or not a driver is
 * bound: a card plugged in but hidden from the verbs stack counts. Those whose driver is missing,
 * a userspace-DMA driver or an out-of-tree module are reported under "dma" (dma.c) as possible
 * DMA masters.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inv_internal.h"
#include "common/number.h"
#include "common/root.h"

#define SYS_PCI "/sys/bus/pci/devices"

void inv_pci_free(struct inv_pci *p)
{
	inv_errors_free(&p->errors);
}

static bool is_userspace_driver(const char *drv)
{
	static const char *const names[] = {"vfio-pci", "vfio_pci", "uio_pci_generic", "igb_uio",
					    "uio_pci_sva"};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(names); i++)
		if (strcmp(names[i], drv) == 0)
			return true;
	return false;
}

/* One function of the hardware layer's scan as the report's entry, classified. */
static void from_hw(const struct hw_fn *fn, struct inv_pci *p, struct inventory *inv)
{
	unsigned i;

	memset(p, 0, sizeof(*p));
	inv_strcpy(p->addr, sizeof(p->addr), fn->addr);
	p->vendor = fn->vendor;
	p->device = fn->device;
	p->class_code = fn->class_code;
	p->subsys_vendor = fn->subsys_vendor;
	p->subsys_device = fn->subsys_device;
	inv_strcpy(p->driver, sizeof(p->driver), fn->driver);
	inv_strcpy(p->driver_module, sizeof(p->driver_module), fn->driver_module);
	inv_strcpy(p->driver_taint, sizeof(p->driver_taint), fn->driver_taint);
	p->iommu_group = fn->iommu_group;
	inv_strcpy(p->iommu_group_type, sizeof(p->iommu_group_type), fn->iommu_type);
	p->bus_master = fn->config_bus_master;
	for (i = 0; i < fn->n_netdevs; i++)
		(void)inv_name_add(p->netdevs, &p->n_netdevs, INV_MAX_NETDEVS, fn->netdevs[i]);
	inv_errors_from_hw(&p->errors, &fn->errors);

	/* Classification. */
	if (hw_rdma_vendor_name(p->vendor)) {
		p->known_vendor = true;
		inv_strcpy(p->vendor_name, sizeof(p->vendor_name), hw_rdma_vendor_name(p->vendor));
	}
	switch (p->class_code >> 8) {
	case 0x0207: /* InfiniBand controller */
	case 0x0208: /* Fabric controller */
	case 0x0c06: /* Serial bus controller: InfiniBand */
		p->rdma_class = true;
		p->evidence |= INV_PCI_EV_CLASS;
		break;
	default:
		break;
	}
	if (p->known_vendor && (p->class_code >> 16) == 0x02)
		p->evidence |= INV_PCI_EV_VENDOR;
	if (hw_rdma_device(p->vendor, p->device))
		p->evidence |= INV_PCI_EV_DEVICE;
	if (p->driver[0] && hw_rdma_driver(p->driver))
		p->evidence |= INV_PCI_EV_DRIVER;
	for (i = 0; i < inv->n_devices; i++) {
		const struct inv_device *d = &inv->devices[i];

		if (d->has_pci && strcmp(d->pci_addr, p->addr) == 0 &&
		    p->n_ib_devices < ARRAY_SIZE(p->ib_devices)) {
			inv_strcpy(p->ib_devices[p->n_ib_devices++], 64, d->name);
			p->evidence |= INV_PCI_EV_IBDEV;
		}
	}
	p->rdma = p->evidence != 0;

	if (!p->driver[0])
		p->driver_kind = INV_DRV_NONE;
	else if (is_userspace_driver(p->driver))
		p->driver_kind = INV_DRV_USERSPACE;
	else if (strpbrk(p->driver_taint, "OEP"))
		p->driver_kind = INV_DRV_OUT_OF_TREE;
	else
		p->driver_kind = INV_DRV_KERNEL;
	p->dma = p->driver_kind != INV_DRV_KERNEL;
}

void inv_pci_collect(struct inventory *inv)
{
	const struct hw_scan *s = inv->hw;
	unsigned i;

	inv->s_pci.collected = true;
	if (!s)
		return;
	if (s->list_errno == -ENOENT) {
		inv_section_note(&inv->s_pci, SYS_PCI " does not exist: no PCI bus");
		return;
	}
	if (s->list_errno < 0) {
		inv_section_error(&inv->s_pci, SYS_PCI ": %s", read_strerror(s->list_errno));
		return;
	}
	if (s->truncated)
		inv_section_truncated(&inv->s_pci, "pci: more than %u functions, the rest not examined",
				      HW_MAX_FUNCTIONS);
	for (i = 0; i < s->n_not_addr; i++)
		inv_section_entry_error(&inv->s_pci, SYS_PCI "/%s: not a PCI address", s->not_addr[i]);
	if (!s->n)
		return;
	inv->pci = calloc(s->n, sizeof(*inv->pci));
	if (!inv->pci) {
		inv_section_error(&inv->s_pci, "out of memory");
		return;
	}
	for (i = 0; i < s->n; i++)
		from_hw(&s->fn[i], &inv->pci[inv->n_pci++], inv);
}

const char *inv_driver_kind_to_string(unsigned k)
{
	static const char *const names[INV_DRV__MAX] = {
		[INV_DRV_KERNEL] = "kernel",
		[INV_DRV_NONE] = "none",
		[INV_DRV_USERSPACE] = "userspace",
		[INV_DRV_OUT_OF_TREE] = "out_of_tree",
	};

	return k < INV_DRV__MAX ? names[k] : "unknown";
}

struct json_object *inv_pci_item_to_json(const struct inv_pci *p)
{
	static const struct {
		unsigned bit;
		const char *name;
	} ev[] = {
		{INV_PCI_EV_CLASS, "class"},   {INV_PCI_EV_VENDOR, "vendor"},
		{INV_PCI_EV_DEVICE, "device"}, {INV_PCI_EV_DRIVER, "driver"},
		{INV_PCI_EV_IBDEV, "ib_device"},
	};
	struct json_object *o = json_object_new_object(), *a;
	unsigned i;

	json_add_str(o, "address", p->addr);
	json_add_hex(o, "vendor_id", p->vendor, 4);
	json_add_hex(o, "device_id", p->device, 4);
	json_add_hex(o, "class", p->class_code, 6);
	if (p->subsys_vendor || p->subsys_device) {
		json_add_hex(o, "subsystem_vendor_id", p->subsys_vendor, 4);
		json_add_hex(o, "subsystem_device_id", p->subsys_device, 4);
	}
	json_add_str_nonempty(o, "vendor_name", p->vendor_name);
	if (p->driver[0])
		json_add_str(o, "driver", p->driver);
	else
		json_add_obj(o, "driver", NULL);
	json_add_str(o, "driver_kind", inv_driver_kind_to_string(p->driver_kind));
	json_add_str_nonempty(o, "driver_module", p->driver_module);
	json_add_str_nonempty(o, "driver_taint", p->driver_taint);
	if (p->iommu_group >= 0) {
		json_add_int(o, "iommu_group", p->iommu_group);
		json_add_str_nonempty(o, "iommu_group_type", p->iommu_group_type);
	} else {
		json_add_obj(o, "iommu_group", NULL);
	}
	if (p->bus_master >= 0)
		json_add_bool(o, "bus_master", p->bus_master == 1);
	json_add_bool(o, "rdma_class", p->rdma_class);
	json_add_bool(o, "known_vendor", p->known_vendor);
	a = json_object_new_array();
	for (i = 0; i < ARRAY_SIZE(ev); i++)
		if (p->evidence & ev[i].bit)
			json_arr_add(a, json_object_new_string(ev[i].name));
	json_add_obj(o, "rdma_evidence", a);
	a = json_object_new_array();
	for (i = 0; i < p->n_ib_devices; i++)
		json_arr_add(a, json_object_new_string(p->ib_devices[i]));
	json_add_obj(o, "ib_devices", a);
	a = json_object_new_array();
	for (i = 0; i < p->n_netdevs; i++)
		json_arr_add(a, json_object_new_string(p->netdevs[i]));
	json_add_obj(o, "netdevs", a);
	json_add_errors(o, &p->errors);
	return o;
}

struct json_object *inv_pci_to_json(const struct inventory *inv)
{
	struct json_object *sec = json_object_new_object(), *items = json_object_new_array();
	struct json_object *errs = NULL;
	unsigned i;

	json_add_section(sec, &inv->s_pci);
	json_add_int(sec, "scanned", inv->n_pci);
	for (i = 0; i < inv->n_pci; i++)
		if (inv->pci[i].rdma)
			json_arr_add(items, inv_pci_item_to_json(&inv->pci[i]));
	json_add_obj(sec, "items", items);
	/* Functions reported nowhere else still show what could not be read about them. */
	for (i = 0; i < inv->n_pci; i++) {
		const struct inv_pci *p = &inv->pci[i];
		unsigned k;

		if (p->rdma || p->dma || p->errors.n == 0)
			continue;
		if (!errs) {
			errs = json_object_new_array();
			json_add_obj(sec, "errors", errs);
		}
		for (k = 0; k < p->errors.n; k++)
			json_arr_add(errs, json_object_new_string(p->errors.msg[k]));
	}
	return sec;
}
