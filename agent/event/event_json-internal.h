/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the event field table (event_fields.c) shares with the writer (event_writer.c) and the
 * reader (event_reader.c) beyond the public event_json.h: the common fields, the flag names,
 * and how a field is found in struct rg_event.
 */
#pragma once

#include <stdint.h>

#include "event_json.h"

/* The fields every event type has ("@timestamp", "event.action", "process.pid", ...). */
#define EVENT_NCOMMON 11
extern const struct event_field event_common_fields[EVENT_NCOMMON];

/* The most fields one event type has besides the common ones (the reader's table). */
#define EVENT_MAX_TYPE_FIELDS 64

/* Field f of event ev as a T (CAT: of a const event). Short names: only the three files of the
 * event's JSON include this header. */
#define AT(ev, f, T)  ((T *)((char *)(ev) + (f)->offset))
#define CAT(ev, f, T) ((const T *)((const char *)(ev) + (f)->offset))

/* An EFK_ENUM field's value (16 or 32 bits). */
static inline unsigned event_enum_get(const struct rg_event *ev, const struct event_field *f)
{
	return f->size == 2 ? *CAT(ev, f, uint16_t) : *CAT(ev, f, uint32_t);
}
