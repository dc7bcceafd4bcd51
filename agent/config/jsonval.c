/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The validating accessors of jsonval.h: keys, strings, lists, booleans, numbers, durations. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "jsonval.h"
#include "common/macro.h"
#include "common/number.h"
#include "common/timestamp.h"

size_t jv_pos(const struct jdoc *doc, struct json_object *obj, const char *key, bool at_key)
{
	return jdoc_member_pos(doc, obj, key, at_key);
}

static unsigned edit_distance(const char *a, const char *b)
{
	unsigned d[32][32];
	size_t la = strlen(a), lb = strlen(b), i, j;

	if (la >= 32 || lb >= 32)
		return 99;
	for (i = 0; i <= la; i++)
		d[i][0] = (unsigned)i;
	for (j = 0; j <= lb; j++)
		d[0][j] = (unsigned)j;
	for (i = 1; i <= la; i++)
		for (j = 1; j <= lb; j++) {
			unsigned c = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
			c = MIN(c, d[i - 1][j] + 1);
			c = MIN(c, d[i][j - 1] + 1);
			d[i][j] = c;
		}
	return d[la][lb];
}

int jv_check_object(const struct jdoc *doc, struct json_object *obj, size_t pos, const char *what,
		    const char *const *allowed, struct rg_error *err)
{
	if (!json_object_is_type(obj, json_type_object))
		return jdoc_error(doc, pos, err, "%s must be an object, not %s", what,
				  json_type_words(obj));
	json_object_object_foreach(obj, key, val)
	{
		const char *best = NULL;
		unsigned bestd = 3;
		size_t i;

		(void)val;
		for (i = 0; allowed[i]; i++) {
			unsigned d;
			if (strcmp(allowed[i], key) == 0)
				break;
			d = edit_distance(allowed[i], key);
			/* A suggestion only for a likely typo, not for any short word. */
			if (d < bestd && d < strlen(key) / 2 + 1) {
				bestd = d;
				best = allowed[i];
			}
		}
		if (allowed[i])
			continue;
		if (best)
			return jdoc_error(doc, jv_pos(doc, obj, key, true), err,
					  "unknown key \"%s\" in %s (did you mean \"%s\"?)", key,
					  what, best);
		return jdoc_error(doc, jv_pos(doc, obj, key, true), err, "unknown key \"%s\" in %s",
				  key, what);
	}
	return 0;
}

static int check_str(const struct jdoc *doc, struct json_object *v, size_t pos, const char *name,
		     struct rg_error *err)
{
	if (!json_object_is_type(v, json_type_string))
		return jdoc_error(doc, pos, err, "%s must be a string, not %s", name,
				  json_type_words(v));
	if ((size_t)json_object_get_string_len(v) != strlen(json_object_get_string(v)))
		return jdoc_error(doc, pos, err, "%s contains a NUL character", name);
	if (json_object_get_string_len(v) == 0)
		return jdoc_error(doc, pos, err, "%s must not be empty", name);
	return 0;
}

int jv_string(const struct jdoc *doc, struct json_object *obj, const char *key, bool required,
	      const char **ret, struct rg_error *err)
{
	struct json_object *v;
	char name[96];
	int r;

	*ret = NULL;
	if (!json_object_object_get_ex(obj, key, &v)) {
		if (required)
			return jdoc_error(doc, jdoc_value_pos(doc, obj), err,
					  "missing required key \"%s\"", key);
		return 0;
	}
	snprintf(name, sizeof(name), "\"%s\"", key);
	r = check_str(doc, v, jv_pos(doc, obj, key, false), name, err);
	if (r < 0)
		return r;
	*ret = json_object_get_string(v);
	return 0;
}

void jv_strv_free(char **v, size_t n)
{
	size_t i;

	for (i = 0; v && i < n; i++)
		free(v[i]);
	free(v);
}

int jv_string_list(const struct jdoc *doc, struct json_object *obj, const char *key, size_t max,
		   char ***ret, size_t *ret_n, struct rg_error *err)
{
	struct json_object *v;
	size_t n, i, vpos = jv_pos(doc, obj, key, false);
	char **out;
	char name[96];
	int r;

	*ret = NULL;
	*ret_n = 0;
	if (!json_object_object_get_ex(obj, key, &v))
		return 0;
	snprintf(name, sizeof(name), "\"%s\"", key);
	if (json_object_is_type(v, json_type_string)) {
		r = check_str(doc, v, vpos, name, err);
		if (r < 0)
			return r;
		out = calloc(1, sizeof(*out));
		if (!out || !(out[0] = strdup(json_object_get_string(v)))) {
			free(out);
			return -ENOMEM;
		}
		*ret = out;
		*ret_n = 1;
		return 0;
	}
	if (!json_object_is_type(v, json_type_array))
		return jdoc_error(doc, vpos, err,
				  "%s must be a string or an array of strings, not %s", name,
				  json_type_words(v));
	n = json_object_array_length(v);
	if (n == 0)
		return jdoc_error(doc, vpos, err, "%s must not be an empty array", name);
	if (n > max)
		return jdoc_error(doc, vpos, err, "%s has more than %zu entries", name, max);
	out = calloc(n, sizeof(*out));
	if (!out)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		struct json_object *e = json_object_array_get_idx(v, i);
		char ename[128];

		snprintf(ename, sizeof(ename), "%s[%zu]", name, i);
		r = check_str(doc, e, jdoc_element_pos(doc, v, i), ename, err);
		if (r < 0) {
			jv_strv_free(out, n);
			return r;
		}
		out[i] = strdup(json_object_get_string(e));
		if (!out[i]) {
			jv_strv_free(out, n);
			return -ENOMEM;
		}
	}
	*ret = out;
	*ret_n = n;
	return 0;
}

int jv_bool(const struct jdoc *doc, struct json_object *obj, const char *key, int *ret,
	    struct rg_error *err)
{
	struct json_object *v;

	*ret = -1;
	if (!json_object_object_get_ex(obj, key, &v))
		return 0;
	if (!json_object_is_type(v, json_type_boolean))
		return jdoc_error(doc, jv_pos(doc, obj, key, false), err,
				  "\"%s\" must be true or false, not %s", key, json_type_words(v));
	*ret = json_object_get_boolean(v) ? 1 : 0;
	return 0;
}

int jv_u64(const struct jdoc *doc, struct json_object *obj, const char *key, uint64_t max,
	   uint64_t *ret, bool *present, struct rg_error *err)
{
	struct json_object *v;
	int64_t i;
	uint64_t u;

	if (present)
		*present = false;
	if (!json_object_object_get_ex(obj, key, &v))
		return 0;
	if (!json_object_is_type(v, json_type_int))
		return jdoc_error(doc, jv_pos(doc, obj, key, false), err,
				  "\"%s\" must be an integer, not %s", key, json_type_words(v));
	i = json_object_get_int64(v);
	if (i < 0)
		return jdoc_error(doc, jv_pos(doc, obj, key, false), err,
				  "\"%s\" must not be negative", key);
	u = i == INT64_MAX ? json_object_get_uint64(v) : (uint64_t)i;
	if (u > max)
		return jdoc_error(doc, jv_pos(doc, obj, key, false), err,
				  "\"%s\" must be at most %llu", key, (unsigned long long)max);
	*ret = u;
	if (present)
		*present = true;
	return 0;
}

int jv_duration(const struct jdoc *doc, struct json_object *obj, const char *key, uint64_t *ret_ns,
		bool *present, struct rg_error *err)
{
	static const struct {
		const char *sfx;
		uint64_t mul;
	} units[] = {{"ms", 1000000ull},	  {"s", 1000000000ull}, {"m", 60000000000ull},
		     {"h", 3600000000000ull}, {"d", 86400000000000ull}};
	const uint64_t max_s = 7ull * 86400; /* a week */
	struct json_object *v;
	size_t pos = jv_pos(doc, obj, key, false), i, nd;
	const char *s;
	uint64_t u;
	char digits[24];

	if (present)
		*present = false;
	if (!json_object_object_get_ex(obj, key, &v))
		return 0;
	if (json_object_is_type(v, json_type_int)) {
		int64_t x = json_object_get_int64(v);
		if (x < 0 || (uint64_t)x > max_s)
			return jdoc_error(doc, pos, err,
					  "\"%s\" must be between 0 and %llu seconds", key,
					  (unsigned long long)max_s);
		*ret_ns = (uint64_t)x * 1000000000ull;
		goto ok;
	}
	if (!json_object_is_type(v, json_type_string))
		return jdoc_error(
		    doc, pos, err,
		    "\"%s\" must be a duration such as \"60s\" or a number of seconds, "
		    "not %s",
		    key, json_type_words(v));
	s = json_object_get_string(v);
	nd = strspn(s, "0123456789");
	if (nd == 0 || nd >= sizeof(digits))
		goto bad;
	memcpy(digits, s, nd);
	digits[nd] = 0;
	if (safe_atou64(digits, 10, &u) < 0)
		goto bad;
	for (i = 0; i < ARRAY_SIZE(units); i++)
		if (strcmp(s + nd, units[i].sfx) == 0) {
			if (u > max_s * 1000000000ull / units[i].mul)
				return jdoc_error(doc, pos, err, "\"%s\" must be at most a week",
						  key);
			*ret_ns = u * units[i].mul;
			goto ok;
		}
bad:
	return jdoc_error(doc, pos, err,
			  "\"%s\": invalid duration \"%s\" (a number with ms, s, m, h or d)", key,
			  s);
ok:
	if (present)
		*present = true;
	return 0;
}

int parse_expiry(const char *s, uint64_t *ret_ns)
{
	struct tm tm = {0};
	unsigned y, mo, d;
	char tail;
	time_t t;

	if (strlen(s) == 10 && sscanf(s, "%4u-%2u-%2u%c", &y, &mo, &d, &tail) == 3) {
		if (y < 1970 || y > 9999 || mo < 1 || mo > 12 || d < 1 || d > 31)
			return -EINVAL;
		tm.tm_year = (int)y - 1900;
		tm.tm_mon = (int)mo - 1;
		tm.tm_mday = (int)d;
		t = timegm(&tm);
		if (t == (time_t)-1 || tm.tm_mday != (int)d) /* 2026-02-30 normalises: refuse */
			return -EINVAL;
		*ret_ns = ((uint64_t)t + 86400) * 1000000000ull;
		return 0;
	}
	return parse_timestamp(s, ret_ns);
}

int jv_expiry(const struct jdoc *doc, struct json_object *obj, const char *key, uint64_t *ret_ns,
	      struct rg_error *err)
{
	const char *s;
	int r = jv_string(doc, obj, key, false, &s, err);

	if (r < 0)
		return r;
	if (s && parse_expiry(s, ret_ns) < 0)
		return jdoc_error(doc, jv_pos(doc, obj, key, false), err,
				  "\"%s\" must be a date (2026-12-31) or an RFC 3339 time "
				  "(2026-12-31T18:00:00Z), not \"%s\"",
				  key, s);
	return 0;
}
