/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Hex digits and hex encoding. */
#pragma once

#include <stddef.h>

/* The value of a hex digit (either case), or -1. */
int hex_digit(char c);
/* n bytes as 2n lowercase hex digits + NUL. */
void hex_encode(const void *in, size_t n, char *out);
