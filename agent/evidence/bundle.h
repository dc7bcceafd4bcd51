/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Evidence bundles: a directory of files, a manifest of their sha256 sums, and the seat key's
 * signature of that manifest (docs/evidence.md has the layout).
 *
 *   manifest.json  {"format":"rdmaguard-evidence-1","incident":ID,"created":TIME,
 *                   "key":"ed25519:...","files":[{"path","kind","size","sha256"},...]}
 *   manifest.sig   {"format":"rdmaguard-evidence-sig-1","key":"ed25519:...",
 *                   "manifest_sha256":HEX,"signature":BASE64}: Ed25519 over manifest.json's
 *                   bytes exactly as they are in the file
 *   everything else: listed in the manifest, at most one directory deep
 *
 * Writing (bundle.c) and verifying (bundle_verify.c) are apart: the verifier reads a bundle
 * that anybody may have handled, so it bounds every read and follows no symbolic link.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>
#include <openssl/evp.h>

#define BUNDLE_FORMAT	    "rdmaguard-evidence-1"
#define BUNDLE_SIG_FORMAT   "rdmaguard-evidence-sig-1"
#define BUNDLE_MANIFEST	    "manifest.json"
#define BUNDLE_SIGNATURE    "manifest.sig"
#define BUNDLE_MAX_FILES    4096
#define BUNDLE_MANIFEST_MAX (4u << 20)	 /* bytes of manifest.json */
#define BUNDLE_SIG_MAX	    1024	 /* bytes of manifest.sig */
#define BUNDLE_FILE_MAX	    (256u << 20) /* bytes of one file, writing and verifying */
#define BUNDLE_PATH_MAX	    128

struct bundle;

/* Creates the directory out (it must not exist) for the incident's bundle. 0 or -errno. */
int bundle_new(const char *out, const char *incident_id, struct bundle **ret, char *err,
	       size_t errlen);
/*
 * Adds the file path (a name valid in a bundle: bundle_path_valid()) of the given kind with
 * len bytes of data. 0, -EINVAL (bad or repeated path), -E2BIG, -errno.
 */
int bundle_add(struct bundle *b, const char *path, const char *kind, const void *data, size_t len);
/* The same with the contents of an open file (read to its end, at most BUNDLE_FILE_MAX). */
int bundle_add_fd(struct bundle *b, const char *path, const char *kind, int fd);
/* Writes manifest.json (with the files in the order added) and manifest.sig, signed by key. */
int bundle_finish(struct bundle *b, EVP_PKEY *key, char *err, size_t errlen);
/* Frees b; a bundle that was not finished is removed from disk. */
void bundle_free(struct bundle *b);

/* A relative path of at most two components of [A-Za-z0-9._:-], none starting with '.'. */
bool bundle_path_valid(const char *path);

/* What bundle_verify() found. */
enum bundle_verdict {
	BUNDLE_OK = 0,
	BUNDLE_BAD,   /* something does not check out: what names it */
	BUNDLE_ERROR, /* the bundle could not be read at all (not a directory, I/O) */
};

struct bundle_report {
	char what[1024];      /* "FILE: what is wrong" (the first thing), or "" */
	char incident[256];   /* from the manifest, once verified */
	char fingerprint[72]; /* of the key that signed it */
	bool key_from_bundle; /* no --key given: the bundle's own key was used */
	unsigned n_files;     /* files checked */
};

/*
 * Verifies the bundle directory dir: the signature (with key, or with the key the bundle names
 * when key is NULL), then every file of the manifest, then that no file is left out of it.
 */
enum bundle_verdict bundle_verify(const char *dir, EVP_PKEY *key, struct bundle_report *rep);

/* One entry of a manifest. */
struct bundle_entry {
	char path[BUNDLE_PATH_MAX];
	char kind[32];
	uint64_t size;
	char sha256[65];
};
struct bundle_manifest {
	char incident[256];
	char key[64];
	struct bundle_entry *files;
	size_t n_files;
};
/*
 * Parses manifest.json's text (len bytes) strictly: every field present and well-formed, paths
 * valid and unique. -EINVAL with a message in err, -ENOMEM. Free with bundle_manifest_done().
 */
int bundle_manifest_parse(const char *text, size_t len, struct bundle_manifest *m, char *err,
			  size_t errlen);
void bundle_manifest_done(struct bundle_manifest *m);
/* Parses manifest.sig's text: key, manifest_sha256, signature. -EINVAL with err. */
int bundle_sig_parse(const char *text, size_t len, char key[static 64], char sha[static 65],
		     char sig[static 89], char *err, size_t errlen);
