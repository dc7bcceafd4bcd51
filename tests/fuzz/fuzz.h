/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Shared by the fuzz targets of tests/fuzz/ (one file per target, docs/testing.md).
 *
 * Each target defines LLVMFuzzerTestOneInput() (and LLVMFuzzerInitialize()). Built with
 * -Dfuzz=true it is a libFuzzer binary (fuzz-NAME); in every build it is also linked with
 * replay-main.c into fuzz-replay-NAME, which the unit suite runs over corpus/NAME/ and
 * regressions/NAME/, so every seed and every crash ever found is replayed on each build.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/engine.h"
#include "common/macro.h"
#include "event/event.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A property of the code under test does not hold: print it and abort (a crash for libFuzzer). */
#define FUZZ_ASSERT(cond, ...)                                                                     \
	do {                                                                                       \
		if (!(cond))                                                                       \
			fuzz_fail(__FILE__, __LINE__, #cond, __VA_ARGS__);                         \
	} while (0)
_Noreturn void fuzz_fail(const char *file, int line, const char *what, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Silences the agent's error log (the fuzzers feed it errors by the million). */
void fuzz_quiet(void);

/* A NUL-terminated copy of the input (aborts on allocation failure). */
char *fuzz_strndup(const uint8_t *data, size_t size);

/*
 * file:line:column of an error must lie inside the text it is about: line at most the number of
 * lines, column at most the length of that line + 1. Aborts otherwise.
 */
void fuzz_check_position(const char *text, size_t len, unsigned line, unsigned column,
			 const char *msg);

/*
 * The input layout of the write() decoders' targets: [count u64][resp_len u16][resp] then the
 * written bytes, resp_len clamped to what is there. Each piece goes to an exact-size allocation
 * (so ASan sees any read past it) that the caller frees. False if the input is too short.
 */
struct fuzz_write {
	uint64_t count;
	uint8_t *resp, *buf;
	size_t resp_len, len;
};
bool fuzz_split_write(const uint8_t *data, size_t size, struct fuzz_write *w);

/* A private directory of this process (created on first use, removed at exit). */
const char *fuzz_tmpdir(void);
/* Removes everything below the directory dirfd (never following links). 0 or -errno. */
int fuzz_clear_dir(int dirfd);

/*
 * The archive format of targets that need a tree of files (a spool directory, a fixture root of
 * /sys and /proc): a sequence of entries
 *
 *	"=== " TYPE " " PATH ["\t" TARGET] "\n" CONTENT
 *
 * TYPE f: a regular file whose content runs to the next "\n=== " (or the end); l: a symbolic
 * link to TARGET (anything, absolute ones included: the code under test must stay in its root);
 * d: a directory; p: a FIFO (readers must refuse it, never block on it). Parent directories are
 * created as needed. Paths are relative: "..", "." and empty components are dropped, and the
 * extractor never follows a link it created, so nothing lands outside dirfd. At most
 * FUZZ_ARCHIVE_MAX_ENTRIES entries; others are ignored. Returns the number of entries created.
 */
#define FUZZ_ARCHIVE_MAX_ENTRIES 512
int fuzz_archive_extract(const uint8_t *data, size_t size, int dirfd);

/*
 * The engine over a fixed event stream: every event of the files tests/fixtures/events/NAME.jsonl, in file
 * order. Builds an engine from policy and rules (taking both), feeds the events, ticks, flushes;
 * every alert is serialised. Aborts if the engine refuses its own inputs in a way it must not.
 */
void fuzz_fixture_events(const struct rg_event **ret, size_t *n);
void fuzz_engine_run(struct rg_policy *policy, struct rg_ruleset *rules,
		     const struct rg_event *events, size_t n);
/*
 * An event survives `daemon --record` then `replay`: its JSON parses back into an event whose
 * JSON is the same. Aborts otherwise.
 */
void fuzz_check_event(const struct rg_event *ev);

/* The rules of rules/ (read once), parsed anew. */
struct rg_ruleset *fuzz_shipped_rules(void);
/* The policy of the rule fixtures (games, allow entries), parsed. */
struct rg_policy *fuzz_fixture_policy(void);
