/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The seat's signing key: one Ed25519 key pair (OpenSSL) that signs evidence bundles and the
 * heads of hash-chained logs. The private half is STATE_DIR/seat-key.pem (PKCS#8 PEM, mode
 * 0600, owned by the user that runs the agent, root), the public half STATE_DIR/seat-key.pub
 * (SubjectPublicKeyInfo PEM, 0644). A private key that anybody but its owner can read or write
 * is refused, as are the directories above it unless root's and not group/other-writable
 * (config/trust.h).
 *
 * Text form of the public half (status, heartbeats, manifests): "ed25519:" followed by the
 * base64 of the 32 raw bytes; its fingerprint is "sha256:" and the hex of the raw bytes' SHA-256.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <openssl/evp.h>

#include "common/macro.h"

#define SIGKEY_PRIVATE	   "seat-key.pem"
#define SIGKEY_PUBLIC	   "seat-key.pub"
#define SIGKEY_SIG_LEN	   64
#define SIGKEY_TEXT_LEN	   64	/* "ed25519:" + 44 base64 characters + NUL */
#define SIGKEY_FP_LEN	   72	/* "sha256:" + 64 hex digits + NUL */
#define SIGKEY_SIG_B64_LEN 89	/* base64 of 64 bytes + NUL */
#define SIGKEY_FILE_MAX	   8192 /* a key file is a few hundred bytes */

/*
 * Makes a new key pair in state_dir (created 0700 if missing). With force false an existing
 * private key is kept (returns 0, *created false); with force true it is replaced. Errors are
 * written to err ("what: why"). 0 or -errno.
 */
int sigkey_generate(const char *state_dir, bool force, bool *created, char *err, size_t errlen);
/*
 * Loads the private key of state_dir, refusing it as above when check_owner (the agent runs as
 * root). 0, -ENOENT (no key), -EPERM (refused), -EINVAL (not an Ed25519 key), -errno.
 */
int sigkey_load_private(const char *state_dir, bool check_owner, EVP_PKEY **ret, char *err,
			size_t errlen);
/*
 * Loads a public key from a file: SubjectPublicKeyInfo PEM, or the text form above on one line
 * (what `status` prints), or a private key PEM (its public half). 0, -EINVAL, -errno.
 */
int sigkey_load_public(const char *path, EVP_PKEY **ret, char *err, size_t errlen);
/* The public half from its text form ("ed25519:BASE64"). 0 or -EINVAL. */
int sigkey_from_text(const char *text, EVP_PKEY **ret);

/* The text form and fingerprint of key's public half. 0 or -EINVAL. */
int sigkey_text(EVP_PKEY *key, char out[static SIGKEY_TEXT_LEN]);
int sigkey_fingerprint(EVP_PKEY *key, char out[static SIGKEY_FP_LEN]);

/* Signs data with the private key: base64 of the 64-byte signature into out. 0 or -EIO. */
int sigkey_sign(EVP_PKEY *key, const void *data, size_t len, char out[static SIGKEY_SIG_B64_LEN]);
/* Whether sig_b64 is key's signature of data: 0 yes, -EBADMSG no (or malformed), -errno. */
int sigkey_verify(EVP_PKEY *key, const void *data, size_t len, const char *sig_b64);

/* Base64 (RFC 4648, padded) of n bytes into out (4 * ((n + 2) / 3) + 1 bytes). */
void sigkey_b64_encode(const void *in, size_t n, char *out);
/* Decodes exactly want bytes from s (padded base64, nothing else). 0 or -EINVAL. */
int sigkey_b64_decode(const char *s, void *out, size_t want);

static inline void sigkey_free(EVP_PKEY *key)
{
	EVP_PKEY_free(key);
}
DEFINE_TRIVIAL_CLEANUP_FUNC(EVP_PKEY *, sigkey_free);
