/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The condition language: every operator on every kind of field, and its compile errors. */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "rules/cond.h"
#include "policy/policy.h"
#include "proctree/proctree.h"

#define SEC 1000000000ull

static struct proctree *tree;
static struct rg_policy *pol;
static struct game_session game;

static void setup(void)
{
	struct rg_event ev;

	ck_assert_int_eq(proctree_new(64, &tree), 0);
	ck_assert_int_eq(policy_new_default(&pol), 0);
	/* sshd(50) -> bash(60) -> ib_send_bw(70, uid 1000, sid 60) */
	memset(&ev, 0, sizeof(ev));
	ev.type = RG_EV_PROCESS_PRESENT;
	ev.proc.pid = 50;
	ev.proc.ppid = 1;
	ev.proc.start_boot_ns = 5 * SEC;
	strcpy(ev.proc.comm, "sshd");
	strcpy(ev.u.exec.exe, "/usr/sbin/sshd");
	proctree_update(tree, &ev);
	ev.proc.pid = 60;
	ev.proc.ppid = 50;
	ev.proc.start_boot_ns = 6 * SEC;
	ev.u.exec.parent_start_boot_ns = 5 * SEC;
	strcpy(ev.proc.comm, "bash");
	strcpy(ev.u.exec.exe, "/usr/bin/bash");
	proctree_update(tree, &ev)->flags |= PROC_F_HAS_RDMA;
	ev.type = RG_EV_EXEC;
	ev.proc.pid = 70;
	ev.proc.ppid = 60;
	ev.proc.uid = 1000;
	ev.proc.start_boot_ns = 7 * SEC;
	ev.u.exec.parent_start_boot_ns = 6 * SEC;
	ev.u.exec.sid = 60;
	strcpy(ev.proc.comm, "ib_send_bw");
	strcpy(ev.u.exec.exe, "/usr/bin/ib_send_bw");
	memcpy(ev.u.exec.args, "ib_send_bw\0-d\0rxe0\0--size=65536", 31);
	ev.u.exec.args_len = 31;
	proctree_update(tree, &ev);

	memset(&game, 0, sizeof(game));
	game.game = 0;
	game.pid = 90;
	game.uid = 1000;
	game.sid = 60;
	game.started_ns = 1000 * SEC;
	game.running = true;
	game.ever = true;
}

/* What the engine gives conditions of pol (its role may change between matches). */
static const struct cond_env *policy_env(void)
{
	static struct cond_env env;

	env.role = pol->role == RG_ROLE_SERVER ? "server" : "managed";
	env.mr_max_bytes = pol->mr_max_bytes;
	return &env;
}

static void teardown(void)
{
	proctree_free(tree);
	policy_free(pol);
}

static struct rg_event verbs_reg_mr(void)
{
	struct rg_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.type = RG_EV_VERBS;
	ev.ts = 1010 * SEC;
	ev.proc.pid = 70;
	ev.proc.uid = 1000;
	ev.proc.start_boot_ns = 7 * SEC;
	strcpy(ev.proc.comm, "ib_send_bw");
	ev.u.verbs.op = RG_OP_REG_MR;
	ev.u.verbs.via = RG_VIA_INVOKE;
	ev.u.verbs.fd = 3;
	ev.u.verbs.mr_length = 1ull << 20;
	ev.u.verbs.mr_access = RG_ACCESS_LOCAL_WRITE | RG_ACCESS_REMOTE_READ;
	strcpy(ev.u.verbs.device, "rxe0");
	return ev;
}

static bool match(const struct rg_event *ev, const char *text)
{
	struct cond_ctx ctx = {0};
	struct cond *c = NULL;
	char err[256] = "";
	size_t off;
	bool r;

	ck_assert_msg(cond_compile(text, strlen(text), &c, &off, err, sizeof(err)) == 0,
		      "%s: at %zu: %s", text, off, err);
	ctx.ev = ev;
	ctx.env = policy_env();
	ctx.tree = tree;
	ctx.proc = ctx.cur = ev->proc.pid ? proctree_find(tree, PROC_KEY(ev->proc.pid, 0)) : NULL;
	ctx.allowed = -1;
	ctx.game = &game;
	ctx.game_running = game.running;
	ctx.game_ended_ns = game.ended_ns;
	if (ev->type == RG_EV_MEMORY_ACCESS)
		ctx.target = proctree_find(tree, PROC_KEY(ev->u.mem.target_pid, 0));
	r = cond_eval(c, &ctx);
	cond_free(c);
	return r;
}

#define YES(ev, text) ck_assert_msg(match(ev, text), "expected true: %s", text)
#define NO(ev, text)  ck_assert_msg(!match(ev, text), "expected false: %s", text)

START_TEST(test_numbers_and_names)
{
	struct rg_event ev = verbs_reg_mr();

	YES(&ev, "event.action == verbs");
	YES(&ev, "event.action == 'verbs'");
	NO(&ev, "event.action == exec");
	YES(&ev, "event.action in (exec, verbs)");
	YES(&ev, "event.action not in (exec, fork)");
	YES(&ev, "rdma.op == reg_mr and rdma.via == invoke_write");
	YES(&ev, "rdma.op in (rereg_mr, reg_mr, reg_dmabuf_mr)");
	YES(&ev, "rdma.mr.length == 1MiB");
	YES(&ev, "rdma.mr.length == 1048576");
	YES(&ev, "rdma.mr.length == 0x100000");
	YES(&ev, "rdma.mr.length > 1023KiB and rdma.mr.length <= 1MiB");
	NO(&ev, "rdma.mr.length < 1MiB");
	YES(&ev, "rdma.mr.length >= 1MiB");
	YES(&ev, "rdma.mr.length != 5");
	YES(&ev, "rdma.fd in (1, 2, 3)");
	YES(&ev, "rdma.device == rxe0 and rdma.device startswith rxe and rdma.device endswith 0");
	YES(&ev, "rdma.device glob 'rx?[0-9]'");
	YES(&ev, "rdma.device contains xe");
	NO(&ev, "rdma.device contains mlx");
	YES(&ev, "rdma.device in (mlx5_0, rxe0)");
	/* An absent field makes every comparison false, != included. */
	NO(&ev, "rdma.qp.state == rtr");
	NO(&ev, "rdma.qp.state != rtr");
	YES(&ev, "not rdma.qp.state == rtr");
	NO(&ev, "rdma.ret == 0");
	ev.flags |= RG_EVF_FAILED;
	ev.u.verbs.ret = -1;
	YES(&ev, "rdma.ret == -1 and rdma.ret < 0");
	YES(&ev, "event.flags contains failed");
	NO(&ev, "event.flags contains denied");
	YES(&ev, "event.flags in (denied, failed)");
	/* A verbs op name only names a verbs op: 'connect' is an rdma_cm op. */
	NO(&ev, "rdma.op == connect");
	YES(&ev, "rdma.op != connect");
	ev.type = RG_EV_RDMA_CM;
	memset(&ev.u, 0, sizeof(ev.u));
	ev.u.cm.op = RG_CM_CONNECT;
	YES(&ev, "rdma.op == connect and event.action == rdma_cm");
	NO(&ev, "rdma.op == reg_mr");
}
END_TEST

START_TEST(test_flags_addresses_bools)
{
	struct rg_event ev = verbs_reg_mr();

	YES(&ev, "rdma.mr.access contains remote_read");
	NO(&ev, "rdma.mr.access contains remote_write");
	YES(&ev, "rdma.mr.access in (remote_write, remote_read, remote_atomic)");
	NO(&ev, "rdma.mr.access in (remote_write, remote_atomic)");
	YES(&ev, "rdma.mr.remote and not rdma.mr.implicit");
	YES(&ev, "rdma.mr.remote == true");
	ev.u.verbs.mr_access = RG_ACCESS_LOCAL_WRITE | RG_ACCESS_ON_DEMAND;
	ev.u.verbs.mr_length = UINT64_MAX;
	NO(&ev, "rdma.mr.remote");
	YES(&ev, "rdma.mr.implicit");
	YES(&ev, "rdma.mr.length > policy.mr_max_bytes");
	ev.u.verbs.mr_length = 4096;
	NO(&ev, "rdma.mr.length > policy.mr_max_bytes");

	/* RoCE v2 peer as an IPv4-mapped GID */
	ev.u.verbs.op = RG_OP_MODIFY_QP;
	ev.u.verbs.qp_attr_mask = 1;
	ev.u.verbs.qp_state = 2;
	ev.u.verbs.dgid[10] = 0xff;
	ev.u.verbs.dgid[11] = 0xff;
	ev.u.verbs.dgid[12] = 192;
	ev.u.verbs.dgid[13] = 0;
	ev.u.verbs.dgid[14] = 2;
	ev.u.verbs.dgid[15] = 7;
	YES(&ev, "rdma.qp.state in (rtr, rts)");
	YES(&ev, "rdma.peer.address == '192.0.2.7'");
	YES(&ev, "rdma.peer.gid == '::ffff:192.0.2.7'");
	YES(&ev, "rdma.peer.address in ('10.0.0.1', '192.0.2.7')");
	NO(&ev, "rdma.peer.address == '192.0.2.8'");
	YES(&ev, "rdma.peer.address != '192.0.2.8'");
	/* An IB GID has no IPv4 address: address absent, gid present. */
	ev.u.verbs.dgid[0] = 0xfe;
	ev.u.verbs.dgid[1] = 0x80;
	NO(&ev, "rdma.peer.address != '192.0.2.8'");
	YES(&ev, "rdma.peer.gid != '::1'");

	memset(&ev, 0, sizeof(ev));
	ev.type = RG_EV_DEVICE_ADD;
	ev.flags = RG_EVF_SOFT;
	strcpy(ev.u.dev.name, "rxe0");
	ev.u.dev.transport = RG_TRANSPORT_ROCE;
	YES(&ev, "rdma.soft and rdma.transport == roce");
	ev.flags = 0;
	NO(&ev, "rdma.soft");
	YES(&ev, "not rdma.soft");
	/* No process in a device event. */
	NO(&ev, "process.pid == 0");
	NO(&ev, "process.name != x");
	YES(&ev, "policy.role == managed");
	pol->role = RG_ROLE_SERVER;
	NO(&ev, "policy.role == managed");
	YES(&ev, "true and not false");
}
END_TEST

START_TEST(test_process_and_lineage)
{
	struct rg_event ev = verbs_reg_mr();

	YES(&ev, "process.executable == '/usr/bin/ib_send_bw'");
	YES(&ev, "process.executable glob '/usr/bin/*'");
	/* A rule's glob '*' also crosses '/' (fnmatch without FNM_PATHNAME). */
	YES(&ev, "process.executable glob '/usr/*'");
	YES(&ev, "process.name == ib_send_bw and process.pid == 70 and process.user.id == 1000");
	YES(&ev, "process.args contains '-d' and process.args contains rxe0");
	NO(&ev, "process.args contains rxe");
	YES(&ev, "process.args glob '--size=*'");
	YES(&ev, "process.args startswith '--si'");
	YES(&ev, "process.args in ('-x', '-d')");
	YES(&ev, "process.parent.executable == '/usr/bin/bash' and process.parent.name == bash");
	YES(&ev, "process.ancestors contains '/usr/sbin/sshd'");
	YES(&ev, "process.ancestors glob '*/sshd'");
	NO(&ev, "process.ancestors contains '/usr/bin/ib_send_bw'");
	YES(&ev, "process.session.id == 60");
	/* Field against field: same session and user as the game */
	YES(&ev, "process.session.id == game.session.id and process.user.id == game.user.id");
	game.uid = 0;
	NO(&ev, "process.user.id == game.user.id");
	YES(&ev, "process.user.id != game.user.id");

	NO(&ev, "process.has_rdma");
	YES(&ev, "lineage(process.has_rdma)");
	YES(&ev, "ancestor(process.has_rdma)");
	YES(&ev, "parent(process.has_rdma)");
	NO(&ev, "parent(process.executable == '/usr/sbin/sshd')");
	YES(&ev, "ancestor(process.executable == '/usr/sbin/sshd' and process.name == sshd)");
	YES(&ev, "lineage(process.name == ib_send_bw)");
	NO(&ev, "ancestor(process.name == ib_send_bw)");
	/* lineage() restores the process for what follows */
	YES(&ev, "ancestor(process.pid == 50) and process.pid == 70");

	YES(&ev, "game.running and game.pid == 90");
	YES(&ev, "within(game.started, 10s)");
	NO(&ev, "within(game.started, 9999ms)");
	YES(&ev, "within(game.started, 1m)");
	NO(&ev, "within(game.ended, 1h)");
	game.running = false;
	game.ended_ns = 1000 * SEC;
	NO(&ev, "game.running");
	YES(&ev, "not game.running and within(game.ended, 10s)");
	YES(&ev, "event.time > game.started");
	NO(&ev, "event.time < game.started");
}
END_TEST

START_TEST(test_memory_target)
{
	struct rg_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.type = RG_EV_MEMORY_ACCESS;
	ev.proc.pid = 70;
	ev.u.mem.op = RG_MEM_PROCESS_VM_WRITEV;
	ev.u.mem.target_pid = 60;
	ev.u.mem.bytes = 8;
	YES(&ev, "memory.op == process_vm_writev and target.process.pid == 60");
	YES(&ev, "target.process.executable == '/usr/bin/bash'");
	NO(&ev, "target.process.is_game");
	YES(&ev, "target.process.has_rdma");
	proctree_find(tree, PROC_KEY(60, 0))->flags |= PROC_F_GAME;
	YES(&ev, "target.process.is_game");
	ev.u.mem.target_pid = 12345; /* unknown process */
	NO(&ev, "target.process.is_game");
	NO(&ev, "target.process.executable == x");
}
END_TEST

START_TEST(test_precedence_and_mask)
{
	struct rg_event ev = verbs_reg_mr();
	struct cond *c;
	char err[256];
	size_t off;

	/* not > and > or */
	YES(&ev, "event.action == exec or event.action == verbs and rdma.fd == 3");
	NO(&ev, "(event.action == exec or event.action == verbs) and rdma.fd == 4");
	YES(&ev, "not event.action == exec and not not rdma.op == reg_mr");
	NO(&ev, "not (event.action == verbs)");

	ck_assert_int_eq(cond_compile("event.action == verbs and rdma.fd == 3", 38, &c, &off, err,
				      sizeof(err)), 0);
	ck_assert_uint_eq(cond_type_mask(c), 1u << RG_EV_VERBS);
	cond_free(c);
	ck_assert_int_eq(cond_compile("event.action in (exec, fork) or module.name == x", 48, &c,
				      &off, err, sizeof(err)), 0);
	ck_assert_uint_eq(cond_type_mask(c), (1u << RG_EV_EXEC) | (1u << RG_EV_FORK) |
						     (1u << RG_EV_MODULE_PRESENT) |
						     (1u << RG_EV_MODULE_LOAD));
	cond_free(c);
	ck_assert_int_eq(cond_compile("rdma.mr.length > 0", 18, &c, &off, err, sizeof(err)), 0);
	ck_assert_uint_eq(cond_type_mask(c), (1u << RG_EV_VERBS) | (1u << RG_EV_MR_PRESENT) |
						     (1u << RG_EV_RDMA_SOCKET));
	ck_assert_str_eq(cond_text(c), "rdma.mr.length > 0");
	cond_free(c);
	ck_assert_int_eq(cond_compile("not event.action == exec", 24, &c, &off, err, sizeof(err)),
			 0);
	ck_assert(cond_type_mask(c) & (1u << RG_EV_VERBS));
	cond_free(c);
	/* A long chain is a deep tree: it still evaluates (and short-circuits) correctly. */
	{
		char text[6000];
		size_t n = 0;

		for (int i = 0; i < 250; i++)
			n += (size_t)snprintf(text + n, sizeof(text) - n, "rdma.fd == 3 and ");
		snprintf(text + n, sizeof(text) - n, "game.running");
		YES(&ev, text);
		snprintf(text + n, sizeof(text) - n, "not game.running");
		NO(&ev, text);
	}
}
END_TEST

START_TEST(test_field_refs)
{
	struct rg_event ev = verbs_reg_mr();
	struct cond_ctx ctx = {
	    .ev = &ev, .env = policy_env(), .tree = tree, .allowed = -1, .game = &game};
	struct field_ref *f;
	char buf[128], err[128];
	uint64_t h1, h2;

	ctx.proc = ctx.cur = proctree_find(tree, PROC_KEY(70, 0));
	ck_assert_int_eq(field_ref_new("rdma.mr.access", &f, err, sizeof(err)), 0);
	ck_assert(field_ref_format(f, &ctx, buf, sizeof(buf)));
	ck_assert_str_eq(buf, "local_write,remote_read");
	ck_assert_str_eq(field_ref_name(f), "rdma.mr.access");
	h1 = field_ref_hash(f, &ctx, 1);
	ev.u.verbs.mr_access = RG_ACCESS_LOCAL_WRITE;
	h2 = field_ref_hash(f, &ctx, 1);
	ck_assert_uint_ne(h1, h2);
	field_ref_free(f);

	ck_assert_int_eq(field_ref_new("process.args", &f, err, sizeof(err)), 0);
	ck_assert(field_ref_format(f, &ctx, buf, sizeof(buf)));
	ck_assert_str_eq(buf, "ib_send_bw -d rxe0 --size=65536");
	field_ref_free(f);
	ck_assert_int_eq(field_ref_new("rdma.qp.num", &f, err, sizeof(err)), 0);
	ck_assert(field_ref_format(f, &ctx, buf, sizeof(buf))); /* 0 is a value in a verbs event */
	ck_assert_str_eq(buf, "0");
	field_ref_free(f);
	ck_assert_int_eq(field_ref_new("module.name", &f, err, sizeof(err)), 0);
	ck_assert(!field_ref_format(f, &ctx, buf, sizeof(buf)));
	ck_assert_str_eq(buf, "?");
	field_ref_free(f);
	ck_assert_int_eq(field_ref_new("game.started", &f, err, sizeof(err)), 0);
	ck_assert(field_ref_format(f, &ctx, buf, sizeof(buf)));
	ck_assert_str_eq(buf, "1970-01-01T00:16:40.000000Z");
	field_ref_free(f);
	ck_assert_int_eq(field_ref_new("rdma.op", &f, err, sizeof(err)), 0);
	ck_assert(field_ref_format(f, &ctx, buf, 4)); /* truncated, terminated */
	ck_assert_str_eq(buf, "reg");
	field_ref_free(f);
	/* Numbers as printf's %lld: negative, zero, the largest; cut to fit. */
	ck_assert_int_eq(field_ref_new("rdma.ret", &f, err, sizeof(err)), 0);
	ev.flags |= RG_EVF_FAILED; /* a return value is there only when the call failed */
	ev.u.verbs.ret = -13;
	ck_assert(field_ref_format(f, &ctx, buf, sizeof(buf)));
	ck_assert_str_eq(buf, "-13");
	ev.u.verbs.ret = INT32_MIN;
	ck_assert(field_ref_format(f, &ctx, buf, sizeof(buf)));
	ck_assert_str_eq(buf, "-2147483648");
	ck_assert(field_ref_format(f, &ctx, buf, 5));
	ck_assert_str_eq(buf, "-214");
	ev.u.verbs.ret = 0;
	ev.flags &= ~RG_EVF_FAILED;
	field_ref_free(f);
	ck_assert_int_eq(field_ref_new("event.sequence", &f, err, sizeof(err)), 0);
	ev.seq = UINT64_MAX;
	ck_assert(field_ref_format(f, &ctx, buf, sizeof(buf)));
	ck_assert_str_eq(buf, "18446744073709551615");
	ev.seq = 0;
	ck_assert(field_ref_format(f, &ctx, buf, sizeof(buf)));
	ck_assert_str_eq(buf, "0");
	ck_assert(field_ref_format(f, &ctx, buf, 1));
	ck_assert_str_eq(buf, "");
	field_ref_free(f);
	ck_assert_int_eq(field_ref_new("rdma.nope", &f, err, sizeof(err)), -EINVAL);
	ck_assert_str_eq(err, "unknown field 'rdma.nope'");
	ck_assert_ptr_nonnull(cond_derived_field(0));
	ck_assert_ptr_null(cond_derived_field(1000));
}
END_TEST

/* Compile errors: the exact message and the byte offset in the condition. */
static const struct {
	const char *text;
	size_t off;
	const char *msg;
} bad[] = {
	{"", 0, "empty condition"},
	{"   ", 3, "empty condition"},
	{"rdma.mr.lenght > 5", 0, "unknown field 'rdma.mr.lenght'"},
	{"event.action = verbs", 13, "'=' is not an operator; use '=='"},
	{"event.action == verbs && x", 22, "'&' is not an operator; use 'and'"},
	{"!game.running", 0, "'!' is not an operator; use 'not' or '!='"},
	{"process.name == 'abc", 16, "unterminated string"},
	{"rdma.mr.length > 12QB", 17, "invalid number '12QB' (size suffixes: KiB, MiB, GiB, TiB)"},
	{"rdma.mr.length > 99999999999999999999", 17,
	 "number '99999999999999999999' out of range"},
	{"rdma.mr.length > 100000000000TiB", 17, "number '100000000000TiB' out of range"},
	{"rdma.op == conect", 11, "unknown value 'conect' for rdma.op"},
	{"event.action in (verbs, exce)", 24, "unknown value 'exce' for event.action"},
	{"rdma.mr.access contains remote_red", 24, "unknown access flag 'remote_red'"},
	{"event.flags contains deny", 21, "unknown event flag 'deny'"},
	{"process.name < 5", 13, "'<' does not apply to 'process.name' (a string)"},
	{"rdma.mr.length glob '1*'", 15, "'glob' does not apply to 'rdma.mr.length' (a number)"},
	{"rdma.mr.length == abc", 18, "'rdma.mr.length' is a number, not 'abc'"},
	{"game.running == 1", 16, "'game.running' is true or false, not '1'"},
	{"rdma.peer.address == 'nowhere'", 21, "'nowhere' is not an IP address or GID"},
	{"rdma.op", 0, "'rdma.op' is a name: compare it with something"},
	{"game.started > 5", 15, "'game.started' is a time: compare it with another time field "
				 "or use within()"},
	{"process.user.id == game.name", 19,
	 "cannot compare 'process.user.id' (a number) with 'game.name' (a string)"},
	{"event.action == verbs verbs", 22, "expected 'and', 'or' or the end of the condition"},
	{"(event.action == verbs", 22, "expected ')'"},
	{"event.action == verbs)", 21, "expected 'and', 'or' or the end of the condition"},
	{"event.action ==", 15, "expected a value"},
	{"event.action in verbs", 16, "expected '(' after 'in'"},
	{"event.action in (verbs exec)", 23, "expected ',' or ')' in the list"},
	{"event.action not verbs", 17, "expected 'in' after 'not'"},
	{"and x", 0, "expected a field, '(' or 'not'"},
	{"within(game.started)", 19, "expected ',' after the time field"},
	{"within(game.started, 30)", 21, "a duration needs a unit: ms, s, m, h or d"},
	{"within(game.started, 30y)", 21, "invalid duration '30y' (use ms, s, m, h or d)"},
	{"within(process.name, 3s)", 7, "'process.name' is not a time field"},
	{"lineage(rdma.device == x)", 8, "only process fields can be used inside lineage(), "
					 "ancestor() and parent(); 'rdma.device' is not one"},
	{"lineage(ancestor(process.has_rdma))", 8,
	 "lineage(), ancestor() and parent() cannot be nested"},
	{"lineage process.has_rdma", 8, "expected '(' after 'lineage'"},
	{"process.name == x ; y", 18, "unexpected character ';'"},
	{"process.name == \x01", 16, "unexpected byte 0x01"},
	{"rdma.mr.access == remote_read", 15,
	 "'==' does not apply to 'rdma.mr.access' (a set of flags)"},
	{"game.running in (true)", 13, "'in' does not apply to 'game.running' (a boolean)"},
	{"process.executable glob '/opt/[arena'", 24,
	 "bad glob '/opt/[arena': unterminated '[' (write [[] for a literal '[')"},
	{"process.args glob \"*\\\\\"", 18, "bad glob '*\\': a pattern cannot end in a backslash"},
};

START_TEST(test_compile_errors)
{
	struct cond *c = NULL;
	char err[256];
	size_t off;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = 0;
		off = 999;
		ck_assert_msg(cond_compile(bad[i].text, strlen(bad[i].text), &c, &off, err,
					   sizeof(err)) == -EINVAL,
			      "compiled: %s", bad[i].text);
		ck_assert_msg(strcmp(err, bad[i].msg) == 0, "%s: got \"%s\"", bad[i].text, err);
		ck_assert_msg(off == bad[i].off, "%s: offset %zu, expected %zu", bad[i].text, off,
			      bad[i].off);
	}
}
END_TEST

START_TEST(test_limits)
{
	char *text = malloc(COND_MAX_TEXT + 2), err[256];
	struct cond *c = NULL;
	size_t off, n = 0;
	int depth;

	/* Too many nodes */
	while (n + 30 < COND_MAX_TEXT) {
		memcpy(text + n, "game.running and ", 17);
		n += 17;
	}
	memcpy(text + n, "true", 4);
	n += 4;
	ck_assert_int_eq(cond_compile(text, n, &c, &off, err, sizeof(err)), -EINVAL);
	ck_assert_str_eq(err, "condition too complex (more than 512 nodes)");
	/* Too deep */
	n = 0;
	for (depth = 0; depth < COND_MAX_DEPTH + 1; depth++)
		text[n++] = '(';
	memcpy(text + n, "true", 4);
	n += 4;
	for (depth = 0; depth < COND_MAX_DEPTH + 1; depth++)
		text[n++] = ')';
	ck_assert_int_eq(cond_compile(text, n, &c, &off, err, sizeof(err)), -EINVAL);
	ck_assert_str_eq(err, "nesting deeper than 32 levels");
	ck_assert_uint_eq(off, COND_MAX_DEPTH);
	/* Too long, NUL inside */
	memset(text, ' ', COND_MAX_TEXT + 1);
	ck_assert_int_eq(cond_compile(text, COND_MAX_TEXT + 1, &c, &off, err, sizeof(err)),
			 -EINVAL);
	ck_assert_str_eq(err, "condition longer than 8192 bytes");
	ck_assert_int_eq(cond_compile("true\0x", 6, &c, &off, err, sizeof(err)), -EINVAL);
	ck_assert_str_eq(err, "NUL character in condition");
	ck_assert_uint_eq(off, 4);
	/* Many constants in one list are fine */
	n = 0;
	n += (size_t)sprintf(text, "process.pid in (");
	for (int i = 0; i < 500; i++)
		n += (size_t)sprintf(text + n, "%d,", i);
	text[n - 1] = ')';
	ck_assert_int_eq(cond_compile(text, n, &c, &off, err, sizeof(err)), 0);
	cond_free(c);
	free(text);
}
END_TEST

static Suite *cond_suite(void)
{
	Suite *s = suite_create("cond");
	TCase *core = tcase_create("core"), *limits = tcase_create("limits"),
	      *errors = tcase_create("errors");

	tcase_add_checked_fixture(core, setup, teardown);
	tcase_add_test(core, test_numbers_and_names);
	tcase_add_test(core, test_flags_addresses_bools);
	tcase_add_test(core, test_process_and_lineage);
	tcase_add_test(core, test_memory_target);
	tcase_add_test(core, test_precedence_and_mask);
	tcase_add_test(core, test_field_refs);
	tcase_add_test(limits, test_limits);
	tcase_add_test(errors, test_compile_errors);
	suite_add_tcase(s, core);
	suite_add_tcase(s, limits);
	suite_add_tcase(s, errors);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(cond_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
