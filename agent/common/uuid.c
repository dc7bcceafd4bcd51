/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Random RFC 4122 version 4 UUIDs from a per-thread pool of getrandom() bytes (uuid.h). */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <sys/random.h>

#include "hex.h"
#include "uuid.h"

/* Random bytes for UUIDs, fetched 512 at a time (one getrandom() per 32 alerts, not one
 * each); per thread, and emptied in a forked child (the thread that forked is the child's only
 * one) so that it never repeats its parent's. */
static __thread struct {
	uint8_t b[512];
	size_t avail;
} uuid_pool;
static pthread_once_t uuid_once = PTHREAD_ONCE_INIT;

static void uuid_pool_forget(void)
{
	explicit_bzero(&uuid_pool, sizeof(uuid_pool));
}

static void uuid_pool_init(void)
{
	(void)pthread_atfork(NULL, NULL, uuid_pool_forget);
}

int uuid_v4(char buf[static 37])
{
	uint8_t b[16];
	size_t got = 0;

	(void)pthread_once(&uuid_once, uuid_pool_init);
	if (uuid_pool.avail < sizeof(b)) {
		while (got < sizeof(uuid_pool.b)) {
			ssize_t n = getrandom(uuid_pool.b + got, sizeof(uuid_pool.b) - got, 0);
			if (n < 0) {
				if (errno == EINTR)
					continue;
				return -errno;
			}
			got += (size_t)n;
		}
		uuid_pool.avail = sizeof(uuid_pool.b);
	}
	uuid_pool.avail -= sizeof(b);
	memcpy(b, uuid_pool.b + uuid_pool.avail, sizeof(b));
	explicit_bzero(uuid_pool.b + uuid_pool.avail, sizeof(b));
	b[6] = (uint8_t)((b[6] & 0x0f) | 0x40);
	b[8] = (uint8_t)((b[8] & 0x3f) | 0x80);
	/* 8-4-4-4-12 hex digits */
	hex_encode(b, 4, buf);
	buf[8] = '-';
	hex_encode(b + 4, 2, buf + 9);
	buf[13] = '-';
	hex_encode(b + 6, 2, buf + 14);
	buf[18] = '-';
	hex_encode(b + 8, 2, buf + 19);
	buf[23] = '-';
	hex_encode(b + 10, 6, buf + 24);
	return 0;
}
