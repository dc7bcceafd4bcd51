/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Small parsers and names of the inventory: GIDs, PCI addresses, name lists, port states
 * (inv_strings.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "inv_internal.h"
#include "common/hex.h"
#include "common/strutil.h"

int inv_parse_gid(const char *s, uint8_t gid[16])
{
	unsigned i;

	/* Exactly 8 groups of 4 hex digits separated by ':' (39 characters). */
	if (strlen(s) != 39)
		return -EINVAL;
	for (i = 0; i < 8; i++) {
		const char *g = s + i * 5;
		unsigned v = 0, k;

		for (k = 0; k < 4; k++) {
			int h = hex_digit(g[k]);

			if (h < 0)
				return -EINVAL;
			v = v * 16 + (unsigned)h;
		}
		if (i < 7 && g[4] != ':')
			return -EINVAL;
		gid[2 * i] = (uint8_t)(v >> 8);
		gid[2 * i + 1] = (uint8_t)v;
	}
	return 0;
}

void inv_strcpy(char *dst, size_t size, const char *src)
{
	if (size == 0)
		return;
	strscpy_ok(dst, src ? src : "", size);
	str_sanitize(dst);
}

bool inv_name_add(char (*list)[64], unsigned *n, unsigned max, const char *name)
{
	unsigned i;

	if (!name || !*name)
		return true;
	for (i = 0; i < *n; i++)
		if (strcmp(list[i], name) == 0)
			return true;
	if (*n >= max)
		return false;
	inv_strcpy(list[*n], 64, name);
	(*n)++;
	return true;
}

const char *inv_port_state_name(uint32_t state)
{
	static const char *const names[] = {"NOP",   "DOWN",   "INIT",
					    "ARMED", "ACTIVE", "ACTIVE_DEFER"};

	return state < ARRAY_SIZE(names) ? names[state] : NULL;
}

const char *inv_phys_state_name(uint32_t state)
{
	/* As `rdma link` prints them (include/rdma/ib_verbs.h enum ib_port_phys_state). */
	static const char *const names[] = {
	    NULL,
	    "SLEEP",
	    "POLLING",
	    "DISABLED",
	    "PORT_CONFIGURATION_TRAINING",
	    "LINK_UP",
	    "LINK_ERROR_RECOVERY",
	    "PHY_TEST",
	};

	return state < ARRAY_SIZE(names) ? names[state] : NULL;
}
