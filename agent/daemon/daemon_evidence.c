/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The daemon's part of the evidence (docs/evidence.md): the seat key, made on the first start
 * when the package's postinst has not made it, its public half in every notice and the status,
 * and the heads of hash-chained file outputs signed in the heartbeats and the status.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"
#include "evidence/chain.h"
#include "evidence/sigkey.h"
#include "output/output.h"
#include "daemon-internal.h"

#define ADD(o, k, v) json_object_object_add((o), (k), (v))

int daemon_evidence_start(struct daemon *d, const char *state_dir)
{
	char err[1400];
	bool created = false;
	int r;

	r = sigkey_generate(state_dir, false, &created, err, sizeof(err));
	if (r >= 0)
		r = sigkey_load_private(state_dir, geteuid() == 0, &d->sigkey, err, sizeof(err));
	if (r < 0) {
		/* Detection goes on without it; only signing (bundles, heads) is missing. */
		log_warning("No seat key, bundles and chain heads go unsigned: %s", err);
		return 0;
	}
	if (sigkey_text(d->sigkey, d->sigkey_text) < 0 ||
	    sigkey_fingerprint(d->sigkey, d->sigkey_fp) < 0) {
		sigkey_free(d->sigkey);
		d->sigkey = NULL;
		return log_error_errno(-EINVAL, "The seat key has no Ed25519 public half.");
	}
	if (created)
		log_notice("Made the seat key %s/%s: %s", state_dir, SIGKEY_PRIVATE, d->sigkey_fp);
	return 0;
}

void daemon_evidence_done(struct daemon *d)
{
	sigkey_free(d->sigkey);
	d->sigkey = NULL;
}

void daemon_evidence_add(struct daemon *d, struct json_object *rg)
{
	struct json_object *k;

	if (!d->sigkey)
		return;
	k = json_object_new_object();
	ADD(k, "public", json_object_new_string(d->sigkey_text));
	ADD(k, "fingerprint", json_object_new_string(d->sigkey_fp));
	ADD(rg, "seat_key", k);
}

void daemon_evidence_sign_heads(struct daemon *d, struct json_object *stats)
{
	struct json_object *outs;

	if (!d->sigkey || !json_object_object_get_ex(stats, "outputs", &outs) ||
	    !json_object_is_type(outs, json_type_array))
		return;
	for (size_t i = 0; i < json_object_array_length(outs); i++) {
		struct json_object *e = json_object_array_get_idx(outs, i), *ch, *nm, *seq, *head;
		char msg[OUTPUT_NAME_MAX + 128], sig[SIGKEY_SIG_B64_LEN];

		if (!json_object_object_get_ex(e, "chain", &ch) ||
		    !json_object_object_get_ex(e, "name", &nm) ||
		    !json_object_object_get_ex(ch, "seq", &seq) ||
		    !json_object_object_get_ex(ch, "head", &head))
			continue;
		if (chain_head_message(json_object_get_string(nm),
				       (uint64_t)json_object_get_int64(seq),
				       json_object_get_string(head), msg, sizeof(msg)) < 0 ||
		    sigkey_sign(d->sigkey, msg, strlen(msg), sig) < 0)
			continue;
		ADD(ch, "sig", json_object_new_string(sig));
	}
}
