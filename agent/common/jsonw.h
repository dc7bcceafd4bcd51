/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * jsonw: an ordered JSON document built in place and written out in one pass, for the JSON the
 * agent makes on its hot path (every alert, every recorded event). json-c makes a hash table per
 * object and a heap allocation per value and key, then walks it all again to print and to free;
 * for an alert, that costs about ten times what this writer does (docs/performance.md).
 *
 * Nodes live in one growable array and string values in one growable arena; jw_reset() keeps
 * both for the next document, so a steady state allocates nothing. Keys are not copied: they
 * must live as long as the document (string literals, static tables). Values are copied.
 * Setting a key that an object already has replaces that value where it stands, as json-c's
 * json_object_object_add does; objects keep insertion order. The text is byte for byte what
 * json-c writes with JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE (tests compare).
 * An allocation failure is sticky: later calls do nothing and jw_finish() returns -ENOMEM.
 * Not thread-safe: one writer per thread.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

struct jw;
typedef uint32_t jw_node;

/* The document's top-level object. */
#define JW_ROOT 0u
/* The deepest nesting jw_finish() writes (deeper nodes cannot be made: jw_object refuses). */
#define JW_MAX_DEPTH 16

struct jw *jw_new(void);
void jw_free(struct jw *w);
/* Empties the document (an empty root object), keeping the memory. */
void jw_reset(struct jw *w);
bool jw_failed(const struct jw *w);

/*
 * Members of object obj (key non-NULL), or elements appended to array obj (key NULL). The
 * container calls return the new node, JW_ROOT on failure (then the document has failed).
 */
/* The calls below as functions, the key's length given (klen: 0 where key is NULL); the
 * calls are inline and take strlen() of the key, which the compiler folds for a literal. */
jw_node jw_object_kl(struct jw *w, jw_node obj, const char *key, size_t klen);
jw_node jw_new_object_kl(struct jw *w, jw_node obj, const char *key, size_t klen);
jw_node jw_new_array_kl(struct jw *w, jw_node obj, const char *key, size_t klen);
void jw_string_kl(struct jw *w, jw_node obj, const char *key, size_t klen, const char *s,
		  size_t len);
void jw_int_kl(struct jw *w, jw_node obj, const char *key, size_t klen, int64_t v);
void jw_uint_kl(struct jw *w, jw_node obj, const char *key, size_t klen, uint64_t v);
void jw_bool_kl(struct jw *w, jw_node obj, const char *key, size_t klen, bool v);
void jw_raw_kl(struct jw *w, jw_node obj, const char *key, size_t klen, const char *json,
	       size_t len);

static inline size_t jw_klen(const char *key)
{
	return key ? strlen(key) : 0;
}

/* obj[key] if it is an object, else a new empty object there. */
static inline jw_node jw_object(struct jw *w, jw_node obj, const char *key)
{
	return jw_object_kl(w, obj, key, jw_klen(key));
}

/* A new empty object or array at obj[key], replacing what was there. */
static inline jw_node jw_new_object(struct jw *w, jw_node obj, const char *key)
{
	return jw_new_object_kl(w, obj, key, jw_klen(key));
}

static inline jw_node jw_new_array(struct jw *w, jw_node obj, const char *key)
{
	return jw_new_array_kl(w, obj, key, jw_klen(key));
}

static inline void jw_string_len(struct jw *w, jw_node obj, const char *key, const char *s,
				 size_t len)
{
	jw_string_kl(w, obj, key, jw_klen(key), s, len);
}

static inline void jw_string(struct jw *w, jw_node obj, const char *key, const char *s)
{
	jw_string_kl(w, obj, key, jw_klen(key), s, strlen(s));
}

/* An array of the NUL-separated strings in p[0..len) (argv as the kernel keeps it). */
void jw_string_list(struct jw *w, jw_node obj, const char *key, const char *p, size_t len);

static inline void jw_int(struct jw *w, jw_node obj, const char *key, int64_t v)
{
	jw_int_kl(w, obj, key, jw_klen(key), v);
}

static inline void jw_uint(struct jw *w, jw_node obj, const char *key, uint64_t v)
{
	jw_uint_kl(w, obj, key, jw_klen(key), v);
}

static inline void jw_bool(struct jw *w, jw_node obj, const char *key, bool v)
{
	jw_bool_kl(w, obj, key, jw_klen(key), v);
}

/* JSON text written as it is (copied): one whole value that the caller made and checked, such
 * as jw_finish_node() wrote it (parts of alerts that stay the same for a rule). */
static inline void jw_raw(struct jw *w, jw_node obj, const char *key, const char *json, size_t len)
{
	jw_raw_kl(w, obj, key, jw_klen(key), json, len);
}

/*
 * For a dotted path ("process.parent.pid"): makes the objects on the way below obj (as
 * jw_object) and returns the last one, with *leaf pointing at the last key inside path.
 */
jw_node jw_path(struct jw *w, jw_node obj, const char *path, const char **leaf);

/*
 * Walking and rearranging a built document (the names of a sent document, agent/event/ecs_map.c):
 * the first member or element of obj and the one after n (0: none), a member's key (klen bytes,
 * not NUL-terminated), and a move of member m of obj to dest[key] (dest may be obj: a rename),
 * replacing what dest had under key. key must live as long as the document.
 */
jw_node jw_first(const struct jw *w, jw_node obj);
jw_node jw_next(const struct jw *w, jw_node n);
const char *jw_key(const struct jw *w, jw_node n, size_t *klen);
bool jw_is_object(const struct jw *w, jw_node n);
void jw_move(struct jw *w, jw_node obj, jw_node m, jw_node dest, const char *key, size_t klen);

/*
 * Writes the document: *text (NUL-terminated, no newline) stays valid until the next
 * jw_reset() or jw_free(). 0, or -ENOMEM.
 */
int jw_finish(struct jw *w, const char **text, size_t *len);
/* The same for one node of the document (an object, array or scalar) and what is below it. */
int jw_finish_node(struct jw *w, jw_node node, const char **text, size_t *len);

/* Appends s as a JSON string (quotes and escapes, as json-c) to buf of *len bytes, room at
 * least 6 * n + 3 bytes past *len. Exposed for the tests. */
void jw_escape(char *buf, size_t *len, const char *s, size_t n);

/* A high bit set in each of the 8 bytes of v that needs an escape in a JSON string: a control
 * character, the quote or the backslash ('/' does not, as with JSON_C_TO_STRING_NOSLASHESCAPE;
 * bytes from 0x7f up pass as they are). The lowest one set is exact (a byte above one that
 * needs an escape may be flagged too, by the borrow). */
static inline uint64_t jw_word_needs_escape(uint64_t v)
{
	const uint64_t ones = 0x0101010101010101ull, high = 0x8080808080808080ull;
	uint64_t lt = (v - ones * 0x20) & ~v & high; /* a byte below 0x20 */
	uint64_t q = v ^ (ones * '"'), b = v ^ (ones * '\\');

	return lt | ((q - ones) & ~q & high) | ((b - ones) & ~b & high);
}

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
/* The n bytes at s (0 < n < 8) as a little-endian word, zero above them, with no load past
 * s + n: two overlapping 4-byte loads, or the first, middle and last byte. */
static inline uint64_t jw_load_short(const char *s, size_t n)
{
	uint32_t lo, hi;

	if (n >= 4) {
		memcpy(&lo, s, 4);
		memcpy(&hi, s + n - 4, 4);
		return (uint64_t)lo | (uint64_t)hi << (8 * (n - 4));
	}
	return (uint64_t)(uint8_t)s[0] | (uint64_t)(uint8_t)s[n / 2] << (8 * (n / 2)) |
	       (uint64_t)(uint8_t)s[n - 1] << (8 * (n - 1));
}
#endif

/* How many bytes from s (of n) need no escape in a JSON string, 8 at a time, the last word
 * overlapping the one before it. The JSON reader uses it too (inline: most strings are a word
 * or two). */
static inline size_t jw_clean_run(const char *s, size_t n)
{
	size_t j = 0;
	uint64_t v, m;

#ifdef __SSE2__
	/* 16 at a time where they are there (x86-64 always has SSE2). */
	for (; j + 16 <= n; j += 16) {
		__m128i x = _mm_loadu_si128((const __m128i *)(const void *)(s + j));
		__m128i q = _mm_cmpeq_epi8(x, _mm_set1_epi8('"'));
		__m128i b = _mm_cmpeq_epi8(x, _mm_set1_epi8('\\'));
		__m128i c = _mm_cmpeq_epi8(_mm_min_epu8(x, _mm_set1_epi8(0x1f)), x); /* <= 0x1f */
		unsigned bits = (unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(q, b), c));

		if (bits)
			return j + (unsigned)__builtin_ctz(bits);
	}
#endif
	for (; j + 8 <= n; j += 8) {
		memcpy(&v, s + j, 8);
		m = jw_word_needs_escape(v);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
		if (m)
			return j + ((unsigned)__builtin_ctzll(m) >> 3);
#else
		if (m)
			break;
#endif
	}
	if (j == n)
		return n;
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	if (n >= 8) {
		/* The bytes before j are clean: the first one flagged is at or past j. */
		memcpy(&v, s + n - 8, 8);
		m = jw_word_needs_escape(v);
		return m ? n - 8 + ((unsigned)__builtin_ctzll(m) >> 3) : n;
	}
	/* The zero bytes above n count as control characters: the first one flagged is at n at
	 * most. */
	return (unsigned)__builtin_ctzll(jw_word_needs_escape(jw_load_short(s, n))) >> 3;
#else
	while (j < n && (uint8_t)s[j] >= 0x20 && s[j] != '"' && s[j] != '\\')
		j++;
	return j;
#endif
}
