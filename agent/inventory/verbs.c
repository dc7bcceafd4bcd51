/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The verbs view: what libibverbs (the library every RDMA program uses) finds, with
 * ibv_get_device_list(), ibv_query_device() and ibv_query_port(), merged into the device list.
 * It reads the running kernel's sysfs and /dev itself, so it cannot follow --root and is skipped
 * there. libibverbs returns positive errno values; they are converted here.
 */
#include <errno.h>
#include <infiniband/verbs.h>
#include <stdio.h>
#include <string.h>

#include "inv_internal.h"

static void query_device(struct ibv_device *dev, struct inv_verbs_dev *v)
{
	struct ibv_context *ctx;
	struct ibv_device_attr attr;
	unsigned p;
	int r;

	inv_strcpy(v->node_type, sizeof(v->node_type), ibv_node_type_str(dev->node_type));
	switch (dev->transport_type) {
	case IBV_TRANSPORT_IB:
		strcpy(v->transport, "InfiniBand");
		break;
	case IBV_TRANSPORT_IWARP:
		strcpy(v->transport, "iWARP");
		break;
	case IBV_TRANSPORT_USNIC:
	case IBV_TRANSPORT_USNIC_UDP:
		strcpy(v->transport, "usNIC");
		break;
	case IBV_TRANSPORT_UNSPECIFIED:
		strcpy(v->transport, "unspecified");
		break;
	default:
		strcpy(v->transport, "unknown");
		break;
	}
	v->guid = be64toh(ibv_get_device_guid(dev));

	ctx = ibv_open_device(dev);
	if (!ctx) {
		snprintf(v->error, sizeof(v->error), "ibv_open_device: %s", strerror(errno));
		return;
	}
	r = ibv_query_device(ctx, &attr);
	if (r != 0) {
		snprintf(v->error, sizeof(v->error), "ibv_query_device: %s", strerror(r));
		ibv_close_device(ctx);
		return;
	}
	v->opened = true;
	inv_strcpy(v->fw_ver, sizeof(v->fw_ver), attr.fw_ver);
	v->vendor_id = attr.vendor_id;
	v->vendor_part_id = attr.vendor_part_id;
	v->hw_ver = attr.hw_ver;
	v->phys_port_cnt = attr.phys_port_cnt;
	v->max_qp = attr.max_qp;
	v->max_mr = attr.max_mr;
	v->max_mr_size = attr.max_mr_size;
	for (p = 1; p <= attr.phys_port_cnt && p <= INV_MAX_PORTS; p++) {
		struct ibv_port_attr pa;

		r = ibv_query_port(ctx, (uint8_t)p, &pa);
		if (r != 0) {
			snprintf(v->error, sizeof(v->error), "ibv_query_port(%u): %s", p, strerror(r));
			break;
		}
		v->ports[v->n_ports].state = pa.state;
		v->ports[v->n_ports].link_layer = pa.link_layer;
		v->ports[v->n_ports].active_mtu = pa.active_mtu;
		v->ports[v->n_ports].lid = pa.lid;
		v->n_ports++;
	}
	ibv_close_device(ctx);
}

void inv_verbs_collect(struct inventory *inv)
{
	struct ibv_device **list;
	int n = 0, i;

	inv->s_verbs.collected = true;
	errno = 0;
	list = ibv_get_device_list(&n);
	if (!list) {
		int e = errno ? errno : EIO;

		if (e == ENOSYS)
			inv_section_note(&inv->s_verbs,
					 "libibverbs: no RDMA support in the kernel (ENOSYS)");
		else
			inv_section_error(&inv->s_verbs, "ibv_get_device_list: %s", strerror(e));
		return;
	}
	inv->verbs_devices = (unsigned)(n > 0 ? n : 0);
	if (n == 0)
		inv_section_note(&inv->s_verbs, "libibverbs found no RDMA device");
	for (i = 0; i < n; i++) {
		const char *name = ibv_get_device_name(list[i]);
		struct inv_device *d;

		if (!name)
			continue;
		d = inv_device_get(inv, name, INV_SRC_VERBS, true);
		if (!d) {
			inv_section_truncated(&inv->s_verbs, "devices: more than %u", INV_MAX_DEVICES);
			break;
		}
		query_device(list[i], &d->verbs);
	}
	ibv_free_device_list(list);
}

struct json_object *inv_verbs_to_json(const struct inventory *inv)
{
	struct json_object *sec = json_object_new_object();

	json_add_section(sec, &inv->s_verbs);
	if (inv->s_verbs.collected)
		json_add_int(sec, "devices", inv->verbs_devices);
	return sec;
}
