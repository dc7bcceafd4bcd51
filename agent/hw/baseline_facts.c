/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The seat baseline's part in a scan's facts (hw_facts_baseline(), pci.h): which functions the
 * baseline has as they are, and which of two functions sharing a DSN is the original. Above both
 * the facts (pci_facts.c) and the baseline (baseline.c), so that neither calls the other.
 */
#include <string.h>

#include "common/strutil.h"
#include "hw/baseline.h"
#include "hw/hw-internal.h"

void hw_facts_baseline(struct hw_scan *s, const struct hw_baseline *b)
{
	for (unsigned i = 0; s && i < s->n; i++)
		s->fn[i].in_baseline = hw_baseline_covers(b, &s->fn[i], true);
	for (unsigned i = 0; s && i < s->n; i++) {
		struct hw_fn *fn = &s->fn[i];

		if (!(fn->facts & RG_PCI_FACT_DSN_DUPLICATE))
			continue;
		for (unsigned k = 0; k < s->n; k++) {
			const struct hw_fn *o = &s->fn[k];

			if (k == i || hw_fn_same_device(fn, o) || !o->has_dsn || o->dsn != fn->dsn)
				continue;
			if (fn->in_baseline && !o->in_baseline) {
				fn->facts &= ~(uint32_t)RG_PCI_FACT_DSN_DUPLICATE;
				fn->dsn_original[0] = 0;
				break;
			}
			if (o->in_baseline && !fn->in_baseline)
				(void)strscpy_ok(fn->dsn_original, o->addr,
						 sizeof(fn->dsn_original));
		}
	}
}
