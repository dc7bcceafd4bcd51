/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The regular files a policy's path pattern names below a root, found by a bounded walk: the
 * allowlist's and the games' globs resolved to (inode, device) once, at policy (re)load, so that
 * the engine and enforcement check the file a process runs and not only the path it shows.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "macro.h"
#include "root.h"

#define GLOB_FILES_PATH	       256   /* a matched path longer than this is skipped */
#define GLOB_FILES_WALK_ENTRIES 65536 /* directory entries one pattern may visit */
#define GLOB_FILES_WALK_DEPTH   16

/* A file a pattern resolved to. */
struct glob_file {
	uint64_t ino;
	uint64_t dev; /* st_dev as userspace sees it */
	uint64_t ctime_sec;
	uint32_t ctime_nsec;
	char path[GLOB_FILES_PATH];
};

struct glob_files {
	struct glob_file *v;
	size_t n, cap;
	size_t max;	/* at most this many files (set by the caller) */
	bool truncated; /* the pattern named more than max */
};

/* Whether s has a glob character (fnmatch(3): '*', '?', '[', '\'). */
bool glob_has_magic(const char *s);
/*
 * Appends to out the regular files pattern names below root: itself when literal (followed if a
 * symbolic link), else the matches of a walk from its longest literal directory (symbolic links
 * to directories are not followed; names in version order; at most GLOB_FILES_WALK_ENTRIES
 * entries). fnm: FNM_PATHNAME ('*' stops at '/', and the walk goes no deeper than the pattern's
 * components) or 0 ('*' also matches '/', GLOB_FILES_WALK_DEPTH levels). exec_only: only files
 * with an execute bit. A hard link or symbolic link to a listed file is not listed twice.
 * Returns 0 or -ENOMEM; a missing directory is no error.
 */
int glob_files_resolve(const struct rg_root *root, const char *pattern, int fnm, bool exec_only,
		       struct glob_files *out);
/* Whether (ino, dev) is one of l's files. */
bool glob_files_has(const struct glob_files *l, uint64_t ino, uint64_t dev);
void glob_files_done(struct glob_files *l);
