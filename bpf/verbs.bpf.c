// SPDX-License-Identifier: GPL-2.0-only
/*
 * Verbs and rdma_cm commands: the syscall tracepoint path (any kernel) and kprobes on ib_uverbs
 * and rdma_ucm (attached when those modules are loaded). The fentry/fexit flavour lives in
 * uverbs_mod.bpf.c: it can only be loaded once the modules' BTF exists.
 *
 * Tracepoint path cost for unrelated syscalls: ioctl entry compares the command number, ioctl exit
 * reads one array slot; write() entry makes one hash lookup ((tgid, fd) in rdma_fds), its exit
 * reads one array slot.
 */
#include "cmd.bpf.h"
#include "enforce.bpf.h"

SEC("tracepoint/syscalls/sys_enter_ioctl")
int tp_enter_ioctl(struct trace_event_raw_sys_enter *ctx)
{
	struct pending p = {};
	struct file *file;

	if ((__u32)ctx->args[1] != RG_ABI_RDMA_VERBS_IOCTL || is_self())
		return 0;
	p.kind = PK_IOCTL;
	p.fd = (int)ctx->args[0];
	p.a0 = ctx->args[2];
	/* Enforcement's verdict, asked here: the exit, which copies the command, is at the
	 * verifier's limit on older kernels. */
	file = current_fd_file(p.fd);
	p.op = enf_check_ioctl(file ? BPF_CORE_READ(file, f_inode, i_rdev) : 0, p.a0);
	pending_put(PK_IOCTL, &p);
	return 0;
}

SEC("tracepoint/syscalls/sys_exit_ioctl")
int tp_exit_ioctl(struct trace_event_raw_sys_exit *ctx)
{
	long ret = ctx->ret;
	struct pending p;
	struct file *file;
	__u32 node = 0, rdev = 0;

	barrier_var(ret);
	if (!pending_take(PK_IOCTL, &p))
		return 0;
	/* Any fd that answers RDMA_VERBS_IOCTL is reported; the fd map only adds the device. */
	if (!lookup_rdma_fd(p.fd, &node, &rdev) && ret >= 0) {
		file = current_fd_file(p.fd);
		if (file && classify_file(file, &node, &rdev) == RG_OPEN_RDMA)
			remember_fd(current_tgid(), p.fd, file, node, rdev);
	}
	if (enf_reported((int)p.op, ret))
		return 0;
	emit_ioctl(p.fd, p.a0, ret, rdev, RG_HOOK_TRACEPOINT);
	return 0;
}

SEC("tracepoint/syscalls/sys_enter_write")
int tp_enter_write(struct trace_event_raw_sys_enter *ctx)
{
	int fd = (int)ctx->args[0];
	__u64 buf = ctx->args[1], cnt = ctx->args[2];
	struct pending p = {};
	__u32 node, rdev, cmd, calls;

	if (is_self() || !lookup_rdma_fd(fd, &node, &rdev))
		return 0;
	if (node != RG_NODE_UVERBS_FD && node != RG_NODE_RDMA_CM_FD)
		return 0;
	if (node == RG_NODE_UVERBS_FD && is_post(buf, cnt, &cmd)) {
		/* The data path: summarised here, its return value is not waited for. */
		if (enf_check_write(node, rdev, buf, cnt) & (ENF_DENY | ENF_KILL))
			return 0;
		calls = post_aggregate(fd, cmd);
		if (calls)
			emit_write(fd, node, buf, cnt, 0, rdev, RG_HOOK_TRACEPOINT, calls,
				   RG_RECF_NORET);
		return 0;
	}
	p.kind = PK_WRITE;
	p.fd = fd;
	p.a0 = buf;
	p.a1 = cnt;
	p.node = node;
	p.rdev = rdev;
	p.op = enf_check_write(node, rdev, buf, cnt);
	pending_put(PK_WRITE, &p);
	return 0;
}

SEC("tracepoint/syscalls/sys_exit_write")
int tp_exit_write(struct trace_event_raw_sys_exit *ctx)
{
	long ret = ctx->ret;
	struct pending p;

	barrier_var(ret);
	if (!pending_take(PK_WRITE, &p))
		return 0;
	if (enf_reported((int)p.op, ret))
		return 0;
	emit_write(p.fd, p.node, p.a0, p.a1, ret, p.rdev, RG_HOOK_TRACEPOINT, 1, 0);
	return 0;
}

/* kprobe flavour: entry remembers, return emits. */
static __always_inline int kprobe_cmd_entry(__u32 kind, struct file *filp, __u64 a0, __u64 a1,
					    __u32 node, int fd)
{
	struct pending p = {};

	if (is_self())
		return 0;
	p.kind = kind;
	p.fd = fd;
	p.a0 = a0;
	p.a1 = a1;
	p.node = node;
	p.rdev = BPF_CORE_READ(filp, f_inode, i_rdev);
	p.op =
	    kind == PK_IOCTL ? enf_check_ioctl(p.rdev, a0) : enf_check_write(node, p.rdev, a0, a1);
	if (fd >= 0)
		remember_fd(current_tgid(), fd, filp, node, p.rdev);
	pending_put(kind, &p);
	return 0;
}

SEC("kprobe/ib_uverbs_ioctl")
int BPF_KPROBE(kp_uverbs_ioctl, struct file *filp, unsigned int cmd, unsigned long arg)
{
	if (cmd != RG_ABI_RDMA_VERBS_IOCTL)
		return 0;
	return kprobe_cmd_entry(PK_IOCTL, filp, arg, 0, RG_NODE_UVERBS_FD,
				(int)SYSCALL_ARG_IF(rg_nr_ioctl, 1, -1));
}

SEC("kretprobe/ib_uverbs_ioctl")
int BPF_KRETPROBE(krp_uverbs_ioctl, long ret)
{
	struct pending p;

	if (pending_take(PK_IOCTL, &p) && !enf_reported((int)p.op, ret))
		emit_ioctl(p.fd, p.a0, ret, p.rdev, RG_HOOK_KPROBE);
	return 0;
}

SEC("kprobe/ib_uverbs_write")
int BPF_KPROBE(kp_uverbs_write, struct file *filp, const char *buf, size_t count_)
{
	return kprobe_cmd_entry(PK_WRITE, filp, (__u64)buf, count_, RG_NODE_UVERBS_FD,
				(int)SYSCALL_ARG_IF(rg_nr_write, 1, -1));
}

SEC("kprobe/ucma_write")
int BPF_KPROBE(kp_ucma_write, struct file *filp, const char *buf, size_t count_)
{
	return kprobe_cmd_entry(PK_WRITE, filp, (__u64)buf, count_, RG_NODE_RDMA_CM_FD,
				(int)SYSCALL_ARG_IF(rg_nr_write, 1, -1));
}

static __always_inline int kretprobe_write(long ret)
{
	struct pending p;

	if (pending_take(PK_WRITE, &p) && !enf_reported((int)p.op, ret))
		handle_write(p.fd, p.node, p.a0, p.a1, ret, p.rdev, RG_HOOK_KPROBE);
	return 0;
}

SEC("kretprobe/ib_uverbs_write")
int BPF_KRETPROBE(krp_uverbs_write, long ret)
{
	return kretprobe_write(ret);
}

SEC("kretprobe/ucma_write")
int BPF_KRETPROBE(krp_ucma_write, long ret)
{
	return kretprobe_write(ret);
}

SEC("kprobe/ib_uverbs_mmap")
int BPF_KPROBE(kp_uverbs_mmap, struct file *filp, struct vm_area_struct *vma)
{
	__u64 len = BPF_CORE_READ(vma, vm_end) - BPF_CORE_READ(vma, vm_start);
	__u64 off = BPF_CORE_READ(vma, vm_pgoff) << 12;
	__u32 rdev = BPF_CORE_READ(filp, f_inode, i_rdev);

	if (is_self() || enf_takes_mmap(rdev))
		return 0;
	emit_mmap((int)SYSCALL_ARG_IF(rg_nr_mmap, 5, -1), RG_NODE_UVERBS_FD, rdev, len, off,
		  (__u32)(BPF_CORE_READ(vma, vm_flags) & 0x7), RG_HOOK_KPROBE);
	return 0;
}
