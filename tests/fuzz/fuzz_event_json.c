/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Event JSON, as `replay` reads a record file: each line through json-c's strict tokener and
 * event_from_json(). Property: an event that parses survives the round trip: its JSON
 * (event_to_json) parses again, and gives the same JSON.
 */
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "event/event_json.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_quiet();
	return 0;
}

static void one_line(const char *line, size_t len)
{
	struct json_tokener *tok = json_tokener_new();
	struct json_object *o;
	struct rg_event ev;
	char err[256];

	if (!tok)
		abort();
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
	o = json_tokener_parse_ex(tok, line, (int)len + 1);
	json_tokener_free(tok);
	if (!o)
		return;
	if (event_from_json(o, &ev, err, sizeof(err)) < 0) {
		FUZZ_ASSERT(err[0], "an error without a message");
		json_object_put(o);
		return;
	}
	json_object_put(o);
	fuzz_check_event(&ev);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_strndup(data, size), *line = text, *nl;

	/* Lines as replay cuts them; a line with a NUL byte is refused there, so stop at one. */
	while (line < text + size) {
		nl = memchr(line, '\n', (size_t)(text + size - line));
		if (nl)
			*nl = 0;
		if (!memchr(line, 0, (size_t)((nl ? nl : text + size) - line)))
			one_line(line, strlen(line));
		if (!nl)
			break;
		line = nl + 1;
	}
	free(text);
	return 0;
}
