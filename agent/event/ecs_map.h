/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The names of the documents the agent sends (alerts, start/stop/heartbeat notices) in the
 * Elastic Common Schema: one table says which members of which objects are ECS's; every other
 * member moves under rdmaguard.<its path> (rdma.* to rdmaguard.rdma.*, agent.what to
 * rdmaguard.agent.what), a few are renamed to their ECS name (process.start_time to
 * process.start). Recorded events and rule conditions keep the event names
 * (docs/reference/event-fields.md); only the documents sent are mapped, here, after they are
 * built, so that a field added anywhere lands where the table puts it. Also ECS's
 * event.category, event.type and event.outcome of each event type.
 */
#pragma once

#include <json-c/json.h>
#include <stddef.h>

#include "common/jsonw.h"
#include "event/event.h"

/* The ECS version the names follow (ecs.version of every document). */
#define ECS_VERSION "9.4.0"
/* The alert document's layout: rdmaguard.schema_version (docs/operations.md). */
#define ECS_SCHEMA_VERSION 2

/* Moves and renames the members of the document in w (built with the event names). 0 or
 * -ENOMEM (then w has failed). */
int ecs_map_jw(struct jw *w);
/* The same for a json-c document (the notices). 0 or -ENOMEM. */
int ecs_map_json(struct json_object *doc);
/* The event's names again (a sent alert read as the event it carries: replay, explain): the
 * members under rdmaguard also merged back where they came from (rdmaguard.* stays as it is),
 * the renamed ones renamed back. 0 or -ENOMEM. */
int ecs_unmap_json(struct json_object *doc);
/* The name that the field named event_name (dotted) has in a sent document, into buf. 0, or
 * -ENOSPC when buf is too small. */
int ecs_map_name(const char *event_name, char *buf, size_t size);

/* ECS's event.category and event.type of an event type: NULL-terminated lists of allowed
 * values; event.outcome from its type and flags ("success", "failure", "unknown"). */
const char *const *ecs_event_category(enum rg_event_type t);
const char *const *ecs_event_type(enum rg_event_type t);
const char *ecs_event_outcome(enum rg_event_type t, uint32_t flags);
/* ecs.version, event.category, event.type (NULL-terminated lists), event.outcome and
 * rdmaguard.schema_version into w's document (one that is no event's: an incident record). */
void ecs_add_jw(struct jw *w, const char *const *category, const char *const *type,
		const char *outcome);
/* The same with the event type's categorisation (an alert). */
void ecs_add_event_jw(struct jw *w, enum rg_event_type t, uint32_t flags);
void ecs_add_event_json(struct json_object *doc, enum rg_event_type t, uint32_t flags);
