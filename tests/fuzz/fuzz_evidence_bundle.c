/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * An evidence bundle as anybody may hand it over (evidence/bundle.h): the input is manifest.json,
 * a NUL byte, then manifest.sig (all manifest.json without the byte). Both parsers run on their
 * text, then bundle_verify() on a directory holding the two files and a file "a".
 * Properties: a parsed manifest has valid, unique paths, 64-hex sums and sizes within the caps;
 * a parsed signature has a 64-hex sum; a bundle never verifies against a key made here, which
 * the input cannot have signed with, and the refusal names manifest.json or manifest.sig.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "evidence/bundle.h"
#include "evidence/sigkey.h"
#include "fuzz.h"

static EVP_PKEY *key;
static char dir[4200];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_quiet();
	key = EVP_PKEY_Q_keygen(NULL, NULL, "ED25519");
	if (!key)
		abort();
	snprintf(dir, sizeof(dir), "%s/bundle", fuzz_tmpdir());
	return 0;
}

static void put(int dirfd, const char *name, const void *data, size_t len)
{
	int fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	if (fd < 0 || write(fd, data, len) != (ssize_t)len)
		abort();
	close(fd);
}

static void check_manifest(const char *text, size_t len)
{
	struct bundle_manifest m;
	char err[512];

	if (bundle_manifest_parse(text, len, &m, err, sizeof(err)) < 0) {
		FUZZ_ASSERT(err[0], "an error without a message");
		return;
	}
	FUZZ_ASSERT(m.n_files <= BUNDLE_MAX_FILES, "%zu files", m.n_files);
	for (size_t i = 0; i < m.n_files; i++) {
		const struct bundle_entry *e = &m.files[i];

		FUZZ_ASSERT(bundle_path_valid(e->path), "path \"%s\"", e->path);
		FUZZ_ASSERT(strlen(e->sha256) == 64, "sha256 \"%s\"", e->sha256);
		FUZZ_ASSERT(e->size <= BUNDLE_FILE_MAX, "size %llu", (unsigned long long)e->size);
		for (size_t j = 0; j < i; j++)
			FUZZ_ASSERT(strcmp(m.files[j].path, e->path) != 0, "\"%s\" twice", e->path);
	}
	bundle_manifest_done(&m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *nul = memchr(data, 0, size);
	size_t mlen = nul ? (size_t)(nul - data) : size, slen = nul ? size - mlen - 1 : 0;
	const char *m = (const char *)data, *s = nul ? (const char *)nul + 1 : "";
	char k[64], sha[65], sig[89], err[512];
	struct bundle_report rep;
	enum bundle_verdict v;
	int dirfd;

	check_manifest(m, mlen);
	if (bundle_sig_parse(s, slen, k, sha, sig, err, sizeof(err)) == 0)
		FUZZ_ASSERT(strlen(sha) == 64, "manifest_sha256 \"%s\"", sha);

	(void)mkdir(dir, 0700);
	dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0 || fuzz_clear_dir(dirfd) < 0)
		abort();
	put(dirfd, BUNDLE_MANIFEST, m, mlen);
	put(dirfd, BUNDLE_SIGNATURE, s, slen);
	put(dirfd, "a", "a", 1);
	close(dirfd);
	v = bundle_verify(dir, key, &rep);
	FUZZ_ASSERT(v == BUNDLE_BAD, "verdict %d (%s)", v, rep.what);
	FUZZ_ASSERT(strncmp(rep.what, BUNDLE_MANIFEST ":", strlen(BUNDLE_MANIFEST) + 1) == 0 ||
			strncmp(rep.what, BUNDLE_SIGNATURE ":", strlen(BUNDLE_SIGNATURE) + 1) == 0,
		    "the refusal names neither: %s", rep.what);
	return 0;
}
