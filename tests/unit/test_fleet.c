/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The fleet part of the policy (agent/policy/policy_fleet.c) and what the engine makes of it:
 * CIDRs, the classification of peers as seat, server or unknown, the policy's errors at
 * file:line:column, the policy's sha256, the seat label, and the alerts' peer fields with the
 * one-step severity raise for an unknown RDMA peer (docs/seat.md). Also the event's peer
 * (event_peer) and the os-release parser of the identity module.
 */
#include <arpa/inet.h>
#include <check.h>
#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "engine/engine.h"
#include "policy/policy.h"
#include "rules/rules.h"
#include "event/event.h"
#include "identity/identity.h"

#define SEC 1000000000ull
#define T0  (1767225600ull * SEC)

static const char fleet_policy[] =
	"{\"seat\": \"B-12\",\n"
	" \"fleet\": {\"seats\": [\"10.0.0.0/24\", \"fd00:1::/64\"],\n"
	"           \"servers\": [\"10.0.9.0/28\", {\"address\": \"10.0.0.200\", \"name\": \"gs-1\"}]}}\n";

static struct rg_policy *parse(const char *text)
{
	struct rg_policy *p = NULL;
	struct rg_error err;
	char buf[512];

	ck_assert_msg(policy_parse("p.json", text, strlen(text), &p, &err) == 0, "%s",
		      rg_error_format(&err, buf, sizeof(buf)));
	return p;
}

/* The error text of a policy that must not load. */
static const char *parse_error(const char *text)
{
	static char buf[512];
	struct rg_policy *p = NULL;
	struct rg_error err;

	ck_assert_int_eq(policy_parse("p.json", text, strlen(text), &p, &err), -EINVAL);
	ck_assert_ptr_null(p);
	return rg_error_format(&err, buf, sizeof(buf));
}

static void v4(const char *s, uint8_t out[16])
{
	memset(out, 0, 16);
	out[10] = out[11] = 0xff;
	ck_assert_int_eq(inet_pton(AF_INET, s, out + 12), 1);
}

static int class_of(const struct rg_policy *p, const char *addr, const char **name)
{
	uint8_t a[16];

	if (strchr(addr, ':'))
		ck_assert_int_eq(inet_pton(AF_INET6, addr, a), 1);
	else
		v4(addr, a);
	return policy_fleet_classify(p, a, name);
}

START_TEST(test_classify)
{
	struct rg_policy *p = parse(fleet_policy);
	const char *name;

	ck_assert_str_eq(p->seat, "B-12");
	ck_assert(p->has_fleet);
	ck_assert_uint_eq(p->n_fleet_seats, 2);
	ck_assert_uint_eq(p->n_fleet_servers, 2);
	ck_assert_int_eq(class_of(p, "10.0.0.7", &name), RG_PEER_SEAT);
	ck_assert_ptr_null(name);
	ck_assert_int_eq(class_of(p, "10.0.0.255", NULL), RG_PEER_SEAT);
	ck_assert_int_eq(class_of(p, "10.0.1.0", NULL), RG_PEER_UNKNOWN);
	/* a server inside the seats' range is the server */
	ck_assert_int_eq(class_of(p, "10.0.0.200", &name), RG_PEER_SERVER);
	ck_assert_str_eq(name, "gs-1");
	ck_assert_int_eq(class_of(p, "10.0.9.15", &name), RG_PEER_SERVER);
	ck_assert_ptr_null(name);
	ck_assert_int_eq(class_of(p, "10.0.9.16", NULL), RG_PEER_UNKNOWN);
	ck_assert_int_eq(class_of(p, "fd00:1::99", NULL), RG_PEER_SEAT);
	ck_assert_int_eq(class_of(p, "fd00:2::1", NULL), RG_PEER_UNKNOWN);
	ck_assert_int_eq(class_of(p, "192.0.2.7", NULL), RG_PEER_UNKNOWN);
	ck_assert_str_eq(peer_class_to_string(RG_PEER_UNKNOWN), "unknown");
	ck_assert_ptr_null(peer_class_to_string(RG_PEER_NONE));
	/* the policy's sha256 is of its bytes */
	ck_assert_str_eq(p->sha256,
			 "0973d0a01c42a1ff757c425b6d4a9f78cc0f39d4e1b3dcadaf03c75005d5946f");
	policy_free(p);

	p = parse("{}");
	ck_assert(!p->has_fleet);
	ck_assert_ptr_null(p->seat);
	ck_assert_int_eq(class_of(p, "192.0.2.7", NULL), RG_PEER_NONE);
	policy_free(p);
}
END_TEST

START_TEST(test_cidr)
{
	struct rg_fleet_net n;

	ck_assert_int_eq(fleet_parse_cidr("10.0.0.0/8", &n), 0);
	ck_assert_uint_eq(n.prefix, 104);
	ck_assert_int_eq(fleet_parse_cidr("10.0.0.5", &n), 0);
	ck_assert_uint_eq(n.prefix, 128);
	ck_assert_int_eq(fleet_parse_cidr("0.0.0.0/0", &n), 0);
	ck_assert_uint_eq(n.prefix, 96);
	ck_assert_int_eq(fleet_parse_cidr("::/0", &n), 0);
	ck_assert_uint_eq(n.prefix, 0);
	ck_assert_int_eq(fleet_parse_cidr("10.0.0.1/8", &n), -EDOM);
	ck_assert_int_eq(fleet_parse_cidr("10.0.0.0/33", &n), -EINVAL);
	ck_assert_int_eq(fleet_parse_cidr("10.0.0.0/", &n), -EINVAL);
	ck_assert_int_eq(fleet_parse_cidr("10.0.0.0/-1", &n), -EINVAL);
	ck_assert_int_eq(fleet_parse_cidr("10.0.0/24", &n), -EINVAL);
	ck_assert_int_eq(fleet_parse_cidr("fd00::/129", &n), -EINVAL);
	ck_assert_int_eq(fleet_parse_cidr("host.example", &n), -EINVAL);
	ck_assert_int_eq(fleet_parse_cidr("", &n), -EINVAL);
}
END_TEST

START_TEST(test_errors)
{
	ck_assert_str_eq(parse_error("{\"fleet\": {\"seats\": [\"10.0.0.1/24\"]}}"),
			 "p.json:1:22: \"10.0.0.1/24\" has host bits set beyond its prefix");
	ck_assert_str_eq(parse_error("{\"fleet\": {\n \"seats\": [\"10.0.0.0/24\", \"x\"]}}"),
			 "p.json:2:27: \"x\" is not an address or CIDR (10.0.0.0/24, fd00::/64)");
	ck_assert_str_eq(parse_error("{\"fleet\": {\"seat\": []}}"),
			 "p.json:1:12: unknown key \"seat\" in \"fleet\" (did you mean \"seats\"?)");
	ck_assert_str_eq(parse_error("{\"fleet\": {\"seats\": [{\"address\": \"10.0.0.0/8\"}]}}"),
			 "p.json:1:22: a seat range is a CIDR string, not an object");
	ck_assert_str_eq(
	    parse_error("{\"fleet\": {\"servers\": [{\"address\": \"10.0.0.1\", \"nme\": \"a\"}]}}"),
	    "p.json:1:48: unknown key \"nme\" in a server (did you mean \"name\"?)");
	ck_assert_str_eq(parse_error("{\"fleet\": {\"servers\": [{\"name\": \"a\"}]}}"),
			 "p.json:1:24: missing required key \"address\"");
	ck_assert_str_eq(parse_error("{\"fleet\": {\"servers\": 5}}"),
			 "p.json:1:23: \"servers\" must be an array, not a number");
	ck_assert_str_eq(parse_error("{\"fleet\": []}"),
			 "p.json:1:11: \"fleet\" must be an object, not an array");
	ck_assert_str_eq(parse_error("{\"seat\": \"B-12\\n\"}"),
			 "p.json:1:10: \"seat\" is 1-64 letters, digits or \"-_.:/ \" (\"B-12\")");
	ck_assert_str_eq(
	    parse_error("{\"fleet\": {\"servers\": [{\"address\": \"10.0.0.1\", \"name\": \"<x>\"}]}}"),
	    "p.json:1:56: a server's name is 1-64 letters, digits or \"-_.:/ \"");
}
END_TEST

START_TEST(test_too_many)
{
	size_t n = POLICY_MAX_FLEET + 1, len = 64 + n * 20, off;
	char *text = malloc(len);

	ck_assert_ptr_nonnull(text);
	off = (size_t)snprintf(text, len, "{\"fleet\": {\"seats\": [");
	for (size_t i = 0; i < n; i++)
		off += (size_t)snprintf(text + off, len - off, "%s\"10.%zu.%zu.0/24\"", i ? "," : "",
					i / 256, i % 256);
	snprintf(text + off, len - off, "]}}");
	ck_assert_str_eq(parse_error(text), "p.json:1:21: \"seats\" has more than 4096 entries");
	free(text);
}
END_TEST

START_TEST(test_event_peer)
{
	struct rg_event ev = {0};
	struct rg_addr peer, local;
	char buf[64];

	ev.type = RG_EV_VERBS;
	ck_assert(!event_peer(&ev, &peer, &local)); /* no GID */
	ck_assert_int_eq(inet_pton(AF_INET6, "fe80::1", ev.u.verbs.dgid), 1);
	ck_assert(!event_peer(&ev, &peer, &local)); /* a GID that is no IPv4 address */
	v4("192.0.2.7", ev.u.verbs.dgid);
	ck_assert(event_peer(&ev, &peer, &local));
	addr_to_string(&peer, buf);
	ck_assert_str_eq(buf, "192.0.2.7");
	ck_assert_uint_eq(local.family, 0);

	memset(&ev, 0, sizeof(ev));
	ev.type = RG_EV_RDMA_CM;
	ck_assert(!event_peer(&ev, &peer, &local));
	ck_assert_int_eq(addr_from_string("10.0.0.9", &ev.u.cm.dst), 0);
	ev.u.cm.dst.port = 7174;
	ck_assert_int_eq(addr_from_string("10.0.0.8", &ev.u.cm.src), 0);
	ck_assert(event_peer(&ev, &peer, &local));
	ck_assert_uint_eq(peer.port, 7174);
	addr_to_string(&local, buf);
	ck_assert_str_eq(buf, "10.0.0.8");

	memset(&ev, 0, sizeof(ev));
	ev.type = RG_EV_MEMORY_ACCESS;
	ck_assert(!event_peer(&ev, &peer, &local));
}
END_TEST

/* Alerts collected from the engine, parsed. */
static struct json_object *got[8];
static size_t n_got;

static int collect(const struct rg_alert *a, void *ud)
{
	(void)ud;
	ck_assert_uint_lt(n_got, 8);
	got[n_got] = json_tokener_parse(a->json);
	ck_assert_ptr_nonnull(got[n_got]);
	ck_assert_int_eq(a->severity, json_object_get_int(json_object_object_get(
					  json_object_object_get(got[n_got], "event"), "severity")));
	n_got++;
	return 0;
}

static const char *str_at(struct json_object *o, const char *path)
{
	char buf[128], *save = NULL, *k;

	snprintf(buf, sizeof(buf), "%s", path);
	for (k = strtok_r(buf, ".", &save); k && o; k = strtok_r(NULL, ".", &save))
		if (!json_object_object_get_ex(o, k, &o))
			return NULL;
	return o ? json_object_get_string(o) : NULL;
}

/* One rdma_cm connect to addr through an engine with policy_text: its one alert. */
static struct json_object *connect_alert(const char *policy_text, const char *addr,
					 const char *host_json)
{
	static const char rule[] =
	    "{\"id\": \"T-1\", \"name\": \"connect\", \"severity\": \"%s\","
	    " \"condition\": \"event.action == rdma_cm and rdma.op == connect\","
	    " \"message\": \"connect to {destination.ip}\"}";
	struct engine_config cfg = {.hostname = "h", .boot_id = "b"};
	struct rg_policy *p = parse(policy_text);
	struct rg_ruleset *rs;
	struct rg_engine *e;
	struct rg_error err;
	struct rg_event ev = {0};
	char rtext[512];

	snprintf(rtext, sizeof(rtext), rule, "high");
	ck_assert_int_eq(ruleset_new(&rs), 0);
	ck_assert_int_eq(rules_parse(rs, "r.json", rtext, strlen(rtext), &err), 0);
	ck_assert_int_eq(engine_new(p, rs, &cfg, &e, &err), 0);
	if (host_json)
		ck_assert_int_eq(engine_set_identity(e, host_json, "9.9.9"), 0);
	ev.type = RG_EV_RDMA_CM;
	ev.provider = RG_PROV_SENSOR;
	ev.ts = T0;
	ev.proc.pid = 42;
	ev.u.cm.op = RG_CM_CONNECT;
	ck_assert_int_eq(addr_from_string(addr, &ev.u.cm.dst), 0);
	ev.u.cm.dst.port = 4791;
	ck_assert_int_eq(addr_from_string("10.0.0.8", &ev.u.cm.src), 0);
	n_got = 0;
	ck_assert_int_eq(engine_process(e, &ev, collect, NULL), 0);
	ck_assert_int_eq(engine_flush(e, collect, NULL), 0);
	ck_assert_uint_eq(n_got, 1);
	engine_free(e);
	return got[0];
}

START_TEST(test_alert_fleet)
{
	struct rg_policy *p = parse(fleet_policy);
	struct json_object *a;

	/* an unknown peer: one step up, high to critical */
	a = connect_alert(fleet_policy, "192.0.2.7", NULL);
	ck_assert_str_eq(str_at(a, "rdmaguard.severity"), "critical");
	ck_assert_str_eq(str_at(a, "rdmaguard.peer.class"), "unknown");
	ck_assert_ptr_null(str_at(a, "rdmaguard.peer.name"));
	ck_assert_str_eq(str_at(a, "destination.ip"), "192.0.2.7");
	ck_assert_str_eq(str_at(a, "destination.port"), "4791");
	ck_assert_str_eq(str_at(a, "source.ip"), "10.0.0.8");
	ck_assert_str_eq(json_object_to_json_string(json_object_object_get(
			     json_object_object_get(a, "related"), "ip")),
			 "[ \"192.0.2.7\", \"10.0.0.8\" ]");
	ck_assert_str_eq(str_at(a, "labels.seat"), "B-12");
	ck_assert_str_eq(str_at(a, "host.hostname"), "h");
	ck_assert_ptr_null(str_at(a, "agent")); /* no identity set: replay's alerts */
	ck_assert_ptr_null(str_at(a, "rdmaguard.policy"));
	ck_assert_str_eq(str_at(a, "message"), "connect to 192.0.2.7");
	json_object_put(a);

	/* a server: its name, no raise */
	a = connect_alert(fleet_policy, "10.0.0.200", NULL);
	ck_assert_str_eq(str_at(a, "rdmaguard.severity"), "high");
	ck_assert_str_eq(str_at(a, "rdmaguard.peer.class"), "server");
	ck_assert_str_eq(str_at(a, "rdmaguard.peer.name"), "gs-1");
	json_object_put(a);

	/* a seat: no raise */
	a = connect_alert(fleet_policy, "10.0.0.3", NULL);
	ck_assert_str_eq(str_at(a, "rdmaguard.severity"), "high");
	ck_assert_str_eq(str_at(a, "rdmaguard.peer.class"), "seat");
	json_object_put(a);

	/* no fleet: no class, no raise, no seat label */
	a = connect_alert("{}", "192.0.2.7", NULL);
	ck_assert_str_eq(str_at(a, "rdmaguard.severity"), "high");
	ck_assert_ptr_null(str_at(a, "rdmaguard.peer"));
	ck_assert_ptr_null(str_at(a, "rdmaguard.policy"));
	ck_assert_ptr_null(str_at(a, "labels"));
	ck_assert_str_eq(str_at(a, "destination.ip"), "192.0.2.7");
	json_object_put(a);

	/* with the daemon's identity: host as given, agent.version, the policy's hash */
	a = connect_alert(fleet_policy, "10.0.0.3",
			  "{\"name\":\"seat\",\"hostname\":\"seat\",\"id\":\"0123\"}");
	ck_assert_str_eq(str_at(a, "host.id"), "0123");
	ck_assert_str_eq(str_at(a, "host.name"), "seat");
	ck_assert_str_eq(str_at(a, "agent.version"), "9.9.9");
	ck_assert_str_eq(str_at(a, "agent.type"), "rdmaguard");
	ck_assert_str_eq(str_at(a, "rdmaguard.policy.sha256"), p->sha256);
	json_object_put(a);
	policy_free(p);
}
END_TEST

START_TEST(test_os_release)
{
	struct rg_identity id = {0};

	identity_parse_os_release(&id, "# comment\nPRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\n"
				       "NAME='Debian GNU/Linux'\nVERSION_ID=\"12\"\nID=debian\n"
				       "ID_LIKE=\"ubuntu debian\"\nX=\"\\\"q\\\"\x01\"\n");
	ck_assert_str_eq(id.os_full, "Debian GNU/Linux 12 (bookworm)");
	ck_assert_str_eq(id.os_name, "Debian GNU/Linux");
	ck_assert_str_eq(id.os_version, "12");
	ck_assert_str_eq(id.os_platform, "debian");
	ck_assert_str_eq(id.os_family, "ubuntu");
	memset(&id, 0, sizeof(id));
	identity_parse_os_release(&id, "ID=arch\nNAME=\"unterminated\nVERSION_ID=\x1b[31m\n");
	ck_assert_str_eq(id.os_family, "arch");
	ck_assert_str_eq(id.os_name, "unterminated");
	ck_assert_str_eq(id.os_version, "?[31m");
}
END_TEST

static Suite *fleet_suite(void)
{
	Suite *s = suite_create("fleet");
	TCase *core = tcase_create("core"), *limits = tcase_create("limits"),
	      *errors = tcase_create("errors");

	tcase_add_test(core, test_classify);
	tcase_add_test(core, test_cidr);
	tcase_add_test(core, test_event_peer);
	tcase_add_test(core, test_alert_fleet);
	tcase_add_test(core, test_os_release);
	tcase_add_test(limits, test_too_many);
	tcase_add_test(errors, test_errors);
	suite_add_tcase(s, core);
	suite_add_tcase(s, limits);
	suite_add_tcase(s, errors);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(fleet_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
