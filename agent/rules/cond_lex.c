/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The lexer of the condition language: words, operators, quoted strings and numbers into tokens
 * (cond-internal.h's struct token), and the value of a number or duration token. Errors go to the
 * parser's state with the byte offset of the problem.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cond-internal.h"
#include "common/macro.h"
#include "common/number.h"

int cond_err(struct cparser *p, size_t pos, const char *fmt, ...)
{
	va_list ap;

	p->err_off = pos;
	va_start(ap, fmt);
	vsnprintf(p->errbuf, p->errlen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static bool is_ident_start(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '@';
}

static bool is_ident_char(char c)
{
	return is_ident_start(c) || (c >= '0' && c <= '9') || c == '.';
}

int cond_next_token(struct cparser *p)
{
	static const struct {
		const char *w;
		int type, op;
	} words[] = {
		{"and", T_AND, 0},	      {"or", T_OR, 0},
		{"not", T_NOT, 0},	      {"in", T_IN, 0},
		{"true", T_TRUE, 0},	      {"false", T_FALSE, 0},
		{"contains", T_OP, OP_CONTAINS}, {"glob", T_OP, OP_GLOB},
		{"startswith", T_OP, OP_STARTS}, {"endswith", T_OP, OP_ENDS},
		{"lineage", T_FUNC, FN_LINEAGE}, {"ancestor", T_FUNC, FN_ANCESTOR},
		{"parent", T_FUNC, FN_PARENT},	 {"within", T_FUNC, FN_WITHIN},
	};
	struct token *t = &p->tok;
	char c;
	size_t k;

	free(t->str);
	memset(t, 0, sizeof(*t));
	while (p->i < p->len && (p->s[p->i] == ' ' || p->s[p->i] == '\t' || p->s[p->i] == '\n' ||
				 p->s[p->i] == '\r'))
		p->i++;
	t->pos = p->i;
	if (p->i >= p->len) {
		t->type = T_END;
		return 0;
	}
	c = p->s[p->i];
	switch (c) {
	case '(':
		t->type = T_LPAREN;
		p->i++;
		goto done;
	case ')':
		t->type = T_RPAREN;
		p->i++;
		goto done;
	case ',':
		t->type = T_COMMA;
		p->i++;
		goto done;
	case '=':
		if (p->i + 1 < p->len && p->s[p->i + 1] == '=') {
			t->type = T_OP, t->op = OP_EQ, p->i += 2;
			goto done;
		}
		return cond_err(p, p->i, "'=' is not an operator; use '=='");
	case '!':
		if (p->i + 1 < p->len && p->s[p->i + 1] == '=') {
			t->type = T_OP, t->op = OP_NE, p->i += 2;
			goto done;
		}
		return cond_err(p, p->i, "'!' is not an operator; use 'not' or '!='");
	case '<':
	case '>':
		t->type = T_OP;
		if (p->i + 1 < p->len && p->s[p->i + 1] == '=') {
			t->op = c == '<' ? OP_LE : OP_GE;
			p->i += 2;
		} else {
			t->op = c == '<' ? OP_LT : OP_GT;
			p->i++;
		}
		goto done;
	case '&':
	case '|':
		return cond_err(p, p->i, "'%c' is not an operator; use '%s'", c,
			    c == '&' ? "and" : "or");
	case '\'':
	case '"': {
		char *out = malloc(p->len - p->i + 1);
		size_t n = 0;

		if (!out)
			return -ENOMEM;
		for (k = p->i + 1; k < p->len && p->s[k] != c; k++) {
			if (p->s[k] == '\\' && k + 1 < p->len &&
			    (p->s[k + 1] == '\\' || p->s[k + 1] == '\'' || p->s[k + 1] == '"'))
				k++;
			if ((unsigned char)p->s[k] < 0x20) {
				free(out);
				return cond_err(p, k, "control character in string");
			}
			out[n++] = p->s[k];
		}
		if (k >= p->len) {
			free(out);
			return cond_err(p, p->i, "unterminated string");
		}
		out[n] = 0;
		t->type = T_STRING;
		t->str = out;
		t->len = n;
		p->i = k + 1;
		goto done;
	}
	default:
		break;
	}
	if ((c >= '0' && c <= '9') ||
	    (c == '-' && p->i + 1 < p->len && p->s[p->i + 1] >= '0' && p->s[p->i + 1] <= '9')) {
		k = p->i + 1;
		while (k < p->len && ((p->s[k] >= '0' && p->s[k] <= '9') ||
				      (p->s[k] >= 'a' && p->s[k] <= 'z') ||
				      (p->s[k] >= 'A' && p->s[k] <= 'Z') || p->s[k] == '_'))
			k++;
		t->type = T_NUMBER;
		t->str = strndup(p->s + p->i, k - p->i);
		if (!t->str)
			return -ENOMEM;
		p->i = k;
		goto done;
	}
	if (is_ident_start(c)) {
		size_t i;

		k = p->i + 1;
		while (k < p->len && is_ident_char(p->s[k]))
			k++;
		t->len = k - p->i;
		for (i = 0; i < ARRAY_SIZE(words); i++)
			if (strlen(words[i].w) == t->len &&
			    memcmp(words[i].w, p->s + p->i, t->len) == 0) {
				t->type = words[i].type;
				t->op = words[i].op;
				p->i = k;
				goto done;
			}
		t->type = T_IDENT;
		t->str = strndup(p->s + p->i, t->len);
		if (!t->str)
			return -ENOMEM;
		p->i = k;
		goto done;
	}
	if ((unsigned char)c >= 0x21 && (unsigned char)c < 0x7f)
		return cond_err(p, p->i, "unexpected character '%c'", c);
	return cond_err(p, p->i, "unexpected byte 0x%02x", (unsigned char)c);
done:
	t->len = p->i - t->pos;
	return 0;
}

int cond_parse_number(struct cparser *p, const struct token *t, bool duration, i128 *ret)
{
	static const struct {
		const char *sfx;
		uint64_t mul;
	} sizes[] = {{"KiB", 1ull << 10},
		     {"MiB", 1ull << 20},
		     {"GiB", 1ull << 30},
		     {"TiB", 1ull << 40}},
	  durs[] = {{"ms", 1000000ull},
		    {"s", 1000000000ull},
		    {"m", 60000000000ull},
		    {"h", 3600000000000ull},
		    {"d", 86400000000000ull}};
	const char *s = t->str;
	bool neg = false;
	uint64_t mul = 1, u;
	char digits[64];
	size_t n, i;
	int base = 10;

	if (*s == '-') {
		neg = true;
		s++;
	}
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
		n = strspn(s, "0123456789abcdefABCDEF");
	} else
		n = strspn(s, "0123456789");
	if (n == 0 || n >= sizeof(digits))
		return cond_err(p, t->pos, "invalid number '%s'", t->str);
	memcpy(digits, s, n);
	digits[n] = 0;
	if (s[n]) {
		bool found = false;

		if (base == 16)
			return cond_err(p, t->pos, "invalid number '%s'", t->str);
		if (duration) {
			for (i = 0; i < ARRAY_SIZE(durs); i++)
				if (strcmp(s + n, durs[i].sfx) == 0)
					mul = durs[i].mul, found = true;
			if (!found)
				return cond_err(p, t->pos,
					    "invalid duration '%s' (use ms, s, m, h or d)", t->str);
		} else {
			for (i = 0; i < ARRAY_SIZE(sizes); i++)
				if (strcmp(s + n, sizes[i].sfx) == 0)
					mul = sizes[i].mul, found = true;
			if (!found)
				return cond_err(p, t->pos,
					    "invalid number '%s' (size suffixes: KiB, MiB, "
					    "GiB, TiB)",
					    t->str);
		}
	} else if (duration)
		return cond_err(p, t->pos, "a duration needs a unit: ms, s, m, h or d");
	if (safe_atou64(digits, base, &u) < 0)
		return cond_err(p, t->pos, "number '%s' out of range", t->str);
	*ret = (i128)u * (i128)mul;
	if (*ret > (i128)UINT64_MAX)
		return cond_err(p, t->pos, "number '%s' out of range", t->str);
	if (neg)
		*ret = -*ret;
	return 0;
}

bool cond_token_is_value(const struct token *t)
{
	return t->type == T_IDENT || t->type == T_STRING || t->type == T_NUMBER ||
	       t->type == T_TRUE || t->type == T_FALSE;
}

const char *cond_token_text(const struct token *t)
{
	switch (t->type) {
	case T_TRUE:
		return "true";
	case T_FALSE:
		return "false";
	default:
		return t->str ? t->str : "";
	}
}
