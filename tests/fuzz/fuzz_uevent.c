/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * uevent_parse(): a NETLINK_KOBJECT_UEVENT message ("ACTION@DEVPATH\0KEY=VALUE\0..."), which
 * the agent reads for RDMA devices and modules coming and going. Input: the message, in an
 * exact-size allocation. Properties: a parsed uevent has NUL-terminated, non-empty action,
 * subsystem and devpath within their arrays.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "sensors/uevent.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_quiet();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size ? size : 1);
	struct uevent u;

	if (!buf)
		abort();
	if (size)
		memcpy(buf, data, size);
	memset(&u, 0x55, sizeof(u));
	if (uevent_parse(buf, size, &u) == 0) {
		FUZZ_ASSERT(memchr(u.action, 0, sizeof(u.action)) && u.action[0], "action");
		FUZZ_ASSERT(memchr(u.subsystem, 0, sizeof(u.subsystem)) && u.subsystem[0],
			    "subsystem");
		FUZZ_ASSERT(memchr(u.devpath, 0, sizeof(u.devpath)) && u.devpath[0], "devpath");
		FUZZ_ASSERT(memchr(u.name, 0, sizeof(u.name)), "name");
	}
	free(buf);
	return 0;
}
