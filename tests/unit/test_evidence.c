/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The evidence module: the seat key (made, refused when others can read it), bundles (written,
 * verified, and one byte changed in each file kind named), and the hash chain (written, resumed,
 * and each tamper kind found).
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "evidence/bundle.h"
#include "evidence/chain.h"
#include "evidence/sigkey.h"

static char dir[] = "/tmp/rg-test-evidence-XXXXXX";
static char state[300], out[300];
static EVP_PKEY *key;

static void setup(void)
{
	char err[1200];
	bool created;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(state, sizeof(state), "%s/state", dir);
	snprintf(out, sizeof(out), "%s/bundle", dir);
	ck_assert_int_eq(sigkey_generate(state, false, &created, err, sizeof(err)), 0);
	ck_assert(created);
	ck_assert_msg(sigkey_load_private(state, geteuid() == 0, &key, err, sizeof(err)) == 0, "%s",
		      err);
}

static void teardown(void)
{
	char cmd[400];

	sigkey_free(key);
	key = NULL;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
	strcpy(dir, "/tmp/rg-test-evidence-XXXXXX");
}

START_TEST(test_key_kept_and_refused)
{
	char err[1200], path[400], t1[SIGKEY_TEXT_LEN], t2[SIGKEY_TEXT_LEN];
	EVP_PKEY *k2 = NULL, *pub = NULL;
	bool created = true;

	/* A second keygen keeps the key; the public file names the same key. */
	ck_assert_int_eq(sigkey_generate(state, false, &created, err, sizeof(err)), 0);
	ck_assert(!created);
	snprintf(path, sizeof(path), "%s/" SIGKEY_PUBLIC, state);
	ck_assert_int_eq(sigkey_load_public(path, &pub, err, sizeof(err)), 0);
	ck_assert_int_eq(sigkey_text(key, t1), 0);
	ck_assert_int_eq(sigkey_text(pub, t2), 0);
	ck_assert_str_eq(t1, t2);
	ck_assert(strncmp(t1, "ed25519:", 8) == 0 && strlen(t1) == 8 + 44);
	sigkey_free(pub);
	/* Readable or writable by others: refused. */
	snprintf(path, sizeof(path), "%s/" SIGKEY_PRIVATE, state);
	for (mode_t m = 0604; m; m = m == 0604 ? 0640 : m == 0640 ? 0620 : 0) {
		ck_assert_int_eq(chmod(path, m), 0);
		ck_assert_int_eq(sigkey_load_private(state, false, &k2, err, sizeof(err)), -EPERM);
		ck_assert_msg(strstr(err, "refused"), "%s", err);
	}
	ck_assert_int_eq(chmod(path, 0600), 0);
	ck_assert_int_eq(sigkey_load_private(state, false, &k2, err, sizeof(err)), 0);
	sigkey_free(k2);
}
END_TEST

START_TEST(test_sign_verify)
{
	char sig[SIGKEY_SIG_B64_LEN];
	bool created;
	char err[1200], other[400];
	EVP_PKEY *k2 = NULL;

	ck_assert_int_eq(sigkey_sign(key, "abc", 3, sig), 0);
	ck_assert_int_eq(sigkey_verify(key, "abc", 3, sig), 0);
	ck_assert_int_eq(sigkey_verify(key, "abd", 3, sig), -EBADMSG);
	snprintf(other, sizeof(other), "%s/other", dir);
	ck_assert_int_eq(sigkey_generate(other, false, &created, err, sizeof(err)), 0);
	ck_assert_int_eq(sigkey_load_private(other, false, &k2, err, sizeof(err)), 0);
	ck_assert_int_eq(sigkey_verify(k2, "abc", 3, sig), -EBADMSG);
	sig[5] = sig[5] == 'A' ? 'B' : 'A';
	ck_assert_int_eq(sigkey_verify(key, "abc", 3, sig), -EBADMSG);
	ck_assert_int_eq(sigkey_verify(key, "abc", 3, "not base64"), -EBADMSG);
	sigkey_free(k2);
}
END_TEST

/* Every kind of file an export writes, with made-up contents. */
static const struct {
	const char *path, *kind, *text;
} files[] = {
    {"incident.json", "incident", "{\"rdmaguard\":{\"incident\":{\"id\":\"INC-1\"}}}\n"},
    {"alerts.jsonl", "alerts", "{\"rule\":{\"id\":\"RDMA-008\"}}\n{\"rule\":{\"id\":\"X\"}}\n"},
    {"events.jsonl", "events", "{\"event\":{\"action\":\"exec\"}}\n"},
    {"pci/0000-03-00.0.config", "config-space", "\x86\x80\x0f\x10\x07\x00\x10\x00"},
    {"policy.json", "policy", "{\"games\":[]}\n"},
    {"rules/RDMA-008.json", "rule", "{\"id\":\"RDMA-008\"}\n"},
    {"seat.json", "seat", "{\"agent\":{\"version\":\"0\"}}\n"},
};

static void make_bundle(void)
{
	struct bundle *b = NULL;
	char err[1200];

	ck_assert_int_eq(bundle_new(out, "INC-1", &b, err, sizeof(err)), 0);
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		ck_assert_int_eq(bundle_add(b, files[i].path, files[i].kind, files[i].text,
					    strlen(files[i].text)),
				 0);
	ck_assert_int_eq(bundle_finish(b, key, err, sizeof(err)), 0);
	bundle_free(b);
}

/* Flips one byte at offset off of the bundle's file path (XOR 1: still text mostly). */
static void flip(const char *path, long off)
{
	char p[512];
	unsigned char c;
	int fd;

	snprintf(p, sizeof(p), "%s/%s", out, path);
	fd = open(p, O_RDWR);
	ck_assert_int_ge(fd, 0);
	if (off < 0)
		off += lseek(fd, 0, SEEK_END);
	ck_assert_int_eq(pread(fd, &c, 1, off), 1);
	c ^= 1;
	ck_assert_int_eq(pwrite(fd, &c, 1, off), 1);
	close(fd);
}

START_TEST(test_bundle_verifies)
{
	struct bundle_report rep;

	make_bundle();
	ck_assert_int_eq(bundle_verify(out, key, &rep), BUNDLE_OK);
	ck_assert_str_eq(rep.incident, "INC-1");
	ck_assert_uint_eq(rep.n_files, sizeof(files) / sizeof(files[0]));
	ck_assert(!rep.key_from_bundle);
	ck_assert_int_eq(bundle_verify(out, NULL, &rep), BUNDLE_OK);
	ck_assert(rep.key_from_bundle);
}
END_TEST

/* One byte changed in each file kind: verify fails and names that file. */
START_TEST(test_bundle_one_byte_each_kind)
{
	struct bundle_report rep;
	const char *extra[] = {BUNDLE_MANIFEST, BUNDLE_SIGNATURE};

	make_bundle();
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]) + 2; i++) {
		const char *path = i < 2 ? extra[i] : files[i - 2].path;
		/* the manifest: a byte of a sha256 in it; the signature: one of its base64 */
		long off = i == 0 ? -200 : i == 1 ? -40 : 1;

		flip(path, off);
		ck_assert_int_eq(bundle_verify(out, key, &rep), BUNDLE_BAD);
		ck_assert_msg(strncmp(rep.what, path, strlen(path)) == 0 &&
				  rep.what[strlen(path)] == ':',
			      "changed %s, verify said: %s", path, rep.what);
		flip(path, off);
		ck_assert_msg(bundle_verify(out, key, &rep) == BUNDLE_OK, "%s", rep.what);
	}
}
END_TEST

START_TEST(test_bundle_wrong_key_missing_extra)
{
	struct bundle_report rep;
	char err[1200], other[400], p[512];
	EVP_PKEY *k2 = NULL;
	bool created;
	int fd;

	make_bundle();
	snprintf(other, sizeof(other), "%s/other", dir);
	ck_assert_int_eq(sigkey_generate(other, false, &created, err, sizeof(err)), 0);
	ck_assert_int_eq(sigkey_load_private(other, false, &k2, err, sizeof(err)), 0);
	ck_assert_int_eq(bundle_verify(out, k2, &rep), BUNDLE_BAD);
	ck_assert_msg(strstr(rep.what, "manifest.sig: signed by another key"), "%s", rep.what);
	sigkey_free(k2);
	/* A file added that the manifest does not list. */
	snprintf(p, sizeof(p), "%s/rules/extra.json", out);
	fd = open(p, O_WRONLY | O_CREAT | O_EXCL, 0644);
	ck_assert_int_ge(fd, 0);
	close(fd);
	ck_assert_int_eq(bundle_verify(out, key, &rep), BUNDLE_BAD);
	ck_assert_str_eq(rep.what, "rules/extra.json: not in the manifest");
	ck_assert_int_eq(unlink(p), 0);
	/* A file removed; a file replaced by a symbolic link. */
	snprintf(p, sizeof(p), "%s/events.jsonl", out);
	ck_assert_int_eq(rename(p, "/tmp/rg-test-evidence-moved"), 0);
	ck_assert_int_eq(bundle_verify(out, key, &rep), BUNDLE_BAD);
	ck_assert_str_eq(rep.what, "events.jsonl: missing");
	ck_assert_int_eq(symlink("/tmp/rg-test-evidence-moved", p), 0);
	ck_assert_int_eq(bundle_verify(out, key, &rep), BUNDLE_BAD);
	ck_assert_msg(strstr(rep.what, "events.jsonl: not a regular file"), "%s", rep.what);
	ck_assert_int_eq(unlink(p), 0);
	ck_assert_int_eq(rename("/tmp/rg-test-evidence-moved", p), 0);
	ck_assert_int_eq(bundle_verify(out, key, &rep), BUNDLE_OK);
}
END_TEST

START_TEST(test_bundle_paths)
{
	ck_assert(bundle_path_valid("alerts.jsonl"));
	ck_assert(bundle_path_valid("pci/0000-03-00.0.config"));
	ck_assert(!bundle_path_valid("../x"));
	ck_assert(!bundle_path_valid("a/b/c"));
	ck_assert(!bundle_path_valid("/etc/passwd"));
	ck_assert(!bundle_path_valid(".hidden"));
	ck_assert(!bundle_path_valid("a//b"));
	ck_assert(!bundle_path_valid("a/"));
	ck_assert(!bundle_path_valid("a b"));
}
END_TEST

/* n chained lines of a log into buf; returns its length. */
static size_t make_log(char *buf, size_t size, unsigned n, struct chain_state *st)
{
	size_t off = 0;

	chain_init(st);
	for (unsigned i = 0; i < n; i++) {
		char json[64];
		long len;

		snprintf(json, sizeof(json), "{\"n\":%u,\"message\":\"line %u\"}", i, i);
		len = chain_line(st, json, strlen(json), buf + off, size - off - 1);
		ck_assert_int_gt(len, 0);
		off += (size_t)len;
		buf[off++] = '\n';
	}
	return off;
}

/* Runs the verifier over text as one file "log"; returns 0 or -EBADMSG; what into what. */
static int verify_text(const char *text, size_t len, bool partial, const char *head_seq_hash,
		       char *what, size_t wlen)
{
	struct chain_verifier v;
	char p[400];
	int fd, r;

	snprintf(p, sizeof(p), "%s/log", dir);
	fd = open(p, O_RDWR | O_CREAT | O_TRUNC, 0600);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, len), (ssize_t)len);
	ck_assert_int_eq(lseek(fd, 0, SEEK_SET), 0);
	ck_assert_int_eq(chain_verifier_init(&v, partial, NULL), 0);
	if (head_seq_hash) {
		char num[24];
		const char *colon = strchr(head_seq_hash, ':');

		memcpy(num, head_seq_hash, (size_t)(colon - head_seq_hash));
		num[colon - head_seq_hash] = 0;
		ck_assert_int_eq(chain_verifier_add_head(&v, strtoull(num, NULL, 10), colon + 1),
				 0);
	}
	r = chain_verify_fd(&v, "log", fd);
	if (r == 0)
		r = chain_verify_finish(&v);
	snprintf(what, wlen, "%s", v.what);
	chain_verifier_done(&v);
	close(fd);
	return r;
}

/* The start and length of line k (from 0) of text. */
static void line_at(const char *text, unsigned k, size_t *start, size_t *len)
{
	const char *p = text;

	for (unsigned i = 0; i < k; i++)
		p = strchr(p, '\n') + 1;
	*start = (size_t)(p - text);
	*len = (size_t)(strchr(p, '\n') - p) + 1;
}

START_TEST(test_chain_each_tamper)
{
	static char log[8192], t[8192];
	struct chain_state st;
	size_t len = make_log(log, sizeof(log), 6, &st), s1, l1, s2, l2;
	char what[1024], head[100];

	ck_assert_int_eq(verify_text(log, len, false, NULL, what, sizeof(what)), 0);
	ck_assert(strstr(log, ",\"chain\":{\"seq\":1,\"prev\":\"" CHAIN_ZERO "\"}}\n"));
	snprintf(head, sizeof(head), "6:%s", st.head);
	ck_assert_int_eq(verify_text(log, len, false, head, what, sizeof(what)), 0);

	/* deleted: line 3 (index 2) */
	line_at(log, 2, &s1, &l1);
	memcpy(t, log, s1);
	memcpy(t + s1, log + s1 + l1, len - s1 - l1);
	ck_assert_int_eq(verify_text(t, len - l1, false, NULL, what, sizeof(what)), -EBADMSG);
	ck_assert_msg(strstr(what, "log:3: seq 4 follows seq 2") && strstr(what, "deleted"), "%s",
		      what);

	/* edited: one byte of line 2's message */
	memcpy(t, log, len);
	line_at(t, 1, &s1, &l1);
	t[s1 + 20] ^= 1;
	ck_assert_int_eq(verify_text(t, len, false, NULL, what, sizeof(what)), -EBADMSG);
	ck_assert_msg(strstr(what, "log:2: changed"), "%s", what);

	/* reordered: lines 4 and 5 swapped */
	line_at(log, 3, &s1, &l1);
	line_at(log, 4, &s2, &l2);
	memcpy(t, log, s1);
	memcpy(t + s1, log + s2, l2);
	memcpy(t + s1 + l2, log + s1, l1);
	memcpy(t + s1 + l1 + l2, log + s2 + l2, len - s2 - l2);
	ck_assert_int_eq(verify_text(t, len, false, NULL, what, sizeof(what)), -EBADMSG);
	ck_assert_msg(strstr(what, "log:4: seq 5 follows seq 3"), "%s", what);

	/* truncated: the last line cut short, and the last line gone (found by the head) */
	ck_assert_int_eq(verify_text(log, len - 10, false, NULL, what, sizeof(what)), -EBADMSG);
	ck_assert_msg(strstr(what, "log:6: the last line is cut short"), "%s", what);
	line_at(log, 5, &s1, &l1);
	ck_assert_int_eq(verify_text(log, s1, false, NULL, what, sizeof(what)), 0);
	ck_assert_int_eq(verify_text(log, s1, false, head, what, sizeof(what)), -EBADMSG);
	ck_assert_msg(strstr(what, "head seq 6") && strstr(what, "ends at seq 5"), "%s", what);

	/* the first line deleted: refused unless a rotated file is verified alone (--partial) */
	line_at(log, 0, &s1, &l1);
	ck_assert_int_eq(verify_text(log + l1, len - l1, false, NULL, what, sizeof(what)),
			 -EBADMSG);
	ck_assert_msg(strstr(what, "log:1: the log starts at seq 2"), "%s", what);
	ck_assert_int_eq(verify_text(log + l1, len - l1, true, NULL, what, sizeof(what)), 0);

	/* the chain member itself changed */
	memcpy(t, log, len);
	line_at(t, 2, &s1, &l1);
	t[s1 + l1 - 3] = 'x';
	ck_assert_int_eq(verify_text(t, len, false, NULL, what, sizeof(what)), -EBADMSG);
	ck_assert_msg(strstr(what, "log:3: no chain member"), "%s", what);
}
END_TEST

START_TEST(test_chain_resume)
{
	static char log[8192];
	struct chain_state st, st2;
	size_t len = make_log(log, sizeof(log), 3, &st);
	char p[400];
	int fd;

	snprintf(p, sizeof(p), "%s/resume", dir);
	fd = open(p, O_RDWR | O_CREAT | O_TRUNC, 0600);
	ck_assert_int_ge(fd, 0);
	chain_init(&st2);
	ck_assert_int_eq(chain_resume_fd(fd, &st2), 0); /* empty: a new chain */
	ck_assert_int_eq(write(fd, log, len), (ssize_t)len);
	ck_assert_int_eq(chain_resume_fd(fd, &st2), 1);
	ck_assert_uint_eq(st2.seq, 3);
	ck_assert_str_eq(st2.head, st.head);
	ck_assert_int_eq(write(fd, "{\"x\":1}\n", 8), 8); /* not ours */
	ck_assert_int_eq(chain_resume_fd(fd, &st2), -EBADMSG);
	close(fd);
	/* the empty object, and what is not an object */
	ck_assert_int_gt(chain_line(&st, "{}", 2, log, sizeof(log)), 0);
	ck_assert(strncmp(log, "{\"chain\":{\"seq\":4,", 18) == 0);
	ck_assert_int_eq(chain_line(&st, "[1]", 3, log, sizeof(log)), -EINVAL);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("evidence");
	TCase *core = tcase_create("core"), *errors = tcase_create("errors");
	SRunner *sr;
	int failed;

	tcase_add_checked_fixture(core, setup, teardown);
	tcase_add_checked_fixture(errors, setup, teardown);
	tcase_add_test(core, test_sign_verify);
	tcase_add_test(core, test_bundle_verifies);
	tcase_add_test(core, test_chain_resume);
	tcase_add_test(errors, test_key_kept_and_refused);
	tcase_add_test(errors, test_bundle_one_byte_each_kind);
	tcase_add_test(errors, test_bundle_wrong_key_missing_extra);
	tcase_add_test(errors, test_bundle_paths);
	tcase_add_test(errors, test_chain_each_tamper);
	suite_add_tcase(s, core);
	suite_add_tcase(s, errors);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
