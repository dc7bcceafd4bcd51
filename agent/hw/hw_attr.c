/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sysfs attributes with the errors the report shows (hw_attr.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

#include "common/listdir.h"
#include "common/strutil.h"
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
	char why[64];
	int r = root_read_attr(root, path, required, buf, size, 0, NULL, why, sizeof(why));

	if (why[0])
		hw_errors_add(e, "%s: %s", path, why);
	return r < 0 ? r : 0;
}

int hw_attr_u32(const struct rg_root *root, struct hw_errors *e, bool required, const char *path,
		int base, uint32_t *ret)
{
	char buf[64], why[64];
	int r = root_read_attr(root, path, required, buf, sizeof(buf), base, ret, why, sizeof(why));

	if (why[0])
		hw_errors_add(e, "%s: %s", path, why);
	return r;
}
