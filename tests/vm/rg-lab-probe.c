/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rg-lab-probe: the VM lab's enforcement scenarios ask the kernel themselves, so that a refusal
 * or a kill is proven by what the kernel did, never by a tool's exit status or a timeout. Prints
 * "key=value" lines on stdout.
 *
 *   open PATH        open(PATH, O_RDWR): pid=, open= (the fd or -1), errno= (its name, or 0);
 *                    exit 0 opened, 3 EPERM, 1 any other error
 *   mmap PATH        maps PATH's first page executable, as ld.so maps a library's text:
 *                    pid=, mmap= (0 or -1), errno=; exit 0 mapped, 3 EPERM, 1 any other error
 *   cm-connect       open /dev/infiniband/rdma_cm, CREATE_ID, then CONNECT on that id (not
 *                    resolved: the kernel answers EINVAL, unless enforcement kills first):
 *                    pid=, create_id=, connect=, connect_errno=; exit 0 when both answered
 *   run [-t SEC] CMD ARGS...
 *                    runs CMD as its child and says how it ended, as its parent saw it
 *                    (waitpid): child=PID, then status=exit N, status=signal N (NAME) or, after
 *                    SEC seconds (default 60), status=timeout (the child then gets SIGTERM, then
 *                    SIGKILL); exit 0 when it could say, 2 otherwise
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <rdma/rdma_user_cm.h>

static const char *errname(int e)
{
	const char *n = e ? strerrorname_np(e) : "0";

	return n ? n : "?";
}

static int probe_open(const char *path)
{
	int fd = open(path, O_RDWR | O_CLOEXEC), e = fd < 0 ? errno : 0;

	printf("pid=%d\nopen=%d\nerrno=%s\n", getpid(), fd, errname(e));
	fflush(stdout);
	return fd >= 0 ? 0 : e == EPERM ? 3 : 1;
}

static int probe_mmap(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), e;
	void *p = MAP_FAILED;

	if (fd >= 0)
		p = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	e = fd < 0 || p == MAP_FAILED ? errno : 0;
	printf("pid=%d\nmmap=%d\nerrno=%s\n", getpid(), p == MAP_FAILED ? -1 : 0, errname(e));
	fflush(stdout);
	return p != MAP_FAILED ? 0 : e == EPERM ? 3 : 1;
}

static int probe_cm_connect(void)
{
	struct {
		struct rdma_ucm_cmd_hdr hdr;
		union {
			struct rdma_ucm_create_id create;
			struct rdma_ucm_connect connect;
		};
	} c;
	struct rdma_ucm_create_id_resp resp = {0};
	ssize_t r;
	int fd = open("/dev/infiniband/rdma_cm", O_RDWR | O_CLOEXEC);

	printf("pid=%d\nopen=%d\nerrno=%s\n", getpid(), fd, errname(fd < 0 ? errno : 0));
	fflush(stdout);
	if (fd < 0)
		return 1;
	memset(&c, 0, sizeof(c));
	c.hdr.cmd = RDMA_USER_CM_CMD_CREATE_ID;
	c.hdr.in = sizeof(c.create);
	c.hdr.out = sizeof(resp);
	c.create.response = (uintptr_t)&resp;
	c.create.ps = RDMA_PS_TCP;
	c.create.qp_type = 2; /* IB_QPT_RC */
	r = write(fd, &c, sizeof(c.hdr) + sizeof(c.create));
	printf("create_id=%zd\nid=%u\n", r, resp.id);
	fflush(stdout);
	if (r < 0)
		return 1;
	memset(&c, 0, sizeof(c));
	c.hdr.cmd = RDMA_USER_CM_CMD_CONNECT;
	c.hdr.in = sizeof(c.connect);
	c.connect.id = resp.id;
	r = write(fd, &c, sizeof(c.hdr) + sizeof(c.connect));
	printf("connect=%zd\nconnect_errno=%s\n", r, errname(r < 0 ? errno : 0));
	fflush(stdout);
	close(fd);
	return 0;
}

static int probe_run(int argc, char **argv)
{
	struct timespec tick = {.tv_nsec = 20 * 1000 * 1000};
	long limit = 60, ticks;
	int status;
	pid_t pid, w;

	if (argc > 1 && strcmp(argv[0], "-t") == 0) {
		limit = strtol(argv[1], NULL, 10);
		argc -= 2;
		argv += 2;
	}
	if (argc < 1 || limit <= 0) {
		fprintf(stderr, "rg-lab-probe run: [-t SEC] CMD ARGS...\n");
		return 2;
	}
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		perror("rg-lab-probe: fork");
		return 2;
	}
	if (pid == 0) {
		execvp(argv[0], argv);
		fprintf(stderr, "rg-lab-probe: exec %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	printf("child=%d\n", pid);
	fflush(stdout);
	for (ticks = limit * 50; (w = waitpid(pid, &status, WNOHANG)) == 0 && ticks > 0; ticks--)
		nanosleep(&tick, NULL);
	if (w == 0) {
		printf("status=timeout\n");
		fflush(stdout);
		kill(pid, SIGTERM);
		sleep(2);
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		return 0;
	}
	if (w < 0) {
		perror("rg-lab-probe: waitpid");
		return 2;
	}
	if (WIFSIGNALED(status))
		printf("status=signal %d (SIG%s)\n", WTERMSIG(status),
		       sigabbrev_np(WTERMSIG(status)) ? sigabbrev_np(WTERMSIG(status)) : "?");
	else
		printf("status=exit %d\n", WEXITSTATUS(status));
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 2 && strcmp(argv[1], "open") == 0)
		return probe_open(argv[2]);
	if (argc > 2 && strcmp(argv[1], "mmap") == 0)
		return probe_mmap(argv[2]);
	if (argc > 1 && strcmp(argv[1], "cm-connect") == 0)
		return probe_cm_connect();
	if (argc > 2 && strcmp(argv[1], "run") == 0)
		return probe_run(argc - 2, argv + 2);
	fprintf(
	    stderr,
	    "usage: rg-lab-probe open PATH | mmap PATH | cm-connect | run [-t SEC] CMD ARGS...\n");
	return 2;
}
