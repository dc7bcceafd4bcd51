/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The accounts file: parsing (hostile only to the administrator who writes it, yet every error
 * is reported at file:line:column), password checks with crypt_r() and new yescrypt hashes.
 */
#include <crypt.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/crypto.h>

#include "accounts.h"

#define LINE_MAX_LEN 1024

/* A hash for unknown names, so that a wrong name costs what a wrong password does. */
static char *dummy_hash;
static pthread_mutex_t crypt_lock = PTHREAD_MUTEX_INITIALIZER;

const char *role_name(enum console_role r)
{
	return r == ROLE_REFEREE ? "referee" : "viewer";
}

int role_from_name(const char *s, enum console_role *out)
{
	if (strcmp(s, "viewer") == 0)
		*out = ROLE_VIEWER;
	else if (strcmp(s, "referee") == 0)
		*out = ROLE_REFEREE;
	else
		return -EINVAL;
	return 0;
}

bool account_name_valid(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > ACCOUNT_NAME_MAX)
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '.' || c == '_' || c == '-' || c == '@'))
			return false;
	}
	return true;
}

static bool hash_valid(const char *h)
{
	/* yescrypt ($y$), or another scheme libcrypt knows; never an empty or locked hash */
	return h[0] == '$' && strlen(h) < 256 && !strpbrk(h, ": \t");
}

static int parse_line(char *line, struct account *acc, size_t *col, size_t *what)
{
	char *role = strchr(line, ':');
	char *hash;

	*col = 1;
	*what = 0;
	if (!role)
		return -EINVAL;
	*role++ = '\0';
	if (!account_name_valid(line))
		return -EINVAL;
	*col = (size_t)(role - line) + 1;
	hash = strchr(role, ':');
	if (!hash)
		return -EINVAL;
	*hash++ = '\0';
	*what = 1;
	if (role_from_name(role, &acc->role) < 0)
		return -EINVAL;
	*col = (size_t)(hash - line) + 1;
	*what = 2;
	if (!hash_valid(hash))
		return -EINVAL;
	snprintf(acc->name, sizeof(acc->name), "%.64s", line); /* valid: at most 64 */
	acc->hash = strdup(hash);
	return acc->hash ? 0 : -ENOMEM;
}

static const char *const line_what[] = {
    "expected name:role:hash, a name of 1-64 of [A-Za-z0-9._@-]",
    "the role is viewer or referee",
    "the hash is a crypt(3) hash ($y$... from rdmaguard-console adduser)",
};

int accounts_load(const char *path, struct accounts *a, char *err, size_t errlen)
{
	char line[LINE_MAX_LEN + 2];
	unsigned lineno = 0;
	FILE *f;
	int r = 0;

	memset(a, 0, sizeof(*a));
	f = fopen(path, "re");
	if (!f) {
		r = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return r;
	}
	while (fgets(line, sizeof(line), f)) {
		struct account acc = {0};
		size_t len = strlen(line), col, what;

		lineno++;
		if (len > LINE_MAX_LEN) {
			snprintf(err, errlen, "%s:%u:1: line longer than %d bytes", path, lineno,
				 LINE_MAX_LEN);
			r = -EINVAL;
			break;
		}
		line[strcspn(line, "\r\n")] = '\0';
		if (line[0] == '\0' || line[0] == '#')
			continue;
		r = parse_line(line, &acc, &col, &what);
		if (r < 0) {
			snprintf(err, errlen, "%s:%u:%zu: %s", path, lineno, col, line_what[what]);
			break;
		}
		for (size_t i = 0; i < a->n; i++)
			if (strcmp(a->v[i].name, acc.name) == 0) {
				snprintf(err, errlen, "%s:%u:1: account %s given twice", path,
					 lineno, acc.name);
				r = -EINVAL;
			}
		if (r == 0 && a->n >= ACCOUNTS_MAX) {
			snprintf(err, errlen, "%s:%u:1: more than %d accounts", path, lineno,
				 ACCOUNTS_MAX);
			r = -E2BIG;
		}
		if (r == 0) {
			struct account *v = realloc(a->v, (a->n + 1) * sizeof(*v));

			if (!v)
				r = -ENOMEM;
			else
				a->v = v, a->v[a->n++] = acc;
		}
		if (r < 0) {
			free(acc.hash);
			break;
		}
	}
	fclose(f);
	if (r < 0)
		accounts_free(a);
	return r;
}

void accounts_free(struct accounts *a)
{
	for (size_t i = 0; i < a->n; i++)
		free(a->v[i].hash);
	free(a->v);
	memset(a, 0, sizeof(*a));
}

static char *make_hash(const char *password)
{
	struct crypt_data *cd = calloc(1, sizeof(*cd));
	char *salt, *h, *out = NULL;

	if (!cd)
		return NULL;
	salt = crypt_gensalt_ra("$y$", 0, NULL, 0);
	if (salt) {
		h = crypt_r(password, salt, cd);
		if (h && h[0] == '$')
			out = strdup(h);
		free(salt);
	}
	free(cd);
	return out;
}

const struct account *accounts_check(const struct accounts *a, const char *name,
				     const char *password)
{
	const struct account *acc = NULL;
	const char *want;
	struct crypt_data *cd;
	bool ok = false;
	char *h;

	for (size_t i = 0; i < a->n; i++)
		if (strcmp(a->v[i].name, name) == 0)
			acc = &a->v[i];
	/* One check at a time: yescrypt is made to cost memory and CPU, and logins are few. */
	pthread_mutex_lock(&crypt_lock);
	if (!dummy_hash)
		dummy_hash = make_hash("no such account");
	want = acc ? acc->hash : dummy_hash;
	cd = calloc(1, sizeof(*cd));
	if (cd && want) {
		h = crypt_r(password, want, cd);
		ok = h && h[0] == '$' && strlen(h) == strlen(want) &&
		     CRYPTO_memcmp(h, want, strlen(want)) == 0;
	}
	free(cd);
	pthread_mutex_unlock(&crypt_lock);
	return ok && acc ? acc : NULL;
}

static int write_all(int fd, const char *s)
{
	size_t n = strlen(s);

	while (n > 0) {
		ssize_t w = write(fd, s, n);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		s += w, n -= (size_t)w;
	}
	return 0;
}

int accounts_add(const char *path, const char *name, enum console_role role, const char *password,
		 char *err, size_t errlen)
{
	struct accounts a = {0};
	char tmp[4096], line[LINE_MAX_LEN];
	char *hash;
	int fd, r = 0;

	if (!account_name_valid(name)) {
		snprintf(err, errlen, "%s: a name is 1-64 of [A-Za-z0-9._@-]", name);
		return -EINVAL;
	}
	if (strlen(password) < 8) {
		snprintf(err, errlen, "the password has fewer than 8 characters");
		return -EINVAL;
	}
	if (access(path, F_OK) == 0) {
		r = accounts_load(path, &a, err, errlen);
		if (r < 0)
			return r;
	}
	hash = make_hash(password);
	if (!hash) {
		snprintf(err, errlen, "libcrypt made no yescrypt hash");
		accounts_free(&a);
		return -EIO;
	}
	snprintf(tmp, sizeof(tmp), "%s.tmpXXXXXX", path);
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		r = -errno;
		snprintf(err, errlen, "%s: %s", tmp, strerror(errno));
		goto out;
	}
	(void)fchmod(fd, 0600);
	r = write_all(fd, "# rdmaguard-console accounts: name:role:yescrypt hash "
			  "(rdmaguard-console adduser)\n");
	for (size_t i = 0; r == 0 && i < a.n; i++) {
		if (strcmp(a.v[i].name, name) == 0)
			continue;
		snprintf(line, sizeof(line), "%s:%s:%s\n", a.v[i].name, role_name(a.v[i].role),
			 a.v[i].hash);
		r = write_all(fd, line);
	}
	if (r == 0) {
		snprintf(line, sizeof(line), "%s:%s:%s\n", name, role_name(role), hash);
		r = write_all(fd, line);
	}
	if (r == 0 && fsync(fd) < 0)
		r = -errno;
	close(fd);
	if (r == 0 && rename(tmp, path) < 0)
		r = -errno;
	if (r < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(-r));
		unlink(tmp);
	}
out:
	free(hash);
	accounts_free(&a);
	return r;
}
