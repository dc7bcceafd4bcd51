/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "proctree.h"
#include "common/util.h"

struct plist {
	int32_t head, tail;
};

struct proctree {
	struct proc_node *nodes;
	size_t capacity;
	size_t used; /* slots ever handed out */
	int32_t *buckets;
	uint32_t bucket_mask;
	struct plist live, exited;
	proctree_exit_fn exit_fn;
	void *exit_ud;
	struct proctree_stats st;
};

static uint32_t pid_hash(const struct proctree *t, uint32_t pid)
{
	return (pid * 2654435761u) & t->bucket_mask;
}

int proctree_new(size_t capacity, struct proctree **ret)
{
	struct proctree *t;
	size_t nb = 16;

	if (capacity == 0)
		capacity = PROCTREE_DEFAULT_CAPACITY;
	if (capacity < 4 || capacity > PROCTREE_MAX_CAPACITY)
		return -EINVAL;
	while (nb < capacity)
		nb <<= 1;
	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	t->nodes = calloc(capacity, sizeof(*t->nodes));
	t->buckets = malloc(nb * sizeof(*t->buckets));
	if (!t->nodes || !t->buckets) {
		proctree_free(t);
		return -ENOMEM;
	}
	memset(t->buckets, 0xff, nb * sizeof(*t->buckets));
	t->bucket_mask = (uint32_t)nb - 1;
	t->capacity = capacity;
	t->live.head = t->live.tail = -1;
	t->exited.head = t->exited.tail = -1;
	t->st.capacity = capacity;
	*ret = t;
	return 0;
}

void proctree_free(struct proctree *t)
{
	if (!t)
		return;
	free(t->nodes);
	free(t->buckets);
	free(t);
}

void proctree_set_exit_hook(struct proctree *t, proctree_exit_fn fn, void *ud)
{
	t->exit_fn = fn;
	t->exit_ud = ud;
}

static int32_t idx_of(const struct proctree *t, const struct proc_node *n)
{
	return (int32_t)(n - t->nodes);
}

static void list_remove(struct proctree *t, struct plist *l, struct proc_node *n)
{
	if (n->lprev >= 0)
		t->nodes[n->lprev].lnext = n->lnext;
	else
		l->head = n->lnext;
	if (n->lnext >= 0)
		t->nodes[n->lnext].lprev = n->lprev;
	else
		l->tail = n->lprev;
	n->lprev = n->lnext = -1;
}

static void list_append(struct proctree *t, struct plist *l, struct proc_node *n)
{
	int32_t i = idx_of(t, n);

	n->lnext = -1;
	n->lprev = l->tail;
	if (l->tail >= 0)
		t->nodes[l->tail].lnext = i;
	else
		l->head = i;
	l->tail = i;
}

static void hash_remove(struct proctree *t, struct proc_node *n)
{
	int32_t *p = &t->buckets[pid_hash(t, n->pid)], i = idx_of(t, n);

	while (*p >= 0) {
		if (*p == i) {
			*p = n->hnext;
			n->hnext = -1;
			return;
		}
		p = &t->nodes[*p].hnext;
	}
}

/* A live entry stops being live. */
static void mark_exited(struct proctree *t, struct proc_node *n, uint64_t when, bool evicted)
{
	if (!proc_node_live(n))
		return;
	if (t->exit_fn)
		t->exit_fn(n, evicted, t->exit_ud);
	n->flags |= PROC_F_EXITED;
	n->exit_ns = when;
	list_remove(t, &t->live, n);
	list_append(t, &t->exited, n);
	t->st.live--;
	t->st.exited++;
}

static void release(struct proctree *t, struct proc_node *n)
{
	hash_remove(t, n);
	list_remove(t, &t->exited, n);
	t->st.exited--;
	n->in_use = 0;
}

static struct proc_node *evict_one(struct proctree *t, uint64_t now)
{
	struct proc_node *n;
	int32_t i;
	int k;

	if (t->exited.head < 0) {
		/* Prefer the oldest live entry that is not a game process. */
		i = t->live.head;
		for (k = 0; k < 16 && i >= 0; k++, i = t->nodes[i].lnext)
			if (!(t->nodes[i].flags & PROC_F_GAME))
				break;
		if (i < 0 || k == 16)
			i = t->live.head;
		if (i < 0)
			return NULL; /* cannot happen with capacity >= 1 */
		mark_exited(t, &t->nodes[i], now, true);
		t->st.evicted_live++;
	} else
		t->st.evicted_exited++;
	n = &t->nodes[t->exited.head];
	release(t, n);
	return n;
}

static struct proc_node *node_new(struct proctree *t, uint32_t pid, uint64_t start, uint64_t now)
{
	struct proc_node *n;
	uint32_t h;

	if (t->used < t->capacity)
		n = &t->nodes[t->used++];
	else
		n = evict_one(t, now);
	if (!n)
		return NULL;
	memset(n, 0, sizeof(*n));
	n->pid = pid;
	n->start_boot_ns = start;
	n->game = -1;
	n->first_seen_ns = now;
	n->in_use = 1;
	n->lprev = n->lnext = -1;
	h = pid_hash(t, pid);
	n->hnext = t->buckets[h];
	t->buckets[h] = idx_of(t, n);
	list_append(t, &t->live, n);
	t->st.live++;
	t->st.created++;
	return n;
}

struct proc_node *proctree_find(const struct proctree *t, uint32_t pid, uint64_t start_boot_ns)
{
	struct proc_node *best = NULL;
	int32_t i;

	for (i = t->buckets[pid_hash(t, pid)]; i >= 0; i = t->nodes[i].hnext) {
		struct proc_node *n = &t->nodes[i];

		if (n->pid != pid)
			continue;
		if (start_boot_ns) {
			if (n->start_boot_ns == start_boot_ns)
				return n;
			continue;
		}
		if (proc_node_live(n))
			return n;
		if (!best || n->exit_ns > best->exit_ns)
			best = n;
	}
	return best;
}

static struct proc_node *find_live(const struct proctree *t, uint32_t pid)
{
	struct proc_node *n = proctree_find(t, pid, 0);

	return n && proc_node_live(n) ? n : NULL;
}

struct proc_node *proctree_parent(const struct proctree *t, const struct proc_node *n)
{
	struct proc_node *p;

	if (!n->ppid || n->ppid == n->pid)
		return NULL;
	if (n->parent_start_boot_ns)
		return proctree_find(t, n->ppid, n->parent_start_boot_ns);
	/* Unknown parent start time: only trust a parent that started before the child. */
	p = proctree_find(t, n->ppid, 0);
	if (p && n->start_boot_ns && p->start_boot_ns > n->start_boot_ns)
		return NULL;
	return p;
}

size_t proctree_ancestors(const struct proctree *t, const struct proc_node *n,
			  struct proc_node **out, size_t max)
{
	const struct proc_node *self = n;
	size_t k = 0;

	if (max > PROCTREE_MAX_DEPTH)
		max = PROCTREE_MAX_DEPTH;
	while (k < max) {
		struct proc_node *p = proctree_parent(t, n);
		size_t j;

		if (!p || p == n || p == self)
			break;
		for (j = 0; j < k; j++) /* a corrupt cycle ends the chain */
			if (out[j] == p)
				return k;
		out[k++] = p;
		n = p;
	}
	return k;
}

static void set_exec_info(struct proc_node *n, const struct rg_event *ev)
{
	const struct rg_ev_exec *x = &ev->u.exec;
	uint32_t len = MIN(x->args_len, (uint32_t)RG_ARGS_LEN);

	strscpy_ok(n->exe, x->exe, sizeof(n->exe));
	memcpy(n->args, x->args, len);
	/* The last arg is always terminated within args_len (and the buffer). */
	if (len && n->args[len - 1]) {
		if (len < RG_ARGS_LEN)
			n->args[len++] = 0;
		else
			n->args[len - 1] = 0;
	}
	n->args_len = len;
	n->sid = x->sid;
	n->exe_ino = x->exe_ino;
	n->exe_dev = x->exe_dev;
	if (x->parent_start_boot_ns)
		n->parent_start_boot_ns = x->parent_start_boot_ns;
	n->flags |= PROC_F_EXEC_KNOWN;
	/* A new image: hash and game membership must be recomputed by the owner. */
	n->flags &= ~(PROC_F_HASHED | PROC_F_EXE_STATTED);
	n->sha256[0] = 0;
}

static void inherit(struct proc_node *n, const struct proc_node *p)
{
	memcpy(n->exe, p->exe, sizeof(n->exe));
	memcpy(n->args, p->args, sizeof(n->args));
	memcpy(n->sha256, p->sha256, sizeof(n->sha256));
	n->args_len = p->args_len;
	n->sid = p->sid;
	n->exe_ino = p->exe_ino;
	n->exe_dev = p->exe_dev;
	n->game = p->game;
	n->flags |= p->flags & (PROC_F_EXEC_KNOWN | PROC_F_GAME | PROC_F_HASHED);
	if (!n->comm[0])
		memcpy(n->comm, p->comm, sizeof(n->comm));
	if (!n->uid)
		n->uid = p->uid;
}

/* The entry of the acting process, created or re-keyed as needed. */
static struct proc_node *lookup_actor(struct proctree *t, const struct rg_event *ev)
{
	uint32_t pid = ev->proc.pid;
	uint64_t start = ev->proc.start_boot_ns;
	struct proc_node *n, *live;

	if (!start) {
		n = find_live(t, pid);
		if (n)
			return n;
		if (ev->type != RG_EV_FORK && ev->type != RG_EV_EXEC &&
		    ev->type != RG_EV_PROCESS_PRESENT) {
			/* A late event of a process that has exited: keep it on that entry. */
			n = proctree_find(t, pid, 0);
			if (n)
				return n;
		}
		return node_new(t, pid, 0, ev->ts);
	}
	n = proctree_find(t, pid, start);
	if (n)
		return n;
	live = find_live(t, pid);
	if (live && !live->start_boot_ns) {
		/* A stub created from an event that did not carry the start time. */
		live->start_boot_ns = start;
		return live;
	}
	if (live) {
		if (live->start_boot_ns > start && ev->type != RG_EV_FORK &&
		    ev->type != RG_EV_EXEC && ev->type != RG_EV_PROCESS_PRESENT) {
			/* An older process's late event: do not let it kill the newer entry. */
			n = node_new(t, pid, start, ev->ts);
			if (n)
				mark_exited(t, n, ev->ts, false);
			return n;
		}
		t->st.pid_reused++;
		mark_exited(t, live, ev->ts, false);
	}
	return node_new(t, pid, start, ev->ts);
}

struct proc_node *proctree_update(struct proctree *t, const struct rg_event *ev)
{
	uint64_t created = t->st.created;
	struct proc_node *n, *p;

	if (!ev->proc.pid)
		return NULL;
	n = lookup_actor(t, ev);
	if (!n)
		return NULL;
	if (ev->proc.comm[0])
		memcpy(n->comm, ev->proc.comm, sizeof(n->comm));
	if (ev->proc.ppid && ev->proc.ppid != n->ppid && proc_node_live(n)) {
		/* Reparenting (the parent died): the new parent's start time is unknown. */
		if (n->ppid)
			n->parent_start_boot_ns = 0;
		n->ppid = ev->proc.ppid;
	}
	if (ev->proc.uid || ev->type == RG_EV_EXEC || ev->type == RG_EV_PROCESS_PRESENT ||
	    ev->type == RG_EV_FORK)
		n->uid = ev->proc.uid;

	switch (ev->type) {
	case RG_EV_PROCESS_PRESENT:
		if (created != t->st.created)
			n->flags |= PROC_F_SEEDED;
		if (!(n->flags & PROC_F_FROM_EXEC))
			set_exec_info(n, ev);
		break;
	case RG_EV_EXEC:
		set_exec_info(n, ev);
		n->flags |= PROC_F_FROM_EXEC;
		n->exec_ns = ev->ts;
		if (!n->exec_ns)
			n->exec_ns = 1;
		break;
	case RG_EV_FORK:
		if (ev->u.fork.parent_start_boot_ns)
			n->parent_start_boot_ns = ev->u.fork.parent_start_boot_ns;
		n->fork_ns = ev->ts;
		p = proctree_parent(t, n);
		if (p && p != n && !(n->flags & PROC_F_EXEC_KNOWN))
			inherit(n, p);
		break;
	case RG_EV_EXIT:
		/* A thread's exit is not the process's. */
		if (ev->proc.tid && ev->proc.tid != ev->proc.pid)
			break;
		mark_exited(t, n, ev->ts ? ev->ts : 1, false);
		break;
	default:
		break;
	}
	return n;
}

void proctree_foreach_live(struct proctree *t, void (*fn)(struct proc_node *n, void *ud), void *ud)
{
	int32_t i = t->live.head;

	while (i >= 0) {
		int32_t next = t->nodes[i].lnext;

		fn(&t->nodes[i], ud);
		i = next;
	}
}

void proctree_get_stats(const struct proctree *t, struct proctree_stats *ret)
{
	*ret = t->st;
}
