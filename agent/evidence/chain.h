/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The hash chain of a file output (file+chain:PATH; docs/evidence.md). Every line is the JSON
 * object the output would have written, with one member appended last:
 *
 *     {...,"chain":{"seq":N,"prev":"HEX"}}
 *
 * N counts the lines of the chain from 1; HEX is the SHA-256 (64 lowercase hex digits) of the
 * previous line's bytes exactly as written, without its newline; the first line of a chain has
 * 64 zeros. The canonical form hashed is therefore the line itself: a verifier hashes bytes,
 * never re-serialises JSON, and a SIEM reads an ordinary JSON object with one more field. The
 * head of the chain is (N, SHA-256 of line N): heartbeats carry it, signed by the seat key.
 *
 * chain.c writes (the file sink's thread; pure functions over buffers and one bounded tail read
 * to resume); chain_verify.c checks a sequence of lines (verify-log).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CHAIN_ZERO	 "0000000000000000000000000000000000000000000000000000000000000000"
#define CHAIN_SUFFIX_MAX 128	    /* bytes chain_line() adds at most */
#define CHAIN_TAIL_MAX	 (1u << 20) /* bytes read back from a file's end to resume its chain */
#define CHAIN_HEAD_SIGNED                                                                          \
	"rdmaguard-chain-head-1" /* first line of what a head's signature signs                    \
				  */

struct chain_state {
	uint64_t seq;  /* of the last line written; 0: none yet */
	char head[65]; /* SHA-256 of that line; CHAIN_ZERO when seq is 0 */
};

void chain_init(struct chain_state *st);
/*
 * Writes json (len bytes, a JSON object: ends in '}') with the chain member into out (at least
 * len + CHAIN_SUFFIX_MAX bytes) and advances st to it. Returns the new length, or -EINVAL (not
 * an object), -ENOBUFS.
 */
long chain_line(struct chain_state *st, const char *json, size_t len, char *out, size_t size);
/*
 * Resumes st from the last line of the open file fd (read from its end, at most CHAIN_TAIL_MAX
 * bytes): 1 resumed, 0 the file is empty (st left alone), -EBADMSG its last line is not a
 * chained line (a new chain starts), -errno.
 */
int chain_resume_fd(int fd, struct chain_state *st);
/*
 * Parses the chain member at the end of a line (len bytes, no newline): *seq and prev (65).
 * 0 or -EBADMSG.
 */
int chain_parse_suffix(const char *line, size_t len, uint64_t *seq, char prev[static 65]);
/* What a head's signature signs: CHAIN_HEAD_SIGNED "\n" output "\n" seq "\n" head "\n". */
int chain_head_message(const char *output, uint64_t seq, const char *head, char *buf, size_t size);

/* Verifying (chain_verify.c). */
#define CHAIN_LINE_MAX	(1u << 20) /* a longer line is not one the agent wrote */
#define CHAIN_HEADS_MAX 65536

/* A head received elsewhere (a heartbeat at the collector): line seq must hash to hash. */
struct chain_head {
	uint64_t seq;
	char hash[65];
	bool found;
};

struct chain_verifier {
	/* Settings. */
	bool partial; /* the first line may continue an earlier chain (a rotated file alone) */
	struct chain_head *heads; /* sorted by seq (chain_verifier_add_head keeps them so) */
	size_t n_heads;
	/* Progress. */
	bool started;
	uint64_t seq;	 /* of the last line */
	char head[65];	 /* its hash */
	char where[512]; /* "FILE:LINE" of the last line */
	uint64_t lines, restarts, first_seq;
	bool entered_mid;      /* the first line continues an earlier chain */
	uint64_t heads_before; /* heads before the first line: not checked */
	char what[1024];       /* the first thing that does not check out */
};

/* from: NULL, or the head the first line must follow ("SEQ:HEX", as verify-log prints it). */
int chain_verifier_init(struct chain_verifier *v, bool partial, const char *from);
void chain_verifier_done(struct chain_verifier *v);
/* Adds a head to check; -EINVAL (bad hash), -E2BIG, -ENOMEM. */
int chain_verifier_add_head(struct chain_verifier *v, uint64_t seq, const char *hash);
/* One line (len bytes, no newline) at where. 0 or -EBADMSG with v->what set. */
int chain_verify_line(struct chain_verifier *v, const char *where, const char *line, size_t len);
/* Every line of the open file fd, named name in messages. 0, -EBADMSG (v->what), -errno. */
int chain_verify_fd(struct chain_verifier *v, const char *name, int fd);
/* After the last file: every head must have been found. 0 or -EBADMSG. */
int chain_verify_finish(struct chain_verifier *v);
