/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the process reader (procs.c) lends the process table (procs_table.c): a context for
 * reading processes below a root, and the read of one pid with it.
 */
#pragma once

#include <stdint.h>

#include "common/macro.h"
#include "common/root.h"
#include "inventory/procs.h"

struct proc_dir;

/* A context for reading processes below root; procfd is /proc there. NULL without memory. */
struct proc_dir *proc_dir_new(const struct rg_root *root, int procfd);
void proc_dir_free(struct proc_dir *pd);
DEFINE_TRIVIAL_CLEANUP_FUNC(struct proc_dir *, proc_dir_free);

/* Reads process pid into ret (procs_read_one() with a reused context). */
int procs_read_pid(struct proc_dir *pd, int procfd, uint32_t pid, unsigned flags,
		   struct proc_info *ret);
