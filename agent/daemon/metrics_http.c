/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The /metrics endpoint over libmicrohttpd (metrics_http.h): HTTP parsing, limits and timeouts
 * are the library's; this file says which address, which path, and what the answer is.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <microhttpd.h>

#include "common/log.h"
#include "common/util.h"
#include "metrics_http.h"

#define CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"

struct metrics_http {
	struct MHD_Daemon *mhd;
	metrics_render_fn render;
	void *ud;
	unsigned long long served;
};

int metrics_http_parse_listen(const char *s, struct sockaddr_storage *ret, unsigned *ret_len)
{
	char host[64];
	const char *colon, *h = s;
	size_t hl;
	uint32_t port;

	memset(ret, 0, sizeof(*ret));
	if (s[0] == '[') {
		const char *end = strchr(s, ']');

		if (!end || end[1] != ':')
			return -EINVAL;
		h = s + 1;
		hl = (size_t)(end - h);
		colon = end + 1;
	} else {
		colon = strrchr(s, ':');
		if (!colon)
			return -EINVAL;
		hl = (size_t)(colon - s);
	}
	if (hl == 0 || hl >= sizeof(host) || safe_atou32(colon + 1, 10, &port) < 0 || port == 0 ||
	    port > 65535)
		return -EINVAL;
	memcpy(host, h, hl);
	host[hl] = 0;
	if (s[0] != '[') {
		struct sockaddr_in *a = (struct sockaddr_in *)ret;

		if (inet_pton(AF_INET, host, &a->sin_addr) != 1)
			return -EINVAL;
		a->sin_family = AF_INET;
		a->sin_port = htons((uint16_t)port);
		*ret_len = sizeof(*a);
	} else {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)ret;

		if (inet_pton(AF_INET6, host, &a->sin6_addr) != 1)
			return -EINVAL;
		a->sin6_family = AF_INET6;
		a->sin6_port = htons((uint16_t)port);
		*ret_len = sizeof(*a);
	}
	return 0;
}

static enum MHD_Result reply(struct MHD_Connection *c, unsigned status, const char *text,
			     size_t len, bool copy)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(
	    len, (void *)text, copy ? MHD_RESPMEM_MUST_COPY : MHD_RESPMEM_MUST_FREE);
	enum MHD_Result ret;

	if (!r) {
		if (!copy)
			free((void *)text);
		return MHD_NO;
	}
	(void)MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
				      status == MHD_HTTP_OK ? CONTENT_TYPE : "text/plain");
	ret = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
				  const char *method, const char *version, const char *upload,
				  size_t *upload_size, void **con_cls)
{
	static const char not_found[] = "not found: the metrics are at /metrics\n";
	static const char bad_method[] = "only GET and HEAD\n";
	struct metrics_http *m = cls;
	char *buf;
	size_t len;

	/* a body (there should be none) is read and ignored; the answer comes after it */
	if (*upload_size) {
		*upload_size = 0;
		return MHD_YES;
	}
	if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 && strcmp(method, MHD_HTTP_METHOD_HEAD) != 0)
		return reply(c, MHD_HTTP_METHOD_NOT_ALLOWED, bad_method, sizeof(bad_method) - 1,
			     true);
	if (strcmp(url, "/metrics") != 0)
		return reply(c, MHD_HTTP_NOT_FOUND, not_found, sizeof(not_found) - 1, true);
	if (m->render(m->ud, &buf, &len) < 0)
		return MHD_NO;
	m->served++;
	return reply(c, MHD_HTTP_OK, buf, len, false);
}

__attribute__((format(printf, 2, 0))) static void on_log(void *cls, const char *fmt, va_list ap)
{
	char msg[256];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	msg[strcspn(msg, "\n")] = 0;
	log_debug("metrics endpoint: %s", msg);
}

int metrics_http_start(const char *listen, metrics_render_fn render, void *ud,
		       struct metrics_http **ret)
{
	struct sockaddr_storage sa;
	unsigned salen;
	struct metrics_http *m;
	unsigned flags = MHD_USE_EPOLL | MHD_USE_ERROR_LOG;
	int r;

	r = metrics_http_parse_listen(listen, &sa, &salen);
	if (r < 0)
		return r;
	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	m->render = render;
	m->ud = ud;
	if (sa.ss_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	errno = 0;
	m->mhd = MHD_start_daemon(
	    flags, 0, NULL, NULL, on_request, m, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sa,
	    MHD_OPTION_CONNECTION_LIMIT, (unsigned)METRICS_HTTP_MAX_CONN,
	    MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned)METRICS_HTTP_PER_IP,
	    MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)METRICS_HTTP_TIMEOUT_S,
	    MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)METRICS_HTTP_MEMORY_LIMIT,
	    MHD_OPTION_LISTEN_BACKLOG_SIZE, (unsigned)METRICS_HTTP_MAX_CONN,
	    MHD_OPTION_EXTERNAL_LOGGER, on_log, NULL, MHD_OPTION_END);
	if (!m->mhd) {
		r = errno ? -errno : -EADDRNOTAVAIL;
		free(m);
		return r;
	}
	*ret = m;
	return 0;
}

int metrics_http_fd(const struct metrics_http *m)
{
	const union MHD_DaemonInfo *i = MHD_get_daemon_info(m->mhd, MHD_DAEMON_INFO_EPOLL_FD);

	return i ? i->epoll_fd : -EBADF;
}

void metrics_http_run(struct metrics_http *m)
{
	if (m)
		(void)MHD_run(m->mhd);
}

unsigned long long metrics_http_served(const struct metrics_http *m)
{
	return m ? m->served : 0;
}

void metrics_http_stop(struct metrics_http *m)
{
	if (!m)
		return;
	MHD_stop_daemon(m->mhd);
	free(m);
}
