/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The engine's game processes, told to a BPF map of game pids (enforcement's or the sensors').
 * See game_pids.h.
 */
#include <bpf/bpf.h>

#include "bpf/enforce_abi.h"
#include "game_pids.h"

void game_pids_push(int fd, struct proc_node *n, uint32_t flag)
{
	__u32 v = RG_ENF_GAME_DAEMON, pid = n->pid;

	if (fd >= 0 && bpf_map_update_elem(fd, &pid, &v, BPF_NOEXIST) == 0)
		n->flags |= flag;
}

/*
 * n exited: the daemon's entry for it goes. The kernel removes a process's entry at the exit it
 * sees (enforcement's programs), but the daemon pushes from the ring, later, possibly after that
 * exit: every short-lived child of a game (a fork that runs something else and ends) would
 * otherwise stay in the map for good and in time fill it, and then the kernel could add no game.
 * Only the daemon's own entry: one the kernel counts (RG_ENF_GAME_KERNEL) is a newer process's
 * with the same pid.
 */
static void pull(int fd, struct proc_node *n, uint32_t flag)
{
	__u32 v, pid = n->pid;

	n->flags &= ~flag;
	if (fd >= 0 && bpf_map_lookup_elem(fd, &pid, &v) == 0 && v == RG_ENF_GAME_DAEMON)
		(void)bpf_map_delete_elem(fd, &pid);
}

struct push_all {
	int fd;
	uint32_t flag;
};

static void push_cb(struct proc_node *n, void *ud)
{
	const struct push_all *p = ud;

	if (n->flags & PROC_F_GAME)
		game_pids_push(p->fd, n, p->flag);
}

void game_pids_push_all(int fd, struct rg_engine *eng, uint32_t flag)
{
	struct push_all p = {.fd = fd, .flag = flag};

	if (fd >= 0)
		proctree_foreach_live(engine_proctree(eng), push_cb, &p);
}

bool game_pids_event(int fd, const struct rg_event *ev, struct rg_engine *eng, uint32_t flag)
{
	struct proc_node *n;

	switch (ev->type) {
	case RG_EV_PROCESS_PRESENT:
	case RG_EV_EXEC:
	case RG_EV_FORK:
		n = proctree_find(engine_proctree(eng),
				  PROC_KEY(ev->proc.pid, ev->proc.start_boot_ns));
		if (n && (n->flags & PROC_F_GAME))
			game_pids_push(fd, n, flag);
		return true;
	case RG_EV_EXIT:
		if (ev->proc.tid && ev->proc.tid != ev->proc.pid)
			return true; /* a thread's */
		n = proctree_find(engine_proctree(eng),
				  PROC_KEY(ev->proc.pid, ev->proc.start_boot_ns));
		if (n && (n->flags & flag) && !proc_node_live(n))
			pull(fd, n, flag);
		return true;
	default:
		return false;
	}
}
