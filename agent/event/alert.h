/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * An alert as the rule engine hands it over and the outputs take it: the JSON text (the schema
 * in rules/schema/alert.schema.json) and the few fields the outputs need without parsing it.
 * Incident records (engine/incident.h) travel the same way, marked: uuid is the record's
 * event.id, rule_id "INCIDENT".
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/severity.h"

struct rg_alert {
	const char *json;	   /* one line of JSON, no newline, NUL-terminated */
	size_t len;		   /* strlen(json) */
	const char *uuid;	   /* event.id */
	const char *rule_id;	   /* rule.id */
	int severity;		   /* severity, enum rg_severity (common/severity.h); out of range: medium */
	uint64_t ts_ns;		   /* @timestamp, nanoseconds since the epoch */
	bool incident;		   /* an incident record (engine/incident.h), not an alert */
};
