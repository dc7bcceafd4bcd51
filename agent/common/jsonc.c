/* SPDX-License-Identifier: GPL-2.0-or-later */
/* json-c helpers that tolerate allocation failure (jsonc.h). */
#include <inttypes.h>
#include <stdio.h>

#include "jsonc.h"

void json_add_obj(struct json_object *o, const char *key, struct json_object *val)
{
	if (!o) {
		json_object_put(val);
		return;
	}
	if (json_object_object_add(o, key, val) < 0)
		json_object_put(val);
}

void json_arr_add(struct json_object *a, struct json_object *val)
{
	if (!a || json_object_array_add(a, val) < 0)
		json_object_put(val);
}

void json_add_str(struct json_object *o, const char *key, const char *val)
{
	if (val)
		json_add_obj(o, key, json_object_new_string(val));
}

void json_add_str_nonempty(struct json_object *o, const char *key, const char *val)
{
	if (val && *val)
		json_add_obj(o, key, json_object_new_string(val));
}

void json_add_int(struct json_object *o, const char *key, int64_t val)
{
	json_add_obj(o, key, json_object_new_int64(val));
}

void json_add_u64(struct json_object *o, const char *key, uint64_t val)
{
	json_add_obj(o, key, json_object_new_uint64(val));
}

void json_add_bool(struct json_object *o, const char *key, bool val)
{
	json_add_obj(o, key, json_object_new_boolean(val));
}

void json_add_str_or_null(struct json_object *o, const char *key, const char *val)
{
	json_add_obj(o, key, val && *val ? json_object_new_string(val) : NULL);
}

void json_add_hex(struct json_object *o, const char *key, uint64_t val, int width)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "0x%0*" PRIx64, width, val);
	json_add_str(o, key, buf);
}
