/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Game sessions and RDMA history, the correlation state that events build besides the process
 * tree: which processes run a game of the policy, when each game's session started and ended,
 * which processes used RDMA (and during a session), and from that the condition context of an
 * event (the game it is about).
 */
#include <string.h>

#include "engine-internal.h"
#include "common/log.h"

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
		if (policy_game_exe_match(&e->policy->games[i], n->exe) &&
		    engine_proc_path_trusted(n))
			return (int)i;
	/* The files the patterns named at load, whatever path, root or namespace n shows: what
	 * enforcement's game table holds. */
	for (i = 0; i < e->policy->n_games; i++)
		if (e->policy->games[i].files.n) {
			engine_proc_exe_id(e, n);
			if (n->exe_ino &&
			    glob_files_has(&e->policy->games[i].files, n->exe_ino, n->exe_dev))
				return (int)i;
		}
	for (i = 0; i < e->policy->n_games; i++)
		if (e->policy->games[i].n_sha256 &&
		    policy_game_sha_match(&e->policy->games[i], engine_proc_sha256(e, n)))
			return (int)i;
	return -1;
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

void engine_game_exit_hook(struct proc_node *n, bool evicted, void *ud)
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

uint64_t engine_game_since(const struct rg_engine *e)
{
	uint64_t since = 0;

	for (size_t i = 0; e && i < e->n_games; i++)
		if (e->games[i].running && (!since || e->games[i].started_ns < since))
			since = e->games[i].started_ns ? e->games[i].started_ns : 1;
	return since;
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

void engine_ctx_init(struct rg_engine *e, const struct rg_event *ev, struct proc_node *proc,
		     struct cond_ctx *c)
{
	memset(c, 0, sizeof(*c));
	c->ev = ev;
	c->env = &e->env;
	c->tree = e->tree;
	c->proc = c->cur = proc;
	c->allowed = -1;
	if (ev->type == RG_EV_MEMORY_ACCESS && ev->u.mem.target_pid)
		c->target = proctree_find(
		    e->tree, PROC_KEY(ev->u.mem.target_pid, ev->u.mem.target_start_boot_ns));
	c->game_running = any_game_running(e);
	c->game_ended_ns = e->game_ended_ns;
	c->game = select_game(e, c);
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
	case RG_EV_RDMA_SOCKET:
		/* an RDS or SMC socket: kernel RDMA on the process's behalf (a SOL_RDS option
		 * on another socket is refused by the kernel, and FAILED above) */
		return ev->u.sock.family == RG_SOCK_FAMILY_RDS ||
		       ev->u.sock.family == RG_SOCK_FAMILY_SMC;
	case RG_EV_QP_PRESENT:
		return !ev->u.qp.kernel;
	case RG_EV_MR_PRESENT:
		return !ev->u.mr.kernel;
	default:
		return false;
	}
}

void engine_update_state(struct rg_engine *e, const struct rg_event *ev, struct proc_node *n)
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

static void resync_game(struct proc_node *n, void *ud)
{
	struct rg_engine *e = ud;

	n->flags &= ~PROC_F_GAME_COUNTED;
	game_sync(e, n, classify(e, n), e->now);
}

static void rehash_game(struct proc_node *n, void *ud)
{
	struct rg_engine *e = ud;

	if (!(n->flags & PROC_F_HASH_PENDING))
		return;
	game_sync(e, n, classify(e, n), e->now);
}

void engine_games_rehash(struct rg_engine *e)
{
	proctree_foreach_live(e->tree, rehash_game, e);
}

void engine_games_resync(struct rg_engine *e)
{
	proctree_foreach_live(e->tree, resync_game, e);
}

void engine_games_init(struct game_session *games, const struct rg_policy *policy)
{
	size_t i;

	for (i = 0; i < policy->n_games; i++) {
		games[i].game = (int32_t)i;
		games[i].name = policy->games[i].name;
	}
}
