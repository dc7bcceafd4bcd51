/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * PCI scans and examinations on a thread of their own (hw_scanner.h).
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "common/macro.h"
#include "common/root.h"
#include "hw/hw_scanner.h"

struct hw_scanner {
	pthread_mutex_t mu;
	int efd;
	char *root_dir;
	bool running;	      /* a thread works */
	bool scan_wanted;     /* a scan is asked for and not started */
	bool scanning;	      /* a scan runs */
	bool orphaned;	      /* freed while it ran: the thread frees the rest */
	struct hw_scan *done; /* the last result, not taken yet */
	int err;	      /* its error */
	/* examinations, oldest first from head: n_done finished, then n - n_done asked for */
	struct hw_exam exam[HW_EXAM_QUEUE_MAX];
	unsigned head, n, n_done;
	void (*stall)(void *data); /* tests: before each examination */
	void *stall_data;
};

static void destroy(struct hw_scanner *sc)
{
	hw_scan_free(sc->done);
	for (unsigned i = 0; i < sc->n; i++)
		free(sc->exam[(sc->head + i) % HW_EXAM_QUEUE_MAX].fn);
	if (sc->efd >= 0)
		close(sc->efd);
	free(sc->root_dir);
	pthread_mutex_destroy(&sc->mu);
	free(sc);
}

/* The function x->u.slot names, examined into x (unlocked: only this thread touches x). */
static void examine(struct hw_scanner *sc, struct hw_exam *x)
{
	struct rg_root root = {.fd = -1};
	int r;

	if (sc->stall)
		sc->stall(sc->stall_data);
	r = root_init(&root, sc->root_dir);
	x->fn = calloc(1, sizeof(*x->fn));
	if (r >= 0 && !x->fn)
		r = -ENOMEM;
	if (r >= 0)
		r = hw_describe(&root, x->u.slot, x->fn);
	if (root.fd >= 0)
		root_done(&root);
	x->err = r < 0 ? r : 0;
	if (r < 0) {
		free(x->fn);
		x->fn = NULL;
	}
}

/* One scan of the bus, its result kept for hw_scanner_take() (locked on return). */
static void scan(struct hw_scanner *sc)
{
	struct rg_root root = {.fd = -1};
	struct hw_scan *s = NULL;
	int r;

	sc->scan_wanted = false;
	sc->scanning = true;
	pthread_mutex_unlock(&sc->mu);
	r = root_init(&root, sc->root_dir);
	if (r >= 0) {
		r = hw_scan(&root, &s);
		root_done(&root);
	}
	if (r < 0) {
		hw_scan_free(s);
		s = NULL;
	}
	pthread_mutex_lock(&sc->mu);
	sc->scanning = false;
	hw_scan_free(sc->done);
	sc->done = s;
	sc->err = r < 0 ? r : 0;
}

static void *work_thread(void *arg)
{
	struct hw_scanner *sc = arg;
	uint64_t one = 1;

	pthread_mutex_lock(&sc->mu);
	for (;;) {
		if (sc->orphaned) {
			pthread_mutex_unlock(&sc->mu);
			destroy(sc);
			return NULL;
		}
		if (sc->n_done < sc->n) {
			/* the next one in order; hw_scanner_examine() only writes past it */
			struct hw_exam *x = &sc->exam[(sc->head + sc->n_done) % HW_EXAM_QUEUE_MAX];

			pthread_mutex_unlock(&sc->mu);
			examine(sc, x);
			pthread_mutex_lock(&sc->mu);
			sc->n_done++;
		} else if (sc->scan_wanted) {
			scan(sc);
		} else {
			sc->running = false;
			pthread_mutex_unlock(&sc->mu);
			return NULL;
		}
		if (!sc->orphaned)
			(void)!write(sc->efd, &one, sizeof(one));
	}
}

/* A thread for the work asked for, unless one runs (locked). 0 or -errno. */
static int start_locked(struct hw_scanner *sc)
{
	pthread_attr_t attr;
	pthread_t t;
	int r;

	if (sc->running)
		return 0;
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	r = -pthread_create(&t, &attr, work_thread, sc);
	pthread_attr_destroy(&attr);
	if (r == 0)
		sc->running = true;
	return r;
}

int hw_scanner_new(const char *root_dir, struct hw_scanner **ret)
{
	struct hw_scanner *sc = calloc(1, sizeof(*sc));

	if (!sc)
		return -ENOMEM;
	pthread_mutex_init(&sc->mu, NULL);
	sc->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	sc->root_dir = strdup(root_dir);
	if (sc->efd < 0 || !sc->root_dir) {
		int r = sc->efd < 0 ? -errno : -ENOMEM;

		destroy(sc);
		return r;
	}
	*ret = sc;
	return 0;
}

void hw_scanner_free(struct hw_scanner *sc)
{
	bool running;

	if (!sc)
		return;
	pthread_mutex_lock(&sc->mu);
	running = sc->running;
	sc->orphaned = running;
	pthread_mutex_unlock(&sc->mu);
	if (!running)
		destroy(sc);
}

int hw_scanner_fd(const struct hw_scanner *sc)
{
	return sc ? sc->efd : -1;
}

int hw_scanner_request(struct hw_scanner *sc)
{
	int r;

	pthread_mutex_lock(&sc->mu);
	sc->scan_wanted = true;
	r = start_locked(sc);
	if (r < 0)
		sc->scan_wanted = false;
	pthread_mutex_unlock(&sc->mu);
	return r;
}

bool hw_scanner_busy(const struct hw_scanner *sc)
{
	bool busy;

	pthread_mutex_lock((pthread_mutex_t *)&sc->mu);
	busy = sc->scan_wanted || sc->scanning;
	pthread_mutex_unlock((pthread_mutex_t *)&sc->mu);
	return busy;
}

bool hw_scanner_working(const struct hw_scanner *sc)
{
	bool running;

	pthread_mutex_lock((pthread_mutex_t *)&sc->mu);
	running = sc->running;
	pthread_mutex_unlock((pthread_mutex_t *)&sc->mu);
	return running;
}

struct hw_scan *hw_scanner_take(struct hw_scanner *sc, int *err)
{
	struct hw_scan *s;
	uint64_t n;

	(void)!read(sc->efd, &n, sizeof(n));
	pthread_mutex_lock(&sc->mu);
	s = sc->done;
	sc->done = NULL;
	if (err)
		*err = sc->err;
	sc->err = 0;
	pthread_mutex_unlock(&sc->mu);
	return s;
}

int hw_scanner_examine(struct hw_scanner *sc, const struct hw_uevent *u)
{
	struct hw_exam *x;
	int r;

	pthread_mutex_lock(&sc->mu);
	if (sc->n == HW_EXAM_QUEUE_MAX) {
		pthread_mutex_unlock(&sc->mu);
		return -ENOSPC;
	}
	x = &sc->exam[(sc->head + sc->n) % HW_EXAM_QUEUE_MAX];
	memset(x, 0, sizeof(*x));
	x->u = *u;
	sc->n++;
	r = start_locked(sc);
	if (r < 0)
		sc->n--;
	pthread_mutex_unlock(&sc->mu);
	return r;
}

int hw_scanner_examined(struct hw_scanner *sc, struct hw_exam *ret)
{
	int r = 0;

	pthread_mutex_lock(&sc->mu);
	if (sc->n_done) {
		*ret = sc->exam[sc->head];
		sc->exam[sc->head].fn = NULL;
		sc->head = (sc->head + 1) % HW_EXAM_QUEUE_MAX;
		sc->n--;
		sc->n_done--;
		r = 1;
	}
	pthread_mutex_unlock(&sc->mu);
	return r;
}

void hw_scanner_set_stall(struct hw_scanner *sc, void (*fn)(void *data), void *data)
{
	sc->stall = fn;
	sc->stall_data = data;
}
