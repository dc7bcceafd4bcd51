/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rg-verbs-storm: a verbs storm through libibverbs on a real RDMA device (the VM lab's rxe0):
 * PROCS processes each open the device, allocate a PD and a CQ, then register and deregister
 * MRS memory regions with remote read/write access and create and destroy QPS RC queue pairs,
 * as fast as they can. This is the load an agent must keep up with or report (issue 10); it
 * attacks nothing.
 *
 *   rg-verbs-storm DEVICE PROCS MRS QPS
 *
 * Process number I runs pinned to the I-th CPU it may use (modulo their number): the agent counts
 * lost records per CPU, and a record lost there is the only loss that can be one of its own.
 * Prints per process "pid=P cpu=C mrs=N qps=N elapsed_ms=T" (what it did) and a total line
 * "total_mrs=N total_qps=N failed_procs=N elapsed_ms=T mr_per_s=R qp_per_s=R". Exit 0, 1 if a
 * process failed (a verb failed, or no such device), 2 for bad usage.
 */
#include <infiniband/verbs.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static struct ibv_context *open_device(const char *name)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_context *ctx = NULL;

	for (int i = 0; list && list[i]; i++)
		if (strcmp(ibv_get_device_name(list[i]), name) == 0)
			ctx = ibv_open_device(list[i]);
	if (list)
		ibv_free_device_list(list);
	return ctx;
}

/* Pins this process to the i-th CPU of its affinity mask (modulo their number); returns it. */
static int pin(long i)
{
	cpu_set_t set;
	int n, cpu;

	if (sched_getaffinity(0, sizeof(set), &set) < 0 || (n = CPU_COUNT(&set)) == 0)
		return -1;
	i %= n;
	for (cpu = 0; cpu < CPU_SETSIZE; cpu++)
		if (CPU_ISSET(cpu, &set) && i-- == 0)
			break;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set) < 0 ? -1 : cpu;
}

static int worker(long index, const char *dev, long mrs, long qps)
{
	int cpu = pin(index);
	struct ibv_context *ctx = cpu < 0 ? NULL : open_device(dev);
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	uint64_t t0 = now_ms();
	long done_mrs = 0, done_qps = 0;
	static char buf[1 << 16];

	if (cpu < 0) {
		perror("rg-verbs-storm: sched_setaffinity");
		return 2;
	}
	if (!ctx) {
		fprintf(stderr, "rg-verbs-storm: cannot open %s\n", dev);
		return 2;
	}
	pd = ibv_alloc_pd(ctx);
	cq = pd ? ibv_create_cq(ctx, 16, NULL, NULL, 0) : NULL;
	if (!cq) {
		fprintf(stderr, "rg-verbs-storm: PD/CQ on %s failed\n", dev);
		return 1;
	}
	for (long i = 0; i < mrs; i++) {
		struct ibv_mr *mr = ibv_reg_mr(pd, buf, sizeof(buf),
					       IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ |
						       IBV_ACCESS_REMOTE_WRITE);

		if (!mr || ibv_dereg_mr(mr))
			break;
		done_mrs++;
	}
	for (long i = 0; i < qps; i++) {
		struct ibv_qp_init_attr attr = {
			.send_cq = cq,
			.recv_cq = cq,
			.qp_type = IBV_QPT_RC,
			.cap = {.max_send_wr = 1, .max_recv_wr = 1, .max_send_sge = 1,
				.max_recv_sge = 1},
		};
		struct ibv_qp *qp = ibv_create_qp(pd, &attr);

		if (!qp || ibv_destroy_qp(qp))
			break;
		done_qps++;
	}
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	printf("pid=%d cpu=%d mrs=%ld qps=%ld elapsed_ms=%llu\n", getpid(), cpu, done_mrs, done_qps,
	       (unsigned long long)(now_ms() - t0));
	fflush(stdout);
	return done_mrs == mrs && done_qps == qps ? 0 : 1;
}

int main(int argc, char **argv)
{
	long procs, mrs, qps, failed = 0;
	uint64_t t0 = now_ms(), ms;
	int status;

	if (argc != 5 || (procs = atol(argv[2])) <= 0 || (mrs = atol(argv[3])) < 0 ||
	    (qps = atol(argv[4])) < 0) {
		fprintf(stderr, "usage: rg-verbs-storm DEVICE PROCS MRS QPS\n");
		return 2;
	}
	for (long p = 0; p < procs; p++) {
		pid_t pid = fork();

		if (pid < 0) {
			perror("fork");
			return 2;
		}
		if (pid == 0)
			_exit(worker(p, argv[1], mrs, qps));
	}
	while (wait(&status) > 0)
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
			failed++;
	ms = now_ms() - t0;
	printf("total_mrs=%ld total_qps=%ld failed_procs=%ld elapsed_ms=%llu mr_per_s=%llu "
	       "qp_per_s=%llu\n",
	       procs * mrs, procs * qps, failed, (unsigned long long)ms,
	       (unsigned long long)(ms ? procs * mrs * 1000 / (long)ms : 0),
	       (unsigned long long)(ms ? procs * qps * 1000 / (long)ms : 0));
	return failed ? 1 : 0;
}
