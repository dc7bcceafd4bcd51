/* SPDX-License-Identifier: GPL-2.0-or-later */
/* json-c helpers that tolerate allocation failure: a value that cannot be added is dropped. */
#pragma once

#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>

void json_add_str(struct json_object *o, const char *key, const char *val); /* skips NULL */
void json_add_str_nonempty(struct json_object *o, const char *key, const char *val);
void json_add_int(struct json_object *o, const char *key, int64_t val);
void json_add_u64(struct json_object *o, const char *key, uint64_t val);
void json_add_bool(struct json_object *o, const char *key, bool val);
/* The key with null for NULL or "". */
void json_add_str_or_null(struct json_object *o, const char *key, const char *val);
/* "0x15b3": at least width digits (0: as many as needed). */
void json_add_hex(struct json_object *o, const char *key, uint64_t val, int width);
void json_add_obj(struct json_object *o, const char *key, struct json_object *val);
void json_arr_add(struct json_object *a, struct json_object *val);
