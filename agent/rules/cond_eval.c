/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Evaluation of a compiled condition against one event (struct cond_ctx): a walk of the node
 * array that reads field values through cond_fields.c and never allocates.
 */
#include <fnmatch.h>
#include <string.h>

#include "cond-internal.h"
#include "cond_fields.h"
#include "proctree/proctree.h"

static bool str_eq(const char *a, size_t an, const char *b, size_t bn)
{
	return an == bn && memcmp(a, b, an) == 0;
}

static bool memstr(const char *h, size_t hn, const char *n, size_t nn)
{
	size_t i;

	if (nn == 0)
		return true;
	for (i = 0; i + nn <= hn; i++)
		if (memcmp(h + i, n, nn) == 0)
			return true;
	return false;
}

/* glob on a bounded, possibly unterminated string. */
static bool glob_match(const char *pat, const char *s, size_t n)
{
	char buf[RG_PATH_LEN + RG_ARGS_LEN];

	if (n >= sizeof(buf))
		n = sizeof(buf) - 1;
	memcpy(buf, s, n);
	buf[n] = 0;
	return fnmatch(pat, buf, 0) == 0;
}

static bool str_op(int op, const char *s, size_t n, const struct kval *k)
{
	switch (op) {
	case OP_EQ:
		return str_eq(s, n, k->s, k->n);
	case OP_NE:
		return !str_eq(s, n, k->s, k->n);
	case OP_CONTAINS:
		return memstr(s, n, k->s, k->n);
	case OP_GLOB:
		return glob_match(k->s, s, n);
	case OP_STARTS:
		return n >= k->n && memcmp(s, k->s, k->n) == 0;
	case OP_ENDS:
		return n >= k->n && memcmp(s + n - k->n, k->s, k->n) == 0;
	}
	return false;
}

static bool cmp_num(int op, i128 a, i128 b)
{
	switch (op) {
	case OP_EQ:
		return a == b;
	case OP_NE:
		return a != b;
	case OP_LT:
		return a < b;
	case OP_LE:
		return a <= b;
	case OP_GT:
		return a > b;
	case OP_GE:
		return a >= b;
	}
	return false;
}

/* field OP constant, the field's value in v. */
static bool cmp_const(int op, const struct value *v, const struct kval *k, unsigned type)
{
	uint16_t i;

	switch (v->kind) {
	case VK_INT:
	case VK_TIME:
		return cmp_num(op, v->i, k->i);
	case VK_BOOL:
		return cmp_num(op, v->i != 0, k->i);
	case VK_ENUM:
		if (k->per_type[type] < 0)
			return op == OP_NE;
		return cmp_num(op, v->i, k->per_type[type]);
	case VK_STR:
		return str_op(op, v->s, v->n, k);
	case VK_ADDR:
		if (op == OP_EQ)
			return memcmp(v->addr, k->addr, 16) == 0;
		if (op == OP_NE)
			return memcmp(v->addr, k->addr, 16) != 0;
		return false;
	case VK_BITS:
		/* contains: has the flag; in (list): has any of them */
		return (v->i & k->i) != 0;
	case VK_LIST:
		for (i = 0; i < v->nitems; i++)
			if (str_op(op == OP_CONTAINS ? OP_EQ : op, v->items[i], v->ilen[i], k))
				return true;
		return false;
	}
	return false;
}

static bool cmp_fields(int op, const struct value *a, const struct value *b)
{
	if (a->kind != b->kind)
		return false;
	switch (a->kind) {
	case VK_INT:
	case VK_TIME:
	case VK_BOOL:
		return cmp_num(op, a->i, b->i);
	case VK_STR:
		if (op == OP_EQ)
			return str_eq(a->s, a->n, b->s, b->n);
		if (op == OP_NE)
			return !str_eq(a->s, a->n, b->s, b->n);
		return false;
	case VK_ADDR:
		if (op == OP_EQ)
			return memcmp(a->addr, b->addr, 16) == 0;
		if (op == OP_NE)
			return memcmp(a->addr, b->addr, 16) != 0;
		return false;
	}
	return false;
}

static bool eval(const struct cond *c, uint16_t i, struct cond_ctx *ctx);

/*
 * Leaves hold two struct value (about 1.4 KiB) on the stack; they live in their own frames so
 * that the recursion through and/or/not (up to COND_MAX_NODES deep) stays small.
 */
static __attribute__((noinline)) bool eval_leaf(const struct cond *c, const struct cnode *n,
						struct cond_ctx *ctx)
{
	struct value v, w;
	uint16_t j;

	if (!cond_get_value(&c->fields[n->field], ctx, &v))
		return false;
	switch (n->type) {
	case N_TRUTHY:
		switch (v.kind) {
		case VK_STR:
			return v.n > 0;
		case VK_LIST:
			return v.nitems > 0;
		default:
			return v.i != 0;
		}
	case N_CMP:
		if (n->field2 != NO_FIELD)
			return cond_get_value(&c->fields[n->field2], ctx, &w) &&
			       cmp_fields(n->op, &v, &w);
		return cmp_const(n->op, &v, &c->ks[n->k], ctx->ev->type);
	case N_IN:
		if (v.kind == VK_BITS) /* has any of them (cmp_const's contains, for each) */
			return (v.i & n->bits) != 0;
		for (j = 0; j < n->nk; j++)
			if (cmp_const(v.kind == VK_LIST ? OP_CONTAINS : OP_EQ,
				      &v, &c->ks[n->k + j], ctx->ev->type))
				return true;
		return false;
	case N_WITHIN: {
		i128 d;
		if (!ctx->ev->ts)
			return false;
		d = (i128)ctx->ev->ts - v.i;
		if (d < 0)
			d = -d;
		return d <= c->ks[n->k].i;
	}
	}
	return false;
}

static __attribute__((noinline)) bool eval_lineage(const struct cond *c, const struct cnode *n,
						   struct cond_ctx *ctx)
{
	struct proc_node *anc[PROCTREE_MAX_DEPTH], *saved = ctx->cur;
	size_t k, na;
	bool hit = false;

	if (!saved)
		return false;
	if (n->type == N_LINEAGE && eval(c, n->a, ctx))
		return true;
	na =
	    proctree_ancestors(ctx->tree, saved, anc, n->type == N_PARENT ? 1 : PROCTREE_MAX_DEPTH);
	for (k = 0; k < na && !hit; k++) {
		ctx->cur = anc[k];
		hit = eval(c, n->a, ctx);
	}
	ctx->cur = saved;
	return hit;
}

static bool eval(const struct cond *c, uint16_t i, struct cond_ctx *ctx)
{
	const struct cnode *n = &c->nodes[i];

	switch (n->type) {
	case N_TRUE:
		return true;
	case N_FALSE:
		return false;
	case N_AND:
		return eval(c, n->a, ctx) && eval(c, n->b, ctx);
	case N_OR:
		return eval(c, n->a, ctx) || eval(c, n->b, ctx);
	case N_NOT:
		return !eval(c, n->a, ctx);
	case N_LINEAGE:
	case N_ANCESTOR:
	case N_PARENT:
		return eval_lineage(c, n, ctx);
	default:
		/* event.action is the event's type, always there: no value to fetch. */
		if (n->by_type)
			return (n->mask >> ctx->ev->type) & 1;
		return eval_leaf(c, n, ctx);
	}
}

bool cond_eval(const struct cond *c, struct cond_ctx *ctx)
{
	if (ctx->ev->type >= RG_EV__MAX || !(c->nodes[c->root].mask & RG_EV_BIT(ctx->ev->type)))
		return false;
	return eval(c, c->root, ctx);
}
