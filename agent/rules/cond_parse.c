/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The compiler of the condition language: a recursive-descent parser over cond_lex.c's tokens
 * that checks every field, operator and constant against the field's kind and builds the flat
 * node array cond_eval.c walks (struct cond), with the event types each node can be true for.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cond-internal.h"
#include "cond_fields.h"
#include "common/globcheck.h"
#include "common/macro.h"
#include "common/number.h"

static const char *const op_names[] = {"==", "!=", "<", "<=", ">", ">=", "contains", "glob",
				       "startswith", "endswith"};

const char *cond_text(const struct cond *c)
{
	return c->text;
}

uint64_t cond_type_mask(const struct cond *c)
{
	return c->nodes[c->root].mask;
}

void cond_free(struct cond *c)
{
	size_t i;

	if (!c)
		return;
	for (i = 0; i < c->nks; i++) {
		free(c->ks[i].s);
		free(c->ks[i].per_type);
	}
	for (i = 0; i < c->nfields; i++)
		free(c->fields[i].name);
	free(c->ks);
	free(c->fields);
	free(c->nodes);
	free(c->text);
	free(c);
}

static int new_node(struct cparser *p, uint8_t type, uint16_t *ret)
{
	struct cond *c = p->c;
	struct cnode *n;

	if (c->nnodes >= COND_MAX_NODES)
		return cond_err(p, p->tok.pos, "condition too complex (more than %d nodes)",
			    COND_MAX_NODES);
	if (c->nnodes == c->anodes) {
		size_t na = c->anodes ? c->anodes * 2 : 16;
		struct cnode *nn = realloc(c->nodes, na * sizeof(*nn));
		if (!nn)
			return -ENOMEM;
		c->nodes = nn;
		c->anodes = na;
	}
	n = &c->nodes[c->nnodes];
	memset(n, 0, sizeof(*n));
	n->type = type;
	n->field = n->field2 = NO_FIELD;
	n->mask = ALL_TYPES;
	*ret = (uint16_t)c->nnodes++;
	return 0;
}

static int add_field(struct cparser *p, const char *name, size_t pos, uint16_t *ret)
{
	struct cond *c = p->c;
	struct field_ref f;
	char msg[200];
	size_t i;
	int r;

	for (i = 0; i < c->nfields; i++)
		if (strcmp(c->fields[i].name, name) == 0) {
			*ret = (uint16_t)i;
			goto check;
		}
	r = cond_field_resolve(name, &f, msg, sizeof(msg));
	if (r < 0)
		return cond_err(p, pos, "%s", msg);
	f.name = strdup(name);
	if (!f.name)
		return -ENOMEM;
	if (c->nfields == c->afields) {
		size_t na = c->afields ? c->afields * 2 : 8;
		struct field_ref *nf = realloc(c->fields, na * sizeof(*nf));
		if (!nf) {
			free(f.name);
			return -ENOMEM;
		}
		c->fields = nf;
		c->afields = na;
	}
	c->fields[c->nfields] = f;
	*ret = (uint16_t)c->nfields++;
	i = *ret;
check:
	if (p->in_lineage && !c->fields[i].node)
		return cond_err(p, pos,
				"only process fields can be used inside lineage(), ancestor() "
				"and parent(); '%s' is not one",
				name);
	return 0;
}

static int new_const(struct cparser *p, struct kval **ret, uint16_t *idx)
{
	struct cond *c = p->c;

	if (c->nks == c->aks) {
		size_t na = c->aks ? c->aks * 2 : 8;
		struct kval *nk = realloc(c->ks, na * sizeof(*nk));
		if (!nk)
			return -ENOMEM;
		c->ks = nk;
		c->aks = na;
	}
	*idx = (uint16_t)c->nks;
	*ret = &c->ks[c->nks++];
	memset(*ret, 0, sizeof(**ret));
	return 0;
}

/* A constant for field f from the current token. */
static int parse_const(struct cparser *p, const struct field_ref *f, int op, uint16_t *idx)
{
	struct token *t = &p->tok;
	struct kval *k;
	const char *text = cond_token_text(t);
	unsigned ty, i;
	int r;

	if (!cond_token_is_value(t))
		return cond_err(p, t->pos, "expected a value");
	r = new_const(p, &k, idx);
	if (r < 0)
		return r;
	if (op == OP_GLOB || op == OP_STARTS || op == OP_ENDS ||
	    (op == OP_CONTAINS && (f->kind == VK_STR || f->kind == VK_LIST)) ||
	    f->kind == VK_STR || f->kind == VK_LIST) {
		if (t->type == T_NUMBER && f->kind != VK_STR && f->kind != VK_LIST)
			return cond_err(p, t->pos, "expected a string");
		if (t->type != T_IDENT && t->type != T_STRING && t->type != T_NUMBER)
			return cond_err(p, t->pos, "expected a string, found %s", text);
		k->kind = VK_STR;
		k->s = strdup(text);
		if (!k->s)
			return -ENOMEM;
		k->n = strlen(text);
		if (op == OP_GLOB) {
			size_t off;
			const char *why;

			/* A broken pattern would silently match nothing. */
			if (glob_check(k->s, &off, &why) < 0)
				return cond_err(p, t->pos, "bad glob '%s': %s", k->s, why);
		}
		return 0;
	}
	switch (f->kind) {
	case VK_INT:
		if (t->type != T_NUMBER)
			return cond_err(p, t->pos, "'%s' is a number, not '%s'", f->name, text);
		k->kind = VK_INT;
		return cond_parse_number(p, t, false, &k->i);
	case VK_BOOL:
		if (t->type != T_TRUE && t->type != T_FALSE)
			return cond_err(p, t->pos, "'%s' is true or false, not '%s'", f->name,
					text);
		k->kind = VK_BOOL;
		k->i = t->type == T_TRUE;
		return 0;
	case VK_ADDR: {
		struct rg_addr a;
		if ((t->type != T_STRING && t->type != T_NUMBER && t->type != T_IDENT) ||
		    addr_from_string(text, &a) < 0)
			return cond_err(p, t->pos, "'%s' is not an IP address or GID", text);
		k->kind = VK_ADDR;
		memcpy(k->addr, a.addr, 16);
		return 0;
	}
	case VK_BITS: {
		uint32_t bit = 0;
		if (t->type != T_IDENT && t->type != T_STRING)
			return cond_err(p, t->pos, "expected a flag name, found '%s'", text);
		if (f->flags_kind == EFK_ACCESS) {
			if (access_from_string(text, &bit) < 0)
				return cond_err(p, t->pos, "unknown access flag '%s'", text);
		} else {
			for (i = 0; i < ARRAY_SIZE(event_flag_names); i++)
				if (strcmp(event_flag_names[i], text) == 0)
					bit = 1u << i;
			if (!bit)
				return cond_err(p, t->pos, "unknown event flag '%s'", text);
		}
		k->kind = VK_BITS;
		k->i = bit;
		return 0;
	}
	case VK_ENUM: {
		bool any = false;
		uint32_t num;
		bool numeric = safe_atou32(text, 10, &num) == 0;

		if (t->type != T_IDENT && t->type != T_STRING && t->type != T_NUMBER)
			return cond_err(p, t->pos, "expected a name, found '%s'", text);
		k->kind = VK_ENUM;
		k->per_type = malloc(RG_EV__MAX * sizeof(*k->per_type));
		if (!k->per_type)
			return -ENOMEM;
		for (ty = 0; ty < RG_EV__MAX; ty++) {
			const struct event_field *ef = f->by_type[ty];
			int v = -1;

			if (ef) {
				v = numeric ? (int)num : ef->from_str(text);
				if (v >= 0)
					any = true;
			}
			k->per_type[ty] = v < 0 ? -1 : v;
		}
		if (!any)
			return cond_err(p, t->pos, "unknown value '%s' for %s", text, f->name);
		return 0;
	}
	case VK_TIME:
		return cond_err(p, t->pos,
				"'%s' is a time: compare it with another time field or use "
				"within()",
				f->name);
	default:
		break;
	}
	return cond_err(p, t->pos, "cannot compare '%s' with a value", f->name);
}

static int parse_or(struct cparser *p, uint16_t *ret);

/* The event type an event.action constant names (the same for every type). */
static uint64_t action_bit(const struct kval *k)
{
	int v = k->per_type[RG_EV_EXEC];

	return v > 0 && v < RG_EV__MAX ? RG_EV_BIT(v) : 0;
}

static bool op_allowed(int op, uint8_t kind)
{
	switch (op) {
	case OP_EQ:
	case OP_NE:
		return kind == VK_INT || kind == VK_ENUM || kind == VK_STR || kind == VK_BOOL ||
		       kind == VK_ADDR || kind == VK_TIME;
	case OP_LT:
	case OP_LE:
	case OP_GT:
	case OP_GE:
		return kind == VK_INT || kind == VK_TIME;
	case OP_CONTAINS:
		return kind == VK_STR || kind == VK_BITS || kind == VK_LIST;
	case OP_GLOB:
	case OP_STARTS:
	case OP_ENDS:
		return kind == VK_STR || kind == VK_LIST;
	}
	return false;
}

/* The values of FIELD "in" "(" VALUE ("," VALUE)* ")", the '(' the token: their constants. */
static int parse_in_values(struct cparser *p, uint16_t fi, uint16_t *first, uint16_t *count)
{
	struct field_ref *f;
	uint16_t k;
	int r;

	if (p->tok.type != T_LPAREN)
		return cond_err(p, p->tok.pos, "expected '(' after 'in'");
	*first = *count = 0;
	for (;;) {
		r = cond_next_token(p);
		if (r < 0)
			return r;
		f = &p->c->fields[fi];
		r = parse_const(p, f, f->kind == VK_LIST ? OP_CONTAINS : OP_EQ, &k);
		if (r < 0)
			return r;
		if (*count == 0)
			*first = k;
		(*count)++;
		r = cond_next_token(p);
		if (r < 0)
			return r;
		if (p->tok.type == T_RPAREN)
			return 0;
		if (p->tok.type != T_COMMA)
			return cond_err(p, p->tok.pos, "expected ',' or ')' in the list");
	}
}

/* FIELD ["not"] "in" (...), the token 'in'. */
static int parse_in(struct cparser *p, uint16_t fi, bool negate, uint16_t *ret)
{
	struct field_ref *f = &p->c->fields[fi];
	uint16_t first = 0, count = 0, n;
	struct cnode *node;
	int r;

	if (f->kind == VK_BOOL || f->kind == VK_TIME)
		return cond_err(p, p->tok.pos, "'in' does not apply to '%s' (%s)", f->name,
				cond_vk_words[f->kind]);
	r = cond_next_token(p);
	if (r < 0)
		return r;
	r = parse_in_values(p, fi, &first, &count);
	if (r < 0)
		return r;
	r = new_node(p, N_IN, &n);
	if (r < 0)
		return r;
	node = &p->c->nodes[n];
	node->field = fi;
	node->k = first;
	node->nk = count;
	node->mask = p->c->fields[fi].type_mask;
	for (uint16_t j = 0; j < count; j++)
		if (p->c->ks[first + j].kind == VK_BITS)
			node->bits |= (uint64_t)p->c->ks[first + j].i;
	if (strcmp(p->c->fields[fi].name, "event.action") == 0) {
		node->mask = 0;
		for (uint16_t j = 0; j < count; j++)
			node->mask |= action_bit(&p->c->ks[first + j]);
		node->by_type = true;
	}
	r = cond_next_token(p);
	if (r < 0)
		return r;
	if (negate) {
		uint16_t nn;

		r = new_node(p, N_NOT, &nn);
		if (r < 0)
			return r;
		p->c->nodes[nn].a = n;
		n = nn;
	}
	*ret = n;
	return 0;
}

/* A bare FIELD: true when the field is truthy. */
static int parse_truthy(struct cparser *p, uint16_t fi, size_t fpos, uint16_t *ret)
{
	const struct field_ref *f = &p->c->fields[fi];
	uint16_t n;
	int r;

	if (f->kind == VK_TIME || f->kind == VK_ENUM || f->kind == VK_ADDR)
		return cond_err(p, fpos, "'%s' is %s: compare it with something", f->name,
				cond_vk_words[f->kind]);
	r = new_node(p, N_TRUTHY, &n);
	if (r < 0)
		return r;
	p->c->nodes[n].field = fi;
	p->c->nodes[n].mask = f->type_mask;
	*ret = n;
	return 0;
}

/*
 * The right side of comparison n when it names another field (of the same kind): 1 when it did,
 * 0 when it is a value, or an error.
 */
static int parse_other_field(struct cparser *p, uint16_t n, uint16_t fi)
{
	const struct field_ref *f, *f2;
	struct field_ref tmp;
	char msg[200];
	uint16_t i2;
	int r;

	if (p->tok.type != T_IDENT || !strchr(p->tok.str, '.') || p->c->nodes[n].op > OP_GE)
		return 0;
	if (cond_field_resolve(p->tok.str, &tmp, msg, sizeof(msg)) != 0)
		return 0;
	r = add_field(p, p->tok.str, p->tok.pos, &i2);
	if (r < 0)
		return r;
	f = &p->c->fields[fi];
	f2 = &p->c->fields[i2];
	if (f2->kind != f->kind)
		return cond_err(p, p->tok.pos, "cannot compare '%s' (%s) with '%s' (%s)", f->name,
				cond_vk_words[f->kind], f2->name, cond_vk_words[f2->kind]);
	if (f->kind == VK_ENUM)
		return cond_err(p, p->tok.pos, "cannot compare two named fields");
	p->c->nodes[n].field2 = i2;
	p->c->nodes[n].mask &= f2->type_mask;
	return 1;
}

/* FIELD OP (VALUE | FIELD), the token the operator. */
static int parse_compare(struct cparser *p, uint16_t fi, uint16_t *ret)
{
	const struct field_ref *f = &p->c->fields[fi];
	int r, op = p->tok.op;
	uint16_t n, k;

	if (!op_allowed(op, f->kind))
		return cond_err(p, p->tok.pos, "'%s' does not apply to '%s' (%s)", op_names[op],
				f->name, cond_vk_words[f->kind]);
	r = cond_next_token(p);
	if (r < 0)
		return r;
	r = new_node(p, N_CMP, &n);
	if (r < 0)
		return r;
	p->c->nodes[n].op = (uint8_t)op;
	p->c->nodes[n].field = fi;
	p->c->nodes[n].mask = p->c->fields[fi].type_mask;
	r = parse_other_field(p, n, fi);
	if (r < 0)
		return r;
	if (r > 0) {
		*ret = n;
		return cond_next_token(p);
	}
	f = &p->c->fields[fi];
	if (f->kind == VK_TIME)
		return cond_err(p, p->tok.pos,
				"'%s' is a time: compare it with another time field or "
				"use within()",
				f->name);
	r = parse_const(p, f, op, &k);
	if (r < 0)
		return r;
	p->c->nodes[n].k = k;
	p->c->nodes[n].nk = 1;
	if (op == OP_EQ && strcmp(p->c->fields[fi].name, "event.action") == 0) {
		p->c->nodes[n].mask = action_bit(&p->c->ks[k]);
		p->c->nodes[n].by_type = true;
	}
	*ret = n;
	return cond_next_token(p);
}

/* A predicate on a field, the token the field's name. */
static int parse_predicate(struct cparser *p, uint16_t *ret)
{
	size_t fpos = p->tok.pos;
	bool negate = false;
	uint16_t fi;
	int r;

	r = add_field(p, p->tok.str, fpos, &fi);
	if (r < 0)
		return r;
	r = cond_next_token(p);
	if (r < 0)
		return r;
	if (p->tok.type == T_NOT) {
		r = cond_next_token(p);
		if (r < 0)
			return r;
		if (p->tok.type != T_IN)
			return cond_err(p, p->tok.pos, "expected 'in' after 'not'");
		negate = true;
	}
	if (p->tok.type == T_IN)
		return parse_in(p, fi, negate, ret);
	if (p->tok.type != T_OP)
		return parse_truthy(p, fi, fpos, ret);
	return parse_compare(p, fi, ret);
}

static int expect(struct cparser *p, int type, const char *what)
{
	int r;

	if (p->tok.type != type)
		return cond_err(p, p->tok.pos, "expected %s", what);
	r = cond_next_token(p);
	return r;
}

static int parse_primary(struct cparser *p, uint16_t *ret)
{
	uint16_t n, a;
	int r;

	switch (p->tok.type) {
	case T_LPAREN:
		if (++p->depth > COND_MAX_DEPTH)
			return cond_err(p, p->tok.pos, "nesting deeper than %d levels",
					COND_MAX_DEPTH);
		r = cond_next_token(p);
		if (r < 0)
			return r;
		r = parse_or(p, ret);
		if (r < 0)
			return r;
		p->depth--;
		return expect(p, T_RPAREN, "')'");
	case T_TRUE:
	case T_FALSE:
		r = new_node(p, p->tok.type == T_TRUE ? N_TRUE : N_FALSE, &n);
		if (r < 0)
			return r;
		if (p->tok.type == T_FALSE)
			p->c->nodes[n].mask = 0;
		*ret = n;
		return cond_next_token(p);
	case T_FUNC: {
		int fn = p->tok.op;
		size_t fpos = p->tok.pos;

		r = cond_next_token(p);
		if (r < 0)
			return r;
		if (p->tok.type != T_LPAREN)
			return cond_err(p, p->tok.pos, "expected '(' after '%s'",
				    fn == FN_WITHIN ? "within" : fn == FN_LINEAGE ? "lineage" :
				    fn == FN_ANCESTOR ? "ancestor" : "parent");
		r = cond_next_token(p);
		if (r < 0)
			return r;
		if (fn == FN_WITHIN) {
			uint16_t fi, k;
			struct kval *kv;

			if (p->tok.type != T_IDENT)
				return cond_err(p, p->tok.pos, "expected a time field in within()");
			r = add_field(p, p->tok.str, p->tok.pos, &fi);
			if (r < 0)
				return r;
			if (p->c->fields[fi].kind != VK_TIME)
				return cond_err(p, p->tok.pos, "'%s' is not a time field",
						p->tok.str);
			r = cond_next_token(p);
			if (r < 0)
				return r;
			r = expect(p, T_COMMA, "',' after the time field");
			if (r < 0)
				return r;
			if (p->tok.type != T_NUMBER)
				return cond_err(p, p->tok.pos, "expected a duration such as 30s");
			r = new_const(p, &kv, &k);
			if (r < 0)
				return r;
			kv->kind = VK_INT;
			r = cond_parse_number(p, &p->tok, true, &p->c->ks[k].i);
			if (r < 0)
				return r;
			if (p->c->ks[k].i < 0)
				return cond_err(p, p->tok.pos, "a duration cannot be negative");
			r = cond_next_token(p);
			if (r < 0)
				return r;
			r = new_node(p, N_WITHIN, &n);
			if (r < 0)
				return r;
			p->c->nodes[n].field = fi;
			p->c->nodes[n].k = k;
			*ret = n;
			return expect(p, T_RPAREN, "')'");
		}
		if (p->in_lineage)
			return cond_err(p, fpos,
					"lineage(), ancestor() and parent() cannot be nested");
		p->in_lineage = true;
		r = parse_or(p, &a);
		p->in_lineage = false;
		if (r < 0)
			return r;
		r = new_node(p,
			     fn == FN_LINEAGE	 ? N_LINEAGE
			     : fn == FN_ANCESTOR ? N_ANCESTOR
						 : N_PARENT,
			     &n);
		if (r < 0)
			return r;
		p->c->nodes[n].a = a;
		*ret = n;
		return expect(p, T_RPAREN, "')'");
	}
	case T_IDENT:
		return parse_predicate(p, ret);
	case T_END:
		return cond_err(p, p->tok.pos, "unexpected end of condition");
	default:
		return cond_err(p, p->tok.pos, "expected a field, '(' or 'not'");
	}
}

static int parse_unary(struct cparser *p, uint16_t *ret)
{
	uint16_t n, a;
	int r;

	if (p->tok.type != T_NOT)
		return parse_primary(p, ret);
	if (++p->depth > COND_MAX_DEPTH)
		return cond_err(p, p->tok.pos, "nesting deeper than %d levels", COND_MAX_DEPTH);
	r = cond_next_token(p);
	if (r < 0)
		return r;
	r = parse_unary(p, &a);
	if (r < 0)
		return r;
	p->depth--;
	r = new_node(p, N_NOT, &n);
	if (r < 0)
		return r;
	p->c->nodes[n].a = a;
	*ret = n;
	return 0;
}

static int parse_and(struct cparser *p, uint16_t *ret)
{
	uint16_t l, rr, n;
	int r;

	r = parse_unary(p, &l);
	if (r < 0)
		return r;
	while (p->tok.type == T_AND) {
		r = cond_next_token(p);
		if (r < 0)
			return r;
		r = parse_unary(p, &rr);
		if (r < 0)
			return r;
		r = new_node(p, N_AND, &n);
		if (r < 0)
			return r;
		p->c->nodes[n].a = l;
		p->c->nodes[n].b = rr;
		p->c->nodes[n].mask = p->c->nodes[l].mask & p->c->nodes[rr].mask;
		l = n;
	}
	*ret = l;
	return 0;
}

static int parse_or(struct cparser *p, uint16_t *ret)
{
	uint16_t l, rr, n;
	int r;

	r = parse_and(p, &l);
	if (r < 0)
		return r;
	while (p->tok.type == T_OR) {
		r = cond_next_token(p);
		if (r < 0)
			return r;
		r = parse_and(p, &rr);
		if (r < 0)
			return r;
		r = new_node(p, N_OR, &n);
		if (r < 0)
			return r;
		p->c->nodes[n].a = l;
		p->c->nodes[n].b = rr;
		p->c->nodes[n].mask = p->c->nodes[l].mask | p->c->nodes[rr].mask;
		l = n;
	}
	*ret = l;
	return 0;
}

int cond_compile(const char *text, size_t len, struct cond **ret, size_t *err_off, char *errbuf,
		 size_t errlen)
{
	struct cparser p = {.s = text, .len = len, .errbuf = errbuf, .errlen = errlen};
	struct cond *c;
	int r;

	*err_off = 0;
	if (len > COND_MAX_TEXT) {
		snprintf(errbuf, errlen, "condition longer than %d bytes", COND_MAX_TEXT);
		return -EINVAL;
	}
	if (memchr(text, 0, len)) {
		*err_off = (size_t)((const char *)memchr(text, 0, len) - text);
		snprintf(errbuf, errlen, "NUL character in condition");
		return -EINVAL;
	}
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	p.c = c;
	c->text = strndup(text, len);
	if (!c->text) {
		cond_free(c);
		return -ENOMEM;
	}
	r = cond_next_token(&p);
	if (r >= 0 && p.tok.type == T_END)
		r = cond_err(&p, p.tok.pos, "empty condition");
	if (r >= 0)
		r = parse_or(&p, &c->root);
	if (r >= 0 && p.tok.type != T_END)
		r = cond_err(&p, p.tok.pos, "expected 'and', 'or' or the end of the condition");
	free(p.tok.str);
	if (r < 0) {
		*err_off = p.err_off;
		if (r != -EINVAL)
			snprintf(errbuf, errlen, "%s", strerror(-r));
		cond_free(c);
		return r;
	}
	*ret = c;
	return 0;
}
