/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The /metrics endpoint (docs/metrics.md): libmicrohttpd on one address, off unless asked for
 * (--metrics ADDR:PORT), driven from the daemon's own epoll loop (no thread: the counters are
 * read where they are written). Bounded: at most METRICS_HTTP_MAX_CONN connections (2 per
 * client address), 5 s to send a request, 16 KiB of memory per connection, GET and HEAD of
 * /metrics only.
 */
#pragma once

#include <stddef.h>
#include <sys/socket.h>

#define METRICS_HTTP_MAX_CONN	  8
#define METRICS_HTTP_PER_IP	  2
#define METRICS_HTTP_TIMEOUT_S	  5
#define METRICS_HTTP_MEMORY_LIMIT (16 * 1024)

struct metrics_http;

/* Renders the exposition into a malloc'ed buffer (freed by the server). 0 or -errno. */
typedef int (*metrics_render_fn)(void *ud, char **ret, size_t *ret_len);

/* "127.0.0.1:9466", "[::1]:9466", "0.0.0.0:9466" (numeric only). -EINVAL with a bad address. */
int metrics_http_parse_listen(const char *s, struct sockaddr_storage *ret, unsigned *ret_len);
int metrics_http_start(const char *listen, metrics_render_fn render, void *ud,
		       struct metrics_http **ret);
/* An fd for the caller's epoll: readable when metrics_http_run() has work. */
int metrics_http_fd(const struct metrics_http *m);
/* Serves what is ready, closes idle connections. Never blocks. */
void metrics_http_run(struct metrics_http *m);
/* Scrapes answered (a test and status can tell the endpoint is used). */
unsigned long long metrics_http_served(const struct metrics_http *m);
void metrics_http_stop(struct metrics_http *m);
