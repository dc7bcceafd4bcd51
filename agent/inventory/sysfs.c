/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * RDMA devices from sysfs: /sys/class/infiniband/<dev> (a symlink into /sys/devices/...), its
 * attributes (drivers/infiniband/core/sysfs.c), ports/<n>/{state,phys_state,link_layer,rate,lid,
 * sm_lid,gids/<i>,gid_attrs/{types,ndevs}/<i>}, where it hangs in the device tree (a PCI function,
 * an auxiliary device of one, or /sys/devices/virtual for rxe) and the netdevs it rides on.
 * Also the RDMA links (device/port -> netdev), as `rdma link show` lists them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "inv_internal.h"
#include "common/number.h"
#include "common/root.h"
#include "common/strutil.h"

#define SYS_IB "/sys/class/infiniband"

struct inv_device *inv_device_get(struct inventory *inv, const char *name, unsigned source,
				  bool create)
{
	unsigned i;
	struct inv_device *d;

	for (i = 0; i < inv->n_devices; i++)
		if (strcmp(inv->devices[i].name, name) == 0) {
			inv->devices[i].sources |= source;
			return &inv->devices[i];
		}
	if (!create || inv->n_devices >= INV_MAX_DEVICES)
		return NULL;
	d = &inv->devices[inv->n_devices++];
	memset(d, 0, sizeof(*d));
	inv_strcpy(d->name, sizeof(d->name), name);
	d->sources = source;
	return d;
}

void inv_device_free(struct inv_device *d)
{
	unsigned i;

	for (i = 0; i < d->n_ports; i++) {
		free(d->ports[i].gids);
		inv_errors_free(&d->ports[i].errors);
	}
	free(d->ports);
	d->ports = NULL;
	d->n_ports = 0;
	inv_errors_free(&d->errors);
}

static uint32_t port_transport(const char *link_layer, uint32_t node_type)
{
	if (strcmp(link_layer, "InfiniBand") == 0)
		return RG_TRANSPORT_IB;
	if (strcmp(link_layer, "Ethernet") == 0) {
		switch (node_type) {
		case 4: /* RNIC */
			return RG_TRANSPORT_IWARP;
		case 5: /* usNIC */
		case 6: /* usNIC UDP */
			return RG_TRANSPORT_USNIC;
		default:
			return RG_TRANSPORT_ROCE;
		}
	}
	return RG_TRANSPORT_UNKNOWN;
}

static void read_gids(const struct rg_root *root, const char *port_path, struct inv_port *p,
		      struct inv_device *d)
{
	char path[1200], buf[64], **names = NULL;
	bool truncated;
	int n, i, r;

	if (inv_path(path, sizeof(path), "%s/gids", port_path) < 0)
		return;
	n = root_list_dir(root, path, INV_MAX_GID_SCAN, &names, &truncated);
	if (n == -ENOENT)
		return;
	if (n < 0) {
		inv_errors_add(&p->errors, "%s: %s", path, read_strerror(n));
		return;
	}
	if (truncated)
		inv_errors_add(&p->errors, "%s: more than %u entries, the rest not examined", path,
			       INV_MAX_GID_SCAN);
	for (i = 0; i < n; i++) {
		struct inv_gid g = {0};
		static const uint8_t zero[16];

		if (safe_atou32(names[i], 10, &g.index) < 0) {
			inv_errors_add(&p->errors, "%s/gids/%s: unexpected entry", port_path, names[i]);
			continue;
		}
		if (inv_path(path, sizeof(path), "%s/gids/%s", port_path, names[i]) < 0)
			continue;
		r = inv_attr(root, &p->errors, INV_ATTR_REQUIRED, path, buf, sizeof(buf));
		if (r < 0)
			continue;
		if (inv_parse_gid(buf, g.gid) < 0) {
			inv_errors_add(&p->errors, "%s: not a GID: '%.40s'", path, buf);
			continue;
		}
		if (memcmp(g.gid, zero, 16) == 0)
			continue; /* an unused table entry */
		if (p->n_gids >= INV_MAX_GIDS) {
			p->gids_truncated = true;
			continue;
		}
		/* Type and netdev exist only for RoCE GIDs; an error here is not worth reporting. */
		if (inv_path(path, sizeof(path), "%s/gid_attrs/types/%s", port_path, names[i]) == 0)
			(void)inv_attr(root, NULL, INV_ATTR_OPTIONAL, path, g.type, sizeof(g.type));
		if (inv_path(path, sizeof(path), "%s/gid_attrs/ndevs/%s", port_path, names[i]) == 0)
			(void)inv_attr(root, NULL, INV_ATTR_OPTIONAL, path, g.netdev,
				       sizeof(g.netdev));
		if (!p->gids) {
			p->gids = calloc(INV_MAX_GIDS, sizeof(*p->gids));
			if (!p->gids) {
				inv_errors_add(&p->errors, "%s: out of memory", port_path);
				break;
			}
		}
		p->gids[p->n_gids++] = g;
		if (g.netdev[0] && !inv_name_add(d->netdevs, &d->n_netdevs, INV_MAX_NETDEVS, g.netdev))
			inv_errors_add(&d->errors, "netdevs: more than %u", INV_MAX_NETDEVS);
	}
	strv_free(names, n > 0 ? (unsigned)n : 0);
}

static void read_port(const struct rg_root *root, const char *ports_path, const char *name,
		      struct inv_port *p, struct inv_device *d)
{
	char port_path[1100], path[1200], buf[64];

	if (inv_path(port_path, sizeof(port_path), "%s/%s", ports_path, name) < 0) {
		inv_errors_add(&p->errors, "%s/%.64s: path too long", ports_path, name);
		return;
	}
#define ATTR(n) (inv_path(path, sizeof(path), "%s/" n, port_path) < 0 ? "" : path)
	(void)inv_attr_numbered(root, &p->errors, INV_ATTR_REQUIRED, ATTR("state"), &p->state,
				p->state_name, sizeof(p->state_name));
	(void)inv_attr_numbered(root, &p->errors, INV_ATTR_REQUIRED, ATTR("phys_state"),
				&p->phys_state, p->phys_state_name, sizeof(p->phys_state_name));
	(void)inv_attr(root, &p->errors, INV_ATTR_REQUIRED, ATTR("link_layer"), p->link_layer,
		       sizeof(p->link_layer));
	(void)inv_attr(root, &p->errors, INV_ATTR_OPTIONAL, ATTR("rate"), p->rate, sizeof(p->rate));
	if (strcmp(p->link_layer, "InfiniBand") == 0) {
		if (inv_attr_u32(root, &p->errors, INV_ATTR_OPTIONAL, ATTR("lid"), 0, &p->lid) == 0)
			p->has_lid = true;
		(void)inv_attr_u32(root, &p->errors, INV_ATTR_OPTIONAL, ATTR("sm_lid"), 0,
				   &p->sm_lid);
	}
#undef ATTR
	(void)buf;
	p->transport = port_transport(p->link_layer, d->node_type);
	read_gids(root, port_path, p, d);
}

static void read_ports(const struct rg_root *root, const char *dev_path, struct inv_device *d,
		       struct inventory *inv)
{
	char ports_path[1100], **names = NULL;
	bool truncated;
	int n, i;

	if (inv_path(ports_path, sizeof(ports_path), "%s/ports", dev_path) < 0)
		return;
	n = root_list_dir(root, ports_path, INV_MAX_PORTS, &names, &truncated);
	if (n < 0) {
		inv_errors_add(&d->errors, "%s: %s", ports_path,
			       n == -ENOENT ? "missing" : read_strerror(n));
		return;
	}
	if (truncated) {
		d->ports_truncated = true;
		inv_section_truncated(&inv->s_devices, "%s: ports beyond %u not examined", d->name,
				      INV_MAX_PORTS);
	}
	d->ports = calloc(n > 0 ? (size_t)n : 1, sizeof(*d->ports));
	if (!d->ports) {
		strv_free(names, (unsigned)n);
		inv_errors_add(&d->errors, "%s: out of memory", ports_path);
		return;
	}
	for (i = 0; i < n; i++) {
		struct inv_port *p = &d->ports[d->n_ports];

		if (safe_atou32(names[i], 10, &p->num) < 0 || p->num == 0) {
			inv_errors_add(&d->errors, "%s/%s: unexpected entry", ports_path, names[i]);
			continue;
		}
		d->n_ports++;
		read_port(root, ports_path, names[i], p, d);
	}
	strv_free(names, (unsigned)n);
	if (d->n_ports > 0)
		d->transport = d->ports[0].transport;
}

/* The nearest PCI function above a device path: "/sys/devices/pci0000:00/0000:00:02.0/0000:03:00.0/
 * mlx5_core.rdma.0/infiniband/mlx5_0" -> "/sys/devices/pci0000:00/0000:00:02.0/0000:03:00.0". */
static bool find_pci_function(const char *path, char *out, size_t size, char *addr, size_t asize)
{
	char tmp[1024];
	char *slash;

	if (!strscpy_ok(tmp, path, sizeof(tmp)))
		return false;
	while ((slash = strrchr(tmp, '/')) && slash != tmp) {
		if (hw_is_pci_addr(slash + 1)) {
			inv_strcpy(addr, asize, slash + 1);
			return strscpy_ok(out, tmp, size);
		}
		*slash = 0;
	}
	return false;
}

static void add_netdev_dir(const struct rg_root *root, const char *dir, struct inv_device *d)
{
	char path[1200], **names = NULL;
	int n, i;

	if (inv_path(path, sizeof(path), "%s/net", dir) < 0)
		return;
	n = root_list_dir(root, path, INV_MAX_NETDEVS, &names, NULL);
	for (i = 0; i < n; i++)
		(void)inv_name_add(d->netdevs, &d->n_netdevs, INV_MAX_NETDEVS, names[i]);
	strv_free(names, n > 0 ? (unsigned)n : 0);
}

static void read_device(const struct rg_root *root, const char *name, struct inventory *inv)
{
	char class_path[600], path[1200], parent_path[1024], pci_path[1024];
	struct inv_device *d;
	uint32_t v;
	int r;

	pci_path[0] = 0;
	d = inv_device_get(inv, name, INV_SRC_SYSFS, true);
	if (!d)
		return;
	if (inv_path(class_path, sizeof(class_path), SYS_IB "/%s", name) < 0) {
		inv_errors_add(&d->errors, SYS_IB "/%.64s...: path too long", name);
		return;
	}
	r = inv_resolve(root, class_path, d->sysfs_path, sizeof(d->sysfs_path));
	if (r < 0) {
		inv_errors_add(&d->errors, "%s: %s", class_path, read_strerror(r));
		strscpy_ok(d->sysfs_path, class_path, sizeof(d->sysfs_path));
	}
	/* A device directory that cannot be reached (a link loop, a dangling link) is one error,
	 * not one per attribute. */
	{
		struct stat st;

		r = root_stat(root, class_path, &st, true);
		if (r == 0 && !S_ISDIR(st.st_mode))
			r = -ENOTDIR;
		if (r < 0) {
			inv_errors_add(&d->errors, "%s: %s", class_path, read_strerror(r));
			return;
		}
	}

#define ATTR(n) (inv_path(path, sizeof(path), "%s/" n, class_path) < 0 ? "" : path)
	(void)inv_attr_numbered(root, &d->errors, INV_ATTR_REQUIRED, ATTR("node_type"),
				&d->node_type, d->node_type_name, sizeof(d->node_type_name));
	(void)inv_attr(root, &d->errors, INV_ATTR_OPTIONAL, ATTR("node_guid"), d->node_guid,
		       sizeof(d->node_guid));
	(void)inv_attr(root, &d->errors, INV_ATTR_OPTIONAL, ATTR("sys_image_guid"),
		       d->sys_image_guid, sizeof(d->sys_image_guid));
	(void)inv_attr(root, &d->errors, INV_ATTR_OPTIONAL, ATTR("fw_ver"), d->fw_ver,
		       sizeof(d->fw_ver));
	(void)inv_attr(root, &d->errors, INV_ATTR_OPTIONAL, ATTR("hca_type"), d->hca_type,
		       sizeof(d->hca_type));
	(void)inv_attr(root, &d->errors, INV_ATTR_OPTIONAL, ATTR("board_id"), d->board_id,
		       sizeof(d->board_id));
	(void)inv_attr(root, &d->errors, INV_ATTR_OPTIONAL, ATTR("node_desc"), d->node_desc,
		       sizeof(d->node_desc));
	(void)inv_attr(root, &d->errors, INV_ATTR_OPTIONAL, ATTR("parent"), d->parent,
		       sizeof(d->parent));
#undef ATTR

	read_ports(root, class_path, d, inv);

	/* Where the device hangs: its parent device (and that one's driver), the PCI function. */
	parent_path[0] = 0;
	if (inv_path(path, sizeof(path), "%s/device", d->sysfs_path) == 0) {
		r = inv_resolve(root, path, parent_path, sizeof(parent_path));
		if (r < 0 || strcmp(parent_path, path) == 0)
			parent_path[0] = 0; /* no `device` link: a virtual device */
	}
	if (parent_path[0] && inv_path(path, sizeof(path), "%s/driver", parent_path) == 0)
		(void)inv_link_basename(root, path, d->driver, sizeof(d->driver));
	if (find_pci_function(d->sysfs_path, pci_path, sizeof(pci_path), d->pci_addr,
			      sizeof(d->pci_addr))) {
		d->has_pci = true;
#define PATTR(n) (inv_path(path, sizeof(path), "%s/" n, pci_path) < 0 ? "" : path)
		if (inv_attr_u32(root, &d->errors, INV_ATTR_REQUIRED, PATTR("vendor"), 16, &v) == 0)
			d->pci_vendor = v;
		if (inv_attr_u32(root, &d->errors, INV_ATTR_REQUIRED, PATTR("device"), 16, &v) == 0)
			d->pci_device = v;
		if (inv_attr_u32(root, &d->errors, INV_ATTR_REQUIRED, PATTR("class"), 16, &v) == 0)
			d->pci_class = v;
		(void)inv_link_basename(root, PATTR("driver"), d->pci_driver,
					sizeof(d->pci_driver));
#undef PATTR
		add_netdev_dir(root, pci_path, d);
	}
	if (parent_path[0] && strcmp(parent_path, pci_path) != 0)
		add_netdev_dir(root, parent_path, d);

	/* Software RDMA: rxe lives under /sys/devices/virtual and names its netdev in `parent`;
	 * siw hangs below its netdev's parent (even a PCI NIC) but says who it is in node_desc. */
	if (startswith(d->sysfs_path, "/sys/devices/virtual/")) {
		d->soft = true;
		strcpy(d->soft_reason, "virtual");
	}
	if (d->parent[0]) {
		d->soft = true;
		strcpy(d->soft_kind, "rxe");
		if (!d->soft_reason[0])
			strcpy(d->soft_reason, "parent");
		(void)inv_name_add(d->netdevs, &d->n_netdevs, INV_MAX_NETDEVS, d->parent);
	}
	if (strcmp(d->node_desc, "Software iWARP stack") == 0) {
		d->soft = true;
		strcpy(d->soft_kind, "siw");
		if (!d->soft_reason[0])
			strcpy(d->soft_reason, "node_desc");
	} else if (strcmp(d->node_desc, "rxe") == 0 && !d->soft_kind[0]) {
		d->soft = true;
		strcpy(d->soft_kind, "rxe");
		if (!d->soft_reason[0])
			strcpy(d->soft_reason, "node_desc");
	}
	if (d->soft && !d->soft_kind[0]) {
		if (startswith(d->name, "siw") || d->node_type == 4)
			strcpy(d->soft_kind, "siw");
		else if (startswith(d->name, "rxe") || d->transport == RG_TRANSPORT_ROCE)
			strcpy(d->soft_kind, "rxe");
	}
	if (strcmp(d->soft_kind, "rxe") == 0)
		strcpy(d->driver, "rdma_rxe");
	else if (strcmp(d->soft_kind, "siw") == 0)
		strcpy(d->driver, "siw");
	else if (!d->driver[0])
		strscpy_ok(d->driver, d->pci_driver, sizeof(d->driver));
}

void inv_sysfs_collect(const struct rg_root *root, struct inventory *inv)
{
	char **names = NULL;
	bool truncated;
	int n, i;

	inv->s_devices.collected = true;
	n = root_list_dir(root, SYS_IB, INV_MAX_DEVICES, &names, &truncated);
	if (n == -ENOENT) {
		inv_section_note(&inv->s_devices,
				 "no RDMA device: " SYS_IB " does not exist (no ib_core loaded)");
		return;
	}
	if (n < 0) {
		inv_section_error(&inv->s_devices, SYS_IB ": %s", read_strerror(n));
		return;
	}
	if (truncated)
		inv_section_truncated(&inv->s_devices, "devices: more than %u, the rest not examined",
				      INV_MAX_DEVICES);
	if (n == 0)
		inv_section_note(&inv->s_devices, "no RDMA device: " SYS_IB " is empty");
	for (i = 0; i < n; i++)
		read_device(root, names[i], inv);
	strv_free(names, (unsigned)n);
}

static struct json_object *gid_to_json(const struct inv_gid *g)
{
	struct json_object *o = json_object_new_object();
	char buf[64], v4[16];

	json_add_int(o, "index", g->index);
	gid_to_string(g->gid, buf);
	json_add_str(o, "gid", buf);
	if (gid_to_ipv4(g->gid, v4))
		json_add_str(o, "ipv4", v4);
	json_add_str_nonempty(o, "type", g->type);
	json_add_str_nonempty(o, "netdev", g->netdev);
	return o;
}

static struct json_object *port_to_json(const struct inv_port *p)
{
	struct json_object *o = json_object_new_object(), *a;
	unsigned i;

	json_add_int(o, "port", p->num);
	json_add_str_nonempty(o, "state", p->state_name);
	json_add_int(o, "state_num", p->state);
	json_add_str_nonempty(o, "phys_state", p->phys_state_name);
	json_add_int(o, "phys_state_num", p->phys_state);
	json_add_str_nonempty(o, "link_layer", p->link_layer);
	json_add_str(o, "transport", transport_to_string(p->transport));
	json_add_str_nonempty(o, "rate", p->rate);
	if (p->has_lid) {
		json_add_int(o, "lid", p->lid);
		json_add_int(o, "sm_lid", p->sm_lid);
	}
	a = json_object_new_array();
	for (i = 0; i < p->n_gids; i++)
		json_arr_add(a, gid_to_json(&p->gids[i]));
	json_add_obj(o, "gids", a);
	if (p->gids_truncated)
		json_add_bool(o, "gids_truncated", true);
	json_add_errors(o, &p->errors);
	return o;
}

static struct json_object *verbs_dev_to_json(const struct inv_verbs_dev *v)
{
	struct json_object *o = json_object_new_object(), *a;
	char buf[32];
	unsigned i;

	json_add_bool(o, "opened", v->opened);
	json_add_str_nonempty(o, "error", v->error);
	json_add_str_nonempty(o, "node_type", v->node_type);
	json_add_str_nonempty(o, "transport", v->transport);
	if (v->guid) {
		snprintf(buf, sizeof(buf), "%04x:%04x:%04x:%04x", (unsigned)(v->guid >> 48) & 0xffff,
			 (unsigned)(v->guid >> 32) & 0xffff, (unsigned)(v->guid >> 16) & 0xffff,
			 (unsigned)v->guid & 0xffff);
		json_add_str(o, "guid", buf);
	}
	if (!v->opened)
		return o;
	json_add_str_nonempty(o, "fw_ver", v->fw_ver);
	json_add_hex(o, "vendor_id", v->vendor_id, 4);
	json_add_int(o, "vendor_part_id", v->vendor_part_id);
	json_add_int(o, "hw_ver", v->hw_ver);
	json_add_int(o, "phys_port_cnt", v->phys_port_cnt);
	json_add_int(o, "max_qp", v->max_qp);
	json_add_int(o, "max_mr", v->max_mr);
	json_add_u64(o, "max_mr_size", v->max_mr_size);
	a = json_object_new_array();
	for (i = 0; i < v->n_ports; i++) {
		struct json_object *p = json_object_new_object();
		static const char *const ll[] = {"unspecified", "InfiniBand", "Ethernet"};

		json_add_int(p, "port", i + 1);
		json_add_str(p, "state", inv_port_state_name(v->ports[i].state));
		json_add_str(p, "link_layer",
			     v->ports[i].link_layer < 3 ? ll[v->ports[i].link_layer] : "unknown");
		json_add_int(p, "active_mtu", 128 << v->ports[i].active_mtu);
		json_add_int(p, "lid", v->ports[i].lid);
		json_arr_add(a, p);
	}
	json_add_obj(o, "ports", a);
	return o;
}

struct json_object *inv_devices_to_json(const struct inventory *inv)
{
	struct json_object *sec = json_object_new_object(), *items = json_object_new_array();
	unsigned i, k;

	json_add_section(sec, &inv->s_devices);
	for (i = 0; i < inv->n_devices; i++) {
		const struct inv_device *d = &inv->devices[i];
		struct json_object *o = json_object_new_object(), *a;

		json_add_str(o, "name", d->name);
		a = json_object_new_array();
		if (d->sources & INV_SRC_SYSFS)
			json_arr_add(a, json_object_new_string("sysfs"));
		if (d->sources & INV_SRC_VERBS)
			json_arr_add(a, json_object_new_string("verbs"));
		if (d->sources & INV_SRC_NETLINK)
			json_arr_add(a, json_object_new_string("netlink"));
		json_add_obj(o, "sources", a);
		if (d->sources & INV_SRC_SYSFS) {
			json_add_str(o, "sysfs_path", d->sysfs_path);
			json_add_int(o, "node_type", d->node_type);
			json_add_str_nonempty(o, "node_type_name", d->node_type_name);
			json_add_str(o, "transport", transport_to_string(d->transport));
			json_add_str_nonempty(o, "node_guid", d->node_guid);
			json_add_str_nonempty(o, "sys_image_guid", d->sys_image_guid);
			json_add_str_nonempty(o, "fw_ver", d->fw_ver);
			json_add_str_nonempty(o, "hca_type", d->hca_type);
			json_add_str_nonempty(o, "board_id", d->board_id);
			json_add_str_nonempty(o, "node_desc", d->node_desc);
			json_add_bool(o, "soft", d->soft);
			json_add_str_nonempty(o, "soft_kind", d->soft_kind);
			json_add_str_nonempty(o, "soft_reason", d->soft_reason);
			json_add_str_nonempty(o, "parent", d->parent);
			json_add_str_nonempty(o, "driver", d->driver);
			if (d->has_pci) {
				struct json_object *p = json_object_new_object();

				json_add_str(p, "address", d->pci_addr);
				json_add_hex(p, "vendor_id", d->pci_vendor, 4);
				json_add_hex(p, "device_id", d->pci_device, 4);
				json_add_hex(p, "class", d->pci_class, 6);
				json_add_str_nonempty(p, "driver", d->pci_driver);
				json_add_obj(o, "pci", p);
			}
			a = json_object_new_array();
			for (k = 0; k < d->n_netdevs; k++)
				json_arr_add(a, json_object_new_string(d->netdevs[k]));
			json_add_obj(o, "netdevs", a);
			a = json_object_new_array();
			for (k = 0; k < d->n_ports; k++)
				json_arr_add(a, port_to_json(&d->ports[k]));
			json_add_obj(o, "ports", a);
			if (d->ports_truncated)
				json_add_bool(o, "ports_truncated", true);
		}
		if (d->sources & INV_SRC_VERBS)
			json_add_obj(o, "verbs", verbs_dev_to_json(&d->verbs));
		if ((d->sources & INV_SRC_NETLINK) && inv->nl) {
			struct json_object *nl = json_object_new_object();

			for (k = 0; k < inv->nl->n_devs; k++) {
				const struct nldev_dev *nd = &inv->nl->devs[k];

				if (nd->index != d->nl_index)
					continue;
				json_add_int(nl, "index", nd->index);
				json_add_int(nl, "node_type", nd->node_type);
				json_add_str_nonempty(nl, "protocol", nd->protocol);
				json_add_str_nonempty(nl, "fw", nd->fw);
				if (nd->has_ports)
					json_add_int(nl, "ports", nd->ports);
			}
			json_add_obj(o, "netlink", nl);
		}
		json_add_errors(o, &d->errors);
		json_arr_add(items, o);
	}
	json_add_obj(sec, "items", items);
	return sec;
}

struct json_object *inv_links_to_json(const struct inventory *inv)
{
	struct json_object *sec = json_object_new_object(), *items = json_object_new_array();
	unsigned i, k;

	for (i = 0; i < inv->n_devices; i++) {
		const struct inv_device *d = &inv->devices[i];

		for (k = 0; k < d->n_ports; k++) {
			const struct inv_port *p = &d->ports[k];
			struct json_object *o = json_object_new_object();
			char buf[320];
			const char *netdev = "";
			unsigned g;

			snprintf(buf, sizeof(buf), "%s/%u", d->name, p->num);
			json_add_str(o, "link", buf);
			json_add_str(o, "device", d->name);
			json_add_int(o, "port", p->num);
			if (p->state_name[0])
				json_add_str(o, "state", inv_port_state_name(p->state));
			else
				json_add_obj(o, "state", NULL);
			if (p->phys_state_name[0])
				json_add_str(o, "physical_state", inv_phys_state_name(p->phys_state));
			else
				json_add_obj(o, "physical_state", NULL);
			/* The netdev: the first GID's (RoCE), rxe's parent, else the device's only one. */
			for (g = 0; g < p->n_gids && !netdev[0]; g++)
				netdev = p->gids[g].netdev;
			if (!netdev[0] && d->parent[0])
				netdev = d->parent;
			if (!netdev[0] && d->n_netdevs == 1 && p->transport != RG_TRANSPORT_IB)
				netdev = d->netdevs[0];
			json_add_str_nonempty(o, "netdev", netdev);
			json_add_str(o, "transport", transport_to_string(p->transport));
			json_add_bool(o, "soft", d->soft);
			json_add_str_nonempty(o, "type", d->soft_kind);
			json_arr_add(items, o);
		}
	}
	json_add_obj(sec, "items", items);
	return sec;
}
