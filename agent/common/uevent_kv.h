/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The fields of a kernel uevent message, "ACTION@DEVPATH\0KEY=VALUE\0...": the one reader of
 * that format, for the sensors' RDMA device events and the hardware layer's PCI events.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

struct uevent_kv {
	const char *p, *end;
};

/* Checks the "ACTION@DEVPATH" header of buf[0..len). 0, or -EINVAL (libudev's messages too). */
int uevent_kv_init(struct uevent_kv *it, const char *buf, size_t len);
/* The next KEY=VALUE field: true with the key and value (not NUL-terminated) set; false at the
 * end. Fields without '=' are skipped. */
bool uevent_kv_next(struct uevent_kv *it, const char **key, size_t *klen, const char **val,
		    size_t *vlen);
/* Whether the key of klen bytes is name. */
static inline bool uevent_kv_is(const char *key, size_t klen, const char *name)
{
	return klen == strlen(name) && memcmp(key, name, klen) == 0;
}
/* Copies a value of n bytes into dst (size bytes): cut to fit, NUL-terminated, sanitised. */
void uevent_kv_copy(char *dst, size_t size, const char *val, size_t n);
