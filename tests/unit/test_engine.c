/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The engine: alerts and their fields, lineage and entity ids, game sessions, the allowlist,
 * aggregation of repeats, policy overrides, reload, and that evaluation does not allocate.
 * Every alert produced here is validated against the published schema at the end (alert_dump.h).
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "alert_dump.h"
#include "common/clock.h"
#include "common/macro.h"
#include "common/sha256.h"
#include "common/timestamp.h"
#include "engine/engine.h"
#include "event/event_json.h"
#include "output/output.h"

#define SEC  1000000000ull
#define T0   (1767225600ull * SEC) /* 2026-01-01T00:00:00Z */
#define BOOT (T0 - 1000 * SEC)	   /* booted 1000 s before T0 */

/*
 * Counting allocator: engine_process must not allocate unless it builds an alert. Under
 * AddressSanitizer, malloc belongs to its allocator (memory from __libc_malloc would be freed by
 * ASan's free), so count with its allocation hooks instead of interposing.
 */
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define RG_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define RG_ASAN 1
#endif

static unsigned long n_allocs;

#ifdef RG_ASAN
/* From <sanitizer/allocator_interface.h>, which GCC does not install. */
int __sanitizer_install_malloc_and_free_hooks(void (*m)(const volatile void *, size_t),
					      void (*f)(const volatile void *));

static void count_malloc(const volatile void *p, size_t n)
{
	(void)p;
	(void)n;
	n_allocs++;
}

static void count_free(const volatile void *p)
{
	(void)p;
}

__attribute__((constructor)) static void install_hooks(void)
{
	__sanitizer_install_malloc_and_free_hooks(count_malloc, count_free);
}
#else
extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void __libc_free(void *);

void *malloc(size_t n)
{
	n_allocs++;
	return __libc_malloc(n);
}

void *calloc(size_t a, size_t b)
{
	n_allocs++;
	return __libc_calloc(a, b);
}

void *realloc(void *p, size_t n)
{
	n_allocs++;
	return __libc_realloc(p, n);
}

void free(void *p)
{
	__libc_free(p);
}
#endif

/* Collected alerts. */
#define MAX_ALERTS 256
static struct json_object *alerts[MAX_ALERTS];
static int sevs[MAX_ALERTS];
static size_t n_alerts;
static int emit_ret;

/* Keeps the alert as a json-c object, after checking that the fields the outputs take from
 * struct rg_alert without parsing say what its JSON says. */
static int collect(const struct rg_alert *a, void *ud)
{
	struct json_object *o = json_tokener_parse(a->json), *v;
	uint64_t ts;

	(void)ud;
	ck_assert_msg(o != NULL, "alert text does not parse: %s", a->json);
	ck_assert_uint_eq(strlen(a->json), a->len);
	ck_assert_str_eq(a->uuid, json_object_get_string(json_get_path(o, "event.id")));
	ck_assert_str_eq(a->rule_id, json_object_get_string(json_get_path(o, "rule.id")));
	ck_assert_str_eq(severity_to_string(a->severity),
			 json_object_get_string(json_get_path(o, "rdmaguard.severity")));
	v = json_get_path(o, "event.severity");
	ck_assert_int_eq(a->severity, json_object_get_int(v));
	ck_assert_int_eq(parse_timestamp(json_object_get_string(json_get_path(o, "@timestamp")),
					 &ts),
			 0);
	ck_assert_uint_eq(a->ts_ns, ts);
	alert_dump(o);
	ck_assert_uint_lt(n_alerts, MAX_ALERTS);
	sevs[n_alerts] = a->severity;
	alerts[n_alerts++] = o;
	return emit_ret;
}

static void clear_alerts(void)
{
	for (size_t i = 0; i < n_alerts; i++)
		json_object_put(alerts[i]);
	n_alerts = 0;
}

static const char *str(size_t i, const char *path)
{
	struct json_object *v = json_get_path(alerts[i], path);

	ck_assert_msg(v != NULL, "alert %zu has no %s: %s", i, path,
		      json_object_to_json_string(alerts[i]));
	return json_object_get_string(v);
}

static int64_t num(size_t i, const char *path)
{
	struct json_object *v = json_get_path(alerts[i], path);

	ck_assert_msg(v != NULL, "alert %zu has no %s", i, path);
	return json_object_get_int64(v);
}

static bool has(size_t i, const char *path)
{
	return json_get_path(alerts[i], path) != NULL;
}

static struct rg_engine *engine_from(const char *policy_text, const char *rules_text,
				     const struct engine_config *cfg)
{
	struct rg_policy *p;
	struct rg_ruleset *rs;
	struct rg_engine *e;
	struct rg_error err;
	char buf[1200];

	ck_assert_msg(policy_parse("policy.json", policy_text, strlen(policy_text), &p, &err) == 0,
		      "%s", rg_error_format(&err, buf, sizeof(buf)));
	ck_assert_int_eq(ruleset_new(&rs), 0);
	ck_assert_msg(rules_parse(rs, "rules.json", rules_text, strlen(rules_text), &err) == 0,
		      "%s", rg_error_format(&err, buf, sizeof(buf)));
	ck_assert_msg(engine_new(p, rs, cfg, &e, &err) == 0, "%s",
		      rg_error_format(&err, buf, sizeof(buf)));
	return e;
}

static struct engine_config base_cfg(void)
{
	struct engine_config c = {.hostname = "test-host",
				  .boot_id = "0e0a6a4c-7d4e-4b7a-9c8e-1f2a3b4c5d6e",
				  .boot_realtime_ns = BOOT};
	return c;
}

static struct rg_event ev_exec(unsigned type, uint32_t pid, uint32_t ppid, const char *exe,
			       uint64_t ts)
{
	struct rg_event ev;
	const char *slash = strrchr(exe, '/');
	size_t n = strlen(exe);

	memset(&ev, 0, sizeof(ev));
	ev.type = (uint16_t)type;
	ev.provider = type == RG_EV_PROCESS_PRESENT ? RG_PROV_INVENTORY : RG_PROV_SENSOR;
	ev.ts = ts;
	ev.proc.pid = ev.proc.tid = pid;
	ev.proc.ppid = ppid;
	ev.proc.uid = 1000;
	ev.proc.start_boot_ns = pid * SEC;
	ev.u.exec.parent_start_boot_ns = ppid * SEC;
	ev.u.exec.sid = 77;
	ev.u.exec.exe_ino = 5000 + pid;
	ev.u.exec.exe_dev = 2049;
	strncpy(ev.proc.comm, slash ? slash + 1 : exe, RG_COMM_LEN - 1);
	strcpy(ev.u.exec.exe, exe);
	memcpy(ev.u.exec.args, exe, n + 1);
	ev.u.exec.args_len = (uint32_t)n + 1;
	return ev;
}

static struct rg_event ev_proc(unsigned type, uint32_t pid, uint64_t ts)
{
	struct rg_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.type = (uint16_t)type;
	ev.provider = RG_PROV_SENSOR;
	ev.ts = ts;
	ev.proc.pid = ev.proc.tid = pid;
	ev.proc.start_boot_ns = pid * SEC;
	ev.proc.uid = 1000;
	return ev;
}

static struct rg_event ev_reg_mr(uint32_t pid, const char *dev, uint64_t ts)
{
	struct rg_event ev = ev_proc(RG_EV_VERBS, pid, ts);

	ev.u.verbs.op = RG_OP_REG_MR;
	ev.u.verbs.via = RG_VIA_INVOKE;
	ev.u.verbs.fd = 3;
	ev.u.verbs.mr_addr = 0x7f0000000000ull;
	ev.u.verbs.mr_length = 1 << 20;
	ev.u.verbs.mr_access = RG_ACCESS_LOCAL_WRITE | RG_ACCESS_REMOTE_READ;
	strcpy(ev.u.verbs.device, dev);
	return ev;
}

static void feed(struct rg_engine *e, const struct rg_event *ev)
{
	ck_assert_int_eq(engine_process(e, ev, collect, NULL), 0);
}

static const char game_policy[] =
	"{\"role\": \"managed\", \"games\": [{\"name\": \"Arena\", \"exe\": [\"/opt/arena/*\"]}],"
	" \"allow\": [{\"exe\": \"/usr/bin/ibv_devinfo\"}]}";

static const char mr_rule[] =
    "{\"id\": \"T-MR\", \"name\": \"remote MR\", \"severity\": \"high\","
    " \"tags\": [\"rdma\"], \"threat\": {\"tactic\": {\"id\": \"TA0009\", \"name\": "
    "\"Collection\"},"
    " \"technique\": {\"id\": \"T1005\", \"name\": \"Data from Local System\"}},"
    " \"condition\": \"event.action == verbs and rdma.mr.remote and not process.allowed\","
    " \"severity_when\": [{\"condition\": \"game.running\", \"severity\": \"critical\"}],"
    " \"message\": \"{process.name} registered {rdma.mr.length} bytes on {rdma.device}\","
    " \"aggregate\": {\"by\": [\"rdma.device\"], \"window\": \"10s\"}}";

/* sshd(10) -> bash(20) -> cheat(30) next to a seeded game; every documented alert field. */
START_TEST(test_alert_fields)
{
	struct engine_config cfg = base_cfg();
	struct rg_engine *e = engine_from(game_policy, mr_rule, &cfg);
	struct rg_event ev;
	struct json_object *anc;
	char id[33], id2[33];

	ev = ev_exec(RG_EV_PROCESS_PRESENT, 10, 1, "/usr/sbin/sshd", T0);
	feed(e, &ev);
	ev = ev_exec(RG_EV_PROCESS_PRESENT, 20, 10, "/usr/bin/bash", T0);
	feed(e, &ev);
	ev = ev_exec(RG_EV_PROCESS_PRESENT, 40, 1, "/opt/arena/bin/arena", T0);
	feed(e, &ev);
	ev = ev_exec(RG_EV_EXEC, 30, 20, "/tmp/cheat", T0 + 1 * SEC);
	feed(e, &ev);
	ck_assert_uint_eq(n_alerts, 0);
	ev = ev_reg_mr(30, "rxe0", T0 + 2 * SEC);
	feed(e, &ev);
	ck_assert_uint_eq(n_alerts, 1);

	ck_assert_str_eq(str(0, "event.kind"), "alert");
	ck_assert_str_eq(str(0, "event.action"), "verbs");
	ck_assert_int_eq(num(0, "event.sequence"), 1);
	ck_assert_uint_eq(strlen(str(0, "event.id")), 36);
	ck_assert_str_eq(str(0, "@timestamp"), "2026-01-01T00:00:02.000000Z");
	ck_assert_str_eq(str(0, "event.start"), "2026-01-01T00:00:02.000000Z");
	ck_assert_str_eq(str(0, "event.end"), "2026-01-01T00:00:02.000000Z");
	ck_assert_int_eq(num(0, "event.severity"), RG_SEV_CRITICAL);
	ck_assert_str_eq(str(0, "rule.id"), "T-MR");
	ck_assert_str_eq(str(0, "rule.name"), "remote MR");
	ck_assert_str_eq(str(0, "rdmaguard.rule.action"), "alert");
	ck_assert_str_eq(str(0, "rdmaguard.severity"), "critical");
	ck_assert_int_eq(sevs[0], RG_SEV_CRITICAL);
	ck_assert_str_eq(str(0, "message"), "cheat registered 1048576 bytes on rxe0");
	ck_assert_int_eq(num(0, "rdmaguard.count"), 1);
	ck_assert_str_eq(str(0, "rdmaguard.action"), "alert");
	ck_assert_str_eq(str(0, "host.hostname"), "test-host");

	ck_assert_int_eq(num(0, "process.pid"), 30);
	ck_assert_str_eq(str(0, "process.name"), "cheat");
	ck_assert_str_eq(str(0, "process.executable"), "/tmp/cheat");
	ck_assert_str_eq(json_object_to_json_string(json_get_path(alerts[0], "process.args")),
			 "[ \"\\/tmp\\/cheat\" ]");
	/* start time: boot + start_boot_ns (30 s) */
	ck_assert_str_eq(str(0, "process.start"), "2025-12-31T23:43:50.000000Z");
	ck_assert_int_eq(num(0, "process.user.id"), 1000);
	ck_assert_int_eq(num(0, "rdmaguard.process.session.id"), 77);
	engine_entity_id(e, PROC_KEY(30, 30 * SEC), id);
	ck_assert_str_eq(str(0, "process.entity_id"), id);
	ck_assert_int_eq(num(0, "process.parent.pid"), 20);
	ck_assert_str_eq(str(0, "process.parent.executable"), "/usr/bin/bash");
	engine_entity_id(e, PROC_KEY(20, 20 * SEC), id2);
	ck_assert_str_eq(str(0, "process.parent.entity_id"), id2);
	anc = json_get_path(alerts[0], "rdmaguard.process.ancestors");
	ck_assert_uint_eq(json_object_array_length(anc), 2);
	ck_assert_int_eq(
	    json_object_get_int(json_get_path(json_object_array_get_idx(anc, 0), "pid")), 20);
	ck_assert_str_eq(json_object_get_string(json_get_path(json_object_array_get_idx(anc, 1),
							      "executable")),
			 "/usr/sbin/sshd");
	ck_assert_str_eq(json_object_get_string(json_get_path(json_object_array_get_idx(anc, 1),
							      "start_time")),
			 "2025-12-31T23:43:30.000000Z");

	ck_assert_str_eq(str(0, "rdmaguard.rdma.device"), "rxe0");
	ck_assert_str_eq(str(0, "rdmaguard.rdma.op"), "reg_mr");
	ck_assert_int_eq(num(0, "rdmaguard.rdma.mr.length"), 1 << 20);
	ck_assert_str_eq(json_object_to_json_string(json_get_path(alerts[0], "rdmaguard.rdma.mr.access")),
			 "[ \"local_write\", \"remote_read\" ]");
	ck_assert_str_eq(str(0, "rdmaguard.game.name"), "Arena");
	ck_assert_int_eq(num(0, "rdmaguard.game.pid"), 40);
	ck_assert_str_eq(str(0, "rdmaguard.game.started"), "2025-12-31T23:44:00.000000Z");
	ck_assert(json_object_get_boolean(json_get_path(alerts[0], "rdmaguard.game.running")));
	ck_assert_int_eq(num(0, "rdmaguard.game.rdma_events"), 1);
	ck_assert_str_eq(str(0, "tags"), "[ \"rdma\" ]");
	ck_assert_str_eq(str(0, "threat.framework"), "MITRE ATT&CK");
	ck_assert_str_eq(str(0, "threat.technique.id"), "T1005");
	ck_assert_str_eq(str(0, "threat.tactic.name"), "Collection");

	/* Enforcement outcomes; a new device is a new object, so a new alert at once. */
	ev = ev_reg_mr(30, "rxe1", T0 + 3 * SEC);
	ev.flags |= RG_EVF_DENIED | RG_EVF_FAILED;
	ev.u.verbs.ret = -EPERM;
	feed(e, &ev);
	ck_assert_uint_eq(n_alerts, 2);
	ck_assert_str_eq(str(1, "rdmaguard.action"), "denied");
	ck_assert_int_eq(num(1, "event.sequence"), 2);
	ck_assert_int_eq(num(1, "rdmaguard.rdma.ret"), -EPERM);
	ev = ev_reg_mr(30, "rxe2", T0 + 4 * SEC);
	ev.flags |= RG_EVF_KILLED;
	feed(e, &ev);
	ck_assert_str_eq(str(2, "rdmaguard.action"), "killed");
	ck_assert_str_ne(str(2, "event.id"), str(1, "event.id"));

	/* The game exits: severity falls back, the game stays named with its end. */
	ev = ev_proc(RG_EV_EXIT, 40, T0 + 5 * SEC);
	feed(e, &ev);
	ev = ev_reg_mr(30, "rxe3", T0 + 6 * SEC);
	feed(e, &ev);
	ck_assert_uint_eq(n_alerts, 4);
	ck_assert_str_eq(str(3, "rdmaguard.severity"), "high");
	ck_assert(!json_object_get_boolean(json_get_path(alerts[3], "rdmaguard.game.running")));
	ck_assert_str_eq(str(3, "rdmaguard.game.ended"), "2026-01-01T00:00:05.000000Z");
	clear_alerts();
	engine_free(e);
}
END_TEST

START_TEST(test_entity_id)
{
	struct engine_config cfg = base_cfg();
	struct rg_engine *a = engine_from("{}", mr_rule, &cfg), *b;
	char x[33], y[33];

	engine_entity_id(a, PROC_KEY(30, 30 * SEC), x);
	ck_assert_uint_eq(strlen(x), 32);
	ck_assert_uint_eq(strspn(x, "0123456789abcdef"), 32);
	b = engine_from("{}", mr_rule, &cfg);
	engine_entity_id(b, PROC_KEY(30, 30 * SEC), y);
	ck_assert_str_eq(x, y); /* stable: a restarted agent names the process the same */
	engine_entity_id(b, PROC_KEY(30, 31 * SEC), y);
	ck_assert_str_ne(x, y); /* pid reuse */
	engine_entity_id(b, PROC_KEY(31, 30 * SEC), y);
	ck_assert_str_ne(x, y);
	engine_free(b);
	cfg.boot_id = "another-boot";
	b = engine_from("{}", mr_rule, &cfg);
	engine_entity_id(b, PROC_KEY(30, 30 * SEC), y);
	ck_assert_str_ne(x, y); /* next boot */
	engine_free(b);
	engine_free(a);
}
END_TEST

/* Repeats: one alert at once, then one per window with the count, never silence. */
START_TEST(test_aggregation)
{
	struct engine_config cfg = base_cfg();
	struct rg_engine *e = engine_from("{}", mr_rule, &cfg);
	struct engine_stats st;
	struct rg_event ev;
	int i;

	for (i = 0; i < 4; i++) {
		ev = ev_reg_mr(30, "rxe0", T0 + (uint64_t)i * SEC);
		feed(e, &ev);
	}
	ck_assert_uint_eq(n_alerts, 1);
	ck_assert_int_eq(num(0, "rdmaguard.count"), 1);
	/* Another process, another device: their own first alerts */
	ev = ev_reg_mr(31, "rxe0", T0 + 4 * SEC);
	feed(e, &ev);
	ev = ev_reg_mr(30, "mlx5_0", T0 + 4 * SEC);
	feed(e, &ev);
	ck_assert_uint_eq(n_alerts, 3);
	engine_get_stats(e, &st);
	ck_assert_uint_eq(st.agg_pending, 3);
	ck_assert_int_eq(engine_tick(e, T0 + 9 * SEC, collect, NULL), 0);
	ck_assert_uint_eq(n_alerts, 3);
	ck_assert_int_eq(engine_tick(e, T0 + 10 * SEC, collect, NULL), 0);
	ck_assert_uint_eq(n_alerts, 4);
	ck_assert_int_eq(num(3, "rdmaguard.count"), 3);
	ck_assert_str_eq(str(3, "event.start"), "2026-01-01T00:00:01.000000Z");
	ck_assert_str_eq(str(3, "event.end"), "2026-01-01T00:00:03.000000Z");
	ck_assert_str_eq(str(3, "@timestamp"), "2026-01-01T00:00:03.000000Z");
	ck_assert_str_eq(str(3, "rdmaguard.rdma.device"), "rxe0");
	ck_assert_int_eq(num(3, "process.pid"), 30);
	/* The window goes on: the next repeat is counted, not alerted */
	ev = ev_reg_mr(30, "rxe0", T0 + 12 * SEC);
	feed(e, &ev);
	ck_assert_uint_eq(n_alerts, 4);
	/* Event time drives windows: a later event ends the open ones of the others */
	ev = ev_reg_mr(30, "rxe0", T0 + 21 * SEC);
	feed(e, &ev);
	ck_assert_uint_eq(n_alerts, 5);
	ck_assert_int_eq(num(4, "rdmaguard.count"), 1);
	ck_assert_str_eq(str(4, "event.start"), "2026-01-01T00:00:12.000000Z");
	ck_assert_uint_eq(n_alerts, 5);
	/* A quiet window ends the entry; the next match alerts at once */
	ck_assert_int_eq(engine_tick(e, T0 + 40 * SEC, collect, NULL), 0);
	ck_assert_uint_eq(n_alerts, 6); /* the repeat at 21 s */
	ck_assert_int_eq(engine_tick(e, T0 + 60 * SEC, collect, NULL), 0);
	ck_assert_uint_eq(n_alerts, 6);
	ev = ev_reg_mr(30, "rxe0", T0 + 61 * SEC);
	feed(e, &ev);
	ck_assert_uint_eq(n_alerts, 7);
	ck_assert_int_eq(num(6, "rdmaguard.count"), 1);
	ev = ev_reg_mr(30, "rxe0", T0 + 62 * SEC);
	feed(e, &ev);
	ck_assert_int_eq(engine_flush(e, collect, NULL), 0);
	ck_assert_uint_eq(n_alerts, 8);
	ck_assert_int_eq(num(7, "rdmaguard.count"), 1);
	engine_get_stats(e, &st);
	ck_assert_uint_eq(st.agg_pending, 0);
	ck_assert_uint_eq(st.matches, 10);
	ck_assert_uint_eq(st.alerts, 8);
	/* Every match is accounted for in the counts */
	{
		int64_t total = 0;
		for (size_t k = 0; k < n_alerts; k++)
			total += num(k, "rdmaguard.count");
		ck_assert_int_eq(total, 10);
	}
	clear_alerts();
	engine_free(e);
}
END_TEST

/* A full aggregation table flushes early instead of dropping. */
START_TEST(test_aggregation_full)
{
	struct engine_config cfg = base_cfg();
	struct rg_engine *e;
	struct engine_stats st;
	struct rg_event ev;
	int64_t total = 0;
	char dev[16];

	cfg.agg_capacity = 4;
	e = engine_from("{}", mr_rule, &cfg);
	for (int round = 0; round < 3; round++)
		for (int d = 0; d < 8; d++) {
			snprintf(dev, sizeof(dev), "dev%d", d);
			ev = ev_reg_mr(30, dev, T0 + (uint64_t)round * SEC);
			feed(e, &ev);
		}
	ck_assert_int_eq(engine_flush(e, collect, NULL), 0);
	engine_get_stats(e, &st);
	ck_assert_uint_gt(st.agg_evicted, 0);
	ck_assert_uint_eq(st.matches, 24);
	for (size_t k = 0; k < n_alerts; k++)
		total += num(k, "rdmaguard.count");
	ck_assert_int_eq(total, 24);
	clear_alerts();
	engine_free(e);
}
END_TEST

START_TEST(test_no_aggregation)
{
	static const char rules[] = "[{\"id\": \"A\", \"name\": \"a\", \"severity\": \"low\", "
				    "\"condition\": \"event.action "
				    "== verbs\", \"aggregate\": false},"
				    " {\"id\": \"B\", \"name\": \"b\", \"severity\": \"low\", "
				    "\"condition\": \"event.action "
				    "== verbs\", \"aggregate\": {\"window\": \"0s\"}}]";
	struct engine_config cfg = base_cfg();
	struct rg_engine *e = engine_from("{}", rules, &cfg);
	struct rg_event ev = ev_reg_mr(30, "rxe0", T0);

	feed(e, &ev);
	feed(e, &ev);
	ck_assert_uint_eq(n_alerts, 4);
	ck_assert_int_eq(engine_flush(e, collect, NULL), 0);
	ck_assert_uint_eq(n_alerts, 4);
	clear_alerts();
	engine_free(e);
}
END_TEST

static const char running_rule[] =
    "[{\"id\": \"G\", \"name\": \"rdma during game\", \"severity\": \"critical\","
    " \"condition\": \"event.action == verbs and game.running and not process.is_game\","
    " \"message\": \"{process.name} during {game.name}\", \"aggregate\": false},"
    " {\"id\": \"AFTER\", \"name\": \"rdma right after a game\", \"severity\": \"high\","
    " \"condition\": \"event.action == verbs and not game.running and within(game.ended, 30s)\","
    " \"aggregate\": false},"
    " {\"id\": \"INJ\", \"name\": \"game does rdma\", \"severity\": \"critical\","
    " \"condition\": \"event.action == verbs and process.is_game\", \"aggregate\": false}]";

static size_t count_rule(const char *id)
{
	size_t n = 0;

	for (size_t i = 0; i < n_alerts; i++)
		n += strcmp(str(i, "rule.id"), id) == 0;
	return n;
}

START_TEST(test_game_sessions)
{
	struct engine_config cfg = base_cfg();
	struct rg_engine *e = engine_from(game_policy, running_rule, &cfg);
	struct engine_stats st;
	struct rg_event ev;

	/* No game yet */
	ev = ev_reg_mr(30, "rxe0", T0);
	feed(e, &ev);
	ck_assert_uint_eq(n_alerts, 0);
	/* A launcher execs the game; the game forks a worker */
	ev = ev_exec(RG_EV_EXEC, 40, 1, "/opt/arena/arena", T0 + SEC);
	feed(e, &ev);
	engine_get_stats(e, &st);
	ck_assert_uint_eq(st.games_running, 1);
	ev = ev_proc(RG_EV_FORK, 41, T0 + 2 * SEC);
	ev.proc.ppid = 40;
	ev.u.fork.parent_start_boot_ns = 40 * SEC;
	feed(e, &ev);
	ev = ev_reg_mr(30, "rxe0", T0 + 3 * SEC);
	feed(e, &ev);
	ck_assert_uint_eq(count_rule("G"), 1);
	ck_assert_str_eq(str(0, "message"), " during Arena"); /* pid 30 never told its name */
	/* The forked worker is the game too: RDMA from it is injection */
	ev = ev_reg_mr(41, "rxe0", T0 + 4 * SEC);
	feed(e, &ev);
	ck_assert_uint_eq(count_rule("INJ"), 1);
	ck_assert_uint_eq(count_rule("G"), 1);
	/* The main process exits; the worker keeps the session alive */
	ev = ev_proc(RG_EV_EXIT, 40, T0 + 5 * SEC);
	feed(e, &ev);
	engine_get_stats(e, &st);
	ck_assert_uint_eq(st.games_running, 1);
	ev = ev_reg_mr(30, "rxe0", T0 + 6 * SEC);
	feed(e, &ev);
	ck_assert_uint_eq(count_rule("G"), 2);
	/* The worker's pid is reused by another program: the session ends then */
	ev = ev_exec(RG_EV_EXEC, 41, 1, "/usr/bin/true", T0 + 7 * SEC);
	ev.proc.start_boot_ns = 99 * SEC;
	feed(e, &ev);
	engine_get_stats(e, &st);
	ck_assert_uint_eq(st.games_running, 0);
	ev = ev_reg_mr(30, "rxe0", T0 + 8 * SEC);
	feed(e, &ev);
	ck_assert_uint_eq(count_rule("G"), 2);
	ck_assert_uint_eq(count_rule("AFTER"), 1);
	ck_assert_str_eq(str(n_alerts - 1, "rdmaguard.game.ended"), "2026-01-01T00:00:07.000000Z");
	/* Long after: neither */
	ev = ev_reg_mr(30, "rxe0", T0 + 60 * SEC);
	feed(e, &ev);
	ck_assert_uint_eq(count_rule("AFTER"), 1);

	/* A game that execs into something else leaves its session */
	ev = ev_exec(RG_EV_EXEC, 50, 1, "/opt/arena/arena", T0 + 61 * SEC);
	feed(e, &ev);
	engine_get_stats(e, &st);
	ck_assert_uint_eq(st.games_running, 1);
	ev = ev_exec(RG_EV_EXEC, 50, 1, "/usr/bin/sleep", T0 + 62 * SEC);
	feed(e, &ev);
	engine_get_stats(e, &st);
	ck_assert_uint_eq(st.games_running, 0);
	clear_alerts();
	engine_free(e);
}
END_TEST

/* Games recognised by hash, with a hasher given by the caller. */
static int fake_hash(void *ud, const struct proc_node *n, char out[65])
{
	(*(int *)ud)++;
	if (strcmp(n->exe, "/home/u/renamed-game") != 0 && strcmp(n->exe, "/usr/bin/ok") != 0)
		return -ENOENT;
	memset(out, 'a', 64);
	out[64] = 0;
	return 0;
}

START_TEST(test_game_by_hash)
{
	static const char pol[] =
		"{\"games\": [{\"name\": \"Pinned\", \"sha256\": "
		"\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"}]}";
	struct engine_config cfg = base_cfg();
	struct rg_engine *e;
	struct engine_stats st;
	struct rg_event ev;
	int calls = 0;

	cfg.hash_exe = fake_hash;
	cfg.hash_ud = &calls;
	e = engine_from(pol, running_rule, &cfg);
	ev = ev_exec(RG_EV_EXEC, 40, 1, "/home/u/renamed-game", T0);
	feed(e, &ev);
	engine_get_stats(e, &st);
	ck_assert_uint_eq(st.games_running, 1);
	ev = ev_exec(RG_EV_EXEC, 41, 1, "/usr/bin/other", T0);
	feed(e, &ev);
	engine_get_stats(e, &st);
	ck_assert_uint_eq(st.games_running, 1);
	ck_assert_int_eq(calls, 2);
	/* Once per exec: more events of the same image do not hash again */
	ev = ev_reg_mr(41, "rxe0", T0 + SEC);
	feed(e, &ev);
	feed(e, &ev);
	ck_assert_int_eq(calls, 2);
	ck_assert_uint_eq(count_rule("G"), 2);
	ck_assert_str_eq(str(0, "rdmaguard.game.name"), "Pinned");
	clear_alerts();
	engine_free(e);
}
END_TEST

static const char allowed_rule[] =
	"{\"id\": \"ALLOWED\", \"name\": \"allowed?\", \"severity\": \"low\","
	" \"condition\": \"event.action in (verbs, rdma_cm, device_open) and not process.allowed\","
	" \"aggregate\": false}";

/* Runs pid through exe (parent ppid) and reports whether an event ev of it alerts. */
static bool alerts_for(struct rg_engine *e, struct rg_event *ev)
{
	size_t before = n_alerts;

	feed(e, ev);
	return n_alerts > before;
}

START_TEST(test_allowlist)
{
	static const char pol[] =
		"{\"allow\": ["
		" {\"exe\": \"/usr/bin/ib_*\", \"uid\": [0, 1000], \"devices\": [\"mlx5_0\"]},"
		" {\"exe\": \"/opt/tools/probe\", \"parent\": \"/usr/sbin/cron\","
		"  \"operations\": [\"device_open\", \"query_device\"]},"
		" {\"exe\": \"/opt/old\", \"expires\": \"2026-01-01T00:00:10Z\"},"
		" {\"exe\": \"/usr/bin/ok\", \"sha256\": "
		"\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"},"
		" {\"exe\": \"/usr/bin/nohash\", \"sha256\": "
		"\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"}]}";
	struct engine_config cfg = base_cfg();
	struct rg_engine *e;
	struct rg_event ev;
	int calls = 0;

	cfg.hash_exe = fake_hash;
	cfg.hash_ud = &calls;
	e = engine_from(pol, allowed_rule, &cfg);

	/* exe pattern: '*' stops at '/' in an allow entry */
	ev = ev_exec(RG_EV_EXEC, 100, 1, "/usr/bin/ib_write_bw", T0);
	feed(e, &ev);
	ev = ev_reg_mr(100, "mlx5_0", T0);
	ck_assert(!alerts_for(e, &ev));
	ev = ev_reg_mr(100, "rxe0", T0); /* another device */
	ck_assert(alerts_for(e, &ev));
	ev = ev_reg_mr(100, "", T0); /* device unknown: the entry applies */
	ck_assert(!alerts_for(e, &ev));
	ev = ev_exec(RG_EV_EXEC, 101, 1, "/usr/bin/ib_/../../tmp/x", T0);
	feed(e, &ev);
	ev = ev_reg_mr(101, "mlx5_0", T0);
	ck_assert(alerts_for(e, &ev));
	/* uid */
	ev = ev_exec(RG_EV_EXEC, 102, 1, "/usr/bin/ib_send_bw", T0);
	ev.proc.uid = 1001;
	feed(e, &ev);
	ev = ev_reg_mr(102, "mlx5_0", T0);
	ev.proc.uid = 1001;
	ck_assert(alerts_for(e, &ev));

	/* parent and operations */
	ev = ev_exec(RG_EV_PROCESS_PRESENT, 200, 1, "/usr/sbin/cron", T0);
	feed(e, &ev);
	ev = ev_exec(RG_EV_EXEC, 201, 200, "/opt/tools/probe", T0);
	feed(e, &ev);
	ev = ev_proc(RG_EV_DEVICE_OPEN, 201, T0);
	ev.u.open.node_kind = RG_NODE_UVERBS;
	ck_assert(!alerts_for(e, &ev));
	ev = ev_proc(RG_EV_VERBS, 201, T0);
	ev.u.verbs.op = RG_OP_QUERY_DEVICE;
	ck_assert(!alerts_for(e, &ev));
	ev = ev_reg_mr(201, "rxe0", T0); /* not an allowed operation */
	ck_assert(alerts_for(e, &ev));
	ev = ev_exec(RG_EV_EXEC, 202, 1, "/opt/tools/probe", T0); /* started by init, not cron */
	feed(e, &ev);
	ev = ev_proc(RG_EV_DEVICE_OPEN, 202, T0);
	ck_assert(alerts_for(e, &ev));

	/* expiry, by the event's own time */
	ev = ev_exec(RG_EV_EXEC, 300, 1, "/opt/old", T0);
	feed(e, &ev);
	ev = ev_reg_mr(300, "rxe0", T0 + 9 * SEC);
	ck_assert(!alerts_for(e, &ev));
	ev = ev_reg_mr(300, "rxe0", T0 + 10 * SEC);
	ck_assert(alerts_for(e, &ev));

	/* sha256: computed once per exec, a failure never allows */
	ev = ev_exec(RG_EV_EXEC, 400, 1, "/usr/bin/ok", T0);
	feed(e, &ev);
	ev = ev_reg_mr(400, "rxe0", T0);
	ck_assert(!alerts_for(e, &ev));
	ck_assert(!alerts_for(e, &ev));
	ck_assert_int_eq(calls, 1);
	ck_assert_str_eq(str(n_alerts - 1, "rule.id"), "ALLOWED"); /* earlier alerts only */
	ev = ev_exec(RG_EV_EXEC, 401, 1, "/usr/bin/nohash", T0);
	feed(e, &ev);
	ev = ev_reg_mr(401, "rxe0", T0);
	ck_assert(alerts_for(e, &ev));

	/* A process whose exe the tree does not know is never allowed */
	ev = ev_reg_mr(500, "mlx5_0", T0);
	ck_assert(alerts_for(e, &ev));
	clear_alerts();
	engine_free(e);
}
END_TEST

/* Allow entries pinned to inode/device, and the live hasher on a real process: this test. */
START_TEST(test_allowlist_live)
{
	struct engine_config cfg = base_cfg();
	char exe[512], sha[65], pol[1400], stat_buf[1024];
	struct rg_policy *p;
	struct rg_ruleset *rs;
	struct rg_engine *e;
	struct rg_error err;
	struct rg_event ev;
	struct stat st;
	unsigned long long ticks;
	ssize_t n;
	char *s;
	int fd, i;

	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	ck_assert_int_gt(n, 0);
	exe[n] = 0;
	ck_assert_int_eq(stat(exe, &st), 0);
	fd = open(exe, O_RDONLY | O_CLOEXEC);
	ck_assert_int_eq(sha256_fd(fd, 1ull << 30, sha), 0);
	close(fd);
	fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
	n = read(fd, stat_buf, sizeof(stat_buf) - 1);
	close(fd);
	stat_buf[n] = 0;
	s = strrchr(stat_buf, ')') + 2;
	for (i = 3; i < 22; i++)
		s = strchr(s, ' ') + 1;
	ck_assert_int_eq(sscanf(s, "%llu", &ticks), 1);

	snprintf(pol, sizeof(pol), "{\"allow\": [{\"exe\": \"%s\", \"sha256\": \"%s\"}]}", exe,
		 sha);
	ck_assert_int_eq(policy_parse("p.json", pol, strlen(pol), &p, &err), 0);
	ck_assert_int_eq(policy_resolve_inodes(p, NULL), 1);
	ck_assert_int_eq(ruleset_new(&rs), 0);
	ck_assert_int_eq(rules_parse(rs, "r.json", allowed_rule, strlen(allowed_rule), &err), 0);
	cfg.hash_live = true;
	ck_assert_int_eq(engine_new(p, rs, &cfg, &e, &err), 0);

	/* Ourselves, as the sensors would report us */
	ev = ev_exec(RG_EV_PROCESS_PRESENT, (uint32_t)getpid(), (uint32_t)getppid(), exe, T0);
	ev.proc.start_boot_ns = ticks * (1000000000ull / (uint64_t)clock_ticks_per_sec());
	ev.u.exec.exe_ino = st.st_ino;
	ev.u.exec.exe_dev = st.st_dev;
	feed(e, &ev);
	ev.type = RG_EV_DEVICE_OPEN;
	memset(&ev.u, 0, sizeof(ev.u));
	ck_assert(!alerts_for(e, &ev));
	ck_assert_str_eq(proctree_find(engine_proctree(e), PROC_KEY((uint32_t)getpid(), 0))->sha256, sha);

	/* Events that do not carry the inode: the engine looks it up in /proc (live mode) */
	ev = ev_exec(RG_EV_PROCESS_PRESENT, (uint32_t)getpid(), (uint32_t)getppid(), exe, T0);
	ev.proc.start_boot_ns = ticks * (1000000000ull / (uint64_t)clock_ticks_per_sec());
	ev.u.exec.exe_ino = 0;
	ev.u.exec.exe_dev = 0;
	feed(e, &ev);
	ck_assert_uint_eq(proctree_find(engine_proctree(e), PROC_KEY((uint32_t)getpid(), 0))->exe_ino, 0);
	ev.type = RG_EV_DEVICE_OPEN;
	memset(&ev.u, 0, sizeof(ev.u));
	ck_assert(!alerts_for(e, &ev));
	ck_assert_uint_eq(proctree_find(engine_proctree(e), PROC_KEY((uint32_t)getpid(), 0))->exe_ino,
			  st.st_ino);

	/* Same path, another file (a copy, another mount namespace): not allowed */
	ev = ev_exec(RG_EV_PROCESS_PRESENT, 77777, 1, exe, T0);
	ev.u.exec.exe_ino = st.st_ino + 1;
	feed(e, &ev);
	ev.type = RG_EV_DEVICE_OPEN;
	memset(&ev.u, 0, sizeof(ev.u));
	ck_assert(alerts_for(e, &ev));

	/* Our pid with a wrong start time: /proc/PID/exe is not that process's, hashing fails */
	ev = ev_exec(RG_EV_PROCESS_PRESENT, (uint32_t)getpid(), 1, exe, T0);
	ev.proc.start_boot_ns = 12345;
	ev.u.exec.exe_ino = st.st_ino;
	ev.u.exec.exe_dev = st.st_dev;
	feed(e, &ev);
	ev.type = RG_EV_DEVICE_OPEN;
	memset(&ev.u, 0, sizeof(ev.u));
	ck_assert(alerts_for(e, &ev));
	clear_alerts();
	engine_free(e);
}
END_TEST

/*
 * A literal allow entry whose file is missing when the daemon pins the policy cannot be
 * verified: a file put at that path later (or hidden from the daemon, e.g. ProtectHome=tmpfs)
 * must not inherit the allowance. Without pinning (replay) the path alone matches.
 */
START_TEST(test_allowlist_unpinnable)
{
	static const char pol[] = "{\"allow\": [{\"exe\": \"/nonexistent/rg-tool\"}]}";
	struct engine_config cfg = base_cfg();
	struct rg_policy *p;
	struct rg_ruleset *rs;
	struct rg_engine *e;
	struct rg_error err;
	struct rg_event ev;

	for (int pin = 0; pin < 2; pin++) {
		ck_assert_int_eq(policy_parse("p.json", pol, strlen(pol), &p, &err), 0);
		if (pin) {
			ck_assert_int_eq(policy_resolve_inodes(p, NULL), 0);
			ck_assert(p->allow[0].pin_failed && !p->allow[0].pinned);
		}
		ck_assert_int_eq(ruleset_new(&rs), 0);
		ck_assert_int_eq(rules_parse(rs, "r.json", allowed_rule, strlen(allowed_rule), &err),
				 0);
		ck_assert_int_eq(engine_new(p, rs, &cfg, &e, &err), 0);
		ev = ev_exec(RG_EV_PROCESS_PRESENT, 4242, 1, "/nonexistent/rg-tool", T0);
		ev.u.exec.exe_ino = 99;
		ev.u.exec.exe_dev = 7;
		feed(e, &ev);
		ev.type = RG_EV_DEVICE_OPEN;
		memset(&ev.u, 0, sizeof(ev.u));
		ck_assert_msg(alerts_for(e, &ev) == (pin == 1), "pin=%d", pin);
		clear_alerts();
		engine_free(e);
	}
}
END_TEST

/*
 * Issue 25 item 7: a process that used RDMA keeps its state through a tree full of newer live
 * processes, so that its later read of the game's memory still raises RDMA-008's condition.
 */
START_TEST(test_rdma_state_survives_full_tree)
{
	static const char rule[] =
		"{\"id\": \"R8\", \"name\": \"r8\", \"severity\": \"critical\", \"aggregate\": false,"
		" \"condition\": \"event.action == memory_access and target.process.is_game and "
		"lineage(process.has_rdma)\"}";
	struct engine_config cfg = base_cfg();
	struct rg_engine *e;
	struct engine_stats st;
	struct rg_event ev;
	uint32_t pid;

	cfg.proc_capacity = 64;
	e = engine_from(game_policy, rule, &cfg);
	ev = ev_exec(RG_EV_EXEC, 900, 1, "/opt/arena/arena", T0);
	feed(e, &ev);
	ev = ev_exec(RG_EV_EXEC, 901, 1, "/tmp/bridge", T0);
	feed(e, &ev);
	ev = ev_reg_mr(901, "rxe0", T0 + 1);
	feed(e, &ev);
	for (pid = 2000; pid < 2200; pid++) {
		ev = ev_exec(RG_EV_EXEC, pid, 1, "/usr/bin/sleep", T0 + 2);
		feed(e, &ev);
	}
	ev = ev_proc(RG_EV_MEMORY_ACCESS, 901, T0 + 3);
	ev.u.mem.op = RG_MEM_PROCESS_VM_READV;
	ev.u.mem.target_pid = 900;
	ev.u.mem.target_start_boot_ns = 900 * SEC;
	feed(e, &ev);
	ck_assert_uint_eq(count_rule("R8"), 1);
	engine_get_stats(e, &st);
	ck_assert_uint_eq(st.proc.evicted_live, 202 - 64);
	ck_assert_uint_eq(st.proc.evicted_kept, 0);
	clear_alerts();
	engine_free(e);
}
END_TEST

START_TEST(test_overrides)
{
	static const char rules[] =
	    "[{\"id\": \"A\", \"name\": \"a\", \"severity\": \"low\", \"condition\": "
	    "\"event.action == verbs\", \"severity_when\": [{\"condition\": \"true\", \"severity\":"
	    " \"high\"}], \"aggregate\": false},"
	    " {\"id\": \"B\", \"name\": \"b\", \"severity\": \"low\", \"condition\": "
	    "\"event.action == verbs\", \"aggregate\": false},"
	    " {\"id\": \"C\", \"name\": \"c\", \"severity\": \"low\", \"condition\": "
	    "\"event.action == verbs\", \"exceptions\": [\"rdma.device == mlx5_0\"],"
	    " \"aggregate\": false},"
	    " {\"id\": \"D\", \"name\": \"d\", \"severity\": \"low\", \"enabled\": false,"
	    " \"condition\": \"event.action == verbs\", \"aggregate\": false}]";
	static const char pol[] =
		"{\"rules\": {\"A\": {\"severity\": \"medium\", \"action\": \"deny\"},"
		" \"B\": {\"enabled\": false}, \"C\": {\"exceptions\": [\"rdma.device == rxe1\"]},"
		" \"D\": {\"enabled\": true}}}";
	struct engine_config cfg = base_cfg();
	struct rg_engine *e = engine_from(pol, rules, &cfg);
	struct rg_event ev;

	ev = ev_reg_mr(30, "rxe0", T0);
	feed(e, &ev);
	ck_assert_uint_eq(n_alerts, 3);
	ck_assert_str_eq(str(0, "rule.id"), "A");
	ck_assert_str_eq(str(0, "rdmaguard.severity"), "medium"); /* the policy beats severity_when */
	ck_assert_str_eq(str(0, "rdmaguard.rule.action"), "deny");
	ck_assert_str_eq(str(1, "rule.id"), "C");
	ck_assert_str_eq(str(2, "rule.id"), "D");
	{
		bool en;
		int act;

		ck_assert_int_eq(engine_rule_effective(e, 0, &en, &act), 0);
		ck_assert(en);
		ck_assert_int_eq(act, RG_ACTION_DENY);
		ck_assert_int_eq(engine_rule_effective(e, 1, &en, &act), 0);
		ck_assert(!en);
		ck_assert_int_eq(engine_rule_effective(e, 3, &en, &act), 0);
		ck_assert(en); /* the policy turned it on */
		ck_assert_int_eq(engine_rule_effective(e, 4, &en, &act), -ENOENT);
	}
	ev = ev_reg_mr(30, "mlx5_0", T0); /* the rule's own exception */
	feed(e, &ev);
	ev = ev_reg_mr(30, "rxe1", T0);	/* the policy's exception */
	feed(e, &ev);
	ck_assert_uint_eq(count_rule("C"), 1);
	clear_alerts();
	engine_free(e);
}
END_TEST

START_TEST(test_check_and_load_config)
{
	static const char pol[] = "{\"role\": \"managed\",\n  \"rules\": {\"RDMA-099\": {}}}";
	const char *root = getenv("RG_SOURCE_ROOT");
	struct rg_policy *p, *p2;
	struct rg_ruleset *rs, *rs2;
	struct rg_error err;
	char dir[512], buf[1200];

	snprintf(dir, sizeof(dir), "%s/rules", root);
	ck_assert_int_eq(policy_parse("pol.json", pol, strlen(pol), &p, &err), 0);
	ck_assert_int_eq(rules_load_dir(dir, false, &rs, &err), 0);
	ck_assert_int_eq(engine_check(p, rs, &err), -EINVAL);
	ck_assert_str_eq(rg_error_format(&err, buf, sizeof(buf)),
			 "pol.json:2:13: \"rules\" overrides unknown rule \"RDMA-099\"");
	policy_free(p);
	ruleset_free(rs);
	/* The default policy with the default rules */
	ck_assert_int_eq(engine_load_config(NULL, false, dir, output_spec_check, &p2, &rs2, &err),
			 0);
	ck_assert_int_eq(p2->threshold, RG_SEV_MEDIUM);
	ck_assert_uint_eq(rs2->n, 30);
	policy_free(p2);
	ruleset_free(rs2);
	ck_assert_int_eq(engine_load_config("/nonexistent/p.json", false, dir, output_spec_check,
					    &p2, &rs2, &err),
			 -ENOENT);
}
END_TEST

/* SIGHUP: a new policy and rules, the same process tree and history. */
START_TEST(test_reload)
{
	static const char pol2[] =
		"{\"games\": [{\"name\": \"Arena 2\", \"exe\": [\"/opt/arena2/*\"]},"
		" {\"name\": \"Arena\", \"exe\": [\"/opt/arena/*\"]}]}";
	static const char bad_pol[] = "{\"rules\": {\"NOPE\": {}}}";
	struct engine_config cfg = base_cfg();
	struct rg_engine *e = engine_from(game_policy, mr_rule, &cfg);
	struct rg_policy *p;
	struct rg_ruleset *rs;
	struct rg_error err;
	struct engine_stats st;
	struct rg_event ev;
	char buf[1200];

	ev = ev_exec(RG_EV_PROCESS_PRESENT, 10, 1, "/usr/sbin/sshd", T0);
	feed(e, &ev);
	ev = ev_exec(RG_EV_PROCESS_PRESENT, 40, 1, "/opt/arena/arena", T0);
	feed(e, &ev);
	ev = ev_exec(RG_EV_EXEC, 30, 10, "/tmp/cheat", T0);
	feed(e, &ev);
	ev = ev_reg_mr(30, "rxe0", T0 + SEC);
	feed(e, &ev);
	feed(e, &ev); /* a pending repeat */
	ck_assert_uint_eq(n_alerts, 1);

	/* A bad set: refused, nothing changes */
	ck_assert_int_eq(policy_parse("bad.json", bad_pol, strlen(bad_pol), &p, &err), 0);
	ck_assert_int_eq(ruleset_new(&rs), 0);
	ck_assert_int_eq(rules_parse(rs, "r.json", running_rule, strlen(running_rule), &err), 0);
	ck_assert_int_eq(engine_reload(e, p, rs, collect, NULL, &err), -EINVAL);
	ck_assert_str_eq(rg_error_format(&err, buf, sizeof(buf)),
			 "bad.json:1:12: \"rules\" overrides unknown rule \"NOPE\"");
	ck_assert_uint_eq(n_alerts, 1);
	policy_free(p);
	ck_assert_str_eq(engine_rules(e)->rules[0].id, "T-MR");

	/* What the daemon then reports (AGENT-003's event): the old set still alerts on it */
	engine_policy_event(&ev, T0 + SEC, false, -EINVAL, "/etc/rdmaguard/policy.json",
			    rg_error_format(&err, buf, sizeof(buf)));
	ck_assert_int_eq(ev.type, RG_EV_AGENT_POLICY);
	ck_assert_uint_eq(ev.u.agent.ok, 0);
	ck_assert_int_eq(ev.u.agent.error, -EINVAL);
	ck_assert_str_eq(ev.u.agent.what, "/etc/rdmaguard/policy.json");
	ck_assert_str_eq(ev.u.agent.text, "bad.json:1:12: \"rules\" overrides unknown rule \"NOPE\"");
	feed(e, &ev);
	ck_assert_uint_eq(n_alerts, 1); /* T-MR does not cover agent events */

	/* A good one: the old rule's pending repeat goes out first */
	ck_assert_int_eq(policy_parse("p2.json", pol2, strlen(pol2), &p, &err), 0);
	ck_assert_int_eq(engine_reload(e, p, rs, collect, NULL, &err), 0);
	ck_assert_uint_eq(n_alerts, 2);
	ck_assert_str_eq(str(1, "rule.id"), "T-MR");
	ck_assert_int_eq(num(1, "rdmaguard.count"), 1);
	ck_assert_ptr_eq(engine_policy(e), p);
	/* The running game was found again under the new policy (now game index 1) */
	engine_get_stats(e, &st);
	ck_assert_uint_eq(st.games_running, 1);
	ck_assert_uint_eq(st.proc.live, 4); /* sshd, game, cheat, and the agent (its event) */
	ev = ev_reg_mr(30, "rxe0", T0 + 2 * SEC);
	feed(e, &ev);
	ck_assert_uint_eq(n_alerts, 3);
	ck_assert_str_eq(str(2, "rule.id"), "G");
	ck_assert_str_eq(str(2, "rdmaguard.game.name"), "Arena");
	/* Lineage learnt before the reload */
	ck_assert_str_eq(str(2, "process.parent.executable"), "/usr/sbin/sshd");
	ck_assert_int_eq(num(2, "event.sequence"), 3);
	/* The game exits after the reload: its session ends normally */
	ev = ev_proc(RG_EV_EXIT, 40, T0 + 3 * SEC);
	feed(e, &ev);
	engine_get_stats(e, &st);
	ck_assert_uint_eq(st.games_running, 0);
	clear_alerts();
	engine_free(e);
}
END_TEST

/* A reload to rules for other event types: each event is tried against the new set's rules of
 * its type (the engine indexes rules by the types their conditions can hold for). */
START_TEST(test_reload_types)
{
	static const char exec_rule[] =
		"{\"id\": \"X\", \"name\": \"exec\", \"severity\": \"low\","
		" \"condition\": \"event.action == exec\", \"aggregate\": false}";
	static const char two_rules[] =
		"[{\"id\": \"X2\", \"name\": \"exec\", \"severity\": \"low\","
		" \"condition\": \"event.action in (exec, fork)\", \"aggregate\": false},"
		" {\"id\": \"V\", \"name\": \"verbs\", \"severity\": \"low\","
		" \"condition\": \"event.action == verbs\", \"aggregate\": false},"
		" {\"id\": \"ANY\", \"name\": \"any pid 7\", \"severity\": \"low\","
		" \"condition\": \"process.pid == 7\", \"aggregate\": false}]";
	struct engine_config cfg = base_cfg();
	struct rg_engine *e = engine_from(game_policy, exec_rule, &cfg);
	struct rg_policy *p;
	struct rg_ruleset *rs;
	struct rg_error err;
	struct rg_event ev;

	ev = ev_reg_mr(30, "rxe0", T0);
	feed(e, &ev);
	ck_assert_uint_eq(n_alerts, 0);
	ev = ev_exec(RG_EV_EXEC, 31, 1, "/bin/true", T0);
	feed(e, &ev);
	ck_assert_uint_eq(n_alerts, 1);
	ck_assert_str_eq(str(0, "rule.id"), "X");

	ck_assert_int_eq(policy_parse("p.json", game_policy, strlen(game_policy), &p, &err), 0);
	ck_assert_int_eq(ruleset_new(&rs), 0);
	ck_assert_int_eq(rules_parse(rs, "r.json", two_rules, strlen(two_rules), &err), 0);
	ck_assert_int_eq(engine_reload(e, p, rs, collect, NULL, &err), 0);
	ev = ev_reg_mr(30, "rxe0", T0 + SEC);
	feed(e, &ev);
	ck_assert_uint_eq(n_alerts, 2);
	ck_assert_str_eq(str(1, "rule.id"), "V");
	ev = ev_exec(RG_EV_EXEC, 7, 1, "/bin/true", T0 + SEC);
	feed(e, &ev);
	ck_assert_uint_eq(n_alerts, 4); /* in rule order */
	ck_assert_str_eq(str(2, "rule.id"), "X2");
	ck_assert_str_eq(str(3, "rule.id"), "ANY");
	ev = ev_proc(RG_EV_EXIT, 7, T0 + 2 * SEC);
	feed(e, &ev);
	ck_assert_uint_eq(n_alerts, 5);
	ck_assert_str_eq(str(4, "rule.id"), "ANY");
	clear_alerts();
	engine_free(e);
}
END_TEST

static int fail_emit(const struct rg_alert *a, void *ud)
{
	(*(int *)ud)++;
	return collect(a, NULL) < 0 ? -1 : -EIO;
}

START_TEST(test_emit_error)
{
	static const char rules[] =
		"[{\"id\": \"A\", \"name\": \"a\", \"severity\": \"low\", \"condition\": "
		"\"event.action == verbs\", \"aggregate\": false},"
		" {\"id\": \"B\", \"name\": \"b\", \"severity\": \"low\", \"condition\": "
		"\"event.action == verbs\", \"aggregate\": false}]";
	struct engine_config cfg = base_cfg();
	struct rg_engine *e = engine_from("{}", rules, &cfg);
	struct rg_event ev = ev_reg_mr(30, "rxe0", T0);
	int calls = 0;

	ck_assert_int_eq(engine_process(e, &ev, fail_emit, &calls), -EIO);
	ck_assert_int_eq(calls, 2); /* the second alert still went out */
	ck_assert_int_eq(engine_process(e, &ev, NULL, NULL), 0);
	clear_alerts();
	engine_free(e);
}
END_TEST

/* Evaluation does not allocate: non-matching events and counted repeats. */
START_TEST(test_no_allocation)
{
	const char *root = getenv("RG_SOURCE_ROOT");
	struct engine_config cfg = base_cfg();
	struct rg_policy *p;
	struct rg_ruleset *rs;
	struct rg_engine *e;
	struct rg_error err;
	struct rg_event ev;
	char dir[512];
	unsigned long before, allocs;
	size_t alerts_before;
	int rets = 0;

	snprintf(dir, sizeof(dir), "%s/rules", root);
	ck_assert_int_eq(engine_load_config(NULL, false, dir, output_spec_check, &p, &rs, &err), 0);
	policy_free(p);
	ck_assert_int_eq(policy_parse("p", game_policy, strlen(game_policy), &p, &err), 0);
	ck_assert_int_eq(engine_new(p, rs, &cfg, &e, &err), 0);
	ev = ev_exec(RG_EV_PROCESS_PRESENT, 40, 1, "/opt/arena/arena", T0);
	feed(e, &ev);
	ev = ev_exec(RG_EV_EXEC, 30, 1, "/tmp/cheat", T0);
	feed(e, &ev);
	ev = ev_reg_mr(30, "rxe0", T0);
	feed(e, &ev); /* first alerts: these allocate */
	ck_assert_uint_gt(n_alerts, 0);
	alerts_before = n_alerts;

	/* No ck_assert inside the loop: Check's assertions allocate themselves. */
	before = n_allocs;
	for (int i = 1; i <= 1000; i++) {
		/* repeats of the same object within the window: counted */
		ev = ev_reg_mr(30, "rxe0", T0 + (uint64_t)i * 1000000);
		rets |= engine_process(e, &ev, collect, NULL);
		/* process lifecycle that matches no rule */
		ev = ev_proc(RG_EV_FORK, 1000 + (uint32_t)i, T0 + (uint64_t)i * 1000000);
		ev.proc.ppid = 40;
		ev.u.fork.parent_start_boot_ns = 40 * SEC;
		rets |= engine_process(e, &ev, collect, NULL);
		ev = ev_proc(RG_EV_EXIT, 1000 + (uint32_t)i, T0 + (uint64_t)i * 1000000);
		rets |= engine_process(e, &ev, collect, NULL);
	}
	allocs = n_allocs - before;
	ck_assert_int_eq(rets, 0);
	ck_assert_uint_eq(n_alerts, alerts_before);
	ck_assert_uint_eq(allocs, 0);
	ck_assert_int_eq(engine_flush(e, collect, NULL), 0);
	clear_alerts();
	engine_free(e);
}
END_TEST

/* Alerts too: after the first one has sized the writer, an alert allocates nothing in the
 * engine (the writer, the UUID pool, the digest context are reused). With incidents on, each
 * alert's copy in its incident's log allocates, up to the log's cap, then nothing. */
static unsigned long alert_allocs(bool incidents)
{
	static const char rules[] =
		"[{\"id\": \"A\", \"name\": \"a\", \"severity\": \"low\", \"condition\": "
		"\"event.action == verbs\", \"aggregate\": false}]";
	struct engine_config cfg = base_cfg();
	struct rg_engine *e;
	struct engine_stats st;
	struct rg_event ev = ev_reg_mr(30, "rxe0", T0);
	unsigned long before, allocs;
	int rets = 0;

	cfg.incidents_off = !incidents;
	e = engine_from("{}", rules, &cfg);
	ck_assert_int_eq(engine_process(e, &ev, NULL, NULL), 0); /* sizes the writer */
	before = n_allocs;
	for (int i = 1; i <= 1000; i++) {
		ev = ev_reg_mr(30, "rxe0", T0 + (uint64_t)i * 1000000);
		rets |= engine_process(e, &ev, NULL, NULL);
	}
	allocs = n_allocs - before;
	ck_assert_int_eq(rets, 0);
	engine_get_stats(e, &st);
	ck_assert_uint_eq(st.alerts, 1001);
	if (incidents) {
		ck_assert_uint_eq(st.incidents.opened, 1);
		ck_assert_uint_eq(st.incidents.alerts, 1001);
		/* 2 log lines an alert, INCIDENT_DEFAULT_LOG_RECORDS in all: the rest counted */
		ck_assert_uint_eq(st.incidents.log_dropped, 2002 - INCIDENT_DEFAULT_LOG_RECORDS);
	}
	engine_free(e);
	return allocs;
}

START_TEST(test_no_allocation_alerts)
{
	ck_assert_uint_eq(alert_allocs(false), 0);
	/* the log's lines and its array's growth (doubling from 16), nothing past its cap */
	ck_assert_uint_le(alert_allocs(true), INCIDENT_DEFAULT_LOG_RECORDS + 8);
}
END_TEST

START_TEST(test_stats)
{
	struct engine_config cfg = base_cfg();
	struct rg_engine *e = engine_from("{}", mr_rule, &cfg);
	struct engine_stats st;
	struct rg_event ev = ev_reg_mr(30, "rxe0", T0);
	uint64_t a, m;

	feed(e, &ev);
	feed(e, &ev);
	ev = ev_proc(RG_EV_EXIT, 30, T0);
	feed(e, &ev);
	engine_get_stats(e, &st);
	ck_assert_uint_eq(st.events, 3);
	ck_assert_uint_eq(st.events_by_type[RG_EV_VERBS], 2);
	ck_assert_uint_eq(st.alerts, 1);
	ck_assert_uint_eq(st.alerts_by_severity[RG_SEV_HIGH], 1);
	ck_assert_int_eq(st.max_severity, RG_SEV_HIGH);
	ck_assert_uint_eq(st.proc.exited, 1);
	engine_rule_stats(e, 0, &a, &m);
	ck_assert_uint_eq(a, 1);
	ck_assert_uint_eq(m, 2);
	engine_rule_stats(e, 5, &a, &m);
	ck_assert_uint_eq(a, 0);
	/* After its exit the summary still names the process */
	ck_assert_int_eq(engine_flush(e, collect, NULL), 0);
	ck_assert_uint_eq(n_alerts, 2);
	ck_assert(!has(1, "process.executable")); /* never exec'd in this test */
	ck_assert_int_eq(num(1, "process.pid"), 30);
	ck_assert(has(1, "process.entity_id"));
	clear_alerts();
	engine_free(e);
}
END_TEST

START_TEST(test_bad_config)
{
	struct engine_config cfg = base_cfg();
	struct rg_policy *p;
	struct rg_ruleset *rs;
	struct rg_engine *e;
	struct rg_error err;

	ck_assert_int_eq(policy_new_default(&p), 0);
	ck_assert_int_eq(ruleset_new(&rs), 0);
	cfg.proc_capacity = 2;
	ck_assert_int_eq(engine_new(p, rs, &cfg, &e, &err), -EINVAL);
	ck_assert_str_eq(err.msg, "invalid process capacity");
	cfg.proc_capacity = 0;
	cfg.agg_capacity = ENGINE_MAX_AGG_CAPACITY + 1;
	ck_assert_int_eq(engine_new(p, rs, &cfg, &e, &err), -EINVAL);
	/* The caller still owns them after a failure */
	policy_free(p);
	ruleset_free(rs);
	engine_free(NULL);
}
END_TEST

static Suite *engine_suite(void)
{
	Suite *s = suite_create("engine");
	TCase *core = tcase_create("core"), *limits = tcase_create("limits"),
	      *errors = tcase_create("errors");

	tcase_add_test(core, test_alert_fields);
	tcase_add_test(core, test_entity_id);
	tcase_add_test(core, test_aggregation);
	tcase_add_test(core, test_no_aggregation);
	tcase_add_test(core, test_game_sessions);
	tcase_add_test(core, test_game_by_hash);
	tcase_add_test(core, test_allowlist);
	tcase_add_test(core, test_allowlist_live);
	tcase_add_test(core, test_allowlist_unpinnable);
	tcase_add_test(core, test_overrides);
	tcase_add_test(core, test_reload);
	tcase_add_test(core, test_reload_types);
	tcase_add_test(core, test_stats);
	tcase_add_test(limits, test_aggregation_full);
	tcase_add_test(limits, test_rdma_state_survives_full_tree);
	tcase_add_test(limits, test_no_allocation);
	tcase_add_test(limits, test_no_allocation_alerts);
	tcase_add_test(errors, test_check_and_load_config);
	tcase_add_test(errors, test_emit_error);
	tcase_add_test(errors, test_bad_config);
	suite_add_tcase(s, core);
	suite_add_tcase(s, limits);
	suite_add_tcase(s, errors);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(engine_suite());
	int failed;

	alert_dump_init("engine");
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	if (alert_dump_validate() != 0) {
		fprintf(stderr, "alerts do not match rules/schema/alert.schema.json\n");
		failed++;
	}
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
