/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Hardware enforcement on a fixture sysfs: the IOMMU group switch (hw_enforce_translate()): a
 * function whose group is identity gets "DMA" written to the group's type (as `echo DMA >`
 * does, the kernel's sysfs_streq() takes the newline), one already translating or without a
 * group is left alone, and a path is only ever built from a canonical address. Refusing RDMA
 * drivers (hw_refuse.h): every reason not to act, in order, and the one case that acts; the
 * table of appearances; the override and unbind writes (the unbind only through a driver name
 * that cannot leave drivers/), and `enforce --off`'s undo, which clears only its own override.
 */
#include <check.h>
#include <stdbool.h>
#include <stdint.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "event/event.h"
#include "hw/hw_enforce.h"
#include "hw/hw_refuse.h"

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

/* ---- refusing RDMA drivers ---- */

static const char *const refused[] = {"mlx5_core", "e1000e"};

/* a bind of e1000e to a network function that appeared at 200 while a game runs since 100 */
static struct hw_refuse_in refusable(void)
{
	return (struct hw_refuse_in){
	    .enforcing = true,
	    .drivers = refused,
	    .n_drivers = 2,
	    .change = RG_HW_BIND,
	    .driver = "e1000e",
	    .game_since = 100,
	    .added_ns = 200,
	};
}

START_TEST(test_refuse_decide)
{
	struct hw_refuse_in in = refusable();

	ck_assert_uint_eq(hw_refuse_decide(&in), HW_REFUSE_YES);
	ck_assert_str_eq(hw_refuse_verdict_to_string(HW_REFUSE_YES), "refuse");
	/* appeared at the very start of the session: new */
	in.added_ns = 100;
	ck_assert_uint_eq(hw_refuse_decide(&in), HW_REFUSE_YES);

	in = refusable();
	in.enforcing = false;
	ck_assert_uint_eq(hw_refuse_decide(&in), HW_REFUSE_OFF);
	in = refusable();
	in.n_drivers = 0;
	ck_assert_uint_eq(hw_refuse_decide(&in), HW_REFUSE_OFF);
	for (unsigned c = 0; c < RG_HW__MAX; c++) {
		in = refusable();
		in.change = c;
		if (c != RG_HW_BIND)
			ck_assert_uint_eq(hw_refuse_decide(&in), HW_REFUSE_NOT_BIND);
	}
	in = refusable();
	in.driver = "";
	ck_assert_uint_eq(hw_refuse_decide(&in), HW_REFUSE_NOT_BIND);
	in = refusable();
	in.driver = "e1000"; /* a prefix of a listed name is another driver */
	ck_assert_uint_eq(hw_refuse_decide(&in), HW_REFUSE_NOT_LISTED);
	in.driver = "mlx5_core";
	ck_assert_uint_eq(hw_refuse_decide(&in), HW_REFUSE_YES);
	in = refusable();
	in.game_since = 0;
	ck_assert_uint_eq(hw_refuse_decide(&in), HW_REFUSE_NO_GAME);
	/* there when the daemon started, or when the game started */
	in = refusable();
	in.added_ns = 0;
	ck_assert_uint_eq(hw_refuse_decide(&in), HW_REFUSE_PRESENT);
	in.added_ns = 99;
	ck_assert_uint_eq(hw_refuse_decide(&in), HW_REFUSE_PRESENT);
	in = refusable();
	in.bridge = true;
	ck_assert_uint_eq(hw_refuse_decide(&in), HW_REFUSE_BRIDGE);
	in = refusable();
	in.allowed = true;
	ck_assert_uint_eq(hw_refuse_decide(&in), HW_REFUSE_ALLOWED);
	in = refusable();
	in.baseline = true;
	ck_assert_uint_eq(hw_refuse_decide(&in), HW_REFUSE_BASELINE);
	for (unsigned v = HW_REFUSE_OFF; v <= HW_REFUSE_YES; v++)
		ck_assert_ptr_nonnull(hw_refuse_verdict_to_string(v));
	ck_assert_ptr_null(hw_refuse_verdict_to_string(HW_REFUSE_YES + 1));
}
END_TEST

START_TEST(test_added_table)
{
	static struct hw_added_table t;
	char addr[16];

	memset(&t, 0, sizeof(t));
	ck_assert_uint_eq(hw_added_at(&t, "0000:04:00.0"), 0);
	hw_added_note(&t, RG_HW_ADD, "0000:04:00.0", 500);
	hw_added_note(&t, RG_HW_BIND, "0000:05:00.0", 600); /* only add and remove count */
	ck_assert_uint_eq(hw_added_at(&t, "0000:04:00.0"), 500);
	ck_assert_uint_eq(hw_added_at(&t, "0000:05:00.0"), 0);
	/* added again: the latest appearance */
	hw_added_note(&t, RG_HW_ADD, "0000:04:00.0", 700);
	ck_assert_uint_eq(hw_added_at(&t, "0000:04:00.0"), 700);
	ck_assert_uint_eq(t.n, 1);
	hw_added_note(&t, RG_HW_REMOVE, "0000:04:00.0", 800);
	ck_assert_uint_eq(hw_added_at(&t, "0000:04:00.0"), 0);
	ck_assert_uint_eq(t.n, 0);
	/* full: the oldest makes room, memory stays fixed */
	for (unsigned i = 0; i < HW_ADDED_MAX; i++) {
		snprintf(addr, sizeof(addr), "0000:%02x:%02x.%u", i >> 8, (i >> 3) & 31, i & 7);
		hw_added_note(&t, RG_HW_ADD, addr, 1000 + i);
	}
	ck_assert_uint_eq(t.n, HW_ADDED_MAX);
	hw_added_note(&t, RG_HW_ADD, "0000:ff:00.0", 5000);
	ck_assert_uint_eq(t.n, HW_ADDED_MAX);
	ck_assert_uint_eq(hw_added_at(&t, "0000:ff:00.0"), 5000);
	ck_assert_uint_eq(hw_added_at(&t, "0000:00:00.0"), 0); /* the oldest, 1000 */
	ck_assert_uint_eq(hw_added_at(&t, "0000:00:00.1"), 1001);
}
END_TEST

/* ROOT/bus/pci/devices/ADDR/driver_override (content), ROOT/bus/pci/drivers/DRV/unbind and
 * ROOT/bus/pci/drivers_probe, all empty files as the test reads them back */
static void bind_fixture(const char *addr, const char *override)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/bus/pci/devices/%s", root, addr);
	mkdirs(path);
	snprintf(path, sizeof(path), "bus/pci/devices/%s/driver_override", addr);
	put(path, override);
	snprintf(path, sizeof(path), "%s/bus/pci/drivers/e1000e", root);
	mkdirs(path);
	put("bus/pci/drivers/e1000e/unbind", "");
	put("bus/pci/drivers_probe", "");
}

static void whole(const char *rel, char *buf, size_t size)
{
	char path[512];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	n = fread(buf, 1, size - 1, f);
	buf[n] = 0;
	fclose(f);
}

START_TEST(test_override_unbind)
{
	struct hw_enforce_paths p = {.sysfs = root};
	static const char *const bad[] = {"", "../../../x", "e1000e/../x", "a b",
					  "abcdefghijklmnopqrstuvwxyz0123456"};
	char buf[64];

	bind_fixture("0000:04:00.0", "");
	ck_assert_int_eq(hw_enforce_override(&p, "0000:04:00.0", HW_REFUSE_OVERRIDE), 0);
	whole("bus/pci/devices/0000:04:00.0/driver_override", buf, sizeof(buf));
	ck_assert_str_eq(buf, "rdmaguard-refused");
	ck_assert_int_eq(hw_enforce_unbind(&p, "0000:04:00.0", "e1000e"), 0);
	whole("bus/pci/drivers/e1000e/unbind", buf, sizeof(buf));
	ck_assert_str_eq(buf, "0000:04:00.0");
	/* a driver that is not there (the kernel's -ENODEV is the bound-elsewhere case) */
	ck_assert_int_eq(hw_enforce_unbind(&p, "0000:04:00.0", "mlx5_core"), -ENOENT);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_int_eq(hw_enforce_unbind(&p, "0000:04:00.0", bad[i]), -EINVAL);
	ck_assert_int_eq(hw_enforce_unbind(&p, "0000:04:00.0/..", "e1000e"), -EINVAL);
	ck_assert_int_eq(hw_enforce_override(&p, "../0000:04:00.0", "x"), -EINVAL);
	/* gone */
	ck_assert_int_eq(hw_enforce_override(&p, "0000:05:00.0", HW_REFUSE_OVERRIDE), -ENOENT);
}
END_TEST

START_TEST(test_undo_override)
{
	char state[128], buf[64];
	struct hw_enforce_paths p = {.sysfs = root, .state = state};
	struct hw_enforce_undone u;

	snprintf(state, sizeof(state), "%s/run/hw-enforced", root);
	bind_fixture("0000:04:00.0", "rdmaguard-refused\n");
	bind_fixture("0000:05:00.0", "vfio-pci\n"); /* someone else's since: left alone */
	ck_assert_int_eq(hw_enforce_note(&p, "override", "0000:04:00.0"), 0);
	ck_assert_int_eq(hw_enforce_note(&p, "override", "0000:05:00.0"), 0);
	ck_assert_int_eq(hw_enforce_note(&p, "override", "0000:06:00.0"), 0); /* gone since */
	ck_assert_int_eq(hw_enforce_undo(&p, &u), 0);
	ck_assert_uint_eq(u.rescans, 0);
	ck_assert_uint_eq(u.masters, 0);
	ck_assert_uint_eq(u.overrides, 1);
	first_line("bus/pci/devices/0000:04:00.0/driver_override", buf, sizeof(buf));
	ck_assert_str_eq(buf, ""); /* "\n" written: the kernel clears it */
	first_line("bus/pci/devices/0000:05:00.0/driver_override", buf, sizeof(buf));
	ck_assert_str_eq(buf, "vfio-pci");
	whole("bus/pci/drivers_probe", buf, sizeof(buf));
	ck_assert_str_eq(buf, "0000:04:00.0");
	ck_assert_int_eq(access(state, F_OK), -1);
	ck_assert_int_eq(hw_enforce_undo(&p, &u), -ENOENT);
}
END_TEST

/* ROOT/devices/pci0000:00/PORT/ADDR with ROOT/bus/pci/devices links, as sysfs has them; each
 * function's config: header type ht, class, and at 0x40 a PCI Express capability of type
 * pcie_type (its Link Control at 0x50) */
static void config_fixture(const char *path, uint8_t ht, uint32_t class_code, int pcie_type)
{
	uint8_t cfg[256] = {0};
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	cfg[0x04] = 0x06; /* memory, bus master */
	cfg[0x09] = (uint8_t)class_code;
	cfg[0x0a] = (uint8_t)(class_code >> 8);
	cfg[0x0b] = (uint8_t)(class_code >> 16);
	cfg[0x0e] = ht;
	if (pcie_type >= 0) {
		cfg[0x06] = 0x10;
		cfg[0x34] = 0x40;
		cfg[0x40] = 0x10;
		cfg[0x42] = (uint8_t)(2 | (pcie_type << 4));
	}
	ck_assert_uint_eq(fwrite(cfg, 1, sizeof(cfg), f), sizeof(cfg));
	fclose(f);
}

static void device_fixture(const char *parent, const char *addr, uint8_t ht, uint32_t class_code,
			   int pcie_type, bool bus)
{
	char dir[512], path[600], link[600];

	snprintf(dir, sizeof(dir), "%s/devices/pci0000:00/%s%s%s", root, parent, parent[0] ? "/" : "",
		 addr);
	mkdirs(dir);
	snprintf(path, sizeof(path), "%s/config", dir);
	config_fixture(path, ht, class_code, pcie_type);
	if (bus) {
		snprintf(path, sizeof(path), "%s/pci_bus", dir);
		mkdirs(path);
	}
	snprintf(path, sizeof(path), "%s/bus/pci/devices", root);
	mkdirs(path);
	snprintf(link, sizeof(link), "%s/bus/pci/devices/%s", root, addr);
	snprintf(path, sizeof(path), "../../../devices/pci0000:00/%s%s%s", parent,
		 parent[0] ? "/" : "", addr);
	ck_assert_int_eq(symlink(path, link), 0);
}

static uint16_t config16(const char *addr, unsigned off)
{
	char path[512];
	uint16_t v = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/bus/pci/devices/%s/config", root, addr);
	f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fseek(f, off, SEEK_SET), 0);
	ck_assert_uint_eq(fread(&v, 2, 1, f), 1);
	fclose(f);
	return v;
}

/* A bridge is what the kernel made one (header type 1 and a subordinate bus), not a class an
 * endpoint claims; the port above a card is stopped only where the card is alone below it; the
 * undo gives the port back first */
START_TEST(test_bridge_and_port)
{
	char state[128];
	struct hw_enforce_paths p = {.sysfs = root, .state = state};
	struct hw_enforce_undone u;
	char port[16];

	snprintf(state, sizeof(state), "%s/run/hw-enforced", root);
	device_fixture("", "0000:00:03.0", 0x01, 0x060400, 4, true);       /* root port */
	device_fixture("0000:00:03.0", "0000:01:00.0", 0x00, 0x060400, 0, false); /* claims it */
	device_fixture("0000:00:03.0", "0000:01:00.1", 0x80, 0x068000, 0, false); /* and "other" */
	device_fixture("", "0000:00:04.0", 0x01, 0x060400, 4, false);      /* no bus made */
	device_fixture("", "0000:00:05.0", 0x01, 0x060400, 4, true);
	device_fixture("0000:00:05.0", "0000:02:00.0", 0x00, 0x020000, 0, false);
	device_fixture("0000:00:05.0", "0000:02:01.0", 0x00, 0x020000, 0, false); /* a neighbour */
	device_fixture("", "0000:00:1f.0", 0x80, 0x060100, -1, false);     /* ISA bridge, root bus */

	ck_assert(hw_enforce_is_bridge(&p, "0000:00:03.0"));
	ck_assert(!hw_enforce_is_bridge(&p, "0000:01:00.0"));
	ck_assert(!hw_enforce_is_bridge(&p, "0000:01:00.1"));
	ck_assert(!hw_enforce_is_bridge(&p, "0000:00:04.0"));
	ck_assert(!hw_enforce_is_bridge(&p, "0000:00:1f.0"));
	ck_assert(!hw_enforce_is_bridge(&p, "0000:09:00.0"));

	ck_assert_int_eq(hw_enforce_port_above(&p, "0000:01:00.1", port), 0);
	ck_assert_str_eq(port, "0000:00:03.0");
	ck_assert_int_eq(hw_enforce_port_above(&p, "0000:02:00.0", port), -EBUSY);
	ck_assert_int_eq(hw_enforce_port_above(&p, "0000:00:1f.0", port), -ENODEV);
	ck_assert_int_eq(hw_enforce_port_above(&p, "0000:00:03.0", port), -ENODEV);

	ck_assert_int_eq(hw_enforce_port_stop(&p, "0000:00:03.0", true), 0);
	ck_assert_uint_eq(config16("0000:00:03.0", 0x50), 0x10);
	ck_assert_int_eq(hw_enforce_note(&p, "port_link", "0000:00:03.0"), 0);
	ck_assert_int_eq(hw_enforce_port_stop(&p, "0000:00:05.0", false), 0);
	ck_assert_uint_eq(config16("0000:00:05.0", 0x04), 0x02);
	ck_assert_int_eq(hw_enforce_note(&p, "port_master", "0000:00:05.0"), 0);
	ck_assert_int_eq(hw_enforce_note(&p, "port_master", "0000:00:05.0"), 0); /* undone once */
	ck_assert_int_eq(hw_enforce_port_stop(&p, "0000:00:1f.0", true), -ENODEV);
	ck_assert_int_eq(hw_enforce_undo(&p, &u), 0);
	ck_assert_uint_eq(u.ports, 2);
	ck_assert_uint_eq(config16("0000:00:03.0", 0x50), 0);
	ck_assert_uint_eq(config16("0000:00:05.0", 0x04), 0x06);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("hw_enforce");
	TCase *tc = tcase_create("translate"), *refuse = tcase_create("refuse");
	SRunner *sr;
	int failed;

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_identity_switched);
	tcase_add_test(tc, test_translating_left_alone);
	tcase_add_test(tc, test_no_group);
	tcase_add_test(tc, test_bad_address);
	tcase_add_test(tc, test_bridge_and_port);
	suite_add_tcase(s, tc);
	tcase_add_checked_fixture(refuse, setup, teardown);
	tcase_add_test(refuse, test_refuse_decide);
	tcase_add_test(refuse, test_added_table);
	tcase_add_test(refuse, test_override_unbind);
	tcase_add_test(refuse, test_undo_override);
	suite_add_tcase(s, refuse);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
