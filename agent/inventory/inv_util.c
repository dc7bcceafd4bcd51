/* SPDX-License-Identifier: GPL-2.0-or-later */
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

void inv_errors_addv(struct inv_errors *e, const char *fmt, va_list ap)
{
	char buf[1024];

	if (!e)
		return;
	if (e->n >= INV_MAX_ERRORS) {
		e->dropped++;
		return;
	}
	vsnprintf(buf, sizeof(buf), fmt, ap);
	str_sanitize(buf);
	e->msg[e->n] = strdup(buf);
	if (e->msg[e->n])
		e->n++;
	else
		e->dropped++;
}

void inv_errors_add(struct inv_errors *e, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	inv_errors_addv(e, fmt, ap);
	va_end(ap);
}

void inv_errors_free(struct inv_errors *e)
{
	unsigned i;

	if (!e)
		return;
	for (i = 0; i < e->n; i++)
		free(e->msg[i]);
	e->n = 0;
	e->dropped = 0;
}

void inv_section_free(struct inv_section *s)
{
	free(s->error);
	free(s->note);
	s->error = s->note = NULL;
	inv_errors_free(&s->errors);
	inv_errors_free(&s->truncated);
}

static _printf_(1, 0) char *vformat(const char *fmt, va_list ap)
{
	char buf[1024];

	vsnprintf(buf, sizeof(buf), fmt, ap);
	str_sanitize(buf);
	return strdup(buf);
}

void inv_section_error(struct inv_section *s, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (s->error)
		inv_errors_addv(&s->errors, fmt, ap); /* the first reason stays "error" */
	else
		s->error = vformat(fmt, ap);
	va_end(ap);
}

void inv_section_note(struct inv_section *s, const char *fmt, ...)
{
	va_list ap;

	free(s->note);
	va_start(ap, fmt);
	s->note = vformat(fmt, ap);
	va_end(ap);
}

void inv_section_truncated(struct inv_section *s, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	inv_errors_addv(&s->truncated, fmt, ap);
	va_end(ap);
}

const char *inv_strerror(int r)
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
			inv_errors_add(errs, "%s: %s", path, r == -ENOENT ? "missing" : inv_strerror(r));
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

int line_reader_open_fd(struct line_reader *lr, int fd, bool check_regular)
{
	struct stat st;

	lr->fd = -1;
	lr->start = lr->end = 0;
	lr->eof = false;
	lr->skipping = false;
	if (check_regular) {
		if (fstat(fd, &st) < 0) {
			int r = -errno;
			close(fd);
			return r;
		}
		if (!S_ISREG(st.st_mode)) {
			close(fd);
			return -EBADFD;
		}
	}
	lr->fd = fd;
	return 0;
}

int line_reader_open(struct line_reader *lr, const struct rg_root *root, const char *path)
{
	int fd = root_open(root, path, O_RDONLY | O_NONBLOCK | O_NOCTTY);

	if (fd < 0) {
		lr->fd = -1;
		return fd;
	}
	return line_reader_open_fd(lr, fd, true);
}

int line_reader_next(struct line_reader *lr, char **line, bool *overlong)
{
	*overlong = false;
	for (;;) {
		char *nl;
		ssize_t n;

		if (lr->start < lr->end) {
			nl = memchr(lr->buf + lr->start, '\n', lr->end - lr->start);
			if (nl) {
				char *l = lr->buf + lr->start;

				*nl = 0;
				lr->start = (size_t)(nl - lr->buf) + 1;
				if (lr->skipping) {
					lr->skipping = false;
					continue;
				}
				*line = l;
				return 1;
			}
			if (lr->eof) {
				/* A last line without a newline. */
				char *l = lr->buf + lr->start;

				lr->buf[lr->end] = 0;
				lr->start = lr->end;
				if (lr->skipping)
					return 0;
				*line = l;
				return 1;
			}
		} else if (lr->eof) {
			return 0;
		}
		/* Need more: compact, then read. */
		if (lr->start > 0) {
			memmove(lr->buf, lr->buf + lr->start, lr->end - lr->start);
			lr->end -= lr->start;
			lr->start = 0;
		}
		if (lr->end >= sizeof(lr->buf) - 1) {
			/* The line does not fit: return its beginning, skip the rest. */
			lr->buf[lr->end] = 0;
			*line = lr->buf;
			*overlong = !lr->skipping;
			lr->start = lr->end = 0;
			if (lr->skipping)
				continue;
			lr->skipping = true;
			return 1;
		}
		n = read(lr->fd, lr->buf + lr->end, sizeof(lr->buf) - 1 - lr->end);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			lr->eof = true;
		lr->end += (size_t)n;
	}
}

void line_reader_close(struct line_reader *lr)
{
	if (lr->fd >= 0)
		close(lr->fd);
	lr->fd = -1;
}

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
			if (!isxdigit((unsigned char)g[k]))
				return -EINVAL;
			v = v * 16 + (unsigned)(isdigit((unsigned char)g[k]) ?
							g[k] - '0' :
							(tolower((unsigned char)g[k]) - 'a' + 10));
		}
		if (i < 7 && g[4] != ':')
			return -EINVAL;
		gid[2 * i] = (uint8_t)(v >> 8);
		gid[2 * i + 1] = (uint8_t)v;
	}
	return 0;
}

bool inv_is_pci_addr(const char *s)
{
	unsigned dom, bus, dev, fn;
	int n = 0;

	if (sscanf(s, "%x:%2x:%2x.%1x%n", &dom, &bus, &dev, &fn, &n) != 4)
		return false;
	return s[n] == 0 && strchr(s, ':') - s >= 4;
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

static const struct {
	uint32_t id;
	const char *name;
} rdma_vendors[] = {
	{0x15b3, "Mellanox"}, {0x14e4, "Broadcom"}, {0x8086, "Intel"},	  {0x1425, "Chelsio"},
	{0x1077, "QLogic"},   {0x19e5, "Huawei"},   {0x1d0f, "Amazon"},	  {0x1ded, "Alibaba"},
	{0x1414, "Microsoft"}, {0x15ad, "VMware"},  {0x1dd8, "Pensando"}, {0x10df, "Emulex"},
	{0x1137, "Cisco"},
};

const char *inv_pci_vendor_name(uint32_t vendor)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(rdma_vendors); i++)
		if (rdma_vendors[i].id == vendor)
			return rdma_vendors[i].name;
	return NULL;
}

bool inv_pci_vendor_is_rdma_first(uint32_t vendor)
{
	static const uint32_t ids[] = {0x15b3, 0x1425, 0x1077, 0x19e5, 0x1dd8, 0x10df, 0x1137};

	for (size_t i = 0; i < ARRAY_SIZE(ids); i++)
		if (ids[i] == vendor)
			return true;
	return false;
}

bool inv_pci_driver_is_rdma(const char *driver)
{
	/* Drivers whose functions carry an RDMA device (directly or through an auxiliary device). */
	static const char *const drivers[] = {
		"mlx5_core", "mlx4_core", "bnxt_en", "ice",	  "qede",    "cxgb4",  "hns3",
		"efa",	     "erdma",	  "mana",    "vmw_pvrdma", "hfi1",   "ib_qib", "ib_mthca",
		"enic",	     "ionic",	  "be2net",  "irdma",	  "ocrdma", "qedr",
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(drivers); i++)
		if (strcmp(drivers[i], driver) == 0)
			return true;
	return false;
}

bool inv_pci_device_is_rdma(uint32_t vendor, uint32_t device)
{
	/* Amazon EFA, VMware PVRDMA, Alibaba ERDMA, Microsoft MANA. */
	return (vendor == 0x1d0f && device >= 0xefa0 && device <= 0xefa3) ||
	       (vendor == 0x15ad && device == 0x0820) || (vendor == 0x1ded && device == 0x107f) ||
	       (vendor == 0x1414 && device == 0x00ba);
}

void json_add_obj(struct json_object *o, const char *key, struct json_object *val)
{
	if (!o) {
		json_object_put(val);
		return;
	}
	if (json_object_object_add(o, key, val) < 0)
		json_object_put(val);
}

void json_arr_add(struct json_object *a, struct json_object *val)
{
	if (!a || json_object_array_add(a, val) < 0)
		json_object_put(val);
}

void json_add_str(struct json_object *o, const char *key, const char *val)
{
	if (val)
		json_add_obj(o, key, json_object_new_string(val));
}

void json_add_str_nonempty(struct json_object *o, const char *key, const char *val)
{
	if (val && *val)
		json_add_obj(o, key, json_object_new_string(val));
}

void json_add_int(struct json_object *o, const char *key, int64_t val)
{
	json_add_obj(o, key, json_object_new_int64(val));
}

void json_add_u64(struct json_object *o, const char *key, uint64_t val)
{
	json_add_obj(o, key, json_object_new_uint64(val));
}

void json_add_bool(struct json_object *o, const char *key, bool val)
{
	json_add_obj(o, key, json_object_new_boolean(val));
}

void json_add_hex(struct json_object *o, const char *key, uint32_t val, int width)
{
	char buf[16];

	snprintf(buf, sizeof(buf), "0x%0*x", width, val);
	json_add_str(o, key, buf);
}

void json_add_errors(struct json_object *o, const struct inv_errors *e)
{
	struct json_object *a;
	unsigned i;

	if (!e || (e->n == 0 && e->dropped == 0))
		return;
	a = json_object_new_array();
	for (i = 0; i < e->n; i++)
		json_arr_add(a, json_object_new_string(e->msg[i]));
	if (e->dropped) {
		char buf[64];

		snprintf(buf, sizeof(buf), "(%u more errors not shown)", e->dropped);
		json_arr_add(a, json_object_new_string(buf));
	}
	json_add_obj(o, "errors", a);
}

void json_add_section(struct json_object *o, const struct inv_section *s)
{
	if (s->skipped)
		json_add_str(o, "skipped", s->skipped);
	if (s->error)
		json_add_str(o, "error", s->error);
	if (s->note)
		json_add_str(o, "note", s->note);
	json_add_errors(o, &s->errors);
	if (s->truncated.n || s->truncated.dropped) {
		struct json_object *a = json_object_new_array();
		unsigned i;

		for (i = 0; i < s->truncated.n; i++)
			json_arr_add(a, json_object_new_string(s->truncated.msg[i]));
		json_add_obj(o, "truncated", a);
	}
}

const char *inv_port_state_name(uint32_t state)
{
	static const char *const names[] = {"NOP", "DOWN", "INIT", "ARMED", "ACTIVE", "ACTIVE_DEFER"};

	return state < ARRAY_SIZE(names) ? names[state] : NULL;
}

const char *inv_phys_state_name(uint32_t state)
{
	/* As `rdma link` prints them (include/rdma/ib_verbs.h enum ib_port_phys_state). */
	static const char *const names[] = {
		NULL,	     "SLEEP",	 "POLLING",	    "DISABLED", "PORT_CONFIGURATION_TRAINING",
		"LINK_UP",   "LINK_ERROR_RECOVERY", "PHY_TEST",
	};

	return state < ARRAY_SIZE(names) ? names[state] : NULL;
}
