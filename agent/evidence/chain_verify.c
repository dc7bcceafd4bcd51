/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Verifying a hash-chained log (chain.h): each line's chain member, its sequence number after
 * the previous one's, its "prev" against the previous line's hash, and the heads received from
 * the heartbeats. The input is anybody's file: lines are read into a bounded buffer.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "chain.h"
#include "common/number.h"
#include "common/sha256.h"
#include "common/strutil.h"

static int fail(struct chain_verifier *v, const char *fmt, ...) _printf_(2, 3);
static int fail(struct chain_verifier *v, const char *fmt, ...)
{
	va_list ap;

	if (!v->what[0]) {
		va_start(ap, fmt);
		vsnprintf(v->what, sizeof(v->what), fmt, ap);
		va_end(ap);
	}
	return -EBADMSG;
}

static bool hex64(const char *s, size_t len)
{
	if (len != 64)
		return false;
	for (size_t i = 0; i < 64; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return true;
}

int chain_verifier_init(struct chain_verifier *v, bool partial, const char *from)
{
	memset(v, 0, sizeof(*v));
	v->partial = partial;
	memcpy(v->head, CHAIN_ZERO, sizeof(v->head));
	if (from) {
		const char *colon = strchr(from, ':');
		char num[24];

		if (!colon || colon == from || (size_t)(colon - from) >= sizeof(num) ||
		    !hex64(colon + 1, strlen(colon + 1)))
			return -EINVAL;
		memcpy(num, from, (size_t)(colon - from));
		num[colon - from] = 0;
		if (safe_atou64(num, 10, &v->seq) < 0 || v->seq == 0)
			return -EINVAL;
		memcpy(v->head, colon + 1, 65);
		v->started = true;
		snprintf(v->where, sizeof(v->where), "the head given (seq %llu)",
			 (unsigned long long)v->seq);
	}
	return 0;
}

void chain_verifier_done(struct chain_verifier *v)
{
	free(v->heads);
	v->heads = NULL;
	v->n_heads = 0;
}

int chain_verifier_add_head(struct chain_verifier *v, uint64_t seq, const char *hash)
{
	struct chain_head *n;
	size_t i;

	if (seq == 0 || !hex64(hash, strlen(hash)))
		return -EINVAL;
	for (i = 0; i < v->n_heads; i++)
		if (v->heads[i].seq == seq && strcmp(v->heads[i].hash, hash) == 0)
			return 0; /* the same head in two heartbeats */
	if (v->n_heads >= CHAIN_HEADS_MAX)
		return -E2BIG;
	n = realloc(v->heads, (v->n_heads + 1) * sizeof(*n));
	if (!n)
		return -ENOMEM;
	v->heads = n;
	i = v->n_heads++;
	while (i > 0 && v->heads[i - 1].seq > seq) {
		v->heads[i] = v->heads[i - 1];
		i--;
	}
	v->heads[i] = (struct chain_head){.seq = seq};
	memcpy(v->heads[i].hash, hash, 65);
	return 0;
}

/* Marks the heads of seq that hash matches. */
static void match_heads(struct chain_verifier *v, uint64_t seq, const char *hash)
{
	size_t lo = 0, hi = v->n_heads;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v->heads[mid].seq < seq)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < v->n_heads && v->heads[lo].seq == seq; lo++)
		if (strcmp(v->heads[lo].hash, hash) == 0)
			v->heads[lo].found = true;
}

int chain_verify_line(struct chain_verifier *v, const char *where, const char *line, size_t len)
{
	char prev[65], hash[65];
	uint64_t seq;

	if (chain_parse_suffix(line, len, &seq, prev) < 0)
		return fail(v, "%s: no chain member at its end: not a chained line, or changed",
			    where);
	if (sha256_mem(line, len, hash) < 0)
		return -EIO;
	if (seq == 1 && strcmp(prev, CHAIN_ZERO) == 0) {
		/* A chain starts: the first line, or a daemon that started without the head. */
		if (v->started)
			v->restarts++;
	} else if (!v->started) {
		if (!v->partial)
			return fail(v,
				    "%s: the log starts at seq %llu, not at the start of a chain: "
				    "lines before it deleted (give --from SEQ:HASH or --partial "
				    "for a rotated file)",
				    where, (unsigned long long)seq);
	} else if (seq != v->seq + 1) {
		return fail(v, "%s: seq %llu follows seq %llu (%s): lines %s", where,
			    (unsigned long long)seq, (unsigned long long)v->seq, v->where,
			    seq > v->seq + 1 ? "deleted or reordered before it"
					     : "reordered or repeated");
	} else if (strcmp(prev, v->head) != 0) {
		return fail(v, "%s: changed: the next line (%s) holds another hash for it",
			    v->where, where);
	}
	if (!v->started || v->lines == 0) {
		v->first_seq = seq;
		v->entered_mid = seq > 1;
	}
	v->started = true;
	v->seq = seq;
	memcpy(v->head, hash, sizeof(hash));
	snprintf(v->where, sizeof(v->where), "%s", where);
	v->lines++;
	match_heads(v, seq, hash);
	return 0;
}

int chain_verify_fd(struct chain_verifier *v, const char *name, int fd)
{
	_cleanup_free_ char *buf = malloc(CHAIN_LINE_MAX + 1);
	char where[512];
	size_t have = 0;
	uint64_t lineno = 0;

	if (!buf)
		return -ENOMEM;
	for (;;) {
		ssize_t n = read(fd, buf + have, CHAIN_LINE_MAX + 1 - have);
		size_t start = 0;
		char *nl;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		have += (size_t)n;
		while ((nl = memchr(buf + start, '\n', have - start))) {
			int r;

			snprintf(where, sizeof(where), "%s:%llu", name,
				 (unsigned long long)++lineno);
			r = chain_verify_line(v, where, buf + start, (size_t)(nl - buf) - start);
			if (r < 0)
				return r;
			start = (size_t)(nl - buf) + 1;
		}
		memmove(buf, buf + start, have - start);
		have -= start;
		if (n == 0) {
			if (have > 0)
				return fail(v,
					    "%s:%llu: the last line is cut short (no newline): the "
					    "file was truncated",
					    name, (unsigned long long)lineno + 1);
			return 0;
		}
		if (have > CHAIN_LINE_MAX)
			return fail(v,
				    "%s:%llu: a line longer than %u bytes: not one the agent wrote",
				    name, (unsigned long long)lineno + 1, CHAIN_LINE_MAX);
	}
}

int chain_verify_finish(struct chain_verifier *v)
{
	for (size_t i = 0; i < v->n_heads; i++) {
		/* A log that enters a chain mid-way (--partial, --from) cannot hold what came
		 * before it. */
		if (v->entered_mid && v->heads[i].seq < v->first_seq) {
			v->heads_before++;
			continue;
		}
		if (!v->heads[i].found)
			return fail(v,
				    "head seq %llu (%s) received from the agent is not in the log "
				    "(it ends at seq %llu): lines deleted, changed or truncated",
				    (unsigned long long)v->heads[i].seq, v->heads[i].hash,
				    (unsigned long long)v->seq);
	}
	return 0;
}
