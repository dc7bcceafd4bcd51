/* SPDX-License-Identifier: GPL-2.0-or-later */
/* --output SPEC parsing: pure, no I/O (files named by a spec are opened by outputs_new()). */
#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/hex.h"
#include "common/log.h"
#include "common/macro.h"
#include "common/number.h"
#include "common/strutil.h"
#include "spec.h"
#include "rfc5424.h"

#define SPEC_SHOWN_MAX 200 /* how much of a bad spec an error message quotes */

static int spec_error(char *err, size_t errlen, const char *spec, const char *fmt, ...)
	_printf_(4, 5);

static int spec_error(char *err, size_t errlen, const char *spec, const char *fmt, ...)
{
	char shown[SPEC_SHOWN_MAX + 4], what[512];
	va_list ap;
	size_t i;

	if (!err || errlen == 0)
		return -EINVAL;
	/* Quote the spec printable and short: it comes from a command line or a policy file. */
	for (i = 0; spec[i] && i < SPEC_SHOWN_MAX; i++) {
		unsigned char c = (unsigned char)spec[i];
		shown[i] = (c < 0x20 || c == 0x7f) ? '?' : (char)c;
	}
	shown[i] = 0;
	if (spec[i])
		strcat(shown, "...");
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	snprintf(err, errlen, "output \"%s\": %s", shown, what);
	return -EINVAL;
}

const char *output_type_to_string(enum output_type t)
{
	switch (t) {
	case OUTPUT_STDOUT:
		return "stdout";
	case OUTPUT_FILE:
		return "file";
	case OUTPUT_SYSLOG_TCP:
		return "syslog+tcp";
	case OUTPUT_SYSLOG_TLS:
		return "syslog+tls";
	case OUTPUT_RELP:
		return "relp";
	case OUTPUT_RELP_TLS:
		return "relp+tls";
	}
	return "?";
}

/* Percent-decodes [s, s+n) into out (size bytes). -EINVAL bad escape or NUL, -ENAMETOOLONG. */
static int pct_decode(const char *s, size_t n, char *out, size_t size)
{
	size_t i, o = 0;

	for (i = 0; i < n; i++) {
		char c = s[i];

		if (c == '%') {
			int hi, lo;

			if (n - i < 3)
				return -EINVAL;
			hi = hex_digit(s[i + 1]);
			lo = hex_digit(s[i + 2]);
			if (hi < 0 || lo < 0 || (hi == 0 && lo == 0))
				return -EINVAL;
			c = (char)(hi * 16 + lo);
			i += 2;
		}
		if (o + 1 >= size)
			return -ENAMETOOLONG;
		out[o++] = c;
	}
	out[o] = 0;
	return 0;
}

static bool valid_dns_name(const char *h)
{
	size_t i, label = 0;

	if (!*h || strlen(h) > 253)
		return false;
	for (i = 0; h[i]; i++) {
		char c = h[i];

		if (c == '.') {
			if (label == 0)
				return false;
			label = 0;
			continue;
		}
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '-' || c == '_'))
			return false;
		if (++label > 63)
			return false;
	}
	return true;
}

static int parse_params(const char *spec, const char *q, struct output_spec *o, char *err,
			size_t errlen)
{
	bool seen_ca = false, seen_cert = false, seen_key = false, seen_fac = false,
	     seen_bom = false, seen_peer = false;
	bool tls = o->type == OUTPUT_SYSLOG_TLS || o->type == OUTPUT_RELP_TLS;

	while (*q) {
		const char *amp = strchr(q, '&'), *eq;
		size_t len = amp ? (size_t)(amp - q) : strlen(q), klen;
		char key[32], val[PATH_MAX];
		char *dst = NULL;
		bool *seen = NULL;
		int r;

		if (len == 0)
			return spec_error(err, errlen, spec, "empty parameter");
		eq = memchr(q, '=', len);
		if (!eq)
			return spec_error(err, errlen, spec, "parameter \"%.*s\" needs a value",
					  (int)MIN(len, (size_t)64), q);
		klen = (size_t)(eq - q);
		if (klen == 0 || klen >= sizeof(key))
			return spec_error(err, errlen, spec, "unknown parameter \"%.*s\"",
					  (int)MIN(klen, (size_t)64), q);
		memcpy(key, q, klen);
		key[klen] = 0;
		r = pct_decode(eq + 1, len - klen - 1, val, sizeof(val));
		if (r == -ENAMETOOLONG)
			return spec_error(err, errlen, spec, "value of \"%s\" is too long", key);
		if (r < 0)
			return spec_error(err, errlen, spec, "invalid percent-encoding in \"%s\"", key);
		if (!val[0])
			return spec_error(err, errlen, spec, "empty value for \"%s\"", key);

		if (strcmp(key, "ca") == 0) {
			dst = o->ca;
			seen = &seen_ca;
		} else if (strcmp(key, "cert") == 0) {
			dst = o->cert;
			seen = &seen_cert;
		} else if (strcmp(key, "key") == 0) {
			dst = o->key;
			seen = &seen_key;
		} else if (strcmp(key, "peer") == 0) {
			seen = &seen_peer;
		} else if (strcmp(key, "facility") == 0)
			seen = &seen_fac;
		else if (strcmp(key, "bom") == 0)
			seen = &seen_bom;
		else
			return spec_error(err, errlen, spec, "unknown parameter \"%s\"", key);
		if (*seen)
			return spec_error(err, errlen, spec, "duplicate parameter \"%s\"", key);
		*seen = true;
		if (dst) {
			if (!tls)
				return spec_error(err, errlen, spec,
						  "parameter \"%s\" is only valid for syslog+tls and "
						  "relp+tls",
						  key);
			strcpy(dst, val);
		} else if (seen == &seen_peer) {
			if (o->type != OUTPUT_RELP_TLS)
				return spec_error(err, errlen, spec,
						  "parameter \"peer\" is only valid for relp+tls");
			if (strlen(val) >= sizeof(o->peer) ||
			    !valid_dns_name(startswith(val, "*.") ? val + 2 : val))
				return spec_error(err, errlen, spec,
						  "invalid peer \"%.64s\" (a DNS name, or *.NAME)",
						  val);
			strcpy(o->peer, val);
		} else if (seen == &seen_fac) {
			r = syslog_facility_from_string(val);
			if (r < 0)
				return spec_error(err, errlen, spec,
						  "unknown facility \"%.64s\" (a name such as "
						  "authpriv or local0, or 0-23)",
						  val);
			o->facility = r;
		} else {
			if (strcmp(val, "1") == 0 || strcmp(val, "on") == 0 ||
			    strcmp(val, "yes") == 0 || strcmp(val, "true") == 0)
				o->bom = true;
			else if (strcmp(val, "0") == 0 || strcmp(val, "off") == 0 ||
				 strcmp(val, "no") == 0 || strcmp(val, "false") == 0)
				o->bom = false;
			else
				return spec_error(err, errlen, spec,
						  "bom must be 1 or 0, not \"%.64s\"", val);
		}
		q += len;
		if (*q == '&') {
			q++;
			if (!*q)
				return spec_error(err, errlen, spec, "empty parameter");
		}
	}
	if (seen_cert != seen_key)
		return spec_error(err, errlen, spec, "\"cert\" and \"key\" must be given together");
	return 0;
}

/* relp+tls needs all three files: librelp 1.11 (Debian 12) authenticates the server only when the
 * client presents a certificate (without one it falls back to anonymous TLS), and trusts only the
 * given CA (relp.c). */
static int check_relp_tls(const char *spec, const struct output_spec *o, char *err, size_t errlen)
{
	if (o->type != OUTPUT_RELP_TLS)
		return 0;
	if (!o->ca[0] || !o->cert[0])
		return spec_error(err, errlen, spec,
				  "relp+tls needs ca=FILE, cert=FILE and key=FILE (librelp verifies "
				  "the server only with a client certificate and a CA)");
	return 0;
}

static int parse_syslog(const char *spec, const char *rest, struct output_spec *o, char *err,
			size_t errlen)
{
	const char *p = rest, *host_end, *port_start = NULL, *query = NULL, *end;
	size_t hlen;
	char port[8];

	end = p + strcspn(p, "?");
	if (*end == '?')
		query = end + 1;
	if (memchr(p, '/', (size_t)(end - p)))
		return spec_error(err, errlen, spec, "unexpected path after HOST:PORT");
	if (memchr(p, '@', (size_t)(end - p)))
		return spec_error(err, errlen, spec, "user information is not supported");
	if (*p == '[') {
		host_end = memchr(p, ']', (size_t)(end - p));
		if (!host_end)
			return spec_error(err, errlen, spec, "unterminated '[' in host");
		hlen = (size_t)(host_end - p - 1);
		if (hlen == 0 || hlen >= OUTPUT_HOST_MAX)
			return spec_error(err, errlen, spec, "invalid IPv6 address");
		memcpy(o->host, p + 1, hlen);
		o->host[hlen] = 0;
		{
			struct in6_addr a6;
			if (inet_pton(AF_INET6, o->host, &a6) != 1)
				return spec_error(err, errlen, spec, "invalid IPv6 address \"%s\"",
						  o->host);
		}
		o->host_is_ip = true;
		p = host_end + 1;
		if (p < end && *p != ':')
			return spec_error(err, errlen, spec, "expected ':' after ']'");
		if (p < end)
			port_start = p + 1;
	} else {
		const char *colon = memchr(p, ':', (size_t)(end - p));
		struct in_addr a4;

		host_end = colon ? colon : end;
		hlen = (size_t)(host_end - p);
		if (colon && memchr(colon + 1, ':', (size_t)(end - colon - 1)))
			return spec_error(err, errlen, spec,
					  "an IPv6 address must be written in brackets: [ADDR]:PORT");
		if (hlen == 0)
			return spec_error(err, errlen, spec, "missing host");
		if (hlen >= OUTPUT_HOST_MAX)
			return spec_error(err, errlen, spec, "host name too long");
		memcpy(o->host, p, hlen);
		o->host[hlen] = 0;
		if (inet_pton(AF_INET, o->host, &a4) == 1)
			o->host_is_ip = true;
		else if (!valid_dns_name(o->host))
			return spec_error(err, errlen, spec, "invalid host \"%.64s\"", o->host);
		if (colon)
			port_start = colon + 1;
	}
	if (port_start) {
		size_t plen = (size_t)(end - port_start);
		uint32_t v;

		if (plen == 0)
			return spec_error(err, errlen, spec, "missing port after ':'");
		if (plen < sizeof(port)) {
			memcpy(port, port_start, plen);
			port[plen] = 0;
		}
		if (plen >= sizeof(port) || safe_atou32(port, 10, &v) < 0 || v == 0 || v > 65535)
			return spec_error(err, errlen, spec, "invalid port \"%.*s\" (1-65535)",
					  (int)MIN(plen, (size_t)16), port_start);
		o->port = (uint16_t)v;
	} else
		o->port = o->type == OUTPUT_SYSLOG_TLS				  ? 6514
			  : o->type == OUTPUT_RELP || o->type == OUTPUT_RELP_TLS ? 2514
										 : 514;
	if (query) {
		int r = parse_params(spec, query, o, err, errlen);
		if (r < 0)
			return r;
		if (!*query)
			return spec_error(err, errlen, spec, "empty parameter list after '?'");
	}
	{
		int r = check_relp_tls(spec, o, err, errlen);
		if (r < 0)
			return r;
	}
	snprintf(o->name, sizeof(o->name), "%s://%s%s%s:%u", output_type_to_string(o->type),
		 strchr(o->host, ':') ? "[" : "", o->host, strchr(o->host, ':') ? "]" : "",
		 o->port);
	return 0;
}

int output_spec_parse(const char *spec, struct output_spec *ret, char *err, size_t errlen)
{
	struct output_spec *o = ret;

	if (err && errlen)
		err[0] = 0;
	if (!spec)
		spec = "";
	memset(o, 0, sizeof(*o));
	o->facility = -1;
	if (!*spec)
		return spec_error(err, errlen, spec, "empty output");
	if (startswith(spec, "alerts:") || startswith(spec, "incidents:")) {
		bool alerts = startswith(spec, "alerts:");
		const char *inner = spec + (alerts ? 7 : 10);
		const char *pre = alerts ? "alerts:" : "incidents:";
		int r;

		if (startswith(inner, "alerts:") || startswith(inner, "incidents:"))
			return spec_error(err, errlen, spec, "more than one of alerts: and incidents:");
		r = output_spec_parse(inner, o, err, errlen);
		if (r < 0)
			return r;
		o->records = alerts ? OUTPUT_RECORDS_ALERTS : OUTPUT_RECORDS_INCIDENTS;
		if (strlen(pre) + strlen(o->name) >= sizeof(o->name))
			return spec_error(err, errlen, spec, "too long");
		memmove(o->name + strlen(pre), o->name, strlen(o->name) + 1);
		memcpy(o->name, pre, strlen(pre));
		return 0;
	}
	if (strcmp(spec, "stdout") == 0 || strcmp(spec, "-") == 0) {
		o->type = OUTPUT_STDOUT;
		strcpy(o->name, "stdout");
		return 0;
	}
	if (startswith(spec, "file:") || startswith(spec, "file+chain:")) {
		const char *path = strchr(spec, ':') + 1;

		o->type = OUTPUT_FILE;
		o->chain = startswith(spec, "file+chain:");
		if (!*path)
			return spec_error(err, errlen, spec, "missing path after \"%.*s\"",
					  (int)(path - spec), spec);
		if (strlen(path) >= sizeof(o->path))
			return spec_error(err, errlen, spec, "path too long");
		if (path[strlen(path) - 1] == '/')
			return spec_error(err, errlen, spec, "path names a directory");
		strcpy(o->path, path);
		snprintf(o->name, sizeof(o->name), "%s:%s", o->chain ? "file+chain" : "file", path);
		return 0;
	}
	if (startswith(spec, "syslog+tcp://")) {
		o->type = OUTPUT_SYSLOG_TCP;
		return parse_syslog(spec, spec + strlen("syslog+tcp://"), o, err, errlen);
	}
	if (startswith(spec, "syslog+tls://")) {
		o->type = OUTPUT_SYSLOG_TLS;
		return parse_syslog(spec, spec + strlen("syslog+tls://"), o, err, errlen);
	}
	if (startswith(spec, "relp://")) {
		o->type = OUTPUT_RELP;
		return parse_syslog(spec, spec + strlen("relp://"), o, err, errlen);
	}
	if (startswith(spec, "relp+tls://")) {
		o->type = OUTPUT_RELP_TLS;
		return parse_syslog(spec, spec + strlen("relp+tls://"), o, err, errlen);
	}
	if (startswith(spec, "syslog://") || startswith(spec, "syslog+udp://"))
		return spec_error(err, errlen, spec,
				  "syslog needs a transport: syslog+tcp:// or syslog+tls:// "
				  "(UDP would lose alerts)");
	return spec_error(err, errlen, spec,
			  "unknown output (expected stdout, file:PATH, file+chain:PATH, "
			  "syslog+tcp://HOST:PORT, "
			  "syslog+tls://HOST:PORT?ca=FILE, relp://HOST:PORT or "
			  "relp+tls://HOST:PORT?ca=FILE&cert=FILE&key=FILE)");
}

int output_spec_check(const char *spec, char *err, size_t errlen)
{
	/* About 17 KiB: not for the stack of whoever checks a policy. */
	_cleanup_free_ struct output_spec *o = malloc(sizeof(*o));

	if (!o)
		return -ENOMEM;
	return output_spec_parse(spec, o, err, errlen) < 0 ? -EINVAL : 0;
}

static bool host_is_loopback(const struct output_spec *s)
{
	struct in6_addr a6;
	struct in_addr a4;

	if (!s->host_is_ip)
		return strcasecmp(s->host, "localhost") == 0;
	if (inet_pton(AF_INET, s->host, &a4) == 1)
		return (ntohl(a4.s_addr) >> 24) == 127;
	if (inet_pton(AF_INET6, s->host, &a6) != 1)
		return false;
	if (IN6_IS_ADDR_LOOPBACK(&a6))
		return true;
	return IN6_IS_ADDR_V4MAPPED(&a6) && a6.s6_addr[12] == 127;
}

bool output_spec_plaintext_network(const struct output_spec *s)
{
	if (s->type != OUTPUT_SYSLOG_TCP && s->type != OUTPUT_RELP)
		return false;
	return !host_is_loopback(s);
}

size_t output_specs_warn_plaintext(const struct output_spec *specs, size_t n)
{
	size_t warned = 0;

	for (size_t i = 0; i < n; i++) {
		const struct output_spec *s = &specs[i];

		if (!output_spec_plaintext_network(s))
			continue;
		log_warning("Output %s sends alerts in the clear on a managed seat: a machine on the "
			    "network can read, drop or forge them while heartbeats go on; use %s://",
			    s->name, s->type == OUTPUT_RELP ? "relp+tls" : "syslog+tls");
		warned++;
	}
	return warned;
}
