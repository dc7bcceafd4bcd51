/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A policy document's keys (policy.h): each top-level key with its parser and its place in
 * struct rg_policy, and the parsers of the games, allow entries and rule overrides. Errors name
 * the key's FILE:LINE:COLUMN.
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
		return jdoc_error(doc, pos == JDOC_NOPOS ? pos : jdoc_string_pos(doc, pos, off),
				  err, "%s \"%s\": %s", what, pat, why);
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
	static const char *const keys[] = {"exe",	 "sha256",  "uid",     "parent", "devices",
					   "operations", "expires", "comment", NULL};
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
			struct json_object *e = json_object_is_type(v, json_type_array)
						    ? json_object_array_get_idx(v, i)
						    : v;
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
	r = jv_expiry(doc, o, "expires", &a->expires_ns, err);
	if (r < 0)
		return r;
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

/*
 * The policy's top-level keys, in the manner of systemd's conf-parser: each key (or group of
 * keys one parser reads) with its parser and the place in struct rg_policy it fills. The
 * parsers run in the table's order; the first error stops the parse.
 */
struct policy_key;
typedef int (*policy_key_fn)(const struct jdoc *doc, struct json_object *root,
			     const struct policy_key *k, struct rg_policy *p, struct rg_error *err);

struct policy_key {
	const char *key;
	policy_key_fn parse;
	size_t offset; /* of the field in struct rg_policy, for the parsers that take one */
	const void *arg;
};

#define POLICY_FIELD(p, k, type) ((type *)((char *)(p) + (k)->offset))

/* A string key with a fixed set of values, into an int field. */
struct policy_enum {
	const char *names[4];
	int values[4];
	const char *choices; /* for the message */
};

static int pk_version(const struct jdoc *doc, struct json_object *root, const struct policy_key *k,
		      struct rg_policy *p, struct rg_error *err)
{
	bool present;
	uint64_t u;
	int r = jv_u64(doc, root, k->key, UINT64_MAX, &u, &present, err);

	if (r < 0)
		return r;
	if (present && u != 1)
		return jdoc_error(doc, jv_pos(doc, root, k->key, false), err,
				  "unsupported policy version %llu (this agent reads version 1)",
				  (unsigned long long)u);
	return 0;
}

static int pk_strdup(const struct jdoc *doc, struct json_object *root, const struct policy_key *k,
		     struct rg_policy *p, struct rg_error *err)
{
	const char *s;
	int r = jv_string(doc, root, k->key, false, &s, err);

	if (r < 0)
		return r;
	if (s && !(*POLICY_FIELD(p, k, char *) = strdup(s)))
		return -ENOMEM;
	return 0;
}

static int pk_enum(const struct jdoc *doc, struct json_object *root, const struct policy_key *k,
		   struct rg_policy *p, struct rg_error *err)
{
	const struct policy_enum *e = k->arg;
	const char *s;
	int r = jv_string(doc, root, k->key, false, &s, err);

	if (r < 0 || !s)
		return r;
	for (size_t i = 0; i < ARRAY_SIZE(e->names) && e->names[i]; i++)
		if (strcmp(s, e->names[i]) == 0) {
			*POLICY_FIELD(p, k, int) = e->values[i];
			return 0;
		}
	return jdoc_error(doc, jv_pos(doc, root, k->key, false), err, "unknown %s \"%s\" (%s)",
			  k->key, s, e->choices);
}

static int pk_severity(const struct jdoc *doc, struct json_object *root, const struct policy_key *k,
		       struct rg_policy *p, struct rg_error *err)
{
	int *field = POLICY_FIELD(p, k, int);
	const char *s;
	int r = jv_string(doc, root, k->key, false, &s, err);

	if (r < 0)
		return r;
	if (s && (*field = severity_from_string(s)) < 0)
		return jdoc_error(doc, jv_pos(doc, root, k->key, false), err,
				  "unknown severity \"%s\" (info, low, medium, high, critical)", s);
	return 0;
}

static int pk_positive_u64(const struct jdoc *doc, struct json_object *root,
			   const struct policy_key *k, struct rg_policy *p, struct rg_error *err)
{
	bool present;
	uint64_t u;
	int r = jv_u64(doc, root, k->key, UINT64_MAX, &u, &present, err);

	if (r < 0 || !present)
		return r;
	if (u == 0)
		return jdoc_error(doc, jv_pos(doc, root, k->key, false), err,
				  "\"%s\" must be positive", k->key);
	*POLICY_FIELD(p, k, uint64_t) = u;
	return 0;
}

static int pk_duration(const struct jdoc *doc, struct json_object *root, const struct policy_key *k,
		       struct rg_policy *p, struct rg_error *err)
{
	bool present;
	uint64_t u;
	int r = jv_duration(doc, root, k->key, &u, &present, err);

	if (r < 0)
		return r;
	if (present)
		*POLICY_FIELD(p, k, uint64_t) = u;
	return 0;
}

static int pk_bool(const struct jdoc *doc, struct json_object *root, const struct policy_key *k,
		   struct rg_policy *p, struct rg_error *err)
{
	int b, r = jv_bool(doc, root, k->key, &b, err);

	if (r < 0)
		return r;
	*POLICY_FIELD(p, k, bool) = b == 1;
	return 0;
}

/* The array at key (none: *ret_n 0), of at most max entries, each one of what ("games"). */
static int array_key(const struct jdoc *doc, struct json_object *root, const char *key, size_t max,
		     const char *what, size_t *ret_n, struct json_object **ret, struct rg_error *err)
{
	struct json_object *v;
	int r = parse_array_of(doc, root, key, max, ret_n, ret);

	if (r == 0)
		return 0;
	json_object_object_get_ex(root, key, &v);
	if (r == 1)
		return jdoc_error(doc, jv_pos(doc, root, key, false), err,
				  "\"%s\" must be an array of %s, not %s", key, what,
				  json_type_words(v));
	return jdoc_error(doc, jv_pos(doc, root, key, false), err,
			  "\"%s\" has more than %zu entries", key, max);
}

static int pk_games(const struct jdoc *doc, struct json_object *root, const struct policy_key *k,
		    struct rg_policy *p, struct rg_error *err)
{
	struct json_object *arr;
	size_t n;
	int r = array_key(doc, root, k->key, POLICY_MAX_GAMES, "games", &n, &arr, err);

	if (r < 0)
		return r;
	if (n && !(p->games = calloc(n, sizeof(*p->games))))
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		r = parse_game(doc, json_object_array_get_idx(arr, i),
			       jdoc_element_pos(doc, arr, i), &p->games[i], err);
		p->n_games = i + 1;
		if (r < 0)
			return r;
		for (size_t j = 0; j < i; j++)
			if (strcmp(p->games[j].name, p->games[i].name) == 0)
				return jdoc_error(
				    doc,
				    jv_pos(doc, json_object_array_get_idx(arr, i), "name", false),
				    err, "duplicate game name \"%s\"", p->games[i].name);
	}
	return 0;
}

static int pk_allow(const struct jdoc *doc, struct json_object *root, const struct policy_key *k,
		    struct rg_policy *p, struct rg_error *err)
{
	struct json_object *arr;
	size_t n;
	int r = array_key(doc, root, k->key, POLICY_MAX_ALLOW, "entries", &n, &arr, err);

	if (r < 0)
		return r;
	if (n && !(p->allow = calloc(n, sizeof(*p->allow))))
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		r = parse_allow(doc, json_object_array_get_idx(arr, i),
				jdoc_element_pos(doc, arr, i), &p->allow[i], err);
		p->n_allow = i + 1;
		if (r < 0)
			return r;
	}
	return 0;
}

static int pk_rules(const struct jdoc *doc, struct json_object *root, const struct policy_key *k,
		    struct rg_policy *p, struct rg_error *err)
{
	struct json_object *v;
	size_t n, i = 0;
	int r;

	if (!json_object_object_get_ex(root, k->key, &v))
		return 0;
	if (!json_object_is_type(v, json_type_object))
		return jdoc_error(doc, jv_pos(doc, root, k->key, false), err,
				  "\"rules\" must be an object of rule overrides, not %s",
				  json_type_words(v));
	n = (size_t)json_object_object_length(v);
	if (n && !(p->overrides = calloc(n, sizeof(*p->overrides))))
		return -ENOMEM;
	json_object_object_foreach(v, id, ov)
	{
		r = parse_override(doc, v, id, ov, &p->overrides[i], err);
		p->n_overrides = ++i;
		if (r < 0)
			return r;
	}
	return 0;
}

static int pk_outputs(const struct jdoc *doc, struct json_object *root, const struct policy_key *k,
		      struct rg_policy *p, struct rg_error *err)
{
	struct json_object *outs;
	int r = jv_string_list(doc, root, k->key, POLICY_MAX_LIST, &p->outputs, &p->n_outputs, err);

	if (r < 0)
		return r;
	if (p->n_outputs && !(p->outputs_pos = calloc(p->n_outputs, sizeof(*p->outputs_pos))))
		return -ENOMEM;
	outs = json_object_object_get(root, k->key);
	for (size_t i = 0; i < p->n_outputs; i++) {
		size_t pos = doc ? jdoc_element_pos(doc, outs, i) : JDOC_NOPOS;

		/* Kept for policy_check_outputs(), which the document does not outlive. */
		if (pos != JDOC_NOPOS)
			jdoc_line_col(doc, pos, &p->outputs_pos[i].line, &p->outputs_pos[i].column);
	}
	return 0;
}

/* The hardware keys: policy_hw.c */
static int pk_hardware(const struct jdoc *doc, struct json_object *root, const struct policy_key *k,
		       struct rg_policy *p, struct rg_error *err)
{
	return policy_hw_parse(doc, root, p, err);
}

/* The seat and the fleet: policy_fleet.c */
static int pk_fleet(const struct jdoc *doc, struct json_object *root, const struct policy_key *k,
		    struct rg_policy *p, struct rg_error *err)
{
	return policy_parse_fleet(doc, root, p, err);
}

static const struct policy_enum policy_roles = {
    {"managed", "server"}, {RG_ROLE_MANAGED, RG_ROLE_SERVER}, "managed or server"};
static const struct policy_enum policy_scopes = {
    {"always", "while_game"}, {RG_ENFORCE_ALWAYS, RG_ENFORCE_WHILE_GAME}, "always or while_game"};
static const struct policy_enum policy_hw_modes = {
    {"off", "remove", "bus_master"},
    {RG_HW_ENFORCE_OFF, RG_HW_ENFORCE_REMOVE, RG_HW_ENFORCE_BUS_MASTER},
    "off, remove or bus_master"};

#define POLICY_AT(f) offsetof(struct rg_policy, f)

static const struct policy_key policy_keys[] = {
    {"version", pk_version, 0, NULL},
    {"description", pk_strdup, POLICY_AT(description), NULL},
    {"role", pk_enum, POLICY_AT(role), &policy_roles},
    {"threshold", pk_severity, POLICY_AT(threshold), NULL},
    {"games", pk_games, 0, NULL},
    {"allow", pk_allow, 0, NULL},
    {"rules", pk_rules, 0, NULL},
    {"hardware", pk_hardware, 0, NULL}, /* and the other hardware keys */
    {"mr_max_bytes", pk_positive_u64, POLICY_AT(mr_max_bytes), NULL},
    {"aggregate_window", pk_duration, POLICY_AT(aggregate_window_ns), NULL},
    {"enforce", pk_bool, POLICY_AT(enforce), NULL},
    {"enforce_scope", pk_enum, POLICY_AT(enforce_scope), &policy_scopes},
    {"hardware_enforce", pk_enum, POLICY_AT(hw_enforce), &policy_hw_modes},
    {"outputs", pk_outputs, 0, NULL},
    {"seat", pk_fleet, 0, NULL}, /* and "fleet" */
};

int policy_keys_parse(const struct jdoc *doc, struct rg_policy *p, struct rg_error *err)
{
	/* Every key a policy may have; in this order, for the "did you mean" of a typo. */
	static const char *const keys[] = {"version",
					   "description",
					   "role",
					   "threshold",
					   "games",
					   "allow",
					   "rules",
					   "mr_max_bytes",
					   "aggregate_window",
					   "enforce",
					   "enforce_scope",
					   "outputs",
					   "seat",
					   "fleet",
					   "hardware",
					   "baseline",
					   "hardware_enforce",
					   "hardware_refuse_drivers",
					   "hardware_enforce_port",
					   "require_iommu",
					   "metrics",
					   NULL};
	struct json_object *root = jdoc_root(doc);
	int r;

	r = jv_check_object(doc, root, jdoc_value_pos(doc, root), "the policy", keys, err);
	for (size_t i = 0; r >= 0 && i < ARRAY_SIZE(policy_keys); i++)
		r = policy_keys[i].parse(doc, root, &policy_keys[i], p, err);
	return r;
}
