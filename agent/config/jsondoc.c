/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "jsondoc.h"
#include "trust.h"
#include "common/jsonlex.h"
#include "common/macro.h"
#include "common/root.h"
#include "common/strutil.h"

struct jpos {
	const struct json_object *parent; /* NULL for the root */
	const struct json_object *value;  /* NULL for null */
	char *key;			  /* object member, else NULL */
	size_t idx;			  /* array element */
	size_t key_pos, val_pos;
};

struct jdoc {
	char *file;
	char *text;
	size_t len;
	struct json_object *root;
	struct jpos *pos;
	size_t npos, apos;
	/* Built after parsing, so that position lookups are O(1) and line numbers O(log n). */
	uint32_t *by_member; /* open addressing on (parent, key or index) -> pos index + 1 */
	uint32_t *by_value;  /* on the value pointer */
	size_t mask;
	size_t *lines; /* offset of the start of each line */
	size_t nlines;
};

static uint64_t mix(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	return h;
}

static uint64_t member_hash(const struct json_object *parent, const char *key, size_t idx)
{
	uint64_t h = mix((uint64_t)(uintptr_t)parent);

	if (key)
		for (; *key; key++)
			h = (h ^ (unsigned char)*key) * 1099511628211ull;
	else
		h ^= mix(idx + 1);
	return mix(h);
}

static int build_index(struct jdoc *d)
{
	size_t n = 16, i, k;

	while (n < d->npos * 2)
		n <<= 1;
	d->by_member = calloc(n, sizeof(*d->by_member));
	d->by_value = calloc(n, sizeof(*d->by_value));
	if (!d->by_member || !d->by_value)
		return -ENOMEM;
	d->mask = n - 1;
	for (i = 0; i < d->npos; i++) {
		const struct jpos *e = &d->pos[i];

		for (k = member_hash(e->parent, e->key, e->idx) & d->mask; d->by_member[k];
		     k = (k + 1) & d->mask)
			;
		d->by_member[k] = (uint32_t)i + 1;
		if (!e->value)
			continue;
		for (k = mix((uint64_t)(uintptr_t)e->value) & d->mask; d->by_value[k];
		     k = (k + 1) & d->mask)
			;
		d->by_value[k] = (uint32_t)i + 1;
	}
	d->nlines = 1;
	for (i = 0; i < d->len; i++)
		d->nlines += d->text[i] == '\n';
	d->lines = malloc(d->nlines * sizeof(*d->lines));
	if (!d->lines)
		return -ENOMEM;
	d->lines[0] = 0;
	for (i = 0, k = 1; i < d->len; i++)
		if (d->text[i] == '\n')
			d->lines[k++] = i + 1;
	return 0;
}

void jdoc_line_col(const struct jdoc *doc, size_t pos, unsigned *line, unsigned *column)
{
	size_t lo = 0, hi, i, bol = 0;
	unsigned l = 1;

	if (pos > doc->len)
		pos = doc->len;
	if (doc->lines) {
		/* the last line start <= pos */
		hi = doc->nlines;
		while (hi - lo > 1) {
			size_t mid = lo + (hi - lo) / 2;
			if (doc->lines[mid] <= pos)
				lo = mid;
			else
				hi = mid;
		}
		*line = (unsigned)lo + 1;
		*column = (unsigned)(pos - doc->lines[lo]) + 1;
		return;
	}
	/* During parsing, before the index exists. */
	for (i = 0; i < pos; i++)
		if (doc->text[i] == '\n') {
			l++;
			bol = i + 1;
		}
	*line = l;
	*column = (unsigned)(pos - bol) + 1;
}

static _printf_(4, 0) int verror(const struct jdoc *doc, size_t pos, struct rg_error *err,
				  const char *fmt, va_list ap)
{
	unsigned line = 0, col = 0;
	char msg[512];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	if (pos != JDOC_NOPOS)
		jdoc_line_col(doc, pos, &line, &col);
	return rg_error_set(err, doc->file, line, col, "%s", msg);
}

int jdoc_error(const struct jdoc *doc, size_t pos, struct rg_error *err, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = verror(doc, pos, err, fmt, ap);
	va_end(ap);
	return r;
}

const char *json_type_words(const struct json_object *v)
{
	switch (json_object_get_type(v)) {
	case json_type_null:
		return "null";
	case json_type_boolean:
		return "a boolean";
	case json_type_double:
	case json_type_int:
		return "a number";
	case json_type_object:
		return "an object";
	case json_type_array:
		return "an array";
	case json_type_string:
		return "a string";
	}
	return "?";
}

/* The parser. */

struct parser {
	struct jdoc *doc;
	const char *s;
	size_t len, i;
	unsigned depth;
	struct rg_error *err;
	char *scratch; /* len + 1 bytes: decoded strings */
};

static int perr(struct parser *p, size_t pos, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int perr(struct parser *p, size_t pos, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = verror(p->doc, pos, p->err, fmt, ap);
	va_end(ap);
	return r;
}

/* A lexer fault as this reader words it, at the place it has always given. */
static int lex_error(struct parser *p, size_t tok, const struct jlex_fault *f)
{
	size_t at = (size_t)(f->at - p->s), esc = f->esc ? (size_t)(f->esc - p->s) : at;
	char c;

	switch (f->code) {
	case JLEX_EOF_STRING:
		return perr(p, tok, "unterminated string");
	case JLEX_CONTROL:
		return perr(p, at, "control character in string (use an escape such as \\n)");
	case JLEX_ESCAPE:
		c = *f->at;
		return perr(p, esc, "invalid escape '\\%c'", (c >= 0x21 && c < 0x7f) ? c : '?');
	case JLEX_U_ESCAPE:
		return perr(p, esc, "invalid \\u escape");
	case JLEX_SURROGATE:
		return perr(p, esc, "invalid UTF-16 surrogate pair");
	case JLEX_UTF8:
		return perr(p, at, "invalid UTF-8 in string");
	case JLEX_LEADING_ZERO:
		return perr(p, tok, "invalid number (leading zero)");
	case JLEX_EOF_COMMENT:
		return perr(p, at, "unterminated comment");
	case JLEX_NUMBER:
	case JLEX_OK:
		break;
	}
	return perr(p, tok, "invalid number");
}

static int skip_ws(struct parser *p)
{
	struct jlex_fault f;
	const char *q = jlex_ws_comments(p->s + p->i, p->s + p->len, &f);

	if (!q)
		return lex_error(p, p->i, &f);
	p->i = (size_t)(q - p->s);
	return 0;
}

static const char *describe(struct parser *p, char buf[static 16])
{
	unsigned char c;

	if (p->i >= p->len)
		return "end of file";
	c = (unsigned char)p->s[p->i];
	if (c >= 0x21 && c < 0x7f)
		snprintf(buf, 16, "'%c'", c);
	else
		snprintf(buf, 16, "byte 0x%02x", c);
	return buf;
}

/*
 * The string at p->i (an opening quote), decoded into the parser's scratch buffer: *ret,
 * NUL-terminated, may contain NUL bytes (from \u0000); its length goes to ret_len. Valid until
 * the next string.
 */
static int scan_string(struct parser *p, const char **ret, size_t *ret_len)
{
	struct jlex_fault f;
	const char *s, *q;

	if (p->i >= p->len || p->s[p->i] != '"')
		return perr(p, p->i, "expected a string");
	q = jlex_string(p->s + p->i, p->s + p->len, 0, p->scratch, &s, ret_len, &f);
	if (!q)
		return lex_error(p, p->i, &f);
	if (s != p->scratch) {
		memcpy(p->scratch, s, *ret_len);
		p->scratch[*ret_len] = 0;
	}
	*ret = p->scratch;
	p->i = (size_t)(q - p->s);
	return 0;
}

static int add_pos(struct parser *p, const struct json_object *parent, const char *key, size_t idx,
		   size_t key_pos, size_t val_pos, const struct json_object *value)
{
	struct jdoc *d = p->doc;
	struct jpos *e;

	if (d->npos == d->apos) {
		size_t na = d->apos ? d->apos * 2 : 64;
		struct jpos *np = realloc(d->pos, na * sizeof(*np));
		if (!np)
			return -ENOMEM;
		d->pos = np;
		d->apos = na;
	}
	e = &d->pos[d->npos];
	e->key = NULL;
	if (key) {
		e->key = strdup(key);
		if (!e->key)
			return -ENOMEM;
	}
	d->npos++;
	e->parent = parent;
	e->value = value;
	e->idx = idx;
	e->key_pos = key_pos;
	e->val_pos = val_pos;
	return 0;
}

static int parse_value(struct parser *p, struct json_object **ret);

static int parse_number(struct parser *p, struct json_object **ret)
{
	size_t start = p->i, k;
	struct jlex_number num;
	struct jlex_fault f;
	const char *q = jlex_number(p->s + start, p->s + p->len, &num, &f);
	char buf[64];

	if (!q)
		return lex_error(p, start, &f);
	k = (size_t)(q - p->s);
	if (k - start >= sizeof(buf))
		return perr(p, start, "number too long");
	p->i = k;
	if (num.frac) {
		double d;

		memcpy(buf, p->s + start, k - start);
		buf[k - start] = 0;
		d = strtod(buf, NULL);
		if (!isfinite(d))
			return perr(p, start, "number out of range");
		*ret = json_object_new_double(d);
	} else if (!num.is_int) {
		return perr(p, start, "number out of range");
	} else if (num.neg) {
		*ret = json_object_new_int64(num.mag == (uint64_t)INT64_MAX + 1 ? INT64_MIN
									   : -(int64_t)num.mag);
	} else if (num.mag > INT64_MAX)
		*ret = json_object_new_uint64(num.mag);
	else
		*ret = json_object_new_int64((int64_t)num.mag);
	return *ret ? 0 : -ENOMEM;
}

/* After an object's member or an array's element: 1 at a ',' (and what follows it is not
 * the close), 0 past the close, or an error. */
static int next_item(struct parser *p, char close)
{
	char cb[16];
	int r = skip_ws(p);

	if (r < 0)
		return r;
	if (p->i < p->len && p->s[p->i] == ',') {
		p->i++;
		r = skip_ws(p);
		if (r < 0)
			return r;
		if (p->i < p->len && p->s[p->i] == close)
			return perr(p, p->i, "trailing comma before '%c'", close);
		return 1;
	}
	if (p->i < p->len && p->s[p->i] == close) {
		p->i++;
		return 0;
	}
	return perr(p, p->i, "expected ',' or '%c', found %s", close, describe(p, cb));
}

static int parse_object(struct parser *p, struct json_object **ret)
{
	struct json_object *o = json_object_new_object();
	char cb[16];
	int r;

	if (!o)
		return -ENOMEM;
	p->i++; /* { */
	r = skip_ws(p);
	if (r < 0)
		goto fail;
	if (p->i < p->len && p->s[p->i] == '}') {
		p->i++;
		*ret = o;
		return 0;
	}
	for (;;) {
		size_t key_pos = p->i, val_pos, klen;
		struct json_object *v = NULL;
		char *key = NULL;
		const char *s;

		if (p->i >= p->len || p->s[p->i] != '"') {
			r = perr(p, p->i, "expected a string key, found %s", describe(p, cb));
			goto fail;
		}
		r = scan_string(p, &s, &klen);
		if (r < 0)
			goto fail;
		if (strlen(s) != klen) {
			r = perr(p, key_pos, "NUL character in key");
			goto fail;
		}
		if (json_object_object_get_ex(o, s, NULL)) {
			r = perr(p, key_pos, "duplicate key \"%s\"", s);
			goto fail;
		}
		/* The scratch buffer is the value's next. */
		key = strdup(s);
		if (!key) {
			r = -ENOMEM;
			goto fail;
		}
		r = skip_ws(p);
		if (r >= 0 && (p->i >= p->len || p->s[p->i] != ':'))
			r = perr(p, p->i, "expected ':' after the key, found %s", describe(p, cb));
		if (r >= 0) {
			p->i++;
			r = skip_ws(p);
		}
		val_pos = p->i;
		if (r >= 0)
			r = parse_value(p, &v);
		if (r < 0) {
			free(key);
			goto fail;
		}
		if (json_object_object_add(o, key, v) < 0) {
			json_object_put(v);
			free(key);
			r = -ENOMEM;
			goto fail;
		}
		r = add_pos(p, o, key, 0, key_pos, val_pos, v);
		free(key);
		if (r < 0)
			goto fail;
		r = next_item(p, '}');
		if (r < 0)
			goto fail;
		if (r == 0)
			break;
	}
	*ret = o;
	return 0;
fail:
	json_object_put(o);
	return r;
}

static int parse_array(struct parser *p, struct json_object **ret)
{
	struct json_object *a = json_object_new_array();
	size_t idx = 0;
	int r;

	if (!a)
		return -ENOMEM;
	p->i++; /* [ */
	r = skip_ws(p);
	if (r < 0)
		goto fail;
	if (p->i < p->len && p->s[p->i] == ']') {
		p->i++;
		*ret = a;
		return 0;
	}
	for (;; idx++) {
		size_t val_pos = p->i;
		struct json_object *v = NULL;

		r = parse_value(p, &v);
		if (r < 0)
			goto fail;
		if (json_object_array_add(a, v) < 0) {
			json_object_put(v);
			r = -ENOMEM;
			goto fail;
		}
		r = add_pos(p, a, NULL, idx, val_pos, val_pos, v);
		if (r < 0)
			goto fail;
		r = next_item(p, ']');
		if (r < 0)
			goto fail;
		if (r == 0)
			break;
	}
	*ret = a;
	return 0;
fail:
	json_object_put(a);
	return r;
}

static bool match_word(struct parser *p, const char *w)
{
	const char *q = jlex_word(p->s + p->i, p->s + p->len, w, strlen(w));

	/* "truex" is not "true" */
	if (!q || (q < p->s + p->len && ((*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') ||
					  jlex_is_digit(*q) || *q == '_')))
		return false;
	p->i = (size_t)(q - p->s);
	return true;
}

static int parse_value(struct parser *p, struct json_object **ret)
{
	char cb[16];
	int r;

	if (p->i >= p->len)
		return perr(p, p->i, "expected a value, found end of file");
	switch (p->s[p->i]) {
	case '{':
	case '[':
		if (++p->depth > JDOC_MAX_DEPTH)
			return perr(p, p->i, "nesting deeper than %d levels", JDOC_MAX_DEPTH);
		r = p->s[p->i] == '{' ? parse_object(p, ret) : parse_array(p, ret);
		p->depth--;
		return r;
	case '"': {
		const char *s;
		size_t n;

		r = scan_string(p, &s, &n);
		if (r < 0)
			return r;
		*ret = json_object_new_string_len(s, (int)n);
		return *ret ? 0 : -ENOMEM;
	}
	case '-':
	case '0' ... '9':
		return parse_number(p, ret);
	default:
		break;
	}
	if (match_word(p, "true")) {
		*ret = json_object_new_boolean(1);
		return *ret ? 0 : -ENOMEM;
	}
	if (match_word(p, "false")) {
		*ret = json_object_new_boolean(0);
		return *ret ? 0 : -ENOMEM;
	}
	if (match_word(p, "null")) {
		*ret = NULL;
		return 0;
	}
	if (p->s[p->i] == '\'')
		return perr(p, p->i, "strings must use double quotes");
	return perr(p, p->i, "expected a value, found %s", describe(p, cb));
}

void jdoc_free(struct jdoc *doc)
{
	size_t i;

	if (!doc)
		return;
	for (i = 0; i < doc->npos; i++)
		free(doc->pos[i].key);
	free(doc->pos);
	free(doc->by_member);
	free(doc->by_value);
	free(doc->lines);
	json_object_put(doc->root);
	free(doc->text);
	free(doc->file);
	free(doc);
}

int jdoc_parse(const char *file, const char *text, size_t len, struct jdoc **ret,
	       struct rg_error *err)
{
	struct jdoc *doc = calloc(1, sizeof(*doc));
	struct parser p = {.doc = doc, .err = err};
	struct json_object *root = NULL;
	char cb[16];
	size_t root_pos;
	int r;

	if (!doc)
		return -ENOMEM;
	doc->file = strdup(file ? file : "");
	doc->text = malloc(len + 1);
	if (!doc->file || !doc->text) {
		jdoc_free(doc);
		return -ENOMEM;
	}
	memcpy(doc->text, text, len);
	doc->text[len] = 0;
	doc->len = len;
	p.s = doc->text;
	p.len = len;
	/* Strings are decoded there, never longer than their text. */
	p.scratch = malloc(len + 1);
	if (!p.scratch) {
		jdoc_free(doc);
		return -ENOMEM;
	}
	if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0)
		p.i = 3;
	r = skip_ws(&p);
	if (r < 0)
		goto fail;
	if (p.i >= p.len) {
		r = perr(&p, p.i, "empty document");
		goto fail;
	}
	root_pos = p.i;
	r = parse_value(&p, &root);
	if (r < 0)
		goto fail;
	doc->root = root; /* freed with the document from here on */
	r = skip_ws(&p);
	if (r < 0)
		goto fail;
	if (p.i < p.len) {
		r = perr(&p, p.i, "unexpected %s after the end of the document", describe(&p, cb));
		goto fail;
	}
	r = add_pos(&p, NULL, NULL, 0, root_pos, root_pos, root);
	if (r >= 0)
		r = build_index(doc);
	if (r < 0)
		goto fail;
	free(p.scratch);
	*ret = doc;
	return 0;
fail:
	free(p.scratch);
	jdoc_free(doc);
	return r;
}

int jdoc_loadat(int dirfd, const char *name, const char *path, bool check_owner, struct jdoc **ret,
		struct rg_error *err)
{
	_cleanup_close_ int fd = -1;
	_cleanup_free_ char *buf = NULL;
	bool trunc;
	size_t len;
	int r;

	fd = trust_open_file(dirfd, name, path, check_owner, err);
	if (fd < 0)
		return fd;
	r = read_fd_bounded(fd, JDOC_MAX_SIZE, &buf, &len, &trunc);
	if (r < 0) {
		rg_error_set(err, path, 0, 0, "cannot read: %s", strerror(-r));
		return r;
	}
	if (trunc) {
		rg_error_set(err, path, 0, 0, "larger than %u bytes", JDOC_MAX_SIZE);
		return -EFBIG;
	}
	return jdoc_parse(path, buf, len, ret, err);
}

int jdoc_load(const char *path, bool check_owner, struct jdoc **ret, struct rg_error *err)
{
	return jdoc_loadat(AT_FDCWD, path, path, check_owner, ret, err);
}

struct json_object *jdoc_root(const struct jdoc *doc)
{
	return doc->root;
}

const char *jdoc_file(const struct jdoc *doc)
{
	return doc->file;
}

const char *jdoc_text(const struct jdoc *doc, size_t *len)
{
	*len = doc->len;
	return doc->text;
}

size_t jdoc_member_pos(const struct jdoc *doc, const struct json_object *obj, const char *key,
		       bool at_key)
{
	size_t k;

	if (!obj)
		return doc->npos ? doc->pos[doc->npos - 1].val_pos : JDOC_NOPOS;
	for (k = member_hash(obj, key, 0) & doc->mask; doc->by_member[k]; k = (k + 1) & doc->mask) {
		const struct jpos *e = &doc->pos[doc->by_member[k] - 1];

		if (e->parent == obj && e->key && strcmp(e->key, key) == 0)
			return at_key ? e->key_pos : e->val_pos;
	}
	return JDOC_NOPOS;
}

size_t jdoc_element_pos(const struct jdoc *doc, const struct json_object *arr, size_t idx)
{
	size_t k;

	for (k = member_hash(arr, NULL, idx) & doc->mask; doc->by_member[k];
	     k = (k + 1) & doc->mask) {
		const struct jpos *e = &doc->pos[doc->by_member[k] - 1];

		if (e->parent == arr && !e->key && e->idx == idx)
			return e->val_pos;
	}
	return JDOC_NOPOS;
}

size_t jdoc_value_pos(const struct jdoc *doc, const struct json_object *val)
{
	size_t k;

	if (!val)
		return JDOC_NOPOS;
	for (k = mix((uint64_t)(uintptr_t)val) & doc->mask; doc->by_value[k];
	     k = (k + 1) & doc->mask)
		if (doc->pos[doc->by_value[k] - 1].value == val)
			return doc->pos[doc->by_value[k] - 1].val_pos;
	return JDOC_NOPOS;
}

size_t jdoc_string_pos(const struct jdoc *doc, size_t pos, size_t decoded_off)
{
	const char *at;

	if (pos == JDOC_NOPOS || pos >= doc->len || doc->text[pos] != '"')
		return JDOC_NOPOS;
	at = jlex_string_at(doc->text + pos, doc->text + doc->len, 0, decoded_off);
	return at ? (size_t)(at - doc->text) : JDOC_NOPOS;
}
