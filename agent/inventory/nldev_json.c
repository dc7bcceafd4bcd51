/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The parsed NLDEV tables (nldev.h) as JSON: audit's "netlink" section, one array per resource
 * table with names for the kernel's enums, owners and socket addresses.
 */
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "common/jsonc.h"
#include "inventory/nldev.h"

static void owner_to_json(struct json_object *o, const struct nldev_owner *w)
{
	if (w->has_pid)
		json_object_object_add(o, "pid", json_object_new_int64(w->pid));
	if (w->kern_name[0])
		json_object_object_add(o, "kern_name", json_object_new_string(w->kern_name));
	json_object_object_add(o, "kernel", json_object_new_boolean(!w->has_pid && w->kern_name[0]));
}

static void add_name_or_num(struct json_object *o, const char *k, const char *name, unsigned v)
{
	if (name)
		json_add_str(o, k, name);
	else
		json_add_u64(o, k, v);
}

static void sockaddr_to_json(struct json_object *o, const char *prefix,
			     const struct nldev_sockaddr *sa)
{
	char key[32], buf[64], v4[16];

	if (!sa->family)
		return;
	if (sa->family == AF_INET && gid_to_ipv4(sa->addr, v4))
		strcpy(buf, v4);
	else if (sa->family == AF_INET || sa->family == AF_INET6 || sa->family == 27)
		gid_to_string(sa->addr, buf);
	else
		snprintf(buf, sizeof(buf), "family %u", sa->family);
	snprintf(key, sizeof(key), "%s_addr", prefix);
	json_add_str(o, key, buf);
	snprintf(key, sizeof(key), "%s_port", prefix);
	json_add_u64(o, key, sa->port);
}

static void dev_to_json(struct json_object *o, const void *entry)
{
	const struct nldev_dev *d = entry;

	json_add_u64(o, "index", d->index);
	json_add_str(o, "name", d->name);
	json_add_u64(o, "node_type", d->node_type);
	if (d->protocol[0])
		json_add_str(o, "protocol", d->protocol);
	if (d->fw[0])
		json_add_str(o, "fw", d->fw);
	if (d->node_guid) {
		/* As sysfs and iproute2 write it. */
		char g[24];

		snprintf(g, sizeof(g), "%04x:%04x:%04x:%04x",
			 (unsigned)(d->node_guid >> 48) & 0xffff, (unsigned)(d->node_guid >> 32) & 0xffff,
			 (unsigned)(d->node_guid >> 16) & 0xffff, (unsigned)d->node_guid & 0xffff);
		json_add_str(o, "node_guid", g);
	}
	if (d->has_ports)
		json_add_u64(o, "ports", d->ports);
}

static void qp_to_json(struct json_object *o, const void *entry)
{
	const struct nldev_qp *q = entry;

	json_add_str(o, "device", q->device);
	if (q->port)
		json_add_u64(o, "port", q->port);
	json_add_u64(o, "lqpn", q->lqpn);
	if (q->has_rqpn)
		json_add_u64(o, "rqpn", q->rqpn);
	add_name_or_num(o, "type", nldev_qp_type_name(q->type), q->type);
	add_name_or_num(o, "state", qp_state_to_string(q->state), q->state);
	json_add_u64(o, "sq_psn", q->sq_psn);
	if (q->has_rq_psn)
		json_add_u64(o, "rq_psn", q->rq_psn);
	if (q->has_pdn)
		json_add_u64(o, "pdn", q->pdn);
	owner_to_json(o, &q->owner);
}

static void mr_to_json(struct json_object *o, const void *entry)
{
	const struct nldev_mr *m = entry;

	json_add_str(o, "device", m->device);
	if (m->has_mrn)
		json_add_u64(o, "mrn", m->mrn);
	if (m->has_keys) {
		json_add_hex(o, "rkey", m->rkey, 0);
		json_add_hex(o, "lkey", m->lkey, 0);
	}
	if (m->has_iova)
		json_add_hex(o, "iova", m->iova, 0);
	json_add_u64(o, "length", m->length);
	if (m->has_pdn)
		json_add_u64(o, "pdn", m->pdn);
	owner_to_json(o, &m->owner);
}

static void pd_to_json(struct json_object *o, const void *entry)
{
	const struct nldev_pd *d = entry;

	json_add_str(o, "device", d->device);
	json_add_u64(o, "pdn", d->pdn);
	if (d->has_ctxn)
		json_add_u64(o, "ctxn", d->ctxn);
	json_add_u64(o, "users", d->users);
	if (d->has_local_dma_lkey)
		json_add_hex(o, "local_dma_lkey", d->local_dma_lkey, 0);
	if (d->has_unsafe_global_rkey)
		json_add_hex(o, "unsafe_global_rkey", d->unsafe_global_rkey, 0);
	owner_to_json(o, &d->owner);
}

static void ctx_to_json(struct json_object *o, const void *entry)
{
	const struct nldev_ctx *x = entry;

	json_add_str(o, "device", x->device);
	json_add_u64(o, "ctxn", x->ctxn);
	owner_to_json(o, &x->owner);
}

static void cm_id_to_json(struct json_object *o, const void *entry)
{
	const struct nldev_cm_id *x = entry;

	if (x->device[0])
		json_add_str(o, "device", x->device);
	if (x->port)
		json_add_u64(o, "port", x->port);
	if (x->has_lqpn)
		json_add_u64(o, "lqpn", x->lqpn);
	if (x->has_type)
		add_name_or_num(o, "qp_type", nldev_qp_type_name(x->type), x->type);
	add_name_or_num(o, "ps", nldev_ps_name(x->ps), x->ps);
	add_name_or_num(o, "state", nldev_cm_state_name(x->state), x->state);
	if (x->has_cm_idn)
		json_add_u64(o, "cm_idn", x->cm_idn);
	sockaddr_to_json(o, "src", &x->src);
	sockaddr_to_json(o, "dst", &x->dst);
	owner_to_json(o, &x->owner);
}

/* root[key]: an array of one object per entry, n entries of size bytes from base. */
static void table_to_json(struct json_object *root, const char *key, const void *base, size_t size,
			  unsigned n,
			  void (*entry_to_json)(struct json_object *o, const void *entry))
{
	struct json_object *a = json_object_new_array(), *o;

	for (unsigned i = 0; i < n; i++) {
		o = json_object_new_object();
		entry_to_json(o, (const char *)base + (size_t)i * size);
		json_object_array_add(a, o);
	}
	json_object_object_add(root, key, a);
}

/* What could not be read or kept: "table_errors", "truncated" (when any) and "errors". */
static void problems_to_json(struct json_object *root, const struct nldev_tables *t)
{
	struct json_object *a, *o;
	unsigned i;

	o = json_object_new_object();
	for (i = 0; i < NLDEV_T__MAX; i++)
		if (t->table_error[i])
			json_add_str(o, nldev_table_name(i), strerror(-t->table_error[i]));
	json_object_object_add(root, "table_errors", o);
	a = json_object_new_array();
	for (i = 0; i < NLDEV_T__MAX; i++)
		if (t->dropped[i]) {
			char buf[96];

			snprintf(buf, sizeof(buf), "%s: %u entries beyond %u not kept",
				 nldev_table_name(i), t->dropped[i], NLDEV_MAX_ENTRIES);
			json_object_array_add(a, json_object_new_string(buf));
		}
	if (t->devs_dropped) {
		char buf[96];

		snprintf(buf, sizeof(buf), "devices: %u beyond %u not kept", t->devs_dropped,
			 NLDEV_MAX_DEVICES);
		json_object_array_add(a, json_object_new_string(buf));
	}
	if (json_object_array_length(a))
		json_object_object_add(root, "truncated", a);
	else
		json_object_put(a);
	if (t->n_errors) {
		a = json_object_new_array();
		for (i = 0; i < t->n_errors; i++)
			json_object_array_add(a, json_object_new_string(t->errors[i]));
		json_object_object_add(root, "errors", a);
	}
}

struct json_object *nldev_to_json(const struct nldev_tables *t)
{
	struct json_object *root = json_object_new_object();

	if (!root)
		return NULL;
	table_to_json(root, "devices", t->devs, sizeof(*t->devs), t->n_devs, dev_to_json);
	table_to_json(root, "qps", t->qps, sizeof(*t->qps), t->n[NLDEV_T_QP], qp_to_json);
	table_to_json(root, "mrs", t->mrs, sizeof(*t->mrs), t->n[NLDEV_T_MR], mr_to_json);
	table_to_json(root, "pds", t->pds, sizeof(*t->pds), t->n[NLDEV_T_PD], pd_to_json);
	table_to_json(root, "contexts", t->ctxs, sizeof(*t->ctxs), t->n[NLDEV_T_CTX], ctx_to_json);
	table_to_json(root, "cm_ids", t->cm_ids, sizeof(*t->cm_ids), t->n[NLDEV_T_CM_ID],
		      cm_id_to_json);
	problems_to_json(root, t);
	return root;
}
