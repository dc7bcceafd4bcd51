/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The hardware examination as JSON: the audit report's "hardware" section (every function's
 * fingerprint and facts, the IOMMU posture). docs/hardware.md describes the keys.
 */
#include <stdio.h>

#include "common/jsonc.h"
#include "hw/hw_json.h"
#include "hw/iommu.h"

static struct json_object *link_json(const struct hw_link *l)
{
	struct json_object *o = json_object_new_object();

	json_add_obj(o, "speed", json_object_new_int64(l->speed));
	json_add_obj(o, "width", json_object_new_int64(l->width));
	json_add_obj(o, "max_speed", json_object_new_int64(l->max_speed));
	json_add_obj(o, "max_width", json_object_new_int64(l->max_width));
	return o;
}

struct json_object *hw_fn_to_json(const struct hw_fn *fn)
{
	struct json_object *o = json_object_new_object(), *a;
	char buf[32];

	json_add_str_or_null(o, "address", fn->addr);
	json_add_hex(o, "vendor_id", fn->vendor, 4);
	json_add_hex(o, "device_id", fn->device, 4);
	json_add_str_or_null(o, "vendor_name", fn->vendor_name);
	json_add_str_or_null(o, "device_name", fn->device_name);
	json_add_hex(o, "class", fn->class_code, 6);
	json_add_hex(o, "revision", fn->revision, 2);
	json_add_hex(o, "subsystem_vendor_id", fn->subsys_vendor, 4);
	json_add_hex(o, "subsystem_device_id", fn->subsys_device, 4);
	json_add_hex(o, "header_type", fn->header_type, 2);
	json_add_hex(o, "command", fn->command, 4);
	json_add_obj(o, "bus_master", json_object_new_boolean(fn->bus_master));
	json_add_obj(o, "memory_space", json_object_new_boolean(fn->mem_enable));
	json_add_str_or_null(o, "driver", fn->driver);
	json_add_obj(o, "iommu_group", fn->iommu_group >= 0 ? json_object_new_int64(fn->iommu_group) : NULL);
	json_add_str_or_null(o, "iommu_group_type", fn->iommu_type);
	json_add_obj(o, "config_bytes", json_object_new_int64(fn->config_len));
	a = json_object_new_array();
	for (unsigned i = 0; i < fn->n_caps; i++) {
		snprintf(buf, sizeof(buf), "0x%02x@0x%02x", fn->caps[i], fn->cap_offsets[i]);
		json_arr_add(a, json_object_new_string(buf));
	}
	json_add_obj(o, "capabilities", a);
	a = json_object_new_array();
	for (unsigned i = 0; i < fn->n_ecaps; i++) {
		snprintf(buf, sizeof(buf), "0x%04x@0x%03x", fn->ecaps[i], fn->ecap_offsets[i]);
		json_arr_add(a, json_object_new_string(buf));
	}
	json_add_obj(o, "extended_capabilities", a);
	json_add_str_or_null(o, "capabilities_error", fn->caps_error);
	json_add_obj(o, "pcie", json_object_new_boolean(fn->pcie));
	if (fn->pcie) {
		json_add_obj(o, "pcie_type", json_object_new_int64(fn->pcie_type));
		json_add_obj(o, "link", link_json(&fn->link));
	}
	json_add_str_or_null(o, "upstream", fn->upstream);
	if (fn->upstream[0] && fn->upstream_link.speed)
		json_add_obj(o, "upstream_link", link_json(&fn->upstream_link));
	if (fn->has_dsn)
		hw_dsn_format(fn->dsn, buf);
	json_add_str_or_null(o, "dsn", fn->has_dsn ? buf : NULL);
	json_add_obj(o, "ats", json_object_new_boolean(fn->ats));
	json_add_obj(o, "acs", json_object_new_boolean(fn->acs));
	json_add_obj(o, "external", json_object_new_boolean(fn->external));
	a = json_object_new_array();
	for (unsigned i = 0; i < 6; i++) {
		struct json_object *b;

		if (!fn->bars[i].size)
			continue;
		b = json_object_new_object();
		json_add_obj(b, "index", json_object_new_int64(i));
		json_add_obj(b, "size", json_object_new_int64((int64_t)fn->bars[i].size));
		json_add_obj(b, "type",
		    json_object_new_string(fn->bars[i].flags & 1   ? "io"
					   : fn->bars[i].flags & 2 ? "mem64"
								   : "mem32"));
		json_add_obj(b, "prefetchable", json_object_new_boolean(fn->bars[i].flags & 4));
		json_arr_add(a, b);
	}
	json_add_obj(o, "bars", a);
	json_add_obj(o, "rdma_capable", json_object_new_boolean(fn->rdma_capable));
	a = json_object_new_array();
	for (unsigned i = 0; i < RG_PCI_NFACTS; i++)
		if (fn->facts & (1u << i))
			json_arr_add(a, json_object_new_string(pci_fact_to_string(i)));
	json_add_obj(o, "facts", a);
	json_add_str_or_null(o, "error", fn->error);
	return o;
}

static struct json_object *posture_json(const struct hw_posture *p)
{
	struct json_object *o = json_object_new_object(), *g = json_object_new_object(), *tb;
	char key[16];

	json_add_obj(o, "present", json_object_new_boolean(p->units > 0));
	json_add_obj(o, "units", json_object_new_int64(p->units));
	json_add_obj(o, "groups", json_object_new_int64(p->n_groups));
	for (unsigned i = 0; i < p->n_groups; i++) {
		snprintf(key, sizeof(key), "%u", p->groups[i].id);
		json_object_object_add(
		    g, key,
		    p->groups[i].type[0] ? json_object_new_string(p->groups[i].type) : NULL);
	}
	json_add_obj(o, "group_types", g);
	json_add_obj(o, "identity_groups", json_object_new_int64(p->identity_groups));
	json_add_obj(o, "cmdline_read", json_object_new_boolean(p->cmdline_read));
	json_add_str_or_null(o, "weakening_options", p->weakening);
	tb = json_object_new_object();
	json_add_obj(tb, "present", json_object_new_boolean(p->has_tb));
	json_add_str_or_null(tb, "security", p->tb_security);
	json_add_obj(tb, "iommu_dma_protection",
	    p->tb_dma_protection >= 0 ? json_object_new_boolean(p->tb_dma_protection) : NULL);
	json_add_obj(o, "thunderbolt", tb);
	return o;
}

struct json_object *hw_scan_to_json(const struct hw_scan *s)
{
	struct json_object *o = json_object_new_object(), *a = json_object_new_array();

	json_add_obj(o, "scanned", json_object_new_int64(s->n));
	json_add_obj(o, "truncated", json_object_new_boolean(s->truncated));
	json_add_str_or_null(o, "error", s->error);
	for (unsigned i = 0; i < s->n; i++)
		json_arr_add(a, hw_fn_to_json(&s->fn[i]));
	json_add_obj(o, "functions", a);
	if (s->posture)
		json_add_obj(o, "iommu", posture_json(s->posture));
	return o;
}
