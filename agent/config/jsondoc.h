/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * JSON documents with positions, for policy and rule files.
 *
 * A strict RFC 8259 parser (plus `//` and `/ * * /` comments, which count as whitespace) that
 * builds json-c objects and remembers where every value and key starts, so that a semantic error
 * found later ("unknown key", "expected a string") can be reported as file:line:column. It also
 * refuses what json-c would silently accept: duplicate keys, integers out of range, single quotes,
 * NaN, control characters and invalid UTF-8 in strings, trailing garbage, nesting deeper than
 * JDOC_MAX_DEPTH. Lines and columns are 1-based; columns count bytes.
 */
#pragma once

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>

#include "common/rg_error.h"

#define JDOC_MAX_DEPTH 64
#define JDOC_MAX_SIZE  (1u << 20) /* policy and rule files are at most 1 MiB */

struct jdoc;

/*
 * Parses text (len bytes, need not be NUL-terminated). file names it in messages. On error returns
 * -EINVAL with err filled, or -ENOMEM.
 */
int jdoc_parse(const char *file, const char *text, size_t len, struct jdoc **ret,
	       struct rg_error *err);
/*
 * Reads and parses a file (at most JDOC_MAX_SIZE bytes, regular files only). With check_owner the
 * file and the directories above it must be owned by root and not writable by group or other
 * (-EPERM otherwise; agent/config/trust.h).
 */
int jdoc_load(const char *path, bool check_owner, struct jdoc **ret, struct rg_error *err);
/* The same for name below the directory dirfd; path names it in messages. */
int jdoc_loadat(int dirfd, const char *name, const char *path, bool check_owner, struct jdoc **ret,
		struct rg_error *err);
void jdoc_free(struct jdoc *doc);

struct json_object *jdoc_root(const struct jdoc *doc);
const char *jdoc_file(const struct jdoc *doc);
/* The text parsed, as given (the policy's sha256 is of these bytes). */
const char *jdoc_text(const struct jdoc *doc, size_t *len);

#define JDOC_NOPOS ((size_t)-1)

/* Byte offset of obj[key]'s key (at_key) or value; JDOC_NOPOS if unknown. obj NULL: the root. */
size_t jdoc_member_pos(const struct jdoc *doc, const struct json_object *obj, const char *key,
		       bool at_key);
/* Byte offset of arr[idx]. */
size_t jdoc_element_pos(const struct jdoc *doc, const struct json_object *arr, size_t idx);
/* Byte offset of the value val (found by identity; not for null). */
size_t jdoc_value_pos(const struct jdoc *doc, const struct json_object *val);
/*
 * For a string value starting at pos (its opening quote), the offset of the byte that decodes to
 * byte decoded_off of the string's content.
 */
size_t jdoc_string_pos(const struct jdoc *doc, size_t pos, size_t decoded_off);

/* Fills err with the position of pos (no position if JDOC_NOPOS); returns -EINVAL. */
int jdoc_error(const struct jdoc *doc, size_t pos, struct rg_error *err, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* Line and column of a byte offset. */
void jdoc_line_col(const struct jdoc *doc, size_t pos, unsigned *line, unsigned *column);

/* The type of a JSON value in words: "a string", "null", "an array", ... */
const char *json_type_words(const struct json_object *v);
