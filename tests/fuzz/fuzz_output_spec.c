/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * --output SPEC: output_spec_parse() on any text (schemes, hosts, IPv6 brackets, ports,
 * percent-encoded parameters). Properties: an error is a message naming the spec; a spec that
 * parses has a canonical name that parses again to the same output (type, host, port, path).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "output/output.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_quiet();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *spec = fuzz_strndup(data, size), err[512], again[OUTPUT_NAME_MAX + 32];
	struct output_spec *a = malloc(sizeof(*a)), *b = malloc(sizeof(*b));

	if (!a || !b)
		abort();
	if (output_spec_parse(spec, a, err, sizeof(err)) < 0) {
		FUZZ_ASSERT(strncmp(err, "output \"", 8) == 0, "error does not name the spec: %s",
			    err);
		goto out;
	}
	FUZZ_ASSERT(output_type_to_string(a->type), "type %d", a->type);
	FUZZ_ASSERT(a->name[0], "no name");
	if (output_type_is_network(a->type)) {
		FUZZ_ASSERT(a->host[0] && a->port, "syslog output without host or port");
		FUZZ_ASSERT(a->facility >= -1 && a->facility <= 23, "facility %d", a->facility);
		FUZZ_ASSERT(!a->cert[0] == !a->key[0], "cert without key");
	}
	if (a->type == OUTPUT_RELP_TLS)
		FUZZ_ASSERT(a->ca[0] && a->cert[0] && a->key[0], "relp+tls without its files");
	/* relp+tls's name lacks the files it requires: give them back. */
	snprintf(again, sizeof(again), "%s%s", a->name,
		 a->type == OUTPUT_RELP_TLS ? "?ca=a&cert=b&key=c" : "");
	FUZZ_ASSERT(output_spec_parse(again, b, err, sizeof(err)) == 0,
		    "canonical name \"%s\" does not parse: %s", again, err);
	FUZZ_ASSERT(a->type == b->type && strcmp(a->name, b->name) == 0 &&
			    strcmp(a->host, b->host) == 0 && a->port == b->port &&
			    strcmp(a->path, b->path) == 0 && a->chain == b->chain,
		    "\"%s\" reparses as \"%s\"", a->name, b->name);
out:
	free(a);
	free(b);
	free(spec);
	return 0;
}
