/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * event_storm [-s SPAWNS] [-n EVENTS] [-b BATCH] [-p PAUSE_US]: real sensor events, many of them,
 * for the footprint benchmark (bench/run.sh footprint). Runs as root.
 *
 *   -s SPAWNS  start SPAWNS processes (/bin/true, posix_spawn, waited for one by one): a fork,
 *              an exec and an exit event each, and SPAWNS new entries in the process tree
 *   -n EVENTS  EVENTS verbs commands by write() on /dev/infiniband/uverbs0: this machine may have
 *              no RDMA device, so, as tests/integration/host/rg-host-driver does, the program
 *              enters a private mount namespace with a tmpfs on /dev and a char device standing in
 *              for the node (the sensors see the same path, fd and bytes as with the real device);
 *              one device_open event, then one verbs event per write (DEALLOC_PD / DESTROY_CQ)
 *   -b BATCH, -p PAUSE_US  write BATCH commands, then sleep PAUSE_US (default 1000 and 2000:
 *              at most about 500,000 events/s; 0 for no pause)
 *
 * Prints "spawned=N\nevents=N\npid=PID\n". Exit 0, 2 on a failure with a message.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <spawn.h>
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

#include <rdma/ib_user_verbs.h>

extern char **environ;

static void die(const char *what)
{
	fprintf(stderr, "event_storm: %s: %s\n", what, strerror(errno));
	exit(2);
}

static unsigned long num(const char *s)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || end == s) {
		fprintf(stderr, "event_storm: not a number: '%s'\n", s);
		exit(2);
	}
	return v;
}

static void spawn(unsigned long n)
{
	char *const argv[] = {"true", NULL};
	unsigned long i;
	pid_t pid;
	int r, st;

	for (i = 0; i < n; i++) {
		r = posix_spawn(&pid, "/bin/true", NULL, NULL, argv, environ);
		if (r) {
			errno = r;
			die("posix_spawn /bin/true");
		}
		while (waitpid(pid, &st, 0) < 0)
			if (errno != EINTR)
				die("waitpid");
	}
}

struct cmd_u32 {
	struct ib_uverbs_cmd_hdr hdr;
	__u64 response;
	__u32 handle;
	__u32 reserved;
};

static void storm(unsigned long n, unsigned long batch, unsigned long pause_us)
{
	struct cmd_u32 c[2] = {0};
	struct timespec ts = {.tv_sec = (time_t)(pause_us / 1000000),
			      .tv_nsec = (long)(pause_us % 1000000) * 1000};
	unsigned long i;
	const char *what;
	int fd;

	if ((what = standin_dev_enter()))
		die(what);
	fd = open("/dev/infiniband/uverbs0", O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0)
		die("open /dev/infiniband/uverbs0");
	c[0].hdr.command = IB_USER_VERBS_CMD_DEALLOC_PD;
	c[1].hdr.command = IB_USER_VERBS_CMD_DESTROY_CQ;
	for (i = 0; i < 2; i++) {
		c[i].hdr.in_words = sizeof(c[i]) / 4;
		c[i].handle = 1;
	}
	for (i = 0; i < n; i++) {
		if (write(fd, &c[i & 1], sizeof(c[0])) != sizeof(c[0]))
			die("write");
		if (lseek(fd, 0, SEEK_SET) < 0) /* a no-op on the stand-in device: kept for comparable runs */
			die("lseek");
		if (pause_us && batch && (i + 1) % batch == 0)
			nanosleep(&ts, NULL);
	}
	close(fd);
}

int main(int argc, char **argv)
{
	unsigned long spawns = 0, events = 0, batch = 1000, pause_us = 2000;
	int c;

	while ((c = getopt(argc, argv, "s:n:b:p:h")) != -1) {
		switch (c) {
		case 's':
			spawns = num(optarg);
			break;
		case 'n':
			events = num(optarg);
			break;
		case 'b':
			batch = num(optarg);
			break;
		case 'p':
			pause_us = num(optarg);
			break;
		case 'h':
			printf("Usage: event_storm [-s SPAWNS] [-n EVENTS] [-b BATCH] [-p "
			       "PAUSE_US]\n");
			return 0;
		default:
			fprintf(stderr, "Usage: event_storm [-s SPAWNS] [-n EVENTS] [-b BATCH] "
					"[-p PAUSE_US]\n");
			return 2;
		}
	}
	if (spawns)
		spawn(spawns);
	if (events)
		storm(events, batch, pause_us);
	printf("spawned=%lu\nevents=%lu\npid=%d\n", spawns, events, (int)getpid());
	return 0;
}
