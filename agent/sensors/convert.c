/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <linux/bpf.h>
#include <linux/netlink.h>
#include <rdma/rdma_netlink.h>
#include <stdio.h>
#include <string.h>
#include <sys/sysmacros.h>

#include "bpf/events.h"
#include "common/macro.h"
#include "common/number.h"
#include "common/strutil.h"
#include "convert.h"
#include "decode.h"
#include "decode_sock.h"

/* The record layouts are part of the BPF <-> agent contract: pin their sizes. */
_Static_assert(sizeof(struct rg_rec_hdr) == 56, "rg_rec_hdr");
_Static_assert(sizeof(struct rg_rec_exec) == 56 + 40 + 3 * 256, "rg_rec_exec");
_Static_assert(sizeof(struct rg_rec_fork) == 64, "rg_rec_fork");
_Static_assert(sizeof(struct rg_rec_exit) == 64, "rg_rec_exit");
_Static_assert(sizeof(struct rg_rec_open) == 56 + 64 + 256, "rg_rec_open");
_Static_assert(sizeof(struct rg_rec_cmd) == 56 + 56 + 32 + 16 + 128 + RG_REC_DATA + RG_REC_BLOB,
	       "rg_rec_cmd");
_Static_assert(sizeof(struct rg_rec_lib) == 56 + 16 + 256, "rg_rec_lib");
_Static_assert(sizeof(struct rg_rec_mem) == 56 + 40, "rg_rec_mem");
_Static_assert(sizeof(struct rg_rec_ucall) == 56 + 8 + 64, "rg_rec_ucall");
_Static_assert(sizeof(struct rg_rec_module) == 56 + 56, "rg_rec_module");
_Static_assert(sizeof(struct rg_rec_bpf) == 56 + 24 + 256, "rg_rec_bpf");
_Static_assert(sizeof(struct rg_rec_netlink) == 56 + 8 + RG_REC_NLMSG, "rg_rec_netlink");
_Static_assert(sizeof(struct rg_rec_sock) == 56 + 56 + RG_REC_SOCKADDR + RG_REC_SOCKDATA, "rg_rec_sock");
_Static_assert(RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_NEWLINK) == (5 << 10) + 3,
	       "enforce.bpf.c matches rdma link add by this type");
_Static_assert(sizeof(struct rg_fd_key) == 8 && sizeof(struct rg_fd_val) == 24, "fd map");
_Static_assert(sizeof(struct rg_flow_key) == 40 && sizeof(struct rg_flow_val) == 40, "flows");
_Static_assert(sizeof(struct rg_fleet_key) == 20 && sizeof(struct rg_tc_cfg) == 8, "fleet");
_Static_assert(RG_REC_RESP_MAX <= RG_REC_BLOB, "response fits the blob");
_Static_assert(RG_REC_COMM == RG_COMM_LEN, "comm");
_Static_assert(RG_MEM_PROCESS_VM_READV == 1 && RG_MEM_PROCESS_VM_WRITEV == 2 &&
		   RG_MEM_PTRACE_ATTACH == 3 && RG_MEM_PTRACE_SEIZE == 4,
	       "memory.bpf.c uses these values");

static const char *const bpf_cmds[] = {
    [BPF_MAP_UPDATE_ELEM] = "bpf_map_update_elem",
    [BPF_MAP_DELETE_ELEM] = "bpf_map_delete_elem",
    [BPF_MAP_LOOKUP_AND_DELETE_ELEM] = "bpf_map_lookup_and_delete_elem",
    [BPF_MAP_FREEZE] = "bpf_map_freeze",
    [BPF_MAP_LOOKUP_AND_DELETE_BATCH] = "bpf_map_lookup_and_delete_batch",
    [BPF_MAP_UPDATE_BATCH] = "bpf_map_update_batch",
    [BPF_MAP_DELETE_BATCH] = "bpf_map_delete_batch",
    [BPF_LINK_UPDATE] = "bpf_link_update",
    [BPF_LINK_DETACH] = "bpf_link_detach",
};

const char *bpf_cmd_name(uint32_t cmd)
{
	return cmd < ARRAY_SIZE(bpf_cmds) ? bpf_cmds[cmd] : NULL;
}

void task_cache_note(struct task_cache *c, struct proc_key key, const char *comm)
{
	uint32_t pid = key.pid;
	uint64_t start_boot_ns = key.start_boot_ns;
	unsigned i = c->next % TASK_CACHE_SIZE;

	if (!pid)
		return;
	c->e[i].pid = pid;
	c->e[i].start_boot_ns = start_boot_ns;
	event_set_str(c->e[i].comm, sizeof(c->e[i].comm), comm ? comm : "",
		      comm ? strnlen(comm, RG_COMM_LEN) : 0);
	c->next = (i + 1) % TASK_CACHE_SIZE;
	if (c->used < TASK_CACHE_SIZE)
		c->used++;
}

int task_cache_find(const struct task_cache *c, uint32_t pid, uint64_t *start_boot_ns,
		    char comm[RG_COMM_LEN])
{
	/* newest first: a pid reused since names the newer process */
	for (unsigned k = 1; k <= c->used; k++) {
		unsigned i = (c->next + TASK_CACHE_SIZE - k) % TASK_CACHE_SIZE;

		if (pid && c->e[i].pid == pid) {
			*start_boot_ns = c->e[i].start_boot_ns;
			memcpy(comm, c->e[i].comm, RG_COMM_LEN);
			return 0;
		}
	}
	return -ENOENT;
}

bool exit_ring_seen(struct exit_ring *r, struct proc_key key)
{
	uint32_t pid = key.pid;
	uint64_t start_boot_ns = key.start_boot_ns;
	unsigned i;

	if (!pid)
		return false;
	for (i = 0; i < EXIT_RING_SIZE; i++)
		if (r->e[i].pid == pid && r->e[i].start_boot_ns == start_boot_ns)
			return true;
	i = r->next % EXIT_RING_SIZE;
	r->e[i].pid = pid;
	r->e[i].start_boot_ns = start_boot_ns;
	r->next = (i + 1) % EXIT_RING_SIZE;
	return false;
}

uint64_t kdev_to_dev(uint32_t kdev)
{
	return makedev(kdev >> 20, kdev & 0xfffff);
}

static const struct {
	const char *name;
	bool soft;
} rdma_modules[] = {
    {"ib_core", false},	    {"ib_uverbs", false}, {"ib_umad", false},  {"ib_cm", false},
    {"iw_cm", false},	    {"rdma_cm", false},	  {"rdma_ucm", false}, {"ib_ipoib", false},
    {"rdmavt", false},	    {"mlx5_ib", false},	  {"mlx4_ib", false},  {"irdma", false},
    {"bnxt_re", false},	    {"qedr", false},	  {"iw_cxgb4", false}, {"hns_roce_hw_v2", false},
    {"efa", false},	    {"erdma", false},	  {"mana_ib", false},  {"vmw_pvrdma", false},
    {"ocrdma", false},	    {"hfi1", false},	  {"ib_qib", false},   {"ib_mthca", false},
    {"usnic_verbs", false}, {"rdma_rxe", true},	  {"siw", true},
};

bool rdma_module_name(const char *name, bool *soft)
{
	for (size_t i = 0; i < ARRAY_SIZE(rdma_modules); i++)
		if (strcmp(rdma_modules[i].name, name) == 0) {
			if (soft)
				*soft = rdma_modules[i].soft;
			return true;
		}
	return false;
}

unsigned lib_kind_from_path(const char *path)
{
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	if (startswith(base, "libibverbs"))
		return RG_LIB_IBVERBS;
	if (startswith(base, "librdmacm"))
		return RG_LIB_RDMACM;
	return RG_LIB_PROVIDER;
}

static bool all_digits(const char *s, size_t n)
{
	if (n == 0 || n > 10)
		return false;
	for (size_t i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	return true;
}

uint32_t proc_mem_target(const char *path)
{
	/* Components from the end: "mem", then PID, or TID "task" PID. */
	const char *comp[4];
	size_t len[4], n = 0;
	const char *end = path + strlen(path);
	uint32_t pid;
	char buf[16];

	while (end > path && n < 4) {
		const char *p = end;

		while (p > path && p[-1] != '/')
			p--;
		comp[n] = p;
		len[n] = (size_t)(end - p);
		n++;
		end = p > path ? p - 1 : p;
	}
	if (n < 2 || len[0] != 3 || memcmp(comp[0], "mem", 3) != 0)
		return 0;
	if (n >= 4 && len[2] == 4 && memcmp(comp[2], "task", 4) == 0 &&
	    all_digits(comp[3], len[3]) && all_digits(comp[1], len[1])) {
		memcpy(buf, comp[3], len[3]);
		buf[len[3]] = 0;
	} else if (all_digits(comp[1], len[1])) {
		memcpy(buf, comp[1], len[1]);
		buf[len[1]] = 0;
	} else {
		return 0;
	}
	return safe_atou32(buf, 10, &pid) < 0 ? 0 : pid;
}

static void fill_proc(const struct rg_rec_hdr *h, const struct convert_ctx *ctx,
		      struct rg_event *ev)
{
	ev->provider = RG_PROV_SENSOR;
	ev->ts = h->ts_boot_ns + ctx->boot_to_real_ns;
	ev->proc.pid = h->pid;
	ev->proc.tid = h->tid;
	ev->proc.ppid = h->ppid;
	ev->proc.uid = h->uid;
	ev->proc.start_boot_ns = h->start_boot_ns;
	event_set_str(ev->proc.comm, sizeof(ev->proc.comm), h->comm, sizeof(h->comm));
	if (h->flags & (RG_RECF_TRUNC | RG_RECF_FAULT))
		ev->flags |= RG_EVF_TRUNC;
	if (h->flags & RG_RECF_DENIED)
		ev->flags |= RG_EVF_DENIED;
	if (h->flags & RG_RECF_KILLED)
		ev->flags |= RG_EVF_KILLED;
}

static void set_ret(int64_t ret, bool noret, int32_t *dst, struct rg_event *ev)
{
	if (noret || ret >= 0) {
		*dst = 0;
		return;
	}
	*dst = ret < INT32_MIN ? INT32_MIN : (int32_t)ret;
	ev->flags |= RG_EVF_FAILED;
}

static void set_device(const struct convert_ctx *ctx, uint32_t rdev, char *buf, size_t size)
{
	buf[0] = 0;
	if (ctx->devname && rdev)
		ctx->devname(ctx->ud, rdev, buf, size);
}

static void target_info(const struct convert_ctx *ctx, struct rg_ev_memory *m)
{
	uint64_t start = 0;
	char comm[RG_COMM_LEN] = "";

	if (!m->target_pid || !ctx->proc_info)
		return;
	if (ctx->proc_info(ctx->ud, m->target_pid, &start, comm) < 0)
		return;
	if (!m->target_start_boot_ns)
		m->target_start_boot_ns = start;
	if (!m->target_comm[0])
		event_set_str(m->target_comm, sizeof(m->target_comm), comm, sizeof(comm));
}

static int conv_exec(const struct rg_rec_exec *r, const struct convert_ctx *ctx,
		     struct rg_event *ev)
{
	struct rg_ev_exec *x = &ev->u.exec;
	uint32_t n = MIN(r->args_len, (uint32_t)RG_REC_ARGS);

	ev->type = RG_EV_EXEC;
	fill_proc(&r->h, ctx, ev);
	x->parent_start_boot_ns = r->parent_start_boot_ns;
	x->exe_ino = r->exe_ino;
	x->exe_dev = r->exe_dev ? kdev_to_dev(r->exe_dev) : 0;
	x->sid = r->sid;
	if (r->exe[0])
		event_set_str(x->exe, sizeof(x->exe), r->exe, sizeof(r->exe));
	else
		event_set_str(x->exe, sizeof(x->exe), r->filename, sizeof(r->filename));
	/* Only the tail of a longer path (or execve's own argument): a path the user shapes. */
	if ((r->h.flags & RG_RECF_TRUNC) || !r->exe[0]) {
		x->exe_flags |= RG_EXE_TRUNC;
		ev->flags |= RG_EVF_TRUNC;
	}
	if (r->exe_flags & RG_REC_EXE_FOREIGN)
		x->exe_flags |= RG_EXE_FOREIGN;
	/* argv: NUL-separated; control bytes inside arguments become '?'. */
	for (uint32_t i = 0; i < n && i < sizeof(x->args); i++) {
		unsigned char c = (unsigned char)r->args[i];

		x->args[i] = (c && (c < 0x20 || c == 0x7f)) ? '?' : (char)c;
	}
	/* Drop a trailing NUL so the last argument is not followed by an empty one. */
	while (n > 0 && x->args[n - 1] == 0)
		n--;
	x->args_len = n;
	if (r->args_size > r->args_len)
		ev->flags |= RG_EVF_TRUNC;
	return 1;
}

static int conv_open(const struct rg_rec_open *r, const struct convert_ctx *ctx,
		     struct rg_event *ev)
{
	uint32_t major = r->rdev >> 20, minor = r->rdev & 0xfffff;

	fill_proc(&r->h, ctx, ev);
	if (r->what == RG_OPEN_PROC_MEM) {
		struct rg_ev_memory *m = &ev->u.mem;
		char path[RG_REC_PATH];

		ev->type = RG_EV_MEMORY_ACCESS;
		m->op = RG_MEM_PROC_MEM_OPEN;
		/* The kernel's answer (the proc inode's task) wins over the path's. */
		event_set_str(path, sizeof(path), r->path, sizeof(r->path));
		m->target_pid = r->target_pid ? r->target_pid : proc_mem_target(path);
		m->target_start_boot_ns = r->target_start_boot_ns;
		event_set_str(m->target_comm, sizeof(m->target_comm), r->target_comm,
			      sizeof(r->target_comm));
		target_info(ctx, m);
		return 1;
	}
	if (r->what != RG_OPEN_RDMA)
		return -EBADMSG;
	ev->type = RG_EV_DEVICE_OPEN;
	ev->u.open.fd = r->fd;
	set_ret(r->ret, false, &ev->u.open.ret, ev);
	switch (r->node) {
	case RG_NODE_UVERBS_FD:
		ev->u.open.node_kind = RG_NODE_UVERBS;
		break;
	case RG_NODE_RDMA_CM_FD:
		ev->u.open.node_kind = RG_NODE_RDMA_CM;
		break;
	case RG_NODE_UMAD_FD:
		ev->u.open.node_kind = RG_NODE_UMAD;
		break;
	default:
		ev->u.open.node_kind =
		    (major == 231 && minor >= 64 && minor < 128) ? RG_NODE_ISSM : RG_NODE_OTHER;
		break;
	}
	ev->u.open.minor = r->rdev ? minor : 0;
	event_set_str(ev->u.open.path, sizeof(ev->u.open.path), r->path, sizeof(r->path));
	set_device(ctx, r->rdev, ev->u.open.device, sizeof(ev->u.open.device));
	return 1;
}

static int conv_cmd(const struct rg_rec_cmd *r, const struct convert_ctx *ctx, struct rg_event *ev)
{
	bool noret = r->h.flags & RG_RECF_NORET;
	uint32_t data_len = r->data_len;

	if (data_len > RG_REC_DATA || r->nblobs > RG_REC_BLOB_SLOTS)
		return -EBADMSG;
	fill_proc(&r->h, ctx, ev);
	if (r->node == RG_NODE_RDMA_CM_FD) {
		struct rg_ev_rdma_cm *cm = &ev->u.cm;
		size_t rlen = 0;

		if (r->via != RG_CMD_WRITE)
			return -EBADMSG;
		ev->type = RG_EV_RDMA_CM;
		cm->fd = r->fd;
		set_ret(r->ret, noret, &cm->ret, ev);
		if (r->nblobs)
			rlen = MIN((size_t)r->blob_len[0], (size_t)RG_REC_RESP_MAX);
		ev->flags |= decode_rdma_cm_write(r->data, data_len, r->count, r->blob, rlen, cm);
		return 1;
	}
	if (r->node != RG_NODE_UVERBS_FD)
		return -EBADMSG;
	ev->type = RG_EV_VERBS;
	ev->u.verbs.fd = r->fd;
	ev->u.verbs.calls = r->calls ? r->calls : 1;
	set_ret(r->ret, noret, &ev->u.verbs.ret, ev);
	set_device(ctx, r->rdev, ev->u.verbs.device, sizeof(ev->u.verbs.device));
	switch (r->via) {
	case RG_CMD_IOCTL: {
		struct uverbs_blob blobs[RG_REC_BLOB_SLOTS + RG_IOCTL_MAX_ATTRS];
		size_t nb = 0;

		for (uint32_t i = 0; i < r->nblobs; i++) {
			if (!r->blob_len[i])
				continue;
			blobs[nb].attr = r->blob_attr[i];
			blobs[nb].len = MIN(r->blob_len[i], (uint16_t)RG_REC_BLOB_SLOT);
			blobs[nb].data = r->blob + (size_t)i * RG_REC_BLOB_SLOT;
			nb++;
		}
		for (uint32_t i = 0; i < RG_IOCTL_MAX_ATTRS; i++) {
			if (!r->out_small_len[i])
				continue;
			blobs[nb].attr = (uint16_t)i;
			blobs[nb].len = MIN(r->out_small_len[i], (uint8_t)8);
			blobs[nb].data = (const uint8_t *)&r->out_small[i];
			nb++;
		}
		ev->flags |= decode_uverbs_ioctl(r->data, data_len, blobs, nb, &ev->u.verbs);
		if (ev->flags & RG_EVF_FAILED) {
			/* the kernel wrote no new handle or QP number: what is there is the
			 * caller's */
			ev->u.verbs.handle = 0;
			ev->u.verbs.qp_num = 0;
		}
		return 1;
	}
	case RG_CMD_WRITE: {
		size_t rlen = r->nblobs ? MIN((size_t)r->blob_len[0], (size_t)RG_REC_RESP_MAX) : 0;

		ev->flags |=
		    decode_uverbs_write(r->data, data_len, r->count, r->blob, rlen, &ev->u.verbs);
		return 1;
	}
	case RG_CMD_POSTS: {
		uint32_t cmd;

		if (data_len < sizeof(cmd))
			return -EBADMSG;
		memcpy(&cmd, r->data, sizeof(cmd));
		ev->u.verbs.via = RG_VIA_WRITE;
		ev->u.verbs.write_cmd = cmd;
		ev->u.verbs.op = cmd == RG_ABI_CMD_POST_SEND ? RG_OP_POST_SEND : RG_OP_POST_RECV;
		return 1;
	}
	case RG_CMD_MMAP:
		ev->u.verbs.op = RG_OP_MMAP;
		ev->u.verbs.via = RG_VIA_MMAP;
		ev->u.verbs.mmap_len = r->count;
		return 1;
	default:
		return -EBADMSG;
	}
}

static int conv_mem(const struct rg_rec_mem *r, const struct convert_ctx *ctx, struct rg_event *ev)
{
	struct rg_ev_memory *m = &ev->u.mem;

	if (r->op == RG_MEM_OTHER || r->op >= RG_MEM__MAX)
		return -EBADMSG;
	ev->type = RG_EV_MEMORY_ACCESS;
	fill_proc(&r->h, ctx, ev);
	m->op = r->op;
	m->target_pid = r->target_pid;
	set_ret(r->ret, r->h.flags & RG_RECF_NORET, &m->ret, ev);
	if ((r->op == RG_MEM_PROCESS_VM_READV || r->op == RG_MEM_PROCESS_VM_WRITEV) && r->ret > 0 &&
	    !(r->h.flags & RG_RECF_NORET))
		m->bytes = (uint64_t)r->ret;
	m->target_start_boot_ns = r->target_start_boot_ns;
	event_set_str(m->target_comm, sizeof(m->target_comm), r->target_comm,
		      sizeof(r->target_comm));
	target_info(ctx, m);
	return 1;
}

void module_name_normalize(char *name)
{
	static const struct {
		const char *from, *to;
	} aliases[] = {
	    {"rdma-link-rxe", "rdma_rxe"}, {"rdma-link-siw", "siw"}, {"rxe", "rdma_rxe"}};
	char *dot = strstr(name, ".ko");

	if (dot && (dot[3] == 0 || dot[3] == '.'))
		*dot = 0; /* rdma_rxe.ko, siw.ko.xz */
	for (size_t i = 0; i < ARRAY_SIZE(aliases); i++)
		if (strcmp(name, aliases[i].from) == 0) {
			strcpy(name, aliases[i].to);
			return;
		}
}

/* A string attribute of an RDMA netlink message, copied sanitised; false if absent. */
static bool nl_str_attr(const uint8_t *msg, size_t len, uint16_t type, char *buf, size_t size)
{
	size_t off = NLMSG_HDRLEN;

	while (off + NLA_HDRLEN <= len) {
		uint16_t alen, atype;

		memcpy(&alen, msg + off, 2);
		memcpy(&atype, msg + off + 2, 2);
		if (alen < NLA_HDRLEN || off + alen > len)
			return false;
		if ((atype & NLA_TYPE_MASK) == type) {
			event_set_str(buf, size, (const char *)msg + off + NLA_HDRLEN,
				      alen - NLA_HDRLEN);
			return true;
		}
		off += NLA_ALIGN(alen);
	}
	return false;
}

/* rdma link add NAME type rxe|siw netdev NETDEV, refused by enforcement: a device_add that did not
 * happen (flags denied). */
static int conv_netlink(const struct rg_rec_netlink *r, const struct convert_ctx *ctx,
			struct rg_event *ev)
{
	size_t len = MIN((size_t)r->len, (size_t)RG_REC_NLMSG);
	struct rg_ev_device *d = &ev->u.dev;
	char type[16] = "";

	ev->type = RG_EV_DEVICE_ADD;
	fill_proc(&r->h, ctx, ev);
	ev->flags |= RG_EVF_FAILED;
	if (len < NLMSG_HDRLEN)
		return 1;
	if (r->msg_len && r->msg_len < len)
		len = r->msg_len;
	nl_str_attr(r->data, len, RDMA_NLDEV_ATTR_DEV_NAME, d->name, sizeof(d->name));
	nl_str_attr(r->data, len, RDMA_NLDEV_ATTR_NDEV_NAME, d->parent, sizeof(d->parent));
	if (nl_str_attr(r->data, len, RDMA_NLDEV_ATTR_LINK_TYPE, type, sizeof(type))) {
		if (strcmp(type, "rxe") == 0) {
			strscpy_ok(d->driver, "rdma_rxe", sizeof(d->driver));
			d->transport = RG_TRANSPORT_ROCE;
		} else if (strcmp(type, "siw") == 0) {
			strscpy_ok(d->driver, "siw", sizeof(d->driver));
			d->transport = RG_TRANSPORT_IWARP;
		} else {
			strscpy_ok(d->driver, type, sizeof(d->driver));
		}
		ev->flags |= RG_EVF_SOFT;
	}
	return 1;
}

int record_to_event(const void *rec, size_t size, const struct convert_ctx *ctx,
		    struct rg_event *ev)
{
	const struct rg_rec_hdr *h = rec;

	memset(ev, 0, sizeof(*ev));
	if (!rec || size < sizeof(*h))
		return -EBADMSG;

#define NEED(T)                                                                                    \
	do {                                                                                       \
		if (size < sizeof(T))                                                              \
			return -EBADMSG;                                                           \
	} while (0)

	switch (h->type) {
	case RG_REC_EXEC:
		NEED(struct rg_rec_exec);
		return conv_exec(rec, ctx, ev);
	case RG_REC_FORK: {
		const struct rg_rec_fork *r = rec;

		NEED(struct rg_rec_fork);
		ev->type = RG_EV_FORK;
		fill_proc(h, ctx, ev);
		ev->u.fork.parent_start_boot_ns = r->parent_start_boot_ns;
		return 1;
	}
	case RG_REC_EXIT: {
		const struct rg_rec_exit *r = rec;

		NEED(struct rg_rec_exit);
		ev->type = RG_EV_EXIT;
		fill_proc(h, ctx, ev);
		ev->u.exit.code = r->code;
		return 1;
	}
	case RG_REC_OPEN:
		NEED(struct rg_rec_open);
		return conv_open(rec, ctx, ev);
	case RG_REC_CMD:
		NEED(struct rg_rec_cmd);
		return conv_cmd(rec, ctx, ev);
	case RG_REC_LIB: {
		const struct rg_rec_lib *r = rec;

		NEED(struct rg_rec_lib);
		ev->type = RG_EV_LIBRARY_LOAD;
		fill_proc(h, ctx, ev);
		event_set_str(ev->u.lib.path, sizeof(ev->u.lib.path), r->path, sizeof(r->path));
		ev->u.lib.lib_kind = lib_kind_from_path(ev->u.lib.path);
		ev->u.lib.ino = r->ino;
		ev->u.lib.dev = r->dev ? kdev_to_dev(r->dev) : 0;
		return 1;
	}
	case RG_REC_MEM:
		NEED(struct rg_rec_mem);
		return conv_mem(rec, ctx, ev);
	case RG_REC_UCALL: {
		const struct rg_rec_ucall *r = rec;

		NEED(struct rg_rec_ucall);
		if (r->fn != RG_UCALL_GET_DEVICE_LIST && r->fn != RG_UCALL_OPEN_DEVICE)
			return -EBADMSG;
		ev->type = RG_EV_VERBS;
		fill_proc(h, ctx, ev);
		ev->u.verbs.via = RG_VIA_LIBRARY;
		ev->u.verbs.op =
		    r->fn == RG_UCALL_GET_DEVICE_LIST ? RG_OP_GET_DEVICE_LIST : RG_OP_OPEN_DEVICE;
		ev->u.verbs.fd = -1;
		event_set_str(ev->u.verbs.device, sizeof(ev->u.verbs.device), r->device,
			      sizeof(r->device));
		return 1;
	}
	case RG_REC_MODULE: {
		const struct rg_rec_module *r = rec;
		bool soft = false;

		NEED(struct rg_rec_module);
		ev->type = RG_EV_MODULE_LOAD;
		fill_proc(h, ctx, ev);
		event_set_str(ev->u.mod.name, sizeof(ev->u.mod.name), r->name, sizeof(r->name));
		if (h->flags & (RG_RECF_DENIED | RG_RECF_KILLED)) {
			/* enforcement refused it: a file name or a module request */
			module_name_normalize(ev->u.mod.name);
			ev->flags |= RG_EVF_FAILED;
		}
		if (!rdma_module_name(ev->u.mod.name, &soft) && !(ev->flags & RG_EVF_DENIED))
			return 0;
		if (soft)
			ev->flags |= RG_EVF_SOFT;
		return 1;
	}
	case RG_REC_BPF: {
		const struct rg_rec_bpf *r = rec;
		const char *cmd, *kind;
		char name[64] = "", exe[RG_PATH_LEN];

		NEED(struct rg_rec_bpf);
		cmd = bpf_cmd_name(r->cmd);
		if (!cmd || (r->kind != RG_SELF_MAP && r->kind != RG_SELF_LINK))
			return -EBADMSG;
		kind = r->kind == RG_SELF_MAP ? "map" : "link";
		ev->type = RG_EV_AGENT_TAMPER;
		fill_proc(h, ctx, ev);
		ev->provider = RG_PROV_AGENT;
		ev->u.agent.count = r->id;
		ev->u.agent.ok = r->ret >= 0;
		if (r->ret < 0)
			ev->u.agent.error = r->ret < INT32_MIN ? INT32_MIN : (int32_t)r->ret;
		strscpy_ok(ev->u.agent.what, cmd, sizeof(ev->u.agent.what));
		if (ctx->self_name)
			ctx->self_name(ctx->ud, r->kind, r->id, name, sizeof(name));
		event_set_str(exe, sizeof(exe), r->exe, sizeof(r->exe));
		snprintf(ev->u.agent.text, sizeof(ev->u.agent.text),
			 "%s on the agent's BPF %s %.32s%s(id %u) by %s (pid %u%s%.100s)%s%.24s",
			 cmd, kind, name, name[0] ? " " : "", r->id, ev->proc.comm, ev->proc.pid,
			 exe[0] ? ", " : "", exe, r->ret < 0 ? ": refused, " : "",
			 r->ret < 0 ? strerror((int)-(int64_t)ev->u.agent.error) : "");
		return 1;
	}
	case RG_REC_NETLINK:
		NEED(struct rg_rec_netlink);
		return conv_netlink(rec, ctx, ev);
	case RG_REC_SOCK:
		NEED(struct rg_rec_sock);
		ev->type = RG_EV_RDMA_SOCKET;
		fill_proc(h, ctx, ev);
		return decode_sock(rec, size, ev);
	default:
		return -EBADMSG;
	}
#undef NEED
}
