/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Bursts of kernel lines per function (dma_fault.h): a card probing memory makes thousands of
 * DMA faults a second (the kernel rate-limits its own log to about 10 a burst, but a card can
 * keep one going for hours). The first line of a burst is an event at once, so that an alert
 * follows within a second; the rest of the window is one event with the count and the first
 * HW_BURST_ADDRS distinct addresses. Memory is fixed: HW_BURST_SLOTS bursts at a time, and at
 * most HW_BURST_PER_SOURCE of one source (the driver that printed the lines, and whether they
 * were in the log before the reader opened it), so that no source, a flood of old records
 * included, takes the slots a card's faults need; lines beyond that are counted as dropped (the
 * caller reports the count as a loss).
 */
#include <stdio.h>
#include <string.h>

#include "common/macro.h"
#include "common/strutil.h"
#include "dma_fault.h"

static uint64_t window(const struct hw_bursts *b)
{
	return b->window_ns ? b->window_ns : HW_BURST_WINDOW_NS;
}

static void note_addr(struct hw_burst_report *r, const struct hw_kline *l)
{
	if (!l->has_fault_addr)
		return;
	for (unsigned i = 0; i < r->n_addrs; i++)
		if (r->addrs[i] == l->fault_addr)
			return;
	if (r->n_addrs < HW_BURST_ADDRS)
		r->addrs[r->n_addrs++] = l->fault_addr;
}

static void emit(struct hw_bursts *b, const struct hw_burst_report *r, hw_burst_cb cb, void *ud)
{
	b->reports++;
	cb(r, ud);
}

void hw_bursts_add(struct hw_bursts *b, const struct hw_kline *l, uint64_t now_ns, hw_burst_cb cb,
		   void *ud)
{
	struct hw_burst_slot *free_slot = NULL;
	struct hw_burst_report first = {0};
	unsigned same_source = 0;

	b->lines++;
	for (unsigned i = 0; i < HW_BURST_SLOTS; i++) {
		struct hw_burst_slot *s = &b->slot[i];

		if (!s->used) {
			if (!free_slot)
				free_slot = s;
			continue;
		}
		if (s->rep.kind != l->kind || s->rep.historical != l->historical ||
		    strcmp(s->rep.addr, l->addr) != 0) {
			if (s->rep.historical == l->historical &&
			    strcmp(s->rep.source, l->source) == 0)
				same_source++;
			continue;
		}
		if (now_ns < s->window_end_ns) {
			s->rep.count++;
			note_addr(&s->rep, l);
			return;
		}
		/* its window is over (no tick yet): close it, this line opens the next */
		if (s->rep.count)
			emit(b, &s->rep, cb, ud);
		s->used = false;
		free_slot = s;
		same_source = 0; /* it takes the slot it had */
		break;
	}
	if (!free_slot || same_source >= HW_BURST_PER_SOURCE) {
		b->dropped++;
		return;
	}
	first.kind = l->kind;
	strscpy_ok(first.addr, l->addr, sizeof(first.addr));
	strscpy_ok(first.source, l->source, sizeof(first.source));
	strscpy_ok(first.reason, l->reason, sizeof(first.reason));
	strscpy_ok(first.driver, l->driver, sizeof(first.driver));
	first.historical = l->historical;
	first.count = 1;
	first.first = true;
	note_addr(&first, l);
	emit(b, &first, cb, ud);

	memset(free_slot, 0, sizeof(*free_slot));
	free_slot->used = true;
	free_slot->rep = first;
	free_slot->rep.count = 0;
	free_slot->rep.first = false;
	free_slot->rep.n_addrs = 0;
	free_slot->window_end_ns = now_ns + window(b);
}

void hw_bursts_tick(struct hw_bursts *b, uint64_t now_ns, bool flush, hw_burst_cb cb, void *ud)
{
	for (unsigned i = 0; i < HW_BURST_SLOTS; i++) {
		struct hw_burst_slot *s = &b->slot[i];

		if (!s->used || (!flush && now_ns < s->window_end_ns))
			continue;
		if (s->rep.count)
			emit(b, &s->rep, cb, ud);
		s->used = false;
	}
}

void hw_burst_describe(const struct hw_burst_report *rep, char *buf, size_t size)
{
	size_t len;

	snprintf(buf, size, "%s; %llu %s", rep->reason, (unsigned long long)rep->count,
		 rep->count == 1 ? "line" : "lines");
	len = strlen(buf);
	for (unsigned i = 0; i < rep->n_addrs && len + 24 < size; i++) {
		snprintf(buf + len, size - len, "%s%#llx", i ? " " : " at ",
			 (unsigned long long)rep->addrs[i]);
		len = strlen(buf);
	}
}
