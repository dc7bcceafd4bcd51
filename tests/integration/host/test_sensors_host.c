/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The sensors attached for real on this machine's kernel (syscall tracepoints, raw tracepoint,
 * uprobes), driven by rg-host-driver doing real syscalls; every decoded field is asserted.
 * Needs root. Suite "host".
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpf/events.h"
#include "common/clock.h"
#include "common/macro.h"
#include "common/strutil.h"
#include "event/event.h"
#include "event/event_json.h"
#include "sensors/ringwake.h"
#include "sensors/sensors.h"

#define MAX_EVENTS 8192

struct collected {
	struct rg_event ev[MAX_EVENTS];
	size_t n;
};

static struct collected C;

static int collect(const struct rg_event *ev, void *ud)
{
	struct collected *c = ud;

	if (c->n < MAX_EVENTS)
		c->ev[c->n++] = *ev;
	return 0;
}

static const char *driver_path(void)
{
	const char *p = getenv("RG_HOST_DRIVER");

	ck_assert_msg(p && *p, "RG_HOST_DRIVER is not set");
	return p;
}

static struct rg_sensors *open_sensors(enum sensors_mode mode, size_t ringbuf, bool seed)
{
	struct sensors_config cfg = {
	    .mode = mode,
	    .ringbuf_bytes = ringbuf,
	    .no_roce = true,
	    .no_seed = !seed,
	};
	struct rg_sensors *s = NULL;

	ck_assert_int_eq(sensors_open(&cfg, &s), 0);
	ck_assert_ptr_nonnull(s);
	C.n = 0;
	return s;
}

struct driver {
	pid_t pid;
	int out; /* read end of its stdout */
	char text[8192];
	size_t len;
};

/* Whether the kernel refuses to run a 32-bit executable at all (execve's ENOEXEC: a kernel
 * without IA32 emulation, booted with ia32_emulation=false, or a sandbox's kernel that
 * refuses it): then no process can enter through the ia32 table on this kernel. */
static bool ia32_exec_refused(const char *path)
{
	int status = 0;
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		execl(path, path, "exit", "0", (char *)NULL);
		_exit(errno == ENOEXEC ? 126 : 127);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && (WEXITSTATUS(status) == 0 || WEXITSTATUS(status) == 126),
		      "the 32-bit driver's probe run failed (status %#x)", status);
	return WEXITSTATUS(status) == 126;
}

/* The 32-bit build of the driver (gcc -m32). Built wherever the compiler can (CI installs
 * gcc-multilib): its absence on x86-64 fails; elsewhere there is no ia32 table, and where the
 * kernel refuses 32-bit executables nothing can use it (both skip, saying so). */
static const char *driver32_path(void)
{
	const char *p = getenv("RG_HOST_DRIVER32"), *cpu = getenv("RG_CPU_FAMILY");

	if (cpu && strcmp(cpu, "x86_64") != 0)
		return NULL;
	ck_assert_msg(p && *p, "no 32-bit host driver: the compiler cannot link -m32 (install "
			       "gcc-multilib, as packaging/bootstrap.sh --deps does)");
	if (ia32_exec_refused(p)) {
		fprintf(stderr, "SKIP (this check only): this kernel refuses 32-bit executables "
				"(execve: ENOEXEC), so the ia32 entry points cannot be used here\n");
		return NULL;
	}
	return p;
}

static void driver_start_path3(struct driver *d, const char *path, const char *a1, const char *a2,
			       const char *a3)
{
	int p[2];

	memset(d, 0, sizeof(*d));
	ck_assert_int_eq(pipe2(p, O_CLOEXEC), 0);
	d->pid = fork();
	ck_assert_int_ge(d->pid, 0);
	if (d->pid == 0) {
		dup2(p[1], 1);
		execl(path, path, a1, a2, (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	d->out = p[0];
}

static void driver_start_path(struct driver *d, const char *path, const char *a1, const char *a2)
{
	driver_start_path3(d, path, a1, a2, NULL);
}

static void driver_start(struct driver *d, const char *a1, const char *a2)
{
	driver_start_path(d, driver_path(), a1, a2);
}

/* Reads the driver's output until key=... has appeared (or EOF). */
static void driver_wait_key(struct driver *d, const char *key)
{
	char pat[64];

	snprintf(pat, sizeof(pat), "%s=", key);
	while (!strstr(d->text, pat)) {
		ssize_t n = read(d->out, d->text + d->len, sizeof(d->text) - 1 - d->len);

		if (n <= 0)
			break;
		d->len += (size_t)n;
		d->text[d->len] = 0;
	}
}

static int driver_finish(struct driver *d)
{
	int status;

	driver_wait_key(d, "\x01never");
	close(d->out);
	ck_assert_int_eq(waitpid(d->pid, &status, 0), d->pid);
	return status;
}

static long kv(const struct driver *d, const char *key)
{
	char pat[64];
	const char *p;

	snprintf(pat, sizeof(pat), "\n%s=", key);
	if (strncmp(d->text, pat + 1, strlen(pat + 1)) == 0)
		p = d->text + strlen(pat + 1);
	else {
		p = strstr(d->text, pat);
		ck_assert_msg(p, "driver said nothing about %s:\n%s", key, d->text);
		p += strlen(pat);
	}
	return strtol(p, NULL, 0);
}

static const char *kvs(const struct driver *d, const char *key, char *buf, size_t size)
{
	char pat[64];
	const char *p;
	size_t n;

	snprintf(pat, sizeof(pat), "\n%s=", key);
	p = strstr(d->text, pat);
	ck_assert_msg(p, "driver said nothing about %s", key);
	p += strlen(pat);
	n = strcspn(p, "\n");
	ck_assert_uint_lt(n, size);
	memcpy(buf, p, n);
	buf[n] = 0;
	return buf;
}

/* /proc/PID/stat start time in ns since boot (what start_boot_ns must equal). */
static uint64_t proc_start_ns(pid_t pid)
{
	char path[64], buf[1024], *p;
	unsigned long long ticks = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "re");
	ck_assert_ptr_nonnull(f);
	ck_assert_ptr_nonnull(fgets(buf, sizeof(buf), f));
	fclose(f);
	p = strrchr(buf, ')');
	ck_assert_ptr_nonnull(p);
	ck_assert_int_eq(sscanf(p + 2,
				"%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d "
				"%*d %*d %*d %*d %llu",
				&ticks),
			 1);
	return ticks * (1000000000ull / (unsigned long long)sysconf(_SC_CLK_TCK));
}

static bool has_exit(uint32_t pid)
{
	for (size_t i = 0; i < C.n; i++)
		if (C.ev[i].type == RG_EV_EXIT && C.ev[i].proc.pid == pid)
			return true;
	return false;
}

/* Polls until the EXIT of pid has been seen, then a little longer for stragglers. */
static void drain(struct rg_sensors *s, uint32_t pid)
{
	uint64_t deadline = now_monotonic_ns() + 15000000000ull;

	while (!has_exit(pid) && now_monotonic_ns() < deadline)
		ck_assert_int_ge(sensors_poll(s, 200, collect, &C), 0);
	ck_assert_msg(has_exit(pid), "no exit event for pid %u", pid);
	ck_assert_int_ge(sensors_poll(s, 100, collect, &C), 0);
}

static void dump(uint32_t pid)
{
	for (size_t i = 0; i < C.n; i++) {
		struct json_object *o;

		if (pid && C.ev[i].proc.pid != pid)
			continue;
		o = event_to_json(&C.ev[i]);
		fprintf(stderr, "  %s\n",
			json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
		json_object_put(o);
	}
}

typedef bool (*match_fn)(const struct rg_event *ev, const void *arg);

static size_t count_matching(uint16_t type, uint32_t pid, match_fn fn, const void *arg)
{
	size_t n = 0;

	for (size_t i = 0; i < C.n; i++)
		if (C.ev[i].type == type && C.ev[i].proc.pid == pid && (!fn || fn(&C.ev[i], arg)))
			n++;
	return n;
}

/* The nth (0-based) event of that type by pid that matches. */
static const struct rg_event *find(uint16_t type, uint32_t pid, match_fn fn, const void *arg,
				   size_t nth)
{
	for (size_t i = 0; i < C.n; i++)
		if (C.ev[i].type == type && C.ev[i].proc.pid == pid && (!fn || fn(&C.ev[i], arg))) {
			if (nth-- == 0)
				return &C.ev[i];
		}
	dump(pid);
	ck_abort_msg("no event of type %s by %u", event_type_to_string(type), pid);
	return NULL;
}

struct op_via {
	unsigned op, via;
};

static bool is_op_via(const struct rg_event *ev, const void *arg)
{
	const struct op_via *ov = arg;

	return ev->u.verbs.op == ov->op && ev->u.verbs.via == ov->via;
}

static const struct rg_event *verbs(uint32_t pid, unsigned op, unsigned via, size_t nth)
{
	struct op_via ov = {op, via};

	return find(RG_EV_VERBS, pid, is_op_via, &ov, nth);
}

static void assert_v4_gid(const uint8_t gid[16], const char *ip)
{
	char buf[16];

	ck_assert(gid_to_ipv4(gid, buf));
	ck_assert_str_eq(buf, ip);
}

static bool is_cm_op(const struct rg_event *ev, const void *arg)
{
	return ev->u.cm.op == *(const unsigned *)arg;
}

static bool is_mem_op(const struct rg_event *ev, const void *arg)
{
	return ev->u.mem.op == *(const unsigned *)arg;
}

static bool is_lib_kind(const struct rg_event *ev, const void *arg)
{
	return ev->u.lib.lib_kind == *(const unsigned *)arg;
}

static void assert_addr(const struct rg_addr *a, const char *ip, unsigned port)
{
	char buf[64];

	addr_to_string(a, buf);
	ck_assert_str_eq(buf, ip);
	ck_assert_uint_eq(a->port, port);
}

/* ---- core ---- */

/* The verbs scenario of the driver at path (64 or 32 bits: the same events), comm its name. */
static void check_verbs(const char *path, const char *comm)
{
	struct rg_sensors *s = open_sensors(SENSORS_TRACEPOINT, 0, false);
	struct driver d;
	const struct rg_event *e;
	uint32_t pid, child;
	uint64_t start;
	int fd, dupfd, status;

	driver_start_path(&d, path, "verbs", NULL);
	driver_wait_key(&d, "fd");
	pid = (uint32_t)kv(&d, "pid");
	start = proc_start_ns((pid_t)pid);
	status = driver_finish(&d);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "driver failed: %s", d.text);
	fd = (int)kv(&d, "fd");
	dupfd = (int)kv(&d, "dupfd");
	child = (uint32_t)kv(&d, "child");
	ck_assert_int_eq(kv(&d, "invoke_errno"), ENOTTY);
	drain(s, pid);

	/* the open, with the process identity /proc gives */
	e = find(RG_EV_DEVICE_OPEN, pid, NULL, NULL, 0);
	ck_assert_int_eq(e->provider, RG_PROV_SENSOR);
	ck_assert_int_eq(e->u.open.fd, fd);
	ck_assert_uint_eq(e->u.open.node_kind, RG_NODE_UVERBS);
	ck_assert_str_eq(e->u.open.path, "/dev/infiniband/uverbs0");
	ck_assert_uint_eq(e->proc.start_boot_ns, start);
	ck_assert_uint_eq(e->proc.tid, pid);
	ck_assert_uint_eq(e->proc.ppid, (uint32_t)getpid());
	ck_assert_uint_eq(e->proc.uid, 0);
	ck_assert_str_eq(e->proc.comm, comm);
	ck_assert_uint_eq(count_matching(RG_EV_DEVICE_OPEN, pid, NULL, NULL), 1);

	/* write() REG_MR */
	e = verbs(pid, RG_OP_REG_MR, RG_VIA_WRITE, 0);
	ck_assert_uint_eq(e->flags, 0);
	ck_assert_int_eq(e->u.verbs.fd, fd);
	ck_assert_uint_eq(e->u.verbs.write_cmd, 9);
	ck_assert_uint_eq(e->u.verbs.mr_addr, 0x7f0000001000ull);
	ck_assert_uint_eq(e->u.verbs.mr_length, 0x10000);
	ck_assert_uint_eq(e->u.verbs.mr_iova, 0x7f0000001000ull);
	ck_assert_uint_eq(e->u.verbs.mr_access,
			  RG_ACCESS_LOCAL_WRITE | RG_ACCESS_REMOTE_WRITE | RG_ACCESS_REMOTE_READ);
	ck_assert_uint_eq(e->u.verbs.handle, 0x55); /* from the response buffer, after the call */
	ck_assert_int_eq(e->u.verbs.ret, 0);
	ck_assert_uint_eq(e->proc.start_boot_ns, start);

	/* write() MODIFY_QP to RTR: the peer's address */
	e = verbs(pid, RG_OP_MODIFY_QP, RG_VIA_WRITE, 0);
	ck_assert_uint_eq(e->flags, 0);
	ck_assert_uint_eq(e->u.verbs.handle, 7);
	ck_assert_uint_eq(e->u.verbs.qp_state, 2);
	ck_assert_uint_eq(e->u.verbs.qp_attr_mask, 1 | (1 << 7) | (1 << 20));
	ck_assert_uint_eq(e->u.verbs.dest_qp_num, 0x1234);
	assert_v4_gid(e->u.verbs.dgid, "192.0.2.7");

	/* the truncated REG_MR (20 bytes of 48) */
	e = verbs(pid, RG_OP_REG_MR, RG_VIA_WRITE, 1);
	ck_assert_uint_eq(e->flags, RG_EVF_TRUNC | RG_EVF_MALFORMED);
	ck_assert_uint_eq(e->u.verbs.mr_length, 0);
	ck_assert_uint_eq(count_matching(RG_EV_VERBS, pid, is_op_via,
					 &(struct op_via){RG_OP_REG_MR, RG_VIA_WRITE}),
			  2); /* not the write to the regular file that reused the fd number */

	/* garbage command word */
	e = verbs(pid, RG_OP_OTHER, RG_VIA_WRITE, 0);
	ck_assert_uint_eq(e->flags, RG_EVF_MALFORMED);
	ck_assert_uint_eq(e->u.verbs.write_cmd, 0x7fff1234);

	/* INVOKE_WRITE tunnelling REG_MR; the stand-in answers ENOTTY */
	e = verbs(pid, RG_OP_REG_MR, RG_VIA_INVOKE, 0);
	ck_assert_uint_eq(e->flags, RG_EVF_FAILED);
	ck_assert_int_eq(e->u.verbs.ret, -ENOTTY);
	ck_assert_uint_eq(e->u.verbs.object_id, 0);
	ck_assert_uint_eq(e->u.verbs.method_id, 0);
	ck_assert_uint_eq(e->u.verbs.driver_id, 14);
	ck_assert_uint_eq(e->u.verbs.write_cmd, 9);
	ck_assert_uint_eq(e->u.verbs.mr_addr, 0x7f0000200000ull);
	ck_assert_uint_eq(e->u.verbs.mr_length, 0x200000);
	ck_assert_uint_eq(e->u.verbs.mr_access,
			  RG_ACCESS_LOCAL_WRITE | RG_ACCESS_REMOTE_READ | RG_ACCESS_REMOTE_ATOMIC);
	ck_assert_uint_eq(e->u.verbs.handle, 0); /* a failed call has no response (CORE_OUT) */

	/* native QP_CREATE */
	e = verbs(pid, RG_OP_CREATE_QP, RG_VIA_IOCTL, 0);
	ck_assert_uint_eq(e->flags, RG_EVF_FAILED);
	ck_assert_uint_eq(e->u.verbs.qp_type, 2);
	ck_assert_uint_eq(e->u.verbs.qp_num, 0); /* failed: no new QP, whatever the buffer held */
	ck_assert_uint_eq(e->u.verbs.handle, 0);
	ck_assert_uint_eq(e->u.verbs.object_id, 4);

	/* REG_DMABUF_MR */
	e = verbs(pid, RG_OP_REG_DMABUF_MR, RG_VIA_IOCTL, 0);
	ck_assert_uint_eq(e->flags, RG_EVF_FAILED);
	ck_assert_uint_eq(e->u.verbs.mr_length, 0x200000);
	ck_assert_uint_eq(e->u.verbs.mr_iova, 0x1000);
	ck_assert_int_eq(e->u.verbs.dmabuf_fd, 9);
	ck_assert_uint_eq(e->u.verbs.mr_access, RG_ACCESS_REMOTE_READ | RG_ACCESS_ON_DEMAND);

	/* the ioctl whose attributes run off the end of the mapping */
	e = verbs(pid, RG_OP_REG_DMABUF_MR, RG_VIA_IOCTL, 1);
	ck_assert_uint_eq(e->flags, RG_EVF_FAILED | RG_EVF_TRUNC | RG_EVF_MALFORMED);
	ck_assert_uint_eq(e->u.verbs.mr_length, 0);

	/* garbage ioctl: decoded as far as it goes, marked malformed */
	ck_assert_uint_eq(count_matching(RG_EV_VERBS, pid, is_op_via,
					 &(struct op_via){RG_OP_OTHER, RG_VIA_IOCTL}),
			  1);
	e = verbs(pid, RG_OP_OTHER, RG_VIA_IOCTL, 0);
	ck_assert(e->flags & RG_EVF_MALFORMED);
	/* the driver's bytes are i * 37 + 11; object_id is bytes 2-3 */
	ck_assert_uint_eq(e->u.verbs.object_id, (uint8_t)(2 * 37 + 11) | (uint8_t)(3 * 37 + 11)
									     << 8);

	/* mmap of the uverbs fd */
	e = verbs(pid, RG_OP_MMAP, RG_VIA_MMAP, 0);
	ck_assert_int_eq(e->u.verbs.fd, fd);
	ck_assert_uint_eq(e->u.verbs.mmap_len, 4096);

	/* post_send: the first call, then the five of the next second summarised */
	ck_assert_uint_eq(count_matching(RG_EV_VERBS, pid, is_op_via,
					 &(struct op_via){RG_OP_POST_SEND, RG_VIA_WRITE}),
			  2);
	e = verbs(pid, RG_OP_POST_SEND, RG_VIA_WRITE, 0);
	ck_assert_uint_eq(e->u.verbs.calls, 1);
	ck_assert_uint_eq(e->u.verbs.handle, 7);
	ck_assert_uint_eq(e->u.verbs.wr_count, 1);
	e = verbs(pid, RG_OP_POST_SEND, RG_VIA_WRITE, 1);
	ck_assert_uint_eq(e->u.verbs.calls, 5);
	/* post_recv: the first call, then the two left are flushed when the process exits */
	ck_assert_uint_eq(count_matching(RG_EV_VERBS, pid, is_op_via,
					 &(struct op_via){RG_OP_POST_RECV, RG_VIA_WRITE}),
			  2);
	e = verbs(pid, RG_OP_POST_RECV, RG_VIA_WRITE, 0);
	ck_assert_uint_eq(e->u.verbs.calls, 1);
	ck_assert_uint_eq(e->u.verbs.handle, 7);
	e = verbs(pid, RG_OP_POST_RECV, RG_VIA_WRITE, 1);
	ck_assert_uint_eq(e->u.verbs.calls, 2);
	ck_assert_int_eq(e->u.verbs.fd, fd);
	ck_assert_uint_eq(e->u.verbs.write_cmd, 29);

	/* a dup'ed fd */
	e = verbs(pid, RG_OP_DEALLOC_PD, RG_VIA_WRITE, 0);
	ck_assert_int_eq(e->u.verbs.fd, dupfd);
	ck_assert_uint_eq(e->u.verbs.handle, 3);

	/* an inherited fd, used by the child */
	e = verbs(child, RG_OP_DESTROY_QP, RG_VIA_WRITE, 0);
	ck_assert_int_eq(e->u.verbs.fd, fd);
	ck_assert_uint_eq(e->u.verbs.handle, 7);
	ck_assert_uint_eq(e->proc.ppid, pid);

	/* nothing more, nothing less: 9 write()s, 5 ioctls, 1 mmap */
	ck_assert_uint_eq(count_matching(RG_EV_VERBS, pid, NULL, NULL), 15);
	ck_assert_uint_eq(count_matching(RG_EV_VERBS, child, NULL, NULL), 1);
	sensors_close(s);
}

START_TEST(test_verbs)
{
	check_verbs(driver_path(), "rg-host-driver");
}
END_TEST

/* The same through the ia32 entry points: openat, write, ioctl and mmap2 of a 32-bit process,
 * which the syscalls:* tracepoints skip (bpf/compat.bpf.h). */
START_TEST(test_verbs_32bit)
{
	const char *path = driver32_path();

	if (!path)
		return;
	check_verbs(path, "rg-host-driver3"); /* comm: 15 bytes */
}
END_TEST

/* creat(2) of a uverbs node and of /proc/PID/mem (64-bit, then 32-bit): an open by another
 * syscall; the REG_MR through its fd. */
static void check_creat(const char *path)
{
	struct rg_sensors *s = open_sensors(SENSORS_TRACEPOINT, 0, false);
	struct driver d;
	const struct rg_event *e;
	uint32_t pid, victim;
	unsigned op = RG_MEM_PROC_MEM_OPEN;
	int status;

	driver_start_path(&d, path, "creat", NULL);
	driver_wait_key(&d, "fd");
	pid = (uint32_t)kv(&d, "pid");
	status = driver_finish(&d);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "driver failed: %s", d.text);
	victim = (uint32_t)kv(&d, "victim");
	ck_assert_int_ge(kv(&d, "memfd"), 0);
	drain(s, pid);
	e = find(RG_EV_DEVICE_OPEN, pid, NULL, NULL, 0);
	ck_assert_int_eq(e->u.open.fd, kv(&d, "fd"));
	ck_assert_uint_eq(e->u.open.node_kind, RG_NODE_UVERBS);
	ck_assert_str_eq(e->u.open.path, "/dev/infiniband/uverbs0");
	ck_assert_uint_eq(count_matching(RG_EV_DEVICE_OPEN, pid, NULL, NULL), 1);
	e = verbs(pid, RG_OP_REG_MR, RG_VIA_WRITE, 0);
	ck_assert_int_eq(e->u.verbs.fd, kv(&d, "fd"));
	ck_assert_uint_eq(e->u.verbs.mr_length, 0x4000);
	ck_assert_uint_eq(e->u.verbs.mr_access, RG_ACCESS_REMOTE_WRITE);
	e = find(RG_EV_MEMORY_ACCESS, pid, is_mem_op, &op, 0);
	ck_assert_uint_eq(e->u.mem.target_pid, victim);
	sensors_close(s);
}

START_TEST(test_creat)
{
	check_creat(driver_path());
}
END_TEST

START_TEST(test_creat_32bit)
{
	const char *path = driver32_path();

	if (path)
		check_creat(path);
}
END_TEST

START_TEST(test_rdma_cm)
{
	struct rg_sensors *s = open_sensors(SENSORS_TRACEPOINT, 0, false);
	struct driver d;
	const struct rg_event *e;
	unsigned op;
	uint32_t pid;
	int fd;

	driver_start(&d, "cm", NULL);
	ck_assert_int_eq(driver_finish(&d), 0);
	pid = (uint32_t)kv(&d, "pid");
	fd = (int)kv(&d, "fd");
	drain(s, pid);

	e = find(RG_EV_DEVICE_OPEN, pid, NULL, NULL, 0);
	ck_assert_uint_eq(e->u.open.node_kind, RG_NODE_RDMA_CM);
	ck_assert_str_eq(e->u.open.path, "/dev/infiniband/rdma_cm");

	op = RG_CM_CREATE_ID;
	e = find(RG_EV_RDMA_CM, pid, is_cm_op, &op, 0);
	ck_assert_uint_eq(e->flags, 0);
	ck_assert_int_eq(e->u.cm.fd, fd);
	ck_assert_uint_eq(e->u.cm.id, 3);
	ck_assert_uint_eq(e->u.cm.port_space, 0x106);

	op = RG_CM_RESOLVE_ADDR;
	e = find(RG_EV_RDMA_CM, pid, is_cm_op, &op, 0);
	ck_assert_uint_eq(e->flags, 0);
	ck_assert_uint_eq(e->u.cm.cmd, 21);
	assert_addr(&e->u.cm.src, "192.0.2.1", 0);
	assert_addr(&e->u.cm.dst, "198.51.100.4", 7471);

	/* CONNECT names no address: the agent fills in the id's */
	op = RG_CM_CONNECT;
	e = find(RG_EV_RDMA_CM, pid, is_cm_op, &op, 0);
	ck_assert_uint_eq(e->u.cm.id, 3);
	assert_addr(&e->u.cm.dst, "198.51.100.4", 7471);
	assert_addr(&e->u.cm.src, "192.0.2.1", 0);
	ck_assert_uint_eq(e->u.cm.port_space, 0x106);

	op = RG_CM_LISTEN;
	e = find(RG_EV_RDMA_CM, pid, is_cm_op, &op, 0);
	ck_assert_uint_eq(e->u.cm.backlog, 8);
	ck_assert_uint_eq(count_matching(RG_EV_RDMA_CM, pid, NULL, NULL), 4);
	ck_assert_uint_eq(count_matching(RG_EV_VERBS, pid, NULL, NULL), 0);
	sensors_close(s);
}
END_TEST

static bool is_fd(const struct rg_event *ev, const void *arg)
{
	return ev->u.open.fd == *(const int *)arg;
}

/*
 * io_uring opens into fixed-file slots, which put no fd in the process's table (rg-host-driver
 * fixed): the stand-in uverbs0 and a child's /proc/PID/mem, read by a fixed-file READ. Seen by
 * the open hook point's file_open check on the kprobe flavour (and fentry where the kernel
 * allows it), once each, with no fd.
 */
static void check_fixed(enum sensors_mode mode)
{
	struct sensors_config cfg = {.mode = mode, .no_roce = true, .no_seed = true};
	const unsigned op = RG_MEM_PROC_MEM_OPEN;
	const int nofd = -1;
	struct rg_sensors *s = NULL;
	const struct rg_event *e;
	struct driver d;
	uint32_t pid, victim;
	int status;

	if (sensors_open(&cfg, &s) != 0) {
		fprintf(stderr, "SKIP (this check only): the %s flavour cannot be had here\n",
			sensors_mode_to_string(mode));
		return;
	}
	C.n = 0;
	driver_start_path3(&d, driver_path(), "fixed", "standin", "-");
	status = driver_finish(&d);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "driver failed: %s", d.text);
	pid = (uint32_t)kv(&d, "pid");
	victim = (uint32_t)kv(&d, "victim");
	ck_assert_int_eq(kv(&d, "fixed_node"), 0);
	ck_assert_int_eq(kv(&d, "fixed_mem"), 0);
	ck_assert_int_eq(kv(&d, "fixed_read"), 16);
	ck_assert_int_eq(kv(&d, "fixed_read_same"), 1);
	drain(s, pid);

	e = find(RG_EV_MEMORY_ACCESS, pid, is_mem_op, &op, 0);
	ck_assert_uint_eq(e->u.mem.target_pid, victim);
	ck_assert_uint_eq(count_matching(RG_EV_MEMORY_ACCESS, pid, is_mem_op, &op), 1);
	e = find(RG_EV_DEVICE_OPEN, pid, is_fd, &nofd, 0);
	ck_assert_str_eq(e->u.open.path, "/dev/infiniband/uverbs0");
	ck_assert_uint_eq(e->u.open.node_kind, RG_NODE_UVERBS);
	ck_assert_uint_eq(count_matching(RG_EV_DEVICE_OPEN, pid, NULL, NULL), 1);
	sensors_close(s);
}

START_TEST(test_fixed_files)
{
	check_fixed(SENSORS_KPROBE);
	check_fixed(SENSORS_FENTRY);
}
END_TEST

/*
 * ptrace links no attach request makes (rg-host-driver traceme): PTRACE_TRACEME, the auto-attach
 * of a new process at fork (PTRACE_O_TRACEFORK) and an exec under trace, each a memory access by
 * the tracer.
 */
START_TEST(test_traceme)
{
	struct rg_sensors *s = open_sensors(SENSORS_TRACEPOINT, 0, false);
	const struct rg_event *e;
	struct driver d;
	uint32_t pid, child, gc;
	unsigned op;
	int status;

	driver_start(&d, "traceme", NULL);
	status = driver_finish(&d);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "driver failed: %s", d.text);
	ck_assert_int_eq(kv(&d, "traced"), 1);
	pid = (uint32_t)kv(&d, "pid");
	child = (uint32_t)kv(&d, "child");
	gc = (uint32_t)kv(&d, "grandchild");
	drain(s, pid);

	op = RG_MEM_PTRACE_TRACEME;
	e = find(RG_EV_MEMORY_ACCESS, pid, is_mem_op, &op, 0);
	ck_assert_uint_eq(e->u.mem.target_pid, child);
	ck_assert_uint_eq(e->u.mem.target_start_boot_ns,
			  find(RG_EV_FORK, child, NULL, NULL, 0)->proc.start_boot_ns);
	op = RG_MEM_PTRACE_AUTO;
	e = find(RG_EV_MEMORY_ACCESS, pid, is_mem_op, &op, 0);
	ck_assert_uint_eq(e->u.mem.target_pid, gc);
	op = RG_MEM_PTRACE_EXEC;
	e = find(RG_EV_MEMORY_ACCESS, pid, is_mem_op, &op, 0);
	ck_assert_uint_eq(e->u.mem.target_pid, gc);
	ck_assert_uint_eq(count_matching(RG_EV_MEMORY_ACCESS, pid, NULL, NULL), 3);
	sensors_close(s);
}
END_TEST

static bool is_budget(const struct rg_event *ev, const void *arg)
{
	(void)arg;
	return strcmp(ev->u.agent.what, "budget") == 0;
}

static void poll_for(struct rg_sensors *s, uint64_t ns)
{
	uint64_t end = now_monotonic_ns() + ns;

	while (now_monotonic_ns() < end)
		ck_assert_int_ge(sensors_poll(s, 50, collect, &C), 0);
}

/*
 * A flood cannot hide the cheat: nobody opens /proc/self/mem as fast as it can for 6 s, into a
 * 64 KiB ring, while a cheat opens uverbs0 and registers an MR, five times. Each cheat's
 * device_open and reg_mr arrive, every time (the RDMA ring); the flood is cut to its budget, and
 * its drops are counted and reported for its process.
 */
START_TEST(test_flood)
{
	struct rg_sensors *s = open_sensors(SENSORS_TRACEPOINT, 65536, false);
	uint32_t cheat[5], flood;
	struct driver f, d;
	uint64_t dropped = 0;
	long opens;
	int status;

	driver_start(&f, "flood", "6");
	driver_wait_key(&f, "pid");
	flood = (uint32_t)kv(&f, "pid");
	poll_for(s, 500000000ull);
	for (size_t i = 0; i < 5; i++) {
		driver_start(&d, "cheat", "standin");
		status = driver_finish(&d);
		ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "cheat failed: %s",
			      d.text);
		cheat[i] = (uint32_t)kv(&d, "pid");
		poll_for(s, 300000000ull);
	}
	status = driver_finish(&f);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "flood failed: %s", f.text);
	opens = kv(&f, "opens");
	poll_for(s, 2000000000ull); /* the budget's report comes with the next second */
	for (size_t i = 0; i < 5; i++) {
		ck_assert_uint_eq(count_matching(RG_EV_DEVICE_OPEN, cheat[i], NULL, NULL), 1);
		verbs(cheat[i], RG_OP_REG_MR, RG_VIA_WRITE, 0);
	}
	ck_assert_int_eq(sensors_budget_dropped(s, &dropped), 0);
	fprintf(stderr, "flood: %ld opens, %" PRIu64 " dropped over budget, %zu memory events\n",
		opens, dropped, count_matching(RG_EV_MEMORY_ACCESS, flood, NULL, NULL));
	ck_assert_uint_gt(dropped, 0);
	ck_assert_uint_le(count_matching(RG_EV_MEMORY_ACCESS, flood, NULL, NULL),
			  RG_BUDGET_BURST + 7 * RG_BUDGET_PER_SEC);
	ck_assert_uint_ge(count_matching(RG_EV_AGENT_LOST, flood, is_budget, NULL), 1);
	sensors_close(s);
}
END_TEST

/* writev()/pwritev2(): each iovec is a command (rg-host-driver writev) */
START_TEST(test_writev)
{
	struct rg_sensors *s = open_sensors(SENSORS_TRACEPOINT, 0, false);
	struct driver d;
	const struct rg_event *e;
	unsigned op;
	uint32_t pid;
	int fd, cm, status;

	driver_start(&d, "writev", NULL);
	status = driver_finish(&d);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "driver failed: %s", d.text);
	pid = (uint32_t)kv(&d, "pid");
	fd = (int)kv(&d, "fd");
	cm = (int)kv(&d, "cm_fd");
	drain(s, pid);

	/* REG_MR, then (after an empty iovec) DEALLOC_PD 10, from one writev */
	e = verbs(pid, RG_OP_REG_MR, RG_VIA_WRITE, 0);
	ck_assert_uint_eq(e->flags, 0);
	ck_assert_int_eq(e->u.verbs.fd, fd);
	ck_assert_uint_eq(e->u.verbs.mr_length, 0x30000);
	ck_assert_uint_eq(e->u.verbs.mr_access, RG_ACCESS_LOCAL_WRITE | RG_ACCESS_REMOTE_READ);
	ck_assert_uint_eq(e->u.verbs.handle, 0x55); /* the response, as for write() */
	ck_assert_uint_eq(count_matching(RG_EV_VERBS, pid, is_op_via,
					 &(struct op_via){RG_OP_REG_MR, RG_VIA_WRITE}),
			  1);
	/* MODIFY_QP by pwritev2 at offset -1; not DESTROY_QP at offset 0 */
	e = verbs(pid, RG_OP_MODIFY_QP, RG_VIA_WRITE, 0);
	ck_assert_uint_eq(e->flags, 0);
	ck_assert_uint_eq(e->u.verbs.handle, 9);
	ck_assert_uint_eq(e->u.verbs.qp_state, 2);
	ck_assert_uint_eq(count_matching(RG_EV_VERBS, pid, is_op_via,
					 &(struct op_via){RG_OP_DESTROY_QP, RG_VIA_WRITE}),
			  0);
	/* DEALLOC_PD 10 (first writev), then 10 to 18 of the ten (19 not decoded: 18 says so) */
	for (unsigned i = 0; i < 10; i++) {
		e = verbs(pid, RG_OP_DEALLOC_PD, RG_VIA_WRITE, i);
		ck_assert_int_eq(e->u.verbs.fd, fd);
		ck_assert_uint_eq(e->u.verbs.handle, i ? 10 + i - 1 : 10);
		ck_assert_uint_eq(e->flags, i == 9 ? RG_EVF_TRUNC : 0);
	}
	ck_assert_uint_eq(count_matching(RG_EV_VERBS, pid, is_op_via,
					 &(struct op_via){RG_OP_DEALLOC_PD, RG_VIA_WRITE}),
			  10);
	ck_assert_uint_eq(count_matching(RG_EV_VERBS, pid, NULL, NULL), 12);

	/* rdma_cm CREATE_ID (with its response) + LISTEN from one writev */
	op = RG_CM_CREATE_ID;
	e = find(RG_EV_RDMA_CM, pid, is_cm_op, &op, 0);
	ck_assert_uint_eq(e->flags, 0);
	ck_assert_int_eq(e->u.cm.fd, cm);
	ck_assert_uint_eq(e->u.cm.id, 4);
	op = RG_CM_LISTEN;
	e = find(RG_EV_RDMA_CM, pid, is_cm_op, &op, 0);
	ck_assert_uint_eq(e->u.cm.id, 4);
	ck_assert_uint_eq(e->u.cm.backlog, 5);
	ck_assert_uint_eq(count_matching(RG_EV_RDMA_CM, pid, NULL, NULL), 2);
	sensors_close(s);
}
END_TEST

START_TEST(test_process)
{
	struct rg_sensors *s = open_sensors(SENSORS_TRACEPOINT, 0, false);
	char exe[PATH_MAX];
	struct driver d;
	const struct rg_event *fork_p, *exec_p, *fork_c, *exec_c, *exit_c, *exit_p;
	uint32_t pid, child;
	int status;

	ck_assert_ptr_nonnull(realpath(driver_path(), exe));
	driver_start(&d, "proc", NULL);
	status = driver_finish(&d);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 5, "status %d", status);
	pid = (uint32_t)kv(&d, "pid");
	child = (uint32_t)kv(&d, "child");
	ck_assert_int_eq(kv(&d, "status"), 7 << 8);
	drain(s, pid);

	fork_p = find(RG_EV_FORK, pid, NULL, NULL, 0);
	ck_assert_uint_eq(fork_p->proc.ppid, (uint32_t)getpid());
	exec_p = find(RG_EV_EXEC, pid, NULL, NULL, 0);
	ck_assert_str_eq(exec_p->u.exec.exe, exe);
	ck_assert_uint_eq(exec_p->proc.start_boot_ns, fork_p->proc.start_boot_ns);
	ck_assert_uint_eq(exec_p->u.exec.parent_start_boot_ns, fork_p->u.fork.parent_start_boot_ns);
	{
		char want[PATH_MAX + 16];
		size_t n = (size_t)snprintf(want, sizeof(want), "%s%cproc", driver_path(), 0);

		ck_assert_uint_eq(exec_p->u.exec.args_len, n);
		ck_assert_mem_eq(exec_p->u.exec.args, want, n);
	}
	{
		struct stat st;

		ck_assert_int_eq(stat(exe, &st), 0);
		ck_assert_uint_eq(exec_p->u.exec.exe_ino, st.st_ino);
		ck_assert_uint_eq(exec_p->u.exec.exe_dev, st.st_dev);
	}

	fork_c = find(RG_EV_FORK, child, NULL, NULL, 0);
	ck_assert_uint_eq(fork_c->proc.ppid, pid);
	ck_assert_uint_eq(fork_c->u.fork.parent_start_boot_ns, fork_p->proc.start_boot_ns);
	exec_c = find(RG_EV_EXEC, child, NULL, NULL, 0);
	ck_assert_str_eq(exec_c->u.exec.exe, exe);
	ck_assert_uint_eq(exec_c->u.exec.args_len, sizeof("rg-host-driver\0exit\0"
							  "7") -
						       1);
	ck_assert_mem_eq(exec_c->u.exec.args,
			 "rg-host-driver\0exit\0"
			 "7",
			 sizeof("rg-host-driver\0exit\0"
				"7") -
			     1);
	ck_assert_uint_eq(exec_c->u.exec.parent_start_boot_ns, fork_p->proc.start_boot_ns);
	ck_assert_uint_eq(exec_c->proc.start_boot_ns, fork_c->proc.start_boot_ns);
	exit_c = find(RG_EV_EXIT, child, NULL, NULL, 0);
	ck_assert_int_eq(exit_c->u.exit.code, 7 << 8);
	ck_assert_uint_eq(exit_c->proc.start_boot_ns, fork_c->proc.start_boot_ns);

	/* two threads, one exit */
	ck_assert_uint_eq(count_matching(RG_EV_EXIT, pid, NULL, NULL), 1);
	exit_p = find(RG_EV_EXIT, pid, NULL, NULL, 0);
	ck_assert_int_eq(exit_p->u.exit.code, 5 << 8);
	ck_assert_uint_eq(count_matching(RG_EV_FORK, pid, NULL, NULL), 1); /* not the thread */
	sensors_close(s);
}
END_TEST

static void check_memory(const char *path)
{
	struct rg_sensors *s = open_sensors(SENSORS_TRACEPOINT, 0, false);
	struct driver d;
	const struct rg_event *e, *vfork;
	uint32_t pid, victim, victim2;
	unsigned op;

	driver_start_path(&d, path, "mem", NULL);
	ck_assert_int_eq(driver_finish(&d), 0);
	pid = (uint32_t)kv(&d, "pid");
	victim = (uint32_t)kv(&d, "victim");
	victim2 = (uint32_t)kv(&d, "victim2");
	ck_assert_int_eq(kv(&d, "readv"), 16);
	ck_assert_int_eq(kv(&d, "seize"), 0);
	ck_assert_int_ge(kv(&d, "memfd"), 0);
	drain(s, pid);
	vfork = find(RG_EV_FORK, victim, NULL, NULL, 0);

	op = RG_MEM_PROCESS_VM_READV;
	e = find(RG_EV_MEMORY_ACCESS, pid, is_mem_op, &op, 0);
	ck_assert_uint_eq(e->flags, 0);
	ck_assert_uint_eq(e->u.mem.target_pid, victim);
	ck_assert_uint_eq(e->u.mem.bytes, 16);
	op = RG_MEM_PROCESS_VM_WRITEV;
	e = find(RG_EV_MEMORY_ACCESS, pid, is_mem_op, &op, 0);
	ck_assert_uint_eq(e->u.mem.target_pid, victim);
	ck_assert_uint_eq(e->u.mem.bytes, 16);
	op = RG_MEM_PTRACE_SEIZE;
	e = find(RG_EV_MEMORY_ACCESS, pid, is_mem_op, &op, 0);
	ck_assert_uint_eq(e->u.mem.target_pid, victim);
	ck_assert_int_eq(e->u.mem.ret, 0);
	op = RG_MEM_PTRACE_ATTACH;
	e = find(RG_EV_MEMORY_ACCESS, pid, is_mem_op, &op, 0);
	ck_assert_uint_eq(e->u.mem.target_pid, victim2);
	op = RG_MEM_PROC_MEM_OPEN;
	e = find(RG_EV_MEMORY_ACCESS, pid, is_mem_op, &op, 0);
	ck_assert_uint_eq(e->u.mem.target_pid, victim);
	ck_assert_uint_eq(e->u.mem.target_start_boot_ns, vfork->proc.start_boot_ns);
	{
		/* the victim is a fork of the driver: its comm, the driver's name (15 bytes) */
		char comm[16];
		const char *base = strrchr(path, '/');

		snprintf(comm, sizeof(comm), "%s", base ? base + 1 : path);
		ck_assert_str_eq(e->u.mem.target_comm, comm);
	}
	ck_assert_uint_eq(count_matching(RG_EV_MEMORY_ACCESS, pid, NULL, NULL), 5);
	sensors_close(s);
}

START_TEST(test_memory)
{
	check_memory(driver_path());
}
END_TEST

/* process_vm_readv/writev, ptrace and the /proc/PID/mem open of a 32-bit process. */
START_TEST(test_memory_32bit)
{
	const char *path = driver32_path();

	if (path)
		check_memory(path);
}
END_TEST

START_TEST(test_libraries)
{
	struct rg_sensors *s = open_sensors(SENSORS_TRACEPOINT, 0, false);
	struct json_object *desc = sensors_describe(s), *lib;
	struct driver d;
	const struct rg_event *e;
	char prov[PATH_MAX], verbs_path[PATH_MAX];
	struct stat st;
	unsigned kind;
	uint32_t pid;

	driver_start(&d, "lib", NULL);
	ck_assert_int_eq(driver_finish(&d), 0);
	pid = (uint32_t)kv(&d, "pid");
	drain(s, pid);

	kind = RG_LIB_IBVERBS;
	e = find(RG_EV_LIBRARY_LOAD, pid, is_lib_kind, &kind, 0);
	ck_assert_ptr_nonnull(realpath("/usr/lib/x86_64-linux-gnu/libibverbs.so.1", verbs_path));
	ck_assert_str_eq(e->u.lib.path, verbs_path);
	ck_assert_int_eq(stat(verbs_path, &st), 0);
	ck_assert_uint_eq(e->u.lib.ino, st.st_ino);
	ck_assert_uint_eq(e->u.lib.dev, st.st_dev);
	ck_assert_uint_eq(count_matching(RG_EV_LIBRARY_LOAD, pid, is_lib_kind, &kind), 1);

	kind = RG_LIB_RDMACM;
	e = find(RG_EV_LIBRARY_LOAD, pid, is_lib_kind, &kind, 0);
	ck_assert_msg(strstr(e->u.lib.path, "/librdmacm.so"), "%s", e->u.lib.path);

	kvs(&d, "provider", prov, sizeof(prov));
	if (prov[0]) {
		char real[PATH_MAX];

		kind = RG_LIB_PROVIDER;
		e = find(RG_EV_LIBRARY_LOAD, pid, is_lib_kind, &kind, 0);
		ck_assert_ptr_nonnull(realpath(prov, real));
		ck_assert_str_eq(e->u.lib.path, real);
	}

	/* uprobes on libibverbs: the call itself */
	lib = json_get_path(desc, "hooks.library.active");
	ck_assert_ptr_nonnull(lib);
	ck_assert_str_eq(json_object_get_string(lib), "uprobe");
	e = verbs(pid, RG_OP_GET_DEVICE_LIST, RG_VIA_LIBRARY, 0);
	ck_assert_int_eq(e->u.verbs.fd, -1);
	ck_assert_uint_eq(count_matching(RG_EV_VERBS, pid, NULL, NULL), 1);
	json_object_put(desc);
	sensors_close(s);
}
END_TEST

/* fds opened before the sensors start: seeded from /proc, then seen in use. */
static void seed_case(bool seed)
{
	struct driver d;
	struct rg_sensors *s;
	uint32_t pid;
	int fd;

	driver_start(&d, "hold", NULL);
	driver_wait_key(&d, "fd");
	pid = (uint32_t)kv(&d, "pid");
	fd = (int)kv(&d, "fd");
	s = open_sensors(SENSORS_TRACEPOINT, 0, seed);
	ck_assert_int_eq(kill((pid_t)pid, SIGUSR1), 0);
	ck_assert_int_eq(driver_finish(&d), 0);
	drain(s, pid);
	if (seed) {
		const struct rg_event *e = verbs(pid, RG_OP_REG_MR, RG_VIA_WRITE, 0);

		ck_assert_int_eq(e->u.verbs.fd, fd);
		ck_assert_uint_eq(e->u.verbs.mr_length, 0x3000);
		ck_assert_uint_eq(e->u.verbs.mr_access, RG_ACCESS_REMOTE_WRITE);
	} else {
		/* without the seed the fd is unknown: the test above is not vacuous */
		ck_assert_uint_eq(count_matching(RG_EV_VERBS, pid, NULL, NULL), 0);
	}
	sensors_close(s);
}

START_TEST(test_seed)
{
	seed_case(true);
}
END_TEST

START_TEST(test_no_seed)
{
	seed_case(false);
}
END_TEST

START_TEST(test_describe)
{
	struct rg_sensors *s = open_sensors(SENSORS_TRACEPOINT, 0, false);
	struct json_object *o = sensors_describe(s), *v;
	static const char *const tp_hooks[] = {"process", "open", "verbs",
					       "rdma_cm", "mmap", "memory"};

	ck_assert_ptr_nonnull(o);
	ck_assert_str_eq(json_object_get_string(json_get_path(o, "mode")), "tracepoint");
	for (size_t i = 0; i < sizeof(tp_hooks) / sizeof(tp_hooks[0]); i++) {
		char path[64];

		snprintf(path, sizeof(path), "hooks.%s.active", tp_hooks[i]);
		v = json_get_path(o, path);
		ck_assert_msg(v, "%s missing", path);
		ck_assert_str_eq(json_object_get_string(v), "tracepoint");
	}
	v = json_get_path(o, "hooks.verbs.programs");
	ck_assert_int_eq(json_object_array_length(v), 8); /* ioctl, write, writev, pwritev2 */
	ck_assert_str_eq(json_object_get_string(json_object_array_get_idx(v, 0)),
			 "tracepoint/syscalls/sys_enter_ioctl");
	ck_assert_str_eq(json_object_get_string(json_object_array_get_idx(v, 7)),
			 "tracepoint/syscalls/sys_exit_pwritev2");
	json_object_put(o);
	sensors_close(s);
}
END_TEST

/* auto on this kernel: whatever the probes say, every hook point has an active flavour. */
START_TEST(test_auto)
{
	struct rg_sensors *s = open_sensors(SENSORS_AUTO, 0, true);
	struct json_object *o = sensors_describe(s), *hooks;

	hooks = json_get_path(o, "hooks");
	ck_assert_ptr_nonnull(hooks);
	json_object_object_foreach(hooks, name, h)
	{
		const char *act = json_object_get_string(json_get_path(h, "active"));

		if (strcmp(name, "modules") == 0 || strcmp(name, "library") == 0 ||
		    strcmp(name, "roce") == 0)
			continue;
		ck_assert_msg(strcmp(act, "none") != 0, "hook point %s has nothing attached", name);
	}
	json_object_put(o);
	sensors_close(s);
}
END_TEST

/* ---- the ring buffer's wake-up policy (ringwake.h) ---- */

static uint32_t rb_poll_slot(struct rg_sensors *s)
{
	uint32_t zero = 0, v = 99;

	ck_assert_int_eq(bpf_map_lookup_elem(sensors_map_fd(s, "rb_poll"), &zero, &v), 0);
	return v;
}

static void set_rb_poll(struct rg_sensors *s, uint32_t v)
{
	uint32_t zero = 0;

	ck_assert_int_eq(bpf_map_update_elem(sensors_map_fd(s, "rb_poll"), &zero, &v, BPF_ANY), 0);
}

/* The policy's mode, checked against the slot the programs read and the timeout it asks for. */
static const char *ring_mode(struct rg_sensors *s, char buf[16], uint64_t *bursts)
{
	struct json_object *o = sensors_ring_describe(s), *v;

	ck_assert_ptr_nonnull(o);
	ck_assert(json_object_object_get_ex(o, "wakeups", &v));
	strscpy_ok(buf, json_object_get_string(v), 16);
	ck_assert(json_object_object_get_ex(o, "bursts", &v));
	*bursts = (uint64_t)json_object_get_int64(v);
	ck_assert(json_object_object_get_ex(o, "policy_errors", &v));
	ck_assert_int_eq(json_object_get_int64(v), 0);
	json_object_put(o);
	if (strcmp(buf, "poll") == 0) {
		ck_assert_uint_eq(rb_poll_slot(s), 1);
		ck_assert_int_eq(sensors_timeout_ms(s, 1000), RINGWAKE_POLL_MS);
		ck_assert_int_eq(sensors_timeout_ms(s, -1), RINGWAKE_POLL_MS);
	} else if (strcmp(buf, "closing") == 0) {
		ck_assert_uint_eq(rb_poll_slot(s), 0);
		ck_assert_int_eq(sensors_timeout_ms(s, 1000), RINGWAKE_POLL_MS);
	} else {
		ck_assert_str_eq(buf, "wake");
		ck_assert_uint_eq(rb_poll_slot(s), 0);
		ck_assert_int_eq(sensors_timeout_ms(s, 1000), 1000);
	}
	return buf;
}

static void wait_ring_mode_wake(struct rg_sensors *s)
{
	uint64_t deadline = now_monotonic_ns() + 10000000000ull, bursts;
	char mode[16];

	while (strcmp(ring_mode(s, mode, &bursts), "wake") != 0 && now_monotonic_ns() < deadline)
		ck_assert_int_ge(sensors_poll(s, 100, collect, &C), 0);
	ck_assert_str_eq(mode, "wake");
}

/* Reads the ring until this epoll fd on it reports nothing (other processes' records included). */
static void drain_until_quiet(struct rg_sensors *s, int ep)
{
	struct epoll_event e;

	for (int i = 0; i < 100; i++) {
		ck_assert_int_ge(sensors_poll(s, 0, collect, &C), 0);
		if (epoll_wait(ep, &e, 1, 0) == 0)
			return;
		usleep(10000);
	}
	ck_abort_msg("the ring buffer never stayed empty");
}

static pid_t run_driver_exit(const char *code)
{
	struct driver d;
	int status;

	driver_start(&d, "exit", code);
	close(d.out);
	ck_assert_int_eq(waitpid(d.pid, &status, 0), d.pid);
	ck_assert(WIFEXITED(status));
	return d.pid;
}

/*
 * A burst of records (300 processes started one after the other by sh) moves the reader to its timer
 * (rb_poll 1) and, once quiet, back to wake-ups (rb_poll 0), losing no record on the way. Then the
 * programs' side, on a private epoll of the ring: with rb_poll at 1 a record wakes no reader, at
 * 0 it does.
 */
START_TEST(test_ring_wakeups)
{
	struct rg_sensors *s = open_sensors(SENSORS_TRACEPOINT, 0, false);
	struct epoll_event e = {.events = EPOLLIN};
	uint64_t deadline, bursts;
	size_t execs = 0;
	bool saw_poll = false;
	char mode[16];
	pid_t kid, pid;
	int ep, status;

	wait_ring_mode_wake(s);
	kid = fork();
	ck_assert_int_ge(kid, 0);
	if (kid == 0) {
		execl("/bin/sh", "sh", "-ec", "i=0; while [ $i -lt 300 ]; do /bin/true; i=$((i+1)); done",
		      (char *)NULL);
		_exit(127);
	}
	deadline = now_monotonic_ns() + 60000000000ull;
	while (!has_exit((uint32_t)kid) && now_monotonic_ns() < deadline) {
		ck_assert_int_ge(sensors_poll(s, 200, collect, &C), 0);
		if (strcmp(ring_mode(s, mode, &bursts), "poll") == 0)
			saw_poll = true;
	}
	ck_assert_int_eq(waitpid(kid, &status, 0), kid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	ck_assert_msg(has_exit((uint32_t)kid), "no exit event for pid %d", kid);
	ck_assert_msg(saw_poll, "300 processes in a row never moved the reader to its timer");
	ck_assert_uint_ge(bursts, 1);
	wait_ring_mode_wake(s);
	for (size_t i = 0; i < C.n; i++)
		if (C.ev[i].type == RG_EV_EXEC && C.ev[i].proc.ppid == (uint32_t)kid)
			execs++;
	ck_assert_uint_eq(execs, 300);

	/* The programs' side. Nothing but a wake-up makes this epoll fd ready. */
	ep = epoll_create1(EPOLL_CLOEXEC);
	ck_assert_int_ge(ep, 0);
	ck_assert_int_eq(epoll_ctl(ep, EPOLL_CTL_ADD, sensors_map_fd(s, "events"), &e), 0);
	drain_until_quiet(s, ep);
	set_rb_poll(s, 1);
	pid = run_driver_exit("3");
	ck_assert_int_eq(epoll_wait(ep, &e, 1, 300), 0);
	set_rb_poll(s, 0); /* what the policy, still in "wake", had it at */
	C.n = 0;
	ck_assert_int_ge(sensors_poll(s, 0, collect, &C), 0);
	ck_assert_msg(has_exit((uint32_t)pid), "the records submitted without a wake-up were lost");
	wait_ring_mode_wake(s);
	drain_until_quiet(s, ep);
	pid = run_driver_exit("4");
	ck_assert_int_eq(epoll_wait(ep, &e, 1, 5000), 1);
	close(ep);
	sensors_close(s);
}
END_TEST

/* ---- limits ---- */

/* A 4 KiB ring buffer that nobody reads overflows: the loss is counted per CPU and reported. */
START_TEST(test_lost)
{
	struct rg_sensors *s = open_sensors(SENSORS_TRACEPOINT, 4096, false);
	uint64_t per_cpu[1024] = {0}, sum = 0, reported = 0;
	struct driver d;
	int ncpus;

	driver_start(&d, "verbs", NULL);
	ck_assert_int_eq(driver_finish(&d), 0);
	ncpus = sensors_lost(s, per_cpu, 1024);
	ck_assert_int_eq(ncpus, libbpf_num_possible_cpus());
	for (int i = 0; i < ncpus && i < 1024; i++)
		sum += per_cpu[i];
	ck_assert_uint_gt(sum, 0);
	/* the timer (1 s) reports it */
	for (int i = 0; i < 30 && reported < sum; i++) {
		ck_assert_int_ge(sensors_poll(s, 100, collect, &C), 0);
		reported = 0;
		for (size_t k = 0; k < C.n; k++)
			if (C.ev[k].type == RG_EV_AGENT_LOST) {
				ck_assert_str_eq(C.ev[k].u.agent.what, "ringbuf");
				ck_assert_uint_lt(C.ev[k].u.agent.count2, (uint64_t)ncpus);
				reported += C.ev[k].u.agent.count;
			}
	}
	ck_assert_uint_ge(reported, sum);
	sensors_close(s);
}
END_TEST

/* ---- errors ---- */

START_TEST(test_bad_ringbuf)
{
	struct sensors_config cfg = {
	    .mode = SENSORS_TRACEPOINT, .ringbuf_bytes = 12345, .no_roce = true, .no_seed = true};
	struct rg_sensors *s = NULL;

	ck_assert_int_eq(sensors_open(&cfg, &s), -EINVAL);
	ck_assert_ptr_null(s);
}
END_TEST

int main(void)
{
	Suite *su = suite_create("sensors-host");
	TCase *core = tcase_create("core"), *limits = tcase_create("limits"),
	      *errors = tcase_create("errors"), *paths = tcase_create("paths");
	SRunner *sr;
	int failed;

	if (geteuid() != 0) {
		printf("SKIP: the host sensor tests load BPF programs and need root\n");
		return 77;
	}
	tcase_set_timeout(core, 120);
	tcase_set_timeout(limits, 120);
	tcase_set_timeout(paths, 120);
	tcase_add_test(core, test_verbs);
	tcase_add_test(core, test_verbs_32bit);
	tcase_add_test(core, test_creat);
	tcase_add_test(core, test_creat_32bit);
	tcase_add_test(core, test_rdma_cm);
	tcase_add_test(core, test_writev);
	tcase_add_test(core, test_process);
	tcase_add_test(core, test_memory);
	tcase_add_test(core, test_memory_32bit);
	tcase_add_test(core, test_libraries);
	tcase_add_test(core, test_seed);
	tcase_add_test(core, test_no_seed);
	tcase_add_test(core, test_describe);
	tcase_add_test(core, test_auto);
	tcase_add_test(core, test_ring_wakeups);
	tcase_add_test(paths, test_fixed_files);
	tcase_add_test(paths, test_traceme);
	tcase_add_test(paths, test_flood);
	tcase_add_test(limits, test_lost);
	tcase_add_test(errors, test_bad_ringbuf);
	suite_add_tcase(su, core);
	suite_add_tcase(su, limits);
	suite_add_tcase(su, errors);
	suite_add_tcase(su, paths);
	sr = srunner_create(su);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
