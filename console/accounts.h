/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The console's accounts (docs/fleet.md#the-console): a file of "name:role:yescrypt-hash" lines,
 * read at start; passwords checked with libcrypt, new hashes made with crypt_gensalt (yescrypt).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

enum console_role {
	ROLE_VIEWER = 0,
	ROLE_REFEREE = 1,
};

#define ACCOUNT_NAME_MAX 64
#define ACCOUNTS_MAX	 1000

struct account {
	char name[ACCOUNT_NAME_MAX + 1];
	enum console_role role;
	char *hash;
};

struct accounts {
	struct account *v;
	size_t n;
};

const char *role_name(enum console_role r);
int role_from_name(const char *s, enum console_role *out);
bool account_name_valid(const char *s);

/* Reads path; on a bad line fills err with "path:line:column: what" and returns -EINVAL. */
int accounts_load(const char *path, struct accounts *a, char *err, size_t errlen);
void accounts_free(struct accounts *a);
/* The account whose name and password match, or NULL (the same work either way). */
const struct account *accounts_check(const struct accounts *a, const char *name,
				     const char *password);
/* Adds (or replaces) name with a fresh yescrypt hash of password; rewrites path atomically. */
int accounts_add(const char *path, const char *name, enum console_role role, const char *password,
		 char *err, size_t errlen);
