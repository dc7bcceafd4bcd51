/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Helpers of the fuzz targets (fuzz.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "fuzz.h"
#include "common/log.h"
#include "policy/policy.h"
#include "rules/rules.h"
#include "event/event_json.h"

void fuzz_fail(const char *file, int line, const char *what, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s:%d: property violated: %s: ", file, line, what);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

void fuzz_quiet(void)
{
	/* Below LOG_LEVEL_ERR: nothing is logged. */
	log_set_max_level((enum log_level)(LOG_LEVEL_ERR - 1));
}

char *fuzz_strndup(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (!s)
		abort();
	if (size)
		memcpy(s, data, size);
	s[size] = 0;
	return s;
}

void fuzz_check_position(const char *text, size_t len, unsigned line, unsigned column,
			 const char *msg)
{
	size_t i, start = 0;
	unsigned l = 1;

	if (line == 0)
		return; /* an error without a position (e.g. "empty file") */
	for (i = 0; i < len && l < line; i++)
		if (text[i] == '\n') {
			l++;
			start = i + 1;
		}
	FUZZ_ASSERT(l == line, "line %u of a text with %u lines: %s", line, l, msg);
	for (i = start; i < len && text[i] != '\n'; i++)
		;
	FUZZ_ASSERT(column >= 1 && column <= i - start + 1,
		    "column %u of line %u, which has %zu bytes: %s", column, line, i - start, msg);
}

/* Temporary directory. */

static char tmpdir[64];

static int rm_rf_at(int dirfd, const char *name)
{
	int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	int r;

	if (fd < 0)
		return unlinkat(dirfd, name, 0) < 0 ? -errno : 0;
	r = fuzz_clear_dir(fd);
	close(fd);
	if (r < 0)
		return r;
	return unlinkat(dirfd, name, AT_REMOVEDIR) < 0 ? -errno : 0;
}

int fuzz_clear_dir(int dirfd)
{
	int fd = dup(dirfd);
	struct dirent *de;
	DIR *d;
	int r = 0;

	if (fd < 0)
		return -errno;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -errno;
	}
	rewinddir(d); /* the dup shares the offset of earlier walks */
	while ((de = readdir(d))) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		r = rm_rf_at(dirfd, de->d_name);
		if (r < 0)
			break;
	}
	closedir(d);
	return r;
}

static void tmpdir_remove(void)
{
	if (tmpdir[0])
		rm_rf_at(AT_FDCWD, tmpdir);
}

const char *fuzz_tmpdir(void)
{
	const char *t = getenv("TMPDIR");

	if (tmpdir[0])
		return tmpdir;
	snprintf(tmpdir, sizeof(tmpdir), "%s/rg-fuzz-XXXXXX", t && strlen(t) < 40 ? t : "/tmp");
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		abort();
	}
	atexit(tmpdir_remove);
	return tmpdir;
}

/* Archives. */

#define ARCHIVE_MAX_DEPTH 32

/* Opens (creating) the directories of path's components but the last; returns the last one. */
static int walk_parents(int dirfd, char *path, char **ret_last)
{
	char *comps[ARCHIVE_MAX_DEPTH + 1], *p = path, *c;
	int fd, n = 0, i;

	while ((c = strsep(&p, "/"))) {
		if (!*c || strcmp(c, ".") == 0 || strcmp(c, "..") == 0)
			continue;
		if (n == ARCHIVE_MAX_DEPTH + 1)
			return -ENAMETOOLONG;
		comps[n++] = c;
	}
	if (n == 0)
		return -EINVAL;
	fd = dup(dirfd);
	if (fd < 0)
		return -errno;
	for (i = 0; i < n - 1; i++) {
		int next;

		if (mkdirat(fd, comps[i], 0755) < 0 && errno != EEXIST) {
			close(fd);
			return -errno;
		}
		/* O_NOFOLLOW: a link made by an earlier entry is never entered. */
		next = openat(fd, comps[i], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		close(fd);
		if (next < 0)
			return -errno;
		fd = next;
	}
	*ret_last = comps[n - 1];
	return fd;
}

static void archive_entry(int dirfd, char type, const char *header, size_t hlen,
			  const uint8_t *content, size_t clen, unsigned *created)
{
	char path[512], *tab, *last = NULL;
	const char *target = NULL;
	int fd, r = -EINVAL;

	if (hlen >= sizeof(path) || memchr(header, 0, hlen))
		return;
	memcpy(path, header, hlen);
	path[hlen] = 0;
	tab = strchr(path, '\t');
	if (tab) {
		*tab = 0;
		target = tab + 1;
	}
	fd = walk_parents(dirfd, path, &last);
	if (fd < 0)
		return;
	switch (type) {
	case 'f': {
		int f = openat(fd, last, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);

		if (f < 0)
			break;
		r = clen == 0 || write(f, content, clen) == (ssize_t)clen ? 0 : -EIO;
		close(f);
		break;
	}
	case 'l':
		r = target && *target && symlinkat(target, fd, last) == 0 ? 0 : -EINVAL;
		break;
	case 'd':
		r = mkdirat(fd, last, 0755) == 0 ? 0 : -errno;
		break;
	case 'p':
		r = mkfifoat(fd, last, 0644) == 0 ? 0 : -errno;
		break;
	}
	close(fd);
	if (r == 0)
		(*created)++;
}

static const uint8_t *find_sep(const uint8_t *p, const uint8_t *end)
{
	/* The next "\n=== " */
	while (p + 5 <= end) {
		const uint8_t *nl = memchr(p, '\n', (size_t)(end - p));

		if (!nl || nl + 5 > end)
			return NULL;
		if (memcmp(nl + 1, "=== ", 4) == 0)
			return nl;
		p = nl + 1;
	}
	return NULL;
}

int fuzz_archive_extract(const uint8_t *data, size_t size, int dirfd)
{
	const uint8_t *p = data, *end = data + size;
	unsigned entries = 0, created = 0;

	if (size < 4 || memcmp(data, "=== ", 4) != 0)
		return 0;
	while (p < end && entries < FUZZ_ARCHIVE_MAX_ENTRIES) {
		const uint8_t *hdr, *nl, *content, *next;
		char type;

		/* p points at "=== " */
		if ((size_t)(end - p) < 6)
			break;
		type = (char)p[4];
		hdr = p + 6; /* after "=== T " */
		if (hdr > end)
			break;
		nl = memchr(hdr, '\n', (size_t)(end - hdr));
		content = nl ? nl + 1 : end;
		/* The separator's newline is not content: next == nl means an empty file. */
		next = nl ? find_sep(nl, end) : NULL;
		archive_entry(dirfd, type, (const char *)hdr, (size_t)((nl ? nl : end) - hdr), content,
			      next == nl ? 0 : next ? (size_t)(next - content) : (size_t)(end - content),
			      &created);
		entries++;
		if (!next)
			break;
		p = next + 1;
	}
	return (int)created;
}

/* The engine over the fixture events. */

#define FIXTURE_DIR	   RG_FUZZ_RULESDIR "/../tests/fixtures/events"
#define FIXTURE_MAX_EVENTS 1024

static struct rg_event *fixture_events;
static size_t n_fixture_events;
static char *fixture_policy_text;

static char *read_all(const char *path, size_t *ret_len)
{
	FILE *f = fopen(path, "re");
	char *buf = NULL;
	size_t len = 0, cap = 0, n;

	if (!f) {
		fprintf(stderr, "fuzz: cannot open %s: %m\n", path);
		abort();
	}
	do {
		if (cap - len < 4096) {
			cap = cap ? cap * 2 : 65536;
			buf = realloc(buf, cap + 1);
			if (!buf)
				abort();
		}
		n = fread(buf + len, 1, cap - len, f);
		len += n;
	} while (n > 0);
	fclose(f);
	buf[len] = 0;
	if (ret_len)
		*ret_len = len;
	return buf;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void load_fixture_events(void)
{
	char *list[256];
	size_t n = 0, i;
	DIR *d = opendir(FIXTURE_DIR);
	struct dirent *de;

	if (!d) {
		fprintf(stderr, "fuzz: cannot open %s: %m\n", FIXTURE_DIR);
		abort();
	}
	while ((de = readdir(d)) && n < ARRAY_SIZE(list)) {
		size_t l = strlen(de->d_name);

		if (l > 6 && strcmp(de->d_name + l - 6, ".jsonl") == 0 &&
		    !strstr(de->d_name, ".expected."))
			list[n++] = strdup(de->d_name);
	}
	closedir(d);
	qsort(list, n, sizeof(list[0]), cmp_names);
	fixture_events = calloc(FIXTURE_MAX_EVENTS, sizeof(*fixture_events));
	if (!fixture_events)
		abort();
	for (i = 0; i < n; i++) {
		char path[1024], *text, *line, *save = NULL;

		snprintf(path, sizeof(path), "%s/%s", FIXTURE_DIR, list[i]);
		text = read_all(path, NULL);
		for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
			struct json_object *o = json_tokener_parse(line);
			char err[256];

			if (!o)
				continue;
			if (n_fixture_events < FIXTURE_MAX_EVENTS &&
			    event_from_json(o, &fixture_events[n_fixture_events], err,
					    sizeof(err)) == 0)
				n_fixture_events++;
			json_object_put(o);
		}
		free(text);
		free(list[i]);
	}
	if (n_fixture_events == 0) {
		fprintf(stderr, "fuzz: no events in %s\n", FIXTURE_DIR);
		abort();
	}
}

void fuzz_fixture_events(const struct rg_event **ret, size_t *n)
{
	if (!fixture_events)
		load_fixture_events();
	*ret = fixture_events;
	*n = n_fixture_events;
}

struct rg_policy *fuzz_fixture_policy(void)
{
	struct rg_policy *p = NULL;
	struct rg_error err;

	if (!fixture_policy_text)
		fixture_policy_text = read_all(FIXTURE_DIR "/policy.json", NULL);
	if (policy_parse("policy.json", fixture_policy_text, strlen(fixture_policy_text), &p,
			 &err) < 0) {
		fprintf(stderr, "fuzz: the fixture policy does not parse: %s\n", err.msg);
		abort();
	}
	return p;
}

#define SHIPPED_MAX 64

static char *shipped_text[SHIPPED_MAX], *shipped_name[SHIPPED_MAX];
static size_t n_shipped;

struct rg_ruleset *fuzz_shipped_rules(void)
{
	struct rg_ruleset *set = NULL;
	struct rg_error err;
	size_t i;

	if (!n_shipped) {
		DIR *d = opendir(RG_FUZZ_RULESDIR);
		struct dirent *de;

		if (!d) {
			fprintf(stderr, "fuzz: cannot open %s: %m\n", RG_FUZZ_RULESDIR);
			abort();
		}
		while ((de = readdir(d)) && n_shipped < SHIPPED_MAX) {
			size_t l = strlen(de->d_name);

			if (l > 5 && strcmp(de->d_name + l - 5, ".json") == 0)
				shipped_name[n_shipped++] = strdup(de->d_name);
		}
		closedir(d);
		qsort(shipped_name, n_shipped, sizeof(shipped_name[0]), cmp_names);
		for (i = 0; i < n_shipped; i++) {
			char path[1024];

			snprintf(path, sizeof(path), "%s/%s", RG_FUZZ_RULESDIR, shipped_name[i]);
			shipped_text[i] = read_all(path, NULL);
		}
	}
	if (ruleset_new(&set) < 0)
		abort();
	for (i = 0; i < n_shipped; i++)
		if (rules_parse(set, shipped_name[i], shipped_text[i], strlen(shipped_text[i]),
				&err) < 0) {
			fprintf(stderr, "fuzz: shipped rule %s: %s\n", shipped_name[i], err.msg);
			abort();
		}
	return set;
}

void fuzz_check_event(const struct rg_event *evp)
{
	struct json_object *j1, *j2;
	struct rg_event ev2, ev1 = *evp, *ev = &ev1;
	char err[256];
	char *s1;

	/* @timestamp has microseconds: a time below 1 us is the epoch, which means "none". */
	if (ev->ts < 1000)
		ev->ts = 0;
	FUZZ_ASSERT(ev->type > 0 && ev->type < RG_EV__MAX, "event type %u", ev->type);
	j1 = event_to_json(ev);
	FUZZ_ASSERT(j1, "event_to_json failed");
	s1 = strdup(json_object_to_json_string_ext(j1, JSON_C_TO_STRING_PLAIN));
	if (!s1)
		abort();
	FUZZ_ASSERT(event_from_json(j1, &ev2, err, sizeof(err)) == 0,
		    "its own JSON does not parse: %s: %s", err, s1);
	j2 = event_to_json(&ev2);
	FUZZ_ASSERT(j2, "event_to_json failed");
	FUZZ_ASSERT(strcmp(s1, json_object_to_json_string_ext(j2, JSON_C_TO_STRING_PLAIN)) == 0,
		    "the JSON round trip changed the event:\n  %s\n  %s", s1,
		    json_object_to_json_string_ext(j2, JSON_C_TO_STRING_PLAIN));
	free(s1);
	json_object_put(j1);
	json_object_put(j2);
}

static int emit(const struct rg_alert *alert, void *ud)
{
	struct json_object *o = json_tokener_parse(alert->json);
	unsigned *count = ud;

	/* Whatever bytes the events carried, the alert is one valid JSON object. */
	FUZZ_ASSERT(o && json_object_is_type(o, json_type_object) && alert->len &&
			    alert->json[alert->len - 1] == '}' && !memchr(alert->json, '\n', alert->len),
		    "alert %u is not one JSON object: %s", *count, alert->json);
	json_object_put(o);
	FUZZ_ASSERT(alert->severity >= RG_SEV_INFO && alert->severity < RG_SEV__MAX, "severity %d",
		    alert->severity);
	(*count)++;
	return 0;
}

void fuzz_engine_run(struct rg_policy *policy, struct rg_ruleset *rules,
		     const struct rg_event *events, size_t n)
{
	struct engine_config cfg = {
		.hostname = "fuzz-host",
		.boot_id = "11111111-2222-3333-4444-555555555555",
		.boot_realtime_ns = 1768003200ull * 1000000000ull, /* 2026-01-10T00:00:00Z */
		.proc_capacity = 128,
		.agg_capacity = 32,
	};
	struct engine_stats st;
	struct rg_engine *e = NULL;
	struct rg_error err;
	uint64_t last = 0;
	unsigned alerts = 0;
	size_t i;

	if (engine_new(policy, rules, &cfg, &e, &err) < 0) {
		/* A policy override naming a rule the set lacks: refused, as the CLI does. */
		policy_free(policy);
		ruleset_free(rules);
		return;
	}
	for (i = 0; i < n; i++) {
		FUZZ_ASSERT(engine_process(e, &events[i], emit, &alerts) == 0, "event %zu", i);
		if (events[i].ts > last)
			last = events[i].ts;
	}
	FUZZ_ASSERT(engine_tick(e, last + 3600ull * 1000000000ull, emit, &alerts) == 0, "tick");
	FUZZ_ASSERT(engine_flush(e, emit, &alerts) == 0, "flush");
	engine_get_stats(e, &st);
	FUZZ_ASSERT(st.alerts == alerts, "%llu alerts counted, %u emitted",
		    (unsigned long long)st.alerts, alerts);
	FUZZ_ASSERT(st.agg_pending == 0, "%llu repeats still pending after a flush",
		    (unsigned long long)st.agg_pending);
	engine_free(e);
}

bool fuzz_split_write(const uint8_t *data, size_t size, struct fuzz_write *w)
{
	uint16_t resp_len;

	if (size < 10)
		return false;
	memcpy(&w->count, data, 8);
	memcpy(&resp_len, data + 8, 2);
	data += 10;
	size -= 10;
	w->resp_len = resp_len > size ? size : resp_len;
	w->len = size - w->resp_len;
	w->resp = malloc(w->resp_len ? w->resp_len : 1);
	w->buf = malloc(w->len ? w->len : 1);
	if (!w->resp || !w->buf)
		abort();
	memcpy(w->resp, data, w->resp_len);
	memcpy(w->buf, data + w->resp_len, w->len);
	return true;
}
