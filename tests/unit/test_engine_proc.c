/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The engine's view of a process's executable (agent/engine/engine_proc.c): which paths an allow,
 * parent or game pattern may match at all (truncated tails, chroots and other
 * mount namespaces as the sensors and the inventory flag them, files a glob did not name at load),
 * and its sha256 (off the event thread, cached by ctime); games pinned to the files their
 * patterns name, whatever namespace runs them; the exe flags an alert carries.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/macro.h"
#include "common/root.h"
#include "common/sha256.h"
#include "engine/engine.h"
#include "inventory/procs.h"

#define SEC  1000000000ull
#define T0   (1767225600ull * SEC) /* 2026-01-01T00:00:00Z */
#define BOOT (T0 - 1000 * SEC)

static size_t n_alerts;
static char last_alert[8192];
static char rules_seen[1024]; /* "RDMA-006 RDMA-008 ..." of the alerts since it was cleared */

static int collect(const struct rg_alert *a, void *ud)
{
	(void)ud;
	n_alerts++;
	snprintf(last_alert, sizeof(last_alert), "%s", a->json);
	if (strlen(rules_seen) + strlen(a->rule_id) + 2 < sizeof(rules_seen)) {
		strcat(rules_seen, a->rule_id);
		strcat(rules_seen, " ");
	}
	return 0;
}

static const char allowed_rule[] =
	"{\"id\": \"ALLOWED\", \"name\": \"allowed?\", \"severity\": \"low\","
	" \"condition\": \"event.action in (verbs, rdma_cm, device_open) and not process.allowed\","
	" \"aggregate\": false}";

static struct rg_engine *engine_for(const char *pol, bool pin, bool live)
{
	struct engine_config cfg = {.hostname = "h", .boot_id = "b", .boot_realtime_ns = BOOT,
				    .hash_live = live};
	struct rg_policy *p;
	struct rg_ruleset *rs;
	struct rg_engine *e;
	struct rg_error err;
	char buf[1200];

	ck_assert_msg(policy_parse("p.json", pol, strlen(pol), &p, &err) == 0, "%s",
		      rg_error_format(&err, buf, sizeof(buf)));
	if (pin)
		ck_assert_int_ge(policy_resolve_inodes(p, NULL), p->n_allow ? 1 : 0);
	ck_assert_int_eq(ruleset_new(&rs), 0);
	ck_assert_int_eq(rules_parse(rs, "r.json", allowed_rule, strlen(allowed_rule), &err), 0);
	ck_assert_int_eq(engine_new(p, rs, &cfg, &e, &err), 0);
	return e;
}

static struct rg_event ev_exec(uint32_t pid, uint32_t ppid, const char *exe, uint64_t ino,
			       uint64_t dev)
{
	struct rg_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.type = RG_EV_EXEC;
	ev.ts = T0;
	ev.proc.pid = ev.proc.tid = pid;
	ev.proc.ppid = ppid;
	ev.proc.uid = 1000;
	ev.proc.start_boot_ns = pid * SEC;
	ev.u.exec.parent_start_boot_ns = ppid * SEC;
	ev.u.exec.exe_ino = ino;
	ev.u.exec.exe_dev = dev;
	strcpy(ev.u.exec.exe, exe);
	return ev;
}

/* Feeds the exec, then a device_open of the same process: whether it alerts (not allowed). */
static bool open_alerts(struct rg_engine *e, struct rg_event *exec)
{
	struct rg_event ev = *exec;
	size_t before;

	ck_assert_int_eq(engine_process(e, exec, collect, NULL), 0);
	memset(&ev.u, 0, sizeof(ev.u));
	ev.type = RG_EV_DEVICE_OPEN;
	before = n_alerts;
	ck_assert_int_eq(engine_process(e, &ev, collect, NULL), 0);
	return n_alerts > before;
}

/*
 * A path the sensors cut to its tail (~/<240 chars>/opt/tools/cheat arrives as
 * /opt/tools/cheat, flagged) matches no allow, parent or game pattern; the same path whole does.
 */
START_TEST(test_truncated_path)
{
	static const char pol[] =
		"{\"games\": [{\"name\": \"Arena\", \"exe\": \"/opt/arena/*\"}],"
		" \"allow\": [{\"exe\": \"/opt/tools/*\"},"
		"  {\"exe\": \"/usr/bin/probe\", \"parent\": \"/usr/sbin/cron\"}]}";
	struct rg_engine *e = engine_for(pol, false, false);
	struct engine_stats st;
	struct rg_event ev;

	ev = ev_exec(100, 1, "/opt/tools/cheat", 0, 0);
	ck_assert(!open_alerts(e, &ev));
	ev = ev_exec(101, 1, "/opt/tools/cheat", 0, 0);
	ev.u.exec.exe_flags = RG_EXE_TRUNC;
	ck_assert(open_alerts(e, &ev));
	/* its fork inherits the image, and the flag */
	ev = ev_exec(102, 101, "", 0, 0);
	ev.type = RG_EV_FORK;
	ev.u.fork.parent_start_boot_ns = 101 * SEC;
	ck_assert(open_alerts(e, &ev));

	/* parent */
	ev = ev_exec(200, 1, "/usr/sbin/cron", 0, 0);
	ev.u.exec.exe_flags = RG_EXE_TRUNC;
	ck_assert_int_eq(engine_process(e, &ev, collect, NULL), 0);
	ev = ev_exec(201, 200, "/usr/bin/probe", 0, 0);
	ck_assert(open_alerts(e, &ev));
	ev = ev_exec(202, 1, "/usr/sbin/cron", 0, 0);
	ck_assert_int_eq(engine_process(e, &ev, collect, NULL), 0);
	ev = ev_exec(203, 202, "/usr/bin/probe", 0, 0);
	ck_assert(!open_alerts(e, &ev));

	/* game */
	ev = ev_exec(300, 1, "/opt/arena/bin/arena", 0, 0);
	ev.u.exec.exe_flags = RG_EXE_TRUNC;
	ck_assert_int_eq(engine_process(e, &ev, collect, NULL), 0);
	engine_get_stats(e, &st);
	ck_assert_uint_eq(st.games_running, 0);
	ev = ev_exec(301, 1, "/opt/arena/bin/arena", 0, 0);
	ck_assert_int_eq(engine_process(e, &ev, collect, NULL), 0);
	engine_get_stats(e, &st);
	ck_assert_uint_eq(st.games_running, 1);
	engine_free(e);
}
END_TEST

/* Waits until pid runs path (until then /proc/PID/exe is ours). */
static pid_t wait_exe(pid_t pid, const char *path)
{
	for (int i = 0; i < 10000; i++) {
		char buf[512];
		char link[64];
		ssize_t n;

		snprintf(link, sizeof(link), "/proc/%d/exe", (int)pid);
		n = readlink(link, buf, sizeof(buf) - 1);
		if (n > 0) {
			buf[n] = 0;
			if (strcmp(buf, path) == 0)
				return pid;
		}
		usleep(1000);
	}
	ck_abort_msg("%s did not start", path);
	return -1;
}

static pid_t spawn_exe(const char *path)
{
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		execl(path, path, "1000", (char *)NULL);
		_exit(127);
	}
	return wait_exe(pid, path);
}

static void reap(pid_t pid)
{
	int status;

	kill(pid, SIGKILL);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
}

static void file_sha(const char *path, char out[65])
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(sha256_fd(fd, 1ull << 30, out), 0);
	close(fd);
}

/* A copy of sleep(1) in a directory of its own: path written to buf. */
static void copy_sleep(char *dir, char *path, size_t size)
{
	char cmd[600];

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, size, "%s/tool", dir);
	snprintf(cmd, sizeof(cmd), "cp /bin/sleep %s", path);
	ck_assert_int_eq(system(cmd), 0);
}

/*
 * A copy of sleep(1) at dir/tool (dir a mkdtemp() template; path gets 256 bytes) and an engine
 * whose policy, pinned, allows dir/to* or (game) has the game Arena: every file below dir.
 */
static struct rg_engine *engine_on_copy(char *dir, char *path, struct stat *st, bool game)
{
	char pol[600];

	copy_sleep(dir, path, 256);
	ck_assert_int_eq(stat(path, st), 0);
	if (game)
		snprintf(pol, sizeof(pol), "{\"games\": [{\"name\": \"Arena\", \"exe\": \"%s/*\"}]}",
			 dir);
	else
		snprintf(pol, sizeof(pol), "{\"allow\": [{\"exe\": \"%s/to*\"}]}", dir);
	return engine_for(pol, true, false);
}

/* A child that moves to a mount namespace of its own, then runs path. */
static pid_t spawn_in_own_mntns(const char *path)
{
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		/* as root; as a user, inside a user namespace of its own */
		if (unshare(CLONE_NEWNS) < 0 && unshare(CLONE_NEWUSER | CLONE_NEWNS) < 0)
			_exit(1);
		execl(path, path, "1000", (char *)NULL);
		_exit(127);
	}
	return wait_exe(pid, path);
}

/* What the inventory seeds the engine with for pid: its PROCESS_PRESENT event. */
static struct rg_event seed_event(pid_t pid)
{
	struct rg_root root = {.fd = -1};
	struct proc_info pi;
	struct rg_event ev;

	ck_assert_int_eq(root_init(&root, NULL), 0);
	ck_assert_int_eq(procs_read_one(&root, (uint32_t)pid, 0, &pi), 0);
	proc_info_to_event(&pi, &ev);
	proc_info_done(&pi);
	root_done(&root);
	ev.ts = T0;
	return ev;
}

/*
 * A glob allow entry matches only the files it named when the policy loaded: a file at a
 * matching path with another inode does not. And a process whose root or mount namespace is not
 * init's (a chroot, a user namespace's bind mounts can show any path) matches no pattern: a copy
 * of sleep(1) the glob names, seeded by the inventory, is allowed; the same file run in a mount
 * namespace of its own is not, and an exec the sensors flag so is not either.
 */
START_TEST(test_glob_pinned_and_namespaces)
{
	char dir[] = "/tmp/rg-glob-XXXXXX", path[256];
	struct stat st;
	struct rg_engine *e = engine_on_copy(dir, path, &st, false);
	struct rg_event ev;
	pid_t pid;

	/* the file the glob named, run in init's namespace (or ours, without the right to look at
	 * init's), as the inventory seeds it */
	pid = spawn_exe(path);
	ev = seed_event(pid);
	ck_assert_str_eq(ev.u.exec.exe, path);
	ck_assert_uint_eq(ev.u.exec.exe_flags, 0);
	ck_assert(!open_alerts(e, &ev));
	reap(pid);
	/* a file at a matching path that was not there at load: another inode */
	ev = ev_exec(77777, 1, path, st.st_ino + 1, st.st_dev);
	ck_assert(open_alerts(e, &ev));
	/* the right file, but exec'd in a chroot or another mount namespace (the sensors' flag) */
	ev = ev_exec(77778, 1, path, st.st_ino, st.st_dev);
	ck_assert(!open_alerts(e, &ev));
	ev = ev_exec(77779, 1, path, st.st_ino, st.st_dev);
	ev.u.exec.exe_flags = RG_EXE_FOREIGN;
	ck_assert(open_alerts(e, &ev));
	/* the same file run in a mount namespace of its own, as the inventory seeds it */
	pid = spawn_in_own_mntns(path);
	ev = seed_event(pid);
	ck_assert_str_eq(ev.u.exec.exe, path);
	ck_assert_uint_eq(ev.u.exec.exe_ino, st.st_ino);
	ck_assert_uint_eq(ev.u.exec.exe_flags, RG_EXE_FOREIGN);
	ck_assert(open_alerts(e, &ev));
	reap(pid);
	engine_free(e);
	unlink(path);
	rmdir(dir);
}
END_TEST

/*
 * Issue 25 item 5: the hash cache is keyed on ctime. A tool allowed by sha256 is changed in place
 * (same size) and its mtime set back, as a user can: the next run is hashed again and no longer
 * allowed (the old cache, keyed on mtime, kept the old hash).
 */
START_TEST(test_hash_cache_ctime)
{
	char dir[] = "/tmp/rg-hash-XXXXXX", path[256], sha[65], pol[600];
	struct rg_engine *e;
	struct rg_event ev;
	struct stat st;
	struct timespec times[2];
	pid_t pid;
	int fd;
	unsigned char c;

	copy_sleep(dir, path, sizeof(path));
	file_sha(path, sha);
	snprintf(pol, sizeof(pol), "{\"allow\": [{\"exe\": \"%s\", \"sha256\": \"%s\"}]}", path,
		 sha);
	e = engine_for(pol, true, true);
	pid = spawn_exe(path);
	ev = seed_event(pid);
	ck_assert(!open_alerts(e, &ev));
	reap(pid);

	ck_assert_int_eq(stat(path, &st), 0);
	fd = open(path, O_RDWR | O_CLOEXEC);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(pread(fd, &c, 1, st.st_size - 1), 1);
	c ^= 0xff;
	ck_assert_int_eq(pwrite(fd, &c, 1, st.st_size - 1), 1);
	close(fd);
	times[0] = st.st_atim;
	times[1] = st.st_mtim;
	ck_assert_int_eq(utimensat(AT_FDCWD, path, times, 0), 0);

	pid = spawn_exe(path);
	ev = seed_event(pid);
	ck_assert(open_alerts(e, &ev));
	reap(pid);
	engine_free(e);
	unlink(path);
	rmdir(dir);
}
END_TEST

/*
 * Hashing off the event thread: a game named by sha256 is recognised once the worker has read
 * its file (engine_hash_fd() readable, engine_hash_done()), not on the thread that feeds events.
 */
START_TEST(test_hash_async_game)
{
	char dir[] = "/tmp/rg-hash-XXXXXX", path[256], sha[65], pol[600];
	struct engine_config cfg = {.hostname = "h", .boot_id = "b", .boot_realtime_ns = BOOT,
				    .hash_live = true, .hash_async = true};
	struct rg_policy *p;
	struct rg_ruleset *rs;
	struct rg_engine *e;
	struct rg_error err;
	struct engine_stats st;
	struct pollfd pfd;
	struct rg_event ev;
	pid_t pid;

	copy_sleep(dir, path, sizeof(path));
	file_sha(path, sha);
	snprintf(pol, sizeof(pol), "{\"games\": [{\"name\": \"G\", \"sha256\": \"%s\"}]}", sha);
	ck_assert_int_eq(policy_parse("p.json", pol, strlen(pol), &p, &err), 0);
	ck_assert_int_eq(ruleset_new(&rs), 0);
	ck_assert_int_eq(rules_parse(rs, "r.json", allowed_rule, strlen(allowed_rule), &err), 0);
	ck_assert_int_eq(engine_new(p, rs, &cfg, &e, &err), 0);
	ck_assert_int_ge(engine_hash_fd(e), 0);

	pid = spawn_exe(path);
	ev = seed_event(pid);
	ck_assert_int_eq(engine_process(e, &ev, collect, NULL), 0);
	engine_get_stats(e, &st);
	ck_assert_uint_eq(st.hash.queued, 1);
	ck_assert_uint_eq(st.games_running, 0);
	/* its next event asks again: still one request */
	ck_assert_int_eq(engine_process(e, &ev, collect, NULL), 0);
	pfd.fd = engine_hash_fd(e);
	pfd.events = POLLIN;
	ck_assert_int_eq(poll(&pfd, 1, 60000), 1);
	engine_hash_done(e);
	engine_get_stats(e, &st);
	ck_assert_uint_eq(st.hash.queued, 1);
	ck_assert_uint_eq(st.hash.hashed, 1);
	ck_assert_uint_eq(st.games_running, 1);
	reap(pid);
	engine_free(e);
	unlink(path);
	rmdir(dir);
}
END_TEST

/* games_running after exec (an EXEC event fed to e). */
static size_t games_after(struct rg_engine *e, struct rg_event *exec)
{
	struct engine_stats st;

	ck_assert_int_eq(engine_process(e, exec, collect, NULL), 0);
	engine_get_stats(e, &st);
	return st.games_running;
}

static void exit_of(struct rg_engine *e, const struct rg_event *exec)
{
	struct rg_event ev = *exec;

	memset(&ev.u, 0, sizeof(ev.u));
	ev.type = RG_EV_EXIT;
	ck_assert_int_eq(engine_process(e, &ev, collect, NULL), 0);
}

/*
 * A game pattern is pinned, at load, to the executable files it names (as enforcement's game
 * table is): a process running one of them is the game whatever path, root or mount namespace it
 * shows (a bubblewrap container, unshare -m: flagged foreign, or a cut path), as the sensors and
 * the inventory report it; another file at a path the pattern matches, seen from a container,
 * is not. Red before: the foreign or cut path matched no game pattern, and nothing else did.
 */
START_TEST(test_game_pinned_any_namespace)
{
	char dir[] = "/tmp/rg-game-XXXXXX", path[256];
	struct stat st;
	struct rg_engine *e = engine_on_copy(dir, path, &st, true);
	struct rg_event ev;
	pid_t pid;
	ck_assert_uint_eq(engine_policy(e)->games[0].files.n, 1);

	/* the game's file in a container whose root has it at another path */
	ev = ev_exec(400, 1, "/run/game/tool", st.st_ino, st.st_dev);
	ev.u.exec.exe_flags = RG_EXE_FOREIGN;
	ck_assert_uint_eq(games_after(e, &ev), 1);
	exit_of(e, &ev);
	/* at its own path, in a mount namespace of its own */
	ev = ev_exec(401, 1, path, st.st_ino, st.st_dev);
	ev.u.exec.exe_flags = RG_EXE_FOREIGN;
	ck_assert_uint_eq(games_after(e, &ev), 1);
	exit_of(e, &ev);
	/* a cut path */
	ev = ev_exec(402, 1, "/tool", st.st_ino, st.st_dev);
	ev.u.exec.exe_flags = RG_EXE_TRUNC;
	ck_assert_uint_eq(games_after(e, &ev), 1);
	exit_of(e, &ev);
	/* another file at the game's path, in a container: not the game */
	ev = ev_exec(403, 1, path, st.st_ino + 1, st.st_dev);
	ev.u.exec.exe_flags = RG_EXE_FOREIGN;
	ck_assert_uint_eq(games_after(e, &ev), 0);
	exit_of(e, &ev);
	/* the real thing, run in a mount namespace of its own, as the inventory seeds it */
	pid = spawn_in_own_mntns(path);
	ev = seed_event(pid);
	ck_assert_uint_eq(ev.u.exec.exe_flags, RG_EXE_FOREIGN);
	ck_assert_uint_eq(games_after(e, &ev), 1);
	reap(pid);
	engine_free(e);
	unlink(path);
	rmdir(dir);
}
END_TEST

/*
 * The game's files are pinned again at a reload: one installed after the first load is the game
 * in a container once the policy is reloaded (policy_resolve_inodes() on the new policy).
 */
START_TEST(test_game_pins_follow_files)
{
	char dir[] = "/tmp/rg-game-XXXXXX", path[256], path2[300], pol[600], cmd[700];
	struct rg_policy *p;
	struct rg_error err;
	struct stat st;

	copy_sleep(dir, path, sizeof(path));
	snprintf(pol, sizeof(pol), "{\"games\": [{\"name\": \"Arena\", \"exe\": \"%s/*\"}]}", dir);
	ck_assert_int_eq(policy_parse("p.json", pol, strlen(pol), &p, &err), 0);
	ck_assert_int_ge(policy_resolve_inodes(p, NULL), 0);
	ck_assert_uint_eq(p->games[0].files.n, 1);
	/* not executable: not a game file (as enforcement's table) */
	snprintf(path2, sizeof(path2), "%s/readme", dir);
	snprintf(cmd, sizeof(cmd), "echo x >%s && cp %s %s/bin2", path2, path, dir);
	ck_assert_int_eq(system(cmd), 0);
	ck_assert_int_ge(policy_resolve_inodes(p, NULL), 0);
	ck_assert_uint_eq(p->games[0].files.n, 2);
	snprintf(path2, sizeof(path2), "%s/bin2", dir);
	ck_assert_int_eq(stat(path2, &st), 0);
	ck_assert(glob_files_has(&p->games[0].files, st.st_ino, st.st_dev));
	policy_free(p);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	ck_assert_int_eq(system(cmd), 0);
}
END_TEST

/*
 * An alert says when the path it names is not what the kernel resolved from init's root: a cut
 * tail (process.exe_truncated) or another root or mount namespace (process.exe_foreign_root),
 * on every event of the process, not only its exec; and a condition can ask. Red before: the
 * alert on the cut path said /opt/tools/cheat and nothing else.
 */
START_TEST(test_exe_flags_in_alerts)
{
	struct rg_engine *e = engine_for("{}", false, false);
	struct rg_event ev;

	ev = ev_exec(500, 1, "/opt/tools/cheat", 0, 0);
	ev.u.exec.exe_flags = RG_EXE_TRUNC;
	ck_assert(open_alerts(e, &ev));
	ck_assert_msg(strstr(last_alert, "\"executable\":\"/opt/tools/cheat\""), "%s", last_alert);
	ck_assert_msg(strstr(last_alert, "\"exe_truncated\":true"), "%s", last_alert);
	ck_assert_msg(!strstr(last_alert, "exe_foreign_root"), "%s", last_alert);

	ev = ev_exec(501, 1, "/opt/tools/cheat", 0, 0);
	ev.u.exec.exe_flags = RG_EXE_FOREIGN;
	ck_assert(open_alerts(e, &ev));
	ck_assert_msg(strstr(last_alert, "\"exe_foreign_root\":true"), "%s", last_alert);
	ck_assert_msg(!strstr(last_alert, "exe_truncated"), "%s", last_alert);

	/* its fork inherits both */
	ev = ev_exec(502, 501, "", 0, 0);
	ev.type = RG_EV_FORK;
	ev.u.fork.parent_start_boot_ns = 501 * SEC;
	ck_assert(open_alerts(e, &ev));
	ck_assert_msg(strstr(last_alert, "\"exe_foreign_root\":true"), "%s", last_alert);

	ev = ev_exec(503, 1, "/opt/tools/cheat", 0, 0);
	ck_assert(open_alerts(e, &ev));
	ck_assert_msg(!strstr(last_alert, "exe_truncated") && !strstr(last_alert, "exe_foreign"),
		      "%s", last_alert);
	engine_free(e);
}
END_TEST

/*
 * The game rules with the game in a container: the shipped rules, the game known by the inode
 * its pattern named at load while it shows a foreign path. Another process's RDMA during it is
 * RDMA-006, its read of the game's memory RDMA-008, a Thunderbolt device authorised meanwhile
 * DMA-007, and the game's start is what the refusal of RDMA drivers waits for
 * (engine_game_since()). Red before: none of them, the game was not one.
 */
START_TEST(test_container_game_rules)
{
	char dir[] = "/tmp/rg-game-XXXXXX", path[256], pol[600], rdir[512];
	struct engine_config cfg = {.hostname = "h", .boot_id = "b", .boot_realtime_ns = BOOT};
	const char *root = getenv("RG_SOURCE_ROOT");
	struct rg_policy *p;
	struct rg_ruleset *rs;
	struct rg_engine *e;
	struct rg_error err;
	struct rg_event ev, game;
	struct stat st;

	ck_assert_ptr_nonnull(root);
	copy_sleep(dir, path, sizeof(path));
	ck_assert_int_eq(stat(path, &st), 0);
	snprintf(pol, sizeof(pol), "{\"games\": [{\"name\": \"Arena\", \"exe\": \"%s/*\"}]}", dir);
	snprintf(rdir, sizeof(rdir), "%s/rules", root);
	ck_assert_int_eq(policy_parse("p.json", pol, strlen(pol), &p, &err), 0);
	ck_assert_int_ge(policy_resolve_inodes(p, NULL), 0);
	ck_assert_int_eq(rules_load_dir(rdir, false, &rs, &err), 0);
	ck_assert_int_eq(engine_new(p, rs, &cfg, &e, &err), 0);
	ck_assert_uint_eq(engine_game_since(e), 0);

	/* the game as bubblewrap shows it */
	game = ev_exec(700, 1, "/run/game/tool", st.st_ino, st.st_dev);
	game.u.exec.exe_flags = RG_EXE_FOREIGN;
	ck_assert_uint_eq(games_after(e, &game), 1);
	ck_assert_uint_ne(engine_game_since(e), 0);

	/* the cheat: opens uverbs, then reads the game's memory */
	rules_seen[0] = 0;
	ev = ev_exec(701, 1, "/opt/tools/cheat", 0, 0);
	ck_assert(open_alerts(e, &ev));
	ck_assert_msg(strstr(rules_seen, "RDMA-006"), "%s", rules_seen);
	memset(&ev.u, 0, sizeof(ev.u));
	ev.type = RG_EV_MEMORY_ACCESS;
	ev.u.mem.op = RG_MEM_PROCESS_VM_READV;
	ev.u.mem.target_pid = 700;
	ev.u.mem.target_start_boot_ns = 700 * SEC;
	ev.u.mem.bytes = 4096;
	ck_assert_int_eq(engine_process(e, &ev, collect, NULL), 0);
	ck_assert_msg(strstr(rules_seen, "RDMA-008"), "%s", rules_seen);

	/* a Thunderbolt device authorised during the game */
	memset(&ev, 0, sizeof(ev));
	ev.type = RG_EV_THUNDERBOLT;
	ev.ts = T0;
	ev.provider = RG_PROV_NETLINK;
	ev.u.tb.change = RG_HW_ADD;
	ev.u.tb.authorized = 1;
	strcpy(ev.u.tb.name, "0-1");
	ck_assert_int_eq(engine_process(e, &ev, collect, NULL), 0);
	ck_assert_msg(strstr(rules_seen, "DMA-007"), "%s", rules_seen);
	engine_free(e);
	unlink(path);
	rmdir(dir);
}
END_TEST

static Suite *engine_proc_suite(void)
{
	Suite *s = suite_create("engine-proc");
	TCase *core = tcase_create("core");

	tcase_add_test(core, test_truncated_path);
	tcase_add_test(core, test_glob_pinned_and_namespaces);
	tcase_add_test(core, test_hash_cache_ctime);
	tcase_add_test(core, test_hash_async_game);
	tcase_add_test(core, test_game_pinned_any_namespace);
	tcase_add_test(core, test_game_pins_follow_files);
	tcase_add_test(core, test_exe_flags_in_alerts);
	tcase_add_test(core, test_container_game_rules);
	suite_add_tcase(s, core);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(engine_proc_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
