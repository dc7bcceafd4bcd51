/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cond.h"
#include "common/util.h"
#include "proctree/proctree.h"
#include "event/event_json.h"

typedef __int128 i128;

/* Value kinds. */
enum {
	VK_NONE = 0,
	VK_INT,
	VK_ENUM, /* an event enum: number in i, names via ef->to_str */
	VK_STR,
	VK_BITS, /* access flags or event flags */
	VK_BOOL,
	VK_ADDR, /* 16 bytes, IPv4 as IPv4-mapped */
	VK_LIST, /* strings */
	VK_TIME, /* wall-clock ns */
};

static const char *const vk_words[] = {
	[VK_NONE] = "nothing",	  [VK_INT] = "a number",   [VK_ENUM] = "a name",
	[VK_STR] = "a string",	  [VK_BITS] = "a set of flags", [VK_BOOL] = "a boolean",
	[VK_ADDR] = "an address", [VK_LIST] = "a list",	    [VK_TIME] = "a time",
};

struct value {
	uint8_t kind;
	uint8_t flags_kind; /* VK_BITS: EFK_ACCESS or EFK_FLAGS */
	i128 i;
	const char *s;
	size_t n;
	uint8_t addr[16];
	const struct event_field *ef;
	uint16_t nitems;
	const char *items[COND_LIST_MAX];
	uint16_t ilen[COND_LIST_MAX];
};

/* Fields the engine derives. `node`: read from ctx->cur (the process lineage() is looking at). */
enum {
	DF_NONE = 0,
	DF_PROC_PID,
	DF_PROC_NAME,
	DF_PROC_EXE,
	DF_PROC_ARGS,
	DF_PROC_UID,
	DF_PROC_SID,
	DF_PROC_PPID,
	DF_PROC_START_BOOT,
	DF_PROC_START_TIME,
	DF_PROC_IS_GAME,
	DF_PROC_HAS_RDMA,
	DF_PROC_ALLOWED,
	DF_PROC_RDMA_FIRST,
	DF_PROC_EXE_INODE,
	DF_PROC_EXE_DEVICE,
	DF_PROC_SHA256,
	DF_PARENT_PID,
	DF_PARENT_EXE,
	DF_PARENT_NAME,
	DF_ANCESTORS,
	DF_TGT_IS_GAME,
	DF_TGT_EXE,
	DF_TGT_HAS_RDMA,
	DF_TGT_UID,
	DF_GAME_RUNNING,
	DF_GAME_NAME,
	DF_GAME_PID,
	DF_GAME_UID,
	DF_GAME_SID,
	DF_GAME_STARTED,
	DF_GAME_ENDED,
	DF_GAME_RDMA_EVENTS,
	DF_POLICY_ROLE,
	DF_POLICY_MR_MAX,
	DF_MR_REMOTE,
	DF_MR_IMPLICIT,
	DF_EVENT_TIME,
};

struct dfield {
	const char *name;
	uint8_t id;
	uint8_t kind;
	bool node;
};

static const struct dfield dfields[] = {
	{"process.pid", DF_PROC_PID, VK_INT, true},
	{"process.name", DF_PROC_NAME, VK_STR, true},
	{"process.executable", DF_PROC_EXE, VK_STR, true},
	{"process.args", DF_PROC_ARGS, VK_LIST, true},
	{"process.user.id", DF_PROC_UID, VK_INT, true},
	{"process.session.id", DF_PROC_SID, VK_INT, true},
	{"process.parent.pid", DF_PROC_PPID, VK_INT, true},
	{"process.start_boot_ns", DF_PROC_START_BOOT, VK_INT, true},
	{"process.start_time", DF_PROC_START_TIME, VK_TIME, true},
	{"process.is_game", DF_PROC_IS_GAME, VK_BOOL, true},
	{"process.has_rdma", DF_PROC_HAS_RDMA, VK_BOOL, true},
	{"process.allowed", DF_PROC_ALLOWED, VK_BOOL, true},
	{"process.rdma_first_seen", DF_PROC_RDMA_FIRST, VK_TIME, true},
	{"process.exe_inode", DF_PROC_EXE_INODE, VK_INT, true},
	{"process.exe_device", DF_PROC_EXE_DEVICE, VK_INT, true},
	{"process.hash.sha256", DF_PROC_SHA256, VK_STR, true},
	{"process.parent.executable", DF_PARENT_EXE, VK_STR, true},
	{"process.parent.name", DF_PARENT_NAME, VK_STR, true},
	{"process.ancestors", DF_ANCESTORS, VK_LIST, true},
	{"target.process.is_game", DF_TGT_IS_GAME, VK_BOOL, false},
	{"target.process.executable", DF_TGT_EXE, VK_STR, false},
	{"target.process.has_rdma", DF_TGT_HAS_RDMA, VK_BOOL, false},
	{"target.process.user.id", DF_TGT_UID, VK_INT, false},
	{"game.running", DF_GAME_RUNNING, VK_BOOL, false},
	{"game.name", DF_GAME_NAME, VK_STR, false},
	{"game.pid", DF_GAME_PID, VK_INT, false},
	{"game.user.id", DF_GAME_UID, VK_INT, false},
	{"game.session.id", DF_GAME_SID, VK_INT, false},
	{"game.started", DF_GAME_STARTED, VK_TIME, false},
	{"game.ended", DF_GAME_ENDED, VK_TIME, false},
	{"game.rdma_events", DF_GAME_RDMA_EVENTS, VK_INT, false},
	{"policy.role", DF_POLICY_ROLE, VK_STR, false},
	{"policy.mr_max_bytes", DF_POLICY_MR_MAX, VK_INT, false},
	{"rdma.mr.remote", DF_MR_REMOTE, VK_BOOL, false},
	{"rdma.mr.implicit", DF_MR_IMPLICIT, VK_BOOL, false},
	{"event.time", DF_EVENT_TIME, VK_TIME, false},
};

const char *cond_derived_field(size_t i)
{
	return i < ARRAY_SIZE(dfields) ? dfields[i].name : NULL;
}

/* Event flag names in RG_EVF_* bit order (as event_json.c writes them). */
static const char *const evflag_names[] = {"denied", "killed", "truncated", "malformed", "soft",
					    "failed"};

struct field_ref {
	char *name;
	uint8_t kind;
	uint8_t flags_kind;
	uint8_t df; /* DF_* or DF_NONE for an event field */
	bool node;
	const struct event_field *by_type[RG_EV__MAX];
	uint32_t type_mask; /* event types that have it (all for derived fields) */
};

static uint8_t efk_to_vk(unsigned efk)
{
	switch (efk) {
	case EFK_U32:
	case EFK_I32:
	case EFK_U64:
	case EFK_HEX32:
	case EFK_PORT:
		return VK_INT;
	case EFK_STR:
		return VK_STR;
	case EFK_ENUM:
		return VK_ENUM;
	case EFK_ACCESS:
	case EFK_FLAGS:
		return VK_BITS;
	case EFK_GID:
	case EFK_GID_V4:
	case EFK_ADDR:
		return VK_ADDR;
	case EFK_ARGS:
		return VK_LIST;
	case EFK_BOOLFLAG:
		return VK_BOOL;
	case EFK_TIME:
		return VK_TIME;
	}
	return VK_NONE;
}

_Static_assert(RG_EV__MAX < 32, "event type masks are 32-bit");
#define ALL_TYPES (((uint32_t)1 << RG_EV__MAX) - 2) /* every type but NONE */

static int field_resolve(const char *name, struct field_ref *f, char *errbuf, size_t errlen)
{
	unsigned t, i;

	memset(f, 0, sizeof(*f));
	for (i = 0; i < ARRAY_SIZE(dfields); i++)
		if (strcmp(dfields[i].name, name) == 0) {
			f->df = dfields[i].id;
			f->kind = dfields[i].kind;
			f->node = dfields[i].node;
			f->type_mask = ALL_TYPES;
			return 0;
		}
	for (t = 1; t < RG_EV__MAX; t++) {
		const struct event_field *ef = event_field_find(t, name);
		uint8_t k;

		if (!ef)
			continue;
		k = efk_to_vk(ef->kind);
		if (f->kind && f->kind != k) {
			snprintf(errbuf, errlen,
				 "field '%s' has different kinds in different events", name);
			return -EINVAL;
		}
		f->kind = k;
		if (k == VK_BITS)
			f->flags_kind = (uint8_t)ef->kind;
		f->by_type[t] = ef;
		f->type_mask |= 1u << t;
	}
	if (!f->kind) {
		snprintf(errbuf, errlen, "unknown field '%s'", name);
		return -EINVAL;
	}
	return 0;
}

int field_ref_new(const char *name, struct field_ref **ret, char *errbuf, size_t errlen)
{
	struct field_ref *f = malloc(sizeof(*f));
	int r;

	if (!f)
		return -ENOMEM;
	r = field_resolve(name, f, errbuf, errlen);
	if (r < 0) {
		free(f);
		return r;
	}
	f->name = strdup(name);
	if (!f->name) {
		free(f);
		return -ENOMEM;
	}
	*ret = f;
	return 0;
}

void field_ref_free(struct field_ref *f)
{
	if (!f)
		return;
	free(f->name);
	free(f);
}

const char *field_ref_name(const struct field_ref *f)
{
	return f->name;
}

/* Reading values. */

#define CAT(ev, f, T) ((const T *)((const char *)(ev) + (f)->offset))

static bool event_value(const struct event_field *ef, const struct rg_event *ev, struct value *v)
{
	static const uint8_t zero[16];

	if (ef->present && !ef->present(ev))
		return false;
	v->ef = ef;
	switch (ef->kind) {
	case EFK_U32:
	case EFK_HEX32:
		v->kind = VK_INT;
		v->i = *CAT(ev, ef, uint32_t);
		return true;
	case EFK_I32:
		v->kind = VK_INT;
		v->i = *CAT(ev, ef, int32_t);
		return true;
	case EFK_U64:
		v->kind = VK_INT;
		v->i = *CAT(ev, ef, uint64_t);
		return true;
	case EFK_TIME:
		v->kind = VK_TIME;
		v->i = *CAT(ev, ef, uint64_t);
		return v->i != 0;
	case EFK_STR:
		v->kind = VK_STR;
		v->s = CAT(ev, ef, char);
		v->n = strnlen(v->s, ef->size);
		return true;
	case EFK_ENUM:
		v->kind = VK_ENUM;
		v->i = ef->size == 2 ? *CAT(ev, ef, uint16_t) : *CAT(ev, ef, uint32_t);
		return true;
	case EFK_ACCESS:
	case EFK_FLAGS:
		v->kind = VK_BITS;
		v->flags_kind = (uint8_t)ef->kind;
		v->i = *CAT(ev, ef, uint32_t);
		return true;
	case EFK_GID:
		v->kind = VK_ADDR;
		memcpy(v->addr, CAT(ev, ef, uint8_t), 16);
		return memcmp(v->addr, zero, 16) != 0;
	case EFK_GID_V4: {
		char buf[16];
		v->kind = VK_ADDR;
		memcpy(v->addr, CAT(ev, ef, uint8_t), 16);
		return gid_to_ipv4(v->addr, buf);
	}
	case EFK_ADDR: {
		const struct rg_addr *a = CAT(ev, ef, struct rg_addr);
		v->kind = VK_ADDR;
		memcpy(v->addr, a->addr, 16);
		return a->family != 0;
	}
	case EFK_PORT:
		v->kind = VK_INT;
		v->i = CAT(ev, ef, struct rg_addr)->port;
		return true;
	case EFK_ARGS: {
		const char *p = CAT(ev, ef, char);
		uint32_t len = *(const uint32_t *)((const char *)ev + ef->aux), off = 0;

		if (len > ef->size)
			len = ef->size;
		v->kind = VK_LIST;
		v->nitems = 0;
		while (off < len && v->nitems < COND_LIST_MAX) {
			size_t n = strnlen(p + off, len - off);
			v->items[v->nitems] = p + off;
			v->ilen[v->nitems++] = (uint16_t)n;
			off += (uint32_t)n + 1;
		}
		return true;
	}
	case EFK_BOOLFLAG:
		v->kind = VK_BOOL;
		v->i = (*CAT(ev, ef, uint32_t) & ef->aux) != 0;
		return true;
	}
	return false;
}

static void set_str(struct value *v, const char *s, size_t max)
{
	v->kind = VK_STR;
	v->s = s;
	v->n = max ? strnlen(s, max) : strlen(s);
}

static void set_int(struct value *v, uint8_t kind, i128 i)
{
	v->kind = kind;
	v->i = i;
}

static void args_list(const struct proc_node *n, struct value *v)
{
	uint32_t off = 0, len = MIN(n->args_len, (uint32_t)RG_ARGS_LEN);

	v->kind = VK_LIST;
	v->nitems = 0;
	while (off < len && v->nitems < COND_LIST_MAX) {
		size_t k = strnlen(n->args + off, len - off);
		v->items[v->nitems] = n->args + off;
		v->ilen[v->nitems++] = (uint16_t)k;
		off += (uint32_t)k + 1;
	}
}

uint64_t cond_proc_start_time(uint64_t boot_realtime_ns, const struct proc_node *n)
{
	if (boot_realtime_ns && n->start_boot_ns)
		return boot_realtime_ns + n->start_boot_ns;
	return n->fork_ns;
}

/* process.allowed, asked of the allowlist at most once per event for the acting process. */
static bool proc_allowed(struct cond_ctx *ctx, struct proc_node *n)
{
	const struct cond_env *env = ctx->env;
	bool ok;

	if (n == ctx->proc && ctx->allowed >= 0)
		return ctx->allowed;
	ok = env && env->proc_allowed && env->proc_allowed(env->ud, n, ctx->ev);
	if (n == ctx->proc)
		ctx->allowed = ok;
	return ok;
}

static bool derived_value(const struct field_ref *f, struct cond_ctx *ctx, struct value *v)
{
	const struct rg_event *ev = ctx->ev;
	struct proc_node *n = ctx->cur, *p;
	const struct game_session *g = ctx->game;
	const struct cond_env *env = ctx->env;

	if (f->node && !n)
		return false;
	switch (f->df) {
	case DF_PROC_PID:
		set_int(v, VK_INT, n->pid);
		return true;
	case DF_PROC_NAME:
		set_str(v, n->comm, sizeof(n->comm));
		return true;
	case DF_PROC_EXE:
		if (!(n->flags & PROC_F_EXEC_KNOWN))
			return false;
		set_str(v, n->exe, RG_PATH_LEN);
		return true;
	case DF_PROC_ARGS:
		if (!(n->flags & PROC_F_EXEC_KNOWN))
			return false;
		args_list(n, v);
		return true;
	case DF_PROC_UID:
		set_int(v, VK_INT, n->uid);
		return true;
	case DF_PROC_SID:
		if (!(n->flags & PROC_F_EXEC_KNOWN))
			return false;
		set_int(v, VK_INT, n->sid);
		return true;
	case DF_PROC_PPID:
		set_int(v, VK_INT, n->ppid);
		return true;
	case DF_PROC_START_BOOT:
		set_int(v, VK_INT, n->start_boot_ns);
		return n->start_boot_ns != 0;
	case DF_PROC_START_TIME:
		set_int(v, VK_TIME, cond_proc_start_time(env ? env->boot_realtime_ns : 0, n));
		return v->i != 0;
	case DF_PROC_IS_GAME:
		set_int(v, VK_BOOL, (n->flags & PROC_F_GAME) != 0);
		return true;
	case DF_PROC_HAS_RDMA:
		set_int(v, VK_BOOL, (n->flags & PROC_F_HAS_RDMA) != 0);
		return true;
	case DF_PROC_ALLOWED:
		set_int(v, VK_BOOL, proc_allowed(ctx, n));
		return true;
	case DF_PROC_RDMA_FIRST:
		set_int(v, VK_TIME, n->rdma_first_ns);
		return n->rdma_first_ns != 0;
	case DF_PROC_EXE_INODE:
		set_int(v, VK_INT, n->exe_ino);
		return n->exe_ino != 0;
	case DF_PROC_EXE_DEVICE:
		set_int(v, VK_INT, n->exe_dev);
		return n->exe_ino != 0;
	case DF_PROC_SHA256:
		/* Only what has been computed (an allowlist or game check asked for it). */
		if (!(n->flags & PROC_F_HASHED) || !n->sha256[0])
			return false;
		set_str(v, n->sha256, 65);
		return true;
	case DF_PARENT_PID:
		set_int(v, VK_INT, n->ppid);
		return n->ppid != 0;
	case DF_PARENT_EXE:
	case DF_PARENT_NAME:
		p = proctree_parent(ctx->tree, n);
		if (!p)
			return false;
		if (f->df == DF_PARENT_NAME) {
			set_str(v, p->comm, sizeof(p->comm));
			return true;
		}
		if (!(p->flags & PROC_F_EXEC_KNOWN))
			return false;
		set_str(v, p->exe, RG_PATH_LEN);
		return true;
	case DF_ANCESTORS: {
		struct proc_node *anc[PROCTREE_MAX_DEPTH];
		size_t k, na = proctree_ancestors(ctx->tree, n, anc, PROCTREE_MAX_DEPTH);

		v->kind = VK_LIST;
		v->nitems = 0;
		for (k = 0; k < na && v->nitems < COND_LIST_MAX; k++) {
			if (!(anc[k]->flags & PROC_F_EXEC_KNOWN))
				continue;
			v->items[v->nitems] = anc[k]->exe;
			v->ilen[v->nitems++] = (uint16_t)strnlen(anc[k]->exe, RG_PATH_LEN);
		}
		return true;
	}
	case DF_TGT_IS_GAME:
		if (ev->type != RG_EV_MEMORY_ACCESS)
			return false;
		set_int(v, VK_BOOL, ctx->target && (ctx->target->flags & PROC_F_GAME));
		return true;
	case DF_TGT_HAS_RDMA:
		if (ev->type != RG_EV_MEMORY_ACCESS)
			return false;
		set_int(v, VK_BOOL, ctx->target && (ctx->target->flags & PROC_F_HAS_RDMA));
		return true;
	case DF_TGT_EXE:
		if (!ctx->target || !(ctx->target->flags & PROC_F_EXEC_KNOWN))
			return false;
		set_str(v, ctx->target->exe, RG_PATH_LEN);
		return true;
	case DF_TGT_UID:
		if (!ctx->target)
			return false;
		set_int(v, VK_INT, ctx->target->uid);
		return true;
	case DF_GAME_RUNNING:
		set_int(v, VK_BOOL, ctx->game_running);
		return true;
	case DF_GAME_NAME:
		if (!g || !g->name)
			return false;
		set_str(v, g->name, 0);
		return true;
	case DF_GAME_PID:
		if (!g)
			return false;
		set_int(v, VK_INT, g->pid);
		return true;
	case DF_GAME_UID:
		if (!g)
			return false;
		set_int(v, VK_INT, g->uid);
		return true;
	case DF_GAME_SID:
		if (!g)
			return false;
		set_int(v, VK_INT, g->sid);
		return true;
	case DF_GAME_STARTED:
		if (!g || !g->started_ns)
			return false;
		set_int(v, VK_TIME, g->started_ns);
		return true;
	case DF_GAME_ENDED:
		set_int(v, VK_TIME, ctx->game_ended_ns);
		return ctx->game_ended_ns != 0;
	case DF_GAME_RDMA_EVENTS:
		if (!g)
			return false;
		set_int(v, VK_INT, g->rdma_events);
		return true;
	case DF_POLICY_ROLE:
		if (!env)
			return false;
		set_str(v, env->role, 0);
		return true;
	case DF_POLICY_MR_MAX:
		if (!env)
			return false;
		set_int(v, VK_INT, env->mr_max_bytes);
		return true;
	case DF_MR_REMOTE:
		if (ev->type != RG_EV_VERBS)
			return false;
		set_int(v, VK_BOOL, (ev->u.verbs.mr_access & RG_ACCESS_REMOTE_ANY) != 0);
		return true;
	case DF_MR_IMPLICIT:
		if (ev->type != RG_EV_VERBS)
			return false;
		set_int(v, VK_BOOL, (ev->u.verbs.mr_access & RG_ACCESS_ON_DEMAND) &&
					    ev->u.verbs.mr_length == UINT64_MAX);
		return true;
	case DF_EVENT_TIME:
		set_int(v, VK_TIME, ev->ts);
		return ev->ts != 0;
	}
	return false;
}

static bool get_value(const struct field_ref *f, struct cond_ctx *ctx, struct value *v)
{
	const struct event_field *ef;

	v->kind = VK_NONE;
	if (f->df)
		return derived_value(f, ctx, v);
	if (ctx->ev->type >= RG_EV__MAX)
		return false;
	ef = f->by_type[ctx->ev->type];
	return ef && event_value(ef, ctx->ev, v);
}

/* Compiled form. */

enum {
	N_TRUE,
	N_FALSE,
	N_AND,
	N_OR,
	N_NOT,
	N_TRUTHY,
	N_CMP,
	N_IN,
	N_LINEAGE,
	N_ANCESTOR,
	N_PARENT,
	N_WITHIN,
};

enum {
	OP_EQ,
	OP_NE,
	OP_LT,
	OP_LE,
	OP_GT,
	OP_GE,
	OP_CONTAINS,
	OP_GLOB,
	OP_STARTS,
	OP_ENDS,
};

static const char *const op_names[] = {"==", "!=", "<", "<=", ">", ">=", "contains", "glob",
				       "startswith", "endswith"};

struct kval {
	uint8_t kind; /* VK_INT, VK_STR, VK_BOOL, VK_ADDR, VK_ENUM, VK_BITS */
	i128 i;
	char *s;
	size_t n;
	uint8_t addr[16];
	int32_t *per_type; /* VK_ENUM: the number for each event type, -1 if no such name */
};

struct cnode {
	uint8_t type;
	uint8_t op;
	uint16_t a, b;
	uint16_t field, field2; /* field2 = NO_FIELD unless comparing two fields */
	uint16_t k, nk;		/* constants */
	bool by_type;		/* event.action == / in: true exactly for the types in mask */
	uint32_t mask;
	uint64_t bits; /* N_IN on flags (VK_BITS): the constants' bits together */
};

#define NO_FIELD 0xffff

struct cond {
	char *text;
	struct cnode *nodes;
	size_t nnodes, anodes;
	struct field_ref *fields;
	size_t nfields, afields;
	struct kval *ks;
	size_t nks, aks;
	uint16_t root;
};

const char *cond_text(const struct cond *c)
{
	return c->text;
}

uint32_t cond_type_mask(const struct cond *c)
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

/* Lexer and parser. */

enum {
	T_END,
	T_IDENT,
	T_STRING,
	T_NUMBER,
	T_LPAREN,
	T_RPAREN,
	T_COMMA,
	T_OP, /* comparison: op in tok.op */
	T_AND,
	T_OR,
	T_NOT,
	T_IN,
	T_TRUE,
	T_FALSE,
	T_FUNC, /* lineage, ancestor, parent, within: which in tok.op */
};

enum { FN_LINEAGE, FN_ANCESTOR, FN_PARENT, FN_WITHIN };

struct token {
	int type;
	int op;
	size_t pos, len;
	char *str; /* T_STRING decoded, T_IDENT copied, T_NUMBER text */
};

struct cparser {
	struct cond *c;
	const char *s;
	size_t len, i;
	struct token tok;
	size_t err_off;
	char *errbuf;
	size_t errlen;
	unsigned depth;
	bool in_lineage;
};

static int cerr(struct cparser *p, size_t pos, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int cerr(struct cparser *p, size_t pos, const char *fmt, ...)
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

static int next_token(struct cparser *p)
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
		return cerr(p, p->i, "'=' is not an operator; use '=='");
	case '!':
		if (p->i + 1 < p->len && p->s[p->i + 1] == '=') {
			t->type = T_OP, t->op = OP_NE, p->i += 2;
			goto done;
		}
		return cerr(p, p->i, "'!' is not an operator; use 'not' or '!='");
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
		return cerr(p, p->i, "'%c' is not an operator; use '%s'", c,
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
				return cerr(p, k, "control character in string");
			}
			out[n++] = p->s[k];
		}
		if (k >= p->len) {
			free(out);
			return cerr(p, p->i, "unterminated string");
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
		return cerr(p, p->i, "unexpected character '%c'", c);
	return cerr(p, p->i, "unexpected byte 0x%02x", (unsigned char)c);
done:
	t->len = p->i - t->pos;
	return 0;
}

static int new_node(struct cparser *p, uint8_t type, uint16_t *ret)
{
	struct cond *c = p->c;
	struct cnode *n;

	if (c->nnodes >= COND_MAX_NODES)
		return cerr(p, p->tok.pos, "condition too complex (more than %d nodes)",
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
	r = field_resolve(name, &f, msg, sizeof(msg));
	if (r < 0)
		return cerr(p, pos, "%s", msg);
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
		return cerr(p, pos, "only process fields can be used inside lineage(), ancestor() "
				    "and parent(); '%s' is not one", name);
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

static int parse_number(struct cparser *p, const struct token *t, bool duration, i128 *ret)
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
		return cerr(p, t->pos, "invalid number '%s'", t->str);
	memcpy(digits, s, n);
	digits[n] = 0;
	if (s[n]) {
		bool found = false;

		if (base == 16)
			return cerr(p, t->pos, "invalid number '%s'", t->str);
		if (duration) {
			for (i = 0; i < ARRAY_SIZE(durs); i++)
				if (strcmp(s + n, durs[i].sfx) == 0)
					mul = durs[i].mul, found = true;
			if (!found)
				return cerr(p, t->pos,
					    "invalid duration '%s' (use ms, s, m, h or d)", t->str);
		} else {
			for (i = 0; i < ARRAY_SIZE(sizes); i++)
				if (strcmp(s + n, sizes[i].sfx) == 0)
					mul = sizes[i].mul, found = true;
			if (!found)
				return cerr(p, t->pos,
					    "invalid number '%s' (size suffixes: KiB, MiB, "
					    "GiB, TiB)",
					    t->str);
		}
	} else if (duration)
		return cerr(p, t->pos, "a duration needs a unit: ms, s, m, h or d");
	if (safe_atou64(digits, base, &u) < 0)
		return cerr(p, t->pos, "number '%s' out of range", t->str);
	*ret = (i128)u * (i128)mul;
	if (*ret > (i128)UINT64_MAX)
		return cerr(p, t->pos, "number '%s' out of range", t->str);
	if (neg)
		*ret = -*ret;
	return 0;
}

static bool token_is_value(const struct token *t)
{
	return t->type == T_IDENT || t->type == T_STRING || t->type == T_NUMBER ||
	       t->type == T_TRUE || t->type == T_FALSE;
}

static const char *token_text(const struct token *t)
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

/* A constant for field f from the current token. */
static int parse_const(struct cparser *p, const struct field_ref *f, int op, uint16_t *idx)
{
	struct token *t = &p->tok;
	struct kval *k;
	const char *text = token_text(t);
	unsigned ty, i;
	int r;

	if (!token_is_value(t))
		return cerr(p, t->pos, "expected a value");
	r = new_const(p, &k, idx);
	if (r < 0)
		return r;
	if (op == OP_GLOB || op == OP_STARTS || op == OP_ENDS ||
	    (op == OP_CONTAINS && (f->kind == VK_STR || f->kind == VK_LIST)) ||
	    f->kind == VK_STR || f->kind == VK_LIST) {
		if (t->type == T_NUMBER && f->kind != VK_STR && f->kind != VK_LIST)
			return cerr(p, t->pos, "expected a string");
		if (t->type != T_IDENT && t->type != T_STRING && t->type != T_NUMBER)
			return cerr(p, t->pos, "expected a string, found %s", text);
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
				return cerr(p, t->pos, "bad glob '%s': %s", k->s, why);
		}
		return 0;
	}
	switch (f->kind) {
	case VK_INT:
		if (t->type != T_NUMBER)
			return cerr(p, t->pos, "'%s' is a number, not '%s'", f->name, text);
		k->kind = VK_INT;
		return parse_number(p, t, false, &k->i);
	case VK_BOOL:
		if (t->type != T_TRUE && t->type != T_FALSE)
			return cerr(p, t->pos, "'%s' is true or false, not '%s'", f->name, text);
		k->kind = VK_BOOL;
		k->i = t->type == T_TRUE;
		return 0;
	case VK_ADDR: {
		struct rg_addr a;
		if ((t->type != T_STRING && t->type != T_NUMBER && t->type != T_IDENT) ||
		    addr_from_string(text, &a) < 0)
			return cerr(p, t->pos, "'%s' is not an IP address or GID", text);
		k->kind = VK_ADDR;
		memcpy(k->addr, a.addr, 16);
		return 0;
	}
	case VK_BITS: {
		uint32_t bit = 0;
		if (t->type != T_IDENT && t->type != T_STRING)
			return cerr(p, t->pos, "expected a flag name, found '%s'", text);
		if (f->flags_kind == EFK_ACCESS) {
			if (access_from_string(text, &bit) < 0)
				return cerr(p, t->pos, "unknown access flag '%s'", text);
		} else {
			for (i = 0; i < ARRAY_SIZE(evflag_names); i++)
				if (strcmp(evflag_names[i], text) == 0)
					bit = 1u << i;
			if (!bit)
				return cerr(p, t->pos, "unknown event flag '%s'", text);
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
			return cerr(p, t->pos, "expected a name, found '%s'", text);
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
			return cerr(p, t->pos, "unknown value '%s' for %s", text, f->name);
		return 0;
	}
	case VK_TIME:
		return cerr(p, t->pos, "'%s' is a time: compare it with another time field or use "
				       "within()", f->name);
	default:
		break;
	}
	return cerr(p, t->pos, "cannot compare '%s' with a value", f->name);
}

static int parse_or(struct cparser *p, uint16_t *ret);

/* The event type an event.action constant names (the same for every type). */
static uint32_t action_bit(const struct kval *k)
{
	int v = k->per_type[RG_EV_EXEC];

	return v > 0 && v < RG_EV__MAX ? 1u << v : 0;
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

static int parse_predicate(struct cparser *p, uint16_t *ret)
{
	size_t fpos = p->tok.pos;
	uint16_t fi, n, k;
	struct field_ref *f;
	bool negate = false;
	int r, op;

	r = add_field(p, p->tok.str, fpos, &fi);
	if (r < 0)
		return r;
	r = next_token(p);
	if (r < 0)
		return r;
	f = &p->c->fields[fi];
	if (p->tok.type == T_NOT) {
		r = next_token(p);
		if (r < 0)
			return r;
		if (p->tok.type != T_IN)
			return cerr(p, p->tok.pos, "expected 'in' after 'not'");
		negate = true;
	}
	if (p->tok.type == T_IN) {
		size_t ipos = p->tok.pos;
		uint16_t first = 0, count = 0;

		f = &p->c->fields[fi];
		if (f->kind == VK_BOOL || f->kind == VK_TIME)
			return cerr(p, ipos, "'in' does not apply to '%s' (%s)", f->name,
				    vk_words[f->kind]);
		r = next_token(p);
		if (r < 0)
			return r;
		if (p->tok.type != T_LPAREN)
			return cerr(p, p->tok.pos, "expected '(' after 'in'");
		for (;;) {
			r = next_token(p);
			if (r < 0)
				return r;
			f = &p->c->fields[fi];
			r = parse_const(p, f, f->kind == VK_LIST ? OP_CONTAINS : OP_EQ, &k);
			if (r < 0)
				return r;
			if (count == 0)
				first = k;
			count++;
			r = next_token(p);
			if (r < 0)
				return r;
			if (p->tok.type == T_RPAREN)
				break;
			if (p->tok.type != T_COMMA)
				return cerr(p, p->tok.pos, "expected ',' or ')' in the list");
		}
		r = new_node(p, N_IN, &n);
		if (r < 0)
			return r;
		p->c->nodes[n].field = fi;
		p->c->nodes[n].k = first;
		p->c->nodes[n].nk = count;
		p->c->nodes[n].mask = p->c->fields[fi].type_mask;
		for (uint16_t j = 0; j < count; j++)
			if (p->c->ks[first + j].kind == VK_BITS)
				p->c->nodes[n].bits |= (uint64_t)p->c->ks[first + j].i;
		if (strcmp(p->c->fields[fi].name, "event.action") == 0) {
			uint32_t m = 0;
			uint16_t j;
			for (j = 0; j < count; j++)
				m |= action_bit(&p->c->ks[first + j]);
			p->c->nodes[n].mask = m;
			p->c->nodes[n].by_type = true;
		}
		r = next_token(p);
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
	if (p->tok.type != T_OP) {
		/* A bare field: truthy. */
		f = &p->c->fields[fi];
		if (f->kind == VK_TIME || f->kind == VK_ENUM || f->kind == VK_ADDR)
			return cerr(p, fpos, "'%s' is %s: compare it with something", f->name,
				    vk_words[f->kind]);
		r = new_node(p, N_TRUTHY, &n);
		if (r < 0)
			return r;
		p->c->nodes[n].field = fi;
		p->c->nodes[n].mask = f->type_mask;
		*ret = n;
		return 0;
	}
	op = p->tok.op;
	f = &p->c->fields[fi];
	if (!op_allowed(op, f->kind))
		return cerr(p, p->tok.pos, "'%s' does not apply to '%s' (%s)", op_names[op],
			    f->name, vk_words[f->kind]);
	r = next_token(p);
	if (r < 0)
		return r;
	r = new_node(p, N_CMP, &n);
	if (r < 0)
		return r;
	p->c->nodes[n].op = (uint8_t)op;
	p->c->nodes[n].field = fi;
	p->c->nodes[n].mask = p->c->fields[fi].type_mask;
	if (p->tok.type == T_IDENT && strchr(p->tok.str, '.') && op <= OP_GE) {
		/* Another field? */
		struct field_ref tmp;
		char msg[200];

		if (field_resolve(p->tok.str, &tmp, msg, sizeof(msg)) == 0) {
			uint16_t f2;
			r = add_field(p, p->tok.str, p->tok.pos, &f2);
			if (r < 0)
				return r;
			f = &p->c->fields[fi];
			if (p->c->fields[f2].kind != f->kind)
				return cerr(p, p->tok.pos,
					    "cannot compare '%s' (%s) with '%s' (%s)", f->name,
					    vk_words[f->kind], p->c->fields[f2].name,
					    vk_words[p->c->fields[f2].kind]);
			if (f->kind == VK_ENUM)
				return cerr(p, p->tok.pos, "cannot compare two named fields");
			p->c->nodes[n].field2 = f2;
			p->c->nodes[n].mask &= p->c->fields[f2].type_mask;
			*ret = n;
			return next_token(p);
		}
	}
	f = &p->c->fields[fi];
	if (f->kind == VK_TIME)
		return cerr(p, p->tok.pos, "'%s' is a time: compare it with another time field or "
					   "use within()", f->name);
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
	return next_token(p);
}

static int expect(struct cparser *p, int type, const char *what)
{
	int r;

	if (p->tok.type != type)
		return cerr(p, p->tok.pos, "expected %s", what);
	r = next_token(p);
	return r;
}

static int parse_primary(struct cparser *p, uint16_t *ret)
{
	uint16_t n, a;
	int r;

	switch (p->tok.type) {
	case T_LPAREN:
		if (++p->depth > COND_MAX_DEPTH)
			return cerr(p, p->tok.pos, "nesting deeper than %d levels", COND_MAX_DEPTH);
		r = next_token(p);
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
		return next_token(p);
	case T_FUNC: {
		int fn = p->tok.op;
		size_t fpos = p->tok.pos;

		r = next_token(p);
		if (r < 0)
			return r;
		if (p->tok.type != T_LPAREN)
			return cerr(p, p->tok.pos, "expected '(' after '%s'",
				    fn == FN_WITHIN ? "within" : fn == FN_LINEAGE ? "lineage" :
				    fn == FN_ANCESTOR ? "ancestor" : "parent");
		r = next_token(p);
		if (r < 0)
			return r;
		if (fn == FN_WITHIN) {
			uint16_t fi, k;
			struct kval *kv;

			if (p->tok.type != T_IDENT)
				return cerr(p, p->tok.pos, "expected a time field in within()");
			r = add_field(p, p->tok.str, p->tok.pos, &fi);
			if (r < 0)
				return r;
			if (p->c->fields[fi].kind != VK_TIME)
				return cerr(p, p->tok.pos, "'%s' is not a time field", p->tok.str);
			r = next_token(p);
			if (r < 0)
				return r;
			r = expect(p, T_COMMA, "',' after the time field");
			if (r < 0)
				return r;
			if (p->tok.type != T_NUMBER)
				return cerr(p, p->tok.pos, "expected a duration such as 30s");
			r = new_const(p, &kv, &k);
			if (r < 0)
				return r;
			kv->kind = VK_INT;
			r = parse_number(p, &p->tok, true, &p->c->ks[k].i);
			if (r < 0)
				return r;
			if (p->c->ks[k].i < 0)
				return cerr(p, p->tok.pos, "a duration cannot be negative");
			r = next_token(p);
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
			return cerr(p, fpos, "lineage(), ancestor() and parent() cannot be nested");
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
		return cerr(p, p->tok.pos, "unexpected end of condition");
	default:
		return cerr(p, p->tok.pos, "expected a field, '(' or 'not'");
	}
}

static int parse_unary(struct cparser *p, uint16_t *ret)
{
	uint16_t n, a;
	int r;

	if (p->tok.type != T_NOT)
		return parse_primary(p, ret);
	if (++p->depth > COND_MAX_DEPTH)
		return cerr(p, p->tok.pos, "nesting deeper than %d levels", COND_MAX_DEPTH);
	r = next_token(p);
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
		r = next_token(p);
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
		r = next_token(p);
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
	r = next_token(&p);
	if (r >= 0 && p.tok.type == T_END)
		r = cerr(&p, p.tok.pos, "empty condition");
	if (r >= 0)
		r = parse_or(&p, &c->root);
	if (r >= 0 && p.tok.type != T_END)
		r = cerr(&p, p.tok.pos, "expected 'and', 'or' or the end of the condition");
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

/* Evaluation. */

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

	if (!get_value(&c->fields[n->field], ctx, &v))
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
			return get_value(&c->fields[n->field2], ctx, &w) &&
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
	if (ctx->ev->type >= RG_EV__MAX || !(c->nodes[c->root].mask & (1u << ctx->ev->type)))
		return false;
	return eval(c, c->root, ctx);
}

/* Formatting and hashing of single fields. */

/* n bytes of s (no NUL among them) into buf as snprintf("%.*s") would put them: cut to fit. */
static void put_text(char *buf, size_t size, const char *s, size_t n)
{
	n = MIN(n, size - 1);
	memcpy(buf, s, n);
	buf[n] = 0;
}

static void format_i128(i128 v, char *buf, size_t size)
{
	char d[24], *p = d + sizeof(d);
	uint64_t u = v < 0 ? (uint64_t)(-v) : (uint64_t)v;

	do
		*--p = (char)('0' + u % 10);
	while ((u /= 10));
	if (v < 0)
		*--p = '-';
	put_text(buf, size, p, (size_t)(d + sizeof(d) - p));
}

bool field_ref_format(const struct field_ref *f, struct cond_ctx *ctx, char *buf, size_t size)
{
	struct value v;
	size_t off = 0, i;

	if (size == 0)
		return false;
	if (!get_value(f, ctx, &v)) {
		snprintf(buf, size, "?");
		return false;
	}
	buf[0] = 0;
	switch (v.kind) {
	case VK_INT:
		format_i128(v.i, buf, size);
		break;
	case VK_ENUM: {
		const char *s = v.ef && v.ef->to_str ? v.ef->to_str((unsigned)v.i) : NULL;
		if (s)
			put_text(buf, size, s, strlen(s));
		else
			format_i128(v.i, buf, size);
		break;
	}
	case VK_STR:
		put_text(buf, size, v.s, strnlen(v.s, v.n));
		break;
	case VK_BOOL:
		put_text(buf, size, v.i ? "true" : "false", v.i ? 4 : 5);
		break;
	case VK_BITS:
		if (v.flags_kind == EFK_ACCESS) {
			for (i = 0; i < access_names_count; i++)
				if ((uint32_t)v.i & access_names[i].bit)
					off += (size_t)snprintf(
					    buf + MIN(off, size - 1), size - MIN(off, size - 1),
					    "%s%s", off ? "," : "", access_names[i].name);
		} else {
			for (i = 0; i < ARRAY_SIZE(evflag_names); i++)
				if ((uint32_t)v.i & (1u << i))
					off += (size_t)snprintf(buf + MIN(off, size - 1),
								size - MIN(off, size - 1), "%s%s",
								off ? "," : "", evflag_names[i]);
		}
		if (!off)
			snprintf(buf, size, "none");
		break;
	case VK_ADDR: {
		char b[64];
		if (!gid_to_ipv4(v.addr, b))
			gid_to_string(v.addr, b);
		snprintf(buf, size, "%s", b);
		break;
	}
	case VK_LIST:
		for (i = 0; i < v.nitems; i++)
			off += (size_t)snprintf(buf + MIN(off, size - 1), size - MIN(off, size - 1),
						"%s%.*s", i ? " " : "", (int)v.ilen[i], v.items[i]);
		break;
	case VK_TIME: {
		char b[32];
		format_timestamp((uint64_t)v.i, b);
		put_text(buf, size, b, strlen(b));
		break;
	}
	}
	return true;
}

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *s = p;
	size_t i;

	for (i = 0; i < n; i++) {
		h ^= s[i];
		h *= 1099511628211ull;
	}
	return h;
}

uint64_t field_ref_hash(const struct field_ref *f, struct cond_ctx *ctx, uint64_t h)
{
	struct value v;
	uint8_t kind;
	uint16_t i;

	if (!get_value(f, ctx, &v)) {
		kind = 0;
		return fnv(h, &kind, 1);
	}
	kind = v.kind;
	h = fnv(h, &kind, 1);
	switch (v.kind) {
	case VK_STR:
		return fnv(fnv(h, v.s, v.n), "", 1);
	case VK_ADDR:
		return fnv(h, v.addr, 16);
	case VK_LIST:
		for (i = 0; i < v.nitems; i++)
			h = fnv(fnv(h, v.items[i], v.ilen[i]), "", 1);
		return h;
	default:
		return fnv(h, &v.i, sizeof(v.i));
	}
}
