/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rg-host-driver SCENARIO: does real syscalls that the sensors must see, and prints what it did
 * as "key=value" lines on stdout (pids, fds, addresses), so that the host tests can assert the
 * decoded events field by field. Runs as root.
 *
 * The verbs and rdma_cm scenarios need /dev/infiniband/{uverbs0,rdma_cm}: this machine's kernel
 * has no InfiniBand, so the driver enters a private mount namespace, mounts a tmpfs on /dev and
 * makes them there as character devices with /dev/zero's number (stand-ins: write() works,
 * ioctl() fails with ENOTTY, the sensors see the same path, fd and bytes as with the real
 * device; tests/lib/standin-dev.h).
 *
 * Scenarios: verbs, cm, writev, proc, exit CODE, mem, lib, hold, creat, heldfd NODE, newfd NODE
 * (a real node, for the VM lab), fixed NODE|- PID|- (io_uring fixed files), traceme, flood
 * SECONDS [GAMEPID] and cheat NODE (a flood of low-value records, and what it must not hide),
 * mprotect LIB. meson also builds it for 32 bits (rg-host-driver32, gcc -m32): the same syscalls
 * through the ia32 entry points.
 */
#include <dirent.h>
#include <grp.h>
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "standin-dev.h"
#include <netinet/in.h>
#include <arpa/inet.h>

#include <linux/io_uring.h>
#include <rdma/ib_user_ioctl_cmds.h>
#include <rdma/ib_user_ioctl_verbs.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/rdma_user_cm.h>
#include <rdma/rdma_user_ioctl_cmds.h>

#define say(...)                                                                                   \
	do {                                                                                       \
		printf(__VA_ARGS__);                                                               \
		fflush(stdout);                                                                    \
	} while (0)

static void die(const char *what)
{
	fprintf(stderr, "rg-host-driver: %s: %s\n", what, strerror(errno));
	exit(2);
}

/* A private /dev with stand-ins for the RDMA nodes. */
static void standin_dev(void)
{
	const char *what;

	if ((what = standin_dev_enter()))
		die(what);
}

static void wr(int fd, const void *buf, size_t len, const char *what)
{
	ssize_t n = write(fd, buf, len);

	if (n != (ssize_t)len)
		die(what);
}

struct cmd_reg_mr {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_reg_mr body;
};

struct cmd_modify_qp {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_modify_qp body;
};

struct cmd_post_send {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_post_send body;
};

struct cmd_u32 {
	struct ib_uverbs_cmd_hdr hdr;
	__u64 response;
	__u32 handle;
	__u32 reserved;
};

struct ioctl_buf {
	struct ib_uverbs_ioctl_hdr hdr;
	struct ib_uverbs_attr attrs[8];
};

/* A legacy REG_MR of LENGTH bytes at 0x7f0000001000 in PD 1, its response to *resp. */
static void reg_mr_cmd(struct cmd_reg_mr *reg, struct ib_uverbs_reg_mr_resp *resp, __u64 length,
		       __u32 access)
{
	memset(reg, 0, sizeof(*reg));
	reg->hdr.command = IB_USER_VERBS_CMD_REG_MR;
	reg->hdr.in_words = sizeof(*reg) / 4;
	reg->hdr.out_words = sizeof(*resp) / 4;
	reg->body.response = (uintptr_t)resp;
	reg->body.start = 0x7f0000001000ull;
	reg->body.length = length;
	reg->body.hca_va = 0x7f0000001000ull;
	reg->body.pd_handle = 1;
	reg->body.access_flags = access;
}

/* rdma_cm CREATE_ID of an RC id in the TCP port space, its response to *resp. */
static void create_id_cmd(struct rdma_ucm_cmd_hdr *hdr, struct rdma_ucm_create_id *body,
			  struct rdma_ucm_create_id_resp *resp)
{
	hdr->cmd = RDMA_USER_CM_CMD_CREATE_ID;
	hdr->in = sizeof(*body);
	hdr->out = sizeof(*resp);
	body->response = (uintptr_t)resp;
	body->ps = RDMA_PS_TCP;
	body->qp_type = 2;
}

static void set_gid_v4(uint8_t gid[16], const char *ip)
{
	memset(gid, 0, 16);
	gid[10] = gid[11] = 0xff;
	if (inet_pton(AF_INET, ip, gid + 12) != 1)
		die("inet_pton");
}

static int scenario_verbs(void)
{
	static struct ib_uverbs_reg_mr_resp mr_resp = {.mr_handle = 0x55, .lkey = 1, .rkey = 2};
	struct cmd_reg_mr reg = {0};
	struct cmd_modify_qp mq = {0};
	struct cmd_post_send ps = {0};
	struct cmd_u32 dealloc = {0}, destroy_qp = {0};
	struct ioctl_buf ib = {0};
	struct ib_uverbs_reg_mr core_in = {0};
	static struct ib_uverbs_reg_mr_resp core_out = {.mr_handle = 0x66};
	uint8_t garbage[8] = {0x34, 0x12, 0xff, 0x7f, 0xaa, 0xbb, 0xcc, 0xdd};
	uint8_t *pages, *hdr_at_end;
	int fd, fd2, r;
	pid_t child;
	void *map;

	standin_dev();
	fd = open("/dev/infiniband/uverbs0", O_RDWR | O_CREAT | O_CLOEXEC, 0666);
	if (fd < 0)
		die("open uverbs0");
	say("pid=%d\nfd=%d\n", getpid(), fd);

	/* 1: legacy write() REG_MR, with a response buffer the sensors copy after the call */
	reg_mr_cmd(&reg, &mr_resp, 0x10000,
		   IB_UVERBS_ACCESS_LOCAL_WRITE | IB_UVERBS_ACCESS_REMOTE_WRITE |
		       IB_UVERBS_ACCESS_REMOTE_READ);
	wr(fd, &reg, sizeof(reg), "write reg_mr");

	/* 2: MODIFY_QP to RTR with the peer's RoCE v2 GID */
	mq.hdr.command = IB_USER_VERBS_CMD_MODIFY_QP;
	mq.hdr.in_words = sizeof(mq) / 4;
	set_gid_v4(mq.body.dest.dgid, "192.0.2.7");
	mq.body.qp_handle = 7;
	mq.body.attr_mask = 1 | (1 << 7) | (1 << 20); /* IB_QP_STATE | IB_QP_AV | IB_QP_DEST_QPN */
	mq.body.dest_qp_num = 0x1234;
	mq.body.qp_state = 2; /* RTR */
	wr(fd, &mq, sizeof(mq), "write modify_qp");

	/* 3: truncated: a REG_MR header that claims 48 bytes, 20 written */
	wr(fd, &reg, 20, "write truncated");
	/* 4: garbage command word */
	wr(fd, garbage, sizeof(garbage), "write garbage");

	/* 5: ioctl INVOKE_WRITE tunnelling REG_MR (fails with ENOTTY on the stand-in) */
	core_in.start = 0x7f0000200000ull;
	core_in.length = 0x200000;
	core_in.hca_va = 0x7f0000200000ull;
	core_in.pd_handle = 2;
	core_in.access_flags = IB_UVERBS_ACCESS_LOCAL_WRITE | IB_UVERBS_ACCESS_REMOTE_READ |
			       IB_UVERBS_ACCESS_REMOTE_ATOMIC;
	ib.hdr.length = sizeof(ib.hdr) + 3 * sizeof(struct ib_uverbs_attr);
	ib.hdr.object_id = UVERBS_OBJECT_DEVICE;
	ib.hdr.method_id = UVERBS_METHOD_INVOKE_WRITE;
	ib.hdr.num_attrs = 3;
	ib.hdr.driver_id = 14; /* RDMA_DRIVER_RXE */
	ib.attrs[0] = (struct ib_uverbs_attr){
	    .attr_id = UVERBS_ATTR_CORE_IN, .len = sizeof(core_in), .data = (uintptr_t)&core_in};
	ib.attrs[1] = (struct ib_uverbs_attr){
	    .attr_id = UVERBS_ATTR_CORE_OUT, .len = sizeof(core_out), .data = (uintptr_t)&core_out};
	ib.attrs[2] = (struct ib_uverbs_attr){
	    .attr_id = UVERBS_ATTR_WRITE_CMD, .len = 8, .data = IB_USER_VERBS_CMD_REG_MR};
	r = ioctl(fd, RDMA_VERBS_IOCTL, &ib);
	say("invoke_ret=%d\ninvoke_errno=%d\n", r, r < 0 ? errno : 0);

	/* 6: ioctl QP_CREATE (RC) with the QP number the kernel would have written */
	memset(&ib, 0, sizeof(ib));
	ib.hdr.length = sizeof(ib.hdr) + 3 * sizeof(struct ib_uverbs_attr);
	ib.hdr.object_id = UVERBS_OBJECT_QP;
	ib.hdr.method_id = UVERBS_METHOD_QP_CREATE;
	ib.hdr.num_attrs = 3;
	ib.attrs[0] =
	    (struct ib_uverbs_attr){.attr_id = UVERBS_ATTR_CREATE_QP_HANDLE, .data = 0x21};
	ib.attrs[1] = (struct ib_uverbs_attr){
	    .attr_id = UVERBS_ATTR_CREATE_QP_TYPE, .len = 1, .data = 2 /* IB_QPT_RC */};
	ib.attrs[2] = (struct ib_uverbs_attr){
	    .attr_id = UVERBS_ATTR_CREATE_QP_RESP_QP_NUM, .len = 4, .data = 0x777};
	(void)ioctl(fd, RDMA_VERBS_IOCTL, &ib);

	/* 7: ioctl REG_DMABUF_MR, on-demand paging with remote read */
	memset(&ib, 0, sizeof(ib));
	ib.hdr.length = sizeof(ib.hdr) + 4 * sizeof(struct ib_uverbs_attr);
	ib.hdr.object_id = UVERBS_OBJECT_MR;
	ib.hdr.method_id = UVERBS_METHOD_REG_DMABUF_MR;
	ib.hdr.num_attrs = 4;
	ib.attrs[0] = (struct ib_uverbs_attr){
	    .attr_id = UVERBS_ATTR_REG_DMABUF_MR_LENGTH, .len = 8, .data = 0x200000};
	ib.attrs[1] = (struct ib_uverbs_attr){
	    .attr_id = UVERBS_ATTR_REG_DMABUF_MR_IOVA, .len = 8, .data = 0x1000};
	ib.attrs[2] =
	    (struct ib_uverbs_attr){.attr_id = UVERBS_ATTR_REG_DMABUF_MR_FD, .len = 4, .data = 9};
	ib.attrs[3] = (struct ib_uverbs_attr){.attr_id = UVERBS_ATTR_REG_DMABUF_MR_ACCESS_FLAGS,
					      .len = 4,
					      .data = IB_UVERBS_ACCESS_REMOTE_READ |
						      IB_UVERBS_ACCESS_ON_DEMAND};
	(void)ioctl(fd, RDMA_VERBS_IOCTL, &ib);

	/* 8: truncated ioctl: the header claims 20 attributes, the buffer ends after it */
	pages = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (pages == MAP_FAILED || munmap(pages + 4096, 4096) < 0)
		die("mmap");
	hdr_at_end = pages + 4096 - sizeof(struct ib_uverbs_ioctl_hdr);
	memset(hdr_at_end, 0, sizeof(struct ib_uverbs_ioctl_hdr));
	((struct ib_uverbs_ioctl_hdr *)hdr_at_end)->length = 24;
	((struct ib_uverbs_ioctl_hdr *)hdr_at_end)->object_id = UVERBS_OBJECT_MR;
	((struct ib_uverbs_ioctl_hdr *)hdr_at_end)->method_id = UVERBS_METHOD_REG_DMABUF_MR;
	((struct ib_uverbs_ioctl_hdr *)hdr_at_end)->num_attrs = 20;
	(void)ioctl(fd, RDMA_VERBS_IOCTL, hdr_at_end);

	/* 9: garbage ioctl: random-looking bytes */
	for (size_t i = 0; i < sizeof(ib); i++)
		((uint8_t *)&ib)[i] = (uint8_t)(i * 37 + 11);
	(void)ioctl(fd, RDMA_VERBS_IOCTL, &ib);

	/* 10: mmap of the uverbs fd */
	map = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		die("mmap uverbs0");
	munmap(map, 4096);

	/* 11: post_send on the data path: 5 calls within a second, then one more after it */
	ps.hdr.command = IB_USER_VERBS_CMD_POST_SEND;
	ps.hdr.in_words = sizeof(ps) / 4;
	ps.body.qp_handle = 7;
	ps.body.wr_count = 1;
	for (int i = 0; i < 5; i++)
		wr(fd, &ps, sizeof(ps), "write post_send");
	usleep(1100 * 1000);
	wr(fd, &ps, sizeof(ps), "write post_send");
	/* post_recv: the first call now, the next two when the process exits */
	ps.hdr.command = IB_USER_VERBS_CMD_POST_RECV;
	for (int i = 0; i < 3; i++)
		wr(fd, &ps, sizeof(ps), "write post_recv");

	/* 12: a dup'ed fd is learnt (the process is an RDMA user) */
	fd2 = dup(fd);
	if (fd2 < 0)
		die("dup");
	dealloc.hdr.command = IB_USER_VERBS_CMD_DEALLOC_PD;
	dealloc.hdr.in_words = (sizeof(dealloc.hdr) + 4) / 4;
	memcpy(&dealloc.response, &(uint32_t){3},
	       4); /* struct ib_uverbs_dealloc_pd { pd_handle } */
	wr(fd2, &dealloc, sizeof(dealloc.hdr) + 4, "write dealloc_pd");
	say("dupfd=%d\n", fd2);

	/* 13: a child inherits the fd */
	child = fork();
	if (child == 0) {
		destroy_qp.hdr.command = IB_USER_VERBS_CMD_DESTROY_QP;
		destroy_qp.hdr.in_words = sizeof(destroy_qp) / 4;
		destroy_qp.handle = 7;
		wr(fd, &destroy_qp, sizeof(destroy_qp), "write destroy_qp");
		_exit(0);
	}
	waitpid(child, NULL, 0);
	say("child=%d\n", child);

	/* 14: the fd number reused by an ordinary file is not an RDMA fd any more */
	close(fd2);
	close(fd);
	fd = open("/dev/not-rdma", O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0)
		die("open /dev/not-rdma");
	wr(fd, &reg, sizeof(reg), "write to a regular file");
	say("reused_fd=%d\n", fd);
	close(fd);
	return 0;
}

static int scenario_cm(void)
{
	struct {
		struct rdma_ucm_cmd_hdr hdr;
		union {
			struct rdma_ucm_create_id create;
			struct rdma_ucm_resolve_addr resolve;
			struct rdma_ucm_connect connect;
			struct rdma_ucm_listen listen;
		};
	} c;
	static struct rdma_ucm_create_id_resp resp = {.id = 3};
	struct sockaddr_in *src, *dst;
	int fd;

	standin_dev();
	fd = open("/dev/infiniband/rdma_cm", O_RDWR | O_CREAT | O_CLOEXEC, 0666);
	if (fd < 0)
		die("open rdma_cm");
	say("pid=%d\nfd=%d\n", getpid(), fd);

	memset(&c, 0, sizeof(c));
	create_id_cmd(&c.hdr, &c.create, &resp);
	wr(fd, &c, sizeof(c.hdr) + sizeof(c.create), "create_id");

	memset(&c, 0, sizeof(c));
	c.hdr.cmd = RDMA_USER_CM_CMD_RESOLVE_ADDR;
	c.hdr.in = sizeof(c.resolve);
	c.resolve.id = 3;
	c.resolve.timeout_ms = 2000;
	src = (struct sockaddr_in *)&c.resolve.src_addr;
	dst = (struct sockaddr_in *)&c.resolve.dst_addr;
	src->sin_family = AF_INET;
	inet_pton(AF_INET, "192.0.2.1", &src->sin_addr);
	dst->sin_family = AF_INET;
	dst->sin_port = htons(7471);
	inet_pton(AF_INET, "198.51.100.4", &dst->sin_addr);
	c.resolve.src_size = sizeof(*src);
	c.resolve.dst_size = sizeof(*dst);
	wr(fd, &c, sizeof(c.hdr) + sizeof(c.resolve), "resolve_addr");

	memset(&c, 0, sizeof(c));
	c.hdr.cmd = RDMA_USER_CM_CMD_CONNECT;
	c.hdr.in = sizeof(c.connect);
	c.connect.id = 3;
	wr(fd, &c, sizeof(c.hdr) + sizeof(c.connect), "connect");

	memset(&c, 0, sizeof(c));
	c.hdr.cmd = RDMA_USER_CM_CMD_LISTEN;
	c.hdr.in = sizeof(c.listen);
	c.listen.id = 3;
	c.listen.backlog = 8;
	wr(fd, &c, sizeof(c.hdr) + sizeof(c.listen), "listen");
	close(fd);
	return 0;
}

/*
 * Commands by writev(2) and pwritev2(2), which the kernel hands to ib_uverbs' and rdma_ucm's
 * write() one iovec at a time: on the stand-ins, REG_MR + an empty iovec + DEALLOC_PD in one
 * writev, MODIFY_QP by pwritev2 at offset -1, DESTROY_QP by pwritev2 at offset 0 (which a stream
 * fd refuses with ESPIPE: not a command), 10 DEALLOC_PDs in one writev (handles 10 to 19), and
 * rdma_cm's CREATE_ID + LISTEN in one writev.
 */
static int scenario_writev(void)
{
	static struct ib_uverbs_reg_mr_resp mr_resp = {.mr_handle = 0x55, .lkey = 1, .rkey = 2};
	static struct rdma_ucm_create_id_resp resp = {.id = 4};
	struct cmd_reg_mr reg = {0};
	struct cmd_modify_qp mq = {0};
	struct cmd_u32 dealloc[10], destroy_qp = {0};
	struct iovec iov[10];
	struct {
		struct rdma_ucm_cmd_hdr hdr;
		struct rdma_ucm_create_id create;
	} create = {0};
	struct {
		struct rdma_ucm_cmd_hdr hdr;
		struct rdma_ucm_listen listen;
	} listen = {0};
	const size_t dealloc_len = sizeof(struct ib_uverbs_cmd_hdr) + 4;
	ssize_t n;
	int fd, cm;

	standin_dev();
	fd = open("/dev/infiniband/uverbs0", O_RDWR | O_CREAT | O_CLOEXEC, 0666);
	cm = open("/dev/infiniband/rdma_cm", O_RDWR | O_CREAT | O_CLOEXEC, 0666);
	if (fd < 0 || cm < 0)
		die("open the stand-ins");
	say("pid=%d\nfd=%d\ncm_fd=%d\n", getpid(), fd, cm);

	memset(dealloc, 0, sizeof(dealloc));
	for (int i = 0; i < 10; i++) {
		dealloc[i].hdr.command = IB_USER_VERBS_CMD_DEALLOC_PD;
		dealloc[i].hdr.in_words = dealloc_len / 4;
		memcpy(&dealloc[i].response, &(uint32_t){10 + i}, 4); /* { pd_handle } */
		iov[i] = (struct iovec){.iov_base = &dealloc[i], .iov_len = dealloc_len};
	}

	/* 1: REG_MR (with its response), an empty iovec, DEALLOC_PD 10 */
	reg_mr_cmd(&reg, &mr_resp, 0x30000,
		   IB_UVERBS_ACCESS_LOCAL_WRITE | IB_UVERBS_ACCESS_REMOTE_READ);
	n = writev(fd,
		   (struct iovec[]){{&reg, sizeof(reg)}, {&reg, 0}, {&dealloc[0], dealloc_len}}, 3);
	if (n != (ssize_t)(sizeof(reg) + dealloc_len))
		die("writev reg_mr + dealloc_pd");

	/* 2: MODIFY_QP to RTR by pwritev2 at offset -1 (the file position: what a stream takes) */
	mq.hdr.command = IB_USER_VERBS_CMD_MODIFY_QP;
	mq.hdr.in_words = sizeof(mq) / 4;
	mq.body.qp_handle = 9;
	mq.body.attr_mask = 1; /* IB_QP_STATE */
	mq.body.qp_state = 2;  /* RTR */
	if (pwritev2(fd, (struct iovec[]){{&mq, sizeof(mq)}}, 1, -1, 0) != (ssize_t)sizeof(mq))
		die("pwritev2 modify_qp");

	/* 3: DESTROY_QP by pwritev2 at offset 0: a uverbs fd refuses it (ESPIPE) before the driver */
	destroy_qp.hdr.command = IB_USER_VERBS_CMD_DESTROY_QP;
	destroy_qp.hdr.in_words = sizeof(destroy_qp) / 4;
	destroy_qp.handle = 9;
	if (pwritev2(fd, (struct iovec[]){{&destroy_qp, sizeof(destroy_qp)}}, 1, 0, 0) < 0)
		die("pwritev2 at offset 0");

	/* 4: ten DEALLOC_PDs (10 to 19) in one writev */
	n = writev(fd, iov, 10);
	if (n != (ssize_t)(10 * dealloc_len))
		die("writev 10 dealloc_pd");

	/* 5: rdma_cm CREATE_ID + LISTEN */
	create_id_cmd(&create.hdr, &create.create, &resp);
	listen.hdr.cmd = RDMA_USER_CM_CMD_LISTEN;
	listen.hdr.in = sizeof(listen.listen);
	listen.listen.id = 4;
	listen.listen.backlog = 5;
	n = writev(cm, (struct iovec[]){{&create, sizeof(create)}, {&listen, sizeof(listen)}}, 2);
	if (n != (ssize_t)(sizeof(create) + sizeof(listen)))
		die("writev create_id + listen");
	close(cm);
	close(fd);
	return 0;
}

static void *idle_thread(void *arg)
{
	(void)arg;
	pause();
	return NULL;
}

static int scenario_proc(const char *self)
{
	pid_t child;
	int status;
	pthread_t t;

	say("pid=%d\n", getpid());
	/* A second thread: the process must still exit exactly once. */
	if (pthread_create(&t, NULL, idle_thread, NULL) != 0)
		die("pthread_create");
	child = fork();
	if (child == 0) {
		execl(self, "rg-host-driver", "exit", "7", (char *)NULL);
		_exit(127);
	}
	say("child=%d\n", child);
	waitpid(child, &status, 0);
	say("status=%d\n", status);
	exit(5); /* with the idle thread still running */
}

static volatile char secret[64] = "the game's memory";

static int scenario_mem(void)
{
	pid_t victim, victim2;
	char buf[16];
	char path[64];
	struct iovec local = {.iov_base = buf, .iov_len = sizeof(buf)};
	struct iovec remote = {.iov_base = (void *)secret, .iov_len = sizeof(buf)};
	ssize_t n;
	int fd;

	say("pid=%d\n", getpid());
	victim = fork();
	if (victim == 0) {
		for (;;)
			pause();
	}
	victim2 = fork();
	if (victim2 == 0) {
		for (;;)
			pause();
	}
	say("victim=%d\nvictim2=%d\n", victim, victim2);
	n = process_vm_readv(victim, &local, 1, &remote, 1, 0);
	say("readv=%zd\n", n);
	n = process_vm_writev(victim, &local, 1, &remote, 1, 0);
	say("writev=%zd\n", n);
	say("seize=%ld\n", ptrace(PTRACE_SEIZE, victim, NULL, NULL));
	say("attach=%ld\n", ptrace(PTRACE_ATTACH, victim2, NULL, NULL));
	snprintf(path, sizeof(path), "/proc/%d/mem", victim);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	say("memfd=%d\n", fd);
	if (fd >= 0)
		close(fd);
	kill(victim, SIGKILL);
	kill(victim2, SIGKILL);
	waitpid(victim, NULL, 0);
	waitpid(victim2, NULL, 0);
	return 0;
}

/*
 * creat(2), open's other entry (its own syscall number and tracepoint): of the stand-in uverbs0
 * (which it makes; a real node that exists is opened, not created), then a legacy REG_MR with remote write through that
 * fd, then of a child's /proc/PID/mem (whose O_TRUNC the kernel ignores).
 */
static int scenario_creat(void)
{
	static struct ib_uverbs_reg_mr_resp mr_resp = {.mr_handle = 0x77};
	struct cmd_reg_mr reg;
	char path[64];
	pid_t victim;
	int fd, memfd;

	standin_dev();
	say("pid=%d\n", getpid());
	fd = creat("/dev/infiniband/uverbs0", 0666); /* makes the stand-in too */
	if (fd < 0)
		die("creat uverbs0");
	say("fd=%d\n", fd);
	reg_mr_cmd(&reg, &mr_resp, 0x4000, IB_UVERBS_ACCESS_REMOTE_WRITE);
	wr(fd, &reg, sizeof(reg), "write reg_mr");
	say("reg_mr=1\n");
	victim = fork();
	if (victim < 0)
		die("fork");
	if (victim == 0) {
		for (;;)
			pause();
	}
	say("victim=%d\n", victim);
	snprintf(path, sizeof(path), "/proc/%d/mem", victim);
	memfd = creat(path, 0600);
	say("memfd=%d\nmemfd_errno=%d\n", memfd, memfd < 0 ? errno : 0);
	if (memfd >= 0)
		close(memfd);
	close(fd);
	kill(victim, SIGKILL);
	waitpid(victim, NULL, 0);
	return 0;
}

/* A provider next to libibverbs (rxe's if there is one), as libibverbs itself would load it. */
static int find_provider(void *sym, char *out, size_t size)
{
	Dl_info info;
	char dir[PATH_MAX];
	DIR *d;
	struct dirent *de;
	int found = 0;

	if (!dladdr(sym, &info) || !info.dli_fname)
		return 0;
	snprintf(dir, sizeof(dir), "%s", info.dli_fname);
	if (!strrchr(dir, '/'))
		return 0;
	strcpy(strrchr(dir, '/'), "/libibverbs");
	d = opendir(dir);
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		if (!strstr(de->d_name, "-rdmav"))
			continue;
		if (!found || strncmp(de->d_name, "librxe-", 7) == 0) {
			if (strlen(dir) + strlen(de->d_name) + 2 > size)
				continue;
			strcpy(out, dir);
			strcat(out, "/");
			strcat(out, de->d_name);
			found = 1;
		}
	}
	closedir(d);
	return found;
}

static int scenario_lib(void)
{
	void *verbs, *provider = NULL, *cm;
	void *(*get_list)(int *);
	void (*free_list)(void *);
	char prov[PATH_MAX] = "";
	int num = -1;

	say("pid=%d\n", getpid());
	verbs = dlopen("libibverbs.so.1", RTLD_NOW | RTLD_GLOBAL);
	if (!verbs) {
		fprintf(stderr, "dlopen libibverbs: %s\n", dlerror());
		return 2;
	}
	get_list = (void *(*)(int *))dlsym(verbs, "ibv_get_device_list");
	free_list = (void (*)(void *))dlsym(verbs, "ibv_free_device_list");
	if (get_list) {
		void *l = get_list(&num);

		if (l && free_list)
			free_list(l);
	}
	say("devices=%d\n", num);
	if (get_list && find_provider((void *)get_list, prov, sizeof(prov)))
		provider = dlopen(prov, RTLD_NOW | RTLD_GLOBAL);
	say("provider=%s\n", provider ? prov : "");
	cm = dlopen("librdmacm.so.1", RTLD_NOW | RTLD_GLOBAL);
	say("rdmacm=%d\n", cm != NULL);
	return 0;
}

static volatile sig_atomic_t go;

static void on_usr1(int sig)
{
	(void)sig;
	go = 1;
}

/* Opens uverbs0 before the sensors start, then, on SIGUSR1, registers memory through it. */
static int scenario_hold(void)
{
	struct cmd_reg_mr reg = {0};
	struct sigaction sa = {.sa_handler = on_usr1};
	sigset_t block, old;
	int fd;

	sigemptyset(&block);
	sigaddset(&block, SIGUSR1);
	sigprocmask(SIG_BLOCK, &block, &old);
	sigaction(SIGUSR1, &sa, NULL);
	standin_dev();
	fd = open("/dev/infiniband/uverbs0", O_RDWR | O_CREAT | O_CLOEXEC, 0666);
	if (fd < 0)
		die("open uverbs0");
	say("pid=%d\nfd=%d\n", getpid(), fd);
	while (!go)
		sigsuspend(&old);
	reg.hdr.command = IB_USER_VERBS_CMD_REG_MR;
	reg.hdr.in_words = sizeof(reg) / 4;
	reg.body.start = 0x1000;
	reg.body.length = 0x3000;
	reg.body.access_flags = IB_UVERBS_ACCESS_REMOTE_WRITE;
	wr(fd, &reg, sizeof(reg), "write reg_mr");
	say("done=1\n");
	return 0;
}

/*
 * Opens a real uverbs node (argv: its path) and, on SIGUSR1, issues the commands that register
 * memory and create a QP on that fd (raw, without a context: a kernel that lets them through
 * fails them with EINVAL or the like; enforcement refuses them first, with EPERM). For the VM
 * lab: a process that already holds an fd when enforcement starts.
 */
static int scenario_heldfd(const char *path)
{
	struct cmd_reg_mr reg = {0};
	struct ioctl_buf ib = {0};
	struct ib_uverbs_reg_mr core_in = {0};
	struct sigaction sa = {.sa_handler = on_usr1};
	sigset_t block, old;
	int fd, r;

	sigemptyset(&block);
	sigaddset(&block, SIGUSR1);
	sigprocmask(SIG_BLOCK, &block, &old);
	sigaction(SIGUSR1, &sa, NULL);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		die("open");
	say("pid=%d\nfd=%d\n", getpid(), fd);
	while (!go)
		sigsuspend(&old);
	/* ioctl INVOKE_WRITE tunnelling REG_MR with remote write */
	core_in.start = 0x7f0000200000ull;
	core_in.length = 0x200000;
	core_in.access_flags = IB_UVERBS_ACCESS_LOCAL_WRITE | IB_UVERBS_ACCESS_REMOTE_WRITE;
	ib.hdr.length = sizeof(ib.hdr) + 2 * sizeof(struct ib_uverbs_attr);
	ib.hdr.object_id = UVERBS_OBJECT_DEVICE;
	ib.hdr.method_id = UVERBS_METHOD_INVOKE_WRITE;
	ib.hdr.num_attrs = 2;
	ib.attrs[0] = (struct ib_uverbs_attr){
	    .attr_id = UVERBS_ATTR_CORE_IN, .len = sizeof(core_in), .data = (uintptr_t)&core_in};
	ib.attrs[1] = (struct ib_uverbs_attr){
	    .attr_id = UVERBS_ATTR_WRITE_CMD, .len = 8, .data = IB_USER_VERBS_CMD_REG_MR};
	r = ioctl(fd, RDMA_VERBS_IOCTL, &ib);
	say("reg_mr_ioctl=%d\nreg_mr_ioctl_errno=%d\n", r, r < 0 ? errno : 0);
	/* ioctl QP_CREATE */
	memset(&ib, 0, sizeof(ib));
	ib.hdr.length = sizeof(ib.hdr) + 1 * sizeof(struct ib_uverbs_attr);
	ib.hdr.object_id = UVERBS_OBJECT_QP;
	ib.hdr.method_id = UVERBS_METHOD_QP_CREATE;
	ib.hdr.num_attrs = 1;
	ib.attrs[0] = (struct ib_uverbs_attr){
	    .attr_id = UVERBS_ATTR_CREATE_QP_TYPE, .len = 1, .data = 2 /* IB_QPT_RC */};
	r = ioctl(fd, RDMA_VERBS_IOCTL, &ib);
	say("create_qp=%d\ncreate_qp_errno=%d\n", r, r < 0 ? errno : 0);
	/* the legacy write() path */
	reg.hdr.command = IB_USER_VERBS_CMD_REG_MR;
	reg.hdr.in_words = sizeof(reg) / 4;
	reg.body.start = 0x1000;
	reg.body.length = 0x3000;
	reg.body.access_flags = IB_UVERBS_ACCESS_REMOTE_READ;
	r = (int)write(fd, &reg, sizeof(reg));
	say("reg_mr_write=%d\nreg_mr_write_errno=%d\n", r, r < 0 ? errno : 0);
	return 0;
}

/* A one-entry io_uring, by raw system calls (the tests need no liburing). */
struct uring {
	struct io_uring_params p;
	struct io_uring_sqe *sqes;
	size_t sq_len, cq_len, sqe_len;
	void *sq, *cq;
	int fd;
};

static int uring_init(struct uring *u)
{
	memset(u, 0, sizeof(*u));
	u->fd = (int)syscall(__NR_io_uring_setup, 1, &u->p);
	if (u->fd < 0)
		return -errno;
	u->sq_len = u->p.sq_off.array + u->p.sq_entries * sizeof(unsigned);
	u->cq_len = u->p.cq_off.cqes + u->p.cq_entries * sizeof(struct io_uring_cqe);
	if (u->p.features & IORING_FEAT_SINGLE_MMAP)
		u->sq_len = u->cq_len = u->sq_len > u->cq_len ? u->sq_len : u->cq_len;
	u->sqe_len = u->p.sq_entries * sizeof(struct io_uring_sqe);
	u->sq = mmap(NULL, u->sq_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, u->fd,
		     IORING_OFF_SQ_RING);
	if (u->sq == MAP_FAILED)
		die("mmap sq ring");
	u->cq = u->sq;
	if (!(u->p.features & IORING_FEAT_SINGLE_MMAP)) {
		u->cq = mmap(NULL, u->cq_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
			     u->fd, IORING_OFF_CQ_RING);
		if (u->cq == MAP_FAILED)
			die("mmap cq ring");
	}
	u->sqes = mmap(NULL, u->sqe_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, u->fd,
		       IORING_OFF_SQES);
	if (u->sqes == MAP_FAILED)
		die("mmap sqes");
	return 0;
}

/* Submits SQE, waits for its completion: its res. */
static int uring_do(struct uring *u, const struct io_uring_sqe *sqe)
{
	char *sq = u->sq, *cq = u->cq;
	unsigned *tail = (unsigned *)(sq + u->p.sq_off.tail), head;
	unsigned *array = (unsigned *)(sq + u->p.sq_off.array);
	struct io_uring_cqe *cqes = (struct io_uring_cqe *)(cq + u->p.cq_off.cqes);
	int res;

	u->sqes[0] = *sqe;
	array[*tail & *(unsigned *)(sq + u->p.sq_off.ring_mask)] = 0;
	__atomic_store_n(tail, *tail + 1, __ATOMIC_RELEASE);
	if (syscall(__NR_io_uring_enter, u->fd, 1, 1, IORING_ENTER_GETEVENTS, NULL, 0) < 0)
		die("io_uring_enter");
	head = __atomic_load_n((unsigned *)(cq + u->p.cq_off.head), __ATOMIC_ACQUIRE);
	if (head == __atomic_load_n((unsigned *)(cq + u->p.cq_off.tail), __ATOMIC_ACQUIRE)) {
		errno = EIO;
		die("io_uring: no completion");
		return -EIO;
	}
	res = cqes[head & *(unsigned *)(cq + u->p.cq_off.ring_mask)].res;
	__atomic_store_n((unsigned *)(cq + u->p.cq_off.head), head + 1, __ATOMIC_RELEASE);
	return res;
}

static void uring_fini(struct uring *u)
{
	munmap(u->sqes, u->sqe_len);
	if (u->cq != u->sq)
		munmap(u->cq, u->cq_len);
	munmap(u->sq, u->sq_len);
	close(u->fd);
}

/* openat(AT_FDCWD, PATH, FLAGS) as an io_uring request (IORING_OP_OPENAT, no open syscall): the
 * new fd, or -errno; with slot > 0, into the ring's fixed-file slot slot - 1 (no fd at all). */
static int uring_openat_in(struct uring *u, const char *path, int flags, unsigned slot)
{
	struct io_uring_sqe sqe = {0};

	sqe.opcode = IORING_OP_OPENAT;
	sqe.fd = AT_FDCWD;
	sqe.addr = (uintptr_t)path;
	sqe.open_flags = (__u32)flags;
	sqe.file_index = slot;
	return uring_do(u, &sqe);
}

static int uring_openat(const char *path, int flags)
{
	struct uring u;
	int r = uring_init(&u);

	if (r < 0)
		return r;
	r = uring_openat_in(&u, path, flags, 0);
	uring_fini(&u);
	return r;
}

static void send_fd(int sock, int fd)
{
	char byte = 'x', ctl[CMSG_SPACE(sizeof(int))] = {0};
	struct iovec iov = {.iov_base = &byte, .iov_len = 1};
	struct msghdr msg = {
	    .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl, .msg_controllen = sizeof(ctl)};
	struct cmsghdr *c = CMSG_FIRSTHDR(&msg);

	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
	if (sendmsg(sock, &msg, 0) != 1)
		die("sendmsg");
}

static int recv_fd(int sock)
{
	char byte, ctl[CMSG_SPACE(sizeof(int))] = {0};
	struct iovec iov = {.iov_base = &byte, .iov_len = 1};
	struct msghdr msg = {
	    .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl, .msg_controllen = sizeof(ctl)};
	struct cmsghdr *c;
	int fd;

	if (recvmsg(sock, &msg, MSG_CMSG_CLOEXEC) != 1)
		die("recvmsg");
	c = CMSG_FIRSTHDR(&msg);
	if (!c || c->cmsg_type != SCM_RIGHTS || c->cmsg_len != CMSG_LEN(sizeof(int))) {
		errno = EPROTO;
		die("recvmsg: no fd");
	}
	memcpy(&fd, CMSG_DATA(c), sizeof(int));
	return fd;
}

/*
 * New fds that no open syscall makes, on the node NODE (argv) and on a child's /proc/PID/mem: an
 * io_uring open, a dup (fcntl F_DUPFD_CLOEXEC from 100), and the io_uring fd passed to a child
 * by SCM_RIGHTS. For the VM lab (the fentry and kprobe flavours see them at fd_install()).
 */
static int scenario_newfd(const char *node)
{
	int sv[2], fd, dup, memfd, status;
	pid_t victim, child;
	char path[64];

	say("pid=%d\n", getpid());
	victim = fork();
	if (victim < 0)
		die("fork");
	if (victim == 0) {
		for (;;)
			pause();
	}
	say("victim=%d\n", victim);
	fd = uring_openat(node, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		errno = -fd;
		die("io_uring openat of the node");
	}
	say("uring_fd=%d\n", fd);
	dup = fcntl(fd, F_DUPFD_CLOEXEC, 100);
	if (dup < 0)
		die("fcntl F_DUPFD_CLOEXEC");
	say("dup_fd=%d\n", dup);
	if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv) < 0)
		die("socketpair");
	child = fork();
	if (child < 0)
		die("fork");
	if (child == 0) {
		close(sv[0]);
		say("child=%d\nrecv_fd=%d\n", getpid(), recv_fd(sv[1]));
		_exit(0);
	}
	close(sv[1]);
	send_fd(sv[0], fd);
	if (waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		errno = ECHILD;
		die("the receiving child");
	}
	snprintf(path, sizeof(path), "/proc/%d/mem", victim);
	memfd = uring_openat(path, O_RDONLY | O_CLOEXEC);
	if (memfd < 0) {
		errno = -memfd;
		die("io_uring openat of /proc/PID/mem");
	}
	say("uring_memfd=%d\n", memfd);
	close(memfd);
	close(dup);
	close(fd);
	close(sv[0]);
	kill(victim, SIGKILL);
	waitpid(victim, NULL, 0);
	return 0;
}

/* The first mapped address of process pid (/proc/PID/maps), 0 if none. */
static unsigned long first_mapping(pid_t pid)
{
	char path[64];
	unsigned long a = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	if (fscanf(f, "%lx", &a) != 1)
		a = 0;
	fclose(f);
	return a;
}

/*
 * io_uring with fixed files, which never puts an fd in the process's table: NODE (or "-"; or
 * "standin": /dev/infiniband/uverbs0 in a private /dev, standin_dev()) opened
 * with IORING_OP_OPENAT into fixed slot 1, then /proc/PID/mem of TARGET (or, with "-", of a child
 * of its own) into slot 0 and 16 bytes of it read with a fixed-file IORING_OP_READ.
 */
static int scenario_fixed(const char *node, const char *target)
{
	pid_t victim = 0, pid;
	struct io_uring_sqe sqe = {0};
	int files[2] = {-1, -1}, r;
	unsigned long addr;
	struct uring u;
	char path[64], buf[16] = "";

	if (strcmp(node, "standin") == 0) {
		standin_dev();
		node = "/dev/infiniband/uverbs0";
	}
	say("pid=%d\n", getpid());
	if (strcmp(target, "-") == 0) {
		victim = fork();
		if (victim < 0)
			die("fork");
		if (victim == 0) {
			for (;;)
				pause();
		}
		pid = victim;
		addr = (unsigned long)secret;
	} else {
		pid = (pid_t)atoi(target);
		addr = first_mapping(pid);
	}
	say("victim=%d\n", pid);
	r = uring_init(&u);
	if (r < 0) {
		errno = -r;
		die("io_uring_setup");
		return 1;
	}
	if (syscall(__NR_io_uring_register, u.fd, IORING_REGISTER_FILES, files, 2) < 0)
		die("IORING_REGISTER_FILES");
	if (strcmp(node, "-") != 0)
		say("fixed_node=%d\n", uring_openat_in(&u, node, O_RDWR, 2));
	/* no O_CLOEXEC: a fixed file has no fd to close on exec (EINVAL) */
	snprintf(path, sizeof(path), "/proc/%d/mem", pid);
	say("fixed_mem=%d\n", uring_openat_in(&u, path, O_RDONLY, 1));
	sqe.opcode = IORING_OP_READ;
	sqe.flags = IOSQE_FIXED_FILE;
	sqe.fd = 0;
	sqe.addr = (uintptr_t)buf;
	sqe.len = sizeof(buf);
	sqe.off = addr;
	r = uring_do(&u, &sqe);
	say("fixed_read=%d\n", r);
	say("fixed_read_same=%d\n", victim && r == (int)sizeof(buf) &&
					       memcmp(buf, (const char *)secret, sizeof(buf)) == 0);
	uring_fini(&u);
	if (victim) {
		kill(victim, SIGKILL);
		waitpid(victim, NULL, 0);
	}
	return 0;
}

/*
 * ptrace links that no attach request makes: a child asks to be traced (PTRACE_TRACEME) and
 * stops; its tracer, this process, sets PTRACE_O_TRACEFORK; the child forks a grandchild, which
 * is attached to the tracer at fork, and which executes SELF exit 0 under trace.
 */
static int scenario_traceme(const char *self)
{
	pid_t child, gc = 0, w;
	int status, live = 2;

	say("pid=%d\n", getpid());
	child = fork();
	if (child < 0)
		die("fork");
	if (child == 0) {
		if (ptrace(PTRACE_TRACEME, 0, NULL, NULL) < 0)
			_exit(3);
		raise(SIGSTOP);
		gc = fork();
		if (gc == 0) {
			execl(self, self, "exit", "0", (char *)NULL);
			_exit(127);
		}
		waitpid(gc, NULL, 0);
		_exit(0);
	}
	say("child=%d\n", child);
	if (waitpid(child, &status, 0) != child || !WIFSTOPPED(status))
		die("the child's first stop");
	if (ptrace(PTRACE_SETOPTIONS, child, NULL, (void *)(long)(PTRACE_O_TRACEFORK |
								  PTRACE_O_EXITKILL)) < 0)
		die("PTRACE_SETOPTIONS");
	ptrace(PTRACE_CONT, child, NULL, NULL);
	while (live > 0 && (w = waitpid(-1, &status, __WALL)) > 0) {
		int sig = 0;

		if (WIFEXITED(status) || WIFSIGNALED(status)) {
			live--;
			continue;
		}
		if (!WIFSTOPPED(status))
			continue;
		if (w == child && status >> 8 == (SIGTRAP | (PTRACE_EVENT_FORK << 8))) {
			unsigned long msg = 0;

			ptrace(PTRACE_GETEVENTMSG, child, NULL, &msg);
			gc = (pid_t)msg;
			say("grandchild=%d\n", gc);
		} else if (WSTOPSIG(status) != SIGSTOP && WSTOPSIG(status) != SIGTRAP) {
			sig = WSTOPSIG(status);
		}
		ptrace(PTRACE_CONT, w, NULL, (void *)(long)sig);
	}
	say("traced=%d\n", gc > 0);
	return 0;
}

/* LIB mapped as data, then made executable with mprotect(2) (a loader of its own). */
static int scenario_mprotect(const char *lib)
{
	struct stat st;
	void *p;
	int fd;

	say("pid=%d\n", getpid());
	fd = open(lib, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0)
		die("open the library");
	p = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED)
		die("mmap");
	say("mprotect=%d\n", mprotect(p, 4096, PROT_READ | PROT_EXEC));
	say("ino=%lu\n", (unsigned long)st.st_ino);
	munmap(p, 4096);
	close(fd);
	return 0;
}

/* The flooder's own reads of the game (pid game, nobody's too): /proc/GAME/mem opened and read,
 * process_vm_readv, PTRACE_SEIZE (it ends with the flooder). */
static void flood_game(pid_t game)
{
	char path[64], line[256];
	unsigned long lo = 0;
	char buf[16];
	struct iovec l = {buf, sizeof(buf)}, r;
	FILE *f;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)game);
	f = fopen(path, "re");
	if (!f || !fgets(line, sizeof(line), f) || sscanf(line, "%lx-", &lo) != 1)
		die("read the game's maps");
	fclose(f);
	snprintf(path, sizeof(path), "/proc/%d/mem", (int)game);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		die("open the game's mem");
	say("mem_read=%zd\n", pread(fd, buf, sizeof(buf), (off_t)lo));
	close(fd);
	r = (struct iovec){(void *)lo, sizeof(buf)};
	say("readv=%zd\n", process_vm_readv(game, &l, 1, &r, 1, 0));
	say("seize=%ld\n", ptrace(PTRACE_SEIZE, game, NULL, NULL));
}

/*
 * A flood of low-value records: as nobody, opens and closes /proc/self/mem as fast as it can for
 * SECONDS (or until killed). Prints its pid first, then the number of opens. With GAMEPID (a
 * process of nobody's), then reads the game's memory three ways, over its budget.
 */
static int scenario_flood(const char *seconds, const char *game)
{
	struct timespec t0, t;
	long n = 0, secs = atol(seconds);

	/* dumpable again after the change of credentials: its /proc/self is its own */
	if (setgroups(0, NULL) < 0 || setgid(65534) < 0 || setuid(65534) < 0 ||
	    prctl(PR_SET_DUMPABLE, 1) < 0)
		die("become nobody");
	say("pid=%d\n", getpid());
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		for (int i = 0; i < 256; i++) {
			int fd = open("/proc/self/mem", O_RDONLY | O_CLOEXEC);

			if (fd < 0)
				die("open /proc/self/mem");
			close(fd);
			n++;
		}
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while (t.tv_sec - t0.tv_sec < secs);
	say("opens=%ld\n", n);
	if (game)
		flood_game((pid_t)atoi(game));
	return 0;
}

/* The cheat beside a flood: the stand-in uverbs0 (or NODE) opened, one legacy REG_MR with remote
 * read written to it. */
static int scenario_cheat(const char *node)
{
	static struct ib_uverbs_reg_mr_resp mr_resp = {.mr_handle = 0x78};
	struct cmd_reg_mr reg;
	int fd;

	if (strcmp(node, "standin") == 0) {
		standin_dev();
		node = "/dev/infiniband/uverbs0";
	}
	say("pid=%d\n", getpid());
	fd = open(node, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		die("open the node");
	say("fd=%d\n", fd);
	reg_mr_cmd(&reg, &mr_resp, 0x5000, IB_UVERBS_ACCESS_REMOTE_READ);
	wr(fd, &reg, sizeof(reg), "write reg_mr");
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr,
			"usage: rg-host-driver verbs|cm|writev|proc|exit CODE|mem|lib|hold|heldfd NODE|newfd "
			"NODE|creat|fixed NODE|- PID|-|traceme|flood SECONDS [GAMEPID]|cheat NODE|\n"
			"       mprotect LIB\n");
		return 2;
	}
	if (strcmp(argv[1], "verbs") == 0)
		return scenario_verbs();
	if (strcmp(argv[1], "cm") == 0)
		return scenario_cm();
	if (strcmp(argv[1], "writev") == 0)
		return scenario_writev();
	if (strcmp(argv[1], "proc") == 0)
		return scenario_proc(argv[0][0] == '/' ? argv[0] : "/proc/self/exe");
	if (strcmp(argv[1], "exit") == 0 && argc > 2)
		return atoi(argv[2]);
	if (strcmp(argv[1], "mem") == 0)
		return scenario_mem();
	if (strcmp(argv[1], "lib") == 0)
		return scenario_lib();
	if (strcmp(argv[1], "hold") == 0)
		return scenario_hold();
	if (strcmp(argv[1], "heldfd") == 0 && argc > 2)
		return scenario_heldfd(argv[2]);
	if (strcmp(argv[1], "newfd") == 0 && argc > 2)
		return scenario_newfd(argv[2]);
	if (strcmp(argv[1], "creat") == 0)
		return scenario_creat();
	if (strcmp(argv[1], "mprotect") == 0 && argc > 2)
		return scenario_mprotect(argv[2]);
	if (strcmp(argv[1], "flood") == 0 && argc > 2)
		return scenario_flood(argv[2], argc > 3 ? argv[3] : NULL);
	if (strcmp(argv[1], "cheat") == 0 && argc > 2)
		return scenario_cheat(argv[2]);
	if (strcmp(argv[1], "traceme") == 0)
		return scenario_traceme(argv[0][0] == '/' ? argv[0] : "/proc/self/exe");
	if (strcmp(argv[1], "fixed") == 0 && argc > 3)
		return scenario_fixed(argv[2], argv[3]);
	fprintf(stderr, "rg-host-driver: unknown scenario %s\n", argv[1]);
	return 2;
}
