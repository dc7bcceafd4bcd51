/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The game processes the engine knows, told to a BPF map of game pids (bpf/maps.bpf.h:
 * enf_game_pids, tgid -> RG_ENF_GAME_*): enforcement's pinned map while it is on, else, in
 * detect-only mode, the sensors' own, from which they keep records about a game's memory out of
 * the budget of low-value records. The daemon adds only RG_ENF_GAME_DAEMON entries (BPF_NOEXIST)
 * and deletes only its own, of processes that exited; each proc_node says, by one flag, that its
 * pid was given to one map.
 *
 * Threading: the daemon's loop.
 */
#pragma once

#include <stdint.h>

#include "engine/engine.h"
#include "event/event.h"
#include "proctree/proctree.h"

/* n is a game process: its pid goes into the map at fd (flag: the node's mark for that map). */
void game_pids_push(int fd, struct proc_node *n, uint32_t flag);

/* Every live game process of the engine, into the map at fd. */
void game_pids_push_all(int fd, struct rg_engine *eng, uint32_t flag);

/*
 * What ev changes for the map at fd: a game's process seen (present, exec, fork) goes in, its
 * exit takes the daemon's entry out. True if ev was one of those (the caller may then look at
 * the engine's games).
 */
bool game_pids_event(int fd, const struct rg_event *ev, struct rg_engine *eng, uint32_t flag);
