/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * common/jsonw: the alert writer. Its text must be byte for byte what json-c writes for the same
 * document (JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE): each test builds the
 * document both ways and compares, including every byte value in strings and keys, replaced keys,
 * nesting and random documents.
 */
#include <check.h>
#include <errno.h>
#include <json-c/json.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/jsonw.h"
#include "event/ecs_map.h"
#include "event/event_json.h"

static const char *jc_text(struct json_object *o)
{
	return json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
						      JSON_C_TO_STRING_NOSLASHESCAPE);
}

static void same(struct jw *w, struct json_object *o)
{
	const char *text;
	size_t len;

	ck_assert_int_eq(jw_finish(w, &text, &len), 0);
	ck_assert_uint_eq(strlen(text), len);
	ck_assert_str_eq(text, jc_text(o));
}

START_TEST(test_scalars)
{
	struct jw *w = jw_new();
	struct json_object *o = json_object_new_object();
	static const int64_t ints[] = {0, 1, -1, 42, INT32_MIN, INT32_MAX, INT64_MIN, INT64_MAX};
	static const char *const keys[] = {"a", "b", "c", "d", "e", "f", "g", "h"};
	size_t i;

	ck_assert_ptr_nonnull(w);
	same(w, o); /* {} */
	for (i = 0; i < 8; i++) {
		jw_int(w, JW_ROOT, keys[i], ints[i]);
		json_object_object_add(o, keys[i], json_object_new_int64(ints[i]));
	}
	jw_uint(w, JW_ROOT, "u", UINT64_MAX);
	json_object_object_add(o, "u", json_object_new_uint64(UINT64_MAX));
	jw_bool(w, JW_ROOT, "t", true);
	json_object_object_add(o, "t", json_object_new_boolean(1));
	jw_bool(w, JW_ROOT, "f", false);
	json_object_object_add(o, "f", json_object_new_boolean(0));
	jw_string(w, JW_ROOT, "s", "");
	json_object_object_add(o, "s", json_object_new_string(""));
	jw_new_array(w, JW_ROOT, "empty");
	json_object_object_add(o, "empty", json_object_new_array());
	jw_new_object(w, JW_ROOT, "eo");
	json_object_object_add(o, "eo", json_object_new_object());
	same(w, o);
	json_object_put(o);
	jw_free(w);
}
END_TEST

/* Every byte value 1..255 in a value and in a key, alone and in runs around the 8-byte words the
 * writer scans at a time. */
START_TEST(test_escapes)
{
	struct jw *w = jw_new();
	char s[600], key[4];
	int c, pos;

	for (c = 1; c < 256; c++) {
		for (pos = 0; pos < 19; pos += 3) {
			struct json_object *o = json_object_new_object();

			memset(s, 'x', (size_t)pos + 20);
			s[pos] = (char)c;
			s[pos + 20] = 0;
			key[0] = 'k';
			key[1] = (char)c;
			key[2] = 0;
			jw_reset(w);
			jw_string(w, JW_ROOT, key, s);
			json_object_object_add(o, key, json_object_new_string(s));
			same(w, o);
			json_object_put(o);
		}
	}
	/* Short names and values (written without jw_escape where they need no escape): every
	 * length to 17, every byte value at every place, as the value and as the name. */
	for (size_t len = 1; len <= 17; len++)
		for (size_t at = 0; at < len; at++)
			for (c = 1; c < 256; c++) {
				struct json_object *o = json_object_new_object();

				memset(s, 'a', len);
				s[at] = (char)c;
				s[len] = 0;
				jw_reset(w);
				jw_string(w, JW_ROOT, s, s);
				json_object_object_add(o, s, json_object_new_string(s));
				same(w, o);
				json_object_put(o);
			}
	/* All of them in one string, and a string of nothing but escapes. */
	for (c = 1; c < 256; c++)
		s[c - 1] = (char)c;
	s[255] = 0;
	{
		struct json_object *o = json_object_new_object();

		jw_reset(w);
		jw_string(w, JW_ROOT, "all", s);
		json_object_object_add(o, "all", json_object_new_string(s));
		memset(s, '\n', 300);
		s[300] = 0;
		jw_string(w, JW_ROOT, "nl", s);
		json_object_object_add(o, "nl", json_object_new_string(s));
		/* Bytes are bytes: a NUL inside a counted string is written as \u0000. */
		jw_string_len(w, JW_ROOT, "nul", "a\0b", 3);
		json_object_object_add(o, "nul", json_object_new_string_len("a\0b", 3));
		same(w, o);
		json_object_put(o);
	}
	jw_free(w);
}
END_TEST

/* A key set again keeps its place and takes the new value (json-c's object_add); a container
 * set again starts empty; jw_object keeps an existing object, replaces anything else. */
START_TEST(test_replace)
{
	struct jw *w = jw_new();
	struct json_object *o = json_object_new_object(), *p, *q;
	jw_node a, b;

	jw_int(w, JW_ROOT, "x", 1);
	a = jw_object(w, JW_ROOT, "p");
	jw_int(w, a, "k", 1);
	jw_string(w, JW_ROOT, "y", "old");
	jw_int(w, JW_ROOT, "x", 2);			  /* replaced in place */
	b = jw_object(w, JW_ROOT, "p");			  /* the same object */
	ck_assert_uint_eq(a, b);
	jw_int(w, b, "l", 2);
	jw_string(w, JW_ROOT, "y", "new");
	b = jw_new_array(w, JW_ROOT, "y");		  /* a string becomes an array */
	jw_int(w, b, NULL, 7);
	b = jw_object(w, JW_ROOT, "x");			  /* an int becomes an object */
	jw_bool(w, b, "z", true);
	b = jw_new_object(w, jw_object(w, JW_ROOT, "p"), "q");
	jw_int(w, b, "gone", 1);
	b = jw_new_object(w, jw_object(w, JW_ROOT, "p"), "q"); /* emptied */
	jw_int(w, b, "kept", 1);

	q = json_object_new_object();
	json_object_object_add(q, "z", json_object_new_boolean(1));
	json_object_object_add(o, "x", q);
	p = json_object_new_object();
	json_object_object_add(p, "k", json_object_new_int(1));
	json_object_object_add(p, "l", json_object_new_int(2));
	q = json_object_new_object();
	json_object_object_add(q, "kept", json_object_new_int(1));
	json_object_object_add(p, "q", q);
	json_object_object_add(o, "p", p);
	q = json_object_new_array();
	json_object_array_add(q, json_object_new_int(7));
	json_object_object_add(o, "y", q);
	same(w, o);

	/* Dotted paths make the objects on the way. */
	jw_reset(w);
	{
		const char *leaf;
		jw_node n = jw_path(w, JW_ROOT, "process.parent.pid", &leaf);

		ck_assert_str_eq(leaf, "pid");
		jw_int(w, n, leaf, 5);
		n = jw_path(w, JW_ROOT, "process.name", &leaf);
		jw_string(w, n, leaf, "x");
		n = jw_path(w, JW_ROOT, "top", &leaf);
		ck_assert_uint_eq(n, JW_ROOT);
		jw_int(w, n, leaf, 1);
	}
	json_object_put(o);
	o = json_tokener_parse("{\"process\":{\"parent\":{\"pid\":5},\"name\":\"x\"},\"top\":1}");
	same(w, o);
	json_object_put(o);
	jw_free(w);
}
END_TEST

/* Random documents: random keys (some repeated), values, nesting and arrays, both ways. */
static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint32_t rnd(uint32_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng % n);
}

static const char *const rkeys[] = {"a", "b", "event", "process", "k\"q", "\x01", "ä", "id"};

static void build(struct jw *w, jw_node n, struct json_object *o, int depth, bool array)
{
	int i, count = (int)rnd(6);

	for (i = 0; i < count; i++) {
		const char *key = array ? NULL : rkeys[rnd(8)];
		struct json_object *v;
		char s[40];
		size_t k, len = rnd(sizeof(s));

		switch (rnd(depth < 4 ? 6 : 4)) {
		case 0:
			v = json_object_new_int64((int64_t)rng);
			jw_int(w, n, key, (int64_t)rng);
			break;
		case 1:
			v = json_object_new_boolean(rng & 1);
			jw_bool(w, n, key, rng & 1);
			break;
		case 2:
		case 3:
			for (k = 0; k < len; k++)
				s[k] = (char)(1 + rnd(255));
			v = json_object_new_string_len(s, (int)len);
			jw_string_len(w, n, key, s, len);
			break;
		case 4:
			v = json_object_new_object();
			build(w, jw_new_object(w, n, key), v, depth + 1, false);
			break;
		default:
			v = json_object_new_array();
			build(w, jw_new_array(w, n, key), v, depth + 1, true);
			break;
		}
		if (array)
			json_object_array_add(o, v);
		else
			json_object_object_add(o, key, v);
	}
}

/* jw_clean_run() against a byte-at-a-time scan: every length to 70 (16, 8 and fewer at a time), each byte that needs an
 * escape (and some that do not) at each position, in a buffer of exactly n bytes (ASan and
 * valgrind see any read past it: the short and the overlapping loads must not make one). */
/* Raw values (the engine's per-rule parts of alerts) and one node written on its own. */
START_TEST(test_raw)
{
	struct jw *w = jw_new();
	const char *text;
	size_t len;
	jw_node a, o;

	o = jw_object(w, JW_ROOT, "rule");
	jw_string(w, o, "id", "R-1");
	jw_string(w, o, "name", "a \"quoted\" name");
	a = jw_new_array(w, JW_ROOT, "tags");
	jw_string(w, a, NULL, "x");
	jw_int(w, a, NULL, -3);
	ck_assert_int_eq(jw_finish_node(w, o, &text, &len), 0);
	ck_assert_str_eq(text, "{\"id\":\"R-1\",\"name\":\"a \\\"quoted\\\" name\"}");
	ck_assert_uint_eq(len, strlen(text));
	ck_assert_int_eq(jw_finish_node(w, a, &text, &len), 0);
	ck_assert_str_eq(text, "[\"x\",-3]");
	ck_assert_int_eq(jw_finish_node(w, 99, &text, &len), -ENOMEM); /* no such node */
	ck_assert(jw_failed(w));

	jw_reset(w);
	jw_int(w, JW_ROOT, "n", 1);
	jw_raw(w, JW_ROOT, "rule", "{\"id\":\"R-1\"}", 12);
	jw_raw(w, JW_ROOT, "gone", "[1,2]", 5);
	jw_raw(w, JW_ROOT, "gone", "true", 4);	 /* replaced in place */
	jw_string(w, JW_ROOT, "s", "t");
	o = jw_object(w, JW_ROOT, "rule");	 /* raw is not an object: becomes an empty one */
	jw_int(w, o, "k", 2);
	a = jw_new_array(w, JW_ROOT, "arr");
	jw_raw(w, a, NULL, "{}", 2);
	jw_raw(w, a, NULL, "null", 4);
	ck_assert_int_eq(jw_finish(w, &text, &len), 0);
	ck_assert_str_eq(text, "{\"n\":1,\"rule\":{\"k\":2},\"gone\":true,\"s\":\"t\","
			       "\"arr\":[{},null]}");
	jw_free(w);
}
END_TEST

START_TEST(test_clean_run)
{
	static const unsigned char special[] = {'"', '\\', 0x00, 0x01, 0x0a, 0x1f};
	static const unsigned char plain[] = {0x20, '/', 'a', 0x7f, 0x80, 0xe9, 0xff, 0xa2, 0xdc};
	size_t n, at, k, i;

	for (n = 0; n <= 70; n++) {
		char *buf = malloc(n ? n : 1);

		ck_assert_ptr_nonnull(buf);
		for (i = 0; i < n; i++)
			buf[i] = (char)plain[i % sizeof(plain)];
		ck_assert_uint_eq(jw_clean_run(buf, n), n);
		for (at = 0; at < n; at++)
			for (k = 0; k < sizeof(special); k++) {
				size_t later = at + 1 + (at * 7 + k) % 5;

				buf[at] = (char)special[k];
				/* One more after it: the first one counts. */
				if (later < n)
					buf[later] = '"';
				ck_assert_msg(jw_clean_run(buf, n) == at,
					      "n %zu, 0x%02x at %zu: %zu", n, special[k], at,
					      jw_clean_run(buf, n));
				for (i = 0; i < n; i++)
					buf[i] = (char)plain[i % sizeof(plain)];
			}
		free(buf);
	}
}
END_TEST

START_TEST(test_random)
{
	struct jw *w = jw_new();
	int i;

	for (i = 0; i < 3000; i++) {
		struct json_object *o = json_object_new_object();

		jw_reset(w);
		build(w, JW_ROOT, o, 0, false);
		same(w, o);
		json_object_put(o);
	}
	jw_free(w);
}
END_TEST

START_TEST(test_limits)
{
	struct jw *w = jw_new();
	const char *text;
	size_t len;
	jw_node n = JW_ROOT;
	char *big;
	int i;

	/* Nesting deeper than JW_MAX_DEPTH fails the document, sticky until a reset. */
	for (i = 0; i < JW_MAX_DEPTH + 2; i++)
		n = jw_new_object(w, n, "d");
	ck_assert(jw_failed(w));
	ck_assert_int_eq(jw_finish(w, &text, &len), -ENOMEM);
	jw_int(w, JW_ROOT, "x", 1);
	ck_assert_int_eq(jw_finish(w, &text, &len), -ENOMEM);
	jw_reset(w);
	ck_assert(!jw_failed(w));
	/* JW_MAX_DEPTH levels are fine. */
	for (n = JW_ROOT, i = 0; i < JW_MAX_DEPTH; i++)
		n = jw_new_object(w, n, "d");
	ck_assert(!jw_failed(w));
	ck_assert_int_eq(jw_finish(w, &text, &len), 0);
	/* Wrong container for the call: a key on an array, no key on an object. */
	jw_reset(w);
	n = jw_new_array(w, JW_ROOT, "a");
	jw_int(w, n, "k", 1);
	ck_assert(jw_failed(w));
	jw_reset(w);
	jw_int(w, JW_ROOT, NULL, 1);
	ck_assert(jw_failed(w));
	/* A document past its byte bound fails instead of growing without end. */
	jw_reset(w);
	big = malloc(1 << 20);
	ck_assert_ptr_nonnull(big);
	memset(big, 'a', 1 << 20);
	for (i = 0; i < 40 && !jw_failed(w); i++)
		jw_string_len(w, jw_new_array(w, JW_ROOT, "a"), NULL, big, 1 << 20);
	ck_assert(jw_failed(w));
	ck_assert_int_eq(jw_finish(w, &text, &len), -ENOMEM);
	free(big);
	/* And is usable again after a reset. */
	jw_reset(w);
	jw_int(w, JW_ROOT, "ok", 1);
	ck_assert_int_eq(jw_finish(w, &text, &len), 0);
	ck_assert_str_eq(text, "{\"ok\":1}");
	jw_free(w);
}
END_TEST

/* An event written by event_to_jw is the same text as before jsonw existed: each field's json-c
 * object at its dotted path (checked on a verbs event with most kinds of field). */
START_TEST(test_event_text)
{
	struct rg_event ev;
	struct json_object *o = json_object_new_object();
	struct jw *w = jw_new();
	const char *text;
	size_t len;

	memset(&ev, 0, sizeof(ev));
	ev.type = RG_EV_VERBS;
	ev.provider = RG_PROV_SENSOR;
	ev.ts = 1764683789123456789ull;
	ev.seq = 7;
	ev.proc.pid = 30;
	ev.proc.tid = 31;
	strcpy(ev.proc.comm, "a\"b\\c\x01");
	ev.u.verbs.op = RG_OP_REG_MR;
	ev.u.verbs.mr_length = 4096;
	ev.u.verbs.mr_access = 0x7;
	ev.u.verbs.ret = -5;
	ev.flags = RG_EVF_FAILED;
	ev.u.verbs.dgid[10] = 0xff;
	ev.u.verbs.dgid[11] = 0xff;
	ev.u.verbs.dgid[12] = 192;
	ev.u.verbs.dgid[15] = 1;
	ck_assert_int_eq(event_to_jw(&ev, w), 0);
	ck_assert_int_eq(jw_finish(w, &text, &len), 0);
	json_object_put(o);
	o = json_tokener_parse(text);
	ck_assert_ptr_nonnull(o);
	/* Control characters are escaped in the text; reading it back turns them into '?' (the
	 * event model's rule for strings), after which the text is stable. */
	ck_assert_ptr_nonnull(strstr(text, "\"name\":\"a\\\"b\\\\c\\u0001\""));
	ck_assert_ptr_nonnull(strstr(text, "\"peer\":{\"gid\":\"::ffff:192.0.0.1\","
					   "\"address\":\"192.0.0.1\"}"));
	ck_assert_str_eq(text, jc_text(o));
	{
		struct rg_event back;
		char err[256], *second;

		ck_assert_int_eq(event_from_json(o, &back, err, sizeof(err)), 0);
		jw_reset(w);
		ck_assert_int_eq(event_to_jw(&back, w), 0);
		ck_assert_int_eq(jw_finish(w, &text, &len), 0);
		ck_assert_ptr_nonnull(strstr(text, "\"name\":\"a\\\"b\\\\c?\""));
		second = strdup(text);
		json_object_put(o);
		o = json_tokener_parse(second);
		ck_assert_int_eq(event_from_json(o, &back, err, sizeof(err)), 0);
		jw_reset(w);
		ck_assert_int_eq(event_to_jw(&back, w), 0);
		ck_assert_int_eq(jw_finish(w, &text, &len), 0);
		ck_assert_str_eq(text, second);
		ck_assert_str_eq(text, jc_text(o));
		free(second);
	}
	json_object_put(o);
	jw_free(w);
}
END_TEST

/* The ECS layout of a sent document (event/ecs_map.c): ECS members stay, the others move under
 * rdmaguard.<path>, process.start_time is renamed in place; the same for jsonw and json-c
 * documents. */
START_TEST(test_ecs_map)
{
	static const char in[] =
	    "{\"severity\":\"high\",\"process\":{\"pid\":1,\"start_time\":\"t\","
	    "\"start_boot_ns\":5,\"parent\":{\"pid\":2,\"start_boot_ns\":3}},"
	    "\"agent\":{\"type\":\"rdmaguard\",\"what\":\"w\"},\"pci\":{\"address\":\"a\"},"
	    "\"destination\":{\"ip\":\"192.0.2.7\"}}";
	static const char want[] =
	    "{\"process\":{\"pid\":1,\"start\":\"t\",\"parent\":{\"pid\":2}},"
	    "\"agent\":{\"type\":\"rdmaguard\"},\"destination\":{\"ip\":\"192.0.2.7\"},"
	    "\"rdmaguard\":{\"severity\":\"high\",\"process\":{\"start_boot_ns\":5,"
	    "\"parent\":{\"start_boot_ns\":3}},\"agent\":{\"what\":\"w\"},"
	    "\"pci\":{\"address\":\"a\"}}}";
	struct jw *w = jw_new();
	struct json_object *doc = json_tokener_parse(in), *q2;
	jw_node p, q;
	const char *text;
	char buf[64];
	size_t len;

	ck_assert_ptr_nonnull(w);
	jw_string(w, JW_ROOT, "severity", "high");
	p = jw_object(w, JW_ROOT, "process");
	jw_int(w, p, "pid", 1);
	jw_string(w, p, "start_time", "t");
	jw_uint(w, p, "start_boot_ns", 5);
	q = jw_object(w, p, "parent");
	jw_int(w, q, "pid", 2);
	jw_uint(w, q, "start_boot_ns", 3);
	p = jw_object(w, JW_ROOT, "agent");
	jw_string(w, p, "type", "rdmaguard");
	jw_string(w, p, "what", "w");
	jw_string(w, jw_object(w, JW_ROOT, "pci"), "address", "a");
	jw_string(w, jw_object(w, JW_ROOT, "destination"), "ip", "192.0.2.7");
	ck_assert_int_eq(ecs_map_jw(w), 0);
	ck_assert_int_eq(jw_finish(w, &text, &len), 0);
	ck_assert_str_eq(text, want);

	ck_assert_ptr_nonnull(doc);
	ck_assert_int_eq(ecs_map_json(doc), 0);
	/* the same members (json-c's rename appends: another order) */
	q2 = json_tokener_parse(want);
	ck_assert_msg(json_object_equal(doc, q2), "%s", json_object_to_json_string(doc));
	json_object_put(q2);
	json_object_put(doc);
	jw_free(w);

	ck_assert_int_eq(ecs_map_name("rdma.mr.length", buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "rdmaguard.rdma.mr.length");
	ck_assert_int_eq(ecs_map_name("process.parent.start_boot_ns", buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "rdmaguard.process.parent.start_boot_ns");
	ck_assert_int_eq(ecs_map_name("process.parent.start_time", buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "process.parent.start");
	ck_assert_int_eq(ecs_map_name("process.thread.id", buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "process.thread.id");
	ck_assert_int_eq(ecs_map_name("agent.what", buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "rdmaguard.agent.what");
	ck_assert_int_eq(ecs_map_name("destination.ip", buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "destination.ip");
	ck_assert_int_eq(ecs_map_name("rdma.mr.length", buf, 12), -ENOSPC);
	ck_assert_int_eq(ecs_map_name("process.pid", buf, 8), -ENOSPC);
}
END_TEST

static Suite *jsonw_suite(void)
{
	Suite *s = suite_create("jsonw");
	TCase *core = tcase_create("core"), *limits = tcase_create("limits");

	tcase_add_test(core, test_scalars);
	tcase_add_test(core, test_escapes);
	tcase_add_test(core, test_clean_run);
	tcase_add_test(core, test_replace);
	tcase_add_test(core, test_raw);
	tcase_add_test(core, test_random);
	tcase_add_test(core, test_event_text);
	tcase_add_test(core, test_ecs_map);
	tcase_add_test(limits, test_limits);
	tcase_set_timeout(limits, 30);
	suite_add_tcase(s, core);
	suite_add_tcase(s, limits);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(jsonw_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
