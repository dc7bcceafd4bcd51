/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <openssl/evp.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "util.h"

int root_init(struct rg_root *root, const char *path)
{
	char real[PATH_MAX];
	int fd;

	if (!path || !*path)
		path = "/";
	if (!realpath(path, real))
		return -errno;
	fd = open(real, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	root->fd = fd;
	root->is_host = strcmp(real, "/") == 0;
	strscpy_ok(root->path, real, sizeof(root->path));
	return 0;
}

void root_done(struct rg_root *root)
{
	if (root->fd >= 0)
		close(root->fd);
	root->fd = -1;
}

static bool openat2_disabled;

void root_disable_openat2(void)
{
	openat2_disabled = true;
}

#define ROOT_MAX_LINKS 40 /* like the kernel's MAXSYMLINKS */

/*
 * RESOLVE_IN_ROOT in userspace, for kernels without openat2 (before 5.6) and for valgrind, which
 * does not know the syscall: walks path one component at a time below the root, resolving each
 * symbolic link textually (an absolute target starts again at the root, ".." stops at the root).
 * Writes the resolved path relative to the root into out. Racy against a tree that changes
 * meanwhile, which an image or fixture tree under audit does not.
 */
static int root_resolve_fallback(int rootfd, const char *path, bool follow, char *out, size_t size)
{
	char rest[PATH_MAX], next[PATH_MAX], target[PATH_MAX], cand[PATH_MAX];
	unsigned links = 0;
	size_t outlen = 0;

	if (!strscpy_ok(rest, path, sizeof(rest)))
		return -ENAMETOOLONG;
	out[0] = 0;
	for (;;) {
		char *p = rest, *comp, *after;
		struct stat st;
		bool last;
		ssize_t n;
		int w;

		while (*p == '/')
			p++;
		if (!*p)
			break;
		comp = p;
		while (*p && *p != '/')
			p++;
		after = p;
		while (*after == '/')
			after++;
		last = !*after;
		if (*p)
			*p = 0;
		if (strcmp(comp, ".") == 0) {
			memmove(rest, after, strlen(after) + 1);
			continue;
		}
		if (strcmp(comp, "..") == 0) {
			char *slash = strrchr(out, '/');

			outlen = slash ? (size_t)(slash - out) : 0;
			out[outlen] = 0;
			memmove(rest, after, strlen(after) + 1);
			continue;
		}
		w = snprintf(cand, sizeof(cand), "%s%s%s", out, outlen ? "/" : "", comp);
		if (w < 0 || (size_t)w >= sizeof(cand) || (size_t)w >= size)
			return -ENAMETOOLONG;
		if ((last && !follow) || fstatat(rootfd, cand, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    !S_ISLNK(st.st_mode)) {
			/* Not a link (or not there: the final open says so). */
			memcpy(out, cand, (size_t)w + 1);
			outlen = (size_t)w;
			memmove(rest, after, strlen(after) + 1);
			continue;
		}
		if (++links > ROOT_MAX_LINKS)
			return -ELOOP;
		n = readlinkat(rootfd, cand, target, sizeof(target));
		if (n < 0)
			return -errno;
		if ((size_t)n >= sizeof(target))
			return -ENAMETOOLONG;
		target[n] = 0;
		w = snprintf(next, sizeof(next), "%s/%s", target, after);
		if (w < 0 || (size_t)w >= sizeof(next))
			return -ENAMETOOLONG;
		memcpy(rest, next, (size_t)w + 1);
		if (target[0] == '/') {
			outlen = 0;
			out[0] = 0;
		}
	}
	if (!outlen) {
		if (size < 2)
			return -ENAMETOOLONG;
		strcpy(out, ".");
	}
	return 0;
}

static int root_openat(const struct rg_root *root, const char *path, int flags, bool follow)
{
	struct open_how how = {
		.flags = (uint64_t)(flags | O_CLOEXEC),
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};
	char resolved[PATH_MAX];
	int fd, r;

	if (!path || path[0] != '/')
		return -EINVAL;
	if (root->is_host) {
		fd = open(path, flags | O_CLOEXEC | (follow ? 0 : O_NOFOLLOW));
		return fd < 0 ? -errno : fd;
	}
	if (!follow)
		how.flags |= O_NOFOLLOW;
	if (!openat2_disabled) {
		fd = (int)syscall(SYS_openat2, root->fd, path + 1, &how, sizeof(how));
		if (fd >= 0 || errno != ENOSYS)
			return fd < 0 ? -errno : fd;
	}
	r = root_resolve_fallback(root->fd, path, follow, resolved, sizeof(resolved));
	if (r < 0)
		return r;
	/* The last component is no link any more; O_NOFOLLOW keeps it so if the tree changed. */
	fd = openat(root->fd, resolved, flags | O_CLOEXEC | O_NOFOLLOW);
	return fd < 0 ? -errno : fd;
}

int root_open(const struct rg_root *root, const char *path, int flags)
{
	return root_openat(root, path, flags, true);
}

DIR *root_opendir(const struct rg_root *root, const char *path)
{
	int fd = root_openat(root, path, O_RDONLY | O_DIRECTORY, true);
	DIR *d;

	if (fd < 0) {
		errno = -fd;
		return NULL;
	}
	d = fdopendir(fd);
	if (!d) {
		int saved = errno;
		close(fd);
		errno = saved;
	}
	return d;
}

int root_readlink(const struct rg_root *root, const char *path, char *buf, size_t size)
{
	_cleanup_close_ int fd = -1;
	const char *slash;
	char dir[PATH_MAX];
	ssize_t n;

	if (size == 0 || !path || path[0] != '/')
		return -EINVAL;
	if (root->is_host) {
		n = readlink(path, buf, size - 1);
	} else {
		/* Resolve the parent inside the root, then read the link itself. */
		slash = strrchr(path, '/');
		if ((size_t)(slash - path) >= sizeof(dir))
			return -ENAMETOOLONG;
		if (slash == path)
			strcpy(dir, "/");
		else {
			memcpy(dir, path, (size_t)(slash - path));
			dir[slash - path] = 0;
		}
		fd = root_openat(root, dir, O_PATH | O_DIRECTORY, true);
		if (fd < 0)
			return fd;
		n = readlinkat(fd, slash + 1, buf, size - 1);
	}
	if (n < 0)
		return -errno;
	if ((size_t)n >= size - 1)
		return -ENAMETOOLONG;
	buf[n] = 0;
	return (int)n;
}

int root_stat(const struct rg_root *root, const char *path, struct stat *st, bool follow)
{
	_cleanup_close_ int fd = root_openat(root, path, O_PATH, follow);

	if (fd < 0)
		return fd;
	if (fstat(fd, st) < 0)
		return -errno;
	return 0;
}

int read_fd_bounded(int fd, size_t max, char **ret, size_t *ret_len, bool *ret_truncated)
{
	struct stat st;
	char *buf;
	size_t len = 0;
	bool truncated = false;

	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EBADFD;
	buf = malloc(max + 1);
	if (!buf)
		return -ENOMEM;
	while (len < max) {
		ssize_t n = read(fd, buf + len, max - len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			int r = -errno;
			free(buf);
			return r;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	if (len == max) {
		char c;
		ssize_t n;
		do
			n = read(fd, &c, 1);
		while (n < 0 && errno == EINTR);
		truncated = n > 0;
	}
	buf[len] = 0;
	*ret = buf;
	if (ret_len)
		*ret_len = len;
	if (ret_truncated)
		*ret_truncated = truncated;
	return 0;
}

int root_read_file(const struct rg_root *root, const char *path, size_t max, char **ret,
		   size_t *ret_len, bool *ret_truncated)
{
	_cleanup_close_ int fd = root_open(root, path, O_RDONLY | O_NONBLOCK | O_NOCTTY);

	if (fd < 0)
		return fd;
	return read_fd_bounded(fd, max, ret, ret_len, ret_truncated);
}

int root_read_line(const struct rg_root *root, const char *path, char *buf, size_t size)
{
	_cleanup_free_ char *data = NULL;
	size_t len, i;
	char *nl;
	int r;

	if (size < 2)
		return -EINVAL;
	r = root_read_file(root, path, size, &data, &len, NULL);
	if (r < 0)
		return r;
	nl = memchr(data, '\n', len);
	if (nl)
		len = (size_t)(nl - data);
	else if (len >= size)
		return -E2BIG;
	if (len >= size)
		return -E2BIG;
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)data[i];
		buf[i] = (c < 0x20 || c == 0x7f) ? '?' : (char)c;
	}
	buf[len] = 0;
	while (len > 0 && (buf[len - 1] == ' ' || buf[len - 1] == '\t'))
		buf[--len] = 0;
	if (len == 0)
		return -ENODATA;
	return (int)len;
}

int safe_atou64(const char *s, int base, uint64_t *ret)
{
	char *end;
	unsigned long long v;

	if (!s || !*s || isspace((unsigned char)*s) || *s == '-' || *s == '+')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, base);
	if (errno == ERANGE)
		return -ERANGE;
	if (errno || end == s || *end)
		return -EINVAL;
	*ret = v;
	return 0;
}

int safe_atou32(const char *s, int base, uint32_t *ret)
{
	uint64_t v;
	int r = safe_atou64(s, base, &v);

	if (r < 0)
		return r;
	if (v > UINT32_MAX)
		return -ERANGE;
	*ret = (uint32_t)v;
	return 0;
}

int safe_atoi(const char *s, int *ret)
{
	char *end;
	long v;

	if (!s || !*s || isspace((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno == ERANGE || v > INT_MAX || v < INT_MIN)
		return -ERANGE;
	if (errno || end == s || *end)
		return -EINVAL;
	*ret = (int)v;
	return 0;
}

bool snprintf_ok(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n >= 0 && (size_t)n < size;
}

bool strscpy_ok(char *dst, const char *src, size_t size)
{
	size_t n;

	if (size == 0)
		return false;
	n = strnlen(src, size);
	if (n >= size) {
		memcpy(dst, src, size - 1);
		dst[size - 1] = 0;
		return false;
	}
	memcpy(dst, src, n + 1);
	return true;
}

void str_sanitize(char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c < 0x20 || c == 0x7f)
			*s = '?';
	}
}

char *strstrip(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = 0;
	return s;
}

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t now_realtime_ns(void)
{
	return clock_ns(CLOCK_REALTIME);
}

uint64_t now_boottime_ns(void)
{
	return clock_ns(CLOCK_BOOTTIME);
}

uint64_t now_monotonic_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

uint64_t boot_to_realtime_offset_ns(void)
{
	/* Bracket the realtime read by two boottime reads to halve the error. */
	uint64_t b1 = now_boottime_ns();
	uint64_t rt = now_realtime_ns();
	uint64_t b2 = now_boottime_ns();
	return rt - (b1 + (b2 - b1) / 2);
}

static void put_dec(char *p, uint64_t v, int width)
{
	while (width--) {
		p[width] = (char)('0' + v % 10);
		v /= 10;
	}
}

void format_timestamp(uint64_t realtime_ns, char buf[static 32])
{
	uint64_t sec = realtime_ns / 1000000000ull, days = sec / 86400, z, era, y;
	unsigned sod = (unsigned)(sec % 86400), doe, yoe, doy, mp, m, d;

	/* Days since 1970-01-01 to a proleptic Gregorian date (H. Hinnant, civil_from_days):
	 * the same as gmtime_r + strftime, without either (an alert formats six of these). */
	z = days + 719468;
	era = z / 146097;
	doe = (unsigned)(z - era * 146097);
	yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	y = yoe + era * 400;
	doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	mp = (5 * doy + 2) / 153;
	d = doy - (153 * mp + 2) / 5 + 1;
	m = mp < 10 ? mp + 3 : mp - 9;
	if (m <= 2)
		y++;
	/* uint64_t nanoseconds end in 2554: the year always has four digits. */
	put_dec(buf, y, 4);
	buf[4] = '-';
	put_dec(buf + 5, m, 2);
	buf[7] = '-';
	put_dec(buf + 8, d, 2);
	buf[10] = 'T';
	put_dec(buf + 11, sod / 3600, 2);
	buf[13] = ':';
	put_dec(buf + 14, sod / 60 % 60, 2);
	buf[16] = ':';
	put_dec(buf + 17, sod % 60, 2);
	buf[19] = '.';
	put_dec(buf + 20, (realtime_ns % 1000000000ull) / 1000, 6);
	buf[26] = 'Z';
	buf[27] = 0;
}

/* n decimal digits at s, no sign, no space; stops at (and fails on) the NUL. */
static int get_dec(const char *s, int n, unsigned *ret)
{
	unsigned v = 0;
	int i;

	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -EINVAL;
		v = v * 10 + (unsigned)(s[i] - '0');
	}
	*ret = v;
	return 0;
}

/*
 * "YYYY-MM-DDTHH:MM" (RFC 3339 wants every field two digits, the year four): the minute in
 * seconds since the epoch; 1: a valid date before 1970 (*ret_s unset).
 */
static int parse_minute(const char *s, uint64_t *ret_s)
{
	static const uint8_t mdays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
	unsigned y, mo, d, h, mi, yoe, doy, doe;
	uint64_t era, days;
	bool leap;

	if (get_dec(s, 4, &y) < 0 || s[4] != '-' || get_dec(s + 5, 2, &mo) < 0 || s[7] != '-' ||
	    get_dec(s + 8, 2, &d) < 0 || s[10] != 'T' || get_dec(s + 11, 2, &h) < 0 ||
	    s[13] != ':' || get_dec(s + 14, 2, &mi) < 0)
		return -EINVAL;
	leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
	if (mo < 1 || mo > 12 || d < 1 || d > mdays[mo - 1] + (unsigned)(mo == 2 && leap) || h > 23 ||
	    mi > 59)
		return -EINVAL;
	if (y < 1970)
		return 1;
	/* A date to days since 1970-01-01 (H. Hinnant, days_from_civil). */
	if (mo <= 2)
		y--;
	era = y / 400;
	yoe = (unsigned)(y - era * 400);
	doy = (153 * (mo > 2 ? mo - 3 : mo + 9) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	days = era * 146097 + doe - 719468;
	*ret_s = days * 86400 + h * 3600 + mi * 60;
	return 0;
}

/* p[0..end): ":SS", an optional fraction (up to 9 digits count), "Z" and the end. */
static int parse_seconds(const char *p, const char *end, unsigned *sec, uint64_t *frac)
{
	int digits = 0;

	*frac = 0;
	if (end - p < 4 || p[0] != ':' || get_dec(p + 1, 2, sec) < 0 ||
	    *sec > 60) /* 60: a leap second, counted as the next minute's first */
		return -EINVAL;
	p += 3;
	if (*p == '.') {
		p++;
		while (p < end && *p >= '0' && *p <= '9') {
			if (digits < 9) {
				*frac = *frac * 10 + (uint64_t)(*p - '0');
				digits++;
			}
			p++;
		}
		if (digits == 0)
			return -EINVAL;
		while (digits < 9) {
			*frac *= 10;
			digits++;
		}
	}
	return end - p == 1 && *p == 'Z' ? 0 : -EINVAL;
}

int parse_timestamp_cached(const char *s, size_t len, uint64_t *ret_ns, struct ts_cache *c)
{
	uint64_t minute = 0, frac, total;
	unsigned sec;
	int r = 0;

	if (len < 20) /* "YYYY-MM-DDTHH:MM:SSZ" */
		return -EINVAL;
	if (c && c->valid && memcmp(s, c->minute, sizeof(c->minute)) == 0)
		minute = c->minute_s;
	else {
		r = parse_minute(s, &minute);
		if (r < 0)
			return r;
		if (c && r == 0) {
			memcpy(c->minute, s, sizeof(c->minute));
			c->minute_s = minute;
			c->valid = true;
		}
	}
	if (parse_seconds(s + 16, s + len, &sec, &frac) < 0)
		return -EINVAL;
	if (r > 0)
		return -ERANGE; /* before 1970 */
	total = minute + sec;
	/* Nanoseconds in a uint64_t end in 2554. */
	if (total > (UINT64_MAX - frac) / 1000000000ull)
		return -ERANGE;
	*ret_ns = total * 1000000000ull + frac;
	return 0;
}

int parse_timestamp(const char *s, uint64_t *ret_ns)
{
	return parse_timestamp_cached(s, strlen(s), ret_ns, NULL);
}

int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

void hex_encode(const void *in, size_t n, char *out)
{
	static const char digits[] = "0123456789abcdef";
	const uint8_t *b = in;
	size_t i;

	for (i = 0; i < n; i++) {
		out[2 * i] = digits[b[i] >> 4];
		out[2 * i + 1] = digits[b[i] & 15];
	}
	out[2 * n] = 0;
}

/* Random bytes for UUIDs, fetched 512 at a time (one getrandom() per 32 alerts, not one
 * each); per thread, and emptied in a forked child (the thread that forked is the child's only
 * one) so that it never repeats its parent's. */
static __thread struct {
	uint8_t b[512];
	size_t avail;
} uuid_pool;
static pthread_once_t uuid_once = PTHREAD_ONCE_INIT;

static void uuid_pool_forget(void)
{
	explicit_bzero(&uuid_pool, sizeof(uuid_pool));
}

static void uuid_pool_init(void)
{
	(void)pthread_atfork(NULL, NULL, uuid_pool_forget);
}

int uuid_v4(char buf[static 37])
{
	uint8_t b[16];
	size_t got = 0;

	(void)pthread_once(&uuid_once, uuid_pool_init);
	if (uuid_pool.avail < sizeof(b)) {
		while (got < sizeof(uuid_pool.b)) {
			ssize_t n = getrandom(uuid_pool.b + got, sizeof(uuid_pool.b) - got, 0);
			if (n < 0) {
				if (errno == EINTR)
					continue;
				return -errno;
			}
			got += (size_t)n;
		}
		uuid_pool.avail = sizeof(uuid_pool.b);
	}
	uuid_pool.avail -= sizeof(b);
	memcpy(b, uuid_pool.b + uuid_pool.avail, sizeof(b));
	explicit_bzero(uuid_pool.b + uuid_pool.avail, sizeof(b));
	b[6] = (uint8_t)((b[6] & 0x0f) | 0x40);
	b[8] = (uint8_t)((b[8] & 0x3f) | 0x80);
	/* 8-4-4-4-12 hex digits */
	hex_encode(b, 4, buf);
	buf[8] = '-';
	hex_encode(b + 4, 2, buf + 9);
	buf[13] = '-';
	hex_encode(b + 6, 2, buf + 14);
	buf[18] = '-';
	hex_encode(b + 8, 2, buf + 19);
	buf[23] = '-';
	hex_encode(b + 10, 6, buf + 24);
	return 0;
}

int sha256_fd(int fd, uint64_t max, char out[static 65])
{
	EVP_MD_CTX *ctx;
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;
	char buf[65536];
	uint64_t total = 0;
	int r = 0;

	ctx = EVP_MD_CTX_new();
	if (!ctx)
		return -ENOMEM;
	if (EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) != 1) {
		r = -EIO;
		goto out;
	}
	for (;;) {
		ssize_t n = read(fd, buf, sizeof(buf));
		if (n < 0) {
			if (errno == EINTR)
				continue;
			r = -errno;
			goto out;
		}
		if (n == 0)
			break;
		total += (uint64_t)n;
		if (total > max) {
			r = -EFBIG;
			goto out;
		}
		if (EVP_DigestUpdate(ctx, buf, (size_t)n) != 1) {
			r = -EIO;
			goto out;
		}
	}
	if (EVP_DigestFinal_ex(ctx, md, &mdlen) != 1 || mdlen != 32) {
		r = -EIO;
		goto out;
	}
	hex_encode(md, mdlen, out);
out:
	EVP_MD_CTX_free(ctx);
	return r;
}

int sha256_mem(const void *p, size_t n, char out[static 65])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;

	if (EVP_Digest(p, n, md, &mdlen, EVP_sha256(), NULL) != 1 || mdlen != 32)
		return -EIO;
	hex_encode(md, mdlen, out);
	return 0;
}

long clock_ticks_per_sec(void)
{
	static long hz;

	if (!hz) {
		hz = sysconf(_SC_CLK_TCK);
		if (hz <= 0)
			hz = 100;
	}
	return hz;
}

static const char *const glob_classes[] = {"alnum", "alpha", "blank", "cntrl", "digit", "graph",
					   "lower", "print", "punct", "space", "upper", "xdigit"};

static int glob_fail(size_t off, const char *why, size_t *ret_off, const char **ret_why)
{
	*ret_off = off;
	*ret_why = why;
	return -EINVAL;
}

/* One character of a bracket expression at *j (escapes resolved); -1 if [. or [= comes. */
static int bracket_char(const char *pat, size_t *j)
{
	if (pat[*j] == '[' && (pat[*j + 1] == '.' || pat[*j + 1] == '='))
		return -1;
	if (pat[*j] == '\\' && pat[*j + 1]) {
		*j += 2;
		return (unsigned char)pat[*j - 1];
	}
	return (unsigned char)pat[(*j)++];
}

int glob_check(const char *pat, size_t *ret_off, const char **ret_why)
{
	size_t i = 0;

	while (pat[i]) {
		size_t j, start = i;

		if (pat[i] == '\\') {
			if (!pat[i + 1])
				return glob_fail(i, "a pattern cannot end in a backslash", ret_off,
						 ret_why);
			i += 2;
			continue;
		}
		if (pat[i] != '[') {
			i++;
			continue;
		}
		j = i + 1;
		if (pat[j] == '!' || pat[j] == '^')
			j++;
		if (pat[j] == ']')
			j++; /* a ']' first is a member */
		while (pat[j] && pat[j] != ']') {
			int lo, hi;

			if (pat[j] == '[' && pat[j + 1] == ':') {
				const char *end = strstr(pat + j + 2, ":]");
				size_t k, n;

				if (!end)
					return glob_fail(j, "unterminated [:class:]", ret_off, ret_why);
				n = (size_t)(end - (pat + j + 2));
				for (k = 0; k < ARRAY_SIZE(glob_classes); k++)
					if (strlen(glob_classes[k]) == n &&
					    strncmp(glob_classes[k], pat + j + 2, n) == 0)
						break;
				if (k == ARRAY_SIZE(glob_classes))
					return glob_fail(j, "unknown character class (alnum, alpha, "
							    "blank, cntrl, digit, graph, lower, print, "
							    "punct, space, upper, xdigit)",
							 ret_off, ret_why);
				j = (size_t)(end - pat) + 2;
				continue;
			}
			if (pat[j] == '\\' && !pat[j + 1])
				break;
			lo = bracket_char(pat, &j);
			if (lo < 0)
				return glob_fail(j, "[. .] and [= =] are not supported", ret_off,
						 ret_why);
			if (pat[j] != '-' || !pat[j + 1] || pat[j + 1] == ']')
				continue;
			j++;
			hi = bracket_char(pat, &j);
			if (hi < 0)
				return glob_fail(j, "[. .] and [= =] are not supported", ret_off,
						 ret_why);
			if (hi < lo)
				return glob_fail(start, "empty range in [...] (the first character "
							"is above the last)",
						 ret_off, ret_why);
		}
		if (pat[j] != ']')
			return glob_fail(start, "unterminated '[' (write [[] for a literal '[')",
					 ret_off, ret_why);
		i = j + 1;
	}
	return 0;
}
