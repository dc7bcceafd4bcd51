// SPDX-License-Identifier: GPL-2.0-only
/*
 * New fds on RDMA nodes and on /proc/PID/mem, once the kernel has resolved the path (symlinks,
 * relative paths and /dev/char aliases do not hide the node); mmap of a uverbs fd; executable
 * mappings of RDMA libraries (ld.so maps a library's text with PROT_EXEC, whether it came from
 * DT_NEEDED, dlopen or LD_PRELOAD).
 *
 * With fentry or kprobes the fd is seen where the kernel installs it in the table, fd_install():
 * every open(2)/openat(2)/openat2(2), and also io_uring's IORING_OP_OPENAT, open_by_handle_at(2),
 * dup(2)/fcntl(F_DUPFD) and an fd received by SCM_RIGHTS or pidfd_getfd(2), which never pass the
 * open syscalls. The tracepoint fallback sees the return of the three open syscalls only.
 */
#include "cmd.bpf.h"
#define RG_ENF_DEFINE_FUNCS
#include "enforce.bpf.h"

#define MAP_ANONYMOUS 0x20

/* The task a /proc/PID/... inode is about (proc_inode->pid's first task). */
static __always_inline struct task_struct *proc_inode_task(struct inode *inode)
{
	struct proc_inode *pi = (void *)inode - bpf_core_field_offset(struct proc_inode, vfs_inode);
	struct pid *pid = BPF_CORE_READ(pi, pid);
	struct hlist_node *first;

	if (!pid)
		return NULL;
	first = BPF_CORE_READ(pid, tasks[PIDTYPE_PID].first);
	if (!first)
		return NULL;
	return (void *)first - bpf_core_field_offset(struct task_struct, pid_links);
}

/* fd, an fd of this process, is (or is about to be) FILE (btf: a BTF pointer, a constant). */
static __always_inline void on_new_fd(int fd, struct file *file, __u16 hook, const bool btf)
{
	struct rg_rec_open *r;
	struct inode *inode;
	__u32 node = 0, rdev = 0, what;

	if (fd < 0 || !file)
		return;
	what = classify_file_(file, &node, &rdev, btf);
	if (!what || is_self())
		return;
	if (what == RG_OPEN_RDMA)
		remember_fd(current_tgid(), fd, file, node, rdev);
	/* enforcement kills the process and reports the open itself */
	if (what == RG_OPEN_RDMA && (enf_check_open(node, rdev) & ENF_KILL))
		return;
	r = RESERVE(struct rg_rec_open);
	if (!r)
		return;
	fill_hdr(&r->h, RG_REC_OPEN, hook);
	inode = BPF_CORE_READ(file, f_inode);
	r->fd = fd;
	r->ret = 0;
	r->what = what;
	r->rdev = rdev;
	r->mode = BPF_CORE_READ(inode, i_mode);
	r->node = node;
	r->ino = BPF_CORE_READ(inode, i_ino);
	r->target_pid = 0;
	r->pad = 0;
	r->target_start_boot_ns = 0;
	r->target_comm[0] = 0;
	if (what == RG_OPEN_PROC_MEM) {
		struct task_struct *t = proc_inode_task(inode);

		if (t) {
			r->target_pid = BPF_CORE_READ(t, tgid);
			r->target_start_boot_ns = task_start_ns(t);
			BPF_CORE_READ_STR_INTO(&r->target_comm, t, comm);
		}
	}
	if (file_path(file, r->path) > 0)
		r->h.flags |= RG_RECF_TRUNC;
	rg_submit(r);
}

/* At the return of an open syscall the fd is in the table. */
static __always_inline void on_open_ret(long ret)
{
	if (ret >= 0)
		on_new_fd((int)ret, current_fd_file((int)ret), RG_HOOK_TRACEPOINT, false);
}

SEC("tracepoint/syscalls/sys_exit_openat")
int tp_exit_openat(struct trace_event_raw_sys_exit *ctx)
{
	on_open_ret(ctx->ret);
	return 0;
}

SEC("tracepoint/syscalls/sys_exit_open")
int tp_exit_open(struct trace_event_raw_sys_exit *ctx)
{
	on_open_ret(ctx->ret);
	return 0;
}

SEC("tracepoint/syscalls/sys_exit_openat2")
int tp_exit_openat2(struct trace_event_raw_sys_exit *ctx)
{
	on_open_ret(ctx->ret);
	return 0;
}

/* fd_install(fd, file): the file is open and holds its reference; fd is reserved in the table and
 * becomes visible when this returns. One entry hook, no return probe. */
SEC("fentry/fd_install")
int BPF_PROG(fe_fd_install, unsigned int fd, struct file *file)
{
	on_new_fd((int)fd, file, RG_HOOK_FENTRY, true);
	return 0;
}

SEC("kprobe/fd_install")
int BPF_KPROBE(kp_fd_install, unsigned int fd, struct file *file)
{
	on_new_fd((int)fd, file, RG_HOOK_KPROBE, false);
	return 0;
}

SEC("tracepoint/syscalls/sys_enter_mmap")
int tp_enter_mmap(struct trace_event_raw_sys_enter *ctx)
{
	int fd = (int)ctx->args[4];
	__u32 prot = ctx->args[2], node, rdev;
	struct file *file;

	if (fd < 0 || (ctx->args[3] & MAP_ANONYMOUS) || is_self())
		return 0;
	if (lookup_rdma_fd(fd, &node, &rdev)) {
		if (!enf_takes_mmap(rdev))
			emit_mmap(fd, node, rdev, ctx->args[1], ctx->args[5], prot,
				  RG_HOOK_TRACEPOINT);
		return 0;
	}
	if (!(prot & PROT_EXEC))
		return 0;
	file = current_fd_file(fd);
	if (file && is_rdma_lib(file) && !enf_takes_lib())
		emit_lib(file, prot, RG_HOOK_TRACEPOINT, 0);
	return 0;
}

static __always_inline void on_mmap_file(struct file *file, unsigned long prot, __u16 hook)
{
	if (!file || !(prot & PROT_EXEC) || is_self())
		return;
	if (is_rdma_lib(file) && !enf_takes_lib())
		emit_lib(file, prot, hook, 0);
}

SEC("fentry/security_mmap_file")
int BPF_PROG(fe_security_mmap_file, struct file *file, unsigned long prot, unsigned long flags)
{
	on_mmap_file(file, prot, RG_HOOK_FENTRY);
	return 0;
}

SEC("kprobe/security_mmap_file")
int BPF_KPROBE(kp_security_mmap_file, struct file *file, unsigned long prot, unsigned long flags)
{
	on_mmap_file(file, prot, RG_HOOK_KPROBE);
	return 0;
}

SEC("lsm/mmap_file")
int BPF_PROG(lsm_mmap_file, struct file *file, unsigned long reqprot, unsigned long prot,
	     unsigned long flags, int ret)
{
	if (ret)
		return ret; /* denied before us (enforcement reports it) */
	on_mmap_file(file, prot, RG_HOOK_LSM);
	return 0; /* observe only */
}
