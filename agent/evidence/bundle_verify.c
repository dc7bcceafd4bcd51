/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Verifying an evidence bundle that anybody may have handled: the manifest's signature, every
 * file's size and sha256, and no file left out of the manifest. Reads are bounded, no symbolic
 * link is followed, and the first thing that does not check out is named.
 */
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
#include "common/root.h"
#include "common/sha256.h"
#include "common/strutil.h"

#define JSON_DEPTH 8 /* the manifest is three levels deep */

DEFINE_TRIVIAL_CLEANUP_FUNC(struct json_object *, json_object_put);

/* A JSON object from text, strictly (no trailing garbage, bounded depth). */
static int parse_object(const char *text, size_t len, struct json_object **ret, char *err,
			size_t errlen)
{
	struct json_tokener *tok = json_tokener_new_ex(JSON_DEPTH);
	struct json_object *o;
	size_t used;

	if (!tok)
		return -ENOMEM;
	if (len > INT32_MAX || memchr(text, 0, len)) {
		json_tokener_free(tok);
		return evidence_err(err, errlen, -EINVAL, "not JSON text (a NUL byte)");
	}
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
	o = json_tokener_parse_ex(tok, text, (int)len);
	used = tok->char_offset;
	if (!o || json_tokener_get_error(tok) != json_tokener_success) {
		int r = evidence_err(err, errlen, -EINVAL, "not valid JSON at byte %zu: %s", used,
				     json_tokener_error_desc(json_tokener_get_error(tok)));

		json_object_put(o);
		json_tokener_free(tok);
		return r;
	}
	json_tokener_free(tok);
	/* Only a newline may follow the document. */
	while (used < len && (text[used] == '\n'))
		used++;
	if (used != len) {
		json_object_put(o);
		return evidence_err(err, errlen, -EINVAL, "data after the JSON object at byte %zu",
				    used);
	}
	if (!json_object_is_type(o, json_type_object)) {
		json_object_put(o);
		return evidence_err(err, errlen, -EINVAL, "not a JSON object");
	}
	*ret = o;
	return 0;
}

/* The string member key of o, at most max - 1 bytes, into out. */
static int get_str(struct json_object *o, const char *key, char *out, size_t max, char *err,
		   size_t errlen)
{
	struct json_object *v;
	const char *s;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string))
		return evidence_err(err, errlen, -EINVAL, "\"%s\" missing or not a string", key);
	s = json_object_get_string(v);
	if ((size_t)json_object_get_string_len(v) >= max ||
	    strlen(s) != (size_t)json_object_get_string_len(v))
		return evidence_err(err, errlen, -EINVAL, "\"%s\" too long or holds a NUL", key);
	strcpy(out, s);
	return 0;
}

static bool is_hex64(const char *s)
{
	size_t i;

	for (i = 0; s[i]; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return i == 64;
}

/* Only the keys named (NULL-terminated) may be in o. */
static int only_keys(struct json_object *o, const char *const *keys, const char *where, char *err,
		     size_t errlen)
{
	json_object_object_foreach(o, k, v)
	{
		bool known = false;

		(void)v;
		for (size_t i = 0; keys[i] && !known; i++)
			known = strcmp(k, keys[i]) == 0;
		if (!known)
			return evidence_err(err, errlen, -EINVAL, "%s: unknown key \"%.64s\"",
					    where, k);
	}
	return 0;
}

static int parse_entry(struct json_object *f, size_t i, struct bundle_entry *e, char *err,
		       size_t errlen)
{
	static const char *const keys[] = {"path", "kind", "size", "sha256", NULL};
	char where[48], msg[256];
	struct json_object *v;
	int64_t size;

	snprintf(where, sizeof(where), "files[%zu]", i);
	if (!json_object_is_type(f, json_type_object))
		return evidence_err(err, errlen, -EINVAL, "%s: not an object", where);
	if (only_keys(f, keys, where, err, errlen) < 0)
		return -EINVAL;
	if (get_str(f, "path", e->path, sizeof(e->path), msg, sizeof(msg)) < 0 ||
	    get_str(f, "kind", e->kind, sizeof(e->kind), msg, sizeof(msg)) < 0 ||
	    get_str(f, "sha256", e->sha256, sizeof(e->sha256), msg, sizeof(msg)) < 0)
		return evidence_err(err, errlen, -EINVAL, "%s: %s", where, msg);
	if (!bundle_path_valid(e->path) || strcmp(e->path, BUNDLE_MANIFEST) == 0 ||
	    strcmp(e->path, BUNDLE_SIGNATURE) == 0)
		return evidence_err(err, errlen, -EINVAL,
				    "%s: path \"%s\" is not allowed in a bundle", where, e->path);
	if (!is_hex64(e->sha256))
		return evidence_err(err, errlen, -EINVAL,
				    "%s: sha256 is not 64 lowercase hex digits", where);
	if (!json_object_object_get_ex(f, "size", &v) || !json_object_is_type(v, json_type_int) ||
	    (size = json_object_get_int64(v)) < 0 || (uint64_t)size > BUNDLE_FILE_MAX)
		return evidence_err(err, errlen, -EINVAL, "%s: size missing or out of range",
				    where);
	e->size = (uint64_t)size;
	return 0;
}

int bundle_manifest_parse(const char *text, size_t len, struct bundle_manifest *m, char *err,
			  size_t errlen)
{
	static const char *const keys[] = {"format", "incident", "created", "key", "files", NULL};
	_cleanup_(json_object_putp) struct json_object *o = NULL;
	struct json_object *files;
	char fmt[32], created[40];
	size_t n;
	int r;

	memset(m, 0, sizeof(*m));
	r = parse_object(text, len, &o, err, errlen);
	if (r < 0)
		return r;
	if (only_keys(o, keys, "manifest", err, errlen) < 0 ||
	    get_str(o, "format", fmt, sizeof(fmt), err, errlen) < 0 ||
	    get_str(o, "incident", m->incident, sizeof(m->incident), err, errlen) < 0 ||
	    get_str(o, "created", created, sizeof(created), err, errlen) < 0 ||
	    get_str(o, "key", m->key, sizeof(m->key), err, errlen) < 0)
		return -EINVAL;
	if (strcmp(fmt, BUNDLE_FORMAT) != 0)
		return evidence_err(err, errlen, -EINVAL, "format \"%s\" is not " BUNDLE_FORMAT,
				    fmt);
	if (!json_object_object_get_ex(o, "files", &files) ||
	    !json_object_is_type(files, json_type_array))
		return evidence_err(err, errlen, -EINVAL, "\"files\" missing or not an array");
	n = json_object_array_length(files);
	if (n > BUNDLE_MAX_FILES)
		return evidence_err(err, errlen, -EINVAL, "more than %d files", BUNDLE_MAX_FILES);
	m->files = calloc(n ? n : 1, sizeof(*m->files));
	if (!m->files)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		r = parse_entry(json_object_array_get_idx(files, i), i, &m->files[i], err, errlen);
		if (r < 0)
			goto fail;
		for (size_t j = 0; j < i; j++)
			if (strcmp(m->files[j].path, m->files[i].path) == 0) {
				r = evidence_err(err, errlen, -EINVAL,
						 "files[%zu]: \"%s\" listed twice", i,
						 m->files[i].path);
				goto fail;
			}
		m->n_files = i + 1;
	}
	return 0;
fail:
	bundle_manifest_done(m);
	return r;
}

void bundle_manifest_done(struct bundle_manifest *m)
{
	free(m->files);
	m->files = NULL;
	m->n_files = 0;
}

int bundle_sig_parse(const char *text, size_t len, char key[static 64], char sha[static 65],
		     char sig[static 89], char *err, size_t errlen)
{
	static const char *const keys[] = {"format", "key", "manifest_sha256", "signature", NULL};
	_cleanup_(json_object_putp) struct json_object *o = NULL;
	char fmt[32];
	int r;

	r = parse_object(text, len, &o, err, errlen);
	if (r < 0)
		return r;
	if (only_keys(o, keys, "signature", err, errlen) < 0 ||
	    get_str(o, "format", fmt, sizeof(fmt), err, errlen) < 0 ||
	    get_str(o, "key", key, 64, err, errlen) < 0 ||
	    get_str(o, "manifest_sha256", sha, 65, err, errlen) < 0 ||
	    get_str(o, "signature", sig, 89, err, errlen) < 0)
		return -EINVAL;
	if (strcmp(fmt, BUNDLE_SIG_FORMAT) != 0)
		return evidence_err(err, errlen, -EINVAL, "format \"%s\" is not " BUNDLE_SIG_FORMAT,
				    fmt);
	if (!is_hex64(sha))
		return evidence_err(err, errlen, -EINVAL,
				    "manifest_sha256 is not 64 lowercase hex digits");
	return 0;
}

static enum bundle_verdict bad(struct bundle_report *rep, const char *fmt, ...) _printf_(2, 3);
static enum bundle_verdict bad(struct bundle_report *rep, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(rep->what, sizeof(rep->what), fmt, ap);
	va_end(ap);
	return BUNDLE_BAD;
}

/* Opens path (one or two components) below dirfd, following no link; a regular file. */
static int open_member(int dirfd, const char *path)
{
	const char *slash = strchr(path, '/');
	_cleanup_close_ int sub = -1;
	struct stat st;
	int fd;

	if (slash) {
		char dir[BUNDLE_PATH_MAX];

		memcpy(dir, path, (size_t)(slash - path));
		dir[slash - path] = 0;
		sub = openat(dirfd, dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub < 0)
			return -errno;
		dirfd = sub;
		path = slash + 1;
	}
	fd = openat(dirfd, path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return -EBADFD;
	}
	return fd;
}

static int read_member(int dirfd, const char *path, size_t max, char **ret, size_t *len)
{
	_cleanup_close_ int fd = open_member(dirfd, path);
	bool truncated = false;
	int r;

	if (fd < 0)
		return fd;
	r = read_fd_bounded(fd, max, ret, len, &truncated);
	if (r >= 0 && truncated) {
		free(*ret);
		*ret = NULL;
		return -EFBIG;
	}
	return r;
}

static const char *member_error(int r)
{
	switch (r) {
	case -ENOENT:
		return "missing";
	case -ELOOP:
	case -ENOTDIR:
	case -EBADFD:
		return "not a regular file (a link, a directory or a device)";
	case -EFBIG:
		return "larger than a bundle allows";
	default:
		return strerror(-r);
	}
}

/* The signature: over manifest.json's bytes, by key (or the bundle's own). */
static enum bundle_verdict check_signature(const char *mtext, size_t mlen, const char *stext,
					   size_t slen, EVP_PKEY *key, char skey[static 64],
					   struct bundle_report *rep)
{
	_cleanup_(sigkey_freep) EVP_PKEY *own = NULL;
	char ssha[65], sig[89], sha[65], msg[512], fp[SIGKEY_FP_LEN];

	if (bundle_sig_parse(stext, slen, skey, ssha, sig, msg, sizeof(msg)) < 0)
		return bad(rep, BUNDLE_SIGNATURE ": %s", msg);
	if (sigkey_from_text(skey, &own) < 0)
		return bad(rep, BUNDLE_SIGNATURE ": \"key\" is not an ed25519:BASE64 key");
	if (sha256_mem(mtext, mlen, sha) < 0)
		return BUNDLE_ERROR;
	if (key) {
		char want[SIGKEY_FP_LEN];

		if (sigkey_fingerprint(own, fp) < 0 || sigkey_fingerprint(key, want) < 0)
			return BUNDLE_ERROR;
		if (strcmp(fp, want) != 0)
			return bad(rep, BUNDLE_SIGNATURE ": signed by another key (%s, not %s)", fp,
				   want);
	} else {
		key = own;
		rep->key_from_bundle = true;
	}
	if (sigkey_fingerprint(key, rep->fingerprint) < 0)
		return BUNDLE_ERROR;
	if (sigkey_verify(key, mtext, mlen, sig) < 0)
		/* Which of the two changed: the signed record of the manifest's sum says. */
		return strcmp(sha, ssha) != 0
			   ? bad(rep,
				 BUNDLE_MANIFEST ": changed since it was signed (sha256 %s, "
						 "signed %s)",
				 sha, ssha)
			   : bad(rep, BUNDLE_SIGNATURE ": the signature does not verify");
	if (strcmp(sha, ssha) != 0)
		return bad(rep, BUNDLE_SIGNATURE ": manifest_sha256 is not the manifest's sha256");
	return BUNDLE_OK;
}

static enum bundle_verdict check_file(int dirfd, const struct bundle_entry *e,
				      struct bundle_report *rep)
{
	_cleanup_close_ int fd = open_member(dirfd, e->path);
	char sha[65];
	struct stat st;
	int r;

	if (fd < 0)
		return bad(rep, "%s: %s", e->path, member_error(fd));
	if (fstat(fd, &st) < 0)
		return bad(rep, "%s: %s", e->path, strerror(errno));
	if ((uint64_t)st.st_size != e->size)
		return bad(rep, "%s: %llu bytes, the manifest says %llu (changed)", e->path,
			   (unsigned long long)st.st_size, (unsigned long long)e->size);
	r = sha256_fd(fd, BUNDLE_FILE_MAX, sha);
	if (r < 0)
		return bad(rep, "%s: %s", e->path, member_error(r));
	if (strcmp(sha, e->sha256) != 0)
		return bad(rep, "%s: sha256 %s, the manifest says %s (changed)", e->path, sha,
			   e->sha256);
	return BUNDLE_OK;
}

static bool listed(const struct bundle_manifest *m, const char *path)
{
	if (strcmp(path, BUNDLE_MANIFEST) == 0 || strcmp(path, BUNDLE_SIGNATURE) == 0)
		return true;
	for (size_t i = 0; i < m->n_files; i++)
		if (strcmp(m->files[i].path, path) == 0)
			return true;
	return false;
}

/* Whether dir (prefix "" at the top, else "NAME/") holds anything the manifest does not list. */
static enum bundle_verdict check_extra(int dirfd, const char *prefix,
				       const struct bundle_manifest *m, struct bundle_report *rep)
{
	int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	enum bundle_verdict v = BUNDLE_OK;
	struct dirent *de;
	unsigned n = 0;
	DIR *d;

	if (fd < 0 || !(d = fdopendir(fd))) {
		if (fd >= 0)
			close(fd);
		return bad(rep, "%s: cannot list: %s", *prefix ? prefix : ".", strerror(errno));
	}
	while (v == BUNDLE_OK && (de = readdir(d))) {
		char path[2 * 256 + 2];

		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (++n > 2 * BUNDLE_MAX_FILES) {
			v = bad(rep, "%s: more entries than a bundle holds",
				*prefix ? prefix : ".");
			break;
		}
		snprintf(path, sizeof(path), "%s%s", prefix, de->d_name);
		if (!*prefix && de->d_type == DT_DIR) {
			char sub[260];
			int sfd = openat(dirfd, de->d_name,
					 O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

			if (sfd < 0) {
				v = bad(rep, "%s: %s", path, strerror(errno));
				break;
			}
			snprintf(sub, sizeof(sub), "%s/", de->d_name);
			v = check_extra(sfd, sub, m, rep);
			close(sfd);
			continue;
		}
		if (!listed(m, path))
			v = bad(rep, "%s: not in the manifest", path);
	}
	closedir(d);
	return v;
}

enum bundle_verdict bundle_verify(const char *dir, EVP_PKEY *key, struct bundle_report *rep)
{
	_cleanup_free_ char *mtext = NULL, *stext = NULL;
	struct bundle_manifest m = {0};
	_cleanup_close_ int dirfd = -1;
	enum bundle_verdict v;
	size_t mlen = 0, slen = 0;
	char msg[512], skey[64] = "";
	int r;

	memset(rep, 0, sizeof(*rep));
	dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0) {
		snprintf(rep->what, sizeof(rep->what), "%s: %s", dir, strerror(errno));
		return BUNDLE_ERROR;
	}
	r = read_member(dirfd, BUNDLE_MANIFEST, BUNDLE_MANIFEST_MAX, &mtext, &mlen);
	if (r < 0)
		return bad(rep, BUNDLE_MANIFEST ": %s", member_error(r));
	r = read_member(dirfd, BUNDLE_SIGNATURE, BUNDLE_SIG_MAX, &stext, &slen);
	if (r < 0)
		return bad(rep, BUNDLE_SIGNATURE ": %s", member_error(r));
	v = check_signature(mtext, mlen, stext, slen, key, skey, rep);
	if (v != BUNDLE_OK)
		return v;
	/* Signed, so written by the seat; still parsed as strictly as anything else. */
	r = bundle_manifest_parse(mtext, mlen, &m, msg, sizeof(msg));
	if (r == -ENOMEM)
		return BUNDLE_ERROR;
	if (r < 0)
		return bad(rep, BUNDLE_MANIFEST ": %s", msg);
	if (strcmp(m.key, skey) != 0)
		v = bad(rep, BUNDLE_MANIFEST ": names another key than its signature");
	snprintf(rep->incident, sizeof(rep->incident), "%s", m.incident);
	for (size_t i = 0; i < m.n_files && v == BUNDLE_OK; i++, rep->n_files++)
		v = check_file(dirfd, &m.files[i], rep);
	if (v == BUNDLE_OK)
		v = check_extra(dirfd, "", &m, rep);
	bundle_manifest_done(&m);
	return v;
}
