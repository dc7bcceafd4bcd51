/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The JSON lexer's parts off the hot path (see jsonlex.h): escapes, UTF-8, comments. */
#include "common/jsonlex.h"
#include "common/utf8.h"
#include "hex.h"

const char *jlex_ws_comments(const char *p, const char *end, struct jlex_fault *f)
{
	for (;;) {
		p = jlex_ws(p);
		if (p + 1 >= end || p[0] != '/')
			return p;
		if (p[1] == '/') {
			/* Not stopped by a NUL: one before the end is a byte of the comment. */
			while (p < end && *p != '\n')
				p++;
		} else if (p[1] == '*') {
			const char *start = p;

			for (p += 2;; p++) {
				if (p + 1 >= end)
					return jlex_fail(f, JLEX_EOF_COMMENT, start, NULL);
				if (p[0] == '*' && p[1] == '/')
					break;
			}
			p += 2;
		} else
			return p;
	}
}

static size_t put_utf8(char *o, uint32_t c)
{
	if (c < 0x80) {
		o[0] = (char)c;
		return 1;
	}
	if (c < 0x800) {
		o[0] = (char)(0xc0 | c >> 6);
		o[1] = (char)(0x80 | (c & 0x3f));
		return 2;
	}
	if (c < 0x10000) {
		o[0] = (char)(0xe0 | c >> 12);
		o[1] = (char)(0x80 | (c >> 6 & 0x3f));
		o[2] = (char)(0x80 | (c & 0x3f));
		return 3;
	}
	o[0] = (char)(0xf0 | c >> 18);
	o[1] = (char)(0x80 | (c >> 12 & 0x3f));
	o[2] = (char)(0x80 | (c >> 6 & 0x3f));
	o[3] = (char)(0x80 | (c & 0x3f));
	return 4;
}

/* The four hex digits at p (of \u at esc): the byte after them, or NULL. */
static const char *hex4(const char *p, const char *end, const char *esc, uint32_t *ret,
			struct jlex_fault *f)
{
	uint32_t v = 0;
	int i;

	if (end - p < 4)
		return jlex_fail(f, JLEX_U_ESCAPE, p, esc);
	for (i = 0; i < 4; i++) {
		int h = hex_digit(p[i]);

		if (h < 0)
			return jlex_fail(f, JLEX_U_ESCAPE, p + i, esc);
		v = v << 4 | (uint32_t)h;
	}
	*ret = v;
	return p + 4;
}

/* After a \u escape of a high surrogate (c; p past it, esc its backslash): the low half, or
 * U+FFFD where relaxed. */
static const char *surrogate_pair(const char *p, const char *end, unsigned flags,
				  const char *esc, uint32_t *c, struct jlex_fault *f)
{
	const char *after;
	uint32_t lo;

	if (!(flags & JLEX_LONE_SURROGATE)) {
		struct jlex_fault ignored;

		if (end - p < 2 || p[0] != '\\' || p[1] != 'u' ||
		    !(after = hex4(p + 2, end, p, &lo, &ignored)) || lo < 0xdc00 || lo > 0xdfff)
			return jlex_fail(f, JLEX_SURROGATE, esc, esc);
	} else {
		if (end - p < 6 || p[0] != '\\' || p[1] != 'u') {
			*c = 0xfffd;
			return p;
		}
		if (!(after = hex4(p + 2, end, p, &lo, f)))
			return NULL;
		if (lo < 0xdc00 || lo > 0xdfff) {
			*c = 0xfffd; /* the next escape stands on its own */
			return p;
		}
	}
	*c = 0x10000 + ((*c - 0xd800) << 10) + (lo - 0xdc00);
	return after;
}

const char *jlex_escape(const char *p, const char *end, unsigned flags, char out[static 4],
			size_t *n, struct jlex_fault *f)
{
	const char *esc = p;
	uint32_t c;

	if (p + 1 == end)
		return jlex_fail(f, JLEX_EOF_STRING, end, esc);
	p += 2;
	switch (esc[1]) {
	case '"':
	case '\\':
	case '/':
		c = (uint8_t)esc[1];
		break;
	case 'b':
		c = '\b';
		break;
	case 'f':
		c = '\f';
		break;
	case 'n':
		c = '\n';
		break;
	case 'r':
		c = '\r';
		break;
	case 't':
		c = '\t';
		break;
	case 'u':
		if (!(p = hex4(p, end, esc, &c, f)))
			return NULL;
		if (c >= 0xd800 && c < 0xdc00) {
			if (!(p = surrogate_pair(p, end, flags, esc, &c, f)))
				return NULL;
		} else if (c >= 0xdc00 && c < 0xe000) {
			if (!(flags & JLEX_LONE_SURROGATE))
				return jlex_fail(f, JLEX_SURROGATE, esc, esc);
			c = 0xfffd;
		}
		break;
	default:
		return jlex_fail(f, JLEX_ESCAPE, esc + 1, esc);
	}
	*n = put_utf8(out, c);
	return p;
}

/* Strict: the bytes [p, q) of a string are valid UTF-8 (a sequence never ends a run: its bytes
 * are all from 0x80 up). NULL (JLEX_UTF8) if not. */
static const char *check_utf8(const char *p, const char *q, const char *end,
			      struct jlex_fault *f)
{
	while (p < q) {
		size_t l = (uint8_t)*p < 0x80 ? 1 : utf8_seq_len(p, (size_t)(end - p));

		if (!l)
			return jlex_fail(f, JLEX_UTF8, p, NULL);
		p += l;
	}
	return p;
}

/*
 * The rest of a string that has escapes, or is broken, or is to be checked for UTF-8: p is past
 * the opening quote, q at the first byte that is not plain.
 */
const char *jlex_string_slow(const char *p, const char *q, const char *end, unsigned flags,
			     char *out, const char **s, size_t *len, struct jlex_fault *f)
{
	char *o = out;

	for (;;) {
		size_t n;

		if (!(flags & JLEX_RAW_BYTES) && !check_utf8(p, q, end, f))
			return NULL;
		if (*q == '"' && o == out && q != end) {
			/* No escape after all (a strict reader's string): in place. */
			*s = p;
			*len = (size_t)(q - p);
			return q + 1;
		}
		memcpy(o, p, (size_t)(q - p));
		o += q - p;
		if (q == end)
			return jlex_fail(f, JLEX_EOF_STRING, q, NULL);
		if (*q == '"')
			break;
		if ((uint8_t)*q < 0x20)
			return jlex_fail(f, JLEX_CONTROL, q, NULL);
		/* A backslash. */
		if (!(p = jlex_escape(q, end, flags, o, &n, f)))
			return NULL;
		o += n;
		q = p + jw_clean_run(p, (size_t)(end - p));
	}
	*o = 0;
	*s = out;
	*len = (size_t)(o - out);
	return q + 1;
}

const char *jlex_string_at(const char *p, const char *end, unsigned flags, size_t k)
{
	struct jlex_fault f;
	size_t n = 0;
	char tmp[4];

	for (p++;;) {
		const char *at = p;
		size_t l;

		if (p == end || (uint8_t)*p < 0x20)
			return NULL;
		if (*p == '"')
			return p;
		if (*p == '\\') {
			if (!(p = jlex_escape(p, end, flags, tmp, &l, &f)))
				return NULL;
		} else {
			l = (uint8_t)*p < 0x80 || (flags & JLEX_RAW_BYTES)
				    ? 1
				    : utf8_seq_len(p, (size_t)(end - p));
			if (!l)
				return NULL;
			p += l;
		}
		if (k < n + l)
			return at;
		n += l;
	}
}
