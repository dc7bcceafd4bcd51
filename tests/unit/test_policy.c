/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Policy files and the positioned JSON parser under them. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/macro.h"
#include "common/timestamp.h"
#include "config/jsondoc.h"
#include "config/jsonval.h"
#include "policy/policy.h"
#include "event/event.h"
#include "output/output.h"

static char tmpdir[256];

static void setup(void)
{
	strcpy(tmpdir, "/tmp/rg-policy-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
}

static void teardown(void)
{
	char cmd[300];

	snprintf(cmd, sizeof(cmd), "%s/p.json", tmpdir);
	unlink(cmd);
	rmdir(tmpdir);
}

static const char *write_policy(const char *text, mode_t mode)
{
	static char path[300];
	int fd;

	snprintf(path, sizeof(path), "%s/p.json", tmpdir);
	unlink(path);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	ck_assert_int_eq(chmod(path, mode), 0);
	return path;
}

static struct rg_policy *parse_ok(const char *text)
{
	struct rg_policy *p = NULL;
	struct rg_error err;
	char buf[1200];
	int r = policy_parse("t.json", text, strlen(text), &p, &err);

	ck_assert_msg(r == 0, "%s", rg_error_format(&err, buf, sizeof(buf)));
	return p;
}

/* The minimal policy of the issue must load, as any administrator would write it. */
START_TEST(test_minimal)
{
	struct rg_policy *p = parse_ok("{\"role\": \"managed\", \"games\": [{\"name\": \"Arena\", "
				       "\"exe\": [\"/opt/arena/*\"]}],"
				       " \"allow\": [{\"exe\": \"/usr/bin/ibv_devinfo\"}]}");

	ck_assert_int_eq(p->role, RG_ROLE_MANAGED);
	ck_assert_uint_eq(p->n_games, 1);
	ck_assert_str_eq(p->games[0].name, "Arena");
	ck_assert_uint_eq(p->games[0].n_exe, 1);
	ck_assert_str_eq(p->games[0].exe[0], "/opt/arena/*");
	ck_assert_uint_eq(p->n_allow, 1);
	ck_assert_str_eq(p->allow[0].exe, "/usr/bin/ibv_devinfo");
	ck_assert(p->allow[0].exe_literal);
	ck_assert(!p->allow[0].has_ops);
	ck_assert_uint_eq(p->allow[0].line, 1);
	ck_assert_uint_eq(p->allow[0].column, 86);
	/* defaults */
	ck_assert_int_eq(p->threshold, RG_SEV_MEDIUM);
	ck_assert_uint_eq(p->mr_max_bytes, 1ull << 30);
	ck_assert_uint_eq(p->aggregate_window_ns, 60ull * 1000000000ull);
	ck_assert(!p->enforce);
	ck_assert_str_eq(p->path, "t.json");
	/* Game patterns: '*' crosses '/' */
	ck_assert(policy_game_exe_match(&p->games[0], "/opt/arena/bin/arena.x86_64"));
	ck_assert(!policy_game_exe_match(&p->games[0], "/opt/arenax/arena"));
	ck_assert(!policy_game_exe_match(&p->games[0], ""));
	ck_assert(!policy_games_need_hash(p));
	policy_free(p);
}
END_TEST

START_TEST(test_every_key)
{
	static const char text[] =
	    "// a comment line\n"
	    "{\n"
	    "  \"version\": 1, /* inline */ \"description\": \"café\",\n"
	    "  \"role\": \"server\", \"threshold\": \"high\",\n"
	    "  \"games\": [{\"name\": \"G\", \"exe\": \"/g/*\",\n"
	    "     \"sha256\": "
	    "[\"0000000000000000000000000000000000000000000000000000000000000001\"]}],\n"
	    "  \"allow\": [{\"exe\": \"/usr/bin/ib_*\", \"sha256\": "
	    "\"00000000000000000000000000000000000000000000000000000000000000ff\",\n"
	    "     \"uid\": [0, 1000], \"parent\": \"/usr/bin/bash\", \"devices\": \"mlx5_0\",\n"
	    "     \"operations\": [\"device_open\", \"reg_mr\", \"connect\"],\n"
	    "     \"expires\": \"2026-12-31\", \"comment\": \"lab\"}],\n"
	    "  \"rules\": {\"RDMA-004\": {\"enabled\": false, \"severity\": \"low\", \"action\": "
	    "\"deny\",\n"
	    "                \"exceptions\": [\"process.user.id == 0\", [\"game.running\", \"and "
	    "true\"]]}},\n"
	    "  \"mr_max_bytes\": 67108864, \"aggregate_window\": \"90s\",\n"
	    "  \"enforce\": true, \"enforce_scope\": \"while_game\",\n"
	    "  \"outputs\": [\"stdout\", \"file:/var/log/a.jsonl\"]\n"
	    "}\n";
	struct rg_policy *p = parse_ok(text);
	const struct rg_policy_allow *a = &p->allow[0];
	uint64_t day;

	ck_assert_str_eq(p->description, "café");
	ck_assert_int_eq(p->role, RG_ROLE_SERVER);
	ck_assert_int_eq(p->threshold, RG_SEV_HIGH);
	ck_assert_uint_eq(p->games[0].n_exe, 1);
	ck_assert_uint_eq(p->games[0].n_sha256, 1);
	ck_assert(policy_game_sha_match(
	    &p->games[0], "0000000000000000000000000000000000000000000000000000000000000001"));
	ck_assert(!policy_game_sha_match(&p->games[0], ""));
	ck_assert(policy_games_need_hash(p));
	ck_assert(!a->exe_literal);
	ck_assert_str_eq(a->sha256,
			 "00000000000000000000000000000000000000000000000000000000000000ff");
	ck_assert_uint_eq(a->n_uids, 2);
	ck_assert_uint_eq(a->uids[1], 1000);
	ck_assert_str_eq(a->parent, "/usr/bin/bash");
	ck_assert_uint_eq(a->n_devices, 1);
	ck_assert_str_eq(a->devices[0], "mlx5_0");
	ck_assert(a->has_ops);
	ck_assert_uint_eq(a->op_types, 1u << RG_EV_DEVICE_OPEN);
	ck_assert_uint_eq(a->op_verbs, 1u << RG_OP_REG_MR);
	ck_assert_uint_eq(a->op_cm, 1u << RG_CM_CONNECT);
	/* "2026-12-31" allows through the end of that day (UTC). */
	ck_assert_int_eq(parse_timestamp("2027-01-01T00:00:00Z", &day), 0);
	ck_assert_uint_eq(a->expires_ns, day);
	ck_assert_str_eq(a->comment, "lab");
	ck_assert_uint_eq(a->line, 7);
	ck_assert_uint_eq(a->column, 13);
	ck_assert_uint_eq(p->n_overrides, 1);
	ck_assert_str_eq(p->overrides[0].rule_id, "RDMA-004");
	ck_assert_int_eq(p->overrides[0].enabled, 0);
	ck_assert_int_eq(p->overrides[0].severity, RG_SEV_LOW);
	ck_assert_int_eq(p->overrides[0].action, RG_ACTION_DENY);
	ck_assert_uint_eq(p->overrides[0].n_exceptions, 2);
	ck_assert_uint_eq(p->overrides[0].line, 11);
	ck_assert_uint_eq(p->overrides[0].column, 13);
	ck_assert_uint_eq(p->mr_max_bytes, 64ull << 20);
	ck_assert_uint_eq(p->aggregate_window_ns, 90ull * 1000000000ull);
	ck_assert(p->enforce);
	ck_assert_int_eq(p->enforce_scope, RG_ENFORCE_WHILE_GAME);
	ck_assert_uint_eq(p->n_outputs, 2);
	ck_assert_str_eq(p->outputs[1], "file:/var/log/a.jsonl");
	policy_free(p);

	p = parse_ok("\xef\xbb\xbf{\"aggregate_window\": 5}");
	ck_assert_uint_eq(p->aggregate_window_ns, 5ull * 1000000000ull);
	policy_free(p);
	p = parse_ok("{\"aggregate_window\": \"0s\"}");
	ck_assert_uint_eq(p->aggregate_window_ns, 0);
	policy_free(p);
}
END_TEST

/* The example policies shipped in rules/policies/ load. */
START_TEST(test_examples)
{
	static const char *const names[] = {"lan-cafe.json", "tournament.json"};
	const char *root = getenv("RG_SOURCE_ROOT");
	struct rg_policy *p;
	struct rg_error err;
	char path[512], buf[1200];

	ck_assert_ptr_nonnull(root);
	for (size_t i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s/rules/policies/%s", root, names[i]);
		ck_assert_msg(policy_load(path, false, &p, &err) == 0, "%s",
			      rg_error_format(&err, buf, sizeof(buf)));
		ck_assert_uint_ge(p->n_games, 1);
		policy_free(p);
	}
}
END_TEST

START_TEST(test_owner_check)
{
	const char *path = write_policy("{\"role\": \"managed\"}", 0644);
	struct rg_policy *p = NULL;
	struct rg_error err;
	char buf[1200], want[600];
	int r;

	r = policy_load(path, true, &p, &err);
	if (geteuid() == 0) {
		ck_assert_int_eq(r, 0);
		policy_free(p);
		p = NULL;
		/* Someone else's file is refused */
		ck_assert_int_eq(chown(path, 65534, 65534), 0);
		ck_assert_int_eq(policy_load(path, true, &p, &err), -EPERM);
		snprintf(want, sizeof(want), "%s: refused: owned by uid 65534, not root", path);
		ck_assert_str_eq(rg_error_format(&err, buf, sizeof(buf)), want);
		ck_assert_int_eq(chown(path, 0, 0), 0);
	} else {
		/* Not root: our own file is not root's. */
		ck_assert_int_eq(r, -EPERM);
	}
	/* Writable by group or other is refused whoever owns it */
	ck_assert_int_eq(chmod(path, 0664), 0);
	if (geteuid() == 0) {
		ck_assert_int_eq(policy_load(path, true, &p, &err), -EPERM);
		snprintf(want, sizeof(want), "%s: refused: writable by group or other (mode 0664)",
			 path);
		ck_assert_str_eq(rg_error_format(&err, buf, sizeof(buf)), want);
		ck_assert_int_eq(chmod(path, 0602), 0);
		ck_assert_int_eq(policy_load(path, true, &p, &err), -EPERM);
	}
	/* Without the check (replay, tests) it loads */
	ck_assert_int_eq(policy_load(path, false, &p, &err), 0);
	policy_free(p);
}
END_TEST

START_TEST(test_resolve_inodes)
{
	char text[700];
	const char *path = write_policy("{}", 0644);
	struct rg_policy *p;
	struct stat st;

	ck_assert_int_eq(stat(path, &st), 0);
	snprintf(text, sizeof(text),
		 "{\"allow\": [{\"exe\": \"%s\"}, {\"exe\": \"%s*\"}, {\"exe\": \"%s/missing\"}]}",
		 path, path, tmpdir);
	p = parse_ok(text);
	ck_assert_int_eq(policy_resolve_inodes(p, NULL), 2);
	ck_assert(p->allow[0].pinned);
	ck_assert_uint_eq(p->allow[0].exe_files.n, 1);
	ck_assert(glob_files_has(&p->allow[0].exe_files, st.st_ino, st.st_dev));
	/* a pattern: pinned to the files it names now */
	ck_assert(p->allow[1].pinned);
	ck_assert(glob_files_has(&p->allow[1].exe_files, st.st_ino, st.st_dev));
	ck_assert(!p->allow[2].pinned && p->allow[2].pin_failed); /* no such file */
	/* Below a root: the same file seen through its directory as "/" */
	ck_assert_int_eq(policy_resolve_inodes(p, tmpdir), 0);
	policy_free(p);
}
END_TEST

START_TEST(test_jdoc_positions)
{
	static const char text[] =
	    "{\n\t\"a\": \"x\\\"y\\u00e9z\",\n  \"b\": [1, null, {\"c\": true}]\n}";
	struct json_object *root, *b;
	struct rg_error err;
	struct jdoc *doc;
	unsigned line, col;
	size_t pos;

	ck_assert_int_eq(jdoc_parse("f", text, strlen(text), &doc, &err), 0);
	root = jdoc_root(doc);
	pos = jdoc_member_pos(doc, root, "a", true);
	jdoc_line_col(doc, pos, &line, &col);
	ck_assert_uint_eq(line, 2);
	ck_assert_uint_eq(col, 2);
	pos = jdoc_member_pos(doc, root, "a", false);
	jdoc_line_col(doc, pos, &line, &col);
	ck_assert_uint_eq(col, 7);
	/* Decoded "x\"yéz": byte 2 ('y') is raw column 11; byte 5 ('z', after the 2-byte é) is
	 * raw column 18 (after \u00e9); past the end is the closing quote. */
	jdoc_line_col(doc, jdoc_string_pos(doc, pos, 2), &line, &col);
	ck_assert_uint_eq(col, 11);
	jdoc_line_col(doc, jdoc_string_pos(doc, pos, 5), &line, &col);
	ck_assert_uint_eq(col, 18);
	jdoc_line_col(doc, jdoc_string_pos(doc, pos, 6), &line, &col);
	ck_assert_uint_eq(col, 19);
	json_object_object_get_ex(root, "b", &b);
	jdoc_line_col(doc, jdoc_element_pos(doc, b, 1), &line, &col);
	ck_assert_uint_eq(line, 3);
	ck_assert_uint_eq(col, 12);
	ck_assert_uint_eq(jdoc_element_pos(doc, b, 3), JDOC_NOPOS);
	ck_assert_uint_eq(jdoc_member_pos(doc, root, "zz", false), JDOC_NOPOS);
	ck_assert_uint_eq(jdoc_value_pos(doc, NULL), JDOC_NOPOS);
	ck_assert_str_eq(json_type_words(NULL), "null");
	/* An error without a position names the file only. */
	jdoc_error(doc, JDOC_NOPOS, &err, "no place");
	ck_assert_str_eq(rg_error_format(&err, (char[64]){0}, 64), "f: no place");
	jdoc_free(doc);
}
END_TEST

/* Every malformed policy: exit path -EINVAL and the exact file:line:column message. */
static const struct {
	const char *text;
	const char *msg;
} bad[] = {
    /* syntax */
    {"", "t.json:1:1: empty document"},
    {"  // only a comment\n", "t.json:2:1: empty document"},
    {"{\"role\": \"managed\",}", "t.json:1:20: trailing comma before '}'"},
    {"{\"games\": [1,]}", "t.json:1:14: trailing comma before ']'"},
    {"{\"role\": \"managed\"", "t.json:1:19: expected ',' or '}', found end of file"},
    {"{\"role\": \"managed", "t.json:1:10: unterminated string"},
    {"{\"role\": 'managed'}", "t.json:1:10: strings must use double quotes"},
    {"{\"mr_max_bytes\": NaN}", "t.json:1:18: expected a value, found 'N'"},
    {"{\"mr_max_bytes\": 012}", "t.json:1:18: invalid number (leading zero)"},
    {"{\"mr_max_bytes\": 99999999999999999999}", "t.json:1:18: number out of range"},
    {"{\"mr_max_bytes\": 1e999}", "t.json:1:18: number out of range"},
    {"{\"mr_max_bytes\": -}", "t.json:1:18: invalid number"},
    {"{\"role\": \"a\", \"role\": \"b\"}", "t.json:1:15: duplicate key \"role\""},
    {"{\"role\": \"man\taged\"}", "t.json:1:14: control character in string (use an escape such "
				  "as \\n)"},
    {"{\"role\": \"\\x\"}", "t.json:1:11: invalid escape '\\x'"},
    {"{\"role\": \"\\u12\"}", "t.json:1:11: invalid \\u escape"},
    {"{\"role\": \"\\ud800x\"}", "t.json:1:11: invalid UTF-16 surrogate pair"},
    {"{\"role\": \"\xff\"}", "t.json:1:11: invalid UTF-8 in string"},
    {"{\"role\": \"\xc0\xaf\"}", "t.json:1:11: invalid UTF-8 in string"},
    {"{\"role\": tru}", "t.json:1:10: expected a value, found 't'"},
    {"{\"role\": \"managed\"} x", "t.json:1:21: unexpected 'x' after the end of the document"},
    {"{\"role\": \"managed\"}\n/* open", "t.json:2:1: unterminated comment"},
    {"{role: 1}", "t.json:1:2: expected a string key, found 'r'"},
    {"{\"role\" \"x\"}", "t.json:1:9: expected ':' after the key, found '\"'"},
    {"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]"
     "]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]",
     "t.json:1:65: nesting deeper than 64 levels"},
    /* keys and values */
    {"[]", "t.json:1:1: the policy must be an object, not an array"},
    {"{\"gmaes\": []}",
     "t.json:1:2: unknown key \"gmaes\" in the policy (did you mean \"games\"?)"},
    {"{\"games\": [],\n \"xyzzy\": 1}", "t.json:2:2: unknown key \"xyzzy\" in the policy"},
    {"{\"version\": 2}", "t.json:1:13: unsupported policy version 2 (this agent reads version 1)"},
    {"{\"version\": \"1\"}", "t.json:1:13: \"version\" must be an integer, not a string"},
    {"{\"role\": \"desktop\"}", "t.json:1:10: unknown role \"desktop\" (managed or server)"},
    {"{\"role\": 1}", "t.json:1:10: \"role\" must be a string, not a number"},
    {"{\"role\": \"\"}", "t.json:1:10: \"role\" must not be empty"},
    {"{\"role\": \"a\\u0000b\"}", "t.json:1:10: \"role\" contains a NUL character"},
    {"{\"threshold\": \"hgh\"}",
     "t.json:1:15: unknown severity \"hgh\" (info, low, medium, high, critical)"},
    {"{\"games\": {}}", "t.json:1:11: \"games\" must be an array of games, not an object"},
    {"{\"games\": [\"Arena\"]}", "t.json:1:12: a game must be an object, not a string"},
    {"{\"games\": [{\"exe\": \"/a\"}]}", "t.json:1:12: missing required key \"name\""},
    {"{\"games\": [{\"name\": \"A\"}]}", "t.json:1:12: a game needs \"exe\" or \"sha256\""},
    {"{\"games\": [{\"name\": \"A\", \"exe\": \"opt/a\"}]}",
     "t.json:1:33: \"exe\" \"opt/a\" must be an absolute path pattern"},
    {"{\"games\": [{\"name\": \"A\", \"exe\": [\"/a\", 5]}]}",
     "t.json:1:40: \"exe\"[1] must be a string, not a number"},
    {"{\"games\": [{\"name\": \"A\", \"exe\": []}]}",
     "t.json:1:33: \"exe\" must not be an empty array"},
    {"{\"games\": [{\"name\": \"A\", \"sha256\": \"ABC\"}]}",
     "t.json:1:36: \"sha256\" must be 64 lowercase hex digits"},
    {"{\"games\": [{\"name\": \"A\", \"exe\": \"/a\", \"path\": \"/b\"}]}",
     "t.json:1:39: unknown key \"path\" in a game"},
    {"{\"games\": [{\"name\": \"A\", \"exe\": \"/a\"},\n {\"name\": \"A\", \"exe\": \"/b\"}]}",
     "t.json:2:11: duplicate game name \"A\""},
    {"{\"allow\": [{\"uid\": 0}]}", "t.json:1:12: missing required key \"exe\""},
    {"{\"allow\": [{\"exe\": \"/a\", \"uid\": -1}]}",
     "t.json:1:33: \"uid\" must be a number from 0 to 4294967294"},
    {"{\"allow\": [{\"exe\": \"/a\", \"uid\": [0, \"root\"]}]}",
     "t.json:1:37: \"uid\" must be a number from 0 to 4294967294"},
    {"{\"allow\": [{\"exe\": \"/a\", \"uid\": \"root\"}]}",
     "t.json:1:33: \"uid\" must be a number or an array of numbers, not a string"},
    {"{\"allow\": [{\"exe\": \"/a\", \"operations\": [\"device_open\", \"reg_mrr\"]}]}",
     "t.json:1:56: unknown operation \"reg_mrr\" (an event action such as device_open, a verbs "
     "op such as reg_mr, or an rdma_cm op such as connect)"},
    {"{\"allow\": [{\"exe\": \"/a\", \"expires\": \"2026-02-30\"}]}",
     "t.json:1:37: \"expires\" must be a date (2026-12-31) or an RFC 3339 time "
     "(2026-12-31T18:00:00Z), not \"2026-02-30\""},
    /* Broken globs would silently match nothing: the byte that breaks them. */
    {"{\"games\": [{\"name\": \"A\", \"exe\": [\"/opt/[arena\"]}]}",
     "t.json:1:40: \"exe\" \"/opt/[arena\": unterminated '[' (write [[] for a literal '[')"},
    {"{\"allow\": [{\"exe\": \"/usr/bin/x[z-a]\"}]}",
     "t.json:1:31: \"exe\" \"/usr/bin/x[z-a]\": empty range in [...] (the first character is "
     "above the last)"},
    {"{\"allow\": [{\"exe\": \"/a\", \"parent\": \"/bin/\\u00e9[[:alpah:]]\"}]}",
     "t.json:1:49: \"parent\" \"/bin/\u00e9[[:alpah:]]\": unknown character class (alnum, alpha, "
     "blank, cntrl, digit, graph, lower, print, punct, space, upper, xdigit)"},
    {"{\"allow\": [{\"exe\": \"/a\", \"parent\": \"bash\"}]}",
     "t.json:1:36: \"parent\" \"bash\" must be an absolute path pattern"},
    {"{\"allow\": [{\"exe\": \"/a\", \"device\": \"mlx5_0\"}]}",
     "t.json:1:26: unknown key \"device\" in an allow entry (did you mean \"devices\"?)"},
    {"{\"allow\": [{\"exe\": \"/a\", \"devices\": "
     "[\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"]}]}",
     "t.json:1:38: device name longer than 63 bytes"},
    {"{\"rules\": []}", "t.json:1:11: \"rules\" must be an object of rule overrides, not an array"},
    {"{\"rules\": {\"RDMA-004\": {\"enable\": false}}}",
     "t.json:1:25: unknown key \"enable\" in the override of rule RDMA-004 (did you mean "
     "\"enabled\"?)"},
    {"{\"rules\": {\"RDMA-004\": {\"enabled\": \"no\"}}}",
     "t.json:1:36: \"enabled\" must be true or false, not a string"},
    {"{\"rules\": {\"RDMA-004\": {\"severity\": \"urgent\"}}}",
     "t.json:1:37: unknown severity \"urgent\" (info, low, medium, high, critical)"},
    {"{\"rules\": {\"RDMA-004\": {\"action\": \"block\"}}}",
     "t.json:1:35: unknown action \"block\" (alert, deny, kill)"},
    {"{\"rules\": {\"RDMA-004\": {\"exceptions\": \"x\"}}}",
     "t.json:1:39: \"exceptions\" must be an array of conditions, not a string"},
    /* A condition error points into the string, escapes accounted for. */
    {"{\"rules\": {\"RDMA-004\": {\"exceptions\": [\"process.name == \\\"x\\\" and procss.pid == "
     "1\"]}}}",
     "t.json:1:67: unknown field 'procss.pid'"},
    {"{\"rules\": {\"RDMA-004\": {\"exceptions\": [\n  [\"process.name == x\",\n   \"and\"]]}}}",
     "t.json:3:8: unexpected end of condition"},
    {"{\"rules\": {\"RDMA-004\": {\"exceptions\": [[\"true\", 5]]}}}",
     "t.json:1:49: a condition line must be a string, not a number"},
    {"{\"mr_max_bytes\": 0}", "t.json:1:18: \"mr_max_bytes\" must be positive"},
    {"{\"mr_max_bytes\": 1.5}", "t.json:1:18: \"mr_max_bytes\" must be an integer, not a number"},
    {"{\"aggregate_window\": \"1 minute\"}",
     "t.json:1:22: \"aggregate_window\": invalid duration \"1 minute\" (a number with ms, s, m, h "
     "or d)"},
    {"{\"aggregate_window\": \"8d\"}", "t.json:1:22: \"aggregate_window\" must be at most a week"},
    {"{\"aggregate_window\": -1}",
     "t.json:1:22: \"aggregate_window\" must be between 0 and 604800 seconds"},
    {"{\"enforce\": \"yes\"}", "t.json:1:13: \"enforce\" must be true or false, not a string"},
    {"{\"enforce_scope\": \"game\"}",
     "t.json:1:19: unknown enforce_scope \"game\" (always or while_game)"},
    {"{\"outputs\": []}", "t.json:1:13: \"outputs\" must not be an empty array"},
    {"{\"outputs\": [null]}", "t.json:1:14: \"outputs\"[0] must be a string, not null"},
};

START_TEST(test_bad_policies)
{
	struct rg_policy *p = NULL;
	struct rg_error err;
	char buf[1200];

	unsigned wrong = 0;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&err, 0, sizeof(err));
		if (policy_parse("t.json", bad[i].text, strlen(bad[i].text), &p, &err) != -EINVAL) {
			fprintf(stderr, "accepted: %s\n", bad[i].text);
			policy_free(p);
			wrong++;
		} else if (strcmp(rg_error_format(&err, buf, sizeof(buf)), bad[i].msg) != 0) {
			fprintf(stderr, "%s\n got: %s\nwant: %s\n", bad[i].text, buf, bad[i].msg);
			wrong++;
		}
	}
	ck_assert_uint_eq(wrong, 0);
	/* A NUL byte in the file */
	ck_assert_int_eq(policy_parse("t.json", "{\"role\": \"a\"\0}", 14, &p, &err), -EINVAL);
	ck_assert_str_eq(rg_error_format(&err, buf, sizeof(buf)),
			 "t.json:1:13: expected ',' or '}', found byte 0x00");
}
END_TEST

/* The engine keeps "outputs" as text; whoever loads the policy checks them with the outputs'. */
static int check_none(const char *spec, char *msg, size_t size)
{
	snprintf(msg, size, "no outputs here (%s)", spec);
	return -EINVAL;
}

START_TEST(test_bad_outputs)
{
	static const char text[] = "{\"outputs\": [\"stdout\",\n  \"syslog+udp://x\"]}";
	struct rg_policy *p;
	struct rg_error err;
	char buf[1200];

	ck_assert_int_eq(policy_parse("t.json", text, strlen(text), &p, &err), 0);
	ck_assert_uint_eq(p->outputs_pos[1].line, 2);
	ck_assert_uint_eq(p->outputs_pos[1].column, 3);
	ck_assert_int_eq(policy_check_outputs(p, output_spec_check, &err), -EINVAL);
	ck_assert_str_eq(rg_error_format(&err, buf, sizeof(buf)),
			 "t.json:2:3: output \"syslog+udp://x\": syslog needs a transport: "
			 "syslog+tcp:// or syslog+tls:// (UDP would lose alerts)");
	ck_assert_int_eq(policy_check_outputs(p, check_none, &err), -EINVAL);
	ck_assert_str_eq(rg_error_format(&err, buf, sizeof(buf)),
			 "t.json:1:14: no outputs here (stdout)");
	policy_free(p);
	p = parse_ok("{\"outputs\": [\"stdout\", \"file:/var/log/a.jsonl\"]}");
	ck_assert_int_eq(policy_check_outputs(p, output_spec_check, &err), 0);
	policy_free(p);
	ck_assert_int_eq(policy_new_default(&p), 0);
	ck_assert_int_eq(policy_check_outputs(p, check_none, &err), 0);
	policy_free(p);
}
END_TEST

START_TEST(test_load_errors)
{
	struct rg_policy *p = NULL;
	struct rg_error err;
	char path[300], buf[1200], want[600];
	char *big;
	int fd;

	snprintf(path, sizeof(path), "%s/none.json", tmpdir);
	ck_assert_int_eq(policy_load(path, false, &p, &err), -ENOENT);
	snprintf(want, sizeof(want), "%s: cannot open: No such file or directory", path);
	ck_assert_str_eq(rg_error_format(&err, buf, sizeof(buf)), want);
	ck_assert_int_eq(policy_load(tmpdir, false, &p, &err), -EINVAL);
	snprintf(want, sizeof(want), "%s: not a regular file", tmpdir);
	ck_assert_str_eq(rg_error_format(&err, buf, sizeof(buf)), want);
	/* A FIFO would hang a naive reader */
	snprintf(path, sizeof(path), "%s/fifo", tmpdir);
	ck_assert_int_eq(mkfifo(path, 0600), 0);
	ck_assert_int_eq(policy_load(path, false, &p, &err), -EINVAL);
	unlink(path);
	/* Larger than 1 MiB */
	big = malloc(JDOC_MAX_SIZE + 10);
	memset(big, ' ', JDOC_MAX_SIZE + 10);
	big[0] = '{';
	big[JDOC_MAX_SIZE + 9] = 0;
	big[JDOC_MAX_SIZE + 8] = '}';
	snprintf(path, sizeof(path), "%s/big.json", tmpdir);
	fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	ck_assert_int_eq(write(fd, big, JDOC_MAX_SIZE + 9), JDOC_MAX_SIZE + 9);
	close(fd);
	free(big);
	ck_assert_int_eq(policy_load(path, false, &p, &err), -EFBIG);
	snprintf(want, sizeof(want), "%s: larger than 1048576 bytes", path);
	ck_assert_str_eq(rg_error_format(&err, buf, sizeof(buf)), want);
	unlink(path);
	/* Names and helpers */
	ck_assert_int_eq(severity_from_string("critical"), RG_SEV_CRITICAL);
	ck_assert_int_eq(severity_from_string("CRITICAL"), -EINVAL);
	ck_assert_int_eq(severity_from_string(NULL), -EINVAL);
	ck_assert_ptr_null(severity_to_string(5));
	ck_assert_str_eq(severity_to_string(RG_SEV_INFO), "info");
	ck_assert_int_eq(action_from_string("kill"), RG_ACTION_KILL);
	ck_assert_ptr_null(action_to_string(-1));
	ck_assert(policy_operation_valid("rdma_cm"));
	ck_assert(!policy_operation_valid("none"));
}
END_TEST

static Suite *policy_suite(void)
{
	Suite *s = suite_create("policy");
	TCase *core = tcase_create("core"), *errors = tcase_create("errors");

	tcase_add_checked_fixture(core, setup, teardown);
	tcase_add_checked_fixture(errors, setup, teardown);
	tcase_add_test(core, test_minimal);
	tcase_add_test(core, test_every_key);
	tcase_add_test(core, test_examples);
	tcase_add_test(core, test_owner_check);
	tcase_add_test(core, test_resolve_inodes);
	tcase_add_test(core, test_jdoc_positions);
	tcase_add_test(errors, test_bad_policies);
	tcase_add_test(errors, test_bad_outputs);
	tcase_add_test(errors, test_load_errors);
	suite_add_tcase(s, core);
	suite_add_tcase(s, errors);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(policy_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
