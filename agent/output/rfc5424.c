/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "common/macro.h"
#include "common/number.h"
#include "common/timestamp.h"
#include "common/utf8.h"
#include "rfc5424.h"

/* An snprintf-like writer: counts every byte, stores what fits. */
struct writer {
	char *buf;
	size_t size; /* usable bytes, NUL excluded */
	size_t len;
};

static void put(struct writer *w, char c)
{
	if (w->len < w->size)
		w->buf[w->len] = c;
	w->len++;
}

static void put_mem(struct writer *w, const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		put(w, s[i]);
}

static void put_str(struct writer *w, const char *s)
{
	put_mem(w, s, strlen(s));
}

static bool is_printusascii(unsigned char c)
{
	return c >= 33 && c <= 126;
}

/* A header field: PRINTUSASCII, at most max bytes, NILVALUE when empty. */
static void put_header_field(struct writer *w, const char *s, size_t max)
{
	size_t i;

	if (!s || !*s) {
		put(w, '-');
		return;
	}
	for (i = 0; s[i] && i < max; i++)
		put(w, is_printusascii((unsigned char)s[i]) ? s[i] : '?');
}

static void put_sd_name(struct writer *w, const char *s)
{
	size_t i;

	for (i = 0; s[i] && i < RFC5424_SDNAME_MAX; i++) {
		unsigned char c = (unsigned char)s[i];
		bool ok = is_printusascii(c) && c != '=' && c != ']' && c != '"';
		put(w, ok ? (char)c : '_');
	}
}

/* UTF-8 text with invalid bytes replaced by '?'; escape: also '"', '\' and ']' get a '\'. */
static void put_utf8(struct writer *w, const char *s, size_t n, bool escape)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;

	while (i < n) {
		size_t l = utf8_seq_len((const char *)p + i, n - i);

		if (l == 0) {
			put(w, '?');
			i++;
			continue;
		}
		if (escape && l == 1 && (p[i] == '"' || p[i] == '\\' || p[i] == ']'))
			put(w, '\\');
		put_mem(w, s + i, l);
		i += l;
	}
}

static void put_timestamp(struct writer *w, uint64_t ns)
{
	char ts[32];

	if (ns == 0) {
		put(w, '-');
		return;
	}
	/* 2026-12-02T13:56:29.123456Z: TIME-SECFRAC has at most 6 digits. */
	format_timestamp(ns, ts);
	put_str(w, ts);
}

size_t rfc5424_format(const struct rfc5424_msg *m, char *buf, size_t size)
{
	struct writer w = {.buf = buf, .size = size ? size - 1 : 0};
	unsigned facility = MIN(m->facility, (unsigned)SYSLOG_FACILITY_MAX);
	unsigned severity = MIN(m->severity, (unsigned)SYSLOG_DEBUG);
	char pri[16];
	size_t i;

	snprintf(pri, sizeof(pri), "<%u>1 ", facility * 8 + severity);
	put_str(&w, pri);
	put_timestamp(&w, m->timestamp_ns);
	put(&w, ' ');
	put_header_field(&w, m->hostname, RFC5424_HOSTNAME_MAX);
	put(&w, ' ');
	put_header_field(&w, m->app_name, RFC5424_APPNAME_MAX);
	put(&w, ' ');
	put_header_field(&w, m->procid, RFC5424_PROCID_MAX);
	put(&w, ' ');
	put_header_field(&w, m->msgid, RFC5424_MSGID_MAX);
	put(&w, ' ');
	if (!m->sd_id || !*m->sd_id)
		put(&w, '-');
	else {
		put(&w, '[');
		put_sd_name(&w, m->sd_id);
		for (i = 0; i < m->n_params; i++) {
			const struct rfc5424_param *p = &m->params[i];

			if (!p->name || !*p->name)
				continue;
			put(&w, ' ');
			put_sd_name(&w, p->name);
			put_str(&w, "=\"");
			if (p->value)
				put_utf8(&w, p->value, strlen(p->value), true);
			put(&w, '"');
		}
		put(&w, ']');
	}
	if (m->msg && m->msg_len > 0) {
		put(&w, ' ');
		if (m->bom) {
			put_str(&w, "\xef\xbb\xbf");
			put_utf8(&w, m->msg, m->msg_len, false);
		} else
			put_mem(&w, m->msg, m->msg_len);
	}
	if (size > 0)
		buf[MIN(w.len, size - 1)] = 0;
	return w.len;
}

size_t rfc6587_prefix(size_t msg_len, char buf[static 24])
{
	int n = snprintf(buf, 24, "%zu ", msg_len);

	return n > 0 ? (size_t)n : 0;
}

static const char *const facility_names[SYSLOG_FACILITY_MAX + 1] = {
	"kern",	  "user",   "mail",   "daemon", "auth",	  "syslog", "lpr",    "news",
	"uucp",	  "cron",   "authpriv", "ftp",  "ntp",	  "audit",  "alert",  "clock",
	"local0", "local1", "local2", "local3", "local4", "local5", "local6", "local7",
};

int syslog_facility_from_string(const char *s)
{
	uint32_t v;
	size_t i;

	if (!s)
		return -EINVAL;
	for (i = 0; i < ARRAY_SIZE(facility_names); i++)
		if (strcmp(s, facility_names[i]) == 0)
			return (int)i;
	/* Aliases used by other tools. */
	if (strcmp(s, "security") == 0)
		return 4;
	if (strcmp(s, "cron2") == 0 || strcmp(s, "solaris-cron") == 0)
		return 15;
	if (safe_atou32(s, 10, &v) == 0 && v <= SYSLOG_FACILITY_MAX)
		return (int)v;
	return -EINVAL;
}

const char *syslog_facility_to_string(unsigned facility)
{
	return facility <= SYSLOG_FACILITY_MAX ? facility_names[facility] : NULL;
}
