/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libmicrohttpd plumbing: one thread per connection (the event streams block), bounded
 * connections and bodies, the page's three static files read once at start, the headers every
 * response carries (a Content-Security-Policy that allows no inline script), and the
 * server-sent events of /api/events, one "change" event per burst of NOTIFYs.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <microhttpd.h>

#include "common/log.h"
#include "db.h"
#include "http.h"

#define BODY_MAX	 (16 * 1024)
#define STATIC_MAX	 (1024 * 1024)
#define SSE_KEEPALIVE_MS 5000

#define CSP                                                                                        \
	"default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "                \
	"connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

const struct console_cfg *console_cfg;
static struct MHD_Daemon *mhd;

static struct static_file {
	const char *path, *name, *ctype;
	char *data;
	size_t len;
} statics[] = {
    {"/", "index.html", "text/html; charset=utf-8", NULL, 0},
    {"/console.js", "console.js", "text/javascript; charset=utf-8", NULL, 0},
    {"/console.css", "console.css", "text/css; charset=utf-8", NULL, 0},
};

struct conn_state {
	char *body;
	size_t len;
	bool too_big;
};

static int read_file(const char *dir, const char *name, char **data, size_t *len)
{
	char path[4096];
	struct stat st;
	ssize_t n;
	int fd, r = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size > STATIC_MAX) {
		close(fd);
		return -EINVAL;
	}
	*data = malloc((size_t)st.st_size + 1);
	if (!*data) {
		close(fd);
		return -ENOMEM;
	}
	n = read(fd, *data, (size_t)st.st_size);
	if (n != st.st_size)
		r = n < 0 ? -errno : -EIO;
	*len = n > 0 ? (size_t)n : 0;
	close(fd);
	return r;
}

const char *request_arg(const struct request *rq, const char *name)
{
	return MHD_lookup_connection_value(rq->conn, MHD_GET_ARGUMENT_KIND, name);
}

const char *request_header(const struct request *rq, const char *name)
{
	return MHD_lookup_connection_value(rq->conn, MHD_HEADER_KIND, name);
}

static void add_headers(struct MHD_Response *r, bool api)
{
	MHD_add_response_header(r, "Content-Security-Policy", CSP);
	MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
	MHD_add_response_header(r, "X-Frame-Options", "DENY");
	MHD_add_response_header(r, "Referrer-Policy", "no-referrer");
	MHD_add_response_header(r, "Cross-Origin-Opener-Policy", "same-origin");
	MHD_add_response_header(r, "Cache-Control", api ? "no-store" : "no-cache");
	if (console_cfg->tls_cert)
		MHD_add_response_header(r, "Strict-Transport-Security", "max-age=31536000");
}

static enum MHD_Result send_reply(struct MHD_Connection *c, struct reply *rp)
{
	const char *body = rp->body ? rp->body : "{}";
	struct MHD_Response *r;
	enum MHD_Result ret;

	r = MHD_create_response_from_buffer(strlen(body), (void *)body, MHD_RESPMEM_MUST_COPY);
	free(rp->body);
	if (!r)
		return MHD_NO;
	add_headers(r, true);
	MHD_add_response_header(r, "Content-Type",
				rp->ctype ? rp->ctype : "application/json; charset=utf-8");
	if (rp->set_cookie[0])
		MHD_add_response_header(r, "Set-Cookie", rp->set_cookie);
	if (rp->disposition[0])
		MHD_add_response_header(r, "Content-Disposition", rp->disposition);
	ret = MHD_queue_response(c, rp->status, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result send_static(struct MHD_Connection *c, const struct static_file *f)
{
	struct MHD_Response *r =
	    MHD_create_response_from_buffer(f->len, f->data, MHD_RESPMEM_PERSISTENT);
	enum MHD_Result ret;

	if (!r)
		return MHD_NO;
	add_headers(r, false);
	MHD_add_response_header(r, "Content-Type", f->ctype);
	ret = MHD_queue_response(c, MHD_HTTP_OK, r);
	MHD_destroy_response(r);
	return ret;
}

struct sse {
	unsigned long seen;
	bool started;
};

static ssize_t sse_read(void *cls, uint64_t pos, char *buf, size_t max)
{
	struct sse *s = cls;
	unsigned long now;
	int n;

	(void)pos;
	if (db_stopping())
		return MHD_CONTENT_READER_END_OF_STREAM;
	if (!s->started) {
		s->started = true;
		n = snprintf(buf, max, "retry: 1000\n\n");
		return n;
	}
	now = db_changes_wait(s->seen, SSE_KEEPALIVE_MS);
	if (now == s->seen)
		return snprintf(buf, max, ": keepalive\n\n");
	s->seen = now;
	return snprintf(buf, max, "event: change\ndata: %lu\n\n", now);
}

static enum MHD_Result send_events(struct MHD_Connection *c)
{
	struct sse *s = calloc(1, sizeof(*s));
	struct MHD_Response *r;
	enum MHD_Result ret;

	if (!s)
		return MHD_NO;
	s->seen = db_changes_wait(0, 0);
	r = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 256, sse_read, s, free);
	if (!r) {
		free(s);
		return MHD_NO;
	}
	add_headers(r, true);
	MHD_add_response_header(r, "Content-Type", "text/event-stream");
	ret = MHD_queue_response(c, MHD_HTTP_OK, r);
	MHD_destroy_response(r);
	return ret;
}

static void load_session(struct request *rq)
{
	const char *tok = MHD_lookup_connection_value(rq->conn, MHD_COOKIE_KIND, "rgc_session");

	if (tok && session_lookup(tok, &rq->session) == 0) {
		rq->has_session = true;
		snprintf(rq->token, sizeof(rq->token), "%s", tok);
	}
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url,
			      const char *method, const char *version, const char *upload,
			      size_t *upload_len, void **con_cls)
{
	struct conn_state *st = *con_cls;
	struct request rq = {.conn = c, .method = method, .path = url};
	struct reply rp = {.status = 200};

	(void)cls, (void)version;
	if (!st) {
		st = calloc(1, sizeof(*st));
		if (!st)
			return MHD_NO;
		*con_cls = st;
		return MHD_YES;
	}
	if (*upload_len > 0) {
		if (st->len + *upload_len > BODY_MAX) {
			st->too_big = true;
		} else {
			char *b = realloc(st->body, st->len + *upload_len + 1);

			if (!b)
				return MHD_NO;
			memcpy(b + st->len, upload, *upload_len);
			st->body = b;
			st->len += *upload_len;
			b[st->len] = '\0';
		}
		*upload_len = 0;
		return MHD_YES;
	}
	if (strcmp(method, "GET") == 0 || strcmp(method, "HEAD") == 0) {
		for (size_t i = 0; i < sizeof(statics) / sizeof(statics[0]); i++)
			if (strcmp(url, statics[i].path) == 0)
				return send_static(c, &statics[i]);
	}
	if (st->too_big) {
		rp.status = 413;
		rp.body = strdup("{\"error\":\"request body too large\"}");
		return send_reply(c, &rp);
	}
	load_session(&rq);
	if (strcmp(url, "/api/events") == 0 && strcmp(method, "GET") == 0 &&
	    (rq.has_session || !console_cfg->accounts))
		return send_events(c);
	rq.body = st->body ? st->body : "";
	rq.body_len = st->len;
	api_handle(&rq, &rp);
	return send_reply(c, &rp);
}

static void completed(void *cls, struct MHD_Connection *c, void **con_cls,
		      enum MHD_RequestTerminationCode toe)
{
	struct conn_state *st = *con_cls;

	(void)cls, (void)c, (void)toe;
	if (st) {
		free(st->body);
		free(st);
		*con_cls = NULL;
	}
}

/* libmicrohttpd's messages, as the console's warnings */
__attribute__((format(printf, 2, 0))) static void mhd_log(void *cls, const char *fmt, va_list ap)
{
	char buf[512];

	(void)cls;
	vsnprintf(buf, sizeof(buf), fmt, ap);
	buf[strcspn(buf, "\n")] = '\0';
	log_warning("HTTP: %s", buf);
}

int http_start(const struct console_cfg *cfg, char *err, size_t errlen)
{
	struct sockaddr_storage ss = {0};
	struct sockaddr_in *in4 = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&ss;
	unsigned flags =
	    MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG;
	int r;

	console_cfg = cfg;
	for (size_t i = 0; i < sizeof(statics) / sizeof(statics[0]); i++) {
		r = read_file(cfg->static_dir, statics[i].name, &statics[i].data, &statics[i].len);
		if (r < 0) {
			snprintf(err, errlen, "%s/%s: %s", cfg->static_dir, statics[i].name,
				 strerror(-r));
			return r;
		}
	}
	if (inet_pton(AF_INET, cfg->listen_host, &in4->sin_addr) == 1) {
		in4->sin_family = AF_INET;
		in4->sin_port = htons((uint16_t)cfg->port);
	} else if (inet_pton(AF_INET6, cfg->listen_host, &in6->sin6_addr) == 1) {
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons((uint16_t)cfg->port);
		flags |= MHD_USE_IPv6;
	} else {
		snprintf(err, errlen, "%s: not a numeric address", cfg->listen_host);
		return -EINVAL;
	}
	if (cfg->tls_cert) {
		if (MHD_is_feature_supported(MHD_FEATURE_TLS) != MHD_YES) {
			snprintf(err, errlen, "this libmicrohttpd has no TLS");
			return -ENOTSUP;
		}
		flags |= MHD_USE_TLS;
	}
	mhd = MHD_start_daemon(
	    flags, 0, NULL, NULL, handle, NULL, MHD_OPTION_EXTERNAL_LOGGER, mhd_log, NULL,
	    MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss, MHD_OPTION_CONNECTION_LIMIT,
	    (unsigned)256, MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned)64,
	    MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)60, MHD_OPTION_NOTIFY_COMPLETED, completed,
	    NULL, cfg->tls_cert ? MHD_OPTION_HTTPS_MEM_CERT : MHD_OPTION_END, cfg->tls_cert,
	    MHD_OPTION_HTTPS_MEM_KEY, cfg->tls_key, MHD_OPTION_END);
	if (!mhd) {
		snprintf(err, errlen, "cannot listen on %s port %u (in use, or the TLS files?)",
			 cfg->listen_host, cfg->port);
		return -EADDRINUSE;
	}
	return 0;
}

void http_stop(void)
{
	if (mhd)
		MHD_stop_daemon(mhd);
	mhd = NULL;
	for (size_t i = 0; i < sizeof(statics) / sizeof(statics[0]); i++) {
		free(statics[i].data);
		statics[i].data = NULL;
	}
}
