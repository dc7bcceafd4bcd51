/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * kmsg_parse() and hw_kline_parse(): a /dev/kmsg record as read() returns it, then the kernel's
 * DMA fault, AER and link lines of the hardware layer (agent/hw/kmsg.h, dma_fault.h), and the
 * burst aggregation over them. Input: the record, in an exact-size allocation. Properties: the
 * record's strings are terminated and free of control bytes; a parsed line names a canonical
 * function address ("SSSS:BB:DD.F"), a known kind and source; a taken line is taken only whole:
 * the same text after a task's name ("x[1]: "), with anything after it, from user space or as a
 * continuation is not taken; bursts never report more lines than were added, and a burst's
 * description fits its buffer.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "hw/dma_fault.h"
#include "hw/kmsg.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_quiet();
	return 0;
}

static uint64_t reported;

static void count(const struct hw_burst_report *rep, void *ud)
{
	char text[96];

	reported += rep->count;
	FUZZ_ASSERT(rep->n_addrs <= HW_BURST_ADDRS, "addresses");
	hw_burst_describe(rep, text, sizeof(text));
	FUZZ_ASSERT(memchr(text, 0, sizeof(text)), "description");
}

static void check_str(const char *s, size_t size, const char *what)
{
	const char *end = memchr(s, 0, size);

	FUZZ_ASSERT(end, "%s not terminated", what);
	for (; s < end; s++)
		FUZZ_ASSERT((unsigned char)*s >= 0x20 && *s != 0x7f, "control byte in %s", what);
}

/* The record's text with something before or after it, or not from the kernel: not taken. */
static void not_taken_unless_whole(const struct kmsg_record *rec)
{
	static struct kmsg_record r2;
	struct hw_kline l;

	r2 = *rec;
	memcpy(r2.text, "x[1]: ", 6);
	memcpy(r2.text + 6, rec->text, sizeof(r2.text) - 7);
	r2.text[sizeof(r2.text) - 1] = 0;
	FUZZ_ASSERT(!hw_kline_parse(&r2, &l), "taken after a prefix: %s", r2.text);
	r2 = *rec;
	if (strlen(rec->text) + 10 < sizeof(r2.text)) {
		strcat(r2.text, "[55e1+1]");
		FUZZ_ASSERT(!hw_kline_parse(&r2, &l), "taken with a suffix: %s", r2.text);
	}
	r2 = *rec;
	r2.facility = 1;
	FUZZ_ASSERT(!hw_kline_parse(&r2, &l), "taken from user space");
	r2 = *rec;
	r2.cont = true;
	FUZZ_ASSERT(!hw_kline_parse(&r2, &l), "taken as a continuation");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct hw_bursts b;
	char *buf = malloc(size ? size : 1);
	struct kmsg_record rec;
	struct hw_kline l;

	if (!buf)
		abort();
	if (size)
		memcpy(buf, data, size);
	memset(&rec, 0x55, sizeof(rec));
	if (kmsg_parse(buf, size, &rec) == 0) {
		check_str(rec.text, sizeof(rec.text), "text");
		check_str(rec.subsystem, sizeof(rec.subsystem), "subsystem");
		check_str(rec.device, sizeof(rec.device), "device");
		if (hw_kline_parse(&rec, &l)) {
			char again[16];

			FUZZ_ASSERT(l.kind > HW_KLINE_NONE && l.kind < HW_KLINE__MAX, "kind");
			FUZZ_ASSERT(strlen(l.addr) == 12 && hw_parse_bdf(l.addr, again) == 12 &&
					strcmp(again, l.addr) == 0,
				    "address %s", l.addr);
			FUZZ_ASSERT(l.source[0] && memchr(l.source, 0, sizeof(l.source)), "source");
			FUZZ_ASSERT(memchr(l.reason, 0, sizeof(l.reason)), "reason");
			not_taken_unless_whole(&rec);
			memset(&b, 0, sizeof(b));
			reported = 0;
			for (unsigned i = 0; i < 3; i++)
				hw_bursts_add(&b, &l, i, count, NULL);
			hw_bursts_tick(&b, 1, true, count, NULL);
			FUZZ_ASSERT(reported == 3 && b.lines == 3, "lines %llu", (unsigned long long)reported);
		}
	}
	free(buf);
	return 0;
}
