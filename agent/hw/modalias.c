/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The PCI lines of modules.alias, and the lookup modprobe would do (modalias.h). */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hw/modalias.h"
#include "common/strutil.h"

#define PATTERN_MAX 96
#define MODULE_MAX  32

struct alias {
	char pattern[PATTERN_MAX]; /* "pci:v000010ECd00008168sv*sd*bc*sc*i*" */
	char module[MODULE_MAX];
};

struct hw_modalias {
	struct alias *v;
	size_t n, cap;
};

void hw_modalias_free(struct hw_modalias *m)
{
	if (!m)
		return;
	free(m->v);
	free(m);
}

size_t hw_modalias_size(const struct hw_modalias *m)
{
	return m ? m->n : 0;
}

/* A pattern: printable, no blanks; the glob characters are fnmatch's. */
static bool pattern_ok(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] <= ' ' || s[i] > '~')
			return false;
	return n > 4 && n < PATTERN_MAX && strncmp(s, "pci:", 4) == 0;
}

/* A module name as the kernel allows it: letters, digits, '_' and '-'. */
static bool module_ok(const char *s, size_t n)
{
	if (n == 0 || n >= MODULE_MAX)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
		      (s[i] >= '0' && s[i] <= '9') || s[i] == '_' || s[i] == '-'))
			return false;
	return true;
}

/* One line: "alias" WS PATTERN WS MODULE [WS]. false when it is not a PCI alias. */
static bool parse_line(const char *l, size_t n, struct alias *a)
{
	size_t i = 0, ps, pe, ms, me;

	if (n < 6 || strncmp(l, "alias", 5) != 0 || (l[5] != ' ' && l[5] != '\t'))
		return false;
	for (i = 5; i < n && (l[i] == ' ' || l[i] == '\t'); i++)
		;
	for (ps = i; i < n && l[i] != ' ' && l[i] != '\t'; i++)
		;
	pe = i;
	for (; i < n && (l[i] == ' ' || l[i] == '\t'); i++)
		;
	for (ms = i; i < n && l[i] != ' ' && l[i] != '\t'; i++)
		;
	me = i;
	for (; i < n && (l[i] == ' ' || l[i] == '\t' || l[i] == '\r'); i++)
		;
	if (i != n || !pattern_ok(l + ps, pe - ps) || !module_ok(l + ms, me - ms))
		return false;
	memcpy(a->pattern, l + ps, pe - ps);
	a->pattern[pe - ps] = 0;
	memcpy(a->module, l + ms, me - ms);
	a->module[me - ms] = 0;
	return true;
}

int hw_modalias_parse(const char *text, size_t len, struct hw_modalias **ret)
{
	struct hw_modalias *m = calloc(1, sizeof(*m));
	size_t off = 0;

	if (!m)
		return -ENOMEM;
	while (off < len && m->n < HW_MODALIAS_MAX_ENTRIES) {
		const char *nl = memchr(text + off, '\n', len - off);
		size_t n = nl ? (size_t)(nl - (text + off)) : len - off;
		struct alias a;

		if (parse_line(text + off, n, &a)) {
			if (m->n == m->cap) {
				size_t ncap = m->cap ? m->cap * 2 : 1024;
				struct alias *nv = realloc(m->v, ncap * sizeof(*nv));

				if (!nv) {
					hw_modalias_free(m);
					return -ENOMEM;
				}
				m->v = nv;
				m->cap = ncap;
			}
			m->v[m->n++] = a;
		}
		off += n + 1;
	}
	*ret = m;
	return 0;
}

int hw_modalias_load(const struct rg_root *root, struct hw_modalias **ret)
{
	_cleanup_free_ char *data = NULL;
	char release[128], path[256];
	size_t len = 0;
	int r;

	r = root_read_line(root, "/proc/sys/kernel/osrelease", release, sizeof(release));
	if (r <= 0)
		return -ENOENT;
	/* One path step, as uname(2) gives it. */
	if (strchr(release, '/') || strcmp(release, "..") == 0 || strcmp(release, ".") == 0 ||
	    !snprintf_ok(path, sizeof(path), "/lib/modules/%s/modules.alias", release))
		return -ENOENT;
	r = root_read_file(root, path, HW_MODALIAS_MAX_BYTES, &data, &len, NULL);
	if (r < 0)
		return r;
	return hw_modalias_parse(data, len, ret);
}

void hw_modalias_of(const struct hw_fn *fn, char buf[static 64])
{
	snprintf(buf, 64, "pci:v%08Xd%08Xsv%08Xsd%08Xbc%02Xsc%02Xi%02X", fn->vendor, fn->device,
		 fn->subsys_vendor, fn->subsys_device, (fn->class_code >> 16) & 0xff,
		 (fn->class_code >> 8) & 0xff, fn->class_code & 0xff);
}

bool hw_modalias_lookup(const struct hw_modalias *m, const struct hw_fn *fn, char *module,
			size_t size)
{
	char alias[64];

	if (size)
		module[0] = 0;
	if (!m)
		return false;
	hw_modalias_of(fn, alias);
	for (size_t i = 0; i < m->n; i++)
		if (fnmatch(m->v[i].pattern, alias, 0) == 0) {
			if (size)
				snprintf(module, size, "%s", m->v[i].module);
			return true;
		}
	return false;
}
