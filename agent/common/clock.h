/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Clocks in nanoseconds, and the kernel's clock tick. */
#pragma once

#include <stdint.h>

uint64_t now_realtime_ns(void);
uint64_t now_boottime_ns(void);
uint64_t now_monotonic_ns(void);
/* CLOCK_REALTIME - CLOCK_BOOTTIME, to turn kernel boot-relative stamps into wall-clock time. */
uint64_t boot_to_realtime_offset_ns(void);

/* Kernel clock ticks per second for /proc/PID/stat start times. */
long clock_ticks_per_sec(void);
