/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The condition language: cond_compile() on any bytes; a condition that compiles is then made the
 * condition of a rule and evaluated by the engine on every fixture event (every operator, field
 * kind, lineage walk and derived field the text names). Properties: an error's offset lies in
 * the text and comes with a message; the compiled text is the one given.
 */
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "rules/cond.h"
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
	struct json_object *s;
	struct cond *c = NULL;
	struct rg_error err;
	char errbuf[256] = "", *rule;
	size_t off = (size_t)-1, n;
	int r;

	r = cond_compile((const char *)data, size, &c, &off, errbuf, sizeof(errbuf));
	if (r < 0) {
		FUZZ_ASSERT(r == -EINVAL, "cond_compile returned %d", r);
		FUZZ_ASSERT(off <= size, "error offset %zu in %zu bytes", off, size);
		FUZZ_ASSERT(errbuf[0], "an error without a message at %zu", off);
		return 0;
	}
	FUZZ_ASSERT(strlen(cond_text(c)) <= size, "cond_text longer than the input");
	cond_type_mask(c);
	cond_free(c);

	/* The same text as a rule's condition, through the engine. */
	s = json_object_new_string_len((const char *)data, (int)size);
	if (!s)
		abort();
	if (asprintf(&rule,
		     "{\"id\": \"FUZZ-1\", \"name\": \"fuzz\", \"severity\": \"high\", "
		     "\"condition\": %s, \"message\": \"{process.name} {rdma.device|file.path}\", "
		     "\"aggregate\": {\"by\": [\"rdma.op\"], \"window\": \"10s\"}}",
		     json_object_to_json_string_ext(s, JSON_C_TO_STRING_PLAIN)) < 0)
		abort();
	json_object_put(s);
	if (ruleset_new(&set) < 0)
		abort();
	if (rules_parse(set, "fuzz.json", rule, strlen(rule), &err) < 0) {
		ruleset_free(set);
		free(rule);
		return 0;
	}
	free(rule);
	fuzz_fixture_events(&events, &n);
	fuzz_engine_run(fuzz_fixture_policy(), set, events, n);
	return 0;
}
