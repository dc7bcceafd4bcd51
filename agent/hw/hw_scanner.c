/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * PCI scans on a thread of their own (hw_scanner.h).
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
	bool running;	      /* a thread scans */
	bool again;	      /* a request came while it did */
	bool orphaned;	      /* freed while it ran: the thread frees the rest */
	struct hw_scan *done; /* the last result, not taken yet */
	int err;	      /* its error */
};

static void destroy(struct hw_scanner *sc)
{
	hw_scan_free(sc->done);
	if (sc->efd >= 0)
		close(sc->efd);
	free(sc->root_dir);
	pthread_mutex_destroy(&sc->mu);
	free(sc);
}

static void *scan_thread(void *arg)
{
	struct hw_scanner *sc = arg;

	for (;;) {
		struct rg_root root = {.fd = -1};
		struct hw_scan *s = NULL;
		uint64_t one = 1;
		int r = root_init(&root, sc->root_dir);

		if (r >= 0) {
			r = hw_scan(&root, &s);
			root_done(&root);
		}
		pthread_mutex_lock(&sc->mu);
		if (sc->orphaned) {
			pthread_mutex_unlock(&sc->mu);
			hw_scan_free(s);
			destroy(sc);
			return NULL;
		}
		hw_scan_free(sc->done);
		sc->done = r < 0 ? NULL : s;
		sc->err = r < 0 ? r : 0;
		if (r < 0)
			hw_scan_free(s);
		(void)!write(sc->efd, &one, sizeof(one));
		if (!sc->again) {
			sc->running = false;
			pthread_mutex_unlock(&sc->mu);
			return NULL;
		}
		sc->again = false;
		pthread_mutex_unlock(&sc->mu);
	}
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
	pthread_attr_t attr;
	pthread_t t;
	int r = 0;

	pthread_mutex_lock(&sc->mu);
	if (sc->running) {
		sc->again = true;
		goto out;
	}
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	r = -pthread_create(&t, &attr, scan_thread, sc);
	pthread_attr_destroy(&attr);
	if (r == 0)
		sc->running = true;
out:
	pthread_mutex_unlock(&sc->mu);
	return r;
}

bool hw_scanner_busy(const struct hw_scanner *sc)
{
	bool busy;

	pthread_mutex_lock((pthread_mutex_t *)&sc->mu);
	busy = sc->running;
	pthread_mutex_unlock((pthread_mutex_t *)&sc->mu);
	return busy;
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
