/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Masked DMA cards: the facts a card that imitates a real device still shows, on real config
 * spaces. Three public DMA-card firmware config spaces (tests/fixtures/pci-config/coe: a Ralink
 * RT5392 Wi-Fi clone, a C-Media CMI8738 sound clone, a Creative Sound Blaster Z clone) and qemu's
 * e1000e as captured in a guest (tests/fixtures/pci-config/q35) are put in a root built here,
 * with an excerpt of Debian 6.1's modules.alias; the scan's facts are checked one by one. Also
 * the modules.alias parser on hostile text, the copy-not-original rule for duplicate DSNs and a
 * config space that cannot be read.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hw/hw-internal.h"
#include "hw/irq_watch.h"
#include "hw/modalias.h"
#include "hw/pci.h"
#include "hw/pci_caps.h"
#include "hw_testutil.h"

static const char *fixtures(void)
{
	const char *f = getenv("RG_FIXTURES");

	ck_assert_ptr_nonnull(f);
	return f;
}

static void mkdirs(const char *path)
{
	char p[700];

	snprintf(p, sizeof(p), "%s", path);
	for (char *s = strchr(p + 1, '/'); s; s = strchr(s + 1, '/')) {
		*s = 0;
		(void)mkdir(p, 0755);
		*s = '/';
	}
	(void)mkdir(p, 0755);
}

static size_t read_whole(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "rb");
	size_t n;

	ck_assert_msg(f != NULL, "%s: %s", path, strerror(errno));
	n = fread(buf, 1, size - 1, f);
	fclose(f);
	buf[n] = 0;
	return n;
}

/*
 * A .coe file's config space: 32-bit hex words after "memory_initialization_vector=", ';' comments
 * skipped. Projects write them in two byte orders (lspci's, top byte first, or register values):
 * the one whose first word gives vendor:device is taken.
 */
static size_t load_coe(const char *name, uint16_t vendor, uint16_t device, uint8_t cfg[4096])
{
	static char text[65536];
	char path[512];
	const char *p;
	uint32_t words[1024];
	size_t n = 0;
	bool lspci_order;

	snprintf(path, sizeof(path), "%s/pci-config/coe/%s", fixtures(), name);
	read_whole(path, text, sizeof(text));
	p = strstr(text, "memory_initialization_vector=");
	ck_assert_ptr_nonnull(p);
	p += strlen("memory_initialization_vector=");
	while (*p && n < 1024) {
		char *end;
		unsigned long v;

		if (*p == ';' && p[1] != '\n' && p[1] != 0 && (p == text || p[-1] == '\n')) {
			p = strchr(p, '\n');
			if (!p)
				break;
			continue;
		}
		if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f') ||
		      (*p >= 'A' && *p <= 'F'))) {
			p++;
			continue;
		}
		v = strtoul(p, &end, 16);
		ck_assert_int_eq((int)(end - p), 8);
		words[n++] = (uint32_t)v;
		p = end;
	}
	ck_assert_uint_ge(n, 64);
	memset(cfg, 0, 4096);
	lspci_order = ((words[0] >> 16 & 0xff) << 8 | words[0] >> 24) == vendor;
	for (size_t i = 0; i < n; i++) {
		uint32_t w = words[i];

		if (lspci_order)
			w = __builtin_bswap32(w);
		cfg[i * 4] = w & 0xff;
		cfg[i * 4 + 1] = (w >> 8) & 0xff;
		cfg[i * 4 + 2] = (w >> 16) & 0xff;
		cfg[i * 4 + 3] = w >> 24;
	}
	ck_assert_uint_eq(cfg[0] | cfg[1] << 8, vendor);
	ck_assert_uint_eq(cfg[2] | cfg[3] << 8, device);
	return n * 4;
}

static size_t load_q35(const char *addr, uint8_t cfg[4096])
{
	char path[512];

	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "%s/pci-config/q35/%s/config", fixtures(), addr);
	f = fopen(path, "rb");
	ck_assert_msg(f != NULL, "%s: %s", path, strerror(errno));
	n = fread(cfg, 1, 4096, f);
	fclose(f);
	return n;
}

/* A function below the root port 0000:00:1c.0; driver NULL: none bound. */
static void function(const char *addr, const uint8_t *cfg, size_t len, const char *driver,
		     int group)
{
	char rel[400], target[400];

	snprintf(rel, sizeof(rel), "sys/devices/pci0000:00/0000:00:1c.0/%s/config", addr);
	writef(rel, cfg, len);
	snprintf(rel, sizeof(rel), "sys/bus/pci/devices/%s", addr);
	snprintf(target, sizeof(target), "../../../devices/pci0000:00/0000:00:1c.0/%s", addr);
	linkto(rel, target);
	if (driver) {
		snprintf(rel, sizeof(rel), "sys/devices/pci0000:00/0000:00:1c.0/%s/driver", addr);
		snprintf(target, sizeof(target), "../../../../bus/pci/drivers/%s", driver);
		linkto(rel, target);
	}
	snprintf(rel, sizeof(rel), "sys/devices/pci0000:00/0000:00:1c.0/%s/iommu_group", addr);
	snprintf(target, sizeof(target), "/sys/kernel/iommu_groups/%d", group);
	linkto(rel, target);
	snprintf(rel, sizeof(rel), "sys/kernel/iommu_groups/%d/type", group);
	writef(rel, "DMA-FQ\n", 7);
}

static uint64_t dsn_of(const uint8_t *cfg)
{
	struct hw_fn fn = {0};

	hw_caps_walk(cfg, 4096, &fn);
	ck_assert(fn.has_dsn);
	return fn.dsn;
}

static void build_root(bool with_alias)
{
	static uint8_t cfg[4096];
	char rel[300], text[200000];
	size_t len;

	strcpy(scratch, "/tmp/rg-hwmask-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(scratch));
	writef("sys/bus/pci/.keep", "", 0);
	snprintf(rel, sizeof(rel), "%s/sys/bus/pci/devices", scratch);
	mkdirs(rel);

	/* q35's root port, as captured. */
	len = load_q35("0000:00:03.0", cfg);
	writef("sys/devices/pci0000:00/0000:00:1c.0/config", cfg, len);
	linkto("sys/bus/pci/devices/0000:00:1c.0", "../../../devices/pci0000:00/0000:00:1c.0");
	linkto("sys/devices/pci0000:00/0000:00:1c.0/driver", "../../../bus/pci/drivers/pcieport");

	/* The machine's own NIC: e1000e bound, its netdev up (q35's capture: DSN
	 * 52-54-00-ff-ff-12-34-56 at 0x140). */
	len = load_q35("0000:01:00.0", cfg);
	ck_assert_uint_eq(len, 4096);
	function("0000:01:00.0", cfg, len, "e1000e", 2);
	writef("sys/devices/pci0000:00/0000:00:1c.0/0000:01:00.0/net/eth0/operstate", "up\n", 3);
	/* The same bytes, driverless, elsewhere: the copy of the NIC, with its DSN. */
	function("0000:05:00.0", cfg, len, NULL, 7);

	len = load_coe("ralink-rt5392.coe", 0x1814, 0x5392, cfg);
	function("0000:02:00.0", cfg, len, NULL, 3);
	len = load_coe("cmedia-cmi8738.coe", 0x13f6, 0x0111, cfg);
	function("0000:03:00.0", cfg, len, NULL, 4);
	/* The kernel allocated it a vector: only a driver does that. */
	writef("sys/devices/pci0000:00/0000:00:1c.0/0000:03:00.0/msi_irqs/37", "msi\n", 4);
	len = load_coe("creative-soundblaster-z.coe", 0x1102, 0x0012, cfg);
	function("0000:04:00.0", cfg, len, NULL, 5);
	/* A function whose config space cannot be read. */
	function("0000:06:00.0", cfg, 0, NULL, 6);

	writef("proc/sys/kernel/osrelease", "6.1.0-57-amd64\n", 15);
	if (with_alias) {
		char path[512];

		snprintf(path, sizeof(path), "%s/pci-config/modules.alias", fixtures());
		len = read_whole(path, text, sizeof(text));
		writef("lib/modules/6.1.0-57-amd64/modules.alias", text, len);
	}
}

static struct hw_scan *scan_root(void)
{
	struct hw_scan *s = scan_scratch();

	ck_assert_uint_eq(s->n, 7);
	return s;
}

#define MASKED_FACTS                                                                               \
	(RG_PCI_FACT_DRIVER_AVAILABLE | RG_PCI_FACT_IRQ_NO_DRIVER | RG_PCI_FACT_FPGA_LINK |        \
	 RG_PCI_FACT_DSN_ZERO | RG_PCI_FACT_IMITATED_NO_DRIVER | RG_PCI_FACT_CONFIG_UNREADABLE |   \
	 RG_PCI_FACT_DSN_DUPLICATE)

/* The Wi-Fi clone: the kernel has rt2800pci for 1814:5392; MSI is enabled in its shadow config
 * with no driver; its link capabilities are the donor's (no Xilinx fingerprint). */
START_TEST(test_rt5392_clone)
{
	_cleanup_(hw_scan_freep) struct hw_scan *s = NULL;
	const struct hw_fn *fn;
	struct rg_event ev;

	build_root(true);
	s = scan_root();
	fn = fn_at(s, "0000:02:00.0");
	ck_assert_uint_eq(fn->class_code, 0x028000);
	ck_assert(fn->msi_enabled);
	ck_assert_int_eq(fn->aspm, 3);
	ck_assert_int_eq(fn->l0s_exit, 3);
	ck_assert_int_eq(fn->l1_exit, 6);
	ck_assert_str_eq(fn->driver_available, "rt2800pci");
	ck_assert_uint_eq(fn->facts & MASKED_FACTS, RG_PCI_FACT_DRIVER_AVAILABLE |
							RG_PCI_FACT_IRQ_NO_DRIVER |
							RG_PCI_FACT_IMITATED_NO_DRIVER);
	ck_assert(fn->facts & RG_PCI_FACT_BUS_MASTER_NO_DRIVER);
	/* Named on the event. */
	hw_fn_to_event(fn, RG_EV_PCI_FUNCTION, RG_PROV_INVENTORY, 0, &ev);
	ck_assert_str_eq(ev.u.pci.driver_available, "rt2800pci");
	ck_assert_str_eq(ev.u.pci.driver_state, "no driver");
	ck_assert(ev.u.pci.facts & RG_PCI_FACT_DRIVER_AVAILABLE);
	ck_assert(ev.u.pci.vendor_name[0] && ev.u.pci.device_name[0]);
	teardown();
}
END_TEST

/* The CMI8738 clone: a conventional PCI sound card, INTx only (routing by the firmware is not
 * a driver's set-up), but the kernel gave it an MSI vector with no driver: the kernel's record,
 * not the card's. snd_cmipci claims its ID. */
START_TEST(test_cmi8738_clone)
{
	_cleanup_(hw_scan_freep) struct hw_scan *s = NULL;
	const struct hw_fn *fn;

	build_root(true);
	s = scan_root();
	fn = fn_at(s, "0000:03:00.0");
	ck_assert(!fn->pcie);
	ck_assert_uint_eq(fn->int_pin, 1);
	ck_assert(!fn->msi_enabled && !fn->msix_enabled);
	ck_assert_uint_eq(fn->msi_vectors, 1);
	ck_assert_str_eq(fn->driver_available, "snd_cmipci");
	ck_assert_uint_eq(fn->facts & MASKED_FACTS, RG_PCI_FACT_DRIVER_AVAILABLE |
							RG_PCI_FACT_IRQ_NO_DRIVER |
							RG_PCI_FACT_IMITATED_NO_DRIVER);
	teardown();
}
END_TEST

/* The Sound Blaster Z clone: an all-zero DSN where Creative's card carries one; snd_hda_intel
 * claims 1102:0012. MSI is present but off, INTx pin A. */
START_TEST(test_soundblaster_clone)
{
	_cleanup_(hw_scan_freep) struct hw_scan *s = NULL;
	const struct hw_fn *fn;

	build_root(true);
	s = scan_root();
	fn = fn_at(s, "0000:04:00.0");
	ck_assert(fn->has_dsn);
	ck_assert_uint_eq(fn->dsn, 0);
	ck_assert(!fn->msi_enabled);
	ck_assert_str_eq(fn->driver_available, "snd_hda_intel");
	ck_assert_uint_eq(fn->facts & MASKED_FACTS, RG_PCI_FACT_DRIVER_AVAILABLE |
							RG_PCI_FACT_DSN_ZERO |
							RG_PCI_FACT_IMITATED_NO_DRIVER);
	teardown();
}
END_TEST

/* Without the kernel's modules.alias (another kernel, an image without /lib/modules) nothing
 * is claimed: the fact says what the kernel has, never a guess. */
START_TEST(test_no_modules_alias)
{
	_cleanup_(hw_scan_freep) struct hw_scan *s = NULL;

	build_root(false);
	s = scan_root();
	for (unsigned i = 0; i < s->n; i++) {
		ck_assert_str_eq(s->fn[i].driver_available, "");
		ck_assert_uint_eq(s->fn[i].facts & RG_PCI_FACT_DRIVER_AVAILABLE, 0);
	}
	teardown();
}
END_TEST

/* Two devices with e1000e's config space and DSN: the copy (no driver) is accused and names the
 * original (e1000e bound, eth0 on it); the original is not accused. A config space that cannot
 * be read is "could not be examined", not malformed. */
START_TEST(test_dsn_copy_and_unreadable)
{
	_cleanup_(hw_scan_freep) struct hw_scan *s = NULL;
	static uint8_t cfg[4096];
	const struct hw_fn *orig, *copy, *gone;
	struct rg_event ev;

	build_root(true);
	s = scan_root();
	orig = fn_at(s, "0000:01:00.0");
	copy = fn_at(s, "0000:05:00.0");
	load_q35("0000:01:00.0", cfg);
	ck_assert_uint_eq(orig->dsn, dsn_of(cfg));
	ck_assert(orig->has_netdev);
	ck_assert_uint_eq(orig->facts & RG_PCI_FACT_DSN_DUPLICATE, 0);
	ck_assert_str_eq(orig->dsn_original, "");
	ck_assert_uint_eq(copy->facts & RG_PCI_FACT_DSN_DUPLICATE, RG_PCI_FACT_DSN_DUPLICATE);
	ck_assert_str_eq(copy->dsn_original, "0000:01:00.0");
	ck_assert_str_eq(copy->driver_available, "e1000e");
	hw_fn_to_event(copy, RG_EV_PCI_FUNCTION, RG_PROV_INVENTORY, 0, &ev);
	ck_assert_str_eq(ev.u.pci.dsn_original, "0000:01:00.0");
	hw_fn_to_event(orig, RG_EV_PCI_FUNCTION, RG_PROV_INVENTORY, 0, &ev);
	ck_assert_str_eq(ev.u.pci.driver_state, "driver e1000e");

	gone = fn_at(s, "0000:06:00.0");
	ck_assert_uint_eq(gone->facts &
			      (RG_PCI_FACT_CONFIG_UNREADABLE | RG_PCI_FACT_CAPS_MALFORMED |
			       RG_PCI_FACT_CAPS_ZERO | RG_PCI_FACT_HEADER_INVALID |
			       RG_PCI_FACT_NO_PM_CAP | RG_PCI_FACT_IMITATED_NO_DRIVER),
			  RG_PCI_FACT_CONFIG_UNREADABLE);
	ck_assert(strstr(gone->error, "config space unreadable") != NULL);
	/* An unknown vendor and device are named as lspci names them, never left empty. */
	hw_fn_to_event(gone, RG_EV_PCI_FUNCTION, RG_PROV_INVENTORY, 0, &ev);
	ck_assert_str_eq(ev.u.pci.vendor_name, "Vendor 0000");
	ck_assert_str_eq(ev.u.pci.iommu_type, "DMA-FQ");
	teardown();
}
END_TEST

/*
 * The Xilinx 7-series block's Link Capabilities (ASPM L0s, L0s and L1 exit latency 7) under
 * another's IDs. No published firmware's config file carries the hard block's own PCIe
 * capability, so the RT5392 clone's is patched to the core's defaults; and to what an honest
 * RTL8168 reports (L0s unlimited, L1 <64us), which a loose check takes for Xilinx.
 */
START_TEST(test_fpga_link)
{
	static uint8_t cfg[4096];
	struct hw_fn fn;
	size_t len = load_coe("ralink-rt5392.coe", 0x1814, 0x5392, cfg);
	uint32_t lcap = cfg[0x7c] | cfg[0x7d] << 8 | (uint32_t)cfg[0x7e] << 16;

	ck_assert_uint_eq(cfg[0x70], PCI_CAP_EXP);
	lcap &= ~(0xffu << 10);
	for (int round = 0; round < 2; round++) {
		uint32_t v = lcap | (round == 0 ? (1u << 10 | 7u << 12 | 7u << 15)
						: (3u << 10 | 7u << 12 | 6u << 15));
		struct hw_scan sc = {.fn = &fn, .n = 1};

		cfg[0x7c] = v & 0xff;
		cfg[0x7d] = (v >> 8) & 0xff;
		cfg[0x7e] = (v >> 16) & 0xff;
		memset(&fn, 0, sizeof(fn));
		snprintf(fn.addr, sizeof(fn.addr), "0000:02:00.0");
		fn.iommu_group = 1;
		hw_caps_walk(cfg, len, &fn);
		hw_facts_compute(&sc);
		ck_assert_uint_eq(!!(fn.facts & RG_PCI_FACT_FPGA_LINK), round == 0);
	}
}
END_TEST

/*
 * Not breathing, on this machine's real counters (tests/fixtures/pci-config/irq: /proc/interrupts
 * taken twice, 3 s apart, and each function's msi_irqs). The NIC 0000:00:03.0 (vectors 37-39)
 * has counted since boot: it breathes. A network function given the three vectors of
 * 0000:00:01.0 that never counted (28-30) is watched at the first check and reported at the
 * first check a window later, once; one whose link is down is not watched.
 */
static void irq_root(const char *interrupts)
{
	char path[512], text[16384];
	size_t len;

	snprintf(path, sizeof(path), "%s/pci-config/irq/%s", fixtures(), interrupts);
	len = read_whole(path, text, sizeof(text));
	writef("proc/interrupts", text, len);
}

static void irq_fn(const char *addr, const unsigned *irqs, unsigned n, const char *oper)
{
	static uint8_t cfg[4096];
	char rel[300];
	size_t len = load_q35("0000:01:00.0", cfg); /* an e1000e: class 0x020000 */

	function(addr, cfg, len, "e1000e", 9);
	for (unsigned i = 0; i < n; i++) {
		snprintf(rel, sizeof(rel), "sys/devices/pci0000:00/0000:00:1c.0/%s/msi_irqs/%u",
			 addr, irqs[i]);
		writef(rel, "msix\n", 5);
	}
	snprintf(rel, sizeof(rel), "sys/devices/pci0000:00/0000:00:1c.0/%s/net/eth%c/operstate",
		 addr, addr[6]);
	writef(rel, oper, strlen(oper));
}

static unsigned silent_reports;
static char silent_addr[16];

static void on_silent(const struct hw_fn *fn, void *ud)
{
	(void)ud;
	silent_reports++;
	snprintf(silent_addr, sizeof(silent_addr), "%s", fn->addr);
	ck_assert(fn->facts & RG_PCI_FACT_NOT_BREATHING);
}

START_TEST(test_not_breathing)
{
	static const unsigned nic[] = {37, 38, 39}, silent[] = {28, 29, 30};
	static struct hw_irq_watch w;
	struct hw_irq_sample smp;
	struct rg_root root;
	char path[512], text[16384];
	size_t len;

	snprintf(path, sizeof(path), "%s/pci-config/irq/interrupts.0", fixtures());
	len = read_whole(path, text, sizeof(text));
	ck_assert_uint_eq(hw_irq_count(text, len, nic, 3), 5095 + 4262);
	ck_assert_uint_eq(hw_irq_count(text, len, silent, 3), 0);

	strcpy(scratch, "/tmp/rg-hwirq-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(scratch));
	snprintf(path, sizeof(path), "%s/sys/bus/pci/devices", scratch);
	mkdirs(path);
	irq_fn("0000:01:00.0", nic, 3, "up\n");
	irq_fn("0000:02:00.0", silent, 3, "up\n");
	irq_fn("0000:03:00.0", silent, 3, "down\n");
	irq_root("interrupts.0");
	ck_assert_int_eq(root_init(&root, scratch), 0);
	ck_assert_int_eq(hw_irq_sample(&root, "0000:02:00.0", &smp), 0);
	ck_assert_uint_eq(smp.vectors, 3);
	ck_assert(smp.up);
	ck_assert_uint_eq(smp.count, 0);
	for (int round = 0; round < 4; round++) {
		_cleanup_(hw_scan_freep) struct hw_scan *s = NULL;

		irq_root(round % 2 ? "interrupts.1" : "interrupts.0");
		ck_assert_int_eq(hw_scan(&root, &s), 0);
		/* at 0 s, 300 s, 600 s, 900 s of a 600 s window */
		hw_irq_watch_check(&w, &root, s, 1000 + round * 300ull * 1000000000ull,
				   HW_IRQ_WINDOW_NS, on_silent, NULL);
		ck_assert_uint_eq(silent_reports, round >= 2 ? 1 : 0);
	}
	ck_assert_str_eq(silent_addr, "0000:02:00.0");
	root_done(&root);
	teardown();
}
END_TEST

/* The parser keeps well-formed PCI aliases only, whatever else the file holds. */
START_TEST(test_modalias_parse)
{
	static const char text[] =
	    "# Aliases extracted from modules themselves.\n"
	    "alias pci:v000010ECd00008168sv*sd*bc*sc*i* r8169\n"
	    "alias\tpci:v*d*sv*sd*bc01sc08i02*\tnvme  \n"
	    "alias usb:v0BDAp8153d*dc*dsc*dp*ic*isc*ip*in* r8152\n"
	    "alias pci:v00001814d00005392sv*sd*bc*sc*i*\n"		/* no module */
	    "alias pci:v00008086d*sv*sd*bc*sc*i* bad/module\n"		/* a path */
	    "alias pci:v00008086d*sv*sd*bc*sc*i* one two\n"		/* three words */
	    "alias pci:v00001102d00000012sv*sd*bc*sc*i* snd_hda_intel"; /* no newline at end */
	_cleanup_(hw_modalias_freep) struct hw_modalias *m = NULL;
	struct hw_fn fn = {0};
	char mod[32], alias[64];

	ck_assert_int_eq(hw_modalias_parse(text, sizeof(text) - 1, &m), 0);
	ck_assert_uint_eq(hw_modalias_size(m), 3);
	fn.vendor = 0x10ec;
	fn.device = 0x8168;
	fn.class_code = 0x020000;
	hw_modalias_of(&fn, alias);
	ck_assert_str_eq(alias, "pci:v000010ECd00008168sv00000000sd00000000bc02sc00i00");
	ck_assert(hw_modalias_lookup(m, &fn, mod, sizeof(mod)));
	ck_assert_str_eq(mod, "r8169");
	fn.vendor = 0x144d;
	fn.device = 0xa808;
	fn.class_code = 0x010802; /* any NVMe controller, by class */
	ck_assert(hw_modalias_lookup(m, &fn, mod, sizeof(mod)));
	ck_assert_str_eq(mod, "nvme");
	fn.class_code = 0x010601;
	ck_assert(!hw_modalias_lookup(m, &fn, mod, sizeof(mod)));
	ck_assert_str_eq(mod, "");
	fn.vendor = 0x1102;
	fn.device = 0x0012;
	ck_assert(hw_modalias_lookup(m, &fn, mod, sizeof(mod)));
	ck_assert_str_eq(mod, "snd_hda_intel");
	fn.vendor = 0x1814;
	fn.device = 0x5392;
	ck_assert(!hw_modalias_lookup(m, &fn, mod, sizeof(mod)));
}
END_TEST

/* Hostile text: NUL bytes, a line longer than any pattern, control bytes, an endless line.
 * Nothing is kept that is not an alias, nothing is read out of bounds (ASan runs this). */
START_TEST(test_modalias_hostile)
{
	size_t len = 1 << 20;
	char *text = malloc(len);
	_cleanup_(hw_modalias_freep) struct hw_modalias *m = NULL;
	struct hw_fn fn = {.vendor = 0x10ec, .device = 0x8168, .class_code = 0x020000};
	char mod[8];

	ck_assert_ptr_nonnull(text);
	memset(text, 'a', len);
	memcpy(text, "alias pci:v*d*sv*sd*bc*sc*i*\0x evil\n", 36);
	memcpy(text + 36, "alias pci:v\x01*d* m\n", 18);
	ck_assert_int_eq(hw_modalias_parse(text, len, &m), 0);
	ck_assert_uint_eq(hw_modalias_size(m), 0);
	hw_modalias_free(m);
	/* A module name longer than the buffer is cut, never overflows it. */
	snprintf(text, len, "alias pci:v000010ECd*sv*sd*bc*sc*i* a_rather_long_module_name\n");
	ck_assert_int_eq(hw_modalias_parse(text, strlen(text), &m), 0);
	ck_assert(hw_modalias_lookup(m, &fn, mod, sizeof(mod)));
	ck_assert_str_eq(mod, "a_rathe");
	free(text);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("hw_masked");
	TCase *real = tcase_create("real"), *parse = tcase_create("parse");

	tcase_add_test(real, test_rt5392_clone);
	tcase_add_test(real, test_cmi8738_clone);
	tcase_add_test(real, test_soundblaster_clone);
	tcase_add_test(real, test_no_modules_alias);
	tcase_add_test(real, test_dsn_copy_and_unreadable);
	tcase_add_test(real, test_fpga_link);
	tcase_add_test(real, test_not_breathing);
	tcase_add_test(parse, test_modalias_parse);
	tcase_add_test(parse, test_modalias_hostile);
	suite_add_tcase(s, real);
	suite_add_tcase(s, parse);
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
