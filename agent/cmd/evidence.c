/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rdmaguard evidence keygen|export|verify|verify-log: the seat key, signed incident bundles and
 * hash-chained logs (docs/evidence.md). Option parsing and reporting only; the work is in
 * agent/evidence/. export's sources (the daemon, a recorded file) are in evidence_export.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "cmd.h"
#include "config.h"
#include "common/exitcode.h"
#include "common/log.h"
#include "evidence/bundle.h"
#include "evidence/chain.h"
#include "evidence/sigkey.h"
#include "evidence-cmd.h"
#include "common/number.h"
#include "common/root.h"
#include "common/strutil.h"

#define HEADS_MAX_LINE (1u << 20)

static void usage(FILE *f)
{
	fprintf(
	    f,
	    "Usage: rdmaguard evidence keygen [--state-dir DIR] [--force]\n"
	    "       rdmaguard evidence export INCIDENT-ID OUT [--record FILE] [--boot-id ID]\n"
	    "                 [--policy FILE] [--rules DIR] [--socket PATH] [--state-dir DIR]\n"
	    "       rdmaguard evidence verify BUNDLE [--key PUB]\n"
	    "       rdmaguard evidence verify-log FILE... [--partial] [--from SEQ:HASH]\n"
	    "                 [--head SEQ:HASH]... [--heads FILE] [--output NAME] [--key PUB]\n\n"
	    "keygen      makes the seat's Ed25519 key in DIR/" SIGKEY_PRIVATE
	    " (private, 0600) and\n"
	    "            DIR/" SIGKEY_PUBLIC " unless it exists, and prints the public half\n"
	    "export      writes the incident's signed evidence bundle to the directory OUT: the\n"
	    "            incident, its alerts, the raw events behind them, the config space of "
	    "its\n"
	    "            PCI functions, the policy and rules with their sha256, the seat; from "
	    "the\n"
	    "            running daemon, or offline from a recorded event file (--record)\n"
	    "verify      checks a bundle's signature and every file of its manifest\n"
	    "verify-log  checks the hash chain of file+chain: output files, oldest first\n\n"
	    "Options:\n"
	    "  --state-dir DIR    where the seat key is (default " RG_STATEDIR ")\n"
	    "  --force            keygen: replace an existing key\n"
	    "  --record FILE      export: replay this `daemon --record` file instead of asking\n"
	    "                     the daemon\n"
	    "  --boot-id ID       export --record: the boot the events were recorded in (the\n"
	    "                     incident ids mix it in; default this machine's)\n"
	    "  --policy FILE      export: the policy (default: the daemon's; with --record the\n"
	    "                     built-in one, as `rdmaguard incidents FILE`)\n"
	    "  --rules DIR        export: the rules directory (default: the daemon's, "
	    "or " RG_RULESDIR ")\n"
	    "  --socket PATH      export: the daemon's status socket (default " RG_RUNDIR
	    "/status.sock)\n"
	    "  --key PUB          the seat's public key (a PEM file, or a file holding the\n"
	    "                     \"ed25519:...\" text that `status` prints); verify: without it\n"
	    "                     the bundle's own key is used and only its integrity is shown\n"
	    "  --partial          verify-log: the first line may continue an earlier file\n"
	    "  --from SEQ:HASH    verify-log: the first line must follow this head\n"
	    "  --head SEQ:HASH    verify-log: a head received from the agent (repeatable)\n"
	    "  --heads FILE       verify-log: heartbeats as a collector received them (JSON "
	    "lines):\n"
	    "                     every chain head in them must be in the log\n"
	    "  --output NAME      verify-log: whose heads to take from --heads (default: the only\n"
	    "                     chained output named in them)\n"
	    "  -h, --help         this help\n\n"
	    "Exit codes: 0 done, verified; 1 verify, verify-log: something does not check out "
	    "(the\n"
	    "first such thing is named); 2 error (bad usage, unreadable input, no key).\n");
}

static int cmd_keygen(int argc, char **argv, const char *state_dir, bool force)
{
	_cleanup_(sigkey_freep) EVP_PKEY *key = NULL;
	char err[1400], text[SIGKEY_TEXT_LEN], fp[SIGKEY_FP_LEN];
	bool created = false;
	int r;

	if (argc != 0)
		return cmd_usage_error("evidence", "keygen takes no arguments ('%s')", argv[0]);
	r = sigkey_generate(state_dir, force, &created, err, sizeof(err));
	if (r < 0) {
		log_error("%s", err);
		return RG_EXIT_ERROR;
	}
	r = sigkey_load_private(state_dir, geteuid() == 0, &key, err, sizeof(err));
	if (r < 0 || sigkey_text(key, text) < 0 || sigkey_fingerprint(key, fp) < 0) {
		log_error("%s", r < 0 ? err : "the key has no Ed25519 public half");
		return RG_EXIT_ERROR;
	}
	printf("%s %s/%s\npublic %s\nfingerprint %s\n", created ? "created" : "kept", state_dir,
	       SIGKEY_PRIVATE, text, fp);
	return RG_EXIT_OK;
}

static int load_key(const char *path, EVP_PKEY **key)
{
	char err[1200];
	int r = sigkey_load_public(path, key, err, sizeof(err));

	if (r < 0)
		log_error("%s", err);
	return r;
}

static int cmd_verify(int argc, char **argv, const char *keypath)
{
	_cleanup_(sigkey_freep) EVP_PKEY *key = NULL;
	struct bundle_report rep;
	enum bundle_verdict v;

	if (argc != 1)
		return cmd_usage_error("evidence", "verify takes one BUNDLE");
	if (keypath && load_key(keypath, &key) < 0)
		return RG_EXIT_ERROR;
	v = bundle_verify(argv[0], key, &rep);
	if (v == BUNDLE_ERROR) {
		log_error("%s", rep.what[0] ? rep.what : "cannot read the bundle");
		return RG_EXIT_ERROR;
	}
	if (v == BUNDLE_BAD) {
		printf("FAILED %s: %s\n", argv[0], rep.what);
		return RG_EXIT_FINDINGS;
	}
	printf("OK %s: incident %s, %u files, signed by %s%s\n", argv[0], rep.incident, rep.n_files,
	       rep.fingerprint,
	       rep.key_from_bundle ? " (the bundle's own key: give --key to know whose)" : "");
	return RG_EXIT_OK;
}

/* One chain head of a heartbeat's output entry, checked against key when one is given. */
static int take_head(struct chain_verifier *v, struct json_object *out, const char *name,
		     EVP_PKEY *key, const char *where)
{
	struct json_object *ch, *seq, *head, *sig;
	char msg[512];
	int r;

	if (!json_object_object_get_ex(out, "chain", &ch))
		return 0;
	if (!json_object_object_get_ex(ch, "seq", &seq) ||
	    !json_object_is_type(seq, json_type_int) ||
	    !json_object_object_get_ex(ch, "head", &head) ||
	    !json_object_is_type(head, json_type_string))
		return log_error_errno(-EINVAL, "%s: a chain head without seq and head", where);
	if (json_object_get_int64(seq) == 0)
		return 0; /* nothing written yet */
	if (key) {
		if (!json_object_object_get_ex(ch, "sig", &sig) ||
		    chain_head_message(name, (uint64_t)json_object_get_int64(seq),
				       json_object_get_string(head), msg, sizeof(msg)) < 0 ||
		    sigkey_verify(key, msg, strlen(msg), json_object_get_string(sig)) < 0) {
			printf("FAILED %s: the head seq %lld of %s is not signed by the key\n",
			       where, (long long)json_object_get_int64(seq), name);
			return -EBADMSG;
		}
	}
	r = chain_verifier_add_head(v, (uint64_t)json_object_get_int64(seq),
				    json_object_get_string(head));
	if (r < 0)
		return log_error_errno(r, "%s: a bad chain head: %m", where);
	return 1;
}

/* Every chain head of output (or of the only chained output) in the heartbeats of path. */
static int read_heads(struct chain_verifier *v, const char *path, const char *output, EVP_PKEY *key)
{
	_cleanup_free_ char *text = NULL, *name = NULL;
	_cleanup_close_ int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	size_t len = 0, start = 0, lineno = 0, n = 0;
	bool truncated = false;
	int r = fd < 0 ? -errno : read_fd_bounded(fd, 256u << 20, &text, &len, &truncated);

	if (r < 0 || truncated)
		return log_error_errno(r < 0 ? r : -EFBIG, "%s: %m", path);
	if (output && !(name = strdup(output)))
		return log_oom();
	while (start < len) {
		char *nl = memchr(text + start, '\n', len - start), where[4200];
		size_t end = nl ? (size_t)(nl - text) : len;
		struct json_object *o, *agent, *outs;

		lineno++;
		snprintf(where, sizeof(where), "%s:%zu", path, lineno);
		text[end] = 0;
		o = end - start > HEADS_MAX_LINE ? NULL : json_tokener_parse(text + start);
		start = end + 1;
		if (!o) {
			log_error("%s: not a JSON line", where);
			return -EINVAL;
		}
		/* a heartbeat: agent.outputs, or rdmaguard.agent.outputs in ECS's layout
		 * (schema_version 2, docs/operations.md) */
		if (!((json_object_object_get_ex(o, "rdmaguard", &agent) &&
		       json_object_object_get_ex(agent, "agent", &agent) &&
		       json_object_object_get_ex(agent, "outputs", &outs)) ||
		      (json_object_object_get_ex(o, "agent", &agent) &&
		       json_object_object_get_ex(agent, "outputs", &outs))) ||
		    !json_object_is_type(outs, json_type_array)) {
			json_object_put(o); /* not a heartbeat */
			continue;
		}
		for (size_t i = 0; i < json_object_array_length(outs); i++) {
			struct json_object *e = json_object_array_get_idx(outs, i), *nm;
			const char *s;

			if (!json_object_object_get_ex(e, "chain", NULL) ||
			    !json_object_object_get_ex(e, "name", &nm))
				continue;
			s = json_object_get_string(nm);
			if (!name && !(name = strdup(s))) {
				json_object_put(o);
				return log_oom();
			}
			if (strcmp(name, s) != 0) {
				if (output)
					continue;
				json_object_put(o);
				log_error(
				    "%s: heads of two chained outputs (%s, %s): give --output",
				    where, name, s);
				return -EINVAL;
			}
			r = take_head(v, e, s, key, where);
			if (r < 0) {
				json_object_put(o);
				return r;
			}
			n += (size_t)r;
		}
		json_object_put(o);
	}
	if (n == 0) {
		log_error("%s: no chain head%s%s in it", path, output ? " of " : "",
			  output ? output : "");
		return -ENOENT;
	}
	printf("heads: %zu from %s (%s)%s\n", n, path, name,
	       key ? ", signatures checked" : ", signatures not checked: give --key");
	return 0;
}

struct verify_log_opts {
	bool partial;
	const char *from, *heads, *output, *key;
	const char *head[64];
	size_t n_head;
};

static int cmd_verify_log(int argc, char **argv, const struct verify_log_opts *o)
{
	_cleanup_(sigkey_freep) EVP_PKEY *key = NULL;
	struct chain_verifier v;
	int r, status = RG_EXIT_OK;

	if (argc < 1)
		return cmd_usage_error("evidence", "verify-log needs a FILE");
	if (o->key && load_key(o->key, &key) < 0)
		return RG_EXIT_ERROR;
	if (chain_verifier_init(&v, o->partial, o->from) < 0)
		return cmd_usage_error("evidence", "--from: not SEQ:HASH ('%s')", o->from);
	for (size_t i = 0; i < o->n_head; i++) {
		const char *colon = strchr(o->head[i], ':');
		uint64_t seq;
		char num[24];

		if (!colon || (size_t)(colon - o->head[i]) >= sizeof(num))
			goto bad_head;
		memcpy(num, o->head[i], (size_t)(colon - o->head[i]));
		num[colon - o->head[i]] = 0;
		if (safe_atou64(num, 10, &seq) < 0 ||
		    chain_verifier_add_head(&v, seq, colon + 1) < 0)
			goto bad_head;
	}
	if (o->heads) {
		r = read_heads(&v, o->heads, o->output, key);
		if (r == -EBADMSG) {
			chain_verifier_done(&v);
			return RG_EXIT_FINDINGS;
		}
		if (r < 0) {
			chain_verifier_done(&v);
			return RG_EXIT_ERROR;
		}
	}
	for (int i = 0; i < argc && status == RG_EXIT_OK; i++) {
		_cleanup_close_ int fd =
		    open(argv[i], O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);

		if (fd < 0) {
			log_error_errno(-errno, "%s: %m", argv[i]);
			status = RG_EXIT_ERROR;
			break;
		}
		r = chain_verify_fd(&v, argv[i], fd);
		if (r == -EBADMSG)
			status = RG_EXIT_FINDINGS;
		else if (r < 0) {
			log_error_errno(r, "%s: %m", argv[i]);
			status = RG_EXIT_ERROR;
		}
	}
	if (status == RG_EXIT_OK && chain_verify_finish(&v) < 0)
		status = RG_EXIT_FINDINGS;
	if (status == RG_EXIT_FINDINGS)
		printf("FAILED %s\n", v.what);
	else if (status == RG_EXIT_OK)
		printf("OK %llu lines, seq %llu..%llu, %llu restart(s), %zu head(s) found, %llu "
		       "before the first line, head %llu:%s\n",
		       (unsigned long long)v.lines, (unsigned long long)v.first_seq,
		       (unsigned long long)v.seq, (unsigned long long)v.restarts,
		       v.n_heads - (size_t)v.heads_before, (unsigned long long)v.heads_before,
		       (unsigned long long)v.seq, v.head);
	chain_verifier_done(&v);
	return status;
bad_head:
	chain_verifier_done(&v);
	return cmd_usage_error("evidence", "--head: not SEQ:HASH");
}

int cmd_evidence(int argc, char **argv)
{
	enum {
		OPT_STATE = 256,
		OPT_BOOT_ID,
		OPT_FORCE,
		OPT_RECORD,
		OPT_POLICY,
		OPT_RULES,
		OPT_SOCKET,
		OPT_KEY,
		OPT_PARTIAL,
		OPT_FROM,
		OPT_HEAD,
		OPT_HEADS,
		OPT_OUTPUT
	};
	static const struct option opts[] = {
	    {"state-dir", required_argument, NULL, OPT_STATE},
	    {"force", no_argument, NULL, OPT_FORCE},
	    {"record", required_argument, NULL, OPT_RECORD},
	    {"policy", required_argument, NULL, OPT_POLICY},
	    {"rules", required_argument, NULL, OPT_RULES},
	    {"socket", required_argument, NULL, OPT_SOCKET},
	    {"key", required_argument, NULL, OPT_KEY},
	    {"partial", no_argument, NULL, OPT_PARTIAL},
	    {"from", required_argument, NULL, OPT_FROM},
	    {"head", required_argument, NULL, OPT_HEAD},
	    {"heads", required_argument, NULL, OPT_HEADS},
	    {"output", required_argument, NULL, OPT_OUTPUT},
	    {"help", no_argument, NULL, 'h'},
	    {},
	};
	struct evidence_export_opts ex = {.state_dir = RG_STATEDIR};
	struct verify_log_opts vl = {0};
	bool force = false;
	const char *sub;
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case OPT_STATE:
			ex.state_dir = optarg;
			break;
		case OPT_FORCE:
			force = true;
			break;
		case OPT_BOOT_ID:
			ex.boot_id = optarg;
			break;
		case OPT_RECORD:
			ex.record = optarg;
			break;
		case OPT_POLICY:
			ex.policy = optarg;
			break;
		case OPT_RULES:
			ex.rules = optarg;
			break;
		case OPT_SOCKET:
			ex.socket = optarg;
			break;
		case OPT_KEY:
			vl.key = optarg;
			break;
		case OPT_PARTIAL:
			vl.partial = true;
			break;
		case OPT_FROM:
			vl.from = optarg;
			break;
		case OPT_HEAD:
			if (vl.n_head >= ARRAY_SIZE(vl.head))
				return cmd_usage_error("evidence", "more than %zu --head",
						       ARRAY_SIZE(vl.head));
			vl.head[vl.n_head++] = optarg;
			break;
		case OPT_HEADS:
			vl.heads = optarg;
			break;
		case OPT_OUTPUT:
			vl.output = optarg;
			break;
		case 'h':
			usage(stdout);
			return RG_EXIT_OK;
		default:
			return cmd_usage_error("evidence", "invalid option");
		}
	}
	if (optind >= argc)
		return cmd_usage_error("evidence", "missing subcommand (keygen, export, verify, "
						   "verify-log)");
	sub = argv[optind++];
	argc -= optind;
	argv += optind;
	if (strcmp(sub, "keygen") == 0)
		return cmd_keygen(argc, argv, ex.state_dir, force);
	if (strcmp(sub, "export") == 0)
		return cmd_evidence_export(argc, argv, &ex);
	if (strcmp(sub, "verify") == 0)
		return cmd_verify(argc, argv, vl.key);
	if (strcmp(sub, "verify-log") == 0)
		return cmd_verify_log(argc, argv, &vl);
	return cmd_usage_error("evidence", "unknown subcommand '%s'", sub);
}
