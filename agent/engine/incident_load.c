/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Incidents from a file, offline (incident_reader.h, incident_set_load()): a file output is read
 * as it is; a `--record`ed event file (its first line an event) is fed through an engine, as
 * `rdmaguard replay` does, and the incidents are what that engine made, with their alerts.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine.h"
#include "incident_reader.h"
#include "common/log.h"
#include "common/macro.h"
#include "event/event_json.h"

struct load {
	struct incident_set *set;
	int err;
	char msg[256];
};

static int feed_text(struct load *l, const char *text, size_t len)
{
	size_t col;
	int r = incident_set_feed(l->set, text, len, &col, l->msg, sizeof(l->msg));

	if (r < 0 && !l->err)
		l->err = r;
	return 0;
}

static int on_alert(const struct rg_alert *a, void *ud)
{
	return feed_text(ud, a->json, a->len);
}

static FILE *open_input(const char *path)
{
	int fd;
	struct stat st;
	FILE *f;

	if (strcmp(path, "-") == 0)
		return stdin;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		errno = EINVAL;
		return NULL;
	}
	f = fdopen(fd, "re");
	if (!f)
		close(fd);
	return f;
}

/* The next line (newline removed): its length + 1, 0 at the end, -E2BIG past the limit. */
static ssize_t get_line(FILE *f, char **buf, size_t *cap)
{
	ssize_t n = getline(buf, cap, f);

	if (n < 0)
		return ferror(f) ? -EIO : 0;
	if ((size_t)n > INCIDENT_READER_MAX_LINE + 1)
		return -E2BIG;
	if (n > 0 && (*buf)[n - 1] == '\n')
		(*buf)[--n] = 0;
	return n + 1;
}

static bool blank(const char *s, size_t n)
{
	return strspn(s, " \t\r") >= n;
}

static int load_events(struct incident_set *s, FILE *f, const char *path,
		       const struct incident_load_opts *o, char **line, size_t *cap, ssize_t n,
		       unsigned long lineno, char *err, size_t errlen)
{
	struct rg_policy *policy = NULL;
	struct rg_ruleset *rules = NULL;
	struct rg_engine *e = NULL;
	struct event_reader *reader = NULL;
	struct engine_config cfg = {.hostname = o->hostname,
				    .boot_id = o->boot_id,
				    .boot_realtime_ns = o->boot_realtime_ns};
	struct load l = {.set = s};
	struct rg_error rerr;
	struct jw *w = NULL;
	int r;

	r = engine_load_config(o->policy, false, o->rules, NULL, &policy, &rules, &rerr);
	if (r >= 0)
		r = engine_new(policy, rules, &cfg, &e, &rerr);
	if (r < 0) {
		rg_error_format(&rerr, err, errlen);
		policy_free(policy);
		ruleset_free(rules);
		return r;
	}
	engine_set_incident_fn(e, on_alert, &l);
	r = event_reader_new(INCIDENT_READER_MAX_LINE, &reader);
	w = jw_new();
	if (r < 0 || !w) {
		r = -ENOMEM;
		goto out;
	}
	/* The first line was read by the caller: feed it, then the rest. */
	for (; n > 0; n = get_line(f, line, cap), lineno++) {
		struct rg_event ev;
		char msg[256];
		size_t col = 0, len = (size_t)n - 1;

		if (blank(*line, len))
			continue;
		r = event_reader_read(reader, *line, len, &ev, &col, msg, sizeof(msg));
		if (r < 0) {
			snprintf(err, errlen, "%s:%lu:%zu: %s", path, lineno, col, msg);
			goto out;
		}
		r = engine_process(e, &ev, on_alert, &l);
		if (r < 0 || l.err) {
			snprintf(err, errlen, "%s:%lu: %s", path, lineno, l.msg);
			r = r < 0 ? r : l.err;
			goto out;
		}
	}
	if (n < 0) {
		snprintf(err, errlen, "%s:%lu: %s", path, lineno,
			 n == -E2BIG ? "line too long" : "read error");
		r = (int)n;
		goto out;
	}
	r = engine_flush(e, on_alert, &l);
	/* Each incident as it stands at the end: repeats folded since its last record. */
	for (size_t i = 0;
	     r >= 0 && engine_incidents(e) && i < incident_store_count(engine_incidents(e)); i++) {
		const char *text;
		size_t len;

		jw_reset(w);
		engine_incident_to_jw(e, incident_store_at(engine_incidents(e), i), NULL, w);
		if (jw_finish(w, &text, &len) < 0)
			r = -ENOMEM;
		else
			feed_text(&l, text, len);
	}
	if (r >= 0 && l.err) {
		snprintf(err, errlen, "%s: %s", path, l.msg);
		r = l.err;
	}
	if (r >= 0 && o->with_engine)
		o->with_engine(e, o->ud);
out:
	jw_free(w);
	event_reader_free(reader);
	engine_free(e);
	return r;
}

int incident_set_load(struct incident_set *s, const char *path, const struct incident_load_opts *o,
		      char *err, size_t errlen)
{
	_cleanup_free_ char *line = NULL;
	unsigned long lineno = 0;
	size_t cap = 0;
	ssize_t n;
	FILE *f;
	int r = 0;

	err[0] = 0;
	f = open_input(path);
	if (!f) {
		r = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(-r));
		return r;
	}
	while ((n = get_line(f, &line, &cap)) > 0) {
		size_t len = (size_t)n - 1, col = 0;
		char msg[256];

		lineno++;
		if (blank(line, len))
			continue;
		if (s->lines == 0 && incident_line_is_event(line, len)) {
			r = load_events(s, f, path, o, &line, &cap, n, lineno, err, errlen);
			goto out;
		}
		r = incident_set_feed(s, line, len, &col, msg, sizeof(msg));
		if (r < 0) {
			if (col)
				snprintf(err, errlen, "%s:%lu:%zu: %s", path, lineno, col, msg);
			else
				snprintf(err, errlen, "%s:%lu: %s", path, lineno, msg);
			goto out;
		}
	}
	if (n < 0) {
		r = (int)n;
		snprintf(err, errlen, "%s:%lu: %s", path, lineno + 1,
			 n == -E2BIG ? "line too long" : "read error");
	}
out:
	if (f != stdin)
		fclose(f);
	return r;
}
