/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The inventory's error lists and sections: adding, freeing, rendering (inv_errors.h). */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "inv_internal.h"
#include "common/strutil.h"

void inv_errors_addv(struct inv_errors *e, const char *fmt, va_list ap)
{
	char buf[1024];

	if (!e)
		return;
	if (e->n >= INV_MAX_ERRORS) {
		e->dropped++;
		return;
	}
	vsnprintf(buf, sizeof(buf), fmt, ap);
	str_sanitize(buf);
	e->msg[e->n] = strdup(buf);
	if (e->msg[e->n])
		e->n++;
	else
		e->dropped++;
}

void inv_errors_add(struct inv_errors *e, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	inv_errors_addv(e, fmt, ap);
	va_end(ap);
}

void inv_errors_free(struct inv_errors *e)
{
	unsigned i;

	if (!e)
		return;
	for (i = 0; i < e->n; i++)
		free(e->msg[i]);
	e->n = 0;
	e->dropped = 0;
}

void inv_section_free(struct inv_section *s)
{
	free(s->error);
	free(s->note);
	s->error = s->note = NULL;
	inv_errors_free(&s->errors);
	inv_errors_free(&s->truncated);
}

static _printf_(1, 0) char *vformat(const char *fmt, va_list ap)
{
	char buf[1024];

	vsnprintf(buf, sizeof(buf), fmt, ap);
	str_sanitize(buf);
	return strdup(buf);
}

void inv_section_error(struct inv_section *s, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (s->error)
		inv_errors_addv(&s->errors, fmt, ap); /* the first reason stays "error" */
	else
		s->error = vformat(fmt, ap);
	va_end(ap);
}

void inv_section_note(struct inv_section *s, const char *fmt, ...)
{
	va_list ap;

	free(s->note);
	va_start(ap, fmt);
	s->note = vformat(fmt, ap);
	va_end(ap);
}

void inv_section_truncated(struct inv_section *s, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	inv_errors_addv(&s->truncated, fmt, ap);
	va_end(ap);
}

void inv_errors_from_hw(struct inv_errors *to, const struct hw_errors *from)
{
	for (unsigned i = 0; i < from->n; i++)
		inv_errors_add(to, "%s", from->msg[i]);
}

void json_add_errors(struct json_object *o, const struct inv_errors *e)
{
	struct json_object *a;
	unsigned i;

	if (!e || (e->n == 0 && e->dropped == 0))
		return;
	a = json_object_new_array();
	for (i = 0; i < e->n; i++)
		json_arr_add(a, json_object_new_string(e->msg[i]));
	if (e->dropped) {
		char buf[64];

		snprintf(buf, sizeof(buf), "(%u more errors not shown)", e->dropped);
		json_arr_add(a, json_object_new_string(buf));
	}
	json_add_obj(o, "errors", a);
}

void json_add_section(struct json_object *o, const struct inv_section *s)
{
	if (s->skipped)
		json_add_str(o, "skipped", s->skipped);
	if (s->error)
		json_add_str(o, "error", s->error);
	if (s->note)
		json_add_str(o, "note", s->note);
	json_add_errors(o, &s->errors);
	if (s->truncated.n || s->truncated.dropped) {
		struct json_object *a = json_object_new_array();
		unsigned i;

		for (i = 0; i < s->truncated.n; i++)
			json_arr_add(a, json_object_new_string(s->truncated.msg[i]));
		json_add_obj(o, "truncated", a);
	}
}
