/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <check.h>
#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/globcheck.h"
#include "common/hex.h"
#include "common/macro.h"
#include "common/number.h"
#include "common/procstat.h"
#include "common/root.h"
#include "common/sha256.h"
#include "common/strutil.h"
#include "common/timestamp.h"
#include "common/uuid.h"

static char tmpdir[] = "/tmp/rg-test-util-XXXXXX";

static void write_file(const char *rel, const char *data, size_t len)
{
	char p[512];
	int fd;

	snprintf(p, sizeof(p), "%s/%s", tmpdir, rel);
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, data, len), (ssize_t)len);
	close(fd);
}

static void setup(void)
{
	char p[512];

	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
	snprintf(p, sizeof(p), "%s/sys", tmpdir);
	ck_assert_int_eq(mkdir(p, 0755), 0);
}

static void teardown(void)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	ck_assert_int_eq(system(cmd), 0);
	strcpy(tmpdir, "/tmp/rg-test-util-XXXXXX");
}

START_TEST(test_read_line)
{
	struct rg_root root;
	char buf[16];

	write_file("sys/a", "hello\n", 6);
	write_file("sys/b", "", 0);
	write_file("sys/c", "0123456789abcdefXYZ\n", 20);
	write_file("sys/d", "x\x01y  \nsecond\n", 14);
	ck_assert_int_eq(root_init(&root, tmpdir), 0);
	ck_assert(!root.is_host);
	ck_assert_int_eq(root_read_line(&root, "/sys/a", buf, sizeof(buf)), 5);
	ck_assert_str_eq(buf, "hello");
	ck_assert_int_eq(root_read_line(&root, "/sys/b", buf, sizeof(buf)), -ENODATA);
	ck_assert_int_eq(root_read_line(&root, "/sys/c", buf, sizeof(buf)), -E2BIG);
	ck_assert_int_eq(root_read_line(&root, "/sys/d", buf, sizeof(buf)), 3);
	ck_assert_str_eq(buf, "x?y");
	ck_assert_int_eq(root_read_line(&root, "/sys/missing", buf, sizeof(buf)), -ENOENT);
	root_done(&root);
}
END_TEST

START_TEST(test_fifo_refused)
{
	struct rg_root root;
	char p[512], *data = NULL;

	snprintf(p, sizeof(p), "%s/sys/fifo", tmpdir);
	ck_assert_int_eq(mkfifo(p, 0600), 0);
	ck_assert_int_eq(root_init(&root, tmpdir), 0);
	ck_assert_int_eq(root_read_file(&root, "/sys/fifo", 100, &data, NULL, NULL), -EBADFD);
	ck_assert_ptr_null(data);
	root_done(&root);
}
END_TEST

START_TEST(test_symlink_stays_in_root)
{
	struct rg_root root;
	char p[512], buf[64];

	/* An absolute link in an image must resolve inside the image, not on the host. */
	write_file("sys/target", "inside\n", 7);
	snprintf(p, sizeof(p), "%s/sys/link", tmpdir);
	ck_assert_int_eq(symlink("/sys/target", p), 0);
	snprintf(p, sizeof(p), "%s/sys/escape", tmpdir);
	ck_assert_int_eq(symlink("/etc/hostname", p), 0);
	ck_assert_int_eq(root_init(&root, tmpdir), 0);
	ck_assert_int_eq(root_read_line(&root, "/sys/link", buf, sizeof(buf)), 6);
	ck_assert_str_eq(buf, "inside");
	ck_assert_int_eq(root_read_line(&root, "/sys/escape", buf, sizeof(buf)), -ENOENT);
	ck_assert_int_eq(root_readlink(&root, "/sys/link", buf, sizeof(buf)), 11);
	ck_assert_str_eq(buf, "/sys/target");
	root_done(&root);
}
END_TEST

/* Resolution below a root, with openat2 and with the userspace walk used without it. */
static void check_resolution(void)
{
	struct rg_root root;
	struct stat st;
	char buf[64];

	ck_assert_int_eq(root_init(&root, tmpdir), 0);
	ck_assert_int_eq(root_read_line(&root, "/sys/link", buf, sizeof(buf)), 6);
	ck_assert_str_eq(buf, "inside");
	ck_assert_int_eq(root_read_line(&root, "/sys/escape", buf, sizeof(buf)), -ENOENT);
	ck_assert_int_eq(root_read_line(&root, "/sys/rel", buf, sizeof(buf)), 6);
	ck_assert_int_eq(root_read_line(&root, "/sys/up", buf, sizeof(buf)), 6);
	ck_assert_int_eq(root_read_line(&root, "/sys/dirlink/target", buf, sizeof(buf)), 6);
	ck_assert_int_eq(root_read_line(&root, "/sys/dirlink/../sys/./target", buf, sizeof(buf)),
			 6);
	ck_assert_int_eq(root_read_line(&root, "/../../sys/target", buf, sizeof(buf)), 6);
	ck_assert_int_eq(root_read_line(&root, "/sys/loop1", buf, sizeof(buf)), -ELOOP);
	ck_assert_int_eq(root_read_line(&root, "/sys/target/x", buf, sizeof(buf)), -ENOTDIR);
	ck_assert_int_eq(root_stat(&root, "/sys/link", &st, false), 0);
	ck_assert(S_ISLNK(st.st_mode));
	ck_assert_int_eq(root_stat(&root, "/sys/dirlink", &st, true), 0);
	ck_assert(S_ISDIR(st.st_mode));
	root_done(&root);
}

START_TEST(test_resolution_without_openat2)
{
	static const char *const links[][2] = {
		{"sys/link", "/sys/target"},	  {"sys/escape", "/etc/hostname"},
		{"sys/rel", "../sys/target"},	  {"sys/up", "../../../../sys/target"},
		{"sys/dirlink", "/sys"},	  {"sys/loop1", "loop2"},
		{"sys/loop2", "/sys/loop1"},
	};
	char p[512];

	write_file("sys/target", "inside\n", 7);
	for (size_t i = 0; i < sizeof(links) / sizeof(links[0]); i++) {
		snprintf(p, sizeof(p), "%s/%s", tmpdir, links[i][0]);
		ck_assert_int_eq(symlink(links[i][1], p), 0);
	}
	check_resolution();
	root_disable_openat2(); /* what a kernel before 5.6 (and valgrind) gives */
	check_resolution();
}
END_TEST

START_TEST(test_bounded_read)
{
	struct rg_root root;
	char *data = NULL;
	size_t len;
	bool trunc;

	write_file("sys/big", "0123456789", 10);
	ck_assert_int_eq(root_init(&root, tmpdir), 0);
	ck_assert_int_eq(root_read_file(&root, "/sys/big", 4, &data, &len, &trunc), 0);
	ck_assert_uint_eq(len, 4);
	ck_assert(trunc);
	ck_assert_str_eq(data, "0123");
	free(data);
	ck_assert_int_eq(root_read_file(&root, "/sys/big", 10, &data, &len, &trunc), 0);
	ck_assert_uint_eq(len, 10);
	ck_assert(!trunc);
	free(data);
	root_done(&root);
}
END_TEST

START_TEST(test_numbers)
{
	uint64_t u;
	uint32_t u32;
	int i;

	ck_assert_int_eq(safe_atou64("18446744073709551615", 10, &u), 0);
	ck_assert_uint_eq(u, UINT64_MAX);
	ck_assert_int_eq(safe_atou64("18446744073709551616", 10, &u), -ERANGE);
	ck_assert_int_eq(safe_atou64("-1", 10, &u), -EINVAL);
	ck_assert_int_eq(safe_atou64(" 1", 10, &u), -EINVAL);
	ck_assert_int_eq(safe_atou64("1x", 10, &u), -EINVAL);
	ck_assert_int_eq(safe_atou64("", 10, &u), -EINVAL);
	ck_assert_int_eq(safe_atou64("0x15b3", 16, &u), 0);
	ck_assert_uint_eq(u, 0x15b3);
	ck_assert_int_eq(safe_atou32("4294967296", 10, &u32), -ERANGE);
	ck_assert_int_eq(safe_atoi("-42", &i), 0);
	ck_assert_int_eq(i, -42);
	ck_assert_int_eq(safe_atoi("2147483648", &i), -ERANGE);
}
END_TEST

START_TEST(test_timestamps)
{
	char buf[32];
	uint64_t ns;

	format_timestamp(1764683789123456789ull, buf);
	ck_assert_str_eq(buf, "2025-12-02T13:56:29.123456Z");
	ck_assert_int_eq(parse_timestamp(buf, &ns), 0);
	ck_assert_uint_eq(ns, 1764683789123456000ull);
	ck_assert_int_eq(parse_timestamp("2025-12-02T13:56:29Z", &ns), 0);
	ck_assert_uint_eq(ns, 1764683789000000000ull);
	ck_assert_int_eq(parse_timestamp("2025-12-02 13:56:29", &ns), -EINVAL);
	ck_assert_int_eq(parse_timestamp("2025-12-02T13:56:29.Z", &ns), -EINVAL);
	/* Nine fraction digits kept, more ignored. */
	ck_assert_int_eq(parse_timestamp("2025-12-02T13:56:29.1234567891Z", &ns), 0);
	ck_assert_uint_eq(ns, 1764683789123456789ull);
	/* RFC 3339: two digits a field, real dates only, no sign, nothing after the Z. */
	ck_assert_int_eq(parse_timestamp("2025-1-02T13:56:29Z", &ns), -EINVAL);
	ck_assert_int_eq(parse_timestamp("2025-12-2T13:56:29Z", &ns), -EINVAL);
	ck_assert_int_eq(parse_timestamp("2025-02-29T00:00:00Z", &ns), -EINVAL);
	ck_assert_int_eq(parse_timestamp("2025-13-01T00:00:00Z", &ns), -EINVAL);
	ck_assert_int_eq(parse_timestamp("2025-12-02T24:00:00Z", &ns), -EINVAL);
	ck_assert_int_eq(parse_timestamp("2025-12-02T23:60:00Z", &ns), -EINVAL);
	ck_assert_int_eq(parse_timestamp("2025-12-02T13:56:29", &ns), -EINVAL);
	ck_assert_int_eq(parse_timestamp("2025-12-02T13:56:29Zx", &ns), -EINVAL);
	ck_assert_int_eq(parse_timestamp("+025-12-02T13:56:29Z", &ns), -EINVAL);
	ck_assert_int_eq(parse_timestamp("2025", &ns), -EINVAL);
	ck_assert_int_eq(parse_timestamp("", &ns), -EINVAL);
	ck_assert_int_eq(parse_timestamp("2024-02-29T00:00:00Z", &ns), 0);
	ck_assert_uint_eq(ns, 1709164800000000000ull);
	ck_assert_int_eq(parse_timestamp("2000-02-29T00:00:00Z", &ns), 0);
	ck_assert_int_eq(parse_timestamp("1900-02-29T00:00:00Z", &ns), -EINVAL);
	ck_assert_int_eq(parse_timestamp("1970-01-01T00:00:00Z", &ns), 0);
	ck_assert_uint_eq(ns, 0);
	ck_assert_int_eq(parse_timestamp("1969-12-31T23:59:59Z", &ns), -ERANGE);
	/* The last second a uint64_t of nanoseconds holds, and the one after. */
	ck_assert_int_eq(parse_timestamp("2554-07-21T23:34:33.709551615Z", &ns), 0);
	ck_assert_uint_eq(ns, UINT64_MAX);
	ck_assert_int_eq(parse_timestamp("2554-07-21T23:34:34Z", &ns), -ERANGE);
	ck_assert_int_eq(parse_timestamp("9999-12-31T23:59:59Z", &ns), -ERANGE);
}
END_TEST

/* A run of stamps through one cache (the event reader's): the same answers as each alone,
 * whatever came before, in the same minute or not, valid or not. */
START_TEST(test_timestamps_cached)
{
	static const char *const stamps[] = {
		"2025-12-02T13:56:29.123456Z", "2025-12-02T13:56:30Z", "2025-12-02T13:56:61Z",
		"2025-12-02T13:56:5xZ", "2025-12-02T13:56", "2025-12-02T13:56:", "2025-12-02T13:56:29",
		"2025-12-02T13:56:60Z", "2025-12-02T13:56:29.Z", "2025-12-02T13:56:29Zx",
		"2025-12-02T13:57:00.000000001Z", "2025-12-02T13:56:59.999999999Z", "2025-12-02T13",
		"2554-07-21T23:34:33.709551615Z", "2554-07-21T23:34:34Z", "2554-07-21T23:34:33Z",
		"1969-12-31T23:59:59Z", "1969-12-31T23:59:5xZ", "1969-12-31T23:59:59Z",
		"1970-01-01T00:00:00Z", "2024-02-29T00:00:00Z", "2025-02-29T00:00:00Z", "",
	};
	const size_t n = ARRAY_SIZE(stamps);
	struct ts_cache c = {0};
	size_t hits = 0;

	for (size_t round = 0; round < 4; round++)
		for (size_t j = 0; j < n; j++) {
			/* forwards, backwards, each twice in a row, every third */
			size_t i = round == 0 ? j : round == 1 ? n - 1 - j : round == 2 ? j / 2 : j * 3 % n;
			uint64_t want = 1, got = 2;
			int rw = parse_timestamp(stamps[i], &want);
			bool hit = c.valid && strncmp(stamps[i], c.minute, sizeof(c.minute)) == 0;
			int rg = parse_timestamp_cached(stamps[i], strlen(stamps[i]), &got, &c);

			hits += hit;
			ck_assert_msg(rg == rw, "%s: %d, alone %d", stamps[i], rg, rw);
			if (rw == 0)
				ck_assert_msg(got == want, "%s: %" PRIu64 ", alone %" PRIu64, stamps[i],
					      got, want);
		}
	ck_assert_uint_gt(hits, 20); /* the cache was used */

	/* s[0..len) only: what follows in the buffer (the event reader's line) is never read. */
	static const char *const after[] = {"\"", "Z", "456Z", "0Z\"", ".5Z", ""};
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < ARRAY_SIZE(after); j++) {
			char buf[64];
			uint64_t want = 1, got = 2;
			size_t len = strlen(stamps[i]);
			int rw = parse_timestamp(stamps[i], &want), rg;

			snprintf(buf, sizeof(buf), "%s%s", stamps[i], after[j]);
			rg = parse_timestamp_cached(buf, len, &got, j % 2 ? &c : NULL);
			ck_assert_msg(rg == rw, "%s + %s: %d, alone %d", stamps[i], after[j], rg, rw);
			if (rw == 0)
				ck_assert_uint_eq(got, want);
		}
	/* Each stamp alone in a block of its length (no NUL after it): a read past it is caught
	 * in the sanitizer build. */
	for (size_t i = 0; i < n + 1; i++) {
		const char *st = i < n ? stamps[i] : "2025-12-02T13:56:29.12";
		size_t len = strlen(st);
		char *exact = malloc(len ? len : 1);
		uint64_t want = 1, got = 2;
		int rw = parse_timestamp(st, &want);

		ck_assert_ptr_nonnull(exact);
		memcpy(exact, st, len);
		ck_assert_int_eq(parse_timestamp_cached(exact, len, &got, NULL), rw);
		if (rw == 0)
			ck_assert_uint_eq(got, want);
		free(exact);
	}
	/* A NUL inside is not a timestamp. */
	uint64_t ns;
	ck_assert_int_eq(parse_timestamp_cached("2025-12-02T13:56:29\0Z", 21, &ns, NULL), -EINVAL);
	ck_assert_int_eq(parse_timestamp_cached("2025-12-02T13:56:29.1\0Z", 23, &ns, NULL), -EINVAL);
}
END_TEST

/* format_timestamp and parse_timestamp against libc's gmtime_r/strftime and timegm, on a spread
 * of instants from 1970 to 2554 (every day boundary, leap days, century years). */
START_TEST(test_timestamps_libc)
{
	uint64_t x = 88172645463325252ull, ns, back;
	char buf[32], ref[40];
	struct tm tm;
	int i;

	for (i = 0; i < 200000; i++) {
		time_t sec;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		ns = i < 1000 ? (uint64_t)i * 86400000000000ull * 97 + 999999999ull : x;
		sec = (time_t)(ns / 1000000000ull);
		ck_assert_ptr_nonnull(gmtime_r(&sec, &tm));
		ck_assert_uint_eq(strftime(ref, sizeof(ref), "%Y-%m-%dT%H:%M:%S", &tm), 19);
		snprintf(ref + 19, sizeof(ref) - 19, ".%06uZ",
			 (unsigned)(ns % 1000000000ull / 1000));
		format_timestamp(ns, buf);
		ck_assert_str_eq(buf, ref);
		ck_assert_int_eq(parse_timestamp(buf, &back), 0);
		ck_assert_uint_eq(back, ns - ns % 1000);
		ck_assert_int_eq((int64_t)timegm(&tm), (int64_t)sec);
	}
}
END_TEST

START_TEST(test_hex_uuid_pool)
{
	static const uint8_t b[] = {0x00, 0x01, 0x7f, 0x80, 0xab, 0xff};
	char hex[13], u[37];
	int i, j;

	hex_encode(b, sizeof(b), hex);
	ck_assert_str_eq(hex, "00017f80abff");
	/* More UUIDs than one pool holds: every one well-formed and (at 122 random bits) new. */
	{
		static char seen[100][37];

		for (i = 0; i < 100; i++) {
			ck_assert_int_eq(uuid_v4(u), 0);
			ck_assert_uint_eq(strlen(u), 36);
			ck_assert(u[8] == '-' && u[13] == '-' && u[18] == '-' && u[23] == '-');
			ck_assert_int_eq(u[14], '4');
			ck_assert(strchr("89ab", u[19]));
			ck_assert_uint_eq(strspn(u, "0123456789abcdef-"), 36);
			for (j = 0; j < i; j++)
				ck_assert_str_ne(seen[j], u);
			memcpy(seen[i], u, sizeof(u));
		}
	}
	/* A forked child does not take its parent's pooled bytes: its next UUID is not the one
	 * the parent makes next. */
	{
		char child[37] = "";
		int fds[2];
		pid_t pid;

		ck_assert_int_eq(uuid_v4(u), 0); /* the pool holds bytes now */
		ck_assert_int_eq(pipe(fds), 0);
		pid = fork();
		ck_assert_int_ge(pid, 0);
		if (pid == 0) {
			if (uuid_v4(u) < 0 || write(fds[1], u, sizeof(u)) != (ssize_t)sizeof(u))
				_exit(1);
			_exit(0);
		}
		close(fds[1]);
		ck_assert_int_eq(read(fds[0], child, sizeof(child)), (ssize_t)sizeof(child));
		close(fds[0]);
		ck_assert_int_eq(waitpid(pid, &i, 0), pid);
		ck_assert_int_eq(uuid_v4(u), 0);
		ck_assert_uint_eq(strlen(child), 36);
		ck_assert_str_ne(child, u);
	}
}
END_TEST

START_TEST(test_uuid_sha)
{
	char u1[37], u2[37], h[65];
	int fd;

	ck_assert_int_eq(uuid_v4(u1), 0);
	ck_assert_int_eq(uuid_v4(u2), 0);
	ck_assert_uint_eq(strlen(u1), 36);
	ck_assert_str_ne(u1, u2);
	ck_assert_int_eq(u1[14], '4');
	ck_assert(strchr("89ab", u1[19]));

	write_file("abc", "abc", 3);
	snprintf(h, sizeof(h), "%s/abc", tmpdir);
	fd = open(h, O_RDONLY);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(sha256_fd(fd, 1 << 20, h), 0);
	ck_assert_str_eq(h, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	ck_assert_int_eq(lseek(fd, 0, SEEK_SET), 0);
	ck_assert_int_eq(sha256_fd(fd, 2, h), -EFBIG);
	close(fd);
}
END_TEST

static int stat_of(const char *text, struct proc_stat *st, char *buf, size_t size)
{
	size_t len = strlen(text);

	ck_assert_uint_lt(len, size);
	memcpy(buf, text, len + 1);
	return proc_stat_parse(buf, len, st);
}

START_TEST(test_proc_stat)
{
	char buf[512];
	struct proc_stat st;
	/* 52 fields as the kernel writes them; comm with spaces and parentheses */
	const char *real = "4242 (a) (b c)) S 1 4242 4243 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 "
			   "987654 1000 200 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 "
			   "0 0 0 0 0 0 0 0 0 0 0\n";

	ck_assert_int_eq(stat_of(real, &st, buf, sizeof(buf)), 0);
	ck_assert_uint_eq(st.comm_len, 8);
	ck_assert(memcmp(st.comm, "a) (b c)", 8) == 0);
	ck_assert_int_eq(st.state, 'S');
	ck_assert_uint_eq(st.ppid, 1);
	ck_assert_uint_eq(st.pgid, 4242);
	ck_assert_uint_eq(st.sid, 4243);
	ck_assert_uint_eq(st.flags, 4194560);
	ck_assert_uint_eq(st.start_ticks, 987654);
	/* exactly 22 fields, no newline (a fixture tree) */
	ck_assert_int_eq(stat_of("7 (k) I 2 0 0 0 -1 2129984 0 0 0 0 0 0 0 0 20 0 1 0 5", &st, buf,
				 sizeof(buf)),
			 0);
	ck_assert(st.flags & PF_KTHREAD);
	ck_assert_uint_eq(st.start_ticks, 5);
	ck_assert_uint_eq(proc_ticks_to_ns(0), 0);
	/* 100 years of uptime, and a half second */
	ck_assert_uint_eq(proc_ticks_to_ns((uint64_t)clock_ticks_per_sec() * (3155760000ull * 2 + 1) / 2),
			  3155760000500000000ull);
}
END_TEST

START_TEST(test_proc_stat_hostile)
{
	char buf[512];
	struct proc_stat st;

	/* cut before the start time, no '(', no ')', ')' before '(' */
	ck_assert_int_eq(stat_of("7 (k) I 2 0 0 0 -1 2129984 0 0 0 0 0 0 0 0 20 0 1 0", &st, buf,
				 sizeof(buf)),
			 -EBADMSG);
	ck_assert_int_eq(stat_of("7 k) I 2 0 0", &st, buf, sizeof(buf)), -EBADMSG);
	ck_assert_int_eq(stat_of("7 (k I 2 0 0", &st, buf, sizeof(buf)), -EBADMSG);
	ck_assert_int_eq(stat_of(") 7 (", &st, buf, sizeof(buf)), -EBADMSG);
	ck_assert_int_eq(stat_of("", &st, buf, sizeof(buf)), -EBADMSG);
	/* a state of two letters, a negative ppid, a start time that overflows */
	ck_assert_int_eq(stat_of("7 (k) IS 2 0 0 0 -1 1 0 0 0 0 0 0 0 0 20 0 1 0 5", &st, buf,
				 sizeof(buf)),
			 -EBADMSG);
	ck_assert_int_eq(stat_of("7 (k) I -2 0 0 0 -1 1 0 0 0 0 0 0 0 0 20 0 1 0 5", &st, buf,
				 sizeof(buf)),
			 -EBADMSG);
	ck_assert_int_eq(stat_of("7 (k) I 2 0 0 0 -1 1 0 0 0 0 0 0 0 0 20 0 1 0 "
				 "99999999999999999999999",
				 &st, buf, sizeof(buf)),
			 -EBADMSG);
	/* our own stat, read the way the engine and the sensors read it */
	ck_assert_int_eq(proc_stat_read((uint32_t)getpid(), buf, sizeof(buf), &st), 0);
	ck_assert_uint_eq(st.ppid, (uint32_t)getppid());
	ck_assert_int_eq(proc_stat_read(0, buf, sizeof(buf), &st), -ENOENT);
	ck_assert_int_eq(proc_stat_read((uint32_t)getpid(), buf, 16, &st), -EBADMSG);
}
END_TEST

START_TEST(test_string_bounds)
{
	char b[8];

	ck_assert(snprintf_ok(b, sizeof(b), "%s/%d", "ab", 1234));
	ck_assert_str_eq(b, "ab/1234");
	/* one byte too many: refused, and still terminated */
	ck_assert(!snprintf_ok(b, sizeof(b), "%s/%d", "abc", 1234));
	ck_assert_str_eq(b, "abc/123");
	ck_assert(!snprintf_ok(b, 0, "x"));
	ck_assert(strscpy_ok(b, "1234567", sizeof(b)));
	ck_assert(!strscpy_ok(b, "12345678", sizeof(b)));
	ck_assert_str_eq(b, "1234567");
}
END_TEST

START_TEST(test_glob_check)
{
	static const char *const good[] = {
		"/opt/arena/*", "/usr/bin/ib_*", "/a/[abc]/b", "/a/[!a-z]*", "/a/[]x]", "/a/[^]]",
		"/a/[[:alpha:][:digit:]_-]", "/x\\[y", "/a/[\\]]", "/a/[a-a]", "", "[[]",
	};
	static const struct {
		const char *pat;
		size_t off;
		const char *why;
	} bad[] = {
		{"/opt/[arena", 5, "unterminated '['"},
		{"/a[]", 2, "unterminated '['"},
		{"/a[!]", 2, "unterminated '['"},
		{"/a\\", 2, "a pattern cannot end in a backslash"},
		{"/a[b\\", 2, "unterminated '['"},
		{"/a/[[:alpah:]]", 4, "unknown character class"},
		{"/a/[[:alpha]", 4, "unterminated [:class:]"},
		{"/a/[z-a]", 3, "empty range"},
		{"/a/[[.a.]]", 4, "[. .] and [= =] are not supported"},
		{"/a/[x-[=a=]]", 6, "[. .] and [= =] are not supported"},
	};
	const char *why;
	size_t off;

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		ck_assert_msg(glob_check(good[i], &off, &why) == 0, "%s refused: %s", good[i], why);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		why = NULL;
		ck_assert_msg(glob_check(bad[i].pat, &off, &why) == -EINVAL, "%s accepted",
			      bad[i].pat);
		ck_assert_msg(off == bad[i].off, "%s: offset %zu", bad[i].pat, off);
		ck_assert_msg(strncmp(why, bad[i].why, strlen(bad[i].why)) == 0, "%s: %s",
			      bad[i].pat, why);
	}
}
END_TEST

static Suite *util_suite(void)
{
	Suite *s = suite_create("util");
	TCase *core = tcase_create("core"), *limits = tcase_create("limits");

	tcase_add_checked_fixture(core, setup, teardown);
	tcase_add_checked_fixture(limits, setup, teardown);
	tcase_add_test(core, test_read_line);
	tcase_add_test(core, test_numbers);
	tcase_add_test(core, test_timestamps);
	tcase_add_test(core, test_timestamps_cached);
	tcase_add_test(core, test_timestamps_libc);
	tcase_add_test(core, test_hex_uuid_pool);
	tcase_add_test(core, test_uuid_sha);
	tcase_add_test(core, test_glob_check);
	tcase_add_test(core, test_proc_stat);
	tcase_add_test(limits, test_string_bounds);
	tcase_add_test(limits, test_proc_stat_hostile);
	tcase_add_test(limits, test_fifo_refused);
	tcase_add_test(limits, test_symlink_stays_in_root);
	tcase_add_test(limits, test_bounded_read);
	tcase_add_test(limits, test_resolution_without_openat2);
	suite_add_tcase(s, core);
	suite_add_tcase(s, limits);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(util_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
