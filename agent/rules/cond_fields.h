/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fields of the condition language (cond_fields.c): a name resolved into a field reference, and
 * the value of a field for an event, whether the event carries it or it is derived (lineage,
 * sessions, peers). The parser resolves with it; the evaluator reads values with it.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "cond-internal.h"

/* The kinds in words, for messages ("a number"). */
extern const char *const cond_vk_words[VK_TIME + 1];

/* Resolves a field name into f (f->name not set). -EINVAL with a message in errbuf. */
int cond_field_resolve(const char *name, struct field_ref *f, char *errbuf, size_t errlen);
bool cond_event_value(const struct event_field *ef, const struct rg_event *ev, struct value *v);
bool cond_derived_value(const struct field_ref *f, struct cond_ctx *ctx, struct value *v);

/* The value of field f for ctx's event into v; false if the event has none. */
static inline bool cond_get_value(const struct field_ref *f, struct cond_ctx *ctx,
				  struct value *v)
{
	const struct event_field *ef;

	v->kind = VK_NONE;
	if (f->df)
		return cond_derived_value(f, ctx, v);
	if (ctx->ev->type >= RG_EV__MAX)
		return false;
	ef = f->by_type[ctx->ev->type];
	return ef && cond_event_value(ef, ctx->ev, v);
}
