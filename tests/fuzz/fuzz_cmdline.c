/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hw_cmdline_parse(), hw_cmdline_parse_report(): a kernel command line as /proc/cmdline gives it (agent/hw/cmdline.h).
 * Input: the line, in an exact-size allocation (no terminating NUL). Properties: the weakening
 * text is terminated, printable and fits; it is empty when nothing is weakened; the same
 * line parses the same twice; a line cut at a NUL says what its part before the NUL says; and
 * "--" before it leaves nothing of it to the kernel.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "hw/cmdline.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_quiet();
	return 0;
}

static void check(const struct hw_cmdline *c)
{
	const char *end = memchr(c->weakening, 0, sizeof(c->weakening));

	FUZZ_ASSERT(end, "weakening not terminated");
	for (const char *s = c->weakening; s < end; s++)
		FUZZ_ASSERT((unsigned char)*s >= 0x20 && (unsigned char)*s < 0x7f, "byte %02x",
			    (unsigned char)*s);
	/* weakened with an empty text only where the arguments were too long to list */
	FUZZ_ASSERT(c->weakening[0] == 0 || hw_cmdline_weakened(c), "text without weakening: %s",
		    c->weakening);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size ? size : 1), *pre = malloc(size + 3), *report = malloc(size + 1);
	struct hw_cmdline a, b;
	const char *nul;

	if (!buf || !pre || !report)
		abort();
	if (size)
		memcpy(buf, data, size);
	hw_cmdline_parse(buf, size, &a);
	check(&a);
	hw_cmdline_parse(buf, size, &b);
	FUZZ_ASSERT(memcmp(&a, &b, sizeof(a)) == 0, "not deterministic");
	/* the report: the same parse, terminated, printable, within the line's length */
	hw_cmdline_parse_report(buf, size, &b, report, size + 1);
	FUZZ_ASSERT(memcmp(&a, &b, sizeof(a)) == 0, "the report changes the parse");
	FUZZ_ASSERT(memchr(report, 0, size + 1), "report not terminated");
	for (const char *s = report; *s; s++)
		FUZZ_ASSERT((unsigned char)*s >= 0x20 && (unsigned char)*s < 0x7f, "report byte %02x",
			    (unsigned char)*s);
	nul = memchr(buf, 0, size);
	if (nul) {
		hw_cmdline_parse(buf, (size_t)(nul - buf), &b);
		FUZZ_ASSERT(memcmp(&a, &b, sizeof(a)) == 0, "past the NUL");
	}
	/* everything after "--" is init's */
	memcpy(pre, "-- ", 3);
	if (size)
		memcpy(pre + 3, data, size);
	hw_cmdline_parse(pre, size + 3, &b);
	FUZZ_ASSERT(!hw_cmdline_weakened(&b) && !b.weakening[0], "after --: %s", b.weakening);
	free(report);
	free(pre);
	free(buf);
	return 0;
}
