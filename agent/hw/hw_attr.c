/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sysfs attributes with the errors the report shows (hw_attr.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

#include "common/listdir.h"
#include "hw/hw_attr.h"

void hw_errors_add(struct hw_errors *e, const char *fmt, ...)
{
	va_list ap;

	if (!e)
		return;
	if (e->n >= HW_MAX_ERRORS) {
		e->dropped++;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(e->msg[e->n], sizeof(e->msg[0]), fmt, ap);
	va_end(ap);
	str_sanitize(e->msg[e->n++]);
}

int hw_attr(const struct rg_root *root, struct hw_errors *e, bool required, const char *path,
	    char *buf, size_t size)
{
	int r;

	buf[0] = 0;
	r = root_read_line(root, path, buf, size);
	if (r < 0) {
		buf[0] = 0;
		/* An optional attribute may be absent or empty. */
		if ((r != -ENOENT && r != -ENODATA) || required)
			hw_errors_add(e, "%s: %s", path,
				      r == -ENOENT ? "missing" : read_strerror(r));
	}
	return r < 0 ? r : 0;
}

int hw_attr_u32(const struct rg_root *root, struct hw_errors *e, bool required, const char *path,
		int base, uint32_t *ret)
{
	char buf[64];
	int r;

	r = hw_attr(root, e, required, path, buf, sizeof(buf));
	if (r < 0)
		return r;
	r = safe_atou32(buf, base, ret);
	if (r < 0)
		hw_errors_add(e, "%s: not a number: '%.32s'", path, buf);
	return r;
}
