/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The event reader (event_reader_*(), event_from_json()): JSON text straight into struct
 * rg_event, for replay's hot path. json-c built a hash table per object and a heap value per
 * member, three quarters of what replaying an event cost. The tokens are common/jsonlex's
 * (strict RFC 8259, with two relaxations for what the writer records: bytes from 0x80 up as
 * they are, a lone surrogate as U+FFFD); the objects, arrays and fields are this file's. It
 * keeps only what it needs: the value at each dotted path that is a field of some event type
 * (a slot), strings unescaped into one scratch buffer, array elements in one pool, both sized
 * from the line's length. Then the event's type (event.action) picks which slots are its
 * fields, converted in table order. event_from_json() (json-c objects: tests, the cold paths)
 * prints the object and reads that.
 *
 * Member names are looked up one at a time in the tree of the objects that lead to fields
 * (node 0 is the top level, then "process", "process.parent", ...): no path is built or
 * hashed. The text ends in a NUL byte, which stops every scanning loop, so the end of the text
 * is looked for only where a NUL turns up.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stddef.h>
#include <string.h>

#include "event_schema.h"
#include "common/jsonlex.h"
#include "common/macro.h"
#include "common/number.h"
#include "common/timestamp.h"

#define MAX_DEPTH	 32 /* json-c's default nesting limit */
/* The lexer's relaxations: the writer records the kernel's bytes (comm, argv) as they are. */
#define LEX_FLAGS	 (JLEX_RAW_BYTES | JLEX_LONE_SURROGATE)

/* A value the reader kept. A string without escapes (most) points into the line, s[0..len);
 * one with escapes is unescaped into the scratch buffer, NUL-terminated (a \u0000 inside ends
 * it early, as it did with json-c's strings), and so is any string jv_cstr() is asked for.
 * Numbers keep their grammar. */
enum { JV_NULL, JV_BOOL, JV_NUM, JV_STR, JV_ARR, JV_OBJ };

struct jv {
	uint32_t gen;	/* the value is this read's when gen is the reader's (no clearing) */
	uint8_t type;
	bool b;		/* JV_BOOL */
	bool is_int;	/* JV_NUM: no fraction, no exponent, and fits 64 bits */
	bool neg;	/* JV_NUM: a minus sign */
	bool term;	/* JV_STR: s is NUL-terminated (in the scratch buffer) */
	uint32_t len;	/* JV_STR: its length (strlen(s) where term) */
	uint64_t mag;	/* JV_NUM: |value| when is_int */
	const char *s;	/* JV_STR */
	uint32_t first; /* JV_ARR: elements in the pool */
	uint32_t n;
};

struct event_reader {
	char *scratch;
	size_t cap, used;
	struct jv *items;
	size_t icap, iused;
	size_t max_len;
	struct jv val[MAX_SLOTS];
	uint32_t gen;
	uint32_t node_gen[MAX_NODES]; /* a node met in this read has the reader's gen */
	/* Lines of a kind have their members in the same order: the entry (index + 1; 0: none)
	 * that came first below each node, and after each entry, in the last line that had them.
	 * A guess is checked (key_at) before it is taken; a wrong one costs the lookup. */
	uint16_t first_key[MAX_NODES];
	uint16_t next_key[MAX_KEYS];
	struct ts_cache ts; /* lines come in time order: most stamps share a minute */
	/* the read */
	const char *start, *end, *err_at;
	const char *err_what;
	struct jlex_fault lex; /* the lexer's, until lex_fail() words it */
};

/* Forgets the values kept below a node if it was met before in this read. */
static void forget(struct event_reader *r, unsigned node)
{
	unsigned w;

	if (r->node_gen[node] != r->gen) {
		r->node_gen[node] = r->gen;
		return;
	}
	for (w = 0; w < MAX_SLOTS / 64; w++) {
		uint64_t b = event_schema.below[node][w];

		while (b) {
			r->val[w * 64 + (unsigned)__builtin_ctzll(b)].gen = 0;
			b &= b - 1;
		}
	}
}

int event_reader_new(size_t max_len, struct event_reader **ret)
{
	struct event_reader *r;

	if (max_len > (64u << 20))
		return -E2BIG;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	/* Unescaping never makes a string longer; each one gains a NUL: at most 2 x the line.
	 * An array element takes at least two bytes of text ("x," or "1,"). */
	r->cap = 2 * max_len + 2;
	r->icap = max_len / 2 + 2;
	r->max_len = max_len;
	r->scratch = malloc(r->cap);
	r->items = malloc(r->icap * sizeof(*r->items));
	if (!r->scratch || !r->items) {
		event_reader_free(r);
		return -ENOMEM;
	}
	event_schema_init();
	*ret = r;
	return 0;
}

void event_reader_free(struct event_reader *r)
{
	if (!r)
		return;
	free(r->scratch);
	free(r->items);
	free(r);
}

/* Records the first error; NULL, for the callers to return. */
static const char *fail(struct event_reader *r, const char *at, const char *what)
{
	if (!r->err_what) {
		r->err_at = at;
		r->err_what = what;
	}
	return NULL;
}

static const char *unexpected(struct event_reader *r, const char *at)
{
	return fail(r, at, at == r->end ? "unexpected end of line" : "unexpected character");
}

/* A lexer fault in this reader's words (out of line: the reads that go well have no call). */
static __attribute__((cold, noinline)) const char *lex_fail(struct event_reader *r)
{
	const struct jlex_fault *f = &r->lex;
	static const char *const what[] = {
		[JLEX_EOF_STRING] = "unterminated string",
		[JLEX_CONTROL] = "control character in a string",
		[JLEX_ESCAPE] = "invalid escape",
		[JLEX_U_ESCAPE] = "invalid \\u escape",
		[JLEX_NUMBER] = "invalid number",
		[JLEX_LEADING_ZERO] = "invalid number: a leading zero",
	};

	/* The other faults are those of the relaxations this reader does not ask for. */
	return fail(r, f->at, (size_t)f->code < ARRAY_SIZE(what) && what[f->code] ? what[f->code]
										  : "invalid JSON");
}

/* A number at p into *v. Inline: read_object's loop reads fields' numbers without a call. */
static _always_inline_ const char *read_number(struct event_reader *r, const char *p, struct jv *v)
{
	struct jlex_number num;

	v->gen = r->gen;
	v->type = JV_NUM;
	p = jlex_number(p, r->end, &num, &r->lex);
	if (!p)
		return lex_fail(r);
	v->neg = num.neg;
	v->is_int = num.is_int; /* a negative one fits int64_t, as json-c's did */
	v->mag = num.mag;
	return p;
}

static const char *read_literal(struct event_reader *r, const char *p, const char *word, size_t n)
{
	const char *q = jlex_word(p, r->end, word, n);

	return q ? q : fail(r, p, "unexpected character");
}

static _always_inline_ const char *read_value(struct event_reader *r, const char *p,
					      struct jv *keep, unsigned depth);
static const char *read_other(struct event_reader *r, const char *p, struct jv *keep,
			      unsigned depth);

/* A string at p ('"'), kept where keep is not NULL: in the line where it has no escapes, else
 * unescaped in the scratch buffer. */
static inline const char *read_string(struct event_reader *r, const char *p, struct jv *keep)
{
	char *out = r->scratch + r->used;
	const char *s;
	size_t len;

	p = jlex_string(p, r->end, LEX_FLAGS, out, &s, &len, &r->lex);
	if (!p)
		return lex_fail(r);
	if (!keep)
		return p;
	if (s == out) {
		len = strlen(out);
		r->used += len + 1;
	}
	*keep = (struct jv){.gen = r->gen, .type = JV_STR, .term = s == out, .s = s,
			    .len = (uint32_t)len};
	return p;
}

/* A kept string as a C string: one in the line is copied into the scratch buffer once (only
 * after the read: the buffer holds every string once at most, as its size allows). */
static const char *jv_cstr(struct event_reader *r, struct jv *v)
{
	char *out;

	if (v->term)
		return v->s;
	out = r->scratch + r->used;
	memcpy(out, v->s, v->len);
	out[v->len] = 0;
	r->used += v->len + 1;
	v->s = out;
	v->term = true;
	return out;
}

/*
 * The members of an object at p ('{'); node: its place in the tree of names that lead to
 * fields, -1 if none of its members can be a field (checked, never kept).
 */
static const char *read_object(struct event_reader *r, const char *p, int node, unsigned depth)
{
	uint16_t *guess = node >= 0 ? &r->first_key[node] : NULL;

	p = jlex_ws(p + 1);
	if (*p == '}')
		return p + 1;
	for (;;) {
		const struct key_entry *k = NULL;
		const char *key, *kend;
		size_t klen;

		if (*p != '"')
			return unexpected(r, p);
		if (guess && *guess && key_at(&event_schema.key[*guess - 1], p + 1, r->end)) {
			/* The guessed name, quotes and all (names in the table have no escapes). */
			k = &event_schema.key[*guess - 1];
			p += k->len + 2;
		} else {
			/* An escaped key is unescaped past what is kept: the value overwrites it. */
			p = jlex_string(p, r->end, LEX_FLAGS, r->scratch + r->used, &key, &klen,
					&r->lex);
			if (!p)
				return lex_fail(r);
			if (node >= 0) {
				kend = key == r->scratch + r->used ? key + klen : r->end;
				k = key_find((unsigned)node, key, klen, kend);
				if (guess)
					*guess = k ? (uint16_t)(k->id + 1) : 0;
			}
		}
		/* After a name that is not in the table, no guess for the next. */
		if (node >= 0)
			guess = k ? &r->next_key[k->id] : NULL;
		/* Lines are mostly without blanks: ':' and ',' are looked for first. */
		if (*p != ':') {
			p = jlex_ws(p);
			if (*p != ':')
				return unexpected(r, p);
		}
		p = jlex_ws(p + 1);
		if (k && k->slot >= 0) {
			/* A field (never deep: no nesting check): strings and numbers here. */
			struct jv *keep = &r->val[k->slot];

			if (*p == '"')
				p = read_string(r, p, keep);
			else if (*p == '-' || jlex_is_digit(*p))
				p = read_number(r, p, keep);
			else
				p = read_other(r, p, keep, depth + 1);
		} else {
			if (k)
				forget(r, (unsigned)k->node);
			if (*p == '{') {
				/* Not a field: its members may be (process -> process.parent.pid). */
				if (depth + 1 > MAX_DEPTH)
					return fail(r, p, "nesting too deep");
				p = read_object(r, p, k ? k->node : -1, depth + 1);
			} else
				p = read_value(r, p, NULL, depth + 1);
		}
		if (!p)
			return NULL;
		if (*p != ',') {
			p = jlex_ws(p);
			if (*p == '}')
				return p + 1;
			if (*p != ',')
				return unexpected(r, p);
		}
		p = jlex_ws(p + 1);
	}
}

/*
 * Any value at p; keep: where to keep it (a field's slot, an array element), or NULL: only
 * checked. Strings and numbers here (inline: most values are), the rest in read_other().
 */
static _always_inline_ const char *read_value(struct event_reader *r, const char *p,
					      struct jv *keep, unsigned depth)
{
	struct jv tmp;

	if (depth > MAX_DEPTH)
		return fail(r, p, "nesting too deep");
	if (*p == '"')
		return read_string(r, p, keep);
	if (*p == '-' || jlex_is_digit(*p))
		return read_number(r, p, keep ? keep : &tmp);
	return read_other(r, p, keep, depth);
}

/* An object, an array or a literal at p (read_value() for the rest). An object is kept as
 * JV_OBJ without its members (no field is an object), an array with its elements in the pool. */
static const char *read_other(struct event_reader *r, const char *p, struct jv *keep,
			      unsigned depth)
{
	switch (*p) {
	case '{':
		if (keep)
			*keep = (struct jv){.gen = r->gen, .type = JV_OBJ};
		return read_object(r, p, -1, depth);
	case '[': {
		uint32_t first = (uint32_t)r->iused, n = 0;

		p = jlex_ws(p + 1);
		if (*p == ']') {
			p++;
		} else {
			for (;;) {
				struct jv *item = NULL;

				if (keep) {
					/* Cannot run out (two bytes of text an element at least). */
					if (r->iused >= r->icap)
						return fail(r, p, "too many array elements");
					item = &r->items[r->iused++];
					n++;
				}
				if (!(p = read_value(r, p, item, depth + 1)))
					return NULL;
				p = jlex_ws(p);
				if (*p == ']') {
					p++;
					break;
				}
				if (*p != ',')
					return unexpected(r, p);
				p = jlex_ws(p + 1);
			}
		}
		if (keep)
			*keep = (struct jv){.gen = r->gen, .type = JV_ARR, .first = first, .n = n};
		return p;
	}
	case 't':
	case 'f': {
		bool b = *p == 't';

		if (!(p = read_literal(r, p, b ? "true" : "false", b ? 4 : 5)))
			return NULL;
		if (keep)
			*keep = (struct jv){.gen = r->gen, .type = JV_BOOL, .b = b};
		return p;
	}
	case 'n':
		if (!(p = read_literal(r, p, "null", 4)))
			return NULL;
		if (keep)
			*keep = (struct jv){.gen = r->gen, .type = JV_NULL};
		return p;
	default:
		return unexpected(r, p);
	}
}

/* The value of the string v in f's enum: from the table, else from_str (values past
 * ENUM_VALUES), else a number. -1 if none. */
static int64_t enum_value(struct event_reader *r, const struct event_field *f, struct jv *v)
{
	const struct key_entry *k;
	const char *s;
	uint32_t n;
	unsigned e;
	int x;

	for (e = 0; e < event_schema.nenum; e++)
		if (event_schema.enum_from[e] == f->from_str) {
			k = key_find(ENUM_NODE(e), v->s, v->len, v->s + v->len);
			if (k)
				return k->slot;
			break;
		}
	s = jv_cstr(r, v);
	x = f->from_str(s);
	if (x >= 0)
		return x;
	return safe_atou32(s, 10, &n) < 0 ? -1 : (int64_t)n;
}

static int get_u64(const struct jv *v, uint64_t *ret)
{
	if (v->type != JV_NUM || !v->is_int)
		return -EINVAL;
	if (v->neg && v->mag)
		return -ERANGE;
	*ret = v->mag;
	return 0;
}

static int get_i64(const struct jv *v, int64_t *ret)
{
	if (v->type != JV_NUM || !v->is_int || (!v->neg && v->mag > (uint64_t)INT64_MAX))
		return -EINVAL;
	*ret = v->neg ? (int64_t)(0 - v->mag) : (int64_t)v->mag;
	return 0;
}

/* -EINVAL with the message in err (out of line: field_from_jv()'s path is the one without). */
static __attribute__((cold, noinline)) _printf_(3, 4) int field_error(char *err, size_t errlen,
								     const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* An EFK_ACCESS or EFK_FLAGS field: an array of the names of its bits. */
static int names_from_jv(struct event_reader *r, struct jv *v, struct rg_event *ev,
			 const struct event_field *f, char *err, size_t errlen)
{
	uint32_t bits = 0;
	size_t k;

	if (v->type != JV_ARR)
		return field_error(err, errlen, "%s: expected an array of names", f->name);
	for (k = 0; k < v->n; k++) {
		struct jv *e = &r->items[v->first + k];
		uint32_t bit = 0;
		unsigned j;

		if (e->type != JV_STR)
			return field_error(err, errlen, "%s[%zu]: expected a string", f->name, k);
		jv_cstr(r, e);
		if (f->kind == EFK_ACCESS) {
			if (access_from_string(e->s, &bit) < 0)
				return field_error(err, errlen,
						   "%s[%zu]: unknown access flag \"%s\"", f->name,
						   k, e->s);
		} else {
			for (j = 0; j < EVENT_NFLAGS; j++)
				if (strcmp(event_flag_names[j], e->s) == 0)
					bit = 1u << j;
			if (!bit)
				return field_error(err, errlen, "%s[%zu]: unknown flag \"%s\"",
						   f->name, k, e->s);
		}
		bits |= bit;
	}
	*AT(ev, f, uint32_t) = bits;
	return 0;
}

/* An EFK_ARGS field: an array of strings, packed NUL-separated, their length in aux. */
static int args_from_jv(struct event_reader *r, struct jv *v, struct rg_event *ev,
			const struct event_field *f, char *err, size_t errlen)
{
	char *p = AT(ev, f, char);
	uint32_t off = 0;
	size_t k;

	if (v->type != JV_ARR)
		return field_error(err, errlen, "%s: expected an array of strings", f->name);
	for (k = 0; k < v->n && off < f->size; k++) {
		const struct jv *e = &r->items[v->first + k];
		size_t l;

		if (e->type != JV_STR)
			return field_error(err, errlen, "%s[%zu]: expected a string", f->name, k);
		l = e->len;
		if (k + 1 == v->n && off + l == f->size) {
			/* The last one may fill the buffer: the length ends it, not a NUL. */
			for (size_t c = 0; c < l; c++)
				p[off + c] = ((unsigned char)e->s[c] < 0x20 || e->s[c] == 0x7f)
						     ? '?' : e->s[c];
			off += (uint32_t)l;
			break;
		}
		if (off + l + 1 > f->size) {
			ev->flags |= RG_EVF_TRUNC;
			break;
		}
		event_set_str(p + off, l + 1, e->s, l);
		off += (uint32_t)l + 1;
	}
	*(uint32_t *)((char *)ev + f->aux) = off;
	return 0;
}

static int field_from_jv(struct event_reader *r, struct jv *v, struct rg_event *ev,
			 const struct event_field *f, char *err, size_t errlen)
{
	bool str = v->type == JV_STR;
	uint64_t u;
	int64_t i, x;

#define FAIL(...) return field_error(err, errlen, __VA_ARGS__)

	switch (f->kind) {
	case EFK_U32:
		if (f->size == 2) {
			if (get_u64(v, &u) < 0 || u > UINT16_MAX)
				FAIL("%s: expected an unsigned 16-bit integer", f->name);
			*AT(ev, f, uint16_t) = (uint16_t)u;
			return 0;
		}
		if (get_u64(v, &u) < 0 || u > UINT32_MAX)
			FAIL("%s: expected an unsigned 32-bit integer", f->name);
		*AT(ev, f, uint32_t) = (uint32_t)u;
		/* A field whose zero is a value (pci.iommu.group 0): aux marks it present. */
		if (f->aux)
			*(uint32_t *)((char *)ev + f->aux) = 1;
		return 0;
	case EFK_U64:
		if (get_u64(v, &u) < 0)
			FAIL("%s: expected an unsigned 64-bit integer", f->name);
		*AT(ev, f, uint64_t) = u;
		return 0;
	case EFK_I32:
		if (get_i64(v, &i) < 0)
			FAIL("%s: expected an integer", f->name);
		if (i < INT32_MIN || i > INT32_MAX)
			FAIL("%s: out of range", f->name);
		*AT(ev, f, int32_t) = (int32_t)i;
		return 0;
	case EFK_HEX32:
		if (!str || safe_atou64(jv_cstr(r, v), 16, &u) < 0 || u > UINT32_MAX)
			FAIL("%s: expected a hex string like \"0x15b3\"", f->name);
		*AT(ev, f, uint32_t) = (uint32_t)u;
		return 0;
	case EFK_STR:
		if (!str)
			FAIL("%s: expected a string", f->name);
		event_set_str(AT(ev, f, char), f->size, v->s, v->len);
		return 0;
	case EFK_ENUM:
		if (!str)
			FAIL("%s: expected a string", f->name);
		x = enum_value(r, f, v);
		if (x < 0)
			FAIL("%s: unknown value \"%s\"", f->name, jv_cstr(r, v));
		if (f->size == 2) {
			if (x > UINT16_MAX)
				FAIL("%s: out of range", f->name);
			*AT(ev, f, uint16_t) = (uint16_t)x;
		} else
			*AT(ev, f, uint32_t) = (uint32_t)x;
		return 0;
	case EFK_ACCESS:
	case EFK_FLAGS:
		return names_from_jv(r, v, ev, f, err, errlen);
	case EFK_GID: {
		struct rg_addr a;

		if (!str || addr_from_string(jv_cstr(r, v), &a) < 0)
			FAIL("%s: expected an IPv6 GID", f->name);
		memcpy(AT(ev, f, uint8_t), a.addr, 16);
		return 0;
	}
	case EFK_GID_V4:
		return 0; /* derived */
	case EFK_ADDR: {
		struct rg_addr *a = AT(ev, f, struct rg_addr);
		uint16_t port = a->port;

		if (!str || addr_from_string(jv_cstr(r, v), a) < 0)
			FAIL("%s: expected an IP address", f->name);
		a->port = port;
		return 0;
	}
	case EFK_PORT:
		if (get_u64(v, &u) < 0 || u > 65535)
			FAIL("%s: expected a port number", f->name);
		AT(ev, f, struct rg_addr)->port = (uint16_t)u;
		return 0;
	case EFK_ARGS:
		return args_from_jv(r, v, ev, f, err, errlen);
	case EFK_BOOLFLAG:
		if (v->type != JV_BOOL)
			FAIL("%s: expected true or false", f->name);
		if (v->b)
			*AT(ev, f, uint32_t) |= f->aux;
		else
			*AT(ev, f, uint32_t) &= ~f->aux;
		return 0;
	case EFK_TIME:
		if (!str || parse_timestamp_cached(v->s, v->len, &u, &r->ts) < 0)
			FAIL("%s: expected an RFC 3339 UTC time like 2026-01-02T03:04:05.000006Z", f->name);
		*AT(ev, f, uint64_t) = u;
		return 0;
	}
#undef FAIL
	return -EINVAL;
}

/* The value this read kept in a slot, NULL if none (or a JSON null). */
static struct jv *kept(struct event_reader *r, int slot)
{
	struct jv *v = &r->val[slot];

	return v->gen == r->gen && v->type != JV_NULL ? v : NULL;
}

static int apply_fields(struct event_reader *r, struct rg_event *ev,
			const struct event_field *f, const uint16_t *slot, size_t n, char *err,
			size_t errlen)
{
	size_t i;

	for (i = 0; i < n; i++) {
		struct jv *v = kept(r, slot[i]);
		uint64_t u;
		int ret;

		if (!v)
			continue;
		/* The most common kinds without the call (field_from_jv's answer; it reports the
		 * errors). */
		if (f[i].kind == EFK_U64 && get_u64(v, &u) == 0) {
			*AT(ev, &f[i], uint64_t) = u;
			continue;
		}
		if (f[i].kind == EFK_U32 && f[i].size == 4 && !f[i].aux && get_u64(v, &u) == 0 &&
		    u <= UINT32_MAX) {
			*AT(ev, &f[i], uint32_t) = (uint32_t)u;
			continue;
		}
		if (f[i].kind == EFK_STR && v->type == JV_STR) {
			event_set_str(AT(ev, &f[i], char), f[i].size, v->s, v->len);
			continue;
		}
		ret = field_from_jv(r, v, ev, &f[i], err, errlen);
		if (ret < 0)
			return ret;
	}
	return 0;
}

int event_reader_read(struct event_reader *r, const char *text, size_t len, struct rg_event *ev,
		      size_t *col, char *err, size_t errlen)
{
	const struct event_field *f;
	struct jv *action;
	const struct key_entry *k;
	const char *p;
	size_t n;
	int t, ret;

	memset(ev, 0, sizeof(*ev));
	*col = 0;
	if (len > r->max_len) {
		snprintf(err, errlen, "longer than %zu bytes", r->max_len);
		return -E2BIG;
	}
	if (++r->gen == 0) { /* wrapped: old stamps could match again */
		memset(r->val, 0, sizeof(r->val));
		memset(r->node_gen, 0, sizeof(r->node_gen));
		r->gen = 1;
	}
	r->used = r->iused = 0;
	r->start = text;
	r->end = text + len;
	r->err_what = NULL;
	if (text[len] != 0) {
		snprintf(err, errlen, "text not NUL-terminated");
		return -EINVAL;
	}
	p = jlex_ws(text);
	if (*p != '{') {
		if (*p && memchr("[\"-0123456789tfn", *p, 15))
			fail(r, p, "not an object");
		else
			unexpected(r, p);
	} else if ((p = read_object(r, p, 0, 1))) {
		p = jlex_ws(p);
		if (p != r->end)
			fail(r, p, "unexpected character after the object");
	}
	if (r->err_what) {
		*col = (size_t)(r->err_at - r->start) + 1;
		snprintf(err, errlen, "%s", r->err_what);
		return -EINVAL;
	}
	action = kept(r, event_schema.action);
	if (!action || action->type != JV_STR) {
		snprintf(err, errlen, "event.action: missing");
		return -EINVAL;
	}
	k = key_find(ENUM_NODE(event_schema.action_enum), action->s, action->len,
		     action->s + action->len);
	t = k ? k->slot : -EINVAL;
	if (t <= 0) {
		snprintf(err, errlen, "event.action: unknown event type \"%s\"",
			 jv_cstr(r, action));
		return -EINVAL;
	}
	ret = apply_fields(r, ev, event_common_fields, event_schema.common, EVENT_NCOMMON, err,
			   errlen);
	if (ret < 0)
		return ret;
	n = event_fields((unsigned)t, &f);
	ret = apply_fields(r, ev, f, event_schema.type[t], n, err, errlen);
	if (ret < 0)
		return ret;
	if (t == RG_EV_VERBS && kept(r, event_schema.qp_state))
		ev->u.verbs.qp_attr_mask |= 1;
	return 0;
}

int event_from_json(struct json_object *obj, struct rg_event *ev, char *err, size_t errlen)
{
	struct event_reader *r;
	const char *text;
	size_t len, col;
	int ret;

	memset(ev, 0, sizeof(*ev));
	if (!json_object_is_type(obj, json_type_object)) {
		snprintf(err, errlen, "expected a JSON object");
		return -EINVAL;
	}
	text = json_object_to_json_string_ext(obj, JSON_C_TO_STRING_PLAIN |
						     JSON_C_TO_STRING_NOSLASHESCAPE);
	if (!text) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	len = strlen(text);
	ret = event_reader_new(len, &r);
	if (ret < 0) {
		snprintf(err, errlen, "out of memory");
		return ret;
	}
	ret = event_reader_read(r, text, len, ev, &col, err, errlen);
	event_reader_free(r);
	return ret;
}
