/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * `rdmaguard replay` without the file handling: a JSON-lines event stream, each line read by
 * the event reader as replay reads it (checked against json-c's parser as an oracle), every
 * event it accepts fed to an engine with the shipped rules and the rule fixtures' policy
 * (games, allow entries): the process tree, lineage, game sessions, aggregation and alert building
 * on attacker-shaped event sequences. Properties (fuzz_engine_run): no error from the engine,
 * every alert serialises, the alert count matches the stats, nothing left pending after a flush.
 */
#include <errno.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "event/event_json.h"

#define REPLAY_MAX_EVENTS 256
#define REPLAY_MAX_LINE	  (64u * 1024) /* as agent/cmd/replay.c */

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_quiet();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_strndup(data, size), *line, *save = NULL;
	struct rg_event *evs = calloc(REPLAY_MAX_EVENTS, sizeof(*evs));
	static struct event_reader *reader;
	size_t n = 0;

	if (!evs || (!reader && event_reader_new(REPLAY_MAX_LINE, &reader) < 0))
		abort();
	for (line = strtok_r(text, "\n", &save); line && n < REPLAY_MAX_EVENTS;
	     line = strtok_r(NULL, "\n", &save)) {
		size_t len = strlen(line), col = 0;
		struct json_tokener *tok;
		struct json_object *o;
		struct rg_event viajc;
		char err[256], err2[256];
		int r, r2;

		if (len > REPLAY_MAX_LINE)
			continue;
		/* What replay does with the line. */
		r = event_reader_read(reader, line, len, &evs[n], &col, err, sizeof(err));
		FUZZ_ASSERT(r == 0 || r == -EINVAL, "reader: %d", r);
		FUZZ_ASSERT(col <= len + 1, "column %zu past the line (%zu)", col, len);
		/* The oracle: json-c's strict parser takes every line the reader does (it takes
		 * a few more: single quotes, NaN, "1.", raw control characters), and where both
		 * make an event of it, it is the same event. */
		tok = json_tokener_new();
		if (!tok)
			abort();
		json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
		o = json_tokener_parse_ex(tok, line, (int)len + 1);
		json_tokener_free(tok);
		FUZZ_ASSERT(o || col, "the reader took a line json-c refuses: %s", line);
		if (o) {
			r2 = event_from_json(o, &viajc, err2, sizeof(err2));
			if (r == 0 && r2 == 0)
				FUZZ_ASSERT(memcmp(&viajc, &evs[n], sizeof(viajc)) == 0,
					    "the reader and json-c read different events: %s", line);
			json_object_put(o);
		}
		if (r == 0)
			n++;
	}
	free(text);
	if (n)
		fuzz_engine_run(fuzz_fixture_policy(), fuzz_shipped_rules(), evs, n);
	free(evs);
	return 0;
}
