/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The fields of a kernel uevent message (uevent_kv.h). */
#include <errno.h>
#include <string.h>

#include "strutil.h"
#include "uevent_kv.h"

int uevent_kv_init(struct uevent_kv *it, const char *buf, size_t len)
{
	size_t n;

	it->p = it->end = NULL;
	if (!buf || len == 0)
		return -EINVAL;
	n = strnlen(buf, len);
	if (buf[0] == '@' || !memchr(buf, '@', n))
		return -EINVAL;
	it->p = buf + n + 1;
	it->end = buf + len; /* not before the check: NULL + 0 is undefined */
	return 0;
}

bool uevent_kv_next(struct uevent_kv *it, const char **key, size_t *klen, const char **val,
		    size_t *vlen)
{
	while (it->p && it->p < it->end) {
		size_t n = strnlen(it->p, (size_t)(it->end - it->p));
		const char *p = it->p, *eq = memchr(p, '=', n);

		it->p += n + 1;
		if (!eq)
			continue;
		*key = p;
		*klen = (size_t)(eq - p);
		*val = eq + 1;
		*vlen = n - *klen - 1;
		return true;
	}
	return false;
}

void uevent_kv_copy(char *dst, size_t size, const char *val, size_t n)
{
	if (n >= size)
		n = size - 1;
	memcpy(dst, val, n);
	dst[n] = 0;
	str_sanitize(dst);
}
