/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Policy files: policy_parse() on any bytes (the positioned JSON parser, every key and value
 * check, the exception conditions of rule overrides), its "outputs" then checked as the commands
 * check them (policy_check_outputs() with output_spec_check()). Properties: an error's
 * file:line:column lies inside the text; a policy that parses works with the matching helpers
 * and with the shipped rules (or is refused by engine_check, never crashes it).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "engine/engine.h"
#include "policy/policy.h"
#include "rules/rules.h"
#include "output/output.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_quiet();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const exes[] = {"/opt/arena/bin/arena", "/usr/bin/ibv_devinfo", "", "/"};
	struct rg_policy *p = NULL;
	struct rg_error err;
	char msg[1200];
	size_t i, j;

	if (policy_parse("fuzz.json", (const char *)data, size, &p, &err) < 0 ||
	    policy_check_outputs(p, output_spec_check, &err) < 0) {
		rg_error_format(&err, msg, sizeof(msg));
		FUZZ_ASSERT(err.msg[0], "an error without a message");
		fuzz_check_position((const char *)data, size, err.line, err.column, msg);
		policy_free(p);
		return 0;
	}
	FUZZ_ASSERT(p->n_games <= POLICY_MAX_GAMES && p->n_allow <= POLICY_MAX_ALLOW,
		    "%zu games, %zu allow entries", p->n_games, p->n_allow);
	FUZZ_ASSERT(severity_to_string(p->threshold), "threshold %d", p->threshold);
	for (i = 0; i < p->n_games; i++)
		for (j = 0; j < ARRAY_SIZE(exes); j++) {
			policy_game_exe_match(&p->games[i], exes[j]);
			policy_game_sha_match(&p->games[i], "0123456789abcdef0123456789abcdef"
							    "0123456789abcdef0123456789abcdef");
		}
	policy_games_need_hash(p);
	/* the fleet: bounded lists, and every address gets a class (a name only for servers) */
	FUZZ_ASSERT(p->n_fleet_seats <= POLICY_MAX_FLEET && p->n_fleet_servers <= POLICY_MAX_FLEET,
		    "%zu seats, %zu servers", p->n_fleet_seats, p->n_fleet_servers);
	for (i = 0; i < 256; i += 51) {
		uint8_t a[16] = {[10] = 0xff, [11] = 0xff, [12] = 10, [13] = (uint8_t)i};
		const char *name;
		int c = policy_fleet_classify(p, a, &name);

		FUZZ_ASSERT(p->has_fleet ? c >= RG_PEER_SEAT && c < RG_PEER__MAX : c == RG_PEER_NONE,
			    "class %d", c);
		FUZZ_ASSERT(!name || c == RG_PEER_SERVER, "a name for class %d", c);
	}
	policy_free(p);
	return 0;
}
