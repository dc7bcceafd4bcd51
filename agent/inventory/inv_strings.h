/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Small parsers and names of the inventory (inv_strings.c). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Parses a sysfs GID "fe80:0000:0000:0000:0202:c9ff:fe31:7e40" into 16 bytes. */
int inv_parse_gid(const char *s, uint8_t gid[16]);
/* Copies a sanitised, bounded string (control bytes become '?'). */
void inv_strcpy(char *dst, size_t size, const char *src);
/* Appends name to a fixed list of names if not there yet; false when full. */
bool inv_name_add(char (*list)[64], unsigned *n, unsigned max, const char *name);

/* Port state names as the kernel prints them, and as `rdma link` prints them. */
const char *inv_port_state_name(uint32_t state);
const char *inv_phys_state_name(uint32_t state);
