/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Executables hashed by a worker thread, cached by (device, inode, size, ctime): hasher.h. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "hasher.h"
#include "common/caps.h"
#include "common/macro.h"
#include "common/sha256.h"

struct hkey {
	uint64_t dev, ino, size, ctime_sec, ctime_nsec;
};

struct hasher {
	bool async;
	uint64_t max;
	int efd;
	pthread_t thread;
	bool started, stop;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct {
		struct hkey key;
		int fd;
	} q[HASHER_QUEUE];
	size_t qhead, qlen;
	struct hkey busy; /* the file the worker reads now */
	bool has_busy;
	struct {
		struct hkey key;
		int err; /* 0: sha is the hash; else it could not be read */
		char sha[65];
		bool used;
	} cache[HASHER_CACHE];
	unsigned next;
	struct hasher_stats st;
};

static struct hkey key_of(const struct stat *st)
{
	return (struct hkey){.dev = (uint64_t)st->st_dev,
			     .ino = (uint64_t)st->st_ino,
			     .size = (uint64_t)st->st_size,
			     .ctime_sec = (uint64_t)st->st_ctim.tv_sec,
			     .ctime_nsec = (uint64_t)st->st_ctim.tv_nsec};
}

static bool key_eq(const struct hkey *a, const struct hkey *b)
{
	return memcmp(a, b, sizeof(*a)) == 0;
}

/* Under mu. */
static int cache_find(struct hasher *h, const struct hkey *k, char out[65])
{
	for (unsigned i = 0; i < HASHER_CACHE; i++)
		if (h->cache[i].used && key_eq(&h->cache[i].key, k)) {
			if (h->cache[i].err)
				return h->cache[i].err;
			memcpy(out, h->cache[i].sha, 65);
			return 0;
		}
	return 1;
}

/* Under mu. */
static void cache_put(struct hasher *h, const struct hkey *k, int err, const char sha[65])
{
	unsigned i = h->next++ % HASHER_CACHE;

	h->cache[i].key = *k;
	h->cache[i].err = err;
	if (!err)
		memcpy(h->cache[i].sha, sha, 65);
	else
		h->cache[i].sha[0] = 0;
	h->cache[i].used = true;
}

static void *worker(void *arg)
{
	struct hasher *h = arg;
	uint64_t one = 1;

	/* it reads the fds it is handed (opened by the event thread): no capability needed */
	(void)caps_limit_worker();
	pthread_mutex_lock(&h->mu);
	for (;;) {
		struct hkey k;
		char sha[65];
		int fd, r;

		while (!h->stop && !h->qlen)
			pthread_cond_wait(&h->cv, &h->mu);
		if (h->stop)
			break;
		k = h->q[h->qhead].key;
		fd = h->q[h->qhead].fd;
		h->qhead = (h->qhead + 1) % HASHER_QUEUE;
		h->qlen--;
		h->busy = k;
		h->has_busy = true;
		pthread_mutex_unlock(&h->mu);

		r = sha256_fd(fd, h->max, sha);
		close(fd);

		pthread_mutex_lock(&h->mu);
		h->has_busy = false;
		if (r < 0)
			h->st.errors++;
		else
			h->st.hashed++;
		cache_put(h, &k, r < 0 ? r : 0, sha);
		pthread_mutex_unlock(&h->mu);
		(void)!write(h->efd, &one, sizeof(one));
		pthread_mutex_lock(&h->mu);
	}
	pthread_mutex_unlock(&h->mu);
	return NULL;
}

int hasher_new(bool async, uint64_t max_bytes, struct hasher **ret)
{
	struct hasher *h = calloc(1, sizeof(*h));
	int r;

	if (!h)
		return -ENOMEM;
	h->async = async;
	h->max = max_bytes;
	h->efd = -1;
	pthread_mutex_init(&h->mu, NULL);
	pthread_cond_init(&h->cv, NULL);
	if (async) {
		h->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		if (h->efd < 0) {
			r = -errno;
			hasher_free(h);
			return r;
		}
		r = -pthread_create(&h->thread, NULL, worker, h);
		if (r < 0) {
			hasher_free(h);
			return r;
		}
		h->started = true;
	}
	*ret = h;
	return 0;
}

void hasher_free(struct hasher *h)
{
	if (!h)
		return;
	if (h->started) {
		pthread_mutex_lock(&h->mu);
		h->stop = true;
		pthread_cond_signal(&h->cv);
		pthread_mutex_unlock(&h->mu);
		pthread_join(h->thread, NULL);
	}
	for (size_t i = 0; i < h->qlen; i++)
		close(h->q[(h->qhead + i) % HASHER_QUEUE].fd);
	if (h->efd >= 0)
		close(h->efd);
	pthread_cond_destroy(&h->cv);
	pthread_mutex_destroy(&h->mu);
	free(h);
}

int hasher_get(struct hasher *h, int fd, const struct stat *st, char out[65])
{
	struct hkey k = key_of(st);
	int r, dup_fd;

	if (!S_ISREG(st->st_mode))
		return -EBADFD;
	pthread_mutex_lock(&h->mu);
	r = cache_find(h, &k, out);
	if (r <= 0) {
		if (r == 0)
			h->st.cached++;
		pthread_mutex_unlock(&h->mu);
		return r;
	}
	if ((uint64_t)st->st_size > h->max) {
		h->st.too_big++;
		pthread_mutex_unlock(&h->mu);
		return -EFBIG;
	}
	if (!h->async) {
		pthread_mutex_unlock(&h->mu);
		r = sha256_fd(fd, h->max, out);
		pthread_mutex_lock(&h->mu);
		if (r < 0)
			h->st.errors++;
		else
			h->st.hashed++;
		cache_put(h, &k, r < 0 ? r : 0, out);
		pthread_mutex_unlock(&h->mu);
		return r;
	}
	r = -EINPROGRESS;
	if (h->has_busy && key_eq(&h->busy, &k))
		goto out;
	for (size_t i = 0; i < h->qlen; i++)
		if (key_eq(&h->q[(h->qhead + i) % HASHER_QUEUE].key, &k))
			goto out;
	if (h->qlen == HASHER_QUEUE) {
		h->st.refused++;
		r = -EAGAIN;
		goto out;
	}
	dup_fd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	if (dup_fd < 0) {
		r = -errno;
		goto out;
	}
	h->q[(h->qhead + h->qlen) % HASHER_QUEUE].key = k;
	h->q[(h->qhead + h->qlen) % HASHER_QUEUE].fd = dup_fd;
	h->qlen++;
	h->st.queued++;
	pthread_cond_signal(&h->cv);
out:
	pthread_mutex_unlock(&h->mu);
	return r;
}

int hasher_fd(const struct hasher *h)
{
	return h->efd;
}

bool hasher_drain(struct hasher *h)
{
	uint64_t n = 0;

	if (h->efd < 0)
		return false;
	return read(h->efd, &n, sizeof(n)) == sizeof(n) && n > 0;
}

void hasher_get_stats(struct hasher *h, struct hasher_stats *ret)
{
	pthread_mutex_lock(&h->mu);
	*ret = h->st;
	ret->waiting = h->qlen + h->has_busy;
	pthread_mutex_unlock(&h->mu);
}
