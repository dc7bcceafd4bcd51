/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Directory listing and read-failure descriptions below a root (listdir.h). */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/listdir.h"
#include "common/number.h"
#include "common/strutil.h"

const char *read_strerror(int r)
{
	switch (r) {
	case -ENODATA:
		return "empty";
	case -E2BIG:
		return "value too long";
	case -EBADFD:
		return "not a regular file";
	case -ELOOP:
		return "symbolic link loop";
	case -ENAMETOOLONG:
		return "path too long";
	case -EINVAL:
		return "invalid value";
	case -ERANGE:
		return "number out of range";
	default:
		return strerror(r < 0 ? -r : r);
	}
}

void strv_free(char **v, unsigned n)
{
	unsigned i;

	if (!v)
		return;
	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

int root_list_dir(const struct rg_root *root, const char *path, unsigned max, char ***ret,
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
	strv_free(v, n);
	return -ENOMEM;
}

int root_read_attr(const struct rg_root *root, const char *path, bool required, char *buf,
		   size_t size, int base, uint32_t *ret, char *why, size_t why_size)
{
	int r;

	why[0] = buf[0] = 0;
	r = root_read_line(root, path, buf, size);
	if (r < 0) {
		buf[0] = 0;
		/* An optional attribute may be absent or empty (rxe's and siw's fw_ver is ""). */
		if ((r != -ENOENT && r != -ENODATA) || required)
			snprintf(why, why_size, "%s", r == -ENOENT ? "missing" : read_strerror(r));
		return r;
	}
	if (ret) {
		r = safe_atou32(buf, base, ret);
		if (r < 0)
			snprintf(why, why_size, "not a number: '%.32s'", buf);
		return r;
	}
	return 0;
}
