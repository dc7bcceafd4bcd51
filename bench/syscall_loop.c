/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * syscall_loop [-n ITERATIONS] [-r ROUNDS] [OP...]: the system calls a game and its GPU driver
 * make millions of times, in a tight loop, timed; what the agent's sensors must not slow down.
 *
 *   write    write(2) of one byte to /dev/null
 *   ioctl    ioctl(2) FIONREAD on a pipe (a driver ioctl that is not RDMA_VERBS_IOCTL)
 *   open     openat(2) of /dev/null and close(2) (one op = the pair)
 *   getppid  a system call no sensor hooks (the cost of the syscall tracepoints themselves)
 *
 * Each round runs every OP for ITERATIONS calls (ops interleaved, so that a noisy moment hits all
 * of them), timed with CLOCK_MONOTONIC. One JSON line per OP on stdout:
 *   {"op":"write","iterations":N,"rounds":R,"ns_min":354.1,"ns_median":360.2}
 * ns per call: the fastest round (the least disturbed) and the median round.
 * Exit 0, or 2 with a message on bad usage or a failed call.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define MAX_ROUNDS 1000

enum op { OP_WRITE, OP_IOCTL, OP_OPEN, OP_GETPPID, N_OPS };
static const char *const op_names[N_OPS] = {"write", "ioctl", "open", "getppid"};

static int devnull = -1, pipe_rd = -1;

static void die(const char *what)
{
	fprintf(stderr, "syscall_loop: %s: %s\n", what, strerror(errno));
	exit(2);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void run(enum op op, unsigned long n)
{
	static const char byte = 'x';
	unsigned long i;
	int avail, fd;

	switch (op) {
	case OP_WRITE:
		for (i = 0; i < n; i++)
			if (write(devnull, &byte, 1) != 1)
				die("write /dev/null");
		break;
	case OP_IOCTL:
		for (i = 0; i < n; i++)
			if (ioctl(pipe_rd, FIONREAD, &avail) < 0)
				die("ioctl FIONREAD");
		break;
	case OP_OPEN:
		for (i = 0; i < n; i++) {
			fd = openat(AT_FDCWD, "/dev/null", O_RDONLY | O_CLOEXEC);
			if (fd < 0)
				die("openat /dev/null");
			close(fd);
		}
		break;
	case OP_GETPPID:
		for (i = 0; i < n; i++)
			(void)syscall(SYS_getppid);
		break;
	default:
		break;
	}
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: syscall_loop [-n ITERATIONS] [-r ROUNDS] [write|ioctl|open|getppid]...\n");
}

int main(int argc, char **argv)
{
	static double ns[N_OPS][MAX_ROUNDS];
	unsigned long n = 200000, rounds = 10, r;
	int selected[N_OPS] = {0}, any = 0, c, i, p[2];
	char *end;

	while ((c = getopt(argc, argv, "hn:r:")) != -1) {
		switch (c) {
		case 'n':
			errno = 0;
			n = strtoul(optarg, &end, 10);
			if (errno || *end || n == 0)
				goto bad;
			break;
		case 'r':
			errno = 0;
			rounds = strtoul(optarg, &end, 10);
			if (errno || *end || rounds == 0 || rounds > MAX_ROUNDS)
				goto bad;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			goto bad;
		}
	}
	for (; optind < argc; optind++) {
		for (i = 0; i < N_OPS; i++)
			if (strcmp(argv[optind], op_names[i]) == 0)
				break;
		if (i == N_OPS)
			goto bad;
		selected[i] = any = 1;
	}
	if (!any)
		for (i = 0; i < N_OPS; i++)
			selected[i] = 1;

	devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (devnull < 0)
		die("open /dev/null");
	if (pipe2(p, O_CLOEXEC) < 0)
		die("pipe2");
	pipe_rd = p[0];

	for (i = 0; i < N_OPS; i++) /* warm up: page tables, dentry cache, branch predictors */
		if (selected[i])
			run(i, n / 10 + 1);
	for (r = 0; r < rounds; r++)
		for (i = 0; i < N_OPS; i++) {
			uint64_t t0;

			if (!selected[i])
				continue;
			t0 = now_ns();
			run(i, n);
			ns[i][r] = (double)(now_ns() - t0) / (double)n;
		}
	for (i = 0; i < N_OPS; i++) {
		if (!selected[i])
			continue;
		qsort(ns[i], rounds, sizeof(double), cmp_double);
		printf("{\"op\":\"%s\",\"iterations\":%lu,\"rounds\":%lu,\"ns_min\":%.1f,"
		       "\"ns_median\":%.1f}\n",
		       op_names[i], n, rounds, ns[i][0],
		       rounds % 2 ? ns[i][rounds / 2]
				  : (ns[i][rounds / 2 - 1] + ns[i][rounds / 2]) / 2);
	}
	return 0;
bad:
	usage(stderr);
	return 2;
}
