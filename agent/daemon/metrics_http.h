/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The /metrics endpoint (docs/metrics.md): libmicrohttpd on one address, off unless asked for
 * (--metrics [ADDR:]PORT; a bare port is 127.0.0.1), driven from the daemon's own epoll loop (no
 * thread: the counters are read where they are written). Off loopback it needs the policy's
 * "metrics": HTTPS (cert, key) and a bearer token (token_file), or "plaintext_lan": true; then
 * the families that tell which hooks are weak (sensor_info) are left out. "scrapers" limits who
 * may connect at all (refused at accept, before it takes a slot). Bounded: at most
 * METRICS_HTTP_MAX_CONN connections, METRICS_HTTP_PER_IP per client address, 5 s to send a
 * request, 16 KiB of memory per connection, GET and HEAD of /metrics only.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>

#define METRICS_HTTP_MAX_CONN	  32
#define METRICS_HTTP_PER_IP	  2
#define METRICS_HTTP_TIMEOUT_S	  5
#define METRICS_HTTP_MEMORY_LIMIT (16 * 1024)
#define METRICS_HTTP_FILE_MAX	  (64 * 1024) /* a certificate, key or token file */
#define METRICS_HTTP_TOKEN_MIN	  16
#define METRICS_HTTP_TOKEN_MAX	  256

struct metrics_http;
struct rg_policy;

/*
 * Renders the exposition into a malloc'ed buffer (freed by the server). sensitive: include the
 * families only the gate's side may see (which hook each sensor runs on). 0 or -errno.
 */
typedef int (*metrics_render_fn)(void *ud, bool sensitive, char **ret, size_t *ret_len);

/*
 * "127.0.0.1:9466", "[::1]:9466", "0.0.0.0:9466" (numeric only), or "9466" (127.0.0.1).
 * -EINVAL with a bad address.
 */
int metrics_http_parse_listen(const char *s, struct sockaddr_storage *ret, unsigned *ret_len);
/*
 * Starts the endpoint on listen with policy's "metrics" (copied: a reload does not change it).
 * -EPERM (logged) where the gate refuses: off loopback without TLS and a token, and without the
 * opt-out; a file that cannot be trusted or read.
 */
int metrics_http_start(const char *listen, const struct rg_policy *policy, metrics_render_fn render,
		       void *ud, struct metrics_http **ret);
/* What metrics_http_start() would say of listen and policy, without starting: 0 or -errno. */
int metrics_http_check(const char *listen, const struct rg_policy *policy);
/* "https://127.0.0.1:9466/metrics": what it serves, for logs and status. */
const char *metrics_http_url(const struct metrics_http *m);
/* An fd for the caller's epoll: readable when metrics_http_run() has work. */
int metrics_http_fd(const struct metrics_http *m);
/* Serves what is ready, closes idle connections. Never blocks. */
void metrics_http_run(struct metrics_http *m);
/* Scrapes answered (a test and status can tell the endpoint is used). */
unsigned long long metrics_http_served(const struct metrics_http *m);
/* Connections refused at accept (not a scraper), requests refused (no or a wrong token). */
unsigned long long metrics_http_refused(const struct metrics_http *m);
void metrics_http_stop(struct metrics_http *m);
