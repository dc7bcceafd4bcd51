/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Policy files (policy.h): a policy's defaults, loading and freeing one (policy_keys.c reads its
 * keys), pinning allow entries to inodes, the game and allowlist matching helpers, and the check
 * of the "outputs" specs with the caller's checker.
 */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "rules/cond.h"
#include "rules/cond_json.h"
#include "config/jsonval.h"
#include "policy.h"
#include "common/globcheck.h"
#include "common/log.h"
#include "common/macro.h"
#include "common/root.h"

static void game_done(struct rg_policy_game *g)
{
	free(g->name);
	jv_strv_free(g->exe, g->n_exe);
	free(g->sha256);
	glob_files_done(&g->files);
}

static void allow_done(struct rg_policy_allow *a)
{
	free(a->exe);
	free(a->uids);
	free(a->parent);
	jv_strv_free(a->devices, a->n_devices);
	free(a->comment);
	glob_files_done(&a->exe_files);
	glob_files_done(&a->parent_files);
}

static void override_done(struct rg_rule_override *o)
{
	size_t i;

	free(o->rule_id);
	for (i = 0; i < o->n_exceptions; i++)
		cond_free(o->exceptions[i]);
	free(o->exceptions);
}

void policy_free(struct rg_policy *p)
{
	size_t i;

	if (!p)
		return;
	for (i = 0; i < p->n_games; i++)
		game_done(&p->games[i]);
	for (i = 0; i < p->n_allow; i++)
		allow_done(&p->allow[i]);
	for (i = 0; i < p->n_overrides; i++)
		override_done(&p->overrides[i]);
	free(p->games);
	free(p->allow);
	free(p->overrides);
	jv_strv_free(p->outputs, p->n_outputs);
	free(p->outputs_pos);
	policy_fleet_done(p);
	policy_hw_free(p);
	free(p->description);
	free(p->path);
	free(p);
}

int policy_new_default(struct rg_policy **ret)
{
	struct rg_policy *p = calloc(1, sizeof(*p));

	if (!p)
		return -ENOMEM;
	p->role = RG_ROLE_MANAGED;
	p->threshold = RG_SEV_MEDIUM;
	p->mr_max_bytes = POLICY_DEFAULT_MR_MAX;
	p->aggregate_window_ns = POLICY_DEFAULT_WINDOW_NS;
	p->enforce_scope = RG_ENFORCE_ALWAYS;
	*ret = p;
	return 0;
}

static int policy_from_doc(const struct jdoc *doc, struct rg_policy **ret, struct rg_error *err)
{
	struct rg_policy *p = NULL;
	int r;

	r = policy_new_default(&p);
	if (r < 0)
		return r;
	r = policy_keys_parse(doc, p, err);
	if (r >= 0 && doc && jdoc_file(doc)[0] && !(p->path = strdup(jdoc_file(doc))))
		r = -ENOMEM;
	if (r < 0) {
		policy_free(p);
		return r;
	}
	*ret = p;
	return 0;
}

int policy_check_outputs(const struct rg_policy *p, policy_output_check_fn check,
			 struct rg_error *err)
{
	char msg[512];
	int r;

	for (size_t k = 0; k < p->n_outputs; k++) {
		r = check(p->outputs[k], msg, sizeof(msg));
		if (r == -ENOMEM)
			return r;
		if (r < 0)
			return rg_error_set(err, p->path, p->outputs_pos[k].line,
					    p->outputs_pos[k].column, "%s", msg);
	}
	return 0;
}

int policy_parse(const char *file, const char *text, size_t len, struct rg_policy **ret,
		 struct rg_error *err)
{
	struct jdoc *doc;
	int r;

	r = jdoc_parse(file, text, len, &doc, err);
	if (r < 0)
		return r;
	r = policy_from_doc(doc, ret, err);
	jdoc_free(doc);
	return r;
}

int policy_load(const char *path, bool check_owner, struct rg_policy **ret, struct rg_error *err)
{
	struct jdoc *doc;
	int r;

	r = jdoc_load(path, check_owner, &doc, err);
	if (r < 0)
		return r;
	r = policy_from_doc(doc, ret, err);
	jdoc_free(doc);
	return r;
}

/* A game's files, found as enforce_tables_build() finds them: '*' matches '/', executables only. */
static int pin_game(const struct rg_policy *p, struct rg_policy_game *g, const struct rg_root *rt)
{
	int r = 0;

	glob_files_done(&g->files);
	g->files.max = POLICY_MAX_FILES;
	for (size_t i = 0; i < g->n_exe && r >= 0; i++) {
		r = glob_files_resolve(rt, g->exe[i], 0, true, &g->files);
		if (g->files.truncated) {
			log_warning("%s: game \"%s\": %s matches more than %d files: the others are "
				    "known by path alone",
				    p->path ? p->path : "policy", g->name, g->exe[i],
				    POLICY_MAX_FILES);
			g->files.truncated = false;
		}
	}
	return r;
}

int policy_resolve_inodes(struct rg_policy *p, const char *root)
{
	struct rg_root rt = {.fd = -1};
	size_t i;
	int r, n = 0;

	r = root_init(&rt, root);
	if (r < 0)
		return r;
	for (i = 0; i < p->n_games && r >= 0; i++)
		r = pin_game(p, &p->games[i], &rt);
	for (i = 0; i < p->n_allow && r >= 0; i++) {
		struct rg_policy_allow *a = &p->allow[i];

		glob_files_done(&a->exe_files);
		glob_files_done(&a->parent_files);
		a->exe_files.max = a->parent_files.max = POLICY_MAX_FILES;
		a->pinned = false;
		a->pin_failed = false;
		r = glob_files_resolve(&rt, a->exe, FNM_PATHNAME, false, &a->exe_files);
		if (r >= 0 && a->parent)
			r = glob_files_resolve(&rt, a->parent, FNM_PATHNAME, false,
					       &a->parent_files);
		if (r < 0)
			break;
		if (a->exe_files.truncated || a->parent_files.truncated)
			log_warning("%s:%u:%u: %s matches more than %d files: the rest are not "
				    "allowed",
				    p->path ? p->path : "policy", a->line, a->column,
				    a->exe_files.truncated ? a->exe : a->parent, POLICY_MAX_FILES);
		if (!a->exe_files.n || (a->parent && !a->parent_files.n)) {
			a->pin_failed = true;
			continue;
		}
		a->pinned = true;
		n++;
	}
	root_done(&rt);
	return r < 0 ? r : n;
}

bool policy_game_exe_match(const struct rg_policy_game *g, const char *exe)
{
	size_t i;

	if (!exe || !exe[0])
		return false;
	for (i = 0; i < g->n_exe; i++)
		if (fnmatch(g->exe[i], exe, 0) == 0)
			return true;
	return false;
}

bool policy_game_sha_match(const struct rg_policy_game *g, const char *sha256)
{
	size_t i;

	if (!sha256 || !sha256[0])
		return false;
	for (i = 0; i < g->n_sha256; i++)
		if (strcmp(g->sha256[i], sha256) == 0)
			return true;
	return false;
}

bool policy_games_need_hash(const struct rg_policy *p)
{
	size_t i;

	for (i = 0; i < p->n_games; i++)
		if (p->games[i].n_sha256)
			return true;
	return false;
}
