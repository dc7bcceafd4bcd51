/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The seat's Ed25519 key pair: made, loaded with the trust checks, used to sign and verify. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/bio.h>
#include <openssl/pem.h>

#include "common/macro.h"
#include "common/root.h"
#include "common/sha256.h"
#include "common/strutil.h"
#include "config/trust.h"
#include "evidence-internal.h"
#include "sigkey.h"

DEFINE_TRIVIAL_CLEANUP_FUNC(BIO *, BIO_free);
DEFINE_TRIVIAL_CLEANUP_FUNC(EVP_MD_CTX *, EVP_MD_CTX_free);

int evidence_err(char *err, size_t errlen, int r, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return r;
}

/* The 32 raw bytes of key's public half. 0 or -EINVAL. */
static int raw_public(EVP_PKEY *key, unsigned char raw[static 32])
{
	size_t len = 32;

	return key && EVP_PKEY_get_raw_public_key(key, raw, &len) == 1 && len == 32 ? 0 : -EINVAL;
}

void sigkey_b64_encode(const void *in, size_t n, char *out)
{
	EVP_EncodeBlock((unsigned char *)out, in, (int)n);
}

int sigkey_b64_decode(const char *s, void *out, size_t want)
{
	size_t len = strlen(s), pad = 0;
	unsigned char buf[128];
	int n;

	/* EVP_DecodeBlock() counts padding as zero bytes and skips blanks: demand the exact form.
	 */
	if (want == 0 || want > 90 || len != 4 * ((want + 2) / 3))
		return -EINVAL;
	for (size_t i = 0; i < len; i++) {
		char c = s[i];

		if (c == '=' && i >= len - 2)
			pad++;
		else if (pad || !((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
				  (c >= '0' && c <= '9') || c == '+' || c == '/'))
			return -EINVAL;
	}
	n = EVP_DecodeBlock(buf, (const unsigned char *)s, (int)len);
	if (n < 0 || (size_t)n - pad != want || pad != (3 - want % 3) % 3)
		return -EINVAL;
	memcpy(out, buf, want);
	return 0;
}

int sigkey_text(EVP_PKEY *key, char out[static SIGKEY_TEXT_LEN])
{
	unsigned char raw[32];

	if (raw_public(key, raw) < 0)
		return -EINVAL;
	memcpy(out, "ed25519:", 8);
	sigkey_b64_encode(raw, sizeof(raw), out + 8);
	return 0;
}

int sigkey_fingerprint(EVP_PKEY *key, char out[static SIGKEY_FP_LEN])
{
	unsigned char raw[32];

	if (raw_public(key, raw) < 0)
		return -EINVAL;
	memcpy(out, "sha256:", 7);
	return sha256_mem(raw, sizeof(raw), out + 7);
}

int sigkey_from_text(const char *text, EVP_PKEY **ret)
{
	unsigned char raw[32];

	if (!startswith(text, "ed25519:") || sigkey_b64_decode(text + 8, raw, sizeof(raw)) < 0)
		return -EINVAL;
	*ret = EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, NULL, raw, sizeof(raw));
	return *ret ? 0 : -EINVAL;
}

int sigkey_sign(EVP_PKEY *key, const void *data, size_t len, char out[static SIGKEY_SIG_B64_LEN])
{
	_cleanup_(EVP_MD_CTX_freep) EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	unsigned char sig[SIGKEY_SIG_LEN];
	size_t slen = sizeof(sig);

	if (!ctx || EVP_DigestSignInit(ctx, NULL, NULL, NULL, key) != 1 ||
	    EVP_DigestSign(ctx, sig, &slen, data, len) != 1 || slen != sizeof(sig))
		return -EIO;
	sigkey_b64_encode(sig, slen, out);
	return 0;
}

int sigkey_verify(EVP_PKEY *key, const void *data, size_t len, const char *sig_b64)
{
	_cleanup_(EVP_MD_CTX_freep) EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	unsigned char sig[SIGKEY_SIG_LEN];

	if (!ctx)
		return -ENOMEM;
	if (sigkey_b64_decode(sig_b64, sig, sizeof(sig)) < 0)
		return -EBADMSG;
	if (EVP_DigestVerifyInit(ctx, NULL, NULL, NULL, key) != 1)
		return -EIO;
	return EVP_DigestVerify(ctx, sig, sizeof(sig), data, len) == 1 ? 0 : -EBADMSG;
}

/* Writes text to dir/name through a temporary file and rename(); mode as given. */
static int write_atomic(int dirfd, const char *name, const char *text, size_t len, mode_t mode)
{
	char tmp[64];
	_cleanup_close_ int fd = -1;
	int r = 0;

	snprintf(tmp, sizeof(tmp), ".%s.tmp", name);
	(void)unlinkat(dirfd, tmp, 0);
	fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode);
	if (fd < 0)
		return -errno;
	if (fchmod(fd, mode) < 0)
		r = -errno;
	while (r == 0 && len > 0) {
		ssize_t n = write(fd, text, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			r = n < 0 ? -errno : -EIO;
			break;
		}
		text += n;
		len -= (size_t)n;
	}
	if (r == 0 && fsync(fd) < 0)
		r = -errno;
	if (r == 0 && renameat(dirfd, tmp, dirfd, name) < 0)
		r = -errno;
	if (r < 0)
		(void)unlinkat(dirfd, tmp, 0);
	return r;
}

/* The PEM text of the private (private true) or public half into a fresh buffer. */
static int pem_text(EVP_PKEY *key, bool private, char **ret, size_t *ret_len)
{
	_cleanup_(BIO_freep) BIO *b = BIO_new(BIO_s_mem());
	char *p;
	long n;

	if (!b || (private ? PEM_write_bio_PrivateKey(b, key, NULL, NULL, 0, NULL, NULL)
			   : PEM_write_bio_PUBKEY(b, key)) != 1)
		return -EIO;
	n = BIO_get_mem_data(b, &p);
	if (n <= 0)
		return -EIO;
	*ret = malloc((size_t)n);
	if (!*ret)
		return -ENOMEM;
	memcpy(*ret, p, (size_t)n);
	*ret_len = (size_t)n;
	return 0;
}

int sigkey_generate(const char *state_dir, bool force, bool *created, char *err, size_t errlen)
{
	_cleanup_(sigkey_freep) EVP_PKEY *key = NULL;
	_cleanup_free_ char *priv = NULL, *pub = NULL;
	_cleanup_close_ int dirfd = -1;
	size_t plen = 0, ulen = 0;
	struct stat st;
	int r;

	*created = false;
	if (mkdir(state_dir, 0700) < 0 && errno != EEXIST)
		return evidence_err(err, errlen, -errno, "%s: cannot create: %s", state_dir,
				    strerror(errno));
	dirfd = open(state_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0)
		return evidence_err(err, errlen, -errno, "%s: %s", state_dir, strerror(errno));
	if (!force && fstatat(dirfd, SIGKEY_PRIVATE, &st, AT_SYMLINK_NOFOLLOW) == 0)
		return 0;
	key = EVP_PKEY_Q_keygen(NULL, NULL, "ED25519");
	if (!key)
		return evidence_err(err, errlen, -EIO, "OpenSSL could not make an Ed25519 key");
	r = pem_text(key, true, &priv, &plen);
	if (r >= 0)
		r = pem_text(key, false, &pub, &ulen);
	if (r < 0)
		return evidence_err(err, errlen, r, "OpenSSL could not write the key: %s",
				    strerror(-r));
	/* The public half first: a private key without it can be repaired, the reverse not. */
	r = write_atomic(dirfd, SIGKEY_PUBLIC, pub, ulen, 0644);
	if (r >= 0)
		r = write_atomic(dirfd, SIGKEY_PRIVATE, priv, plen, 0600);
	explicit_bzero(priv, plen);
	if (r < 0)
		return evidence_err(err, errlen, r, "%s: cannot write the key: %s", state_dir,
				    strerror(-r));
	*created = true;
	return 0;
}

/* Reads a key file (at most SIGKEY_FILE_MAX bytes) opened by the caller. */
static int read_key_file(int fd, const char *path, char **ret, size_t *ret_len, char *err,
			 size_t errlen)
{
	bool truncated = false;
	int r = read_fd_bounded(fd, SIGKEY_FILE_MAX, ret, ret_len, &truncated);

	if (r < 0)
		return evidence_err(err, errlen, r, "%s: %s", path,
				    r == -EBADFD ? "not a regular file" : strerror(-r));
	if (truncated) {
		free(*ret);
		*ret = NULL;
		return evidence_err(err, errlen, -EINVAL, "%s: larger than %d bytes, not a key",
				    path, SIGKEY_FILE_MAX);
	}
	return 0;
}

int sigkey_load_private(const char *state_dir, bool check_owner, EVP_PKEY **ret, char *err,
			size_t errlen)
{
	_cleanup_(BIO_freep) BIO *b = NULL;
	_cleanup_free_ char *text = NULL;
	_cleanup_close_ int fd = -1;
	struct rg_error e = {0};
	char path[4096], msg[1200];
	struct stat st;
	size_t len = 0;
	EVP_PKEY *key;
	int r;

	if (!snprintf_ok(path, sizeof(path), "%s/%s", state_dir, SIGKEY_PRIVATE))
		return evidence_err(err, errlen, -ENAMETOOLONG, "%s: path too long", state_dir);
	fd = trust_open_file(AT_FDCWD, path, path, check_owner, &e);
	if (fd < 0)
		return evidence_err(err, errlen, fd, "%s", rg_error_format(&e, msg, sizeof(msg)));
	if (fstat(fd, &st) < 0)
		return evidence_err(err, errlen, -errno, "%s: %s", path, strerror(errno));
	/* Ed25519 signatures are only worth what the secrecy of this file is. */
	if (st.st_uid != geteuid() || (st.st_mode & 077))
		return evidence_err(
		    err, errlen, -EPERM,
		    "%s: refused: the private key must be owned by uid %u and readable by "
		    "it alone (owner %u, mode %04o)",
		    path, (unsigned)geteuid(), (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777));
	r = read_key_file(fd, path, &text, &len, err, errlen);
	if (r < 0)
		return r;
	b = BIO_new_mem_buf(text, (int)len);
	key = b ? PEM_read_bio_PrivateKey(b, NULL, NULL, NULL) : NULL;
	explicit_bzero(text, len);
	if (!key || !EVP_PKEY_is_a(key, "ED25519")) {
		EVP_PKEY_free(key);
		return evidence_err(err, errlen, -EINVAL, "%s: not an Ed25519 private key (PEM)",
				    path);
	}
	*ret = key;
	return 0;
}

int sigkey_load_public(const char *path, EVP_PKEY **ret, char *err, size_t errlen)
{
	_cleanup_(BIO_freep) BIO *b = NULL;
	_cleanup_free_ char *text = NULL;
	_cleanup_close_ int fd = -1;
	EVP_PKEY *key = NULL;
	size_t len = 0;
	int r;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return evidence_err(err, errlen, -errno, "%s: %s", path, strerror(errno));
	r = read_key_file(fd, path, &text, &len, err, errlen);
	if (r < 0)
		return r;
	if (startswith(text, "ed25519:")) {
		if (sigkey_from_text(strstrip(text), &key) < 0)
			return evidence_err(err, errlen, -EINVAL,
					    "%s: not an \"ed25519:BASE64\" key", path);
		*ret = key;
		return 0;
	}
	b = BIO_new_mem_buf(text, (int)len);
	if (!b)
		return -ENOMEM;
	key = PEM_read_bio_PUBKEY(b, NULL, NULL, NULL);
	if (!key) {
		/* A private key file names its public half too. */
		(void)BIO_reset(b);
		key = PEM_read_bio_PrivateKey(b, NULL, NULL, NULL);
		explicit_bzero(text, len);
	}
	if (!key || !EVP_PKEY_is_a(key, "ED25519")) {
		EVP_PKEY_free(key);
		return evidence_err(err, errlen, -EINVAL, "%s: not an Ed25519 public key", path);
	}
	*ret = key;
	return 0;
}
