/* SPDX-License-Identifier: GPL-2.0-or-later */
/* SHA-256 of a file or a buffer through OpenSSL, as hex (sha256.h). */
#include <errno.h>
#include <openssl/evp.h>
#include <unistd.h>

#include "hex.h"
#include "sha256.h"

int sha256_fd(int fd, uint64_t max, char out[static 65])
{
	EVP_MD_CTX *ctx;
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;
	char buf[65536];
	uint64_t total = 0;
	int r = 0;

	ctx = EVP_MD_CTX_new();
	if (!ctx)
		return -ENOMEM;
	if (EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) != 1) {
		r = -EIO;
		goto out;
	}
	for (;;) {
		ssize_t n = read(fd, buf, sizeof(buf));
		if (n < 0) {
			if (errno == EINTR)
				continue;
			r = -errno;
			goto out;
		}
		if (n == 0)
			break;
		total += (uint64_t)n;
		if (total > max) {
			r = -EFBIG;
			goto out;
		}
		if (EVP_DigestUpdate(ctx, buf, (size_t)n) != 1) {
			r = -EIO;
			goto out;
		}
	}
	if (EVP_DigestFinal_ex(ctx, md, &mdlen) != 1 || mdlen != 32) {
		r = -EIO;
		goto out;
	}
	hex_encode(md, mdlen, out);
out:
	EVP_MD_CTX_free(ctx);
	return r;
}

int sha256_mem(const void *p, size_t n, char out[static 65])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;

	if (EVP_Digest(p, n, md, &mdlen, EVP_sha256(), NULL) != 1 || mdlen != 32)
		return -EIO;
	hex_encode(md, mdlen, out);
	return 0;
}
