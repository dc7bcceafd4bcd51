/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Conditions as policy and rule files write them: a JSON string, or an array of strings joined
 * with spaces, compiled with cond_compile(). A compile error is placed in the file (jsondoc.h)
 * at the byte of the condition text it is about, escapes accounted for.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cond.h"
#include "cond_json.h"
#include "config/jsonval.h"
#include "common/macro.h"

int jv_cond(const struct jdoc *doc, struct json_object *v, size_t vpos, struct cond **ret,
	    struct rg_error *err)
{
	_cleanup_free_ char *text = NULL;
	_cleanup_free_ size_t *starts = NULL, *epos = NULL;
	char msg[400];
	size_t n, i, len = 0, off;
	int r;

	if (json_object_is_type(v, json_type_string)) {
		n = 1;
		len = (size_t)json_object_get_string_len(v);
		text = malloc(len + 1);
		starts = calloc(1, sizeof(*starts));
		epos = calloc(1, sizeof(*epos));
		if (!text || !starts || !epos)
			return -ENOMEM;
		memcpy(text, json_object_get_string(v), len + 1);
		epos[0] = vpos;
	} else if (json_object_is_type(v, json_type_array) && json_object_array_length(v) > 0) {
		n = json_object_array_length(v);
		for (i = 0; i < n; i++) {
			struct json_object *e = json_object_array_get_idx(v, i);
			if (!json_object_is_type(e, json_type_string))
				return jdoc_error(doc, jdoc_element_pos(doc, v, i), err,
						  "a condition line must be a string, not %s",
						  json_type_words(e));
			len += (size_t)json_object_get_string_len(e) + 1;
		}
		if (len > COND_MAX_TEXT)
			return jdoc_error(doc, vpos, err, "condition longer than %d bytes",
					  COND_MAX_TEXT);
		text = malloc(COND_MAX_TEXT + 2);
		starts = calloc(n, sizeof(*starts));
		epos = calloc(n, sizeof(*epos));
		if (!text || !starts || !epos)
			return -ENOMEM;
		for (i = 0, off = 0; i < n; i++) {
			struct json_object *e = json_object_array_get_idx(v, i);
			size_t l = (size_t)json_object_get_string_len(e);

			if (off + l + 1 > len)
				return -EINVAL; /* cannot happen: len counted these */
			starts[i] = off;
			epos[i] = jdoc_element_pos(doc, v, i);
			memcpy(text + off, json_object_get_string(e), l);
			off += l;
			text[off++] = ' ';
		}
		len = off ? off - 1 : 0;
		text[len] = 0;
	} else
		return jdoc_error(doc, vpos, err,
				  "a condition must be a string or an array of strings, not %s",
				  json_type_words(v));

	r = cond_compile(text, len, ret, &off, msg, sizeof(msg));
	if (r == -EINVAL) {
		size_t pos;

		for (i = n - 1; i > 0 && starts[i] > off; i--)
			;
		/* Past the end of a line (the joining space): point at that line's end. */
		pos = jdoc_string_pos(doc, epos[i], off - starts[i]);
		return jdoc_error(doc, pos, err, "%s", msg);
	}
	return r;
}

int jv_exceptions(const struct jdoc *doc, struct json_object *obj, size_t max, struct cond ***ret,
		  size_t *n, struct rg_error *err)
{
	struct json_object *v;
	size_t len, vpos, i;
	int r;

	if (!json_object_object_get_ex(obj, "exceptions", &v))
		return 0;
	vpos = jv_pos(doc, obj, "exceptions", false);
	if (!json_object_is_type(v, json_type_array))
		return jdoc_error(doc, vpos, err,
				  "\"exceptions\" must be an array of conditions, not %s",
				  json_type_words(v));
	len = json_object_array_length(v);
	if (len > max)
		return jdoc_error(doc, vpos, err, "more than %zu exceptions", max);
	*ret = calloc(len ? len : 1, sizeof(**ret));
	if (!*ret)
		return -ENOMEM;
	for (i = 0; i < len; i++) {
		r = jv_cond(doc, json_object_array_get_idx(v, i), jdoc_element_pos(doc, v, i),
			    &(*ret)[i], err);
		if (r < 0)
			return r;
		(*n)++;
	}
	return 0;
}
