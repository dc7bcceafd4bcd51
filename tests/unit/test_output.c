/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Output module: the RFC 5424 framer and the spec parser byte for byte, the spool (order,
 * persistence, eviction policy, torn and damaged records), and the outputs API with real threads
 * writing to real files, pipes and a TCP listener on 127.0.0.1.
 */
#include <arpa/inet.h>
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/macro.h"
#include "common/strutil.h"
#include "output/output.h"
#include "output/rfc5424.h"
#include "output/spool.h"

static char tmpdir[] = "/tmp/rg-test-output-XXXXXX";

static void setup(void)
{
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
}

static void teardown(void)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	ck_assert_int_eq(system(cmd), 0);
	strcpy(tmpdir, "/tmp/rg-test-output-XXXXXX");
}

static char *fmt(const struct rfc5424_msg *m)
{
	static char buf[4096];
	size_t n = rfc5424_format(m, buf, sizeof(buf));

	ck_assert_uint_lt(n, sizeof(buf));
	ck_assert_uint_eq(strlen(buf), n);
	return buf;
}

/* ---- RFC 5424 framer ---- */

START_TEST(test_rfc5424_full)
{
	const struct rfc5424_param params[] = {
		{"rule", "RDMA-005"},
		{"severity", "high"},
		{"id", "0b7c6f2e-8d3a-4f1e-9c2b-5a6d7e8f9012"},
	};
	struct rfc5424_msg m = {
		.facility = SYSLOG_FACILITY_AUTHPRIV,
		.severity = SYSLOG_ERR,
		.timestamp_ns = 1796219789123456789ull,
		.hostname = "pc-17.lan",
		.app_name = "rdmaguard",
		.procid = "4242",
		.msgid = "RDMA-005",
		.sd_id = RFC5424_SD_ID,
		.params = params,
		.n_params = 3,
		.msg = "{\"a\":1}",
		.msg_len = 7,
	};

	ck_assert_str_eq(fmt(&m), "<83>1 2026-12-02T13:56:29.123456Z pc-17.lan rdmaguard 4242 "
				  "RDMA-005 [rdmaguard@32473 rule=\"RDMA-005\" severity=\"high\" "
				  "id=\"0b7c6f2e-8d3a-4f1e-9c2b-5a6d7e8f9012\"] {\"a\":1}");
	m.bom = true;
	ck_assert_str_eq(fmt(&m), "<83>1 2026-12-02T13:56:29.123456Z pc-17.lan rdmaguard 4242 "
				  "RDMA-005 [rdmaguard@32473 rule=\"RDMA-005\" severity=\"high\" "
				  "id=\"0b7c6f2e-8d3a-4f1e-9c2b-5a6d7e8f9012\"] \xef\xbb\xbf{\"a\":1}");
}
END_TEST

START_TEST(test_rfc5424_nil)
{
	struct rfc5424_msg m = {0};

	ck_assert_str_eq(fmt(&m), "<0>1 - - - - - -");
	m.hostname = "";
	m.sd_id = "";
	m.msg = "x";
	m.msg_len = 0; /* no MSG */
	ck_assert_str_eq(fmt(&m), "<0>1 - - - - - -");
	m.facility = 99;
	m.severity = 9;
	ck_assert_str_eq(fmt(&m), "<191>1 - - - - - -");
	m.facility = 23;
	m.severity = 7;
	ck_assert_str_eq(fmt(&m), "<191>1 - - - - - -");
	m.facility = 16;
	m.severity = SYSLOG_INFO;
	m.msg_len = 1;
	ck_assert_str_eq(fmt(&m), "<134>1 - - - - - - x");
}
END_TEST

START_TEST(test_rfc5424_sd_escaping)
{
	const struct rfc5424_param params[] = {
		{"v", "a\"b\\c]d[e=f g"},
		{"", "skipped"},
		{"a b=c]d\"e[", "x"},
		{"n", NULL},
		{"u", "\xc3\xa9\xf0\x9f\x98\x80"},		/* é and an emoji: valid */
		{"bad", "\xc3\x28|\xc0\xaf|\xed\xa0\x80|\xf4\x90\x80\x80|\xe2\x82"}, /* invalid */
	};
	struct rfc5424_msg m = {
		.sd_id = "id with space=]\"",
		.params = params,
		.n_params = ARRAY_SIZE(params),
	};

	ck_assert_str_eq(fmt(&m), "<0>1 - - - - - [id_with_space___ v=\"a\\\"b\\\\c\\]d[e=f g\" "
				  "a_b_c_d_e[=\"x\" n=\"\" u=\"\xc3\xa9\xf0\x9f\x98\x80\" "
				  "bad=\"?(|??|???|????|??\"]");
}
END_TEST

START_TEST(test_rfc5424_header_limits)
{
	char host[400], app[100], procid[200], msgid[100], sd[100], expect[2048];
	struct rfc5424_param p = {sd, "1"};
	struct rfc5424_msg m = {
		.hostname = host,
		.app_name = app,
		.procid = procid,
		.msgid = msgid,
		.sd_id = sd,
		.params = &p,
		.n_params = 1,
	};

	memset(host, 'h', sizeof(host) - 1);
	host[sizeof(host) - 1] = 0;
	memset(app, 'a', sizeof(app) - 1);
	app[sizeof(app) - 1] = 0;
	memset(procid, 'p', sizeof(procid) - 1);
	procid[sizeof(procid) - 1] = 0;
	memset(msgid, 'm', sizeof(msgid) - 1);
	msgid[sizeof(msgid) - 1] = 0;
	memset(sd, 's', sizeof(sd) - 1);
	sd[sizeof(sd) - 1] = 0;
	snprintf(expect, sizeof(expect), "<0>1 - %.255s %.48s %.128s %.32s [%.32s %.32s=\"1\"]", host,
		 app, procid, msgid, sd, sd);
	ck_assert_str_eq(fmt(&m), expect);

	/* Bytes outside PRINTUSASCII in header fields. */
	m.hostname = "pc 1\tx\xc3\xa9";
	m.app_name = "r\x7f";
	m.procid = "1";
	m.msgid = "a b";
	m.sd_id = NULL;
	ck_assert_str_eq(fmt(&m), "<0>1 - pc?1?x?? r? 1 a?b -");
}
END_TEST

START_TEST(test_rfc5424_msg_any_and_bom)
{
	struct rfc5424_msg m = {.msg = "\xc3\xa9\xff\x00z", .msg_len = 5};
	char buf[64];
	size_t n;

	n = rfc5424_format(&m, buf, sizeof(buf));
	ck_assert_uint_eq(n, 17 + 5);
	ck_assert_int_eq(memcmp(buf, "<0>1 - - - - - - \xc3\xa9\xff\x00z", n), 0);
	m.bom = true;
	n = rfc5424_format(&m, buf, sizeof(buf));
	ck_assert_uint_eq(n, 17 + 3 + 5);
	ck_assert_int_eq(memcmp(buf, "<0>1 - - - - - - \xef\xbb\xbf\xc3\xa9?\x00z", n), 0);
}
END_TEST

START_TEST(test_rfc5424_truncation)
{
	struct rfc5424_msg m = {.hostname = "host", .msg = "hello", .msg_len = 5};
	char buf[10];
	size_t n;

	n = rfc5424_format(&m, NULL, 0);
	ck_assert_uint_eq(n, strlen("<0>1 - host - - - - hello"));
	memset(buf, 'X', sizeof(buf));
	ck_assert_uint_eq(rfc5424_format(&m, buf, sizeof(buf)), n);
	ck_assert_str_eq(buf, "<0>1 - ho");
	ck_assert_uint_eq(rfc5424_format(&m, buf, 1), n);
	ck_assert_str_eq(buf, "");
}
END_TEST

START_TEST(test_rfc6587_and_facility)
{
	char b[24];

	ck_assert_uint_eq(rfc6587_prefix(0, b), 2);
	ck_assert_str_eq(b, "0 ");
	ck_assert_uint_eq(rfc6587_prefix(123456, b), 7);
	ck_assert_str_eq(b, "123456 ");
	ck_assert_uint_eq(rfc6587_prefix(SIZE_MAX, b), 21);
	ck_assert_str_eq(b, "18446744073709551615 ");

	ck_assert_int_eq(syslog_facility_from_string("kern"), 0);
	ck_assert_int_eq(syslog_facility_from_string("authpriv"), 10);
	ck_assert_int_eq(syslog_facility_from_string("local0"), 16);
	ck_assert_int_eq(syslog_facility_from_string("local7"), 23);
	ck_assert_int_eq(syslog_facility_from_string("security"), 4);
	ck_assert_int_eq(syslog_facility_from_string("13"), 13);
	ck_assert_int_eq(syslog_facility_from_string("24"), -EINVAL);
	ck_assert_int_eq(syslog_facility_from_string("-1"), -EINVAL);
	ck_assert_int_eq(syslog_facility_from_string("LOCAL0"), -EINVAL);
	ck_assert_int_eq(syslog_facility_from_string(""), -EINVAL);
	ck_assert_str_eq(syslog_facility_to_string(10), "authpriv");
	ck_assert_ptr_null(syslog_facility_to_string(24));
}
END_TEST

/* ---- spec parser ---- */

START_TEST(test_spec_valid)
{
	struct output_spec s;
	char err[512];

	ck_assert_int_eq(output_spec_parse("stdout", &s, err, sizeof(err)), 0);
	ck_assert_int_eq(s.type, OUTPUT_STDOUT);
	ck_assert_str_eq(s.name, "stdout");
	ck_assert_int_eq(output_spec_parse("file:/var/log/rg.jsonl", &s, err, sizeof(err)), 0);
	ck_assert_int_eq(s.type, OUTPUT_FILE);
	ck_assert_str_eq(s.path, "/var/log/rg.jsonl");
	ck_assert_str_eq(s.name, "file:/var/log/rg.jsonl");
	ck_assert(!s.chain);
	ck_assert_int_eq(output_spec_parse("file:rel/a?b", &s, err, sizeof(err)), 0);
	ck_assert_str_eq(s.path, "rel/a?b");
	ck_assert_int_eq(output_spec_parse("file+chain:/var/log/rg.jsonl", &s, err, sizeof(err)), 0);
	ck_assert_int_eq(s.type, OUTPUT_FILE);
	ck_assert(s.chain);
	ck_assert_str_eq(s.path, "/var/log/rg.jsonl");
	ck_assert_str_eq(s.name, "file+chain:/var/log/rg.jsonl");

	ck_assert_int_eq(output_spec_parse("syslog+tcp://127.0.0.1:5514", &s, err, sizeof(err)), 0);
	ck_assert_int_eq(s.type, OUTPUT_SYSLOG_TCP);
	ck_assert_str_eq(s.host, "127.0.0.1");
	ck_assert(s.host_is_ip);
	ck_assert_uint_eq(s.port, 5514);
	ck_assert_int_eq(s.facility, -1);
	ck_assert(!s.bom);
	ck_assert_str_eq(s.name, "syslog+tcp://127.0.0.1:5514");

	ck_assert_int_eq(output_spec_parse("syslog+tcp://siem.example.org", &s, err, sizeof(err)),
			 0);
	ck_assert_str_eq(s.host, "siem.example.org");
	ck_assert(!s.host_is_ip);
	ck_assert_uint_eq(s.port, 514);
	ck_assert_int_eq(output_spec_parse("syslog+tls://siem", &s, err, sizeof(err)), 0);
	ck_assert_uint_eq(s.port, 6514);
	ck_assert_int_eq(output_spec_parse("relp://siem", &s, err, sizeof(err)), 0);
	ck_assert_int_eq(s.type, OUTPUT_RELP);
	ck_assert_uint_eq(s.port, 2514);
	ck_assert_str_eq(s.name, "relp://siem:2514");
	ck_assert(output_type_is_network(s.type));
	ck_assert_int_eq(output_spec_parse("relp://[::1]:20514?facility=local0", &s, err,
					   sizeof(err)), 0);
	ck_assert_str_eq(s.name, "relp://[::1]:20514");
	ck_assert_int_eq(s.facility, 16);
	ck_assert_str_eq(s.ca, "");

	/* relp+tls: ca, cert and key required (librelp 1.11 verifies nothing without them) */
	ck_assert_int_eq(output_spec_parse("relp+tls://c.hall?ca=/a.pem&cert=/c.pem&key=/k.pem&"
					   "peer=*.hall",
					   &s, err, sizeof(err)),
			 0);
	ck_assert_int_eq(s.type, OUTPUT_RELP_TLS);
	ck_assert_uint_eq(s.port, 2514);
	ck_assert_str_eq(s.name, "relp+tls://c.hall:2514");
	ck_assert_str_eq(s.peer, "*.hall");
	ck_assert(output_type_is_network(s.type));
	ck_assert_int_eq(output_spec_parse("relp+tls://c.hall?ca=/a.pem", &s, err, sizeof(err)),
			 -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "relp+tls needs ca=FILE, cert=FILE and key=FILE"));
	ck_assert_int_eq(output_spec_parse("relp+tls://c.hall?cert=/c.pem&key=/k.pem", &s, err,
					   sizeof(err)),
			 -EINVAL);
	ck_assert_int_eq(output_spec_parse("relp://c.hall?ca=/a.pem", &s, err, sizeof(err)),
			 -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "only valid for syslog+tls and relp+tls"));
	ck_assert_int_eq(output_spec_parse("syslog+tls://c.hall?peer=x", &s, err, sizeof(err)),
			 -EINVAL);
	ck_assert_int_eq(output_spec_parse("relp+tls://c?ca=/a&cert=/c&key=/k&peer=a%20b", &s, err,
					   sizeof(err)),
			 -EINVAL);

	ck_assert_int_eq(output_spec_parse("syslog+tls://[::1]:6514?ca=/etc/a%20b.pem&cert=/c.pem&"
					   "key=/k%2Fx&facility=local3&bom=1",
					   &s, err, sizeof(err)),
			 0);
	ck_assert_int_eq(s.type, OUTPUT_SYSLOG_TLS);
	ck_assert_str_eq(s.host, "::1");
	ck_assert(s.host_is_ip);
	ck_assert_uint_eq(s.port, 6514);
	ck_assert_str_eq(s.ca, "/etc/a b.pem");
	ck_assert_str_eq(s.cert, "/c.pem");
	ck_assert_str_eq(s.key, "/k/x");
	ck_assert_int_eq(s.facility, 19);
	ck_assert(s.bom);
	ck_assert_str_eq(s.name, "syslog+tls://[::1]:6514");

	ck_assert_int_eq(output_spec_parse("syslog+tcp://h:1?facility=4&bom=off", &s, err,
					   sizeof(err)),
			 0);
	ck_assert_int_eq(s.facility, 4);
	ck_assert(!s.bom);
	ck_assert_uint_eq(s.port, 1);
}
END_TEST

static void spec_err(const char *spec, const char *expect)
{
	struct output_spec s;
	char err[512];

	ck_assert_int_eq(output_spec_parse(spec, &s, err, sizeof(err)), -EINVAL);
	ck_assert_str_eq(err, expect);
}

START_TEST(test_spec_errors)
{
	char long_spec[400], expect[600];

	spec_err("", "output \"\": empty output");
	spec_err("bogus", "output \"bogus\": unknown output (expected stdout, file:PATH, "
			  "file+chain:PATH, syslog+tcp://HOST:PORT, syslog+tls://HOST:PORT?ca=FILE, "
			  "relp://HOST:PORT or "
			  "relp+tls://HOST:PORT?ca=FILE&cert=FILE&key=FILE)");
	spec_err("file:", "output \"file:\": missing path after \"file:\"");
	spec_err("file+chain:", "output \"file+chain:\": missing path after \"file+chain:\"");
	spec_err("relp://h?ca=/x", "output \"relp://h?ca=/x\": parameter \"ca\" is only valid for "
				   "syslog+tls and relp+tls");
	spec_err("relp://", "output \"relp://\": missing host");
	spec_err("file:/var/log/", "output \"file:/var/log/\": path names a directory");
	spec_err("syslog://h:514", "output \"syslog://h:514\": syslog needs a transport: "
				   "syslog+tcp:// or syslog+tls:// (UDP would lose alerts)");
	spec_err("syslog+tcp://", "output \"syslog+tcp://\": missing host");
	spec_err("syslog+tcp://:514", "output \"syslog+tcp://:514\": missing host");
	spec_err("syslog+tcp://h:", "output \"syslog+tcp://h:\": missing port after ':'");
	spec_err("syslog+tcp://h:0", "output \"syslog+tcp://h:0\": invalid port \"0\" (1-65535)");
	spec_err("syslog+tcp://h:65536",
		 "output \"syslog+tcp://h:65536\": invalid port \"65536\" (1-65535)");
	spec_err("syslog+tcp://h:12a", "output \"syslog+tcp://h:12a\": invalid port \"12a\" (1-65535)");
	spec_err("syslog+tcp://h:-1", "output \"syslog+tcp://h:-1\": invalid port \"-1\" (1-65535)");
	spec_err("syslog+tcp://::1:514", "output \"syslog+tcp://::1:514\": an IPv6 address must be "
					 "written in brackets: [ADDR]:PORT");
	spec_err("syslog+tcp://[::1", "output \"syslog+tcp://[::1\": unterminated '[' in host");
	spec_err("syslog+tcp://[zz]:1", "output \"syslog+tcp://[zz]:1\": invalid IPv6 address \"zz\"");
	spec_err("syslog+tcp://[::1]x", "output \"syslog+tcp://[::1]x\": expected ':' after ']'");
	spec_err("syslog+tcp://h:1/x", "output \"syslog+tcp://h:1/x\": unexpected path after "
				       "HOST:PORT");
	spec_err("syslog+tcp://u@h:1", "output \"syslog+tcp://u@h:1\": user information is not "
				       "supported");
	spec_err("syslog+tcp://bad!host:1", "output \"syslog+tcp://bad!host:1\": invalid host "
					    "\"bad!host\"");
	spec_err("syslog+tcp://a..b:1", "output \"syslog+tcp://a..b:1\": invalid host \"a..b\"");
	spec_err("syslog+tcp://h:1?ca=/x", "output \"syslog+tcp://h:1?ca=/x\": parameter \"ca\" is "
					   "only valid for syslog+tls and relp+tls");
	spec_err("syslog+tls://h:1?cert=/a", "output \"syslog+tls://h:1?cert=/a\": \"cert\" and "
					     "\"key\" must be given together");
	spec_err("syslog+tls://h:1?ca=/a&ca=/b", "output \"syslog+tls://h:1?ca=/a&ca=/b\": "
						 "duplicate parameter \"ca\"");
	spec_err("syslog+tls://h:1?foo=1", "output \"syslog+tls://h:1?foo=1\": unknown parameter "
					   "\"foo\"");
	spec_err("syslog+tls://h:1?ca", "output \"syslog+tls://h:1?ca\": parameter \"ca\" needs a "
					"value");
	spec_err("syslog+tls://h:1?ca=", "output \"syslog+tls://h:1?ca=\": empty value for \"ca\"");
	spec_err("syslog+tls://h:1?ca=%zz", "output \"syslog+tls://h:1?ca=%zz\": invalid "
					    "percent-encoding in \"ca\"");
	spec_err("syslog+tls://h:1?ca=%2", "output \"syslog+tls://h:1?ca=%2\": invalid "
					   "percent-encoding in \"ca\"");
	spec_err("syslog+tls://h:1?ca=%00", "output \"syslog+tls://h:1?ca=%00\": invalid "
					    "percent-encoding in \"ca\"");
	spec_err("syslog+tcp://h:1?facility=bogus",
		 "output \"syslog+tcp://h:1?facility=bogus\": unknown facility \"bogus\" (a name "
		 "such as authpriv or local0, or 0-23)");
	spec_err("syslog+tcp://h:1?bom=2", "output \"syslog+tcp://h:1?bom=2\": bom must be 1 or 0, "
					   "not \"2\"");
	spec_err("syslog+tcp://h:1?", "output \"syslog+tcp://h:1?\": empty parameter list after "
				      "'?'");
	spec_err("syslog+tcp://h:1?&", "output \"syslog+tcp://h:1?&\": empty parameter");
	spec_err("syslog+tcp://h:1?bom=1&", "output \"syslog+tcp://h:1?bom=1&\": empty parameter");
	spec_err("std\x01out", "output \"std?out\": unknown output (expected stdout, file:PATH, "
			       "file+chain:PATH, syslog+tcp://HOST:PORT, syslog+tls://HOST:PORT?ca=FILE, "
			       "relp://HOST:PORT or "
			  "relp+tls://HOST:PORT?ca=FILE&cert=FILE&key=FILE)");

	/* A long spec is quoted cut, with "...". */
	memset(long_spec, 'x', sizeof(long_spec) - 1);
	long_spec[sizeof(long_spec) - 1] = 0;
	snprintf(expect, sizeof(expect),
		 "output \"%.200s...\": unknown output (expected stdout, file:PATH, "
		 "file+chain:PATH, syslog+tcp://HOST:PORT, syslog+tls://HOST:PORT?ca=FILE, "
		 "relp://HOST:PORT or "
			  "relp+tls://HOST:PORT?ca=FILE&cert=FILE&key=FILE)",
		 long_spec);
	spec_err(long_spec, expect);
}
END_TEST

START_TEST(test_spec_limits)
{
	char spec[5000], host[300];
	struct output_spec s;
	char err[512];

	/* A 63-character label is fine, 64 is not; a 253-character name is fine. */
	memset(host, 'a', 63);
	strcpy(host + 63, ".b");
	snprintf(spec, sizeof(spec), "syslog+tcp://%s:1", host);
	ck_assert_int_eq(output_spec_parse(spec, &s, err, sizeof(err)), 0);
	memset(host, 'a', 64);
	strcpy(host + 64, ".b");
	snprintf(spec, sizeof(spec), "syslog+tcp://%s:1", host);
	ck_assert_int_eq(output_spec_parse(spec, &s, err, sizeof(err)), -EINVAL);
	memset(host, 'a', 280);
	host[280] = 0;
	snprintf(spec, sizeof(spec), "syslog+tcp://%s:1", host);
	ck_assert_int_eq(output_spec_parse(spec, &s, err, sizeof(err)), -EINVAL);
	ck_assert(strstr(err, ": host name too long"));

	/* Paths up to PATH_MAX - 1. */
	memset(spec, 0, sizeof(spec));
	strcpy(spec, "file:/");
	memset(spec + 6, 'p', 4200);
	ck_assert_int_eq(output_spec_parse(spec, &s, err, sizeof(err)), -EINVAL);
	ck_assert(strstr(err, ": path too long"));
	strcpy(spec, "syslog+tls://h?ca=/");
	memset(spec + strlen(spec), 'p', 4200);
	ck_assert_int_eq(output_spec_parse(spec, &s, err, sizeof(err)), -EINVAL);
	ck_assert(strstr(err, ": value of \"ca\" is too long"));

	/* The error buffer may be small: cut, NUL-terminated. */
	ck_assert_int_eq(output_spec_parse("nope", &s, err, 8), -EINVAL);
	ck_assert_str_eq(err, "output ");
	ck_assert_int_eq(output_spec_parse(NULL, &s, NULL, 0), -EINVAL);
}
END_TEST

/* ---- spool ---- */

static struct spool_config spool_cfg(void)
{
	return (struct spool_config){
		.max_bytes = 1 << 20,
		.loss_max_bytes = 4096,
		.segment_bytes = 64 << 10,
		.max_record_bytes = 4096,
	};
}

static int tmp_fd(void)
{
	int fd = open(tmpdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	ck_assert_int_ge(fd, 0);
	return fd;
}

static int append_str(struct spool *s, unsigned q, const char *str)
{
	return spool_append(s, q, 0, str, strlen(str));
}

/* Reads every unsent record as "q:data" joined by commas. */
static char *drain(struct spool *s, bool confirm)
{
	static char out[8192];
	struct spool_record r;
	int k;

	out[0] = 0;
	while ((k = spool_next(s, &r)) == 1) {
		char one[600];

		snprintf(one, sizeof(one), "%s%u:%.*s", out[0] ? "," : "", r.queue, (int)r.len,
			 r.data);
		ck_assert_uint_lt(strlen(out) + strlen(one), sizeof(out));
		strcat(out, one);
		if (confirm)
			spool_confirm(s, r.queue, r.seq);
	}
	ck_assert_int_eq(k, 0);
	return out;
}

START_TEST(test_spool_order_and_persistence)
{
	struct spool_config c = spool_cfg();
	struct spool_record r;
	struct spool_stats st;
	struct spool *s;
	int dfd = tmp_fd();

	ck_assert_int_eq(spool_open(dfd, "sp", &c, &s), 0);
	ck_assert_int_eq(append_str(s, 3, "a"), SPOOL_STORED);
	ck_assert_int_eq(append_str(s, 0, "b"), SPOOL_STORED);
	ck_assert_int_eq(append_str(s, SPOOL_Q_LOSS, "c"), SPOOL_STORED);
	ck_assert_int_eq(append_str(s, 4, "d"), SPOOL_STORED);
	ck_assert_int_eq(append_str(s, 0, "e"), SPOOL_STORED);
	ck_assert_int_eq(spool_sync(s), 0);
	spool_get_stats(s, &st);
	ck_assert_uint_eq(st.records, 4);
	ck_assert_uint_eq(st.loss_records, 1);
	ck_assert_uint_eq(st.bytes, 4 * (SPOOL_HEADER_SIZE + 1));
	ck_assert_uint_eq(st.unsent, 5);

	/* Handed out in submission order across queues; confirm the first two. */
	ck_assert_int_eq(spool_next(s, &r), 1);
	ck_assert_uint_eq(r.queue, 3);
	spool_confirm(s, r.queue, r.seq);
	ck_assert_int_eq(spool_next(s, &r), 1);
	ck_assert_uint_eq(r.queue, 0);
	ck_assert_int_eq(r.len, 1);
	ck_assert_int_eq(r.data[0], 'b');
	spool_confirm(s, r.queue, r.seq);
	spool_confirm(s, r.queue, r.seq); /* twice: no-op */
	/* Handed out, not confirmed: comes back after a rewind, and after a restart. */
	ck_assert_int_eq(spool_next(s, &r), 1);
	ck_assert_int_eq(r.data[0], 'c');
	spool_rewind(s);
	ck_assert_str_eq(drain(s, false), "5:c,4:d,0:e");
	ck_assert_int_eq(spool_sync(s), 0);
	spool_close(s);

	ck_assert_int_eq(spool_open(dfd, "sp", &c, &s), 0);
	ck_assert_str_eq(drain(s, true), "5:c,4:d,0:e");
	ck_assert_int_eq(append_str(s, 1, "f"), SPOOL_STORED);
	spool_close(s); /* close persists the cursor */

	/* Everything confirmed earlier stays confirmed; new sequence numbers stay above. */
	ck_assert_int_eq(spool_open(dfd, "sp", &c, &s), 0);
	ck_assert_str_eq(drain(s, true), "1:f");
	spool_close(s);
	ck_assert_int_eq(spool_open(dfd, "sp", &c, &s), 0);
	ck_assert_int_eq(append_str(s, 2, "g"), SPOOL_STORED);
	spool_close(s);
	ck_assert_int_eq(spool_open(dfd, "sp", &c, &s), 0);
	ck_assert_str_eq(drain(s, true), "2:g");
	spool_get_stats(s, &st);
	ck_assert_uint_eq(st.records + st.loss_records, 0);
	ck_assert_uint_eq(st.files, 0); /* segments of delivered records are deleted */
	spool_close(s);
	close(dfd);
}
END_TEST

START_TEST(test_spool_lock)
{
	struct spool_config c = spool_cfg();
	struct spool *s, *s2;
	int dfd = tmp_fd();

	ck_assert_int_eq(spool_open(dfd, "sp", &c, &s), 0);
	ck_assert_int_eq(spool_open(dfd, "sp", &c, &s2), -EBUSY);
	spool_close(s);
	ck_assert_int_eq(spool_open(dfd, "sp", &c, &s2), 0);
	spool_close(s2);
	ck_assert_int_eq(spool_open(dfd, "../x", &c, &s2), -EINVAL);
	close(dfd);
}
END_TEST

START_TEST(test_spool_eviction_policy)
{
	struct spool_config c = spool_cfg();
	struct spool_stats st;
	uint64_t d[SPOOL_QUEUES];
	struct spool *s;
	int dfd = tmp_fd();

	c.max_records = 4;
	ck_assert_int_eq(spool_open(dfd, "sp", &c, &s), 0);
	ck_assert_int_eq(append_str(s, 0, "i1"), SPOOL_STORED);
	ck_assert_int_eq(append_str(s, 1, "l1"), SPOOL_STORED);
	ck_assert_int_eq(append_str(s, 0, "i2"), SPOOL_STORED);
	ck_assert_int_eq(append_str(s, 3, "h1"), SPOOL_STORED);
	/* Full: the oldest info goes first, then the next info. */
	ck_assert_int_eq(append_str(s, 2, "m1"), SPOOL_STORED);
	ck_assert_int_eq(append_str(s, 1, "l2"), SPOOL_STORED);
	/* No info left: a new info is the least severe of all, it is the one dropped. */
	ck_assert_int_eq(append_str(s, 0, "i3"), SPOOL_DROPPED);
	/* A low evicts the oldest low (same severity: older first). */
	ck_assert_int_eq(append_str(s, 1, "l3"), SPOOL_STORED);
	/* Loss reports are kept apart: they evict nothing and are not evicted. */
	ck_assert_int_eq(append_str(s, SPOOL_Q_LOSS, "LOSS"), SPOOL_STORED);
	/* Critical evicts low before medium. */
	ck_assert_int_eq(append_str(s, 4, "c1"), SPOOL_STORED);
	spool_get_stats(s, &st);
	ck_assert_uint_eq(st.records, 4);
	ck_assert_uint_eq(st.loss_records, 1);
	ck_assert_uint_eq(st.dropped[0], 3);
	ck_assert_uint_eq(st.dropped[1], 2);
	ck_assert_uint_eq(st.dropped[2], 0);
	ck_assert_uint_eq(st.dropped[3], 0);
	spool_take_unreported(s, d);
	ck_assert_uint_eq(d[0], 3);
	ck_assert_uint_eq(d[1], 2);
	ck_assert_uint_eq(d[5], 0);
	spool_take_unreported(s, d);
	ck_assert_uint_eq(d[0] + d[1], 0);
	ck_assert_uint_eq(append_str(s, 0, "i4"), SPOOL_DROPPED);
	spool_close(s);

	/* Drop counters persist, and so does what was already reported. */
	ck_assert_int_eq(spool_open(dfd, "sp", &c, &s), 0);
	spool_get_stats(s, &st);
	ck_assert_uint_eq(st.dropped[0], 4);
	spool_take_unreported(s, d);
	ck_assert_uint_eq(d[0], 1);
	ck_assert_uint_eq(d[1], 0);
	ck_assert_str_eq(drain(s, true), "3:h1,2:m1,1:l3,5:LOSS,4:c1");
	spool_close(s);
	close(dfd);
}
END_TEST

START_TEST(test_spool_byte_caps)
{
	struct spool_config c = spool_cfg();
	struct spool_stats st;
	char big[5000];
	struct spool *s;
	int dfd = tmp_fd();

	c.max_bytes = 3 * (SPOOL_HEADER_SIZE + 10);
	c.loss_max_bytes = 2 * (SPOOL_HEADER_SIZE + 10);
	ck_assert_int_eq(spool_open(dfd, "sp", &c, &s), 0);
	ck_assert_int_eq(append_str(s, 2, "medium-001"), SPOOL_STORED);
	ck_assert_int_eq(append_str(s, 2, "medium-002"), SPOOL_STORED);
	ck_assert_int_eq(append_str(s, 2, "medium-003"), SPOOL_STORED);
	ck_assert_int_eq(append_str(s, 2, "medium-004"), SPOOL_STORED);
	/* A 20-byte record needs two 10-byte ones gone. */
	ck_assert_int_eq(append_str(s, 3, "high-0000000000-0001"), SPOOL_STORED);
	spool_get_stats(s, &st);
	ck_assert_uint_eq(st.records, 2);
	ck_assert_uint_eq(st.bytes, 2 * SPOOL_HEADER_SIZE + 30);
	ck_assert_uint_eq(st.dropped[2], 3);
	/* Loss reports: the oldest is superseded when their reserve is full. */
	ck_assert_int_eq(append_str(s, SPOOL_Q_LOSS, "loss-00001"), SPOOL_STORED);
	ck_assert_int_eq(append_str(s, SPOOL_Q_LOSS, "loss-00002"), SPOOL_STORED);
	ck_assert_int_eq(append_str(s, SPOOL_Q_LOSS, "loss-00003"), SPOOL_STORED);
	spool_get_stats(s, &st);
	ck_assert_uint_eq(st.loss_records, 2);
	ck_assert_uint_eq(st.dropped[SPOOL_Q_LOSS], 1);
	/* Too large for the record limit, or for the whole spool: refused, not counted. */
	memset(big, 'x', sizeof(big));
	ck_assert_int_eq(spool_append(s, 4, 0, big, 4097), -E2BIG);
	ck_assert_int_eq(spool_append(s, 4, 0, big, 3 * (SPOOL_HEADER_SIZE + 10)), -E2BIG);
	ck_assert_int_eq(spool_append(s, SPOOL_Q_LOSS, 0, big, 100), -E2BIG);
	ck_assert_int_eq(spool_append(s, 6, 0, big, 1), -EINVAL);
	ck_assert_str_eq(drain(s, true), "2:medium-004,3:high-0000000000-0001,5:loss-00002,"
					 "5:loss-00003");
	spool_close(s);
	close(dfd);
}
END_TEST

START_TEST(test_spool_segments)
{
	struct spool_config c = spool_cfg();
	struct spool_stats st;
	struct spool *s;
	char data[32];
	int dfd = tmp_fd(), i;

	c.segment_bytes = 100; /* about two records per file */
	ck_assert_int_eq(spool_open(dfd, "sp", &c, &s), 0);
	for (i = 0; i < 20; i++) {
		snprintf(data, sizeof(data), "r%02d-%s", i, "xxxxxxxxxxxx");
		ck_assert_int_eq(append_str(s, (unsigned)(i % 3), data), SPOOL_STORED);
	}
	spool_get_stats(s, &st);
	ck_assert_uint_ge(st.files, 6);
	spool_close(s);
	ck_assert_int_eq(spool_open(dfd, "sp", &c, &s), 0);
	{
		char *all = drain(s, true);
		char expect[2048] = "";

		for (i = 0; i < 20; i++) {
			snprintf(data, sizeof(data), "%s%d:r%02d-", i ? "," : "", i % 3, i);
			strcat(expect, data);
			strcat(expect, "xxxxxxxxxxxx");
		}
		ck_assert_str_eq(all, expect);
	}
	spool_get_stats(s, &st);
	ck_assert_uint_eq(st.files, 0);
	spool_close(s);
	close(dfd);
}
END_TEST

static void seg_path(const char *name, char *buf, size_t size)
{
	snprintf(buf, size, "%s/sp/%s", tmpdir, name);
}

START_TEST(test_spool_torn_tail)
{
	struct spool_config c = spool_cfg();
	struct spool_stats st;
	struct spool *s;
	char p[512];
	struct stat sb;
	int dfd = tmp_fd(), fd;

	ck_assert_int_eq(spool_open(dfd, "sp", &c, &s), 0);
	ck_assert_int_eq(append_str(s, 2, "one"), SPOOL_STORED);
	ck_assert_int_eq(append_str(s, 2, "two"), SPOOL_STORED);
	ck_assert_int_eq(append_str(s, 2, "three"), SPOOL_STORED);
	spool_close(s);

	/* A crash mid-write leaves a header and part of a payload. */
	seg_path("2-0000000000000001.seg", p, sizeof(p));
	ck_assert_int_eq(stat(p, &sb), 0);
	ck_assert_int_eq(sb.st_size, 3 * SPOOL_HEADER_SIZE + 11);
	fd = open(p, O_WRONLY | O_APPEND);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "RGS1\x40\0\0\0partial", 15), 15);
	close(fd);
	ck_assert_int_eq(spool_open(dfd, "sp", &c, &s), 0);
	spool_get_stats(s, &st);
	ck_assert_uint_eq(st.corrupt, 1);
	ck_assert_uint_eq(st.records, 3);
	ck_assert_int_eq(stat(p, &sb), 0);
	ck_assert_int_eq(sb.st_size, 3 * SPOOL_HEADER_SIZE + 11);
	ck_assert_int_eq(append_str(s, 2, "four"), SPOOL_STORED);
	spool_close(s);

	/* The last record cut short. */
	ck_assert_int_eq(truncate(p, 4 * SPOOL_HEADER_SIZE + 11 + 2), 0);
	ck_assert_int_eq(spool_open(dfd, "sp", &c, &s), 0);
	spool_get_stats(s, &st);
	ck_assert_uint_eq(st.corrupt, 1);
	ck_assert_str_eq(drain(s, false), "2:one,2:two,2:three");
	spool_close(s);

	/* Only a header fragment. */
	fd = open(p, O_WRONLY | O_APPEND);
	ck_assert_int_eq(write(fd, "RG", 2), 2);
	close(fd);
	ck_assert_int_eq(spool_open(dfd, "sp", &c, &s), 0);
	ck_assert_str_eq(drain(s, false), "2:one,2:two,2:three");
	spool_close(s);
	close(dfd);
}
END_TEST

START_TEST(test_spool_damage_middle)
{
	struct spool_config c = spool_cfg();
	struct spool_stats st;
	struct spool *s;
	char p[512];
	int dfd = tmp_fd(), fd;

	ck_assert_int_eq(spool_open(dfd, "sp", &c, &s), 0);
	ck_assert_int_eq(append_str(s, 4, "one"), SPOOL_STORED);
	ck_assert_int_eq(append_str(s, 4, "two"), SPOOL_STORED);
	ck_assert_int_eq(append_str(s, 4, "three"), SPOOL_STORED);
	spool_close(s);
	/* Flip a payload byte of the second record: its checksum no longer matches. */
	seg_path("4-0000000000000001.seg", p, sizeof(p));
	fd = open(p, O_WRONLY);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(pwrite(fd, "X", 1, 2 * SPOOL_HEADER_SIZE + 3 + 1), 1);
	close(fd);
	ck_assert_int_eq(spool_open(dfd, "sp", &c, &s), 0);
	spool_get_stats(s, &st);
	ck_assert_uint_eq(st.corrupt, 1);
	ck_assert_uint_eq(st.records, 2);
	ck_assert_str_eq(drain(s, false), "4:one,4:three");
	spool_close(s);
	/* Repaired on disk: opening again finds nothing wrong. */
	ck_assert_int_eq(spool_open(dfd, "sp", &c, &s), 0);
	spool_get_stats(s, &st);
	ck_assert_uint_eq(st.corrupt, 0);
	ck_assert_str_eq(drain(s, false), "4:one,4:three");
	spool_close(s);
	close(dfd);
}
END_TEST

/* A copied segment (same records under another name) is damage, not records to send twice. */
START_TEST(test_spool_copied_segment)
{
	struct spool_config c = spool_cfg();
	struct spool_stats st;
	struct spool *s;
	char p[512], q[512];
	char buf[4096];
	ssize_t n;
	int dfd = tmp_fd(), in, out;

	ck_assert_int_eq(spool_open(dfd, "sp", &c, &s), 0);
	ck_assert_int_eq(append_str(s, 2, "one"), SPOOL_STORED);
	ck_assert_int_eq(append_str(s, 2, "two"), SPOOL_STORED);
	spool_close(s);
	seg_path("2-0000000000000001.seg", p, sizeof(p));
	seg_path("2-0000000000000002.seg", q, sizeof(q));
	in = open(p, O_RDONLY);
	out = open(q, O_WRONLY | O_CREAT | O_EXCL, 0600);
	ck_assert_int_ge(in, 0);
	ck_assert_int_ge(out, 0);
	n = read(in, buf, sizeof(buf));
	ck_assert_int_gt(n, 0);
	ck_assert_int_eq(write(out, buf, (size_t)n), n);
	close(in);
	close(out);
	ck_assert_int_eq(spool_open(dfd, "sp", &c, &s), 0);
	spool_get_stats(s, &st);
	ck_assert_uint_eq(st.records, 2);
	ck_assert_uint_eq(st.corrupt, 1);
	ck_assert_str_eq(drain(s, false), "2:one,2:two");
	spool_close(s);
	close(dfd);
}
END_TEST

START_TEST(test_spool_cursor_fallback)
{
	struct spool_config c = spool_cfg();
	struct spool_record r;
	struct spool *s;
	char p[512], slot0[256], slot1[256];
	uint64_t g0, g1;
	int dfd = tmp_fd(), fd;

	ck_assert_int_eq(spool_open(dfd, "sp", &c, &s), 0);
	ck_assert_int_eq(append_str(s, 1, "a"), SPOOL_STORED);
	ck_assert_int_eq(append_str(s, 1, "b"), SPOOL_STORED);
	ck_assert_int_eq(append_str(s, 1, "c"), SPOOL_STORED);
	ck_assert_int_eq(spool_sync(s), 0);
	ck_assert_int_eq(spool_next(s, &r), 1);
	spool_confirm(s, r.queue, r.seq);
	ck_assert_int_eq(spool_sync(s), 0);
	ck_assert_int_eq(spool_next(s, &r), 1);
	spool_confirm(s, r.queue, r.seq);
	ck_assert_int_eq(spool_sync(s), 0);
	spool_close(s);
	/* Tear the newest cursor slot; the older one says only "a" was delivered. */
	snprintf(p, sizeof(p), "%s/sp/cursor", tmpdir);
	fd = open(p, O_RDWR);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(pread(fd, slot0, 256, 0), 256);
	ck_assert_int_eq(pread(fd, slot1, 256, 256), 256);
	memcpy(&g0, slot0 + 8, 8);
	memcpy(&g1, slot1 + 8, 8);
	ck_assert_uint_ne(g0, g1);
	ck_assert_int_eq(pwrite(fd, "\xff\xff", 2, g0 > g1 ? 20 : 256 + 20), 2);
	close(fd);
	ck_assert_int_eq(spool_open(dfd, "sp", &c, &s), 0);
	/* "b" comes again (a duplicate), nothing is lost. */
	ck_assert_str_eq(drain(s, true), "1:b,1:c");
	spool_close(s);
	close(dfd);
}
END_TEST

/* ---- outputs with threads ---- */

static struct json_object *alert(const char *uuid, const char *rule, const char *sev,
				 const char *msg)
{
	struct json_object *a = json_object_new_object(), *ev = json_object_new_object(),
			   *ru = json_object_new_object();

	json_object_object_add(a, "@timestamp", json_object_new_string("2026-12-02T13:56:29.123456Z"));
	if (uuid)
		json_object_object_add(ev, "id", json_object_new_string(uuid));
	json_object_object_add(ev, "kind", json_object_new_string("alert"));
	json_object_object_add(a, "event", ev);
	json_object_object_add(ru, "id", json_object_new_string(rule));
	json_object_object_add(a, "rule", ru);
	json_object_object_add(a, "severity", json_object_new_string(sev));
	json_object_object_add(a, "message", json_object_new_string(msg));
	return a;
}

static void submit(struct rg_outputs *o, const char *uuid, const char *sev, const char *msg)
{
	struct json_object *a = alert(uuid, "RDMA-005", sev, msg);

	ck_assert_int_eq(outputs_submit(o, a), 0);
	json_object_put(a);
}

static int count_lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

static char *slurp(const char *path)
{
	static char buf[65536];
	int fd = open(path, O_RDONLY);
	ssize_t n;

	ck_assert_int_ge(fd, 0);
	n = read(fd, buf, sizeof(buf) - 1);
	ck_assert_int_ge(n, 0);
	buf[n] = 0;
	close(fd);
	return buf;
}

START_TEST(test_file_output)
{
	struct output_spec spec;
	struct rg_outputs *o;
	struct output_counters c;
	char path[512], rotated[512], sp[600], err[256];
	struct stat st;
	const char *l1 = "{\"@timestamp\":\"2026-12-02T13:56:29.123456Z\",\"event\":{\"id\":\"u1\","
			 "\"kind\":\"alert\"},\"rule\":{\"id\":\"RDMA-005\"},\"severity\":\"high\","
			 "\"message\":\"a/b \\\"q\\\" \xc3\xa9\"}\n";

	snprintf(path, sizeof(path), "%s/alerts.jsonl", tmpdir);
	snprintf(rotated, sizeof(rotated), "%s/alerts.jsonl.1", tmpdir);
	snprintf(sp, sizeof(sp), "file:%s", path);
	ck_assert_int_eq(output_spec_parse(sp, &spec, err, sizeof(err)), 0);
	umask(022);
	ck_assert_int_eq(outputs_new(&spec, 1, NULL, &o), 0);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_int_eq(st.st_mode & 0777, 0600);
	submit(o, "u1", "high", "a/b \"q\" \xc3\xa9");
	submit(o, "u2", "low", "two");
	ck_assert_int_eq(outputs_flush(o, 5000), 0);
	{
		char *all = slurp(path);

		ck_assert_int_eq(strncmp(all, l1, strlen(l1)), 0);
		ck_assert_ptr_nonnull(strstr(all, "\"id\":\"u2\""));
		ck_assert_int_eq(count_lines(all), 2);
	}

	/* logrotate: rename, then SIGUSR1 -> outputs_reopen(). Order is kept exactly. */
	ck_assert_int_eq(rename(path, rotated), 0);
	submit(o, "u3", "info", "three");
	ck_assert_int_eq(outputs_reopen(o), 0);
	submit(o, "u4", "critical", "four");
	ck_assert_int_eq(outputs_flush(o, 5000), 0);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_int_eq(st.st_mode & 0777, 0600);
	ck_assert_ptr_nonnull(strstr(slurp(rotated), "\"id\":\"u3\""));
	ck_assert_ptr_null(strstr(slurp(rotated), "\"id\":\"u4\""));
	ck_assert_ptr_nonnull(strstr(slurp(path), "\"id\":\"u4\""));
	ck_assert_ptr_null(strstr(slurp(path), "\"id\":\"u3\""));
	ck_assert_int_eq(outputs_get_counters(o, 0, &c), 0);
	ck_assert_uint_eq(c.written, 4);
	ck_assert_uint_eq(c.submitted, 4);
	ck_assert_uint_eq(c.queued, 0);
	/* Bytes: what the two files hold, newlines included; written is delivered. */
	ck_assert_uint_eq(c.written_bytes, strlen(slurp(rotated)) + strlen(slurp(path)));
	ck_assert_uint_eq(c.delivered, 4);
	ck_assert_uint_eq(c.delivered_bytes, c.written_bytes);
	for (unsigned k = 0; k < _OUTPUT_FAIL_N; k++)
		ck_assert_uint_eq(c.failed[k] + c.failed_bytes[k], 0);
	outputs_free(o);
}
END_TEST

/* An alert the engine already wrote goes out verbatim (outputs_submit_alert). And a file
 * that stops taking writes part way (RLIMIT_FSIZE): the alerts written whole are counted
 * written, the one cut short and every later one are counted lost to write errors, and the file
 * holds only whole lines before the cut. */
START_TEST(test_file_text_and_write_errors)
{
	struct output_spec spec;
	struct rg_outputs *o;
	struct output_counters c;
	struct rlimit old, lim;
	char path[512], sp[600], err[256], text[10][200], uuid[10][8];
	struct rg_alert a = {.rule_id = "RDMA-005", .severity = 3};
	int i;

	snprintf(path, sizeof(path), "%s/cut.jsonl", tmpdir);
	snprintf(sp, sizeof(sp), "file:%s", path);
	ck_assert_int_eq(output_spec_parse(sp, &spec, err, sizeof(err)), 0);
	ck_assert_int_eq(outputs_new(&spec, 1, NULL, &o), 0);
	/* Lines of exactly 200 bytes with their newline. */
	for (i = 0; i < 10; i++) {
		int n;

		snprintf(uuid[i], sizeof(uuid[i]), "u%d", i);
		n = snprintf(text[i], sizeof(text[i]), "{\"event\":{\"id\":\"%s\"},\"pad\":\"",
			     uuid[i]);
		memset(text[i] + n, 'x', 199 - 2 - (size_t)n);
		memcpy(text[i] + 197, "\"}", 3);
		ck_assert_uint_eq(strlen(text[i]), 199);
	}
	a.json = text[0];
	a.len = 199;
	a.uuid = uuid[0];
	ck_assert_int_eq(outputs_submit_alert(o, &a, 0), 0);
	ck_assert_int_eq(outputs_flush(o, 5000), 0);
	ck_assert_int_eq(strncmp(slurp(path), text[0], 199), 0);
	ck_assert_int_eq(slurp(path)[199], '\n');
	a.json = NULL;
	ck_assert_int_eq(outputs_submit_alert(o, &a, 0), -EINVAL);

	/* 200 bytes there; room for 2 more lines and 50 bytes of a third. */
	ck_assert_int_eq(getrlimit(RLIMIT_FSIZE, &old), 0);
	signal(SIGXFSZ, SIG_IGN);
	lim = old;
	lim.rlim_cur = 650;
	ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &lim), 0);
	for (i = 1; i < 10; i++) {
		a.json = text[i];
		a.uuid = uuid[i];
		ck_assert_int_eq(outputs_submit_alert(o, &a, 0), 0);
	}
	(void)outputs_flush(o, 5000);
	ck_assert_int_eq(outputs_get_counters(o, 0, &c), 0);
	ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &old), 0);
	signal(SIGXFSZ, SIG_DFL);
	ck_assert_uint_eq(c.written, 3);
	ck_assert_uint_eq(c.dropped[OUTPUT_DROP_WRITE_ERROR], 7);
	/* 600 bytes in the file, 7 lines of 200 failed: the one cut short is not counted written */
	ck_assert_uint_eq(c.written_bytes, 600);
	ck_assert_uint_eq(c.delivered, 3);
	ck_assert_uint_eq(c.delivered_bytes, 600);
	ck_assert_uint_eq(c.failed[OUTPUT_FAIL_WRITE_ERROR], 7);
	ck_assert_uint_eq(c.failed_bytes[OUTPUT_FAIL_WRITE_ERROR], 7 * 200);
	ck_assert_uint_eq(c.failed[OUTPUT_FAIL_CONNECTION_LOST] + c.failed[OUTPUT_FAIL_SPOOL_ERROR],
			  0);
	{
		char *all = slurp(path);

		/* The 50 bytes of the fourth line that did fit are cut off again: whole lines. */
		ck_assert_uint_eq(strlen(all), 600);
		ck_assert_int_eq(count_lines(all), 3);
		for (i = 0; i < 3; i++)
			ck_assert_int_eq(strncmp(all + 200 * i, text[i], 199), 0);
	}
	outputs_free(o);
}
END_TEST

START_TEST(test_stdout_output_and_uuid)
{
	struct output_spec spec;
	struct rg_outputs *o;
	struct json_object *a, *got, *v;
	char buf[4096], err[256];
	int pipefd[2], saved;
	ssize_t n;

	ck_assert_int_eq(pipe2(pipefd, O_CLOEXEC), 0);
	saved = dup(STDOUT_FILENO);
	ck_assert_int_eq(dup2(pipefd[1], STDOUT_FILENO), STDOUT_FILENO);
	ck_assert_int_eq(output_spec_parse("stdout", &spec, err, sizeof(err)), 0);
	ck_assert_int_eq(outputs_new(&spec, 1, NULL, &o), 0);
	dup2(saved, STDOUT_FILENO);
	close(saved);
	close(pipefd[1]);

	/* No event.id: one is added (to the caller's object too). Flat dotted keys work. */
	a = json_tokener_parse("{\"rule.id\":\"RDMA-001\",\"severity\":\"info\",\"message\":\"m\"}");
	ck_assert_int_eq(outputs_submit(o, a), 0);
	ck_assert(json_object_object_get_ex(a, "event", &v));
	ck_assert(json_object_object_get_ex(v, "id", &v));
	ck_assert_int_eq(strlen(json_object_get_string(v)), 36);
	ck_assert_int_eq(outputs_flush(o, 5000), 0);
	outputs_free(o);
	n = read(pipefd[0], buf, sizeof(buf) - 1);
	ck_assert_int_gt(n, 0);
	buf[n] = 0;
	ck_assert_int_eq(buf[n - 1], '\n');
	ck_assert_int_eq(count_lines(buf), 1);
	got = json_tokener_parse(buf);
	ck_assert_ptr_nonnull(got);
	ck_assert_str_eq(json_object_to_json_string(got), json_object_to_json_string(a));
	json_object_put(got);
	json_object_put(a);
	close(pipefd[0]);

	/* Not an object: refused. "event" that is not an object: refused. */
	ck_assert_int_eq(outputs_new(NULL, 0, NULL, &o), 0);
	a = json_object_new_array();
	ck_assert_int_eq(outputs_submit(o, a), -EINVAL);
	json_object_put(a);
	a = json_tokener_parse("{\"event\":5}");
	ck_assert_int_eq(outputs_submit(o, a), -EINVAL);
	json_object_put(a);
	outputs_free(o);
}
END_TEST

struct loss_capture {
	int calls;
	struct output_loss last;
	uint64_t sum_sev[RG_SEV__MAX];
};

static void on_loss(const struct output_loss *l, void *ud)
{
	struct loss_capture *lc = ud;
	unsigned i;

	lc->calls++;
	lc->last = *l;
	for (i = 0; i < RG_SEV__MAX; i++)
		lc->sum_sev[i] += l->by_severity[i];
}

START_TEST(test_too_large_reported)
{
	struct output_spec spec;
	struct outputs_config cfg = {.max_alert_bytes = 300, .loss_interval_ms = 1};
	struct loss_capture lc = {0};
	struct rg_outputs *o;
	struct output_counters c;
	struct json_object *a, *j;
	char path[512], sp[600], err[256], big[400];
	struct pollfd p;

	cfg.loss_cb = on_loss;
	cfg.loss_userdata = &lc;
	snprintf(path, sizeof(path), "%s/a.jsonl", tmpdir);
	snprintf(sp, sizeof(sp), "file:%s", path);
	ck_assert_int_eq(output_spec_parse(sp, &spec, err, sizeof(err)), 0);
	ck_assert_int_eq(outputs_new(&spec, 1, &cfg, &o), 0);
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = 0;
	a = alert("u1", "RDMA-001", "low", big);
	ck_assert_int_eq(outputs_submit(o, a), -E2BIG);
	json_object_put(a);
	ck_assert_int_eq(outputs_get_counters(o, 0, &c), 0);
	ck_assert_uint_eq(c.dropped[OUTPUT_DROP_TOO_LARGE], 1);
	ck_assert_uint_eq(c.dropped_by_severity[RG_SEV_LOW], 1);
	/* The loss is reported through the event fd and outputs_dispatch(). */
	p = (struct pollfd){.fd = outputs_get_fd(o), .events = POLLIN};
	ck_assert_int_eq(poll(&p, 1, 5000), 1);
	ck_assert_int_eq(outputs_dispatch(o), 0);
	ck_assert_int_eq(lc.calls, 1);
	ck_assert_uint_eq(lc.last.total, 1);
	ck_assert_uint_eq(lc.last.by_severity[RG_SEV_LOW], 1);
	ck_assert_uint_eq(lc.last.by_reason[OUTPUT_DROP_TOO_LARGE], 1);
	ck_assert_str_eq(lc.last.output, spec.name);
	j = json_object_new_object();
	ck_assert_int_eq(output_loss_to_json(&lc.last, j), 0);
	ck_assert_str_eq(json_object_get_string(json_object_object_get(j, "output")), spec.name);
	{
		struct json_object *d, *v;

		ck_assert(json_object_object_get_ex(j, "dropped", &d));
		ck_assert(json_object_object_get_ex(d, "low", &v));
		ck_assert_int_eq(json_object_get_int64(v), 1);
		ck_assert(json_object_object_get_ex(d, "total", &v));
		ck_assert_int_eq(json_object_get_int64(v), 1);
		ck_assert(json_object_object_get_ex(j, "reasons", &d));
		ck_assert(json_object_object_get_ex(d, "too_large", &v));
		ck_assert_int_eq(json_object_get_int64(v), 1);
	}
	json_object_put(j);
	{
		struct output_loss l = {.output = "syslog+tcp://10.0.0.1:514", .total = 20};
		const char *what;
		char text[200];

		l.by_severity[RG_SEV_INFO] = 15;
		l.by_severity[RG_SEV_LOW] = 5;
		l.by_reason[OUTPUT_DROP_SPOOL_FULL] = 18;
		l.by_reason[OUTPUT_DROP_QUEUE_FULL] = 2;
		ck_assert_uint_eq(output_loss_describe(&l, &what, text, sizeof(text)),
				  strlen(text));
		ck_assert_str_eq(text, "syslog+tcp://10.0.0.1:514: 20 alert(s) dropped (info 15, "
				       "low 5; queue_full 2, spool_full 18)");
		ck_assert_str_eq(what, "spool");
		ck_assert_uint_eq(output_loss_describe(&lc.last, &what, text, 10), 80);
		ck_assert_str_eq(what, "output");
		ck_assert_int_eq(strlen(text), 9);
	}
	/* Nothing more to report. */
	ck_assert_int_eq(outputs_dispatch(o), 0);
	ck_assert_int_eq(lc.calls, 1);
	outputs_free(o);
}
END_TEST

/* A stuck output (stdout into a full pipe): the memory queue is capped and sheds lowest first. */
START_TEST(test_queue_full_policy)
{
	struct outputs_config cfg = {.queue_max_records = 3, .loss_interval_ms = 1};
	struct loss_capture lc = {0};
	struct output_spec spec;
	struct output_counters c;
	struct rg_outputs *o;
	char big[6000], err[256], *buf;
	const char *order[] = {"big", "h1", "m1", "h2"};
	int pipefd[2], saved, i, lines = 0;
	size_t len = 0;
	ssize_t n;

	cfg.loss_cb = on_loss;
	cfg.loss_userdata = &lc;
	ck_assert_int_eq(pipe2(pipefd, O_CLOEXEC), 0);
	ck_assert_int_eq(fcntl(pipefd[1], F_SETPIPE_SZ, 4096), 4096);
	saved = dup(STDOUT_FILENO);
	ck_assert_int_eq(dup2(pipefd[1], STDOUT_FILENO), STDOUT_FILENO);
	ck_assert_int_eq(output_spec_parse("stdout", &spec, err, sizeof(err)), 0);
	ck_assert_int_eq(outputs_new(&spec, 1, &cfg, &o), 0);
	dup2(saved, STDOUT_FILENO);
	close(saved);
	close(pipefd[1]);

	/* An alert larger than the pipe: the thread takes it and blocks writing it. */
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = 0;
	submit(o, "big", "info", big);
	for (i = 0; i < 500; i++) {
		ck_assert_int_eq(outputs_get_counters(o, 0, &c), 0);
		if (c.queued == 0)
			break;
		usleep(10000);
	}
	ck_assert_uint_eq(c.queued, 0);
	ck_assert_int_eq(outputs_flush(o, 50), -ETIMEDOUT);

	submit(o, "i1", "info", "1");
	submit(o, "l1", "low", "2");
	submit(o, "h1", "high", "3");
	submit(o, "m1", "medium", "4"); /* full: the info goes */
	submit(o, "i2", "info", "5");	/* less severe than all queued: refused */
	submit(o, "h2", "high", "6");	/* the low goes */
	ck_assert_int_eq(outputs_get_counters(o, 0, &c), 0);
	ck_assert_uint_eq(c.queued, 3);
	ck_assert_uint_eq(c.dropped[OUTPUT_DROP_QUEUE_FULL], 3);
	ck_assert_uint_eq(c.dropped_by_severity[RG_SEV_INFO], 2);
	ck_assert_uint_eq(c.dropped_by_severity[RG_SEV_LOW], 1);

	/* Unblock: what is left comes out in order. */
	buf = malloc(1 << 16);
	while (lines < 4) {
		n = read(pipefd[0], buf + len, (1 << 16) - 1 - len);
		ck_assert_int_gt(n, 0);
		len += (size_t)n;
		buf[len] = 0;
		lines = count_lines(buf);
	}
	{
		char *line = buf;

		for (i = 0; i < 4; i++) {
			char needle[32];
			char *nl = strchr(line, '\n');

			*nl = 0;
			snprintf(needle, sizeof(needle), "\"id\":\"%s\"", order[i]);
			ck_assert_ptr_nonnull(strstr(line, needle));
			line = nl + 1;
		}
	}
	ck_assert_int_eq(outputs_flush(o, 5000), 0);
	ck_assert_int_eq(outputs_dispatch(o), 0);
	for (i = 0; i < 500 && lc.calls == 0; i++) {
		struct pollfd p = {.fd = outputs_get_fd(o), .events = POLLIN};

		if (poll(&p, 1, 10) > 0)
			outputs_dispatch(o);
	}
	ck_assert_uint_eq(lc.sum_sev[RG_SEV_INFO], 2);
	ck_assert_uint_eq(lc.sum_sev[RG_SEV_LOW], 1);
	ck_assert_uint_eq(lc.last.by_reason[OUTPUT_DROP_QUEUE_FULL], 3);
	free(buf);
	outputs_free(o);
	close(pipefd[0]);
}
END_TEST

START_TEST(test_outputs_new_errors)
{
	struct output_spec spec[2];
	struct outputs_config cfg = {0};
	struct rg_outputs *o;
	char p[512], sp[600], err[256];

	/* Syslog needs a state directory. */
	ck_assert_int_eq(output_spec_parse("syslog+tcp://127.0.0.1:9", &spec[0], err, sizeof(err)),
			 0);
	ck_assert_int_eq(outputs_new(spec, 1, &cfg, &o), -EINVAL);
	/* Given twice. */
	spec[1] = spec[0];
	cfg.state_dir = tmpdir;
	ck_assert_int_eq(outputs_new(spec, 2, &cfg, &o), -EEXIST);
	/* Bad facility. */
	cfg.facility = "nope";
	ck_assert_int_eq(outputs_new(spec, 1, &cfg, &o), -EINVAL);
	cfg.facility = NULL;
	/* A file in a missing directory; a FIFO; a symlink. */
	snprintf(sp, sizeof(sp), "file:%s/missing/a", tmpdir);
	ck_assert_int_eq(output_spec_parse(sp, &spec[0], err, sizeof(err)), 0);
	ck_assert_int_eq(outputs_new(spec, 1, &cfg, &o), -ENOENT);
	snprintf(p, sizeof(p), "%s/fifo", tmpdir);
	ck_assert_int_eq(mkfifo(p, 0600), 0);
	snprintf(sp, sizeof(sp), "file:%s", p);
	ck_assert_int_eq(output_spec_parse(sp, &spec[0], err, sizeof(err)), 0);
	ck_assert_int_eq(outputs_new(spec, 1, &cfg, &o), -EBADFD);
	snprintf(p, sizeof(p), "%s/link", tmpdir);
	ck_assert_int_eq(symlink("/dev/null", p), 0);
	snprintf(sp, sizeof(sp), "file:%s", p);
	ck_assert_int_eq(output_spec_parse(sp, &spec[0], err, sizeof(err)), 0);
	ck_assert_int_eq(outputs_new(spec, 1, &cfg, &o), -ELOOP);
	/* TLS material that is missing or not a file. */
	snprintf(sp, sizeof(sp), "syslog+tls://127.0.0.1:9?ca=%s/nope.pem", tmpdir);
	ck_assert_int_eq(output_spec_parse(sp, &spec[0], err, sizeof(err)), 0);
	ck_assert_int_eq(outputs_new(spec, 1, &cfg, &o), -ENOENT);
	snprintf(sp, sizeof(sp), "syslog+tls://127.0.0.1:9?ca=%s", tmpdir);
	ck_assert_int_eq(output_spec_parse(sp, &spec[0], err, sizeof(err)), 0);
	ck_assert_int_eq(outputs_new(spec, 1, &cfg, &o), -EBADFD);
	snprintf(p, sizeof(p), "%s/garbage.pem", tmpdir);
	{
		int fd = open(p, O_WRONLY | O_CREAT, 0600);
		ck_assert_int_eq(write(fd, "not a cert\n", 11), 11);
		close(fd);
	}
	snprintf(sp, sizeof(sp), "syslog+tls://127.0.0.1:9?ca=%s", p);
	ck_assert_int_eq(output_spec_parse(sp, &spec[0], err, sizeof(err)), 0);
	ck_assert_int_eq(outputs_new(spec, 1, &cfg, &o), -EINVAL);
}
END_TEST

/* A real TCP collector in the test: reads octet-counted frames from accepted connections. */
struct collector {
	int lfd, cfd;
	char buf[1 << 16];
	size_t len;
	size_t frame_bytes; /* of the last frame, its length prefix included */
};

static void collector_listen(struct collector *c, uint16_t *port)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t al = sizeof(a);

	c->cfd = -1;
	c->len = 0;
	c->lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	ck_assert_int_ge(c->lfd, 0);
	ck_assert_int_eq(bind(c->lfd, (struct sockaddr *)&a, sizeof(a)), 0);
	ck_assert_int_eq(listen(c->lfd, 4), 0);
	ck_assert_int_eq(getsockname(c->lfd, (struct sockaddr *)&a, &al), 0);
	*port = ntohs(a.sin_port);
}

static void collector_accept(struct collector *c)
{
	struct pollfd p = {.fd = c->lfd, .events = POLLIN};

	ck_assert_int_eq(poll(&p, 1, 10000), 1);
	c->cfd = accept4(c->lfd, NULL, NULL, SOCK_CLOEXEC);
	ck_assert_int_ge(c->cfd, 0);
	c->len = 0;
}

/* Next frame's MSG into msg (NUL-terminated); false on EOF. */
static bool collector_frame(struct collector *c, char *msg, size_t size)
{
	for (;;) {
		char *sp = memchr(c->buf, ' ', c->len);
		ssize_t n;

		if (sp) {
			size_t flen = (size_t)strtoul(c->buf, NULL, 10), hl = (size_t)(sp - c->buf) + 1;

			if (c->len >= hl + flen) {
				ck_assert_uint_lt(flen, size);
				memcpy(msg, c->buf + hl, flen);
				msg[flen] = 0;
				c->frame_bytes = hl + flen;
				memmove(c->buf, c->buf + hl + flen, c->len - hl - flen);
				c->len -= hl + flen;
				return true;
			}
		}
		{
			struct pollfd p = {.fd = c->cfd, .events = POLLIN};
			ck_assert_int_eq(poll(&p, 1, 10000), 1);
		}
		n = read(c->cfd, c->buf + c->len, sizeof(c->buf) - c->len);
		if (n <= 0)
			return false;
		c->len += (size_t)n;
	}
}

static int uuid_index(const char *msg)
{
	const char *p = strstr(msg, " id=\"u-");

	ck_assert_ptr_nonnull(p);
	return atoi(p + 7);
}

START_TEST(test_syslog_replay_after_reset)
{
	struct outputs_config cfg = {
		.state_dir = tmpdir,
		.hostname = "testhost",
		.facility = "local0",
		.backoff_min_ms = 10,
		.backoff_max_ms = 50,
		/* Longer than this test can take between our writes and its reset, however loaded
		 * the machine: what the collector has not read must not count as delivered. */
		.confirm_ms = 3000,
	};
	struct output_spec spec;
	struct rg_outputs *o;
	struct output_counters c;
	struct collector col;
	char sp[128], err[256], msg[2048], uuid[32];
	int i, next = 0, received = 0, replay_first;
	uint16_t port;
	/* Each record's frame as the collector received it; the bytes of the replayed ones. */
	size_t frame[50] = {0}, msglen[50] = {0}, replay_bytes = 0, wire = 0, second = 0;
	unsigned k;

	collector_listen(&col, &port);
	snprintf(sp, sizeof(sp), "syslog+tcp://127.0.0.1:%u", port);
	ck_assert_int_eq(output_spec_parse(sp, &spec, err, sizeof(err)), 0);
	ck_assert_int_eq(outputs_new(&spec, 1, &cfg, &o), 0);
	for (i = 0; i < 40; i++) {
		snprintf(uuid, sizeof(uuid), "u-%d", i);
		submit(o, uuid, i % 2 ? "high" : "info", "m");
	}
	collector_accept(&col);
	/* The exact wire format of the first record. */
	ck_assert(collector_frame(&col, msg, sizeof(msg)));
	frame[0] = col.frame_bytes;
	msglen[0] = strlen(msg);
	wire += col.frame_bytes;
	ck_assert(startswith(msg, "<134>1 2026-12-02T13:56:29.123456Z testhost rdmaguard "));
	ck_assert_ptr_nonnull(strstr(msg, " RDMA-005 [rdmaguard@32473 rule=\"RDMA-005\" "
					  "severity=\"info\" id=\"u-0\"] {\"@timestamp\":"));
	next = 1;
	received = 1;
	/* Read ten, then reset the connection with the rest unread: nothing confirmed yet. */
	while (received < 10) {
		ck_assert(collector_frame(&col, msg, sizeof(msg)));
		ck_assert_int_eq(uuid_index(msg), next);
		frame[next] = col.frame_bytes;
		msglen[next] = strlen(msg);
		wire += col.frame_bytes;
		next++;
		received++;
	}
	{
		struct linger l = {.l_onoff = 1, .l_linger = 0};
		setsockopt(col.cfd, SOL_SOCKET, SO_LINGER, &l, sizeof(l));
	}
	close(col.cfd);
	/* Everything not confirmed comes again, in order, on the next connection. */
	for (i = 40; i < 50; i++) {
		snprintf(uuid, sizeof(uuid), "u-%d", i);
		submit(o, uuid, "medium", "m");
	}
	collector_accept(&col);
	ck_assert(collector_frame(&col, msg, sizeof(msg)));
	replay_first = uuid_index(msg);
	ck_assert_int_le(replay_first, 10); /* a replay starts at or before what we saw */
	frame[replay_first] = col.frame_bytes;
	msglen[replay_first] = strlen(msg);
	next = replay_first + 1;
	while (next < 50) {
		ck_assert(collector_frame(&col, msg, sizeof(msg)));
		ck_assert_int_eq(uuid_index(msg), next);
		frame[next] = col.frame_bytes;
		msglen[next] = strlen(msg);
		next++;
	}
	/* Delivered once confirmed; the spool is empty then. */
	for (i = 0; i < 1000; i++) {
		ck_assert_int_eq(outputs_get_counters(o, 0, &c), 0);
		if (c.delivered == 50 && c.spool_records == 0)
			break;
		usleep(20000);
	}
	ck_assert_uint_eq(c.delivered, 50);
	ck_assert_uint_eq(c.spool_records, 0);
	ck_assert_uint_ge(c.replayed, 1);
	/* Bytes: every frame once delivered, exactly what the collector read for it. The
	 * records the first connection took and did not confirm failed on it, and are the ones
	 * the second connection sent again (replayed): the first c.replayed frames it read. */
	for (i = 0, k = 0; i < 50; i++) {
		ck_assert_uint_gt(frame[i], 0);
		k += (unsigned)frame[i];
	}
	ck_assert_uint_eq(c.delivered_bytes, k);
	ck_assert_uint_eq(c.failed[OUTPUT_FAIL_CONNECTION_LOST], c.replayed);
	for (i = replay_first; i < replay_first + (int)c.replayed; i++)
		replay_bytes += frame[i];
	ck_assert_uint_eq(c.failed_bytes[OUTPUT_FAIL_CONNECTION_LOST], replay_bytes);
	/* Sent whole: at least what the collector read on the first connection and all of the
	 * second; at most what was taken from the spool, delivered or failed. */
	for (i = replay_first; i < 50; i++)
		second += frame[i];
	ck_assert_uint_ge(c.sent_bytes, wire + second);
	ck_assert_uint_le(c.sent_bytes,
			  c.delivered_bytes + c.failed_bytes[OUTPUT_FAIL_CONNECTION_LOST]);
	ck_assert_uint_eq(c.failed[OUTPUT_FAIL_WRITE_ERROR] + c.failed[OUTPUT_FAIL_SPOOL_ERROR], 0);
	/* Spooled: the RFC 5424 messages, without their length prefix. */
	for (i = 0, k = 0; i < 50; i++)
		k += (unsigned)msglen[i];
	ck_assert_uint_eq(c.spooled_bytes, k);
	ck_assert_uint_eq(c.connects, 2);
	ck_assert_uint_eq(c.disconnects, 1);
	ck_assert_uint_eq(c.spooled, 50);
	ck_assert_int_eq(outputs_flush(o, 5000), 0);
	outputs_free(o);
	close(col.cfd);
	close(col.lfd);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("output");
	TCase *core = tcase_create("core"), *limits = tcase_create("limits"),
	      *errors = tcase_create("errors");
	SRunner *sr;
	int failed;

	tcase_add_checked_fixture(core, setup, teardown);
	tcase_add_checked_fixture(limits, setup, teardown);
	tcase_add_checked_fixture(errors, setup, teardown);
	tcase_add_test(core, test_rfc5424_full);
	tcase_add_test(core, test_rfc5424_nil);
	tcase_add_test(core, test_rfc5424_sd_escaping);
	tcase_add_test(core, test_rfc5424_msg_any_and_bom);
	tcase_add_test(core, test_rfc6587_and_facility);
	tcase_add_test(core, test_spec_valid);
	tcase_add_test(core, test_spool_order_and_persistence);
	tcase_add_test(core, test_spool_eviction_policy);
	tcase_add_test(core, test_spool_segments);
	tcase_add_test(core, test_file_output);
	tcase_add_test(core, test_file_text_and_write_errors);
	tcase_add_test(core, test_stdout_output_and_uuid);
	tcase_add_test(core, test_syslog_replay_after_reset);
	tcase_add_test(limits, test_rfc5424_header_limits);
	tcase_add_test(limits, test_rfc5424_truncation);
	tcase_add_test(limits, test_spec_limits);
	tcase_add_test(limits, test_spool_byte_caps);
	tcase_add_test(limits, test_too_large_reported);
	tcase_add_test(limits, test_queue_full_policy);
	tcase_add_test(errors, test_spec_errors);
	tcase_add_test(errors, test_spool_lock);
	tcase_add_test(errors, test_spool_torn_tail);
	tcase_add_test(errors, test_spool_damage_middle);
	tcase_add_test(errors, test_spool_copied_segment);
	tcase_add_test(errors, test_spool_cursor_fallback);
	tcase_add_test(errors, test_outputs_new_errors);
	suite_add_tcase(s, core);
	suite_add_tcase(s, limits);
	suite_add_tcase(s, errors);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
