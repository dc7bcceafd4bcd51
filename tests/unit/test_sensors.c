/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The sensors' pure parts on byte buffers: the verbs (ioctl, write) and rdma_cm decoders, the
 * record -> event conversion, the uevent parser. Buffers are built with the uapi structs, so the
 * tests follow the headers the decoders were checked against.
 */
#include <check.h>
#include <errno.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/sysmacros.h>

#include <rdma/ib_user_ioctl_cmds.h>
#include <rdma/ib_user_ioctl_verbs.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/rdma_user_cm.h>
#include <rdma/rdma_user_ioctl_cmds.h>

#include "bpf/events.h"
#include "event/event.h"
#include "event/event_json.h"
#include "sensors/convert.h"
#include "sensors/decode.h"
#include "sensors/ringwake.h"
#include "sensors/uevent.h"

struct w_reg_mr {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_reg_mr body;
};

static void make_reg_mr_into(struct w_reg_mr *out)
{
	struct w_reg_mr w = {0};

	w.hdr.command = IB_USER_VERBS_CMD_REG_MR;
	w.hdr.in_words = sizeof(w) / 4;
	w.hdr.out_words = sizeof(struct ib_uverbs_reg_mr_resp) / 4;
	w.body.response = 0xdead0000;
	w.body.start = 0x7f1234560000ull;
	w.body.length = 1 << 20;
	w.body.hca_va = 0x7f1234560000ull;
	w.body.pd_handle = 4;
	w.body.access_flags = IB_UVERBS_ACCESS_REMOTE_READ | IB_UVERBS_ACCESS_REMOTE_WRITE;
	*out = w;
}

static void v4gid(uint8_t gid[16], uint8_t a, uint8_t b, uint8_t c, uint8_t d)
{
	memset(gid, 0, 16);
	gid[10] = gid[11] = 0xff;
	gid[12] = a;
	gid[13] = b;
	gid[14] = c;
	gid[15] = d;
}

/* ---- core ---- */

START_TEST(test_write_reg_mr)
{
	struct w_reg_mr w;

	make_reg_mr_into(&w);
	struct ib_uverbs_reg_mr_resp resp = {.mr_handle = 17, .lkey = 5, .rkey = 6};
	struct rg_ev_verbs v = {0};

	ck_assert_uint_eq(decode_uverbs_write(&w, sizeof(w), sizeof(w), &resp, sizeof(resp), &v),
			  0);
	ck_assert_uint_eq(v.op, RG_OP_REG_MR);
	ck_assert_uint_eq(v.via, RG_VIA_WRITE);
	ck_assert_uint_eq(v.write_cmd, 9);
	ck_assert_uint_eq(v.mr_addr, 0x7f1234560000ull);
	ck_assert_uint_eq(v.mr_length, 1 << 20);
	ck_assert_uint_eq(v.mr_iova, 0x7f1234560000ull);
	ck_assert_uint_eq(v.mr_access, RG_ACCESS_REMOTE_READ | RG_ACCESS_REMOTE_WRITE);
	ck_assert_uint_eq(v.handle, 17);

	/* no response (the call failed, or it was not copied): the handle stays unknown */
	memset(&v, 0, sizeof(v));
	ck_assert_uint_eq(decode_uverbs_write(&w, sizeof(w), sizeof(w), NULL, 0, &v), 0);
	ck_assert_uint_eq(v.handle, 0);
	ck_assert_uint_eq(v.mr_length, 1 << 20);
}
END_TEST

START_TEST(test_write_modify_qp)
{
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		struct ib_uverbs_modify_qp body;
	} w = {0};
	struct rg_ev_verbs v = {0};
	char ip[16];

	w.hdr.command = IB_USER_VERBS_CMD_MODIFY_QP;
	w.hdr.in_words = sizeof(w) / 4;
	v4gid(w.body.dest.dgid, 198, 51, 100, 9);
	w.body.qp_handle = 3;
	w.body.attr_mask = 1 | (1 << 7) | (1 << 20);
	w.body.dest_qp_num = 0xabcd;
	w.body.qp_state = 2;
	ck_assert_uint_eq(decode_uverbs_write(&w, sizeof(w), sizeof(w), NULL, 0, &v), 0);
	ck_assert_uint_eq(v.op, RG_OP_MODIFY_QP);
	ck_assert_uint_eq(v.handle, 3);
	ck_assert_uint_eq(v.qp_state, 2);
	ck_assert_uint_eq(v.dest_qp_num, 0xabcd);
	ck_assert(gid_to_ipv4(v.dgid, ip));
	ck_assert_str_eq(ip, "198.51.100.9");

	/* INIT -> RTS without the address vector: no peer, no dest QPN */
	memset(&v, 0, sizeof(v));
	w.body.attr_mask = 1;
	w.body.qp_state = 3;
	ck_assert_uint_eq(decode_uverbs_write(&w, sizeof(w), sizeof(w), NULL, 0, &v), 0);
	ck_assert_uint_eq(v.qp_state, 3);
	ck_assert_uint_eq(v.dest_qp_num, 0);
	ck_assert(!gid_to_ipv4(v.dgid, ip));
}
END_TEST

START_TEST(test_write_extended_create_qp)
{
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		struct ib_uverbs_ex_cmd_hdr ex;
		struct ib_uverbs_ex_create_qp body;
	} w = {0};
	struct ib_uverbs_ex_create_qp_resp resp = {0};
	struct rg_ev_verbs v = {0};

	w.hdr.command = IB_USER_VERBS_CMD_FLAG_EXTENDED | IB_USER_VERBS_EX_CMD_CREATE_QP;
	w.hdr.in_words = sizeof(w.body) / 8;
	w.hdr.out_words = sizeof(resp) / 8;
	w.body.qp_type = 4; /* UD */
	resp.base.qp_handle = 2;
	resp.base.qpn = 0x11;
	ck_assert_uint_eq(decode_uverbs_write(&w, sizeof(w), sizeof(w), &resp, sizeof(resp), &v),
			  0);
	ck_assert_uint_eq(v.op, RG_OP_CREATE_QP);
	ck_assert_uint_eq(v.write_cmd, 0x80000000u | 24);
	ck_assert_uint_eq(v.qp_type, 4);
	ck_assert_uint_eq(v.qp_num, 0x11);
	ck_assert_uint_eq(v.handle, 2);
}
END_TEST

START_TEST(test_write_create_ah_peer)
{
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		struct ib_uverbs_create_ah body;
	} w = {0};
	struct rg_ev_verbs v = {0};
	char ip[16];

	w.hdr.command = IB_USER_VERBS_CMD_CREATE_AH;
	w.hdr.in_words = sizeof(w) / 4;
	v4gid(w.body.attr.grh.dgid, 192, 0, 2, 99);
	ck_assert_uint_eq(decode_uverbs_write(&w, sizeof(w), sizeof(w), NULL, 0, &v), 0);
	ck_assert_uint_eq(v.op, RG_OP_CREATE_AH);
	ck_assert(gid_to_ipv4(v.dgid, ip));
	ck_assert_str_eq(ip, "192.0.2.99");
}
END_TEST

START_TEST(test_write_post_send)
{
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		struct ib_uverbs_post_send body;
	} w = {0};
	struct rg_ev_verbs v = {0};

	/* what rxe's provider writes: wr_count 0, the WQE is in the mmap'd queue */
	w.hdr.command = IB_USER_VERBS_CMD_POST_SEND;
	w.hdr.in_words = sizeof(w) / 4;
	w.body.qp_handle = 9;
	ck_assert_uint_eq(decode_uverbs_write(&w, sizeof(w), sizeof(w), NULL, 0, &v), 0);
	ck_assert_uint_eq(v.op, RG_OP_POST_SEND);
	ck_assert_uint_eq(v.handle, 9);
	ck_assert_uint_eq(v.wr_count, 0);
}
END_TEST

struct ioc {
	struct ib_uverbs_ioctl_hdr hdr;
	struct ib_uverbs_attr attrs[8];
};

static size_t ioc_init(struct ioc *b, uint16_t obj, uint16_t meth, uint16_t n)
{
	memset(b, 0, sizeof(*b));
	b->hdr.length = sizeof(b->hdr) + n * sizeof(struct ib_uverbs_attr);
	b->hdr.object_id = obj;
	b->hdr.method_id = meth;
	b->hdr.num_attrs = n;
	return b->hdr.length;
}

START_TEST(test_ioctl_invoke_write)
{
	struct ioc b;
	struct ib_uverbs_reg_mr in = {.start = 0x1000,
				      .length = 0x2000,
				      .hca_va = 0x1000,
				      .access_flags = IB_UVERBS_ACCESS_ON_DEMAND};
	struct ib_uverbs_reg_mr_resp out = {.mr_handle = 8};
	struct uverbs_blob blobs[2] = {{0, sizeof(in), (const uint8_t *)&in},
				       {1, sizeof(out), (const uint8_t *)&out}};
	struct rg_ev_verbs v = {0};
	size_t len = ioc_init(&b, UVERBS_OBJECT_DEVICE, UVERBS_METHOD_INVOKE_WRITE, 3);

	b.hdr.driver_id = 1;
	b.attrs[0] = (struct ib_uverbs_attr){.attr_id = UVERBS_ATTR_CORE_IN, .len = sizeof(in)};
	b.attrs[1] = (struct ib_uverbs_attr){.attr_id = UVERBS_ATTR_CORE_OUT, .len = sizeof(out)};
	b.attrs[2] = (struct ib_uverbs_attr){
	    .attr_id = UVERBS_ATTR_WRITE_CMD, .len = 8, .data = IB_USER_VERBS_CMD_REG_MR};
	ck_assert_uint_eq(decode_uverbs_ioctl(&b, len, blobs, 2, &v), 0);
	ck_assert_uint_eq(v.via, RG_VIA_INVOKE);
	ck_assert_uint_eq(v.op, RG_OP_REG_MR);
	ck_assert_uint_eq(v.driver_id, 1);
	ck_assert_uint_eq(v.mr_length, 0x2000);
	ck_assert_uint_eq(v.mr_access, RG_ACCESS_ON_DEMAND);
	ck_assert_uint_eq(v.handle, 8);

	/* a small command travels inline: DEALLOC_PD {pd_handle} is 4 bytes */
	memset(&v, 0, sizeof(v));
	len = ioc_init(&b, UVERBS_OBJECT_DEVICE, UVERBS_METHOD_INVOKE_WRITE, 2);
	b.attrs[0] = (struct ib_uverbs_attr){
	    .attr_id = UVERBS_ATTR_WRITE_CMD, .len = 8, .data = IB_USER_VERBS_CMD_DEALLOC_PD};
	b.attrs[1] = (struct ib_uverbs_attr){.attr_id = UVERBS_ATTR_CORE_IN, .len = 4, .data = 77};
	ck_assert_uint_eq(decode_uverbs_ioctl(&b, len, NULL, 0, &v), 0);
	ck_assert_uint_eq(v.op, RG_OP_DEALLOC_PD);
	ck_assert_uint_eq(v.handle, 77);

	/* the CORE_IN contents were not copied: truncated, not malformed */
	memset(&v, 0, sizeof(v));
	len = ioc_init(&b, UVERBS_OBJECT_DEVICE, UVERBS_METHOD_INVOKE_WRITE, 2);
	b.attrs[0] = (struct ib_uverbs_attr){.attr_id = UVERBS_ATTR_CORE_IN, .len = 40};
	b.attrs[1] = (struct ib_uverbs_attr){.attr_id = UVERBS_ATTR_WRITE_CMD, .len = 8, .data = 9};
	ck_assert_uint_eq(decode_uverbs_ioctl(&b, len, NULL, 0, &v), RG_EVF_TRUNC);
	ck_assert_uint_eq(v.op, RG_OP_REG_MR);

	/* no WRITE_CMD at all */
	memset(&v, 0, sizeof(v));
	len = ioc_init(&b, UVERBS_OBJECT_DEVICE, UVERBS_METHOD_INVOKE_WRITE, 1);
	b.attrs[0] = (struct ib_uverbs_attr){.attr_id = UVERBS_ATTR_CORE_IN, .len = 4};
	ck_assert_uint_eq(decode_uverbs_ioctl(&b, len, NULL, 0, &v), RG_EVF_MALFORMED);

	/* GET_CONTEXT as libibverbs tunnels it: no CORE_IN (its only field is the response) */
	memset(&v, 0, sizeof(v));
	len = ioc_init(&b, UVERBS_OBJECT_DEVICE, UVERBS_METHOD_INVOKE_WRITE, 2);
	b.attrs[0] = (struct ib_uverbs_attr){
	    .attr_id = UVERBS_ATTR_WRITE_CMD, .len = 8, .data = IB_USER_VERBS_CMD_GET_CONTEXT};
	b.attrs[1] = (struct ib_uverbs_attr){.attr_id = UVERBS_ATTR_CORE_OUT, .len = 8, .data = 0};
	ck_assert_uint_eq(decode_uverbs_ioctl(&b, len, NULL, 0, &v), 0);
	ck_assert_uint_eq(v.op, RG_OP_GET_CONTEXT);
}
END_TEST

START_TEST(test_ioctl_methods)
{
	struct ioc b;
	struct rg_ev_verbs v = {0};
	size_t len;

	len = ioc_init(&b, UVERBS_OBJECT_QP, UVERBS_METHOD_QP_CREATE, 3);
	/* order is not fixed: the decoder scans; an output is a pointer even when 4 bytes long */
	b.attrs[0] = (struct ib_uverbs_attr){
	    .attr_id = UVERBS_ATTR_CREATE_QP_RESP_QP_NUM, .len = 4, .data = 0x7fff0000};
	b.attrs[1] = (struct ib_uverbs_attr){.attr_id = UVERBS_ATTR_CREATE_QP_TYPE,
					     .len = 1,
					     .data = 0xff03}; /* only the low byte counts: UC */
	b.attrs[2] = (struct ib_uverbs_attr){.attr_id = UVERBS_ATTR_CREATE_QP_HANDLE, .data = 5};
	{
		uint32_t qpn = 0x42;
		struct uverbs_blob blob = {0, 4, (const uint8_t *)&qpn};

		ck_assert_uint_eq(decode_uverbs_ioctl(&b, len, &blob, 1, &v), 0);
	}
	ck_assert_uint_eq(v.op, RG_OP_CREATE_QP);
	ck_assert_uint_eq(v.qp_type, 3);
	ck_assert_uint_eq(v.qp_num, 0x42);
	ck_assert_uint_eq(v.handle, 5);
	/* without the copied output (the call failed): no QP number, not the pointer's bits */
	memset(&v, 0, sizeof(v));
	ck_assert_uint_eq(decode_uverbs_ioctl(&b, len, NULL, 0, &v), 0);
	ck_assert_uint_eq(v.qp_num, 0);

	memset(&v, 0, sizeof(v));
	len = ioc_init(&b, UVERBS_OBJECT_MR, 5 /* REG_MR, Linux 6.17 */, 5);
	b.attrs[0] = (struct ib_uverbs_attr){.attr_id = 4 /* ADDR */, .len = 8, .data = 0x5000};
	b.attrs[1] = (struct ib_uverbs_attr){.attr_id = 5 /* LENGTH */, .len = 8, .data = ~0ull};
	b.attrs[2] = (struct ib_uverbs_attr){.attr_id = 3 /* IOVA */, .len = 8, .data = 0};
	b.attrs[3] = (struct ib_uverbs_attr){.attr_id = 6 /* ACCESS */,
					     .len = 4,
					     .data = IB_UVERBS_ACCESS_ON_DEMAND |
						     IB_UVERBS_ACCESS_REMOTE_READ};
	b.attrs[4] = (struct ib_uverbs_attr){.attr_id = 0 /* HANDLE */, .data = 6};
	ck_assert_uint_eq(decode_uverbs_ioctl(&b, len, NULL, 0, &v), 0);
	ck_assert_uint_eq(v.op, RG_OP_REG_MR);
	ck_assert_uint_eq(v.mr_addr, 0x5000);
	ck_assert_uint_eq(v.mr_length, ~0ull); /* the implicit whole-address-space MR */
	ck_assert_uint_eq(v.mr_access, RG_ACCESS_ON_DEMAND | RG_ACCESS_REMOTE_READ);
	ck_assert_uint_eq(v.handle, 6);

	memset(&v, 0, sizeof(v));
	len = ioc_init(&b, UVERBS_OBJECT_MR, UVERBS_METHOD_MR_DESTROY, 1);
	b.attrs[0] = (struct ib_uverbs_attr){.attr_id = UVERBS_ATTR_DESTROY_MR_HANDLE, .data = 6};
	ck_assert_uint_eq(decode_uverbs_ioctl(&b, len, NULL, 0, &v), 0);
	ck_assert_uint_eq(v.op, RG_OP_DEREG_MR);
	ck_assert_uint_eq(v.handle, 6);

	memset(&v, 0, sizeof(v));
	len = ioc_init(&b, UVERBS_OBJECT_CQ, UVERBS_METHOD_CQ_CREATE, 0);
	ck_assert_uint_eq(decode_uverbs_ioctl(&b, len, NULL, 0, &v), 0);
	ck_assert_uint_eq(v.op, RG_OP_CREATE_CQ);

	memset(&v, 0, sizeof(v));
	len = ioc_init(&b, UVERBS_OBJECT_DEVICE, UVERBS_METHOD_GET_CONTEXT, 0);
	ck_assert_uint_eq(decode_uverbs_ioctl(&b, len, NULL, 0, &v), 0);
	ck_assert_uint_eq(v.op, RG_OP_GET_CONTEXT);

	memset(&v, 0, sizeof(v));
	len = ioc_init(&b, 0x2000, 7, 0); /* a driver object */
	ck_assert_uint_eq(decode_uverbs_ioctl(&b, len, NULL, 0, &v), 0);
	ck_assert_uint_eq(v.op, RG_OP_OTHER);
	ck_assert_uint_eq(v.object_id, 0x2000);
}
END_TEST

struct cmw {
	struct rdma_ucm_cmd_hdr hdr;
	union {
		struct rdma_ucm_create_id create;
		struct rdma_ucm_resolve_ip rip;
		struct rdma_ucm_bind bind;
		struct rdma_ucm_query query;
		struct rdma_ucm_listen listen;
		struct rdma_ucm_accept accept;
	};
};

START_TEST(test_rdma_cm)
{
	struct cmw w;
	struct rg_ev_rdma_cm cm;
	struct rdma_ucm_create_id_resp cresp = {.id = 12};
	struct rdma_ucm_query_addr_resp qresp;
	struct sockaddr_in6 *s6;
	struct sockaddr_in *s4;
	char buf[64];

	memset(&w, 0, sizeof(w));
	memset(&cm, 0, sizeof(cm));
	w.hdr.cmd = RDMA_USER_CM_CMD_CREATE_ID;
	w.hdr.in = sizeof(w.create);
	w.hdr.out = sizeof(cresp);
	w.create.ps = RDMA_PS_UDP;
	ck_assert_uint_eq(decode_rdma_cm_write(&w, 8 + sizeof(w.create), 8 + sizeof(w.create),
					       &cresp, sizeof(cresp), &cm),
			  0);
	ck_assert_uint_eq(cm.op, RG_CM_CREATE_ID);
	ck_assert_uint_eq(cm.id, 12);
	ck_assert_uint_eq(cm.port_space, 0x111);

	memset(&w, 0, sizeof(w));
	memset(&cm, 0, sizeof(cm));
	w.hdr.cmd = RDMA_USER_CM_CMD_RESOLVE_IP;
	w.hdr.in = sizeof(w.rip);
	s6 = &w.rip.dst_addr;
	s6->sin6_family = AF_INET6;
	s6->sin6_port = htons(20000);
	inet_pton(AF_INET6, "2001:db8::5", &s6->sin6_addr);
	w.rip.id = 4;
	ck_assert_uint_eq(
	    decode_rdma_cm_write(&w, 8 + sizeof(w.rip), 8 + sizeof(w.rip), NULL, 0, &cm), 0);
	ck_assert_uint_eq(cm.op, RG_CM_RESOLVE_IP);
	ck_assert_uint_eq(cm.id, 4);
	ck_assert_uint_eq(cm.src.family, 0);
	ck_assert_uint_eq(cm.dst.family, AF_INET6);
	ck_assert_uint_eq(cm.dst.port, 20000);
	addr_to_string(&cm.dst, buf);
	ck_assert_str_eq(buf, "2001:db8::5");

	/* BIND with an AF_IB address: the GID, and the port from the service id */
	memset(&w, 0, sizeof(w));
	memset(&cm, 0, sizeof(cm));
	w.hdr.cmd = RDMA_USER_CM_CMD_BIND;
	w.hdr.in = sizeof(w.bind);
	{
		uint8_t *a = (uint8_t *)&w.bind.addr;
		uint64_t sid = htobe64(0x0000000001060000ull | 18515);

		a[0] = 27; /* AF_IB, little-endian u16 */
		a[8] = 0xfe;
		a[9] = 0x80;
		a[23] = 1;
		memcpy(a + 24, &sid, 8);
	}
	w.bind.id = 2;
	ck_assert_uint_eq(
	    decode_rdma_cm_write(&w, 8 + sizeof(w.bind), 8 + sizeof(w.bind), NULL, 0, &cm), 0);
	ck_assert_uint_eq(cm.op, RG_CM_BIND);
	ck_assert_uint_eq(cm.src.family, 27);
	ck_assert_uint_eq(cm.src.port, 18515);
	ck_assert_uint_eq(cm.src.addr[0], 0xfe);

	/* the passive side learns its peer from QUERY(ADDR)'s response */
	memset(&w, 0, sizeof(w));
	memset(&cm, 0, sizeof(cm));
	memset(&qresp, 0, sizeof(qresp));
	w.hdr.cmd = RDMA_USER_CM_CMD_QUERY;
	w.hdr.in = sizeof(w.query);
	w.hdr.out = sizeof(qresp);
	w.query.id = 7;
	w.query.option = RDMA_USER_CM_QUERY_ADDR;
	s4 = (struct sockaddr_in *)&qresp.dst_addr;
	s4->sin_family = AF_INET;
	s4->sin_port = htons(7174);
	inet_pton(AF_INET, "203.0.113.8", &s4->sin_addr);
	ck_assert_uint_eq(decode_rdma_cm_write(&w, 8 + sizeof(w.query), 8 + sizeof(w.query), &qresp,
					       sizeof(qresp), &cm),
			  0);
	ck_assert_uint_eq(cm.op, RG_CM_OTHER);
	ck_assert_uint_eq(cm.id, 7);
	addr_to_string(&cm.dst, buf);
	ck_assert_str_eq(buf, "203.0.113.8");
	ck_assert_uint_eq(cm.dst.port, 7174);

	memset(&w, 0, sizeof(w));
	memset(&cm, 0, sizeof(cm));
	w.hdr.cmd = RDMA_USER_CM_CMD_ACCEPT;
	w.hdr.in = sizeof(w.accept);
	w.accept.id = 9;
	ck_assert_uint_eq(
	    decode_rdma_cm_write(&w, 8 + sizeof(w.accept), 8 + sizeof(w.accept), NULL, 0, &cm), 0);
	ck_assert_uint_eq(cm.op, RG_CM_ACCEPT);
	ck_assert_uint_eq(cm.id, 9);
}
END_TEST

START_TEST(test_uevent)
{
	static const char add[] = "add@/devices/virtual/infiniband/rxe0\0ACTION=add\0"
				  "DEVPATH=/devices/virtual/infiniband/rxe0\0SUBSYSTEM=infiniband\0"
				  "NAME=rxe0\0SEQNUM=1234";
	static const char mod[] = "add@/module/rdma_rxe\0ACTION=add\0DEVPATH=/module/rdma_rxe\0"
				  "SUBSYSTEM=module\0SEQNUM=9\0";
	static const char udev[] = "libudev\0\xfe\xed\xca\xfe";
	struct uevent u;

	ck_assert_int_eq(uevent_parse(add, sizeof(add) - 1, &u), 0);
	ck_assert_str_eq(u.action, "add");
	ck_assert_str_eq(u.subsystem, "infiniband");
	ck_assert_str_eq(u.name, "rxe0");
	ck_assert_int_eq(uevent_parse(mod, sizeof(mod), &u), 0);
	ck_assert_str_eq(u.subsystem, "module");
	ck_assert_str_eq(u.name, "rdma_rxe"); /* from DEVPATH */
	ck_assert_int_eq(uevent_parse(udev, sizeof(udev) - 1, &u), -EINVAL);
}
END_TEST

START_TEST(test_helpers)
{
	bool soft;

	ck_assert_uint_eq(proc_mem_target("/proc/123/mem"), 123);
	ck_assert_uint_eq(proc_mem_target("/proc/123/task/456/mem"), 123);
	ck_assert_uint_eq(proc_mem_target("/proc/self/mem"), 0);
	ck_assert_uint_eq(proc_mem_target("/mem"), 0);
	ck_assert_uint_eq(proc_mem_target("mem"), 0);
	ck_assert_uint_eq(proc_mem_target("/proc/123/maps"), 0);
	ck_assert_uint_eq(proc_mem_target("/proc/99999999999/mem"), 0);
	ck_assert_uint_eq(lib_kind_from_path("/usr/lib/x86_64-linux-gnu/libibverbs.so.1.14.44.0"),
			  RG_LIB_IBVERBS);
	ck_assert_uint_eq(lib_kind_from_path("/usr/lib/librdmacm.so.1"), RG_LIB_RDMACM);
	ck_assert_uint_eq(
	    lib_kind_from_path("/usr/lib/x86_64-linux-gnu/libibverbs/librxe-rdmav34.so"),
	    RG_LIB_PROVIDER);
	ck_assert(rdma_module_name("rdma_rxe", &soft) && soft);
	ck_assert(rdma_module_name("mlx5_ib", &soft) && !soft);
	ck_assert(!rdma_module_name("nvidia", NULL));
	ck_assert_uint_eq(kdev_to_dev((254u << 20) | 3), makedev(254, 3));
}
END_TEST

static struct convert_ctx test_ctx = {.boot_to_real_ns = 1000};

START_TEST(test_convert_exec)
{
	struct rg_rec_exec r;
	struct rg_event ev;
	static const char args[] = "ibv_rc_pingpong\0-g\0"
				   "1\0";

	memset(&r, 0, sizeof(r));
	r.h.type = RG_REC_EXEC;
	r.h.ts_boot_ns = 5;
	r.h.pid = 10;
	r.h.tid = 10;
	r.h.ppid = 1;
	r.h.start_boot_ns = 7000000000ull;
	memcpy(r.h.comm, "ibv_rc_pingpong", 15);
	strcpy(r.exe, "/usr/bin/ibv_rc_pingpong");
	memcpy(r.args, args, sizeof(args) - 1);
	r.args[3] = '\t'; /* a control byte inside an argument */
	r.args_len = sizeof(args) - 1;
	r.args_size = r.args_len;
	r.exe_dev = (8u << 20) | 1;
	ck_assert_int_eq(record_to_event(&r, sizeof(r), &test_ctx, &ev), 1);
	ck_assert_uint_eq(ev.type, RG_EV_EXEC);
	ck_assert_uint_eq(ev.ts, 1005);
	ck_assert_uint_eq(ev.proc.start_boot_ns, 7000000000ull);
	ck_assert_str_eq(ev.proc.comm, "ibv_rc_pingpong");
	ck_assert_str_eq(ev.u.exec.exe, "/usr/bin/ibv_rc_pingpong");
	ck_assert_uint_eq(ev.u.exec.args_len, sizeof(args) - 2); /* the final NUL dropped */
	ck_assert_mem_eq(ev.u.exec.args,
			 "ibv?rc_pingpong\0-g\0"
			 "1",
			 sizeof(args) - 2);
	ck_assert_uint_eq(ev.u.exec.exe_dev, makedev(8, 1));
	ck_assert_uint_eq(ev.flags, 0);
	ck_assert_uint_eq(ev.u.exec.exe_flags, 0);

	/* Cut argv is not a cut path; a cut path (its tail) is flagged for the engine. */
	r.args_size = 100000;
	ck_assert_int_eq(record_to_event(&r, sizeof(r), &test_ctx, &ev), 1);
	ck_assert_uint_eq(ev.flags, RG_EVF_TRUNC);
	ck_assert_uint_eq(ev.u.exec.exe_flags, 0);
	r.args_size = r.args_len;
	r.h.flags = RG_RECF_TRUNC;
	strcpy(r.exe, "/opt/tools/cheat");
	ck_assert_int_eq(record_to_event(&r, sizeof(r), &test_ctx, &ev), 1);
	ck_assert_str_eq(ev.u.exec.exe, "/opt/tools/cheat");
	ck_assert_uint_eq(ev.u.exec.exe_flags, RG_EXE_TRUNC);
	/* No exe_file: execve's own argument stands in, never trusted as a path */
	r.h.flags = 0;
	r.exe[0] = 0;
	strcpy(r.filename, "/opt/tools/cheat");
	ck_assert_int_eq(record_to_event(&r, sizeof(r), &test_ctx, &ev), 1);
	ck_assert_uint_eq(ev.u.exec.exe_flags, RG_EXE_TRUNC);
}
END_TEST

/* A ptrace target named by pid alone (the syscall tracepoints) is resolved from the fork and exec
 * records the ring carried before it, newest first, before /proc. */
START_TEST(test_task_cache)
{
	static struct task_cache c;
	uint64_t start = 0;
	char comm[RG_COMM_LEN];

	memset(&c, 0, sizeof(c));
	ck_assert_int_eq(task_cache_find(&c, 320, &start, comm), -ENOENT);
	task_cache_note(&c, PROC_KEY(320, 120980000000ull), "rg-host-driver");
	task_cache_note(&c, PROC_KEY(321, 120980000000ull), "rg-host-driver");
	ck_assert_int_eq(task_cache_find(&c, 320, &start, comm), 0);
	ck_assert_uint_eq(start, 120980000000ull);
	ck_assert_str_eq(comm, "rg-host-driver");
	/* an exec renames it; a reused pid is the newer process */
	task_cache_note(&c, PROC_KEY(320, 120980000000ull), "game");
	ck_assert_int_eq(task_cache_find(&c, 320, &start, comm), 0);
	ck_assert_str_eq(comm, "game");
	task_cache_note(&c, PROC_KEY(320, 200000000000ull), "other");
	ck_assert_int_eq(task_cache_find(&c, 320, &start, comm), 0);
	ck_assert_uint_eq(start, 200000000000ull);
	ck_assert_str_eq(comm, "other");
	ck_assert_int_eq(task_cache_find(&c, 322, &start, comm), -ENOENT);
	/* pid 0 is never an answer */
	task_cache_note(&c, PROC_KEY(0, 1), "swapper");
	ck_assert_int_eq(task_cache_find(&c, 0, &start, comm), -ENOENT);
}
END_TEST

START_TEST(test_task_cache_full)
{
	static struct task_cache c;
	uint64_t start = 0;
	char comm[RG_COMM_LEN], name[RG_COMM_LEN + 8];

	memset(&c, 0, sizeof(c));
	for (uint32_t pid = 1; pid <= TASK_CACHE_SIZE + 10; pid++)
		task_cache_note(&c, PROC_KEY(pid, pid * 1000ull), "p");
	/* the 10 oldest gave way, the rest are there */
	ck_assert_int_eq(task_cache_find(&c, 10, &start, comm), -ENOENT);
	ck_assert_int_eq(task_cache_find(&c, 11, &start, comm), 0);
	ck_assert_uint_eq(start, 11000ull);
	ck_assert_int_eq(task_cache_find(&c, TASK_CACHE_SIZE + 10, &start, comm), 0);
	ck_assert_uint_eq(c.used, TASK_CACHE_SIZE);
	/* a comm at the size limit (not NUL-terminated in the record) is cut and terminated */
	memset(name, 'x', sizeof(name));
	task_cache_note(&c, PROC_KEY(7, 7), name);
	ck_assert_int_eq(task_cache_find(&c, 7, &start, comm), 0);
	ck_assert_uint_eq(strlen(comm), RG_COMM_LEN - 1);
}
END_TEST

/* Two threads exiting together can both report their process's exit: reported once; a pid
 * reused since (another start time) exits on its own. */
START_TEST(test_exit_ring)
{
	static struct exit_ring r;

	memset(&r, 0, sizeof(r));
	ck_assert(!exit_ring_seen(&r, PROC_KEY(294, 82050000000ull)));
	ck_assert(exit_ring_seen(&r, PROC_KEY(294, 82050000000ull)));
	ck_assert(exit_ring_seen(&r, PROC_KEY(294, 82050000000ull)));
	ck_assert(!exit_ring_seen(&r, PROC_KEY(294, 99000000000ull)));
	ck_assert(!exit_ring_seen(&r, PROC_KEY(295, 82050000000ull)));
	ck_assert(exit_ring_seen(&r, PROC_KEY(295, 82050000000ull)));
	/* pid 0 is never noted */
	ck_assert(!exit_ring_seen(&r, PROC_KEY(0, 0)));
	ck_assert(!exit_ring_seen(&r, PROC_KEY(0, 0)));
}
END_TEST

START_TEST(test_exit_ring_full)
{
	static struct exit_ring r;

	memset(&r, 0, sizeof(r));
	for (uint32_t pid = 1; pid <= EXIT_RING_SIZE + 5; pid++)
		ck_assert(!exit_ring_seen(&r, PROC_KEY(pid, pid * 1000ull)));
	/* the 5 oldest gave way: a late duplicate of those is reported again; the rest are not */
	ck_assert(!exit_ring_seen(&r, PROC_KEY(5, 5000ull)));
	ck_assert(exit_ring_seen(&r, PROC_KEY(EXIT_RING_SIZE + 5, (EXIT_RING_SIZE + 5) * 1000ull)));
	ck_assert(exit_ring_seen(&r, PROC_KEY(7, 7000ull)));
}
END_TEST

START_TEST(test_convert_cmd)
{
	struct rg_rec_cmd *r = calloc(1, sizeof(*r));
	struct w_reg_mr w;

	make_reg_mr_into(&w);
	struct rg_event ev;

	r->h.type = RG_REC_CMD;
	r->h.pid = 3;
	r->fd = 4;
	r->node = RG_NODE_UVERBS_FD;
	r->via = RG_CMD_WRITE;
	r->ret = -22;
	r->count = sizeof(w);
	r->data_len = sizeof(w);
	memcpy(r->data, &w, sizeof(w));
	ck_assert_int_eq(record_to_event(r, sizeof(*r), &test_ctx, &ev), 1);
	ck_assert_uint_eq(ev.type, RG_EV_VERBS);
	ck_assert_uint_eq(ev.flags, RG_EVF_FAILED);
	ck_assert_int_eq(ev.u.verbs.ret, -22);
	ck_assert_int_eq(ev.u.verbs.fd, 4);
	ck_assert_uint_eq(ev.u.verbs.mr_length, 1 << 20);
	ck_assert_uint_eq(ev.u.verbs.calls, 1);

	/* lengths beyond the record's arrays are refused */
	r->data_len = RG_REC_DATA + 1;
	ck_assert_int_eq(record_to_event(r, sizeof(*r), &test_ctx, &ev), -EBADMSG);
	r->data_len = sizeof(w);
	r->nblobs = RG_REC_BLOB_SLOTS + 1;
	ck_assert_int_eq(record_to_event(r, sizeof(*r), &test_ctx, &ev), -EBADMSG);
	r->nblobs = 0;
	r->node = 99;
	ck_assert_int_eq(record_to_event(r, sizeof(*r), &test_ctx, &ev), -EBADMSG);
	ck_assert_int_eq(record_to_event(r, sizeof(*r) - 1, &test_ctx, &ev), -EBADMSG);
	free(r);
}
END_TEST

START_TEST(test_convert_module)
{
	struct rg_rec_module r;
	struct rg_event ev;

	memset(&r, 0, sizeof(r));
	r.h.type = RG_REC_MODULE;
	strcpy(r.name, "siw");
	ck_assert_int_eq(record_to_event(&r, sizeof(r), &test_ctx, &ev), 1);
	ck_assert_uint_eq(ev.type, RG_EV_MODULE_LOAD);
	ck_assert_uint_eq(ev.flags, RG_EVF_SOFT);
	strcpy(r.name, "snd_hda_intel");
	ck_assert_int_eq(record_to_event(&r, sizeof(r), &test_ctx, &ev), 0);
}
END_TEST

/* rdma.object_id and rdma.method_id are 16-bit: each is its own JSON number */
START_TEST(test_json_u16_fields)
{
	struct rg_event ev = {0}, back = {0};
	struct json_object *o;
	char err[128];

	ev.type = RG_EV_VERBS;
	ev.u.verbs.object_id = 4;
	ev.u.verbs.method_id = 1;
	o = event_to_json(&ev);
	ck_assert_int_eq(json_object_get_int(json_get_path(o, "rdma.object_id")), 4);
	ck_assert_int_eq(json_object_get_int(json_get_path(o, "rdma.method_id")), 1);
	ck_assert_int_eq(event_from_json(o, &back, err, sizeof(err)), 0);
	ck_assert_uint_eq(back.u.verbs.object_id, 4);
	ck_assert_uint_eq(back.u.verbs.method_id, 1);
	json_object_put(o);
	ev.u.verbs.object_id = 0;
	o = event_to_json(&ev);
	ck_assert_ptr_null(json_get_path(o, "rdma.object_id"));
	json_object_put(o);
}
END_TEST

/* ---- limits ---- */

/* Every prefix of a valid command decodes without reading past it; short ones say so. */
START_TEST(test_write_every_length)
{
	struct w_reg_mr w;

	make_reg_mr_into(&w);

	for (size_t len = 0; len <= sizeof(w); len++) {
		uint8_t *copy = malloc(len ? len : 1);
		struct rg_ev_verbs v = {0};
		uint32_t f;

		memcpy(copy, &w, len);
		/* the caller wrote all of it, the sensor kept len bytes */
		f = decode_uverbs_write(copy, len, sizeof(w), NULL, 0, &v);
		if (len < sizeof(w))
			ck_assert_msg(f & RG_EVF_TRUNC, "len %zu", len);
		else
			ck_assert_uint_eq(f, 0);
		if (len >= offsetof(struct w_reg_mr, body.access_flags) + 4)
			ck_assert_uint_eq(v.mr_access, w.body.access_flags);
		else
			ck_assert_uint_eq(v.mr_access, 0);
		free(copy);
	}
}
END_TEST

START_TEST(test_ioctl_every_length)
{
	struct ioc b;
	size_t full = ioc_init(&b, UVERBS_OBJECT_QP, UVERBS_METHOD_QP_CREATE, 2);

	b.attrs[0] = (struct ib_uverbs_attr){.attr_id = UVERBS_ATTR_CREATE_QP_HANDLE, .data = 1};
	b.attrs[1] =
	    (struct ib_uverbs_attr){.attr_id = UVERBS_ATTR_CREATE_QP_TYPE, .len = 1, .data = 4};
	for (size_t len = 0; len <= full; len++) {
		uint8_t *copy = malloc(len ? len : 1);
		struct rg_ev_verbs v = {0};
		uint32_t f;

		memcpy(copy, &b, len);
		f = decode_uverbs_ioctl(copy, len, NULL, 0, &v);
		if (len < full)
			ck_assert_msg(f & RG_EVF_TRUNC, "len %zu", len);
		else
			ck_assert_uint_eq(f, 0);
		ck_assert_uint_eq(v.qp_type, len == full ? 4 : 0);
		free(copy);
	}
}
END_TEST

/* Random bytes through every decoder: never a crash or an out-of-bounds read (the fuzzers under
 * tests/fuzz go further); the lengths match the allocations exactly so ASan/valgrind would see. */
START_TEST(test_random_buffers)
{
	unsigned seed = 12345;

	for (int i = 0; i < 20000; i++) {
		size_t len = (size_t)(rand_r(&seed) % 400), rlen = (size_t)(rand_r(&seed) % 300);
		uint8_t *buf = malloc(len + 1), *resp = malloc(rlen + 1);
		struct uverbs_blob blobs[3];
		struct rg_ev_verbs v = {0};
		struct rg_ev_rdma_cm cm = {0};
		struct rg_event ev;

		for (size_t k = 0; k < len; k++)
			buf[k] = (uint8_t)rand_r(&seed);
		for (size_t k = 0; k < rlen; k++)
			resp[k] = (uint8_t)rand_r(&seed);
		if (len >= 8 && i % 3 == 0) /* make the command numbers plausible */
			buf[0] = (uint8_t)(rand_r(&seed) % 52);
		for (int k = 0; k < 3; k++)
			blobs[k] = (struct uverbs_blob){.attr = (uint16_t)(rand_r(&seed) % 20),
							.len = (uint16_t)(rlen / 3),
							.data = resp + k * (rlen / 3)};
		(void)decode_uverbs_write(buf, len, rand_r(&seed) % 600, resp, rlen, &v);
		(void)decode_uverbs_ioctl(buf, len, blobs, 3, &v);
		(void)decode_uverbs_cmd((uint32_t)rand_r(&seed), buf, len, resp, rlen, &v);
		(void)decode_rdma_cm_write(buf, len, rand_r(&seed) % 600, resp, rlen, &cm);
		(void)record_to_event(buf, len, &test_ctx, &ev);
		free(buf);
		free(resp);
	}
}
END_TEST

/* ---- errors ---- */

START_TEST(test_null_and_empty)
{
	struct rg_ev_verbs v = {0};
	struct rg_ev_rdma_cm cm = {0};
	struct rg_addr a;
	struct rg_event ev;
	struct uevent u;

	ck_assert(decode_uverbs_write(NULL, 0, 0, NULL, 0, &v) & RG_EVF_TRUNC);
	ck_assert(decode_uverbs_ioctl(NULL, 0, NULL, 0, &v) & RG_EVF_TRUNC);
	ck_assert(decode_rdma_cm_write(NULL, 0, 0, NULL, 0, &cm) & RG_EVF_TRUNC);
	ck_assert(decode_sockaddr(NULL, 0, &a) & RG_EVF_TRUNC);
	ck_assert_uint_eq(decode_uverbs_cmd(9, NULL, 0, NULL, 0, &v), RG_EVF_TRUNC);
	ck_assert_int_eq(record_to_event(NULL, 0, &test_ctx, &ev), -EBADMSG);
	ck_assert_int_eq(uevent_parse(NULL, 0, &u), -EINVAL);
	ck_assert_int_eq(uevent_parse("add@/x", 6, &u), -EINVAL); /* no SUBSYSTEM */
}
END_TEST

/* Access flags as the kernel takes them: unknown optional bits dropped, unknown mandatory refused. */
START_TEST(test_unknown_access_flags)
{
	struct w_reg_mr w;
	struct rg_ev_verbs v = {0};

	make_reg_mr_into(&w);
	w.body.access_flags = IB_UVERBS_ACCESS_REMOTE_READ | (1u << 25); /* optional range */
	ck_assert_uint_eq(decode_uverbs_write(&w, sizeof(w), sizeof(w), NULL, 0, &v), 0);
	ck_assert_uint_eq(v.mr_access, RG_ACCESS_REMOTE_READ);
	memset(&v, 0, sizeof(v));
	w.body.access_flags = IB_UVERBS_ACCESS_REMOTE_WRITE | (1u << 12); /* unknown, mandatory */
	ck_assert_uint_eq(decode_uverbs_write(&w, sizeof(w), sizeof(w), NULL, 0, &v),
			  RG_EVF_MALFORMED);
	ck_assert_uint_eq(v.mr_access, RG_ACCESS_REMOTE_WRITE);
}
END_TEST

START_TEST(test_malformed_headers)
{
	struct w_reg_mr w;

	make_reg_mr_into(&w);
	struct rg_ev_verbs v = {0};
	struct ioc b;
	struct rg_addr a;
	uint8_t sa[4] = {99, 0, 0, 0};
	size_t len;

	/* in_words disagrees with the byte count */
	w.hdr.in_words = 5;
	ck_assert(decode_uverbs_write(&w, sizeof(w), sizeof(w), NULL, 0, &v) & RG_EVF_MALFORMED);
	/* reserved bits in the command word */
	memset(&v, 0, sizeof(v));
	ck_assert_uint_eq(decode_uverbs_cmd(0x00010009, &w.body, sizeof(w.body), NULL, 0, &v),
			  RG_EVF_MALFORMED);
	ck_assert_uint_eq(v.op, RG_OP_OTHER);
	/* the ioctl header's length disagrees with num_attrs */
	len = ioc_init(&b, UVERBS_OBJECT_PD, UVERBS_METHOD_PD_DESTROY, 1);
	b.hdr.length = 100;
	memset(&v, 0, sizeof(v));
	ck_assert(decode_uverbs_ioctl(&b, len, NULL, 0, &v) & RG_EVF_MALFORMED);
	/* reserved fields set */
	b.hdr.length = (uint16_t)len;
	b.hdr.reserved1 = 1;
	ck_assert(decode_uverbs_ioctl(&b, len, NULL, 0, &v) & RG_EVF_MALFORMED);
	/* an address family nobody knows */
	ck_assert_uint_eq(decode_sockaddr(sa, sizeof(sa), &a), RG_EVF_MALFORMED);
	ck_assert_uint_eq(a.family, 0);
}
END_TEST

/* ---- the ring buffer's wake-up policy (ringwake.h) ---- */

#define MS_ 1000000ull

/* Records one at a time, further apart than the poll interval: wake-ups stay on. */
START_TEST(test_ringwake_sparse)
{
	struct ringwake_state st = {0};
	uint64_t t = 1000 * MS_;

	for (int i = 0; i < 20; i++, t += RINGWAKE_POLL_MS * MS_)
		ck_assert_int_eq(ringwake_step(&st, 1, t, false), RINGWAKE_KEEP);
	ck_assert_int_eq(st.mode, RINGWAKE_WAKE);
	ck_assert_uint_eq(st.bursts, 0);
	ck_assert_int_eq(ringwake_timeout_ms(&st, 1000), 1000);
	ck_assert_int_eq(ringwake_timeout_ms(&st, -1), -1);
	/* reads that find nothing change nothing */
	ck_assert_int_eq(ringwake_step(&st, 0, t + 10000 * MS_, true), RINGWAKE_KEEP);
	ck_assert_int_eq(st.mode, RINGWAKE_WAKE);
}
END_TEST

/* A burst: the timer takes over, then gives back only once the ring is seen empty. */
START_TEST(test_ringwake_burst)
{
	struct ringwake_state st = {0};
	uint64_t t = 5000 * MS_;

	ck_assert_int_eq(ringwake_step(&st, 3, t, false), RINGWAKE_KEEP); /* the first read */
	t += RINGWAKE_POLL_MS * MS_ - 1;
	ck_assert_int_eq(ringwake_step(&st, 1, t, false), RINGWAKE_SET_POLL);
	ck_assert_int_eq(st.mode, RINGWAKE_POLL);
	ck_assert_uint_eq(st.bursts, 1);
	ck_assert_int_eq(ringwake_timeout_ms(&st, 1000), RINGWAKE_POLL_MS);
	ck_assert_int_eq(ringwake_timeout_ms(&st, -1), RINGWAKE_POLL_MS);
	ck_assert_int_eq(ringwake_timeout_ms(&st, 0), 0);
	ck_assert_int_eq(ringwake_timeout_ms(&st, 1), 1);
	/* records keep coming, then empty reads short of the linger time */
	ck_assert_int_eq(ringwake_step(&st, 100, t += MS_, false), RINGWAKE_KEEP);
	ck_assert_int_eq(ringwake_step(&st, 0, t + RINGWAKE_LINGER_MS * MS_ - 1, true),
			 RINGWAKE_KEEP);
	ck_assert_int_eq(st.mode, RINGWAKE_POLL);
	/* the linger time: wake-ups on again, the timer still on */
	t += RINGWAKE_LINGER_MS * MS_;
	ck_assert_int_eq(ringwake_step(&st, 0, t, true), RINGWAKE_SET_WAKE);
	ck_assert_int_eq(st.mode, RINGWAKE_CLOSING);
	ck_assert_int_eq(ringwake_timeout_ms(&st, 1000), RINGWAKE_POLL_MS);
	/* the grace time has not passed: polls on, even with the ring empty */
	ck_assert_int_eq(ringwake_step(&st, 0, t + RINGWAKE_POLL_MS * MS_ - 1, true),
			 RINGWAKE_KEEP);
	ck_assert_int_eq(st.mode, RINGWAKE_CLOSING);
	/* it has, but a record is reserved and not read yet: polls on */
	ck_assert_int_eq(ringwake_step(&st, 0, t + RINGWAKE_POLL_MS * MS_, false), RINGWAKE_KEEP);
	ck_assert_int_eq(st.mode, RINGWAKE_CLOSING);
	/* the ring is empty: blocks again */
	ck_assert_int_eq(ringwake_step(&st, 0, t + 3 * RINGWAKE_POLL_MS * MS_, true),
			 RINGWAKE_KEEP);
	ck_assert_int_eq(st.mode, RINGWAKE_WAKE);
	ck_assert_int_eq(ringwake_timeout_ms(&st, 1000), 1000);
	ck_assert_uint_eq(st.bursts, 1);
}
END_TEST

/* Records while closing: back to the timer, with the slot set again (no new burst counted). */
START_TEST(test_ringwake_closing_records)
{
	struct ringwake_state st = {.mode = RINGWAKE_POLL, .last_ns = 100 * MS_, .bursts = 4};
	uint64_t t = 100 * MS_ + RINGWAKE_LINGER_MS * MS_;

	ck_assert_int_eq(ringwake_step(&st, 0, t, false), RINGWAKE_SET_WAKE);
	ck_assert_int_eq(ringwake_step(&st, 2, t + MS_, false), RINGWAKE_SET_POLL);
	ck_assert_int_eq(st.mode, RINGWAKE_POLL);
	ck_assert_uint_eq(st.bursts, 4);
	ck_assert_uint_eq(st.last_ns, t + MS_);
	/* closing's empty-ring test is not looked at in the other modes */
	ck_assert_int_eq(ringwake_step(&st, 0, t + 2 * MS_, true), RINGWAKE_KEEP);
	ck_assert_int_eq(st.mode, RINGWAKE_POLL);
	ck_assert_str_eq(ringwake_mode_to_string(RINGWAKE_WAKE), "wake");
	ck_assert_str_eq(ringwake_mode_to_string(RINGWAKE_POLL), "poll");
	ck_assert_str_eq(ringwake_mode_to_string(RINGWAKE_CLOSING), "closing");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("sensors");
	TCase *core = tcase_create("core"), *limits = tcase_create("limits"),
	      *errors = tcase_create("errors");
	SRunner *sr;
	int failed;

	tcase_add_test(core, test_write_reg_mr);
	tcase_add_test(core, test_write_modify_qp);
	tcase_add_test(core, test_write_extended_create_qp);
	tcase_add_test(core, test_write_create_ah_peer);
	tcase_add_test(core, test_write_post_send);
	tcase_add_test(core, test_ioctl_invoke_write);
	tcase_add_test(core, test_ioctl_methods);
	tcase_add_test(core, test_rdma_cm);
	tcase_add_test(core, test_uevent);
	tcase_add_test(core, test_helpers);
	tcase_add_test(core, test_convert_exec);
	tcase_add_test(core, test_convert_cmd);
	tcase_add_test(core, test_task_cache);
	tcase_add_test(core, test_exit_ring);
	tcase_add_test(core, test_convert_module);
	tcase_add_test(core, test_json_u16_fields);
	tcase_add_test(core, test_ringwake_sparse);
	tcase_add_test(core, test_ringwake_burst);
	tcase_add_test(core, test_ringwake_closing_records);
	tcase_add_test(limits, test_write_every_length);
	tcase_add_test(limits, test_ioctl_every_length);
	tcase_add_test(limits, test_random_buffers);
	tcase_add_test(limits, test_task_cache_full);
	tcase_add_test(limits, test_exit_ring_full);
	tcase_add_test(errors, test_null_and_empty);
	tcase_add_test(errors, test_malformed_headers);
	tcase_add_test(errors, test_unknown_access_flags);
	suite_add_tcase(s, core);
	suite_add_tcase(s, limits);
	suite_add_tcase(s, errors);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
