/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * RFC 5424 syslog messages and RFC 6587 octet-counted framing. Pure functions over their
 * arguments (no clock, no allocation, no global state): unit-tested byte for byte and fuzzable.
 *
 *   SYSLOG-MSG = "<" PRI ">1 " TIMESTAMP SP HOSTNAME SP APP-NAME SP PROCID SP MSGID SP SD [SP MSG]
 *
 * Header fields are PRINTUSASCII (33..126): other bytes become '?', overlong values are cut to
 * the RFC's limits (HOSTNAME 255, APP-NAME 48, PROCID 128, MSGID 32), empty ones become "-".
 * SD-ID and PARAM-NAME (SD-NAME: at most 32 PRINTUSASCII except '=', ' ', ']', '"') get '_' for
 * a forbidden byte. PARAM-VALUE is UTF-8 with '"', '\' and ']' escaped by '\'; a byte that is not
 * part of valid UTF-8 becomes '?'. MSG is sent as MSG-ANY (bytes as given) or, with bom, as
 * MSG-UTF8: the BOM EF BB BF then the text with invalid UTF-8 replaced by '?'.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RFC5424_HOSTNAME_MAX 255
#define RFC5424_APPNAME_MAX  48
#define RFC5424_PROCID_MAX   128
#define RFC5424_MSGID_MAX    32
#define RFC5424_SDNAME_MAX   32
/* The structured-data ID of our alerts: 32473 is the documentation PEN of RFC 5612. */
#define RFC5424_SD_ID "rdmaguard@32473"

/* RFC 5424 severities. */
enum {
	SYSLOG_EMERG,
	SYSLOG_ALERT,
	SYSLOG_CRIT,
	SYSLOG_ERR,
	SYSLOG_WARNING,
	SYSLOG_NOTICE,
	SYSLOG_INFO,
	SYSLOG_DEBUG,
};

#define SYSLOG_FACILITY_MAX 23
#define SYSLOG_FACILITY_AUTHPRIV 10

struct rfc5424_param {
	const char *name;
	const char *value;
};

struct rfc5424_msg {
	unsigned facility;     /* 0..23; larger values are clamped to 23 */
	unsigned severity;     /* 0..7; larger values are clamped to 7 */
	uint64_t timestamp_ns; /* CLOCK_REALTIME ns; 0: NILVALUE. UTC with microseconds. */
	const char *hostname;  /* NULL or "": NILVALUE */
	const char *app_name;
	const char *procid;
	const char *msgid;
	const char *sd_id;     /* NULL or "": no structured data (NILVALUE) */
	const struct rfc5424_param *params;
	size_t n_params;       /* params with an empty name are skipped */
	const char *msg;       /* NULL or msg_len 0: no MSG */
	size_t msg_len;
	bool bom;
};

/*
 * Formats m into buf like snprintf: writes at most size - 1 bytes and a NUL (when size > 0) and
 * returns the length of the whole message, without NUL. The message may contain NUL bytes only
 * where msg did (MSG-ANY).
 */
size_t rfc5424_format(const struct rfc5424_msg *m, char *buf, size_t size);

/* Writes the RFC 6587 octet-counting prefix "LEN " into buf; returns its length (at most 21). */
size_t rfc6587_prefix(size_t msg_len, char buf[static 24]);

/* Facility names (kern, user, ..., authpriv, ..., local0..local7) or numbers 0..23; -EINVAL. */
int syslog_facility_from_string(const char *s);
const char *syslog_facility_to_string(unsigned facility);
