// SPDX-License-Identifier: GPL-2.0-only
/*
 * Cross-process memory access: process_vm_readv/writev, ptrace attach/seize and PTRACE_TRACEME
 * (opens of /proc/PID/mem are seen by the open hooks in files.bpf.c; the auto-attach of a new
 * process at fork and a traced process's exec by proc.bpf.c). Tracepoint flavour: syscall entry and
 * exit (the return value is the byte count or the error). Below the syscalls, the kernel asks
 * security_ptrace_access_check() with PTRACE_MODE_ATTACH for all three: one hook that also sees
 * the target task, and the 32-bit calls (their ia32 numbers), which the tracepoints skip
 * (tp_compat_*_mem report them there).
 */
#include "common.bpf.h"
#include "compat.bpf.h"

#define PTRACE_TRACEME 0
#define PTRACE_ATTACH  16
#define PTRACE_SEIZE   0x4206

static __always_inline void mem_enter(__u32 op, __u32 target)
{
	struct pending p = {};

	if (is_self())
		return;
	p.kind = PK_MEM;
	p.op = op;
	p.a0 = target;
	pending_put(PK_MEM, &p);
}

static __always_inline void emit_mem(__u32 op, __u32 target, __s64 ret, struct task_struct *t,
				     __u16 hook, __u16 flags)
{
	/* the game's entry is its tgid: a thread's id (the tracepoints' argument) misses it */
	struct rg_rec_mem *r = RESERVE_MEM(struct rg_rec_mem, bpf_get_current_task_btf(),
					   current_tgid(), t ? BPF_CORE_READ(t, tgid) : target);

	if (!r)
		return;
	fill_hdr(&r->h, RG_REC_MEM, hook);
	r->h.flags |= flags;
	r->op = op;
	r->target_pid = target;
	r->ret = ret;
	r->target_start_boot_ns = 0;
	r->target_comm[0] = 0;
	if (t) {
		r->target_start_boot_ns = task_start_ns(t);
		BPF_CORE_READ_STR_INTO(&r->target_comm, t, comm);
	}
	rg_submit(r);
}

static __always_inline void mem_exit(long ret)
{
	struct task_struct *t;
	struct pending p;

	if (!pending_take(PK_MEM, &p))
		return;
	if (p.op != MEM_TRACEME) {
		emit_mem(p.op, (__u32)p.a0, ret, NULL, RG_HOOK_TRACEPOINT, 0);
		return;
	}
	/* refused: no link, nothing to say (the tracer did nothing) */
	t = (struct task_struct *)bpf_get_current_task();
	if (ret == 0)
		emit_ptrace_link(BPF_CORE_READ(t, parent), t, MEM_TRACEME, 0, RG_HOOK_TRACEPOINT);
}

/* The 32-bit calls (bpf/compat.bpf.h), while memory is on the tracepoints. */
SEC("tracepoint/raw_syscalls/sys_enter")
int tp_compat_enter_mem(struct trace_event_raw_sys_enter *ctx)
{
	/* both read at fixed offsets: a context access at a chosen offset is refused */
	__u64 a0 = ctx->args[0], a1 = ctx->args[1];
	long id = ctx->id;
	__s32 req = (__s32)a0;
	__u32 op;

	if (id == RG_IA32_PROCESS_VM_READV)
		op = MEM_READV;
	else if (id == RG_IA32_PROCESS_VM_WRITEV)
		op = MEM_WRITEV;
	else if (id == RG_IA32_PTRACE && req == PTRACE_ATTACH)
		op = MEM_ATTACH;
	else if (id == RG_IA32_PTRACE && req == PTRACE_SEIZE)
		op = MEM_SEIZE;
	else if (id == RG_IA32_PTRACE && req == PTRACE_TRACEME)
		op = MEM_TRACEME;
	else
		return 0;
	if (!(rg_compat_hooks & RG_COMPAT_MEMORY) || !in_compat_syscall_())
		return 0;
	/* the target: the first argument of process_vm_*, ptrace's second */
	barrier_var(a1);
	mem_enter(op, (__u32)(id == RG_IA32_PTRACE ? a1 : a0));
	return 0;
}

SEC("tracepoint/raw_syscalls/sys_exit")
int tp_compat_exit_mem(struct trace_event_raw_sys_exit *ctx)
{
	long id;

	if (!(rg_compat_hooks & RG_COMPAT_MEMORY) || !in_compat_syscall_())
		return 0;
	id = ctx->id;
	if (id == RG_IA32_PROCESS_VM_READV || id == RG_IA32_PROCESS_VM_WRITEV ||
	    id == RG_IA32_PTRACE)
		mem_exit(ctx->ret);
	return 0;
}

SEC("tracepoint/syscalls/sys_enter_process_vm_readv")
int tp_enter_pvm_readv(struct trace_event_raw_sys_enter *ctx)
{
	mem_enter(MEM_READV, (__u32)ctx->args[0]);
	return 0;
}

SEC("tracepoint/syscalls/sys_exit_process_vm_readv")
int tp_exit_pvm_readv(struct trace_event_raw_sys_exit *ctx)
{
	mem_exit(ctx->ret);
	return 0;
}

SEC("tracepoint/syscalls/sys_enter_process_vm_writev")
int tp_enter_pvm_writev(struct trace_event_raw_sys_enter *ctx)
{
	mem_enter(MEM_WRITEV, (__u32)ctx->args[0]);
	return 0;
}

SEC("tracepoint/syscalls/sys_exit_process_vm_writev")
int tp_exit_pvm_writev(struct trace_event_raw_sys_exit *ctx)
{
	mem_exit(ctx->ret);
	return 0;
}

SEC("tracepoint/syscalls/sys_enter_ptrace")
int tp_enter_ptrace(struct trace_event_raw_sys_enter *ctx)
{
	long req = (long)ctx->args[0];

	if (req == PTRACE_ATTACH)
		mem_enter(MEM_ATTACH, (__u32)ctx->args[1]);
	else if (req == PTRACE_SEIZE)
		mem_enter(MEM_SEIZE, (__u32)ctx->args[1]);
	else if (req == PTRACE_TRACEME)
		mem_enter(MEM_TRACEME, 0);
	return 0;
}

SEC("tracepoint/syscalls/sys_exit_ptrace")
int tp_exit_ptrace(struct trace_event_raw_sys_exit *ctx)
{
	mem_exit(ctx->ret);
	return 0;
}

/* Below the syscalls: which syscall asked is told by the user registers. */
static __always_inline void on_ptrace_check(struct task_struct *child, unsigned int mode, int ret,
					    __u16 hook)
{
	struct pt_regs *regs;
	long nr, req;
	bool compat;
	__u32 op;

	if (!(mode & PTRACE_MODE_ATTACH) || is_self())
		return;
	regs = syscall_regs();
	nr = SYSCALL_NR(regs);
	compat = in_compat_syscall_();
	if (compat ? nr == RG_IA32_PROCESS_VM_READV : (nr == rg_nr_process_vm_readv && nr >= 0))
		op = MEM_READV;
	else if (compat ? nr == RG_IA32_PROCESS_VM_WRITEV
			: (nr == rg_nr_process_vm_writev && nr >= 0))
		op = MEM_WRITEV;
	else if (compat ? nr == RG_IA32_PTRACE : (nr == rg_nr_ptrace && nr >= 0)) {
		/* the request: the first argument, in bx for a 32-bit call */
		req = compat ? COMPAT_ARG1(regs) : PT_REGS_PARM1_CORE_SYSCALL(regs);
		if (req == PTRACE_ATTACH)
			op = MEM_ATTACH;
		else if (req == PTRACE_SEIZE)
			op = MEM_SEIZE;
		else
			return;
	} else
		return; /* /proc/PID/mem: the open hooks report it, with the fd */
	emit_mem(op, BPF_CORE_READ(child, pid), ret, child, hook,
		 hook == RG_HOOK_KPROBE ? RG_RECF_NORET : 0);
}

SEC("fexit/security_ptrace_access_check")
int BPF_PROG(fx_ptrace_access_check, struct task_struct *child, unsigned int mode, int ret)
{
	on_ptrace_check(child, mode, ret, RG_HOOK_FENTRY);
	return 0;
}

SEC("kprobe/security_ptrace_access_check")
int BPF_KPROBE(kp_ptrace_access_check, struct task_struct *child, unsigned int mode)
{
	on_ptrace_check(child, mode, 0, RG_HOOK_KPROBE);
	return 0;
}

SEC("lsm/ptrace_access_check")
int BPF_PROG(lsm_ptrace_access_check, struct task_struct *child, unsigned int mode, int ret)
{
	on_ptrace_check(child, mode, ret, RG_HOOK_LSM);
	return ret;
}

/* PTRACE_TRACEME: the kernel asks security_ptrace_traceme(parent); the tracer is the actor. */
SEC("fexit/security_ptrace_traceme")
int BPF_PROG(fx_ptrace_traceme, struct task_struct *parent, int ret)
{
	if (!ret)
		emit_ptrace_link(parent, bpf_get_current_task_btf(), MEM_TRACEME, 0,
				 RG_HOOK_FENTRY);
	return 0;
}

SEC("kprobe/security_ptrace_traceme")
int BPF_KPROBE(kp_ptrace_traceme, struct task_struct *parent)
{
	emit_ptrace_link(parent, (struct task_struct *)bpf_get_current_task(), MEM_TRACEME, 0,
			 RG_HOOK_KPROBE);
	return 0;
}

SEC("lsm/ptrace_traceme")
int BPF_PROG(lsm_ptrace_traceme, struct task_struct *parent, int ret)
{
	if (!ret)
		emit_ptrace_link(parent, bpf_get_current_task_btf(), MEM_TRACEME, 0, RG_HOOK_LSM);
	return ret;
}
