/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * jsonlex: the one JSON lexer (RFC 8259), under both JSON readers: the policy and rule files'
 * (config/jsondoc.c: json-c objects with positions) and recorded events' (event/event_reader.c:
 * straight into struct rg_event, replay's hot path). It owns the tokens: whitespace, strings
 * (escapes, \u surrogate pairs, UTF-8), numbers, the literals, and the comments that policy
 * files may have. It builds nothing: the readers own the grammar above the tokens (objects,
 * arrays, nesting limits, duplicate keys) and the words of their errors; the lexer says what
 * is wrong (enum jlex_error) and where (struct jlex_fault).
 *
 * Strict by default. A reader of recorded events asks for two relaxations (JLEX_RAW_BYTES,
 * JLEX_LONE_SURROGATE), because the writer records the kernel's bytes (comm, argv) as they are.
 *
 * Bounded: the text ends at end, where a NUL byte must be (end[0] == 0: C strings and both
 * readers' buffers are so). The NUL stops every scanning loop, so the end is looked for only
 * where a NUL turns up; a NUL before end is a byte like another (a control character in a
 * string, an unexpected byte elsewhere). Nothing is read past end.
 *
 * What is inline here is what replay's reader runs for most tokens (whitespace, a string
 * without escapes, an integer); the rest is in jsonlex.c.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "common/jsonw.h"
#include "common/macro.h"

/* Relaxations of RFC 8259 (flags; 0 is strict). */
enum {
	/* Bytes from 0x80 up pass in strings as they are, valid UTF-8 or not (as json-c does). */
	JLEX_RAW_BYTES = 1 << 0,
	/* A \u escape of a surrogate that is not half of a pair decodes to U+FFFD. */
	JLEX_LONE_SURROGATE = 1 << 1,
};

enum jlex_error {
	JLEX_OK,
	JLEX_EOF_STRING,   /* a string runs to the end of the text (at: end) */
	JLEX_CONTROL,	   /* a raw control character in a string (at: it) */
	JLEX_ESCAPE,	   /* an unknown escape (at: the byte after the backslash) */
	JLEX_U_ESCAPE,	   /* \u without four hex digits (at: the first that is not one, or the
			    * first digit's place where fewer than four bytes are left) */
	JLEX_SURROGATE,	   /* strict: a surrogate that is not half of a pair (at: esc) */
	JLEX_UTF8,	   /* strict: invalid UTF-8 in a string (at: the sequence's first byte) */
	JLEX_NUMBER,	   /* not a number (at: the byte at fault) */
	JLEX_LEADING_ZERO, /* a number with a leading zero (at: the digit after it) */
	JLEX_EOF_COMMENT,  /* a comment runs to the end of the text (at: its '/') */
};

struct jlex_fault {
	enum jlex_error code;
	const char *at;	 /* the byte at fault */
	const char *esc; /* errors in an escape: its backslash (a surrogate pair's first) */
};

/* A number as the grammar wrote it. */
struct jlex_number {
	uint64_t mag; /* |value|, where is_int */
	bool neg;     /* a minus sign */
	bool frac;    /* a fraction or an exponent */
	bool is_int;  /* no fraction or exponent, and fits int64_t (negative) or uint64_t */
};

/* Records a fault; NULL, for the scanners to return. */
static inline const char *jlex_fail(struct jlex_fault *f, enum jlex_error code, const char *at,
				    const char *esc)
{
	*f = (struct jlex_fault){.code = code, .at = at, .esc = esc};
	return NULL;
}

/* Whitespace (space, tab, line feed, carriage return) from p: the first byte after it. */
static inline const char *jlex_ws(const char *p)
{
	while ((uint8_t)*p <= ' ' && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t'))
		p++;
	return p;
}

/* Whitespace and comments ("//" to the end of the line, slash-star to star-slash), for the
 * documents that may have them (policy and rule files): the first byte after, or NULL
 * (JLEX_EOF_COMMENT). */
const char *jlex_ws_comments(const char *p, const char *end, struct jlex_fault *f);

static inline bool jlex_is_digit(char c)
{
	return (unsigned)(c - '0') < 10;
}

/*
 * One escape at p (its backslash) decoded as UTF-8 into out (4 bytes at most; a surrogate pair
 * is one escape), its length in *n: the byte after it, or NULL.
 */
const char *jlex_escape(const char *p, const char *end, unsigned flags, char out[static 4],
			size_t *n, struct jlex_fault *f);

/* jlex_string()'s way for a string with escapes, or one to check byte by byte. */
const char *jlex_string_slow(const char *p, const char *q, const char *end, unsigned flags,
			     char *out, const char **s, size_t *len, struct jlex_fault *f);

/*
 * The string at p (its opening quote): the byte after its closing quote, or NULL. Without
 * escapes (most strings), *s points into the text; else it is decoded into out, which gets a
 * NUL after it (room: the text's length from p), and *s == out. *len: its length in bytes
 * (a \u0000 counts as one).
 */
static _always_inline_ const char *jlex_string(const char *p, const char *end, unsigned flags,
					       char *out, const char **s, size_t *len,
					       struct jlex_fault *f)
{
	const char *q = ++p;

	q += jw_clean_run(q, (size_t)(end - q));
	if (*q == '"' && (flags & JLEX_RAW_BYTES)) {
		*s = p;
		*len = (size_t)(q - p);
		return q + 1;
	}
	return jlex_string_slow(p, q, end, flags, out, s, len, f);
}

/*
 * In the string at p (its opening quote), the byte whose decoding gives byte k of its value
 * (inside a character: its first byte; past the end: the closing quote). NULL if the string
 * is broken.
 */
const char *jlex_string_at(const char *p, const char *end, unsigned flags, size_t k);

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
/* How many of the 8 bytes of w (the first in its lowest byte) are digits before the first
 * byte that is not one, and (*val) what number they write. */
static inline unsigned jlex_digits8(uint64_t w, uint64_t *val)
{
	const uint64_t ones = 0x0101010101010101ull, high = 0x8080808080808080ull;
	/* A byte that is not '0'..'9' gets its high bit: below '0' by the subtraction, above '9'
	 * by the addition (bytes from 0x80 by one or the other). A borrow or carry only reaches
	 * the bytes above it, so the lowest bit set is exact. */
	uint64_t x = w - ones * '0', m = (x | (w + ones * (0x80 - '9' - 1))) & high;
	unsigned k = m ? (unsigned)__builtin_ctzll(m) >> 3 : 8;

	if (k == 0) {
		*val = 0;
		return 0;
	}
	/* The k digits to the top bytes, zeros below (leading zeros), then pairs, fours, eight. */
	x <<= 8 * (8 - k);
	x = (x * 10 + (x >> 8)) & 0x00ff00ff00ff00ffull;
	x = (x * 100 + (x >> 16)) & 0x0000ffff0000ffffull;
	*val = (x * 10000 + (x >> 32)) & 0xffffffffull;
	return k;
}
#endif

/*
 * The number at p (a '-' or a digit) into *num: the byte after it, or NULL (JLEX_NUMBER,
 * JLEX_LEADING_ZERO). Inline: the event reader reads most fields' numbers without a call.
 */
static _always_inline_ const char *jlex_number(const char *p, const char *end,
					       struct jlex_number *num, struct jlex_fault *f)
{
	const char *q = p, *d;
	uint64_t mag = 0;
	bool overflow = false;

	num->neg = *q == '-';
	q += num->neg;
	if (!jlex_is_digit(*q))
		return jlex_fail(f, JLEX_NUMBER, q, NULL);
	if (*q == '0' && jlex_is_digit(q[1]))
		return jlex_fail(f, JLEX_LEADING_ZERO, q + 1, NULL);
	d = q + 19; /* 19 digits always fit 64 bits; past them, check */
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	/* Up to 16 digits 8 at a time, where 16 bytes are there to load. */
	if (end - q >= 16) {
		static const uint64_t pow10[9] = {1, 10, 100, 1000, 10000, 100000, 1000000,
						  10000000, 100000000};
		uint64_t w, val;
		unsigned k;

		memcpy(&w, q, 8);
		k = jlex_digits8(w, &mag);
		q += k;
		if (k == 8) {
			memcpy(&w, q, 8);
			k = jlex_digits8(w, &val);
			mag = mag * pow10[k] + val;
			q += k;
		}
	}
#endif
	for (; jlex_is_digit(*q) && q < d; q++)
		mag = mag * 10 + (uint64_t)(*q - '0');
	for (; jlex_is_digit(*q); q++) {
		uint64_t m;

		if (__builtin_mul_overflow(mag, 10, &m) ||
		    __builtin_add_overflow(m, (uint64_t)(*q - '0'), &m))
			overflow = true;
		else
			mag = m;
	}
	num->is_int = !overflow;
	num->frac = false;
	if (*q == '.') {
		if (!jlex_is_digit(*++q))
			return jlex_fail(f, JLEX_NUMBER, q, NULL);
		while (jlex_is_digit(*q))
			q++;
		num->is_int = false;
		num->frac = true;
	}
	if (*q == 'e' || *q == 'E') {
		q++;
		if (*q == '+' || *q == '-')
			q++;
		if (!jlex_is_digit(*q))
			return jlex_fail(f, JLEX_NUMBER, q, NULL);
		while (jlex_is_digit(*q))
			q++;
		num->is_int = false;
		num->frac = true;
	}
	if (num->neg && mag > (uint64_t)INT64_MAX + 1)
		num->is_int = false;
	num->mag = mag;
	return q;
}

/* The literal word (true, false, null; n bytes) at p: the byte after it, or NULL. */
static inline const char *jlex_word(const char *p, const char *end, const char *word, size_t n)
{
	if ((size_t)(end - p) < n || memcmp(p, word, n) != 0)
		return NULL;
	return p + n;
}
