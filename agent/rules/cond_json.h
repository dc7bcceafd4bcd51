/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Conditions in policy and rule files (cond_json.c): the jsonval.h accessors' kind, for the
 * "condition" and "exceptions" keys. Engine-internal.
 */
#pragma once

#include <stddef.h>

#include "config/jsondoc.h"

struct cond;

/*
 * A condition: a string, or an array of strings joined with spaces. vpos is the value's position.
 * Compile errors point into the string (escapes accounted for).
 */
int jv_cond(const struct jdoc *doc, struct json_object *v, size_t vpos, struct cond **ret,
	    struct rg_error *err);
/*
 * obj's "exceptions", if there: an array of at most max conditions (jv_cond() each) into a new
 * array *ret of *n (left for the caller to free, with the conditions made so far, on an error
 * too).
 */
int jv_exceptions(const struct jdoc *doc, struct json_object *obj, size_t max, struct cond ***ret,
		  size_t *n, struct rg_error *err);
