/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Hardware enforcement's IOMMU group switch (hw_enforce_translate()) on a fixture sysfs: a
 * function whose group is identity gets "DMA" written to the group's type (as `echo DMA >`
 * does, the kernel's sysfs_streq() takes the newline), one already translating or without a
 * group is left alone, and a path is only ever built from a canonical address.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hw/hw_enforce.h"

static char root[64];

static void put(const char *rel, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

static void first_line(const char *rel, char *buf, size_t size)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	ck_assert_ptr_nonnull(fgets(buf, (int)size, f));
	fclose(f);
	buf[strcspn(buf, "\n")] = 0;
}

static void mkdirs(const char *path)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "mkdir -p '%s'", path);
	ck_assert_int_eq(system(cmd), 0);
}

/* ROOT/bus/pci/devices/ADDR -> its iommu_group link to kernel/iommu_groups/GROUP (TYPE) */
static void fixture(const char *addr, int group, const char *type)
{
	char path[256], target[128];

	snprintf(path, sizeof(path), "%s/bus/pci/devices/%s", root, addr);
	mkdirs(path);
	if (group < 0)
		return;
	snprintf(path, sizeof(path), "%s/kernel/iommu_groups/%d", root, group);
	mkdirs(path);
	snprintf(path, sizeof(path), "kernel/iommu_groups/%d/type", group);
	put(path, type);
	snprintf(path, sizeof(path), "%s/bus/pci/devices/%s/iommu_group", root, addr);
	snprintf(target, sizeof(target), "../../../../kernel/iommu_groups/%d", group);
	ck_assert_int_eq(symlink(target, path), 0);
}

static void setup(void)
{
	strcpy(root, "/tmp/rg-hwenf-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(root));
}

static void teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	ck_assert_int_eq(system(cmd), 0);
}

START_TEST(test_identity_switched)
{
	struct hw_enforce_paths p = {.sysfs = root};
	char after[16], type[32];
	int group;

	fixture("0000:02:00.0", 7, "identity\n");
	ck_assert_int_eq(hw_enforce_translate(&p, "0000:02:00.0", &group, after, sizeof(after)), 1);
	ck_assert_int_eq(group, 7);
	ck_assert_str_eq(after, "DMA");
	first_line("kernel/iommu_groups/7/type", type, sizeof(type));
	ck_assert_str_eq(type, "DMA");
}
END_TEST

START_TEST(test_translating_left_alone)
{
	struct hw_enforce_paths p = {.sysfs = root};
	static const char *const types[] = {"DMA-FQ\n", "DMA\n", "blocked\n", "unmanaged\n", ""};
	char after[16], type[32], addr[16], rel[64];
	int group;

	for (unsigned i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		snprintf(addr, sizeof(addr), "0000:0%u:00.0", i + 3);
		fixture(addr, (int)i + 10, types[i]);
		ck_assert_int_eq(hw_enforce_translate(&p, addr, &group, after, sizeof(after)), 0);
		ck_assert_int_eq(group, (int)i + 10);
		ck_assert_str_eq(after, "");
		if (*types[i]) {
			snprintf(rel, sizeof(rel), "kernel/iommu_groups/%u/type", i + 10);
			first_line(rel, type, sizeof(type));
			ck_assert_int_eq(strncmp(type, types[i], strlen(type)), 0);
		}
	}
}
END_TEST

START_TEST(test_no_group)
{
	struct hw_enforce_paths p = {.sysfs = root};
	char after[16] = "x";
	int group = 5;

	fixture("0000:01:00.0", -1, NULL);
	ck_assert_int_eq(hw_enforce_translate(&p, "0000:01:00.0", &group, after, sizeof(after)), 0);
	ck_assert_int_eq(group, -1);
	ck_assert_str_eq(after, "");
	/* gone already: nothing to do either */
	ck_assert_int_eq(hw_enforce_translate(&p, "0000:09:00.0", &group, NULL, 0), 0);
}
END_TEST

START_TEST(test_bad_address)
{
	struct hw_enforce_paths p = {.sysfs = root};
	static const char *const bad[] = {
	    "01:00.0", "0000:01:00.0/../../x", "../0000:01:00.0", "0000:1:0.0", "0000:01:00.8", "",
	};
	int group = 3;

	fixture("0000:01:00.0", 4, "identity\n");
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_int_eq(hw_enforce_translate(&p, bad[i], &group, NULL, 0), -EINVAL);
		ck_assert_int_eq(group, -1);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("hw_enforce");
	TCase *tc = tcase_create("translate");
	SRunner *sr;
	int failed;

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_identity_switched);
	tcase_add_test(tc, test_translating_left_alone);
	tcase_add_test(tc, test_no_group);
	tcase_add_test(tc, test_bad_address);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
