// SPDX-License-Identifier: GPL-2.0-only
/*
 * Verbs and rdma_cm commands: at the syscall level (ioctl and write, from their arguments) and
 * with kprobes on ib_uverbs and rdma_ucm (attached when those modules are loaded). The fentry/fexit
 * flavour on the modules lives in uverbs_mod.bpf.c: it can only be loaded once their BTF exists.
 *
 * The syscall level is a hook point's flavour while its module is absent (and on kernels without
 * fentry or kprobes): fentry/fexit on the syscalls' entry functions (RG_SYSCALL_FN) where fentry
 * works, else the syscall tracepoints, which put every syscall of every task on the kernel's slow
 * path. Both run the same filters. Cost for unrelated syscalls: ioctl entry compares the command
 * number, its exit reads one array slot; write(), writev() and pwritev2() entry reads one array
 * slot (rdma_seen) until the machine's first RDMA user, then makes one hash lookup ((tgid, fd) in
 * rdma_fds; two for a process that is not an RDMA user), their exits read one array slot.
 */
#include "cmd.bpf.h"
#include "enforce.bpf.h"
#include "compat.bpf.h"

/* Which fds' write()s the syscall-level path reports (1 << RG_NODE_UVERBS_FD, 1 <<
 * RG_NODE_RDMA_CM_FD), set by the agent: those of the hook points on it. A hook point on its
 * module's hooks is not reported twice. */
__u32 rg_sys_write_nodes;

static __always_inline void sys_ioctl_enter(int fd, __u64 cmd, __u64 arg)
{
	struct pending p = {};
	struct file *file;

	if ((__u32)cmd != RG_ABI_RDMA_VERBS_IOCTL || is_self())
		return;
	p.kind = PK_IOCTL;
	p.fd = fd;
	p.a0 = arg;
	/* Enforcement's verdict, asked here: the exit, which copies the command, is at the
	 * verifier's limit on older kernels. */
	file = current_fd_file(p.fd);
	p.file = (__u64)file;
	p.op = enf_check_ioctl(file ? BPF_CORE_READ(file, f_inode, i_rdev) : 0, p.a0);
	pending_put(PK_IOCTL, &p);
}

static __always_inline void sys_ioctl_exit(long ret, __u16 hook)
{
	struct pending p;
	struct file *file;
	__u32 node = 0, rdev = 0;

	if (!pending_take(PK_IOCTL, &p))
		return;
	/* Any fd that answers RDMA_VERBS_IOCTL is reported; the fd map only adds the device. */
	if (!lookup_rdma_fd(p.fd, &node, &rdev) && ret >= 0) {
		file = current_fd_file(p.fd);
		if (file && classify_file(file, &node, &rdev) == RG_OPEN_RDMA)
			remember_fd(current_tgid(), p.fd, file, node, rdev);
	}
	if (enf_reported((int)p.op, ret, (struct file *)p.file))
		return;
	emit_ioctl(p.fd, p.a0, ret, rdev, hook);
}

/* Is fd a uverbs or rdma_cm fd whose hook point is on the syscall-level write programs? */
static __always_inline bool sys_write_fd(int fd, __u32 *node, __u32 *rdev)
{
	__u32 nodes = rg_sys_write_nodes;

	if (!nodes || !rdma_users_seen() || is_self() || !lookup_rdma_fd(fd, node, rdev))
		return false;
	if (*node != RG_NODE_UVERBS_FD && *node != RG_NODE_RDMA_CM_FD)
		return false;
	return nodes & (1u << *node);
}

static __always_inline void sys_write_enter(int fd, __u64 buf, __u64 cnt, __u16 hook)
{
	struct pending p = {};
	__u32 node, rdev, cmd, calls;

	if (!sys_write_fd(fd, &node, &rdev))
		return;
	p.op = enf_check_write(node, rdev, buf, cnt);
	if (node == RG_NODE_UVERBS_FD && !(p.op & (ENF_DENY | ENF_KILL)) &&
	    is_post(buf, cnt, &cmd)) {
		/* The data path: summarised here, its return value is not waited for. One that
		 * enforcement may stop is decided at the exit, as any command. */
		calls = post_aggregate(fd, cmd);
		if (calls)
			emit_write(fd, node, buf, cnt, 0, rdev, hook, calls, RG_RECF_NORET);
		return;
	}
	p.kind = PK_WRITE;
	p.fd = fd;
	p.a0 = buf;
	p.a1 = cnt;
	p.node = node;
	p.rdev = rdev;
	p.file = (__u64)current_fd_file(fd);
	pending_put(PK_WRITE, &p);
}

static __always_inline void sys_write_exit(long ret, __u16 hook)
{
	struct pending p;

	if (!pending_take(PK_WRITE, &p))
		return;
	if (enf_reported((int)p.op, ret, (struct file *)p.file))
		return;
	emit_write(p.fd, p.node, p.a0, p.a1, ret, p.rdev, hook, 1, 0);
}

/*
 * writev(2), and pwritev2(2) at offset -1 (the only offset a stream fd takes): ib_uverbs and
 * rdma_ucm have no write_iter, so the kernel calls their write() once per iovec
 * (do_loop_readv_writev) and stops at the first one that fails or is short. Each iovec is one
 * command. The return value is the bytes of the commands that succeeded, or the first one's error:
 * a command after which the kernel stopped with bytes written is reported without its result
 * (RG_RECF_NORET). The first RG_WRITEV_MAX + 1 iovecs are reported; the last of them is flagged
 * RG_RECF_TRUNC when more followed.
 */

struct writev_cmd {
	__u64 buf;
	__u64 len;
	__s64 ret;
	__s32 fd;
	__u32 node;
	__u32 rdev;
	__u16 hook;
	__u16 flags;
};

/* One iovec's command; not inlined: the exit calls it for each iovec. */
static __noinline int writev_cmd(struct writev_cmd *c)
{
	if (c)
		handle_write(c->fd, c->node, c->buf, c->len, c->ret, c->rdev, c->hook, c->flags);
	return 0;
}

static __always_inline void sys_writev_enter(int fd, __u64 iov, __u64 cnt)
{
	struct pending p = {};
	__u32 node, rdev;
	__u64 buf, len;
	int act;

	if (!sys_write_fd(fd, &node, &rdev))
		return;
	p.kind = PK_WRITEV;
	p.fd = fd;
	p.a0 = iov;
	p.a1 = cnt;
	p.node = node;
	p.rdev = rdev;
	/* A command that enforcement kills for is its to report (its syscall-entry program); the
	 * BPF LSM cannot read writev()'s commands, so there the sensors report them. */
	act = enf_check_writev(node, rdev, iov, cnt, &buf, &len);
	p.op = (act & ENF_LSM) ? 0 : act;
	p.file = (__u64)current_fd_file(fd);
	pending_put(PK_WRITEV, &p);
}

static __always_inline void sys_writev_exit(long ret, __u16 hook)
{
	struct writev_cmd c = {};
	struct pending p;
	struct iovec v;
	__u64 done = 0;

	if (!pending_take(PK_WRITEV, &p))
		return;
	/* the kill program marked the writev it killed for (at its entry, before us) */
	if ((p.op & ENF_KILL) && enf_mark_take(RG_ENF_MARK_CMD, (struct file *)p.file))
		return;
	c.fd = p.fd;
	c.node = p.node;
	c.rdev = p.rdev;
	c.hook = hook;
	for (__u32 i = 0; i <= RG_WRITEV_MAX; i++) {
		if (i >= p.a1)
			break;
		if (bpf_probe_read_user(&v, sizeof(v), (void *)(p.a0 + i * sizeof(v)))) {
			count(RG_CNT_USER_FAULT);
			break;
		}
		c.buf = (__u64)v.iov_base;
		c.len = v.iov_len;
		c.flags = 0;
		if (ret < 0) {
			c.ret = ret;
		} else if (done + c.len <= (__u64)ret) {
			c.ret = (__s64)c.len;
		} else if (done < (__u64)ret) {
			c.ret = ret - (__s64)done;
		} else {
			c.ret = 0;
			c.flags = RG_RECF_NORET;
		}
		if (i == RG_WRITEV_MAX && p.a1 > RG_WRITEV_MAX + 1)
			c.flags |= RG_RECF_TRUNC;
		if (c.len)
			writev_cmd(&c);
		if (ret < 0 || c.ret != (__s64)c.len || (c.flags & RG_RECF_NORET))
			break;
		done += c.len;
	}
}

SEC("fentry/" RG_SYSCALL_FN("ioctl"))
int BPF_PROG(fe_sys_ioctl, const struct pt_regs *regs)
{
	sys_ioctl_enter((int)PT_REGS_PARM1_CORE_SYSCALL(regs), PT_REGS_PARM2_CORE_SYSCALL(regs),
			PT_REGS_PARM3_CORE_SYSCALL(regs));
	return 0;
}

SEC("fexit/" RG_SYSCALL_FN("ioctl"))
int BPF_PROG(fx_sys_ioctl, const struct pt_regs *regs, long ret)
{
	sys_ioctl_exit(ret, RG_HOOK_FENTRY);
	return 0;
}

SEC("fentry/" RG_SYSCALL_FN("write"))
int BPF_PROG(fe_sys_write, const struct pt_regs *regs)
{
	sys_write_enter((int)PT_REGS_PARM1_CORE_SYSCALL(regs), PT_REGS_PARM2_CORE_SYSCALL(regs),
			PT_REGS_PARM3_CORE_SYSCALL(regs), RG_HOOK_FENTRY);
	return 0;
}

SEC("fexit/" RG_SYSCALL_FN("write"))
int BPF_PROG(fx_sys_write, const struct pt_regs *regs, long ret)
{
	sys_write_exit(ret, RG_HOOK_FENTRY);
	return 0;
}

SEC("fentry/" RG_SYSCALL_FN("writev"))
int BPF_PROG(fe_sys_writev, const struct pt_regs *regs)
{
	sys_writev_enter((int)PT_REGS_PARM1_CORE_SYSCALL(regs), PT_REGS_PARM2_CORE_SYSCALL(regs),
			 PT_REGS_PARM3_CORE_SYSCALL(regs));
	return 0;
}

SEC("fexit/" RG_SYSCALL_FN("writev"))
int BPF_PROG(fx_sys_writev, const struct pt_regs *regs, long ret)
{
	sys_writev_exit(ret, RG_HOOK_FENTRY);
	return 0;
}

SEC("fentry/" RG_SYSCALL_FN("pwritev2"))
int BPF_PROG(fe_sys_pwritev2, const struct pt_regs *regs)
{
	if (PT_REGS_PARM4_CORE_SYSCALL(regs) == (__u64)-1)
		sys_writev_enter((int)PT_REGS_PARM1_CORE_SYSCALL(regs),
				 PT_REGS_PARM2_CORE_SYSCALL(regs), PT_REGS_PARM3_CORE_SYSCALL(regs));
	return 0;
}

SEC("fexit/" RG_SYSCALL_FN("pwritev2"))
int BPF_PROG(fx_sys_pwritev2, const struct pt_regs *regs, long ret)
{
	sys_writev_exit(ret, RG_HOOK_FENTRY);
	return 0;
}

SEC("tracepoint/syscalls/sys_enter_ioctl")
int tp_enter_ioctl(struct trace_event_raw_sys_enter *ctx)
{
	sys_ioctl_enter((int)ctx->args[0], ctx->args[1], ctx->args[2]);
	return 0;
}

SEC("tracepoint/syscalls/sys_exit_ioctl")
int tp_exit_ioctl(struct trace_event_raw_sys_exit *ctx)
{
	long ret = ctx->ret;

	barrier_var(ret);
	sys_ioctl_exit(ret, RG_HOOK_TRACEPOINT);
	return 0;
}

SEC("tracepoint/syscalls/sys_enter_write")
int tp_enter_write(struct trace_event_raw_sys_enter *ctx)
{
	sys_write_enter((int)ctx->args[0], ctx->args[1], ctx->args[2], RG_HOOK_TRACEPOINT);
	return 0;
}

SEC("tracepoint/syscalls/sys_exit_write")
int tp_exit_write(struct trace_event_raw_sys_exit *ctx)
{
	long ret = ctx->ret;

	barrier_var(ret);
	sys_write_exit(ret, RG_HOOK_TRACEPOINT);
	return 0;
}

SEC("tracepoint/syscalls/sys_enter_writev")
int tp_enter_writev(struct trace_event_raw_sys_enter *ctx)
{
	sys_writev_enter((int)ctx->args[0], ctx->args[1], ctx->args[2]);
	return 0;
}

SEC("tracepoint/syscalls/sys_exit_writev")
int tp_exit_writev(struct trace_event_raw_sys_exit *ctx)
{
	long ret = ctx->ret;

	barrier_var(ret);
	sys_writev_exit(ret, RG_HOOK_TRACEPOINT);
	return 0;
}

SEC("tracepoint/syscalls/sys_enter_pwritev2")
int tp_enter_pwritev2(struct trace_event_raw_sys_enter *ctx)
{
	if (ctx->args[3] == (__u64)-1)
		sys_writev_enter((int)ctx->args[0], ctx->args[1], ctx->args[2]);
	return 0;
}

SEC("tracepoint/syscalls/sys_exit_pwritev2")
int tp_exit_pwritev2(struct trace_event_raw_sys_exit *ctx)
{
	long ret = ctx->ret;

	barrier_var(ret);
	sys_writev_exit(ret, RG_HOOK_TRACEPOINT);
	return 0;
}

/* The 32-bit ioctl and write() (bpf/compat.bpf.h), while verbs or rdma_cm is on the syscall
 * level; write() follows rg_sys_write_nodes as the native one does. A program each, as the native
 * ones: two handlers inlined in one frame go past the 512-byte stack. */
static __always_inline bool compat_verbs_call(long id, long want)
{
	return id == want && (rg_compat_hooks & RG_COMPAT_VERBS) && in_compat_syscall_();
}

SEC("tracepoint/raw_syscalls/sys_enter")
int tp_compat_enter_ioctl(struct trace_event_raw_sys_enter *ctx)
{
	if (compat_verbs_call(ctx->id, RG_IA32_IOCTL))
		sys_ioctl_enter((int)ctx->args[0], (__u32)ctx->args[1], (__u32)ctx->args[2]);
	return 0;
}

SEC("tracepoint/raw_syscalls/sys_exit")
int tp_compat_exit_ioctl(struct trace_event_raw_sys_exit *ctx)
{
	long ret = ctx->ret;

	barrier_var(ret);
	if (compat_verbs_call(ctx->id, RG_IA32_IOCTL))
		sys_ioctl_exit(ret, RG_HOOK_TRACEPOINT);
	return 0;
}

SEC("tracepoint/raw_syscalls/sys_enter")
int tp_compat_enter_write(struct trace_event_raw_sys_enter *ctx)
{
	if (compat_verbs_call(ctx->id, RG_IA32_WRITE))
		sys_write_enter((int)ctx->args[0], (__u32)ctx->args[1], (__u32)ctx->args[2],
				RG_HOOK_TRACEPOINT);
	return 0;
}

SEC("tracepoint/raw_syscalls/sys_exit")
int tp_compat_exit_write(struct trace_event_raw_sys_exit *ctx)
{
	long ret = ctx->ret;

	barrier_var(ret);
	if (compat_verbs_call(ctx->id, RG_IA32_WRITE))
		sys_write_exit(ret, RG_HOOK_TRACEPOINT);
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
	p.file = (__u64)filp;
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

	if (pending_take(PK_IOCTL, &p) && !enf_reported((int)p.op, ret, (struct file *)p.file))
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

	if (pending_take(PK_WRITE, &p) && !enf_reported((int)p.op, ret, (struct file *)p.file))
		handle_write(p.fd, p.node, p.a0, p.a1, ret, p.rdev, RG_HOOK_KPROBE, 0);
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
