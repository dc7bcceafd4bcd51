/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the hardware layer's unit tests share: a scratch root below /tmp (scratch), files and
 * links written into it, its removal, and its scan. Static: each test binary has its own copy.
 */
#pragma once

#include <check.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hw/pci.h"

static char scratch[256];

static void writef(const char *rel, const void *data, size_t len)
{
	char p[600], *s;
	int fd;

	snprintf(p, sizeof(p), "%s/%s", scratch, rel);
	for (s = strchr(p + strlen(scratch) + 1, '/'); s; s = strchr(s + 1, '/')) {
		*s = 0;
		mkdir(p, 0755);
		*s = '/';
	}
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, data, len), (ssize_t)len);
	close(fd);
}

__attribute__((format(printf, 2, 3), unused)) static void writes(const char *rel, const char *fmt,
								 ...)
{
	char buf[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	writef(rel, buf, strlen(buf));
}

static void linkto(const char *rel, const char *target)
{
	char p[600];

	snprintf(p, sizeof(p), "%s/%s", scratch, rel);
	ck_assert_int_eq(symlink(target, p), 0);
}

static void teardown(void)
{
	char cmd[300];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", scratch);
	ck_assert_int_eq(system(cmd), 0);
}

static struct hw_scan *scan_scratch(void)
{
	struct rg_root root;
	struct hw_scan *s = NULL;

	ck_assert_int_eq(root_init(&root, scratch), 0);
	ck_assert_int_eq(hw_scan(&root, &s), 0);
	root_done(&root);
	ck_assert_str_eq(s->error, "");
	return s;
}

static const struct hw_fn *fn_at(const struct hw_scan *s, const char *addr)
{
	const struct hw_fn *fn = hw_scan_find(s, addr);

	ck_assert_msg(fn != NULL, "no function %s", addr);
	return fn;
}
