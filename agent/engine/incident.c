/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The incident store (incident.h): which incident an alert belongs to (actor roots, PCI
 * functions, the seat, game sessions), opening with a bounded table and counted eviction,
 * closing, and the kept log of alerts and raw events.
 */
#include <errno.h>
#include <inttypes.h>
#include <openssl/evp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "incident-internal.h"
#include "common/hex.h"
#include "common/macro.h"
#include "common/strutil.h"
#include "event/event_json.h"
#include "proctree/proctree.h"

/*
 * Command interpreters and launchers: what they start is an actor root of its own (each command
 * a script or a console runs is its own chain). Matched on the executable's file name, only for a
 * path the engine trusts (engine_proc_path_trusted(): whole, from init's root), so a process
 * cannot make itself a starter by its name.
 */
static const char *const starters[] = {
    "sh",    "bash",   "dash",	  "zsh",    "ksh",     "mksh",	"fish", "busybox",
    "login", "su",     "sudo",	  "sshd",   "systemd", "init",	"cron", "crond",
    "tmux",  "screen", "runuser", "setsid", "agetty",  "xterm", NULL,
};

#define INCIDENT_CHECK_NS (10ull * 1000000000ull)

/* Open incidents are found by their key through hash chains (buckets, hnext). */
static uint32_t key_hash(uint8_t kind, struct proc_key root, const char *pci)
{
	uint64_t h = 1469598103934665603ull ^ kind;

	h = (h ^ root.pid) * 1099511628211ull;
	h = (h ^ root.start_boot_ns) * 1099511628211ull;
	for (; pci && *pci; pci++)
		h = (h ^ (unsigned char)*pci) * 1099511628211ull;
	return (uint32_t)(h ^ (h >> 32));
}

static void hash_add(struct incident_store *s, struct incident *inc)
{
	uint32_t b = key_hash(inc->kind, inc->root, inc->pci) & s->bucket_mask;

	inc->hnext = s->buckets[b];
	s->buckets[b] = (int32_t)(inc - s->inc);
}

static void hash_remove(struct incident_store *s, struct incident *inc)
{
	int32_t *p = &s->buckets[key_hash(inc->kind, inc->root, inc->pci) & s->bucket_mask];

	for (; *p >= 0; p = &s->inc[*p].hnext)
		if (*p == (int32_t)(inc - s->inc)) {
			*p = inc->hnext;
			return;
		}
}

static bool is_starter(const struct proc_node *n)
{
	const char *base;
	size_t len;

	if (n->pid <= 2 || (n->sid && n->sid == n->pid))
		return true;
	if (!(n->flags & PROC_F_EXEC_KNOWN) || (n->flags & PROC_F_EXE_UNTRUSTED) || !n->exe[0])
		return false;
	base = strrchr(n->exe, '/');
	base = base ? base + 1 : n->exe;
	len = strlen(base);
	if (len < 2 || len > 7) /* the names' lengths: most executables are not one */
		return false;
	for (size_t i = 0; starters[i]; i++)
		if (base[0] == starters[i][0] && strcmp(base, starters[i]) == 0)
			return true;
	return false;
}

int incident_store_new(const struct incident_config *cfg, struct incident_store **ret)
{
	struct incident_store *s = calloc(1, sizeof(*s));
	int r;

	if (!s)
		return -ENOMEM;
	if (cfg)
		s->cfg = *cfg;
	if (!s->cfg.max_open)
		s->cfg.max_open = INCIDENT_DEFAULT_MAX_OPEN;
	if (!s->cfg.max_closed)
		s->cfg.max_closed = INCIDENT_DEFAULT_MAX_CLOSED;
	if (!s->cfg.quiet_ns)
		s->cfg.quiet_ns = INCIDENT_DEFAULT_QUIET_NS;
	if (!s->cfg.grace_ns)
		s->cfg.grace_ns = INCIDENT_DEFAULT_GRACE_NS;
	if (!s->cfg.max_log_records)
		s->cfg.max_log_records = INCIDENT_DEFAULT_LOG_RECORDS;
	if (!s->cfg.max_log_bytes)
		s->cfg.max_log_bytes = INCIDENT_DEFAULT_LOG_BYTES;
	if (!s->cfg.max_log_total)
		s->cfg.max_log_total = INCIDENT_DEFAULT_LOG_TOTAL;
	strscpy_ok(s->boot_id, s->cfg.boot_id ? s->cfg.boot_id : "", sizeof(s->boot_id));
	strscpy_ok(s->seat, s->cfg.seat ? s->cfg.seat : "", sizeof(s->seat));
	s->cfg.boot_id = NULL;
	s->cfg.seat = NULL;
	if (s->cfg.max_open > INCIDENT_MAX_CAPACITY || s->cfg.max_closed > INCIDENT_MAX_CAPACITY) {
		free(s);
		return -EINVAL;
	}
	s->cap = s->cfg.max_open + s->cfg.max_closed;
	s->inc = calloc(s->cap, sizeof(*s->inc));
	s->order = calloc(s->cap, sizeof(*s->order));
	s->bucket_mask = 15;
	while (s->bucket_mask < 2 * s->cfg.max_open)
		s->bucket_mask = s->bucket_mask * 2 + 1;
	s->buckets = malloc(((size_t)s->bucket_mask + 1) * sizeof(*s->buckets));
	if (!s->inc || !s->order || !s->buckets) {
		incident_store_free(s);
		return -ENOMEM;
	}
	memset(s->buckets, 0xff, ((size_t)s->bucket_mask + 1) * sizeof(*s->buckets));
	s->sha256 = EVP_MD_fetch(NULL, "SHA256", NULL);
	s->md_ctx = EVP_MD_CTX_new();
	r = incident_facts_init(s);
	if (r < 0) {
		incident_store_free(s);
		return r;
	}
	*ret = s;
	return 0;
}

static void log_clear(struct incident_store *s, struct incident *inc)
{
	while (inc->blocks) {
		struct inc_log_block *b = inc->blocks;

		inc->blocks = b->next;
		free(b);
	}
	free(inc->log);
	s->log_total -= inc->log_bytes;
	inc->log = NULL;
	inc->n_log = inc->log_cap = inc->log_bytes = 0;
}

void incident_store_free(struct incident_store *s)
{
	if (!s)
		return;
	for (size_t i = 0; s->inc && i < s->cap; i++)
		log_clear(s, &s->inc[i]);
	incident_facts_free(s);
	EVP_MD_CTX_free(s->md_ctx);
	free(s->raw);
	EVP_MD_free(s->sha256);
	jw_free(s->jw);
	free(s->buckets);
	free(s->inc);
	free(s->order);
	free(s);
}

void incident_store_set_seat(struct incident_store *s, const char *seat)
{
	strscpy_ok(s->seat, seat ? seat : "", sizeof(s->seat));
	/* a reload: the rule ids the stage cache knows by address are gone */
	memset(s->stage_cache, 0, sizeof(s->stage_cache));
}

void incident_store_stats(const struct incident_store *s, struct incident_stats *ret)
{
	*ret = s->st;
	ret->open = s->n_open;
	ret->closed_kept = s->n_closed;
}

size_t incident_store_count(const struct incident_store *s)
{
	return s->n_order;
}

const struct incident *incident_store_at(const struct incident_store *s, size_t i)
{
	return i < s->n_order ? &s->inc[s->order[i]] : NULL;
}

const struct incident *incident_store_find(const struct incident_store *s, const char *id)
{
	for (size_t i = 0; id && i < s->n_order; i++)
		if (strcmp(s->inc[s->order[i]].id, id) == 0)
			return &s->inc[s->order[i]];
	return NULL;
}

const char *incident_id(const struct incident *inc)
{
	return inc->id;
}

bool incident_is_open(const struct incident *inc)
{
	return inc->open;
}

uint64_t incident_alerts(const struct incident *inc)
{
	return inc->alerts;
}

size_t incident_log_count(const struct incident *inc)
{
	return inc->n_log;
}

int incident_log_get(const struct incident *inc, size_t i, enum incident_log_kind *kind,
		     const char **json, size_t *len)
{
	struct incident_store *s = inc->store;

	if (i >= inc->n_log)
		return -ENOENT;
	*kind = inc->log[i].kind;
	if (*kind == INCIDENT_LOG_ALERT) {
		*json = inc->log[i].data;
		*len = inc->log[i].len;
		return 0;
	}
	if (!s->jw && !(s->jw = jw_new()))
		return -ENOMEM;
	jw_reset(s->jw);
	if (event_to_jw(inc->log[i].data, s->jw) < 0)
		return -ENOMEM;
	return jw_finish(s->jw, json, len);
}

/* Forgets the oldest closed incident (its slot and log go). */
static void forget_oldest_closed(struct incident_store *s)
{
	for (size_t i = 0; i < s->n_order; i++) {
		struct incident *inc = &s->inc[s->order[i]];

		if (inc->open)
			continue;
		log_clear(s, inc);
		inc->in_use = false;
		memmove(&s->order[i], &s->order[i + 1], (s->n_order - i - 1) * sizeof(*s->order));
		s->n_order--;
		s->n_closed--;
		s->st.forgotten++;
		return;
	}
}

static void close_incident(struct incident_store *s, struct incident *inc, uint64_t at,
			   const char *reason, incident_record_fn rec, void *ud)
{
	hash_remove(s, inc);
	inc->open = false;
	inc->closed_ns = MAX(at, inc->last_ns);
	inc->close_reason = reason;
	s->n_open--;
	s->n_closed++;
	s->st.closed++;
	inc->records++;
	if (rec)
		rec(inc, "closed", ud);
	while (s->n_closed > s->cfg.max_closed)
		forget_oldest_closed(s);
}

/* When the incident's game session ended (0: it is bound to none, or it still runs). */
static uint64_t game_end(struct incident *inc, const struct game_session *games, size_t n_games)
{
	const struct game_session *g;

	if (inc->game < 0)
		return 0;
	if (inc->game_ended_ns)
		return inc->game_ended_ns;
	g = (size_t)inc->game < n_games ? &games[inc->game] : NULL;
	if (g && g->started_ns == inc->game_started_ns && g->running)
		return 0;
	/* Ended (or the policy lost the game on reload): its end, else what we last saw. */
	inc->game_ended_ns = g && g->started_ns == inc->game_started_ns && g->ended_ns
				 ? g->ended_ns
				 : MAX(inc->last_ns, 1);
	return inc->game_ended_ns;
}

/* When inc is due to close (UINT64_MAX: not yet foreseeable), and why. */
static uint64_t due_at(struct incident_store *s, struct incident *inc, struct proctree *tree,
		       const struct game_session *games, size_t n_games, const char **why)
{
	uint64_t end = game_end(inc, games, n_games), quiet = inc->last_ns;

	*why = "quiet";
	if (end) {
		*why = "game_ended";
		return end + s->cfg.grace_ns;
	}
	for (size_t i = 0; inc->kind == INCIDENT_KIND_ACTOR && i < inc->n_actors; i++) {
		const struct proc_node *n = tree ? proctree_find(tree, inc->actors[i].key) : NULL;

		if (n && n->start_boot_ns == inc->actors[i].key.start_boot_ns) {
			if (proc_node_live(n))
				return UINT64_MAX;
			quiet = MAX(quiet, n->exit_ns);
		}
	}
	return quiet + s->cfg.quiet_ns;
}

void incident_expire(struct incident_store *s, uint64_t now, struct proctree *tree,
		     const struct game_session *games, size_t n_games, incident_record_fn rec,
		     void *ud)
{
	/* Checked once every 10 s of event time: closing is not urgent, events are (the close time
	 * is when it was due; an alert checks its own incident, incident_assign()). */
	if (now < s->next_check)
		return;
	s->next_check = now + INCIDENT_CHECK_NS;
	for (size_t i = 0; i < s->n_order; i++) {
		struct incident *inc = &s->inc[s->order[i]];
		const char *why;
		uint64_t due;

		if (!inc->open)
			continue;
		due = due_at(s, inc, tree, games, n_games, &why);
		if (due <= now)
			close_incident(s, inc, due, why, rec, ud);
	}
}

static struct incident *new_slot(struct incident_store *s, uint64_t now, incident_record_fn rec,
				 void *ud)
{
	struct incident *inc = NULL;

	if (s->n_open >= s->cfg.max_open) {
		struct incident *victim = NULL;

		for (size_t i = 0; i < s->n_order; i++) {
			struct incident *c = &s->inc[s->order[i]];

			if (c->open && (!victim || c->last_ns < victim->last_ns))
				victim = c;
		}
		if (victim) {
			s->st.evicted++;
			close_incident(s, victim, now, "evicted", rec, ud);
		}
	}
	if (s->n_order == s->cap)
		forget_oldest_closed(s);
	for (size_t i = 0; i < s->cap; i++)
		if (!s->inc[i].in_use) {
			inc = &s->inc[i];
			break;
		}
	if (!inc)
		return NULL;
	/* 12 KiB a slot, most of it arrays read only up to their counts */
	memset(inc, 0, offsetof(struct incident, st));
	for (size_t i = 0; i < INCIDENT_STAGE__MAX; i++)
		memset(&inc->st[i], 0, offsetof(struct inc_stage, ids));
	inc->store = s;
	inc->in_use = inc->open = true;
	inc->seq = ++s->seq;
	inc->game = -1;
	inc->max_alert_severity = -1;
	s->order[s->n_order++] = (uint32_t)(inc - s->inc);
	s->n_open++;
	s->st.opened++;
	return inc;
}

static void make_id(struct incident_store *s, struct incident *inc)
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;
	char buf[256];
	size_t len;
	bool ok;
	int n;

	/* Only what a recording keeps of the events: a game's start time may come from the boot
	 * time, which a replay need not know, and a recorded time has microseconds. */
	n = snprintf(buf, sizeof(buf), "%s|%u|%u:%" PRIu64 "|%s|%" PRIu64, s->boot_id, inc->kind,
		     inc->root.pid, inc->root.start_boot_ns, inc->pci,
		     inc->first_ns - inc->first_ns % 1000);
	memcpy(inc->id, "INC-", 4);
	len = (size_t)MIN(n, (int)sizeof(buf) - 1);
	if (s->sha256 && s->md_ctx)
		ok = EVP_DigestInit_ex(s->md_ctx, s->sha256, NULL) == 1 &&
		     EVP_DigestUpdate(s->md_ctx, buf, len) == 1 &&
		     EVP_DigestFinal_ex(s->md_ctx, md, &mdlen) == 1;
	else
		ok = EVP_Digest(buf, len, md, &mdlen, EVP_sha256(), NULL) == 1;
	if (ok && mdlen >= 8)
		hex_encode(md, 8, inc->id + 4);
	else
		snprintf(inc->id + 4, INCIDENT_ID_LEN - 4, "%016" PRIx64, inc->seq);
}

/* The actor root of n: the ancestor-or-self whose parent is a starter. */
static struct proc_node *actor_root(struct proctree *tree, struct proc_node *n,
				    struct proc_node *chain[], size_t *n_chain)
{
	size_t na, i;

	chain[0] = n;
	na = proctree_ancestors(tree, n, chain + 1, PROCTREE_MAX_DEPTH - 1);
	*n_chain = na + 1;
	if (is_starter(n))
		return n;
	for (i = 1; i <= na; i++)
		if (is_starter(chain[i]))
			return chain[i - 1];
	return chain[na]; /* the oldest ancestor known */
}

static void set_root(struct incident_store *s, struct incident *inc, struct proctree *tree,
		     struct proc_node *root)
{
	struct proc_node *p = proctree_parent(tree, root);

	inc->root = PROC_KEY(root->pid, root->start_boot_ns);
	inc->root_ppid = root->ppid;
	inc->root_uid = root->uid;
	inc->root_sid = root->sid;
	strscpy_ok(inc->root_comm, root->comm, sizeof(inc->root_comm));
	if (root->flags & PROC_F_EXEC_KNOWN)
		strscpy_ok(inc->root_exe, root->exe, sizeof(inc->root_exe));
	inc->root_start_ns = cond_proc_start_time(s->cfg.boot_realtime_ns, root);
	if (p) {
		inc->starter_pid = p->pid;
		inc->starter_session = p->sid && p->sid == p->pid;
		strscpy_ok(inc->starter_comm, p->comm, sizeof(inc->starter_comm));
	} else
		inc->starter_pid = root->ppid;
}

static const struct game_session *running_game(const struct cond_ctx *ctx,
					       const struct game_session *games, size_t n_games)
{
	const struct game_session *best = NULL;

	if (ctx->game && ctx->game->running && ctx->game->game >= 0)
		return ctx->game;
	for (size_t i = 0; i < n_games; i++)
		if (games[i].running && (!best || games[i].started_ns < best->started_ns))
			best = &games[i];
	return best;
}

/* Whether an alert at ts during game g (NULL: none runs) may join inc. */
static bool fits_game(struct incident *inc, const struct game_session *g, uint64_t ts,
		      const struct game_session *games, size_t n_games)
{
	uint64_t end;

	if (inc->game < 0)
		return true;
	if (g && g->game == inc->game && g->started_ns == inc->game_started_ns)
		return true;
	end = game_end(inc, games, n_games);
	return end && ts <= end;
}

static struct incident *find_open(struct incident_store *s, uint8_t kind, struct proc_key root,
				  const char *pci)
{
	for (int32_t i = s->buckets[key_hash(kind, root, pci) & s->bucket_mask]; i >= 0;
	     i = s->inc[i].hnext) {
		struct incident *inc = &s->inc[i];

		if (!inc->open || inc->kind != kind)
			continue;
		if (kind == INCIDENT_KIND_ACTOR &&
		    (inc->root.pid != root.pid || inc->root.start_boot_ns != root.start_boot_ns))
			continue;
		if (kind == INCIDENT_KIND_PCI && strcmp(inc->pci, pci) != 0)
			continue;
		return inc;
	}
	return NULL;
}

/* An open incident of this key that the alert may join; one that is due is closed first. */
static struct incident *check_fit(struct incident_store *s, struct incident *inc,
				  struct cond_ctx *ctx, const struct game_session *g,
				  const struct game_session *games, size_t n_games,
				  incident_record_fn rec, void *ud)
{
	uint64_t ts = ctx->ev->ts, due;
	const char *why;

	if (!inc)
		return NULL;
	due = due_at(s, inc, ctx->tree, games, n_games, &why);
	if (due <= ts) {
		close_incident(s, inc, due, why, rec, ud);
		return NULL;
	}
	return fits_game(inc, g, ts, games, n_games) ? inc : NULL;
}

static struct incident *find_fit(struct incident_store *s, uint8_t kind, struct proc_key root,
				 const char *pci, struct cond_ctx *ctx,
				 const struct game_session *g, const struct game_session *games,
				 size_t n_games, incident_record_fn rec, void *ud)
{
	return check_fit(s, find_open(s, kind, root, pci), ctx, g, games, n_games, rec, ud);
}

/*
 * The incident the previous alert went to, when n already acts in it (most alerts come in runs
 * from one process): no walk up the tree, no search.
 */
static struct incident *recent_fit(struct incident_store *s, struct proc_node *n,
				   struct cond_ctx *ctx, const struct game_session *g,
				   const struct game_session *games, size_t n_games,
				   incident_record_fn rec, void *ud)
{
	struct incident *inc = s->recent;

	if (!inc || !inc->in_use || !inc->open || inc->kind != INCIDENT_KIND_ACTOR)
		return NULL;
	for (size_t i = 0; i < inc->n_actors; i++)
		if (inc->actors[i].key.pid == n->pid &&
		    inc->actors[i].key.start_boot_ns == n->start_boot_ns)
			return check_fit(s, inc, ctx, g, games, n_games, rec, ud);
	return NULL;
}

int incident_assign(struct incident_store *s, struct cond_ctx *ctx,
		    const struct game_session *games, size_t n_games, const char *rule_id,
		    char id_out[static INCIDENT_ID_LEN], incident_record_fn rec, void *ud)
{
	struct proc_node *chain[PROCTREE_MAX_DEPTH], *root = NULL;
	const struct game_session *g = running_game(ctx, games, n_games);
	int stage = incident_alert_stage(s, rule_id, ctx);
	struct incident *inc = NULL;
	struct proc_key key = {0};
	char pci[32] = "";
	uint8_t kind = INCIDENT_KIND_SEAT;
	size_t n_chain = 0;
	uint64_t ts = ctx->ev->ts;

	id_out[0] = 0;
	s->last = NULL;
	if (stage != INCIDENT_STAGE_NONE && ctx->proc && ctx->proc->pid &&
	    ctx->ev->provider != RG_PROV_AGENT) {
		kind = INCIDENT_KIND_ACTOR;
		inc = recent_fit(s, ctx->proc, ctx, g, games, n_games, rec, ud);
		if (!inc) {
			root = actor_root(ctx->tree, ctx->proc, chain, &n_chain);
			/* The nearest ancestor-or-self that roots an open incident. */
			for (size_t i = 0; i < n_chain && !inc; i++)
				inc = find_fit(s, kind,
					       PROC_KEY(chain[i]->pid, chain[i]->start_boot_ns),
					       NULL, ctx, g, games, n_games, rec, ud);
			key = PROC_KEY(root->pid, root->start_boot_ns);
		}
	} else if (stage != INCIDENT_STAGE_NONE && s->f_pci &&
		   field_ref_format(s->f_pci, ctx, pci, sizeof(pci)) && pci[0] &&
		   strcmp(pci, "?") != 0) {
		kind = INCIDENT_KIND_PCI;
		inc = find_fit(s, kind, key, pci, ctx, g, games, n_games, rec, ud);
	} else {
		pci[0] = 0; /* field_ref_format() wrote "?" */
		inc = find_fit(s, kind, key, pci, ctx, g, games, n_games, rec, ud);
	}
	if (!inc) {
		inc = new_slot(s, ts, rec, ud);
		if (!inc)
			return -ENOMEM;
		inc->kind = kind;
		inc->first_ns = inc->last_ns = ts;
		strscpy_ok(inc->pci, pci, sizeof(inc->pci));
		strscpy_ok(inc->seat, s->seat, sizeof(inc->seat));
		if (root)
			set_root(s, inc, ctx->tree, root);
		if (g) {
			inc->game = g->game;
			inc->game_started_ns = g->started_ns;
		}
		make_id(s, inc);
		hash_add(s, inc);
	}
	if (inc->game < 0 && g) {
		/* Tied to the first game session during which it fires. */
		inc->game = g->game;
		inc->game_started_ns = g->started_ns;
	}
	if (g && g->game == inc->game) {
		inc->game_pid = g->pid;
		strscpy_ok(inc->game_name, g->name ? g->name : "", sizeof(inc->game_name));
	}
	s->last = s->recent = inc;
	s->st.alerts++;
	memcpy(id_out, inc->id, INCIDENT_ID_LEN);
	return 0;
}

/* Room for size bytes (16-byte aligned) in inc's log blocks; NULL if none could be had. */
static unsigned char *log_room(struct incident *inc, size_t size)
{
	struct inc_log_block *b = inc->blocks;
	unsigned char *p;

	size = (size + 15) & ~(size_t)15;
	if (!b || b->size - b->used < size) {
		size_t bs = MAX(size, (size_t)INC_LOG_BLOCK);

		b = malloc(sizeof(*b) + bs);
		if (!b)
			return NULL;
		b->used = 0;
		b->size = bs;
		b->next = inc->blocks;
		inc->blocks = b;
	}
	p = b->data + b->used;
	b->used += size;
	return p;
}

/* Keeps a copy of one log entry (len bytes), within the incident's and the store's budgets. */
static void log_add(struct incident_store *s, struct incident *inc, uint8_t kind, const void *data,
		    size_t len)
{
	struct inc_log *l;
	unsigned char *copy;

	if (!data || !len)
		return;
	if (inc->n_log >= s->cfg.max_log_records || inc->log_bytes + len > s->cfg.max_log_bytes) {
		inc->log_dropped++;
		s->st.log_dropped++;
		return;
	}
	while (s->log_total + len > s->cfg.max_log_total && s->n_closed)
		forget_oldest_closed(s);
	if (s->log_total + len > s->cfg.max_log_total) {
		inc->log_dropped++;
		s->st.log_dropped++;
		return;
	}
	if (inc->n_log == inc->log_cap) {
		size_t cap = inc->log_cap ? inc->log_cap * 2 : 16;

		l = realloc(inc->log, cap * sizeof(*l));
		if (!l)
			goto fail;
		inc->log = l;
		inc->log_cap = cap;
	}
	copy = log_room(inc, len + 1);
	if (!copy)
		goto fail;
	memcpy(copy, data, len);
	copy[len] = 0;
	inc->log[inc->n_log++] = (struct inc_log){.kind = kind, .len = (uint32_t)len, .data = copy};
	inc->log_bytes += len;
	s->log_total += len;
	return;
fail:
	inc->log_dropped++;
	s->st.log_dropped++;
}

static void add_rule(struct incident *inc, const struct incident_alert *a)
{
	size_t i;

	for (i = 0; i < inc->n_rules; i++)
		if (strcmp(inc->rules[i].id, a->rule_id) == 0)
			break;
	if (i == inc->n_rules) {
		if (i == INC_MAX_RULES) {
			inc->rules_dropped++;
			return;
		}
		inc->rules[i] = (struct inc_rule){.severity = -1};
		strscpy_ok(inc->rules[i].id, a->rule_id, sizeof(inc->rules[i].id));
		inc->n_rules++;
	}
	inc->rules[i].alerts++;
	inc->rules[i].count += a->count;
	inc->rules[i].severity = MAX(inc->rules[i].severity, a->severity);
}

static void add_actor(struct incident *inc, const struct proc_node *n)
{
	size_t i;

	for (i = 0; i < inc->n_actors; i++)
		if (inc->actors[i].key.pid == n->pid &&
		    inc->actors[i].key.start_boot_ns == n->start_boot_ns) {
			inc->actors[i].alerts++;
			return;
		}
	if (i == INC_MAX_ACTORS) {
		inc->actors_dropped++;
		return;
	}
	inc->actors[i] = (struct inc_actor){
	    .key = PROC_KEY(n->pid, n->start_boot_ns), .ppid = n->ppid, .alerts = 1};
	strscpy_ok(inc->actors[i].comm, n->comm, sizeof(inc->actors[i].comm));
	if (n->flags & PROC_F_EXEC_KNOWN) {
		size_t len = strlen(n->exe);

		strscpy_ok(inc->actors[i].exe,
			   n->exe + (len >= sizeof(inc->actors[i].exe)
					 ? len - sizeof(inc->actors[i].exe) + 1
					 : 0),
			   sizeof(inc->actors[i].exe));
	}
	inc->n_actors++;
}

/*
 * Evidence of stage for the alert; true if the stage is new to the incident. weak: the target
 * stage shown by the game running only (its one fact the game's name).
 */
static bool add_stage(struct incident_store *s, struct incident *inc, unsigned stage,
		      struct cond_ctx *ctx, const struct incident_alert *a, bool weak)
{
	struct inc_stage *st = &inc->st[stage];
	bool fresh = !(inc->stages & (1u << stage));
	uint64_t ts = ctx->ev->ts;

	if (fresh)
		st->first_ns = ts;
	st->last_ns = MAX(st->last_ns, ts);
	st->alerts++;
	for (size_t i = 0; i < st->n_ids; i++)
		if (strcmp(st->ids[i], a->uuid) == 0)
			goto facts;
	if (st->n_ids < INC_MAX_STAGE_ALERTS)
		strscpy_ok(st->ids[st->n_ids++], a->uuid, INC_UUID_LEN);
facts:
	if (weak)
		incident_add_game_fact(inc, ctx);
	else
		incident_add_facts(s, inc, stage, ctx);
	inc->stages |= 1u << stage;
	return fresh;
}

void incident_add_alert(struct incident_store *s, const char *id, struct cond_ctx *ctx,
			const struct incident_alert *a, incident_record_fn rec, void *ud)
{
	struct incident *inc = s->last;
	int stage = incident_alert_stage(s, a->rule_id, ctx), sev;
	bool fresh = false, strong;

	if (!inc || strcmp(inc->id, id) != 0)
		inc = (struct incident *)incident_store_find(s, id);
	if (!inc)
		return;
	sev = incident_severity(inc);
	strong = inc->target_op[0] || inc->library[0];
	inc->alerts++;
	inc->matches += a->count;
	inc->max_alert_severity = MAX(inc->max_alert_severity, a->severity);
	inc->last_ns = MAX(inc->last_ns, MAX(a->last_ns, ctx->ev->ts));
	add_rule(inc, a);
	if (inc->kind == INCIDENT_KIND_ACTOR && ctx->proc)
		add_actor(inc, ctx->proc);
	if (stage >= 0 && stage < INCIDENT_STAGE__MAX)
		fresh = add_stage(s, inc, (unsigned)stage, ctx, a, false);
	/* The game running is the target stage's weakest evidence (docs/incidents.md). */
	if (stage != INCIDENT_STAGE_NONE && ctx->game_running && stage != INCIDENT_STAGE_TARGET) {
		inc->during_game = true;
		fresh |= add_stage(s, inc, INCIDENT_STAGE_TARGET, ctx, a, true);
	} else if (ctx->game_running)
		inc->during_game = true;
	log_add(s, inc, INCIDENT_LOG_ALERT, a->json, a->len);
	log_add(s, inc, INCIDENT_LOG_EVENT, a->event, a->event ? sizeof(*a->event) : 0);
	if (!inc->records) {
		inc->records++;
		if (rec)
			rec(inc, "opened", ud);
	} else if (fresh || incident_severity(inc) != sev ||
		   strong != (inc->target_op[0] || inc->library[0])) {
		/* a new stage, a new severity, or the game's memory read after the game only ran */
		inc->records++;
		s->st.updated++;
		if (rec)
			rec(inc, "updated", ud);
	}
}
