/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/macro.h"
#include "proctree/proctree.h"

#define SEC 1000000000ull

static struct rg_event mk(unsigned type, uint32_t pid, uint64_t start, uint64_t ts)
{
	struct rg_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.type = (uint16_t)type;
	ev.proc.pid = pid;
	ev.proc.tid = pid;
	ev.proc.start_boot_ns = start;
	ev.ts = ts;
	return ev;
}

static struct rg_event mk_exec(unsigned type, uint32_t pid, uint64_t start, uint32_t ppid,
			       uint64_t pstart, const char *exe, uint64_t ts)
{
	struct rg_event ev = mk(type, pid, start, ts);
	size_t n = strlen(exe);

	ev.proc.ppid = ppid;
	ev.u.exec.parent_start_boot_ns = pstart;
	strcpy(ev.u.exec.exe, exe);
	memcpy(ev.u.exec.args, exe, n + 1);
	memcpy(ev.u.exec.args + n + 1, "-x", 3);
	ev.u.exec.args_len = (uint32_t)(n + 4);
	ev.u.exec.sid = 42;
	ev.u.exec.exe_ino = 1000 + pid;
	ev.u.exec.exe_dev = 7;
	return ev;
}

static struct rg_event mk_fork(uint32_t child, uint64_t cstart, uint32_t parent, uint64_t pstart,
			       uint64_t ts)
{
	struct rg_event ev = mk(RG_EV_FORK, child, cstart, ts);

	ev.proc.ppid = parent;
	ev.u.fork.parent_start_boot_ns = pstart;
	return ev;
}

static unsigned exits;
static void count_exit(struct proc_node *n, bool evicted, void *ud)
{
	(void)n;
	(void)evicted;
	(void)ud;
	exits++;
}

/* init(1) -> bash(10) forks 11, which execs ib_write_bw; lineage and fields follow the events. */
START_TEST(test_lineage)
{
	struct proctree *t;
	struct proc_node *n, *anc[8];
	struct rg_event ev;

	ck_assert_int_eq(proctree_new(64, &t), 0);
	ev = mk_exec(RG_EV_PROCESS_PRESENT, 1, 1 * SEC, 0, 0, "/sbin/init", 100);
	ck_assert_ptr_nonnull(proctree_update(t, &ev));
	ev = mk_exec(RG_EV_PROCESS_PRESENT, 10, 2 * SEC, 1, 1 * SEC, "/bin/bash", 100);
	n = proctree_update(t, &ev);
	ck_assert(n->flags & PROC_F_SEEDED);
	ck_assert_uint_eq(n->sid, 42);

	ev = mk_fork(11, 3 * SEC, 10, 2 * SEC, 200);
	strcpy(ev.proc.comm, "bash");
	n = proctree_update(t, &ev);
	ck_assert_ptr_nonnull(n);
	/* The child runs its parent's image until it execs. */
	ck_assert_str_eq(n->exe, "/bin/bash");
	ck_assert(n->flags & PROC_F_EXEC_KNOWN);
	ck_assert_uint_eq(n->fork_ns, 200);
	ck_assert(!(n->flags & PROC_F_SEEDED));

	ev = mk_exec(RG_EV_EXEC, 11, 3 * SEC, 10, 2 * SEC, "/usr/bin/ib_write_bw", 300);
	n = proctree_update(t, &ev);
	ck_assert_str_eq(n->exe, "/usr/bin/ib_write_bw");
	ck_assert_uint_eq(n->args_len, strlen("/usr/bin/ib_write_bw") + 4);
	ck_assert_str_eq(n->args + strlen(n->args) + 1, "-x");
	ck_assert_uint_eq(n->exec_ns, 300);
	ck_assert_uint_eq(n->exe_ino, 1011);

	ck_assert_uint_eq(proctree_ancestors(t, n, anc, 8), 2);
	ck_assert_str_eq(anc[0]->exe, "/bin/bash");
	ck_assert_str_eq(anc[1]->exe, "/sbin/init");
	ck_assert_ptr_eq(proctree_parent(t, n), anc[0]);
	ck_assert_uint_eq(proctree_ancestors(t, n, anc, 1), 1);

	/* Another event of the same process finds the same entry, by pid alone too. */
	ev = mk(RG_EV_VERBS, 11, 3 * SEC, 400);
	ck_assert_ptr_eq(proctree_update(t, &ev), n);
	ck_assert_ptr_eq(proctree_find(t, PROC_KEY(11, 0)), n);
	ck_assert_ptr_eq(proctree_find(t, PROC_KEY(11, 3 * SEC)), n);
	ck_assert_ptr_null(proctree_find(t, PROC_KEY(11, 4 * SEC)));
	proctree_free(t);
}
END_TEST

START_TEST(test_exit_and_pid_reuse)
{
	struct proctree *t;
	struct proc_node *old, *n;
	struct proctree_stats st;
	struct rg_event ev;

	exits = 0;
	ck_assert_int_eq(proctree_new(64, &t), 0);
	proctree_set_exit_hook(t, count_exit, NULL);
	ev = mk_exec(RG_EV_EXEC, 500, 5 * SEC, 1, 0, "/usr/bin/old", 10);
	old = proctree_update(t, &ev);

	/* A thread's exit does not end the process. */
	ev = mk(RG_EV_EXIT, 500, 5 * SEC, 20);
	ev.proc.tid = 501;
	proctree_update(t, &ev);
	ck_assert(proc_node_live(old));
	ck_assert_uint_eq(exits, 0);

	/* Pid 500 is reused by a new process before we saw the exit: the old entry dies. */
	ev = mk_exec(RG_EV_EXEC, 500, 9 * SEC, 1, 0, "/usr/bin/new", 30);
	n = proctree_update(t, &ev);
	ck_assert_ptr_ne(n, old);
	ck_assert(!proc_node_live(old));
	ck_assert_uint_eq(old->exit_ns, 30);
	ck_assert_uint_eq(exits, 1);
	ck_assert_str_eq(old->exe, "/usr/bin/old");
	ck_assert_ptr_eq(proctree_find(t, PROC_KEY(500, 0)), n);
	ck_assert_ptr_eq(proctree_find(t, PROC_KEY(500, 5 * SEC)), old);

	/* A late event of the old process stays on the old entry. */
	ev = mk(RG_EV_VERBS, 500, 5 * SEC, 35);
	ck_assert_ptr_eq(proctree_update(t, &ev), old);
	ck_assert(proc_node_live(n));

	ev = mk(RG_EV_EXIT, 500, 9 * SEC, 40);
	ck_assert_ptr_eq(proctree_update(t, &ev), n);
	ck_assert(!proc_node_live(n));
	ck_assert_uint_eq(exits, 2);
	/* No live process: the most recently exited one. */
	ck_assert_ptr_eq(proctree_find(t, PROC_KEY(500, 0)), n);
	proctree_get_stats(t, &st);
	ck_assert_uint_eq(st.live, 0);
	ck_assert_uint_eq(st.exited, 2);
	ck_assert_uint_eq(st.pid_reused, 1);
	proctree_free(t);
}
END_TEST

/* Events without a start time create a stub that a later event with the start time adopts. */
START_TEST(test_stub_adopted)
{
	struct proctree *t;
	struct proc_node *n, *m;
	struct rg_event ev;

	ck_assert_int_eq(proctree_new(16, &t), 0);
	ev = mk(RG_EV_DEVICE_OPEN, 77, 0, 10);
	strcpy(ev.proc.comm, "probe");
	ev.proc.uid = 1000;
	n = proctree_update(t, &ev);
	ck_assert_ptr_nonnull(n);
	ck_assert(!(n->flags & PROC_F_EXEC_KNOWN));
	ck_assert_uint_eq(n->uid, 1000);
	ck_assert_str_eq(n->comm, "probe");

	ev = mk(RG_EV_VERBS, 77, 8 * SEC, 20);
	m = proctree_update(t, &ev);
	ck_assert_ptr_eq(m, n);
	ck_assert_uint_eq(n->start_boot_ns, 8 * SEC);
	/* uid 0 in an event that is not a lifecycle event does not clobber a known uid */
	ck_assert_uint_eq(n->uid, 1000);

	ev = mk(RG_EV_DEVICE_PRESENT, 0, 0, 30);
	ck_assert_ptr_null(proctree_update(t, &ev));
	proctree_free(t);
}
END_TEST

/* A seed (PROCESS_PRESENT) never overwrites what an EXEC said. */
START_TEST(test_seed_after_exec)
{
	struct proctree *t;
	struct proc_node *n;
	struct rg_event ev;

	ck_assert_int_eq(proctree_new(16, &t), 0);
	ev = mk_exec(RG_EV_EXEC, 5, SEC, 1, 0, "/usr/bin/new-image", 10);
	n = proctree_update(t, &ev);
	ev = mk_exec(RG_EV_PROCESS_PRESENT, 5, SEC, 1, 0, "/usr/bin/old-image", 5);
	ck_assert_ptr_eq(proctree_update(t, &ev), n);
	ck_assert_str_eq(n->exe, "/usr/bin/new-image");
	proctree_free(t);
}
END_TEST

/* Full tree: exited entries are recycled first, then the oldest live non-game one. */
START_TEST(test_eviction)
{
	struct proctree *t;
	struct proctree_stats st;
	struct proc_node *n;
	struct rg_event ev;
	uint32_t pid;

	exits = 0;
	ck_assert_int_eq(proctree_new(8, &t), 0);
	proctree_set_exit_hook(t, count_exit, NULL);
	for (pid = 100; pid < 108; pid++) {
		ev = mk_exec(RG_EV_EXEC, pid, pid * SEC, 1, 0, "/bin/x", pid);
		ck_assert_ptr_nonnull(proctree_update(t, &ev));
	}
	ev = mk(RG_EV_EXIT, 103, 103 * SEC, 200);
	proctree_update(t, &ev);
	/* The oldest live one is a game: it survives. */
	proctree_find(t, PROC_KEY(100, 0))->flags |= PROC_F_GAME;

	ev = mk_exec(RG_EV_EXEC, 200, 200 * SEC, 1, 0, "/bin/y", 300);
	ck_assert_ptr_nonnull(proctree_update(t, &ev));
	ck_assert_ptr_null(proctree_find(t, PROC_KEY(103, 0))); /* the exited one went */
	proctree_get_stats(t, &st);
	ck_assert_uint_eq(st.evicted_exited, 1);
	ck_assert_uint_eq(st.evicted_live, 0);

	ev = mk_exec(RG_EV_EXEC, 201, 201 * SEC, 1, 0, "/bin/z", 400);
	ck_assert_ptr_nonnull(proctree_update(t, &ev));
	n = proctree_find(t, PROC_KEY(100, 0));
	ck_assert_ptr_nonnull(n);
	ck_assert(proc_node_live(n));
	ck_assert_ptr_null(proctree_find(t, PROC_KEY(101, 0))); /* oldest live non-game */
	proctree_get_stats(t, &st);
	ck_assert_uint_eq(st.evicted_live, 1);
	ck_assert_uint_eq(st.live, 8);
	ck_assert_uint_eq(st.exited, 0);
	ck_assert_uint_eq(exits, 2); /* 103's exit, 101's eviction */
	ck_assert_uint_eq(st.capacity, 8);
	proctree_free(t);
}
END_TEST

/*
 * Issue 25 item 7: a tree full of live processes gives up the ones whose state no later event
 * repeats (RDMA use, a game) last, whatever their age, and counts each live eviction.
 */
START_TEST(test_eviction_keeps_rdma_and_games)
{
	struct proctree *t;
	struct proctree_stats st;
	struct proc_node *n;
	struct rg_event ev;
	uint32_t pid;

	ck_assert_int_eq(proctree_new(64, &t), 0);
	for (pid = 100; pid < 164; pid++) {
		ev = mk_exec(RG_EV_EXEC, pid, pid * SEC, 1, 0, "/bin/x", pid);
		n = proctree_update(t, &ev);
		ck_assert_ptr_nonnull(n);
		if (pid == 100 || pid == 140)
			n->flags |= PROC_F_HAS_RDMA;
		if (pid == 120)
			n->flags |= PROC_F_GAME;
	}
	/* Twice the capacity of new live processes, none exiting. */
	for (pid = 1000; pid < 1128; pid++) {
		ev = mk_exec(RG_EV_EXEC, pid, pid * SEC, 1, 0, "/bin/y", pid);
		ck_assert_ptr_nonnull(proctree_update(t, &ev));
	}
	for (pid = 100; pid <= 140; pid += 20) {
		n = proctree_find(t, PROC_KEY(pid, pid * SEC));
		ck_assert_msg(n && proc_node_live(n), "pid %u was evicted", pid);
	}
	ck_assert_ptr_null(proctree_find(t, PROC_KEY(101, 0)));
	proctree_get_stats(t, &st);
	ck_assert_uint_eq(st.evicted_live, 128);
	ck_assert_uint_eq(st.evicted_kept, 0);
	ck_assert_uint_eq(st.live, 64);

	/* Nothing but RDMA entries left to give up: the oldest goes, and is counted as such. */
	proctree_free(t);
	ck_assert_int_eq(proctree_new(8, &t), 0);
	for (pid = 100; pid < 108; pid++) {
		ev = mk_exec(RG_EV_EXEC, pid, pid * SEC, 1, 0, "/bin/x", pid);
		proctree_update(t, &ev)->flags |= PROC_F_HAS_RDMA;
	}
	ev = mk_exec(RG_EV_EXEC, 200, 200 * SEC, 1, 0, "/bin/y", 300);
	ck_assert_ptr_nonnull(proctree_update(t, &ev));
	ck_assert_ptr_null(proctree_find(t, PROC_KEY(100, 0)));
	ck_assert_ptr_nonnull(proctree_find(t, PROC_KEY(101, 0)));
	proctree_get_stats(t, &st);
	ck_assert_uint_eq(st.evicted_live, 1);
	ck_assert_uint_eq(st.evicted_kept, 1);
	proctree_free(t);
}
END_TEST

/* Many more processes than the capacity: memory stays fixed, lookups stay right. */
START_TEST(test_churn)
{
	struct proctree *t;
	struct proctree_stats st;
	struct rg_event ev;
	uint32_t pid;

	ck_assert_int_eq(proctree_new(32, &t), 0);
	for (pid = 2; pid < 10000; pid++) {
		struct proc_node *n;

		ev = mk_fork(pid, pid * SEC, pid - 1, (pid - 1) * SEC, pid);
		n = proctree_update(t, &ev);
		ck_assert_ptr_nonnull(n);
		ck_assert_uint_eq(n->pid, pid);
		if (pid % 3 == 0) {
			ev = mk(RG_EV_EXIT, pid - 1, (pid - 1) * SEC, pid);
			proctree_update(t, &ev);
		}
	}
	proctree_get_stats(t, &st);
	ck_assert_uint_eq(st.live + st.exited, 32);
	ck_assert_ptr_nonnull(proctree_find(t, PROC_KEY(9999, 9999 * SEC)));
	proctree_free(t);
}
END_TEST

/* A chain deeper than PROCTREE_MAX_DEPTH, and a cycle in hostile events, stay bounded. */
/*
 * exe and args are interned: entries with the same image share one copy; distinct strings from
 * 5x capacity processes (each exec'ing twice, forks inheriting) never run the pool out and never
 * show another process's strings, through recycling of exited and live entries.
 */
START_TEST(test_strings_shared_and_recycled)
{
	struct proctree *t;
	struct proc_node *a, *b, *n;
	struct proctree_stats st;
	struct rg_event ev;
	char exe[64];
	const size_t cap = 32;

	ck_assert_int_eq(proctree_new(cap, &t), 0);
	ev = mk_exec(RG_EV_EXEC, 100, 1 * SEC, 1, 0, "/usr/bin/same", 10);
	a = proctree_update(t, &ev);
	ev = mk_exec(RG_EV_EXEC, 101, 1 * SEC, 1, 0, "/usr/bin/same", 10);
	b = proctree_update(t, &ev);
	ck_assert_ptr_eq(a->exe, b->exe);
	ck_assert_ptr_eq(a->args, b->args);
	ev = mk_exec(RG_EV_EXEC, 101, 1 * SEC, 1, 0, "/usr/bin/other", 11);
	b = proctree_update(t, &ev);
	ck_assert_str_eq(a->exe, "/usr/bin/same");
	ck_assert_str_eq(b->exe, "/usr/bin/other");
	ck_assert_str_eq(b->args + strlen(b->args) + 1, "-x");

	/* sha256: shared by a fork, dropped by an exec, and never leaks a slot. */
	proctree_set_sha256(t, a, "aa");
	ck_assert_str_eq(a->sha256, "aa");
	ev = mk_fork(102, 2 * SEC, 100, 1 * SEC, 12);
	n = proctree_update(t, &ev);
	ck_assert_ptr_eq(n->sha256, a->sha256);
	ev = mk_exec(RG_EV_EXEC, 102, 2 * SEC, 100, 1 * SEC, "/usr/bin/third", 13);
	n = proctree_update(t, &ev);
	ck_assert_str_eq(n->sha256, "");
	ck_assert_str_eq(a->sha256, "aa");
	proctree_set_sha256(t, a, "");
	ck_assert_str_eq(a->sha256, "");

	for (uint32_t i = 0; i < 5 * cap; i++) {
		uint32_t pid = 1000 + i;
		uint64_t start = (10 + i) * SEC;

		snprintf(exe, sizeof(exe), "/opt/p%u/first", pid);
		ev = mk_exec(RG_EV_EXEC, pid, start, 100, 1 * SEC, exe, start);
		ck_assert_ptr_nonnull(proctree_update(t, &ev));
		snprintf(exe, sizeof(exe), "/opt/p%u/second", pid);
		ev = mk_exec(RG_EV_EXEC, pid, start, 100, 1 * SEC, exe, start + 1);
		ck_assert_ptr_nonnull(proctree_update(t, &ev));
		n = proctree_find(t, PROC_KEY(pid, start));
		proctree_set_sha256(t, n, exe + 5); /* distinct per process: a pool of capacity */
		ev = mk_fork(pid + 100000, start + 2, pid, start, start + 2);
		n = proctree_update(t, &ev);
		ck_assert_str_eq(n->exe, exe);
		ck_assert_str_eq(n->sha256, exe + 5);
		if (i % 3 == 0) {
			ev = mk(RG_EV_EXIT, pid, start, start + 3);
			proctree_update(t, &ev);
		}
	}
	proctree_get_stats(t, &st);
	ck_assert_uint_eq(st.live + st.exited, cap);
	for (uint32_t i = 0; i < 5 * cap; i++) {
		uint32_t pid = 1000 + i;

		n = proctree_find(t, PROC_KEY(pid, (10 + i) * SEC));
		if (!n)
			continue;
		snprintf(exe, sizeof(exe), "/opt/p%u/second", pid);
		ck_assert_str_eq(n->exe, exe);
		ck_assert_str_eq(n->args, exe);
		ck_assert_uint_eq(n->args_len, strlen(exe) + 4);
		ck_assert_str_eq(n->sha256, exe + 5);
		n = proctree_find(t, PROC_KEY(pid + 100000, 0));
		if (n) {
			ck_assert_str_eq(n->exe, exe);
			ck_assert_str_eq(n->sha256, exe + 5);
		}
	}
	proctree_free(t);
}
END_TEST

START_TEST(test_depth_and_cycle)
{
	struct proctree *t;
	struct proc_node *anc[PROCTREE_MAX_DEPTH + 8], *n;
	struct rg_event ev;
	uint32_t pid;

	ck_assert_int_eq(proctree_new(128, &t), 0);
	for (pid = 1; pid <= 60; pid++) {
		ev = mk_exec(RG_EV_PROCESS_PRESENT, pid, pid * SEC, pid > 1 ? pid - 1 : 0,
			     pid > 1 ? (pid - 1) * SEC : 0, "/bin/sh", 1);
		proctree_update(t, &ev);
	}
	n = proctree_find(t, PROC_KEY(60, 0));
	ck_assert_uint_eq(proctree_ancestors(t, n, anc, ARRAY_SIZE(anc)), PROCTREE_MAX_DEPTH);

	/* 1000 says its parent is 1001, 1001 says 1000. */
	ev = mk_exec(RG_EV_PROCESS_PRESENT, 1000, 0, 1001, 0, "/bin/a", 1);
	proctree_update(t, &ev);
	ev = mk_exec(RG_EV_PROCESS_PRESENT, 1001, 0, 1000, 0, "/bin/b", 1);
	proctree_update(t, &ev);
	n = proctree_find(t, PROC_KEY(1000, 0));
	ck_assert_uint_eq(proctree_ancestors(t, n, anc, ARRAY_SIZE(anc)), 1);
	proctree_free(t);
}
END_TEST

/* args_len larger than the buffer (hostile decoder output) is clamped and terminated. */
START_TEST(test_hostile_args)
{
	struct proctree *t;
	struct proc_node *n;
	struct rg_event ev = mk(RG_EV_EXEC, 9, SEC, 0);

	memset(ev.u.exec.args, 'A', sizeof(ev.u.exec.args));
	memset(ev.u.exec.exe, 'B', sizeof(ev.u.exec.exe));
	ev.u.exec.args_len = 100000;
	ck_assert_int_eq(proctree_new(8, &t), 0);
	n = proctree_update(t, &ev);
	ck_assert_uint_eq(n->args_len, RG_ARGS_LEN);
	ck_assert_uint_eq(strlen(n->args), RG_ARGS_LEN - 1);
	ck_assert_uint_eq(strlen(n->exe), RG_PATH_LEN - 1);
	proctree_free(t);
}
END_TEST

START_TEST(test_bad_capacity)
{
	struct proctree *t = NULL;

	ck_assert_int_eq(proctree_new(2, &t), -EINVAL);
	ck_assert_int_eq(proctree_new(PROCTREE_MAX_CAPACITY + 1, &t), -EINVAL);
	ck_assert_int_eq(proctree_new(0, &t), 0);
	proctree_free(t);
	proctree_free(NULL);
}
END_TEST

static Suite *proctree_suite(void)
{
	Suite *s = suite_create("proctree");
	TCase *core = tcase_create("core"), *limits = tcase_create("limits"),
	      *errors = tcase_create("errors");

	tcase_add_test(core, test_lineage);
	tcase_add_test(core, test_exit_and_pid_reuse);
	tcase_add_test(core, test_stub_adopted);
	tcase_add_test(core, test_seed_after_exec);
	tcase_add_test(limits, test_eviction);
	tcase_add_test(limits, test_eviction_keeps_rdma_and_games);
	tcase_add_test(limits, test_churn);
	tcase_add_test(limits, test_depth_and_cycle);
	tcase_add_test(limits, test_strings_shared_and_recycled);
	tcase_add_test(errors, test_hostile_args);
	tcase_add_test(errors, test_bad_capacity);
	suite_add_tcase(s, core);
	suite_add_tcase(s, limits);
	suite_add_tcase(s, errors);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(proctree_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
