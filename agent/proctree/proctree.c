/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The process tree (proctree.h): entries keyed by (pid, start time) in one table allocated up
 * front, their interned strings, lineage, and which entry a full table gives up.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "proctree.h"
#include "common/macro.h"

/*
 * An interned string: an exe path, an argv block or a sha256, shared by the entries that hold it.
 * Two pools of fixed-size slots: 2 x capacity of PSTR_MAX bytes (exe and args: an entry holds
 * two) and capacity of 65 bytes (sha256).
 */
#define PSTR_MAX (RG_PATH_LEN > RG_ARGS_LEN ? RG_PATH_LEN : RG_ARGS_LEN)

struct pstr {
	uint32_t refs;
	uint32_t hash;
	int32_t hnext; /* bucket chain; free list while refs == 0 */
	uint32_t len;  /* bytes of s, the last NUL included */
	char s[];
};

struct spool {
	char *slots;
	size_t slot_size, n, used, max_len;
	int32_t free;
	int32_t *buckets;
	uint32_t mask;
};

static const char empty_str[1] = "";

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
	struct spool strs; /* exe and args */
	struct spool shas; /* sha256 */
	proctree_exit_fn exit_fn;
	void *exit_ud;
	struct proctree_stats st;
};

static uint32_t pid_hash(const struct proctree *t, uint32_t pid)
{
	return (pid * 2654435761u) & t->bucket_mask;
}

static int spool_init(struct spool *p, size_t n, size_t max_len, size_t nb)
{
	p->slot_size = (offsetof(struct pstr, s) + max_len + 7) & ~(size_t)7;
	p->max_len = max_len;
	p->n = n;
	p->free = -1;
	p->mask = (uint32_t)nb - 1;
	p->slots = calloc(n, p->slot_size);
	p->buckets = malloc(nb * sizeof(*p->buckets));
	if (!p->slots || !p->buckets)
		return -ENOMEM;
	memset(p->buckets, 0xff, nb * sizeof(*p->buckets));
	return 0;
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
	if (!t->nodes || !t->buckets || spool_init(&t->strs, 2 * capacity, PSTR_MAX, 2 * nb) < 0 ||
	    spool_init(&t->shas, capacity, 65, nb) < 0) {
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
	free(t->strs.slots);
	free(t->strs.buckets);
	free(t->shas.slots);
	free(t->shas.buckets);
	free(t);
}

void proctree_set_exit_hook(struct proctree *t, proctree_exit_fn fn, void *ud)
{
	t->exit_fn = fn;
	t->exit_ud = ud;
}

static uint32_t str_hash(const char *s, size_t len)
{
	uint32_t h = 2166136261u; /* FNV-1a */

	for (size_t i = 0; i < len; i++)
		h = (h ^ (uint8_t)s[i]) * 16777619u;
	return h;
}

static struct pstr *slot(const struct spool *p, int32_t i)
{
	return (struct pstr *)(void *)(p->slots + (size_t)i * p->slot_size);
}

static struct pstr *str_of(const char *s)
{
	return (struct pstr *)(void *)(s - offsetof(struct pstr, s));
}

static const char *str_ref(const char *s)
{
	if (s != empty_str)
		str_of(s)->refs++;
	return s;
}

static void str_unref(struct spool *sp, const char *s)
{
	struct pstr *p;
	int32_t *pp, i;

	if (!s || s == empty_str)
		return;
	p = str_of(s);
	if (--p->refs)
		return;
	i = (int32_t)(((const char *)p - sp->slots) / (ptrdiff_t)sp->slot_size);
	for (pp = &sp->buckets[p->hash & sp->mask]; *pp >= 0; pp = &slot(sp, *pp)->hnext)
		if (*pp == i) {
			*pp = p->hnext;
			break;
		}
	p->hnext = sp->free;
	sp->free = i;
}

/*
 * The interned copy of s[0..len) (len counts the last NUL), with a reference taken. Cannot run
 * out: every string in a pool is held by an entry, and an entry holds at most as many strings
 * of a pool as the pool has slots per entry.
 */
static const char *str_intern(struct spool *sp, const char *s, size_t len)
{
	struct pstr *p;
	uint32_t h;
	int32_t i;

	if (len <= 1)
		return empty_str;
	if (len > sp->max_len)
		len = sp->max_len;
	h = str_hash(s, len);
	for (i = sp->buckets[h & sp->mask]; i >= 0; i = p->hnext) {
		p = slot(sp, i);
		if (p->hash == h && p->len == len && memcmp(p->s, s, len) == 0) {
			p->refs++;
			return p->s;
		}
	}
	if (sp->free >= 0) {
		i = sp->free;
		sp->free = slot(sp, i)->hnext;
	} else if (sp->used < sp->n)
		i = (int32_t)sp->used++;
	else
		return empty_str; /* cannot happen (see above) */
	p = slot(sp, i);
	memcpy(p->s, s, len);
	p->s[len - 1] = 0;
	p->len = (uint32_t)len;
	p->hash = h;
	p->refs = 1;
	p->hnext = sp->buckets[h & sp->mask];
	sp->buckets[h & sp->mask] = i;
	return p->s;
}

void proctree_set_sha256(struct proctree *t, struct proc_node *n, const char *hex)
{
	const char *old = n->sha256;

	n->sha256 = str_intern(&t->shas, hex, strnlen(hex, 64) + 1);
	str_unref(&t->shas, old);
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
	str_unref(&t->strs, n->exe);
	str_unref(&t->strs, n->args);
	str_unref(&t->shas, n->sha256);
	n->exe = n->args = n->sha256 = NULL;
	n->in_use = 0;
}

/* State that only this entry holds: an eviction loses it for good (RDMA-008's lineage). */
static bool keep_last(const struct proc_node *n)
{
	return n->flags & (PROC_F_HAS_RDMA | PROC_F_GAME);
}

/*
 * Frees one entry of a full table: the oldest exited one; else the oldest live one that neither
 * used RDMA nor runs a game, moving each such entry met on the way to the tail (so the next
 * eviction does not meet it again); only when every live entry is one of those, the oldest.
 */
static struct proc_node *evict_one(struct proctree *t, uint64_t now)
{
	struct proc_node *n;
	int32_t i;
	size_t k;

	if (t->exited.head < 0) {
		i = t->live.head;
		for (k = 0; k < t->st.live && i >= 0 && keep_last(&t->nodes[i]); k++) {
			n = &t->nodes[i];
			i = n->lnext;
			list_remove(t, &t->live, n);
			list_append(t, &t->live, n);
		}
		if (i < 0 || k == t->st.live)
			i = t->live.head;
		if (i < 0)
			return NULL; /* cannot happen with capacity >= 1 */
		n = &t->nodes[i];
		if (keep_last(n))
			t->st.evicted_kept++;
		mark_exited(t, n, now, true);
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
	n->exe = n->args = n->sha256 = empty_str;
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

struct proc_node *proctree_find(const struct proctree *t, struct proc_key key)
{
	uint32_t pid = key.pid;
	uint64_t start_boot_ns = key.start_boot_ns;
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
	struct proc_node *n = proctree_find(t, PROC_KEY(pid, 0));

	return n && proc_node_live(n) ? n : NULL;
}

struct proc_node *proctree_parent(const struct proctree *t, const struct proc_node *n)
{
	struct proc_node *p;

	if (!n->ppid || n->ppid == n->pid)
		return NULL;
	if (n->parent_start_boot_ns)
		return proctree_find(t, PROC_KEY(n->ppid, n->parent_start_boot_ns));
	/* Unknown parent start time: only trust a parent that started before the child. */
	p = proctree_find(t, PROC_KEY(n->ppid, 0));
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

static void set_exec_info(struct proctree *t, struct proc_node *n, const struct rg_event *ev)
{
	const struct rg_ev_exec *x = &ev->u.exec;
	uint32_t len = MIN(x->args_len, (uint32_t)RG_ARGS_LEN);
	char args[RG_ARGS_LEN];

	memcpy(args, x->args, len);
	/* The last arg is always terminated within args_len (and the buffer). */
	if (len && args[len - 1]) {
		if (len < RG_ARGS_LEN)
			args[len++] = 0;
		else
			args[len - 1] = 0;
	}
	str_unref(&t->strs, n->exe);
	str_unref(&t->strs, n->args);
	n->exe = str_intern(&t->strs, x->exe, strnlen(x->exe, RG_PATH_LEN - 1) + 1);
	n->args = str_intern(&t->strs, args, len);
	n->args_len = len; /* empty_str holds the one NUL of len 1 */
	n->sid = x->sid;
	n->exe_ino = x->exe_ino;
	n->exe_dev = x->exe_dev;
	if (x->parent_start_boot_ns)
		n->parent_start_boot_ns = x->parent_start_boot_ns;
	n->flags |= PROC_F_EXEC_KNOWN;
	n->flags &= ~PROC_F_EXE_UNTRUSTED;
	if (x->exe_flags & RG_EXE_TRUNC)
		n->flags |= PROC_F_EXE_TRUNC;
	if (x->exe_flags & RG_EXE_FOREIGN)
		n->flags |= PROC_F_EXE_FOREIGN;
	/* A new image: hash and game membership must be recomputed by the owner. */
	n->flags &= ~(PROC_F_HASHED | PROC_F_HASH_PENDING | PROC_F_EXE_STATTED);
	str_unref(&t->shas, n->sha256);
	n->sha256 = empty_str;
}

static void inherit(struct proctree *t, struct proc_node *n, const struct proc_node *p)
{
	str_unref(&t->strs, n->exe);
	str_unref(&t->strs, n->args);
	str_unref(&t->shas, n->sha256);
	n->exe = str_ref(p->exe);
	n->args = str_ref(p->args);
	n->sha256 = str_ref(p->sha256);
	n->args_len = p->args_len;
	n->sid = p->sid;
	n->exe_ino = p->exe_ino;
	n->exe_dev = p->exe_dev;
	n->game = p->game;
	n->flags |= p->flags & (PROC_F_EXEC_KNOWN | PROC_F_GAME | PROC_F_HASHED |
				 PROC_F_EXE_UNTRUSTED);
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
			n = proctree_find(t, PROC_KEY(pid, 0));
			if (n)
				return n;
		}
		return node_new(t, pid, 0, ev->ts);
	}
	n = proctree_find(t, PROC_KEY(pid, start));
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
			set_exec_info(t, n, ev);
		break;
	case RG_EV_EXEC:
		set_exec_info(t, n, ev);
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
			inherit(t, n, p);
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
