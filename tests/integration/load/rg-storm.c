/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rg-storm: load for the agent's sensors, on this machine's kernel (root).
 *
 *   rg-storm spawn N PARALLEL PROGRAM   fork and exec PROGRAM N times, PARALLEL at a time (a
 *                                       process-spawn storm: exec, fork and exit records)
 *   rg-storm verbs N                    one process issues N REG_MR commands with remote access
 *                                       on a stand-in /dev/infiniband/uverbs0 (private /dev in
 *                                       its own mount namespace, as
 *                                       tests/integration/host/rg-host-driver.c does: the sensors
 *                                       see the same path, fd and bytes)
 *
 * Prints what it did as key=value lines (pid, count, elapsed_ms). Exit 0, or 2 on failure.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "standin-dev.h"

#include <rdma/ib_user_ioctl_verbs.h>
#include <rdma/ib_user_verbs.h>

static void die(const char *what)
{
	fprintf(stderr, "rg-storm: %s: %s\n", what, strerror(errno));
	exit(2);
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static int spawn(long n, long parallel, const char *prog)
{
	uint64_t t0 = now_ms();
	long started = 0, running = 0, failed = 0;
	int status;

	while (started < n || running > 0) {
		while (started < n && running < parallel) {
			pid_t p = fork();

			if (p < 0)
				die("fork");
			if (p == 0) {
				execl(prog, prog, (char *)NULL);
				_exit(127);
			}
			started++;
			running++;
		}
		if (wait(&status) < 0)
			die("wait");
		running--;
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
			failed++;
	}
	printf("count=%ld\nfailed=%ld\nelapsed_ms=%llu\n", n, failed,
	       (unsigned long long)(now_ms() - t0));
	return failed ? 2 : 0;
}

static int verbs(long n)
{
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		struct ib_uverbs_reg_mr body;
	} reg = {0};
	uint64_t t0;
	const char *what;
	int fd;

	if ((what = standin_dev_enter()))
		die(what);
	fd = open("/dev/infiniband/uverbs0", O_RDWR | O_CREAT | O_CLOEXEC, 0666);
	if (fd < 0)
		die("open uverbs0");
	reg.hdr.command = IB_USER_VERBS_CMD_REG_MR;
	reg.hdr.in_words = sizeof(reg) / 4;
	reg.hdr.out_words = sizeof(struct ib_uverbs_reg_mr_resp) / 4;
	reg.body.start = reg.body.hca_va = 0x7f0000000000ull;
	reg.body.length = 1 << 20;
	reg.body.pd_handle = 1;
	reg.body.access_flags = IB_UVERBS_ACCESS_REMOTE_READ | IB_UVERBS_ACCESS_REMOTE_WRITE;
	printf("pid=%d\nfd=%d\n", getpid(), fd);
	fflush(stdout);
	t0 = now_ms();
	for (long i = 0; i < n; i++) {
		reg.body.start = reg.body.hca_va = 0x7f0000000000ull + (uint64_t)i * (1 << 20);
		if (write(fd, &reg, sizeof(reg)) != (ssize_t)sizeof(reg))
			die("write REG_MR");
	}
	printf("count=%ld\nelapsed_ms=%llu\n", n, (unsigned long long)(now_ms() - t0));
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 5 && strcmp(argv[1], "spawn") == 0)
		return spawn(atol(argv[2]), atol(argv[3]) > 0 ? atol(argv[3]) : 1, argv[4]);
	if (argc == 3 && strcmp(argv[1], "verbs") == 0)
		return verbs(atol(argv[2]));
	fprintf(stderr, "usage: rg-storm spawn N PARALLEL PROGRAM | verbs N\n");
	return 2;
}
