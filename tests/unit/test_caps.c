/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * common/caps: the calling thread's capabilities. Names; reading them back; and, as root (the
 * host suite runs this binary as root too), limiting them (effective, on demand, bounding set,
 * no_new_privs) and raising one on demand around a call. A raise/lower pair around a call never
 * takes away a capability that was effective before it (the first drop's bug: the module
 * programs' load lowered CAP_SYS_ADMIN at start, and Debian's kernels then refused every
 * perf_event_open). Check forks each test: what one drops does not reach the next.
 */
#include <check.h>
#include <linux/capability.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "common/caps.h"

START_TEST(test_format)
{
	char buf[128];

	caps_format(CAPS_BIT(CAP_BPF) | CAPS_BIT(CAP_SYS_ADMIN), buf, sizeof(buf));
	ck_assert_str_eq(buf, "cap_sys_admin cap_bpf");
	caps_format(0, buf, sizeof(buf));
	ck_assert_str_eq(buf, "none");
	/* cut where it no longer fits, never overrun */
	caps_format(CAPS_BIT(CAP_NET_ADMIN) | CAPS_BIT(CAP_SYS_PTRACE), buf, 20);
	ck_assert_str_eq(buf, "cap_net_admin");
}
END_TEST

/* CapEff of /proc/self/status, the single thread of a forked test */
static uint64_t proc_eff(void)
{
	char line[256];
	unsigned long long v = 0;
	FILE *f = fopen("/proc/self/status", "re");

	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "CapEff:\t%llx", &v) == 1)
			break;
	fclose(f);
	return v;
}

START_TEST(test_get)
{
	uint64_t eff = 1, prm = 1, bnd = 0;

	ck_assert_int_eq(caps_get(&eff, &prm, &bnd), 0);
	ck_assert_uint_eq(eff, proc_eff());
	ck_assert_uint_eq(eff & ~prm, 0);
	ck_assert_uint_ne(bnd, 0);
}
END_TEST

START_TEST(test_worker)
{
	uint64_t eff = 1, prm = 1;

	ck_assert_int_eq(caps_limit_worker(), 0);
	ck_assert_int_eq(caps_get(&eff, &prm, NULL), 0);
	ck_assert_uint_eq(eff, 0);
	ck_assert_uint_eq(prm, 0);
	ck_assert_int_eq(prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0), 1);
	/* nothing permitted: nothing to raise */
	ck_assert(!caps_raise(CAP_SYS_ADMIN));
	ck_assert_int_eq(caps_get(&eff, NULL, NULL), 0);
	ck_assert_uint_eq(eff, 0);
}
END_TEST

START_TEST(test_limit_root)
{
	const uint64_t keep = CAPS_BIT(CAP_NET_ADMIN) | CAPS_BIT(CAP_SYS_PTRACE),
		       demand = CAPS_BIT(CAP_SYS_ADMIN);
	uint64_t eff, prm, bnd;
	bool bounded = false;

	if (geteuid() != 0)
		return; /* the host suite runs it as root */
	ck_assert_int_eq(caps_limit(keep, demand, &bounded), 0);
	ck_assert(bounded); /* root by hand: CAP_SETPCAP */
	ck_assert_int_eq(caps_get(&eff, &prm, &bnd), 0);
	ck_assert_uint_eq(eff, keep);
	ck_assert_uint_eq(prm, keep | demand);
	ck_assert_uint_eq(bnd, keep | demand);
	ck_assert_int_eq(prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0), 1);
	ck_assert_int_eq(prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, CAP_NET_ADMIN, 0, 0), 0);
}
END_TEST

START_TEST(test_raise_root)
{
	uint64_t eff;

	if (geteuid() != 0)
		return;
	ck_assert_int_eq(caps_limit(CAPS_BIT(CAP_SYS_PTRACE), CAPS_BIT(CAP_SYS_ADMIN), NULL), 0);
	/* on demand: effective between raise and lower only */
	ck_assert(caps_raise(CAP_SYS_ADMIN));
	ck_assert_int_eq(caps_get(&eff, NULL, NULL), 0);
	ck_assert_uint_eq(eff, CAPS_BIT(CAP_SYS_PTRACE) | CAPS_BIT(CAP_SYS_ADMIN));
	caps_lower(CAP_SYS_ADMIN);
	ck_assert_int_eq(caps_get(&eff, NULL, NULL), 0);
	ck_assert_uint_eq(eff, CAPS_BIT(CAP_SYS_PTRACE));
	/* not permitted: never raised */
	ck_assert(!caps_raise(CAP_SYS_RAWIO));
}
END_TEST

START_TEST(test_raise_keeps_effective)
{
	uint64_t before, after;
	bool raised;

	if (geteuid() != 0)
		return;
	/* as at start, before any drop (every capability effective), and as after a drop that
	 * keeps CAP_SYS_ADMIN effective (perf_event_paranoid > 2) */
	for (int round = 0; round < 2; round++) {
		if (round == 1)
			ck_assert_int_eq(caps_limit(CAPS_BIT(CAP_SYS_ADMIN), 0, NULL), 0);
		ck_assert_int_eq(caps_get(&before, NULL, NULL), 0);
		ck_assert(before & CAPS_BIT(CAP_SYS_ADMIN));
		raised = caps_raise(CAP_SYS_ADMIN);
		ck_assert(!raised);
		if (raised)
			caps_lower(CAP_SYS_ADMIN);
		ck_assert_int_eq(caps_get(&after, NULL, NULL), 0);
		ck_assert_uint_eq(after, before);
	}
}
END_TEST

static Suite *caps_suite(void)
{
	Suite *s = suite_create("caps");
	TCase *core = tcase_create("core"), *limits = tcase_create("limits"),
	      *errors = tcase_create("errors");

	tcase_add_test(core, test_format);
	tcase_add_test(core, test_get);
	tcase_add_test(core, test_worker);
	tcase_add_test(limits, test_limit_root);
	tcase_add_test(limits, test_raise_root);
	tcase_add_test(errors, test_raise_keeps_effective);
	suite_add_tcase(s, core);
	suite_add_tcase(s, limits);
	suite_add_tcase(s, errors);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(caps_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
