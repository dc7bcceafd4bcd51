/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The policy's hardware keys (policy_hw.h):
 *
 *   "hardware": [{"id": "15b3:1017", "subsystem": "15b3:0020", "address": "0000:05:00.0",
 *                 "dsn": "00-11-22-33-44-55-66-77", "expires": "2026-12-31", "comment": "..."}]
 *   "baseline": "/etc/rdmaguard/seat.json"
 *   "hardware_refuse_drivers": true | false | ["mlx5_core", "bnxt_en"]
 *
 * An entry allows a function when ALL it names hold; it must name at least one of id, address
 * or dsn (an entry of only a subsystem or nothing would allow too much). "id" takes "*" for the
 * device ("10ee:*"). A relative baseline path is taken from the policy file's directory.
 * Matching: policy_hw_allowed() on an event's PCI fields, hw_allowed() on a function as examined.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/jsonval.h"
#include "policy.h"
#include "hw/pci.h"

/*
 * The PCI drivers (the names under /sys/bus/pci/drivers) of the adapters Linux runs RDMA on: the
 * verbs driver sits on top of each (mlx5_ib on mlx5_core, bnxt_re on bnxt_en, irdma on ice and
 * i40e, qedr on qede, iw_cxgb4 on cxgb4, hns_roce on hns3, mana_ib on mana, ionic_rdma on
 * ionic, ocrdma on be2net) or is the PCI driver itself (efa, erdma, hfi1, ib_qib, ib_mthca,
 * vmw_pvrdma). Refusing the PCI driver keeps the RDMA one off the function.
 */
const char *const policy_hw_default_refuse_drivers[] = {
	"mlx4_core", "mlx5_core", "bnxt_en",  "qede",	  "cxgb4",   "i40e",	   "ice",
	"efa",	     "erdma",	  "hfi1",     "ib_qib",	  "ib_mthca", "vmw_pvrdma", "hns3",
	"mana",	     "ionic",	  "be2net",   NULL,
};

static bool driver_name_ok(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > 31)
		return false;
	for (; *s; s++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-", *s))
			return false;
	return true;
}

/* "hardware_enforce_port": "off" | "bus_master" | "link" */
static int parse_enforce_port(const struct jdoc *doc, struct json_object *root,
			      struct rg_policy *p, struct rg_error *err)
{
	static const char *const names[] = {"off", "bus_master", "link"};
	const char *s;
	int r = jv_string(doc, root, "hardware_enforce_port", false, &s, err);

	if (r < 0 || !s)
		return r;
	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if (strcmp(s, names[i]) == 0) {
			p->hw_enforce_port = (int)i;
			return 0;
		}
	return jdoc_error(doc, jv_pos(doc, root, "hardware_enforce_port", false), err,
			  "unknown hardware_enforce_port \"%s\" (off, bus_master or link)", s);
}

static int parse_refuse_drivers(const struct jdoc *doc, struct json_object *root,
				struct rg_policy *p, struct rg_error *err)
{
	struct json_object *v;
	size_t n = 0;
	int r;

	if (!json_object_object_get_ex(root, "hardware_refuse_drivers", &v))
		return 0;
	if (json_object_is_type(v, json_type_boolean)) {
		if (!json_object_get_boolean(v))
			return 0;
		while (policy_hw_default_refuse_drivers[n])
			n++;
		p->refuse_drivers = calloc(n, sizeof(*p->refuse_drivers));
		if (!p->refuse_drivers)
			return -ENOMEM;
		for (size_t i = 0; i < n; i++) {
			p->refuse_drivers[i] = strdup(policy_hw_default_refuse_drivers[i]);
			p->n_refuse_drivers = i + 1;
			if (!p->refuse_drivers[i])
				return -ENOMEM;
		}
		return 0;
	}
	if (!json_object_is_type(v, json_type_string) && !json_object_is_type(v, json_type_array))
		return jdoc_error(doc, jv_pos(doc, root, "hardware_refuse_drivers", false), err,
				  "\"hardware_refuse_drivers\" must be true, false or an array of "
				  "driver names, not %s",
				  json_type_words(v));
	r = jv_string_list(doc, root, "hardware_refuse_drivers", POLICY_MAX_REFUSE_DRIVERS,
			   &p->refuse_drivers, &p->n_refuse_drivers, err);
	if (r < 0)
		return r;
	for (size_t i = 0; i < p->n_refuse_drivers; i++)
		if (!driver_name_ok(p->refuse_drivers[i]))
			return jdoc_error(doc,
					  json_object_is_type(v, json_type_array)
					      ? jdoc_element_pos(doc, v, i)
					      : jv_pos(doc, root, "hardware_refuse_drivers", false),
					  err,
					  "\"hardware_refuse_drivers\": \"%s\" is not a driver name "
					  "(1 to 31 letters, digits, '_' or '-', as under "
					  "/sys/bus/pci/drivers)",
					  p->refuse_drivers[i]);
	return 0;
}

static bool parse_id(const char *s, bool allow_any, uint32_t *v, uint32_t *d, bool *any)
{
	unsigned a, b;
	int n = -1;

	*any = false;
	if (allow_any && sscanf(s, "%4x:*%n", &a, &n) == 1 && n > 0 && s[n] == 0 && n == 6) {
		*v = a;
		*any = true;
		return true;
	}
	if (strlen(s) != 9 || sscanf(s, "%4x:%4x%n", &a, &b, &n) != 2 || n != 9)
		return false;
	for (const char *p = s; *p; p++)
		if (!strchr("0123456789abcdefABCDEF:", *p))
			return false;
	*v = a;
	*d = b;
	return true;
}

static bool is_address(const char *s)
{
	unsigned dom, bus, dev, fn;
	int n = -1;

	if (strlen(s) != 12 || sscanf(s, "%4x:%2x:%2x.%1u%n", &dom, &bus, &dev, &fn, &n) != 4 ||
	    n != 12 || dev > 31 || fn > 7)
		return false;
	for (const char *p = s; *p; p++)
		if (!strchr("0123456789abcdef:.", *p))
			return false;
	return true;
}

static bool is_dsn(const char *s)
{
	if (strlen(s) != 23)
		return false;
	for (int i = 0; i < 23; i++)
		if (i % 3 == 2 ? s[i] != '-' : !strchr("0123456789abcdef", s[i]))
			return false;
	return true;
}

static int parse_entry(const struct jdoc *doc, struct json_object *o, size_t pos,
		       struct rg_policy_hw *h, struct rg_error *err)
{
	static const char *const keys[] = {"id",      "subsystem", "address", "dsn",
					   "expires", "comment",   NULL};
	const char *s;
	bool any;
	int r;

	r = jv_check_object(doc, o, pos, "a hardware entry", keys, err);
	if (r < 0)
		return r;
	r = jv_string(doc, o, "id", false, &s, err);
	if (r < 0)
		return r;
	if (s) {
		if (!parse_id(s, true, &h->vendor, &h->device, &h->any_device))
			return jdoc_error(doc, jv_pos(doc, o, "id", false), err,
					  "\"id\" must be vendor:device in hex (\"15b3:1017\", "
					  "\"10ee:*\"), not \"%s\"",
					  s);
		h->has_id = true;
	}
	r = jv_string(doc, o, "subsystem", false, &s, err);
	if (r < 0)
		return r;
	if (s) {
		if (!parse_id(s, false, &h->subsys_vendor, &h->subsys_device, &any))
			return jdoc_error(doc, jv_pos(doc, o, "subsystem", false), err,
					  "\"subsystem\" must be vendor:device in hex "
					  "(\"15b3:0020\"), not \"%s\"",
					  s);
		h->has_subsys = true;
	}
	r = jv_string(doc, o, "address", false, &s, err);
	if (r < 0)
		return r;
	if (s) {
		if (!is_address(s))
			return jdoc_error(doc, jv_pos(doc, o, "address", false), err,
					  "\"address\" must be a PCI address (\"0000:05:00.0\"), "
					  "not \"%s\"",
					  s);
		memcpy(h->address, s, 13);
	}
	r = jv_string(doc, o, "dsn", false, &s, err);
	if (r < 0)
		return r;
	if (s) {
		if (!is_dsn(s))
			return jdoc_error(doc, jv_pos(doc, o, "dsn", false), err,
					  "\"dsn\" must be 8 lowercase hex bytes as lspci shows "
					  "them (\"00-11-22-33-44-55-66-77\"), not \"%s\"",
					  s);
		memcpy(h->dsn, s, 24);
	}
	if (!h->has_id && !h->address[0] && !h->dsn[0])
		return jdoc_error(doc, pos, err,
				  "a hardware entry must name \"id\", \"address\" or \"dsn\"");
	r = jv_expiry(doc, o, "expires", &h->expires_ns, err);
	if (r < 0)
		return r;
	r = jv_string(doc, o, "comment", false, &s, err);
	if (r < 0)
		return r;
	if (s && !(h->comment = strdup(s)))
		return -ENOMEM;
	jdoc_line_col(doc, pos, &h->line, &h->column);
	return 0;
}

int policy_hw_parse(const struct jdoc *doc, struct json_object *root, struct rg_policy *p,
		    struct rg_error *err)
{
	struct json_object *v;
	const char *s;
	size_t n, i;
	int b;
	int r;

	if (json_object_object_get_ex(root, "hardware", &v)) {
		if (!json_object_is_type(v, json_type_array))
			return jdoc_error(doc, jv_pos(doc, root, "hardware", false), err,
					  "\"hardware\" must be an array of entries, not %s",
					  json_type_words(v));
		n = json_object_array_length(v);
		if (n > POLICY_MAX_HARDWARE)
			return jdoc_error(doc, jv_pos(doc, root, "hardware", false), err,
					  "\"hardware\" has more than %d entries",
					  POLICY_MAX_HARDWARE);
		if (n && !(p->hardware = calloc(n, sizeof(*p->hardware))))
			return -ENOMEM;
		for (i = 0; i < n; i++) {
			r = parse_entry(doc, json_object_array_get_idx(v, i),
					jdoc_element_pos(doc, v, i), &p->hardware[i], err);
			p->n_hardware = i + 1;
			if (r < 0)
				return r;
		}
	}
	r = jv_string(doc, root, "baseline", false, &s, err);
	if (r < 0)
		return r;
	if (s) {
		if (!s[0] || strlen(s) >= 4096)
			return jdoc_error(doc, jv_pos(doc, root, "baseline", false), err,
					  "\"baseline\" must be a file name");
		if (s[0] != '/' && jdoc_file(doc)[0] && strchr(jdoc_file(doc), '/')) {
			const char *f = jdoc_file(doc);
			int dl = (int)(strrchr(f, '/') - f);

			if (asprintf(&p->baseline, "%.*s/%s", dl, f, s) < 0)
				p->baseline = NULL;
		} else {
			p->baseline = strdup(s);
		}
		if (!p->baseline)
			return -ENOMEM;
		jdoc_line_col(doc, jv_pos(doc, root, "baseline", false), &p->baseline_pos.line,
			      &p->baseline_pos.column);
	}
	r = parse_enforce_port(doc, root, p, err);
	if (r < 0)
		return r;
	r = jv_bool(doc, root, "require_iommu", &b, err);
	if (r < 0)
		return r;
	p->require_iommu = b > 0;
	return parse_refuse_drivers(doc, root, p, err);
}

void policy_hw_free(struct rg_policy *p)
{
	for (size_t i = 0; i < p->n_hardware; i++)
		free(p->hardware[i].comment);
	free(p->hardware);
	free(p->baseline);
	for (size_t i = 0; i < p->n_refuse_drivers; i++)
		free(p->refuse_drivers[i]);
	free(p->refuse_drivers);
}

bool policy_hw_allowed(const struct rg_policy *p, const struct rg_ev_pci *fn, uint64_t now_ns)
{
	if (!p)
		return false;
	for (size_t i = 0; i < p->n_hardware; i++) {
		const struct rg_policy_hw *h = &p->hardware[i];

		if (h->expires_ns && now_ns >= h->expires_ns)
			continue;
		if (h->has_id &&
		    (h->vendor != fn->vendor || (!h->any_device && h->device != fn->device)))
			continue;
		if (h->has_subsys && (h->subsys_vendor != fn->subsys_vendor ||
				      h->subsys_device != fn->subsys_device))
			continue;
		if (h->address[0] && strncmp(h->address, fn->addr, sizeof(fn->addr)) != 0)
			continue;
		if (h->dsn[0] && strncmp(h->dsn, fn->dsn, sizeof(fn->dsn)) != 0)
			continue;
		return true;
	}
	return false;
}

bool hw_allowed(const struct rg_policy *policy, const struct hw_fn *fn, uint64_t now_ns)
{
	struct rg_event ev;

	if (!policy || !fn)
		return false;
	hw_fn_to_event(fn, RG_EV_PCI_FUNCTION, RG_PROV_INVENTORY, now_ns, &ev);
	return policy_hw_allowed(policy, &ev.u.pci, now_ns);
}
