/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The fields of the condition language: resolving a name (an event field of event_json.h's table
 * or one the engine derives), reading its value for an event and its processes, and writing or
 * hashing a single field's value (message templates, aggregation keys).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cond-internal.h"
#include "cond_fields.h"
#include "common/macro.h"
#include "common/timestamp.h"
#include "proctree/proctree.h"

const char *const cond_vk_words[VK_TIME + 1] = {
	[VK_NONE] = "nothing",	  [VK_INT] = "a number",   [VK_ENUM] = "a name",
	[VK_STR] = "a string",	  [VK_BITS] = "a set of flags", [VK_BOOL] = "a boolean",
	[VK_ADDR] = "an address", [VK_LIST] = "a list",	    [VK_TIME] = "a time",
};

/*
 * Fields the engine derives. `node`: read from ctx->cur (the process lineage() is looking at).
 * In groups by what they read (cond_derived_value()): the process, its kin, the game, the rest.
 */
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
	DF_PROC_EXE_TRUNC,
	DF_PROC_EXE_FOREIGN,
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
	DF_POLICY_REQUIRE_IOMMU,
	DF_MR_REMOTE,
	DF_MR_IMPLICIT,
	DF_EVENT_TIME,
	DF_PCI_ALLOWED,
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
	{"process.exe_truncated", DF_PROC_EXE_TRUNC, VK_BOOL, true},
	{"process.exe_foreign_root", DF_PROC_EXE_FOREIGN, VK_BOOL, true},
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
	{"policy.require_iommu", DF_POLICY_REQUIRE_IOMMU, VK_BOOL, false},
	{"rdma.mr.remote", DF_MR_REMOTE, VK_BOOL, false},
	{"rdma.mr.implicit", DF_MR_IMPLICIT, VK_BOOL, false},
	{"event.time", DF_EVENT_TIME, VK_TIME, false},
	{"pci.allowed", DF_PCI_ALLOWED, VK_BOOL, false},
};

const char *cond_derived_field(size_t i)
{
	return i < ARRAY_SIZE(dfields) ? dfields[i].name : NULL;
}

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

int cond_field_resolve(const char *name, struct field_ref *f, char *errbuf, size_t errlen)
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
		f->type_mask |= RG_EV_BIT(t);
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
	r = cond_field_resolve(name, f, errbuf, errlen);
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

bool cond_event_value(const struct event_field *ef, const struct rg_event *ev, struct value *v)
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

/* process.* fields of n, the process the condition looks at. */
static bool proc_value(unsigned df, struct cond_ctx *ctx, struct proc_node *n, struct value *v)
{
	const struct cond_env *env = ctx->env;

	switch (df) {
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
	case DF_PROC_EXE_TRUNC:
		set_int(v, VK_BOOL, (n->flags & PROC_F_EXE_TRUNC) != 0);
		return (n->flags & PROC_F_EXEC_KNOWN) != 0;
	case DF_PROC_EXE_FOREIGN:
		set_int(v, VK_BOOL, (n->flags & PROC_F_EXE_FOREIGN) != 0);
		return (n->flags & PROC_F_EXEC_KNOWN) != 0;
	case DF_PROC_SHA256:
		/* Only what has been computed (an allowlist or game check asked for it). */
		if (!(n->flags & PROC_F_HASHED) || !n->sha256[0])
			return false;
		set_str(v, n->sha256, 65);
		return true;
	}
	return false;
}

/* Fields of n's kin: its parent and ancestors, and the target of a memory access. */
static bool kin_value(unsigned df, struct cond_ctx *ctx, struct proc_node *n, struct value *v)
{
	const struct rg_event *ev = ctx->ev;
	struct proc_node *p;

	switch (df) {
	case DF_PARENT_PID:
		set_int(v, VK_INT, n->ppid);
		return n->ppid != 0;
	case DF_PARENT_EXE:
	case DF_PARENT_NAME:
		p = proctree_parent(ctx->tree, n);
		if (!p)
			return false;
		if (df == DF_PARENT_NAME) {
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
	}
	return false;
}

/* game.* fields: the game session relevant to the event. */
static bool game_value(unsigned df, const struct cond_ctx *ctx, struct value *v)
{
	const struct game_session *g = ctx->game;

	switch (df) {
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
	}
	return false;
}

/* policy.* fields, and what the engine derives of the event itself. */
static bool event_value(unsigned df, const struct cond_ctx *ctx, struct value *v)
{
	const struct rg_event *ev = ctx->ev;
	const struct cond_env *env = ctx->env;

	switch (df) {
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
	case DF_POLICY_REQUIRE_IOMMU:
		set_int(v, VK_BOOL, env && env->require_iommu);
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
	case DF_PCI_ALLOWED:
		/* The events that carry a PCI function (u.pci). */
		if (ev->type != RG_EV_PCI_FUNCTION && ev->type != RG_EV_PCI_CHANGE &&
		    ev->type != RG_EV_DMA_FAULT && ev->type != RG_EV_HW_BASELINE)
			return false;
		set_int(v, VK_BOOL,
			env && env->pci_allowed && env->pci_allowed(env->ud, &ev->u.pci, ev->ts));
		return true;
	}
	return false;
}

/* The groups of fields derive from different state: the DF_* ranges of each. */
bool cond_derived_value(const struct field_ref *f, struct cond_ctx *ctx, struct value *v)
{
	struct proc_node *n = ctx->cur;

	if (f->node && !n)
		return false;
	if (f->df >= DF_PROC_PID && f->df <= DF_PROC_SHA256)
		return proc_value(f->df, ctx, n, v);
	if (f->df >= DF_PARENT_PID && f->df <= DF_TGT_UID)
		return kin_value(f->df, ctx, n, v);
	if (f->df >= DF_GAME_RUNNING && f->df <= DF_GAME_RDMA_EVENTS)
		return game_value(f->df, ctx, v);
	return event_value(f->df, ctx, v);
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
	struct value v = {0}; /* derived values leave v.ef unset */
	size_t off = 0, i;

	if (size == 0)
		return false;
	if (!cond_get_value(f, ctx, &v)) {
		put_text(buf, size, "?", 1); /* most calls: a field the event lacks */
		return false;
	}
	buf[0] = 0;
	switch (v.kind) {
	case VK_INT:
		/* PCI IDs as lspci writes them: 10ee:0666. */
		if (v.ef && v.ef->kind == EFK_HEX32)
			snprintf(buf, size, "%04x", (unsigned)v.i);
		else
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
			for (i = 0; i < ARRAY_SIZE(event_flag_names); i++)
				if ((uint32_t)v.i & (1u << i))
					off += (size_t)snprintf(
					    buf + MIN(off, size - 1), size - MIN(off, size - 1),
					    "%s%s", off ? "," : "", event_flag_names[i]);
		}
		if (!off)
			put_text(buf, size, "none", 4);
		break;
	case VK_ADDR: {
		char b[64];
		if (!gid_to_ipv4(v.addr, b))
			gid_to_string(v.addr, b);
		put_text(buf, size, b, strlen(b));
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

	if (!cond_get_value(f, ctx, &v)) {
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
