/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The RFC 5424 formatter and RFC 6587 framing prefix, on messages whose every field comes from
 * the input: [facility][severity][timestamp: 8 bytes][flags] then NUL-separated hostname,
 * app-name, procid, msgid, SD-ID, (flags >> 1) & 15 name/value pairs, and the rest as MSG.
 * Properties: the output parses as RFC 5424 (a strict parser here: PRI, VERSION, TIMESTAMP,
 * PRINTUSASCII header fields within their lengths, SD-NAMEs, escaped UTF-8 PARAM-VALUEs, MSG-UTF8
 * with a BOM) and snprintf semantics hold for every buffer size.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "output/rfc5424.h"

#define MAX_PARAMS 15

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_quiet();
	return 0;
}

static size_t utf8_len(const unsigned char *s, size_t n)
{
	unsigned char c = s[0];
	size_t len, i;
	uint32_t cp;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		len = 2, cp = c & 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		len = 3, cp = c & 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		len = 4, cp = c & 0x07;
	else
		return 0;
	if (n < len)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

static bool printusascii(unsigned char c)
{
	return c >= 33 && c <= 126;
}

/* A header field up to the next SP: PRINTUSASCII, 1..max bytes. Returns its end. */
static size_t header_field(const char *s, size_t len, size_t i, size_t max, const char *what)
{
	size_t start = i;

	while (i < len && s[i] != ' ') {
		FUZZ_ASSERT(printusascii((unsigned char)s[i]), "%s: byte 0x%02x", what,
			    (unsigned char)s[i]);
		i++;
	}
	FUZZ_ASSERT(i > start && i - start <= max, "%s: %zu bytes", what, i - start);
	FUZZ_ASSERT(i < len, "%s: message ends in the header", what);
	return i + 1;
}

static size_t sd_name(const char *s, size_t len, size_t i, const char *what)
{
	size_t start = i;

	while (i < len && printusascii((unsigned char)s[i]) && s[i] != '=' && s[i] != ']' &&
	       s[i] != '"')
		i++;
	FUZZ_ASSERT(i > start && i - start <= RFC5424_SDNAME_MAX, "%s: %zu bytes", what,
		    i - start);
	return i;
}

static void check_message(const char *s, size_t len, const struct rfc5424_msg *m)
{
	unsigned pri = 0;
	size_t i = 1, n;

	FUZZ_ASSERT(len > 0 && s[0] == '<', "no PRI");
	while (i < len && s[i] >= '0' && s[i] <= '9' && i < 5)
		pri = pri * 10 + (unsigned)(s[i++] - '0');
	FUZZ_ASSERT(i < len && s[i] == '>' && i >= 2, "bad PRI");
	FUZZ_ASSERT(pri == MIN(m->facility, 23u) * 8 + MIN(m->severity, 7u), "PRI %u", pri);
	i++;
	FUZZ_ASSERT(len - i > 2 && s[i] == '1' && s[i + 1] == ' ', "VERSION");
	i += 2;
	if (s[i] == '-') {
		FUZZ_ASSERT(m->timestamp_ns == 0, "NILVALUE timestamp");
		FUZZ_ASSERT(s[i + 1] == ' ', "after TIMESTAMP");
		i += 2;
	} else {
		unsigned y, mo, d, h, mi, sec, frac;
		int used = 0;

		FUZZ_ASSERT(sscanf(s + i, "%4u-%2u-%2uT%2u:%2u:%2u.%6uZ %n", &y, &mo, &d, &h, &mi,
				   &sec, &frac, &used) == 7 &&
				    used == 28,
			    "TIMESTAMP %.28s", s + i);
		FUZZ_ASSERT(mo >= 1 && mo <= 12 && d >= 1 && d <= 31 && h < 24 && mi < 60 &&
				    sec < 61,
			    "TIMESTAMP %.28s", s + i);
		i += (size_t)used;
	}
	i = header_field(s, len, i, RFC5424_HOSTNAME_MAX, "HOSTNAME");
	i = header_field(s, len, i, RFC5424_APPNAME_MAX, "APP-NAME");
	i = header_field(s, len, i, RFC5424_PROCID_MAX, "PROCID");
	i = header_field(s, len, i, RFC5424_MSGID_MAX, "MSGID");
	FUZZ_ASSERT(i < len, "no STRUCTURED-DATA");
	if (s[i] == '-') {
		FUZZ_ASSERT(!m->sd_id || !*m->sd_id, "NILVALUE SD with an SD-ID");
		i++;
	} else {
		FUZZ_ASSERT(s[i] == '[', "SD-ELEMENT");
		i = sd_name(s, len, i + 1, "SD-ID");
		while (i < len && s[i] == ' ') {
			i = sd_name(s, len, i + 1, "PARAM-NAME");
			FUZZ_ASSERT(len - i > 2 && s[i] == '=' && s[i + 1] == '"', "PARAM =\"");
			i += 2;
			while (i < len && s[i] != '"') {
				if (s[i] == '\\') {
					FUZZ_ASSERT(i + 1 < len && (s[i + 1] == '"' || s[i + 1] == '\\' ||
								    s[i + 1] == ']'),
						    "a lone backslash in PARAM-VALUE");
					i += 2;
					continue;
				}
				FUZZ_ASSERT(s[i] != ']', "unescaped ] in PARAM-VALUE");
				n = utf8_len((const unsigned char *)s + i, len - i);
				FUZZ_ASSERT(n > 0, "invalid UTF-8 in PARAM-VALUE at %zu", i);
				i += n;
			}
			FUZZ_ASSERT(i < len, "unterminated PARAM-VALUE");
			i++;
		}
		FUZZ_ASSERT(i < len && s[i] == ']', "SD-ELEMENT not closed");
		i++;
	}
	if (i == len) {
		FUZZ_ASSERT(!m->msg || m->msg_len == 0, "MSG missing");
		return;
	}
	FUZZ_ASSERT(s[i] == ' ' && m->msg && m->msg_len, "junk after STRUCTURED-DATA");
	i++;
	if (!m->bom) {
		FUZZ_ASSERT(len - i == m->msg_len && memcmp(s + i, m->msg, m->msg_len) == 0,
			    "MSG-ANY changed");
		return;
	}
	FUZZ_ASSERT(len - i >= 3 && memcmp(s + i, "\xef\xbb\xbf", 3) == 0, "no BOM");
	for (i += 3; i < len; i += n) {
		n = utf8_len((const unsigned char *)s + i, len - i);
		FUZZ_ASSERT(n > 0, "invalid UTF-8 in MSG-UTF8 at %zu", i);
	}
}

/* The next NUL-terminated piece of the input (the last one may lack its NUL). */
static const char *piece(char **p, char *end)
{
	char *s = *p, *z;

	if (s >= end)
		return "";
	z = memchr(s, 0, (size_t)(end - s));
	*p = z ? z + 1 : end;
	return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rfc5424_param params[MAX_PARAMS];
	struct rfc5424_msg m = {0};
	char *copy, *p, *end, *out, *small, pfx[24];
	size_t len, sizes[4], i;
	uint64_t ts = 0;

	if (size < 11)
		return 0;
	copy = fuzz_strndup(data + 11, size - 11);
	p = copy;
	end = copy + (size - 11);
	m.facility = data[0];
	m.severity = data[1];
	memcpy(&ts, data + 2, 8);
	m.timestamp_ns = ts;
	m.bom = data[10] & 1;
	m.hostname = piece(&p, end);
	m.app_name = piece(&p, end);
	m.procid = piece(&p, end);
	m.msgid = piece(&p, end);
	m.sd_id = piece(&p, end);
	m.n_params = (data[10] >> 1) & 15;
	for (i = 0; i < m.n_params; i++) {
		params[i].name = piece(&p, end);
		params[i].value = piece(&p, end);
	}
	m.params = params;
	m.msg = p;
	m.msg_len = (size_t)(end - p);

	len = rfc5424_format(&m, NULL, 0);
	out = malloc(len + 1);
	if (!out)
		abort();
	FUZZ_ASSERT(rfc5424_format(&m, out, len + 1) == len, "length differs");
	check_message(out, len, &m);

	/* snprintf semantics: a prefix and a NUL, whatever the size. */
	sizes[0] = 1;
	sizes[1] = len / 2 + 1;
	sizes[2] = len;
	sizes[3] = (size_t)data[0] % (len + 1) + 1;
	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		small = malloc(sizes[i]);
		if (!small)
			abort();
		FUZZ_ASSERT(rfc5424_format(&m, small, sizes[i]) == len, "length at size %zu",
			    sizes[i]);
		FUZZ_ASSERT(memcmp(small, out, sizes[i] - 1) == 0 && small[sizes[i] - 1] == 0,
			    "not a prefix at size %zu", sizes[i]);
		free(small);
	}
	FUZZ_ASSERT((size_t)snprintf(NULL, 0, "%zu ", len) == rfc6587_prefix(len, pfx),
		    "octet-counting prefix");
	FUZZ_ASSERT((unsigned long long)strtoull(pfx, NULL, 10) == len, "prefix %s", pfx);
	syslog_facility_from_string(m.hostname);
	free(out);
	free(copy);
	return 0;
}
