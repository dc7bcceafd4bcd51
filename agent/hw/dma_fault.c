/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The kernel's lines about a PCI function's DMA, AER errors and slot links (dma_fault.h): what
 * drivers/iommu/intel/dmar.c (dmar_fault_do_one()), drivers/iommu/amd/iommu.c
 * (amd_iommu_report_page_fault()), drivers/pci/pcie/aer.c and drivers/pci/hotplug/pciehp_*.c
 * print on Debian 12's 6.1, and the older VT-d form ("[DMA Read] ... fault addr 1000 [fault
 * reason 06]"), and the driver core's failed probes. The kernel's log is not provenance: a
 * program's name ends up in the segfault line, a USB device's strings in the USB lines, and a
 * task's name even begins a line. So a record counts only when it is the kernel's (facility 0,
 * not a continuation), at the level the driver prints it, its dictionary (where it has one)
 * names the device the text names, its caller (where the kernel records one) fits, and the whole
 * text matches the driver's format from its first byte to its last.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/hex.h"
#include "common/macro.h"
#include "common/strutil.h"
#include "dma_fault.h"

static const char *const kind_names[HW_KLINE__MAX] = {
	[HW_KLINE_NONE] = "none",
	[HW_KLINE_DMA_FAULT] = "dma_fault",
	[HW_KLINE_AER] = "aer",
	[HW_KLINE_LINK] = "link",
	[HW_KLINE_PROBE_FAILED] = "probe_failed",
};

const char *hw_kline_kind_to_string(unsigned kind)
{
	return kind < HW_KLINE__MAX ? kind_names[kind] : NULL;
}

/* exactly n hex digits at s */
static bool hexn(const char *s, unsigned n, unsigned *v)
{
	*v = 0;
	for (unsigned i = 0; i < n; i++) {
		int h = hex_digit(s[i]);

		if (h < 0)
			return false;
		*v = *v * 16 + (unsigned)h;
	}
	return true;
}

unsigned hw_parse_bdf(const char *s, char out[16])
{
	unsigned seg = 0, bus, dev, fn, n = 0;

	/* "SSSS:" optional */
	if (hexn(s, 4, &seg) && s[4] == ':')
		n = 5;
	else
		seg = 0;
	if (!hexn(s + n, 2, &bus) || s[n + 2] != ':' || !hexn(s + n + 3, 2, &dev) ||
	    s[n + 5] != '.' || hex_digit(s[n + 6]) < 0 || hex_digit(s[n + 6]) > 7 || dev > 0x1f)
		return 0;
	fn = (unsigned)hex_digit(s[n + 6]);
	snprintf(out, 16, "%04x:%02x:%02x.%u", seg, bus, dev, fn);
	return n + 7;
}

/*
 * An anchored match over a whole line: each step consumes what it matched at *p or fails, and
 * the line is taken only when every step matched and nothing is left (line_end()). Nothing is
 * searched for: the kernel's format is read from the first byte to the last.
 */
struct scan {
	const char *p;
	bool ok;
};

static bool lit(struct scan *s, const char *w)
{
	size_t n = strlen(w);

	if (s->ok && strncmp(s->p, w, n) == 0)
		s->p += n;
	else
		s->ok = false;
	return s->ok;
}

/* 1 to max hex digits (after "0x" when the format has it); *v their value */
static bool hexnum(struct scan *s, unsigned max, uint64_t *v)
{
	unsigned digits = 0;
	uint64_t x = 0;

	while (s->ok && hex_digit(s->p[digits]) >= 0 && digits < max)
		x = (x << 4) | (uint64_t)hex_digit(s->p[digits++]);
	if (!s->ok || digits == 0 || hex_digit(s->p[digits]) >= 0)
		return s->ok = false;
	s->p += digits;
	if (v)
		*v = x;
	return true;
}

/* an optionally negative decimal of 1 to 10 digits */
static bool decnum(struct scan *s, bool sign)
{
	unsigned digits = 0;

	if (s->ok && sign && *s->p == '-')
		s->p++;
	while (s->ok && s->p[digits] >= '0' && s->p[digits] <= '9' && digits <= 10)
		digits++;
	if (!s->ok || digits == 0 || digits > 10)
		return s->ok = false;
	s->p += digits;
	return true;
}

/* "SSSS:BB:DD.F" (full: dev_name() of a PCI device) or "BB:DD.F" */
static bool bdf(struct scan *s, bool full, char addr[16])
{
	unsigned n = s->ok ? hw_parse_bdf(s->p, addr) : 0;

	if (!n || (full && n != 12) || (!full && n != 7))
		return s->ok = false;
	s->p += n;
	return true;
}

/* a driver's name as the kernel prints it: 1 to 31 of [A-Za-z0-9_-] up to stop */
static bool driver_name(struct scan *s, char stop, char *out, size_t size)
{
	size_t n = 0;

	while (s->ok && n < 32 && (isalnum((unsigned char)s->p[n]) || s->p[n] == '_' ||
				   s->p[n] == '-'))
		n++;
	if (!s->ok || n == 0 || n > 31 || s->p[n] != stop)
		return s->ok = false;
	if (out) {
		if (n >= size)
			return s->ok = false;
		memcpy(out, s->p, n);
		out[n] = 0;
	}
	s->p += n;
	return true;
}

/* the rest of the line as a fault reason: 1 to 90 of letters, digits, space and ,.:()/_'- */
static bool reason_text(struct scan *s)
{
	size_t n = 0;

	for (; s->ok && s->p[n]; n++)
		if (!isalnum((unsigned char)s->p[n]) && !strchr(" ,.:()/_'-", s->p[n]))
			return s->ok = false;
	if (!s->ok || n == 0 || n > 90)
		return s->ok = false;
	s->p += n;
	return true;
}

static bool line_end(const struct scan *s)
{
	return s->ok && *s->p == 0;
}

/* The record's dictionary, where it has one, names the device the text names: a dev_printk()
 * of a PCI device has SUBSYSTEM=pci and DEVICE=+pci:ADDR. */
static bool dict_names(const struct kmsg_record *rec, const char *addr)
{
	if (!rec->has_dict)
		return true;
	return strcmp(rec->subsystem, "pci") == 0 && startswith(rec->device, "+pci:") &&
	       strcmp(rec->device + 5, addr) == 0;
}

/* "DRIVER 0000:01:00.0: " at the start of a dev_printk() text (full address): the address,
 * and the driver's (or the bus's) name where driver is not NULL */
static bool dev_prefix(struct scan *s, char addr[16], char *driver, size_t size)
{
	return driver_name(s, ' ', driver, size) && lit(s, " ") && bdf(s, true, addr) &&
	       lit(s, ": ");
}

static void set_reason(struct hw_kline *l, const char *s, size_t n)
{
	if (n >= sizeof(l->reason))
		n = sizeof(l->reason) - 1;
	memcpy(l->reason, s, n);
	l->reason[n] = 0;
}

/*
 * VT-d (pr_err() from the fault interrupt, level 3, no dictionary):
 *   DMAR: [DMA Read NO_PASID] Request device [01:00.0] fault addr 0x1000 [fault reason 0x06] REASON
 *   DMAR: [DMA Write PASID 0x2] Request device [...] fault addr 0x... [fault reason 0x05] REASON
 *   DMAR: [INTR-REMAP] Request device [f0:1f.0] fault index 0x8 [fault reason 0x25] REASON
 * and before 5.15 "DMAR: [DMA Read] Request device [03:00.1] PASID ffffffff fault addr 7fe000
 * [fault reason 06] REASON". Where the record has a caller, it is a CPU: the fault handler runs
 * in interrupt context, a task's line (a crashing program's) is never one.
 */
static int parse_vtd(const struct kmsg_record *rec, struct hw_kline *l)
{
	struct scan s = {rec->text, true}, t;
	const char *what, *what_end, *reason;
	bool intr = false, old = false;
	uint64_t v;

	if (rec->level != 3 || rec->has_dict || (rec->caller && rec->caller != 'C') ||
	    !lit(&s, "DMAR: ["))
		return 0;
	what = s.p;
	t = s;
	if (lit(&t, "INTR-REMAP]")) {
		intr = true;
		what_end = t.p - 1;
	} else {
		t = s;
		if (!lit(&t, "DMA Read") && (t = s, !lit(&t, "DMA Write")))
			return 0;
		what_end = t.p;
		s = t;
		if (lit(&t, " NO_PASID]"))
			;
		else if ((t = s, lit(&t, " PASID 0x")) && hexnum(&t, 8, NULL) && lit(&t, "]"))
			;
		else if ((t = s, lit(&t, "]")))
			old = true;
		else
			return 0;
	}
	s = t;
	if (!lit(&s, " Request device [") || !bdf(&s, false, l->addr) || !lit(&s, "]"))
		return 0;
	if (old) {
		if (!lit(&s, " PASID ") || !hexnum(&s, 8, NULL) || !lit(&s, " fault addr ") ||
		    !hexnum(&s, 16, &v) || !lit(&s, " [fault reason ") || !decnum(&s, false))
			return 0;
	} else if (!lit(&s, intr ? " fault index 0x" : " fault addr 0x") || !hexnum(&s, 16, &v) ||
		   !lit(&s, " [fault reason 0x") || !hexnum(&s, 2, NULL)) {
		return 0;
	}
	if (!lit(&s, "] ") || !reason_text(&s) || !line_end(&s))
		return 0;
	l->kind = HW_KLINE_DMA_FAULT;
	l->has_fault_addr = true;
	l->fault_addr = v;
	strscpy_ok(l->source, "vt-d", sizeof(l->source));
	/* "DMA Read: [fault reason 0x06] PTE Read access is not set" */
	reason = strstr(rec->text, " [fault reason ");
	snprintf(l->reason, sizeof(l->reason), "%.*s: %s", (int)(what_end - what), what,
		 reason + 1);
	return 1;
}

/*
 * AMD-Vi (level 3): with the device known, a dev_printk() (the dictionary names it)
 *   pci 0000:05:00.0: AMD-Vi: Event logged [IO_PAGE_FAULT domain=0x000b address=0x1000 flags=0x0020]
 * and without, "AMD-Vi: Event logged [IO_PAGE_FAULT device=0000:06:00.2 domain=0x0000
 * address=0x1000 flags=0x0000]" (the segment only since 6.0: "device=06:00.2" before).
 */
static int parse_amd(const struct kmsg_record *rec, struct hw_kline *l)
{
	struct scan s = {rec->text, true};
	const char *ev;
	uint64_t v;

	if (rec->level != 3)
		return 0;
	if (lit(&s, "AMD-Vi: Event logged [IO_PAGE_FAULT device=")) {
		ev = s.p - strlen("IO_PAGE_FAULT device=");
		if (rec->has_dict || (!bdf(&s, true, l->addr) && (s.ok = true, !bdf(&s, false, l->addr))))
			return 0;
		lit(&s, " ");
	} else {
		s = (struct scan){rec->text, true};
		if (!dev_prefix(&s, l->addr, NULL, 0) || !dict_names(rec, l->addr) ||
		    !lit(&s, "AMD-Vi: Event logged [IO_PAGE_FAULT "))
			return 0;
		ev = s.p - strlen("IO_PAGE_FAULT ");
	}
	if (!lit(&s, "domain=0x") || !hexnum(&s, 4, NULL) || !lit(&s, " address=0x") ||
	    !hexnum(&s, 16, &v) || !lit(&s, " flags=0x") || !hexnum(&s, 4, NULL) || !lit(&s, "]") ||
	    !line_end(&s))
		return 0;
	l->kind = HW_KLINE_DMA_FAULT;
	l->has_fault_addr = true;
	l->fault_addr = v;
	strscpy_ok(l->source, "amd-vi", sizeof(l->source));
	set_reason(l, ev, strlen(ev) - 1);
	return 1;
}

/*
 * AER, from the root port's service driver (pci_info(), level 6 on 6.1; a dictionary naming the
 * port): "pcieport 0000:00:03.0: AER: [Multiple ]Uncorrected (Non-Fatal) error received:
 * 0000:01:00.0"; also "Corrected", "Uncorrected (Fatal)".
 */
static int parse_aer(const struct kmsg_record *rec, struct hw_kline *l)
{
	static const char *const sev[] = {"Corrected", "Uncorrected (Non-Fatal)",
					  "Uncorrected (Fatal)"};
	struct scan s = {rec->text, true};
	char port[16], drv[32];
	const char *m;
	size_t i;

	if (rec->level > 6 || !dev_prefix(&s, port, drv, sizeof(drv)) ||
	    strcmp(drv, "pcieport") != 0 || !dict_names(rec, port) || !lit(&s, "AER: "))
		return 0;
	m = s.p;
	if (!lit(&s, "Multiple "))
		s.ok = true;
	for (i = 0; i < ARRAY_SIZE(sev); i++) {
		struct scan t = s;

		if (lit(&t, sev[i]) && lit(&t, " error received: ")) {
			s = t;
			break;
		}
	}
	if (i == ARRAY_SIZE(sev) || !bdf(&s, true, l->addr) || !line_end(&s))
		return 0;
	l->kind = HW_KLINE_AER;
	strscpy_ok(l->source, "aer", sizeof(l->source));
	snprintf(l->reason, sizeof(l->reason), "AER: %.*s error (reported by %s)",
		 (int)(strstr(m, " error received: ") - m), m, port);
	return 1;
}

/* "pcieport 0000:00:04.0: pciehp: Slot(2): Link Down" / "Link Up" / "Card present" /
 * "Card not present" (level 6, the port's dictionary) */
static int parse_link(const struct kmsg_record *rec, struct hw_kline *l)
{
	static const char *const what[] = {"Link Up", "Link Down", "Card present",
					   "Card not present"};
	struct scan s = {rec->text, true};
	char drv[32];
	const char *m;

	if (rec->level > 6 || !dev_prefix(&s, l->addr, drv, sizeof(drv)) ||
	    strcmp(drv, "pcieport") != 0 || !dict_names(rec, l->addr) || !lit(&s, "pciehp: "))
		return 0;
	m = s.p;
	if (!lit(&s, "Slot(") || !driver_name(&s, ')', NULL, 0) || !lit(&s, "): "))
		return 0;
	for (size_t i = 0; i < ARRAY_SIZE(what); i++)
		if (strcmp(s.p, what[i]) == 0) {
			l->kind = HW_KLINE_LINK;
			strscpy_ok(l->source, "pciehp", sizeof(l->source));
			set_reason(l, m, strlen(m));
			return 1;
		}
	return 0;
}

/*
 * A driver's probe of a PCI function failed (drivers/base/dd.c): before 6.8 pr_warn() (level 4,
 * no dictionary) "r8169: probe of 0000:03:00.0 failed with error -5", since then dev_err()
 * (level 3, the device's dictionary) "r8169 0000:03:00.0: probe with driver r8169 failed with
 * error -5". A masked card makes the driver of the device it imitates fail this way.
 */
static int parse_probe(const struct kmsg_record *rec, struct hw_kline *l)
{
	struct scan s = {rec->text, true};
	char drv2[32];

	if (rec->level == 4 && !rec->has_dict && driver_name(&s, ':', l->driver, sizeof(l->driver)) &&
	    lit(&s, ": probe of ") && bdf(&s, true, l->addr) && lit(&s, " failed with error ") &&
	    decnum(&s, true) && line_end(&s))
		goto ok;
	s = (struct scan){rec->text, true};
	if (rec->level != 3 || !dev_prefix(&s, l->addr, l->driver, sizeof(l->driver)) ||
	    !dict_names(rec, l->addr) || !lit(&s, "probe with driver ") ||
	    !driver_name(&s, ' ', drv2, sizeof(drv2)) || strcmp(drv2, l->driver) != 0 ||
	    !lit(&s, " failed with error ") || !decnum(&s, true) || !line_end(&s))
		return 0;
ok:
	l->kind = HW_KLINE_PROBE_FAILED;
	strscpy_ok(l->source, "probe", sizeof(l->source));
	snprintf(l->reason, sizeof(l->reason), "driver %s: probe failed with error %s", l->driver,
		 strrchr(rec->text, ' ') + 1);
	return 1;
}

int hw_kline_parse(const struct kmsg_record *rec, struct hw_kline *out)
{
	memset(out, 0, sizeof(*out));
	if (!kmsg_from_kernel(rec) || rec->cont)
		return 0;
	if (parse_vtd(rec, out) || (memset(out, 0, sizeof(*out)), parse_amd(rec, out)) ||
	    (memset(out, 0, sizeof(*out)), parse_aer(rec, out)) ||
	    (memset(out, 0, sizeof(*out)), parse_link(rec, out)) ||
	    (memset(out, 0, sizeof(*out)), parse_probe(rec, out))) {
		out->historical = rec->historical;
		return 1;
	}
	memset(out, 0, sizeof(*out));
	return 0;
}
