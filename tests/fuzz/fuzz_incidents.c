/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The incident reader (engine/incident_reader.h): the lines of a file output or of the daemon's
 * control socket, which `rdmaguard incidents` and `explain` read and anyone may have edited.
 * Input: text, split at newlines, each line fed in turn; then the table, the JSON lines and
 * every incident's timeline are written (to /dev/null).
 * Properties: an error's column lies within its line (or is 0); every incident kept has a valid
 * id; no incident holds more alerts than the cap; the counts add up.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "engine/incident_reader.h"

static FILE *devnull;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_quiet();
	devnull = fopen("/dev/null", "we");
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_strndup(data, size), *p = text, err[256];
	struct incident_set s = {0};
	uint64_t fed = 0, bad = 0;

	if (!devnull)
		LLVMFuzzerInitialize(NULL, NULL);
	while (p < text + size) {
		char *nl = memchr(p, '\n', (size_t)(text + size - p));
		size_t len = nl ? (size_t)(nl - p) : (size_t)(text + size - p), col = 0;
		int r;

		r = incident_set_feed(&s, p, len, &col, err, sizeof(err));
		fed++;
		FUZZ_ASSERT(r == 0 || r == -EINVAL, "feed returned %d", r);
		if (r < 0) {
			bad++;
			FUZZ_ASSERT(col <= len + 1, "column %zu past a line of %zu", col, len);
			FUZZ_ASSERT(err[0], "an error without a message");
		}
		p += len + 1;
	}
	FUZZ_ASSERT(s.lines == fed, "%llu lines counted, %llu fed", (unsigned long long)s.lines,
		    (unsigned long long)fed);
	for (size_t i = 0; i < s.n; i++) {
		FUZZ_ASSERT(incident_id_valid(s.v[i].id), "kept an invalid id");
		FUZZ_ASSERT(s.v[i].n_alerts <= INCIDENT_READER_MAX_ALERTS, "too many alerts");
		incident_view_sort(&s.v[i]);
		incident_explain_text(devnull, &s.v[i]);
		incident_explain_json(devnull, &s.v[i]);
	}
	incident_print_table(devnull, &s);
	incident_print_json(devnull, &s);
	incident_set_free(&s);
	free(text);
	return 0;
}
