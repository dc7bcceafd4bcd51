/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A hash-chained log as anybody may have edited it (evidence/chain.h): the input is the file.
 * The first byte picks the mode (bit 0: --partial), the rest is the log, verified from a memfd.
 * Properties: a log that verifies has whole lines only, as many as were counted, each with a
 * chain member; without --partial it starts a chain; and the writer resumes from its end at
 * the very head the verifier ended with. Each line also goes through chain_line(): the chained
 * form parses back to the sequence number and previous hash it was given.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "evidence/chain.h"
#include "fuzz.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_quiet();
	return 0;
}

static void rechain(const char *line, size_t len)
{
	struct chain_state st;
	char *out = malloc(len + CHAIN_SUFFIX_MAX), prev[65];
	uint64_t seq;
	long n;

	if (!out)
		abort();
	chain_init(&st);
	n = chain_line(&st, line, len, out, len + CHAIN_SUFFIX_MAX);
	if (n > 0) {
		FUZZ_ASSERT(chain_parse_suffix(out, (size_t)n, &seq, prev) == 0,
			    "a chained line does not parse back");
		FUZZ_ASSERT(seq == 1 && strcmp(prev, CHAIN_ZERO) == 0, "seq %llu",
			    (unsigned long long)seq);
	}
	free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct chain_verifier v;
	struct chain_state st;
	const char *log = (const char *)data + 1;
	size_t len = size ? size - 1 : 0, nl = 0;
	int fd, r;

	if (size == 0)
		return 0;
	for (size_t i = 0, start = 0; i < len; i++)
		if (log[i] == '\n') {
			rechain(log + start, i - start);
			start = i + 1;
			nl++;
		}
	fd = memfd_create("chain", MFD_CLOEXEC);
	if (fd < 0 || write(fd, log, len) != (ssize_t)len || lseek(fd, 0, SEEK_SET) != 0)
		abort();
	if (chain_verifier_init(&v, data[0] & 1, NULL) < 0)
		abort();
	r = chain_verify_fd(&v, "log", fd);
	if (r == 0)
		r = chain_verify_finish(&v);
	if (r == 0) {
		FUZZ_ASSERT(len == 0 || log[len - 1] == '\n', "a cut line verified");
		FUZZ_ASSERT(v.lines == nl, "%llu lines counted, %zu in the log",
			    (unsigned long long)v.lines, nl);
		if (!(data[0] & 1) && nl)
			FUZZ_ASSERT(v.first_seq == 1, "starts at %llu",
				    (unsigned long long)v.first_seq);
		chain_init(&st);
		if (nl && len <= CHAIN_TAIL_MAX) {
			FUZZ_ASSERT(chain_resume_fd(fd, &st) == 1, "the writer cannot resume");
			FUZZ_ASSERT(st.seq == v.seq && strcmp(st.head, v.head) == 0,
				    "resumed at %llu, verified to %llu", (unsigned long long)st.seq,
				    (unsigned long long)v.seq);
		}
	} else
		FUZZ_ASSERT(r == -EBADMSG && v.what[0], "r %d without a message", r);
	chain_verifier_done(&v);
	close(fd);
	return 0;
}
