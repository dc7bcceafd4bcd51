/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Grouping (incident.h): which incident an alert belongs to. An actor alert joins the open
 * incident rooted at the nearest ancestor-or-self of its process, else opens one at its actor
 * root (the process below a starter); a hardware alert joins its PCI function's, any other the
 * seat's; each bounded by the game session it fired in.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "incident-internal.h"
#include "common/macro.h"
#include "common/strutil.h"
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
	end = incident_game_end(inc, games, n_games);
	return end && ts <= end;
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
	due = incident_due_at(s, inc, ctx->tree, games, n_games, &why);
	if (due <= ts) {
		incident_close(s, inc, due, why, rec, ud);
		return NULL;
	}
	return fits_game(inc, g, ts, games, n_games) ? inc : NULL;
}

static struct incident *find_fit(struct incident_store *s, uint8_t kind, struct proc_key root,
				 const char *pci, struct cond_ctx *ctx,
				 const struct game_session *g, const struct game_session *games,
				 size_t n_games, incident_record_fn rec, void *ud)
{
	return check_fit(s, incident_find_open(s, kind, root, pci), ctx, g, games, n_games, rec,
			 ud);
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
		inc = incident_new_slot(s, ts, rec, ud);
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
		incident_file(s, inc);
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
