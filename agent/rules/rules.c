/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Rule files (rules.h): loading a directory of them, each rule checked and compiled (its
 * conditions, message template and aggregation fields), and rendering a rule's message.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "cond.h"
#include "cond_json.h"
#include "config/jsonval.h"
#include "rules.h"
#include "config/trust.h"
#include "common/macro.h"
#include "common/strutil.h"

/* A message template: literal text with {field} references ("{{" is a literal brace). */
#define TMPL_ALTS 6

struct tmpl_seg {
	char *lit;
	struct field_ref *field[TMPL_ALTS]; /* {a|b}: the first the event has */
};

struct tmpl {
	char *text;
	struct tmpl_seg *segs;
	size_t n;
};

static void tmpl_free(struct tmpl *t)
{
	size_t i;

	if (!t)
		return;
	for (i = 0; i < t->n; i++) {
		free(t->segs[i].lit);
		for (size_t k = 0; k < TMPL_ALTS; k++)
			field_ref_free(t->segs[i].field[k]);
	}
	free(t->segs);
	free(t->text);
	free(t);
}

/* Takes lit and the n refs of f. */
static int tmpl_add(struct tmpl *t, char *lit, struct field_ref **f, size_t n)
{
	struct tmpl_seg *ns = realloc(t->segs, (t->n + 1) * sizeof(*ns));
	size_t k;

	if (!ns) {
		free(lit);
		for (k = 0; k < n; k++)
			field_ref_free(f[k]);
		return -ENOMEM;
	}
	t->segs = ns;
	memset(&t->segs[t->n], 0, sizeof(t->segs[t->n]));
	t->segs[t->n].lit = lit;
	for (k = 0; k < n; k++)
		t->segs[t->n].field[k] = f[k];
	t->n++;
	return 0;
}

static int tmpl_compile(const struct jdoc *doc, const char *s, size_t vpos, struct tmpl **ret,
			struct rg_error *err)
{
	struct tmpl *t = calloc(1, sizeof(*t));
	size_t i = 0, n = strlen(s);
	char *lit = NULL;
	size_t litn = 0;
	int r;

	if (!t)
		return -ENOMEM;
	t->text = strdup(s);
	lit = malloc(n + 1);
	if (!t->text || !lit) {
		free(lit);
		tmpl_free(t);
		return -ENOMEM;
	}
	while (i < n) {
		if ((s[i] == '{' && s[i + 1] == '{') || (s[i] == '}' && s[i + 1] == '}')) {
			lit[litn++] = s[i];
			i += 2;
			continue;
		}
		if (s[i] == '}') {
			r = jdoc_error(doc, jdoc_string_pos(doc, vpos, i), err,
				       "unmatched '}' in message (write '}}' for a brace)");
			goto fail;
		}
		if (s[i] == '{') {
			const char *end = strchr(s + i, '}'), *q;
			struct field_ref *f[TMPL_ALTS] = {0};
			size_t nf = 0, k;
			char name[128], msg[200];

			if (!end || end == s + i + 1) {
				r = jdoc_error(
				    doc, jdoc_string_pos(doc, vpos, i), err,
				    "'{' must be followed by a field name and '}' (write "
				    "'{{' for a brace)");
				goto fail;
			}
			for (q = s + i + 1; q < end; q += strlen(name) + 1) {
				const char *bar = memchr(q, '|', (size_t)(end - q));
				size_t l = (size_t)((bar ? bar : end) - q);

				if (l >= sizeof(name) || nf == TMPL_ALTS) {
					r = jdoc_error(
					    doc, jdoc_string_pos(doc, vpos, (size_t)(q - s)), err,
					    "field name too long or more than %d "
					    "alternatives in message",
					    TMPL_ALTS);
					goto fail_f;
				}
				memcpy(name, q, l);
				name[l] = 0;
				r = field_ref_new(name, &f[nf], msg, sizeof(msg));
				if (r == -EINVAL)
					r = jdoc_error(doc,
						       jdoc_string_pos(doc, vpos, (size_t)(q - s)),
						       err, "%s in message", msg);
				if (r < 0)
					goto fail_f;
				nf++;
			}
			lit[litn] = 0;
			r = tmpl_add(t, litn ? strdup(lit) : NULL, f, nf);
			if (r < 0)
				goto fail;
			litn = 0;
			i = (size_t)(end - s) + 1;
			continue;
fail_f:
			for (k = 0; k < nf; k++)
				field_ref_free(f[k]);
			goto fail;
		}
		lit[litn++] = s[i++];
	}
	if (litn) {
		lit[litn] = 0;
		r = tmpl_add(t, strdup(lit), NULL, 0);
		if (r < 0)
			goto fail;
	}
	free(lit);
	*ret = t;
	return 0;
fail:
	free(lit);
	tmpl_free(t);
	return r;
}

/* A template without fields (the rule's name when it has no message). */
static int tmpl_literal(const char *s, struct tmpl **ret)
{
	struct tmpl *t = calloc(1, sizeof(*t));
	int r;

	if (!t)
		return -ENOMEM;
	t->text = strdup(s);
	if (!t->text) {
		tmpl_free(t);
		return -ENOMEM;
	}
	r = tmpl_add(t, strdup(s), NULL, 0);
	if (r < 0 || !t->segs[0].lit) {
		tmpl_free(t);
		return -ENOMEM;
	}
	*ret = t;
	return 0;
}

void rule_render_message(const struct rg_rule *rule, struct cond_ctx *ctx, char *buf, size_t size)
{
	size_t off = 0, i;

	if (!size)
		return;
	buf[0] = 0;
	for (i = 0; rule->message && i < rule->message->n && off + 1 < size; i++) {
		const struct tmpl_seg *sg = &rule->message->segs[i];

		if (sg->lit) {
			(void)strscpy_ok(buf + off, sg->lit, size - off);
			off += strlen(buf + off);
		}
		for (size_t k = 0; k < TMPL_ALTS && sg->field[k] && off + 1 < size; k++) {
			/* The first alternative the event has; "?" if none. */
			if (field_ref_format(sg->field[k], ctx, buf + off, size - off) ||
			    k + 1 == TMPL_ALTS || !sg->field[k + 1]) {
				off += strlen(buf + off);
				break;
			}
		}
	}
}

const char *rule_message_text(const struct rg_rule *rule)
{
	return rule->message ? rule->message->text : "";
}

static void rule_done(struct rg_rule *r)
{
	size_t i;

	free(r->id);
	free(r->name);
	free(r->description);
	jv_strv_free(r->tags, r->n_tags);
	if (r->threat) {
		free(r->threat->tactic_id);
		free(r->threat->tactic_name);
		free(r->threat->technique_id);
		free(r->threat->technique_name);
		free(r->threat);
	}
	cond_free(r->cond);
	for (i = 0; i < r->n_exceptions; i++)
		cond_free(r->exceptions[i]);
	free(r->exceptions);
	for (i = 0; i < r->n_sev_when; i++)
		cond_free(r->sev_when[i].cond);
	free(r->sev_when);
	tmpl_free(r->message);
	for (i = 0; i < r->n_agg_by; i++)
		field_ref_free(r->agg_by[i]);
	free(r->agg_by);
	free(r->file);
}

int ruleset_new(struct rg_ruleset **ret)
{
	*ret = calloc(1, sizeof(**ret));
	return *ret ? 0 : -ENOMEM;
}

void ruleset_free(struct rg_ruleset *set)
{
	size_t i;

	if (!set)
		return;
	for (i = 0; i < set->n; i++)
		rule_done(&set->rules[i]);
	free(set->rules);
	free(set->dir);
	free(set);
}

const struct rg_rule *ruleset_find(const struct rg_ruleset *set, const char *id)
{
	size_t i;

	for (i = 0; i < set->n; i++)
		if (strcmp(set->rules[i].id, id) == 0)
			return &set->rules[i];
	return NULL;
}

static bool valid_id(const char *s)
{
	size_t i, n = strlen(s);

	if (n == 0 || n > 32)
		return false;
	for (i = 0; i < n; i++)
		if (!((s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= 'a' && s[i] <= 'z') ||
		      (s[i] >= '0' && s[i] <= '9') || s[i] == '-' || s[i] == '_' || s[i] == '.'))
			return false;
	return true;
}

static int dup_opt(const char *s, char **ret)
{
	*ret = NULL;
	if (!s)
		return 0;
	*ret = strdup(s);
	return *ret ? 0 : -ENOMEM;
}

static int parse_threat(const struct jdoc *doc, struct json_object *o, size_t pos,
			struct rg_rule_threat **ret, struct rg_error *err)
{
	static const char *const keys[] = {"tactic", "technique", NULL};
	static const char *const idname[] = {"id", "name", NULL};
	struct rg_rule_threat *t;
	const char *id, *name;
	struct json_object *v;
	int r, k;

	r = jv_check_object(doc, o, pos, "\"threat\"", keys, err);
	if (r < 0)
		return r;
	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	*ret = t;
	for (k = 0; k < 2; k++) {
		const char *key = k ? "technique" : "tactic";
		char what[32];

		if (!json_object_object_get_ex(o, key, &v))
			return jdoc_error(doc, pos, err, "\"threat\" needs \"%s\"", key);
		snprintf(what, sizeof(what), "\"%s\"", key);
		r = jv_check_object(doc, v, jv_pos(doc, o, key, false), what, idname, err);
		if (r < 0)
			return r;
		r = jv_string(doc, v, "id", true, &id, err);
		if (r < 0)
			return r;
		r = jv_string(doc, v, "name", true, &name, err);
		if (r < 0)
			return r;
		if ((k == 0 && !(startswith(id, "TA") && strlen(id) == 6)) ||
		    (k == 1 && !(id[0] == 'T' && id[1] >= '0' && id[1] <= '9')))
			return jdoc_error(doc, jv_pos(doc, v, "id", false), err,
					  "\"%s\" is not a MITRE ATT&CK %s id (%s)", id, key,
					  k ? "T1234 or T1234.001" : "TA0001");
		r = dup_opt(id, k ? &t->technique_id : &t->tactic_id);
		if (r >= 0)
			r = dup_opt(name, k ? &t->technique_name : &t->tactic_name);
		if (r < 0)
			return r;
	}
	return 0;
}

static int parse_aggregate(const struct jdoc *doc, struct json_object *o, struct json_object *v,
			   struct rg_rule *rule, struct rg_error *err)
{
	static const char *const keys[] = {"by", "window", NULL};
	size_t pos = jv_pos(doc, o, "aggregate", false), i;
	char **by = NULL;
	size_t nby = 0;
	bool present;
	int r;

	if (json_object_is_type(v, json_type_boolean)) {
		rule->aggregate = json_object_get_boolean(v);
		return 0;
	}
	r = jv_check_object(doc, v, pos, "\"aggregate\"", keys, err);
	if (r < 0)
		return r;
	r = jv_string_list(doc, v, "by", RULE_MAX_AGG_BY, &by, &nby, err);
	if (r < 0)
		return r;
	rule->agg_by = calloc(nby ? nby : 1, sizeof(*rule->agg_by));
	if (!rule->agg_by) {
		jv_strv_free(by, nby);
		return -ENOMEM;
	}
	for (i = 0; i < nby; i++) {
		char msg[200];
		struct json_object *bv;
		size_t bpos;

		json_object_object_get_ex(v, "by", &bv);
		bpos = json_object_is_type(bv, json_type_array) ? jdoc_element_pos(doc, bv, i) :
								  jv_pos(doc, v, "by", false);
		r = field_ref_new(by[i], &rule->agg_by[i], msg, sizeof(msg));
		if (r == -EINVAL)
			r = jdoc_error(doc, bpos, err, "%s in \"aggregate.by\"", msg);
		if (r < 0) {
			jv_strv_free(by, nby);
			return r;
		}
		rule->n_agg_by++;
	}
	jv_strv_free(by, nby);
	r = jv_duration(doc, v, "window", &rule->window_ns, &present, err);
	if (r < 0)
		return r;
	if (present && rule->window_ns == 0)
		rule->aggregate = false;
	return 0;
}

static int parse_rule(const struct jdoc *doc, struct json_object *o, size_t pos,
		      struct rg_rule *rule, struct rg_error *err)
{
	static const char *const keys[] = {"id",	  "name",	   "description",
					   "severity",	  "tags",	   "threat",
					   "condition",	  "exceptions",	   "severity_when",
					   "message",	  "aggregate",	   "action",
					   "enabled",	  NULL};
	struct json_object *v;
	const char *s;
	int r, b;
	size_t i, n;

	r = jv_check_object(doc, o, pos, "a rule", keys, err);
	if (r < 0)
		return r;
	rule->aggregate = true;
	rule->enabled = true;
	jdoc_line_col(doc, pos, &rule->line, &rule->column);
	rule->file = strdup(jdoc_file(doc));
	if (!rule->file)
		return -ENOMEM;
	r = jv_string(doc, o, "id", true, &s, err);
	if (r < 0)
		return r;
	if (!valid_id(s))
		return jdoc_error(doc, jv_pos(doc, o, "id", false), err,
				  "rule id \"%s\" must be 1 to 32 letters, digits, '-', '_' or '.'",
				  s);
	r = dup_opt(s, &rule->id);
	if (r < 0)
		return r;
	r = jv_string(doc, o, "name", true, &s, err);
	if (r < 0 || (r = dup_opt(s, &rule->name)) < 0)
		return r;
	r = jv_string(doc, o, "description", false, &s, err);
	if (r < 0 || (r = dup_opt(s, &rule->description)) < 0)
		return r;
	r = jv_string(doc, o, "severity", true, &s, err);
	if (r < 0)
		return r;
	rule->severity = severity_from_string(s);
	if (rule->severity < 0)
		return jdoc_error(doc, jv_pos(doc, o, "severity", false), err,
				  "unknown severity \"%s\" (info, low, medium, high, critical)", s);
	r = jv_string_list(doc, o, "tags", RULE_MAX_TAGS, &rule->tags, &rule->n_tags, err);
	if (r < 0)
		return r;
	if (json_object_object_get_ex(o, "threat", &v)) {
		r = parse_threat(doc, v, jv_pos(doc, o, "threat", false), &rule->threat, err);
		if (r < 0)
			return r;
	}
	if (!json_object_object_get_ex(o, "condition", &v))
		return jdoc_error(doc, pos, err, "missing required key \"condition\"");
	r = jv_cond(doc, v, jv_pos(doc, o, "condition", false), &rule->cond, err);
	if (r < 0)
		return r;
	r = jv_exceptions(doc, o, RULE_MAX_EXCEPTIONS, &rule->exceptions, &rule->n_exceptions, err);
	if (r < 0)
		return r;
	if (json_object_object_get_ex(o, "severity_when", &v)) {
		static const char *const swkeys[] = {"condition", "severity", NULL};
		size_t vpos = jv_pos(doc, o, "severity_when", false);

		if (!json_object_is_type(v, json_type_array))
			return jdoc_error(doc, vpos, err,
					  "\"severity_when\" must be an array, not %s",
					  json_type_words(v));
		n = json_object_array_length(v);
		if (n > 16)
			return jdoc_error(doc, vpos, err, "more than 16 \"severity_when\" entries");
		rule->sev_when = calloc(n ? n : 1, sizeof(*rule->sev_when));
		if (!rule->sev_when)
			return -ENOMEM;
		for (i = 0; i < n; i++) {
			struct json_object *e = json_object_array_get_idx(v, i), *c;
			size_t epos = jdoc_element_pos(doc, v, i);

			r = jv_check_object(doc, e, epos, "a \"severity_when\" entry", swkeys, err);
			if (r < 0)
				return r;
			r = jv_string(doc, e, "severity", true, &s, err);
			if (r < 0)
				return r;
			rule->sev_when[i].severity = severity_from_string(s);
			if (rule->sev_when[i].severity < 0)
				return jdoc_error(
				    doc, jv_pos(doc, e, "severity", false), err,
				    "unknown severity \"%s\" (info, low, medium, high, "
				    "critical)",
				    s);
			if (!json_object_object_get_ex(e, "condition", &c))
				return jdoc_error(doc, epos, err,
						  "missing required key \"condition\"");
			r = jv_cond(doc, c, jv_pos(doc, e, "condition", false),
				    &rule->sev_when[i].cond, err);
			if (r < 0)
				return r;
			rule->n_sev_when++;
		}
	}
	r = jv_string(doc, o, "message", false, &s, err);
	if (r < 0)
		return r;
	if (s)
		r = tmpl_compile(doc, s, jv_pos(doc, o, "message", false), &rule->message, err);
	else
		r = tmpl_literal(rule->name, &rule->message);
	if (r < 0)
		return r;
	if (json_object_object_get_ex(o, "aggregate", &v)) {
		r = parse_aggregate(doc, o, v, rule, err);
		if (r < 0)
			return r;
	}
	r = jv_string(doc, o, "action", false, &s, err);
	if (r < 0)
		return r;
	if (s && (rule->action = action_from_string(s)) < 0)
		return jdoc_error(doc, jv_pos(doc, o, "action", false), err,
				  "unknown action \"%s\" (alert, deny, kill)", s);
	r = jv_bool(doc, o, "enabled", &b, err);
	if (r < 0)
		return r;
	if (b == 0)
		rule->enabled = false;
	return 0;
}

static int add_rule(struct rg_ruleset *set, const struct jdoc *doc, struct json_object *o,
		    size_t pos, struct rg_error *err)
{
	struct rg_rule *nr, *rule;
	const struct rg_rule *dup;
	int r;

	if (set->n >= RULES_MAX)
		return jdoc_error(doc, pos, err, "more than %d rules", RULES_MAX);
	nr = realloc(set->rules, (set->n + 1) * sizeof(*nr));
	if (!nr)
		return -ENOMEM;
	set->rules = nr;
	rule = &set->rules[set->n];
	memset(rule, 0, sizeof(*rule));
	r = parse_rule(doc, o, pos, rule, err);
	if (r < 0) {
		rule_done(rule);
		return r;
	}
	dup = ruleset_find(set, rule->id);
	if (dup) {
		r = jdoc_error(doc, jv_pos(doc, o, "id", false), err,
			       "duplicate rule id \"%s\" (first defined at %s:%u:%u)", rule->id,
			       dup->file, dup->line, dup->column);
		rule_done(rule);
		return r;
	}
	set->n++;
	return 0;
}

static int rules_from_doc(struct rg_ruleset *set, const struct jdoc *doc, struct rg_error *err)
{
	struct json_object *root = jdoc_root(doc);
	size_t i, n;
	int r;

	if (json_object_is_type(root, json_type_object))
		return add_rule(set, doc, root, jdoc_value_pos(doc, root), err);
	if (!json_object_is_type(root, json_type_array))
		return jdoc_error(doc, jdoc_value_pos(doc, root), err,
				  "a rules file holds a rule object or an array of rules, not %s",
				  json_type_words(root));
	n = json_object_array_length(root);
	for (i = 0; i < n; i++) {
		r = add_rule(set, doc, json_object_array_get_idx(root, i),
			     jdoc_element_pos(doc, root, i), err);
		if (r < 0)
			return r;
	}
	return 0;
}

int rules_parse(struct rg_ruleset *set, const char *file, const char *text, size_t len,
		struct rg_error *err)
{
	struct jdoc *doc;
	int r;

	r = jdoc_parse(file, text, len, &doc, err);
	if (r < 0)
		return r;
	r = rules_from_doc(set, doc, err);
	jdoc_free(doc);
	return r;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int rules_load_dir(const char *dir, bool check_owner, struct rg_ruleset **ret,
		   struct rg_error *err)
{
	struct rg_ruleset *set = NULL;
	char **names = NULL;
	size_t n = 0, i;
	struct dirent *de;
	DIR *d;
	int r = 0, dfd;

	dfd = trust_open_dir(dir, check_owner, err);
	if (dfd < 0)
		return dfd;
	d = fdopendir(dfd);
	if (!d) {
		r = -errno;
		close(dfd);
		rg_error_set(err, dir, 0, 0, "cannot open rules directory: %s", strerror(-r));
		return r;
	}
	names = calloc(RULES_MAX_FILES, sizeof(*names));
	if (!names) {
		closedir(d);
		return -ENOMEM;
	}
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' || !endswith(de->d_name, ".json"))
			continue;
		if (n >= RULES_MAX_FILES) {
			r = rg_error_set(err, dir, 0, 0, "more than %d rule files",
					 RULES_MAX_FILES);
			goto out;
		}
		names[n] = strdup(de->d_name);
		if (!names[n]) {
			r = -ENOMEM;
			goto out;
		}
		n++;
	}
	qsort(names, n, sizeof(*names), cmp_str);
	r = ruleset_new(&set);
	if (r < 0)
		goto out;
	set->dir = strdup(dir);
	if (!set->dir) {
		r = -ENOMEM;
		goto out;
	}
	for (i = 0; i < n; i++) {
		_cleanup_free_ char *path = NULL;
		struct jdoc *doc;

		if (asprintf(&path, "%s/%s", dir, names[i]) < 0) {
			r = -ENOMEM;
			goto out;
		}
		r = jdoc_loadat(dirfd(d), names[i], path, check_owner, &doc, err);
		if (r < 0)
			goto out;
		r = rules_from_doc(set, doc, err);
		jdoc_free(doc);
		if (r < 0)
			goto out;
	}
	if (set->n == 0) {
		r = rg_error_set(err, dir, 0, 0, "no rules found (*.json files)");
		goto out;
	}
	*ret = TAKE_PTR(set);
out:
	closedir(d);
	jv_strv_free(names, n);
	ruleset_free(set);
	return r;
}

/*
 * The source tree's rules/ only for a binary of the build tree that knows it (a build configured
 * with -Duninstalled_rules=true, the default; packages turn it off, so that no source path is in
 * the binary) and only while it runs from there: an installed copy never falls back, and says
 * that the installed directory is missing instead.
 */
const char *rules_default_dir(void)
{
#ifdef RG_SOURCE_RULESDIR
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n > 0 && (size_t)n < sizeof(exe) - 1) {
		exe[n] = 0;
		if (startswith(exe, RG_BUILD_ROOT "/"))
			return RG_SOURCE_RULESDIR;
	}
#endif
	return RG_RULESDIR;
}
