/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The daemon's control surfaces: the root-only status socket that `rdmaguard status` reads, the
 * optional PID file, and readiness notification for systemd.
 */
#pragma once

#include <json-c/json.h>
#include <stddef.h>

#define STATUS_SOCKET_DEFAULT RG_RUNDIR "/status.sock"
#define STATUS_REPLY_MAX      (1u << 20)
#define CONTROL_REPLY_MAX     (64u << 20) /* incidents and their kept logs */
#define CONTROL_REQUEST_MAX   256
#define CONTROL_REQUEST_WAIT_MS 100

/*
 * Listens on a unix stream socket at path, mode 0600, replacing a stale socket file. Returns the
 * non-blocking listening fd or -errno.
 */
int status_listen(const char *path);
/*
 * Accepts one client on the listening fd and writes doc (plus a newline) to it if the peer is
 * root (SO_PEERCRED uid 0); closes the connection either way. 0, -EAGAIN (no client), -EPERM
 * (refused peer) or -errno.
 */
int status_serve_one(int listen_fd, struct json_object *doc);
/* Client side: connects, reads the reply (at most STATUS_REPLY_MAX bytes) into *ret. */
int status_query(const char *path, char **ret);

/*
 * Requests (docs/incidents.md#the-control-socket): a client may write one line before it
 * shuts its side down: "incidents" (every incident the daemon keeps, one record a line), or
 * "incident ID" (that incident's record, then its kept log, one JSON line each). Nothing (an
 * immediate EOF, or nothing within CONTROL_REQUEST_WAIT_MS): the status document.
 *
 * control_accept(): the next root client's fd (non-blocking), -EAGAIN (none), -EPERM (refused).
 * control_read_request(): its request line into buf ("" for none). control_write(): bounded
 * wait. control_query(): the client side, request NULL for the status, reply at most max bytes.
 */
int control_accept(int listen_fd);
int control_read_request(int fd, char *buf, size_t size);
int control_write(int fd, const char *text, size_t len);
int control_query(const char *path, const char *request, size_t max, char **ret);

/*
 * Writes the PID to path (0644) and holds an exclusive lock on it; -EBUSY if another live daemon
 * holds it. Returns the fd to keep open, or -errno.
 */
int pidfile_acquire(const char *path);
void pidfile_release(int fd, const char *path);

/* sd_notify() wrappers; no-ops when not started by systemd. */
void notify_ready(const char *status);
void notify_reloading(void);
void notify_stopping(void);
void notify_status(const char *status);
