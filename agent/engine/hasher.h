/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The sha256 of executables, off the event thread. The engine asks for the hash of the file an
 * open fd names: the answer comes from a cache keyed on (device, inode, size, ctime), or the file
 * is queued for one worker thread and the caller asks again later (hasher_fd() becomes readable
 * when a hash is done). ctime, not mtime: a user can set mtime back after changing a file's
 * content, only the kernel sets ctime (enforcement's kernel side compares it too).
 *
 * Bounded: at most HASHER_QUEUE files wait (more are refused and counted, and asked for again at
 * the process's next event), a file over the caller's size cap is not hashed, HASHER_CACHE
 * results are kept (oldest replaced first). Without a worker (audit, tests) the caller hashes.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>

#define HASHER_QUEUE 16
#define HASHER_CACHE 64

struct hasher;

struct hasher_stats {
	uint64_t hashed;   /* files read through */
	uint64_t cached;   /* answers from the cache */
	uint64_t queued;   /* files handed to the worker */
	uint64_t refused;  /* the queue was full */
	uint64_t too_big;  /* over the size cap */
	uint64_t errors;   /* reads that failed */
	uint64_t waiting;  /* files queued or being hashed now */
};

/* async: a worker thread hashes; else hasher_get() does, in the caller. 0 or -errno. */
int hasher_new(bool async, uint64_t max_bytes, struct hasher **ret);
void hasher_free(struct hasher *h);
/*
 * The sha256 (64 hex digits) of the regular file fd names, st its fstat(). 0 with out set;
 * -EINPROGRESS: queued now or earlier, ask again once hasher_fd() was readable; -EAGAIN: the queue
 * is full; -EFBIG: larger than the cap; another -errno: it could not be read. fd stays the
 * caller's (the worker reads a duplicate).
 */
int hasher_get(struct hasher *h, int fd, const struct stat *st, char out[65]);
/* An eventfd, readable when a hash was done since the last hasher_drain(); -1 without a worker. */
int hasher_fd(const struct hasher *h);
/* Clears hasher_fd(); true when some hash was done since the last call. */
bool hasher_drain(struct hasher *h);
void hasher_get_stats(struct hasher *h, struct hasher_stats *ret);
