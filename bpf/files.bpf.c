// SPDX-License-Identifier: GPL-2.0-only
/*
 * New fds on RDMA nodes and on /proc/PID/mem, once the kernel has resolved the path (symlinks,
 * relative paths and /dev/char aliases do not hide the node); mmap of a uverbs fd; executable
 * mappings of RDMA libraries (ld.so maps a library's text with PROT_EXEC, whether it came from
 * DT_NEEDED, dlopen or LD_PRELOAD; a mapping made executable later with mprotect(2) is seen at
 * the LSM's file_mprotect check, as enforcement sees it, except on the tracepoint fallback).
 *
 * With BPF LSM, fentry or kprobes every open is seen where every path passes, the LSM's file_open
 * check (security_file_open(), in do_dentry_open()): also io_uring's IORING_OP_OPENAT into a
 * fixed-file slot, which never gives the process an fd, and open_by_handle_at(2). An open inside
 * an open syscall is reported where its fd is installed, fd_install(), with the fd; one outside
 * them at the check, with no fd (-1), and its fd_install(), if any, is not reported again
 * (opened_files). fd_install() also sees dup(2)/fcntl(F_DUPFD) and an fd received by SCM_RIGHTS
 * or pidfd_getfd(2), which open nothing. The tracepoint fallback sees the return of the open
 * syscalls only: open(2), openat(2), openat2(2), creat(2), and their 32-bit forms
 * (bpf/compat.bpf.h).
 *
 * An open that enforcement kills for is left out only where enforcement reports it itself:
 * enf_open_reported().
 */
#include "cmd.bpf.h"
#define RG_ENF_DEFINE_FUNCS
#include "enforce.bpf.h"
#include "compat.bpf.h"

/* Enforcement's kill programs attached on the open exits (RG_KILLTP_*), set by the agent. */
__u32 rg_enf_kill_tps;

/* The RG_KILLTP_* program that runs at the exit of the current system call if it is an open (0 if
 * it is not): below the syscalls (fd_install()), the registers say which one called. */
static __always_inline __u32 killtp_of_current(void)
{
	long nr = SYSCALL_NR(syscall_regs());

	if (in_compat_syscall_())
		return nr == RG_IA32_OPEN || nr == RG_IA32_OPENAT || nr == RG_IA32_OPENAT2 ||
			       nr == RG_IA32_CREAT
			   ? RG_KILLTP_COMPAT_OPENS
			   : 0;
	if (nr < 0)
		return 0;
	if (nr == rg_nr_openat)
		return RG_KILLTP_OPENAT;
	if (nr == rg_nr_open)
		return RG_KILLTP_OPEN;
	if (nr == rg_nr_openat2)
		return RG_KILLTP_OPENAT2;
	if (nr == rg_nr_creat)
		return RG_KILLTP_CREAT;
	return 0;
}

/*
 * Does enforcement report this open of an RDMA node itself (so that it is left out here)? Where
 * it acted already (BPF LSM's file_open, a kill program that ran before this one) it left a mark;
 * where its kill program on the exit of this very system call (killtp) is attached and runs
 * after this one (the same tracepoint; fd_install() inside the syscall), the same verdict on the
 * same maps kills and reports there. An fd from dup(), SCM_RIGHTS, pidfd_getfd(), io_uring or
 * open_by_handle_at() passes no kill program: it is reported here, whatever the verdict.
 */
static __always_inline bool enf_open_reported(struct file *file, __u32 node, __u32 rdev,
					      __u32 killtp)
{
	int act = enf_check_open(node, rdev);

	if (!(act & ENF_KILL))
		return false;
	if (enf_mark_take(RG_ENF_MARK_OPEN, file))
		return true;
	return !(act & ENF_LSM) && killtp && (rg_enf_kill_tps & killtp);
}

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

/* The open record of FILE, what classify_file_() said it is; fd -1: opened with no fd. */
static __always_inline void emit_open(int fd, struct file *file, __u32 what, __u32 node,
				      __u32 rdev, __u16 hook)
{
	struct inode *inode = BPF_CORE_READ(file, f_inode);
	struct task_struct *t = NULL;
	struct rg_rec_open *r;

	if (what == RG_OPEN_RDMA) {
		r = RESERVE_HI(struct rg_rec_open);
	} else {
		t = proc_inode_task(inode);
		r = RESERVE_MEM(struct rg_rec_open, bpf_get_current_task_btf(), current_tgid(),
				t ? BPF_CORE_READ(t, tgid) : 0);
	}
	if (!r)
		return;
	fill_hdr(&r->h, RG_REC_OPEN, hook);
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
	if (t) {
		r->target_pid = BPF_CORE_READ(t, tgid);
		r->target_start_boot_ns = task_start_ns(t);
		BPF_CORE_READ_STR_INTO(&r->target_comm, t, comm);
	}
	if (file_path(file, r->path) > 0)
		r->h.flags |= RG_RECF_TRUNC;
	rg_submit(r);
}

/* fd, an fd of this process, is (or is about to be) FILE (btf: a BTF pointer, a constant). */
static __always_inline void on_new_fd(int fd, struct file *file, __u16 hook, const bool btf,
				      __u32 killtp)
{
	__u32 node = 0, rdev = 0, what;
	__u64 key = (__u64)file;
	bool reported;

	if (fd < 0 || !file)
		return;
	what = classify_file_(file, &node, &rdev, btf);
	if (!what || is_self())
		return;
	/* reported at its open already, with no fd (the open hooks below the syscalls) */
	reported = hook != RG_HOOK_TRACEPOINT && bpf_map_lookup_elem(&opened_files, &key);
	if (reported)
		bpf_map_delete_elem(&opened_files, &key);
	if (what == RG_OPEN_RDMA)
		remember_fd(current_tgid(), fd, file, node, rdev);
	if (reported || (what == RG_OPEN_RDMA && enf_open_reported(file, node, rdev, killtp)))
		return;
	emit_open(fd, file, what, node, rdev, hook);
}

/*
 * The LSM's file_open check of FILE, which every open passes. Inside an open syscall its
 * fd_install() reports it, with the fd; else (io_uring, open_by_handle_at(), a kernel thread)
 * it is reported now, with no fd, and remembered so that a later fd_install() is not reported
 * again.
 */
static __always_inline void on_file_open(struct file *file, __u16 hook, const bool btf)
{
	__u32 node = 0, rdev = 0, what, one = 1;
	__u64 key = (__u64)file;

	if (!file || killtp_of_current())
		return;
	what = classify_file_(file, &node, &rdev, btf);
	if (!what || is_self())
		return;
	if (what == RG_OPEN_RDMA) {
		__u32 tgid = current_tgid();

		/* no fd to remember: the process is an RDMA user all the same */
		rdma_users_latch();
		bpf_map_update_elem(&rdma_procs, &tgid, &one, BPF_ANY);
		if (enf_open_reported(file, node, rdev, 0))
			return;
	}
	bpf_map_update_elem(&opened_files, &key, &one, BPF_ANY);
	emit_open(-1, file, what, node, rdev, hook);
}

/* At the return of an open syscall the fd is in the table. */
static __always_inline void on_open_ret(long ret, __u32 killtp)
{
	if (ret >= 0)
		on_new_fd((int)ret, current_fd_file((int)ret), RG_HOOK_TRACEPOINT, false, killtp);
}

SEC("tracepoint/syscalls/sys_exit_openat")
int tp_exit_openat(struct trace_event_raw_sys_exit *ctx)
{
	on_open_ret(ctx->ret, RG_KILLTP_OPENAT);
	return 0;
}

SEC("tracepoint/syscalls/sys_exit_open")
int tp_exit_open(struct trace_event_raw_sys_exit *ctx)
{
	on_open_ret(ctx->ret, RG_KILLTP_OPEN);
	return 0;
}

SEC("tracepoint/syscalls/sys_exit_openat2")
int tp_exit_openat2(struct trace_event_raw_sys_exit *ctx)
{
	on_open_ret(ctx->ret, RG_KILLTP_OPENAT2);
	return 0;
}

/* creat(2) is open(O_CREAT | O_WRONLY | O_TRUNC) by another number and tracepoint: a node that
 * exists is opened, not created (a /proc/PID/mem too). */
SEC("tracepoint/syscalls/sys_exit_creat")
int tp_exit_creat(struct trace_event_raw_sys_exit *ctx)
{
	on_open_ret(ctx->ret, RG_KILLTP_CREAT);
	return 0;
}

/* The 32-bit open, openat, openat2 and creat (bpf/compat.bpf.h: rg_compat_hooks). */
SEC("tracepoint/raw_syscalls/sys_exit")
int tp_compat_exit_open(struct trace_event_raw_sys_exit *ctx)
{
	long id;

	if (!(rg_compat_hooks & RG_COMPAT_OPEN) || !in_compat_syscall_())
		return 0;
	id = ctx->id;
	if (id == RG_IA32_OPEN || id == RG_IA32_OPENAT || id == RG_IA32_OPENAT2 ||
	    id == RG_IA32_CREAT)
		on_open_ret(ctx->ret, RG_KILLTP_COMPAT_OPENS);
	return 0;
}

/* fd_install(fd, file): the file is open and holds its reference; fd is reserved in the table and
 * becomes visible when this returns. One entry hook, no return probe. */
SEC("fentry/fd_install")
int BPF_PROG(fe_fd_install, unsigned int fd, struct file *file)
{
	on_new_fd((int)fd, file, RG_HOOK_FENTRY, true, killtp_of_current());
	return 0;
}

SEC("kprobe/fd_install")
int BPF_KPROBE(kp_fd_install, unsigned int fd, struct file *file)
{
	on_new_fd((int)fd, file, RG_HOOK_KPROBE, false, killtp_of_current());
	return 0;
}

/* After every LSM said yes: an open refused (by enforcement too) is no open. */
SEC("fexit/security_file_open")
int BPF_PROG(fx_security_file_open, struct file *file, int ret)
{
	if (!ret)
		on_file_open(file, RG_HOOK_FENTRY, true);
	return 0;
}

SEC("kprobe/security_file_open")
int BPF_KPROBE(kp_security_file_open, struct file *file)
{
	on_file_open(file, RG_HOOK_KPROBE, false);
	return 0;
}

SEC("lsm/file_open")
int BPF_PROG(lsm_file_open, struct file *file, int ret)
{
	if (ret)
		return ret; /* denied before us (enforcement reports it) */
	on_file_open(file, RG_HOOK_LSM, true);
	return 0; /* observe only */
}

/* compat: a 32-bit mmap, which no enforcement program sees where there is no BPF LSM (with it,
 * the mmap_file hook sees every mmap and this flavour is not used) */
static __always_inline void mmap_enter(int fd, __u64 len, __u64 off, __u32 prot, __u64 flags,
				       bool compat)
{
	__u32 node, rdev;
	struct file *file;

	if (fd < 0 || (flags & MAP_ANONYMOUS) || is_self())
		return;
	if (lookup_rdma_fd(fd, &node, &rdev)) {
		if (!enf_takes_mmap(rdev))
			emit_mmap(fd, node, rdev, len, off, prot, RG_HOOK_TRACEPOINT);
		return;
	}
	if (!(prot & PROT_EXEC))
		return;
	file = current_fd_file(fd);
	if (file && is_rdma_lib(file) && (compat || !enf_takes_lib()))
		emit_lib(file, prot, RG_HOOK_TRACEPOINT, 0);
}

SEC("tracepoint/syscalls/sys_enter_mmap")
int tp_enter_mmap(struct trace_event_raw_sys_enter *ctx)
{
	mmap_enter((int)ctx->args[4], ctx->args[1], ctx->args[5], (__u32)ctx->args[2],
		   ctx->args[3], false);
	return 0;
}

/* struct mmap_arg_struct32, the 32-bit old mmap's one argument */
struct rg_mmap_arg32 {
	__u32 addr, len, prot, flags, fd, offset;
};

/* The 32-bit mmap2 (offset in pages) and old mmap (bpf/compat.bpf.h). */
SEC("tracepoint/raw_syscalls/sys_enter")
int tp_compat_enter_mmap(struct trace_event_raw_sys_enter *ctx)
{
	struct rg_mmap_arg32 a = {};
	long id = ctx->id;

	if ((id != RG_IA32_MMAP2 && id != RG_IA32_OLD_MMAP) ||
	    !(rg_compat_hooks & RG_COMPAT_MMAP) || !in_compat_syscall_())
		return 0;
	if (id == RG_IA32_MMAP2) {
		a.len = (__u32)ctx->args[1];
		a.prot = (__u32)ctx->args[2];
		a.flags = (__u32)ctx->args[3];
		a.fd = (__u32)ctx->args[4];
		a.offset = (__u32)ctx->args[5];
	} else if (bpf_probe_read_user(&a, sizeof(a), (void *)(__u64)(__u32)ctx->args[0])) {
		return 0;
	}
	/* mmap2's offset is in 4096-byte units, old mmap's in bytes */
	mmap_enter((int)a.fd, a.len, id == RG_IA32_MMAP2 ? (__u64)a.offset << 12 : a.offset, a.prot,
		   a.flags, true);
	return 0;
}

static __always_inline void on_mmap_file(struct file *file, unsigned long prot, __u16 hook)
{
	if (!file || !(prot & PROT_EXEC) || is_self())
		return;
	if (is_rdma_lib(file) && !enf_takes_lib())
		emit_lib(file, prot, hook, 0);
}

/* mprotect(PROT_EXEC) of a mapping not executable before: a library mapped as data, then made
 * code (a loader of its own), is as loaded as one ld.so maps. */
#define VM_EXEC 0x4

static __always_inline void on_mprotect(struct vm_area_struct *vma, unsigned long prot,
					__u16 hook)
{
	struct file *file;

	if (!(prot & PROT_EXEC) || (BPF_CORE_READ(vma, vm_flags) & VM_EXEC) || is_self())
		return;
	file = BPF_CORE_READ(vma, vm_file);
	if (file && is_rdma_lib(file) && !enf_takes_lib())
		emit_lib(file, prot, hook, 0);
}

SEC("fexit/security_file_mprotect")
int BPF_PROG(fx_security_file_mprotect, struct vm_area_struct *vma, unsigned long reqprot,
	     unsigned long prot, int ret)
{
	if (!ret)
		on_mprotect(vma, prot, RG_HOOK_FENTRY);
	return 0;
}

SEC("kprobe/security_file_mprotect")
int BPF_KPROBE(kp_security_file_mprotect, struct vm_area_struct *vma, unsigned long reqprot,
	       unsigned long prot)
{
	on_mprotect(vma, prot, RG_HOOK_KPROBE);
	return 0;
}

SEC("lsm/file_mprotect")
int BPF_PROG(lsm_file_mprotect, struct vm_area_struct *vma, unsigned long reqprot,
	     unsigned long prot, int ret)
{
	if (ret)
		return ret; /* denied before us (enforcement reports it) */
	on_mprotect(vma, prot, RG_HOOK_LSM);
	return 0; /* observe only */
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
