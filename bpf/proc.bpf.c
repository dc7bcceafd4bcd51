// SPDX-License-Identifier: GPL-2.0-only
/*
 * Process lifecycle: exec (exe path, argv), fork (new processes only, not threads), exit (when
 * the last thread of the process exits); and the ptrace links these make: a new process
 * auto-attached to its parent's tracer, a traced process's exec (a memory_access by the
 * tracer). These hooks are not on any syscall's path, so every hook flavour uses them. The
 * agent seeds its process tree from /proc before they are attached.
 */
#include "cmd.bpf.h"

char LICENSE[] SEC("license") = "GPL";

/* At the exit of an RDMA process: the post_send/post_recv calls counted since its last record. */
static long flush_posts(struct bpf_map *map, struct post_key *k, struct post_val *v, __u32 *tgid)
{
	struct rg_rec_cmd *r;

	if (k->tgid != *tgid || !v->calls)
		return 0;
	r = cmd_begin(k->fd, RG_NODE_UVERBS_FD, 0, RG_CMD_POSTS, 0, RG_HOOK_TRACEPOINT);
	if (!r)
		return 1;
	r->h.flags |= RG_RECF_NORET;
	r->calls = v->calls;
	*(__u32 *)r->data = k->cmd;
	r->data_len = sizeof(__u32);
	rg_submit(r);
	v->calls = 0;
	return 0;
}

SEC("tracepoint/sched/sched_process_exec")
int tp_sched_exec(struct trace_event_raw_sched_process_exec *ctx)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	struct rg_rec_exec *r = RESERVE(struct rg_rec_exec);
	unsigned long arg_start, arg_end;
	struct file *exe;
	struct inode *inode;
	struct mm_struct *mm;
	__u64 size;
	__u32 n;

	if (!r)
		return 0;
	fill_hdr(&r->h, RG_REC_EXEC, RG_HOOK_TRACEPOINT);
	r->parent_start_boot_ns = task_start_ns(BPF_CORE_READ(task, real_parent));
	r->sid = BPF_CORE_READ(task, signal, pids[PIDTYPE_SID], numbers[0].nr);
	bpf_probe_read_kernel_str(r->filename, sizeof(r->filename),
				  (void *)ctx + (ctx->__data_loc_filename & 0xffff));
	mm = BPF_CORE_READ(task, mm);
	arg_start = BPF_CORE_READ(mm, arg_start);
	arg_end = BPF_CORE_READ(mm, arg_end);
	size = arg_end > arg_start ? arg_end - arg_start : 0;
	n = size > RG_REC_ARGS ? RG_REC_ARGS : size;
	r->args_size = size > 0xffffffffu ? 0xffffffffu : size;
	r->args_len = 0;
	barrier_var(n);
	if (n > RG_REC_ARGS)
		n = RG_REC_ARGS;
	if (n && bpf_probe_read_user(r->args, n, (void *)arg_start) == 0)
		r->args_len = n;
	/* RG_RECF_TRUNC here means the exe path only; cut args show in args_size > args_len. */
	r->exe_flags = 0;
	r->pad = 0;
	if (rg_host_mnt_ns) {
		struct dentry *root = BPF_CORE_READ(task, fs, root.dentry);

		if (BPF_CORE_READ(task, nsproxy, mnt_ns, ns.inum) != rg_host_mnt_ns ||
		    BPF_CORE_READ(root, d_inode, i_ino) != rg_host_root_ino ||
		    BPF_CORE_READ(root, d_sb, s_dev) != rg_host_root_dev)
			r->exe_flags |= RG_REC_EXE_FOREIGN;
	}
	exe = BPF_CORE_READ(mm, exe_file);
	r->exe[0] = 0;
	r->exe_ino = 0;
	r->exe_dev = 0;
	if (exe) {
		inode = BPF_CORE_READ(exe, f_inode);
		r->exe_ino = BPF_CORE_READ(inode, i_ino);
		r->exe_dev = BPF_CORE_READ(inode, i_sb, s_dev);
		if (file_path(exe, r->exe) > 0)
			r->h.flags |= RG_RECF_TRUNC;
	}
	rg_submit(r);
	/* traced: the tracer holds the new program's memory (PTRACE_TRACEME then exec) */
	if (BPF_CORE_READ(task, ptrace) & PT_PTRACED)
		emit_ptrace_link(BPF_CORE_READ(task, parent), task, MEM_EXEC, 0,
				 RG_HOOK_TRACEPOINT);
	return 0;
}

SEC("raw_tracepoint/sched_process_fork")
int rawtp_sched_fork(struct bpf_raw_tracepoint_args *ctx)
{
	struct task_struct *child = (struct task_struct *)ctx->args[1];
	struct rg_rec_fork *r;
	__u32 pid = BPF_CORE_READ(child, pid), tgid = BPF_CORE_READ(child, tgid), ptgid;
	__u32 one = 1;

	if (pid != tgid)
		return 0; /* a new thread, not a new process */
	ptgid = BPF_CORE_READ(child, real_parent, tgid);
	if (rdma_users_seen() && bpf_map_lookup_elem(&rdma_procs, &ptgid))
		bpf_map_update_elem(&rdma_procs, &tgid, &one, BPF_ANY);
	r = RESERVE(struct rg_rec_fork);
	if (!r)
		return 0;
	fill_hdr_task(&r->h, child, RG_REC_FORK, RG_HOOK_RAW_TP);
	r->parent_start_boot_ns = task_start_ns(BPF_CORE_READ(child, real_parent));
	rg_submit(r);
	/* auto-attached to the parent's tracer (PTRACE_O_TRACEFORK, TRACEVFORK, TRACECLONE) */
	if (BPF_CORE_READ(child, ptrace) & PT_PTRACED)
		emit_ptrace_link(BPF_CORE_READ(child, parent), child, MEM_AUTO, 0, RG_HOOK_RAW_TP);
	return 0;
}

SEC("tracepoint/sched/sched_process_exit")
int tp_sched_exit(void *ctx)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	__u32 tgid = BPF_CORE_READ(task, tgid);
	struct rg_rec_exit *r;
	__u32 rdma = 0;

	/* signal->live is decremented before this tracepoint: 0 means the last thread. */
	if (BPF_CORE_READ(task, signal, live.counter) != 0)
		return 0;
	if (rdma_users_seen() && bpf_map_lookup_elem(&rdma_procs, &tgid)) {
		rdma = 1;
		bpf_map_delete_elem(&rdma_procs, &tgid);
		bpf_for_each_map_elem(&posts, flush_posts, &tgid, 0);
	}
	r = RESERVE(struct rg_rec_exit);
	if (!r)
		return 0;
	fill_hdr(&r->h, RG_REC_EXIT, RG_HOOK_TRACEPOINT);
	r->code = BPF_CORE_READ(task, exit_code);
	r->rdma = rdma;
	rg_submit(r);
	return 0;
}

/* module:module_load (absent on kernels without modules): the tracepoint's own layout. */
struct module_load_args {
	__u64 common;
	__u32 taints;
	__u32 data_loc_name;
};

SEC("tracepoint/module/module_load")
int tp_module_load(struct module_load_args *ctx)
{
	struct rg_rec_module *r = RESERVE_HI(struct rg_rec_module);

	if (!r)
		return 0;
	fill_hdr(&r->h, RG_REC_MODULE, RG_HOOK_TRACEPOINT);
	bpf_probe_read_kernel_str(r->name, sizeof(r->name),
				  (void *)ctx + (ctx->data_loc_name & 0xffff));
	rg_submit(r);
	return 0;
}
