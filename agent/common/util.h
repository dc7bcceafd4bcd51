/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Hostile-input-safe file access and small conversions.
 *
 * Everything the agent reads from /proc, /sys, /dev or /etc goes through a struct rg_root, so that
 * `--root DIR` redirects it to a mounted image or a fixture tree. Below a non-host root, paths are
 * resolved with openat2(RESOLVE_IN_ROOT) so an absolute symlink in the image cannot reach the host.
 * Reads are bounded, refuse non-regular files (a FIFO would hang us) and never trust contents.
 */
#pragma once

#include <dirent.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "macro.h"

struct rg_root {
	int fd;		   /* O_PATH directory fd of the root */
	bool is_host;	   /* root is "/": netlink, libibverbs and live sensors are meaningful */
	char path[4096];   /* as given, for messages */
};

int root_init(struct rg_root *root, const char *path);
void root_done(struct rg_root *root);

/*
 * open()/opendir()/readlink() of an absolute path ("/sys/...") below the root. Without openat2
 * (kernels before 5.6, valgrind) the same containment is done in userspace.
 */
int root_open(const struct rg_root *root, const char *path, int flags);
DIR *root_opendir(const struct rg_root *root, const char *path);
int root_readlink(const struct rg_root *root, const char *path, char *buf, size_t size);
int root_stat(const struct rg_root *root, const char *path, struct stat *st, bool follow);
/* Tests: resolve below roots as without openat2, for the rest of the process. */
void root_disable_openat2(void);

/*
 * Reads at most max bytes of a regular file into a NUL-terminated buffer. *ret_truncated (may be
 * NULL) tells whether the file had more. Returns 0 or -errno (-EBADFD: not a regular file).
 */
int read_fd_bounded(int fd, size_t max, char **ret, size_t *ret_len, bool *ret_truncated);
int root_read_file(const struct rg_root *root, const char *path, size_t max, char **ret,
		   size_t *ret_len, bool *ret_truncated);

/*
 * Reads the first line of a small (sysfs-style) file into buf, without its newline, with
 * non-printable bytes replaced by '?'. Returns the length, or -errno; -ENODATA for an empty file,
 * -E2BIG when the line does not fit.
 */
int root_read_line(const struct rg_root *root, const char *path, char *buf, size_t size);

/* Strict number parsing: the whole string, no sign for unsigned, no overflow. 0 or -EINVAL/-ERANGE. */
int safe_atou64(const char *s, int base, uint64_t *ret);
int safe_atou32(const char *s, int base, uint32_t *ret);
int safe_atoi(const char *s, int *ret);

/* Copies src into dst (size bytes), always NUL-terminated; returns true if it fit. */
bool strscpy_ok(char *dst, const char *src, size_t size);
/* snprintf() that says whether it fit (a truncated path must not be used); buf always ends. */
bool snprintf_ok(char *buf, size_t size, const char *fmt, ...) _printf_(3, 4);
/* Replaces bytes outside printable ASCII/UTF-8 continuation with '?' in place. */
void str_sanitize(char *s);
/* Inline: with a literal prefix or suffix its length is folded (and the compare may be too). */
static inline bool startswith(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

static inline bool endswith(const char *s, const char *suffix)
{
	size_t ls = strlen(s), lx = strlen(suffix);

	return ls >= lx && memcmp(s + ls - lx, suffix, lx) == 0;
}
/* Strips leading/trailing whitespace in place; returns s. */
char *strstrip(char *s);

/*
 * Checks an fnmatch(3) pattern (backslash escapes on) for what fnmatch would silently treat as
 * "never matches" or as a literal by accident, so that a typo in a policy or rule is an error
 * instead of a pattern that protects nothing: a trailing backslash, an unterminated '[', an
 * unknown [:class:], an empty range (z-a), [. .] and [= =]. Returns 0, or -EINVAL with the byte
 * offset of the problem in *ret_off and a description in *ret_why (static text).
 */
int glob_check(const char *pat, size_t *ret_off, const char **ret_why);

/* Clocks, nanoseconds. */
uint64_t now_realtime_ns(void);
uint64_t now_boottime_ns(void);
uint64_t now_monotonic_ns(void);
/* CLOCK_REALTIME - CLOCK_BOOTTIME, to turn kernel boot-relative stamps into wall-clock time. */
uint64_t boot_to_realtime_offset_ns(void);
/* Formats a realtime stamp as RFC 3339 UTC with microseconds: 2026-12-02T13:56:29.123456Z. */
void format_timestamp(uint64_t realtime_ns, char buf[static 32]);
/* Parses what format_timestamp writes (also without fraction, or with up to 9 digits). */
int parse_timestamp(const char *s, uint64_t *ret_ns);
/* The minute ("2026-12-02T13:56") of the last stamp parsed with it, for a run of stamps. */
struct ts_cache {
	char minute[16];
	uint64_t minute_s;
	bool valid;
};
/* The same, s[0..len) (nothing after it is read; a NUL inside is not a timestamp); c (or NULL)
 * keeps the last valid minute, so that a stamp in the same minute parses only its seconds: the
 * same answers as without. */
int parse_timestamp_cached(const char *s, size_t len, uint64_t *ret_ns, struct ts_cache *c);

/* The value of a hex digit (either case), or -1. */
int hex_digit(char c);
/* n bytes as 2n lowercase hex digits + NUL. */
void hex_encode(const void *in, size_t n, char *out);
/* Random RFC 4122 version 4 UUID, 36 chars + NUL. */
int uuid_v4(char buf[static 37]);

/* SHA-256 of a file as 64 lowercase hex chars + NUL. At most max bytes are read (-EFBIG beyond). */
int sha256_fd(int fd, uint64_t max, char out[static 65]);
/* SHA-256 of n bytes as 64 lowercase hex chars + NUL. 0 or -EIO. */
int sha256_mem(const void *p, size_t n, char out[static 65]);

/* Kernel clock ticks per second for /proc/PID/stat start times. */
long clock_ticks_per_sec(void);
