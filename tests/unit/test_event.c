/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <arpa/inet.h>
#include <check.h>
#include <json-c/json.h>
#include <stdbool.h>
#include <stdio.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "common/macro.h"
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

/* event_set_str() against a byte-at-a-time copy: control characters and DEL become '?', a NUL
 * ends the string, the size bounds it; every length to 30 and every position. */
START_TEST(test_set_str)
{
	static const unsigned char bytes[] = {0x00, 0x01, 0x1f, 0x7f, 0x20, 0x80, 0xff, 'x'};
	char src[32], dst[40], want[40], *exact;
	size_t n, at, k, size, i;

	for (n = 0; n <= 30; n++)
		for (at = 0; at <= n; at++)
			for (k = 0; k < sizeof(bytes); k++)
				for (size = 1; size <= 34; size += 11) {
					size_t len;

					for (i = 0; i < n; i++)
						src[i] = (char)('a' + i % 26);
					if (at < n)
						src[at] = (char)bytes[k];
					len = strnlen(src, MIN(n, size - 1));
					for (i = 0; i < len; i++)
						want[i] = (unsigned char)src[i] < 0x20 ||
								  src[i] == 0x7f ? '?' : src[i];
					want[len] = 0;
					memset(dst, 'Z', sizeof(dst));
					event_set_str(dst, size, src, n);
					ck_assert_msg(memcmp(dst, want, len + 1) == 0,
						      "n %zu, 0x%02x at %zu, size %zu", n, bytes[k],
						      at, size);
					ck_assert_int_eq(dst[len + 1], 'Z'); /* nothing past it */
					/* src alone in a block of n bytes: a read past them
					 * fails the sanitizer build */
					exact = malloc(n ? n : 1);
					ck_assert_ptr_nonnull(exact);
					memcpy(exact, src, n);
					memset(dst, 'Z', sizeof(dst));
					event_set_str(dst, size, exact, n);
					free(exact);
					ck_assert(memcmp(dst, want, len + 1) == 0);
				}
}
END_TEST

START_TEST(test_gid)
{
	uint8_t gid[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 192, 0, 2, 7};
	char v4[16], s[64];
	struct rg_addr a;

	ck_assert(gid_to_ipv4(gid, v4));
	ck_assert_str_eq(v4, "192.0.2.7");
	/* Every byte value in every place, as inet_ntop() writes them. */
	for (int place = 12; place < 16; place++)
		for (int v = 0; v < 256; v++) {
			uint8_t g[16];
			char want[16];

			memcpy(g, gid, 16);
			g[place] = (uint8_t)v;
			g[(place - 12 + 1) % 4 + 12] = (uint8_t)(255 - v);
			ck_assert_ptr_nonnull(inet_ntop(AF_INET, g + 12, want, sizeof(want)));
			ck_assert(gid_to_ipv4(g, v4));
			ck_assert_str_eq(v4, want);
		}
	memset(v4, 'x', sizeof(v4));
	gid[12] = gid[13] = gid[14] = gid[15] = 255;
	ck_assert(gid_to_ipv4(gid, v4));
	ck_assert_str_eq(v4, "255.255.255.255"); /* the longest: 15 bytes and the NUL */
	gid[12] = 192, gid[13] = 0, gid[14] = 2, gid[15] = 7;
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
	/* An AF_IB address holding an IPv4-mapped GID (RoCE v2) reads as the IPv4 address, as
	 * AF_INET6 and the rule engine show it, so the JSON round trip keeps it (fuzzing) */
	a.family = 27;
	memcpy(a.addr, (uint8_t[16]){[10] = 0xff, [11] = 0xff, 192, 0, 2, 9}, 16);
	addr_to_string(&a, s);
	ck_assert_str_eq(s, "192.0.2.9");
	a.addr[0] = 0xfe;
	a.addr[1] = 0x80;
	addr_to_string(&a, s);
	ck_assert_str_eq(s, "fe80::ffff:c000:209");
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

/* What json-c (strict) says of a line: an object that takes the whole line, or not. */
static bool jsonc_accepts(const char *text)
{
	struct json_tokener *tok = json_tokener_new();
	struct json_object *o;
	bool ok;
	size_t len = strlen(text), end;

	json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
	o = json_tokener_parse_ex(tok, text, (int)len);
	if (!o && json_tokener_get_error(tok) == json_tokener_continue)
		o = json_tokener_parse_ex(tok, "", 1); /* the end of the line ends a number */
	end = json_tokener_get_parse_end(tok);
	ok = o && json_object_is_type(o, json_type_object) &&
	     strspn(text + MIN(end, len), " \t\r\n") == len - MIN(end, len);
	json_object_put(o);
	json_tokener_free(tok);
	return ok;
}

/* The reader's verdict on the syntax: 1 valid (whatever the fields say), 0 a syntax error at
 * *col. */
static int reads(struct event_reader *r, const char *text, size_t *col, char *err)
{
	struct rg_event ev;
	int ret = event_reader_read(r, text, strlen(text), &ev, col, err, 256);

	return ret == 0 || *col == 0;
}

/*
 * RFC 8259 syntax, the reader against the expectation and against json-c's strict parser on
 * the same lines (the oracle), with the column of the first byte at fault. The reader is the
 * stricter: json-c's strict mode still takes single quotes, "1.", NaN and raw control
 * characters in strings (marked jsonc_lax); replay refuses them now.
 */
START_TEST(test_reader_syntax)
{
	static const struct {
		const char *text;
		int valid;
		size_t col;  /* of the error */
		bool jsonc_lax; /* json-c's strict mode takes it all the same */
	} cases[] = {
		{"{}", 1, 0},
		{" \t{ } \r\n", 1, 0},
		{"{\"a\":1}", 1, 0},
		{"{\"a\":[1,2.5e3,-0,0.5E-2,1e+9,true,false,null,\"x\\u00e9\\ud83d\\ude00\"]}", 1, 0},
		{"{\"a\":{\"b\":{\"c\":[[],{}]}},\"a\":2}", 1, 0},
		{"{\"\\\"\\\\\\/\\b\\f\\n\\r\\t\":\"\\u0041\"}", 1, 0},
		{"{\"a\":\"\xc3\xa9 \xff bytes as they are\"}", 1, 0},
		{"{\"a\":-9223372036854775808,\"b\":18446744073709551615,\"c\":1e400}", 1, 0},
		{"{\"a\":1,}", 0, 8},
		{"{\"a\" 1}", 0, 6},
		{"{a:1}", 0, 2},
		{"{'a':1}", 0, 2, true},
		{"{\"a\":01}", 0, 7},
		{"{\"a\":1.}", 0, 8, true},
		{"{\"a\":.5}", 0, 6},
		{"{\"a\":+1}", 0, 6},
		{"{\"a\":-}", 0, 7},
		{"{\"a\":1e}", 0, 8},
		{"{\"a\":tru}", 0, 6},
		{"{\"a\":nul}", 0, 6},
		{"{\"a\":NaN}", 0, 6, true},
		{"{\"a\":\"\\x\"}", 0, 8},
		{"{\"a\":\"\\u12\"}", 0, 11},
		{"{\"a\":\"\\u12g4\"}", 0, 11},
		{"{\"a\":\"tab\there\"}", 0, 10, true},
		{"{\"a\":1}}", 0, 8},
		{"{\"a\":1} x", 0, 9},
		{"{\"a\":[1,]}", 0, 9},
		{"{\"a\":[,1]}", 0, 7},
		{"{\"a\":1 \"b\":2}", 0, 8},
		{"{\"a\":1,,\"b\":2}", 0, 8},
		{"{\"a\"}", 0, 5},
		{"{\"a\":}", 0, 6},
		{"{", 0, 2},
		{"{\"a\":\"x", 0, 8},
		{"[1]", 0, 1},
		{"\"x\"", 0, 1},
		{"", 0, 1},
		{"x", 0, 1},
	};
	struct event_reader *r;
	char err[256];
	size_t i, col;

	ck_assert_int_eq(event_reader_new(4096, &r), 0);
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		int got = reads(r, cases[i].text, &col, err);

		ck_assert_msg(got == cases[i].valid, "%s: reader says %s (%s)", cases[i].text,
			      got ? "valid" : "invalid", got ? "" : err);
		if (!got)
			ck_assert_msg(col == cases[i].col, "%s: column %zu, expected %zu (%s)",
				      cases[i].text, col, cases[i].col, err);
		ck_assert_msg(jsonc_accepts(cases[i].text) == (cases[i].valid || cases[i].jsonc_lax),
			      "%s: json-c's verdict changed", cases[i].text);
	}
	/* Nesting: 32 levels of arrays below the object read, 40 do not. */
	{
		char deep[128];

		memset(deep, 0, sizeof(deep));
		strcpy(deep, "{\"a\":");
		memset(deep + 5, '[', 30);
		memset(deep + 35, ']', 30);
		strcat(deep, "}");
		ck_assert_int_eq(reads(r, deep, &col, err), 1);
		memset(deep, 0, sizeof(deep));
		strcpy(deep, "{\"a\":");
		memset(deep + 5, '[', 40);
		memset(deep + 45, ']', 40);
		strcat(deep, "}");
		ck_assert_int_eq(reads(r, deep, &col, err), 0);
		ck_assert_str_eq(err, "nesting too deep");
	}
	/* Longer than the reader was made for. */
	{
		static char big[5000];
		struct rg_event ev;

		memset(big, ' ', sizeof(big) - 1);
		big[0] = '{';
		big[sizeof(big) - 2] = '}';
		ck_assert_int_eq(event_reader_read(r, big, strlen(big), &ev, &col, err, sizeof(err)),
				 -E2BIG);
	}
	event_reader_free(r);
}
END_TEST

static int read_one(struct event_reader *r, const char *t, struct rg_event *ev, size_t *col,
		    char *err)
{
	return event_reader_read(r, t, strlen(t), ev, col, err, 256);
}

/* Values: escapes to UTF-8, numbers at the edges of their fields, what is ignored, what wins. */
START_TEST(test_reader_values)
{
	struct event_reader *r;
	struct rg_event ev;
	char err[256];
	size_t col;

#define READ(text) read_one(r, (text), &ev, &col, err)
	ck_assert_int_eq(event_reader_new(4096, &r), 0);
	/* \u escapes: BMP, a surrogate pair, a lone surrogate (U+FFFD), \u0000 ends the string. */
	ck_assert_int_eq(READ("{\"event\":{\"action\":\"exec\"},\"process\":{\"name\":"
			      "\"\\u00e9\\ud83d\\ude00\\udc00x\",\"executable\":\"/a\\u0000b\"}}"),
			 0);
	ck_assert_str_eq(ev.proc.comm, "\xc3\xa9\xf0\x9f\x98\x80\xef\xbf\xbdx");
	ck_assert_str_eq(ev.u.exec.exe, "/a");
	/* Unsigned 64-bit edges; a negative or fractional value where an unsigned one goes. */
	ck_assert_int_eq(READ("{\"event\":{\"action\":\"verbs\"},\"rdma\":{\"mr\":"
			      "{\"length\":18446744073709551615}}}"),
			 0);
	ck_assert_uint_eq(ev.u.verbs.mr_length, UINT64_MAX);
	ck_assert_int_eq(READ("{\"event\":{\"action\":\"verbs\"},\"rdma\":{\"mr\":"
			      "{\"length\":18446744073709551616}}}"),
			 -EINVAL);
	ck_assert_str_eq(err, "rdma.mr.length: expected an unsigned 64-bit integer");
	ck_assert_uint_eq(col, 0);
	ck_assert_int_eq(READ("{\"event\":{\"action\":\"verbs\"},\"rdma\":{\"mr\":{\"length\":1.0}}}"),
			 -EINVAL);
	ck_assert_int_eq(READ("{\"event\":{\"action\":\"verbs\"},\"rdma\":{\"mr\":{\"length\":-0}}}"),
			 0);
	ck_assert_int_eq(READ("{\"event\":{\"action\":\"verbs\"},\"rdma\":{\"ret\":-2147483648},"
			      "\"event\":{\"action\":\"verbs\",\"flags\":[\"failed\"]}}"),
			 0);
	ck_assert_int_eq(ev.u.verbs.ret, INT32_MIN);
	ck_assert_int_eq(READ("{\"event\":{\"action\":\"verbs\",\"flags\":[\"failed\"]},"
			      "\"rdma\":{\"ret\":-2147483649}}"),
			 -EINVAL);
	ck_assert_str_eq(err, "rdma.ret: out of range");
	/* Unsigned 32-bit edges (read without field_from_jv's call where they fit). */
	ck_assert_int_eq(READ("{\"event\":{\"action\":\"exec\"},\"process\":{\"pid\":4294967295}}"),
			 0);
	ck_assert_uint_eq(ev.proc.pid, UINT32_MAX);
	ck_assert_int_eq(READ("{\"event\":{\"action\":\"exec\"},\"process\":{\"pid\":4294967296}}"),
			 -EINVAL);
	ck_assert_str_eq(err, "process.pid: expected an unsigned 32-bit integer");
	ck_assert_int_eq(READ("{\"event\":{\"action\":\"exec\"},\"process\":{\"pid\":-1}}"),
			 -EINVAL);
	ck_assert_str_eq(err, "process.pid: expected an unsigned 32-bit integer");
	ck_assert_int_eq(READ("{\"event\":{\"action\":\"exec\"},\"process\":{\"pid\":-0}}"), 0);
	ck_assert_uint_eq(ev.proc.pid, 0);
	ck_assert_int_eq(READ("{\"event\":{\"action\":\"exec\"},\"process\":{\"pid\":7.0}}"),
			 -EINVAL);
	ck_assert_int_eq(READ("{\"event\":{\"action\":\"exec\"},\"process\":{\"name\":5}}"),
			 -EINVAL);
	ck_assert_str_eq(err, "process.name: expected a string");
	ck_assert_int_eq(READ("{\"event\":{\"action\":\"verbs\"},\"rdma\":{\"mr\":"
			      "{\"length\":-1}}}"),
			 -EINVAL);
	/* A field given an object or an array of the wrong things is refused, not skipped. */
	ck_assert_int_eq(READ("{\"event\":{\"action\":\"exec\"},\"process\":{\"pid\":{\"x\":1}}}"),
			 -EINVAL);
	ck_assert_str_eq(err, "process.pid: expected an unsigned 32-bit integer");
	ck_assert_int_eq(READ("{\"event\":{\"action\":\"exec\"},\"process\":{\"args\":[\"a\",1]}}"),
			 -EINVAL);
	ck_assert_str_eq(err, "process.args[1]: expected a string");
	/* Unknown members, keys with dots, fields of other event types, nulls: ignored. The
	 * last of two equal keys wins. The type may come last. */
	ck_assert_int_eq(READ("{\"process.pid\":7,\"x\":{\"process\":{\"pid\":8}},\"process\":"
			      "{\"pid\":5,\"pid\":6,\"name\":null},\"rdma\":{\"mr\":{\"length\":"
			      "\"not checked: not a field of exit\"}},\"event\":{\"action\":\"exit\"}}"),
			 0);
	ck_assert_uint_eq(ev.type, RG_EV_EXIT);
	ck_assert_uint_eq(ev.proc.pid, 6);
	ck_assert_str_eq(ev.proc.comm, "");
	/* An object met again replaces the first one whole (json-c's rule), whatever it is. */
	ck_assert_int_eq(READ("{\"event\":{\"action\":\"exec\"},\"process\":{\"pid\":5,"
			      "\"executable\":\"/x\",\"parent\":{\"pid\":2}},\"process\":{\"pid\":6}}"),
			 0);
	ck_assert_uint_eq(ev.proc.pid, 6);
	ck_assert_str_eq(ev.u.exec.exe, "");
	ck_assert_uint_eq(ev.proc.ppid, 0);
	ck_assert_int_eq(READ("{\"event\":{\"action\":\"exec\"},\"process\":{\"pid\":5},"
			      "\"process\":7}"),
			 0);
	ck_assert_uint_eq(ev.proc.pid, 0);
	ck_assert_int_eq(READ("{\"event\":{\"action\":\"exec\"},\"process\":{\"parent\":"
			      "{\"pid\":2},\"parent\":{}}}"),
			 0);
	ck_assert_uint_eq(ev.proc.ppid, 0);
	/* Nothing of one line stays for the next. */
	ck_assert_int_eq(READ("{\"event\":{\"action\":\"exit\"}}"), 0);
	ck_assert_uint_eq(ev.proc.pid, 0);
	ck_assert_int_eq(READ("{\"process\":{\"pid\":1}}"), -EINVAL);
	ck_assert_str_eq(err, "event.action: missing");
	/* rdma.qp.state present sets the attribute mask's state bit, as before. */
	ck_assert_int_eq(READ("{\"event\":{\"action\":\"verbs\"},\"rdma\":{\"op\":\"modify_qp\","
			      "\"qp\":{\"state\":\"rts\"}}}"),
			 0);
	ck_assert_uint_eq(ev.u.verbs.qp_attr_mask & 1, 1);
#undef READ
	event_reader_free(r);
}
END_TEST

/*
 * Numbers of every length from 1 to 21 digits, read 8 digits at a time where 16 bytes follow
 * and a byte at a time where they do not (the end of the line), against strtoull; the bytes
 * just below '0' and above '9' after them are syntax errors at the same column either way.
 */
START_TEST(test_reader_numbers)
{
	static const char *const tails[] = {"", ",\"pad\":\"0123456789abcdef0123\""};
	struct event_reader *r;
	struct rg_event ev;
	char line[256], digits[32], err[256];
	size_t col;
	unsigned seed = 7;

	ck_assert_int_eq(event_reader_new(4096, &r), 0);
	for (int len = 1; len <= 21; len++)
		for (int pattern = 0; pattern < 4; pattern++)
			for (size_t t = 0; t < ARRAY_SIZE(tails); t++) {
				unsigned long long want;
				int n, ret;
				bool fits;

				for (int i = 0; i < len; i++) {
					seed = seed * 1103515245u + 12345u;
					digits[i] = pattern == 0   ? '9'
						    : pattern == 1 ? (char)('0' + (i % 10))
						    : pattern == 2 ? (i ? '0' : '1')
								   : (char)('0' + (seed >> 16) % 10);
				}
				if (digits[0] == '0' && len > 1)
					digits[0] = '5';
				digits[len] = 0;
				errno = 0;
				want = strtoull(digits, NULL, 10);
				fits = errno != ERANGE;
				n = snprintf(line, sizeof(line),
					     "{\"event\":{\"action\":\"verbs\"},\"rdma\":{\"mr\":"
					     "{\"length\":%s}}%s}",
					     digits, tails[t]);
				ck_assert_int_lt(n, (int)sizeof(line));
				ret = event_reader_read(r, line, (size_t)n, &ev, &col, err, sizeof(err));
				if (fits) {
					ck_assert_msg(ret == 0, "%s: %s", line, err);
					ck_assert_msg(ev.u.verbs.mr_length == want, "%s: read %llu",
						      line, (unsigned long long)ev.u.verbs.mr_length);
				} else {
					ck_assert_int_eq(ret, -EINVAL);
					ck_assert_str_eq(err, "rdma.mr.length: expected an unsigned "
							      "64-bit integer");
				}
				/* '/' and ':' (either side of the digits) right after them */
				for (int b = 0; b < 2; b++) {
					char *at = strstr(line, digits) + len;
					size_t want_col = (size_t)(at - line) + 1;

					memmove(at + 1, at, strlen(at) + 1);
					*at = b ? ':' : '/';
					ret = event_reader_read(r, line, strlen(line), &ev, &col, err,
								sizeof(err));
					ck_assert_msg(ret == -EINVAL && col == want_col,
						      "%s: %d at %zu (%s)", line, ret, col, err);
					memmove(at, at + 1, strlen(at + 1) + 1);
				}
			}
	event_reader_free(r);
}
END_TEST

/* The reader guesses each member name from the line before: lines whose members come in
 * another order, or with names it does not know between them, read the same. */
START_TEST(test_reader_key_order)
{
	static const char *const lines[] = {
		"{\"event\":{\"action\":\"exec\"},\"process\":{\"pid\":5,\"name\":\"a\","
		"\"parent\":{\"pid\":2},\"executable\":\"/x\"}}",
		"{\"process\":{\"executable\":\"/x\",\"parent\":{\"pid\":2},\"name\":\"a\","
		"\"pid\":5},\"event\":{\"action\":\"exec\"}}",
		"{\"event\":{\"x\":1,\"action\":\"exec\"},\"process\":{\"pid\":5,\"nam\":1,"
		"\"name\":\"a\",\"parent\":{\"q\":[],\"pid\":2},\"y\":{},\"executable\":\"/x\"}}",
		"{\"event\":{\"action\":\"exec\"},\"process\":{\"pid\":5,\"name\":\"a\","
		"\"parent\":{\"pid\":2},\"executable\":\"/x\"}}",
		"{\"event\":{\"action\":\"exec\"},\"process\":{\"pid\":5,\"name\":\"a\","
		"\"parent\":{\"pid\":2},\"executablE\":\"/y\",\"executable\":\"/x\"}}",
		/* names that begin with the guessed one, or share its first 8 bytes */
		"{\"event\":{\"action\":\"exec\"},\"process\":{\"pid\":5,\"namex\":\"b\",\"name\":"
		"\"a\",\"parent\":{\"pid\":2},\"executabl\":\"/z\",\"executable\":\"/x\"}}",
		"{\"event\":{\"action\":\"exec\"},\"process\":{\"pid\":5,\"name\":\"a\","
		"\"parent\":{\"pid\":2},\"executabla\":\"/y\",\"executable\":\"/x\"}}",
	};
	struct event_reader *r;
	struct rg_event ev;
	char err[256];
	size_t col;

	ck_assert_int_eq(event_reader_new(4096, &r), 0);
	for (int round = 0; round < 2; round++)
		for (size_t i = 0; i < ARRAY_SIZE(lines); i++) {
			ck_assert_msg(read_one(r, lines[i], &ev, &col, err) == 0, "%s: %s", lines[i],
				      err);
			ck_assert_uint_eq(ev.type, RG_EV_EXEC);
			ck_assert_uint_eq(ev.proc.pid, 5);
			ck_assert_uint_eq(ev.proc.ppid, 2);
			ck_assert_str_eq(ev.proc.comm, "a");
			ck_assert_str_eq(ev.u.exec.exe, "/x");
		}
	/* Where "executable" is expected, a name that differs past its first 8 bytes is not it. */
	ck_assert_int_eq(read_one(r, lines[0], &ev, &col, err), 0);
	ck_assert_int_eq(read_one(r,
				  "{\"event\":{\"action\":\"exec\"},\"process\":{\"pid\":5,\"name\":"
				  "\"a\",\"parent\":{\"pid\":2},\"executabla\":\"/y\"}}",
				  &ev, &col, err),
			 0);
	ck_assert_str_eq(ev.u.exec.exe, "");
	event_reader_free(r);
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
	tcase_add_test(core, test_set_str);
	tcase_add_test(core, test_verbs_roundtrip);
	tcase_add_test(core, test_exec_cm_roundtrip);
	tcase_add_test(core, test_field_table);
	tcase_add_test(core, test_args_fill_buffer);
	tcase_add_test(errors, test_bad_json);
	tcase_add_test(errors, test_reader_syntax);
	tcase_add_test(core, test_reader_values);
	tcase_add_test(core, test_reader_numbers);
	tcase_add_test(core, test_reader_key_order);
	suite_add_tcase(s, core);
	suite_add_tcase(s, errors);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
