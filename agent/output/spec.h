/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * An output's --output SPEC: its kinds, the parsed form and the parser (spec.c). Pure data and
 * pure functions: the outputs themselves (output.h) and the spool directory (spooldir.h) read it.
 */
#pragma once

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum output_type {
	OUTPUT_STDOUT,
	OUTPUT_FILE,
	OUTPUT_SYSLOG_TCP,
	OUTPUT_SYSLOG_TLS,
	OUTPUT_RELP,
	OUTPUT_RELP_TLS,
};

/* The outputs that go through an on-disk spool and a connection (a spool per output). */
static inline bool output_type_is_network(enum output_type t)
{
	return t == OUTPUT_SYSLOG_TCP || t == OUTPUT_SYSLOG_TLS || t == OUTPUT_RELP ||
	       t == OUTPUT_RELP_TLS;
}

#define OUTPUT_HOST_MAX 256  /* a DNS name is at most 253 characters */
#define OUTPUT_NAME_MAX 4200 /* "syslog+tls://" + host + ":" + port, or "file:" + path */

/* What an output takes: a spec prefixed "alerts:" or "incidents:" takes only those. */
enum output_records {
	OUTPUT_RECORDS_ALL,	  /* alerts and incident records (engine/incident.h) */
	OUTPUT_RECORDS_ALERTS,	  /* alerts only */
	OUTPUT_RECORDS_INCIDENTS, /* incident records only (and the agent's loss reports) */
};

/* A parsed --output SPEC. Pure data; output_spec_parse() fills it. */
struct output_spec {
	enum output_type type;
	enum output_records records;
	char name[OUTPUT_NAME_MAX]; /* canonical form without parameters: stats, messages, spool */
	char path[PATH_MAX];	    /* file: the path as given */
	bool chain;		    /* file+chain:PATH, lines hash-chained (evidence/chain.h) */
	char host[OUTPUT_HOST_MAX]; /* syslog: DNS name or IP literal (IPv6 without brackets) */
	bool host_is_ip;
	uint16_t port;	     /* syslog: default 514 (tcp), 6514 (tls), 2514 (relp, relp+tls) */
	int facility;	     /* syslog: ?facility=, or -1 for the config's default */
	bool bom;	     /* syslog: ?bom=1 sends MSG as BOM + UTF-8 (RFC 5424 MSG-UTF8) */
	char ca[PATH_MAX];   /* tls: ?ca=FILE, or "" for the system's trust store */
	char cert[PATH_MAX]; /* tls: ?cert=FILE&key=FILE, client certificate (both or none) */
	char key[PATH_MAX];
	char peer[OUTPUT_HOST_MAX]; /* relp+tls: ?peer=NAME, the server certificate's name; "": HOST
				     */
};

/*
 * Parses [alerts:|incidents:]SPEC, SPEC one of stdout | file:PATH | file+chain:PATH |
 * syslog+tcp://HOST[:PORT][?facility=F&bom=1] |
 * syslog+tls://HOST[:PORT][?ca=FILE&cert=FILE&key=FILE&facility=F&bom=1] |
 * relp://HOST[:PORT][?facility=F&bom=1] |
 * relp+tls://HOST[:PORT]?ca=FILE&cert=FILE&key=FILE[&peer=NAME&facility=F&bom=1] (ca, cert and
 * key required: relp.c says why). HOST is a DNS name, an
 * IPv4 address or a bracketed IPv6 address; parameter values may be percent-encoded. On error,
 * returns -EINVAL and writes a message naming the spec to err ("output \"...\": what is wrong").
 */
int output_spec_parse(const char *spec, struct output_spec *ret, char *err, size_t errlen);
/*
 * Only checks a spec, as output_spec_parse() would take it: 0, -EINVAL with the same message, or
 * -ENOMEM. The policy's "outputs" are checked with it (policy_check_outputs()).
 */
int output_spec_check(const char *spec, char *err, size_t errlen);
const char *output_type_to_string(enum output_type t);
/*
 * Whether s sends alerts in the clear over a network: syslog+tcp:// or relp:// to a host that is
 * not this machine's loopback (127.0.0.0/8, ::1, ::ffff:127.0.0.0/104, "localhost"). Anyone on
 * the path can read, drop or forge such alerts while heartbeats keep flowing.
 */
bool output_spec_plaintext_network(const struct output_spec *s);
/*
 * The start-up warnings of a managed seat (docs/operations.md): one line through log_warning()
 * for each spec of specs[n] that output_spec_plaintext_network() names. Returns how many.
 */
size_t output_specs_warn_plaintext(const struct output_spec *specs, size_t n);
