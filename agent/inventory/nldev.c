/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The NLDEV parser: RDMA netlink replies (drivers/infiniband/core/nldev.c; iproute2 rdma/res-*.c is
 * the reference client) into struct nldev_tables. Pure: no socket, no globals; every length is
 * checked before a read, unknown commands and attributes are skipped, strings are bounded and
 * sanitised. A dump reply is
 *   nlmsghdr{type = RDMA_NL_NLDEV << 10 | op} DEV_INDEX DEV_NAME RES_xx{ RES_xx_ENTRY{...}... }
 * with NLMSG_DONE at the end; the GET (device list) reply carries one device per message.
 */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <libmnl/libmnl.h>
#include <linux/netlink.h>
#include <rdma/rdma_netlink.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "common/macro.h"
#include "common/strutil.h"
#include "inventory/nldev.h"

#define NLDEV_OP(type) ((type) & ((1u << 10) - 1))

struct nldev_tables *nldev_tables_new(void)
{
	return calloc(1, sizeof(struct nldev_tables));
}

void nldev_tables_free(struct nldev_tables *t)
{
	unsigned i;

	if (!t)
		return;
	free(t->devs);
	free(t->qps);
	free(t->mrs);
	free(t->pds);
	free(t->ctxs);
	free(t->cm_ids);
	for (i = 0; i < t->n_errors; i++)
		free(t->errors[i]);
	free(t);
}

static void add_error(struct nldev_tables *t, const char *fmt, ...) _printf_(2, 3);
static void add_error(struct nldev_tables *t, const char *fmt, ...)
{
	char buf[256];
	va_list ap;

	if (t->n_errors >= NLDEV_MAX_ERRORS) {
		t->errors_dropped++;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	t->errors[t->n_errors] = strdup(buf);
	if (t->errors[t->n_errors])
		t->n_errors++;
}

const char *nldev_table_name(unsigned tb)
{
	static const char *const names[NLDEV_T__MAX] = {"qp", "mr", "pd", "ctx", "cm_id"};

	return tb < NLDEV_T__MAX ? names[tb] : NULL;
}

const char *nldev_qp_type_name(unsigned type)
{
	if (type == 0xff)
		return "driver";
	return qp_type_to_string(type);
}

const char *nldev_cm_state_name(unsigned s)
{
	static const char *const names[] = {
		"idle",	   "addr_query", "addr_resolved", "route_query",    "route_resolved",
		"connect", "disconnect", "addr_bound",	  "listen",	    "device_removal",
		"destroying",
	};

	return s < ARRAY_SIZE(names) ? names[s] : NULL;
}

const char *nldev_ps_name(unsigned ps)
{
	switch (ps) {
	case 0x0002:
		return "ipoib";
	case 0x0106:
		return "tcp";
	case 0x0111:
		return "udp";
	case 0x013f:
		return "ib";
	default:
		return NULL;
	}
}

/* The resource table a command fills, or -1. */
static int table_of_op(unsigned op)
{
	switch (op) {
	case RDMA_NLDEV_CMD_RES_QP_GET:
		return NLDEV_T_QP;
	case RDMA_NLDEV_CMD_RES_MR_GET:
		return NLDEV_T_MR;
	case RDMA_NLDEV_CMD_RES_PD_GET:
		return NLDEV_T_PD;
	case RDMA_NLDEV_CMD_RES_CTX_GET:
		return NLDEV_T_CTX;
	case RDMA_NLDEV_CMD_RES_CM_ID_GET:
		return NLDEV_T_CM_ID;
	default:
		return -1;
	}
}

/* Checked attribute readers: false when the payload is too short for the type. */
static bool attr_u8(const struct nlattr *a, uint8_t *v)
{
	if (mnl_attr_get_payload_len(a) < 1)
		return false;
	*v = *(const uint8_t *)mnl_attr_get_payload(a);
	return true;
}

static bool attr_u32(const struct nlattr *a, uint32_t *v)
{
	if (mnl_attr_get_payload_len(a) < sizeof(*v))
		return false;
	memcpy(v, mnl_attr_get_payload(a), sizeof(*v));
	return true;
}

static bool attr_u64(const struct nlattr *a, uint64_t *v)
{
	if (mnl_attr_get_payload_len(a) < sizeof(*v))
		return false;
	memcpy(v, mnl_attr_get_payload(a), sizeof(*v));
	return true;
}

static void attr_str(const struct nlattr *a, char *dst, size_t size)
{
	const char *p = mnl_attr_get_payload(a);
	size_t len = mnl_attr_get_payload_len(a);

	event_set_str(dst, size, p, len);
}

static void attr_sockaddr(const struct nlattr *a, struct nldev_sockaddr *sa)
{
	const uint8_t *p = mnl_attr_get_payload(a);
	size_t len = mnl_attr_get_payload_len(a);
	uint16_t family, port;
	uint64_t sid;

	memset(sa, 0, sizeof(*sa));
	if (len < 2)
		return;
	memcpy(&family, p, 2);
	switch (family) {
	case AF_INET:
		if (len < 8)
			return;
		memcpy(&port, p + 2, 2);
		sa->addr[10] = sa->addr[11] = 0xff;
		memcpy(sa->addr + 12, p + 4, 4);
		break;
	case AF_INET6:
		if (len < 24)
			return;
		memcpy(&port, p + 2, 2);
		memcpy(sa->addr, p + 8, 16);
		break;
	case 27: /* AF_IB: struct sockaddr_ib { family, pkey, flowinfo, addr[16], sid, ... } */
		if (len < 32)
			return;
		memcpy(sa->addr, p + 8, 16);
		memcpy(&sid, p + 24, 8);
		port = htons((uint16_t)(be64toh(sid) & 0xffff));
		break;
	default:
		sa->family = family;
		return;
	}
	sa->family = family;
	sa->port = ntohs(port);
}

/* Iterates the attributes in [start, start + len). */
#define for_each_attr(a, start, len)                                                               \
	for (a = (const struct nlattr *)(start);                                                   \
	     mnl_attr_ok(a, (int)((const char *)(start) + (len) - (const char *)a));               \
	     a = mnl_attr_next(a))

static bool attrs_consumed(const void *start, size_t len, const struct nlattr *a)
{
	/* mnl_attr_ok stopped: fine if at the end (or only alignment padding was left). */
	return (const char *)a >= (const char *)start + len ||
	       (size_t)((const char *)start + len - (const char *)a) < sizeof(struct nlattr);
}

static void *grow(struct nldev_tables *t, unsigned tb, void **arr, size_t elem)
{
	if (t->n[tb] >= NLDEV_MAX_ENTRIES) {
		t->dropped[tb]++;
		return NULL;
	}
	if (t->n[tb] == t->cap[tb]) {
		unsigned ncap = t->cap[tb] ? t->cap[tb] * 2 : 16;
		void *n;

		if (ncap > NLDEV_MAX_ENTRIES)
			ncap = NLDEV_MAX_ENTRIES;
		n = realloc(*arr, (size_t)ncap * elem);
		if (!n)
			return NULL;
		*arr = n;
		t->cap[tb] = ncap;
	}
	return (char *)*arr + (size_t)t->n[tb] * elem;
}

static void owner_attr(const struct nlattr *a, unsigned type, struct nldev_owner *o)
{
	if (type == RDMA_NLDEV_ATTR_RES_PID)
		o->has_pid = attr_u32(a, &o->pid);
	else if (type == RDMA_NLDEV_ATTR_RES_KERN_NAME)
		attr_str(a, o->kern_name, sizeof(o->kern_name));
}

struct entry_ctx {
	uint32_t dev_index;
	const char *device;
};

static int parse_qp(const void *p, size_t len, const struct entry_ctx *c, struct nldev_tables *t)
{
	struct nldev_qp q = {.dev_index = c->dev_index};
	const struct nlattr *a;
	bool has_lqpn = false, has_type = false, has_state = false;
	struct nldev_qp *slot;

	strscpy_ok(q.device, c->device, sizeof(q.device));
	for_each_attr(a, p, len) {
		unsigned type = mnl_attr_get_type(a);

		switch (type) {
		case RDMA_NLDEV_ATTR_PORT_INDEX:
			(void)attr_u32(a, &q.port);
			break;
		case RDMA_NLDEV_ATTR_RES_LQPN:
			has_lqpn = attr_u32(a, &q.lqpn);
			break;
		case RDMA_NLDEV_ATTR_RES_RQPN:
			q.has_rqpn = attr_u32(a, &q.rqpn);
			break;
		case RDMA_NLDEV_ATTR_RES_RQ_PSN:
			q.has_rq_psn = attr_u32(a, &q.rq_psn);
			break;
		case RDMA_NLDEV_ATTR_RES_SQ_PSN:
			(void)attr_u32(a, &q.sq_psn);
			break;
		case RDMA_NLDEV_ATTR_RES_PATH_MIG_STATE:
			q.has_path_mig = attr_u8(a, &q.path_mig_state);
			break;
		case RDMA_NLDEV_ATTR_RES_TYPE:
			has_type = attr_u8(a, &q.type);
			break;
		case RDMA_NLDEV_ATTR_RES_STATE:
			has_state = attr_u8(a, &q.state);
			break;
		case RDMA_NLDEV_ATTR_RES_PDN:
			q.has_pdn = attr_u32(a, &q.pdn);
			break;
		default:
			owner_attr(a, type, &q.owner);
			break;
		}
	}
	if (!attrs_consumed(p, len, a)) {
		add_error(t, "qp entry of %s: malformed attribute", c->device);
		return -EBADMSG;
	}
	if (!has_lqpn || !has_type || !has_state) {
		add_error(t, "qp entry of %s: no %s", c->device,
			  !has_lqpn ? "lqpn" : !has_type ? "type" : "state");
		return 0;
	}
	slot = grow(t, NLDEV_T_QP, (void **)&t->qps, sizeof(*t->qps));
	if (slot) {
		*slot = q;
		t->n[NLDEV_T_QP]++;
	}
	return 0;
}

static int parse_mr(const void *p, size_t len, const struct entry_ctx *c, struct nldev_tables *t)
{
	struct nldev_mr m = {.dev_index = c->dev_index};
	const struct nlattr *a;
	bool has_len = false, has_rkey = false, has_lkey = false;
	struct nldev_mr *slot;

	strscpy_ok(m.device, c->device, sizeof(m.device));
	for_each_attr(a, p, len) {
		unsigned type = mnl_attr_get_type(a);

		switch (type) {
		case RDMA_NLDEV_ATTR_RES_MRN:
			m.has_mrn = attr_u32(a, &m.mrn);
			break;
		case RDMA_NLDEV_ATTR_RES_RKEY:
			has_rkey = attr_u32(a, &m.rkey);
			break;
		case RDMA_NLDEV_ATTR_RES_LKEY:
			has_lkey = attr_u32(a, &m.lkey);
			break;
		case RDMA_NLDEV_ATTR_RES_IOVA:
			m.has_iova = attr_u64(a, &m.iova);
			break;
		case RDMA_NLDEV_ATTR_RES_MRLEN:
			has_len = attr_u64(a, &m.length);
			break;
		case RDMA_NLDEV_ATTR_RES_PDN:
			m.has_pdn = attr_u32(a, &m.pdn);
			break;
		default:
			owner_attr(a, type, &m.owner);
			break;
		}
	}
	if (!attrs_consumed(p, len, a)) {
		add_error(t, "mr entry of %s: malformed attribute", c->device);
		return -EBADMSG;
	}
	if (!has_len) {
		add_error(t, "mr entry of %s: no length", c->device);
		return 0;
	}
	m.has_keys = has_rkey || has_lkey;
	slot = grow(t, NLDEV_T_MR, (void **)&t->mrs, sizeof(*t->mrs));
	if (slot) {
		*slot = m;
		t->n[NLDEV_T_MR]++;
	}
	return 0;
}

static int parse_pd(const void *p, size_t len, const struct entry_ctx *c, struct nldev_tables *t)
{
	struct nldev_pd d = {.dev_index = c->dev_index};
	const struct nlattr *a;
	struct nldev_pd *slot;

	strscpy_ok(d.device, c->device, sizeof(d.device));
	for_each_attr(a, p, len) {
		unsigned type = mnl_attr_get_type(a);

		switch (type) {
		case RDMA_NLDEV_ATTR_RES_PDN:
			(void)attr_u32(a, &d.pdn);
			break;
		case RDMA_NLDEV_ATTR_RES_CTXN:
			d.has_ctxn = attr_u32(a, &d.ctxn);
			break;
		case RDMA_NLDEV_ATTR_RES_LOCAL_DMA_LKEY:
			d.has_local_dma_lkey = attr_u32(a, &d.local_dma_lkey);
			break;
		case RDMA_NLDEV_ATTR_RES_UNSAFE_GLOBAL_RKEY:
			d.has_unsafe_global_rkey = attr_u32(a, &d.unsafe_global_rkey);
			break;
		case RDMA_NLDEV_ATTR_RES_USECNT:
			(void)attr_u64(a, &d.users);
			break;
		default:
			owner_attr(a, type, &d.owner);
			break;
		}
	}
	if (!attrs_consumed(p, len, a)) {
		add_error(t, "pd entry of %s: malformed attribute", c->device);
		return -EBADMSG;
	}
	slot = grow(t, NLDEV_T_PD, (void **)&t->pds, sizeof(*t->pds));
	if (slot) {
		*slot = d;
		t->n[NLDEV_T_PD]++;
	}
	return 0;
}

static int parse_ctx(const void *p, size_t len, const struct entry_ctx *c, struct nldev_tables *t)
{
	struct nldev_ctx x = {.dev_index = c->dev_index};
	const struct nlattr *a;
	bool has_ctxn = false;
	struct nldev_ctx *slot;

	strscpy_ok(x.device, c->device, sizeof(x.device));
	for_each_attr(a, p, len) {
		unsigned type = mnl_attr_get_type(a);

		if (type == RDMA_NLDEV_ATTR_RES_CTXN)
			has_ctxn = attr_u32(a, &x.ctxn);
		else
			owner_attr(a, type, &x.owner);
	}
	if (!attrs_consumed(p, len, a)) {
		add_error(t, "ctx entry of %s: malformed attribute", c->device);
		return -EBADMSG;
	}
	if (!has_ctxn) {
		add_error(t, "ctx entry of %s: no ctxn", c->device);
		return 0;
	}
	slot = grow(t, NLDEV_T_CTX, (void **)&t->ctxs, sizeof(*t->ctxs));
	if (slot) {
		*slot = x;
		t->n[NLDEV_T_CTX]++;
	}
	return 0;
}

static int parse_cm_id(const void *p, size_t len, const struct entry_ctx *c,
		       struct nldev_tables *t)
{
	struct nldev_cm_id x = {.dev_index = c->dev_index};
	const struct nlattr *a;
	struct nldev_cm_id *slot;

	strscpy_ok(x.device, c->device, sizeof(x.device));
	for_each_attr(a, p, len) {
		unsigned type = mnl_attr_get_type(a);

		switch (type) {
		case RDMA_NLDEV_ATTR_PORT_INDEX:
			(void)attr_u32(a, &x.port);
			break;
		case RDMA_NLDEV_ATTR_RES_LQPN:
			x.has_lqpn = attr_u32(a, &x.lqpn);
			break;
		case RDMA_NLDEV_ATTR_RES_TYPE:
			x.has_type = attr_u8(a, &x.type);
			break;
		case RDMA_NLDEV_ATTR_RES_PS:
			(void)attr_u32(a, &x.ps);
			break;
		case RDMA_NLDEV_ATTR_RES_STATE:
			(void)attr_u8(a, &x.state);
			break;
		case RDMA_NLDEV_ATTR_RES_CM_IDN:
			x.has_cm_idn = attr_u32(a, &x.cm_idn);
			break;
		case RDMA_NLDEV_ATTR_RES_SRC_ADDR:
			attr_sockaddr(a, &x.src);
			break;
		case RDMA_NLDEV_ATTR_RES_DST_ADDR:
			attr_sockaddr(a, &x.dst);
			break;
		default:
			owner_attr(a, type, &x.owner);
			break;
		}
	}
	if (!attrs_consumed(p, len, a)) {
		add_error(t, "cm_id entry of %s: malformed attribute", c->device);
		return -EBADMSG;
	}
	slot = grow(t, NLDEV_T_CM_ID, (void **)&t->cm_ids, sizeof(*t->cm_ids));
	if (slot) {
		*slot = x;
		t->n[NLDEV_T_CM_ID]++;
	}
	return 0;
}

static int parse_dev(const void *p, size_t len, struct nldev_tables *t)
{
	struct nldev_dev d = {0};
	const struct nlattr *a;
	bool has_index = false;
	uint8_t u8;
	unsigned i;

	for_each_attr(a, p, len) {
		switch (mnl_attr_get_type(a)) {
		case RDMA_NLDEV_ATTR_DEV_INDEX:
			has_index = attr_u32(a, &d.index);
			break;
		case RDMA_NLDEV_ATTR_DEV_NAME:
			attr_str(a, d.name, sizeof(d.name));
			break;
		case RDMA_NLDEV_ATTR_PORT_INDEX: /* GET: the number of ports */
			d.has_ports = attr_u32(a, &d.ports);
			break;
		case RDMA_NLDEV_ATTR_FW_VERSION:
			attr_str(a, d.fw, sizeof(d.fw));
			break;
		case RDMA_NLDEV_ATTR_NODE_GUID:
			(void)attr_u64(a, &d.node_guid);
			break;
		case RDMA_NLDEV_ATTR_SYS_IMAGE_GUID:
			(void)attr_u64(a, &d.sys_image_guid);
			break;
		case RDMA_NLDEV_ATTR_DEV_NODE_TYPE:
			if (attr_u8(a, &u8))
				d.node_type = u8;
			break;
		case RDMA_NLDEV_ATTR_DEV_PROTOCOL:
			attr_str(a, d.protocol, sizeof(d.protocol));
			break;
		default:
			break;
		}
	}
	if (!attrs_consumed(p, len, a)) {
		add_error(t, "device: malformed attribute");
		return -EBADMSG;
	}
	if (!has_index || !d.name[0]) {
		add_error(t, "device: no index or name");
		return 0;
	}
	for (i = 0; i < t->n_devs; i++)
		if (t->devs[i].index == d.index) {
			t->devs[i] = d; /* a repeated dump */
			return 0;
		}
	if (t->n_devs >= NLDEV_MAX_DEVICES) {
		t->devs_dropped++;
		return 0;
	}
	if (!t->devs) {
		t->devs = calloc(NLDEV_MAX_DEVICES, sizeof(*t->devs));
		if (!t->devs)
			return -ENOMEM;
	}
	t->devs[t->n_devs++] = d;
	return 0;
}

typedef int (*entry_parser)(const void *p, size_t len, const struct entry_ctx *c,
			    struct nldev_tables *t);

static int parse_res(const void *p, size_t len, int tb, struct nldev_tables *t)
{
	static const struct {
		unsigned table_attr, entry_attr;
		entry_parser fn;
	} kinds[NLDEV_T__MAX] = {
		[NLDEV_T_QP] = {RDMA_NLDEV_ATTR_RES_QP, RDMA_NLDEV_ATTR_RES_QP_ENTRY, parse_qp},
		[NLDEV_T_MR] = {RDMA_NLDEV_ATTR_RES_MR, RDMA_NLDEV_ATTR_RES_MR_ENTRY, parse_mr},
		[NLDEV_T_PD] = {RDMA_NLDEV_ATTR_RES_PD, RDMA_NLDEV_ATTR_RES_PD_ENTRY, parse_pd},
		[NLDEV_T_CTX] = {RDMA_NLDEV_ATTR_RES_CTX, RDMA_NLDEV_ATTR_RES_CTX_ENTRY, parse_ctx},
		[NLDEV_T_CM_ID] = {RDMA_NLDEV_ATTR_RES_CM_ID, RDMA_NLDEV_ATTR_RES_CM_ID_ENTRY,
				   parse_cm_id},
	};
	struct entry_ctx c = {0};
	const struct nlattr *a, *table = NULL, *e;
	char name[64] = "";
	int r;

	/* First pass: the device, and where the table is. */
	for_each_attr(a, p, len) {
		unsigned type = mnl_attr_get_type(a);

		if (type == RDMA_NLDEV_ATTR_DEV_INDEX)
			(void)attr_u32(a, &c.dev_index);
		else if (type == RDMA_NLDEV_ATTR_DEV_NAME)
			attr_str(a, name, sizeof(name));
		else if (type == kinds[tb].table_attr)
			table = a;
	}
	if (!attrs_consumed(p, len, a)) {
		add_error(t, "%s reply: malformed attribute", nldev_table_name((unsigned)tb));
		return -EBADMSG;
	}
	c.device = name;
	if (!table)
		return 0; /* a device without such resources */
	for_each_attr(e, mnl_attr_get_payload(table), mnl_attr_get_payload_len(table)) {
		if (mnl_attr_get_type(e) != kinds[tb].entry_attr)
			continue;
		r = kinds[tb].fn(mnl_attr_get_payload(e), mnl_attr_get_payload_len(e), &c, t);
		if (r < 0)
			return r;
	}
	if (!attrs_consumed(mnl_attr_get_payload(table), mnl_attr_get_payload_len(table), e)) {
		add_error(t, "%s table of %s: malformed entry", nldev_table_name((unsigned)tb), name);
		return -EBADMSG;
	}
	return 0;
}

static void record_refusal(struct nldev_tables *t, int op_hint, int err)
{
	int tb = op_hint >= 0 ? table_of_op((unsigned)op_hint) : -1;

	/* The error code is the kernel's word, or a hostile one's: only -1..-4095 are errnos. */
	if (err < -4095)
		err = -EPROTO;
	if (tb >= 0) {
		if (!t->table_error[tb])
			t->table_error[tb] = err;
	} else {
		add_error(t, "%s: %s", op_hint == RDMA_NLDEV_CMD_GET ? "device list" : "reply",
			  strerror(-err));
	}
}

int nldev_parse_msg(const void *msg, size_t len, struct nldev_tables *t)
{
	const struct nlmsghdr *nlh = msg;
	const void *payload;
	size_t plen;
	int tb;

	if (len < sizeof(*nlh) || nlh->nlmsg_len < sizeof(*nlh) || nlh->nlmsg_len > len) {
		add_error(t, "truncated netlink message");
		return -EBADMSG;
	}
	t->messages++;
	payload = (const char *)msg + NLMSG_HDRLEN;
	plen = nlh->nlmsg_len >= NLMSG_HDRLEN ? nlh->nlmsg_len - NLMSG_HDRLEN : 0;

	switch (nlh->nlmsg_type) {
	case NLMSG_NOOP:
		return 0;
	case NLMSG_DONE: {
		int32_t err = 0;

		t->done++;
		if (plen >= sizeof(err))
			memcpy(&err, payload, sizeof(err));
		if (err < 0)
			record_refusal(t, t->last_op, err);
		return 1;
	}
	case NLMSG_ERROR: {
		struct nlmsgerr e;
		int op = t->last_op;

		if (plen < sizeof(e.error)) {
			add_error(t, "truncated NLMSG_ERROR");
			return -EBADMSG;
		}
		memcpy(&e.error, payload, sizeof(e.error));
		if (plen >= sizeof(e))
			memcpy(&e.msg, (const char *)payload + sizeof(e.error), sizeof(e.msg));
		if (plen >= sizeof(e) && (e.msg.nlmsg_type >> 10) == RDMA_NL_NLDEV)
			op = NLDEV_OP(e.msg.nlmsg_type);
		if (e.error < 0)
			record_refusal(t, op, e.error);
		return 1; /* an error or an ACK ends the request */
	}
	default:
		break;
	}
	if ((nlh->nlmsg_type >> 10) != RDMA_NL_NLDEV)
		return 0; /* another RDMA netlink client: not ours */
	t->last_op = (int)NLDEV_OP(nlh->nlmsg_type);
	if (t->last_op == RDMA_NLDEV_CMD_GET)
		return parse_dev(payload, plen, t);
	tb = table_of_op((unsigned)t->last_op);
	if (tb < 0)
		return 0;
	return parse_res(payload, plen, tb, t);
}

int nldev_parse_stream(const void *buf, size_t len, struct nldev_tables *t)
{
	const char *p = buf;
	size_t off = 0;
	int done = 0, r;

	while (off < len) {
		const struct nlmsghdr *nlh = (const void *)(p + off);
		size_t left = len - off;

		if (left < sizeof(*nlh) || nlh->nlmsg_len < sizeof(*nlh) || nlh->nlmsg_len > left) {
			add_error(t, "truncated netlink message at offset %zu", off);
			return -EBADMSG;
		}
		r = nldev_parse_msg(nlh, nlh->nlmsg_len, t);
		if (r < 0)
			return r;
		done += r;
		off += NLMSG_ALIGN(nlh->nlmsg_len);
	}
	return done;
}
