/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <openssl/evp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cond.h"
#include "engine.h"
#include "common/log.h"
#include "common/procstat.h"
#include "common/util.h"
#include "event/event_json.h"

/* The per-rule view the engine evaluates: the rule with the policy's override applied. */
struct erule {
	const struct rg_rule *rule;
	const struct rg_rule_override *ov; /* NULL if none */
	bool enabled;
	int action;
	uint64_t window_ns;
	uint64_t alerts, matches;
	/* The alerts' "rule", "tags" and "threat" values, written once (erule_render): the rule's
	 * JSON text, then the tags' (none: 0 bytes), then the threat's (the same). */
	char *json;
	uint32_t rule_len, tags_len, threat_len;
};

struct agg {
	uint64_t key;	     /* 0: free */
	int32_t next;	     /* hash chain */
	int32_t live;	     /* position in agg_order */
	uint32_t rule;	     /* index into rules */
	uint64_t seq;	     /* creation order, for a stable flush order */
	uint64_t window_end; /* event time */
	uint64_t first_ns, last_ns;
	uint64_t pending; /* matches since the last alert */
	int severity;	  /* highest of the pending matches */
	/* The game state at the last repeat: the summary describes then, not the flush. */
	bool has_game, game_running;
	uint64_t game_ended_ns;
	struct game_session game;
	struct rg_event last; /* the last repeat (must stay last: agg_new clears up to it) */
};

#define HASH_CACHE_SIZE 64
#define ENTITY_CACHE_SIZE 256 /* power of two */

struct hash_cache_entry {
	uint64_t dev, ino, size, mtime_ns;
	char sha[65];
};

struct rg_engine {
	struct rg_policy *policy;
	struct rg_ruleset *rules;
	struct erule *erules;
	/* The enabled rules whose condition can hold for an event of type t, in rule order:
	 * rule_idx[rule_start[t] .. rule_start[t + 1]) (cond_type_mask); the rest are not tried. */
	uint32_t *rule_idx;
	uint32_t rule_start[RG_EV__MAX + 1];
	struct proctree *tree;
	struct engine_config cfg;
	char hostname[256];
	char boot_id[64];

	struct cond_env env;	    /* what conditions read of the policy and the engine */
	struct game_session *games; /* one per policy game */
	size_t n_games;
	uint64_t game_ended_ns;

	struct agg *aggs;
	size_t agg_cap;
	int32_t *agg_buckets;
	uint32_t agg_mask;
	int32_t *agg_scratch;
	/* Every entry's index, the agg_used in use first, then the free ones: the window check
	 * touches only what is in use and a new entry is the first free one, not a scan of all
	 * agg_cap entries. */
	int32_t *agg_order;
	uint64_t agg_seq;
	uint64_t next_deadline; /* earliest window_end, UINT64_MAX if none */
	size_t agg_used;

	uint64_t now;	      /* latest event/tick time seen */
	uint64_t alert_seq;
	int emit_err;

	struct hash_cache_entry hcache[HASH_CACHE_SIZE];
	unsigned hcache_next;

	/* SHA-256 for entity ids, fetched once: an implicit fetch on every digest cost more than
	 * the digest. NULL when libcrypto refused (then EVP_Digest each time). */
	EVP_MD *sha256;
	EVP_MD_CTX *md_ctx;
	struct jw *jw; /* alerts are written here, one at a time */
	/* Entity ids of recent processes (direct-mapped by pid and start): an alert names its
	 * process, parent and ancestors, mostly the same few shells and services again. */
	struct {
		uint32_t pid;
		uint64_t start_boot_ns;
		char id[33]; /* "" if empty */
	} idcache[ENTITY_CACHE_SIZE];

	struct engine_stats st;
};

static const char *event_device(const struct rg_event *ev)
{
	switch (ev->type) {
	case RG_EV_DEVICE_OPEN:
		return ev->u.open.device;
	case RG_EV_VERBS:
		return ev->u.verbs.device;
	case RG_EV_QP_PRESENT:
		return ev->u.qp.device;
	case RG_EV_MR_PRESENT:
		return ev->u.mr.device;
	case RG_EV_DEVICE_PRESENT:
	case RG_EV_DEVICE_ADD:
	case RG_EV_DEVICE_REMOVE:
		return ev->u.dev.name;
	default:
		return NULL;
	}
}

/* Hashing of executables. */

static int read_start_ns(uint32_t pid, uint64_t *ret)
{
	char buf[4096];
	struct proc_stat st;
	int r;

	r = proc_stat_read(pid, buf, sizeof(buf), &st);
	if (r < 0)
		return r;
	*ret = proc_ticks_to_ns(st.start_ticks);
	return 0;
}

/*
 * Opens the executable of the live process n describes, checking that the pid still names that
 * process (start time) and, when n knows it, that the file is the one n ran.
 */
static int open_live_exe(const struct proc_node *n, struct stat *st)
{
	_cleanup_close_ int fd = -1;
	char path[64];
	uint64_t start = 0;
	int r;

	snprintf(path, sizeof(path), "/proc/%u/exe", n->pid);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	if (fstat(fd, st) < 0)
		return -errno;
	if (!S_ISREG(st->st_mode))
		return -EBADFD;
	if (n->exe_ino &&
	    ((uint64_t)st->st_ino != n->exe_ino || (uint64_t)st->st_dev != n->exe_dev))
		return -ESTALE;
	if (n->start_boot_ns) {
		r = read_start_ns(n->pid, &start);
		if (r < 0)
			return r;
		if (start != n->start_boot_ns)
			return -ESTALE;
	}
	return TAKE_FD(fd);
}

/* Live mode, when the events did not say: the executable's inode and device, once per exec. */
static void proc_exe_id(struct rg_engine *e, struct proc_node *n)
{
	struct stat st;
	int fd;

	if (n->exe_ino || !e->cfg.hash_live || (n->flags & PROC_F_EXE_STATTED) ||
	    !proc_node_live(n))
		return;
	n->flags |= PROC_F_EXE_STATTED;
	fd = open_live_exe(n, &st);
	if (fd < 0)
		return;
	close(fd);
	n->exe_ino = (uint64_t)st.st_ino;
	n->exe_dev = (uint64_t)st.st_dev;
}

static int hash_live(struct rg_engine *e, const struct proc_node *n, char out[65])
{
	_cleanup_close_ int fd = -1;
	struct stat st;
	uint64_t mtime;
	unsigned i;
	int r;

	fd = open_live_exe(n, &st);
	if (fd < 0)
		return fd;
	if ((uint64_t)st.st_size > ENGINE_HASH_MAX_BYTES)
		return -EFBIG;
	mtime = (uint64_t)st.st_mtim.tv_sec * 1000000000ull + (uint64_t)st.st_mtim.tv_nsec;
	for (i = 0; i < HASH_CACHE_SIZE; i++) {
		struct hash_cache_entry *c = &e->hcache[i];
		if (c->sha[0] && c->dev == (uint64_t)st.st_dev && c->ino == (uint64_t)st.st_ino &&
		    c->size == (uint64_t)st.st_size && c->mtime_ns == mtime) {
			memcpy(out, c->sha, 65);
			return 0;
		}
	}
	r = sha256_fd(fd, ENGINE_HASH_MAX_BYTES, out);
	if (r < 0)
		return r;
	i = e->hcache_next++ % HASH_CACHE_SIZE;
	e->hcache[i].dev = (uint64_t)st.st_dev;
	e->hcache[i].ino = (uint64_t)st.st_ino;
	e->hcache[i].size = (uint64_t)st.st_size;
	e->hcache[i].mtime_ns = mtime;
	memcpy(e->hcache[i].sha, out, 65);
	return 0;
}

/* The executable's sha256, computed at most once per exec; "" if it cannot be. */
static const char *proc_sha256(struct rg_engine *e, struct proc_node *n)
{
	char out[65];
	int r = -ENOTSUP;

	if (n->flags & PROC_F_HASHED)
		return n->sha256;
	if (e->cfg.hash_exe)
		r = e->cfg.hash_exe(e->cfg.hash_ud, n, out);
	else if (e->cfg.hash_live)
		r = hash_live(e, n, out);
	if (r >= 0 && strlen(out) == 64)
		proctree_set_sha256(e->tree, n, out);
	else {
		proctree_set_sha256(e->tree, n, "");
		if (r != -ENOTSUP)
			log_debug_errno(r, "Cannot hash the executable of pid %u: %m", n->pid);
	}
	n->flags |= PROC_F_HASHED;
	return n->sha256;
}

/* Allowlist. */

static bool allow_match(struct rg_engine *e, const struct rg_policy_allow *a, struct proc_node *n,
			const struct rg_event *ev)
{
	uint64_t now = ev->ts ? ev->ts : now_realtime_ns();
	const char *dev;
	size_t i;

	if (a->expires_ns && now >= a->expires_ns)
		return false;
	/* A literal path that could not be pinned cannot be verified: it allows nothing. */
	if (a->pin_failed)
		return false;
	if (!(n->flags & PROC_F_EXEC_KNOWN) || fnmatch(a->exe, n->exe, FNM_PATHNAME) != 0)
		return false;
	if (a->pinned) {
		proc_exe_id(e, n);
		if (n->exe_ino != a->ino || n->exe_dev != a->dev)
			return false;
	}
	if (a->n_uids) {
		for (i = 0; i < a->n_uids; i++)
			if (a->uids[i] == n->uid)
				break;
		if (i == a->n_uids)
			return false;
	}
	if (a->parent) {
		struct proc_node *p = proctree_parent(e->tree, n);
		if (!p || !(p->flags & PROC_F_EXEC_KNOWN) ||
		    fnmatch(a->parent, p->exe, FNM_PATHNAME))
			return false;
	}
	if (a->n_devices) {
		dev = event_device(ev);
		if (dev && dev[0]) {
			for (i = 0; i < a->n_devices; i++)
				if (strcmp(a->devices[i], dev) == 0)
					break;
			if (i == a->n_devices)
				return false;
		}
	}
	if (a->has_ops) {
		bool ok = a->op_types & (1u << ev->type);
		if (ev->type == RG_EV_VERBS && ev->u.verbs.op < 32)
			ok = ok || (a->op_verbs & (1u << ev->u.verbs.op));
		if (ev->type == RG_EV_RDMA_CM && ev->u.cm.op < 32)
			ok = ok || (a->op_cm & (1u << ev->u.cm.op));
		if (!ok)
			return false;
	}
	/* Last: the only check that may read a file. */
	if (a->sha256[0] && strcmp(proc_sha256(e, n), a->sha256) != 0)
		return false;
	return true;
}

/* process.allowed (struct cond_env's proc_allowed; ud is the engine). */
static bool proc_allowed(void *ud, struct proc_node *n, const struct rg_event *ev)
{
	struct rg_engine *e = ud;
	bool ok = false;
	size_t i;

	for (i = 0; i < e->policy->n_allow && !ok; i++)
		ok = allow_match(e, &e->policy->allow[i], n, ev);
	return ok;
}

/* Game sessions. */

static void session_add(struct rg_engine *e, struct proc_node *n, uint64_t ts)
{
	struct game_session *g;

	if (n->game < 0 || (size_t)n->game >= e->n_games)
		return;
	g = &e->games[n->game];
	if (g->live++ == 0) {
		uint64_t start = cond_proc_start_time(e->cfg.boot_realtime_ns, n);

		g->running = true;
		g->ever = true;
		g->pid = n->pid;
		g->start_boot_ns = n->start_boot_ns;
		g->uid = n->uid;
		g->sid = n->sid;
		g->started_ns = start ? start : ts;
		g->ended_ns = 0;
		g->rdma_events = 0;
		log_debug("Game \"%s\" started (pid %u)", e->policy->games[n->game].name, n->pid);
	}
	n->flags |= PROC_F_GAME_COUNTED;
}

static void session_remove(struct rg_engine *e, struct proc_node *n, uint64_t ts)
{
	struct game_session *g;

	if (!(n->flags & PROC_F_GAME_COUNTED))
		return;
	n->flags &= ~PROC_F_GAME_COUNTED;
	if (n->game < 0 || (size_t)n->game >= e->n_games)
		return;
	g = &e->games[n->game];
	if (g->live && --g->live == 0) {
		g->running = false;
		g->ended_ns = ts ? ts : 1;
		if (g->ended_ns > e->game_ended_ns)
			e->game_ended_ns = g->ended_ns;
		log_debug("Game \"%s\" ended", e->policy->games[n->game].name);
	}
}

static int classify(struct rg_engine *e, struct proc_node *n)
{
	size_t i;

	if (!(n->flags & PROC_F_EXEC_KNOWN))
		return -1;
	for (i = 0; i < e->policy->n_games; i++)
		if (policy_game_exe_match(&e->policy->games[i], n->exe))
			return (int)i;
	for (i = 0; i < e->policy->n_games; i++)
		if (e->policy->games[i].n_sha256 &&
		    policy_game_sha_match(&e->policy->games[i], proc_sha256(e, n)))
			return (int)i;
	return -1;
}

/* The sessions of policy's games, none seen yet. */
static void games_init(struct game_session *games, const struct rg_policy *policy)
{
	size_t i;

	for (i = 0; i < policy->n_games; i++) {
		games[i].game = (int32_t)i;
		games[i].name = policy->games[i].name;
	}
}

/* Makes n's game membership and its session count agree. */
static void game_sync(struct rg_engine *e, struct proc_node *n, int game, uint64_t ts)
{
	if ((n->flags & PROC_F_GAME_COUNTED) && n->game != game)
		session_remove(e, n, ts);
	n->game = game;
	if (game >= 0)
		n->flags |= PROC_F_GAME;
	else
		n->flags &= ~PROC_F_GAME;
	if (game >= 0 && proc_node_live(n) && !(n->flags & PROC_F_GAME_COUNTED))
		session_add(e, n, ts);
}

static void on_exit_hook(struct proc_node *n, bool evicted, void *ud)
{
	struct rg_engine *e = ud;

	(void)evicted;
	session_remove(e, n, e->now);
}

static bool any_game_running(const struct rg_engine *e)
{
	size_t i;

	for (i = 0; i < e->n_games; i++)
		if (e->games[i].running)
			return true;
	return false;
}

/* The game an event is about: its target's, its process's, the latest running, the latest ended. */
static const struct game_session *select_game(const struct rg_engine *e, const struct cond_ctx *c)
{
	const struct game_session *best = NULL;
	size_t i;

	if (c->target && (c->target->flags & PROC_F_GAME) && c->target->game >= 0 &&
	    (size_t)c->target->game < e->n_games)
		return &e->games[c->target->game];
	if (c->proc && (c->proc->flags & PROC_F_GAME) && c->proc->game >= 0 &&
	    (size_t)c->proc->game < e->n_games)
		return &e->games[c->proc->game];
	for (i = 0; i < e->n_games; i++) {
		const struct game_session *g = &e->games[i];
		if (!g->ever)
			continue;
		if (!best || (g->running && !best->running) ||
		    (g->running == best->running && (g->running ? g->started_ns > best->started_ns
								: g->ended_ns > best->ended_ns)))
			best = g;
	}
	return best;
}

static void ctx_init(struct rg_engine *e, const struct rg_event *ev, struct proc_node *proc,
		     struct cond_ctx *c)
{
	memset(c, 0, sizeof(*c));
	c->ev = ev;
	c->env = &e->env;
	c->tree = e->tree;
	c->proc = c->cur = proc;
	c->allowed = -1;
	if (ev->type == RG_EV_MEMORY_ACCESS && ev->u.mem.target_pid)
		c->target = proctree_find(e->tree, PROC_KEY(ev->u.mem.target_pid, ev->u.mem.target_start_boot_ns));
	c->game_running = any_game_running(e);
	c->game_ended_ns = e->game_ended_ns;
	c->game = select_game(e, c);
}

/* Entity ids and alerts. */

void engine_policy_event(struct rg_event *ev, uint64_t ts, bool ok, int error, const char *file,
			 const char *text)
{
	memset(ev, 0, sizeof(*ev));
	ev->type = RG_EV_AGENT_POLICY;
	ev->provider = RG_PROV_AGENT;
	ev->ts = ts;
	ev->proc.pid = ev->proc.tid = (uint32_t)getpid();
	event_set_str(ev->proc.comm, sizeof(ev->proc.comm), "rdmaguard", 9);
	ev->u.agent.ok = ok;
	ev->u.agent.error = ok ? 0 : error;
	if (file)
		event_set_str(ev->u.agent.what, sizeof(ev->u.agent.what), file, strlen(file));
	if (text)
		event_set_str(ev->u.agent.text, sizeof(ev->u.agent.text), text, strlen(text));
}

void engine_entity_id(struct rg_engine *e, struct proc_key key, char out[static 33])
{
	uint32_t pid = key.pid;
	uint64_t start_boot_ns = key.start_boot_ns;
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;
	char buf[160];
	int n;
	uint64_t h = ((uint64_t)pid * 0x9e3779b97f4a7c15ull) ^ (start_boot_ns * 0xc2b2ae3d27d4eb4full);
	size_t slot = (size_t)(h >> 56) & (ENTITY_CACHE_SIZE - 1);

	if (e->idcache[slot].id[0] && e->idcache[slot].pid == pid &&
	    e->idcache[slot].start_boot_ns == start_boot_ns) {
		memcpy(out, e->idcache[slot].id, 33);
		return;
	}
	n = snprintf(buf, sizeof(buf), "%s:%u:%" PRIu64, e->boot_id, pid, start_boot_ns);
	if (e->md_ctx ? EVP_DigestInit_ex2(e->md_ctx, e->sha256, NULL) == 1 &&
				EVP_DigestUpdate(e->md_ctx, buf, (size_t)n) == 1 &&
				EVP_DigestFinal_ex(e->md_ctx, md, &mdlen) == 1
		      : EVP_Digest(buf, (size_t)n, md, &mdlen, EVP_sha256(), NULL) == 1) {
		if (mdlen >= 16) {
			hex_encode(md, 16, out);
			e->idcache[slot].pid = pid;
			e->idcache[slot].start_boot_ns = start_boot_ns;
			memcpy(e->idcache[slot].id, out, 33);
			return;
		}
	}
	/* Cannot happen with a working libcrypto; still give something stable. */
	snprintf(out, 33, "%08x%024" PRIx64, pid, start_boot_ns);
}

static void jw_time(struct jw *w, jw_node obj, const char *key, uint64_t ns)
{
	char buf[32];

	format_timestamp(ns, buf);
	jw_string(w, obj, key, buf);
}

/* {pid, name, executable, start_time, entity_id} of a process (ancestors, parent) into o. */
static void proc_brief(struct rg_engine *e, const struct proc_node *n, jw_node o)
{
	uint64_t start = cond_proc_start_time(e->cfg.boot_realtime_ns, n);
	struct jw *w = e->jw;
	char id[33];

	engine_entity_id(e, PROC_KEY(n->pid, n->start_boot_ns), id);
	jw_int(w, o, "pid", n->pid);
	if (n->comm[0])
		jw_string(w, o, "name", n->comm);
	if ((n->flags & PROC_F_EXEC_KNOWN) && n->exe[0])
		jw_string(w, o, "executable", n->exe);
	if (start)
		jw_time(w, o, "start_time", start);
	jw_string(w, o, "entity_id", id);
}

static void set_process(struct rg_engine *e, const struct proc_node *n)
{
	struct proc_node *anc[PROCTREE_MAX_DEPTH], *p;
	uint64_t start = cond_proc_start_time(e->cfg.boot_realtime_ns, n);
	struct jw *w = e->jw;
	jw_node o = jw_object(w, JW_ROOT, "process"), a;
	size_t na, i;
	char id[33];

	engine_entity_id(e, PROC_KEY(n->pid, n->start_boot_ns), id);
	jw_int(w, o, "pid", n->pid);
	if (n->comm[0])
		jw_string(w, o, "name", n->comm);
	if ((n->flags & PROC_F_EXEC_KNOWN) && n->exe[0]) {
		jw_string(w, o, "executable", n->exe);
		jw_string_list(w, o, "args", n->args, MIN(n->args_len, (uint32_t)RG_ARGS_LEN));
	}
	if (start)
		jw_time(w, o, "start_time", start);
	if (n->start_boot_ns)
		jw_uint(w, o, "start_boot_ns", n->start_boot_ns);
	jw_string(w, o, "entity_id", id);
	jw_int(w, jw_object(w, o, "user"), "id", n->uid);
	if (n->flags & PROC_F_EXEC_KNOWN && n->sid)
		jw_int(w, jw_object(w, o, "session"), "id", n->sid);
	if ((n->flags & PROC_F_HASHED) && n->sha256[0])
		jw_string(w, jw_object(w, o, "hash"), "sha256", n->sha256);
	if (n->flags & PROC_F_GAME)
		jw_bool(w, o, "is_game", true);
	p = proctree_parent(e->tree, n);
	if (p)
		proc_brief(e, p, jw_new_object(w, o, "parent"));
	else if (n->ppid)
		jw_int(w, jw_object(w, o, "parent"), "pid", n->ppid);
	na = proctree_ancestors(e->tree, n, anc, PROCTREE_MAX_DEPTH);
	a = jw_new_array(w, o, "ancestors");
	for (i = 0; i < na; i++)
		proc_brief(e, anc[i], jw_new_object(w, a, NULL));
}

/* Writes node of w's document to the end of er->json. */
static int erule_append(struct erule *er, struct jw *w, jw_node node, uint32_t *len)
{
	const char *text;
	size_t n, have = (size_t)er->rule_len + er->tags_len + er->threat_len;
	char *p;
	int r;

	r = jw_finish_node(w, node, &text, &n);
	if (r < 0)
		return r;
	p = realloc(er->json, have + n + 1);
	if (!p)
		return -ENOMEM;
	memcpy(p + have, text, n + 1);
	er->json = p;
	*len = (uint32_t)n;
	return 0;
}

/* What a rule's alerts say of the rule itself, written once for all of them (jw_raw). */
static int erule_render(struct erule *er, struct jw *w)
{
	const struct rg_rule *rule = er->rule;
	jw_node o, r, tags = 0, threat = 0;
	size_t i;
	int ret;

	jw_reset(w);
	o = jw_object(w, JW_ROOT, "rule");
	jw_string(w, o, "id", rule->id);
	jw_string(w, o, "name", rule->name);
	if (rule->description)
		jw_string(w, o, "description", rule->description);
	jw_string(w, o, "action", action_to_string(er->action));
	ret = erule_append(er, w, o, &er->rule_len);
	if (rule->n_tags) {
		tags = jw_new_array(w, JW_ROOT, "tags");
		for (i = 0; i < rule->n_tags; i++)
			jw_string(w, tags, NULL, rule->tags[i]);
	}
	if (rule->threat) {
		threat = jw_object(w, JW_ROOT, "threat");
		jw_string(w, threat, "framework", "MITRE ATT&CK");
		r = jw_object(w, threat, "tactic");
		jw_string(w, r, "id", rule->threat->tactic_id);
		jw_string(w, r, "name", rule->threat->tactic_name);
		r = jw_object(w, threat, "technique");
		jw_string(w, r, "id", rule->threat->technique_id);
		jw_string(w, r, "name", rule->threat->technique_name);
	}
	if (ret == 0 && tags)
		ret = erule_append(er, w, tags, &er->tags_len);
	if (ret == 0 && threat)
		ret = erule_append(er, w, threat, &er->threat_len);
	jw_reset(w);
	return ret;
}

/* Writes the alert into e->jw and fills *ret (uuid: the caller's buffer). 0 or -ENOMEM. */
static int alert_build(struct rg_engine *e, const struct erule *er, struct cond_ctx *ctx,
		       int severity, uint64_t count, uint64_t first_ns, uint64_t last_ns,
		       char uuid[static 37], struct rg_alert *ret)
{
	const struct rg_rule *rule = er->rule;
	const struct rg_event *ev = ctx->ev;
	struct jw *w = e->jw;
	char msg[ENGINE_MESSAGE_MAX];
	const char *outcome = "alert";
	uint64_t ts = last_ns ? last_ns : now_realtime_ns();
	jw_node o;

	if (uuid_v4(uuid) < 0)
		return -ENOMEM;
	if (ev->flags & RG_EVF_KILLED)
		outcome = "killed";
	else if (ev->flags & RG_EVF_DENIED)
		outcome = "denied";
	jw_reset(w);
	event_to_jw(ev, w);
	jw_time(w, JW_ROOT, "@timestamp", ts);
	o = jw_object(w, JW_ROOT, "event");
	jw_string(w, o, "kind", "alert");
	jw_string(w, o, "id", uuid);
	jw_uint(w, o, "sequence", ++e->alert_seq);
	jw_time(w, o, "created", now_realtime_ns());
	if (first_ns)
		jw_time(w, o, "start", first_ns);
	if (last_ns)
		jw_time(w, o, "end", last_ns);
	jw_int(w, o, "severity", severity);
	jw_raw(w, JW_ROOT, "rule", er->json, er->rule_len);
	jw_string(w, JW_ROOT, "severity", severity_to_string(severity));
	rule_render_message(rule, ctx, msg, sizeof(msg));
	jw_string(w, JW_ROOT, "message", msg);
	jw_uint(w, JW_ROOT, "count", count);
	jw_string(w, JW_ROOT, "action", outcome);
	jw_string(w, jw_object(w, JW_ROOT, "host"), "hostname", e->hostname);
	if (ctx->proc)
		set_process(e, ctx->proc);
	if (ctx->target) {
		char id[33];

		o = jw_object(w, jw_object(w, JW_ROOT, "target"), "process");
		engine_entity_id(e, PROC_KEY(ctx->target->pid, ctx->target->start_boot_ns), id);
		jw_string(w, o, "entity_id", id);
		if ((ctx->target->flags & PROC_F_EXEC_KNOWN) && ctx->target->exe[0])
			jw_string(w, o, "executable", ctx->target->exe);
		if (ctx->target->flags & PROC_F_GAME)
			jw_bool(w, o, "is_game", true);
	}
	if (ctx->game && ctx->game->game >= 0 && (size_t)ctx->game->game < e->policy->n_games) {
		const struct game_session *g = ctx->game;

		o = jw_object(w, JW_ROOT, "game");
		jw_string(w, o, "name", e->policy->games[g->game].name);
		jw_int(w, o, "pid", g->pid);
		if (g->started_ns)
			jw_time(w, o, "started", g->started_ns);
		jw_bool(w, o, "running", g->running);
		if (!g->running && g->ended_ns)
			jw_time(w, o, "ended", g->ended_ns);
		jw_uint(w, o, "rdma_events", g->rdma_events);
	}
	if (er->tags_len)
		jw_raw(w, JW_ROOT, "tags", er->json + er->rule_len, er->tags_len);
	if (er->threat_len)
		jw_raw(w, JW_ROOT, "threat", er->json + er->rule_len + er->tags_len, er->threat_len);
	*ret = (struct rg_alert){.uuid = uuid,
				 .rule_id = rule->id,
				 .severity = severity,
				 .ts_ns = ts - ts % 1000}; /* as @timestamp says: microseconds */
	return jw_finish(w, &ret->json, &ret->len);
}

static void emit_alert(struct rg_engine *e, struct erule *er, struct cond_ctx *ctx, int severity,
		       uint64_t count, uint64_t first_ns, uint64_t last_ns, engine_emit_fn emit,
		       void *ud)
{
	struct rg_alert a;
	char uuid[37];
	int r;

	if (alert_build(e, er, ctx, severity, count, first_ns, last_ns, uuid, &a) < 0) {
		log_oom();
		if (!e->emit_err)
			e->emit_err = -ENOMEM;
		return;
	}
	er->alerts++;
	e->st.alerts++;
	e->st.alerts_by_severity[severity]++;
	if (severity > e->st.max_severity)
		e->st.max_severity = severity;
	r = emit ? emit(&a, ud) : 0;
	if (r < 0 && !e->emit_err)
		e->emit_err = r;
}

static uint32_t agg_bucket(const struct rg_engine *e, uint64_t key)
{
	return (uint32_t)(key ^ (key >> 29)) & e->agg_mask;
}

static struct agg *agg_find(struct rg_engine *e, uint64_t key)
{
	int32_t i;

	for (i = e->agg_buckets[agg_bucket(e, key)]; i >= 0; i = e->aggs[i].next)
		if (e->aggs[i].key == key)
			return &e->aggs[i];
	return NULL;
}

static void agg_remove(struct rg_engine *e, struct agg *a)
{
	int32_t *p = &e->agg_buckets[agg_bucket(e, a->key)], idx = (int32_t)(a - e->aggs);

	while (*p >= 0) {
		if (*p == idx) {
			*p = a->next;
			break;
		}
		p = &e->aggs[*p].next;
	}
	a->key = 0;
	/* Swap it with the last entry in use, which then ends the free part. */
	e->agg_used--;
	e->agg_order[a->live] = e->agg_order[e->agg_used];
	e->aggs[e->agg_order[a->live]].live = a->live;
	e->agg_order[e->agg_used] = idx;
	a->live = (int32_t)e->agg_used;
}

static void flush_one(struct rg_engine *e, struct agg *a, engine_emit_fn emit, void *ud)
{
	struct cond_ctx ctx;
	struct proc_node *n = NULL;

	if (!a->pending)
		return;
	if (a->last.proc.pid)
		n = proctree_find(e->tree, PROC_KEY(a->last.proc.pid, a->last.proc.start_boot_ns));
	ctx_init(e, &a->last, n, &ctx);
	ctx.game = a->has_game ? &a->game : NULL;
	ctx.game_running = a->game_running;
	ctx.game_ended_ns = a->game_ended_ns;
	e->st.agg_pending -= a->pending;
	emit_alert(e, &e->erules[a->rule], &ctx, a->severity, a->pending, a->first_ns, a->last_ns,
		   emit, ud);
	a->pending = 0;
	a->severity = 0;
}

static int cmp_agg(const void *x, const void *y, void *ud)
{
	const struct rg_engine *e = ud;
	const struct agg *a = &e->aggs[*(const int32_t *)x], *b = &e->aggs[*(const int32_t *)y];

	if (a->window_end != b->window_end)
		return a->window_end < b->window_end ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/*
 * Ends every window that ended at or before now (all of them with force): emits the pending
 * counts in order; an entry that had repeats starts a new window, one that had none goes.
 */
static void agg_expire(struct rg_engine *e, uint64_t now, bool force, engine_emit_fn emit, void *ud)
{
	size_t i, n = 0;

	if (!force && now < e->next_deadline)
		return;
	for (i = 0; i < e->agg_used; i++)
		if (force || e->aggs[e->agg_order[i]].window_end <= now)
			e->agg_scratch[n++] = e->agg_order[i];
	qsort_r(e->agg_scratch, n, sizeof(*e->agg_scratch), cmp_agg, e);
	for (i = 0; i < n; i++) {
		struct agg *a = &e->aggs[e->agg_scratch[i]];
		bool had = a->pending > 0;

		flush_one(e, a, emit, ud);
		if (had && !force) {
			uint64_t w = e->erules[a->rule].window_ns;
			a->window_end = MAX(a->window_end + w, now + 1);
		} else
			agg_remove(e, a);
	}
	e->next_deadline = UINT64_MAX;
	for (i = 0; i < e->agg_used; i++)
		e->next_deadline = MIN(e->next_deadline, e->aggs[e->agg_order[i]].window_end);
}

static struct agg *agg_new(struct rg_engine *e, uint64_t key, engine_emit_fn emit, void *ud)
{
	struct agg *a = NULL;
	uint32_t b;
	size_t i;

	if (e->agg_used == e->agg_cap) {
		/* Full: flush the entry closest to the end of its window. */
		struct agg *victim = NULL;

		for (i = 0; i < e->agg_cap; i++)
			if (!victim || e->aggs[i].window_end < victim->window_end)
				victim = &e->aggs[i];
		flush_one(e, victim, emit, ud);
		agg_remove(e, victim);
		e->st.agg_evicted++;
	}
	if (e->agg_used == e->agg_cap)
		return NULL;
	a = &e->aggs[e->agg_order[e->agg_used]];
	memset(a, 0, offsetof(struct agg, last));
	a->key = key;
	a->live = (int32_t)e->agg_used;
	a->seq = ++e->agg_seq;
	b = agg_bucket(e, key);
	a->next = e->agg_buckets[b];
	e->agg_buckets[b] = (int32_t)(a - e->aggs);
	e->agg_used++;
	return a;
}

static uint64_t agg_key(struct rg_engine *e, size_t ri, struct cond_ctx *ctx)
{
	const struct rg_rule *rule = e->erules[ri].rule;
	uint64_t h = 1469598103934665603ull;
	uint64_t v[3] = {ri, 0, 0};
	unsigned char *p = (unsigned char *)v;
	size_t i;

	if (ctx->proc) {
		v[1] = ctx->proc->pid;
		v[2] = ctx->proc->start_boot_ns;
	}
	for (i = 0; i < sizeof(v); i++) {
		h ^= p[i];
		h *= 1099511628211ull;
	}
	for (i = 0; i < rule->n_agg_by; i++)
		h = field_ref_hash(rule->agg_by[i], ctx, h);
	return h ? h : 1;
}

/* Rule evaluation. */

static int rule_severity(const struct erule *er, struct cond_ctx *ctx)
{
	const struct rg_rule *rule = er->rule;
	size_t i;

	if (er->ov && er->ov->severity >= 0)
		return er->ov->severity;
	for (i = 0; i < rule->n_sev_when; i++)
		if (cond_eval(rule->sev_when[i].cond, ctx))
			return rule->sev_when[i].severity;
	return rule->severity;
}

static bool rule_matches(const struct erule *er, struct cond_ctx *ctx)
{
	const struct rg_rule *rule = er->rule;
	size_t i;

	if (!cond_eval(rule->cond, ctx))
		return false;
	for (i = 0; i < rule->n_exceptions; i++)
		if (cond_eval(rule->exceptions[i], ctx))
			return false;
	for (i = 0; er->ov && i < er->ov->n_exceptions; i++)
		if (cond_eval(er->ov->exceptions[i], ctx))
			return false;
	return true;
}

static void rule_fired(struct rg_engine *e, size_t ri, struct cond_ctx *ctx, engine_emit_fn emit,
		       void *ud)
{
	struct erule *er = &e->erules[ri];
	int sev = rule_severity(er, ctx);
	uint64_t ts = ctx->ev->ts, key;
	struct agg *a;

	er->matches++;
	e->st.matches++;
	if (!er->rule->aggregate || er->window_ns == 0) {
		emit_alert(e, er, ctx, sev, 1, ts, ts, emit, ud);
		return;
	}
	key = agg_key(e, ri, ctx);
	a = agg_find(e, key);
	if (a && a->rule == ri) {
		if (!a->pending)
			a->first_ns = ts;
		a->last_ns = ts;
		a->pending++;
		if (sev > a->severity)
			a->severity = sev;
		a->last = *ctx->ev;
		a->has_game = ctx->game != NULL;
		if (ctx->game)
			a->game = *ctx->game;
		a->game_running = ctx->game_running;
		a->game_ended_ns = ctx->game_ended_ns;
		e->st.agg_pending++;
		return;
	}
	emit_alert(e, er, ctx, sev, 1, ts, ts, emit, ud);
	a = agg_new(e, key, emit, ud);
	if (!a)
		return; /* cannot happen: agg_new always frees a slot */
	a->rule = (uint32_t)ri;
	a->window_end = (ts ? ts : e->now) + er->window_ns;
	if (a->window_end < e->next_deadline)
		e->next_deadline = a->window_end;
}

static bool is_rdma_activity(const struct rg_event *ev)
{
	if (ev->flags & RG_EVF_FAILED)
		return false;
	switch (ev->type) {
	case RG_EV_DEVICE_OPEN:
	case RG_EV_VERBS:
	case RG_EV_RDMA_CM:
	case RG_EV_LIBRARY_LOAD:
		return true;
	case RG_EV_QP_PRESENT:
		return !ev->u.qp.kernel;
	case RG_EV_MR_PRESENT:
		return !ev->u.mr.kernel;
	default:
		return false;
	}
}

static void update_state(struct rg_engine *e, const struct rg_event *ev, struct proc_node *n)
{
	size_t i;

	if (!n)
		return;
	switch (ev->type) {
	case RG_EV_PROCESS_PRESENT:
	case RG_EV_EXEC:
		game_sync(e, n, classify(e, n), ev->ts);
		break;
	case RG_EV_FORK:
		/* The tree copied the parent's game; count the child in its session. */
		game_sync(e, n, (n->flags & PROC_F_GAME) ? n->game : -1, ev->ts);
		break;
	default:
		break;
	}
	if (!is_rdma_activity(ev))
		return;
	if (!(n->flags & PROC_F_HAS_RDMA)) {
		n->flags |= PROC_F_HAS_RDMA;
		n->rdma_first_ns = ev->ts ? ev->ts : 1;
	}
	if (n->flags & PROC_F_GAME)
		return;
	for (i = 0; i < e->n_games; i++)
		if (e->games[i].running) {
			e->games[i].rdma_events++;
			n->flags |= PROC_F_RDMA_IN_GAME;
		}
}

int engine_process(struct rg_engine *e, const struct rg_event *ev, engine_emit_fn emit, void *ud)
{
	struct proc_node *n;
	struct cond_ctx ctx;
	size_t i, lo = 0, hi = 0;
	int r;

	e->emit_err = 0;
	e->st.events++;
	if (ev->type < RG_EV__MAX)
		e->st.events_by_type[ev->type]++;
	if (ev->ts > e->now)
		e->now = ev->ts;
	agg_expire(e, e->now, false, emit, ud);
	n = proctree_update(e->tree, ev);
	update_state(e, ev, n);
	ctx_init(e, ev, n, &ctx);
	if (ev->type < RG_EV__MAX) {
		lo = e->rule_start[ev->type];
		hi = e->rule_start[ev->type + 1];
	}
	for (i = lo; i < hi; i++) {
		uint32_t ri = e->rule_idx[i];

		if (!rule_matches(&e->erules[ri], &ctx))
			continue;
		ctx.cur = ctx.proc;
		rule_fired(e, ri, &ctx, emit, ud);
	}
	r = e->emit_err;
	e->emit_err = 0;
	return r;
}

int engine_tick(struct rg_engine *e, uint64_t now_ns, engine_emit_fn emit, void *ud)
{
	int r;

	e->emit_err = 0;
	if (now_ns > e->now)
		e->now = now_ns;
	agg_expire(e, now_ns, false, emit, ud);
	r = e->emit_err;
	e->emit_err = 0;
	return r;
}

int engine_flush(struct rg_engine *e, engine_emit_fn emit, void *ud)
{
	int r;

	e->emit_err = 0;
	agg_expire(e, e->now, true, emit, ud);
	r = e->emit_err;
	e->emit_err = 0;
	return r;
}

/* Creation, reload. */

int engine_check(const struct rg_policy *policy, const struct rg_ruleset *rules,
		 struct rg_error *err)
{
	size_t i, j;

	for (i = 0; i < policy->n_overrides; i++) {
		const struct rg_rule_override *ov = &policy->overrides[i];

		if (!ruleset_find(rules, ov->rule_id))
			return rg_error_set(err, policy->path ? policy->path : "policy", ov->line,
					    ov->column, "\"rules\" overrides unknown rule \"%s\"",
					    ov->rule_id);
		for (j = 0; j < i; j++)
			if (strcmp(policy->overrides[j].rule_id, ov->rule_id) == 0)
				return rg_error_set(err, policy->path ? policy->path : "policy",
						    ov->line, ov->column,
						    "rule \"%s\" is overridden twice", ov->rule_id);
	}
	return 0;
}

int engine_load_config(const char *policy_path, bool check_owner, const char *rules_dir,
		       policy_output_check_fn check_outputs, struct rg_policy **ret_policy,
		       struct rg_ruleset **ret_rules, struct rg_error *err)
{
	struct rg_policy *p = NULL;
	struct rg_ruleset *rs = NULL;
	int r;

	if (policy_path)
		r = policy_load(policy_path, check_owner, &p, err);
	else
		r = policy_new_default(&p);
	if (r >= 0 && check_outputs)
		r = policy_check_outputs(p, check_outputs, err);
	if (r < 0) {
		policy_free(p);
		return r;
	}
	r = rules_load_dir(rules_dir ? rules_dir : rules_default_dir(), &rs, err);
	if (r < 0) {
		policy_free(p);
		return r;
	}
	r = engine_check(p, rs, err);
	if (r < 0) {
		policy_free(p);
		ruleset_free(rs);
		return r;
	}
	*ret_policy = p;
	*ret_rules = rs;
	return 0;
}

/* er ends with an entry of no rule. */
static void erules_free(struct erule *er)
{
	for (struct erule *p = er; p && p->rule; p++)
		free(p->json);
	free(er);
}

static int erules_build(const struct rg_policy *policy, const struct rg_ruleset *rules,
			struct jw *w, struct erule **ret, uint32_t **ret_idx,
			uint32_t start[RG_EV__MAX + 1])
{
	struct erule *er = calloc(rules->n + 1, sizeof(*er));
	uint32_t *idx = calloc(rules->n * RG_EV__MAX + 1, sizeof(*idx)), n = 0;
	size_t i, j, t;

	if (!er || !idx) {
		free(er);
		free(idx);
		return -ENOMEM;
	}
	for (i = 0; i < rules->n; i++) {
		const struct rg_rule *rule = &rules->rules[i];

		er[i].rule = rule;
		er[i].enabled = rule->enabled;
		er[i].action = rule->action;
		er[i].window_ns = rule->window_ns ? rule->window_ns : policy->aggregate_window_ns;
		for (j = 0; j < policy->n_overrides; j++)
			if (strcmp(policy->overrides[j].rule_id, rule->id) == 0)
				er[i].ov = &policy->overrides[j];
		if (er[i].ov && er[i].ov->enabled >= 0)
			er[i].enabled = er[i].ov->enabled;
		if (er[i].ov && er[i].ov->action >= 0)
			er[i].action = er[i].ov->action;
		if (erule_render(&er[i], w) < 0) {
			erules_free(er);
			free(idx);
			return -ENOMEM;
		}
	}
	/* A rule matches only where its condition holds, so only those of the event's type. */
	for (t = 0; t < RG_EV__MAX; t++) {
		start[t] = n;
		for (i = 0; i < rules->n; i++)
			if (er[i].enabled && (cond_type_mask(rules->rules[i].cond) & (1u << t)))
				idx[n++] = (uint32_t)i;
	}
	start[RG_EV__MAX] = n;
	*ret = er;
	*ret_idx = idx;
	return 0;
}

/* What conditions read of the policy (policy.* fields). */
static void env_set_policy(struct cond_env *env, const struct rg_policy *policy)
{
	env->role = policy->role == RG_ROLE_SERVER ? "server" : "managed";
	env->mr_max_bytes = policy->mr_max_bytes;
}

static void read_boot_id(char *buf, size_t size)
{
	_cleanup_close_ int fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);
	_cleanup_free_ char *s = NULL;

	buf[0] = 0;
	if (fd < 0 || read_fd_bounded(fd, 64, &s, NULL, NULL) < 0)
		return;
	strscpy_ok(buf, strstrip(s), size);
}

void engine_free(struct rg_engine *e)
{
	if (!e)
		return;
	proctree_free(e->tree);
	policy_free(e->policy);
	ruleset_free(e->rules);
	erules_free(e->erules);
	free(e->rule_idx);
	free(e->games);
	free(e->aggs);
	free(e->agg_buckets);
	free(e->agg_scratch);
	free(e->agg_order);
	EVP_MD_CTX_free(e->md_ctx);
	jw_free(e->jw);
	EVP_MD_free(e->sha256);
	free(e);
}

static void resync_game(struct proc_node *n, void *ud)
{
	struct rg_engine *e = ud;

	n->flags &= ~PROC_F_GAME_COUNTED;
	game_sync(e, n, classify(e, n), e->now);
}

int engine_new(struct rg_policy *policy, struct rg_ruleset *rules, const struct engine_config *cfg,
	       struct rg_engine **ret, struct rg_error *err)
{
	struct rg_engine *e;
	size_t nb = 16, i;
	int r;

	r = engine_check(policy, rules, err);
	if (r < 0)
		return r;
	e = calloc(1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	if (cfg)
		e->cfg = *cfg;
	e->agg_cap = e->cfg.agg_capacity ? e->cfg.agg_capacity : ENGINE_DEFAULT_AGG_CAPACITY;
	if (e->agg_cap > ENGINE_MAX_AGG_CAPACITY) {
		free(e);
		return rg_error_set(err, NULL, 0, 0, "aggregation capacity too large");
	}
	r = proctree_new(e->cfg.proc_capacity, &e->tree);
	if (r < 0) {
		free(e);
		return r == -EINVAL ? rg_error_set(err, NULL, 0, 0, "invalid process capacity") : r;
	}
	proctree_set_exit_hook(e->tree, on_exit_hook, e);
	while (nb < e->agg_cap)
		nb <<= 1;
	e->aggs = calloc(e->agg_cap, sizeof(*e->aggs));
	e->agg_buckets = malloc(nb * sizeof(*e->agg_buckets));
	e->agg_scratch = calloc(e->agg_cap, sizeof(*e->agg_scratch));
	e->agg_order = calloc(e->agg_cap, sizeof(*e->agg_order));
	e->jw = jw_new();
	e->games = calloc(policy->n_games ? policy->n_games : 1, sizeof(*e->games));
	if (!e->aggs || !e->agg_buckets || !e->agg_scratch || !e->agg_order || !e->jw ||
	    !e->games || erules_build(policy, rules, e->jw, &e->erules, &e->rule_idx, e->rule_start) < 0) {
		e->policy = NULL;
		e->rules = NULL;
		engine_free(e);
		return -ENOMEM;
	}
	memset(e->agg_buckets, 0xff, nb * sizeof(*e->agg_buckets));
	for (i = 0; i < e->agg_cap; i++)
		e->agg_order[i] = (int32_t)i;
	e->agg_mask = (uint32_t)nb - 1;
	e->next_deadline = UINT64_MAX;
	e->n_games = policy->n_games;
	games_init(e->games, policy);
	e->st.max_severity = -1;
	if (e->cfg.hostname)
		strscpy_ok(e->hostname, e->cfg.hostname, sizeof(e->hostname));
	else if (gethostname(e->hostname, sizeof(e->hostname) - 1) < 0)
		strcpy(e->hostname, "localhost");
	if (e->cfg.boot_id)
		strscpy_ok(e->boot_id, e->cfg.boot_id, sizeof(e->boot_id));
	else
		read_boot_id(e->boot_id, sizeof(e->boot_id));
	e->cfg.hostname = NULL;
	e->cfg.boot_id = NULL;
	e->env.boot_realtime_ns = e->cfg.boot_realtime_ns;
	e->env.proc_allowed = proc_allowed;
	e->env.ud = e;
	env_set_policy(&e->env, policy);
	e->sha256 = EVP_MD_fetch(NULL, "SHA256", NULL);
	e->md_ctx = e->sha256 ? EVP_MD_CTX_new() : NULL;
	e->policy = policy;
	e->rules = rules;
	*ret = e;
	return 0;
}

int engine_reload(struct rg_engine *e, struct rg_policy *policy, struct rg_ruleset *rules,
		  engine_emit_fn emit, void *ud, struct rg_error *err)
{
	struct game_session *games;
	struct erule *er;
	uint32_t *idx, start[RG_EV__MAX + 1];
	int r;

	r = engine_check(policy, rules, err);
	if (r < 0)
		return r;
	games = calloc(policy->n_games ? policy->n_games : 1, sizeof(*games));
	if (!games || erules_build(policy, rules, e->jw, &er, &idx, start) < 0) {
		free(games);
		return -ENOMEM;
	}
	/* The old rules' pending repeats go out under the old rules. */
	e->emit_err = 0;
	agg_expire(e, e->now, true, emit, ud);
	r = e->emit_err;
	e->emit_err = 0;

	policy_free(e->policy);
	ruleset_free(e->rules);
	erules_free(e->erules);
	free(e->rule_idx);
	free(e->games);
	e->policy = policy;
	e->rules = rules;
	e->erules = er;
	e->rule_idx = idx;
	memcpy(e->rule_start, start, sizeof(start));
	e->games = games;
	e->n_games = policy->n_games;
	games_init(e->games, policy);
	env_set_policy(&e->env, policy);
	/* Game membership under the new policy; sessions restart from the live processes. */
	proctree_foreach_live(e->tree, resync_game, e);
	return r;
}

const struct rg_policy *engine_policy(const struct rg_engine *e)
{
	return e->policy;
}

const struct rg_ruleset *engine_rules(const struct rg_engine *e)
{
	return e->rules;
}

struct proctree *engine_proctree(struct rg_engine *e)
{
	return e->tree;
}

void engine_get_stats(const struct rg_engine *e, struct engine_stats *ret)
{
	*ret = e->st;
	ret->games_running = 0;
	for (size_t i = 0; i < e->n_games; i++)
		ret->games_running += e->games[i].running;
	proctree_get_stats(e->tree, &ret->proc);
}

int engine_rule_effective(const struct rg_engine *e, size_t i, bool *enabled, int *action)
{
	if (i >= e->rules->n)
		return -ENOENT;
	*enabled = e->erules[i].enabled;
	*action = e->erules[i].action;
	return 0;
}

void engine_rule_stats(const struct rg_engine *e, size_t i, uint64_t *alerts, uint64_t *matches)
{
	*alerts = i < e->rules->n ? e->erules[i].alerts : 0;
	*matches = i < e->rules->n ? e->erules[i].matches : 0;
}
