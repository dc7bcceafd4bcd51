/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The hardware layer (agent/hw/): the capability walk on crafted config spaces, the scan and its
 * facts on a root built here (one function per tell, each with its exact facts), the seat
 * baseline (round trip, differences, validation at file:line:column) and the policy's hardware
 * allowlist. Config spaces captured from qemu's emulated devices are checked by test_hw_qemu.c's
 * fixture root (tests/fixtures/roots/qemu-q35).
 */
#include <check.h>
#include <poll.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "policy/policy.h"
#include "hw/baseline.h"
#include "hw/cmdline.h"
#include "hw/fingerprint.h"
#include "hw/hw_scanner.h"
#include "hw/iommu.h"
#include "hw/pci.h"
#include "hw/pci_caps.h"
#include "common/root.h"
#include "common/sha256.h"
#include "hw_testutil.h"

/* ---- config spaces ---- */

struct cfg {
	uint8_t b[4096];
	size_t len;
};

static void put16(struct cfg *c, unsigned off, uint16_t v)
{
	c->b[off] = v & 0xff;
	c->b[off + 1] = v >> 8;
}

static void put32(struct cfg *c, unsigned off, uint32_t v)
{
	put16(c, off, v & 0xffff);
	put16(c, off + 2, v >> 16);
}

/* A type-0 header: IDs, class, command, header type; capabilities are added after. */
static void cfg_init(struct cfg *c, uint16_t ven, uint16_t dev, uint32_t cls, uint8_t htype,
		     uint16_t cmd, size_t len)
{
	memset(c, 0, sizeof(*c));
	c->len = len;
	put16(c, 0x00, ven);
	put16(c, 0x02, dev);
	put16(c, 0x04, cmd);
	c->b[0x08] = 0x01; /* revision */
	c->b[0x09] = cls & 0xff;
	c->b[0x0a] = (cls >> 8) & 0xff;
	c->b[0x0b] = cls >> 16;
	c->b[0x0e] = htype;
}

/* Appends a standard capability at off, linked from the previous one (or the header). */
static void cap(struct cfg *c, unsigned *prev, unsigned off, uint8_t id)
{
	put16(c, 0x06, 0x10); /* Status: capabilities list */
	if (*prev)
		c->b[*prev + 1] = (uint8_t)off;
	else
		c->b[0x34] = (uint8_t)off;
	c->b[off] = id;
	c->b[off + 1] = 0;
	*prev = off;
}

/* A PCIe capability: type, Link Capabilities and Link Status (speed code, width). */
static void pcie_cap(struct cfg *c, unsigned *prev, unsigned off, unsigned type, unsigned maxs,
		     unsigned maxw, unsigned s, unsigned w)
{
	cap(c, prev, off, PCI_CAP_EXP);
	put16(c, off + 2, (uint16_t)(type << 4 | 2));
	put32(c, off + 0x0c, maxs | maxw << 4);
	put16(c, off + 0x12, (uint16_t)(s | w << 4));
}

static void ecap(struct cfg *c, unsigned off, uint16_t id, unsigned next)
{
	put32(c, off, id | 1u << 16 | next << 20);
}

static void dsn(struct cfg *c, unsigned off, uint64_t v, unsigned next)
{
	ecap(c, off, PCI_ECAP_DSN, next);
	put32(c, off + 4, (uint32_t)v);
	put32(c, off + 8, (uint32_t)(v >> 32));
}

static struct hw_fn walk(const struct cfg *c)
{
	struct hw_fn fn;

	memset(&fn, 0, sizeof(fn));
	hw_caps_walk(c->b, c->len, &fn);
	return fn;
}

START_TEST(test_caps_walk)
{
	struct cfg c;
	struct hw_fn fn;
	unsigned prev = 0;

	/* PM, PCIe endpoint 8 GT/s x4 (capable of 16 GT/s x8), MSI; AER then DSN. */
	cfg_init(&c, 0x8086, 0x15f3, 0x020000, 0x00, 0x0006, 4096);
	cap(&c, &prev, 0x40, PCI_CAP_PM);
	pcie_cap(&c, &prev, 0x50, 0, 4, 8, 3, 4);
	cap(&c, &prev, 0x90, 0x05);
	ecap(&c, 0x100, 0x0001, 0x140);
	dsn(&c, 0x140, 0x0011223344556677ull, 0);
	fn = walk(&c);
	ck_assert_uint_eq(fn.n_caps, 3);
	ck_assert_uint_eq(fn.caps[0], 0x01);
	ck_assert_uint_eq(fn.cap_offsets[1], 0x50);
	ck_assert_uint_eq(fn.caps[2], 0x05);
	ck_assert_uint_eq(fn.n_ecaps, 2);
	ck_assert_uint_eq(fn.ecaps[1], 0x0003);
	ck_assert_uint_eq(fn.ecap_offsets[1], 0x140);
	ck_assert(fn.pcie);
	ck_assert_uint_eq(fn.pcie_type, 0);
	ck_assert_uint_eq(fn.link.speed, 8000);
	ck_assert_uint_eq(fn.link.width, 4);
	ck_assert_uint_eq(fn.link.max_speed, 16000);
	ck_assert_uint_eq(fn.link.max_width, 8);
	ck_assert(fn.has_dsn);
	ck_assert(fn.dsn == 0x0011223344556677ull);
	ck_assert(fn.bus_master && fn.mem_enable);
	ck_assert_uint_eq(fn.facts, 0);
	ck_assert_str_eq(fn.caps_error, "");

	/* The same endpoint without PM: a tell. */
	memset(&c.b[0x40], 0, 2);
	c.b[0x34] = 0x50;
	fn = walk(&c);
	ck_assert_uint_eq(fn.facts, RG_PCI_FACT_NO_PM_CAP);
	ck_assert_uint_eq(fn.n_caps, 2);

	/* Only 256 bytes readable (not root): the extended list is not there to walk. */
	c.len = 256;
	fn = walk(&c);
	ck_assert_uint_eq(fn.n_ecaps, 0);
	ck_assert(!fn.has_dsn);
	c.len = 64; /* without root: the capabilities were not read, which is no tell */
	fn = walk(&c);
	ck_assert_uint_eq(fn.facts, 0);
	ck_assert_uint_eq(fn.n_caps, 0);
	ck_assert_str_eq(fn.caps_error, "capability at 0x50 beyond the 64 bytes read");
}
END_TEST

START_TEST(test_caps_malformed)
{
	struct cfg c;
	struct hw_fn fn;
	unsigned prev = 0;

	cfg_init(&c, 0x10ee, 0x7024, 0x058000, 0x00, 0, 256);
	cap(&c, &prev, 0x40, PCI_CAP_PM);
	cap(&c, &prev, 0x50, 0x05);
	c.b[0x51] = 0x40; /* back to the first */
	fn = walk(&c);
	ck_assert_uint_eq(fn.facts, RG_PCI_FACT_CAPS_MALFORMED);
	ck_assert_str_eq(fn.caps_error, "capability list loops at 0x40");
	ck_assert_uint_eq(fn.n_caps, 2);

	c.b[0x51] = 0x50; /* to itself */
	fn = walk(&c);
	ck_assert_str_eq(fn.caps_error, "capability list loops at 0x50");

	c.b[0x34] = 0x30; /* into the header */
	fn = walk(&c);
	ck_assert_str_eq(fn.caps_error, "capability pointer 0x30 out of bounds");
	ck_assert_uint_eq(fn.n_caps, 0);

	c.b[0x34] = 0xfe; /* the last two bytes: an entry fits; its next pointer is 0 */
	fn = walk(&c);
	ck_assert_uint_eq(fn.facts, RG_PCI_FACT_CAPS_ZERO);
	ck_assert_str_eq(fn.caps_error, "all-zero capability at 0xfc");

	c.b[0x34] = 0x60; /* an all-zero entry */
	fn = walk(&c);
	ck_assert_uint_eq(fn.facts, RG_PCI_FACT_CAPS_ZERO);
	ck_assert_str_eq(fn.caps_error, "all-zero capability at 0x60");

	c.b[0x0e] = 0x7f; /* no such header type: nothing in it is followed */
	fn = walk(&c);
	ck_assert_uint_eq(fn.facts, RG_PCI_FACT_HEADER_INVALID);
	ck_assert_uint_eq(fn.n_caps, 0);

	/* Extended list: a loop, a pointer below 0x100, an all-zero entry after a good one. */
	cfg_init(&c, 0x10ee, 0x7024, 0x058000, 0x00, 0, 4096);
	prev = 0;
	cap(&c, &prev, 0x40, PCI_CAP_PM);
	pcie_cap(&c, &prev, 0x50, 0, 1, 1, 1, 1);
	ecap(&c, 0x100, 0x0001, 0x100);
	fn = walk(&c);
	ck_assert_uint_eq(fn.facts, RG_PCI_FACT_CAPS_MALFORMED);
	ck_assert_str_eq(fn.caps_error, "extended capability list loops at 0x100");
	ecap(&c, 0x100, 0x0001, 0x0fc);
	fn = walk(&c);
	ck_assert_str_eq(fn.caps_error, "extended capability pointer 0x0fc out of bounds");
	ecap(&c, 0x100, 0x0001, 0x200);
	fn = walk(&c);
	ck_assert_uint_eq(fn.facts, RG_PCI_FACT_CAPS_ZERO);
	ck_assert_str_eq(fn.caps_error, "all-zero extended capability at 0x200");
	ck_assert_uint_eq(fn.n_ecaps, 1);
}
END_TEST

START_TEST(test_caps_limits)
{
	struct cfg c;
	struct hw_fn fn;
	unsigned prev = 0;

	/* The longest lists there can be: 48 standard entries, 960 extended ones in a chain. */
	cfg_init(&c, 0x1234, 0x5678, 0x000000, 0x00, 0, 4096);
	for (unsigned off = 0x40; off < 0x100; off += 4)
		cap(&c, &prev, off, 0x09);
	for (unsigned off = 0x100; off < 0x1000; off += 4)
		ecap(&c, off, 0x000b, off + 4 < 0x1000 ? off + 4 : 0);
	c.b[0x50] =
	    PCI_CAP_EXP; /* a PCIe capability among them, so that the extended list counts */
	fn = walk(&c);
	ck_assert_uint_eq(fn.n_caps, HW_MAX_CAPS);
	ck_assert_uint_eq(fn.n_ecaps, HW_MAX_ECAPS);
	ck_assert_str_eq(fn.caps_error, "");

	/* Short reads: less than a header is malformed, never read past. */
	fn = walk(&(struct cfg){.len = 12});
	ck_assert_uint_eq(fn.facts, RG_PCI_FACT_CAPS_MALFORMED);
	ck_assert_str_eq(fn.caps_error, "config space of 12 bytes");
}
END_TEST

/* ---- a root with one function per tell ---- */

/* A function at sys/devices/pci0000:00/PATH (PATH ends with its address). */
static void function(const char *path, const struct cfg *c, const char *driver, int group,
		     const char *gtype)
{
	const char *addr = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	char rel[400], target[400];

	snprintf(rel, sizeof(rel), "sys/devices/pci0000:00/%s/config", path);
	writef(rel, c->b, c->len);
	snprintf(rel, sizeof(rel), "sys/bus/pci/devices/%s", addr);
	snprintf(target, sizeof(target), "../../../devices/pci0000:00/%s", path);
	mkdir(scratch, 0755);
	writef("sys/bus/pci/.keep", "", 0);
	mkdir(strcat(strcpy((char[600]){0}, scratch), "/sys/bus/pci/devices"), 0755);
	linkto(rel, target);
	if (driver) {
		snprintf(rel, sizeof(rel), "sys/devices/pci0000:00/%s/driver", path);
		snprintf(target, sizeof(target), "../../../bus/pci/drivers/%s", driver);
		linkto(rel, target);
	}
	if (group >= 0) {
		snprintf(rel, sizeof(rel), "sys/kernel/iommu_groups/%d/type", group);
		writes(rel, "%s\n", gtype);
		snprintf(rel, sizeof(rel), "sys/devices/pci0000:00/%s/iommu_group", path);
		snprintf(target, sizeof(target), "/sys/kernel/iommu_groups/%d", group);
		linkto(rel, target);
	}
}

static void build_root(void)
{
	struct cfg c;
	unsigned prev;

	/* A root port with ACS, 8 GT/s x4, and its NIC: PM, PCIe, DSN; igc and a netdev. */
	cfg_init(&c, 0x8086, 0x7ab8, 0x060400, 0x01, 0x0007, 4096);
	prev = 0;
	cap(&c, &prev, 0x40, PCI_CAP_PM);
	pcie_cap(&c, &prev, 0x50, 4, 3, 4, 3, 4);
	ecap(&c, 0x100, PCI_ECAP_ACS, 0);
	function("0000:00:1c.0", &c, "pcieport", 1, "DMA-FQ");
	cfg_init(&c, 0x8086, 0x15f3, 0x020000, 0x00, 0x0006, 4096);
	prev = 0;
	cap(&c, &prev, 0x40, PCI_CAP_PM);
	pcie_cap(&c, &prev, 0x50, 0, 3, 4, 3, 4);
	dsn(&c, 0x100, 0x0011223344556677ull, 0);
	function("0000:00:1c.0/0000:01:00.0", &c, "igc", 2, "DMA-FQ");
	writes("sys/devices/pci0000:00/0000:00:1c.0/0000:01:00.0/net/enp1s0/operstate", "up\n");

	/* A root port without ACS at 2.5 GT/s x1, and behind it pcileech's stock card claiming
	 * 8 GT/s x4, bus mastering with no driver, no PM, the multi-function bit alone, and the
	 * NIC's serial number. */
	cfg_init(&c, 0x8086, 0x7ab9, 0x060400, 0x01, 0x0007, 4096);
	prev = 0;
	cap(&c, &prev, 0x40, PCI_CAP_PM);
	pcie_cap(&c, &prev, 0x50, 4, 1, 1, 1, 1);
	function("0000:00:1c.1", &c, "pcieport", 1, "DMA-FQ");
	cfg_init(&c, 0x10ee, 0x0666, 0x020000, 0x80, 0x0006, 4096);
	prev = 0;
	pcie_cap(&c, &prev, 0x40, 0, 3, 4, 3, 4);
	dsn(&c, 0x100, 0x0011223344556677ull, 0);
	function("0000:00:1c.1/0000:02:00.0", &c, NULL, -1, NULL);

	/* A looping list, with a driver; an invalid header; an all-zero extended capability. */
	cfg_init(&c, 0x1b73, 0x1100, 0x0c0330, 0x00, 0x0006, 256);
	prev = 0;
	cap(&c, &prev, 0x40, PCI_CAP_PM);
	cap(&c, &prev, 0x50, 0x05);
	c.b[0x51] = 0x40;
	function("0000:00:1d.0", &c, "xhci_hcd", 4, "identity");
	writes("sys/devices/pci0000:00/0000:00:1d.0/usb3/busnum", "3\n");
	cfg_init(&c, 0x1234, 0x0001, 0xff0000, 0x7f, 0x0000, 64);
	function("0000:00:1e.0", &c, NULL, -1, NULL);
	writes("proc/cmdline", "BOOT_IMAGE=/vmlinuz ro intel_iommu=on,igfx_off iommu=pt quiet -- "
			       "iommu=off\n");
	writef("sys/class/iommu/dmar0/.keep", "", 0);
}

static void setup(void)
{
	strcpy(scratch, "/tmp/rg-hw-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(scratch));
	build_root();
}

START_TEST(test_scan_facts)
{
	_cleanup_(hw_scan_freep) struct hw_scan *s = scan_scratch();
	const struct hw_fn *fn;
	struct rg_event ev;

	ck_assert_uint_eq(s->n, 6);
	ck_assert_str_eq(s->fn[0].addr, "0000:00:1c.0"); /* address order */

	fn = fn_at(s, "0000:01:00.0");
	ck_assert_str_eq(fn->vendor_name, "Intel Corporation");
	ck_assert_str_eq(fn->driver, "igc");
	ck_assert_str_eq(fn->upstream, "0000:00:1c.0");
	ck_assert_str_eq(fn->iommu_type, "DMA-FQ");
	ck_assert_int_eq(fn->iommu_group, 2);
	ck_assert(fn->has_netdev);
	ck_assert_uint_eq(fn->config_len, 4096);
	ck_assert_uint_eq(fn->upstream_link.speed, 8000);
	/* Its DSN is also the card's, but it is the original (a driver and a netdev): the copy is
	 * accused, not the NIC. */
	ck_assert_uint_eq(fn->facts, 0);
	ck_assert_str_eq(fn->dsn_original, "");

	fn = fn_at(s, "0000:02:00.0");
	ck_assert_uint_eq(fn->facts, RG_PCI_FACT_BUS_MASTER_NO_DRIVER | RG_PCI_FACT_FPGA_VENDOR |
					 RG_PCI_FACT_DMA_CARD_ID | RG_PCI_FACT_CLASS_MISMATCH |
					 RG_PCI_FACT_NO_PM_CAP | RG_PCI_FACT_MULTIFUNCTION_SINGLE |
					 RG_PCI_FACT_LINK_ABOVE_UPSTREAM |
					 RG_PCI_FACT_DSN_DUPLICATE | RG_PCI_FACT_ACS_MISSING |
					 RG_PCI_FACT_IDENTITY_DOMAIN | RG_PCI_FACT_IMITATED_NO_DRIVER);
	ck_assert_str_eq(fn->upstream, "0000:00:1c.1");
	ck_assert_str_eq(fn->dsn_original, "0000:01:00.0"); /* the copy names the original */

	fn = fn_at(s, "0000:00:1d.0");
	ck_assert_uint_eq(fn->facts, RG_PCI_FACT_CAPS_MALFORMED | RG_PCI_FACT_IDENTITY_DOMAIN);
	ck_assert(fn->has_usb_bus);
	fn = fn_at(s, "0000:00:1e.0");
	ck_assert_uint_eq(fn->facts, RG_PCI_FACT_HEADER_INVALID | RG_PCI_FACT_IDENTITY_DOMAIN);
	ck_assert_uint_eq(fn->config_len, 64);
	ck_assert_uint_eq(fn_at(s, "0000:00:1c.0")->facts, 0);
	ck_assert(fn_at(s, "0000:00:1c.0")->acs);

	/* The posture: one unit, three groups, one identity; the weakening options before "--". */
	ck_assert_uint_eq(s->posture->units, 1);
	ck_assert_uint_eq(s->posture->n_groups, 3);
	ck_assert_uint_eq(s->posture->identity_groups, 1);
	ck_assert_str_eq(s->posture->weakening, "iommu=pt");
	hw_posture_to_event(s->posture, 5, &ev);
	ck_assert_uint_eq(ev.type, RG_EV_IOMMU_POSTURE);
	ck_assert_uint_eq(ev.u.iommu.weakened, 1);
	ck_assert_str_eq(ev.u.iommu.cmdline, "iommu=pt");

	/* The event carries the fingerprint and the facts. */
	hw_fn_to_event(fn_at(s, "0000:02:00.0"), RG_EV_PCI_FUNCTION, RG_PROV_INVENTORY, 7, &ev);
	ck_assert_uint_eq(ev.u.pci.vendor, 0x10ee);
	ck_assert_uint_eq(ev.u.pci.link_speed, 8000);
	ck_assert_uint_eq(ev.u.pci.upstream_speed, 2500);
	ck_assert_str_eq(ev.u.pci.dsn, "00-11-22-33-44-55-66-77");
	ck_assert_str_eq(ev.u.pci.vendor_name, "Xilinx Corporation");
	ck_assert_uint_eq(ev.u.pci.has_iommu_group, 0);
	ck_assert_uint_eq(ev.u.pci.facts, fn_at(s, "0000:02:00.0")->facts);
	ck_assert_str_eq(pci_fact_to_string(1), "fpga_vendor");
}
END_TEST

START_TEST(test_describe_and_root)
{
	struct hw_fn fn;
	struct rg_root root;
	char p[600];

	ck_assert_int_eq(root_init(&root, scratch), 0);
	ck_assert_int_eq(hw_describe(&root, "0000:02:00.0", &fn), 0);
	ck_assert_uint_eq(fn.device, 0x0666);
	ck_assert(fn.facts & RG_PCI_FACT_DSN_DUPLICATE); /* against the others, as in a scan */
	ck_assert_int_eq(hw_describe(&root, "0000:09:00.0", &fn), -ENOENT);
	ck_assert_int_eq(hw_describe(&root, "09:00.0", &fn), -EINVAL);

	/* A config file that links out of the root is not followed there: the function reads as
	 * having no config space, and nothing of /etc/passwd reaches it. */
	snprintf(p, sizeof(p), "%s/sys/devices/pci0000:00/0000:00:1e.0/config", scratch);
	ck_assert_int_eq(unlink(p), 0);
	ck_assert_int_eq(symlink("/etc/passwd", p), 0);
	ck_assert_int_eq(hw_describe(&root, "0000:00:1e.0", &fn), 0);
	ck_assert_uint_eq(fn.vendor, 0);
	/* It could not be examined: not a tell of anything. */
	ck_assert_uint_eq(fn.facts & RG_PCI_FACT_CONFIG_UNREADABLE, RG_PCI_FACT_CONFIG_UNREADABLE);
	ck_assert_uint_eq(fn.facts & RG_PCI_FACT_CAPS_MALFORMED, 0);
	root_done(&root);
}
END_TEST

/* ---- the baseline ---- */

static char *baseline_text(const struct hw_scan *s)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(hw_baseline_write(s, "seat-01", f), 0);
	fclose(f);
	return text;
}

struct diffs {
	unsigned n;
	char line[8][300];
};

static int collect_diff(const struct rg_event *ev, void *userdata)
{
	struct diffs *d = userdata;

	ck_assert_uint_eq(ev->type, RG_EV_HW_BASELINE);
	ck_assert_uint_lt(d->n, 8);
	snprintf(d->line[d->n++], 300, "%s %s %s | %s", ev->u.pci.addr,
		 hw_change_to_string(ev->u.pci.change), ev->u.pci.text, ev->u.pci.vendor_name);
	return 0;
}

START_TEST(test_baseline)
{
	_cleanup_(hw_scan_freep) struct hw_scan *s = scan_scratch();
	_cleanup_free_ char *text = baseline_text(s);
	struct hw_baseline *b = NULL;
	struct rg_error err;
	struct diffs d = {0};
	struct hw_fn fn;
	char buf[1200], diff[256];

	ck_assert_msg(hw_baseline_parse("b.json", text, strlen(text), &b, &err) == 0, "%s",
		      rg_error_format(&err, buf, sizeof(buf)));
	ck_assert_uint_eq(hw_baseline_size(b), 6);
	ck_assert_ptr_nonnull(strstr(text, "\"capabilities\": \"0x01@0x40 0x10@0x50\""));
	ck_assert_ptr_nonnull(strstr(text, "\"dsn\": \"00-11-22-33-44-55-66-77\""));
	ck_assert_ptr_nonnull(strstr(text, "\"link\": \"8000x4\""));
	for (unsigned i = 0; i < s->n; i++)
		ck_assert_uint_eq(hw_baseline_check(b, &s->fn[i], diff, sizeof(diff)), RG_HW_NONE);
	ck_assert_int_eq(hw_baseline_compare(b, s, 0, collect_diff, &d), 0);
	ck_assert_uint_eq(d.n, 0);

	/* A clone of the NIC: its IDs right, its layout and serial number not. The command
	 * register and the negotiated link are volatile and not compared. */
	fn = *fn_at(s, "0000:01:00.0");
	fn.n_caps = 1;
	fn.dsn = 0x0102030405060708ull;
	fn.command = 0;
	fn.link.speed = 2500;
	fn.bars[0].size = 4096;
	ck_assert_uint_eq(hw_baseline_check(b, &fn, diff, sizeof(diff)), RG_HW_CHANGED);
	ck_assert_str_eq(diff, "capabilities 0x01@0x40 0x10@0x50 -> 0x01@0x40; "
			       "dsn 00-11-22-33-44-55-66-77 -> 01-02-03-04-05-06-07-08; "
			       "bar_sizes 0 0 0 0 0 0 -> 4096 0 0 0 0 0");
	memcpy(fn.addr, "0000:07:00.0", 13);
	ck_assert_uint_eq(hw_baseline_check(b, &fn, diff, sizeof(diff)), RG_HW_ADDED);
	ck_assert_str_eq(diff, "not in the baseline");

	/* what hardware enforcement leaves alone: the same function, with or without its driver */
	fn = *fn_at(s, "0000:01:00.0");
	ck_assert(hw_baseline_covers(b, &fn, true));
	ck_assert(hw_baseline_covers(b, &fn, false));
	fn.command = 0; /* volatile */
	ck_assert(hw_baseline_covers(b, &fn, true));
	snprintf(fn.driver, sizeof(fn.driver), "%s", fn.driver[0] ? "" : "mlx5_core");
	ck_assert(!hw_baseline_covers(b, &fn, true));
	ck_assert(hw_baseline_covers(b, &fn, false));
	fn.dsn ^= 1; /* another serial number: another card, whatever the driver */
	ck_assert(!hw_baseline_covers(b, &fn, false));
	fn = *fn_at(s, "0000:01:00.0");
	memcpy(fn.addr, "0000:07:00.0", 13);
	ck_assert(!hw_baseline_covers(b, &fn, false));
	ck_assert(!hw_baseline_covers(NULL, fn_at(s, "0000:01:00.0"), false));
	/* the exemption compares the driver: driverless where the baseline has a driver is a
	 * clone's state (or a probe to come: the caller decides), another driver is not the seat's
	 * own; a driver where the baseline has none is (installed since) */
	{
		unsigned with = 0, without = 0;

		for (unsigned i = 0; i < s->n; i++) {
			fn = s->fn[i];
			ck_assert_uint_eq(hw_baseline_exempt(b, &fn), HW_BL_COVERED);
			if (fn.driver[0]) {
				with++;
				fn.driver[0] = 0;
				ck_assert_uint_eq(hw_baseline_exempt(b, &fn), HW_BL_DRIVERLESS);
				strcpy(fn.driver, "vfio-pci");
				ck_assert_uint_eq(hw_baseline_exempt(b, &fn), HW_BL_NOT);
			} else {
				without++;
				strcpy(fn.driver, "vfio-pci");
				ck_assert_uint_eq(hw_baseline_exempt(b, &fn), HW_BL_COVERED);
			}
			fn.driver[0] = 0;
			fn.device ^= 1;
			ck_assert_uint_eq(hw_baseline_exempt(b, &fn), HW_BL_NOT);
		}
		ck_assert_uint_gt(with, 0);
		ck_assert_uint_gt(without, 0);
		ck_assert_uint_eq(hw_baseline_exempt(NULL, &s->fn[0]), HW_BL_NOT);
	}

	/* The card gone, a function changed: one event each, the removed one last. */
	ck_assert_str_eq(s->fn[4].addr, "0000:01:00.0");
	ck_assert_str_eq(s->fn[5].addr, "0000:02:00.0");
	s->fn[4].device = 0x15f2;
	s->n--; /* drops 0000:02:00.0, the last in address order */
	ck_assert_int_eq(hw_baseline_compare(b, s, 0, collect_diff, &d), 0);
	ck_assert_uint_eq(d.n, 2);
	ck_assert_str_eq(d.line[0],
			 "0000:01:00.0 changed device_id 0x15f3 -> 0x15f2 | Intel Corporation");
	/* a function no longer on the bus: named from the baseline's IDs */
	ck_assert_str_eq(d.line[1],
			 "0000:02:00.0 removed not on this machine | Xilinx Corporation");
	hw_baseline_free(b);
}
END_TEST

static void baseline_error(const char *text, const char *want)
{
	struct hw_baseline *b = NULL;
	struct rg_error err;
	char buf[1200];

	ck_assert_int_eq(hw_baseline_parse("b.json", text, strlen(text), &b, &err), -EINVAL);
	ck_assert_str_eq(rg_error_format(&err, buf, sizeof(buf)), want);
	ck_assert_ptr_null(b);
}

#define HEAD "{\"version\": 1, \"kind\": \"rdmaguard-seat-baseline\", \"functions\": [\n"
#define FN                                                                                         \
	"{\"address\": \"0000:00:1f.6\", \"vendor_id\": \"0x8086\", \"device_id\": \"0x15bc\", "   \
	"\"subsystem_vendor_id\": \"0x0000\", \"subsystem_device_id\": \"0x0000\", "               \
	"\"class\": \"0x020000\", \"revision\": \"0x10\", \"header_type\": \"0x00\", "             \
	"\"capabilities\": \"none\", \"extended_capabilities\": \"none\", \"dsn\": \"none\", "     \
	"\"bar_sizes\": \"0 0 0 0 0 0\", \"rom_size\": \"0\", \"link\": \"none\", \"driver\": "    \
	"\"e1000e\""

START_TEST(test_baseline_errors)
{
	struct hw_baseline *b = NULL;
	struct rg_error err;

	ck_assert_int_eq(
	    hw_baseline_parse("b.json", HEAD FN "}]}", strlen(HEAD FN "}]}"), &b, &err), 0);
	hw_baseline_free(b);
	baseline_error("{\"version\": 2}", "b.json:1:13: a baseline needs \"version\": 1");
	baseline_error("{\"version\": 1, \"kind\": \"policy\"}",
		       "b.json:1:24: \"kind\" must be \"rdmaguard-seat-baseline\", not \"policy\"");
	baseline_error(
	    HEAD FN ", \"vendorid\": \"0x8086\"}]}",
	    "b.json:2:358: unknown key \"vendorid\" in a baseline function (did you mean "
	    "\"vendor_id\"?)");
	baseline_error(
	    HEAD "{\"address\": \"0000:00:1f.6\", \"vendor_id\": \"0x80861\"}]}",
	    "b.json:2:42: \"vendor_id\": \"0x80861\" is not a value `baseline save` writes");
	baseline_error(HEAD "{\"address\": \"00:1f.6\"}]}",
		       "b.json:2:13: \"address\" must be a PCI address (\"0000:05:00.0\"), not "
		       "\"00:1f.6\"");
	baseline_error(HEAD FN "},\n" FN "}]}", "b.json:3:13: function 0000:00:1f.6 listed twice");
	baseline_error(HEAD "{\"address\": \"0000:00:1f.6\"}]}",
		       "b.json:2:1: missing required key \"vendor_id\"");
}
END_TEST

/* ---- the policy's hardware allowlist ---- */

static struct rg_policy *policy(const char *text)
{
	struct rg_policy *p = NULL;
	struct rg_error err;
	char buf[1200];

	ck_assert_msg(policy_parse("/etc/rg/p.json", text, strlen(text), &p, &err) == 0, "%s",
		      rg_error_format(&err, buf, sizeof(buf)));
	return p;
}

static void policy_error(const char *text, const char *want)
{
	struct rg_policy *p = NULL;
	struct rg_error err;
	char buf[1200];

	ck_assert_int_eq(policy_parse("p.json", text, strlen(text), &p, &err), -EINVAL);
	ck_assert_str_eq(rg_error_format(&err, buf, sizeof(buf)), want);
}

START_TEST(test_allowlist)
{
	_cleanup_(hw_scan_freep) struct hw_scan *s = scan_scratch();
	struct rg_policy *p;
	const uint64_t t2026 = 1767225600ull * 1000000000ull; /* 2026-01-01 */

	p = policy("{\"hardware\": [{\"id\": \"10ee:*\", \"address\": \"0000:02:00.0\"},"
		   " {\"id\": \"8086:15f3\", \"expires\": \"2025-12-31\"},"
		   " {\"dsn\": \"00-11-22-33-44-55-66-77\", \"subsystem\": \"1234:0001\"}],"
		   " \"baseline\": \"seat.json\"}");
	ck_assert_str_eq(p->baseline, "/etc/rg/seat.json");
	ck_assert_uint_eq(p->n_hardware, 3);
	ck_assert(hw_allowed(p, fn_at(s, "0000:02:00.0"), t2026));
	/* expired at the end of 2025-12-31 */
	ck_assert(!hw_allowed(p, fn_at(s, "0000:01:00.0"), t2026));
	ck_assert(hw_allowed(p, fn_at(s, "0000:01:00.0"), t2026 - 3600ull * 1000000000ull));
	/* the DSN matches, the subsystem does not */
	ck_assert(!hw_allowed(p, fn_at(s, "0000:00:1c.0"), t2026));
	ck_assert(!hw_allowed(NULL, fn_at(s, "0000:02:00.0"), t2026));
	policy_free(p);

	policy_error("{\"hardware\": [{\"comment\": \"all\"}]}",
		     "p.json:1:15: a hardware entry must name \"id\", \"address\" or \"dsn\"");
	policy_error(
	    "{\"hardware\": [{\"id\": \"10ee\"}]}",
	    "p.json:1:22: \"id\" must be vendor:device in hex (\"15b3:1017\", \"10ee:*\"), "
	    "not \"10ee\"");
	policy_error("{\"hardware\": [{\"dsn\": \"00-11-22-33-44-55-66-7G\"}]}",
		     "p.json:1:23: \"dsn\" must be 8 lowercase hex bytes as lspci shows them "
		     "(\"00-11-22-33-44-55-66-77\"), not \"00-11-22-33-44-55-66-7G\"");
	policy_error("{\"hardware\": [{\"address\": \"0000:00:20.0\"}]}",
		     "p.json:1:27: \"address\" must be a PCI address (\"0000:05:00.0\"), not "
		     "\"0000:00:20.0\"");
	policy_error("{\"hardware\": [{\"id\": \"10ee:0666\", \"vendor\": 1}]}",
		     "p.json:1:35: unknown key \"vendor\" in a hardware entry");
	policy_error("{\"hardware\": {}}",
		     "p.json:1:14: \"hardware\" must be an array of entries, not an object");
	policy_error("{\"baseline\": \"\"}", "p.json:1:14: \"baseline\" must not be empty");
}
END_TEST

/* "hardware_refuse_drivers": true (the built-in list), false, names; bad names at their place */
START_TEST(test_refuse_drivers)
{
	struct rg_policy *p;
	bool mlx5 = false;

	p = policy("{\"hardware_refuse_drivers\": true}");
	ck_assert_uint_ge(p->n_refuse_drivers, 10);
	for (size_t i = 0; i < p->n_refuse_drivers; i++)
		mlx5 |= strcmp(p->refuse_drivers[i], "mlx5_core") == 0;
	ck_assert(mlx5);
	policy_free(p);
	p = policy("{\"hardware_refuse_drivers\": false}");
	ck_assert_uint_eq(p->n_refuse_drivers, 0);
	policy_free(p);
	p = policy("{}");
	ck_assert_uint_eq(p->n_refuse_drivers, 0);
	policy_free(p);
	p = policy("{\"hardware_refuse_drivers\": [\"e1000e\", \"vmw_pvrdma\", \"be2net\"]}");
	ck_assert_uint_eq(p->n_refuse_drivers, 3);
	ck_assert_str_eq(p->refuse_drivers[0], "e1000e");
	ck_assert_str_eq(p->refuse_drivers[2], "be2net");
	policy_free(p);
	p = policy("{\"hardware_refuse_drivers\": \"mlx5_core\"}");
	ck_assert_uint_eq(p->n_refuse_drivers, 1);
	policy_free(p);

	policy_error("{\"hardware_refuse_drivers\": [\"e1000e\", \"../../x\"]}",
		     "p.json:1:40: \"hardware_refuse_drivers\": \"../../x\" is not a driver name (1 "
		     "to 31 letters, digits, '_' or '-', as under /sys/bus/pci/drivers)");
	policy_error("{\"hardware_refuse_drivers\": \"a/b\"}",
		     "p.json:1:29: \"hardware_refuse_drivers\": \"a/b\" is not a driver name (1 "
		     "to 31 letters, digits, '_' or '-', as under /sys/bus/pci/drivers)");
	policy_error("{\"hardware_refuse_drivers\": [\"abcdefghijklmnopqrstuvwxyz0123456\"]}",
		     "p.json:1:30: \"hardware_refuse_drivers\": \"abcdefghijklmnopqrstuvwxyz0123456\" "
		     "is not a driver name (1 to 31 letters, digits, '_' or '-', as under "
		     "/sys/bus/pci/drivers)");
	policy_error("{\"hardware_refuse_drivers\": 1}",
		     "p.json:1:29: \"hardware_refuse_drivers\" must be true, false or an array of "
		     "driver names, not a number");
	policy_error("{\"hardware_refuse_drivers\": []}",
		     "p.json:1:29: \"hardware_refuse_drivers\" must not be an empty array");
	policy_error("{\"hardware_refuse_driver\": true}",
		     "p.json:1:2: unknown key \"hardware_refuse_driver\" in the policy (did you mean "
		     "\"hardware_refuse_drivers\"?)");
}
END_TEST

/* "hardware_enforce_port" and "require_iommu" */
START_TEST(test_port_and_require_keys)
{
	struct rg_policy *p = policy("{\"hardware_enforce_port\": \"link\", \"require_iommu\": true}");

	ck_assert_int_eq(p->hw_enforce_port, RG_HW_PORT_LINK);
	ck_assert(p->require_iommu);
	policy_free(p);
	p = policy("{\"hardware_enforce_port\": \"bus_master\"}");
	ck_assert_int_eq(p->hw_enforce_port, RG_HW_PORT_BUS_MASTER);
	ck_assert(!p->require_iommu);
	policy_free(p);
	p = policy("{}");
	ck_assert_int_eq(p->hw_enforce_port, RG_HW_PORT_OFF);
	policy_free(p);
	policy_error("{\"hardware_enforce_port\": \"unplug\"}",
		     "p.json:1:27: unknown hardware_enforce_port \"unplug\" (off, bus_master or link)");
	policy_error("{\"require_iommu\": 1}", "p.json:1:19: \"require_iommu\" must be true or false, not a number");
}
END_TEST

START_TEST(test_cmdline)
{
	/* one option each, read as the kernel reads them: comma lists, prefixes (strncmp), '-' for
	 * '_' in names, kstrtobool() values */
	static const char *const weak[] = {
	    "iommu=pt",		    "iommu=off",	     "iommu=soft",
	    "iommu=force,pt",	    "iommu=nomerge,pt,force", "iommu=ptx",
	    "intel_iommu=off",	    "intel_iommu=on,off",    "intel_iommu=offx",
	    "intel-iommu=off",	    "intel_iommu=igfx_off,off", "intel_iommu=tboot_noforce",
	    "amd_iommu=off",	    "amd_iommu=fullflush,off", "iommu.passthrough=1",
	    "iommu.passthrough=y",  "iommu.passthrough=on",  "iommu.passthrough=true",
	    "iommu.passthrough=Yes", "amd-iommu=off",  "intremap=off",
	    "efi=debug,no_disable_early_pci_dma", "iommu=\"pt\"", "\"iommu=pt\"",
	};
	static const char *const fine[] = {
	    "intel_iommu=on",	     "intel_iommu=on,igfx_off", "iommu=force",
	    "iommu.strict=1",	     "amd_iommu=on",	       "iommu.passthrough=0",
	    "iommu.passthrough=off", "iommu.passthrough=n",    "iommu.passthrough=false",
	    "iommu.passthrough=x",   "iommu.passthrough",      "iommu",
	    "xiommu=pt",	     "iommu.passthroughx=1",   "efi=no_disable_early_pci_dmax",
	    "intel_iommu=o",	     "intremap=nosid",	       "",
	};
	/* whole lines: the last word wins, init's part does not count */
	static const struct {
		const char *line, *weakening;
	} lines[] = {
	    {"BOOT_IMAGE=/vmlinuz ro quiet iommu=pt", "iommu=pt"},
	    {"iommu=pt iommu=nopt", ""},
	    {"iommu=pt,nopt", ""},
	    {"iommu.passthrough=1 iommu.passthrough=0", ""},
	    {"iommu.passthrough=0 iommu=pt", "iommu=pt"},
	    {"intel_iommu=off intel_iommu=on", ""},
	    {"intel_iommu=on\tiommu=force,pt  intremap=off", "iommu=force,pt intremap=off"},
	    {"ro -- iommu=pt", ""},
	    {"init=\"/bin/sh -- x\" iommu=pt", "iommu=pt"},
	    {"a=\"iommu=pt\"", ""},
	    {"intel_iommu=off iommu=pt amd_iommu=off", "intel_iommu=off iommu=pt amd_iommu=off"},
	};
	struct hw_cmdline c;

	for (size_t i = 0; i < sizeof(weak) / sizeof(weak[0]); i++)
		ck_assert_msg(hw_cmdline_weakens(weak[i]), "%s", weak[i]);
	for (size_t i = 0; i < sizeof(fine) / sizeof(fine[0]); i++)
		ck_assert_msg(!hw_cmdline_weakens(fine[i]), "%s", fine[i]);
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		hw_cmdline_parse(lines[i].line, strlen(lines[i].line), &c);
		ck_assert_msg(strcmp(c.weakening, lines[i].weakening) == 0, "%s: \"%s\"",
			      lines[i].line, c.weakening);
		ck_assert(hw_cmdline_weakened(&c) == (lines[i].weakening[0] != 0));
	}
	hw_cmdline_parse("iommu=pt", 8, &c);
	ck_assert(c.passthrough && !c.no_iommu && !c.intel_off);
	/* a NUL ends the line; bytes outside ASCII are shown as '?' */
	hw_cmdline_parse("iommu=pt\0intel_iommu=off", 24, &c);
	ck_assert(!c.intel_off);
	hw_cmdline_parse("iommu=pt,\x01\xff", 11, &c);
	ck_assert_str_eq(c.weakening, "iommu=pt,??");
}
END_TEST

/* The report's arguments come from the same parser as the posture: not init's, quoted ones too */
START_TEST(test_cmdline_report)
{
	static const char line[] = "ro intel_iommu=on \"iommu=pt\" vfio-pci.ids=10ee:0666 quiet "
				   "pci=noaer\x01 -- iommu=off thunderbolt.x=1";
	char report[sizeof(line)], tiny[12];
	struct hw_cmdline c;

	hw_cmdline_parse_report(line, strlen(line), &c, report, sizeof(report));
	ck_assert_str_eq(report, "intel_iommu=on \"iommu=pt\" vfio-pci.ids=10ee:0666 pci=noaer?");
	ck_assert_str_eq(c.weakening, "\"iommu=pt\"");
	ck_assert(c.passthrough && !c.no_iommu);
	/* an argument that does not fit is left out, whole */
	hw_cmdline_parse_report(line, strlen(line), &c, tiny, sizeof(tiny));
	ck_assert_str_eq(tiny, "\"iommu=pt\"");
	ck_assert(hw_cmdline_relevant("nomodule", 8) && !hw_cmdline_relevant("quiet", 5));
}
END_TEST

__attribute__((format(printf, 1, 2))) static void sh(const char *fmt, ...);

/* ---- the posture: every Thunderbolt domain, group types from one look to the next ---- */

struct group_changes {
	char line[8][64];
	unsigned n;
};

static void group_changed(uint32_t id, const char *type, const char *previous, void *ud)
{
	struct group_changes *c = ud;

	ck_assert_uint_lt(c->n, 8);
	snprintf(c->line[c->n++], sizeof(c->line[0]), "%u %s <- %s", id, type, previous);
}

START_TEST(test_posture_domains_groups)
{
	char dir[] = "/tmp/rg-posture-XXXXXX";
	struct group_changes c = {0};
	struct hw_group_watch w = {0};
	struct hw_posture p;
	struct rg_root root;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	sh("cd %s && mkdir -p sys/class/iommu/dmar0 sys/kernel/iommu_groups/1 "
		 "sys/kernel/iommu_groups/2 sys/bus/thunderbolt/devices/domain0 "
		 "sys/bus/thunderbolt/devices/domain1 sys/bus/thunderbolt/devices/0-0 proc && "
		 "echo DMA-FQ >sys/kernel/iommu_groups/1/type && "
		 "echo DMA >sys/kernel/iommu_groups/2/type && "
		 "echo secure >sys/bus/thunderbolt/devices/domain0/security && "
		 "echo 1 >sys/bus/thunderbolt/devices/domain0/iommu_dma_protection && "
		 "echo none >sys/bus/thunderbolt/devices/domain1/security && "
		 "echo 0 >sys/bus/thunderbolt/devices/domain1/iommu_dma_protection && "
		 "echo 'ro iommu=force,pt' >proc/cmdline",
		 dir);
	ck_assert_int_eq(root_init(&root, dir), 0);
	ck_assert_int_eq(hw_posture_read(&root, &p), 0);
	ck_assert_uint_eq(p.units, 1);
	ck_assert_uint_eq(p.n_groups, 2);
	ck_assert_uint_eq(p.tb_domains, 2);
	ck_assert_str_eq(p.tb_security, "none");
	ck_assert_int_eq(p.tb_dma_protection, 0);
	ck_assert_str_eq(p.weakening, "iommu=force,pt");
	hw_posture_done(&p);

	ck_assert_int_eq(hw_groups_watch(&root, &w, group_changed, &c), 0);
	ck_assert_uint_eq(c.n, 0); /* the first look primes */
	sh("cd %s && echo identity >sys/kernel/iommu_groups/2/type && mkdir sys/kernel/iommu_groups/3 "
	   "sys/kernel/iommu_groups/4 && echo identity >sys/kernel/iommu_groups/3/type && "
	   "echo DMA >sys/kernel/iommu_groups/4/type",
	   dir);
	ck_assert_int_eq(hw_groups_watch(&root, &w, group_changed, &c), 0);
	ck_assert_uint_eq(c.n, 2);
	ck_assert_str_eq(c.line[0], "2 identity <- DMA");
	ck_assert_str_eq(c.line[1], "3 identity <- ");
	ck_assert_int_eq(hw_groups_watch(&root, &w, group_changed, &c), 0);
	ck_assert_uint_eq(c.n, 2);
	hw_groups_watch_done(&w);
	root_done(&root);
	sh("rm -rf %s", dir);
}
END_TEST

/* ---- scans off the event loop ---- */

static struct hw_scan *scan_at(const char *dir);

static struct hw_scan *scanner_wait(struct hw_scanner *sc, int *err)
{
	struct pollfd pfd = {.fd = hw_scanner_fd(sc), .events = POLLIN};

	ck_assert_int_eq(poll(&pfd, 1, 30000), 1);
	return hw_scanner_take(sc, err);
}

/* a scan on its own thread gives what hw_scan() gives; a request while one runs is one more scan
 * after it; a root that cannot be opened is an error, not a scan */
START_TEST(test_scanner)
{
	const char *fix = getenv("RG_FIXTURES");
	char dir[300];
	struct hw_scanner *sc = NULL;
	struct hw_scan *s, *direct;
	int err = 1, scans = 0;

	ck_assert_msg(fix != NULL, "RG_FIXTURES is not set (run through meson test)");
	snprintf(dir, sizeof(dir), "%s/roots/qemu-q35", fix);
	direct = scan_at(dir);
	ck_assert_int_eq(hw_scanner_new(dir, &sc), 0);
	ck_assert(!hw_scanner_busy(sc));
	ck_assert_int_eq(hw_scanner_request(sc), 0);
	ck_assert_int_eq(hw_scanner_request(sc), 0);
	do {
		s = scanner_wait(sc, &err);
		if (!s)
			continue;
		scans++;
		ck_assert_int_eq(err, 0);
		ck_assert_uint_eq(s->n, direct->n);
		ck_assert_str_eq(s->fn[0].addr, direct->fn[0].addr);
		hw_scan_free(s);
	} while (hw_scanner_busy(sc));
	ck_assert_int_ge(scans, 1);
	ck_assert_int_le(scans, 2);
	hw_scanner_free(sc);
	hw_scan_free(direct);

	ck_assert_int_eq(hw_scanner_new("/nonexistent/rg-root", &sc), 0);
	ck_assert_int_eq(hw_scanner_request(sc), 0);
	s = scanner_wait(sc, &err);
	ck_assert_ptr_null(s);
	ck_assert_int_lt(err, 0);
	while (hw_scanner_busy(sc))
		usleep(1000);
	hw_scanner_free(sc);
}
END_TEST

/* ---- the fingerprint digest of heartbeats ---- */

__attribute__((format(printf, 1, 2))) static void sh(const char *fmt, ...)
{
	char cmd[1200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	ck_assert_msg(system(cmd) == 0, "%s", cmd);
}

static struct hw_scan *scan_at(const char *dir)
{
	struct rg_root root;
	struct hw_scan *s = NULL;

	ck_assert_int_eq(root_init(&root, dir), 0);
	ck_assert_int_eq(hw_scan(&root, &s), 0);
	root_done(&root);
	ck_assert_str_eq(s->error, "");
	return s;
}

static void print_at(const char *dir, struct hw_print *p)
{
	_cleanup_(hw_scan_freep) struct hw_scan *s = scan_at(dir);

	ck_assert_int_eq(hw_print_from_scan(s, p), 0);
	ck_assert(p->valid);
}

/* q35's e1000e: its DSN (52-54-00-ff-ff-12-34-56, at 0x140) and its first BAR (128 KiB). */
#define Q35_NIC "sys/devices/pci0000:00/0000:00:03.0/0000:01:00.0"

START_TEST(test_fingerprint)
{
	const char *fix = getenv("RG_FIXTURES");
	char a[300], b[300], path[600], hex[65], *text = NULL;
	struct hw_print pa, pb;
	size_t len = 0;
	FILE *f;
	int fd;

	ck_assert_msg(fix != NULL, "RG_FIXTURES is not set (run through meson test)");
	/* Two copies of one seat under other host names; the second's function links made in
	 * reverse order. */
	snprintf(a, sizeof(a), "%s/seat-a", scratch);
	snprintf(b, sizeof(b), "%s/seat-b", scratch);
	sh("cp -a '%s/roots/qemu-q35' '%s' && cp -a '%s/roots/qemu-q35' '%s'", fix, a, fix, b);
	sh("mkdir -p '%s/etc' '%s/proc/sys/kernel' '%s/etc' '%s/proc/sys/kernel' && "
	   "echo seat-a > '%s/etc/hostname' && echo seat-a > '%s/proc/sys/kernel/hostname' && "
	   "echo seat-b > '%s/etc/hostname' && echo seat-b > '%s/proc/sys/kernel/hostname'",
	   a, a, b, b, a, a, b, b);
	sh("cd '%s/sys/bus/pci/devices' && for l in $(ls -r); do t=$(readlink \"$l\"); "
	   "rm \"$l\" && ln -s \"$t\" \"$l\"; done",
	   b);
	print_at(a, &pa);
	print_at(b, &pb);
	ck_assert_str_eq(pa.digest, pb.digest);
	ck_assert_uint_eq(pa.n_dsns, 1);
	ck_assert_uint_eq(pb.n_dsns, 1);
	ck_assert_str_eq(pa.dsn[0], "52-54-00-ff-ff-12-34-56");

	/* It is the digest of what `baseline save` writes, with the host name left empty; and a
	 * scan listed in another order gives the same. */
	{
		_cleanup_(hw_scan_freep) struct hw_scan *s = scan_at(b);
		struct hw_fn tmp;

		f = open_memstream(&text, &len);
		ck_assert_ptr_nonnull(f);
		ck_assert_int_eq(hw_baseline_write(s, "", f), 0);
		fclose(f);
		ck_assert_int_eq(sha256_mem(text, len, hex), 0);
		free(text);
		ck_assert_str_eq(hex, pb.digest);
		ck_assert_uint_ge(s->n, 2);
		for (unsigned i = 0; i < s->n / 2; i++) {
			tmp = s->fn[i];
			s->fn[i] = s->fn[s->n - 1 - i];
			s->fn[s->n - 1 - i] = tmp;
		}
		ck_assert_int_eq(hw_print_digest(s, hex), 0);
		ck_assert_str_eq(hex, pa.digest);
	}

	/* A BAR of another size (128 KiB -> 256 KiB) is another fingerprint. */
	sh("sed -i '1s/0x00000000fde5ffff/0x00000000fde7ffff/' '%s/" Q35_NIC "/resource'", b);
	print_at(b, &pb);
	ck_assert_str_ne(pa.digest, pb.digest);
	sh("cp '%s/" Q35_NIC "/resource' '%s/" Q35_NIC "/resource'", a, b);
	print_at(b, &pb);
	ck_assert_str_eq(pa.digest, pb.digest);

	/* So is another serial number, which pci.dsn[] then lists. */
	snprintf(path, sizeof(path), "%s/" Q35_NIC "/config", b);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(pwrite(fd, "\x57", 1, 0x144), 1);
	close(fd);
	print_at(b, &pb);
	ck_assert_str_ne(pa.digest, pb.digest);
	ck_assert_uint_eq(pb.n_dsns, 1);
	ck_assert_str_eq(pb.dsn[0], "52-54-00-ff-ff-12-34-57");

	/* The NIC and the card that cloned its serial number: the DSN once. */
	{
		_cleanup_(hw_scan_freep) struct hw_scan *s = scan_scratch();

		ck_assert_int_eq(hw_print_from_scan(s, &pa), 0);
		ck_assert_uint_eq(pa.n_dsns, 1);
		ck_assert_str_eq(pa.dsn[0], "00-11-22-33-44-55-66-77");
	}
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("hw");
	TCase *core = tcase_create("core"), *limits = tcase_create("limits"),
	      *errors = tcase_create("errors");

	tcase_add_checked_fixture(core, setup, teardown);
	tcase_add_test(core, test_caps_walk);
	tcase_add_test(core, test_scan_facts);
	tcase_add_test(core, test_describe_and_root);
	tcase_add_test(core, test_baseline);
	tcase_add_test(core, test_fingerprint);
	tcase_add_test(core, test_allowlist);
	tcase_add_test(core, test_refuse_drivers);
	tcase_add_test(core, test_port_and_require_keys);
	tcase_add_test(core, test_posture_domains_groups);
	tcase_add_test(core, test_scanner);
	tcase_add_test(core, test_cmdline);
	tcase_add_test(core, test_cmdline_report);
	tcase_add_test(limits, test_caps_malformed);
	tcase_add_test(limits, test_caps_limits);
	tcase_add_test(errors, test_baseline_errors);
	suite_add_tcase(s, core);
	suite_add_tcase(s, limits);
	suite_add_tcase(s, errors);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
