/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * common/jsonlex: the JSON lexer under the policy and rule loader and the event reader. Each
 * token kind, strict and with the event reader's relaxations: what is taken, what it decodes
 * to, and for what is not, the fault and the byte it names. The readers' own tests (policy,
 * event) hold their messages and columns.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "common/jsonlex.h"
#include "common/macro.h"
#include "common/utf8.h"

#define RELAXED (JLEX_RAW_BYTES | JLEX_LONE_SURROGATE)

/* Lexes the string in text (its whole length); the decoded value into val, or the fault. */
static const char *lex_string(const char *text, unsigned flags, char *val, size_t *len,
			      struct jlex_fault *f)
{
	static char out[256];
	const char *s, *q;

	q = jlex_string(text, text + strlen(text), flags, out, &s, len, f);
	if (q) {
		memcpy(val, s, *len);
		val[*len] = 0;
	}
	return q;
}

START_TEST(test_strings)
{
	static const struct {
		const char *text;
		unsigned flags;
		const char *val; /* NULL: refused */
		size_t len;
		enum jlex_error code;
		size_t at, esc; /* offsets of the fault's bytes */
	} cases[] = {
		{"\"plain\"", 0, "plain", 5},
		{"\"\"", 0, "", 0},
		{"\"a\\\"\\\\\\/\\b\\f\\n\\r\\tz\"", 0, "a\"\\/\b\f\n\r\tz", 10},
		{"\"\\u00e9\\u20ac\"", 0, "\xc3\xa9\xe2\x82\xac", 5},
		{"\"\\ud83d\\ude00\"", 0, "\xf0\x9f\x98\x80", 4},
		{"\"a\\u0000b\"", 0, "a\0b", 3},
		{"\"\xc3\xa9\"", 0, "\xc3\xa9", 2},
		/* strict */
		{"\"ab", 0, NULL, 0, JLEX_EOF_STRING, 3},
		{"\"ab\\", 0, NULL, 0, JLEX_EOF_STRING, 4, 3},
		{"\"a\tb\"", 0, NULL, 0, JLEX_CONTROL, 2},
		{"\"a\\xb\"", 0, NULL, 0, JLEX_ESCAPE, 3, 2},
		{"\"\\u12\"", 0, NULL, 0, JLEX_U_ESCAPE, 3, 1},
		{"\"\\u12g4\"", 0, NULL, 0, JLEX_U_ESCAPE, 5, 1},
		{"\"\\u12", 0, NULL, 0, JLEX_U_ESCAPE, 3, 1},
		{"\"\\ud800x\"", 0, NULL, 0, JLEX_SURROGATE, 1, 1},
		{"\"x\\udc00\"", 0, NULL, 0, JLEX_SURROGATE, 2, 2},
		{"\"\\ud800\\u0041\"", 0, NULL, 0, JLEX_SURROGATE, 1, 1},
		{"\"\\ud800\\u00zz\"", 0, NULL, 0, JLEX_SURROGATE, 1, 1},
		{"\"a\xff\"", 0, NULL, 0, JLEX_UTF8, 2},
		{"\"\xc0\xaf\"", 0, NULL, 0, JLEX_UTF8, 1},
		{"\"\xed\xa0\x80\"", 0, NULL, 0, JLEX_UTF8, 1},
		{"\"\xc3\"", 0, NULL, 0, JLEX_UTF8, 1},
		/* UTF-8 before a later fault: the first one in the text */
		{"\"\xff\t\"", 0, NULL, 0, JLEX_UTF8, 1},
		/* relaxed: bytes as they are, lone surrogates as U+FFFD */
		{"\"a\xff\"", RELAXED, "a\xff", 2},
		{"\"\\ud800x\"", RELAXED, "\xef\xbf\xbdx", 4},
		{"\"\\udc00\"", RELAXED, "\xef\xbf\xbd", 3},
		{"\"\\ud800\\u0041\"", RELAXED, "\xef\xbf\xbd" "A", 4},
		{"\"\\ud800\\u00zz\"", RELAXED, NULL, 0, JLEX_U_ESCAPE, 11, 7},
		{"\"\\ud800\\u00\"", RELAXED, NULL, 0, JLEX_U_ESCAPE, 9, 7},
		{"\"a\tb\"", RELAXED, NULL, 0, JLEX_CONTROL, 2},
	};
	char val[256];

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct jlex_fault f = {0};
		size_t len = 0;
		const char *t = cases[i].text, *q = lex_string(t, cases[i].flags, val, &len, &f);

		if (cases[i].val) {
			ck_assert_msg(q, "%zu: refused (%d at %td)", i, f.code, f.at - t);
			ck_assert_ptr_eq(q, t + strlen(t));
			ck_assert_uint_eq(len, cases[i].len);
			ck_assert_msg(memcmp(val, cases[i].val, len) == 0, "%zu: value", i);
			continue;
		}
		ck_assert_msg(!q, "%zu: taken", i);
		ck_assert_int_eq(f.code, cases[i].code);
		ck_assert_msg((size_t)(f.at - t) == cases[i].at, "%zu: at %td", i, f.at - t);
		if (cases[i].esc)
			ck_assert_msg((size_t)(f.esc - t) == cases[i].esc, "%zu: esc %td", i,
				      f.esc - t);
	}
}
END_TEST

/* A string without escapes is not copied; with them, decoded into out, NUL after it. */
START_TEST(test_string_in_place)
{
	static const char plain[] = "\"abc\" rest", esc[] = "\"a\\nb\"";
	char out[16];
	struct jlex_fault f;
	const char *s;
	size_t len;

	ck_assert_ptr_eq(jlex_string(plain, plain + strlen(plain), 0, out, &s, &len, &f), plain + 5);
	ck_assert_ptr_eq(s, plain + 1);
	ck_assert_ptr_eq(jlex_string(plain, plain + strlen(plain), RELAXED, out, &s, &len, &f),
			 plain + 5);
	ck_assert_ptr_eq(s, plain + 1);
	ck_assert_ptr_eq(jlex_string(esc, esc + strlen(esc), 0, out, &s, &len, &f), esc + 6);
	ck_assert_ptr_eq(s, out);
	ck_assert_str_eq(out, "a\nb");
}
END_TEST

START_TEST(test_string_at)
{
	/* "x\"y\u00e9z": decoded x " y é(2) z */
	static const char t[] = "\"x\\\"y\\u00e9z\"";
	const char *end = t + strlen(t);

	ck_assert_ptr_eq(jlex_string_at(t, end, 0, 0), t + 1);
	ck_assert_ptr_eq(jlex_string_at(t, end, 0, 1), t + 2);
	ck_assert_ptr_eq(jlex_string_at(t, end, 0, 2), t + 4);
	ck_assert_ptr_eq(jlex_string_at(t, end, 0, 3), t + 5);
	ck_assert_ptr_eq(jlex_string_at(t, end, 0, 4), t + 5);
	ck_assert_ptr_eq(jlex_string_at(t, end, 0, 5), t + 11);
	ck_assert_ptr_eq(jlex_string_at(t, end, 0, 6), t + 12); /* the closing quote */
	ck_assert_ptr_null(jlex_string_at("\"ab", t + 3, 0, 5));
}
END_TEST

START_TEST(test_numbers)
{
	static const struct {
		const char *text;
		size_t used; /* 0: refused */
		bool neg, frac, is_int;
		uint64_t mag;
		enum jlex_error code;
		size_t at;
	} cases[] = {
		{"0", 1, false, false, true, 0},
		{"-0", 2, true, false, true, 0},
		{"42,", 2, false, false, true, 42},
		{"1234567890123456789", 19, false, false, true, 1234567890123456789ull},
		{"18446744073709551615", 20, false, false, true, UINT64_MAX},
		{"18446744073709551616", 20, false, false, false},
		{"-9223372036854775808", 20, true, false, true, 1ull << 63},
		{"-9223372036854775809", 20, true, false, false},
		{"1.5", 3, false, true, false},
		{"1e9", 3, false, true, false},
		{"2.5E-3]", 6, false, true, false},
		{"1e+400", 6, false, true, false},
		{"-", 0, .code = JLEX_NUMBER, .at = 1},
		{"-x", 0, .code = JLEX_NUMBER, .at = 1},
		{"01", 0, .code = JLEX_LEADING_ZERO, .at = 1},
		{"-01", 0, .code = JLEX_LEADING_ZERO, .at = 2},
		{"1.", 0, .code = JLEX_NUMBER, .at = 2},
		{"1.e5", 0, .code = JLEX_NUMBER, .at = 2},
		{"1e", 0, .code = JLEX_NUMBER, .at = 2},
		{"1e+", 0, .code = JLEX_NUMBER, .at = 3},
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		const char *t = cases[i].text;
		struct jlex_number num;
		struct jlex_fault f;
		const char *q = jlex_number(t, t + strlen(t), &num, &f);

		if (cases[i].used) {
			ck_assert_msg(q == t + cases[i].used, "%s: used %td", t, q ? q - t : -1);
			ck_assert_int_eq(num.neg, cases[i].neg);
			ck_assert_int_eq(num.frac, cases[i].frac);
			ck_assert_msg(num.is_int == cases[i].is_int, "%s: is_int", t);
			if (num.is_int)
				ck_assert_uint_eq(num.mag, cases[i].mag);
			continue;
		}
		ck_assert_msg(!q, "%s: taken", t);
		ck_assert_int_eq(f.code, cases[i].code);
		ck_assert_msg((size_t)(f.at - t) == cases[i].at, "%s: at %td", t, f.at - t);
	}
}
END_TEST

START_TEST(test_ws_words)
{
	static const char ws[] = " \t\r\n x", c1[] = " // c\n /* d */ x", c2[] = "/* open",
			  nul[] = "// a\0b\nx";
	struct jlex_fault f;

	ck_assert_ptr_eq(jlex_ws(ws), ws + 5);
	ck_assert_int_eq(*jlex_ws("\v"), '\v'); /* not JSON whitespace */
	ck_assert_ptr_eq(jlex_ws_comments(c1, c1 + strlen(c1), &f), c1 + strlen(c1) - 1);
	ck_assert_ptr_null(jlex_ws_comments(c2, c2 + strlen(c2), &f));
	ck_assert_int_eq(f.code, JLEX_EOF_COMMENT);
	ck_assert_ptr_eq(f.at, c2);
	/* A NUL inside a line comment (before the end) is a byte of it. */
	ck_assert_ptr_eq(jlex_ws_comments(nul, nul + sizeof(nul) - 1, &f), nul + sizeof(nul) - 2);
	{
		static const char t[] = "true]", n[] = "nul";

		ck_assert_ptr_eq(jlex_word(t, t + 5, "true", 4), t + 4);
		ck_assert_ptr_null(jlex_word(n, n + 3, "null", 4));
	}
}
END_TEST

START_TEST(test_utf8_len)
{
	ck_assert_uint_eq(utf8_seq_len("a", 1), 1);
	ck_assert_uint_eq(utf8_seq_len("\xc3\xa9", 2), 2);
	ck_assert_uint_eq(utf8_seq_len("\xe2\x82\xac", 3), 3);
	ck_assert_uint_eq(utf8_seq_len("\xf0\x9f\x98\x80", 4), 4);
	ck_assert_uint_eq(utf8_seq_len("\xf0\x9f\x98\x80", 3), 0); /* cut */
	ck_assert_uint_eq(utf8_seq_len("\xc0\xaf", 2), 0);	      /* overlong */
	ck_assert_uint_eq(utf8_seq_len("\xed\xa0\x80", 3), 0);     /* a surrogate */
	ck_assert_uint_eq(utf8_seq_len("\xf4\x90\x80\x80", 4), 0); /* past U+10FFFF */
	ck_assert_uint_eq(utf8_seq_len("\x80", 1), 0);
	ck_assert_uint_eq(utf8_seq_len("\xf8\x88\x80\x80\x80", 5), 0);
}
END_TEST

static Suite *jsonlex_suite(void)
{
	Suite *s = suite_create("jsonlex");
	TCase *core = tcase_create("core"), *errors = tcase_create("errors");

	tcase_add_test(core, test_string_in_place);
	tcase_add_test(core, test_string_at);
	tcase_add_test(core, test_ws_words);
	tcase_add_test(core, test_utf8_len);
	tcase_add_test(errors, test_strings);
	tcase_add_test(errors, test_numbers);
	suite_add_tcase(s, core);
	suite_add_tcase(s, errors);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(jsonlex_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
