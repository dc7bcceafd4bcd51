/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * `rdmaguard replay` without the file handling: a JSON-lines event stream, every line that
 * event_from_json() accepts fed to an engine with the shipped rules and the rule fixtures' policy
 * (games, allow entries): the process tree, lineage, game sessions, aggregation and alert building
 * on attacker-shaped event sequences. Properties (fuzz_engine_run): no error from the engine,
 * every alert serialises, the alert count matches the stats, nothing left pending after a flush.
 */
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "event/event_json.h"

#define REPLAY_MAX_EVENTS 256

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_quiet();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_strndup(data, size), *line, *save = NULL;
	struct rg_event *evs = calloc(REPLAY_MAX_EVENTS, sizeof(*evs));
	size_t n = 0;

	if (!evs)
		abort();
	for (line = strtok_r(text, "\n", &save); line && n < REPLAY_MAX_EVENTS;
	     line = strtok_r(NULL, "\n", &save)) {
		struct json_tokener *tok = json_tokener_new();
		struct json_object *o;
		char err[256];

		if (!tok)
			abort();
		json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
		o = json_tokener_parse_ex(tok, line, (int)strlen(line) + 1);
		json_tokener_free(tok);
		if (!o)
			continue;
		if (event_from_json(o, &evs[n], err, sizeof(err)) == 0)
			n++;
		json_object_put(o);
	}
	free(text);
	if (n)
		fuzz_engine_run(fuzz_fixture_policy(), fuzz_shipped_rules(), evs, n);
	free(evs);
	return 0;
}
