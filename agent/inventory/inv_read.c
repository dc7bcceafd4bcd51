/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Reading sysfs below a root: paths, one-line attributes, links, directory listings (inv_read.h).
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "inv_internal.h"
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
	int r;

	buf[0] = 0;
	r = root_read_line(root, path, buf, size);
	if (r < 0) {
		buf[0] = 0;
		/* An optional attribute may be absent or empty (rxe's and siw's fw_ver is ""). */
		if ((r != -ENOENT && r != -ENODATA) || mode == INV_ATTR_REQUIRED)
			inv_errors_add(errs, "%s: %s", path,
				       r == -ENOENT ? "missing" : inv_strerror(r));
	}
	return r;
}

int inv_attr_u32(const struct rg_root *root, struct inv_errors *errs, int mode, const char *path,
		 int base, uint32_t *ret)
{
	char buf[64];
	int r;

	r = inv_attr(root, errs, mode, path, buf, sizeof(buf));
	if (r < 0)
		return r;
	r = safe_atou32(buf, base, ret);
	if (r < 0)
		inv_errors_add(errs, "%s: not a number: '%.32s'", path, buf);
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

void inv_strv_free(char **v, unsigned n)
{
	unsigned i;

	if (!v)
		return;
	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

int inv_list_dir(const struct rg_root *root, const char *path, unsigned max, char ***ret,
		 bool *ret_truncated)
{
	/* Keeps the max smallest names (version order), so that a cap cuts deterministically;
	 * examines at most 16 * max + 4096 entries of a directory. */
	unsigned long scan_max = 16ul * max + 4096, scanned = 0;
	DIR *d;
	struct dirent *de;
	char **v = NULL;
	unsigned n = 0, cap = 0;
	bool truncated = false;

	*ret = NULL;
	if (ret_truncated)
		*ret_truncated = false;
	if (max == 0)
		return -EINVAL;
	d = root_opendir(root, path);
	if (!d)
		return -errno;
	for (;;) {
		unsigned lo, hi;
		char *name;

		errno = 0;
		de = readdir(d);
		if (!de)
			break;
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (++scanned > scan_max) {
			truncated = true;
			break;
		}
		if (n == max) {
			truncated = true;
			if (strverscmp(de->d_name, v[n - 1]) >= 0)
				continue;
			free(v[--n]); /* the largest makes room */
		}
		if (n == cap) {
			unsigned ncap = cap ? cap * 2 : 16;
			char **nv;

			if (ncap > max)
				ncap = max;
			nv = realloc(v, ncap * sizeof(*v));
			if (!nv)
				goto oom;
			v = nv;
			cap = ncap;
		}
		name = strdup(de->d_name);
		if (!name)
			goto oom;
		lo = 0;
		hi = n;
		while (lo < hi) {
			unsigned mid = (lo + hi) / 2;

			if (strverscmp(v[mid], name) <= 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		memmove(v + lo + 1, v + lo, (n - lo) * sizeof(*v));
		v[lo] = name;
		n++;
	}
	closedir(d);
	for (unsigned i = 0; i < n; i++)
		str_sanitize(v[i]);
	*ret = v;
	if (ret_truncated)
		*ret_truncated = truncated;
	return (int)n;
oom:
	closedir(d);
	inv_strv_free(v, n);
	return -ENOMEM;
}
