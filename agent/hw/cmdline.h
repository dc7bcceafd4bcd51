/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The kernel command line's IOMMU options, read the way the kernel reads them: arguments split
 * as kernel/params.c next_arg() does (whitespace, double quotes, "--" ends the kernel's part),
 * parameter names with '-' and '_' alike, comma lists matched by prefix as the drivers'
 * parsers do (intel_iommu=off,... with strncmp(), so "offx" is "off"), booleans as kstrtobool()
 * (1/y/t/on and 0/n/f/off by their first characters), and the last word wins where a later one
 * undoes an earlier one (iommu=pt then iommu=nopt translates). Pure (fuzz target "cmdline").
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* What the options leave weakened (each the last word on it). */
struct hw_cmdline {
	bool intel_off;	    /* intel_iommu=off (also in a list), tboot_noforce */
	bool amd_off;	    /* amd_iommu=off */
	bool no_iommu;	    /* iommu=off */
	bool passthrough;   /* iommu=pt, iommu.passthrough=<true> (not undone by nopt/false) */
	bool soft;	    /* iommu=soft: bounce buffers, no translation */
	bool intremap_off;  /* intremap=off: interrupts not remapped */
	bool efi_early_dma; /* efi=no_disable_early_pci_dma: bus mastering left on at boot */
	char weakening[96]; /* the arguments that weaken, as written, space-separated */
};

/* Parses len bytes of a command line (NUL bytes end it). Never fails: what it does not know it
 * leaves alone. */
void hw_cmdline_parse(const char *line, size_t len, struct hw_cmdline *ret);

/*
 * The same, and also writes into report (size bytes, NUL-terminated, may be NULL) the kernel's
 * arguments (not init's, after "--") that bear on the IOMMU or DMA (hw_cmdline_relevant() of the
 * name, a leading quote aside), as written, space-separated,
 * bytes outside printable ASCII as '?'; the audit's report shows them. A report of len + 1 bytes
 * holds them all.
 */
void hw_cmdline_parse_report(const char *line, size_t len, struct hw_cmdline *ret, char *report,
			     size_t size);

/* Whether an argument (n bytes, "name" or "name=value") bears on the IOMMU or DMA: IOMMU, VFIO,
 * swiotlb, pci=, Thunderbolt, EFI, module blacklists, lockdown and module signing options. */
bool hw_cmdline_relevant(const char *arg, size_t n);

static inline bool hw_cmdline_weakened(const struct hw_cmdline *c)
{
	return c->intel_off || c->amd_off || c->no_iommu || c->passthrough || c->soft ||
	       c->intremap_off || c->efi_early_dma;
}
