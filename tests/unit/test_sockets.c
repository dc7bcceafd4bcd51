/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The RDMA socket records (AF_RDS, AF_SMC; bpf/sockets.bpf.c) through record_to_event(): buffers
 * built with the uapi structs and the CMSG macros, as a process passes them to the kernel, and
 * the events' JSON round trip. A second Check binary of the sensors module (test_sensors.c holds
 * the verbs decoders).
 */
#include <arpa/inet.h>
#include <check.h>
#include <errno.h>
#include <linux/rds.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "bpf/events.h"
#include "event/event.h"
#include "event/event_json.h"
#include "sensors/convert.h"

static const struct convert_ctx ctx = {.boot_to_real_ns = 1000};

static struct rg_rec_sock rec(uint32_t call, uint32_t family, uint32_t type, uint32_t protocol)
{
	struct rg_rec_sock r;

	memset(&r, 0, sizeof(r));
	r.h.type = RG_REC_SOCK;
	r.h.pid = 700;
	r.h.start_boot_ns = 700000000000ull;
	strcpy(r.h.comm, "rdsbridge");
	r.call = call;
	r.fd = 3;
	r.family = family;
	r.type = type;
	r.protocol = protocol;
	return r;
}

static void set_sin(struct rg_rec_sock *r, const char *ip, uint16_t port)
{
	struct sockaddr_in sin = {.sin_family = AF_INET, .sin_port = htons(port)};

	ck_assert_int_eq(inet_pton(AF_INET, ip, &sin.sin_addr), 1);
	memcpy(r->addr, &sin, sizeof(sin));
	r->addr_len = sizeof(sin);
}

static int conv(const struct rg_rec_sock *r, struct rg_event *ev)
{
	return record_to_event(r, sizeof(*r), &ctx, ev);
}

static void assert_addr(const struct rg_addr *a, const char *ip, uint16_t port)
{
	char buf[64];

	addr_to_string(a, buf);
	ck_assert_str_eq(buf, ip);
	ck_assert_uint_eq(a->port, port);
}

/* Appends one control message (level SOL_RDS) to r->data, as CMSG_NXTHDR lays them out. */
static void put_cmsg(struct rg_rec_sock *r, int type, const void *arg, size_t len)
{
	struct cmsghdr c = {.cmsg_len = CMSG_LEN(len), .cmsg_level = SOL_RDS, .cmsg_type = type};

	ck_assert_uint_le(r->data_len + CMSG_SPACE(len), sizeof(r->data));
	memcpy(r->data + r->data_len, &c, sizeof(c));
	memcpy(r->data + r->data_len + sizeof(c), arg, len);
	r->data_len += (uint32_t)CMSG_SPACE(len);
	r->optlen = r->data_len;
}

START_TEST(test_socket)
{
	struct rg_rec_sock r = rec(RG_SOCK_SOCKET, AF_RDS, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	struct rg_event ev;

	r.fd = 4;
	r.ret = 4;
	ck_assert_int_eq(conv(&r, &ev), 1);
	ck_assert_uint_eq(ev.type, RG_EV_RDMA_SOCKET);
	ck_assert_uint_eq(ev.u.sock.op, RG_SOCK_OP_SOCKET);
	ck_assert_uint_eq(ev.u.sock.family, RG_SOCK_FAMILY_RDS);
	ck_assert_uint_eq(ev.u.sock.type, SOCK_SEQPACKET);
	ck_assert_int_eq(ev.u.sock.fd, 4);
	ck_assert_uint_eq(ev.flags, 0);
	ck_assert_uint_eq(ev.proc.pid, 700);

	/* SMC-R by AF_INET and IPPROTO_SMC (256), refused: EAFNOSUPPORT */
	r = rec(RG_SOCK_SOCKET, AF_INET, SOCK_STREAM, RG_ABI_IPPROTO_SMC);
	r.fd = -1;
	r.ret = -EAFNOSUPPORT;
	ck_assert_int_eq(conv(&r, &ev), 1);
	ck_assert_uint_eq(ev.u.sock.family, RG_SOCK_FAMILY_SMC);
	ck_assert_uint_eq(ev.u.sock.protocol, 256);
	ck_assert_int_eq(ev.u.sock.ret, -EAFNOSUPPORT);
	ck_assert_uint_eq(ev.flags, RG_EVF_FAILED);
	r = rec(RG_SOCK_SOCKET, AF_SMC, SOCK_STREAM, 0);
	ck_assert_int_eq(conv(&r, &ev), 1);
	ck_assert_uint_eq(ev.u.sock.family, RG_SOCK_FAMILY_SMC);
}
END_TEST

START_TEST(test_addresses)
{
	struct rg_rec_sock r = rec(RG_SOCK_BIND, AF_RDS, SOCK_SEQPACKET, 0);
	struct sockaddr_in6 sin6 = {.sin6_family = AF_INET6, .sin6_port = htons(5000)};
	struct rg_event ev;

	set_sin(&r, "192.0.2.1", 18600);
	ck_assert_int_eq(conv(&r, &ev), 1);
	ck_assert_uint_eq(ev.u.sock.op, RG_SOCK_OP_BIND);
	assert_addr(&ev.u.sock.local, "192.0.2.1", 18600);
	ck_assert_uint_eq(ev.u.sock.peer.family, 0);

	r = rec(RG_SOCK_CONNECT, AF_SMC, SOCK_STREAM, 0);
	ck_assert_int_eq(inet_pton(AF_INET6, "2001:db8::7", &sin6.sin6_addr), 1);
	memcpy(r.addr, &sin6, sizeof(sin6));
	r.addr_len = sizeof(sin6);
	r.ret = -EINPROGRESS;
	ck_assert_int_eq(conv(&r, &ev), 1);
	ck_assert_uint_eq(ev.u.sock.op, RG_SOCK_OP_CONNECT);
	assert_addr(&ev.u.sock.peer, "2001:db8::7", 5000);
	ck_assert_uint_eq(ev.flags, RG_EVF_FAILED);

	r = rec(RG_SOCK_ACCEPT, AF_SMC, SOCK_STREAM, 0);
	r.fd = 6;
	r.ret = 6;
	set_sin(&r, "192.0.2.3", 40000);
	ck_assert_int_eq(conv(&r, &ev), 1);
	ck_assert_uint_eq(ev.u.sock.op, RG_SOCK_OP_ACCEPT);
	ck_assert_int_eq(ev.u.sock.fd, 6);
	assert_addr(&ev.u.sock.peer, "192.0.2.3", 40000);
}
END_TEST

START_TEST(test_options)
{
	struct rg_rec_sock r = rec(RG_SOCK_SETSOCKOPT, AF_RDS, SOCK_SEQPACKET, 0);
	struct rds_get_mr_args mr = {.vec = {.addr = 0x7f0000001000ull, .bytes = 8192},
				     .cookie_addr = 0x7ffc00000000ull,
				     .flags = RDS_RDMA_USE_ONCE};
	struct rds_get_mr_for_dest_args md = {.vec = {.addr = 0x7f0000004000ull, .bytes = 4096}};
	struct rds_free_mr_args fr = {.cookie = 0x200000002ull, .flags = RDS_RDMA_INVALIDATE};
	struct sockaddr_in sin = {.sin_family = AF_INET, .sin_port = htons(18601)};
	struct rg_event ev;
	int32_t t = RDS_TRANS_IB;

	r.level = SOL_RDS;
	r.optname = SO_RDS_TRANSPORT;
	memcpy(r.data, &t, sizeof(t));
	r.data_len = r.optlen = sizeof(t);
	ck_assert_int_eq(conv(&r, &ev), 1);
	ck_assert_uint_eq(ev.u.sock.op, RG_SOCK_OP_SET_TRANSPORT);
	ck_assert_uint_eq(ev.u.sock.transport, RG_RDS_TRANS_IB);
	ck_assert_uint_eq(ev.u.sock.option, SO_RDS_TRANSPORT);
	t = RDS_TRANS_TCP;
	memcpy(r.data, &t, sizeof(t));
	ck_assert_int_eq(conv(&r, &ev), 1);
	ck_assert_uint_eq(ev.u.sock.transport, RG_RDS_TRANS_TCP);
	t = (int32_t)RDS_TRANS_NONE;
	memcpy(r.data, &t, sizeof(t));
	ck_assert_int_eq(conv(&r, &ev), 1);
	ck_assert_uint_eq(ev.u.sock.transport, RG_RDS_TRANS_UNSET);

	r.optname = RDS_GET_MR;
	memcpy(r.data, &mr, sizeof(mr));
	r.data_len = r.optlen = sizeof(mr);
	r.cookie = 0x100000001ull;
	ck_assert_int_eq(conv(&r, &ev), 1);
	ck_assert_uint_eq(ev.u.sock.op, RG_SOCK_OP_GET_MR);
	ck_assert_uint_eq(ev.u.sock.mr_addr, 0x7f0000001000ull);
	ck_assert_uint_eq(ev.u.sock.mr_length, 8192);
	ck_assert_uint_eq(ev.u.sock.cookie, 0x100000001ull);
	ck_assert_uint_eq(ev.u.sock.rdma_flags, RDS_RDMA_USE_ONCE);
	ck_assert_uint_eq(ev.u.sock.mr_access,
			  RG_ACCESS_LOCAL_WRITE | RG_ACCESS_REMOTE_READ | RG_ACCESS_REMOTE_WRITE);
	ck_assert_uint_eq(ev.flags, 0);

	ck_assert_int_eq(inet_pton(AF_INET, "192.0.2.2", &sin.sin_addr), 1);
	memcpy(&md.dest_addr, &sin, sizeof(sin));
	r.optname = RDS_GET_MR_FOR_DEST;
	memcpy(r.data, &md, sizeof(md));
	r.data_len = r.optlen = sizeof(md);
	ck_assert_int_eq(conv(&r, &ev), 1);
	ck_assert_uint_eq(ev.u.sock.op, RG_SOCK_OP_GET_MR_FOR_DEST);
	ck_assert_uint_eq(ev.u.sock.mr_length, 4096);
	assert_addr(&ev.u.sock.peer, "192.0.2.2", 18601);

	r.optname = RDS_FREE_MR;
	r.cookie = 0;
	memcpy(r.data, &fr, sizeof(fr));
	r.data_len = r.optlen = sizeof(fr);
	ck_assert_int_eq(conv(&r, &ev), 1);
	ck_assert_uint_eq(ev.u.sock.op, RG_SOCK_OP_FREE_MR);
	ck_assert_uint_eq(ev.u.sock.cookie, 0x200000002ull);
	ck_assert_uint_eq(ev.u.sock.rdma_flags, RDS_RDMA_INVALIDATE);
	ck_assert_uint_eq(ev.u.sock.mr_access, 0);

	/* a SOL_RDS option on a UDP socket (the kernel answers ENOPROTOOPT) */
	r = rec(RG_SOCK_SETSOCKOPT, AF_INET, SOCK_DGRAM, IPPROTO_UDP);
	r.level = SOL_RDS;
	r.optname = RDS_GET_MR;
	r.ret = -ENOPROTOOPT;
	memcpy(r.data, &mr, sizeof(mr));
	r.data_len = r.optlen = sizeof(mr);
	ck_assert_int_eq(conv(&r, &ev), 1);
	ck_assert_uint_eq(ev.u.sock.family, RG_SOCK_FAMILY_OTHER);
	ck_assert_uint_eq(ev.u.sock.op, RG_SOCK_OP_GET_MR);
	ck_assert_uint_eq(ev.flags, RG_EVF_FAILED);
}
END_TEST

START_TEST(test_sendmsg_cmsgs)
{
	struct rg_rec_sock r = rec(RG_SOCK_SENDMSG, AF_RDS, SOCK_SEQPACKET, 0);
	struct rds_rdma_args ra = {.cookie = 0x100000001ull,
				   .remote_vec = {.addr = 4096, .bytes = 2048},
				   .flags = RDS_RDMA_READWRITE | RDS_RDMA_NOTIFY_ME};
	struct rds_get_mr_args mr = {.vec = {.addr = 0x7f0000008000ull, .bytes = 65536}};
	struct rds_atomic_args at = {.cookie = 0x300000003ull, .remote_addr = 64};
	uint64_t dest = 0x400000004ull;
	int fds[1] = {0};
	struct rg_event ev;

	set_sin(&r, "192.0.2.2", 18601);
	/* an RDMA read alone */
	ra.flags = 0;
	put_cmsg(&r, RDS_CMSG_RDMA_ARGS, &ra, sizeof(ra));
	ck_assert_int_eq(conv(&r, &ev), 1);
	ck_assert_uint_eq(ev.u.sock.op, RG_SOCK_OP_RDMA_READ);
	ck_assert_uint_eq(ev.u.sock.cookie, 0x100000001ull);
	ck_assert_uint_eq(ev.u.sock.remote_addr, 4096);
	ck_assert_uint_eq(ev.u.sock.remote_length, 2048);
	ck_assert_uint_eq(ev.u.sock.cmsgs, 1);
	assert_addr(&ev.u.sock.peer, "192.0.2.2", 18601);

	/* a write, a region mapped with it, an atomic, a named region: the map stands for all */
	r.data_len = 0;
	ra.flags = RDS_RDMA_READWRITE | RDS_RDMA_NOTIFY_ME;
	put_cmsg(&r, RDS_CMSG_RDMA_ARGS, &ra, sizeof(ra));
	put_cmsg(&r, RDS_CMSG_RDMA_MAP, &mr, sizeof(mr));
	put_cmsg(&r, RDS_CMSG_ATOMIC_FADD, &at, sizeof(at));
	put_cmsg(&r, RDS_CMSG_RDMA_DEST, &dest, sizeof(dest));
	ck_assert_int_eq(conv(&r, &ev), 1);
	ck_assert_uint_eq(ev.u.sock.op, RG_SOCK_OP_RDMA_MAP);
	ck_assert_uint_eq(ev.u.sock.cmsgs, 4);
	ck_assert_uint_eq(ev.u.sock.mr_length, 65536);
	ck_assert_uint_eq(ev.u.sock.mr_access,
			  RG_ACCESS_LOCAL_WRITE | RG_ACCESS_REMOTE_READ | RG_ACCESS_REMOTE_WRITE);
	ck_assert_uint_eq(ev.flags, 0);

	/* write then atomic: the write */
	r.data_len = 0;
	put_cmsg(&r, RDS_CMSG_ATOMIC_CSWP, &at, sizeof(at));
	put_cmsg(&r, RDS_CMSG_RDMA_ARGS, &ra, sizeof(ra));
	ck_assert_int_eq(conv(&r, &ev), 1);
	ck_assert_uint_eq(ev.u.sock.op, RG_SOCK_OP_RDMA_WRITE);
	ck_assert_uint_eq(ev.u.sock.rdma_flags, RDS_RDMA_READWRITE | RDS_RDMA_NOTIFY_ME);

	r.data_len = 0;
	put_cmsg(&r, RDS_CMSG_MASKED_ATOMIC_CSWP, &at, sizeof(at));
	ck_assert_int_eq(conv(&r, &ev), 1);
	ck_assert_uint_eq(ev.u.sock.op, RG_SOCK_OP_RDMA_ATOMIC);
	ck_assert_uint_eq(ev.u.sock.cookie, 0x300000003ull);
	ck_assert_uint_eq(ev.u.sock.remote_addr, 64);

	r.data_len = 0;
	put_cmsg(&r, RDS_CMSG_RDMA_DEST, &dest, sizeof(dest));
	ck_assert_int_eq(conv(&r, &ev), 1);
	ck_assert_uint_eq(ev.u.sock.op, RG_SOCK_OP_RDMA_DEST);
	ck_assert_uint_eq(ev.u.sock.cookie, dest);

	/* no RDMA asked: not reported */
	r.data_len = 0;
	put_cmsg(&r, RDS_CMSG_CONG_UPDATE, &dest, sizeof(dest));
	ck_assert_int_eq(conv(&r, &ev), 0);
	{
		struct cmsghdr c = {.cmsg_len = CMSG_LEN(sizeof(fds)),
				    .cmsg_level = SOL_SOCKET,
				    .cmsg_type = RDS_CMSG_RDMA_ARGS};

		memset(r.data, 0, sizeof(r.data));
		memcpy(r.data, &c, sizeof(c));
		r.data_len = (uint32_t)CMSG_SPACE(sizeof(fds));
		ck_assert_int_eq(conv(&r, &ev), 0);
	}
}
END_TEST

START_TEST(test_json_round_trip)
{
	struct rg_rec_sock r = rec(RG_SOCK_SETSOCKOPT, AF_RDS, SOCK_SEQPACKET, 0);
	struct rds_get_mr_args mr = {.vec = {.addr = 0x7f0000001000ull, .bytes = 8192}};
	struct rg_event ev, back;
	struct json_object *o;
	char err[128];

	r.level = SOL_RDS;
	r.optname = RDS_GET_MR;
	memcpy(r.data, &mr, sizeof(mr));
	r.data_len = sizeof(mr);
	r.cookie = 77;
	ck_assert_int_eq(conv(&r, &ev), 1);
	o = event_to_json(&ev);
	ck_assert_str_eq(json_object_get_string(json_get_path(o, "event.action")), "rdma_socket");
	ck_assert_str_eq(json_object_get_string(json_get_path(o, "rdma.op")), "get_mr");
	ck_assert_str_eq(json_object_get_string(json_get_path(o, "rdma.socket.family")), "rds");
	ck_assert_int_eq(json_object_get_int64(json_get_path(o, "rdma.mr.cookie")), 77);
	ck_assert_ptr_null(json_get_path(o, "rdma.socket.transport"));
	memset(&back, 0, sizeof(back));
	ck_assert_int_eq(event_from_json(o, &back, err, sizeof(err)), 0);
	json_object_put(o);
	ck_assert_uint_eq(back.type, RG_EV_RDMA_SOCKET);
	ck_assert_uint_eq(back.u.sock.op, RG_SOCK_OP_GET_MR);
	ck_assert_uint_eq(back.u.sock.family, RG_SOCK_FAMILY_RDS);
	ck_assert_uint_eq(back.u.sock.mr_length, 8192);
	ck_assert_uint_eq(back.u.sock.mr_access, ev.u.sock.mr_access);
	ck_assert_uint_eq(back.u.sock.cookie, 77);

	r = rec(RG_SOCK_CONNECT, AF_SMC, SOCK_STREAM, 0);
	set_sin(&r, "192.0.2.2", 5000);
	ck_assert_int_eq(conv(&r, &ev), 1);
	o = event_to_json(&ev);
	ck_assert_str_eq(json_object_get_string(json_get_path(o, "rdma.peer.address")),
			 "192.0.2.2");
	ck_assert_int_eq(json_object_get_int(json_get_path(o, "rdma.peer.port")), 5000);
	memset(&back, 0, sizeof(back));
	ck_assert_int_eq(event_from_json(o, &back, err, sizeof(err)), 0);
	json_object_put(o);
	ck_assert_mem_eq(&back.u.sock.peer, &ev.u.sock.peer, sizeof(ev.u.sock.peer));
}
END_TEST

/* ---- limits ---- */

/* Every cut of a sendmsg's control bytes and of an option: nothing read past data_len, a cut
 * message flagged, never a wrong op. */
START_TEST(test_every_length)
{
	struct rg_rec_sock full = rec(RG_SOCK_SENDMSG, AF_RDS, SOCK_SEQPACKET, 0), r;
	struct rds_rdma_args ra = {.flags = RDS_RDMA_READWRITE};
	struct rds_get_mr_for_dest_args md = {.vec = {.bytes = 4096}};
	struct rg_event ev;

	put_cmsg(&full, RDS_CMSG_RDMA_ARGS, &ra, sizeof(ra));
	put_cmsg(&full, RDS_CMSG_RDMA_ARGS, &ra, sizeof(ra));
	for (uint32_t n = 0; n <= full.data_len; n++) {
		int ret;

		r = full;
		r.data_len = n;
		ret = conv(&r, &ev);
		if (n < CMSG_LEN(sizeof(ra))) {
			ck_assert_int_eq(ret, 0);
			ck_assert_uint_eq(ev.flags & RG_EVF_MALFORMED, 0);
			if (n >= sizeof(struct cmsghdr))
				ck_assert_uint_eq(ev.flags & RG_EVF_TRUNC, RG_EVF_TRUNC);
		} else {
			ck_assert_int_eq(ret, 1);
			ck_assert_uint_eq(ev.u.sock.op, RG_SOCK_OP_RDMA_WRITE);
			ck_assert_uint_eq(ev.u.sock.cmsgs, n == full.data_len ? 2 : 1);
			ck_assert_uint_eq(ev.flags, n == full.data_len ? 0 : RG_EVF_TRUNC);
		}
	}
	/* data_len larger than the buffer: clamped */
	r = full;
	r.data_len = 100000;
	ck_assert_int_eq(conv(&r, &ev), 1);

	r = rec(RG_SOCK_SETSOCKOPT, AF_RDS, SOCK_SEQPACKET, 0);
	r.level = SOL_RDS;
	r.optname = RDS_GET_MR_FOR_DEST;
	memcpy(r.data, &md, sizeof(md));
	r.optlen = sizeof(md);
	for (uint32_t n = 0; n < sizeof(md); n++) {
		r.data_len = n;
		ck_assert_int_eq(conv(&r, &ev), 1);
		ck_assert_uint_eq(ev.u.sock.op, RG_SOCK_OP_GET_MR_FOR_DEST);
		ck_assert_uint_eq(ev.flags, RG_EVF_TRUNC);
		ck_assert_uint_eq(ev.u.sock.mr_length, 0);
	}
}
END_TEST

/* ---- errors ---- */

START_TEST(test_bad_records)
{
	struct rg_rec_sock r = rec(RG_SOCK_SENDMSG, AF_RDS, SOCK_SEQPACKET, 0);
	struct cmsghdr c = {.cmsg_len = 8, .cmsg_level = SOL_RDS, .cmsg_type = RDS_CMSG_RDMA_ARGS};
	struct rg_event ev;

	ck_assert_int_eq(record_to_event(&r, sizeof(r) - 1, &ctx, &ev), -EBADMSG);
	/* cmsg_len below its own header: the kernel refuses it */
	memcpy(r.data, &c, sizeof(c));
	r.data_len = r.optlen = 64;
	ck_assert_int_eq(conv(&r, &ev), 0);
	ck_assert_uint_eq(ev.flags & RG_EVF_MALFORMED, RG_EVF_MALFORMED);
	/* cmsg_len past the control bytes, none cut: malformed */
	c.cmsg_len = 1000;
	memcpy(r.data, &c, sizeof(c));
	ck_assert_int_eq(conv(&r, &ev), 0);
	ck_assert_uint_eq(ev.flags & RG_EVF_MALFORMED, RG_EVF_MALFORMED);
	/* an RDMA_ARGS too short for its struct */
	c.cmsg_len = CMSG_LEN(8);
	memcpy(r.data, &c, sizeof(c));
	ck_assert_int_eq(conv(&r, &ev), 0);
	ck_assert_uint_eq(ev.flags & RG_EVF_MALFORMED, RG_EVF_MALFORMED);

	r = rec(RG_SOCK_SOCKET, AF_INET, SOCK_STREAM, IPPROTO_TCP); /* never sent */
	ck_assert_int_eq(conv(&r, &ev), -EBADMSG);
	r = rec(99, AF_RDS, SOCK_SEQPACKET, 0);
	ck_assert_int_eq(conv(&r, &ev), -EBADMSG);
	r = rec(RG_SOCK_SETSOCKOPT, AF_RDS, SOCK_SEQPACKET, 0);
	r.level = SOL_SOCKET;
	ck_assert_int_eq(conv(&r, &ev), -EBADMSG);
	/* an address of an unknown family, and one cut short */
	r = rec(RG_SOCK_CONNECT, AF_RDS, SOCK_SEQPACKET, 0);
	r.addr[0] = 99;
	r.addr_len = 16;
	ck_assert_int_eq(conv(&r, &ev), 1);
	ck_assert_uint_eq(ev.flags, RG_EVF_MALFORMED);
	set_sin(&r, "192.0.2.2", 1);
	r.addr_len = 5;
	ck_assert_int_eq(conv(&r, &ev), 1);
	ck_assert_uint_eq(ev.flags, RG_EVF_TRUNC);
	r.addr_len = 1000; /* clamped to the buffer */
	ck_assert_int_eq(conv(&r, &ev), 1);
	ck_assert_uint_eq(ev.flags, 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("sockets");
	TCase *core = tcase_create("core"), *limits = tcase_create("limits"),
	      *errors = tcase_create("errors");
	SRunner *sr;
	int failed;

	tcase_add_test(core, test_socket);
	tcase_add_test(core, test_addresses);
	tcase_add_test(core, test_options);
	tcase_add_test(core, test_sendmsg_cmsgs);
	tcase_add_test(core, test_json_round_trip);
	tcase_add_test(limits, test_every_length);
	tcase_add_test(errors, test_bad_records);
	suite_add_tcase(s, core);
	suite_add_tcase(s, limits);
	suite_add_tcase(s, errors);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
