/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Reading sysfs below a root: paths, one-line attributes, links (inv_read.h). */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "inv_internal.h"
#include "common/listdir.h"
#include "common/number.h"
#include "common/root.h"
#include "common/strutil.h"

int inv_path(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -EINVAL;
	if ((size_t)n >= size)
		return -ENAMETOOLONG;
	return 0;
}

int inv_attr(const struct rg_root *root, struct inv_errors *errs, int mode, const char *path,
	     char *buf, size_t size)
{
	char why[64];
	int r = root_read_attr(root, path, mode == INV_ATTR_REQUIRED, buf, size, 0, NULL, why,
			       sizeof(why));

	if (why[0])
		inv_errors_add(errs, "%s: %s", path, why);
	return r;
}

int inv_attr_u32(const struct rg_root *root, struct inv_errors *errs, int mode, const char *path,
		 int base, uint32_t *ret)
{
	char buf[64], why[64];
	int r = root_read_attr(root, path, mode == INV_ATTR_REQUIRED, buf, sizeof(buf), base, ret,
			       why, sizeof(why));

	if (why[0])
		inv_errors_add(errs, "%s: %s", path, why);
	return r;
}

int inv_attr_numbered(const struct rg_root *root, struct inv_errors *errs, int mode,
		      const char *path, uint32_t *ret_num, char *text, size_t textsize)
{
	char buf[128], *colon, *t;
	int r;

	r = inv_attr(root, errs, mode, path, buf, sizeof(buf));
	if (r < 0)
		return r;
	colon = strchr(buf, ':');
	if (colon)
		*colon = 0;
	r = safe_atou32(strstrip(buf), 10, ret_num);
	if (r < 0 || !colon) {
		if (colon)
			*colon = ':';
		inv_errors_add(errs, "%s: expected 'N: name', got '%.32s'", path, buf);
		return -EINVAL;
	}
	t = strstrip(colon + 1);
	inv_strcpy(text, textsize, t);
	return 0;
}

int inv_normalize(const char *in, char *out, size_t size)
{
	size_t len = 0;
	const char *p = in, *e;

	if (!in || in[0] != '/' || size < 2)
		return -EINVAL;
	out[0] = 0;
	while (*p) {
		size_t n;

		while (*p == '/')
			p++;
		if (!*p)
			break;
		e = strchrnul(p, '/');
		n = (size_t)(e - p);
		if (n == 1 && p[0] == '.') {
			/* nothing */
		} else if (n == 2 && p[0] == '.' && p[1] == '.') {
			while (len > 0 && out[len - 1] != '/')
				len--;
			if (len > 0)
				len--; /* the slash */
			out[len] = 0;
		} else {
			if (len + 1 + n + 1 > size)
				return -ENAMETOOLONG;
			out[len++] = '/';
			memcpy(out + len, p, n);
			len += n;
			out[len] = 0;
		}
		p = e;
	}
	if (len == 0) {
		out[0] = '/';
		out[1] = 0;
	}
	return 0;
}

int inv_resolve(const struct rg_root *root, const char *path, char *out, size_t size)
{
	char target[4096], joined[8192];
	const char *slash;
	int r;

	r = root_readlink(root, path, target, sizeof(target));
	if (r == -EINVAL)
		return inv_normalize(path, out, size); /* not a link */
	if (r < 0)
		return r;
	if (target[0] == '/')
		return inv_normalize(target, out, size);
	slash = strrchr(path, '/');
	if (!slash)
		return -EINVAL;
	if (inv_path(joined, sizeof(joined), "%.*s/%s", (int)(slash - path), path, target) < 0)
		return -ENAMETOOLONG;
	return inv_normalize(joined, out, size);
}

int inv_link_basename(const struct rg_root *root, const char *path, char *out, size_t size)
{
	char target[4096];
	const char *b;
	int r;

	out[0] = 0;
	r = root_readlink(root, path, target, sizeof(target));
	if (r < 0)
		return r;
	while (r > 1 && target[r - 1] == '/')
		target[--r] = 0;
	b = strrchr(target, '/');
	b = b ? b + 1 : target;
	if (!*b)
		return -EINVAL;
	inv_strcpy(out, size, b);
	return 0;
}
