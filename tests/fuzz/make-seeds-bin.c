/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Writes the binary seed inputs of the verbs, rdma_cm, record and uevent fuzz targets into
 * CORPUS_DIR/<target>/, built with the kernel's uapi structs (as tests/unit/test_sensors.c does)
 * in the input formats the targets document. make-seeds.py runs it; the seeds are committed.
 *
 * usage: fuzz-make-seeds CORPUS_DIR
 */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <linux/bpf.h>
#include <linux/rds.h>
#include <rdma/ib_user_ioctl_cmds.h>
#include <rdma/ib_user_ioctl_verbs.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/rdma_user_cm.h>
#include <rdma/rdma_user_ioctl_cmds.h>

#include "bpf/events.h"

static const char *corpus;

static void put(const char *target, const char *name, const void *a, size_t alen, const void *b,
		size_t blen)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", corpus, target);
	if (mkdir(path, 0755) < 0 && errno != EEXIST) {
		perror(path);
		exit(1);
	}
	snprintf(path, sizeof(path), "%s/%s/%s", corpus, target, name);
	f = fopen(path, "wb");
	if (!f || (alen && fwrite(a, 1, alen, f) != alen) || (blen && fwrite(b, 1, blen, f) != blen) ||
	    fclose(f) != 0) {
		perror(path);
		exit(1);
	}
}

/* [count u64][resp_len u16][resp][buf]: the uverbs_write and rdma_cm formats. */
static void put_write(const char *target, const char *name, const void *buf, size_t len,
		      const void *resp, uint16_t resp_len)
{
	uint8_t tmp[4096];
	uint64_t count = len;

	memcpy(tmp, &count, 8);
	memcpy(tmp + 8, &resp_len, 2);
	memcpy(tmp + 10, resp, resp_len);
	memcpy(tmp + 10 + resp_len, buf, len);
	put(target, name, tmp, 10 + resp_len + len, NULL, 0);
}

static void v4gid(uint8_t gid[16], uint8_t a, uint8_t b, uint8_t c, uint8_t d)
{
	memset(gid, 0, 16);
	gid[10] = gid[11] = 0xff;
	gid[12] = a;
	gid[13] = b;
	gid[14] = c;
	gid[15] = d;
}

static void uverbs_write(void)
{
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		struct ib_uverbs_reg_mr body;
	} reg = {0};
	struct ib_uverbs_reg_mr_resp reg_resp = {.mr_handle = 17, .lkey = 5, .rkey = 6};
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		struct ib_uverbs_modify_qp body;
	} mod = {0};
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		struct ib_uverbs_ex_cmd_hdr ex;
		struct ib_uverbs_ex_create_qp body;
	} exqp = {0};
	struct ib_uverbs_ex_create_qp_resp exqp_resp = {0};
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		struct ib_uverbs_create_ah body;
	} ah = {0};
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		struct ib_uverbs_post_send body;
	} ps = {0};
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		struct ib_uverbs_dereg_mr body;
	} dereg = {0};

	reg.hdr.command = IB_USER_VERBS_CMD_REG_MR;
	reg.hdr.in_words = sizeof(reg) / 4;
	reg.hdr.out_words = sizeof(reg_resp) / 4;
	reg.body.start = reg.body.hca_va = 0x7f1234560000ull;
	reg.body.length = 1 << 20;
	reg.body.pd_handle = 4;
	reg.body.access_flags = IB_UVERBS_ACCESS_REMOTE_READ | IB_UVERBS_ACCESS_REMOTE_WRITE;
	put_write("uverbs_write", "reg_mr", &reg, sizeof(reg), &reg_resp, sizeof(reg_resp));
	put_write("uverbs_write", "reg_mr-failed", &reg, sizeof(reg), NULL, 0);

	mod.hdr.command = IB_USER_VERBS_CMD_MODIFY_QP;
	mod.hdr.in_words = sizeof(mod) / 4;
	v4gid(mod.body.dest.dgid, 198, 51, 100, 9);
	mod.body.qp_handle = 3;
	mod.body.attr_mask = 1 | (1 << 7) | (1 << 20);
	mod.body.dest_qp_num = 0xabcd;
	mod.body.qp_state = 2;
	put_write("uverbs_write", "modify_qp-rtr", &mod, sizeof(mod), NULL, 0);

	exqp.hdr.command = IB_USER_VERBS_CMD_FLAG_EXTENDED | IB_USER_VERBS_EX_CMD_CREATE_QP;
	exqp.hdr.in_words = sizeof(exqp.body) / 8;
	exqp.hdr.out_words = sizeof(exqp_resp) / 8;
	exqp.body.qp_type = 2; /* RC */
	exqp_resp.base.qp_handle = 2;
	exqp_resp.base.qpn = 0x11;
	put_write("uverbs_write", "ex_create_qp", &exqp, sizeof(exqp), &exqp_resp,
		  sizeof(exqp_resp));

	ah.hdr.command = IB_USER_VERBS_CMD_CREATE_AH;
	ah.hdr.in_words = sizeof(ah) / 4;
	v4gid(ah.body.attr.grh.dgid, 192, 0, 2, 99);
	put_write("uverbs_write", "create_ah", &ah, sizeof(ah), NULL, 0);

	ps.hdr.command = IB_USER_VERBS_CMD_POST_SEND;
	ps.hdr.in_words = sizeof(ps) / 4;
	ps.body.qp_handle = 9;
	ps.body.wr_count = 1;
	put_write("uverbs_write", "post_send", &ps, sizeof(ps), NULL, 0);

	dereg.hdr.command = IB_USER_VERBS_CMD_DEREG_MR;
	dereg.hdr.in_words = sizeof(dereg) / 4;
	dereg.body.mr_handle = 17;
	put_write("uverbs_write", "dereg_mr", &dereg, sizeof(dereg), NULL, 0);
}

struct ioc {
	struct ib_uverbs_ioctl_hdr hdr;
	struct ib_uverbs_attr attrs[8];
};

static size_t ioc_init(struct ioc *b, uint16_t obj, uint16_t meth, uint16_t n)
{
	memset(b, 0, sizeof(*b));
	b->hdr.length = (uint16_t)(sizeof(b->hdr) + n * sizeof(struct ib_uverbs_attr));
	b->hdr.object_id = obj;
	b->hdr.method_id = meth;
	b->hdr.num_attrs = n;
	return b->hdr.length;
}

/* [nblobs][{attr u16, len u16, data}...][buf]: the uverbs_ioctl format. */
static void put_ioctl(const char *name, const struct ioc *b, size_t len, unsigned nblobs,
		      const uint16_t *attrs, const void *const *data, const uint16_t *lens)
{
	uint8_t tmp[4096];
	size_t n = 0;
	unsigned i;

	tmp[n++] = (uint8_t)nblobs;
	for (i = 0; i < nblobs; i++) {
		memcpy(tmp + n, &attrs[i], 2);
		memcpy(tmp + n + 2, &lens[i], 2);
		memcpy(tmp + n + 4, data[i], lens[i]);
		n += 4 + lens[i];
	}
	memcpy(tmp + n, b, len);
	put("uverbs_ioctl", name, tmp, n + len, NULL, 0);
}

static void uverbs_ioctl(void)
{
	struct ib_uverbs_reg_mr in = {.start = 0x1000, .length = 0x2000, .hca_va = 0x1000,
				      .access_flags = IB_UVERBS_ACCESS_ON_DEMAND |
						      IB_UVERBS_ACCESS_REMOTE_WRITE};
	struct ib_uverbs_reg_mr_resp out = {.mr_handle = 8};
	uint32_t qpn = 0x42;
	struct ioc b;
	size_t len;

	len = ioc_init(&b, UVERBS_OBJECT_DEVICE, UVERBS_METHOD_INVOKE_WRITE, 3);
	b.hdr.driver_id = 1;
	b.attrs[0] = (struct ib_uverbs_attr){.attr_id = UVERBS_ATTR_CORE_IN, .len = sizeof(in)};
	b.attrs[1] = (struct ib_uverbs_attr){.attr_id = UVERBS_ATTR_CORE_OUT, .len = sizeof(out)};
	b.attrs[2] = (struct ib_uverbs_attr){.attr_id = UVERBS_ATTR_WRITE_CMD, .len = 8,
					     .data = IB_USER_VERBS_CMD_REG_MR};
	put_ioctl("invoke_write-reg_mr", &b, len, 2, (const uint16_t[]){0, 1},
		  (const void *const[]){&in, &out}, (const uint16_t[]){sizeof(in), sizeof(out)});

	len = ioc_init(&b, UVERBS_OBJECT_DEVICE, UVERBS_METHOD_INVOKE_WRITE, 2);
	b.attrs[0] = (struct ib_uverbs_attr){.attr_id = UVERBS_ATTR_WRITE_CMD, .len = 8,
					     .data = IB_USER_VERBS_CMD_DEALLOC_PD};
	b.attrs[1] = (struct ib_uverbs_attr){.attr_id = UVERBS_ATTR_CORE_IN, .len = 4, .data = 77};
	put_ioctl("invoke_write-dealloc_pd-inline", &b, len, 0, NULL, NULL, NULL);

	len = ioc_init(&b, UVERBS_OBJECT_QP, UVERBS_METHOD_QP_CREATE, 3);
	b.attrs[0] = (struct ib_uverbs_attr){.attr_id = UVERBS_ATTR_CREATE_QP_RESP_QP_NUM, .len = 4,
					     .data = 0x7fff0000};
	b.attrs[1] = (struct ib_uverbs_attr){.attr_id = UVERBS_ATTR_CREATE_QP_TYPE, .len = 1,
					     .data = 2};
	b.attrs[2] = (struct ib_uverbs_attr){.attr_id = UVERBS_ATTR_CREATE_QP_HANDLE, .data = 5};
	put_ioctl("qp_create", &b, len, 1, (const uint16_t[]){0}, (const void *const[]){&qpn},
		  (const uint16_t[]){4});

	len = ioc_init(&b, UVERBS_OBJECT_MR, 5 /* REG_MR, Linux 6.17 */, 5);
	b.attrs[0] = (struct ib_uverbs_attr){.attr_id = 4 /* ADDR */, .len = 8, .data = 0x5000};
	b.attrs[1] = (struct ib_uverbs_attr){.attr_id = 5 /* LENGTH */, .len = 8, .data = ~0ull};
	b.attrs[2] = (struct ib_uverbs_attr){.attr_id = 3 /* IOVA */, .len = 8, .data = 0};
	b.attrs[3] = (struct ib_uverbs_attr){.attr_id = 6 /* ACCESS */, .len = 4,
					     .data = IB_UVERBS_ACCESS_ON_DEMAND |
						     IB_UVERBS_ACCESS_REMOTE_READ};
	b.attrs[4] = (struct ib_uverbs_attr){.attr_id = 0 /* HANDLE */, .data = 6};
	put_ioctl("mr_reg-implicit-odp", &b, len, 0, NULL, NULL, NULL);

	len = ioc_init(&b, UVERBS_OBJECT_MR, UVERBS_METHOD_MR_DESTROY, 1);
	b.attrs[0] = (struct ib_uverbs_attr){.attr_id = UVERBS_ATTR_DESTROY_MR_HANDLE, .data = 6};
	put_ioctl("mr_destroy", &b, len, 0, NULL, NULL, NULL);

	len = ioc_init(&b, UVERBS_OBJECT_DEVICE, UVERBS_METHOD_GET_CONTEXT, 0);
	put_ioctl("get_context", &b, len, 0, NULL, NULL, NULL);

	len = ioc_init(&b, 0x2000, 7, 0); /* a driver object */
	put_ioctl("driver-object", &b, len, 0, NULL, NULL, NULL);
}

struct cmw {
	struct rdma_ucm_cmd_hdr hdr;
	union {
		struct rdma_ucm_create_id create;
		struct rdma_ucm_resolve_ip rip;
		struct rdma_ucm_bind bind;
		struct rdma_ucm_query query;
		struct rdma_ucm_listen listen;
		struct rdma_ucm_accept accept;
		struct rdma_ucm_connect connect;
	};
};

static void rdma_cm(void)
{
	struct rdma_ucm_create_id_resp cresp = {.id = 12};
	struct rdma_ucm_query_addr_resp qresp;
	struct sockaddr_in6 *s6;
	struct sockaddr_in *s4;
	struct cmw w;

	memset(&w, 0, sizeof(w));
	w.hdr.cmd = RDMA_USER_CM_CMD_CREATE_ID;
	w.hdr.in = sizeof(w.create);
	w.hdr.out = sizeof(cresp);
	w.create.ps = RDMA_PS_TCP;
	put_write("rdma_cm", "create_id", &w, 8 + sizeof(w.create), &cresp, sizeof(cresp));

	memset(&w, 0, sizeof(w));
	w.hdr.cmd = RDMA_USER_CM_CMD_RESOLVE_IP;
	w.hdr.in = sizeof(w.rip);
	s6 = &w.rip.dst_addr;
	s6->sin6_family = AF_INET6;
	s6->sin6_port = htons(20000);
	inet_pton(AF_INET6, "2001:db8::5", &s6->sin6_addr);
	w.rip.id = 4;
	put_write("rdma_cm", "resolve_ip-v6", &w, 8 + sizeof(w.rip), NULL, 0);

	memset(&w, 0, sizeof(w));
	w.hdr.cmd = RDMA_USER_CM_CMD_BIND;
	w.hdr.in = sizeof(w.bind);
	{
		uint8_t *a = (uint8_t *)&w.bind.addr;
		uint64_t sid = htobe64(0x0000000001060000ull | 18515);

		a[0] = 27; /* AF_IB */
		a[8] = 0xfe;
		a[9] = 0x80;
		a[23] = 1;
		memcpy(a + 24, &sid, 8);
	}
	w.bind.id = 2;
	put_write("rdma_cm", "bind-af_ib", &w, 8 + sizeof(w.bind), NULL, 0);

	memset(&w, 0, sizeof(w));
	memset(&qresp, 0, sizeof(qresp));
	w.hdr.cmd = RDMA_USER_CM_CMD_QUERY;
	w.hdr.in = sizeof(w.query);
	w.hdr.out = sizeof(qresp);
	w.query.id = 7;
	w.query.option = RDMA_USER_CM_QUERY_ADDR;
	s4 = (struct sockaddr_in *)&qresp.dst_addr;
	s4->sin_family = AF_INET;
	s4->sin_port = htons(7174);
	inet_pton(AF_INET, "203.0.113.8", &s4->sin_addr);
	put_write("rdma_cm", "query-addr", &w, 8 + sizeof(w.query), &qresp, sizeof(qresp));

	memset(&w, 0, sizeof(w));
	w.hdr.cmd = RDMA_USER_CM_CMD_LISTEN;
	w.hdr.in = sizeof(w.listen);
	w.listen.id = 3;
	w.listen.backlog = 8;
	put_write("rdma_cm", "listen", &w, 8 + sizeof(w.listen), NULL, 0);

	memset(&w, 0, sizeof(w));
	w.hdr.cmd = RDMA_USER_CM_CMD_ACCEPT;
	w.hdr.in = sizeof(w.accept);
	w.accept.id = 9;
	put_write("rdma_cm", "accept", &w, 8 + sizeof(w.accept), NULL, 0);

	memset(&w, 0, sizeof(w));
	w.hdr.cmd = RDMA_USER_CM_CMD_CONNECT;
	w.hdr.in = sizeof(w.connect);
	w.connect.id = 4;
	w.connect.conn_param.responder_resources = 1;
	w.connect.conn_param.initiator_depth = 1;
	put_write("rdma_cm", "connect", &w, 8 + sizeof(w.connect), NULL, 0);
}

static void hdr(struct rg_rec_hdr *h, unsigned type, uint32_t pid, const char *comm)
{
	h->type = (uint16_t)type;
	h->hook = RG_HOOK_TRACEPOINT;
	h->ts_boot_ns = 5000000000ull + pid;
	h->pid = h->tid = pid;
	h->ppid = 1;
	h->uid = 1000;
	h->start_boot_ns = (uint64_t)pid * 1000000000ull;
	strncpy(h->comm, comm, sizeof(h->comm) - 1);
}

/* RDS and SMC socket records: an RDS_GET_MR, and a sendmsg with RDMA_ARGS + RDMA_MAP. */
static void sock_records(void)
{
	static struct rg_rec_sock so;
	struct rds_get_mr_args mr = {.vec = {.addr = 0x7f0000001000ull, .bytes = 8192},
				     .cookie_addr = 0x7ffc00000000ull};
	struct rds_rdma_args ra = {.cookie = 0x100000001ull,
				   .remote_vec = {.addr = 4096, .bytes = 4096},
				   .nr_local = 1,
				   .flags = RDS_RDMA_READWRITE | RDS_RDMA_NOTIFY_ME};
	struct sockaddr_in sin = {.sin_family = AF_INET, .sin_port = htons(18601)};
	struct cmsghdr c;
	size_t off = 0;

	memset(&so, 0, sizeof(so));
	hdr(&so.h, RG_REC_SOCK, 103, "rdsbridge");
	so.call = RG_SOCK_SETSOCKOPT;
	so.fd = 3;
	so.family = AF_RDS;
	so.type = SOCK_SEQPACKET;
	so.level = SOL_RDS;
	so.optname = RDS_GET_MR;
	so.optlen = sizeof(mr);
	memcpy(so.data, &mr, sizeof(mr));
	so.data_len = sizeof(mr);
	so.cookie = 0x100000001ull;
	put("record", "sock-get-mr", &so, sizeof(so), NULL, 0);

	memset(so.data, 0, sizeof(so.data));
	so.call = RG_SOCK_SENDMSG;
	so.level = so.optname = 0;
	so.cookie = 0;
	inet_pton(AF_INET, "192.0.2.2", &sin.sin_addr);
	memcpy(so.addr, &sin, sizeof(sin));
	so.addr_len = sizeof(sin);
	c = (struct cmsghdr){.cmsg_len = CMSG_LEN(sizeof(ra)), .cmsg_level = SOL_RDS,
			     .cmsg_type = RDS_CMSG_RDMA_ARGS};
	memcpy(so.data, &c, sizeof(c));
	memcpy(so.data + sizeof(c), &ra, sizeof(ra));
	off = CMSG_SPACE(sizeof(ra));
	c = (struct cmsghdr){.cmsg_len = CMSG_LEN(sizeof(mr)), .cmsg_level = SOL_RDS,
			     .cmsg_type = RDS_CMSG_RDMA_MAP};
	memcpy(so.data + off, &c, sizeof(c));
	memcpy(so.data + off + sizeof(c), &mr, sizeof(mr));
	off += CMSG_SPACE(sizeof(mr));
	so.data_len = so.optlen = (uint32_t)off;
	put("record", "sock-sendmsg-rdma", &so, sizeof(so), NULL, 0);
}

static void records(void)
{
	static const char args[] = "ib_write_bw\0-d\0rxe0\0--size=65536";
	struct rg_rec_exec ex = {0};
	struct rg_rec_fork fk = {0};
	struct rg_rec_exit xt = {0};
	struct rg_rec_open op = {0};
	struct rg_rec_lib lib = {0};
	struct rg_rec_mem mem = {0};
	struct rg_rec_ucall uc = {0};
	struct rg_rec_module mod = {0};
	struct rg_rec_bpf bpf = {0};
	struct rg_rec_cmd *c = calloc(1, sizeof(*c));
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		struct ib_uverbs_reg_mr body;
	} reg = {0};
	struct ib_uverbs_reg_mr_resp reg_resp = {.mr_handle = 17};
	struct ioc b;
	size_t len;

	if (!c)
		exit(1);
	hdr(&ex.h, RG_REC_EXEC, 100, "ib_write_bw");
	ex.parent_start_boot_ns = 1000000000ull;
	ex.exe_ino = 1234;
	ex.exe_dev = (8u << 20) | 1;
	ex.sid = 100;
	strcpy(ex.filename, "/usr/bin/ib_write_bw");
	strcpy(ex.exe, "/usr/bin/ib_write_bw");
	memcpy(ex.args, args, sizeof(args));
	ex.args_len = ex.args_size = sizeof(args);
	put("record", "exec", &ex, sizeof(ex), NULL, 0);

	hdr(&fk.h, RG_REC_FORK, 101, "ib_write_bw");
	fk.h.ppid = 100;
	fk.parent_start_boot_ns = 100000000000ull;
	put("record", "fork", &fk, sizeof(fk), NULL, 0);

	hdr(&xt.h, RG_REC_EXIT, 101, "ib_write_bw");
	xt.code = 9;
	xt.rdma = 1;
	put("record", "exit", &xt, sizeof(xt), NULL, 0);

	hdr(&op.h, RG_REC_OPEN, 100, "ib_write_bw");
	op.fd = 3;
	op.what = RG_OPEN_RDMA;
	op.rdev = (231u << 20) | 192;
	op.mode = 020666;
	op.node = RG_NODE_UVERBS_FD;
	op.ino = 77;
	strcpy(op.path, "/dev/infiniband/uverbs0");
	put("record", "open-uverbs", &op, sizeof(op), NULL, 0);
	memset(&op, 0, sizeof(op));
	hdr(&op.h, RG_REC_OPEN, 102, "cheat");
	op.fd = 5;
	op.what = RG_OPEN_PROC_MEM;
	op.target_pid = 900;
	op.target_start_boot_ns = 900000000000ull;
	strcpy(op.target_comm, "arena");
	strcpy(op.path, "/proc/900/mem");
	put("record", "open-proc-mem", &op, sizeof(op), NULL, 0);

	reg.hdr.command = IB_USER_VERBS_CMD_REG_MR;
	reg.hdr.in_words = sizeof(reg) / 4;
	reg.hdr.out_words = sizeof(reg_resp) / 4;
	reg.body.length = 1 << 20;
	reg.body.access_flags = IB_UVERBS_ACCESS_REMOTE_READ;
	hdr(&c->h, RG_REC_CMD, 100, "ib_write_bw");
	c->fd = 3;
	c->node = RG_NODE_UVERBS_FD;
	c->via = RG_CMD_WRITE;
	c->rdev = (231u << 20) | 192;
	c->count = sizeof(reg);
	c->calls = 1;
	c->data_len = sizeof(reg);
	memcpy(c->data, &reg, sizeof(reg));
	c->nblobs = 1;
	c->blob_len[0] = sizeof(reg_resp);
	memcpy(c->blob, &reg_resp, sizeof(reg_resp));
	put("record", "cmd-write-reg_mr", c, sizeof(*c), NULL, 0);

	memset(c, 0, sizeof(*c));
	hdr(&c->h, RG_REC_CMD, 100, "ib_write_bw");
	len = ioc_init(&b, UVERBS_OBJECT_QP, UVERBS_METHOD_QP_CREATE, 3);
	b.attrs[0] = (struct ib_uverbs_attr){.attr_id = UVERBS_ATTR_CREATE_QP_RESP_QP_NUM, .len = 4,
					     .data = 0x7fff0000};
	b.attrs[1] = (struct ib_uverbs_attr){.attr_id = UVERBS_ATTR_CREATE_QP_TYPE, .len = 1,
					     .data = 2};
	b.attrs[2] = (struct ib_uverbs_attr){.attr_id = UVERBS_ATTR_CREATE_QP_HANDLE, .data = 5};
	c->fd = 3;
	c->node = RG_NODE_UVERBS_FD;
	c->via = RG_CMD_IOCTL;
	c->rdev = (231u << 20) | 192;
	c->calls = 1;
	c->data_len = (uint32_t)len;
	memcpy(c->data, &b, len);
	c->nblobs = 1;
	c->blob_attr[0] = 0;
	c->blob_len[0] = 4;
	c->blob[0] = 0x42;
	put("record", "cmd-ioctl-qp_create", c, sizeof(*c), NULL, 0);

	memset(c, 0, sizeof(*c));
	hdr(&c->h, RG_REC_CMD, 100, "ib_write_bw");
	c->h.flags = RG_RECF_NORET;
	c->fd = 3;
	c->node = RG_NODE_UVERBS_FD;
	c->via = RG_CMD_POSTS;
	c->calls = 5000;
	c->data_len = 4;
	c->data[0] = IB_USER_VERBS_CMD_POST_SEND;
	put("record", "cmd-posts", c, sizeof(*c), NULL, 0);

	memset(c, 0, sizeof(*c));
	hdr(&c->h, RG_REC_CMD, 100, "ib_write_bw");
	c->fd = 3;
	c->node = RG_NODE_UVERBS_FD;
	c->via = RG_CMD_MMAP;
	c->count = 4096;
	c->mmap_off = 0x1000;
	c->mmap_prot = 3;
	put("record", "cmd-mmap", c, sizeof(*c), NULL, 0);
	free(c);

	hdr(&lib.h, RG_REC_LIB, 100, "ib_write_bw");
	lib.ino = 555;
	lib.dev = (8u << 20) | 1;
	lib.prot = 5;
	strcpy(lib.path, "/usr/lib/x86_64-linux-gnu/libibverbs.so.1.14.44.0");
	put("record", "lib", &lib, sizeof(lib), NULL, 0);

	hdr(&mem.h, RG_REC_MEM, 102, "cheat");
	mem.op = 1;
	mem.target_pid = 900;
	mem.ret = 4096;
	mem.target_start_boot_ns = 900000000000ull;
	strcpy(mem.target_comm, "arena");
	put("record", "mem", &mem, sizeof(mem), NULL, 0);

	hdr(&uc.h, RG_REC_UCALL, 100, "ib_write_bw");
	uc.h.hook = RG_HOOK_UPROBE;
	uc.fn = RG_UCALL_OPEN_DEVICE;
	strcpy(uc.device, "rxe0");
	put("record", "ucall", &uc, sizeof(uc), NULL, 0);

	hdr(&mod.h, RG_REC_MODULE, 1, "modprobe");
	strcpy(mod.name, "rdma_rxe");
	put("record", "module", &mod, sizeof(mod), NULL, 0);

	hdr(&bpf.h, RG_REC_BPF, 4100, "bpftool");
	bpf.cmd = BPF_LINK_DETACH;
	bpf.kind = RG_SELF_LINK;
	bpf.id = 77;
	bpf.fd = 3;
	bpf.ret = -95;
	strcpy(bpf.exe, "/usr/sbin/bpftool");
	put("record", "bpf-link-detach", &bpf, sizeof(bpf), NULL, 0);
	sock_records();
}

static void uevents(void)
{
	static const char add[] = "add@/devices/virtual/infiniband/rxe0\0ACTION=add\0"
				  "DEVPATH=/devices/virtual/infiniband/rxe0\0SUBSYSTEM=infiniband\0"
				  "NAME=rxe0\0SEQNUM=1234";
	static const char rm[] = "remove@/devices/pci0000:00/0000:00:03.0/infiniband/mlx5_0\0"
				 "ACTION=remove\0DEVPATH=/devices/pci0000:00/0000:00:03.0/infiniband/"
				 "mlx5_0\0SUBSYSTEM=infiniband\0SEQNUM=1300\0";
	static const char mod[] = "add@/module/rdma_rxe\0ACTION=add\0DEVPATH=/module/rdma_rxe\0"
				  "SUBSYSTEM=module\0SEQNUM=9\0";
	static const char udev[] = "libudev\0\xfe\xed\xca\xfe\x01\x02";

	put("uevent", "add-rxe0", add, sizeof(add) - 1, NULL, 0);
	put("uevent", "remove-mlx5_0", rm, sizeof(rm) - 1, NULL, 0);
	put("uevent", "module-rdma_rxe", mod, sizeof(mod) - 1, NULL, 0);
	put("uevent", "libudev", udev, sizeof(udev) - 1, NULL, 0);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s CORPUS_DIR\n", argv[0]);
		return 2;
	}
	corpus = argv[1];
	uverbs_write();
	uverbs_ioctl();
	rdma_cm();
	records();
	uevents();
	return 0;
}
