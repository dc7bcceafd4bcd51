/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Who may read the /metrics endpoint (docs/metrics.md): loopback by default; any other address
 * needs the policy's "metrics" to give TLS (cert, key) and a bearer token (token_file), or the
 * explicit opt-out "plaintext_lan"; "scrapers" limits the addresses that may connect at all. The
 * files are read once, at start, through the policy's trust checks; the token file must be
 * root-only.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>

struct rg_policy_metrics;
struct rg_fleet_net;

struct metrics_gate {
	bool loopback;		       /* the endpoint's address is 127.0.0.0/8 or ::1 */
	char *cert, *key;	       /* PEM text, NULL: plain HTTP */
	char *token;		       /* the bearer token, NULL: none asked for */
	struct rg_fleet_net *scrapers; /* NULL: every address may connect */
	size_t n_scrapers;
	bool sensitive; /* the sensors' hook flavours may be shown: loopback or TLS */
};

/*
 * Decides for an endpoint on sa with the policy's pm (NULL: none): 0, or -EPERM (logged) where
 * sa is not loopback and pm gives neither TLS with a token nor the opt-out, or a file cannot be
 * trusted or read; -ENOMEM. listen names the endpoint in messages.
 */
int metrics_gate_init(struct metrics_gate *g, const struct sockaddr_storage *sa,
		      const struct rg_policy_metrics *pm, const char *listen);
void metrics_gate_done(struct metrics_gate *g);
/* Whether a client at sa may connect ("scrapers"). */
bool metrics_gate_accept(const struct metrics_gate *g, const struct sockaddr *sa, socklen_t len);
/* Whether a request with this Authorization header (NULL: none) is let through. */
bool metrics_gate_authorized(const struct metrics_gate *g, const char *authorization);
