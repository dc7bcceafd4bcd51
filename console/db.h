/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The console's PostgreSQL side over libpq: a small pool of connections for the pages' queries
 * (each answer one JSON text built by PostgreSQL, which does the JSON escaping), and a listener
 * on channel rdmaguard_seats that counts changes for the server-sent events.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#define DB_POOL 4

int db_init(const char *conninfo, char *err, size_t errlen);
void db_done(void);

/*
 * Runs sql (one statement, parameters $1..$n as text) and returns the first column of its
 * first row in *json (malloc'd; NULL when no row or NULL). -EACCES: the database refused it
 * (permission, the notes' trigger), its message in err; -EIO: no database.
 */
int db_query_json(const char *sql, int nparams, const char *const *params, char **json, char *err,
		  size_t errlen);

/* Starts the LISTEN thread. */
int db_listen_start(void);
void db_listen_stop(void);
/* The change counter: waits until it differs from seen or timeout_ms passes; returns it. */
unsigned long db_changes_wait(unsigned long seen, int timeout_ms);
bool db_stopping(void);
