/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The console's HTTP side over libmicrohttpd: the listening daemon (TLS with GnuTLS when given
 * a certificate), the security headers of every response, the static page, the event stream;
 * the API's routes are api.c's.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "accounts.h"
#include "session.h"

struct console_cfg {
	const char *listen_host; /* numeric address */
	unsigned port;
	char *tls_cert, *tls_key;  /* PEM text, or NULL */
	struct accounts *accounts; /* NULL: open, read-only (loopback only) */
	const char *static_dir;
	char *layout_json; /* the room-layout file as JSON, or NULL */
};

/* A request as the routes see it. */
struct request {
	void *conn; /* struct MHD_Connection */
	const char *method, *path;
	const char *body;
	size_t body_len;
	bool has_session;
	char token[TOKEN_HEX + 1];
	struct session_info session;
};

/* An answer: a body (malloc'd JSON unless ctype says otherwise) and what goes with it. */
struct reply {
	unsigned status;
	char *body;
	const char *ctype;
	char set_cookie[256];
	char disposition[160];
};

extern const struct console_cfg *console_cfg;

const char *request_arg(const struct request *rq, const char *name);
const char *request_header(const struct request *rq, const char *name);

int http_start(const struct console_cfg *cfg, char *err, size_t errlen);
void http_stop(void);

/* api.c */
void api_handle(struct request *rq, struct reply *rp);
