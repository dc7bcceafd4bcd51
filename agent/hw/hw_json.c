/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The hardware examination as JSON: the audit report's "hardware" section (every function's
 * fingerprint and facts, the IOMMU posture). docs/hardware.md describes the keys.
 */
#include <stdio.h>

#include "hw/hw_json.h"
#include "hw/iommu.h"

static void add(struct json_object *o, const char *k, struct json_object *v)
{
	if (json_object_object_add(o, k, v) < 0)
		json_object_put(v);
}

static void add_str(struct json_object *o, const char *k, const char *s)
{
	add(o, k, s && s[0] ? json_object_new_string(s) : NULL);
}

static void add_hex(struct json_object *o, const char *k, unsigned v, int width)
{
	char buf[16];

	snprintf(buf, sizeof(buf), "0x%0*x", width, v);
	add(o, k, json_object_new_string(buf));
}

static void arr_add(struct json_object *a, struct json_object *v)
{
	if (json_object_array_add(a, v) < 0)
		json_object_put(v);
}

static struct json_object *link_json(const struct hw_link *l)
{
	struct json_object *o = json_object_new_object();

	add(o, "speed", json_object_new_int64(l->speed));
	add(o, "width", json_object_new_int64(l->width));
	add(o, "max_speed", json_object_new_int64(l->max_speed));
	add(o, "max_width", json_object_new_int64(l->max_width));
	return o;
}

struct json_object *hw_fn_to_json(const struct hw_fn *fn)
{
	struct json_object *o = json_object_new_object(), *a;
	char buf[32];

	add_str(o, "address", fn->addr);
	add_hex(o, "vendor_id", fn->vendor, 4);
	add_hex(o, "device_id", fn->device, 4);
	add_str(o, "vendor_name", fn->vendor_name);
	add_str(o, "device_name", fn->device_name);
	add_hex(o, "class", fn->class_code, 6);
	add_hex(o, "revision", fn->revision, 2);
	add_hex(o, "subsystem_vendor_id", fn->subsys_vendor, 4);
	add_hex(o, "subsystem_device_id", fn->subsys_device, 4);
	add_hex(o, "header_type", fn->header_type, 2);
	add_hex(o, "command", fn->command, 4);
	add(o, "bus_master", json_object_new_boolean(fn->bus_master));
	add(o, "memory_space", json_object_new_boolean(fn->mem_enable));
	add_str(o, "driver", fn->driver);
	add(o, "iommu_group", fn->iommu_group >= 0 ? json_object_new_int64(fn->iommu_group) : NULL);
	add_str(o, "iommu_group_type", fn->iommu_type);
	add(o, "config_bytes", json_object_new_int64(fn->config_len));
	a = json_object_new_array();
	for (unsigned i = 0; i < fn->n_caps; i++) {
		snprintf(buf, sizeof(buf), "0x%02x@0x%02x", fn->caps[i], fn->cap_offsets[i]);
		arr_add(a, json_object_new_string(buf));
	}
	add(o, "capabilities", a);
	a = json_object_new_array();
	for (unsigned i = 0; i < fn->n_ecaps; i++) {
		snprintf(buf, sizeof(buf), "0x%04x@0x%03x", fn->ecaps[i], fn->ecap_offsets[i]);
		arr_add(a, json_object_new_string(buf));
	}
	add(o, "extended_capabilities", a);
	add_str(o, "capabilities_error", fn->caps_error);
	add(o, "pcie", json_object_new_boolean(fn->pcie));
	if (fn->pcie) {
		add(o, "pcie_type", json_object_new_int64(fn->pcie_type));
		add(o, "link", link_json(&fn->link));
	}
	add_str(o, "upstream", fn->upstream);
	if (fn->upstream[0] && fn->upstream_link.speed)
		add(o, "upstream_link", link_json(&fn->upstream_link));
	if (fn->has_dsn)
		hw_dsn_format(fn->dsn, buf);
	add_str(o, "dsn", fn->has_dsn ? buf : NULL);
	add(o, "ats", json_object_new_boolean(fn->ats));
	add(o, "acs", json_object_new_boolean(fn->acs));
	add(o, "external", json_object_new_boolean(fn->external));
	a = json_object_new_array();
	for (unsigned i = 0; i < 6; i++) {
		struct json_object *b;

		if (!fn->bars[i].size)
			continue;
		b = json_object_new_object();
		add(b, "index", json_object_new_int64(i));
		add(b, "size", json_object_new_int64((int64_t)fn->bars[i].size));
		add(b, "type",
		    json_object_new_string(fn->bars[i].flags & 1   ? "io"
					   : fn->bars[i].flags & 2 ? "mem64"
								   : "mem32"));
		add(b, "prefetchable", json_object_new_boolean(fn->bars[i].flags & 4));
		arr_add(a, b);
	}
	add(o, "bars", a);
	add(o, "rdma_capable", json_object_new_boolean(fn->rdma_capable));
	a = json_object_new_array();
	for (unsigned i = 0; i < RG_PCI_NFACTS; i++)
		if (fn->facts & (1u << i))
			arr_add(a, json_object_new_string(pci_fact_to_string(i)));
	add(o, "facts", a);
	add_str(o, "error", fn->error);
	return o;
}

static struct json_object *posture_json(const struct hw_posture *p)
{
	struct json_object *o = json_object_new_object(), *g = json_object_new_object(), *tb;
	char key[16];

	add(o, "present", json_object_new_boolean(p->units > 0));
	add(o, "units", json_object_new_int64(p->units));
	add(o, "groups", json_object_new_int64(p->n_groups));
	for (unsigned i = 0; i < p->n_groups; i++) {
		snprintf(key, sizeof(key), "%u", p->groups[i].id);
		json_object_object_add(
		    g, key,
		    p->groups[i].type[0] ? json_object_new_string(p->groups[i].type) : NULL);
	}
	add(o, "group_types", g);
	add(o, "identity_groups", json_object_new_int64(p->identity_groups));
	add(o, "cmdline_read", json_object_new_boolean(p->cmdline_read));
	add_str(o, "weakening_options", p->weakening);
	tb = json_object_new_object();
	add(tb, "present", json_object_new_boolean(p->has_tb));
	add_str(tb, "security", p->tb_security);
	add(tb, "iommu_dma_protection",
	    p->tb_dma_protection >= 0 ? json_object_new_boolean(p->tb_dma_protection) : NULL);
	add(o, "thunderbolt", tb);
	return o;
}

struct json_object *hw_scan_to_json(const struct hw_scan *s)
{
	struct json_object *o = json_object_new_object(), *a = json_object_new_array();

	add(o, "scanned", json_object_new_int64(s->n));
	add(o, "truncated", json_object_new_boolean(s->truncated));
	add_str(o, "error", s->error);
	for (unsigned i = 0; i < s->n; i++)
		arr_add(a, hw_fn_to_json(&s->fn[i]));
	add(o, "functions", a);
	if (s->posture)
		add(o, "iommu", posture_json(s->posture));
	return o;
}
