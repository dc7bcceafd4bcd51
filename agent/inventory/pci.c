/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * PCI functions (/sys/bus/pci/devices/<addr>): every function is examined once; those that are
 * RDMA-capable (by class, vendor, vendor:device, bound driver, or because an RDMA device sits on
 * them) are reported in "pci", whether or not a driver is bound: a card plugged in but hidden from
 * the verbs stack counts. Those whose driver is missing, a userspace-DMA driver or an out-of-tree
 * module are reported under "dma" (dma.c) as possible DMA masters.
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

static void read_function(const struct rg_root *root, const char *addr, struct inv_pci *p,
			  struct inventory *inv)
{
	char dir[512], path[600], buf[64];
	_cleanup_free_ char *config = NULL;
	size_t len = 0;
	uint32_t v;
	unsigned i;
	int r;

	memset(p, 0, sizeof(*p));
	inv_strcpy(p->addr, sizeof(p->addr), addr);
	p->iommu_group = -1;
	p->bus_master = -1;
	if (inv_path(dir, sizeof(dir), SYS_PCI "/%s", addr) < 0)
		return;
#define ATTR(n) (inv_path(path, sizeof(path), "%s/" n, dir) < 0 ? "" : path)
	(void)inv_attr_u32(root, &p->errors, INV_ATTR_REQUIRED, ATTR("vendor"), 16, &p->vendor);
	(void)inv_attr_u32(root, &p->errors, INV_ATTR_REQUIRED, ATTR("device"), 16, &p->device);
	(void)inv_attr_u32(root, &p->errors, INV_ATTR_REQUIRED, ATTR("class"), 16, &p->class_code);
	(void)inv_attr_u32(root, &p->errors, INV_ATTR_OPTIONAL, ATTR("subsystem_vendor"), 16,
			   &p->subsys_vendor);
	(void)inv_attr_u32(root, &p->errors, INV_ATTR_OPTIONAL, ATTR("subsystem_device"), 16,
			   &p->subsys_device);
	r = inv_link_basename(root, ATTR("driver"), p->driver, sizeof(p->driver));
	if (r < 0 && r != -ENOENT)
		inv_errors_add(&p->errors, "%s/driver: %s", dir, inv_strerror(r));
	if (p->driver[0]) {
		(void)inv_link_basename(root, ATTR("driver/module"), p->driver_module,
					sizeof(p->driver_module));
		if (p->driver_module[0] &&
		    inv_path(path, sizeof(path), "/sys/module/%s/taint", p->driver_module) == 0)
			(void)inv_attr(root, NULL, INV_ATTR_OPTIONAL, path, p->driver_taint,
				       sizeof(p->driver_taint));
	}
	if (inv_link_basename(root, ATTR("iommu_group"), buf, sizeof(buf)) == 0) {
		if (safe_atou32(buf, 10, &v) == 0 && v <= INT32_MAX) {
			p->iommu_group = (int)v;
			if (inv_path(path, sizeof(path), "/sys/kernel/iommu_groups/%u/type", v) == 0)
				(void)inv_attr(root, NULL, INV_ATTR_OPTIONAL, path,
					       p->iommu_group_type, sizeof(p->iommu_group_type));
		} else {
			inv_errors_add(&p->errors, "%s/iommu_group: unexpected target '%.32s'", dir,
				       buf);
		}
	}
	/* The command register (offset 4) of the config space: bit 2 is Bus Master Enable. */
	r = root_read_file(root, ATTR("config"), 64, &config, &len, NULL);
	if (r == 0 && len >= 6)
		p->bus_master = (config[4] & 0x4) ? 1 : 0;
	else if (r < 0 && r != -ENOENT)
		inv_errors_add(&p->errors, "%s/config: %s", dir, inv_strerror(r));
	else if (r == 0)
		inv_errors_add(&p->errors, "%s/config: only %zu bytes", dir, len);
	{
		char **names = NULL;
		int n = inv_list_dir(root, ATTR("net"), INV_MAX_NETDEVS, &names, NULL);

		for (int k = 0; k < n; k++)
			(void)inv_name_add(p->netdevs, &p->n_netdevs, INV_MAX_NETDEVS, names[k]);
		inv_strv_free(names, n > 0 ? (unsigned)n : 0);
	}
#undef ATTR

	/* Classification. */
	if (inv_pci_vendor_name(p->vendor)) {
		p->known_vendor = true;
		inv_strcpy(p->vendor_name, sizeof(p->vendor_name), inv_pci_vendor_name(p->vendor));
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
	if (inv_pci_device_is_rdma(p->vendor, p->device))
		p->evidence |= INV_PCI_EV_DEVICE;
	if (p->driver[0] && inv_pci_driver_is_rdma(p->driver))
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

void inv_pci_collect(const struct rg_root *root, struct inventory *inv)
{
	char **names = NULL;
	unsigned cap = 0;
	bool truncated;
	int n, i;

	inv->s_pci.collected = true;
	n = inv_list_dir(root, SYS_PCI, INV_MAX_PCI_SCAN, &names, &truncated);
	if (n == -ENOENT) {
		inv_section_note(&inv->s_pci, SYS_PCI " does not exist: no PCI bus");
		return;
	}
	if (n < 0) {
		inv_section_error(&inv->s_pci, SYS_PCI ": %s", inv_strerror(n));
		return;
	}
	if (truncated)
		inv_section_truncated(&inv->s_pci, "pci: more than %u functions, the rest not examined",
				      INV_MAX_PCI_SCAN);
	for (i = 0; i < n; i++) {
		if (!inv_is_pci_addr(names[i])) {
			inv_section_entry_error(&inv->s_pci, SYS_PCI "/%s: not a PCI address", names[i]);
			continue;
		}
		if (inv->n_pci == cap) {
			unsigned ncap = cap ? cap * 2 : 32;
			struct inv_pci *np = realloc(inv->pci, ncap * sizeof(*np));

			if (!np) {
				inv_section_error(&inv->s_pci, "out of memory");
				break;
			}
			inv->pci = np;
			cap = ncap;
		}
		read_function(root, names[i], &inv->pci[inv->n_pci], inv);
		inv->n_pci++;
	}
	inv_strv_free(names, (unsigned)n);
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
