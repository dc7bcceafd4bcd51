/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Helpers for the inventory tests: fixture roots, scratch roots built at run time. */
#pragma once

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/macro.h"
#include "common/root.h"
#include "inventory/inventory.h"

static inline const char *fixture_root(const char *name)
{
	static char buf[PATH_MAX];
	const char *base = getenv("RG_FIXTURES");

	ck_assert_msg(base != NULL, "RG_FIXTURES is not set (run through meson test)");
	snprintf(buf, sizeof(buf), "%s/roots/%s", base, name);
	return buf;
}

static inline struct inventory *collect_at(const char *path, unsigned flags)
{
	struct rg_root root;
	struct inventory *inv = NULL;

	ck_assert_int_eq(root_init(&root, path), 0);
	ck_assert_int_eq(inventory_collect(&root, flags, &inv), 0);
	ck_assert_ptr_nonnull(inv);
	root_done(&root);
	return inv;
}

static inline struct inventory *collect(const char *fixture, unsigned flags)
{
	return collect_at(fixture_root(fixture), flags);
}

static inline const struct inv_device *find_device(const struct inventory *inv, const char *name)
{
	for (unsigned i = 0; i < inv->n_devices; i++)
		if (strcmp(inv->devices[i].name, name) == 0)
			return &inv->devices[i];
	return NULL;
}

static inline const struct inv_pci *find_pci(const struct inventory *inv, const char *addr)
{
	for (unsigned i = 0; i < inv->n_pci; i++)
		if (strcmp(inv->pci[i].addr, addr) == 0)
			return &inv->pci[i];
	return NULL;
}

static inline bool has_error(const struct inv_errors *e, const char *text)
{
	for (unsigned i = 0; i < e->n; i++)
		if (strcmp(e->msg[i], text) == 0)
			return true;
	return false;
}

#define ck_assert_has_error(e, text)                                                               \
	do {                                                                                       \
		const struct inv_errors *_e = (e);                                                 \
		if (!has_error(_e, (text))) {                                                      \
			for (unsigned _k = 0; _k < _e->n; _k++)                                    \
				fprintf(stderr, "  have: %s\n", _e->msg[_k]);                     \
			ck_abort_msg("missing error: %s", (text));                                 \
		}                                                                                  \
	} while (0)

/* A scratch directory for roots built at run time. */
static char scratch[PATH_MAX];

static inline void scratch_setup(void)
{
	strcpy(scratch, "/tmp/rg-test-inv-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(scratch));
}

static inline void scratch_teardown(void)
{
	char cmd[PATH_MAX + 32];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", scratch);
	ck_assert_int_eq(system(cmd), 0);
}

static inline void sp(char *buf, size_t size, const char *rel)
{
	ck_assert_int_lt(snprintf(buf, size, "%s/%s", scratch, rel), (int)size);
}

static inline void mkdirs(const char *rel)
{
	char p[PATH_MAX];

	sp(p, sizeof(p), rel);
	for (char *s = p + strlen(scratch) + 1; *s; s++)
		if (*s == '/') {
			*s = 0;
			ck_assert(mkdir(p, 0755) == 0 || errno == EEXIST);
			*s = '/';
		}
	ck_assert(mkdir(p, 0755) == 0 || errno == EEXIST);
}

static inline void write_rel(const char *rel, const void *data, size_t len)
{
	char p[PATH_MAX], dir[PATH_MAX];
	const char *slash = strrchr(rel, '/');
	int fd;

	if (slash) {
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - rel), rel);
		mkdirs(dir);
	}
	sp(p, sizeof(p), rel);
	unlink(p);
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, data, len), (ssize_t)len);
	close(fd);
}

static inline void writef(const char *rel, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static inline void writef(const char *rel, const char *fmt, ...)
{
	char *s = NULL;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	ck_assert_int_ge(n, 0);
	write_rel(rel, s, (size_t)n);
	free(s);
}

static inline void symlink_rel(const char *target, const char *rel)
{
	char p[PATH_MAX], dir[PATH_MAX];
	const char *slash = strrchr(rel, '/');

	if (slash) {
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - rel), rel);
		mkdirs(dir);
	}
	sp(p, sizeof(p), rel);
	unlink(p);
	ck_assert_int_eq(symlink(target, p), 0);
}

static inline void unlink_rel(const char *rel)
{
	char p[PATH_MAX];

	sp(p, sizeof(p), rel);
	ck_assert_int_eq(unlink(p), 0);
}

static inline void fifo_rel(const char *rel)
{
	char p[PATH_MAX], dir[PATH_MAX];
	const char *slash = strrchr(rel, '/');

	if (slash) {
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - rel), rel);
		mkdirs(dir);
	}

	sp(p, sizeof(p), rel);
	unlink(p);
	ck_assert_int_eq(mkfifo(p, 0600), 0);
}

/* A file of size bytes of 'x' with no newline: a "huge" attribute. */
static inline void huge_rel(const char *rel, size_t size)
{
	char *b = malloc(size);

	ck_assert_ptr_nonnull(b);
	memset(b, 'x', size);
	write_rel(rel, b, size);
	free(b);
}

/* Copies a fixture root into the scratch directory (to add FIFOs and huge files to it). */
static inline void copy_fixture(const char *name)
{
	char cmd[2 * PATH_MAX + 32];

	snprintf(cmd, sizeof(cmd), "cp -a '%s/.' '%s/'", fixture_root(name), scratch);
	ck_assert_int_eq(system(cmd), 0);
}

static inline int run_check(Suite *s)
{
	SRunner *sr = srunner_create(s);
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
