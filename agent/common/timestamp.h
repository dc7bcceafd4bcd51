/* SPDX-License-Identifier: GPL-2.0-or-later */
/* RFC 3339 UTC timestamps: the form every record carries, and its strict parser. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Formats a realtime stamp as RFC 3339 UTC with microseconds: 2026-12-02T13:56:29.123456Z. */
void format_timestamp(uint64_t realtime_ns, char buf[static 32]);
/* Parses what format_timestamp writes (also without fraction, or with up to 9 digits). */
int parse_timestamp(const char *s, uint64_t *ret_ns);
/* The minute ("2026-12-02T13:56") of the last stamp parsed with it, for a run of stamps. */
struct ts_cache {
	char minute[16];
	uint64_t minute_s;
	bool valid;
};
/* The same, s[0..len) (nothing after it is read; a NUL inside is not a timestamp); c (or NULL)
 * keeps the last valid minute, so that a stamp in the same minute parses only its seconds: the
 * same answers as without. */
int parse_timestamp_cached(const char *s, size_t len, uint64_t *ret_ns, struct ts_cache *c);
