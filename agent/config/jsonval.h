/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Validating accessors over a jdoc: every failure is an rg_error at the offending key or value.
 * Used by the loaders of the policy (policy/), the rules (rules/) and the baseline (hw/).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "jsondoc.h"

/* obj must be an object whose keys are all in allowed (NULL-terminated). what: "policy", "rule". */
int jv_check_object(const struct jdoc *doc, struct json_object *obj, size_t pos, const char *what,
		    const char *const *allowed, struct rg_error *err);
/* Position of obj[key]'s value (at_key false) or key. */
size_t jv_pos(const struct jdoc *doc, struct json_object *obj, const char *key, bool at_key);

/* A non-empty string without NUL bytes. *ret is NULL (and 0 returned) if absent and !required. */
int jv_string(const struct jdoc *doc, struct json_object *obj, const char *key, bool required,
	      const char **ret, struct rg_error *err);
/* A string or an array of strings (each non-empty, no NUL), at most max; strdup'ed. */
int jv_string_list(const struct jdoc *doc, struct json_object *obj, const char *key, size_t max,
		   char ***ret, size_t *ret_n, struct rg_error *err);
void jv_strv_free(char **v, size_t n);
/* true/false: *ret 0/1, or -1 if absent. */
int jv_bool(const struct jdoc *doc, struct json_object *obj, const char *key, int *ret,
	    struct rg_error *err);
/* A non-negative integer no larger than max. *present (may be NULL) tells if it was there. */
int jv_u64(const struct jdoc *doc, struct json_object *obj, const char *key, uint64_t max,
	   uint64_t *ret, bool *present, struct rg_error *err);
/* A duration: integer seconds, or a string "500ms", "30s", "5m", "1h", "1d". */
int jv_duration(const struct jdoc *doc, struct json_object *obj, const char *key, uint64_t *ret_ns,
		bool *present, struct rg_error *err);
/* Parses "2026-12-31" (the end of that day, UTC) or an RFC 3339 time into wall-clock ns. */
int parse_expiry(const char *s, uint64_t *ret_ns);
/* An entry's expiry (parse_expiry()) under key; *ret_ns untouched if absent. */
int jv_expiry(const struct jdoc *doc, struct json_object *obj, const char *key, uint64_t *ret_ns,
	      struct rg_error *err);
