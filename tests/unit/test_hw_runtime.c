/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The hardware layer's runtime parsers on fixture inputs: /dev/kmsg records (the kernel's, and
 * one a user forged), the kernel's DMA fault, AER and link lines (the VT-d ones as the VM lab's
 * q35 machine logged them), the burst aggregation, and PCI/Thunderbolt uevents, whose functions
 * are examined off the caller's thread.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/clock.h"
#include "hw/dma_fault.h"
#include "hw/hw_runtime.h"
#include "hw/hw_scanner.h"
#include "hw/hw_uevent.h"
#include "hw/kmsg.h"

#define REC(s) s, sizeof(s) - 1

/* from the VM lab (tests/vm/scenarios/hw-runtime.sh): qemu 7.2 q35, intel-iommu, edu */
#define VTD_READ                                                                                   \
	"3,612,13410547,-;DMAR: [DMA Read NO_PASID] Request device [01:00.0] fault addr 0x1000 "    \
	"[fault reason 0x06] PTE Read access is not set\n"
#define VTD_WRITE                                                                                  \
	"3,615,15184195,-;DMAR: [DMA Write NO_PASID] Request device [01:00.0] fault addr 0x40c8000 " \
	"[fault reason 0x05] PTE Write access is not set\n"

static int parse_line(const char *rec, size_t len, struct hw_kline *l)
{
	struct kmsg_record r;

	ck_assert_int_eq(kmsg_parse(rec, len, &r), 0);
	ck_assert(kmsg_from_kernel(&r));
	return hw_kline_parse(&r, l);
}

START_TEST(test_kmsg_record)
{
	struct kmsg_record r;
	static const char dev[] = "6,194,301254,-;acpi PNP0A08:00: PCIe port services disabled\n"
				  " SUBSYSTEM=acpi\n DEVICE=+acpi:PNP0A08:00\n";

	ck_assert_int_eq(kmsg_parse(REC(VTD_READ), &r), 0);
	ck_assert_uint_eq(r.facility, 0);
	ck_assert_uint_eq(r.level, 3);
	ck_assert_uint_eq(r.seq, 612);
	ck_assert_uint_eq(r.ts_us, 13410547);
	ck_assert(!r.cont);
	ck_assert_str_eq(r.text, "DMAR: [DMA Read NO_PASID] Request device [01:00.0] fault addr "
				 "0x1000 [fault reason 0x06] PTE Read access is not set");
	ck_assert_int_eq(kmsg_parse(REC(dev), &r), 0);
	ck_assert_uint_eq(r.level, 6);
	ck_assert_str_eq(r.subsystem, "acpi");
	ck_assert_str_eq(r.device, "+acpi:PNP0A08:00");
	ck_assert_str_eq(r.text, "acpi PNP0A08:00: PCIe port services disabled");
	ck_assert(r.has_dict);
	ck_assert_uint_eq(r.caller, 0);
	/* later kernels add fields after the flags ("caller" id) */
	ck_assert_int_eq(kmsg_parse(REC("4,7,8,c,T123;x\n"), &r), 0);
	ck_assert(r.cont);
	ck_assert_str_eq(r.text, "x");
	ck_assert_uint_eq(r.caller, 'T');
	ck_assert_uint_eq(r.caller_id, 123);
	ck_assert_int_eq(kmsg_parse(REC("3,7,8,-,caller=C3,x=y;x\n"), &r), 0);
	ck_assert_uint_eq(r.caller, 'C');
	ck_assert_uint_eq(r.caller_id, 3);
	ck_assert(!r.has_dict);
	ck_assert_int_eq(kmsg_parse(REC("3,7,8,-,caller=C3x;x\n"), &r), 0);
	ck_assert_uint_eq(r.caller, 0);
}
END_TEST

/* `echo '<3>DMAR: [DMA Read ...' > /dev/kmsg` by a user: the kernel gives it LOG_USER (pri 11,
 * or 8 + level), never facility 0 */
START_TEST(test_kmsg_forged_by_user)
{
	struct kmsg_record r;
	static const char forged[] =
	    "11,700,20000000,-;DMAR: [DMA Read NO_PASID] Request device [01:00.0] fault addr 0x1000 "
	    "[fault reason 0x06] PTE Read access is not set\n";
	static const char forged_fac[] = "83,701,20000001,-;DMAR: [DMA Read NO_PASID] Request "
					 "device [01:00.0] fault addr 0x1000 [fault reason 0x06] x\n";

	ck_assert_int_eq(kmsg_parse(REC(forged), &r), 0);
	ck_assert_uint_eq(r.facility, 1);
	ck_assert(!kmsg_from_kernel(&r));
	ck_assert_int_eq(kmsg_parse(REC(forged_fac), &r), 0);
	ck_assert_uint_eq(r.facility, 10);
	ck_assert(!kmsg_from_kernel(&r));
}
END_TEST

START_TEST(test_kmsg_malformed)
{
	struct kmsg_record r;
	static const char *const bad[] = {
	    "",	       ";x\n",	      "3;x\n",	     "3,1;x\n",	     "3,1,2;x\n",
	    "x,1,2,-;x", "3,1,2,;x",    "-3,1,2,-;x", "3,,2,-;x",	     "3,1,2,-",
	    "99999999999999999999999,1,2,-;x", "3,1,123456789012345678901,-;x",
	};
	char ctl[] = "3,1,2,-;a\001b\x7f\n";

	ck_assert_int_eq(kmsg_parse(NULL, 0, &r), -EINVAL);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(kmsg_parse(bad[i], strlen(bad[i]), &r) == -EINVAL, "accepted %s",
			      bad[i]);
	ck_assert_int_eq(kmsg_parse(ctl, strlen(ctl), &r), 0);
	ck_assert_str_eq(r.text, "a?b?");
}
END_TEST

START_TEST(test_vtd)
{
	struct hw_kline l;
	static const char old[] = "3,5,6,-;DMAR: [DMA Read] Request device [03:00.1] PASID ffffffff "
				  "fault addr 7fe000 [fault reason 06] PTE Read access is not set\n";
	static const char pasid[] = "3,5,6,-;DMAR: [DMA Write PASID 0x2] Request device [00:1f.7] "
				    "fault addr 0xdead000 [fault reason 0x05] PTE Write access is not "
				    "set\n";
	static const char intr[] = "3,5,6,-;DMAR: [INTR-REMAP] Request device [f0:1f.0] fault index "
				   "0x8 [fault reason 0x25] Blocked a compatibility format interrupt "
				   "request\n";

	ck_assert_int_eq(parse_line(REC(VTD_READ), &l), 1);
	ck_assert_uint_eq(l.kind, HW_KLINE_DMA_FAULT);
	ck_assert_str_eq(l.addr, "0000:01:00.0");
	ck_assert(l.has_fault_addr);
	ck_assert_uint_eq(l.fault_addr, 0x1000);
	ck_assert_str_eq(l.source, "vt-d");
	ck_assert_str_eq(l.reason, "DMA Read: [fault reason 0x06] PTE Read access is not set");
	ck_assert_int_eq(parse_line(REC(VTD_WRITE), &l), 1);
	ck_assert_uint_eq(l.fault_addr, 0x40c8000);
	ck_assert_str_eq(l.reason, "DMA Write: [fault reason 0x05] PTE Write access is not set");
	ck_assert_int_eq(parse_line(REC(old), &l), 1);
	ck_assert_str_eq(l.addr, "0000:03:00.1");
	ck_assert_uint_eq(l.fault_addr, 0x7fe000);
	ck_assert_str_eq(l.reason, "DMA Read: [fault reason 06] PTE Read access is not set");
	ck_assert_int_eq(parse_line(REC(pasid), &l), 1);
	ck_assert_str_eq(l.addr, "0000:00:1f.7");
	ck_assert_str_eq(l.reason, "DMA Write: [fault reason 0x05] PTE Write access is not set");
	ck_assert_int_eq(parse_line(REC(intr), &l), 1);
	ck_assert_str_eq(l.addr, "0000:f0:1f.0");
	ck_assert_uint_eq(l.fault_addr, 8);
	ck_assert_str_eq(l.kind == HW_KLINE_DMA_FAULT ? "ok" : "kind", "ok");
}
END_TEST

START_TEST(test_amd_aer_link)
{
	struct hw_kline l;
	static const char amd_dev[] = "3,9,10,-;pci 0000:05:00.0: AMD-Vi: Event logged "
				      "[IO_PAGE_FAULT domain=0x000b address=0xfffd0000 "
				      "flags=0x0020]\n SUBSYSTEM=pci\n DEVICE=+pci:0000:05:00.0\n";
	static const char amd_nodev[] = "3,9,10,-;AMD-Vi: Event logged [IO_PAGE_FAULT "
					"device=0001:06:00.2 domain=0x0000 address=0x1000 "
					"flags=0x0000]\n";
	static const char amd_old[] = "3,9,10,-;AMD-Vi: Event logged [IO_PAGE_FAULT device=06:00.2 "
				      "domain=0x0000 address=0x1000 flags=0x0000]\n";
	static const char aer[] = "3,9,10,-;pcieport 0000:00:03.0: AER: Uncorrected (Non-Fatal) "
				  "error received: 0000:01:00.0\n SUBSYSTEM=pci\n "
				  "DEVICE=+pci:0000:00:03.0\n";
	static const char link[] = "6,9,10,-;pcieport 0000:00:04.0: pciehp: Slot(2): Link Down\n";
	static const char card[] = "6,9,10,-;pcieport 0000:00:04.0: pciehp: Slot(2): Card present\n";

	ck_assert_int_eq(parse_line(REC(amd_dev), &l), 1);
	ck_assert_uint_eq(l.kind, HW_KLINE_DMA_FAULT);
	ck_assert_str_eq(l.addr, "0000:05:00.0");
	ck_assert_uint_eq(l.fault_addr, 0xfffd0000);
	ck_assert_str_eq(l.source, "amd-vi");
	ck_assert_str_eq(l.reason, "IO_PAGE_FAULT domain=0x000b address=0xfffd0000 flags=0x0020");
	ck_assert_int_eq(parse_line(REC(amd_nodev), &l), 1);
	ck_assert_str_eq(l.addr, "0001:06:00.2");
	ck_assert_int_eq(parse_line(REC(amd_old), &l), 1);
	ck_assert_str_eq(l.addr, "0000:06:00.2");
	ck_assert_int_eq(parse_line(REC(aer), &l), 1);
	ck_assert_uint_eq(l.kind, HW_KLINE_AER);
	ck_assert_str_eq(l.addr, "0000:01:00.0");
	ck_assert(!l.has_fault_addr);
	ck_assert_str_eq(l.reason, "AER: Uncorrected (Non-Fatal) error (reported by 0000:00:03.0)");
	ck_assert_int_eq(parse_line(REC(link), &l), 1);
	ck_assert_uint_eq(l.kind, HW_KLINE_LINK);
	ck_assert_str_eq(l.addr, "0000:00:04.0");
	ck_assert_str_eq(l.reason, "Slot(2): Link Down");
	ck_assert_int_eq(parse_line(REC(card), &l), 1);
	ck_assert_str_eq(l.reason, "Slot(2): Card present");
}
END_TEST

START_TEST(test_lines_not_ours)
{
	struct hw_kline l;
	static const char *const other[] = {
	    "6,1,2,-;DMAR: IOMMU enabled\n",
	    "6,1,2,-;DMAR: DRHD: handling fault status reg 2\n",
	    "3,1,2,-;DMAR: [DMA Read NO_PASID] Request device [1:00.0] fault addr 0x1000\n",
	    "3,1,2,-;DMAR: [DMA Read NO_PASID] Request device [01:20.0] fault addr 0x1000\n",
	    "3,1,2,-;DMAR: [DMA Read NO_PASID] Request device [01:00.8] fault addr 0x1000\n",
	    "3,1,2,-;xDMAR: [DMA Read NO_PASID] Request device [01:00.0] fault addr 0x1000\n",
	    "6,1,2,-;pcieport 0000:00:04.0: pciehp: Slot(2): Attention button pressed\n",
	    "6,1,2,-;pcieport 0000:00:04.0: AER: enabled with IRQ 24\n",
	    "6,1,2,-;pci 0000:02:00.0: [1234:11e8] type 00 class 0x00ff00\n",
	    "3,1,2,-;AMD-Vi: Event logged [IO_PAGE_FAULT domain=0x0000 address=0x1000]\n",
	};

	for (size_t i = 0; i < sizeof(other) / sizeof(other[0]); i++)
		ck_assert_msg(parse_line(other[i], strlen(other[i]), &l) == 0, "took %s", other[i]);
}
END_TEST

struct got {
	struct hw_burst_report r[64];
	unsigned n;
};

static void collect(const struct hw_burst_report *rep, void *ud)
{
	struct got *g = ud;

	ck_assert_uint_lt(g->n, 64);
	g->r[g->n++] = *rep;
}

static struct hw_kline fault(const char *addr, uint64_t at)
{
	struct hw_kline l = {.kind = HW_KLINE_DMA_FAULT, .has_fault_addr = true, .fault_addr = at};

	strcpy(l.addr, addr);
	strcpy(l.source, "vt-d");
	strcpy(l.reason, "DMA Read: [fault reason 0x06] PTE Read access is not set");
	return l;
}

START_TEST(test_bursts)
{
	static struct hw_bursts b;
	struct got g = {0};
	struct hw_kline l;
	char text[200];
	const uint64_t s = 1000000000ull;

	memset(&b, 0, sizeof(b));
	/* the first line is reported at once, the next 100 in one report at the window's end */
	l = fault("0000:01:00.0", 0x1000);
	hw_bursts_add(&b, &l, 1 * s, collect, &g);
	ck_assert_uint_eq(g.n, 1);
	ck_assert(g.r[0].first);
	ck_assert_uint_eq(g.r[0].count, 1);
	ck_assert_uint_eq(g.r[0].n_addrs, 1);
	for (unsigned i = 0; i < 100; i++) {
		l = fault("0000:01:00.0", 0x1000 + 0x1000 * (i % 20));
		hw_bursts_add(&b, &l, 2 * s, collect, &g);
	}
	hw_bursts_tick(&b, 10 * s, false, collect, &g);
	ck_assert_uint_eq(g.n, 1);
	hw_bursts_tick(&b, 11 * s, false, collect, &g);
	ck_assert_uint_eq(g.n, 2);
	ck_assert(!g.r[1].first);
	ck_assert_uint_eq(g.r[1].count, 100);
	ck_assert_uint_eq(g.r[1].n_addrs, HW_BURST_ADDRS);
	ck_assert_uint_eq(g.r[1].addrs[0], 0x1000);
	ck_assert_uint_eq(g.r[1].addrs[7], 0x8000);
	hw_burst_describe(&g.r[1], text, sizeof(text));
	ck_assert_str_eq(text, "DMA Read: [fault reason 0x06] PTE Read access is not set; 100 lines "
			       "at 0x1000 0x2000 0x3000 0x4000 0x5000 0x6000 0x7000 0x8000");
	/* a window with only its first line reports nothing more */
	l = fault("0000:01:00.0", 0x1000);
	hw_bursts_add(&b, &l, 20 * s, collect, &g);
	ck_assert_uint_eq(g.n, 3);
	hw_bursts_tick(&b, 40 * s, false, collect, &g);
	ck_assert_uint_eq(g.n, 3);
	/* another function and another kind are bursts of their own */
	l = fault("0000:02:00.0", 0x1000);
	hw_bursts_add(&b, &l, 50 * s, collect, &g);
	l.kind = HW_KLINE_AER;
	hw_bursts_add(&b, &l, 50 * s, collect, &g);
	ck_assert_uint_eq(g.n, 5);
	/* flush closes what is open */
	hw_bursts_add(&b, &l, 51 * s, collect, &g);
	hw_bursts_tick(&b, 51 * s, true, collect, &g);
	ck_assert_uint_eq(g.n, 6);
	ck_assert_uint_eq(g.r[5].kind, HW_KLINE_AER);
	ck_assert_uint_eq(g.r[5].count, 1);
	ck_assert_uint_eq(b.lines, 105);
	ck_assert_uint_eq(b.reports, 6);
	ck_assert_uint_eq(b.dropped, 0);
}
END_TEST

/* more functions at once than one source may hold: the rest are dropped and counted, memory
 * stays fixed, and the other sources (another IOMMU driver, AER, old records) still get theirs */
START_TEST(test_bursts_full)
{
	static struct hw_bursts b;
	struct got g = {0};
	struct hw_kline l;
	char addr[16];

	memset(&b, 0, sizeof(b));
	for (unsigned i = 0; i < HW_BURST_PER_SOURCE + 10; i++) {
		snprintf(addr, sizeof(addr), "0000:%02x:00.0", i);
		l = fault(addr, 0x1000);
		g.n = 0;
		hw_bursts_add(&b, &l, 1, collect, &g);
	}
	ck_assert_uint_eq(b.reports, HW_BURST_PER_SOURCE);
	ck_assert_uint_eq(b.dropped, 10);
	/* a function already in a burst is still counted */
	l = fault("0000:00:00.0", 0x2000);
	hw_bursts_add(&b, &l, 2, collect, &g);
	ck_assert_uint_eq(b.dropped, 10);
	/* old records of the same driver, and another source, have slots of their own */
	l = fault("0000:f0:00.0", 0x1000);
	l.historical = true;
	g.n = 0;
	hw_bursts_add(&b, &l, 2, collect, &g);
	ck_assert_uint_eq(g.n, 1);
	ck_assert(g.r[0].historical);
	l = fault("0000:f1:00.0", 0x1000);
	strcpy(l.source, "amd-vi");
	hw_bursts_add(&b, &l, 2, collect, &g);
	ck_assert_uint_eq(g.n, 2);
	ck_assert_uint_eq(b.dropped, 10);
	/* every slot taken, whatever the sources: dropped */
	for (unsigned i = 0; i < HW_BURST_SLOTS; i++) {
		snprintf(addr, sizeof(addr), "0000:%02x:01.0", i);
		l = fault(addr, 0x1000);
		snprintf(l.source, sizeof(l.source), "s%u", i);
		hw_bursts_add(&b, &l, 3, collect, &g);
	}
	ck_assert_uint_eq(b.dropped, 10 + HW_BURST_PER_SOURCE + 2);
}
END_TEST

/*
 * The kernel's log is not provenance: a program's name ends up in the segfault line (which the
 * kernel prints at level 6, from the task), and begins it. As Debian's 6.1 logged it for
 * programs named after a VT-d and an AMD-Vi fault line, and the same text at the drivers' level
 * 3, in interrupt context, with a dictionary: none of them is a fault.
 */
#define SEGV_VTD                                                                                   \
	"DMAR: [DMA Read[115]: segfault at 0 ip 000055e1d0a0113d sp 00007ffd4b1c9a30 error 4 in "   \
	"DMAR: [DMA Read NO_PASID] Request device [02:00.0] fault addr 0x1000[55e1d0a01000+1000] "  \
	"likely on CPU 0 (core 0, socket 0)"
#define SEGV_AMD                                                                                   \
	"AMD-Vi: Event l[2041]: segfault at 0 ip 00005581b7d4e13d sp 00007ffc0f7a9c10 error 4 in "  \
	"AMD-Vi: Event logged [IO_PAGE_FAULT device=0000:00:02.0 domain=0x0000 address=0x1000 "     \
	"flags=0x0000][5581b7d4e000+1000] likely on CPU 1 (core 1, socket 0)"
#define SEGV_AER                                                                                   \
	"pcieport 0000:[77]: segfault at 0 ip 0000561c in pcieport 0000:00:03.0: AER: Uncorrected "  \
	"(Non-Fatal) error received: 0000:00:02.0[561c+1000] likely on CPU 0 (core 0, socket 0)"
#define SEGV_PROBE                                                                                 \
	"e1000e: probe of[31]: segfault at 0 ip 0000561c in e1000e: probe of 0000:00:02.0 failed "   \
	"with error -5[561c+1000] likely on CPU 0 (core 0, socket 0)"

START_TEST(test_forged_in_kernel_records)
{
	static const char *const texts[] = {SEGV_VTD, SEGV_AMD, SEGV_AER, SEGV_PROBE};
	/* the same texts as other levels, callers and dictionaries would give them */
	static const char *const heads[] = {"6,900,1,-;",	  "3,900,1,-;",
					    "3,900,1,-,caller=C0;", "4,900,1,-;",
					    "0,900,1,-;"};
	/* exact driver lines, each made wrong in one way only */
	static const char *const near[] = {
	    /* a VT-d fault from a task (caller T), at level 6, with a dictionary */
	    "3,1,2,-,caller=T115;DMAR: [DMA Read NO_PASID] Request device [02:00.0] fault addr "
	    "0x1000 [fault reason 0x06] PTE Read access is not set\n",
	    "6,1,2,-;DMAR: [DMA Read NO_PASID] Request device [02:00.0] fault addr 0x1000 [fault "
	    "reason 0x06] PTE Read access is not set\n",
	    "3,1,2,-;DMAR: [DMA Read NO_PASID] Request device [02:00.0] fault addr 0x1000 [fault "
	    "reason 0x06] PTE Read access is not set\n SUBSYSTEM=pci\n DEVICE=+pci:0000:02:00.0\n",
	    /* something after the driver's format, something before it */
	    "3,1,2,-;DMAR: [DMA Read NO_PASID] Request device [02:00.0] fault addr 0x1000 [fault "
	    "reason 0x06] PTE Read access is not set[55e1+1000]\n",
	    "3,1,2,-; DMAR: [DMA Read NO_PASID] Request device [02:00.0] fault addr 0x1000 [fault "
	    "reason 0x06] PTE Read access is not set\n",
	    "3,1,2,-;DMAR: [DMA Read NO_PASID] Request device [02:00.0] fault addr 0x1000 [fault "
	    "reason 0x06]\n",
	    /* AMD-Vi: a dictionary naming another function, a level that is not the driver's,
	     * text after the closing bracket */
	    "3,9,10,-;pci 0000:05:00.0: AMD-Vi: Event logged [IO_PAGE_FAULT domain=0x000b "
	    "address=0xfffd0000 flags=0x0020]\n SUBSYSTEM=pci\n DEVICE=+pci:0000:00:02.0\n",
	    "6,9,10,-;AMD-Vi: Event logged [IO_PAGE_FAULT device=0000:06:00.2 domain=0x0000 "
	    "address=0x1000 flags=0x0000]\n",
	    "3,9,10,-;AMD-Vi: Event logged [IO_PAGE_FAULT device=0000:06:00.2 domain=0x0000 "
	    "address=0x1000 flags=0x0000] x\n",
	    "3,9,10,-;x AMD-Vi: Event logged [IO_PAGE_FAULT device=0000:06:00.2 domain=0x0000 "
	    "address=0x1000 flags=0x0000]\n",
	    /* AER from a driver that is not the port's, or with a short address */
	    "6,9,10,-;e1000e 0000:00:03.0: AER: Uncorrected (Non-Fatal) error received: "
	    "0000:01:00.0\n",
	    "6,9,10,-;pcieport 00:03.0: AER: Uncorrected (Non-Fatal) error received: 0000:01:00.0\n",
	    "6,9,10,-;pcieport 0000:00:03.0: AER: Uncorrected (Non-Fatal) error received: "
	    "0000:01:00.0 x\n",
	    /* probes: another driver named in the text, the wrong level, a continuation */
	    "3,9,10,-;r8169 0000:03:00.0: probe with driver e1000e failed with error -5\n",
	    "6,9,10,-;r8169: probe of 0000:03:00.0 failed with error -5\n",
	    "4,9,10,c;r8169: probe of 0000:03:00.0 failed with error -5\n",
	    "4,9,10,-;r8169: probe of 0000:03:00.0 failed with error -5 x\n",
	};
	char buf[1024];
	struct kmsg_record r;
	struct hw_kline l;

	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++)
		for (size_t j = 0; j < sizeof(heads) / sizeof(heads[0]); j++) {
			int n = snprintf(buf, sizeof(buf), "%s%s\n", heads[j], texts[i]);

			ck_assert_int_eq(kmsg_parse(buf, (size_t)n, &r), 0);
			ck_assert(kmsg_from_kernel(&r));
			ck_assert_msg(hw_kline_parse(&r, &l) == 0, "took %s as %s of %s", buf,
				      hw_kline_kind_to_string(l.kind), l.addr);
		}
	for (size_t i = 0; i < sizeof(near) / sizeof(near[0]); i++) {
		ck_assert_int_eq(kmsg_parse(near[i], strlen(near[i]), &r), 0);
		ck_assert_msg(hw_kline_parse(&r, &l) == 0, "took %s", near[i]);
	}
}
END_TEST

/* the driver core's failed probes, both forms (before and since 6.8) */
START_TEST(test_probe_failed)
{
	struct hw_kline l;
	static const char old[] = "4,1200,5000000,-;r8169: probe of 0000:03:00.0 failed with error "
				  "-5\n";
	static const char new[] = "3,1200,5000000,-;r8169 0000:03:00.0: probe with driver r8169 "
				  "failed with error -19\n SUBSYSTEM=pci\n DEVICE=+pci:0000:03:00.0\n";
	static const char new_nodict[] = "3,1200,5000000,-,caller=T88;iwlwifi 0000:04:00.0: probe "
					 "with driver iwlwifi failed with error -110\n";

	ck_assert_int_eq(parse_line(REC(old), &l), 1);
	ck_assert_uint_eq(l.kind, HW_KLINE_PROBE_FAILED);
	ck_assert_str_eq(l.addr, "0000:03:00.0");
	ck_assert_str_eq(l.driver, "r8169");
	ck_assert_str_eq(l.source, "probe");
	ck_assert_str_eq(l.reason, "driver r8169: probe failed with error -5");
	ck_assert(!l.has_fault_addr);
	ck_assert_int_eq(parse_line(REC(new), &l), 1);
	ck_assert_str_eq(l.driver, "r8169");
	ck_assert_str_eq(l.reason, "driver r8169: probe failed with error -19");
	ck_assert_int_eq(parse_line(REC(new_nodict), &l), 1);
	ck_assert_str_eq(l.addr, "0000:04:00.0");
	ck_assert_str_eq(l.driver, "iwlwifi");
	ck_assert_str_eq(hw_kline_kind_to_string(HW_KLINE_PROBE_FAILED), "probe_failed");
}
END_TEST

/* The reader over a socket that keeps records apart, as /dev/kmsg does: what is there at open is
 * historical until the first "nothing more"; a sequence number that jumps is a gap and says how
 * many records were lost; a user's record moves the sequence too (no false gap). */
START_TEST(test_kmsg_reader)
{
	struct kmsg_reader rd;
	struct kmsg_record r;
	int sv[2];

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK, 0, sv), 0);
	memset(&rd, 0, sizeof(rd));
	rd.fd = sv[0];
	rd.in_history = true;
	ck_assert_int_eq(write(sv[1], REC(VTD_READ)), sizeof(VTD_READ) - 1);
	ck_assert_int_eq(write(sv[1], REC("12,613,13410550,-;user\n")), 23);
	ck_assert_int_eq(kmsg_read(&rd, &r), 1);
	ck_assert(r.historical);
	ck_assert_uint_eq(r.seq, 612);
	ck_assert_int_eq(kmsg_read(&rd, &r), 0);
	ck_assert_uint_eq(rd.user, 1);
	ck_assert_uint_eq(rd.historical, 2);
	ck_assert(!rd.in_history);
	ck_assert_int_eq(write(sv[1], REC(VTD_WRITE)), sizeof(VTD_WRITE) - 1);
	ck_assert_int_eq(kmsg_read(&rd, &r), 1);
	ck_assert(!r.historical);
	ck_assert_uint_eq(rd.lost_gaps, 1);
	ck_assert_uint_eq(rd.lost_records, 1); /* 614 */
	ck_assert_int_eq(write(sv[1], REC("3,616,15184199,-;x\n")), 19);
	ck_assert_int_eq(kmsg_read(&rd, &r), 1);
	ck_assert_uint_eq(rd.lost_gaps, 1);
	ck_assert_uint_eq(rd.historical, 2);
	close(sv[1]);
	kmsg_close(&rd);
}
END_TEST

#define UEV(s) s, sizeof(s) /* with the last NUL */

START_TEST(test_uevent_pci)
{
	struct hw_uevent u;
	static const char add[] =
	    "add@/devices/pci0000:00/0000:00:04.0/0000:02:00.0\0ACTION=add\0"
	    "DEVPATH=/devices/pci0000:00/0000:00:04.0/0000:02:00.0\0SUBSYSTEM=pci\0"
	    "PCI_CLASS=FF00\0PCI_ID=1234:11E8\0PCI_SUBSYS_ID=1AF4:1100\0PCI_SLOT_NAME=0000:02:00.0\0"
	    "MODALIAS=pci:v00001234d000011E8sv00001AF4sd00001100bcFFsc00i00\0SEQNUM=2088";
	static const char bind[] =
	    "bind@/devices/pci0000:00/0000:00:02.0\0ACTION=bind\0"
	    "DEVPATH=/devices/pci0000:00/0000:00:02.0\0SUBSYSTEM=pci\0DRIVER=virtio-pci\0"
	    "PCI_CLASS=20000\0PCI_ID=1AF4:1009\0PCI_SLOT_NAME=0000:00:02.0\0SEQNUM=12";
	static const char tb[] = "change@/devices/pci0000:00/0000:00:0d.2/domain0/0-0/0-1\0"
				 "ACTION=change\0DEVPATH=/devices/pci0000:00/0000:00:0d.2/domain0/0-0/"
				 "0-1\0SUBSYSTEM=thunderbolt\0DEVTYPE=thunderbolt_device\0"
				 "AUTHORIZED=1\0SEQNUM=5";

	ck_assert_int_eq(hw_uevent_parse(UEV(add), &u), 1);
	ck_assert(u.pci);
	ck_assert_uint_eq(u.action, HW_UEV_ADD);
	ck_assert_str_eq(u.slot, "0000:02:00.0");
	ck_assert(u.has_id && u.has_class);
	ck_assert_uint_eq(u.vendor, 0x1234);
	ck_assert_uint_eq(u.device, 0x11e8);
	ck_assert_uint_eq(u.class_code, 0xff00);
	ck_assert_uint_eq(u.subsys_vendor, 0x1af4);
	ck_assert_uint_eq(u.subsys_device, 0x1100);
	ck_assert_str_eq(u.driver, "");
	ck_assert_int_eq(hw_uevent_parse(UEV(bind), &u), 1);
	ck_assert_uint_eq(u.action, HW_UEV_BIND);
	ck_assert_str_eq(u.driver, "virtio-pci");
	ck_assert_uint_eq(u.class_code, 0x20000);
	ck_assert_int_eq(hw_uevent_parse(UEV(tb), &u), 1);
	ck_assert(u.thunderbolt && !u.pci);
	ck_assert_uint_eq(u.action, HW_UEV_CHANGE);
	ck_assert_str_eq(u.tb_name, "0-1");
	ck_assert_int_eq(u.authorized, 1);
	ck_assert_str_eq(hw_uevent_action_to_string(HW_UEV_UNBIND), "unbind");
}
END_TEST

START_TEST(test_uevent_bad)
{
	struct hw_uevent u;
	static const char udev[] = "libudev\0\xfe\xed\xca\xfe";
	static const char noslot[] = "add@/devices/x\0ACTION=add\0DEVPATH=/devices/x\0SUBSYSTEM=pci";
	static const char badslot[] = "add@/d\0ACTION=add\0DEVPATH=/d\0SUBSYSTEM=pci\0"
				      "PCI_SLOT_NAME=0000:02:00.9";
	static const char badid[] = "add@/d\0ACTION=add\0DEVPATH=/d\0SUBSYSTEM=pci\0"
				    "PCI_SLOT_NAME=0000:02:00.1\0PCI_ID=-1:+2\0PCI_CLASS=-1";
	static const char other[] = "add@/d\0ACTION=add\0DEVPATH=/d\0SUBSYSTEM=usb";
	static const char tbdomain[] = "change@/d/domain0\0ACTION=change\0DEVPATH=/d/domain0\0"
				       "SUBSYSTEM=thunderbolt\0DEVTYPE=thunderbolt_domain";

	ck_assert_int_eq(hw_uevent_parse(NULL, 0, &u), -EINVAL);
	ck_assert_int_eq(hw_uevent_parse(UEV(udev), &u), -EINVAL);
	ck_assert_int_eq(hw_uevent_parse(UEV(noslot), &u), -EINVAL);
	ck_assert_int_eq(hw_uevent_parse(UEV(badslot), &u), -EINVAL);
	ck_assert_int_eq(hw_uevent_parse(UEV(badid), &u), 1);
	ck_assert(!u.has_id && !u.has_class);
	ck_assert_int_eq(hw_uevent_parse(UEV(other), &u), 0);
	ck_assert_int_eq(hw_uevent_parse(UEV(tbdomain), &u), 0);
}
END_TEST

/* ---- uevents examined off the event loop ---- */

#define N_UEV (HW_EXAM_QUEUE_MAX + 3)

struct seen {
	unsigned n;
	char addr[N_UEV][16];
	unsigned change[N_UEV];
	uint32_t vendor[N_UEV];
};

static int got_event(const struct rg_event *ev, void *ud)
{
	struct seen *g = ud;

	ck_assert_uint_eq(ev->type, RG_EV_PCI_CHANGE);
	ck_assert_uint_lt(g->n, N_UEV);
	snprintf(g->addr[g->n], sizeof(g->addr[0]), "%s", ev->u.pci.addr);
	g->change[g->n] = ev->u.pci.change;
	g->vendor[g->n++] = ev->u.pci.vendor;
	return 0;
}

/* a config read that stalls: a blocking read of a pipe, until its writer closes it */
static void stall_on_pipe(void *data)
{
	char c;

	(void)!read(*(int *)data, &c, 1);
}

static void uevent_in(struct hw_runtime *rt, unsigned action, const char *slot, struct seen *g)
{
	struct hw_uevent u;

	memset(&u, 0, sizeof(u));
	u.action = action;
	u.pci = true;
	u.authorized = -1;
	snprintf(u.slot, sizeof(u.slot), "%s", slot);
	hw_runtime_uevent(rt, &u, got_event, g);
}

/* While the first examination is stuck, the caller (the daemon's event loop) goes on: every
 * uevent is queued at once, one past the bound is a loss; when the stall ends, the events come
 * in the order the uevents came (an add, then the remove that arrived while it was examined). */
START_TEST(test_uevent_examined_off_loop)
{
	const char *fix = getenv("RG_FIXTURES");
	static struct seen g;
	struct hw_runtime_losses l;
	struct hw_runtime *rt = NULL;
	struct hw_scanner *sc = NULL;
	char dir[300];
	int stall[2];
	uint64_t t0;

	ck_assert_msg(fix != NULL, "RG_FIXTURES is not set (run through meson test)");
	snprintf(dir, sizeof(dir), "%s/roots/qemu-q35", fix);
	ck_assert_int_eq(pipe2(stall, O_CLOEXEC), 0);
	ck_assert_int_eq(hw_runtime_open("/nonexistent/kmsg", &rt), 0);
	ck_assert_int_eq(hw_scanner_new(dir, &sc), 0);
	hw_scanner_set_stall(sc, stall_on_pipe, &stall[0]);
	hw_runtime_set_examiner(rt, sc);

	t0 = now_monotonic_ns();
	uevent_in(rt, HW_UEV_ADD, "0000:01:00.0", &g);
	uevent_in(rt, HW_UEV_REMOVE, "0000:01:00.0", &g);
	for (unsigned i = 2; i < N_UEV; i++)
		uevent_in(rt, i % 2 ? HW_UEV_UNBIND : HW_UEV_BIND, "0000:00:1f.2", &g);
	ck_assert_uint_lt(now_monotonic_ns() - t0, 2000000000ull);
	usleep(50000);
	hw_runtime_examined(rt, got_event, &g);
	ck_assert_uint_eq(g.n, 0); /* still stuck, and nothing out of order */
	ck_assert(hw_runtime_losses(rt, &l));
	ck_assert_uint_eq(l.uevents_unexamined, N_UEV - HW_EXAM_QUEUE_MAX);
	ck_assert_uint_eq(l.uevents, 0);

	close(stall[1]); /* the stall ends */
	while (g.n < HW_EXAM_QUEUE_MAX) {
		struct pollfd pfd = {.fd = hw_scanner_fd(sc), .events = POLLIN};

		ck_assert_int_eq(poll(&pfd, 1, 20000), 1);
		ck_assert_ptr_null(hw_scanner_take(sc, NULL)); /* no scan was asked for */
		hw_runtime_examined(rt, got_event, &g);
	}
	ck_assert_str_eq(g.addr[0], "0000:01:00.0");
	ck_assert_uint_eq(g.change[0], RG_HW_ADD);
	ck_assert_uint_ne(g.vendor[0], 0); /* examined: the fixture's function */
	ck_assert_str_eq(g.addr[1], "0000:01:00.0");
	ck_assert_uint_eq(g.change[1], RG_HW_REMOVE);
	for (unsigned i = 2; i < HW_EXAM_QUEUE_MAX; i++) {
		ck_assert_str_eq(g.addr[i], "0000:00:1f.2");
		ck_assert_uint_eq(g.change[i], i % 2 ? RG_HW_UNBIND : RG_HW_BIND);
	}
	ck_assert(!hw_runtime_losses(rt, &l));
	while (hw_scanner_working(sc)) /* its thread gone before the test ends */
		usleep(1000);
	usleep(10000);
	hw_runtime_set_examiner(rt, NULL);
	hw_runtime_free(rt);
	hw_scanner_free(sc);
	close(stall[0]);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("hw_runtime");
	TCase *core = tcase_create("core"), *limits = tcase_create("limits"),
	      *errors = tcase_create("errors"), *loop = tcase_create("loop");
	SRunner *sr;
	int failed;

	tcase_add_test(core, test_kmsg_record);
	tcase_add_test(core, test_vtd);
	tcase_add_test(core, test_amd_aer_link);
	tcase_add_test(core, test_bursts);
	tcase_add_test(core, test_uevent_pci);
	tcase_add_test(limits, test_bursts_full);
	tcase_add_test(errors, test_kmsg_forged_by_user);
	tcase_add_test(errors, test_kmsg_malformed);
	tcase_add_test(errors, test_lines_not_ours);
	tcase_add_test(errors, test_uevent_bad);
	tcase_add_test(errors, test_forged_in_kernel_records);
	tcase_add_test(core, test_probe_failed);
	tcase_add_test(core, test_kmsg_reader);
	suite_add_tcase(s, core);
	suite_add_tcase(s, limits);
	suite_add_tcase(s, errors);
	/* a broken examiner hangs the caller: the timeout is the failure */
	tcase_set_timeout(loop, 25);
	tcase_add_test(loop, test_uevent_examined_off_loop);
	suite_add_tcase(s, loop);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
