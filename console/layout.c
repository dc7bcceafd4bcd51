/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The room-layout file: a line reader with every error at file:line:column, the seats kept in a
 * json-c object (duplicates refused) and written out as the page's JSON.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "common/log.h"
#include "layout.h"

/* The column (1-based) of the first character of the field after the first one, in line. */
static size_t second_field(const char *line, const char *p)
{
	p += strcspn(p, " \t");
	p += strspn(p, " \t");
	return (size_t)(p - line) + 1;
}

static int layout_line(json_object *o, const char *path, unsigned lineno, char *line,
		       unsigned *count)
{
	char label[201], *p = line;
	int row, col, used = 0;
	json_object *a;

	p += strspn(p, " \t");
	if (*p == '\0' || *p == '#')
		return 0;
	if (sscanf(p, "%200s %d %d %n", label, &row, &col, &used) != 3 || p[used] != '\0')
		return log_error_errno(-EINVAL, "%s:%u:%zu: expected LABEL ROW COLUMN", path,
				       lineno, (size_t)(p - line) + 1);
	if (row < 1 || row > 1000 || col < 1 || col > 1000)
		return log_error_errno(-EINVAL, "%s:%u:%zu: ROW and COLUMN are 1 to 1000", path,
				       lineno, second_field(line, p));
	if (json_object_object_get_ex(o, label, NULL))
		return log_error_errno(-EINVAL, "%s:%u:%zu: seat %s placed twice", path, lineno,
				       (size_t)(p - line) + 1, label);
	if (++*count > LAYOUT_MAX)
		return log_error_errno(-E2BIG, "%s:%u:1: more than %d seats", path, lineno,
				       LAYOUT_MAX);
	a = json_object_new_array();
	if (!a)
		return -ENOMEM;
	json_object_array_add(a, json_object_new_int(row));
	json_object_array_add(a, json_object_new_int(col));
	return json_object_object_add(o, label, a) == 0 ? 0 : -ENOMEM;
}

int layout_load(const char *path, char **json)
{
	json_object *o = json_object_new_object();
	char line[512];
	unsigned lineno = 0, count = 0;
	FILE *f = fopen(path, "re");
	int r = 0;

	*json = NULL;
	if (!f || !o) {
		r = f ? -ENOMEM : -errno;
		log_error_errno(r, "%s: %m", path);
		if (f)
			fclose(f);
		json_object_put(o);
		return r;
	}
	while (r == 0 && fgets(line, sizeof(line), f)) {
		size_t len = strcspn(line, "\n");

		lineno++;
		if (line[len] != '\n' && !feof(f)) {
			r = log_error_errno(-EINVAL, "%s:%u:1: line longer than %zu bytes", path,
					    lineno, sizeof(line) - 2);
			break;
		}
		line[len] = '\0';
		line[strcspn(line, "\r")] = '\0';
		r = layout_line(o, path, lineno, line, &count);
	}
	fclose(f);
	if (r == 0) {
		*json = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
		if (!*json)
			r = -ENOMEM;
	}
	json_object_put(o);
	return r;
}
