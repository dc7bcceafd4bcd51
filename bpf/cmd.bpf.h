/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Copying verbs and rdma_cm commands into RG_REC_CMD records, shared by the syscall tracepoints,
 * the kprobes and the fentry/fexit programs on ib_uverbs/rdma_ucm: whatever the hook, the record
 * holds the same raw bytes and userspace decodes them the same way.
 *
 * The copy is made when the command returns (exit/fexit/kretprobe) where the hook allows it, so
 * that the kernel's outputs (new object handles, QP numbers, rdma_cm ids and addresses) are in
 * the user buffers too.
 */
#pragma once

#include "common.bpf.h"

static __always_inline struct rg_rec_cmd *cmd_begin(int fd, __u32 node, __s64 ret, __u32 via,
						    __u32 rdev, __u16 hook)
{
	struct rg_rec_cmd *r = RESERVE_HI(struct rg_rec_cmd);

	if (!r)
		return NULL;
	fill_hdr(&r->h, RG_REC_CMD, hook);
	r->fd = fd;
	r->node = node;
	r->ret = ret;
	r->via = via;
	r->rdev = rdev;
	r->count = 0;
	r->mmap_off = 0;
	r->mmap_prot = 0;
	r->calls = 1;
	r->data_len = 0;
	r->nblobs = 0;
	__builtin_memset(r->blob_len, 0, sizeof(r->blob_len));
	__builtin_memset(r->out_small_len, 0, sizeof(r->out_small_len));
	for (int i = 0; i < RG_REC_BLOB_SLOTS; i++)
		r->blob_attr[i] = i;
	return r;
}

/*
 * ioctl(fd, RDMA_VERBS_IOCTL, arg): the header, up to 16 attributes, and the pointed-to contents
 * of the attributes the decoder reads (128 bytes each): INVOKE_WRITE's CORE_IN and CORE_OUT (the
 * tunnelled legacy command and its response), QP_CREATE's RESP_QP_NUM. Slot i holds attribute i
 * (blob_len 0: inline or not copied).
 *
 * A global function, not inlined: the verifier checks it once, on its own, instead of on every
 * path of its caller that reaches it. Inlined into the ioctl exit programs (where the fd is
 * classified first), it took them to 92% of the verifier's limit on Debian's 6.1 (the VM lab's
 * verifier_headroom check). __weak: each object file that includes this defines it; the linker
 * keeps one. Its arguments are scalars (what a global function may take), five at most (a BPF
 * call's registers): the hook in the low 16 bits of hook_flags, the record's flags above.
 */
__weak __noinline int emit_ioctl_g(int fd, __u64 arg, __s64 ret, __u32 rdev, __u32 hook_flags)
{
	struct rg_rec_cmd *r =
	    cmd_begin(fd, RG_NODE_UVERBS_FD, ret, RG_CMD_IOCTL, rdev, (__u16)hook_flags);
	__u32 n;
	__u16 num, obj, meth;
	bool invoke;

	if (!r)
		return 0;
	r->h.flags |= (__u16)(hook_flags >> 16);
	if (bpf_probe_read_user(r->data, RG_ABI_IOCTL_HDR_SIZE, (void *)arg)) {
		r->h.flags |= RG_RECF_FAULT;
		count(RG_CNT_USER_FAULT);
		goto out;
	}
	num = *(__u16 *)&r->data[6];
	n = num;
	if (n > RG_IOCTL_MAX_ATTRS) {
		n = RG_IOCTL_MAX_ATTRS;
		r->h.flags |= RG_RECF_TRUNC;
	}
	r->data_len = RG_ABI_IOCTL_HDR_SIZE;
	if (n && bpf_probe_read_user(&r->data[RG_ABI_IOCTL_HDR_SIZE], n * RG_ABI_IOCTL_ATTR_SIZE,
				     (void *)(arg + RG_ABI_IOCTL_HDR_SIZE))) {
		r->h.flags |= RG_RECF_FAULT;
		count(RG_CNT_USER_FAULT);
		goto out;
	}
	r->data_len += n * RG_ABI_IOCTL_ATTR_SIZE;
	obj = *(__u16 *)&r->data[2];
	meth = *(__u16 *)&r->data[4];
	/*
	 * Every other command is decoded from its inline attributes alone: its attribute array is
	 * not walked (a CQ_CREATE has nine), and a QP_CREATE's CAP is not copied: the walk was a
	 * measurable part of every verbs command's cost (bench/results/, the -icount runs).
	 */
	invoke = obj == RG_ABI_OBJECT_DEVICE && meth == RG_ABI_METHOD_INVOKE_WRITE;
	if (!invoke && !(obj == RG_ABI_OBJECT_QP && meth == RG_ABI_METHOD_QP_CREATE))
		goto out;
	/*
	 * Attribute i's contents go to slot i: a running slot counter would make every iteration's
	 * verifier state differ (exponential). CORE_IN, an input, travels inline when it is 8 bytes
	 * or less, else it is copied from the first 8 attributes (128 bytes); the decoder flags
	 * what it misses. An output is always a pointer: CORE_OUT and RESP_QP_NUM are copied
	 * whatever their size and position (small ones into out_small[i]), and only when the call
	 * succeeded.
	 */
	for (__u32 i = 0; i < RG_IOCTL_MAX_ATTRS; i++) {
		__u32 off = RG_ABI_IOCTL_HDR_SIZE + i * RG_ABI_IOCTL_ATTR_SIZE;
		__u16 id, len;
		__u32 copy;
		__u64 ptr;
		bool out;

		if (i >= n)
			break;
		id = *(__u16 *)&r->data[off];
		len = *(__u16 *)&r->data[off + 2];
		ptr = *(__u64 *)&r->data[off + 8];
		out = invoke ? id == RG_ABI_ATTR_CORE_OUT : id == RG_ABI_ATTR_QP_RESP_QP_NUM;
		if (!len || (out && ret < 0) ||
		    (!out && (!invoke || id != RG_ABI_ATTR_CORE_IN || len <= 8)))
			continue;
		if (len <= 8) {
			copy = len;
			barrier_var(copy);
			if (copy > 8)
				copy = 8;
			if (bpf_probe_read_user(&r->out_small[i], copy, (void *)ptr) == 0)
				r->out_small_len[i] = copy;
			else
				r->h.flags |= RG_RECF_FAULT;
			continue;
		}
		if (i >= RG_REC_BLOB_SLOTS)
			continue;
		copy = len;
		barrier_var(copy);
		if (copy > RG_REC_BLOB_SLOT)
			copy = RG_REC_BLOB_SLOT;
		if (bpf_probe_read_user(&r->blob[(i & (RG_REC_BLOB_SLOTS - 1)) * RG_REC_BLOB_SLOT],
					copy, (void *)ptr)) {
			r->h.flags |= RG_RECF_FAULT;
			continue;
		}
		r->blob_len[i & (RG_REC_BLOB_SLOTS - 1)] = copy;
	}
	r->nblobs = n < RG_REC_BLOB_SLOTS ? n : RG_REC_BLOB_SLOTS;
out:
	rg_submit(r);
	return 0;
}

static __always_inline void emit_ioctl_f(int fd, __u64 arg, __s64 ret, __u32 rdev, __u16 hook,
					 __u16 flags)
{
	emit_ioctl_g(fd, arg, ret, rdev, hook | (__u32)flags << 16);
}

static __always_inline void emit_ioctl(int fd, __u64 arg, __s64 ret, __u32 rdev, __u16 hook)
{
	emit_ioctl_f(fd, arg, ret, rdev, hook, 0);
}

/*
 * write(fd, buf, count) on a uverbs or rdma_cm fd: the first RG_REC_DATA bytes of buf, and, when
 * the command succeeded and asks for a response, up to RG_REC_RESP_MAX bytes of the response
 * the kernel wrote (its pointer is the first field after the header(s): uverbs legacy and
 * extended commands alike; rdma_cm's CREATE_ID has it second).
 */
static __always_inline void emit_write(int fd, __u32 node, __u64 buf, __u64 count_, __s64 ret,
				       __u32 rdev, __u16 hook, __u32 calls, __u16 flags)
{
	struct rg_rec_cmd *r = cmd_begin(fd, node, ret, RG_CMD_WRITE, rdev, hook);
	__u32 n = count_ > RG_REC_DATA ? RG_REC_DATA : count_;
	__u32 cmd, out, resp_len;
	__u64 resp_ptr;

	if (!r)
		return;
	r->h.flags |= flags;
	r->count = count_;
	r->calls = calls;
	/* clang may bound the 64-bit value and pass its 32-bit copy: bound the copy itself */
	barrier_var(n);
	if (n > RG_REC_DATA)
		n = RG_REC_DATA;
	if (n && bpf_probe_read_user(r->data, n, (void *)buf)) {
		r->h.flags |= RG_RECF_FAULT;
		count(RG_CNT_USER_FAULT);
		n = 0;
	}
	r->data_len = n;
	if (ret < 0 || (flags & RG_RECF_NORET) || n < 16)
		goto out;
	cmd = *(__u32 *)&r->data[0];
	out = *(__u16 *)&r->data[6];
	if (node == RG_NODE_UVERBS_FD) {
		resp_len = (cmd & RG_ABI_CMD_FLAG_EXTENDED) ? out * 8 : out * 4;
		resp_ptr = *(__u64 *)&r->data[8];
	} else {
		resp_len = out;
		if (cmd == RG_ABI_CM_CREATE_ID) {
			if (n < 24)
				goto out;
			resp_ptr = *(__u64 *)&r->data[16];
		} else {
			resp_ptr = *(__u64 *)&r->data[8];
		}
	}
	if (!resp_len || !resp_ptr)
		goto out;
	barrier_var(resp_len);
	if (resp_len > RG_REC_RESP_MAX)
		resp_len = RG_REC_RESP_MAX;
	if (bpf_probe_read_user(r->blob, resp_len, (void *)resp_ptr)) {
		r->h.flags |= RG_RECF_FAULT;
		goto out;
	}
	r->nblobs = 1;
	r->blob_len[0] = resp_len;
out:
	rg_submit(r);
}

#ifndef RG_ENFORCE_OBJECT
/*
 * post_send/post_recv by write(): rxe and siw make one per work request batch, possibly millions.
 * Returns how many calls the record to emit now summarises, or 0 to stay silent: one record per
 * (process, fd, command) per second.
 */
static __always_inline __u32 post_aggregate(int fd, __u32 cmd)
{
	struct post_key k = {.tgid = current_tgid(), .fd = fd, .cmd = cmd};
	struct post_val *v = bpf_map_lookup_elem(&posts, &k);
	__u64 now = bpf_ktime_get_boot_ns();
	__u32 calls;

	count(RG_CNT_POSTS);
	if (!v) {
		struct post_val nv = {.calls = 0, .last_emit_ns = now};

		bpf_map_update_elem(&posts, &k, &nv, BPF_ANY);
		return 1;
	}
	v->calls++;
	if (now - v->last_emit_ns < RG_POST_EMIT_NS)
		return 0;
	calls = v->calls;
	v->calls = 0;
	v->last_emit_ns = now;
	return calls;
}

/* Reads the command word of a write() buffer; returns true for post_send/post_recv. */
static __always_inline bool is_post(__u64 buf, __u64 count_, __u32 *cmd)
{
	if (count_ < 8 || bpf_probe_read_user(cmd, sizeof(*cmd), (void *)buf))
		return false;
	return *cmd == RG_ABI_CMD_POST_SEND || *cmd == RG_ABI_CMD_POST_RECV ||
	       *cmd == RG_ABI_CMD_POST_SRQ_RECV;
}

/* A write() on a known uverbs/rdma_cm fd (or one iovec of a writev()), at a hook that sees its
 * return value. */
static __always_inline void handle_write(int fd, __u32 node, __u64 buf, __u64 count_, __s64 ret,
					 __u32 rdev, __u16 hook, __u16 flags)
{
	__u32 cmd, calls = 1;

	if (node == RG_NODE_UVERBS_FD && is_post(buf, count_, &cmd)) {
		calls = post_aggregate(fd, cmd);
		if (!calls)
			return;
	}
	emit_write(fd, node, buf, count_, ret, rdev, hook, calls, flags);
}

#endif /* !RG_ENFORCE_OBJECT */

/* mmap of a uverbs fd; ret is the verdict of enforcement (then flags say it), else unknown. */
static __always_inline void emit_mmap_f(int fd, __u32 node, __u32 rdev, __u64 len, __u64 off,
					__u32 prot, __u16 hook, __s64 ret, __u16 flags)
{
	struct rg_rec_cmd *r = cmd_begin(fd, node, ret, RG_CMD_MMAP, rdev, hook);

	if (!r)
		return;
	r->h.flags |= flags | (ret < 0 ? 0 : RG_RECF_NORET);
	r->count = len;
	r->mmap_off = off;
	r->mmap_prot = prot;
	rg_submit(r);
}

static __always_inline void emit_mmap(int fd, __u32 node, __u32 rdev, __u64 len, __u64 off,
				      __u32 prot, __u16 hook)
{
	emit_mmap_f(fd, node, rdev, len, off, prot, hook, 0, 0);
}
