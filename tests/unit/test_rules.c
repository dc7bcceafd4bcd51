/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Rule files: the default set, the format, and every malformed case with its position. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rules/cond.h"
#include "policy/policy.h"
#include "rules/rules.h"
#include "proctree/proctree.h"

static char tmpdir[256];

static void setup(void)
{
	strcpy(tmpdir, "/tmp/rg-rules-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
}

static void rm_rf_flat(const char *dir)
{
	static const char *const names[] = {"a.json", "b.json", "README", ".hidden.json", "x.json",
					    "sub/c.json", "sub"};
	char p[400];

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(p, sizeof(p), "%s/%s", dir, names[i]);
		if (unlink(p) < 0)
			rmdir(p);
	}
	rmdir(dir);
}

static void teardown(void)
{
	rm_rf_flat(tmpdir);
}

static void put(const char *name, const char *text)
{
	char p[400];
	int fd;

	snprintf(p, sizeof(p), "%s/%s", tmpdir, name);
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

#define RULE(id, extra)                                                                            \
	"{\"id\": \"" id "\", \"name\": \"n\", \"severity\": \"low\", \"condition\": "             \
	"\"game.running\"" extra "}"

START_TEST(test_default_rules)
{
	static const char *const ids[] = {"AGENT-001", "AGENT-002", "AGENT-003", "AGENT-004",
					  "DMA-001",   "DMA-002",   "DMA-003",   "DMA-004",
					  "DMA-005",   "DMA-006",   "DMA-007",   "DMA-008",
					  "DMA-009",   "DMA-010",   "DMA-011",
					  "DMA-012",   "DMA-013",   "DMA-014",   "RDMA-001",
					  "RDMA-002",  "RDMA-003",  "RDMA-004",	 "RDMA-005",
					  "RDMA-006",  "RDMA-007",  "RDMA-008",	 "RDMA-009",
					  "RDMA-010",  "RDMA-011",  "RDMA-012"};
	const char *root = getenv("RG_SOURCE_ROOT");
	struct rg_ruleset *set;
	struct rg_error err;
	char dir[512], buf[1200];

	ck_assert_ptr_nonnull(root);
	snprintf(dir, sizeof(dir), "%s/rules", root);
	ck_assert_msg(rules_load_dir(dir, false, &set, &err) == 0, "%s",
		      rg_error_format(&err, buf, sizeof(buf)));
	ck_assert_uint_eq(set->n, sizeof(ids) / sizeof(ids[0]));
	for (size_t i = 0; i < set->n; i++) {
		const struct rg_rule *r = &set->rules[i];

		ck_assert_str_eq(r->id, ids[i]); /* file-name order */
		ck_assert(r->enabled);
		ck_assert_int_eq(r->action, RG_ACTION_ALERT);
		ck_assert_ptr_nonnull(r->description);
		ck_assert_uint_ge(r->n_tags, 2);
		ck_assert_msg(r->threat || !strcmp(r->id, "RDMA-004") ||
				  !strcmp(r->id, "AGENT-003"),
			      "%s has no MITRE mapping", r->id);
		ck_assert_str_ne(rule_message_text(r), r->name);
		ck_assert_ptr_eq(ruleset_find(set, r->id), r);
	}
	ck_assert_int_eq(ruleset_find(set, "RDMA-008")->severity, RG_SEV_CRITICAL);
	ck_assert_int_eq(ruleset_find(set, "AGENT-003")->severity, RG_SEV_INFO);
	ck_assert(!ruleset_find(set, "AGENT-003")->aggregate);
	ck_assert_ptr_null(ruleset_find(set, "RDMA-099"));
	ruleset_free(set);
}
END_TEST

START_TEST(test_format)
{
	static const char text[] =
	    "// two rules in one file\n"
	    "[\n"
	    " {\"id\": \"X-1\", \"name\": \"first\", \"severity\": \"high\",\n"
	    "  \"description\": \"d\", \"tags\": \"t\", \"action\": \"kill\", \"enabled\": false,\n"
	    "  \"condition\": [\"event.action == verbs\", \"and rdma.op == reg_mr\"],\n"
	    "  \"exceptions\": [\"process.user.id == 0\"],\n"
	    "  \"severity_when\": [{\"condition\": \"game.running\", \"severity\": "
	    "\"critical\"}],\n"
	    "  \"message\": \"{{{process.name}}} {module.name|rdma.device} {rdma.mr.access} "
	    "{dll.path}\",\n"
	    "  \"aggregate\": {\"by\": [\"rdma.device\", \"rdma.op\"], \"window\": \"5m\"},\n"
	    "  \"threat\": {\"tactic\": {\"id\": \"TA0005\", \"name\": \"Defense Evasion\"},\n"
	    "             \"technique\": {\"id\": \"T1055.001\", \"name\": \"DLL\"}}},\n"
	    " {\"id\": \"X-2\", \"name\": \"second\", \"severity\": \"info\", \"condition\": "
	    "\"true\",\n"
	    "  \"aggregate\": {\"window\": 0}}\n"
	    "]\n";
	struct rg_ruleset *set;
	struct rg_error err;
	struct rg_event ev;
	struct cond_ctx ctx = {.ev = &ev, .allowed = -1};
	struct proctree *t;
	const struct rg_rule *r;
	char buf[1200];

	ck_assert_int_eq(ruleset_new(&set), 0);
	ck_assert_msg(rules_parse(set, "x.json", text, strlen(text), &err) == 0, "%s",
		      rg_error_format(&err, buf, sizeof(buf)));
	ck_assert_uint_eq(set->n, 2);
	r = &set->rules[0];
	ck_assert_str_eq(r->id, "X-1");
	ck_assert_int_eq(r->severity, RG_SEV_HIGH);
	ck_assert_int_eq(r->action, RG_ACTION_KILL);
	ck_assert(!r->enabled);
	ck_assert_uint_eq(r->n_tags, 1);
	ck_assert_str_eq(cond_text(r->cond), "event.action == verbs and rdma.op == reg_mr");
	ck_assert_uint_eq(r->n_exceptions, 1);
	ck_assert_uint_eq(r->n_sev_when, 1);
	ck_assert_int_eq(r->sev_when[0].severity, RG_SEV_CRITICAL);
	ck_assert_uint_eq(r->n_agg_by, 2);
	ck_assert_uint_eq(r->window_ns, 300ull * 1000000000ull);
	ck_assert(r->aggregate);
	ck_assert_str_eq(r->threat->technique_id, "T1055.001");
	ck_assert_str_eq(r->file, "x.json");
	ck_assert_uint_eq(r->line, 3);
	ck_assert_uint_eq(r->column, 2);
	ck_assert(!set->rules[1].aggregate); /* window 0 */
	ck_assert_str_eq(rule_message_text(&set->rules[1]), "second");

	/* The message: braces, alternatives, absent fields. */
	ck_assert_int_eq(proctree_new(8, &t), 0);
	memset(&ev, 0, sizeof(ev));
	ev.type = RG_EV_VERBS;
	ev.proc.pid = 4;
	strcpy(ev.proc.comm, "p");
	strcpy(ev.u.verbs.device, "rxe0");
	ev.u.verbs.mr_access = RG_ACCESS_REMOTE_WRITE | RG_ACCESS_REMOTE_ATOMIC;
	ctx.tree = t;
	ctx.proc = ctx.cur = proctree_update(t, &ev);
	rule_render_message(r, &ctx, buf, sizeof(buf));
	ck_assert_str_eq(buf, "{p} rxe0 remote_write,remote_atomic ?");
	rule_render_message(r, &ctx, buf, 8);
	ck_assert_str_eq(buf, "{p} rxe");
	proctree_free(t);
	ruleset_free(set);
}
END_TEST

START_TEST(test_load_dir)
{
	struct rg_ruleset *set;
	struct rg_error err;
	char buf[1200], want[1200], sub[400];

	put("b.json", RULE("B", ""));
	put("a.json", "[" RULE("A1", "") ", " RULE("A2", "") "]");
	put("README", "not json");
	put(".hidden.json", "not json");
	snprintf(sub, sizeof(sub), "%s/sub", tmpdir);
	ck_assert_int_eq(mkdir(sub, 0755), 0);
	put("sub/c.json", "not json");
	ck_assert_msg(rules_load_dir(tmpdir, false, &set, &err) == 0, "%s",
		      rg_error_format(&err, buf, sizeof(buf)));
	ck_assert_uint_eq(set->n, 3);
	ck_assert_str_eq(set->rules[0].id, "A1");
	ck_assert_str_eq(set->rules[2].id, "B");
	ck_assert_str_eq(set->dir, tmpdir);
	ruleset_free(set);

	/* The same id in two files: the second is the error, the first is named. */
	put("x.json", "\n  " RULE("A2", ""));
	ck_assert_int_eq(rules_load_dir(tmpdir, false, &set, &err), -EINVAL);
	snprintf(want, sizeof(want),
		 "%s/x.json:2:10: duplicate rule id \"A2\" (first defined at %s/a.json:1:77)",
		 tmpdir, tmpdir);
	ck_assert_str_eq(rg_error_format(&err, buf, sizeof(buf)), want);

	/* A broken file anywhere fails the whole set: no half-loaded rules. */
	put("x.json", "{");
	ck_assert_int_eq(rules_load_dir(tmpdir, false, &set, &err), -EINVAL);
	snprintf(want, sizeof(want), "%s/x.json:1:2: expected a string key, found end of file",
		 tmpdir);
	ck_assert_str_eq(rg_error_format(&err, buf, sizeof(buf)), want);
}
END_TEST

START_TEST(test_load_dir_errors)
{
	struct rg_ruleset *set;
	struct rg_error err;
	char buf[1200], want[1200], none[400];

	ck_assert_int_eq(rules_load_dir(tmpdir, false, &set, &err), -EINVAL);
	snprintf(want, sizeof(want), "%s: no rules found (*.json files)", tmpdir);
	ck_assert_str_eq(rg_error_format(&err, buf, sizeof(buf)), want);
	snprintf(none, sizeof(none), "%s/none", tmpdir);
	ck_assert_int_eq(rules_load_dir(none, false, &set, &err), -ENOENT);
	snprintf(want, sizeof(want), "%s: cannot open rules directory: No such file or directory",
		 none);
	ck_assert_str_eq(rg_error_format(&err, buf, sizeof(buf)), want);
	ck_assert_ptr_nonnull(rules_default_dir());
}
END_TEST

static const struct {
	const char *text;
	const char *msg;
} bad[] = {
	{"5", "r.json:1:1: a rules file holds a rule object or an array of rules, not a number"},
	{"[5]", "r.json:1:2: a rule must be an object, not a number"},
	{"{\"name\": \"n\", \"severity\": \"low\", \"condition\": \"true\"}",
	 "r.json:1:1: missing required key \"id\""},
	{"{\"id\": \"has space\", \"name\": \"n\", \"severity\": \"low\", \"condition\": \"true\"}",
	 "r.json:1:8: rule id \"has space\" must be 1 to 32 letters, digits, '-', '_' or '.'"},
	{"{\"id\": \"X\", \"severity\": \"low\", \"condition\": \"true\"}",
	 "r.json:1:1: missing required key \"name\""},
	{"{\"id\": \"X\", \"name\": \"n\", \"condition\": \"true\"}",
	 "r.json:1:1: missing required key \"severity\""},
	{"{\"id\": \"X\", \"name\": \"n\", \"severity\": \"severe\", \"condition\": \"true\"}",
	 "r.json:1:38: unknown severity \"severe\" (info, low, medium, high, critical)"},
	{"{\"id\": \"X\", \"name\": \"n\", \"severity\": \"low\"}",
	 "r.json:1:1: missing required key \"condition\""},
	{"{\"id\": \"X\", \"name\": \"n\", \"severity\": \"low\",\n \"conditon\": \"true\"}",
	 "r.json:2:2: unknown key \"conditon\" in a rule (did you mean \"condition\"?)"},
	{"{\"id\": \"X\", \"name\": \"n\", \"severity\": \"low\",\n \"condition\": 5}",
	 "r.json:2:15: a condition must be a string or an array of strings, not a number"},
	{"{\"id\": \"X\", \"name\": \"n\", \"severity\": \"low\",\n \"condition\": []}",
	 "r.json:2:15: a condition must be a string or an array of strings, not an array"},
	{"{\"id\": \"X\", \"name\": \"n\", \"severity\": \"low\",\n \"condition\": [\n"
	 "   \"event.action == verbs\",\n   \"and rdma.mr.lenght > 0\"]}",
	 "r.json:4:9: unknown field 'rdma.mr.lenght'"},
	{"{\"id\": \"X\", \"name\": \"n\", \"severity\": \"low\", \"condition\": \"true\",\n"
	 " \"exceptions\": [\"process.name == \\u0027a\\u0027 and\"]}",
	 "r.json:2:51: unexpected end of condition"},
	{"{\"id\": \"X\", \"name\": \"n\", \"severity\": \"low\", \"condition\": \"true\",\n"
	 " \"exceptions\": {}}",
	 "r.json:2:16: \"exceptions\" must be an array of conditions, not an object"},
	{"{\"id\": \"X\", \"name\": \"n\", \"severity\": \"low\", \"condition\": \"true\",\n"
	 " \"message\": \"{process.nam} did it\"}",
	 "r.json:2:15: unknown field 'process.nam' in message"},
	{"{\"id\": \"X\", \"name\": \"n\", \"severity\": \"low\", \"condition\": \"true\",\n"
	 " \"message\": \"a\\tb {rdma.op|dll.pth}\"}",
	 "r.json:2:28: unknown field 'dll.pth' in message"},
	{"{\"id\": \"X\", \"name\": \"n\", \"severity\": \"low\", \"condition\": \"true\",\n"
	 " \"message\": \"a {b\"}",
	 "r.json:2:16: '{' must be followed by a field name and '}' (write '{{' for a brace)"},
	{"{\"id\": \"X\", \"name\": \"n\", \"severity\": \"low\", \"condition\": \"true\",\n"
	 " \"message\": \"a } b\"}",
	 "r.json:2:16: unmatched '}' in message (write '}}' for a brace)"},
	{"{\"id\": \"X\", \"name\": \"n\", \"severity\": \"low\", \"condition\": \"true\",\n"
	 " \"aggregate\": {\"by\": [\"rdma.dev\"]}}",
	 "r.json:2:23: unknown field 'rdma.dev' in \"aggregate.by\""},
	{"{\"id\": \"X\", \"name\": \"n\", \"severity\": \"low\", \"condition\": \"true\",\n"
	 " \"aggregate\": {\"key\": [\"rdma.device\"]}}",
	 "r.json:2:16: unknown key \"key\" in \"aggregate\""},
	{"{\"id\": \"X\", \"name\": \"n\", \"severity\": \"low\", \"condition\": \"true\",\n"
	 " \"aggregate\": {\"window\": \"1y\"}}",
	 "r.json:2:26: \"window\": invalid duration \"1y\" (a number with ms, s, m, h or d)"},
	{"{\"id\": \"X\", \"name\": \"n\", \"severity\": \"low\", \"condition\": \"true\",\n"
	 " \"action\": \"block\"}",
	 "r.json:2:12: unknown action \"block\" (alert, deny, kill)"},
	{"{\"id\": \"X\", \"name\": \"n\", \"severity\": \"low\", \"condition\": \"true\",\n"
	 " \"enabled\": 1}",
	 "r.json:2:13: \"enabled\" must be true or false, not a number"},
	{"{\"id\": \"X\", \"name\": \"n\", \"severity\": \"low\", \"condition\": \"true\",\n"
	 " \"severity_when\": [{\"severity\": \"high\"}]}",
	 "r.json:2:20: missing required key \"condition\""},
	{"{\"id\": \"X\", \"name\": \"n\", \"severity\": \"low\", \"condition\": \"true\",\n"
	 " \"severity_when\": [{\"condition\": \"true\", \"severity\": \"hi\"}]}",
	 "r.json:2:54: unknown severity \"hi\" (info, low, medium, high, critical)"},
	{"{\"id\": \"X\", \"name\": \"n\", \"severity\": \"low\", \"condition\": \"true\",\n"
	 " \"threat\": {\"tactic\": {\"id\": \"TA5\", \"name\": \"x\"}, \"technique\": {\"id\": "
	 "\"T1\", \"name\": \"y\"}}}",
	 "r.json:2:30: \"TA5\" is not a MITRE ATT&CK tactic id (TA0001)"},
	{"{\"id\": \"X\", \"name\": \"n\", \"severity\": \"low\", \"condition\": \"true\",\n"
	 " \"threat\": {\"tactic\": {\"id\": \"TA0001\", \"name\": \"x\"}}}",
	 "r.json:2:12: \"threat\" needs \"technique\""},
	{"[" RULE("D", "") ",\n " RULE("D", "") "]",
	 "r.json:2:9: duplicate rule id \"D\" (first defined at r.json:1:2)"},
};

START_TEST(test_bad_rules)
{
	struct rg_ruleset *set;
	struct rg_error err;
	char buf[1200];
	unsigned wrong = 0;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_int_eq(ruleset_new(&set), 0);
		memset(&err, 0, sizeof(err));
		if (rules_parse(set, "r.json", bad[i].text, strlen(bad[i].text), &err) != -EINVAL) {
			fprintf(stderr, "accepted: %s\n", bad[i].text);
			wrong++;
		} else if (strcmp(rg_error_format(&err, buf, sizeof(buf)), bad[i].msg) != 0) {
			fprintf(stderr, "%s\n got: %s\nwant: %s\n", bad[i].text, buf, bad[i].msg);
			wrong++;
		}
		ruleset_free(set);
	}
	ck_assert_uint_eq(wrong, 0);
}
END_TEST

START_TEST(test_too_many)
{
	struct rg_ruleset *set;
	struct rg_error err;
	size_t cap = (RULES_MAX + 1) * 100 + 10, n = 0;
	char *text = malloc(cap), buf[1200];

	n += (size_t)snprintf(text + n, cap - n, "[");
	for (int i = 0; i <= RULES_MAX; i++)
		n += (size_t)snprintf(text + n, cap - n, "%s" RULE("R%d", ""), i ? "," : "", i);
	n += (size_t)snprintf(text + n, cap - n, "]");
	ck_assert_int_eq(ruleset_new(&set), 0);
	ck_assert_int_eq(rules_parse(set, "r.json", text, n, &err), -EINVAL);
	ck_assert_str_eq(strstr(rg_error_format(&err, buf, sizeof(buf)), ": more"),
			 ": more than 512 rules");
	ruleset_free(set);
	free(text);
}
END_TEST

static Suite *rules_suite(void)
{
	Suite *s = suite_create("rules");
	TCase *core = tcase_create("core"), *limits = tcase_create("limits"),
	      *errors = tcase_create("errors");

	tcase_add_checked_fixture(core, setup, teardown);
	tcase_add_checked_fixture(errors, setup, teardown);
	tcase_add_test(core, test_default_rules);
	tcase_add_test(core, test_format);
	tcase_add_test(core, test_load_dir);
	tcase_add_test(limits, test_too_many);
	tcase_add_test(errors, test_load_dir_errors);
	tcase_add_test(errors, test_bad_rules);
	suite_add_tcase(s, core);
	suite_add_tcase(s, limits);
	suite_add_tcase(s, errors);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(rules_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
