/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * verbs_setup: the RDMA control path, timed (benchmarks 2 and 4, run in the VM lab on rxe0).
 *
 * verbs_setup setup [-d DEV] [-g GID_INDEX] [-n N] [-r ROUNDS]
 *	Each round: open the device, allocate a PD, create N CQs and N RC QPs, move every QP to
 *	INIT, RTR (connected to itself over GID_INDEX) and RTS, register and deregister N 4 KiB
 *	MRs (local write, remote read), destroy everything, close. One JSON line on stdout:
 *	{"n":N,"rounds":R,"ns_min":...,"ns_median":...,"cpu_ns_min":...,"cpu_ns_median":...,
 *	 "phases":{"open":...,"create":...,"modify":...,"mr":...,"destroy":...}} (ns: wall time of a
 *	round; cpu_ns: this process's own CPU time in it, CLOCK_PROCESS_CPUTIME_ID, which leaves
 *	out what other processes (the agent's daemon) did meanwhile; phases: the median round's
 *	split, ns).
 *
 * verbs_setup latency [-d DEV] [-n SAMPLES] [-t TIMEOUT_S] ALERTS_FILE
 *	Detection latency. For each sample a new process (fork: RDMA-005 alerts once per process and
 *	device) opens DEV, allocates a PD and registers a 4 KiB MR with remote read and write
 *	access, reads CLOCK_REALTIME as ibv_reg_mr() returns (t0) and tells the parent. The parent
 *	follows ALERTS_FILE (the daemon's file output) with inotify, reads CLOCK_REALTIME as soon as
 *	the read() that completes the RDMA-005 alert line of that pid returns (t_line), and takes
 *	the alert's event.created (the engine's clock when it built the alert). One JSON line:
 *	{"samples":S,"lost":L,"line_ns":[...],"created_ns":[...]} (t_line - t0, created - t0).
 *
 * Exit 0, 1 when a sample's alert never came (latency), 2 on a failure with a message.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#define MAX_N	    4096
#define MAX_ROUNDS  100
#define MAX_SAMPLES 10000
#define LINE_MAX_B  (256 * 1024)

static const char *dev_name = "rxe0";
static int gid_index = 1;

static void die(const char *what, int err)
{
	fprintf(stderr, "verbs_setup: %s: %s\n", what, strerror(err));
	exit(2);
}

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static struct ibv_context *open_dev(void)
{
	struct ibv_device **list;
	struct ibv_context *ctx = NULL;
	int i, n;

	list = ibv_get_device_list(&n);
	if (!list)
		die("ibv_get_device_list", errno);
	for (i = 0; i < n; i++)
		if (strcmp(ibv_get_device_name(list[i]), dev_name) == 0) {
			ctx = ibv_open_device(list[i]);
			if (!ctx)
				die("ibv_open_device", errno);
		}
	ibv_free_device_list(list);
	if (!ctx) {
		fprintf(stderr, "verbs_setup: no device %s\n", dev_name);
		exit(2);
	}
	return ctx;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* ---- setup ---- */

struct phases {
	uint64_t open, create, modify, mr, destroy, total;
	uint64_t cpu; /* CLOCK_PROCESS_CPUTIME_ID over the round */
};

static void qp_connect_self(struct ibv_qp *qp, const union ibv_gid *gid)
{
	struct ibv_qp_attr a;
	int r;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE;
	r = ibv_modify_qp(qp, &a,
			  IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
	if (r)
		die("ibv_modify_qp INIT", r);
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = qp->qp_num;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 12;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid = *gid;
	a.ah_attr.grh.sgid_index = (uint8_t)gid_index;
	a.ah_attr.grh.hop_limit = 1;
	a.ah_attr.port_num = 1;
	r = ibv_modify_qp(qp, &a,
			  IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			      IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER);
	if (r)
		die("ibv_modify_qp RTR", r);
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	r = ibv_modify_qp(qp, &a,
			  IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			      IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
	if (r)
		die("ibv_modify_qp RTS", r);
}

static void setup_round(unsigned n, void *buf, struct phases *ph)
{
	static struct ibv_cq *cq[MAX_N];
	static struct ibv_qp *qp[MAX_N];
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	union ibv_gid gid;
	uint64_t t0, t1, t2, t3, t4, t5, c0;
	unsigned i;
	int r;

	c0 = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
	t0 = clock_ns(CLOCK_MONOTONIC);
	ctx = open_dev();
	pd = ibv_alloc_pd(ctx);
	if (!pd)
		die("ibv_alloc_pd", errno);
	r = ibv_query_gid(ctx, 1, gid_index, &gid);
	if (r)
		die("ibv_query_gid", r);
	t1 = clock_ns(CLOCK_MONOTONIC);
	for (i = 0; i < n; i++) {
		struct ibv_qp_init_attr qa = {
		    .qp_type = IBV_QPT_RC,
		    .cap = {.max_send_wr = 16,
			    .max_recv_wr = 16,
			    .max_send_sge = 1,
			    .max_recv_sge = 1},
		};

		cq[i] = ibv_create_cq(ctx, 16, NULL, NULL, 0);
		if (!cq[i])
			die("ibv_create_cq", errno);
		qa.send_cq = qa.recv_cq = cq[i];
		qp[i] = ibv_create_qp(pd, &qa);
		if (!qp[i])
			die("ibv_create_qp", errno);
	}
	t2 = clock_ns(CLOCK_MONOTONIC);
	for (i = 0; i < n; i++)
		qp_connect_self(qp[i], &gid);
	t3 = clock_ns(CLOCK_MONOTONIC);
	for (i = 0; i < n; i++) {
		struct ibv_mr *mr = ibv_reg_mr(pd, (char *)buf + (size_t)i * 4096, 4096,
					       IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ);

		if (!mr)
			die("ibv_reg_mr", errno);
		r = ibv_dereg_mr(mr);
		if (r)
			die("ibv_dereg_mr", r);
	}
	t4 = clock_ns(CLOCK_MONOTONIC);
	for (i = 0; i < n; i++) {
		r = ibv_destroy_qp(qp[i]);
		if (r)
			die("ibv_destroy_qp", r);
		r = ibv_destroy_cq(cq[i]);
		if (r)
			die("ibv_destroy_cq", r);
	}
	r = ibv_dealloc_pd(pd);
	if (r)
		die("ibv_dealloc_pd", r);
	r = ibv_close_device(ctx);
	if (r)
		die("ibv_close_device", r);
	t5 = clock_ns(CLOCK_MONOTONIC);
	*ph = (struct phases){.cpu = clock_ns(CLOCK_PROCESS_CPUTIME_ID) - c0,
			      .open = t1 - t0,
			      .create = t2 - t1,
			      .modify = t3 - t2,
			      .mr = t4 - t3,
			      .destroy = t5 - t4,
			      .total = t5 - t0};
}

static int cmp_phase(const void *a, const void *b)
{
	return cmp_u64(&((const struct phases *)a)->total, &((const struct phases *)b)->total);
}

static int cmd_setup(unsigned n, unsigned rounds)
{
	static struct phases ph[MAX_ROUNDS];
	static uint64_t cpu[MAX_ROUNDS];
	const struct phases *med;
	void *buf;
	unsigned r;

	if (posix_memalign(&buf, 4096, (size_t)n * 4096))
		die("posix_memalign", ENOMEM);
	memset(buf, 0, (size_t)n * 4096);
	setup_round(n > 4 ? 4 : n, buf, &ph[0]); /* warm-up: library, provider, caches */
	for (r = 0; r < rounds; r++)
		setup_round(n, buf, &ph[r]);
	for (r = 0; r < rounds; r++)
		cpu[r] = ph[r].cpu;
	qsort(cpu, rounds, sizeof(cpu[0]), cmp_u64);
	qsort(ph, rounds, sizeof(ph[0]), cmp_phase);
	med = &ph[rounds / 2];
	printf("{\"n\":%u,\"rounds\":%u,\"ns_min\":%" PRIu64 ",\"ns_median\":%" PRIu64
	       ",\"cpu_ns_min\":%" PRIu64 ",\"cpu_ns_median\":%" PRIu64
	       ",\"phases\":{\"open\":%" PRIu64 ",\"create\":%" PRIu64 ",\"modify\":%" PRIu64
	       ",\"mr\":%" PRIu64 ",\"destroy\":%" PRIu64 "}}\n",
	       n, rounds, ph[0].total, med->total, cpu[0], cpu[rounds / 2], med->open, med->create,
	       med->modify, med->mr, med->destroy);
	free(buf);
	return 0;
}

/* ---- latency ---- */

/* "2026-12-02T13:56:29.123456Z" -> ns since the epoch; 0 if it is not that. */
static uint64_t parse_rfc3339(const char *s)
{
	struct tm tm = {0};
	unsigned frac = 0;
	int nfrac = 0, i;
	const char *p;
	time_t t;

	p = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm);
	if (!p)
		return 0;
	if (*p == '.')
		for (p++; *p >= '0' && *p <= '9'; p++, nfrac++)
			if (nfrac < 9)
				frac = frac * 10 + (unsigned)(*p - '0');
	if (*p != 'Z')
		return 0;
	for (i = nfrac < 9 ? nfrac : 9; i < 9; i++)
		frac *= 10;
	t = timegm(&tm);
	return (uint64_t)t * 1000000000ull + frac;
}

/* The child: one process registering one remote-access MR. */
static void latency_child(int to_parent, int from_parent)
{
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	uint64_t t0;
	void *buf;
	char c;

	if (posix_memalign(&buf, 4096, 4096))
		_exit(2);
	memset(buf, 0, 4096);
	ctx = open_dev();
	pd = ibv_alloc_pd(ctx);
	if (!pd)
		die("ibv_alloc_pd", errno);
	mr = ibv_reg_mr(pd, buf, 4096,
			IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE);
	t0 = clock_ns(CLOCK_REALTIME);
	if (!mr)
		die("ibv_reg_mr", errno);
	if (write(to_parent, &t0, sizeof(t0)) != sizeof(t0))
		_exit(2);
	/* hold the MR until the parent has seen the alert (or given up) */
	while (read(from_parent, &c, 1) < 0 && errno == EINTR)
		;
	ibv_dereg_mr(mr);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	_exit(0);
}

struct follower {
	int fd, ino;
	char *buf;
	size_t len;
};

/*
 * Reads what was appended to the file; for every complete line that is RDMA-005's alert for pid,
 * returns 1 with *t_line (CLOCK_REALTIME right after the read() that completed it) and *created.
 */
static int follow(struct follower *fl, pid_t pid, uint64_t *t_line, uint64_t *created)
{
	for (;;) {
		ssize_t n;
		uint64_t now;
		char *nl, *line;

		if (fl->len == LINE_MAX_B)
			fl->len = 0; /* a line longer than that is not an alert of ours */
		n = read(fl->fd, fl->buf + fl->len, LINE_MAX_B - fl->len);
		now = clock_ns(CLOCK_REALTIME);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			die("read alerts file", errno);
		}
		if (n == 0)
			return 0;
		fl->len += (size_t)n;
		line = fl->buf;
		while ((nl = memchr(line, '\n', fl->len - (size_t)(line - fl->buf)))) {
			struct json_object *o, *v;
			int found = 0;

			*nl = 0;
			o = json_tokener_parse(line);
			if (o && json_object_object_get_ex(o, "rule", &v) &&
			    json_object_object_get_ex(v, "id", &v) &&
			    strcmp(json_object_get_string(v), "RDMA-005") == 0 &&
			    json_object_object_get_ex(o, "process", &v) &&
			    json_object_object_get_ex(v, "pid", &v) &&
			    json_object_get_int(v) == pid) {
				found = 1;
				*t_line = now;
				*created = 0;
				if (json_object_object_get_ex(o, "event", &v) &&
				    json_object_object_get_ex(v, "created", &v))
					*created = parse_rfc3339(json_object_get_string(v));
			}
			json_object_put(o);
			line = nl + 1;
			if (found) {
				fl->len -= (size_t)(line - fl->buf);
				memmove(fl->buf, line, fl->len);
				return 1;
			}
		}
		fl->len -= (size_t)(line - fl->buf);
		memmove(fl->buf, line, fl->len);
	}
}

static void print_list(const char *name, const uint64_t *v, unsigned n, int comma)
{
	unsigned i;

	printf("\"%s\":[", name);
	for (i = 0; i < n; i++)
		printf("%s%" PRIu64, i ? "," : "", v[i]);
	printf("]%s", comma ? "," : "");
}

static int cmd_latency(unsigned samples, unsigned timeout_s, const char *path)
{
	static uint64_t line_ns[MAX_SAMPLES], created_ns[MAX_SAMPLES];
	struct follower fl = {.fd = -1, .ino = -1};
	unsigned s, got = 0, lost = 0;

	fl.buf = malloc(LINE_MAX_B);
	if (!fl.buf)
		die("malloc", ENOMEM);
	fl.fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fl.fd < 0)
		die(path, errno);
	if (lseek(fl.fd, 0, SEEK_END) < 0)
		die("lseek", errno);
	fl.ino = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
	if (fl.ino < 0 || inotify_add_watch(fl.ino, path, IN_MODIFY) < 0)
		die("inotify", errno);

	for (s = 0; s < samples; s++) {
		int up[2], down[2], st;
		uint64_t t0, t_line = 0, created = 0, deadline;
		pid_t pid;
		int found = 0;

		if (pipe2(up, O_CLOEXEC) < 0 || pipe2(down, O_CLOEXEC) < 0)
			die("pipe2", errno);
		pid = fork();
		if (pid < 0)
			die("fork", errno);
		if (pid == 0) {
			close(up[0]);
			close(down[1]);
			latency_child(up[1], down[0]);
		}
		close(up[1]);
		close(down[0]);
		if (read(up[0], &t0, sizeof(t0)) != sizeof(t0)) {
			fprintf(stderr, "verbs_setup: sample %u: the child failed\n", s);
			exit(2);
		}
		deadline = clock_ns(CLOCK_MONOTONIC) + (uint64_t)timeout_s * 1000000000ull;
		while (!(found = follow(&fl, pid, &t_line, &created))) {
			struct pollfd pfd = {.fd = fl.ino, .events = POLLIN};
			uint64_t now = clock_ns(CLOCK_MONOTONIC);
			char evbuf[4096];

			if (now >= deadline)
				break;
			/* inotify wakes us on the write; the timeout is a safety net only */
			if (poll(&pfd, 1, 100) > 0)
				while (read(fl.ino, evbuf, sizeof(evbuf)) > 0)
					;
		}
		if (found) {
			line_ns[got] = t_line - t0;
			created_ns[got] = created > t0 ? created - t0 : 0;
			got++;
		} else {
			lost++;
		}
		close(down[1]); /* the child releases its MR and exits */
		close(up[0]);
		while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
			;
	}
	printf("{\"samples\":%u,\"lost\":%u,", got, lost);
	print_list("line_ns", line_ns, got, 1);
	print_list("created_ns", created_ns, got, 0);
	printf("}\n");
	free(fl.buf);
	return lost ? 1 : 0;
}

static void usage(FILE *f)
{
	fprintf(f, "Usage: verbs_setup setup [-d DEV] [-g GID_INDEX] [-n N] [-r ROUNDS]\n"
		   "       verbs_setup latency [-d DEV] [-n SAMPLES] [-t TIMEOUT_S] ALERTS_FILE\n");
}

static unsigned parse_num(const char *s, unsigned min, unsigned max)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || end == s || v < min || v > max) {
		fprintf(stderr, "verbs_setup: not a number in %u..%u: '%s'\n", min, max, s);
		exit(2);
	}
	return (unsigned)v;
}

static unsigned parse_u(const char *s, unsigned max)
{
	return parse_num(s, 1, max);
}

int main(int argc, char **argv)
{
	unsigned n = 32, rounds = 5, timeout_s = 30;
	const char *mode;
	int c;

	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	mode = argv[1];
	optind = 2;
	while ((c = getopt(argc, argv, "d:g:n:r:t:h")) != -1) {
		switch (c) {
		case 'd':
			dev_name = optarg;
			break;
		case 'g':
			gid_index = (int)parse_num(optarg, 0, 255);
			break;
		case 'n':
			n = parse_u(optarg, strcmp(mode, "latency") == 0 ? MAX_SAMPLES : MAX_N);
			break;
		case 'r':
			rounds = parse_u(optarg, MAX_ROUNDS);
			break;
		case 't':
			timeout_s = parse_u(optarg, 3600);
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	signal(SIGPIPE, SIG_IGN);
	if (strcmp(mode, "setup") == 0 && optind == argc)
		return cmd_setup(n, rounds);
	if (strcmp(mode, "latency") == 0 && optind + 1 == argc)
		return cmd_latency(n, timeout_s, argv[optind]);
	usage(stderr);
	return 2;
}
