/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Interrupt counters of a function's vectors, and the daemon's window over them (irq_watch.h). */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hw/irq_watch.h"
#include "hw/pci_ids.h"
#include "common/number.h"
#include "common/strutil.h"

#define SYS_PCI "/sys/bus/pci/devices"

bool hw_irq_class_breathes(uint32_t class_code)
{
	unsigned base = class_code >> 16;

	return base == 0x02 || base == 0x0d;
}

static bool wanted(unsigned irq, const unsigned *irqs, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		if (irqs[i] == irq)
			return true;
	return false;
}

uint64_t hw_irq_count(const char *text, size_t len, const unsigned *irqs, unsigned n)
{
	uint64_t total = 0;
	size_t off = 0;

	while (off < len) {
		const char *nl = memchr(text + off, '\n', len - off);
		size_t l = nl ? (size_t)(nl - (text + off)) : len - off, i = 0;
		const char *p = text + off;
		unsigned irq = 0;
		bool num = false;

		off += l + 1;
		while (i < l && p[i] == ' ')
			i++;
		/* "  37:   0   5095   PCI-MSIX-0000:00:03.0 ..." */
		for (; i < l && p[i] >= '0' && p[i] <= '9' && irq < 100000000; i++, num = true)
			irq = irq * 10 + (unsigned)(p[i] - '0');
		if (!num || i >= l || p[i] != ':' || !wanted(irq, irqs, n))
			continue;
		for (i++;;) {
			uint64_t v = 0;
			bool digits = false;

			while (i < l && p[i] == ' ')
				i++;
			for (; i < l && p[i] >= '0' && p[i] <= '9'; i++, digits = true)
				if (v < UINT64_MAX / 16)
					v = v * 10 + (uint64_t)(p[i] - '0');
			if (!digits || (i < l && p[i] != ' '))
				break; /* the chip's name: the counts ended */
			total = total > UINT64_MAX - v ? UINT64_MAX : total + v;
		}
	}
	return total;
}

/* A netdev of the function is up. */
static bool netdev_up(const struct rg_root *root, const char *addr)
{
	char path[256], buf[32];
	struct dirent *de;
	unsigned seen = 0;
	bool up = false;
	DIR *d;

	snprintf(path, sizeof(path), SYS_PCI "/%s/net", addr);
	d = root_opendir(root, path);
	if (!d)
		return false;
	while (!up && (de = readdir(d)) && seen++ < 64) {
		if (de->d_name[0] == '.' ||
		    !snprintf_ok(path, sizeof(path), SYS_PCI "/%s/net/%s/operstate", addr,
				 de->d_name))
			continue;
		up = root_read_line(root, path, buf, sizeof(buf)) > 0 && strcmp(buf, "up") == 0;
	}
	closedir(d);
	return up;
}

int hw_irq_sample(const struct rg_root *root, const char *addr, struct hw_irq_sample *ret)
{
	_cleanup_free_ char *text = NULL;
	unsigned irqs[HW_IRQ_MAX_VECTORS], n = 0, seen = 0;
	char path[128];
	struct dirent *de;
	size_t len = 0;
	DIR *d;
	int r;

	memset(ret, 0, sizeof(*ret));
	if (!hw_is_pci_addr(addr))
		return -EINVAL;
	snprintf(path, sizeof(path), SYS_PCI "/%s/msi_irqs", addr);
	d = root_opendir(root, path);
	if (d) {
		while ((de = readdir(d)) && seen++ < 4096 && n < HW_IRQ_MAX_VECTORS) {
			uint32_t v;

			if (safe_atou32(de->d_name, 10, &v) == 0)
				irqs[n++] = v;
		}
		closedir(d);
	}
	ret->vectors = n;
	ret->up = netdev_up(root, addr);
	if (!n)
		return 0;
	r = root_read_file(root, "/proc/interrupts", 4u << 20, &text, &len, NULL);
	if (r < 0)
		return r;
	ret->count = hw_irq_count(text, len, irqs, n);
	return 0;
}

static int find(const struct hw_irq_watch *w, const char *addr)
{
	for (unsigned i = 0; i < w->n; i++)
		if (strcmp(w->w[i].addr, addr) == 0)
			return (int)i;
	return -1;
}

static void drop(struct hw_irq_watch *w, int i)
{
	w->w[i] = w->w[--w->n];
}

void hw_irq_watch_check(struct hw_irq_watch *w, const struct rg_root *root, struct hw_scan *s,
			uint64_t now_ns, uint64_t window_ns,
			void (*cb)(const struct hw_fn *fn, void *ud), void *ud)
{
	/* Who left the machine leaves the watch. */
	for (unsigned i = 0; i < w->n;)
		if (!hw_scan_find(s, w->w[i].addr))
			drop(w, (int)i);
		else
			i++;
	for (unsigned i = 0; i < s->n; i++) {
		struct hw_fn *fn = &s->fn[i];
		struct hw_irq_sample smp;
		int k = find(w, fn->addr);

		if (!hw_irq_class_breathes(fn->class_code) ||
		    hw_irq_sample(root, fn->addr, &smp) < 0 || !smp.up || !smp.vectors ||
		    smp.count) {
			if (k >= 0)
				drop(w, k);
			continue;
		}
		if (k < 0) {
			if (w->n < HW_IRQ_WATCH_MAX) {
				(void)strscpy_ok(w->w[w->n].addr, fn->addr, sizeof(w->w[0].addr));
				w->w[w->n++].since_ns = now_ns;
			}
			continue;
		}
		if (now_ns - w->w[k].since_ns < window_ns)
			continue;
		drop(w, k);
		fn->not_breathing = true;
		fn->facts |= RG_PCI_FACT_NOT_BREATHING;
		cb(fn, ud);
	}
}
