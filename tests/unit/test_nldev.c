/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The RDMA netlink (NLDEV) parser on message bytes: replies built here with libmnl the way the
 * kernel lays them out (drivers/infiniband/core/nldev.c: nests without NLA_F_NESTED, u64 with a
 * PAD attribute, PID or KERN_NAME per entry), caps, malformed and hostile bytes, a bounded
 * mutation run; and the real socket path on this kernel.
 */
#include <arpa/inet.h>
#include <check.h>
#include <errno.h>
#include <libmnl/libmnl.h>
#include <linux/netlink.h>
#include <rdma/rdma_netlink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "event/event_json.h"
#include "inventory/nldev.h"

#define BUF_SIZE (4 << 20)

struct stream {
	char *buf;
	size_t len;
	struct nlmsghdr *cur;
};

static void stream_init(struct stream *s)
{
	s->buf = calloc(1, BUF_SIZE);
	ck_assert_ptr_nonnull(s->buf);
	s->len = 0;
	s->cur = NULL;
}

static struct nlmsghdr *msg_begin(struct stream *s, unsigned op)
{
	ck_assert_uint_lt(s->len + 65536, BUF_SIZE);
	s->cur = mnl_nlmsg_put_header(s->buf + s->len);
	s->cur->nlmsg_type = RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, op);
	s->cur->nlmsg_flags = NLM_F_MULTI;
	s->cur->nlmsg_seq = 42;
	return s->cur;
}

static void msg_end(struct stream *s)
{
	s->len += NLMSG_ALIGN(s->cur->nlmsg_len);
	s->cur = NULL;
}

/* As the kernel: nla_nest_start_noflag. */
static struct nlattr *nest(struct nlmsghdr *nlh, unsigned type)
{
	struct nlattr *a = mnl_attr_nest_start(nlh, (uint16_t)type);

	a->nla_type &= (uint16_t)~NLA_F_NESTED;
	return a;
}

/* As the kernel's nla_put_u64_64bit on an architecture that needs the PAD attribute. */
static void put_u64_pad(struct nlmsghdr *nlh, unsigned type, uint64_t v)
{
	mnl_attr_put(nlh, RDMA_NLDEV_ATTR_PAD, 0, NULL);
	mnl_attr_put_u64(nlh, (uint16_t)type, v);
}

static void put_done(struct stream *s, int32_t err)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(s->buf + s->len);

	nlh->nlmsg_type = NLMSG_DONE;
	nlh->nlmsg_flags = NLM_F_MULTI;
	*(int32_t *)mnl_nlmsg_put_extra_header(nlh, sizeof(int32_t)) = err;
	s->len += NLMSG_ALIGN(nlh->nlmsg_len);
}

static void put_error(struct stream *s, int32_t err, unsigned op)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(s->buf + s->len);
	struct nlmsgerr *e;

	nlh->nlmsg_type = NLMSG_ERROR;
	e = mnl_nlmsg_put_extra_header(nlh, sizeof(*e));
	e->error = err;
	e->msg.nlmsg_len = 16;
	e->msg.nlmsg_type = (uint16_t)RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, op);
	e->msg.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	s->len += NLMSG_ALIGN(nlh->nlmsg_len);
}

static void put_dev_header(struct nlmsghdr *nlh, uint32_t index, const char *name)
{
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_DEV_INDEX, index);
	mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_DEV_NAME, name);
}

static void add_device(struct stream *s, uint32_t index, const char *name)
{
	struct nlmsghdr *nlh = msg_begin(s, RDMA_NLDEV_CMD_GET);

	put_dev_header(nlh, index, name);
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_PORT_INDEX, 1);
	put_u64_pad(nlh, RDMA_NLDEV_ATTR_CAP_FLAGS, 0);
	mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_FW_VERSION, "0.0.0");
	/* Host order: nldev.c puts be64_to_cpu(node_guid). */
	put_u64_pad(nlh, RDMA_NLDEV_ATTR_NODE_GUID, 0xf86b4ffffed0543full);
	put_u64_pad(nlh, RDMA_NLDEV_ATTR_SYS_IMAGE_GUID, 0xf86b4ffffed0543full);
	mnl_attr_put_u8(nlh, RDMA_NLDEV_ATTR_DEV_NODE_TYPE, 1);
	mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_DEV_PROTOCOL, "roce");
	msg_end(s);
}

struct qp_spec {
	uint32_t port, lqpn, rqpn, rq_psn, sq_psn, pdn, pid;
	uint8_t type, state;
	bool rqpn_set, pdn_set;
	const char *kern;
};

static void put_qp(struct nlmsghdr *nlh, const struct qp_spec *q)
{
	struct nlattr *e = nest(nlh, RDMA_NLDEV_ATTR_RES_QP_ENTRY);

	if (q->port)
		mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_PORT_INDEX, q->port);
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_RES_LQPN, q->lqpn);
	if (q->rqpn_set) {
		mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_RES_RQPN, q->rqpn);
		mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_RES_RQ_PSN, q->rq_psn);
	}
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_RES_SQ_PSN, q->sq_psn);
	if (q->type == 2 || q->type == 3)
		mnl_attr_put_u8(nlh, RDMA_NLDEV_ATTR_RES_PATH_MIG_STATE, 0);
	mnl_attr_put_u8(nlh, RDMA_NLDEV_ATTR_RES_TYPE, q->type);
	mnl_attr_put_u8(nlh, RDMA_NLDEV_ATTR_RES_STATE, q->state);
	if (q->pdn_set)
		mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_RES_PDN, q->pdn);
	if (q->kern)
		mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_RES_KERN_NAME, q->kern);
	else
		mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_RES_PID, q->pid);
	mnl_attr_nest_end(nlh, e);
}

static const struct qp_spec qp_user = {.port = 1, .lqpn = 17, .rqpn = 18, .rq_psn = 9960939,
				       .sq_psn = 0, .type = 2, .state = 2, .rqpn_set = true,
				       .pdn = 3, .pdn_set = true, .pid = 184};
static const struct qp_spec qp_kern = {.port = 1, .lqpn = 1, .type = 1, .state = 3,
				       .kern = "ib_core"};

static void add_qps(struct stream *s, uint32_t index, const char *name,
		    const struct qp_spec *qps, unsigned n)
{
	struct nlmsghdr *nlh = msg_begin(s, RDMA_NLDEV_CMD_RES_QP_GET);
	struct nlattr *t;

	put_dev_header(nlh, index, name);
	t = nest(nlh, RDMA_NLDEV_ATTR_RES_QP);
	for (unsigned i = 0; i < n; i++)
		put_qp(nlh, &qps[i]);
	mnl_attr_nest_end(nlh, t);
	msg_end(s);
}

static void add_mrs(struct stream *s)
{
	struct nlmsghdr *nlh = msg_begin(s, RDMA_NLDEV_CMD_RES_MR_GET);
	struct nlattr *t, *e;

	put_dev_header(nlh, 0, "rxe0");
	t = nest(nlh, RDMA_NLDEV_ATTR_RES_MR);
	e = nest(nlh, RDMA_NLDEV_ATTR_RES_MR_ENTRY);
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_RES_RKEY, 0x226);
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_RES_LKEY, 0x226);
	put_u64_pad(nlh, RDMA_NLDEV_ATTR_RES_IOVA, 0x7f0000001000ull);
	put_u64_pad(nlh, RDMA_NLDEV_ATTR_RES_MRLEN, 131072);
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_RES_MRN, 0);
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_RES_PDN, 2);
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_RES_PID, 191);
	mnl_attr_nest_end(nlh, e);
	/* Without CAP_NET_ADMIN: no keys, no iova. */
	e = nest(nlh, RDMA_NLDEV_ATTR_RES_MR_ENTRY);
	put_u64_pad(nlh, RDMA_NLDEV_ATTR_RES_MRLEN, 1ull << 40);
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_RES_MRN, 1);
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_RES_PID, 184);
	mnl_attr_put(nlh, 250, 3, "xyz"); /* an attribute from a newer kernel */
	mnl_attr_nest_end(nlh, e);
	mnl_attr_nest_end(nlh, t);
	msg_end(s);
}

static void add_pds_ctxs(struct stream *s)
{
	struct nlmsghdr *nlh = msg_begin(s, RDMA_NLDEV_CMD_RES_PD_GET);
	struct nlattr *t, *e;

	put_dev_header(nlh, 0, "rxe0");
	t = nest(nlh, RDMA_NLDEV_ATTR_RES_PD);
	e = nest(nlh, RDMA_NLDEV_ATTR_RES_PD_ENTRY);
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_RES_LOCAL_DMA_LKEY, 0x17a);
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_RES_UNSAFE_GLOBAL_RKEY, 0x9999);
	put_u64_pad(nlh, RDMA_NLDEV_ATTR_RES_USECNT, 1);
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_RES_PDN, 0);
	mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_RES_KERN_NAME, "ib_core");
	mnl_attr_nest_end(nlh, e);
	e = nest(nlh, RDMA_NLDEV_ATTR_RES_PD_ENTRY);
	put_u64_pad(nlh, RDMA_NLDEV_ATTR_RES_USECNT, 2);
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_RES_PDN, 2);
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_RES_CTXN, 2);
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_RES_PID, 191);
	mnl_attr_nest_end(nlh, e);
	mnl_attr_nest_end(nlh, t);
	msg_end(s);
	put_done(s, 0);

	nlh = msg_begin(s, RDMA_NLDEV_CMD_RES_CTX_GET);
	put_dev_header(nlh, 0, "rxe0");
	t = nest(nlh, RDMA_NLDEV_ATTR_RES_CTX);
	e = nest(nlh, RDMA_NLDEV_ATTR_RES_CTX_ENTRY);
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_RES_CTXN, 2);
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_RES_PID, 191);
	mnl_attr_nest_end(nlh, e);
	mnl_attr_nest_end(nlh, t);
	msg_end(s);
	put_done(s, 0);
}

static void add_cm_ids(struct stream *s)
{
	struct nlmsghdr *nlh = msg_begin(s, RDMA_NLDEV_CMD_RES_CM_ID_GET);
	struct nlattr *t, *e;
	struct sockaddr_storage ss;
	struct sockaddr_in *sin = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&ss;

	put_dev_header(nlh, 0, "rxe0");
	t = nest(nlh, RDMA_NLDEV_ATTR_RES_CM_ID);
	e = nest(nlh, RDMA_NLDEV_ATTR_RES_CM_ID_ENTRY);
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_PORT_INDEX, 1);
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_RES_LQPN, 17);
	mnl_attr_put_u8(nlh, RDMA_NLDEV_ATTR_RES_TYPE, 2);
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_RES_PS, 0x0106);
	mnl_attr_put_u8(nlh, RDMA_NLDEV_ATTR_RES_STATE, 5);
	memset(&ss, 0, sizeof(ss));
	sin->sin_family = AF_INET;
	sin->sin_port = htons(7174);
	inet_pton(AF_INET, "192.0.2.1", &sin->sin_addr);
	mnl_attr_put(nlh, RDMA_NLDEV_ATTR_RES_SRC_ADDR, sizeof(ss), &ss);
	sin->sin_port = htons(40000);
	inet_pton(AF_INET, "192.0.2.2", &sin->sin_addr);
	mnl_attr_put(nlh, RDMA_NLDEV_ATTR_RES_DST_ADDR, sizeof(ss), &ss);
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_RES_CM_IDN, 3);
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_RES_PID, 173);
	mnl_attr_nest_end(nlh, e);
	e = nest(nlh, RDMA_NLDEV_ATTR_RES_CM_ID_ENTRY);
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_RES_PS, 0x0106);
	mnl_attr_put_u8(nlh, RDMA_NLDEV_ATTR_RES_STATE, 8);
	memset(&ss, 0, sizeof(ss));
	sin6->sin6_family = AF_INET6;
	sin6->sin6_port = htons(18515);
	inet_pton(AF_INET6, "2001:db8::1", &sin6->sin6_addr);
	mnl_attr_put(nlh, RDMA_NLDEV_ATTR_RES_SRC_ADDR, sizeof(ss), &ss);
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_RES_CM_IDN, 4);
	mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_RES_KERN_NAME, "rpcrdma");
	mnl_attr_nest_end(nlh, e);
	mnl_attr_nest_end(nlh, t);
	msg_end(s);
	put_done(s, 0);
}

/* A whole capture like nldev_dump sees: devices, then each table. */
static void build_full(struct stream *s)
{
	const struct qp_spec qps[] = {qp_user, qp_kern};

	add_device(s, 0, "rxe0");
	put_done(s, 0);
	add_qps(s, 0, "rxe0", qps, 2);
	put_done(s, 0);
	add_mrs(s);
	put_done(s, 0);
	add_pds_ctxs(s);
	add_cm_ids(s);
}

/* --- core ------------------------------------------------------------------------------------------ */

START_TEST(test_devices)
{
	struct stream s;
	_cleanup_(nldev_tables_freep) struct nldev_tables *t = nldev_tables_new();

	stream_init(&s);
	add_device(&s, 0, "rxe0");
	add_device(&s, 3, "mlx5_0");
	put_done(&s, 0);
	ck_assert_int_eq(nldev_parse_stream(s.buf, s.len, t), 1);
	ck_assert_uint_eq(t->n_devs, 2);
	ck_assert_uint_eq(t->devs[0].index, 0);
	ck_assert_str_eq(t->devs[0].name, "rxe0");
	ck_assert_uint_eq(t->devs[0].node_type, 1);
	ck_assert_str_eq(t->devs[0].protocol, "roce");
	ck_assert_str_eq(t->devs[0].fw, "0.0.0");
	ck_assert_uint_eq(t->devs[0].node_guid, 0xf86b4ffffed0543full);
	ck_assert(t->devs[0].has_ports);
	ck_assert_uint_eq(t->devs[0].ports, 1);
	ck_assert_uint_eq(t->devs[1].index, 3);
	ck_assert_str_eq(t->devs[1].name, "mlx5_0");
	ck_assert_uint_eq(t->messages, 3);
	ck_assert_uint_eq(t->done, 1);
	ck_assert_uint_eq(t->n_errors, 0);
	free(s.buf);
}
END_TEST

START_TEST(test_full)
{
	struct stream s;
	_cleanup_(nldev_tables_freep) struct nldev_tables *t = nldev_tables_new();
	const struct nldev_qp *q;
	const struct nldev_mr *m;
	const struct nldev_pd *p;
	const struct nldev_cm_id *c;
	char buf[64];

	stream_init(&s);
	build_full(&s);
	ck_assert_int_eq(nldev_parse_stream(s.buf, s.len, t), 6);
	ck_assert_uint_eq(t->n_errors, 0);

	ck_assert_uint_eq(t->n[NLDEV_T_QP], 2);
	q = &t->qps[0];
	ck_assert_uint_eq(q->dev_index, 0);
	ck_assert_str_eq(q->device, "rxe0");
	ck_assert_uint_eq(q->port, 1);
	ck_assert_uint_eq(q->lqpn, 17);
	ck_assert(q->has_rqpn);
	ck_assert_uint_eq(q->rqpn, 18);
	ck_assert(q->has_rq_psn);
	ck_assert_uint_eq(q->rq_psn, 9960939);
	ck_assert_uint_eq(q->sq_psn, 0);
	ck_assert_uint_eq(q->type, 2);
	ck_assert_uint_eq(q->state, 2);
	ck_assert(q->has_path_mig);
	ck_assert(q->has_pdn);
	ck_assert_uint_eq(q->pdn, 3);
	ck_assert(q->owner.has_pid);
	ck_assert_uint_eq(q->owner.pid, 184);
	ck_assert_str_eq(q->owner.kern_name, "");
	q = &t->qps[1];
	ck_assert_uint_eq(q->lqpn, 1);
	ck_assert(!q->has_rqpn && !q->has_pdn && !q->has_path_mig);
	ck_assert_uint_eq(q->type, 1);
	ck_assert(!q->owner.has_pid);
	ck_assert_str_eq(q->owner.kern_name, "ib_core");

	ck_assert_uint_eq(t->n[NLDEV_T_MR], 2);
	m = &t->mrs[0];
	ck_assert(m->has_keys && m->has_iova && m->has_mrn && m->has_pdn);
	ck_assert_uint_eq(m->rkey, 0x226);
	ck_assert_uint_eq(m->lkey, 0x226);
	ck_assert_uint_eq(m->iova, 0x7f0000001000ull);
	ck_assert_uint_eq(m->length, 131072);
	ck_assert_uint_eq(m->mrn, 0);
	ck_assert_uint_eq(m->pdn, 2);
	ck_assert_uint_eq(m->owner.pid, 191);
	m = &t->mrs[1];
	ck_assert(!m->has_keys && !m->has_iova && !m->has_pdn);
	ck_assert_uint_eq(m->length, 1ull << 40);
	ck_assert_uint_eq(m->mrn, 1);

	ck_assert_uint_eq(t->n[NLDEV_T_PD], 2);
	p = &t->pds[0];
	ck_assert(p->has_local_dma_lkey && p->has_unsafe_global_rkey && !p->has_ctxn);
	ck_assert_uint_eq(p->local_dma_lkey, 0x17a);
	ck_assert_uint_eq(p->unsafe_global_rkey, 0x9999);
	ck_assert_uint_eq(p->users, 1);
	ck_assert_str_eq(p->owner.kern_name, "ib_core");
	p = &t->pds[1];
	ck_assert(p->has_ctxn);
	ck_assert_uint_eq(p->ctxn, 2);
	ck_assert_uint_eq(p->pdn, 2);
	ck_assert_uint_eq(p->users, 2);

	ck_assert_uint_eq(t->n[NLDEV_T_CTX], 1);
	ck_assert_uint_eq(t->ctxs[0].ctxn, 2);
	ck_assert_uint_eq(t->ctxs[0].owner.pid, 191);

	ck_assert_uint_eq(t->n[NLDEV_T_CM_ID], 2);
	c = &t->cm_ids[0];
	ck_assert_uint_eq(c->port, 1);
	ck_assert(c->has_lqpn && c->has_type && c->has_cm_idn);
	ck_assert_uint_eq(c->lqpn, 17);
	ck_assert_uint_eq(c->ps, 0x106);
	ck_assert_uint_eq(c->state, 5);
	ck_assert_uint_eq(c->cm_idn, 3);
	ck_assert_uint_eq(c->src.family, AF_INET);
	ck_assert_uint_eq(c->src.port, 7174);
	ck_assert(gid_to_ipv4(c->src.addr, buf));
	ck_assert_str_eq(buf, "192.0.2.1");
	ck_assert_uint_eq(c->dst.port, 40000);
	ck_assert(gid_to_ipv4(c->dst.addr, buf));
	ck_assert_str_eq(buf, "192.0.2.2");
	c = &t->cm_ids[1];
	ck_assert_uint_eq(c->src.family, AF_INET6);
	ck_assert_uint_eq(c->src.port, 18515);
	gid_to_string(c->src.addr, buf);
	ck_assert_str_eq(buf, "2001:db8::1");
	ck_assert_uint_eq(c->dst.family, 0);
	ck_assert_str_eq(c->owner.kern_name, "rpcrdma");
	free(s.buf);
}
END_TEST

START_TEST(test_json)
{
	struct stream s;
	_cleanup_(nldev_tables_freep) struct nldev_tables *t = nldev_tables_new();
	struct json_object *j, *o;

	stream_init(&s);
	build_full(&s);
	ck_assert_int_ge(nldev_parse_stream(s.buf, s.len, t), 0);
	j = nldev_to_json(t);
	ck_assert_ptr_nonnull(j);
	o = json_object_array_get_idx(json_get_path(j, "qps"), 0);
	ck_assert_str_eq(json_object_get_string(json_get_path(o, "device")), "rxe0");
	ck_assert_int_eq(json_object_get_int(json_get_path(o, "lqpn")), 17);
	ck_assert_int_eq(json_object_get_int(json_get_path(o, "rqpn")), 18);
	ck_assert_str_eq(json_object_get_string(json_get_path(o, "type")), "rc");
	ck_assert_str_eq(json_object_get_string(json_get_path(o, "state")), "rtr");
	ck_assert_int_eq(json_object_get_int(json_get_path(o, "pid")), 184);
	ck_assert(!json_object_get_boolean(json_get_path(o, "kernel")));
	o = json_object_array_get_idx(json_get_path(j, "qps"), 1);
	ck_assert_str_eq(json_object_get_string(json_get_path(o, "type")), "gsi");
	ck_assert_str_eq(json_object_get_string(json_get_path(o, "kern_name")), "ib_core");
	ck_assert(json_object_get_boolean(json_get_path(o, "kernel")));
	ck_assert_ptr_null(json_get_path(o, "rqpn"));
	o = json_object_array_get_idx(json_get_path(j, "mrs"), 0);
	ck_assert_str_eq(json_object_get_string(json_get_path(o, "rkey")), "0x226");
	ck_assert_str_eq(json_object_get_string(json_get_path(o, "iova")), "0x7f0000001000");
	ck_assert_int_eq(json_object_get_int64(json_get_path(o, "length")), 131072);
	o = json_object_array_get_idx(json_get_path(j, "pds"), 0);
	ck_assert_str_eq(json_object_get_string(json_get_path(o, "unsafe_global_rkey")), "0x9999");
	o = json_object_array_get_idx(json_get_path(j, "cm_ids"), 0);
	ck_assert_str_eq(json_object_get_string(json_get_path(o, "ps")), "tcp");
	ck_assert_str_eq(json_object_get_string(json_get_path(o, "state")), "connect");
	ck_assert_str_eq(json_object_get_string(json_get_path(o, "src_addr")), "192.0.2.1");
	ck_assert_int_eq(json_object_get_int(json_get_path(o, "src_port")), 7174);
	ck_assert_str_eq(json_object_get_string(json_get_path(o, "dst_addr")), "192.0.2.2");
	o = json_object_array_get_idx(json_get_path(j, "cm_ids"), 1);
	ck_assert_str_eq(json_object_get_string(json_get_path(o, "state")), "listen");
	ck_assert_str_eq(json_object_get_string(json_get_path(o, "src_addr")), "2001:db8::1");
	ck_assert_uint_eq(json_object_array_length(json_get_path(j, "contexts")), 1);
	o = json_object_array_get_idx(json_get_path(j, "devices"), 0);
	ck_assert_str_eq(json_object_get_string(json_get_path(o, "node_guid")), "f86b:4fff:fed0:543f");
	ck_assert_str_eq(json_object_get_string(json_get_path(o, "protocol")), "roce");
	ck_assert_uint_eq(json_object_object_length(json_get_path(j, "table_errors")), 0);
	json_object_put(j);
	free(s.buf);
}
END_TEST

static void lookup(uint32_t pid, struct rg_task *task, void *userdata)
{
	(void)userdata;
	if (pid == 184) {
		task->ppid = 100;
		task->start_boot_ns = 123450000000ull;
		strcpy(task->comm, "ib_write_bw");
	}
}

struct evs {
	unsigned n;
	struct rg_event ev[8];
};

static int collect_ev(const struct rg_event *ev, void *userdata)
{
	struct evs *e = userdata;

	if (e->n < 8)
		e->ev[e->n] = *ev;
	e->n++;
	return 0;
}

START_TEST(test_events)
{
	struct stream s;
	_cleanup_(nldev_tables_freep) struct nldev_tables *t = nldev_tables_new();
	struct evs e = {0};
	struct json_object *j;

	stream_init(&s);
	build_full(&s);
	ck_assert_int_ge(nldev_parse_stream(s.buf, s.len, t), 0);
	ck_assert_int_eq(nldev_foreach_event(t, 1000, lookup, collect_ev, &e), 0);
	ck_assert_uint_eq(e.n, 4);
	ck_assert_uint_eq(e.ev[0].type, RG_EV_QP_PRESENT);
	ck_assert_uint_eq(e.ev[0].provider, RG_PROV_NETLINK);
	ck_assert_uint_eq(e.ev[0].ts, 1000);
	ck_assert_uint_eq(e.ev[0].proc.pid, 184);
	ck_assert_uint_eq(e.ev[0].proc.ppid, 100);
	ck_assert_uint_eq(e.ev[0].proc.start_boot_ns, 123450000000ull);
	ck_assert_str_eq(e.ev[0].proc.comm, "ib_write_bw");
	ck_assert_uint_eq(e.ev[0].u.qp.lqpn, 17);
	ck_assert_uint_eq(e.ev[0].u.qp.rqpn, 18);
	ck_assert_uint_eq(e.ev[0].u.qp.type, 2);
	ck_assert_uint_eq(e.ev[0].u.qp.state, 2);
	ck_assert_uint_eq(e.ev[0].u.qp.port, 1);
	ck_assert_uint_eq(e.ev[0].u.qp.pd, 3);
	ck_assert_uint_eq(e.ev[0].u.qp.kernel, 0);
	ck_assert_str_eq(e.ev[0].u.qp.device, "rxe0");
	ck_assert_uint_eq(e.ev[1].proc.pid, 0);
	ck_assert_str_eq(e.ev[1].proc.comm, "ib_core");
	ck_assert_uint_eq(e.ev[1].u.qp.kernel, 1);
	ck_assert_uint_eq(e.ev[2].type, RG_EV_MR_PRESENT);
	ck_assert_uint_eq(e.ev[2].u.mr.length, 131072);
	ck_assert_uint_eq(e.ev[2].u.mr.rkey, 0x226);
	ck_assert_uint_eq(e.ev[2].u.mr.iova, 0x7f0000001000ull);
	ck_assert_uint_eq(e.ev[2].proc.pid, 191);
	ck_assert_str_eq(e.ev[2].proc.comm, ""); /* the lookup did not know 191 */
	ck_assert_uint_eq(e.ev[3].u.mr.length, 1ull << 40);
	j = event_to_json(&e.ev[0]);
	ck_assert_str_eq(json_object_get_string(json_get_path(j, "event.action")), "qp_present");
	ck_assert_str_eq(json_object_get_string(json_get_path(j, "event.provider")), "netlink");
	ck_assert_str_eq(json_object_get_string(json_get_path(j, "rdma.qp.state")), "rtr");
	ck_assert_int_eq(json_object_get_int(json_get_path(j, "rdma.qp.dest_num")), 18);
	json_object_put(j);
	free(s.buf);
}
END_TEST

START_TEST(test_skips_foreign)
{
	struct stream s;
	_cleanup_(nldev_tables_freep) struct nldev_tables *t = nldev_tables_new();
	struct nlmsghdr *nlh;

	stream_init(&s);
	/* Another RDMA netlink client (RDMA_NL_LS), an NLDEV command we do not parse, a NOOP. */
	nlh = mnl_nlmsg_put_header(s.buf);
	nlh->nlmsg_type = RDMA_NL_GET_TYPE(RDMA_NL_LS, 1);
	mnl_attr_put_u32(nlh, 1, 7);
	s.len = NLMSG_ALIGN(nlh->nlmsg_len);
	nlh = msg_begin(&s, RDMA_NLDEV_CMD_RES_CQ_GET);
	put_dev_header(nlh, 0, "rxe0");
	msg_end(&s);
	nlh = mnl_nlmsg_put_header(s.buf + s.len);
	nlh->nlmsg_type = NLMSG_NOOP;
	s.len += NLMSG_ALIGN(nlh->nlmsg_len);
	put_done(&s, 0);
	ck_assert_int_eq(nldev_parse_stream(s.buf, s.len, t), 1);
	ck_assert_uint_eq(t->n_devs + t->n[NLDEV_T_QP] + t->n[NLDEV_T_MR], 0);
	ck_assert_uint_eq(t->n_errors, 0);
	ck_assert_uint_eq(t->messages, 4);
	free(s.buf);
}
END_TEST

/* The real socket on this kernel: the tables, or a clear "not available". */
START_TEST(test_dump_host)
{
	struct nldev_tables *t = NULL;
	struct stat st;
	int r = nldev_dump(&t);

	if (r == -EPROTONOSUPPORT) {
		/* No RDMA netlink in this kernel, then no RDMA core either. */
		ck_assert_int_ne(stat("/sys/class/infiniband", &st), 0);
		ck_assert_ptr_null(t);
		return;
	}
	ck_assert_msg(r == 0, "nldev_dump: %s", strerror(-r));
	for (unsigned i = 0; i < t->n_devs; i++) {
		char p[128];

		snprintf(p, sizeof(p), "/sys/class/infiniband/%s", t->devs[i].name);
		ck_assert_msg(stat(p, &st) == 0, "%s in netlink but not in sysfs", t->devs[i].name);
	}
	nldev_tables_free(t);
}
END_TEST

START_TEST(test_names)
{
	ck_assert_str_eq(nldev_qp_type_name(2), "rc");
	ck_assert_str_eq(nldev_qp_type_name(0xff), "driver");
	ck_assert_ptr_null(nldev_qp_type_name(7));
	ck_assert_str_eq(nldev_cm_state_name(8), "listen");
	ck_assert_ptr_null(nldev_cm_state_name(11));
	ck_assert_str_eq(nldev_ps_name(0x13f), "ib");
	ck_assert_ptr_null(nldev_ps_name(0x999));
	ck_assert_str_eq(nldev_table_name(NLDEV_T_CM_ID), "cm_id");
}
END_TEST

/* --- real captures: NLDEV replies of a 6.1 kernel with rxe, and `rdma -j` at the same moment ---- */

static char *read_all(const char *dir, const char *name, size_t *len)
{
	char path[1024], *buf;
	FILE *f;
	long n;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "rb");
	ck_assert_msg(f != NULL, "cannot open %s", path);
	ck_assert_int_eq(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	ck_assert_int_ge(n, 0);
	rewind(f);
	buf = malloc((size_t)n + 1);
	ck_assert_ptr_nonnull(buf);
	ck_assert_uint_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*len = (size_t)n;
	return buf;
}

static const char *captures(void)
{
	static char dir[1024];
	const char *base = getenv("RG_FIXTURES");

	ck_assert_msg(base != NULL, "RG_FIXTURES is not set (run through meson test)");
	snprintf(dir, sizeof(dir), "%s/netlink", base);
	return dir;
}

/* Parses the request (it names the command, as nldev_dump's own request does) and the reply. */
static struct nldev_tables *parse_capture(const char *reply, int *ret)
{
	struct nldev_tables *t = nldev_tables_new();
	char req[256];
	size_t rlen, len;
	char *r, *b;

	snprintf(req, sizeof(req), "%.*s.req.bin", (int)(strlen(reply) - 4), reply);
	r = read_all(captures(), req, &rlen);
	b = read_all(captures(), reply, &len);
	ck_assert_int_eq(nldev_parse_stream(r, rlen, t), 0);
	*ret = nldev_parse_stream(b, len, t);
	free(r);
	free(b);
	return t;
}

static struct json_object *view(const char *name)
{
	char path[1024];
	struct json_object *j;

	snprintf(path, sizeof(path), "%s/%s", captures(), name);
	j = json_object_from_file(path);
	ck_assert_msg(j != NULL, "cannot parse %s", path);
	return j;
}

static const char *jstr(struct json_object *o, const char *k)
{
	struct json_object *v;

	return json_object_object_get_ex(o, k, &v) ? json_object_get_string(v) : NULL;
}

static bool jhas(struct json_object *o, const char *k)
{
	return json_object_object_get_ex(o, k, NULL);
}

static int64_t jint(struct json_object *o, const char *k)
{
	struct json_object *v;

	ck_assert_msg(json_object_object_get_ex(o, k, &v), "no %s", k);
	return json_object_get_int64(v);
}

static void upper(char *s)
{
	for (; *s; s++)
		if (*s >= 'a' && *s <= 'z')
			*s = (char)(*s - 'a' + 'A');
}

static void check_owner(struct json_object *o, const struct nldev_owner *w, const char *what)
{
	if (jhas(o, "pid")) {
		ck_assert_msg(w->has_pid, "%s: no pid", what);
		ck_assert_int_eq(w->pid, jint(o, "pid"));
	} else {
		/* iproute2 shows a kernel owner's name as comm. */
		ck_assert_msg(!w->has_pid, "%s: pid %u not in rdma's view", what, w->pid);
		ck_assert_str_eq(w->kern_name, jstr(o, "comm"));
	}
}

static void check_qps(const char *file)
{
	int r;
	_cleanup_(nldev_tables_freep) struct nldev_tables *t = parse_capture(file, &r);
	struct json_object *j = view("qp.json");
	size_t n = json_object_array_length(j);

	ck_assert_int_eq(r, 1);
	ck_assert_uint_eq(t->n_errors, 0);
	ck_assert_uint_eq(n, 3);
	ck_assert_uint_eq(t->n[NLDEV_T_QP], n);
	for (size_t i = 0; i < n; i++) {
		struct json_object *o = json_object_array_get_idx(j, i);
		const struct nldev_qp *q = &t->qps[i];
		char name[32];

		ck_assert_int_eq(q->dev_index, jint(o, "ifindex"));
		ck_assert_str_eq(q->device, jstr(o, "ifname"));
		ck_assert_int_eq(q->port, jint(o, "port"));
		ck_assert_int_eq(q->lqpn, jint(o, "lqpn"));
		ck_assert_int_eq(q->has_rqpn, jhas(o, "rqpn"));
		if (q->has_rqpn)
			ck_assert_int_eq(q->rqpn, jint(o, "rqpn"));
		snprintf(name, sizeof(name), "%s", nldev_qp_type_name(q->type));
		upper(name);
		ck_assert_str_eq(name, jstr(o, "type"));
		snprintf(name, sizeof(name), "%s", qp_state_to_string(q->state));
		upper(name);
		ck_assert_str_eq(name, jstr(o, "state"));
		ck_assert_int_eq(q->sq_psn, jint(o, "sq-psn"));
		ck_assert_int_eq(q->has_rq_psn, jhas(o, "rq-psn"));
		if (q->has_rq_psn)
			ck_assert_int_eq(q->rq_psn, jint(o, "rq-psn"));
		ck_assert_int_eq(q->has_path_mig, jhas(o, "path-mig-state"));
		if (q->has_path_mig)
			ck_assert_str_eq(jstr(o, "path-mig-state"), q->path_mig_state == 0 ? "MIGRATED" : "?");
		ck_assert_int_eq(q->has_pdn, jhas(o, "pdn"));
		if (q->has_pdn)
			ck_assert_int_eq(q->pdn, jint(o, "pdn"));
		check_owner(o, &q->owner, "qp");
	}
	json_object_put(j);
}

START_TEST(test_captured_qp)
{
	check_qps("res_qp_get-rxe0.bin");
	check_qps("res_qp_get-rxe0-port1.bin");
}
END_TEST

START_TEST(test_captured_mr_pd_ctx)
{
	int r;
	struct nldev_tables *t = parse_capture("res_mr_get-rxe0.bin", &r);
	struct json_object *j = view("mr.json");
	size_t n = json_object_array_length(j);

	ck_assert_int_eq(r, 1);
	ck_assert_uint_eq(t->n_errors, 0);
	ck_assert_uint_eq(n, 2);
	ck_assert_uint_eq(t->n[NLDEV_T_MR], n);
	for (size_t i = 0; i < n; i++) {
		struct json_object *o = json_object_array_get_idx(j, i);
		const struct nldev_mr *m = &t->mrs[i];

		ck_assert_int_eq(m->dev_index, jint(o, "ifindex"));
		ck_assert_str_eq(m->device, jstr(o, "ifname"));
		ck_assert(m->has_mrn);
		ck_assert_int_eq(m->mrn, jint(o, "mrn"));
		ck_assert(m->has_keys); /* captured as root */
		ck_assert_uint_eq(m->rkey, strtoul(jstr(o, "rkey"), NULL, 16));
		ck_assert_uint_eq(m->lkey, strtoul(jstr(o, "lkey"), NULL, 16));
		ck_assert_int_eq(m->has_iova, jhas(o, "iova"));
		ck_assert_int_eq((int64_t)m->length, jint(o, "mrlen"));
		ck_assert_int_eq(m->pdn, jint(o, "pdn"));
		check_owner(o, &m->owner, "mr");
	}
	json_object_put(j);
	nldev_tables_free(t);

	t = parse_capture("res_pd_get-rxe0.bin", &r);
	j = view("pd.json");
	n = json_object_array_length(j);
	ck_assert_int_eq(r, 1);
	ck_assert_uint_eq(n, 4);
	ck_assert_uint_eq(t->n[NLDEV_T_PD], n);
	for (size_t i = 0; i < n; i++) {
		struct json_object *o = json_object_array_get_idx(j, i);
		const struct nldev_pd *p = &t->pds[i];

		ck_assert_int_eq(p->pdn, jint(o, "pdn"));
		ck_assert(p->has_local_dma_lkey);
		ck_assert_uint_eq(p->local_dma_lkey, strtoul(jstr(o, "local_dma_lkey"), NULL, 16));
		ck_assert_int_eq((int64_t)p->users, jint(o, "users"));
		ck_assert_int_eq(p->has_ctxn, jhas(o, "ctxn"));
		if (p->has_ctxn)
			ck_assert_int_eq(p->ctxn, jint(o, "ctxn"));
		ck_assert_int_eq(p->has_unsafe_global_rkey, jhas(o, "unsafe_global_rkey"));
		check_owner(o, &p->owner, "pd");
	}
	json_object_put(j);
	nldev_tables_free(t);

	t = parse_capture("res_ctx_get-rxe0.bin", &r);
	j = view("ctx.json");
	n = json_object_array_length(j);
	ck_assert_int_eq(r, 1);
	ck_assert_uint_eq(n, 3);
	ck_assert_uint_eq(t->n[NLDEV_T_CTX], n);
	for (size_t i = 0; i < n; i++) {
		struct json_object *o = json_object_array_get_idx(j, i);

		ck_assert_int_eq(t->ctxs[i].ctxn, jint(o, "ctxn"));
		check_owner(o, &t->ctxs[i].owner, "ctx");
	}
	json_object_put(j);
	nldev_tables_free(t);
}
END_TEST

START_TEST(test_captured_cm_id_dev)
{
	static const char *const files[] = {"res_cm_id_get-rxe0.bin", "res_cm_id_get-rxe0-port1.bin"};
	struct json_object *j = view("cm_id.json");
	size_t n = json_object_array_length(j);
	struct nldev_tables *t;
	int r;

	ck_assert_uint_eq(n, 1);
	for (size_t f = 0; f < ARRAY_SIZE(files); f++) {
		t = parse_capture(files[f], &r);
		ck_assert_int_eq(r, 1);
		ck_assert_uint_eq(t->n[NLDEV_T_CM_ID], n);
		for (size_t i = 0; i < n; i++) {
			struct json_object *o = json_object_array_get_idx(j, i);
			const struct nldev_cm_id *c = &t->cm_ids[i];
			char buf[96], addr[64], name[32];

			ck_assert_str_eq(c->device, jstr(o, "ifname"));
			ck_assert_int_eq(c->port, jint(o, "port"));
			ck_assert(c->has_cm_idn);
			ck_assert_int_eq(c->cm_idn, jint(o, "cm-idn"));
			snprintf(name, sizeof(name), "%s", nldev_cm_state_name(c->state));
			upper(name);
			ck_assert_str_eq(name, jstr(o, "state"));
			snprintf(name, sizeof(name), "%s", nldev_ps_name(c->ps));
			upper(name);
			ck_assert_str_eq(name, jstr(o, "ps"));
			ck_assert(gid_to_ipv4(c->src.addr, addr));
			snprintf(buf, sizeof(buf), "%s:%u", addr, c->src.port);
			ck_assert_str_eq(buf, jstr(o, "src-addr"));
			ck_assert(gid_to_ipv4(c->dst.addr, addr));
			snprintf(buf, sizeof(buf), "%s:%u", addr, c->dst.port);
			ck_assert_str_eq(buf, jstr(o, "dst-addr"));
			check_owner(o, &c->owner, "cm_id");
		}
		nldev_tables_free(t);
	}
	json_object_put(j);

	t = parse_capture("get.bin", &r);
	j = view("dev.json");
	ck_assert_int_eq(r, 1);
	ck_assert_uint_eq(t->n_devs, 1);
	{
		struct json_object *o = json_object_array_get_idx(j, 0);
		uint64_t g = t->devs[0].node_guid;
		char buf[32];

		ck_assert_int_eq(t->devs[0].index, jint(o, "ifindex"));
		ck_assert_str_eq(t->devs[0].name, jstr(o, "ifname"));
		ck_assert_uint_eq(t->devs[0].node_type, 1);
		ck_assert_str_eq(jstr(o, "node_type"), "ca");
		snprintf(buf, sizeof(buf), "%04x:%04x:%04x:%04x", (unsigned)(g >> 48) & 0xffff,
			 (unsigned)(g >> 32) & 0xffff, (unsigned)(g >> 16) & 0xffff, (unsigned)g & 0xffff);
		ck_assert_str_eq(buf, jstr(o, "node_guid"));
		ck_assert_str_eq(t->devs[0].protocol, "roce");
	}
	json_object_put(j);
	nldev_tables_free(t);
}
END_TEST

/* Dumps without DEV_INDEX: the kernel says EINVAL in NLMSG_DONE; tables it does not know parse
 * to nothing. Every capture parses without a malformed-message error. */
START_TEST(test_captured_refusals)
{
	static const struct {
		const char *file;
		int table;
	} refused[] = {
		{"res_qp_get.bin", NLDEV_T_QP},	   {"res_mr_get.bin", NLDEV_T_MR},
		{"res_pd_get.bin", NLDEV_T_PD},	   {"res_ctx_get.bin", NLDEV_T_CTX},
		{"res_cm_id_get.bin", NLDEV_T_CM_ID},
	};
	static const char *const others[] = {"res_cq_get.bin", "res_cq_get-rxe0.bin", "res_get.bin",
					     "res_get-rxe0.bin", "get-rxe0.bin"};
	struct nldev_tables *t;
	int r;

	for (size_t i = 0; i < ARRAY_SIZE(refused); i++) {
		t = parse_capture(refused[i].file, &r);
		ck_assert_int_eq(r, 1);
		ck_assert_int_eq(t->table_error[refused[i].table], -EINVAL);
		ck_assert_uint_eq(t->n[refused[i].table], 0);
		nldev_tables_free(t);
	}
	for (size_t i = 0; i < ARRAY_SIZE(others); i++) {
		t = parse_capture(others[i], &r);
		ck_assert_msg(r == 1, "%s: %d", others[i], r);
		ck_assert_uint_eq(t->n[NLDEV_T_QP] + t->n[NLDEV_T_MR], 0);
		ck_assert_uint_eq(t->n_devs, strcmp(others[i], "get-rxe0.bin") == 0 ? 1 : 0);
		nldev_tables_free(t);
	}
}
END_TEST

/* --- limits ------------------------------------------------------------------------------------------ */

START_TEST(test_limit_entries)
{
	struct stream s;
	_cleanup_(nldev_tables_freep) struct nldev_tables *t = nldev_tables_new();
	static struct qp_spec qps[400];
	unsigned total = 0;

	stream_init(&s);
	for (unsigned m = 0; total < NLDEV_MAX_ENTRIES + 600; m++) {
		for (unsigned i = 0; i < 400; i++) {
			qps[i] = qp_user;
			qps[i].lqpn = total + i;
		}
		add_qps(&s, 0, "rxe0", qps, 400);
		total += 400;
	}
	put_done(&s, 0);
	ck_assert_int_eq(nldev_parse_stream(s.buf, s.len, t), 1);
	ck_assert_uint_eq(t->n[NLDEV_T_QP], NLDEV_MAX_ENTRIES);
	ck_assert_uint_eq(t->dropped[NLDEV_T_QP], total - NLDEV_MAX_ENTRIES);
	ck_assert_uint_eq(t->qps[NLDEV_MAX_ENTRIES - 1].lqpn, NLDEV_MAX_ENTRIES - 1);
	free(s.buf);
}
END_TEST

START_TEST(test_limit_devices_strings)
{
	struct stream s;
	_cleanup_(nldev_tables_freep) struct nldev_tables *t = nldev_tables_new();
	struct nlmsghdr *nlh;
	struct qp_spec q = qp_kern;
	char name[32], longname[200];

	stream_init(&s);
	for (unsigned i = 0; i < NLDEV_MAX_DEVICES + 6; i++) {
		snprintf(name, sizeof(name), "dev%u", i);
		add_device(&s, i, name);
	}
	/* A name without its NUL, with control bytes; a very long kernel name. */
	nlh = msg_begin(&s, RDMA_NLDEV_CMD_RES_QP_GET);
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_DEV_INDEX, 1);
	mnl_attr_put(nlh, RDMA_NLDEV_ATTR_DEV_NAME, 6, "ab\ncd\x1b");
	{
		struct nlattr *tb = nest(nlh, RDMA_NLDEV_ATTR_RES_QP);

		memset(longname, 'k', sizeof(longname) - 1);
		longname[sizeof(longname) - 1] = 0;
		q.kern = longname;
		put_qp(nlh, &q);
		mnl_attr_nest_end(nlh, tb);
	}
	msg_end(&s);
	ck_assert_int_eq(nldev_parse_stream(s.buf, s.len, t), 0);
	ck_assert_uint_eq(t->n_devs, NLDEV_MAX_DEVICES);
	ck_assert_uint_eq(t->devs_dropped, 6);
	ck_assert_uint_eq(t->n[NLDEV_T_QP], 1);
	ck_assert_str_eq(t->qps[0].device, "ab?cd?");
	ck_assert_uint_eq(strlen(t->qps[0].owner.kern_name), 63);
	free(s.buf);
}
END_TEST

/* --- errors ------------------------------------------------------------------------------------------- */

START_TEST(test_refusals)
{
	struct stream s;
	_cleanup_(nldev_tables_freep) struct nldev_tables *t = nldev_tables_new();
	const struct qp_spec qps[] = {qp_user};

	stream_init(&s);
	/* An old kernel without RES_CTX_GET; a QP dump that ends with an error in DONE. */
	put_error(&s, -EOPNOTSUPP, RDMA_NLDEV_CMD_RES_CTX_GET);
	add_qps(&s, 0, "rxe0", qps, 1);
	put_done(&s, -EINVAL);
	ck_assert_int_eq(nldev_parse_stream(s.buf, s.len, t), 2);
	ck_assert_int_eq(t->table_error[NLDEV_T_CTX], -EOPNOTSUPP);
	ck_assert_int_eq(t->table_error[NLDEV_T_QP], -EINVAL);
	ck_assert_uint_eq(t->n[NLDEV_T_QP], 1);

	/* A DONE with an error and nothing before it: not attributable to a table. */
	nldev_tables_free(t);
	t = nldev_tables_new();
	s.len = 0;
	put_done(&s, -EINVAL);
	ck_assert_int_eq(nldev_parse_stream(s.buf, s.len, t), 1);
	ck_assert_uint_eq(t->n_errors, 1);
	ck_assert_str_eq(t->errors[0], "reply: Invalid argument");
	free(s.buf);
}
END_TEST

START_TEST(test_truncated)
{
	struct stream s;
	const struct qp_spec qps[] = {qp_user, qp_kern};

	stream_init(&s);
	add_qps(&s, 0, "rxe0", qps, 2);
	add_qps(&s, 1, "rxe1", qps, 2);
	put_done(&s, 0);
	/* Every cut of the stream: the messages before it are kept, never a crash. */
	for (size_t cut = 0; cut < s.len; cut++) {
		struct nldev_tables *t = nldev_tables_new();
		int r = nldev_parse_stream(s.buf, cut, t);

		ck_assert(r == 0 || r == -EBADMSG);
		ck_assert_uint_le(t->n[NLDEV_T_QP], 4);
		nldev_tables_free(t);
	}
	{
		struct nldev_tables *t = nldev_tables_new();
		size_t first = NLMSG_ALIGN(((struct nlmsghdr *)s.buf)->nlmsg_len);
		char want[64];

		ck_assert_int_eq(nldev_parse_stream(s.buf, first + 10, t), -EBADMSG);
		ck_assert_uint_eq(t->n[NLDEV_T_QP], 2);
		snprintf(want, sizeof(want), "truncated netlink message at offset %zu", first);
		ck_assert_str_eq(t->errors[0], want);
		nldev_tables_free(t);
	}
	free(s.buf);
}
END_TEST

START_TEST(test_malformed)
{
	struct stream s;
	_cleanup_(nldev_tables_freep) struct nldev_tables *t = nldev_tables_new();
	struct nlmsghdr *nlh;
	struct nlattr *tb, *e, *bad;
	struct nlmsghdr tiny = {.nlmsg_len = 8, .nlmsg_type = NLMSG_DONE};
	char errbuf[sizeof(struct nlmsghdr) + 2];
	struct nlmsghdr *eh = (struct nlmsghdr *)errbuf;

	stream_init(&s);
	/* An entry whose attribute claims more bytes than the entry has. */
	nlh = msg_begin(&s, RDMA_NLDEV_CMD_RES_QP_GET);
	put_dev_header(nlh, 0, "rxe0");
	tb = nest(nlh, RDMA_NLDEV_ATTR_RES_QP);
	e = nest(nlh, RDMA_NLDEV_ATTR_RES_QP_ENTRY);
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_RES_LQPN, 5);
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_RES_PID, 5);
	bad = (struct nlattr *)((char *)mnl_nlmsg_get_payload_tail(nlh) - 8);
	mnl_attr_nest_end(nlh, e);
	mnl_attr_nest_end(nlh, tb);
	bad->nla_len = 200;
	msg_end(&s);
	ck_assert_int_eq(nldev_parse_stream(s.buf, s.len, t), -EBADMSG);
	ck_assert_str_eq(t->errors[0], "qp entry of rxe0: malformed attribute");
	ck_assert_uint_eq(t->n[NLDEV_T_QP], 0);

	/* Short payloads: a u32 in one byte is absent, and a QP without lqpn is skipped. */
	nldev_tables_free(t);
	t = nldev_tables_new();
	s.len = 0;
	nlh = msg_begin(&s, RDMA_NLDEV_CMD_RES_QP_GET);
	put_dev_header(nlh, 0, "rxe0");
	tb = nest(nlh, RDMA_NLDEV_ATTR_RES_QP);
	e = nest(nlh, RDMA_NLDEV_ATTR_RES_QP_ENTRY);
	mnl_attr_put(nlh, RDMA_NLDEV_ATTR_RES_LQPN, 1, "x");
	mnl_attr_put_u8(nlh, RDMA_NLDEV_ATTR_RES_TYPE, 2);
	mnl_attr_put_u8(nlh, RDMA_NLDEV_ATTR_RES_STATE, 3);
	mnl_attr_nest_end(nlh, e);
	e = nest(nlh, RDMA_NLDEV_ATTR_RES_QP_ENTRY);
	mnl_attr_put(nlh, RDMA_NLDEV_ATTR_RES_TYPE, 0, NULL);
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_RES_LQPN, 9);
	mnl_attr_put_u8(nlh, RDMA_NLDEV_ATTR_RES_STATE, 3);
	mnl_attr_nest_end(nlh, e);
	mnl_attr_nest_end(nlh, tb);
	msg_end(&s);
	ck_assert_int_eq(nldev_parse_stream(s.buf, s.len, t), 0);
	ck_assert_uint_eq(t->n[NLDEV_T_QP], 0);
	ck_assert_uint_eq(t->n_errors, 2);
	ck_assert_str_eq(t->errors[0], "qp entry of rxe0: no lqpn");
	ck_assert_str_eq(t->errors[1], "qp entry of rxe0: no type");

	/* Headers that lie about their length; an NLMSG_ERROR without its error code. */
	ck_assert_int_eq(nldev_parse_msg(&tiny, sizeof(tiny), t), -EBADMSG);
	tiny.nlmsg_len = 4096;
	ck_assert_int_eq(nldev_parse_stream(&tiny, sizeof(tiny), t), -EBADMSG);
	memset(errbuf, 0, sizeof(errbuf));
	eh->nlmsg_len = sizeof(errbuf);
	eh->nlmsg_type = NLMSG_ERROR;
	ck_assert_int_eq(nldev_parse_msg(errbuf, sizeof(errbuf), t), -EBADMSG);
	ck_assert_int_eq(nldev_parse_stream("", 0, t), 0);
	free(s.buf);
}
END_TEST

/* Mutations of a valid capture: bounded, deterministic; it must never crash or overrun. */
START_TEST(test_mutations)
{
	struct stream s;
	char *copy;
	unsigned seed = 12345;

	stream_init(&s);
	build_full(&s);
	copy = malloc(s.len);
	ck_assert_ptr_nonnull(copy);
	for (unsigned iter = 0; iter < 20000; iter++) {
		struct nldev_tables *t = nldev_tables_new();
		unsigned flips = 1 + rand_r(&seed) % 8;
		size_t len = s.len;
		int r;

		memcpy(copy, s.buf, s.len);
		for (unsigned k = 0; k < flips; k++)
			copy[rand_r(&seed) % s.len] = (char)rand_r(&seed);
		if (rand_r(&seed) % 4 == 0)
			len = (size_t)rand_r(&seed) % s.len;
		r = nldev_parse_stream(copy, len, t);
		ck_assert(r >= -EBADMSG || r == -ENOMEM);
		ck_assert_uint_le(t->n_errors, NLDEV_MAX_ERRORS);
		nldev_tables_free(t);
	}
	free(copy);
	free(s.buf);
}
END_TEST

static Suite *nldev_suite(void)
{
	Suite *s = suite_create("nldev");
	TCase *core = tcase_create("core"), *limits = tcase_create("limits");
	TCase *errors = tcase_create("errors");

	tcase_add_test(core, test_devices);
	tcase_add_test(core, test_full);
	tcase_add_test(core, test_json);
	tcase_add_test(core, test_events);
	tcase_add_test(core, test_skips_foreign);
	tcase_add_test(core, test_dump_host);
	tcase_add_test(core, test_names);
	tcase_add_test(core, test_captured_qp);
	tcase_add_test(core, test_captured_mr_pd_ctx);
	tcase_add_test(core, test_captured_cm_id_dev);
	tcase_add_test(core, test_captured_refusals);
	tcase_add_test(limits, test_limit_entries);
	tcase_add_test(limits, test_limit_devices_strings);
	tcase_add_test(errors, test_refusals);
	tcase_add_test(errors, test_truncated);
	tcase_add_test(errors, test_malformed);
	tcase_add_test(errors, test_mutations);
	suite_add_tcase(s, core);
	suite_add_tcase(s, limits);
	suite_add_tcase(s, errors);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(nldev_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
