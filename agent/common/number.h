/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Strict number parsing: the whole string, no sign for unsigned, no overflow. */
#pragma once

#include <stdint.h>

/* 0 or -EINVAL/-ERANGE. */
int safe_atou64(const char *s, int base, uint64_t *ret);
int safe_atou32(const char *s, int base, uint32_t *ret);
int safe_atoi(const char *s, int *ret);
