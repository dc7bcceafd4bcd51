/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Clocks in nanoseconds and the kernel's clock tick (clock.h). */
#include <time.h>
#include <unistd.h>

#include "clock.h"

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t now_realtime_ns(void)
{
	return clock_ns(CLOCK_REALTIME);
}

uint64_t now_boottime_ns(void)
{
	return clock_ns(CLOCK_BOOTTIME);
}

uint64_t now_monotonic_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

uint64_t boot_to_realtime_offset_ns(void)
{
	/* Bracket the realtime read by two boottime reads to halve the error. */
	uint64_t b1 = now_boottime_ns();
	uint64_t rt = now_realtime_ns();
	uint64_t b2 = now_boottime_ns();
	return rt - (b1 + (b2 - b1) / 2);
}

long clock_ticks_per_sec(void)
{
	static long hz;

	if (!hz) {
		hz = sysconf(_SC_CLK_TCK);
		if (hz <= 0)
			hz = 100;
	}
	return hz;
}
