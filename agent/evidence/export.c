/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Export of one incident into a signed bundle: what goes in, in which files (export.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "config.h"
#include "common/clock.h"
#include "common/log.h"
#include "common/sha256.h"
#include "common/strutil.h"
#include "common/timestamp.h"
#include "hw/hw-internal.h"
#include "hw/pci.h"
#include "identity/identity.h"
#include "bundle.h"
#include "export.h"
#include "sigkey.h"

#define RULES_MAX 1024 /* rule files one bundle carries */

DEFINE_TRIVIAL_CLEANUP_FUNC(struct bundle *, bundle_free);

static void add_addr(const char *a, char addrs[][16], size_t *n)
{
	if (!a || !hw_is_pci_addr(a))
		return;
	for (size_t i = 0; i < *n; i++)
		if (strcmp(addrs[i], a) == 0)
			return;
	if (*n < EVIDENCE_MAX_PCI)
		snprintf(addrs[(*n)++], 16, "%s", a);
}

void evidence_pci_addrs(const char *text, size_t len, char addrs[][16], size_t *n)
{
	size_t start = 0;

	while (start < len) {
		const char *nl = memchr(text + start, '\n', len - start);
		size_t end = nl ? (size_t)(nl - text) : len;
		struct json_tokener *tok = json_tokener_new_ex(32);
		struct json_object *o = NULL, *pci, *v, *up;

		if (tok && end - start < INT32_MAX)
			o = json_tokener_parse_ex(tok, text + start, (int)(end - start));
		json_tokener_free(tok);
		if (o && json_object_object_get_ex(o, "pci", &pci)) {
			if (json_object_object_get_ex(pci, "address", &v))
				add_addr(json_object_get_string(v), addrs, n);
			if (json_object_object_get_ex(pci, "upstream", &up) &&
			    json_object_object_get_ex(up, "address", &v))
				add_addr(json_object_get_string(v), addrs, n);
		}
		json_object_put(o);
		start = end + 1;
	}
}

/* pci/DDDD-BB-DD.F.config for each function; what could not be read is said in seat.json. */
static int add_pci(struct bundle *b, const struct evidence_source *src, struct json_object *seat)
{
	char addrs[EVIDENCE_MAX_PCI][16];
	struct json_object *arr = json_object_new_array();
	size_t n = 0;

	evidence_pci_addrs(src->alerts, src->alerts_len, addrs, &n);
	evidence_pci_addrs(src->events, src->events_len, addrs, &n);
	evidence_pci_addrs(src->incident, src->incident_len, addrs, &n);
	json_object_object_add(seat, "pci", arr);
	for (size_t i = 0; i < n; i++) {
		struct json_object *f = json_object_new_object();
		uint8_t cfg[4096];
		char path[48];
		size_t len = 0;
		int r;

		json_object_object_add(f, "address", json_object_new_string(addrs[i]));
		json_object_array_add(arr, f);
		r = hw_read_config(src->root, addrs[i], cfg, &len);
		if (r < 0) {
			json_object_object_add(
			    f, "error",
			    json_object_new_string(r == -ENOENT ? "no such function now (removed)"
								: strerror(-r)));
			continue;
		}
		snprintf(path, sizeof(path), "pci/%s.config", addrs[i]);
		for (char *p = path + 4; *p; p++)
			if (*p == ':')
				*p = '-';
		r = bundle_add(b, path, "config-space", cfg, len);
		if (r < 0)
			return r;
		json_object_object_add(f, "config", json_object_new_string(path));
		json_object_object_add(f, "bytes", json_object_new_uint64(len));
	}
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every rule file of the rules directory, as rules/NAME. */
static int add_rules(struct bundle *b, const char *dir, struct json_object *seat)
{
	struct json_object *rules = json_object_new_object();
	char *names[RULES_MAX];
	size_t n = 0;
	struct dirent *de;
	int dfd, r = 0;
	DIR *d;

	json_object_object_add(seat, "rules", rules);
	json_object_object_add(rules, "dir", json_object_new_string(dir));
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0 || !(d = fdopendir(dfd))) {
		r = -errno;
		if (dfd >= 0)
			close(dfd);
		return r;
	}
	while ((de = readdir(d)) && n < RULES_MAX)
		if (endswith(de->d_name, ".json") && de->d_name[0] != '.' &&
		    bundle_path_valid(de->d_name) && strlen(de->d_name) < 100)
			if (!(names[n++] = strdup(de->d_name))) {
				r = -ENOMEM;
				n--;
				break;
			}
	qsort(names, n, sizeof(*names), cmp_str);
	for (size_t i = 0; i < n; i++) {
		char path[BUNDLE_PATH_MAX];
		int fd;

		if (r < 0)
			break;
		fd = openat(dirfd(d), names[i], O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		if (fd < 0) {
			r = -errno;
			break;
		}
		snprintf(path, sizeof(path), "rules/%s", names[i]);
		r = bundle_add_fd(b, path, "rule", fd);
		close(fd);
	}
	json_object_object_add(rules, "files", json_object_new_uint64(n));
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	closedir(d);
	return r;
}

/* policy.json as the file is now, and whether it is the one in force. */
static int add_policy(struct bundle *b, const struct evidence_source *src, struct json_object *seat)
{
	struct json_object *pol = json_object_new_object();
	_cleanup_free_ char *text = NULL;
	_cleanup_close_ int fd = -1;
	bool truncated = false;
	char sha[65];
	size_t len = 0;
	int r;

	json_object_object_add(seat, "policy", pol);
	if (!src->policy_path) {
		json_object_object_add(pol, "builtin", json_object_new_boolean(true));
		return 0;
	}
	json_object_object_add(pol, "path", json_object_new_string(src->policy_path));
	fd = open(src->policy_path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	r = read_fd_bounded(fd, BUNDLE_FILE_MAX, &text, &len, &truncated);
	if (r < 0)
		return r;
	if (truncated)
		return -E2BIG;
	r = sha256_mem(text, len, sha);
	if (r < 0)
		return r;
	json_object_object_add(pol, "sha256", json_object_new_string(sha));
	if (src->policy_sha256 && src->policy_sha256[0]) {
		json_object_object_add(pol, "sha256_in_force",
				       json_object_new_string(src->policy_sha256));
		/* A policy edited since it was loaded: the bundle says so, it cannot hold the old.
		 */
		json_object_object_add(
		    pol, "is_in_force",
		    json_object_new_boolean(strcmp(sha, src->policy_sha256) == 0));
	}
	return bundle_add(b, "policy.json", "policy", text, len);
}

static struct json_object *seat_json(EVP_PKEY *key, const struct evidence_source *src)
{
	struct json_object *o = json_object_new_object(), *agent = json_object_new_object(),
			   *k = json_object_new_object();
	char text[SIGKEY_TEXT_LEN] = "", fp[SIGKEY_FP_LEN] = "", ts[32];
	struct rg_identity id;

	format_timestamp(now_realtime_ns(), ts);
	json_object_object_add(o, "exported", json_object_new_string(ts));
	json_object_object_add(o, "incident", json_object_new_string(src->incident_id));
	json_object_object_add(o, "origin", json_object_new_string(src->origin));
	json_object_object_add(agent, "type", json_object_new_string("rdmaguard"));
	json_object_object_add(agent, "version", json_object_new_string(RG_VERSION));
	json_object_object_add(o, "agent", agent);
	if (identity_collect("/", &id) >= 0) {
		(void)identity_refresh_addrs(&id);
		json_object_object_add(o, "host", identity_host_json(&id));
	}
	(void)sigkey_text(key, text);
	(void)sigkey_fingerprint(key, fp);
	json_object_object_add(k, "public", json_object_new_string(text));
	json_object_object_add(k, "fingerprint", json_object_new_string(fp));
	json_object_object_add(o, "key", k);
	return o;
}

static int add_json(struct bundle *b, const char *path, const char *kind, struct json_object *o)
{
	const char *s = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
							      JSON_C_TO_STRING_NOSLASHESCAPE);
	_cleanup_free_ char *t = NULL;

	if (asprintf(&t, "%s\n", s) < 0)
		return -ENOMEM;
	return bundle_add(b, path, kind, t, strlen(t));
}

/* The text with a newline at its end (JSON lines), as a bundle file. */
static int add_lines(struct bundle *b, const char *path, const char *kind, const char *text,
		     size_t len)
{
	_cleanup_free_ char *t = NULL;

	if (len == 0 || text[len - 1] == '\n')
		return bundle_add(b, path, kind, text ? text : "", len);
	t = malloc(len + 1);
	if (!t)
		return -ENOMEM;
	memcpy(t, text, len);
	t[len] = '\n';
	return bundle_add(b, path, kind, t, len + 1);
}

int evidence_export(const struct evidence_source *src, const char *out, EVP_PKEY *key, char *err,
		    size_t errlen)
{
	_cleanup_(bundle_freep) struct bundle *b = NULL;
	struct json_object *seat;
	const char *step;
	int r;

	r = bundle_new(out, src->incident_id, &b, err, errlen);
	if (r < 0)
		return r;
	seat = seat_json(key, src);
	step = "the incident";
	r = add_lines(b, "incident.json", "incident", src->incident, src->incident_len);
	if (r >= 0) {
		step = "its alerts";
		r = add_lines(b, "alerts.jsonl", "alerts", src->alerts, src->alerts_len);
	}
	if (r >= 0) {
		step = "its raw events";
		r = add_lines(b, "events.jsonl", "events", src->events, src->events_len);
	}
	if (r >= 0) {
		step = "the config space of its PCI functions";
		r = add_pci(b, src, seat);
	}
	if (r >= 0) {
		step = "the policy";
		r = add_policy(b, src, seat);
	}
	if (r >= 0) {
		step = "the rules";
		r = add_rules(b, src->rules_dir, seat);
	}
	if (r >= 0) {
		step = "seat.json";
		r = add_json(b, "seat.json", "seat", seat);
	}
	json_object_put(seat);
	if (r < 0) {
		snprintf(err, errlen, "%s: cannot add %s: %s", out, step, strerror(-r));
		return r;
	}
	return bundle_finish(b, key, err, errlen);
}
