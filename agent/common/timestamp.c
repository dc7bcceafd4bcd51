/* SPDX-License-Identifier: GPL-2.0-or-later */
/* RFC 3339 timestamps: writing and strict parsing (timestamp.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "timestamp.h"

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
	if (mo < 1 || mo > 12 || d < 1 || d > mdays[mo - 1] + (unsigned)(mo == 2 && leap) ||
	    h > 23 || mi > 59)
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
