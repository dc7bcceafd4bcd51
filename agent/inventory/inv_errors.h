/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The error lists and sections of the inventory (inv_errors.c). */
#pragma once

#include <json-c/json.h>
#include <stdarg.h>

#include "common/macro.h"
#include "hw/hw_attr.h"
#include "inventory/inventory.h"

/* Error strings next to an object. Formats "what: why"; never fails (drops on OOM). */
void inv_errors_add(struct inv_errors *e, const char *fmt, ...) _printf_(2, 3);
void inv_errors_addv(struct inv_errors *e, const char *fmt, va_list ap) _printf_(2, 0);
void inv_errors_free(struct inv_errors *e);
void inv_section_free(struct inv_section *s);
void inv_section_error(struct inv_section *s, const char *fmt, ...) _printf_(2, 3);
void inv_section_note(struct inv_section *s, const char *fmt, ...) _printf_(2, 3);
/* A problem with one entry of the section (not the section as a whole). */
#define inv_section_entry_error(s, ...) inv_errors_add(&(s)->errors, __VA_ARGS__)
void inv_section_truncated(struct inv_section *s, const char *fmt, ...) _printf_(2, 3);

/* The hardware layer's read errors of an object, as the report's. */
void inv_errors_from_hw(struct inv_errors *to, const struct hw_errors *from);

/* "errors": [...] and a section's status, notes and errors into o. */
void json_add_errors(struct json_object *o, const struct inv_errors *e); /* "errors": [...] */
void json_add_section(struct json_object *o, const struct inv_section *s);
