/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Rule files: rules_parse() on any bytes (one rule object or an array: conditions, exceptions,
 * severity_when, message templates, aggregate keys, threat). Properties: an error's
 * file:line:column lies inside the text; a rule set that loads runs in the engine over every
 * fixture event (alerts built, messages rendered, repeats aggregated and flushed).
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "engine/engine.h"
#include "policy/policy.h"
#include "rules/rules.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_quiet();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct rg_event *events;
	struct rg_ruleset *set = NULL;
	struct rg_error err;
	char msg[1200];
	size_t n, i;

	if (ruleset_new(&set) < 0)
		abort();
	if (rules_parse(set, "fuzz.json", (const char *)data, size, &err) < 0) {
		rg_error_format(&err, msg, sizeof(msg));
		FUZZ_ASSERT(err.msg[0], "an error without a message");
		fuzz_check_position((const char *)data, size, err.line, err.column, msg);
		ruleset_free(set);
		return 0;
	}
	FUZZ_ASSERT(set->n <= RULES_MAX, "%zu rules", set->n);
	for (i = 0; i < set->n; i++) {
		FUZZ_ASSERT(set->rules[i].id && set->rules[i].cond, "rule %zu incomplete", i);
		FUZZ_ASSERT(ruleset_find(set, set->rules[i].id), "rule %s not found",
			    set->rules[i].id);
		rule_message_text(&set->rules[i]);
	}
	fuzz_fixture_events(&events, &n);
	fuzz_engine_run(fuzz_fixture_policy(), set, events, n);
	return 0;
}
