/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The kernel's lines about a PCI function's DMA, AER errors and slot links (dma_fault.h): what
 * drivers/iommu/intel/dmar.c (dmar_fault_do_one()), drivers/iommu/amd/iommu.c
 * (amd_iommu_report_page_fault()), drivers/pci/pcie/aer.c and drivers/pci/hotplug/pciehp_*.c
 * print on Debian 12's 6.1, and the older VT-d form ("[DMA Read] ... fault addr 1000 [fault
 * reason 06]"). The record is the kernel's (facility 0, checked by the caller); its text is
 * still parsed with bounds everywhere.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "dma_fault.h"

static const char *const kind_names[HW_KLINE__MAX] = {
	[HW_KLINE_NONE] = "none",
	[HW_KLINE_DMA_FAULT] = "dma_fault",
	[HW_KLINE_AER] = "aer",
	[HW_KLINE_LINK] = "link",
};

const char *hw_kline_kind_to_string(unsigned kind)
{
	return kind < HW_KLINE__MAX ? kind_names[kind] : NULL;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* exactly n hex digits at s */
static bool hexn(const char *s, unsigned n, unsigned *v)
{
	*v = 0;
	for (unsigned i = 0; i < n; i++) {
		int h = hexval(s[i]);

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
	    s[n + 5] != '.' || hexval(s[n + 6]) < 0 || hexval(s[n + 6]) > 7 || dev > 0x1f)
		return 0;
	fn = (unsigned)hexval(s[n + 6]);
	snprintf(out, 16, "%04x:%02x:%02x.%u", seg, bus, dev, fn);
	return n + 7;
}

/* A hexadecimal number at s, with or without 0x: true and *v when at least one digit. */
static bool parse_hex(const char *s, uint64_t *v)
{
	int digits = 0;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	*v = 0;
	for (; hexval(*s) >= 0; s++) {
		if (++digits > 16)
			return false;
		*v = (*v << 4) | (uint64_t)hexval(*s);
	}
	return digits > 0;
}

/* "DRIVER 0000:01:00.0: " at the start of a dev_printk() text: the address, and where the
 * message proper starts. */
static const char *dev_prefix(const char *text, char addr[16])
{
	const char *sp = strchr(text, ' ');
	unsigned n;

	if (!sp || sp == text || sp - text > 32)
		return NULL;
	n = hw_parse_bdf(sp + 1, addr);
	if (!n || sp[1 + n] != ':' || sp[2 + n] != ' ')
		return NULL;
	return sp + 3 + n;
}

static void set_reason(struct hw_kline *l, const char *s)
{
	strscpy_ok(l->reason, s, sizeof(l->reason));
}

/* DMAR: [DMA Read NO_PASID] Request device [01:00.0] fault addr 0x1000 [fault reason 0x06] PTE
 * Read access is not set; also "[DMA Write PASID 0x1]", "[INTR-REMAP] ... fault index 0x..",
 * and before 5.15 "[DMA Read] Request device [01:00.0] PASID ffffffff fault addr 1000 [fault
 * reason 06] ..." */
static int parse_vtd(const char *t, struct hw_kline *l)
{
	const char *rd, *fa, *fr, *close;
	char what[24];
	size_t n;

	if (!startswith(t, "DMAR: ["))
		return 0;
	close = strchr(t + 7, ']');
	rd = strstr(t, "] Request device [");
	if (!close || !rd || close != rd)
		return 0;
	n = (size_t)(close - (t + 7));
	if (n >= sizeof(what))
		n = sizeof(what) - 1;
	memcpy(what, t + 7, n);
	what[n] = 0;
	/* "DMA Read NO_PASID" -> "DMA Read" */
	{
		char *sp = strstr(what, " NO_PASID");

		if (!sp)
			sp = strstr(what, " PASID");
		if (sp)
			*sp = 0;
	}
	if (!hw_parse_bdf(rd + 18, l->addr))
		return 0;
	fa = strstr(rd, " fault addr ");
	if (fa)
		l->has_fault_addr = parse_hex(fa + 12, &l->fault_addr);
	else if ((fa = strstr(rd, " fault index ")))
		l->has_fault_addr = parse_hex(fa + 13, &l->fault_addr);
	fr = strstr(rd, "[fault reason ");
	l->kind = HW_KLINE_DMA_FAULT;
	strscpy_ok(l->source, "vt-d", sizeof(l->source));
	snprintf(l->reason, sizeof(l->reason), "%s: %s", what, fr ? fr : "(no reason)");
	return 1;
}

/* AMD-Vi: "pci 0000:01:00.0: AMD-Vi: Event logged [IO_PAGE_FAULT domain=0x000b
 * address=0x1000 flags=0x0020]", or without a device structure "AMD-Vi: Event logged
 * [IO_PAGE_FAULT device=0000:01:00.0 domain=... address=... flags=...]" (the segment only
 * since 6.0: "device=01:00.0" before). */
static int parse_amd(const struct kmsg_record *rec, const char *t, struct hw_kline *l)
{
	const char *ev = strstr(t, "[IO_PAGE_FAULT"), *dv, *ad;

	if (!ev || !strstr(t, "AMD-Vi"))
		return 0;
	dv = strstr(ev, "device=");
	if (dv && hw_parse_bdf(dv + 7, l->addr))
		;
	else if (startswith(rec->device, "+pci:") && hw_parse_bdf(rec->device + 5, l->addr))
		;
	else if (!dev_prefix(t, l->addr))
		return 0;
	ad = strstr(ev, "address=");
	if (ad)
		l->has_fault_addr = parse_hex(ad + 8, &l->fault_addr);
	l->kind = HW_KLINE_DMA_FAULT;
	strscpy_ok(l->source, "amd-vi", sizeof(l->source));
	set_reason(l, ev + 1);
	{
		char *e = strchr(l->reason, ']');

		if (e)
			*e = 0;
	}
	return 1;
}

/* "pcieport 0000:00:03.0: AER: Uncorrected (Non-Fatal) error received: 0000:01:00.0" */
static int parse_aer(const char *t, struct hw_kline *l)
{
	char port[16];
	const char *m = dev_prefix(t, port), *rx;

	if (!m || !startswith(m, "AER: "))
		return 0;
	rx = strstr(m, " error received: ");
	if (!rx || !hw_parse_bdf(rx + 17, l->addr))
		return 0;
	l->kind = HW_KLINE_AER;
	strscpy_ok(l->source, "aer", sizeof(l->source));
	snprintf(l->reason, sizeof(l->reason), "AER: %.*s error (reported by %s)",
		 (int)(rx - (m + 5)), m + 5, port);
	return 1;
}

/* "pcieport 0000:00:04.0: pciehp: Slot(2): Link Down" / "Link Up" / "Card present" /
 * "Card not present" */
static int parse_link(const char *t, struct hw_kline *l)
{
	const char *m = dev_prefix(t, l->addr), *c;

	if (!m || !startswith(m, "pciehp: Slot("))
		return 0;
	c = strstr(m, "): ");
	if (!c || !(strcmp(c + 3, "Link Up") == 0 || strcmp(c + 3, "Link Down") == 0 ||
		    strcmp(c + 3, "Card present") == 0 || strcmp(c + 3, "Card not present") == 0))
		return 0;
	l->kind = HW_KLINE_LINK;
	strscpy_ok(l->source, "pciehp", sizeof(l->source));
	set_reason(l, m + 8);
	return 1;
}

int hw_kline_parse(const struct kmsg_record *rec, struct hw_kline *out)
{
	const char *t = rec->text;

	memset(out, 0, sizeof(*out));
	if (parse_vtd(t, out) || parse_amd(rec, t, out) || parse_aer(t, out) ||
	    parse_link(t, out))
		return 1;
	memset(out, 0, sizeof(*out));
	return 0;
}
