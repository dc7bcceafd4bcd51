/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Writing an evidence bundle: its files, the manifest of their sums and its signature. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/macro.h"
#include "bundle.h"
#include "evidence-internal.h"
#include "sigkey.h"
#include "common/clock.h"
#include "common/root.h"
#include "common/sha256.h"
#include "common/strutil.h"
#include "common/timestamp.h"

struct bundle {
	char *out;
	int dirfd;
	char incident[256];
	struct bundle_entry *files;
	size_t n_files;
	bool finished;
};

static bool name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '.' || c == '_' || c == ':' || c == '-';
}

bool bundle_path_valid(const char *path)
{
	size_t len = strlen(path), comp = 0, slashes = 0;

	if (len == 0 || len >= BUNDLE_PATH_MAX)
		return false;
	for (size_t i = 0; i < len; i++) {
		if (path[i] == '/') {
			if (comp == 0 || ++slashes > 1)
				return false;
			comp = 0;
			continue;
		}
		if (!name_char(path[i]) || (comp == 0 && path[i] == '.'))
			return false;
		comp++;
	}
	return comp > 0;
}

int bundle_new(const char *out, const char *incident_id, struct bundle **ret, char *err,
	       size_t errlen)
{
	struct bundle *b;

	if (strlen(incident_id) >= sizeof(b->incident))
		return evidence_err(err, errlen, -EINVAL, "incident id too long");
	/* The bundle holds process names and command lines: its owner's alone until copied. */
	if (mkdir(out, 0700) < 0)
		return evidence_err(err, errlen, -errno, "%s: %s", out,
				    errno == EEXIST
					? "exists already (a bundle is never overwritten)"
					: strerror(errno));
	b = calloc(1, sizeof(*b));
	if (b)
		b->dirfd = -1;
	if (!b || !(b->out = strdup(out))) {
		free(b);
		(void)rmdir(out);
		return -ENOMEM;
	}
	b->dirfd = open(out, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (b->dirfd < 0) {
		int r = -errno;

		(void)rmdir(out);
		bundle_free(b);
		return evidence_err(err, errlen, r, "%s: %s", out, strerror(-r));
	}
	strcpy(b->incident, incident_id);
	*ret = b;
	return 0;
}

static int write_at(int dirfd, const char *name, const void *data, size_t len)
{
	_cleanup_close_ int fd = -1;
	const char *p = data;

	fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	while (len > 0) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		p += n;
		len -= (size_t)n;
	}
	return fsync(fd) < 0 ? -errno : 0;
}

int bundle_add(struct bundle *b, const char *path, const char *kind, const void *data, size_t len)
{
	struct bundle_entry *e, *n;
	const char *slash;
	int r;

	if (!bundle_path_valid(path) || strlen(kind) >= sizeof(e->kind) ||
	    strcmp(path, BUNDLE_MANIFEST) == 0 || strcmp(path, BUNDLE_SIGNATURE) == 0)
		return -EINVAL;
	for (size_t i = 0; i < b->n_files; i++)
		if (strcmp(b->files[i].path, path) == 0)
			return -EINVAL;
	if (b->n_files >= BUNDLE_MAX_FILES || len > BUNDLE_FILE_MAX)
		return -E2BIG;
	slash = strchr(path, '/');
	if (slash) {
		char dir[BUNDLE_PATH_MAX];

		memcpy(dir, path, (size_t)(slash - path));
		dir[slash - path] = 0;
		if (mkdirat(b->dirfd, dir, 0755) < 0 && errno != EEXIST)
			return -errno;
	}
	n = realloc(b->files, (b->n_files + 1) * sizeof(*b->files));
	if (!n)
		return -ENOMEM;
	b->files = n;
	e = &b->files[b->n_files];
	memset(e, 0, sizeof(*e));
	strcpy(e->path, path);
	strcpy(e->kind, kind);
	e->size = len;
	r = sha256_mem(data, len, e->sha256);
	if (r < 0)
		return r;
	r = write_at(b->dirfd, path, data, len);
	if (r < 0)
		return r;
	b->n_files++;
	return 0;
}

int bundle_add_fd(struct bundle *b, const char *path, const char *kind, int fd)
{
	_cleanup_free_ char *buf = NULL;
	bool truncated = false;
	size_t len = 0;
	int r;

	r = read_fd_bounded(fd, BUNDLE_FILE_MAX, &buf, &len, &truncated);
	if (r < 0)
		return r;
	if (truncated)
		return -E2BIG;
	return bundle_add(b, path, kind, buf, len);
}

static struct json_object *manifest_json(const struct bundle *b, const char *keytext)
{
	struct json_object *o = json_object_new_object(), *files = json_object_new_array();
	char ts[32];

	format_timestamp(now_realtime_ns(), ts);
	json_object_object_add(o, "format", json_object_new_string(BUNDLE_FORMAT));
	json_object_object_add(o, "incident", json_object_new_string(b->incident));
	json_object_object_add(o, "created", json_object_new_string(ts));
	json_object_object_add(o, "key", json_object_new_string(keytext));
	for (size_t i = 0; i < b->n_files; i++) {
		const struct bundle_entry *e = &b->files[i];
		struct json_object *f = json_object_new_object();

		json_object_object_add(f, "path", json_object_new_string(e->path));
		json_object_object_add(f, "kind", json_object_new_string(e->kind));
		json_object_object_add(f, "size", json_object_new_uint64(e->size));
		json_object_object_add(f, "sha256", json_object_new_string(e->sha256));
		json_object_array_add(files, f);
	}
	json_object_object_add(o, "files", files);
	return o;
}

/* The pretty text of o and a newline, in a fresh buffer (NULL: no memory); o is put. */
static char *json_text(struct json_object *o)
{
	char *t;

	if (asprintf(&t, "%s\n",
		     json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
							   JSON_C_TO_STRING_NOSLASHESCAPE)) < 0)
		t = NULL;
	json_object_put(o);
	return t;
}

int bundle_finish(struct bundle *b, EVP_PKEY *key, char *err, size_t errlen)
{
	struct json_object *m = NULL, *s = NULL;
	char keytext[SIGKEY_TEXT_LEN], sig[SIGKEY_SIG_B64_LEN], sha[65];
	_cleanup_free_ char *mtext = NULL, *stext = NULL;
	int r;

	r = sigkey_text(key, keytext);
	if (r < 0)
		return evidence_err(err, errlen, r, "the seat key has no Ed25519 public half");
	m = manifest_json(b, keytext);
	mtext = json_text(m);
	if (!mtext)
		return -ENOMEM;
	r = sigkey_sign(key, mtext, strlen(mtext), sig);
	if (r >= 0)
		r = sha256_mem(mtext, strlen(mtext), sha);
	if (r < 0)
		return evidence_err(err, errlen, r, "could not sign the manifest");
	s = json_object_new_object();
	json_object_object_add(s, "format", json_object_new_string(BUNDLE_SIG_FORMAT));
	json_object_object_add(s, "key", json_object_new_string(keytext));
	json_object_object_add(s, "manifest_sha256", json_object_new_string(sha));
	json_object_object_add(s, "signature", json_object_new_string(sig));
	stext = json_text(s);
	if (!stext)
		return -ENOMEM;
	r = write_at(b->dirfd, BUNDLE_MANIFEST, mtext, strlen(mtext));
	if (r >= 0)
		r = write_at(b->dirfd, BUNDLE_SIGNATURE, stext, strlen(stext));
	if (r < 0)
		return evidence_err(err, errlen, r, "%s: cannot write the manifest: %s", b->out,
				    strerror(-r));
	b->finished = true;
	return 0;
}

/* Removes what a failed export left: the files it wrote, in its own directory only. */
static void remove_tree(int dirfd, const struct bundle *b)
{
	(void)unlinkat(dirfd, BUNDLE_MANIFEST, 0);
	(void)unlinkat(dirfd, BUNDLE_SIGNATURE, 0);
	for (size_t i = 0; i < b->n_files; i++) {
		const char *slash = strchr(b->files[i].path, '/');

		(void)unlinkat(dirfd, b->files[i].path, 0);
		if (slash) {
			char dir[BUNDLE_PATH_MAX];

			memcpy(dir, b->files[i].path, (size_t)(slash - b->files[i].path));
			dir[slash - b->files[i].path] = 0;
			(void)unlinkat(dirfd, dir, AT_REMOVEDIR); /* fails while not empty */
		}
	}
}

void bundle_free(struct bundle *b)
{
	if (!b)
		return;
	if (b->dirfd >= 0) {
		if (!b->finished) {
			remove_tree(b->dirfd, b);
			(void)rmdir(b->out);
		}
		close(b->dirfd);
	}
	free(b->files);
	free(b->out);
	free(b);
}
