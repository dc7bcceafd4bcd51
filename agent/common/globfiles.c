/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Policy path patterns resolved to files (globfiles.h): a bounded, depth-first walk below a root
 * that never follows a symbolic link to a directory.
 */
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "globfiles.h"
#include "root.h"
#include "strutil.h"

static int list_add(struct glob_files *l, const struct stat *st, const char *path)
{
	struct glob_file *f;

	if (glob_files_has(l, (uint64_t)st->st_ino, (uint64_t)st->st_dev))
		return 0; /* a hard link or a symlink to a file already listed */
	if (l->n >= l->max) {
		l->truncated = true;
		return 0;
	}
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 8;
		struct glob_file *v = realloc(l->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		l->v = v;
		l->cap = cap;
	}
	f = &l->v[l->n++];
	memset(f, 0, sizeof(*f));
	f->ino = (uint64_t)st->st_ino;
	f->dev = (uint64_t)st->st_dev;
	f->ctime_sec = (uint64_t)st->st_ctim.tv_sec;
	f->ctime_nsec = (uint32_t)st->st_ctim.tv_nsec;
	strscpy_ok(f->path, path, sizeof(f->path));
	return 0;
}

bool glob_files_has(const struct glob_files *l, uint64_t ino, uint64_t dev)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->v[i].ino == ino && l->v[i].dev == dev)
			return true;
	return false;
}

void glob_files_done(struct glob_files *l)
{
	free(l->v);
	l->v = NULL;
	l->n = l->cap = 0;
	l->truncated = false;
}

bool glob_has_magic(const char *s)
{
	return strpbrk(s, "*?[\\") != NULL;
}

static int cmp_names(const void *a, const void *b)
{
	return strverscmp(*(char *const *)a, *(char *const *)b);
}

struct walk {
	const struct rg_root *root;
	const char *pattern;
	int fnm;
	bool exec_only;
	unsigned max_depth;
	size_t visited;
	struct glob_files *out;
};

/* Depth-first below dir (an absolute path below the root), names in version order. */
static int walk_dir(struct walk *w, const char *dir, unsigned depth)
{
	DIR *d;
	struct dirent *de;
	char **names = NULL;
	size_t n = 0, cap = 0;
	int r = 0;

	if (depth > w->max_depth || w->visited >= GLOB_FILES_WALK_ENTRIES)
		return 0;
	d = root_opendir(w->root, dir);
	if (!d)
		return 0;
	while ((de = readdir(d)) && w->visited < GLOB_FILES_WALK_ENTRIES) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		w->visited++;
		if (n == cap) {
			size_t nc = cap ? cap * 2 : 32;
			char **nv = realloc(names, nc * sizeof(*nv));

			if (!nv) {
				r = -ENOMEM;
				goto out;
			}
			names = nv;
			cap = nc;
		}
		names[n] = strdup(de->d_name);
		if (!names[n]) {
			r = -ENOMEM;
			goto out;
		}
		n++;
	}
	qsort(names, n, sizeof(*names), cmp_names);
	for (size_t i = 0; i < n && r >= 0 && !w->out->truncated; i++) {
		char path[GLOB_FILES_PATH];
		struct stat st, lst;
		int len = snprintf(path, sizeof(path), "%s/%s", strcmp(dir, "/") == 0 ? "" : dir,
				   names[i]);

		if (len < 0 || (size_t)len >= sizeof(path))
			continue;
		if (root_stat(w->root, path, &lst, false) < 0)
			continue;
		if (S_ISDIR(lst.st_mode)) {
			/* symbolic links to directories are not followed (loops) */
			r = walk_dir(w, path, depth + 1);
			continue;
		}
		if (root_stat(w->root, path, &st, true) < 0 || !S_ISREG(st.st_mode))
			continue;
		if (w->exec_only && !(st.st_mode & 0111))
			continue;
		if (fnmatch(w->pattern, path, w->fnm) == 0)
			r = list_add(w->out, &st, path);
	}
out:
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	closedir(d);
	return r;
}

int glob_files_resolve(const struct rg_root *root, const char *pattern, int fnm, bool exec_only,
		       struct glob_files *out)
{
	struct walk w = {.root = root,
			 .pattern = pattern,
			 .fnm = fnm,
			 .exec_only = exec_only,
			 .max_depth = GLOB_FILES_WALK_DEPTH,
			 .out = out};
	char base[GLOB_FILES_PATH];
	const char *g;
	struct stat st;
	char *slash;
	unsigned comps = 0;

	if (!glob_has_magic(pattern)) {
		if (root_stat(root, pattern, &st, true) < 0 || !S_ISREG(st.st_mode))
			return 0;
		return list_add(out, &st, pattern);
	}
	g = strpbrk(pattern, "*?[\\");
	if ((size_t)(g - pattern) >= sizeof(base))
		return 0;
	memcpy(base, pattern, (size_t)(g - pattern));
	base[g - pattern] = 0;
	slash = strrchr(base, '/');
	if (!slash)
		return 0;
	if (slash == base)
		slash[1] = 0; /* "/" */
	else
		*slash = 0;
	if (fnm & FNM_PATHNAME) {
		/* no deeper than the pattern's components */
		for (const char *p = g; *p; p++)
			comps += *p == '/';
		w.max_depth = comps;
	}
	return walk_dir(&w, base, 0);
}
