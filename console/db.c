/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libpq: the pool (connections made on first use and reset when broken, a statement timeout on
 * each) and the listener thread (LISTEN rdmaguard_seats; every notification, and every
 * reconnection, bumps the change counter that the event streams wait on).
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <libpq-fe.h>

#include "common/log.h"
#include "db.h"

static char *conninfo;
static PGconn *pool[DB_POOL];
static bool busy[DB_POOL];
static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t pool_cond = PTHREAD_COND_INITIALIZER;

static pthread_t listener;
static bool listening, stopping;
static unsigned long changes;
static pthread_mutex_t change_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t change_cond;

static PGconn *connect_db(char *err, size_t errlen)
{
	PGconn *c = PQconnectdb(conninfo);
	PGresult *res;

	if (PQstatus(c) != CONNECTION_OK) {
		snprintf(err, errlen, "%s", PQerrorMessage(c));
		err[strcspn(err, "\n")] = '\0';
		PQfinish(c);
		return NULL;
	}
	res = PQexec(c, "SET statement_timeout = '10s'; SET TimeZone = 'UTC'");
	PQclear(res);
	return c;
}

int db_init(const char *ci, char *err, size_t errlen)
{
	pthread_condattr_t ca;

	conninfo = strdup(ci);
	if (!conninfo)
		return -ENOMEM;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&change_cond, &ca);
	pthread_condattr_destroy(&ca);
	/* The first connection now: a wrong connection string is an error at start. */
	pool[0] = connect_db(err, errlen);
	if (!pool[0])
		return -EIO;
	return 0;
}

void db_done(void)
{
	for (size_t i = 0; i < DB_POOL; i++) {
		PQfinish(pool[i]);
		pool[i] = NULL;
	}
	free(conninfo);
	conninfo = NULL;
}

static int acquire(void)
{
	int slot = -1;

	pthread_mutex_lock(&pool_lock);
	while (slot < 0) {
		for (int i = 0; i < DB_POOL && slot < 0; i++)
			if (!busy[i])
				slot = i;
		if (slot < 0)
			pthread_cond_wait(&pool_cond, &pool_lock);
	}
	busy[slot] = true;
	pthread_mutex_unlock(&pool_lock);
	return slot;
}

static void release(int slot)
{
	pthread_mutex_lock(&pool_lock);
	busy[slot] = false;
	pthread_cond_signal(&pool_cond);
	pthread_mutex_unlock(&pool_lock);
}

int db_query_json(const char *sql, int nparams, const char *const *params, char **json, char *err,
		  size_t errlen)
{
	int slot = acquire(), r = 0;
	PGresult *res = NULL;
	PGconn **c = &pool[slot];

	*json = NULL;
	if (*c && PQstatus(*c) != CONNECTION_OK) {
		PQfinish(*c);
		*c = NULL;
	}
	if (!*c)
		*c = connect_db(err, errlen);
	if (!*c) {
		r = -EIO;
		goto out;
	}
	res = PQexecParams(*c, sql, nparams, NULL, params, NULL, NULL, 0);
	if (PQresultStatus(res) != PGRES_TUPLES_OK && PQresultStatus(res) != PGRES_COMMAND_OK) {
		const char *state = PQresultErrorField(res, PG_DIAG_SQLSTATE);

		snprintf(err, errlen, "%s", PQresultErrorMessage(res));
		err[strcspn(err, "\n")] = '\0';
		/* class 08: the connection; anything else is the statement's refusal */
		r = PQstatus(*c) != CONNECTION_OK || (state && strncmp(state, "08", 2) == 0)
			? -EIO
			: -EACCES;
		goto out;
	}
	if (PQntuples(res) > 0 && PQnfields(res) > 0 && !PQgetisnull(res, 0, 0)) {
		*json = strdup(PQgetvalue(res, 0, 0));
		if (!*json)
			r = -ENOMEM;
	}
out:
	PQclear(res);
	release(slot);
	return r;
}

/* now + ms on the monotonic clock, which the change condition variable uses */
static void deadline(struct timespec *until, int ms)
{
	clock_gettime(CLOCK_MONOTONIC, until);
	until->tv_sec += ms / 1000;
	until->tv_nsec += (long)(ms % 1000) * 1000000L;
	if (until->tv_nsec >= 1000000000L)
		until->tv_sec++, until->tv_nsec -= 1000000000L;
}

static void bump(void)
{
	pthread_mutex_lock(&change_lock);
	changes++;
	pthread_cond_broadcast(&change_cond);
	pthread_mutex_unlock(&change_lock);
}

bool db_stopping(void)
{
	bool s;

	pthread_mutex_lock(&change_lock);
	s = stopping;
	pthread_mutex_unlock(&change_lock);
	return s;
}

unsigned long db_changes_wait(unsigned long seen, int timeout_ms)
{
	struct timespec until;
	unsigned long now;

	deadline(&until, timeout_ms);
	pthread_mutex_lock(&change_lock);
	while (changes == seen && !stopping)
		if (pthread_cond_timedwait(&change_cond, &change_lock, &until) == ETIMEDOUT)
			break;
	now = changes;
	pthread_mutex_unlock(&change_lock);
	return now;
}

/* Sleeps ms, or less when the console stops. */
static void pause_ms(int ms)
{
	struct timespec until;

	deadline(&until, ms);
	pthread_mutex_lock(&change_lock);
	while (!stopping)
		if (pthread_cond_timedwait(&change_cond, &change_lock, &until) == ETIMEDOUT)
			break;
	pthread_mutex_unlock(&change_lock);
}

/* One connection's life: LISTEN, then notifications until it breaks or the console stops. */
static void listen_once(PGconn *c)
{
	PGresult *res = PQexec(c, "LISTEN rdmaguard_seats");
	bool ok = PQresultStatus(res) == PGRES_COMMAND_OK;

	PQclear(res);
	if (!ok) {
		log_error("LISTEN rdmaguard_seats: %s", PQerrorMessage(c));
		return;
	}
	bump(); /* what changed while no one listened */
	while (!db_stopping()) {
		struct pollfd p = {.fd = PQsocket(c), .events = POLLIN};
		PGnotify *n;
		bool any = false;

		if (p.fd < 0)
			return;
		if (poll(&p, 1, 500) < 0 && errno != EINTR)
			return;
		if (!PQconsumeInput(c))
			return;
		while ((n = PQnotifies(c))) {
			any = true;
			PQfreemem(n);
		}
		if (any)
			bump();
	}
}

static void *listen_main(void *arg)
{
	char err[512];

	(void)arg;
	while (!db_stopping()) {
		PGconn *c = connect_db(err, sizeof(err));

		if (c) {
			listen_once(c);
			PQfinish(c);
		} else {
			log_warning("The database for LISTEN: %s", err);
		}
		pause_ms(1000); /* before the next try */
	}
	return NULL;
}

int db_listen_start(void)
{
	int r = pthread_create(&listener, NULL, listen_main, NULL);

	if (r != 0)
		return -r;
	listening = true;
	return 0;
}

void db_listen_stop(void)
{
	pthread_mutex_lock(&change_lock);
	stopping = true;
	pthread_cond_broadcast(&change_cond);
	pthread_mutex_unlock(&change_lock);
	if (listening)
		pthread_join(listener, NULL);
	listening = false;
}
