/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Policy files (policy.h): parsing and checking every key, pinning allow entries to inodes,
 * the game and allowlist matching helpers, and the check of the "outputs" specs with the
 * caller's checker.
 */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cond.h"
#include "cond_json.h"
#include "jsonval.h"
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

static bool is_sha256(const char *s)
{
	size_t i;

	if (strlen(s) != 64)
		return false;
	for (i = 0; i < 64; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return true;
}

static int check_pattern(const struct jdoc *doc, size_t pos, const char *what, const char *pat,
			 struct rg_error *err)
{
	const char *why;
	size_t off;

	if (pat[0] != '/')
		return jdoc_error(doc, pos, err, "%s \"%s\" must be an absolute path pattern", what,
				  pat);
	if (strlen(pat) >= RG_PATH_LEN)
		return jdoc_error(doc, pos, err, "%s is longer than %d bytes", what,
				  RG_PATH_LEN - 1);
	/* A broken pattern would silently match nothing: no game protected, no entry allowed. */
	if (glob_check(pat, &off, &why) < 0)
		return jdoc_error(doc, pos == JDOC_NOPOS ? pos : jdoc_string_pos(doc, pos, off), err,
				  "%s \"%s\": %s", what, pat, why);
	return 0;
}

/* Position of element i of obj[key] if it is an array, else of obj[key]. */
static size_t list_pos(const struct jdoc *doc, struct json_object *obj, const char *key, size_t i)
{
	struct json_object *v;

	if (json_object_object_get_ex(obj, key, &v) && json_object_is_type(v, json_type_array))
		return jdoc_element_pos(doc, v, i);
	return jv_pos(doc, obj, key, false);
}

static int parse_game(const struct jdoc *doc, struct json_object *o, size_t pos,
		      struct rg_policy_game *g, struct rg_error *err)
{
	static const char *const keys[] = {"name", "exe", "sha256", NULL};
	_cleanup_(freep) char **hashes = NULL;
	size_t nh = 0, i;
	const char *name;
	int r;

	r = jv_check_object(doc, o, pos, "a game", keys, err);
	if (r < 0)
		return r;
	r = jv_string(doc, o, "name", true, &name, err);
	if (r < 0)
		return r;
	if (strlen(name) > 128)
		return jdoc_error(doc, jv_pos(doc, o, "name", false), err,
				  "\"name\" is longer than 128 bytes");
	g->name = strdup(name);
	if (!g->name)
		return -ENOMEM;
	r = jv_string_list(doc, o, "exe", POLICY_MAX_LIST, &g->exe, &g->n_exe, err);
	if (r < 0)
		return r;
	for (i = 0; i < g->n_exe; i++) {
		r = check_pattern(doc, list_pos(doc, o, "exe", i), "\"exe\"", g->exe[i], err);
		if (r < 0)
			return r;
	}
	r = jv_string_list(doc, o, "sha256", POLICY_MAX_LIST, &hashes, &nh, err);
	if (r < 0)
		return r;
	if (nh) {
		g->sha256 = calloc(nh, sizeof(*g->sha256));
		if (!g->sha256) {
			jv_strv_free(TAKE_PTR(hashes), nh);
			return -ENOMEM;
		}
		for (i = 0; i < nh; i++) {
			if (!is_sha256(hashes[i])) {
				r = jdoc_error(doc, list_pos(doc, o, "sha256", i), err,
					       "\"sha256\" must be 64 lowercase hex digits");
				jv_strv_free(TAKE_PTR(hashes), nh);
				return r;
			}
			memcpy(g->sha256[i], hashes[i], 65);
		}
		g->n_sha256 = nh;
		jv_strv_free(TAKE_PTR(hashes), nh);
	}
	if (!g->n_exe && !g->n_sha256)
		return jdoc_error(doc, pos, err, "a game needs \"exe\" or \"sha256\"");
	return 0;
}

bool policy_operation_valid(const char *name)
{
	int t = event_type_from_string(name);

	return (t > 0 && t < RG_EV__MAX) || verbs_op_from_string(name) >= 0 ||
	       cm_op_from_string(name) >= 0;
}

static int parse_allow(const struct jdoc *doc, struct json_object *o, size_t pos,
		       struct rg_policy_allow *a, struct rg_error *err)
{
	static const char *const keys[] = {"exe",     "sha256",	    "uid",     "parent",
					   "devices", "operations", "expires", "comment",
					   NULL};
	struct json_object *v;
	const char *s;
	char **ops = NULL;
	size_t nops = 0, i;
	int r;

	r = jv_check_object(doc, o, pos, "an allow entry", keys, err);
	if (r < 0)
		return r;
	r = jv_string(doc, o, "exe", true, &s, err);
	if (r < 0)
		return r;
	r = check_pattern(doc, jv_pos(doc, o, "exe", false), "\"exe\"", s, err);
	if (r < 0)
		return r;
	a->exe = strdup(s);
	if (!a->exe)
		return -ENOMEM;
	a->exe_literal = !strpbrk(s, "*?[\\");
	r = jv_string(doc, o, "sha256", false, &s, err);
	if (r < 0)
		return r;
	if (s) {
		if (!is_sha256(s))
			return jdoc_error(doc, jv_pos(doc, o, "sha256", false), err,
					  "\"sha256\" must be 64 lowercase hex digits");
		memcpy(a->sha256, s, 65);
	}
	if (json_object_object_get_ex(o, "uid", &v)) {
		size_t n =
		    json_object_is_type(v, json_type_array) ? json_object_array_length(v) : 1;

		if (!json_object_is_type(v, json_type_array) &&
		    !json_object_is_type(v, json_type_int))
			return jdoc_error(doc, jv_pos(doc, o, "uid", false), err,
					  "\"uid\" must be a number or an array of numbers, not %s",
					  json_type_words(v));
		if (n == 0 || n > POLICY_MAX_LIST)
			return jdoc_error(doc, jv_pos(doc, o, "uid", false), err,
					  "\"uid\" must list 1 to %d uids", POLICY_MAX_LIST);
		a->uids = calloc(n, sizeof(*a->uids));
		if (!a->uids)
			return -ENOMEM;
		for (i = 0; i < n; i++) {
			struct json_object *e = json_object_is_type(v, json_type_array) ?
							json_object_array_get_idx(v, i) : v;
			int64_t x = json_object_get_int64(e);

			if (!json_object_is_type(e, json_type_int) || x < 0 || x > UINT32_MAX - 1)
				return jdoc_error(doc, list_pos(doc, o, "uid", i), err,
						  "\"uid\" must be a number from 0 to 4294967294");
			a->uids[i] = (uint32_t)x;
		}
		a->n_uids = n;
	}
	r = jv_string(doc, o, "parent", false, &s, err);
	if (r < 0)
		return r;
	if (s) {
		r = check_pattern(doc, jv_pos(doc, o, "parent", false), "\"parent\"", s, err);
		if (r < 0)
			return r;
		a->parent = strdup(s);
		if (!a->parent)
			return -ENOMEM;
	}
	r = jv_string_list(doc, o, "devices", POLICY_MAX_LIST, &a->devices, &a->n_devices, err);
	if (r < 0)
		return r;
	for (i = 0; i < a->n_devices; i++)
		if (strlen(a->devices[i]) >= RG_DEVNAME_LEN)
			return jdoc_error(doc, list_pos(doc, o, "devices", i), err,
					  "device name longer than %d bytes", RG_DEVNAME_LEN - 1);
	r = jv_string_list(doc, o, "operations", POLICY_MAX_LIST, &ops, &nops, err);
	if (r < 0)
		return r;
	for (i = 0; i < nops; i++) {
		int t = event_type_from_string(ops[i]), vo = verbs_op_from_string(ops[i]),
		    co = cm_op_from_string(ops[i]);

		if (!policy_operation_valid(ops[i])) {
			r = jdoc_error(doc, list_pos(doc, o, "operations", i), err,
				       "unknown operation \"%s\" (an event action such as "
				       "device_open, a verbs op such as reg_mr, or an rdma_cm op "
				       "such as connect)",
				       ops[i]);
			jv_strv_free(ops, nops);
			return r;
		}
		if (t > 0 && t < RG_EV__MAX)
			a->op_types |= RG_EV_BIT(t);
		if (vo >= 0)
			a->op_verbs |= 1u << vo;
		if (co >= 0)
			a->op_cm |= 1u << co;
	}
	a->has_ops = nops > 0;
	jv_strv_free(ops, nops);
	r = jv_string(doc, o, "expires", false, &s, err);
	if (r < 0)
		return r;
	if (s && parse_expiry(s, &a->expires_ns) < 0)
		return jdoc_error(doc, jv_pos(doc, o, "expires", false), err,
				  "\"expires\" must be a date (2026-12-31) or an RFC 3339 time "
				  "(2026-12-31T18:00:00Z), not \"%s\"", s);
	r = jv_string(doc, o, "comment", false, &s, err);
	if (r < 0)
		return r;
	if (s && !(a->comment = strdup(s)))
		return -ENOMEM;
	jdoc_line_col(doc, pos, &a->line, &a->column);
	return 0;
}

static int parse_override(const struct jdoc *doc, struct json_object *rules, const char *id,
			  struct json_object *o, struct rg_rule_override *ov, struct rg_error *err)
{
	static const char *const keys[] = {"enabled", "severity", "action", "exceptions", NULL};
	size_t pos = jv_pos(doc, rules, id, false);
	const char *s;
	char what[160];
	int r;

	snprintf(what, sizeof(what), "the override of rule %s", id);
	r = jv_check_object(doc, o, pos, what, keys, err);
	if (r < 0)
		return r;
	ov->rule_id = strdup(id);
	if (!ov->rule_id)
		return -ENOMEM;
	jdoc_line_col(doc, jv_pos(doc, rules, id, true), &ov->line, &ov->column);
	ov->severity = ov->action = -1;
	r = jv_bool(doc, o, "enabled", &ov->enabled, err);
	if (r < 0)
		return r;
	r = jv_string(doc, o, "severity", false, &s, err);
	if (r < 0)
		return r;
	if (s && (ov->severity = severity_from_string(s)) < 0)
		return jdoc_error(doc, jv_pos(doc, o, "severity", false), err,
				  "unknown severity \"%s\" (info, low, medium, high, critical)", s);
	r = jv_string(doc, o, "action", false, &s, err);
	if (r < 0)
		return r;
	if (s && (ov->action = action_from_string(s)) < 0)
		return jdoc_error(doc, jv_pos(doc, o, "action", false), err,
				  "unknown action \"%s\" (alert, deny, kill)", s);
	r = jv_exceptions(doc, o, POLICY_MAX_LIST, &ov->exceptions, &ov->n_exceptions, err);
	if (r < 0)
		return r;
	return 0;
}

static int parse_array_of(const struct jdoc *doc, struct json_object *root, const char *key,
			  size_t max, size_t *ret_n, struct json_object **ret)
{
	struct json_object *v;

	*ret = NULL;
	*ret_n = 0;
	if (!json_object_object_get_ex(root, key, &v))
		return 0;
	if (!json_object_is_type(v, json_type_array))
		return 1; /* caller reports */
	if (json_object_array_length(v) > max)
		return 2;
	*ret = v;
	*ret_n = json_object_array_length(v);
	return 0;
}

static int policy_from_doc(const struct jdoc *doc, struct rg_policy **ret, struct rg_error *err)
{
	static const char *const keys[] = {"version",	     "description",  "role",
					   "threshold",	     "games",	     "allow",
					   "rules",	     "mr_max_bytes", "aggregate_window",
					   "enforce",	     "enforce_scope", "outputs",
					   "seat",	     "fleet",	      "hardware",
					   "baseline",      "hardware_enforce",
					   "hardware_refuse_drivers", "hardware_enforce_port",
					   "require_iommu", "metrics", NULL};
	struct json_object *root = jdoc_root(doc), *arr, *v;
	struct rg_policy *p = NULL;
	const char *s;
	uint64_t u;
	bool present;
	size_t n, i;
	int r, b;

	r = policy_new_default(&p);
	if (r < 0)
		return r;
	r = jv_check_object(doc, root, jdoc_value_pos(doc, root), "the policy", keys, err);
	if (r < 0)
		goto fail;
	r = jv_u64(doc, root, "version", UINT64_MAX, &u, &present, err);
	if (r < 0)
		goto fail;
	if (present && u != 1) {
		r = jdoc_error(doc, jv_pos(doc, root, "version", false), err,
			       "unsupported policy version %llu (this agent reads version 1)",
			       (unsigned long long)u);
		goto fail;
	}
	r = jv_string(doc, root, "description", false, &s, err);
	if (r < 0)
		goto fail;
	if (s && !(p->description = strdup(s))) {
		r = -ENOMEM;
		goto fail;
	}
	r = jv_string(doc, root, "role", false, &s, err);
	if (r < 0)
		goto fail;
	if (s) {
		if (strcmp(s, "managed") == 0)
			p->role = RG_ROLE_MANAGED;
		else if (strcmp(s, "server") == 0)
			p->role = RG_ROLE_SERVER;
		else {
			r = jdoc_error(doc, jv_pos(doc, root, "role", false), err,
				       "unknown role \"%s\" (managed or server)", s);
			goto fail;
		}
	}
	r = jv_string(doc, root, "threshold", false, &s, err);
	if (r < 0)
		goto fail;
	if (s && (p->threshold = severity_from_string(s)) < 0) {
		r = jdoc_error(doc, jv_pos(doc, root, "threshold", false), err,
			       "unknown severity \"%s\" (info, low, medium, high, critical)", s);
		goto fail;
	}

	r = parse_array_of(doc, root, "games", POLICY_MAX_GAMES, &n, &arr);
	if (r > 0) {
		json_object_object_get_ex(root, "games", &v);
		r = jdoc_error(doc, jv_pos(doc, root, "games", false), err,
			       r == 1 ? "\"games\" must be an array of games, not %s" :
					"\"games\" has more than " "64" " entries%s",
			       r == 1 ? json_type_words(v) : "");
		goto fail;
	}
	if (n) {
		p->games = calloc(n, sizeof(*p->games));
		if (!p->games) {
			r = -ENOMEM;
			goto fail;
		}
	}
	for (i = 0; i < n; i++) {
		size_t j;

		r = parse_game(doc, json_object_array_get_idx(arr, i),
			       jdoc_element_pos(doc, arr, i), &p->games[i], err);
		p->n_games = i + 1;
		if (r < 0)
			goto fail;
		for (j = 0; j < i; j++)
			if (strcmp(p->games[j].name, p->games[i].name) == 0) {
				r = jdoc_error(
				    doc,
				    jv_pos(doc, json_object_array_get_idx(arr, i), "name", false),
				    err, "duplicate game name \"%s\"", p->games[i].name);
				goto fail;
			}
	}

	r = parse_array_of(doc, root, "allow", POLICY_MAX_ALLOW, &n, &arr);
	if (r > 0) {
		json_object_object_get_ex(root, "allow", &v);
		r = jdoc_error(doc, jv_pos(doc, root, "allow", false), err,
			       r == 1 ? "\"allow\" must be an array of entries, not %s" :
					"\"allow\" has more than 1024 entries%s",
			       r == 1 ? json_type_words(v) : "");
		goto fail;
	}
	if (n) {
		p->allow = calloc(n, sizeof(*p->allow));
		if (!p->allow) {
			r = -ENOMEM;
			goto fail;
		}
	}
	for (i = 0; i < n; i++) {
		r = parse_allow(doc, json_object_array_get_idx(arr, i),
				jdoc_element_pos(doc, arr, i), &p->allow[i], err);
		p->n_allow = i + 1;
		if (r < 0)
			goto fail;
	}

	if (json_object_object_get_ex(root, "rules", &v)) {
		size_t k = 0;

		if (!json_object_is_type(v, json_type_object)) {
			r = jdoc_error(doc, jv_pos(doc, root, "rules", false), err,
				       "\"rules\" must be an object of rule overrides, not %s",
				       json_type_words(v));
			goto fail;
		}
		n = (size_t)json_object_object_length(v);
		if (n) {
			p->overrides = calloc(n, sizeof(*p->overrides));
			if (!p->overrides) {
				r = -ENOMEM;
				goto fail;
			}
		}
		json_object_object_foreach(v, id, ov)
		{
			r = parse_override(doc, v, id, ov, &p->overrides[k], err);
			p->n_overrides = ++k;
			if (r < 0)
				goto fail;
		}
	}
	r = policy_hw_parse(doc, root, p, err);
	if (r < 0)
		goto fail;
	r = jv_u64(doc, root, "mr_max_bytes", UINT64_MAX, &u, &present, err);
	if (r < 0)
		goto fail;
	if (present) {
		if (u == 0) {
			r = jdoc_error(doc, jv_pos(doc, root, "mr_max_bytes", false), err,
				       "\"mr_max_bytes\" must be positive");
			goto fail;
		}
		p->mr_max_bytes = u;
	}
	r = jv_duration(doc, root, "aggregate_window", &u, &present, err);
	if (r < 0)
		goto fail;
	if (present)
		p->aggregate_window_ns = u;
	r = jv_bool(doc, root, "enforce", &b, err);
	if (r < 0)
		goto fail;
	p->enforce = b == 1;
	r = jv_string(doc, root, "enforce_scope", false, &s, err);
	if (r < 0)
		goto fail;
	if (s) {
		if (strcmp(s, "always") == 0)
			p->enforce_scope = RG_ENFORCE_ALWAYS;
		else if (strcmp(s, "while_game") == 0)
			p->enforce_scope = RG_ENFORCE_WHILE_GAME;
		else {
			r = jdoc_error(doc, jv_pos(doc, root, "enforce_scope", false), err,
				       "unknown enforce_scope \"%s\" (always or while_game)", s);
			goto fail;
		}
	}
	r = jv_string(doc, root, "hardware_enforce", false, &s, err);
	if (r < 0)
		goto fail;
	if (s) {
		if (strcmp(s, "off") == 0)
			p->hw_enforce = RG_HW_ENFORCE_OFF;
		else if (strcmp(s, "remove") == 0)
			p->hw_enforce = RG_HW_ENFORCE_REMOVE;
		else if (strcmp(s, "bus_master") == 0)
			p->hw_enforce = RG_HW_ENFORCE_BUS_MASTER;
		else {
			r = jdoc_error(doc, jv_pos(doc, root, "hardware_enforce", false), err,
				       "unknown hardware_enforce \"%s\" (off, remove or bus_master)",
				       s);
			goto fail;
		}
	}
	r = jv_string_list(doc, root, "outputs", POLICY_MAX_LIST, &p->outputs, &p->n_outputs, err);
	if (r < 0)
		goto fail;
	if (p->n_outputs && !(p->outputs_pos = calloc(p->n_outputs, sizeof(*p->outputs_pos)))) {
		r = -ENOMEM;
		goto fail;
	}
	for (size_t k = 0; k < p->n_outputs; k++) {
		struct json_object *outs = json_object_object_get(root, "outputs");
		size_t pos = doc ? jdoc_element_pos(doc, outs, k) : JDOC_NOPOS;

		/* Kept for policy_check_outputs(), which the document does not outlive. */
		if (pos != JDOC_NOPOS)
			jdoc_line_col(doc, pos, &p->outputs_pos[k].line, &p->outputs_pos[k].column);
	}
	r = policy_parse_fleet(doc, root, p, err);
	if (r < 0)
		goto fail;
	if (doc && jdoc_file(doc)[0] && !(p->path = strdup(jdoc_file(doc)))) {
		r = -ENOMEM;
		goto fail;
	}
	*ret = p;
	return 0;
fail:
	policy_free(p);
	return r;
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
