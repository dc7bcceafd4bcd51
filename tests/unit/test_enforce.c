/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Enforcement: the policy -> BPF map translation (enforce_tables_build) on fixture trees made
 * here (executables, a fake sysfs), the operations mask, the kill arming from rule actions.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "enforce/enforce.h"
#include "engine/engine.h"
#include "policy/policy.h"
#include "rules/rules.h"
#include "common/macro.h"

static char root[256];
static char warnings[8192];
static unsigned n_warnings;
static unsigned hash_calls;

#define NOW	    (1767225600ull * 1000000000ull) /* 2026-01-01T00:00:00Z */
#define OFFSET	    (1767225000ull * 1000000000ull) /* boot was 600 s before NOW */
#define SHA_OF_TOOL "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"

static void rm_rf(const char *path)
{
	struct stat st;
	DIR *d;
	struct dirent *de;
	char sub[1024];

	if (lstat(path, &st) < 0)
		return;
	if (S_ISDIR(st.st_mode) && (d = opendir(path))) {
		while ((de = readdir(d)))
			if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) {
				snprintf(sub, sizeof(sub), "%s/%s", path, de->d_name);
				rm_rf(sub);
			}
		closedir(d);
		rmdir(path);
	} else {
		unlink(path);
	}
}

static void setup(void)
{
	strcpy(root, "/tmp/rg-enforce-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(root));
	warnings[0] = 0;
	n_warnings = 0;
	hash_calls = 0;
}

static void teardown(void)
{
	rm_rf(root);
}

/* Creates root/path (and its directories) with text and mode. */
static void mkfile(const char *path, const char *text, mode_t mode)
{
	char full[1024], *p;
	int fd;

	snprintf(full, sizeof(full), "%s%s", root, path);
	for (p = full + strlen(root) + 1; (p = strchr(p, '/')); p++) {
		*p = 0;
		mkdir(full, 0755);
		*p = '/';
	}
	fd = open(full, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	ck_assert_int_eq(chmod(full, mode), 0);
}

static struct stat st_of(const char *path)
{
	char full[1024];
	struct stat st;

	snprintf(full, sizeof(full), "%s%s", root, path);
	ck_assert_int_eq(stat(full, &st), 0);
	return st;
}

static uint32_t kdev_of(const struct stat *st)
{
	return (uint32_t)(major(st->st_dev) << 20 | minor(st->st_dev));
}

static void warn_cb(void *ud, const char *text)
{
	size_t n = strlen(warnings);

	(void)ud;
	n_warnings++;
	snprintf(warnings + n, sizeof(warnings) - n, "%s\n", text);
}

/* Fake hash: SHA_OF_TOOL for files whose content starts with "tool", else zeros. */
static int fake_hash(void *ud, int fd, char out[65])
{
	char buf[8] = "";

	(void)ud;
	hash_calls++;
	if (pread(fd, buf, 4, 0) < 0)
		return -errno;
	memset(out, strncmp(buf, "tool", 4) == 0 ? 'a' : '0', 64);
	out[64] = 0;
	if (strncmp(buf, "fail", 4) == 0)
		return -EIO;
	return 0;
}

static struct rg_policy *parse(const char *text)
{
	struct rg_policy *p = NULL;
	struct rg_error err;
	char buf[1200];

	ck_assert_msg(policy_parse("p.json", text, strlen(text), &p, &err) == 0, "%s",
		      rg_error_format(&err, buf, sizeof(buf)));
	return p;
}

static void build(const char *text, struct enforce_tables *t, struct enforce_build_opts *o)
{
	struct rg_policy *p = parse(text);
	struct enforce_build_opts def = {.lsm = true};

	if (!o)
		o = &def;
	o->root = root;
	o->now_ns = NOW;
	o->boot_offset_ns = OFFSET;
	o->hash = fake_hash;
	o->warn = warn_cb;
	ck_assert_int_eq(enforce_tables_build(p, o, t), 0);
	policy_free(p);
}

static const struct enforce_entry *allow_of(const struct enforce_tables *t, const char *path)
{
	struct stat st = st_of(path);

	return enforce_tables_find(t, (uint64_t)st.st_ino, kdev_of(&st), RG_ENF_KEY_ALLOW);
}

START_TEST(test_literal_and_copy)
{
	struct enforce_tables t;
	const struct enforce_entry *e;
	struct stat st;
	char a[1024], b[1024];

	mkfile("/usr/bin/ibv_rc_pingpong", "pingpong", 0755);
	mkfile("/tmp/copy/ibv_rc_pingpong", "pingpong", 0755); /* a copy: same bytes, new inode */
	snprintf(a, sizeof(a), "%s/usr/bin/ibv_rc_pingpong", root);
	snprintf(b, sizeof(b), "%s/usr/bin/pingpong-link", root);
	ck_assert_int_eq(link(a, b), 0); /* a hard link IS the file */
	build("{\"enforce\": true, \"allow\": [{\"exe\": \"/usr/bin/ibv_rc_pingpong\"}]}", &t,
	      NULL);
	ck_assert_uint_eq(t.n_allow, 1);
	ck_assert_uint_eq(t.n_games, 0);
	ck_assert_uint_eq(t.unresolved, 0);
	e = allow_of(&t, "/usr/bin/ibv_rc_pingpong");
	ck_assert_ptr_nonnull(e);
	st = st_of("/usr/bin/ibv_rc_pingpong");
	ck_assert_uint_eq(e->key.ino, (uint64_t)st.st_ino);
	ck_assert_uint_eq(e->key.dev, kdev_of(&st));
	ck_assert_uint_eq(e->val.n, 1);
	ck_assert_uint_eq(e->val.v[0].ops, RG_ENF_OP_ALL);
	ck_assert_uint_eq(e->val.v[0].n_uids, 0);
	ck_assert_uint_eq(e->val.v[0].n_rdevs, 0);
	ck_assert_uint_eq(e->val.v[0].parent_ino, 0);
	ck_assert_uint_eq(e->val.v[0].expires_ns, 0);
	ck_assert_uint_eq(e->val.v[0].flags, 0);
	/* the copy has another inode: not allowed; the hard link is the same key */
	ck_assert_ptr_null(allow_of(&t, "/tmp/copy/ibv_rc_pingpong"));
	ck_assert_ptr_eq(allow_of(&t, "/usr/bin/pingpong-link"), e);
	ck_assert_uint_eq(hash_calls, 0);
	/* the config */
	ck_assert_uint_eq(t.cfg.abi, RG_ENF_ABI);
	ck_assert_uint_eq(t.cfg.enforce, 1);
	ck_assert_uint_eq(t.cfg.scope, RG_ENF_SCOPE_ALWAYS);
	ck_assert_uint_eq(t.cfg.lsm, 1);
	ck_assert_uint_eq(t.cfg.role, 0);
	ck_assert_uint_eq(t.cfg.rdma_cm_rdev, 0);
	enforce_tables_free(&t);
}
END_TEST

START_TEST(test_globs_and_games)
{
	struct enforce_tables t;
	const struct enforce_entry *g;
	struct stat st;

	mkfile("/usr/bin/ib_write_bw", "x", 0755);
	mkfile("/usr/bin/ib_read_bw", "x", 0755);
	mkfile("/usr/bin/sub/ib_send_bw", "x", 0755); /* '*' of an allow entry stops at '/' */
	mkfile("/usr/bin/other", "x", 0755);
	mkfile("/opt/arena/arena", "x", 0755);
	mkfile("/opt/arena/bin/arena-server", "x", 0750); /* a game's '*' crosses '/' */
	mkfile("/opt/arena/data/level1.pak", "x", 0644);  /* not executable: not a game file */
	build("{\"enforce_scope\": \"while_game\", \"role\": \"server\","
	      " \"allow\": [{\"exe\": \"/usr/bin/ib_*\"}],"
	      " \"games\": [{\"name\": \"Other\", \"exe\": \"/nonexistent/*\"},"
	      "             {\"name\": \"Arena\", \"exe\": [\"/opt/arena/*\"]}]}",
	      &t, NULL);
	ck_assert_uint_eq(t.n_allow, 2);
	ck_assert_ptr_nonnull(allow_of(&t, "/usr/bin/ib_write_bw"));
	ck_assert_ptr_nonnull(allow_of(&t, "/usr/bin/ib_read_bw"));
	ck_assert_ptr_null(allow_of(&t, "/usr/bin/sub/ib_send_bw"));
	ck_assert_ptr_null(allow_of(&t, "/usr/bin/other"));
	ck_assert_uint_eq(t.n_games, 2);
	st = st_of("/opt/arena/bin/arena-server");
	g = enforce_tables_find(&t, (uint64_t)st.st_ino, kdev_of(&st), RG_ENF_KEY_GAME);
	ck_assert_ptr_nonnull(g);
	ck_assert_uint_eq(g->val.game, 1); /* the policy's second game */
	st = st_of("/opt/arena/arena");
	ck_assert_ptr_nonnull(
	    enforce_tables_find(&t, (uint64_t)st.st_ino, kdev_of(&st), RG_ENF_KEY_GAME));
	st = st_of("/opt/arena/data/level1.pak");
	ck_assert_ptr_null(
	    enforce_tables_find(&t, (uint64_t)st.st_ino, kdev_of(&st), RG_ENF_KEY_GAME));
	ck_assert_uint_eq(t.cfg.scope, RG_ENF_SCOPE_WHILE_GAME);
	ck_assert_uint_eq(t.cfg.role, 1);
	enforce_tables_free(&t);
}
END_TEST

START_TEST(test_sha256)
{
	struct enforce_tables t;
	const struct enforce_entry *e;
	struct stat st;

	mkfile("/usr/bin/good", "tool v1", 0755);
	mkfile("/usr/bin/evil", "evil v1", 0755);
	build("{\"allow\": [{\"exe\": \"/usr/bin/good\", \"sha256\": \"" SHA_OF_TOOL "\"},\n"
	      "  {\"exe\": \"/usr/bin/evil\", \"sha256\": \"" SHA_OF_TOOL "\"}]}",
	      &t, NULL);
	ck_assert_uint_eq(hash_calls, 2);
	ck_assert_uint_eq(t.n_allow, 1);
	ck_assert_uint_eq(t.unresolved, 1);
	e = allow_of(&t, "/usr/bin/good");
	ck_assert_ptr_nonnull(e);
	st = st_of("/usr/bin/good");
	ck_assert_uint_eq(e->val.v[0].flags, RG_ENF_VF_CTIME);
	ck_assert_uint_eq(e->val.v[0].ctime_sec, (uint64_t)st.st_ctim.tv_sec);
	ck_assert_uint_eq(e->val.v[0].ctime_nsec, (uint32_t)st.st_ctim.tv_nsec);
	ck_assert_ptr_null(allow_of(&t, "/usr/bin/evil"));
	/* the warning says where the entry is and why */
	ck_assert_msg(strstr(warnings, "p.json:2:3: ") &&
			  strstr(warnings, "/usr/bin/evil: sha256 0000") &&
			  strstr(warnings, "denies it"),
		      "%s", warnings);
	enforce_tables_free(&t);

	/* a kernel whose inode ctime cannot be read: no ctime check */
	{
		struct enforce_build_opts o = {.no_ctime = true};

		build("{\"allow\": [{\"exe\": \"/usr/bin/good\", \"sha256\": \"" SHA_OF_TOOL
		      "\"}]}",
		      &t, &o);
		ck_assert_uint_eq(allow_of(&t, "/usr/bin/good")->val.v[0].flags, 0);
		enforce_tables_free(&t);
	}
}
END_TEST

START_TEST(test_constraints)
{
	struct enforce_tables t;
	const struct enforce_entry *e;
	struct stat st;
	uint32_t uverbs0 = 231u << 20 | 192, umad0 = 231u << 20 | 0;

	mkfile("/usr/bin/tool", "x", 0755);
	mkfile("/usr/bin/bash", "x", 0755);
	mkfile("/sys/class/infiniband_verbs/uverbs0/ibdev", "rxe0\n", 0644);
	mkfile("/sys/class/infiniband_verbs/uverbs0/dev", "231:192\n", 0644);
	mkfile("/sys/class/infiniband_verbs/uverbs1/ibdev", "mlx5_0\n", 0644);
	mkfile("/sys/class/infiniband_verbs/uverbs1/dev", "231:193\n", 0644);
	mkfile("/sys/class/infiniband_mad/umad0/ibdev", "rxe0\n", 0644);
	mkfile("/sys/class/infiniband_mad/umad0/dev", "231:0\n", 0644);
	mkfile("/sys/class/misc/rdma_cm/dev", "10:58\n", 0644);
	build("{\"allow\": [\n"
	      " {\"exe\": \"/usr/bin/tool\", \"uid\": [1,2,3,4,5,6,7,8,9,10], \"parent\": "
	      "\"/usr/bin/bash\","
	      "  \"devices\": [\"rxe0\"], \"operations\": [\"device_open\", \"query_device\"],"
	      "  \"expires\": \"2026-01-02T00:00:00Z\"},\n"
	      " {\"exe\": \"/usr/bin/tool\", \"devices\": [\"nosuchdev\"], \"operations\": "
	      "[\"reg_mr\"]}]}",
	      &t, NULL);
	ck_assert_uint_eq(t.cfg.rdma_cm_rdev, 10u << 20 | 58);
	ck_assert(t.has_devices);
	e = allow_of(&t, "/usr/bin/tool");
	ck_assert_ptr_nonnull(e);
	/* 10 uids: two variants of 8 and 2; then the second entry */
	ck_assert_uint_eq(e->val.n, 3);
	ck_assert_uint_eq(e->val.v[0].n_uids, 8);
	ck_assert_uint_eq(e->val.v[0].uids[0], 1);
	ck_assert_uint_eq(e->val.v[0].uids[7], 8);
	ck_assert_uint_eq(e->val.v[1].n_uids, 2);
	ck_assert_uint_eq(e->val.v[1].uids[1], 10);
	st = st_of("/usr/bin/bash");
	for (int i = 0; i < 2; i++) {
		const struct rg_enf_variant *v = &e->val.v[i];

		ck_assert_uint_eq(v->parent_ino, (uint64_t)st.st_ino);
		ck_assert_uint_eq(v->parent_dev, kdev_of(&st));
		ck_assert_uint_eq(v->ops, RG_ENF_OP_OPEN | RG_ENF_OP_VERBS);
		ck_assert_uint_eq(v->n_rdevs, 2);
		ck_assert(v->rdevs[0] == uverbs0 || v->rdevs[1] == uverbs0);
		ck_assert(v->rdevs[0] == umad0 || v->rdevs[1] == umad0);
		/* boot time of the expiry: 2026-01-02 is 86400 s after NOW, 87000 after boot */
		ck_assert_uint_eq(v->expires_ns, 87000ull * 1000000000ull);
	}
	ck_assert_uint_eq(t.next_expiry_ns, NOW + 86400ull * 1000000000ull);
	/* a device that does not exist: only device-less nodes (rdma_cm) pass */
	ck_assert_uint_eq(e->val.v[2].ops, RG_ENF_OP_REG_MR);
	ck_assert_uint_eq(e->val.v[2].n_rdevs, 1);
	ck_assert_uint_eq(e->val.v[2].rdevs[0], 0xffffffffu);
	ck_assert_uint_eq(e->val.v[2].parent_ino, 0);
	enforce_tables_free(&t);
}
END_TEST

static uint32_t ops_of(const char *ops)
{
	char text[512];
	struct rg_policy *p;
	uint32_t m;

	snprintf(text, sizeof(text), "{\"allow\": [{\"exe\": \"/x\"%s%s%s}]}",
		 ops ? ", \"operations\": [" : "", ops ? ops : "", ops ? "]" : "");
	p = parse(text);
	m = enforce_ops_mask(&p->allow[0]);
	policy_free(p);
	return m;
}

START_TEST(test_ops_mask)
{
	ck_assert_uint_eq(ops_of(NULL), RG_ENF_OP_ALL);
	ck_assert_uint_eq(ops_of("\"device_open\""), RG_ENF_OP_OPEN);
	ck_assert_uint_eq(ops_of("\"verbs\""), RG_ENF_OP_ALL_VERBS);
	ck_assert_uint_eq(ops_of("\"rdma_cm\""), RG_ENF_OP_ALL_CM);
	ck_assert_uint_eq(ops_of("\"reg_mr\", \"create_qp\""),
			  RG_ENF_OP_REG_MR | RG_ENF_OP_CREATE_QP);
	ck_assert_uint_eq(ops_of("\"rereg_mr\", \"reg_dmabuf_mr\", \"open_qp\""),
			  RG_ENF_OP_REREG_MR | RG_ENF_OP_REG_DMABUF_MR | RG_ENF_OP_OPEN_QP);
	ck_assert_uint_eq(ops_of("\"get_context\", \"modify_qp\", \"mmap\""), RG_ENF_OP_VERBS);
	ck_assert_uint_eq(ops_of("\"connect\", \"resolve_addr\""),
			  RG_ENF_OP_CM_CONNECT | RG_ENF_OP_CM);
	ck_assert_uint_eq(ops_of("\"listen\", \"accept\""),
			  RG_ENF_OP_CM_LISTEN | RG_ENF_OP_CM_ACCEPT);
	ck_assert_uint_eq(ops_of("\"library_load\", \"module_load\", \"device_add\""),
			  RG_ENF_OP_LIBRARY | RG_ENF_OP_MODULE | RG_ENF_OP_LINK);
	/* actions the kernel does not decide on grant nothing there */
	ck_assert_uint_eq(ops_of("\"memory_access\", \"exec\""), 0);
}
END_TEST

START_TEST(test_kill_mask)
{
	const char *src = getenv("RG_SOURCE_ROOT");
	char dir[1024];
	struct rg_ruleset *rs = NULL;
	struct rg_error err;
	struct rg_engine *e = NULL;
	struct rg_policy *p;
	size_t unarmed = 99;
	uint32_t m;

	ck_assert_ptr_nonnull(src);
	snprintf(dir, sizeof(dir), "%s/rules", src);
	ck_assert_int_eq(rules_load_dir(dir, false, &rs, &err), 0);
	p = parse("{\"rules\": {\"RDMA-004\": {\"action\": \"kill\"}, \"RDMA-006\": {\"action\": "
		  "\"kill\"}, \"RDMA-007\": {\"action\": \"kill\", \"enabled\": false},"
		  " \"RDMA-003\": {\"action\": \"kill\"}, \"RDMA-005\": {\"action\": \"deny\"}}}");
	ck_assert_int_eq(engine_new(p, rs, NULL, &e, &err), 0);
	m = enforce_kill_mask(e, &unarmed, warn_cb, NULL);
	ck_assert_uint_eq(m, RG_ENF_KILL_OPEN | RG_ENF_KILL_GAME_ANY);
	ck_assert_uint_eq(unarmed, 1);
	ck_assert_msg(strstr(warnings, "rule RDMA-003: action kill has no trigger in the kernel"),
		      "%s", warnings);
	engine_free(e);
}
END_TEST

START_TEST(test_parse_devt)
{
	ck_assert_uint_eq(enforce_parse_devt("231:192"), 231u << 20 | 192);
	ck_assert_uint_eq(enforce_parse_devt("10:58"), 10u << 20 | 58);
	ck_assert_uint_eq(enforce_parse_devt("4095:1048575"), 4095u << 20 | 1048575);
	ck_assert_uint_eq(enforce_parse_devt("4096:1"), 0);
	ck_assert_uint_eq(enforce_parse_devt("1:1048576"), 0);
	ck_assert_uint_eq(enforce_parse_devt("231:192x"), 0);
	ck_assert_uint_eq(enforce_parse_devt("garbage"), 0);
	ck_assert_uint_eq(enforce_parse_devt(""), 0);
	ck_assert_uint_eq(enforce_parse_devt(NULL), 0);
}
END_TEST

/* ---- limits ---- */

START_TEST(test_variant_cap)
{
	struct enforce_tables t;
	const struct enforce_entry *e;

	mkfile("/usr/bin/tool", "x", 0755);
	for (int i = 0; i < 3; i++) {
		char p[64];

		snprintf(p, sizeof(p), "/usr/sbin/parent%d", i);
		mkfile(p, "x", 0755);
	}
	/* three entries with three parents each: 9 variants, 8 fit */
	build("{\"allow\": [{\"exe\": \"/usr/bin/tool\", \"parent\": \"/usr/sbin/parent*\"},"
	      " {\"exe\": \"/usr/bin/tool\", \"parent\": \"/usr/sbin/parent*\", \"uid\": 0},"
	      " {\"exe\": \"/usr/bin/tool\", \"parent\": \"/usr/sbin/parent*\", \"uid\": 1}]}",
	      &t, NULL);
	e = allow_of(&t, "/usr/bin/tool");
	ck_assert_uint_eq(e->val.n, RG_ENF_VARIANTS);
	ck_assert_uint_eq(t.unresolved, 1);
	ck_assert_msg(strstr(warnings, "more than 8 ways to allow it"), "%s", warnings);
	enforce_tables_free(&t);
}
END_TEST

START_TEST(test_file_cap)
{
	struct enforce_tables t;

	for (int i = 0; i < ENFORCE_MAX_FILES + 6; i++) {
		char p[64];

		snprintf(p, sizeof(p), "/opt/many/tool%04d", i);
		mkfile(p, "x", 0755);
	}
	build("{\"allow\": [{\"exe\": \"/opt/many/tool*\"}]}", &t, NULL);
	ck_assert_uint_eq(t.n_allow, ENFORCE_MAX_FILES);
	/* version order: the first 1024 names are the ones kept */
	ck_assert_ptr_nonnull(allow_of(&t, "/opt/many/tool1023"));
	ck_assert_ptr_null(allow_of(&t, "/opt/many/tool1024"));
	ck_assert_msg(strstr(warnings, "matches more than 1024 files"), "%s", warnings);
	enforce_tables_free(&t);
}
END_TEST

START_TEST(test_expired)
{
	struct enforce_tables t;

	mkfile("/usr/bin/tool", "x", 0755);
	build("{\"allow\": [{\"exe\": \"/usr/bin/tool\", \"expires\": \"2025-12-31\"}]}", &t, NULL);
	ck_assert_uint_eq(t.n_allow, 0);
	ck_assert_uint_eq(t.next_expiry_ns, 0);
	ck_assert_msg(strstr(warnings, "expired"), "%s", warnings);
	enforce_tables_free(&t);
}
END_TEST

/* ---- errors ---- */

START_TEST(test_unresolvable)
{
	struct enforce_tables t;
	const struct enforce_entry *e;
	char target[1024], link_path[1024];

	mkfile("/usr/bin/real", "x", 0755);
	mkfile("/usr/bin/broken", "fail", 0755);
	mkfile("/usr/lib/dir/file", "x", 0644);
	snprintf(target, sizeof(target), "%s/usr/bin/real", root);
	snprintf(link_path, sizeof(link_path), "%s/usr/bin/alias", root);
	ck_assert_int_eq(symlink("/usr/bin/real", link_path), 0); /* resolved inside the root */
	build("{\"allow\": [{\"exe\": \"/usr/bin/missing\"},\n"
	      " {\"exe\": \"/usr/lib/dir\"},\n"
	      " {\"exe\": \"/usr/bin/alias\"},\n"
	      " {\"exe\": \"/usr/bin/real\", \"parent\": \"/nonexistent\"},\n"
	      " {\"exe\": \"/usr/bin/broken\", \"sha256\": \"" SHA_OF_TOOL "\"}]}",
	      &t, NULL);
	/* only the symlink's target is allowed, through the link */
	ck_assert_uint_eq(t.n_allow, 1);
	e = allow_of(&t, "/usr/bin/real");
	ck_assert_ptr_nonnull(e);
	ck_assert_uint_eq(e->val.n, 1);
	ck_assert_uint_eq(e->val.v[0].parent_ino, 0);
	ck_assert_uint_eq(t.unresolved, 4);
	ck_assert_msg(strstr(warnings, "p.json:1:12: /usr/bin/missing names no file") &&
			  strstr(warnings, "p.json:2:2: /usr/lib/dir names no file") &&
			  strstr(warnings, "parent /nonexistent names no file") &&
			  strstr(warnings, "/usr/bin/broken: cannot hash it"),
		      "%s", warnings);
	enforce_tables_free(&t);
}
END_TEST

static Suite *enforce_suite(void)
{
	Suite *s = suite_create("enforce");
	TCase *core = tcase_create("core"), *limits = tcase_create("limits"),
	      *errors = tcase_create("errors");

	tcase_add_checked_fixture(core, setup, teardown);
	tcase_add_checked_fixture(limits, setup, teardown);
	tcase_add_checked_fixture(errors, setup, teardown);
	tcase_add_test(core, test_literal_and_copy);
	tcase_add_test(core, test_globs_and_games);
	tcase_add_test(core, test_sha256);
	tcase_add_test(core, test_constraints);
	tcase_add_test(core, test_ops_mask);
	tcase_add_test(core, test_kill_mask);
	tcase_add_test(core, test_parse_devt);
	tcase_add_test(limits, test_variant_cap);
	tcase_add_test(limits, test_file_cap);
	tcase_add_test(limits, test_expired);
	tcase_add_test(errors, test_unresolvable);
	suite_add_tcase(s, core);
	suite_add_tcase(s, limits);
	suite_add_tcase(s, errors);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(enforce_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
