// SPDX-License-Identifier: GPL-2.0-only
/*
 * Self-protection: a bpf() command by another process that changes one of the agent's own maps
 * (update, delete, freeze, batch) or links (update, detach). The caller's fd is resolved to the
 * object it names (an anonymous inode named "bpf-map", or "bpf_link", "bpf-link" on 6.18: nothing
 * else is read as one), and only the agent's own objects (map self_objs, filled by the agent after
 * load) are reported, with the kernel's answer: a refused attempt is reported too.
 *
 * Flavours: fexit or kretprobe on the bpf() syscall's wrapper (RG_SYSCALL_FN), which read the
 * command from the syscall's registers at its return; the sys_enter_bpf/sys_exit_bpf tracepoints
 * only where neither works, since any syscall tracepoint sends every syscall of every task
 * through the kernel's slow path.
 */
#include "common.bpf.h"

char LICENSE[] SEC("license") = "GPL";

/* Fills p and returns true when bpf() command cmd, with attributes at uattr, names one of the
 * agent's own maps or links through the caller's fd (read from the current task's fd table). */
static __always_inline bool self_target(__u32 cmd, void *uattr, struct pending *p)
{
	__u32 fd = 0, off = 0, kind;
	struct rg_self_key k = {};
	struct dentry *dentry;
	struct file *file;
	char name[16];
	void *priv;

	switch (cmd) {
	case BPF_MAP_UPDATE_ELEM:
	case BPF_MAP_DELETE_ELEM:
	case BPF_MAP_LOOKUP_AND_DELETE_ELEM:
	case BPF_MAP_FREEZE:
		kind = RG_SELF_MAP;
		break;
	case BPF_MAP_LOOKUP_AND_DELETE_BATCH:
	case BPF_MAP_UPDATE_BATCH:
	case BPF_MAP_DELETE_BATCH:
		kind = RG_SELF_MAP;
		off = __builtin_offsetof(union bpf_attr, batch.map_fd);
		break;
	case BPF_LINK_UPDATE:
	case BPF_LINK_DETACH:
		kind = RG_SELF_LINK;
		break;
	default:
		return false;
	}
	if (bpf_probe_read_user(&fd, sizeof(fd), uattr + off) != 0)
		return false;
	file = current_fd_file((int)fd);
	if (!file)
		return false;
	dentry = BPF_CORE_READ(file, f_path.dentry);
	if (read_dentry_name(dentry, name, sizeof(name)) < 0)
		return false;
	priv = BPF_CORE_READ(file, private_data);
	if (!priv)
		return false;
	if (kind == RG_SELF_MAP) {
		if (!NAME_IS(name, "bpf-map") && !NAME_IS(name, "bpf_map"))
			return false;
		k.id = BPF_CORE_READ((struct bpf_map *)priv, id);
	} else {
		if (!NAME_IS(name, "bpf_link") && !NAME_IS(name, "bpf-link"))
			return false;
		k.id = BPF_CORE_READ((struct bpf_link *)priv, id);
	}
	k.kind = kind;
	if (!bpf_map_lookup_elem(&self_objs, &k))
		return false;
	p->kind = PK_BPF;
	p->fd = (int)fd;
	p->op = cmd;
	p->node = kind;
	p->a0 = k.id;
	return true;
}

static __always_inline void emit_bpf(const struct pending *p, long ret, __u16 hook)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	struct rg_rec_bpf *r;
	struct file *exe;

	r = RESERVE_HI(struct rg_rec_bpf);
	if (!r)
		return;
	fill_hdr(&r->h, RG_REC_BPF, hook);
	r->cmd = p->op;
	r->kind = p->node;
	r->id = (__u32)p->a0;
	r->fd = p->fd;
	r->ret = ret;
	r->exe[0] = 0;
	exe = BPF_CORE_READ(task, mm, exe_file);
	if (exe && file_path(exe, r->exe) > 0)
		r->h.flags |= RG_RECF_TRUNC;
	rg_submit(r);
}

/* fexit and kretprobe: the command and its attributes from the syscall's own registers. */
static __always_inline int sys_bpf_ret(long ret, __u16 hook)
{
	struct pt_regs *regs;
	struct pending p = {};

	if (is_self())
		return 0;
	regs = syscall_regs();
	if (self_target((__u32)PT_REGS_PARM1_CORE_SYSCALL(regs),
			(void *)PT_REGS_PARM2_CORE_SYSCALL(regs), &p))
		emit_bpf(&p, ret, hook);
	return 0;
}

SEC("fexit/" RG_SYSCALL_FN("bpf"))
int BPF_PROG(fx_sys_bpf, const struct pt_regs *unused, long ret)
{
	return sys_bpf_ret(ret, RG_HOOK_FENTRY);
}

SEC("kretprobe/" RG_SYSCALL_FN("bpf"))
int BPF_KRETPROBE(krp_sys_bpf, long ret)
{
	return sys_bpf_ret(ret, RG_HOOK_KPROBE);
}

SEC("tracepoint/syscalls/sys_enter_bpf")
int tp_enter_bpf(struct trace_event_raw_sys_enter *ctx)
{
	struct pending p = {};

	if (!is_self() && self_target((__u32)ctx->args[0], (void *)ctx->args[1], &p))
		pending_put(PK_BPF, &p);
	return 0;
}

SEC("tracepoint/syscalls/sys_exit_bpf")
int tp_exit_bpf(struct trace_event_raw_sys_exit *ctx)
{
	struct pending p;

	if (pending_take(PK_BPF, &p))
		emit_bpf(&p, ctx->ret, RG_HOOK_TRACEPOINT);
	return 0;
}
