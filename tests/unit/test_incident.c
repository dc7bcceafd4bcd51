/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Incidents (engine/incident.h) in the engine: the stage table against rules/, the bound on open
 * incidents (eviction counted and recorded), closing after the actors exit and a quiet period,
 * the kept log, the record's text, and the reader of incident lines (incident_reader.h).
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine.h"
#include "engine/incident_reader.h"
#include "common/severity.h"
#include "event/ecs_map.h"
#include "event/event_json.h"

#define SEC 1000000000ull
#define T0  1768039200000000000ull /* 2026-01-10T10:00:00Z */

static const char rules_text[] =
    "[{\"id\": \"R-ACCESS\", \"name\": \"a\", \"severity\": \"low\", \"condition\": "
    "\"event.action == device_open\", \"aggregate\": false},"
    " {\"id\": \"R-MR\", \"name\": \"m\", \"severity\": \"low\", \"condition\": "
    "\"event.action == verbs\", \"aggregate\": false}]";

struct recs {
	char actions[64][16];
	char reasons[64][16];
	size_t n;
};

static int on_record(const struct rg_alert *a, void *ud)
{
	struct recs *r = ud;
	struct json_object *o = json_tokener_parse(a->json);
	struct json_object *act = json_get_path(o, "event.action");
	struct json_object *why = json_get_path(o, "rdmaguard.incident.close_reason");

	ck_assert(a->incident);
	ck_assert_ptr_nonnull(act);
	if (r->n < 64) {
		snprintf(r->actions[r->n], 16, "%s", json_object_get_string(act) + 9);
		snprintf(r->reasons[r->n], 16, "%s", why ? json_object_get_string(why) : "");
		r->n++;
	}
	json_object_put(o);
	return 0;
}

static struct rg_engine *new_engine(size_t max_open)
{
	struct rg_policy *p;
	struct rg_ruleset *rs;
	struct rg_engine *e;
	struct rg_error err;
	struct engine_config cfg = {.hostname = "h", .boot_id = "b", .incident_max_open = max_open};

	ck_assert_int_eq(policy_parse("p.json", "{}", 2, &p, &err), 0);
	ck_assert_int_eq(ruleset_new(&rs), 0);
	ck_assert_int_eq(rules_parse(rs, "r.json", rules_text, strlen(rules_text), &err), 0);
	ck_assert_int_eq(engine_new(p, rs, &cfg, &e, &err), 0);
	return e;
}

#define OPEN                                                                                       \
	"{\"event\":{\"action\":\"device_open\"},\"process\":{\"pid\":%u,\"name\":\"t%u\","        \
	"\"start_boot_ns\":%llu,\"parent\":{\"pid\":1}},\"file\":{\"path\":\"/dev/infiniband/"     \
	"uverbs0\"},\"rdma\":{\"node\":\"uverbs\",\"device\":\"rxe0\"}}"
#define EXIT                                                                                       \
	"{\"event\":{\"action\":\"exit\"},\"process\":{\"pid\":%u,\"name\":\"t%u\","               \
	"\"start_boot_ns\":%llu}}"

static void feed_text(struct rg_engine *e, const char *text, uint64_t t)
{
	struct event_reader *r;
	struct rg_event ev;
	char msg[256];
	size_t col;

	ck_assert_int_eq(event_reader_new(4096, &r), 0);
	ck_assert_msg(event_reader_read(r, text, strlen(text), &ev, &col, msg, sizeof(msg)) == 0,
		      "%s: %s", text, msg);
	ev.ts = t;
	ck_assert_int_eq(engine_process(e, &ev, NULL, NULL), 0);
	event_reader_free(r);
}

static void feed(struct rg_engine *e, bool open, unsigned pid, uint64_t t)
{
	char text[1024];

	if (open)
		snprintf(text, sizeof(text), OPEN, pid, pid, (unsigned long long)pid * SEC);
	else
		snprintf(text, sizeof(text), EXIT, pid, pid, (unsigned long long)pid * SEC);
	feed_text(e, text, t);
}

/* Every shipped rule has a stage in the table, and the table names no rule that is gone. */
START_TEST(test_every_rule_has_a_stage)
{
	const char *root = getenv("RG_SOURCE_ROOT");
	struct rg_ruleset *rs;
	struct rg_error err;
	char dir[4096], buf[1200];
	const char *id;
	int stage;

	ck_assert_ptr_nonnull(root);
	snprintf(dir, sizeof(dir), "%s/rules", root);
	ck_assert_msg(rules_load_dir(dir, false, &rs, &err) == 0, "%s",
		      rg_error_format(&err, buf, sizeof(buf)));
	ck_assert_uint_gt(rs->n, 20);
	for (size_t i = 0; i < rs->n; i++) {
		stage = incident_rule_stage(rs->rules[i].id);
		ck_assert_msg(stage >= 0, "rule %s has no stage in agent/engine/incident_stage.c",
			      rs->rules[i].id);
		ck_assert_ptr_nonnull(incident_stage_to_string((unsigned)stage));
	}
	for (size_t i = 0; (id = incident_rule_stage_at(i, &stage)); i++)
		ck_assert_msg(ruleset_find(rs, id), "the stage table names %s, not in rules/", id);
	ruleset_free(rs);
}
END_TEST

/* At most max_open open: the one quiet longest is closed, "evicted", counted. */
START_TEST(test_eviction_counted)
{
	struct rg_engine *e = new_engine(2);
	struct engine_stats st;
	struct recs r = {0};

	engine_set_incident_fn(e, on_record, &r);
	feed(e, true, 100, T0);
	feed(e, true, 200, T0 + SEC);
	feed(e, true, 300, T0 + 2 * SEC);
	engine_get_stats(e, &st);
	ck_assert_uint_eq(st.incidents.opened, 3);
	ck_assert_uint_eq(st.incidents.evicted, 1);
	ck_assert_uint_eq(st.incidents.open, 2);
	ck_assert_uint_eq(st.incidents.closed_kept, 1);
	ck_assert_uint_eq(r.n, 4); /* opened x3, closed x1 */
	ck_assert_str_eq(r.actions[2], "closed");
	ck_assert_str_eq(r.reasons[2], "evicted");
	/* the evicted one is still there to look at */
	ck_assert_uint_eq(incident_store_count(engine_incidents(e)), 3);
	ck_assert(!incident_is_open(incident_store_at(engine_incidents(e), 0)));
	engine_free(e);
}
END_TEST

/* Closed once its actor exited and the quiet period passed, not before. */
START_TEST(test_close_after_quiet)
{
	struct rg_engine *e = new_engine(0);
	const struct incident *inc;
	struct engine_stats st;
	struct recs r = {0};
	enum incident_log_kind kind;
	const char *json;
	size_t len;

	engine_set_incident_fn(e, on_record, &r);
	feed(e, true, 100, T0);
	feed(e, true, 100, T0 + SEC); /* a repeat: the same incident, no new record */
	ck_assert_uint_eq(r.n, 1);
	inc = incident_store_at(engine_incidents(e), 0);
	ck_assert_uint_eq(incident_alerts(inc), 2);
	/* the log: each alert and the raw event behind it, as recorded */
	ck_assert_uint_eq(incident_log_count(inc), 4);
	ck_assert_int_eq(incident_log_get(inc, 1, &kind, &json, &len), 0);
	ck_assert_int_eq(kind, INCIDENT_LOG_EVENT);
	ck_assert_ptr_nonnull(strstr(json, "\"kind\":\"event\""));
	ck_assert_int_eq(incident_log_get(inc, 4, &kind, &json, &len), -ENOENT);
	/* alive: never closed for quiet */
	engine_tick(e, T0 + 1000 * SEC, NULL, NULL);
	ck_assert(incident_is_open(inc));
	feed(e, false, 100, T0 + 1001 * SEC);
	engine_tick(e, T0 + 1001 * SEC + INCIDENT_DEFAULT_QUIET_NS - SEC, NULL, NULL);
	ck_assert(incident_is_open(inc));
	/* looked at every 10 s of event time */
	engine_tick(e, T0 + 1012 * SEC + INCIDENT_DEFAULT_QUIET_NS, NULL, NULL);
	ck_assert(!incident_is_open(inc));
	ck_assert_str_eq(r.actions[r.n - 1], "closed");
	ck_assert_str_eq(r.reasons[r.n - 1], "quiet");
	engine_get_stats(e, &st);
	ck_assert_uint_eq(st.incidents.closed, 1);
	ck_assert_uint_eq(st.incidents.evicted, 0);
	/* the same actor again: a new incident */
	feed(e, true, 100, T0 + 2000 * SEC);
	engine_get_stats(e, &st);
	ck_assert_uint_eq(st.incidents.opened, 2);
	engine_free(e);
}
END_TEST

/* The reader: records and alerts by id, bad lines with their column. */
START_TEST(test_reader)
{
	struct incident_set s = {0};
	char err[256];
	size_t col;
	const char *rec = "{\"event\":{\"kind\":\"state\",\"dataset\":\"rdmaguard.incident\"},"
			  "\"rdmaguard\":{\"incident\":{\"id\":\"INC-0123456789abcdef\"}}}";
	const char *alert = "{\"event\":{\"kind\":\"alert\"},\"rdmaguard\":{\"incident\":"
			    "{\"id\":\"INC-0123456789abcdef\"}}}";

	ck_assert_int_eq(incident_set_feed(&s, rec, strlen(rec), &col, err, sizeof(err)), 0);
	ck_assert_int_eq(incident_set_feed(&s, alert, strlen(alert), &col, err, sizeof(err)), 0);
	ck_assert_uint_eq(s.n, 1);
	ck_assert_uint_eq(s.v[0].n_alerts, 1);
	ck_assert_ptr_nonnull(s.v[0].record);
	ck_assert_int_eq(incident_set_feed(&s, "{\"a\":", 5, &col, err, sizeof(err)), -EINVAL);
	ck_assert_uint_eq(col, 6);
	ck_assert_int_eq(incident_set_feed(&s, "[1]", 3, &col, err, sizeof(err)), -EINVAL);
	ck_assert_int_eq(incident_set_feed(&s, "{} x", 4, &col, err, sizeof(err)), -EINVAL);
	ck_assert_uint_eq(col, 4);
	ck_assert_int_eq(incident_set_feed(&s,
					   "{\"event\":{\"kind\":\"alert\"},\"rdmaguard\":"
					   "{\"incident\":{\"id\":\"INC-../x\"}}}",
					   59, &col, err, sizeof(err)),
			 -EINVAL);
	ck_assert(!incident_id_valid("INC-0123456789ABCDEF"));
	ck_assert(incident_id_valid("INC-0123456789abcdef"));
	incident_set_free(&s);
}
END_TEST

/* The record's last text, for the test below. */
static int keep_record(const struct rg_alert *a, void *ud)
{
	char **last = ud;

	free(*last);
	*last = strndup(a->json, a->len);
	ck_assert_ptr_nonnull(*last);
	return 0;
}

/* The member key of the record's rdmaguard.incident, as json-c writes it (jsonw writes the same
 * bytes), must stand in the record as it is. */
static void ck_member(const char *text, struct json_object *inc, const char *key)
{
	struct json_object *m = NULL;
	const char *want;

	ck_assert_msg(json_object_object_get_ex(inc, key, &m), "no %s in %s", key, text);
	want = json_object_to_json_string_ext(m, JSON_C_TO_STRING_PLAIN |
						     JSON_C_TO_STRING_NOSLASHESCAPE);
	ck_assert_msg(strstr(text, want), "%s: %s not in %s", key, want, text);
}

/* The stages, rules and actors of a record are written as text (incident_json.c): the same
 * bytes as the document around them, escapes included. */
START_TEST(test_record_text)
{
	struct rg_engine *e = new_engine(0);
	struct json_object *o, *inc = NULL;
	char *last = NULL;

	engine_set_incident_fn(e, keep_record, &last);
	feed(e, true, 500, T0);
	feed_text(e,
		  "{\"event\":{\"action\":\"device_open\"},\"process\":{\"pid\":501,\"name\":"
		  "\"a\\\"b\\tc\",\"executable\":\"/tmp/x\\\\y\",\"start_boot_ns\":501000000000,"
		  "\"parent\":{\"pid\":500,\"start_boot_ns\":500000000000}},\"file\":{\"path\":"
		  "\"/dev/infiniband/uverbs0\\u0001\"},\"rdma\":{\"node\":\"uverbs\",\"device\":"
		  "\"rxe0\"}}",
		  T0 + SEC);
	feed_text(e,
		  "{\"event\":{\"action\":\"verbs\"},\"process\":{\"pid\":500,\"name\":\"t500\","
		  "\"start_boot_ns\":500000000000},\"rdma\":{\"via\":\"invoke_write\",\"fd\":3,"
		  "\"op\":\"reg_mr\",\"device\":\"rxe0\",\"mr\":{\"addr\":4096,\"length\":4096,"
		  "\"access\":[\"local_write\",\"remote_read\"]}}}",
		  T0 + 2 * SEC);
	ck_assert_ptr_nonnull(last);
	ck_assert_ptr_null(memchr(last, 0, strlen(last))); /* no NUL inside */
	o = json_tokener_parse(last);
	ck_assert_msg(o, "not JSON: %s", last);
	inc = json_get_path(o, "rdmaguard.incident");
	ck_assert_ptr_nonnull(inc);
	ck_member(last, inc, "stages");
	ck_member(last, inc, "rules");
	ck_member(last, inc, "actors");
	/* what the test is about: two rules, two actors (one named with a quote), two stages */
	ck_assert_int_eq(json_object_array_length(json_get_path(o, "rdmaguard.incident.rules")), 2);
	ck_assert_int_eq(json_object_array_length(json_get_path(o, "rdmaguard.incident.actors")),
			 2);
	/* the quote escaped; control characters reach the engine as '?' */
	ck_assert_msg(strstr(last, "\"name\":\"a\\\"b?c\""), "%s", last);
	ck_assert_ptr_nonnull(json_get_path(o, "rdmaguard.incident.stages.capability.facts"));
	/* in ECS's names, as the alerts (event/ecs_map.h): what ECS lacks under rdmaguard */
	ck_assert_int_eq(json_object_get_int(json_get_path(o, "rdmaguard.schema_version")), 2);
	ck_assert_str_eq(json_object_get_string(json_get_path(o, "ecs.version")), ECS_VERSION);
	ck_assert_int_eq(json_object_array_length(json_get_path(o, "event.type")), 1);
	ck_assert_str_eq(
	    json_object_get_string(json_object_array_get_idx(json_get_path(o, "event.type"), 0)),
	    "info");
	ck_assert_str_eq(json_object_get_string(json_get_path(o, "event.outcome")), "unknown");
	ck_assert_str_eq(json_object_get_string(json_get_path(o, "rdmaguard.severity")), "high");
	ck_assert_int_eq(json_object_get_int(json_get_path(o, "event.severity")), RG_SEV_HIGH);
	ck_assert_ptr_null(json_get_path(o, "severity"));
	ck_assert_ptr_null(json_get_path(o, "process.start_time"));
	ck_assert_ptr_null(json_get_path(o, "process.start_boot_ns"));
	ck_assert_ptr_nonnull(json_get_path(o, "rdmaguard.process.start_boot_ns"));
	json_object_put(o);
	free(last);
	engine_free(e);
}
END_TEST

static Suite *incident_suite(void)
{
	Suite *s = suite_create("incident");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_every_rule_has_a_stage);
	tcase_add_test(tc, test_close_after_quiet);
	tcase_add_test(tc, test_reader);
	tcase_add_test(tc, test_record_text);
	suite_add_tcase(s, tc);
	tc = tcase_create("limits");
	tcase_add_test(tc, test_eviction_counted);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(incident_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
