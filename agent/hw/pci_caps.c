/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The capability walk (pci_caps.h). Config space comes from the device, so from whoever built
 * the card: a list may loop, point into the header or past the end, or hold all-zero entries.
 * Each of those is recorded as a fact and ends the walk; nothing here trusts a pointer before
 * checking it against what was read, and every walk is bounded by a visited map.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "pci_caps.h"

#define CFG_STD_END 0x100
#define CFG_EXT_END 0x1000

static uint16_t rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t rd32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Link speed field (Link Capabilities/Status bits 3:0) to MT/s. */
static uint32_t link_speed(unsigned v)
{
	static const uint32_t mts[] = {0, 2500, 5000, 8000, 16000, 32000, 64000};

	return v < sizeof(mts) / sizeof(mts[0]) ? mts[v] : 0;
}

__attribute__((format(printf, 3, 4))) static void malformed(struct hw_fn *fn, unsigned fact,
							    const char *fmt, ...)
{
	va_list ap;

	fn->facts |= fact;
	if (fn->caps_error[0])
		return;
	va_start(ap, fmt);
	vsnprintf(fn->caps_error, sizeof(fn->caps_error), fmt, ap);
	va_end(ap);
}

static void read_pcie(const uint8_t *cfg, size_t len, unsigned off, struct hw_fn *fn)
{
	uint32_t lcap;
	uint16_t lsta;

	fn->pcie = true;
	if (off + 4 > len)
		return;
	fn->pcie_type = (cfg[off + 2] >> 4) & 0xf;
	/* Link Capabilities at +0x0c, Link Status at +0x12: the structure must hold them. */
	if (off + 0x14 > len)
		return;
	lcap = rd32(cfg + off + 0x0c);
	lsta = rd16(cfg + off + 0x12);
	fn->link.max_speed = link_speed(lcap & 0xf);
	fn->link.max_width = (lcap >> 4) & 0x3f;
	fn->link.speed = link_speed(lsta & 0xf);
	fn->link.width = (lsta >> 4) & 0x3f;
	fn->aspm = (int8_t)((lcap >> 10) & 3);
	fn->l0s_exit = (int8_t)((lcap >> 12) & 7);
	fn->l1_exit = (int8_t)((lcap >> 15) & 7);
}

/* MSI / MSI-X Enable: the message control word at +2 (bit 0 MSI, bit 15 MSI-X). */
static void read_irq_cap(const uint8_t *cfg, size_t len, unsigned off, uint8_t id,
			 struct hw_fn *fn)
{
	uint16_t ctl;

	if (off + 4 > len)
		return;
	ctl = rd16(cfg + off + 2);
	if (id == PCI_CAP_MSI && (ctl & 0x0001))
		fn->msi_enabled = true;
	else if (id == PCI_CAP_MSIX && (ctl & 0x8000))
		fn->msix_enabled = true;
}

static void walk_std(const uint8_t *cfg, size_t len, struct hw_fn *fn)
{
	uint8_t seen[CFG_STD_END / 4] = {0};
	size_t end = len < CFG_STD_END ? len : CFG_STD_END;
	unsigned ptr_off, ptr;

	if (!(rd16(cfg + 0x06) & 0x10)) /* Status: Capabilities List */
		return;
	ptr_off = (fn->header_type & 0x7f) == 2 ? 0x14 : 0x34;
	ptr = cfg[ptr_off] & 0xfc;
	while (ptr) {
		uint8_t id;

		if (ptr < 0x40) {
			malformed(fn, RG_PCI_FACT_CAPS_MALFORMED,
				  "capability pointer 0x%02x out of bounds", ptr);
			return;
		}
		/* Past what could be read (64 bytes without root): unknown, not malformed. */
		if (ptr + 2 > end) {
			if (!fn->caps_error[0])
				snprintf(fn->caps_error, sizeof(fn->caps_error),
					 "capability at 0x%02x beyond the %zu bytes read", ptr,
					 end);
			return;
		}
		if (seen[ptr / 4]) {
			malformed(fn, RG_PCI_FACT_CAPS_MALFORMED, "capability list loops at 0x%02x",
				  ptr);
			return;
		}
		seen[ptr / 4] = 1;
		id = cfg[ptr];
		if (id == 0 && cfg[ptr + 1] == 0) {
			malformed(fn, RG_PCI_FACT_CAPS_ZERO, "all-zero capability at 0x%02x", ptr);
			return;
		}
		if (id == 0 || id == 0xff)
			malformed(fn, RG_PCI_FACT_CAPS_ZERO, "null capability ID at 0x%02x", ptr);
		if (fn->n_caps < HW_MAX_CAPS) {
			fn->caps[fn->n_caps] = id;
			fn->cap_offsets[fn->n_caps++] = (uint16_t)ptr;
		}
		if (id == PCI_CAP_EXP && !fn->pcie)
			read_pcie(cfg, end, ptr, fn);
		else if (id == PCI_CAP_MSI || id == PCI_CAP_MSIX)
			read_irq_cap(cfg, end, ptr, id, fn);
		ptr = cfg[ptr + 1] & 0xfc;
	}
}

static void walk_ext(const uint8_t *cfg, size_t len, struct hw_fn *fn)
{
	uint8_t seen[CFG_EXT_END / 4] = {0};
	size_t end = len < CFG_EXT_END ? len : CFG_EXT_END;
	unsigned ptr = CFG_STD_END;
	uint32_t h;

	if (end < CFG_STD_END + 4)
		return;
	h = rd32(cfg + CFG_STD_END);
	/* No extended capabilities: a conventional PCI device, or none implemented. */
	if (h == 0 || h == 0xffffffff)
		return;
	for (;;) {
		uint16_t id;
		unsigned next;

		if (ptr < CFG_STD_END || ptr + 4 > end) {
			malformed(fn, RG_PCI_FACT_CAPS_MALFORMED,
				  "extended capability pointer 0x%03x out of bounds", ptr);
			return;
		}
		if (seen[ptr / 4]) {
			malformed(fn, RG_PCI_FACT_CAPS_MALFORMED,
				  "extended capability list loops at 0x%03x", ptr);
			return;
		}
		seen[ptr / 4] = 1;
		h = rd32(cfg + ptr);
		if (h == 0) {
			malformed(fn, RG_PCI_FACT_CAPS_ZERO,
				  "all-zero extended capability at 0x%03x", ptr);
			return;
		}
		id = h & 0xffff;
		next = (h >> 20) & 0xffc;
		if (fn->n_ecaps < HW_MAX_ECAPS) {
			fn->ecaps[fn->n_ecaps] = id;
			fn->ecap_offsets[fn->n_ecaps++] = (uint16_t)ptr;
		}
		switch (id) {
		case PCI_ECAP_DSN:
			if (ptr + 12 <= end && !fn->has_dsn) {
				fn->has_dsn = true;
				fn->dsn = (uint64_t)rd32(cfg + ptr + 8) << 32 | rd32(cfg + ptr + 4);
			}
			break;
		case PCI_ECAP_ACS:
			fn->acs = true;
			break;
		case PCI_ECAP_ATS:
			fn->ats = true;
			break;
		default:
			break;
		}
		if (!next)
			return;
		ptr = next;
	}
}

void hw_caps_walk(const uint8_t *cfg, size_t len, struct hw_fn *fn)
{
	unsigned htype;

	fn->config_len = (uint32_t)len;
	fn->aspm = fn->l0s_exit = fn->l1_exit = -1;
	if (len < 0x40) {
		malformed(fn, RG_PCI_FACT_CAPS_MALFORMED, "config space of %u bytes",
			  (unsigned)len);
		return;
	}
	fn->command = rd16(cfg + 0x04);
	fn->bus_master = fn->command & 0x4;
	fn->mem_enable = fn->command & 0x2;
	fn->header_type = cfg[0x0e];
	fn->int_pin = cfg[0x3d] <= 4 ? cfg[0x3d] : 0;
	htype = fn->header_type & 0x7f;
	if (htype > 2) {
		fn->facts |= RG_PCI_FACT_HEADER_INVALID;
		return; /* the layout is unknown: no pointer in it can be trusted */
	}
	walk_std(cfg, len, fn);
	if (fn->pcie)
		walk_ext(cfg, len, fn);
	/* A PCIe endpoint (legacy endpoint included) must have Power Management. */
	if (fn->pcie && (fn->pcie_type == 0 || fn->pcie_type == 1) && htype == 0 &&
	    !hw_fn_has_cap(fn, PCI_CAP_PM))
		fn->facts |= RG_PCI_FACT_NO_PM_CAP;
}

bool hw_fn_has_cap(const struct hw_fn *fn, uint8_t id)
{
	for (unsigned i = 0; i < fn->n_caps; i++)
		if (fn->caps[i] == id)
			return true;
	return false;
}

bool hw_fn_has_ecap(const struct hw_fn *fn, uint16_t id)
{
	for (unsigned i = 0; i < fn->n_ecaps; i++)
		if (fn->ecaps[i] == id)
			return true;
	return false;
}
