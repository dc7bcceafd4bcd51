/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "daemon/control.h"

static char dir[] = "/tmp/rg-test-control-XXXXXX";
static char sock[256];

static void setup(void)
{
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(sock, sizeof(sock), "%s/status.sock", dir);
}

static void teardown(void)
{
	char cmd[300];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
	strcpy(dir, "/tmp/rg-test-control-XXXXXX");
}

/* Forks a client that queries the socket as uid (if not 0) and reports what it read. */
static pid_t client(uid_t uid, int pipefd[2])
{
	pid_t pid;

	ck_assert_int_eq(pipe(pipefd), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		char *reply = NULL;
		int r;

		close(pipefd[0]);
		if (uid != 0 && setuid(uid) < 0)
			_exit(3);
		r = status_query(sock, &reply);
		if (r < 0)
			dprintf(pipefd[1], "error %d", -r);
		else
			dprintf(pipefd[1], "%s", reply);
		_exit(0);
	}
	close(pipefd[1]);
	return pid;
}

static void serve(int lfd, struct json_object *doc, int expect)
{
	int r;

	/* The client connects asynchronously: wait for it rather than sleeping. */
	for (int i = 0; i < 5000; i++) {
		r = status_serve_one(lfd, doc);
		if (r != -EAGAIN)
			break;
		usleep(1000);
	}
	ck_assert_int_eq(r, expect);
}

static void read_all(int fd, char *buf, size_t size)
{
	size_t len = 0;
	ssize_t n;

	while ((n = read(fd, buf + len, size - 1 - len)) > 0)
		len += (size_t)n;
	buf[len] = 0;
	close(fd);
}

START_TEST(test_status_roundtrip)
{
	struct json_object *doc = json_tokener_parse("{\"events\":{\"verbs\":3}}");
	int lfd, pfd[2], st;
	char buf[256];
	struct stat s;
	pid_t pid;

	lfd = status_listen(sock);
	ck_assert_int_ge(lfd, 0);
	ck_assert_int_eq(stat(sock, &s), 0);
	ck_assert_int_eq(s.st_mode & 0777, 0600);
	ck_assert_int_eq(status_serve_one(lfd, doc), -EAGAIN);

	pid = client(0, pfd);
	serve(lfd, doc, 0);
	read_all(pfd[0], buf, sizeof(buf));
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert_str_eq(buf, "{\"events\":{\"verbs\":3}}\n");

	/* Listening again replaces the stale socket. */
	close(lfd);
	lfd = status_listen(sock);
	ck_assert_int_ge(lfd, 0);
	close(lfd);
	json_object_put(doc);
}
END_TEST

START_TEST(test_status_refuses_non_root)
{
	struct json_object *doc = json_tokener_parse("{\"secret\":1}");
	int lfd, pfd[2], st;
	char buf[256];
	pid_t pid;

	if (geteuid() != 0) {
		/* Only root can change uid to test the refusal; the check itself is root-only. */
		json_object_put(doc);
		return;
	}
	lfd = status_listen(sock);
	ck_assert_int_ge(lfd, 0);
	/* The socket is 0600 root: an unprivileged client cannot even connect. Loosen it to
	 * prove the daemon also checks the peer's credentials. */
	ck_assert_int_eq(chmod(sock, 0666), 0);
	ck_assert_int_eq(chmod(dir, 0755), 0);
	pid = client(65534, pfd);
	serve(lfd, doc, -EPERM);
	read_all(pfd[0], buf, sizeof(buf));
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert_ptr_null(strstr(buf, "secret"));
	ck_assert_str_eq(buf, "error 104"); /* ECONNRESET: closed without a reply */
	close(lfd);
	json_object_put(doc);
}
END_TEST

START_TEST(test_status_not_a_socket)
{
	FILE *f = fopen(sock, "w");

	ck_assert_ptr_nonnull(f);
	fclose(f);
	ck_assert_int_eq(status_listen(sock), -EEXIST);
}
END_TEST

START_TEST(test_pidfile)
{
	char path[300], buf[32];
	int fd, fd2;
	FILE *f;

	snprintf(path, sizeof(path), "%s/rdmaguard.pid", dir);
	fd = pidfile_acquire(path);
	ck_assert_int_ge(fd, 0);
	f = fopen(path, "r");
	ck_assert_ptr_nonnull(fgets(buf, sizeof(buf), f));
	fclose(f);
	ck_assert_int_eq(atoi(buf), getpid());
	/* flock is per open file description: a second acquire must fail while held. */
	fd2 = pidfile_acquire(path);
	ck_assert_int_eq(fd2, -EBUSY);
	pidfile_release(fd, path);
	ck_assert_int_eq(access(path, F_OK), -1);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("control");
	TCase *core = tcase_create("core"), *errors = tcase_create("errors");
	SRunner *sr;
	int failed;

	tcase_add_checked_fixture(core, setup, teardown);
	tcase_add_checked_fixture(errors, setup, teardown);
	tcase_add_test(core, test_status_roundtrip);
	tcase_add_test(core, test_pidfile);
	tcase_add_test(errors, test_status_refuses_non_root);
	tcase_add_test(errors, test_status_not_a_socket);
	suite_add_tcase(s, core);
	suite_add_tcase(s, errors);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
