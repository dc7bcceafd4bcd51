/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "jsonw.h"

/* A document past this many bytes of strings or nodes fails (-ENOMEM): memory stays bounded
 * whatever a caller feeds it. An alert is a few KiB. */
#define JW_MAX_BYTES (16u << 20)

enum { JT_OBJ, JT_ARR, JT_STR, JT_INT, JT_UINT, JT_BOOL, JT_RAW };

struct jw_n {
	const char *key; /* not NUL-terminated: klen bytes (NULL in arrays) */
	uint32_t klen;
	uint8_t type;
	uint8_t depth;
	uint32_t first, last, next; /* children of a container, the next sibling; 0: none */
	union {
		int64_t i;
		uint64_t u;
		bool b;
		struct {
			uint32_t off, len; /* in the string arena */
		} s; /* JT_STR, JT_RAW */
		uint64_t keys; /* JT_OBJ: key_bit() of each member (most keys are new: no scan) */
	} v;
};

/* A bit for a member name, from its length and its first and last bytes. */
static inline uint64_t key_bit(const char *key, size_t klen)
{
	return 1ull << ((klen ? klen * 5 + (uint8_t)key[0] + (uint8_t)key[klen - 1] * 3 : 0) & 63);
}

struct jw {
	struct jw_n *n;
	size_t nn, ncap; /* JW_MAX_BYTES keeps nn far below UINT32_MAX (jw_node) */
	char *str;
	size_t slen, scap;
	char *out;
	size_t ocap;
	bool failed;
};

static bool grow(void **p, size_t *cap, size_t need, size_t elem)
{
	size_t c = *cap ? *cap : 64;
	void *q;

	if (need <= *cap)
		return true;
	while (c < need)
		c *= 2;
	if (c * elem > JW_MAX_BYTES)
		return false;
	q = realloc(*p, c * elem);
	if (!q)
		return false;
	*p = q;
	*cap = c;
	return true;
}

struct jw *jw_new(void)
{
	struct jw *w = calloc(1, sizeof(*w));

	if (w)
		jw_reset(w);
	return w;
}

void jw_free(struct jw *w)
{
	if (!w)
		return;
	free(w->n);
	free(w->str);
	free(w->out);
	free(w);
}

void jw_reset(struct jw *w)
{
	w->failed = false;
	w->slen = 0;
	w->nn = 0;
	/* The string arena exists from the start: an empty string is an offset into it. */
	if (!grow((void **)&w->n, &w->ncap, 1, sizeof(*w->n)) ||
	    !grow((void **)&w->str, &w->scap, 1, 1)) {
		w->failed = true;
		return;
	}
	memset(&w->n[0], 0, sizeof(w->n[0]));
	w->n[0].type = JT_OBJ;
	w->nn = 1;
}

bool jw_failed(const struct jw *w)
{
	return w->failed;
}

static jw_node fail(struct jw *w)
{
	w->failed = true;
	return JW_ROOT;
}

/* The node for obj[key] (found, or appended), or for a new element of array obj; 0 on error. */
static jw_node slot(struct jw *w, jw_node obj, const char *key, size_t klen)
{
	struct jw_n *p;
	jw_node c;

	if (w->failed || obj >= w->nn)
		return fail(w);
	p = &w->n[obj];
	if (key ? p->type != JT_OBJ : p->type != JT_ARR)
		return fail(w);
	if (key && (p->v.keys & key_bit(key, klen)))
		for (c = p->first; c; c = w->n[c].next)
			if (w->n[c].klen == klen &&
			    (w->n[c].key == key ||
			     (!klen || (w->n[c].key[0] == key[0] && memcmp(w->n[c].key, key, klen) == 0))))
				return c;
	if (p->depth >= JW_MAX_DEPTH || !grow((void **)&w->n, &w->ncap, w->nn + 1, sizeof(*w->n)))
		return fail(w);
	c = (jw_node)w->nn++;
	p = &w->n[obj];
	w->n[c] = (struct jw_n){.key = key, .klen = (uint32_t)klen, .depth = (uint8_t)(p->depth + 1)};
	if (p->last)
		w->n[p->last].next = c;
	else
		p->first = c;
	p->last = c;
	if (key)
		p->v.keys |= key_bit(key, klen);
	return c;
}

/* A node as a new value of type: what it held before (children too) is gone. */
static struct jw_n *retype(struct jw *w, jw_node c, int type)
{
	w->n[c].type = (uint8_t)type;
	w->n[c].first = w->n[c].last = 0;
	w->n[c].v.keys = 0;
	return &w->n[c];
}

/* obj's member key[0..klen) (NULL: a new element) as a container of type: kept as it is when
 * keep and it is one already, else made empty. */
static jw_node container(struct jw *w, jw_node obj, const char *key, size_t klen, int type,
			 bool keep)
{
	jw_node c = slot(w, obj, key, klen);

	if (c && (!keep || w->n[c].type != type))
		retype(w, c, type);
	return c;
}

jw_node jw_object_kl(struct jw *w, jw_node obj, const char *key, size_t klen)
{
	return container(w, obj, key, klen, JT_OBJ, true);
}

jw_node jw_new_object_kl(struct jw *w, jw_node obj, const char *key, size_t klen)
{
	return container(w, obj, key, klen, JT_OBJ, false);
}

jw_node jw_new_array_kl(struct jw *w, jw_node obj, const char *key, size_t klen)
{
	return container(w, obj, key, klen, JT_ARR, false);
}

static struct jw_n *scalar(struct jw *w, jw_node obj, const char *key, size_t klen, int type)
{
	jw_node c = slot(w, obj, key, klen);

	return c ? retype(w, c, type) : NULL;
}

/* A string value, or (JT_RAW) JSON text, copied into the arena. */
static void text_value(struct jw *w, jw_node obj, const char *key, size_t klen, const char *s,
		       size_t len, int type)
{
	struct jw_n *n;
	size_t off = w->slen;

	if (w->failed || len > JW_MAX_BYTES || !grow((void **)&w->str, &w->scap, off + len, 1)) {
		fail(w);
		return;
	}
	n = scalar(w, obj, key, klen, type);
	if (!n)
		return;
	memcpy(w->str + off, s, len);
	w->slen = off + len;
	n->v.s.off = (uint32_t)off;
	n->v.s.len = (uint32_t)len;
}

void jw_string_kl(struct jw *w, jw_node obj, const char *key, size_t klen, const char *s,
		  size_t len)
{
	text_value(w, obj, key, klen, s, len, JT_STR);
}

void jw_raw_kl(struct jw *w, jw_node obj, const char *key, size_t klen, const char *json,
	       size_t len)
{
	text_value(w, obj, key, klen, json, len, JT_RAW);
}

void jw_string_list(struct jw *w, jw_node obj, const char *key, const char *p, size_t len)
{
	jw_node a = jw_new_array(w, obj, key);
	size_t off = 0;

	while (off < len) {
		size_t n = strnlen(p + off, len - off);

		jw_string_kl(w, a, NULL, 0, p + off, n);
		off += n + 1;
	}
}

void jw_int_kl(struct jw *w, jw_node obj, const char *key, size_t klen, int64_t v)
{
	struct jw_n *n = scalar(w, obj, key, klen, JT_INT);

	if (n)
		n->v.i = v;
}

void jw_uint_kl(struct jw *w, jw_node obj, const char *key, size_t klen, uint64_t v)
{
	struct jw_n *n = scalar(w, obj, key, klen, JT_UINT);

	if (n)
		n->v.u = v;
}

void jw_bool_kl(struct jw *w, jw_node obj, const char *key, size_t klen, bool v)
{
	struct jw_n *n = scalar(w, obj, key, klen, JT_BOOL);

	if (n)
		n->v.b = v;
}

jw_node jw_path(struct jw *w, jw_node obj, const char *path, const char **leaf)
{
	const char *dot;

	while ((dot = strchr(path, '.'))) {
		jw_node c = container(w, obj, path, (size_t)(dot - path), JT_OBJ, true);

		if (!c)
			break;
		obj = c;
		path = dot + 1;
	}
	*leaf = path;
	return w->failed ? JW_ROOT : obj;
}

/* memcpy() without the call, for the short runs most strings are. */
jw_node jw_first(const struct jw *w, jw_node obj)
{
	return w->failed || obj >= w->nn ? 0 : w->n[obj].first;
}

jw_node jw_next(const struct jw *w, jw_node n)
{
	return w->failed || n >= w->nn ? 0 : w->n[n].next;
}

const char *jw_key(const struct jw *w, jw_node n, size_t *klen)
{
	*klen = n < w->nn ? w->n[n].klen : 0;
	return n < w->nn && w->n[n].key ? w->n[n].key : "";
}

bool jw_is_object(const struct jw *w, jw_node n)
{
	return n < w->nn && w->n[n].type == JT_OBJ;
}

/* Unlinks child c from container p (0 when it is not there). */
static bool unlink_child(struct jw *w, jw_node p, jw_node c)
{
	jw_node prev = 0, i;

	for (i = w->n[p].first; i && i != c; i = w->n[i].next)
		prev = i;
	if (!i)
		return false;
	if (prev)
		w->n[prev].next = w->n[c].next;
	else
		w->n[p].first = w->n[c].next;
	if (w->n[p].last == c)
		w->n[p].last = prev;
	w->n[c].next = 0;
	return true;
}

/* The depth of n and of what is below it, from d. */
static void set_depth(struct jw *w, jw_node n, unsigned d)
{
	jw_node c;

	w->n[n].depth = (uint8_t)d;
	if (w->n[n].type == JT_OBJ || w->n[n].type == JT_ARR)
		for (c = w->n[n].first; c; c = w->n[c].next)
			set_depth(w, c, d + 1);
}

void jw_move(struct jw *w, jw_node obj, jw_node m, jw_node dest, const char *key, size_t klen)
{
	jw_node old;

	if (w->failed || obj >= w->nn || m >= w->nn || dest >= w->nn || !m ||
	    w->n[dest].type != JT_OBJ) {
		fail(w);
		return;
	}
	for (old = w->n[dest].first; old; old = w->n[old].next)
		if (old != m && w->n[old].klen == klen && memcmp(w->n[old].key, key, klen) == 0)
			break;
	if (old)
		unlink_child(w, dest, old);
	w->n[m].key = key;
	w->n[m].klen = (uint32_t)klen;
	w->n[dest].v.keys |= key_bit(key, klen);
	if (dest == obj)
		return;
	if (!unlink_child(w, obj, m) || w->n[dest].depth >= JW_MAX_DEPTH) {
		fail(w);
		return;
	}
	if (w->n[dest].last)
		w->n[w->n[dest].last].next = m;
	else
		w->n[dest].first = m;
	w->n[dest].last = m;
	set_depth(w, m, w->n[dest].depth + 1u);
}

static inline void copy_run(char *o, const char *s, size_t k)
{
	uint64_t a, b;
	uint32_t c, d;

	if (k > 16) {
		memcpy(o, s, k);
	} else if (k >= 8) {
		memcpy(&a, s, 8);
		memcpy(&b, s + k - 8, 8);
		memcpy(o, &a, 8);
		memcpy(o + k - 8, &b, 8);
	} else if (k >= 4) {
		memcpy(&c, s, 4);
		memcpy(&d, s + k - 4, 4);
		memcpy(o, &c, 4);
		memcpy(o + k - 4, &d, 4);
	} else {
		while (k--)
			*o++ = *s++;
	}
}

void jw_escape(char *buf, size_t *len, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	char *o = buf + *len;
	size_t i = 0;

	*o++ = '"';
	while (i < n) {
		size_t run = i + jw_clean_run(s + i, n - i);
		uint8_t c;

		copy_run(o, s + i, run - i);
		o += run - i;
		if (run == n)
			break;
		c = (uint8_t)s[run];
		*o++ = '\\';
		switch (c) {
		case '\b':
			*o++ = 'b';
			break;
		case '\t':
			*o++ = 't';
			break;
		case '\n':
			*o++ = 'n';
			break;
		case '\f':
			*o++ = 'f';
			break;
		case '\r':
			*o++ = 'r';
			break;
		case '"':
		case '\\':
			*o++ = (char)c;
			break;
		default:
			memcpy(o, "u00", 3);
			o[3] = hex[c >> 4];
			o[4] = hex[c & 15];
			o += 5;
		}
		i = run + 1;
	}
	*o++ = '"';
	*len = (size_t)(o - buf);
}

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
/* Whether s[0..n) needs no escape, for the short strings most names and values are: one or
 * two words without the call; jw_clean_run() past 16 bytes. */
static inline bool clean_short(const char *s, size_t n)
{
	uint64_t a, b;

	if (n > 16)
		return jw_clean_run(s, n) == n;
	if (n >= 8) {
		memcpy(&a, s, 8);
		memcpy(&b, s + n - 8, 8);
		return !(jw_word_needs_escape(a) | jw_word_needs_escape(b));
	}
	/* The zero bytes above n are flagged (control characters); a flag only reaches up. */
	return n == 0 || !(jw_word_needs_escape(jw_load_short(s, n)) & (~0ull >> (64 - 8 * n)));
}
#else
static inline bool clean_short(const char *s, size_t n)
{
	return jw_clean_run(s, n) == n;
}
#endif

/* s[0..n), which needs no escape, as a JSON string at o; the byte after it. */
static inline char *put_clean(char *o, const char *s, size_t n)
{
	*o++ = '"';
	copy_run(o, s, n);
	o += n;
	*o++ = '"';
	return o;
}

static char *put_u64(char *o, uint64_t v)
{
	char tmp[20];
	int k = 0;

	do {
		tmp[k++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (k)
		*o++ = tmp[--k];
	return o;
}

static __attribute__((noinline)) bool grow_out(struct jw *w, size_t need)
{
	return grow((void **)&w->out, &w->ocap, need, 1);
}

/* Room for what write_node may add next: a key, a separator and a short value. */
static inline bool room(struct jw *w, size_t used, size_t more)
{
	if (__builtin_expect(used + more + 1 <= w->ocap, 1))
		return true;
	return grow_out(w, used + more + 1);
}

static int write_node(struct jw *w, jw_node i, size_t *len)
{
	const struct jw_n *n = &w->n[i];
	jw_node c;
	char *o;

	switch (n->type) {
	case JT_STR:
		if (!room(w, *len, (size_t)n->v.s.len * 6 + 2))
			return -ENOMEM;
		if (n->v.s.len <= 16 && clean_short(w->str + n->v.s.off, n->v.s.len))
			*len = (size_t)(put_clean(w->out + *len, w->str + n->v.s.off, n->v.s.len) -
					w->out);
		else
			jw_escape(w->out, len, w->str + n->v.s.off, n->v.s.len);
		return 0;
	case JT_RAW:
		if (!room(w, *len, n->v.s.len))
			return -ENOMEM;
		memcpy(w->out + *len, w->str + n->v.s.off, n->v.s.len);
		*len += n->v.s.len;
		return 0;
	case JT_INT:
	case JT_UINT:
	case JT_BOOL:
		if (!room(w, *len, 24))
			return -ENOMEM;
		o = w->out + *len;
		if (n->type == JT_BOOL) {
			memcpy(o, n->v.b ? "true" : "false", n->v.b ? 4 : 5);
			o += n->v.b ? 4 : 5;
		} else if (n->type == JT_UINT)
			o = put_u64(o, n->v.u);
		else if (n->v.i < 0) {
			*o++ = '-';
			o = put_u64(o, (uint64_t)0 - (uint64_t)n->v.i);
		} else
			o = put_u64(o, (uint64_t)n->v.i);
		*len = (size_t)(o - w->out);
		return 0;
	}
	/* An object or an array. */
	if (!room(w, *len, 2))
		return -ENOMEM;
	w->out[(*len)++] = n->type == JT_OBJ ? '{' : '[';
	for (c = n->first; c; c = w->n[c].next) {
		const struct jw_n *k = &w->n[c];
		int r;

		if (!room(w, *len, (size_t)k->klen * 6 + 4))
			return -ENOMEM;
		if (c != n->first)
			w->out[(*len)++] = ',';
		if (n->type == JT_OBJ && !clean_short(k->key, k->klen)) {
			jw_escape(w->out, len, k->key, k->klen);
			w->out[(*len)++] = ':';
		} else if (n->type == JT_OBJ) {
			/* Most names (from the code) need no escape: copied inline. */
			o = put_clean(w->out + *len, k->key, k->klen);
			*o++ = ':';
			*len = (size_t)(o - w->out);
		}
		r = write_node(w, c, len);
		if (r < 0)
			return r;
	}
	if (!room(w, *len, 1))
		return -ENOMEM;
	w->out[(*len)++] = n->type == JT_OBJ ? '}' : ']';
	return 0;
}

int jw_finish(struct jw *w, const char **text, size_t *len)
{
	return jw_finish_node(w, JW_ROOT, text, len);
}

int jw_finish_node(struct jw *w, jw_node node, const char **text, size_t *len)
{
	size_t l = 0;

	if (w->failed || node >= w->nn || write_node(w, node, &l) < 0) {
		w->failed = true;
		return -ENOMEM;
	}
	w->out[l] = 0;
	*text = w->out;
	*len = l;
	return 0;
}
