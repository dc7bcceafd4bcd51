/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "event/event.h"
#include "event/event_json.h"

/* The names are part of the rule language and the alert schema: pin them. */
START_TEST(test_names)
{
	ck_assert_str_eq(event_type_to_string(RG_EV_VERBS), "verbs");
	ck_assert_int_eq(event_type_from_string("memory_access"), RG_EV_MEMORY_ACCESS);
	ck_assert_int_eq(event_type_from_string("bogus"), -EINVAL);
	ck_assert_ptr_null(event_type_to_string(RG_EV__MAX));
	ck_assert_str_eq(verbs_op_to_string(RG_OP_REG_MR), "reg_mr");
	ck_assert_str_eq(qp_type_to_string(2), "rc");
	ck_assert_str_eq(qp_type_to_string(4), "ud");
	ck_assert_ptr_null(qp_type_to_string(7));
	ck_assert_str_eq(qp_state_to_string(3), "rts");
	ck_assert_int_eq(cm_op_from_string("resolve_addr"), RG_CM_RESOLVE_ADDR);
	for (unsigned t = 1; t < RG_EV__MAX; t++)
		ck_assert_msg(event_type_to_string(t) != NULL, "type %u has no name", t);
}
END_TEST

START_TEST(test_gid)
{
	uint8_t gid[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 192, 0, 2, 7};
	char v4[16], s[64];
	struct rg_addr a;

	ck_assert(gid_to_ipv4(gid, v4));
	ck_assert_str_eq(v4, "192.0.2.7");
	gid_to_string(gid, s);
	ck_assert_str_eq(s, "::ffff:192.0.2.7");
	gid[0] = 0xfe;
	gid[1] = 0x80;
	ck_assert(!gid_to_ipv4(gid, v4));
	ck_assert_int_eq(addr_from_string("198.51.100.4", &a), 0);
	ck_assert_int_eq(a.family, AF_INET);
	addr_to_string(&a, s);
	ck_assert_str_eq(s, "198.51.100.4");
	ck_assert_int_eq(addr_from_string("300.1.1.1", &a), -EINVAL);
}
END_TEST

static void roundtrip(const struct rg_event *in, struct rg_event *out)
{
	struct json_object *o = event_to_json(in), *back;
	const char *txt;
	char err[256] = "";

	ck_assert_ptr_nonnull(o);
	txt = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
	back = json_tokener_parse(txt);
	ck_assert_ptr_nonnull(back);
	ck_assert_msg(event_from_json(back, out, err, sizeof(err)) == 0, "%s: %s", txt, err);
	json_object_put(o);
	json_object_put(back);
}

START_TEST(test_verbs_roundtrip)
{
	struct rg_event ev = {0}, out;
	struct json_object *o;

	ev.type = RG_EV_VERBS;
	ev.provider = RG_PROV_SENSOR;
	ev.seq = 42;
	ev.ts = 1764683789123456000ull;
	ev.proc.pid = 1234;
	ev.proc.tid = 1235;
	ev.proc.ppid = 1;
	ev.proc.uid = 1000;
	ev.proc.start_boot_ns = 5000000000ull;
	strcpy(ev.proc.comm, "ibv_rc_pingpong");
	ev.u.verbs.op = RG_OP_MODIFY_QP;
	ev.u.verbs.via = RG_VIA_INVOKE;
	ev.u.verbs.fd = 3;
	ev.u.verbs.qp_state = 2;
	ev.u.verbs.qp_attr_mask = 1 | 0x80;
	ev.u.verbs.dest_qp_num = 17;
	ev.u.verbs.dgid[10] = 0xff;
	ev.u.verbs.dgid[11] = 0xff;
	ev.u.verbs.dgid[12] = 192;
	ev.u.verbs.dgid[15] = 1;
	strcpy(ev.u.verbs.device, "rxe0");

	o = event_to_json(&ev);
	ck_assert_str_eq(json_object_get_string(json_get_path(o, "rdma.qp.state")), "rtr");
	ck_assert_str_eq(json_object_get_string(json_get_path(o, "rdma.peer.address")), "192.0.0.1");
	ck_assert_str_eq(json_object_get_string(json_get_path(o, "rdma.peer.gid")), "::ffff:192.0.0.1");
	ck_assert_str_eq(json_object_get_string(json_get_path(o, "event.action")), "verbs");
	ck_assert_str_eq(json_object_get_string(json_get_path(o, "@timestamp")),
			 "2025-12-02T13:56:29.123456Z");
	ck_assert_ptr_null(json_get_path(o, "rdma.mr"));
	json_object_put(o);

	roundtrip(&ev, &out);
	ck_assert_mem_eq(&ev, &out, sizeof(ev));

	memset(&ev.u, 0, sizeof(ev.u));
	ev.u.verbs.op = RG_OP_REG_MR;
	ev.u.verbs.via = RG_VIA_WRITE;
	ev.u.verbs.mr_addr = 0x7f0000001000ull;
	ev.u.verbs.mr_length = UINT64_MAX;
	ev.u.verbs.mr_access = RG_ACCESS_LOCAL_WRITE | RG_ACCESS_REMOTE_READ | RG_ACCESS_ON_DEMAND;
	ev.flags = RG_EVF_FAILED;
	ev.u.verbs.ret = -EPERM;
	o = event_to_json(&ev);
	ck_assert_str_eq(json_object_to_json_string_ext(json_get_path(o, "rdma.mr"), JSON_C_TO_STRING_PLAIN),
			 "{\"addr\":139637976731648,\"length\":18446744073709551615,"
			 "\"access\":[\"local_write\",\"remote_read\",\"on_demand\"]}");
	ck_assert_int_eq(json_object_get_int(json_get_path(o, "rdma.ret")), -EPERM);
	json_object_put(o);
	roundtrip(&ev, &out);
	ck_assert_mem_eq(&ev, &out, sizeof(ev));
}
END_TEST

START_TEST(test_exec_cm_roundtrip)
{
	struct rg_event ev = {0}, out;
	static const char args[] = "ib_write_bw\0-d\0rxe0\0" "192.0.2.1";

	ev.type = RG_EV_EXEC;
	ev.provider = RG_PROV_SENSOR;
	ev.proc.pid = 7;
	strcpy(ev.u.exec.exe, "/usr/bin/ib_write_bw");
	memcpy(ev.u.exec.args, args, sizeof(args));
	ev.u.exec.args_len = sizeof(args);
	ev.u.exec.parent_start_boot_ns = 10;
	roundtrip(&ev, &out);
	ck_assert_mem_eq(&ev, &out, sizeof(ev));

	memset(&ev, 0, sizeof(ev));
	ev.type = RG_EV_RDMA_CM;
	ev.provider = RG_PROV_SENSOR;
	ev.u.cm.op = RG_CM_RESOLVE_ADDR;
	ev.u.cm.port_space = 0x106;
	ck_assert_int_eq(addr_from_string("192.0.2.1", &ev.u.cm.dst), 0);
	ev.u.cm.dst.port = 7174;
	ck_assert_int_eq(addr_from_string("2001:db8::1", &ev.u.cm.src), 0);
	roundtrip(&ev, &out);
	ck_assert_mem_eq(&ev, &out, sizeof(ev));
}
END_TEST

/* Arguments that fill the whole buffer (the last one without a NUL) survive the JSON round trip. */
START_TEST(test_args_fill_buffer)
{
	struct rg_event ev, back;
	struct json_object *j;
	char err[256];

	memset(&ev, 0, sizeof(ev));
	ev.type = RG_EV_EXEC;
	ev.proc.pid = 7;
	memset(ev.u.exec.args, 'a', sizeof(ev.u.exec.args));
	ev.u.exec.args[9] = 0; /* "aaaaaaaaa" then one argument up to the end */
	ev.u.exec.args_len = sizeof(ev.u.exec.args);
	j = event_to_json(&ev);
	ck_assert_ptr_nonnull(j);
	ck_assert_int_eq(event_from_json(j, &back, err, sizeof(err)), 0);
	ck_assert_uint_eq(back.u.exec.args_len, sizeof(ev.u.exec.args));
	ck_assert_mem_eq(back.u.exec.args, ev.u.exec.args, sizeof(ev.u.exec.args));
	ck_assert_uint_eq(back.flags & RG_EVF_TRUNC, 0);
	json_object_put(j);
}
END_TEST

START_TEST(test_bad_json)
{
	struct rg_event ev;
	char err[256];
	struct json_object *o;

	o = json_tokener_parse("{\"event\":{\"action\":\"verbs\"},\"rdma\":{\"mr\":{\"length\":\"big\"}}}");
	ck_assert_int_eq(event_from_json(o, &ev, err, sizeof(err)), -EINVAL);
	ck_assert_str_eq(err, "rdma.mr.length: expected an unsigned 64-bit integer");
	json_object_put(o);

	o = json_tokener_parse("{\"event\":{\"action\":\"nope\"}}");
	ck_assert_int_eq(event_from_json(o, &ev, err, sizeof(err)), -EINVAL);
	ck_assert_str_eq(err, "event.action: unknown event type \"nope\"");
	json_object_put(o);

	o = json_tokener_parse("{\"event\":{\"action\":\"verbs\"},\"process\":{\"pid\":-1}}");
	ck_assert_int_eq(event_from_json(o, &ev, err, sizeof(err)), -EINVAL);
	json_object_put(o);

	o = json_tokener_parse("{\"event\":{\"action\":\"verbs\"},\"rdma\":{\"mr\":{\"access\":[\"x\"]}}}");
	ck_assert_int_eq(event_from_json(o, &ev, err, sizeof(err)), -EINVAL);
	ck_assert_str_eq(err, "rdma.mr.access[0]: unknown access flag \"x\"");
	json_object_put(o);
}
END_TEST

START_TEST(test_field_table)
{
	const struct event_field *f;

	f = event_field_find(RG_EV_VERBS, "rdma.mr.length");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(f->kind, EFK_U64);
	f = event_field_find(RG_EV_MR_PRESENT, "rdma.mr.length");
	ck_assert_ptr_nonnull(f);
	ck_assert_ptr_nonnull(event_field_find(RG_EV_EXIT, "process.pid"));
	ck_assert_ptr_null(event_field_find(RG_EV_EXIT, "rdma.mr.length"));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("event");
	TCase *core = tcase_create("core"), *errors = tcase_create("errors");
	SRunner *sr;
	int failed;

	tcase_add_test(core, test_names);
	tcase_add_test(core, test_gid);
	tcase_add_test(core, test_verbs_roundtrip);
	tcase_add_test(core, test_exec_cm_roundtrip);
	tcase_add_test(core, test_field_table);
	tcase_add_test(core, test_args_fill_buffer);
	tcase_add_test(errors, test_bad_json);
	suite_add_tcase(s, core);
	suite_add_tcase(s, errors);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
