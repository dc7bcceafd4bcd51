/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Shared by every sensors .bpf.c file: the knobs the agent sets before load, and helpers: process
 * identity, fd -> struct file, RDMA node classification, dentry paths, records into the ring
 * buffer. The maps are in maps.bpf.h (included here).
 *
 * Every loop is bounded; big buffers live in the ring buffer record or the per-CPU scratch map.
 */
#pragma once

#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "events.h"

/* writev()/pwritev2() on a uverbs or rdma_cm fd: the kernel hands the driver one command per
 * iovec. The first RG_WRITEV_MAX + 1 iovecs are read. */
#define RG_WRITEV_MAX 8

#define S_IFMT		     00170000
#define S_IFREG		     0100000
#define S_IFCHR		     0020000
#define S_ISCHR(m)	     (((m)&S_IFMT) == S_IFCHR)
#define PROC_SUPER_MAGIC     0x9fa0
#define PROT_EXEC	     0x4
#define MINORBITS	     20
#define MISC_MAJOR	     10
#define IB_UVERBS_MAJOR	     231
#define IB_UVERBS_BASE_MINOR 192
#define IB_UMAD_BASE_MINOR   64 /* umad 0..63, issm 64..127 */
#define PTRACE_MODE_ATTACH   0x02
#define RG_PATH_DEPTH	     32
#define RG_POST_EMIT_NS	     1000000000ull /* one post_send/post_recv record per fd per second */

/* Knobs, set by the agent before load (const volatile: the verifier sees the constants). */
const volatile __u64 rg_tick_ns __weak = 10000000; /* 1e9 / sysconf(_SC_CLK_TCK) */
const volatile __u32 rg_self_tgid __weak = 0;	   /* the agent: its own work is not reported */
const volatile __s32 rg_nr_ioctl __weak = -1;	   /* syscall numbers, for hooks below syscalls */
const volatile __s32 rg_nr_write __weak = -1;
const volatile __s32 rg_nr_mmap __weak = -1;
const volatile __s32 rg_nr_open __weak = -1;
const volatile __s32 rg_nr_openat __weak = -1;
const volatile __s32 rg_nr_openat2 __weak = -1;
const volatile __s32 rg_nr_creat __weak = -1;
const volatile __s32 rg_nr_ptrace __weak = -1;
const volatile __s32 rg_nr_process_vm_readv __weak = -1;
const volatile __s32 rg_nr_process_vm_writev __weak = -1;
const volatile __u32 rg_ibv_device_name_off __weak = 0; /* offsetof(struct ibv_device, name) */
/* Offsets of the inode's ctime seconds and nanoseconds in this kernel (from its BTF: the field
 * moved in 6.6 and 6.11, and CO-RE alternatives merged by the compiler fail to load); 0: unknown */
const volatile __u32 rg_ctime_sec_off __weak = 0;
const volatile __u32 rg_ctime_nsec_off __weak = 0;
/* The kernel has bpf_loop() (5.17); 0: an unrolled loop instead (the other branch is dead code to
 * the verifier, which removes it, helper call included). */
const volatile __u32 rg_have_loop __weak = 1;
/* init's root directory (inode, device in the kernel's encoding) and mount namespace (inode
 * number): an exec seen from elsewhere has a path the user shapes (agent/common/hostns.h).
 * rg_host_mnt_ns 0: unknown, nothing is flagged. */
const volatile __u64 rg_host_root_ino __weak = 0;
const volatile __u32 rg_host_root_dev __weak = 0;
const volatile __u32 rg_host_mnt_ns __weak = 0;

#include "maps.bpf.h"

static __always_inline void count(__u32 which)
{
	__u64 *v = bpf_map_lookup_elem(&counters, &which);

	if (v)
		*v += 1; /* per-CPU: no atomics needed */
}

#define RESERVE_IN(ring, cnt, type)                                                                \
	({                                                                                         \
		type *_r = bpf_ringbuf_reserve(&ring, sizeof(type), 0);                            \
		if (!_r)                                                                           \
			count(cnt);                                                                \
		_r;                                                                                \
	})
#define RESERVE(type) RESERVE_IN(events, RG_CNT_RINGBUF_FULL, type)
/* A record for the RDMA ring (maps.bpf.h: events_hi); enforcement has one ring. */
#ifndef RG_ENFORCE_OBJECT
#define RESERVE_HI(type) RESERVE_IN(events_hi, RG_CNT_RINGBUF_HI_FULL, type)
#else
#define RESERVE_HI(type) RESERVE(type)
#endif

#ifndef RG_ENFORCE_OBJECT
/* The rdma_seen latch: has an RDMA fd or user ever been recorded? */
static __always_inline bool rdma_users_seen(void)
{
	__u32 zero = 0;
	__u32 *v = bpf_map_lookup_elem(&rdma_seen, &zero);

	return v && *(volatile __u32 *)v != 0;
}

static __always_inline void rdma_users_latch(void)
{
	__u32 zero = 0;
	__u32 *v = bpf_map_lookup_elem(&rdma_seen, &zero);

	if (v && !*(volatile __u32 *)v)
		*(volatile __u32 *)v = 1;
}

/* The reader's wake-up policy (map rb_poll): no wake-up while the agent reads on a timer. */
static __always_inline void rg_submit(void *r)
{
	__u32 zero = 0;
	__u32 *v = bpf_map_lookup_elem(&rb_poll, &zero);

	bpf_ringbuf_submit(r, v && *(volatile __u32 *)v ? BPF_RB_NO_WAKEUP : 0);
}
#else
/* Enforcement's own ring: its records (denials, kills) always wake the reader. */
#define rg_submit(r) bpf_ringbuf_submit((r), 0)
#endif

static __always_inline __u32 current_tgid(void)
{
	return bpf_get_current_pid_tgid() >> 32;
}

static __always_inline bool is_self(void)
{
	return rg_self_tgid && current_tgid() == rg_self_tgid;
}

/* A start time rounded down to a clock tick, as /proc/PID/stat gives it, in ns. */
static __always_inline __u64 tick_floor(__u64 ns)
{
	__u64 tick = rg_tick_ns ? rg_tick_ns : 10000000;

	return ns / tick * tick;
}

/* Start time of the task's process, as /proc/PID/stat gives it (clock ticks), in ns. */
static __always_inline __u64 task_start_ns(struct task_struct *task)
{
	return tick_floor(BPF_CORE_READ(task, group_leader, start_boottime));
}

static __always_inline void hdr_init(struct rg_rec_hdr *h, __u16 type, __u16 hook)
{
	h->type = type;
	h->flags = 0;
	h->hook = hook;
	h->pad = 0;
	h->ts_boot_ns = bpf_ktime_get_boot_ns();
}

/* The header of a record about any task (fill_hdr() for the current one). */
static __always_inline void fill_hdr_task(struct rg_rec_hdr *h, struct task_struct *task,
					  __u16 type, __u16 hook)
{
	hdr_init(h, type, hook);
	h->pid = BPF_CORE_READ(task, tgid);
	h->tid = BPF_CORE_READ(task, pid);
	h->ppid = BPF_CORE_READ(task, real_parent, tgid);
	h->uid = BPF_CORE_READ(task, cred, uid.val);
	h->start_boot_ns = task_start_ns(task);
	BPF_CORE_READ_STR_INTO(&h->comm, task, comm);
}

/*
 * The header of a record about the current task: loads through its BTF pointer
 * (bpf_get_current_task_btf(), 5.11), which the JIT makes plain memory loads, where
 * fill_hdr_task() makes a bpf_probe_read_kernel() call a field (nine). On every verbs command's
 * record: the header was a large share of the program's run time.
 */
static __always_inline void fill_hdr(struct rg_rec_hdr *h, __u16 type, __u16 hook)
{
	struct task_struct *task = bpf_get_current_task_btf();

	hdr_init(h, type, hook);
	h->pid = task->tgid;
	h->tid = task->pid;
	h->ppid = task->real_parent->tgid;
	h->uid = task->cred->uid.val;
	h->start_boot_ns = tick_floor(task->group_leader->start_boottime);
	bpf_get_current_comm(h->comm, sizeof(h->comm));
}

/* The current task's file at fd, or NULL. The fd table is reached with plain loads through the
 * task's BTF pointer; only the slot, at a variable offset, needs bpf_probe_read_kernel(). */
static __always_inline struct file *current_fd_file(int fd)
{
	struct fdtable *fdt = bpf_get_current_task_btf()->files->fdt;
	struct file **arr;
	struct file *f = NULL;

	if (!fdt || fd < 0 || (unsigned int)fd >= fdt->max_fds)
		return NULL;
	arr = fdt->fd;
	bpf_probe_read_kernel(&f, sizeof(f), &arr[fd]);
	return f;
}

/* Compares a NUL-terminated name read into buf with a literal (n includes the NUL for an exact
 * match, or not for a prefix). */
static __always_inline bool name_eq(const char *buf, const char *lit, int n)
{
#pragma unroll
	for (int i = 0; i < 16; i++) {
		if (i >= n)
			return true;
		if (buf[i] != lit[i])
			return false;
	}
	return true;
}

#define NAME_IS(buf, lit)     name_eq(buf, lit, sizeof(lit))
#define NAME_PREFIX(buf, lit) name_eq(buf, lit, sizeof(lit) - 1)

static __always_inline int read_dentry_name(struct dentry *d, char *buf, __u32 size)
{
	const unsigned char *name = BPF_CORE_READ(d, d_name.name);

	return bpf_probe_read_kernel_str(buf, size, name);
}

/* d's name (its first 15 bytes) in the per-CPU scratch; NULL without scratch. Looked up only
 * where a name is read: that lookup is a helper call on kernels that do not inline it. */
static __always_inline char *dentry_name(struct dentry *d)
{
	__u32 zero = 0;
	struct rg_scratch *s = bpf_map_lookup_elem(&scratch, &zero);

	if (!s)
		return NULL;
	read_dentry_name(d, s->name, 16);
	return s->name;
}

/* A field of a kernel object: a plain load where p is a BTF pointer (btf, a constant after
 * inlining, says so: fentry/fexit/LSM arguments, bpf_get_current_task_btf()), else a
 * bpf_probe_read_kernel() call (BPF_CORE_READ). Both relocated by CO-RE. */
#define KREAD(btf, p, field) ((btf) ? (p)->field : BPF_CORE_READ(p, field))

/*
 * Where a pointer is not a BTF one (kprobes, tracepoints), each field is a bpf_probe_read_kernel()
 * call: about 90 guest instructions under qemu -icount on Debian's 6.1. win_read() reads the span
 * of an object's fields [lo, hi) with one call where, on the running kernel, it fits RG_WIN bytes
 * (the offsets are CO-RE relocations: constants to the verifier, which explores only the branch
 * taken); WIN_GET() takes a field out of it. lo is rounded down to 8 bytes: the verifier wants
 * stack loads aligned, and the kernel's fields are naturally aligned. Where the span is wider,
 * win_read() returns false and the caller reads field by field. A fault zeroes the window, as it
 * zeroes a field read by itself.
 */
#define RG_WIN 96

struct rg_win {
	__u64 w[RG_WIN / 8];
};

#define F_OFF(T, f)	       ((__u32)bpf_core_field_offset(T, f))
#define F_END(T, f)	       (F_OFF(T, f) + (__u32)bpf_core_field_size(T, f))
#define WIN_GET(win, lo, T, f) (*(typeof(((T *)0)->f) *)win_at(win, lo, F_OFF(T, f)))

static __always_inline __u32 min_u32(__u32 a, __u32 b)
{
	return a < b ? a : b;
}
static __always_inline __u32 max_u32(__u32 a, __u32 b)
{
	return a > b ? a : b;
}

/* The offset into the window is a scalar of its own: the verifier refuses a subtraction from a
 * stack pointer, which is what clang makes of (window + off) - lo. */
static __always_inline const void *win_at(const struct rg_win *win, __u32 lo, __u32 off)
{
	__u32 k = off - (lo & ~7u);

	barrier_var(k);
	return (const char *)win->w + k;
}

static __always_inline bool win_read(struct rg_win *win, const void *p, __u32 lo, __u32 hi)
{
	lo &= ~7u;
	if (hi - lo > RG_WIN)
		return false;
	bpf_probe_read_kernel(win->w, hi - lo, (const char *)p + lo);
	return true;
}

/* What classify_file_() reads of a file and its inode. */
struct file_fields {
	struct inode *inode;
	struct dentry *d;
	struct super_block *sb;
	__u32 mode, dev;
};

static __always_inline void read_file_fields(struct file *file, struct file_fields *f,
					     const bool btf)
{
	struct inode *inode;
	struct rg_win win;
	__u32 lo, hi;

	/* No field of f inside a BPF_CORE_READ(): its access chain would be relocated too. */
	if (btf) {
		inode = file->f_inode;
		f->inode = inode;
		f->d = file->f_path.dentry;
		f->mode = inode->i_mode;
		f->dev = inode->i_rdev;
		f->sb = inode->i_sb;
		return;
	}
	lo = min_u32(F_OFF(struct file, f_inode), F_OFF(struct file, f_path.dentry));
	hi = max_u32(F_END(struct file, f_inode), F_END(struct file, f_path.dentry));
	if (win_read(&win, file, lo, hi)) {
		inode = WIN_GET(&win, lo, struct file, f_inode);
		f->d = WIN_GET(&win, lo, struct file, f_path.dentry);
	} else {
		inode = BPF_CORE_READ(file, f_inode);
		f->d = BPF_CORE_READ(file, f_path.dentry);
	}
	f->inode = inode;
	lo = min_u32(min_u32(F_OFF(struct inode, i_mode), F_OFF(struct inode, i_rdev)),
		     F_OFF(struct inode, i_sb));
	hi = max_u32(max_u32(F_END(struct inode, i_mode), F_END(struct inode, i_rdev)),
		     F_END(struct inode, i_sb));
	if (win_read(&win, inode, lo, hi)) {
		f->mode = WIN_GET(&win, lo, struct inode, i_mode);
		f->dev = WIN_GET(&win, lo, struct inode, i_rdev);
		f->sb = WIN_GET(&win, lo, struct inode, i_sb);
	} else {
		f->mode = BPF_CORE_READ(inode, i_mode);
		f->dev = BPF_CORE_READ(inode, i_rdev);
		f->sb = BPF_CORE_READ(inode, i_sb);
	}
}

/* A dentry's parent and the length of its name. */
static __always_inline void read_dentry_fields(struct dentry *d, struct dentry **parent, __u32 *len,
					       const bool btf)
{
	struct rg_win win;
	__u32 lo, hi;

	if (btf) {
		*parent = d->d_parent;
		*len = d->d_name.len;
		return;
	}
	lo = min_u32(F_OFF(struct dentry, d_parent), F_OFF(struct dentry, d_name.len));
	hi = max_u32(F_END(struct dentry, d_parent), F_END(struct dentry, d_name.len));
	if (win_read(&win, d, lo, hi)) {
		*parent = WIN_GET(&win, lo, struct dentry, d_parent);
		*len = WIN_GET(&win, lo, struct dentry, d_name.len);
	} else {
		*parent = BPF_CORE_READ(d, d_parent);
		*len = BPF_CORE_READ(d, d_name.len);
	}
}

/*
 * What an open file is, for the sensors: an RDMA node (char major 231, the rdma_cm misc device, or
 * a character device in a directory called "infiniband", which also covers dynamic uverbs majors
 * and the tests' stand-ins: only root makes a character device, as mknod needs CAP_MKNOD and the
 * mounts of user namespaces are nodev; a regular file there is nothing, else any user could raise
 * device_open alerts and, in kill mode, be killed for opening ~/infiniband/uverbs0),
 * /proc/PID/mem, or nothing of interest (0). Every open file of the
 * machine passes here under fentry/kprobes (fd_install): a name is read only when its length is
 * the one looked for, so most files cost the loads of their inode's mode, device and superblock
 * magic and of their parent's name length (and no map lookup: the scratch is taken for a name).
 * classify_file_btf() for a BTF pointer: those are plain loads then, not helper calls; else
 * five bpf_probe_read_kernel() calls where there are eight fields (win_read()).
 */
static __always_inline __u32 classify_file_(struct file *file, __u32 *node, __u32 *rdev,
					    const bool btf)
{
	struct file_fields f;
	struct dentry *d, *parent;
	struct super_block *sb;
	unsigned long magic;
	__u32 len;
	char *name;

	read_file_fields(file, &f, btf);
	d = f.d;
	sb = f.sb;
	*rdev = S_ISCHR(f.mode) ? f.dev : 0;
	if (S_ISCHR(f.mode) && (f.dev >> MINORBITS) == IB_UVERBS_MAJOR) {
		__u32 minor = f.dev & ((1u << MINORBITS) - 1);

		*node = minor >= IB_UVERBS_BASE_MINOR ? RG_NODE_UVERBS_FD
			: minor < IB_UMAD_BASE_MINOR  ? RG_NODE_UMAD_FD
						      : RG_NODE_OTHER_FD;
		return RG_OPEN_RDMA;
	}
	read_dentry_fields(d, &parent, &len, btf);
	if (S_ISCHR(f.mode) && (f.dev >> MINORBITS) == MISC_MAJOR) {
		if (len != sizeof("rdma_cm") - 1)
			return 0;
		name = dentry_name(d);
		if (name && NAME_IS(name, "rdma_cm")) {
			*node = RG_NODE_RDMA_CM_FD;
			return RG_OPEN_RDMA;
		}
		return 0;
	}
	magic = KREAD(btf, sb, s_magic);
	if (magic == PROC_SUPER_MAGIC) {
		if (len != sizeof("mem") - 1)
			return 0;
		name = dentry_name(d);
		return name && NAME_IS(name, "mem") ? RG_OPEN_PROC_MEM : 0;
	}
	if (!S_ISCHR(f.mode) || KREAD(btf, parent, d_name.len) != sizeof("infiniband") - 1)
		return 0;
	name = dentry_name(parent);
	if (!name || !NAME_IS(name, "infiniband"))
		return 0;
	name = dentry_name(d);
	if (!name)
		return 0;
	if (NAME_PREFIX(name, "uverbs"))
		*node = RG_NODE_UVERBS_FD;
	else if (NAME_IS(name, "rdma_cm"))
		*node = RG_NODE_RDMA_CM_FD;
	else if (NAME_PREFIX(name, "umad"))
		*node = RG_NODE_UMAD_FD;
	else
		*node = RG_NODE_OTHER_FD;
	return RG_OPEN_RDMA;
}

#define classify_file(file, node, rdev)	    classify_file_(file, node, rdev, false)
#define classify_file_btf(file, node, rdev) classify_file_(file, node, rdev, true)

/*
 * Builds the path of (dentry, vfsmount) up to the current task's root (what the process sees, as
 * d_path() does; a chroot's paths start at the chroot) into out (RG_REC_PATH bytes), crossing
 * mounts. Components are written backwards into scratch; a path longer than the buffer, or deeper
 * than RG_PATH_DEPTH steps, keeps its tail and returns 1 (truncated), else 0; -1 when no scratch.
 * A truncated path is a tail the user can shape (~/<long>/opt/tools/x): never matched by a pattern.
 */
static __always_inline int build_path(struct dentry *dentry, struct vfsmount *vfsmnt, char *out)
{
	__u32 zero = 0;
	struct rg_scratch *s = bpf_map_lookup_elem(&scratch, &zero);
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	struct dentry *root_dentry = BPF_CORE_READ(task, fs, root.dentry);
	struct vfsmount *root_mnt = BPF_CORE_READ(task, fs, root.mnt);
	struct mount *mnt;
	int end = RG_REC_PATH - 1, trunc = 1;

	if (!s)
		return -1;
	mnt = (void *)vfsmnt - bpf_core_field_offset(struct mount, mnt);
	s->path[RG_REC_PATH - 1] = 0;
	for (int i = 0; i < RG_PATH_DEPTH; i++) {
		struct dentry *mnt_root = BPF_CORE_READ(vfsmnt, mnt_root);
		struct dentry *parent = BPF_CORE_READ(dentry, d_parent);
		const unsigned char *name;
		__u32 len;
		int start;

		if (dentry == root_dentry && vfsmnt == root_mnt) {
			trunc = 0;
			break;
		}
		if (dentry == mnt_root || dentry == parent) {
			struct mount *mnt_parent = BPF_CORE_READ(mnt, mnt_parent);

			if (dentry != mnt_root || mnt == mnt_parent) {
				trunc = 0;
				break;
			}
			dentry = BPF_CORE_READ(mnt, mnt_mountpoint);
			mnt = mnt_parent;
			vfsmnt = (void *)mnt + bpf_core_field_offset(struct mount, mnt);
			continue;
		}
		len = BPF_CORE_READ(dentry, d_name.len);
		name = BPF_CORE_READ(dentry, d_name.name);
		start = end - (int)len - 1;
		if (len >= RG_REC_PATH || start < 0)
			break;
		s->path[start & (RG_REC_PATH - 1)] = '/';
		bpf_probe_read_kernel(&s->path[(start + 1) & (RG_REC_PATH - 1)],
				      len & (RG_REC_PATH - 1), name);
		end = start;
		dentry = parent;
	}
	if (end == RG_REC_PATH - 1) {
		out[0] = '/';
		out[1] = 0;
		return trunc;
	}
	bpf_probe_read_kernel_str(out, RG_REC_PATH, &s->path[end & (RG_REC_PATH - 1)]);
	return trunc;
}

static __always_inline int file_path(struct file *file, char *out)
{
	struct dentry *d = BPF_CORE_READ(file, f_path.dentry);
	struct vfsmount *m = BPF_CORE_READ(file, f_path.mnt);

	return build_path(d, m, out);
}

#ifndef RG_ENFORCE_OBJECT
/* Pending syscall entries (see pending_count). */
static __always_inline void pending_put(__u32 kind, const struct pending *p)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	__u64 *cnt = bpf_map_lookup_elem(&pending_count, &kind);

	if (bpf_map_update_elem(&pending, &tid, p, BPF_NOEXIST) == 0) {
		if (cnt)
			__sync_fetch_and_add(cnt, 1);
		return;
	}
	/* A stale entry of this thread (its exit was not seen): replace it, count unchanged. */
	if (bpf_map_update_elem(&pending, &tid, p, BPF_ANY) != 0)
		count(RG_CNT_PENDING_FULL);
}

static __always_inline bool pending_any(__u32 kind)
{
	__u64 *cnt = bpf_map_lookup_elem(&pending_count, &kind);

	return cnt && *(volatile __u64 *)cnt != 0;
}

/* Takes this thread's entry of that kind into *out; false when there is none. */
static __always_inline bool pending_take(__u32 kind, struct pending *out)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct pending *p;
	__u64 *cnt;

	if (!pending_any(kind))
		return false;
	p = bpf_map_lookup_elem(&pending, &tid);
	if (!p || p->kind != kind)
		return false;
	__builtin_memcpy(out, p, sizeof(*out));
	bpf_map_delete_elem(&pending, &tid);
	cnt = bpf_map_lookup_elem(&pending_count, &kind);
	if (cnt)
		__sync_fetch_and_sub(cnt, 1);
	return true;
}

#endif /* !RG_ENFORCE_OBJECT */

/* The user registers of the current syscall, for hooks below the syscall layer: a BTF pointer,
 * read with plain loads (no bpf_probe_read_kernel() call a register). */
static __always_inline struct pt_regs *syscall_regs(void)
{
	return (struct pt_regs *)bpf_task_pt_regs(bpf_get_current_task_btf());
}

#if defined(__TARGET_ARCH_x86)
#define SYSCALL_NR(regs) ((long)(regs)->orig_ax)
/* a 32-bit call's first argument (ebx), for in_compat_syscall_() */
#define COMPAT_ARG1(regs) ((long)(__s32)BPF_CORE_READ(regs, bx))
#elif defined(__TARGET_ARCH_arm64)
#define SYSCALL_NR(regs) ((long)(regs)->syscallno)
#else
#define SYSCALL_NR(regs) (-1l)
#endif
#ifndef COMPAT_ARG1
#define COMPAT_ARG1(regs) (-1l)
#endif

/* Argument n (1-based) of the current syscall if it is number nr, else def. */
#define SYSCALL_ARG_IF(nr, n, def)                                                                 \
	({                                                                                         \
		struct pt_regs *_regs = syscall_regs();                                            \
		long _v = (def);                                                                   \
		if ((nr) >= 0 && SYSCALL_NR(_regs) == (nr))                                        \
			_v = (long)PT_REGS_PARM##n##_SYSCALL(_regs);                               \
		_v;                                                                                \
	})

/*
 * Is the current system call a 32-bit one (ia32: a 32-bit process, or int $0x80 from a 64-bit
 * one)? The kernel sets TS_COMPAT in thread_info.status at its entry and clears it on the way
 * back to user space, so every hook inside the syscall sees it. Its number is then one of the
 * ia32 table (bpf/compat_nr.h), and the syscalls:* tracepoints skip it altogether.
 */
#define RG_TS_COMPAT 0x0002

static __always_inline bool in_compat_syscall_(void)
{
#if defined(__TARGET_ARCH_x86)
	struct task_struct *t = bpf_get_current_task_btf();

	if (bpf_core_field_exists(t->thread_info.status))
		return (t->thread_info.status & RG_TS_COMPAT) != 0;
#endif
	return false;
}

#ifndef RG_ENFORCE_OBJECT
/* Remembers an RDMA fd of the current process (and the process as an RDMA user). The module
 * hooks call this on every command: an fd already remembered costs two lookups, not two
 * updates of LRU maps. */
static __always_inline void remember_fd(__u32 tgid, int fd, struct file *file, __u32 node,
					__u32 rdev)
{
	struct rg_fd_key k = {.tgid = tgid, .fd = fd};
	struct rg_fd_val v = {
	    .file = (__u64)file,
	    .inode = (__u64)BPF_CORE_READ(file, f_inode),
	    .node = node,
	    .rdev = rdev,
	};
	struct rg_fd_val *old = bpf_map_lookup_elem(&rdma_fds, &k);
	__u32 one = 1;

	if (old && old->file == v.file && old->inode == v.inode && old->node == node &&
	    old->rdev == rdev && bpf_map_lookup_elem(&rdma_procs, &tgid))
		return;
	rdma_users_latch();
	if (bpf_map_update_elem(&rdma_fds, &k, &v, BPF_ANY) != 0)
		count(RG_CNT_FDMAP_FULL);
	bpf_map_update_elem(&rdma_procs, &tgid, &one, BPF_ANY);
}

/*
 * Is fd of the current process an RDMA node of kind uverbs/rdma_cm? Nothing to look up while no
 * RDMA user was ever seen (rdma_seen); else looks in rdma_fds (the negative case ends there unless
 * the process is an RDMA user: a second lookup, in rdma_procs), validates the entry against fd
 * reuse, and learns fds of RDMA users.
 */
static __always_inline bool lookup_rdma_fd(int fd, __u32 *node, __u32 *rdev)
{
	__u32 tgid = current_tgid();
	struct rg_fd_key k = {.tgid = tgid, .fd = fd};
	struct rg_fd_val *v;
	struct file *file;
	__u32 what;

	if (!rdma_users_seen())
		return false;
	v = bpf_map_lookup_elem(&rdma_fds, &k);
	if (!v && !bpf_map_lookup_elem(&rdma_procs, &tgid))
		return false;
	file = current_fd_file(fd);
	if (!file)
		return false;
	if (v && v->file == (__u64)file && v->inode == (__u64)BPF_CORE_READ(file, f_inode)) {
		*node = v->node;
		*rdev = v->rdev;
		return true;
	}
	/* Unknown fd of an RDMA user, a reused fd number, or an entry seeded by the agent. */
	what = classify_file(file, node, rdev);
	if (what != RG_OPEN_RDMA) {
		if (v)
			bpf_map_delete_elem(&rdma_fds, &k);
		return false;
	}
	remember_fd(tgid, fd, file, *node, *rdev);
	return true;
}

/* Is process tgid an RDMA user (it or an ancestor held an RDMA fd)? */
static __always_inline bool is_rdma_proc(__u32 tgid)
{
	return rdma_users_seen() && bpf_map_lookup_elem(&rdma_procs, &tgid);
}
#endif /* !RG_ENFORCE_OBJECT */

#if !defined(RG_ENFORCE_OBJECT) && !defined(RG_SENSORS_MOD_OBJECT)
/* One token bucket of struct rg_budget: true if a token was taken. */
static __always_inline bool bucket_take(__u64 *last_ns, __u32 *tokens, __u64 now, __u32 burst,
					__u64 per)
{
	__u64 add = now > *last_ns ? (now - *last_ns) / per : 0;

	if (add) {
		__u64 t = *tokens + add;

		*tokens = t > burst ? burst : (__u32)t;
		*last_ns = t > burst ? now : *last_ns + add * per;
	}
	if (!*tokens)
		return false;
	(*tokens)--;
	return true;
}

/*
 * May the process task (tgid) put one more low-value record in a ring (events.h: RG_BUDGET_*)?
 * Token buckets per process: one for records about the game's memory (game true), one for the
 * rest, so that a flood of the rest cannot use up the game's; a record over its bucket is
 * counted, per process and in RG_CNT_BUDGET. Concurrent threads may race on the tokens: the
 * buckets are approximate, never unbounded (each update is one thread's).
 */
static __always_inline bool budget_take(struct task_struct *task, __u32 tgid, bool game)
{
	__u64 now = bpf_ktime_get_ns();
	struct rg_budget *b = bpf_map_lookup_elem(&budget, &tgid);
	bool ok;

	if (!b) {
		struct rg_budget nb = {.last_ns = now, .game_last_ns = now};

		nb.tokens = RG_BUDGET_BURST - !game;
		nb.game_tokens = RG_BUDGET_GAME_BURST - game;
		nb.start_boot_ns = task_start_ns(task);
		BPF_CORE_READ_STR_INTO(&nb.comm, task, group_leader, comm);
		bpf_map_update_elem(&budget, &tgid, &nb, BPF_NOEXIST);
		return true;
	}
	if (game)
		ok = bucket_take(&b->game_last_ns, &b->game_tokens, now, RG_BUDGET_GAME_BURST,
				 1000000000ull / RG_BUDGET_GAME_PER_SEC);
	else
		ok = bucket_take(&b->last_ns, &b->tokens, now, RG_BUDGET_BURST,
				 1000000000ull / RG_BUDGET_PER_SEC);
	if (ok)
		return true;
	__sync_fetch_and_add(game ? &b->game_dropped : &b->dropped, 1);
	count(RG_CNT_BUDGET);
	return false;
}

/* Is tgid a game process (enf_game_pids: enforcement's, or the one the daemon fills)? */
static __always_inline bool is_game_pid(__u32 tgid)
{
	return tgid && bpf_map_lookup_elem(&enf_game_pids, &tgid);
}

/*
 * A record about memory access by task (tgid) to process target (a tgid, 0: none): to the RDMA
 * ring for an RDMA process, or where the target is a game within the process's game budget (a
 * flood of other records cannot use that up), else to the main ring within its budget (NULL:
 * over it, or the ring is full).
 */
#define RESERVE_MEM(type, task, tgid, target)                                                      \
	({                                                                                         \
		type *_m = NULL;                                                                   \
		if (is_rdma_proc(tgid))                                                            \
			_m = RESERVE_HI(type);                                                     \
		else if (is_game_pid(target)) {                                                    \
			if (budget_take(task, tgid, true))                                         \
				_m = RESERVE_HI(type);                                             \
		} else if (budget_take(task, tgid, false))                                         \
			_m = RESERVE(type);                                                        \
		_m;                                                                                \
	})
#endif

#if !defined(RG_ENFORCE_OBJECT) && !defined(RG_SENSORS_MOD_OBJECT)
/* enum rg_mem_op (agent/event/event.h) */
#define MEM_READV   1
#define MEM_WRITEV  2
#define MEM_ATTACH  3
#define MEM_SEIZE   4
#define MEM_TRACEME 6
#define MEM_AUTO    7
#define MEM_EXEC    8

#define PT_PTRACED 0x1 /* task_struct.ptrace */

/*
 * A ptrace link that no attach request made (PTRACE_TRACEME, the auto-attach of a new process to
 * its parent's tracer at fork, a traced process's exec): tracer, the actor, holds target's memory.
 */
static __always_inline void emit_ptrace_link(struct task_struct *tracer, struct task_struct *target,
					     __u32 op, __s64 ret, __u16 hook)
{
	struct rg_rec_mem *r;

	__u32 tgid = tracer ? BPF_CORE_READ(tracer, tgid) : 0;

	if (!tracer || (rg_self_tgid && tgid == rg_self_tgid))
		return;
	r = RESERVE_MEM(struct rg_rec_mem, tracer, tgid, BPF_CORE_READ(target, tgid));
	if (!r)
		return;
	fill_hdr_task(&r->h, tracer, RG_REC_MEM, hook);
	r->op = op;
	r->target_pid = BPF_CORE_READ(target, tgid);
	r->ret = ret;
	r->target_start_boot_ns = task_start_ns(target);
	BPF_CORE_READ_STR_INTO(&r->target_comm, target, comm);
	rg_submit(r);
}
#endif

/* Does the file look like libibverbs, librdmacm or a verbs provider? By name (lib*-rdmav*.so,
 * the providers perftest links directly) or by directory (.../libibverbs/). */
static __always_inline bool is_rdma_lib(struct file *file)
{
	__u32 zero = 0;
	struct rg_scratch *s = bpf_map_lookup_elem(&scratch, &zero);
	struct dentry *d = BPF_CORE_READ(file, f_path.dentry);

	if (!s)
		return false;
	if (read_dentry_name(d, s->name, RG_NAME_MAX) <= 0)
		return false;
	if (NAME_PREFIX(s->name, "libibverbs") || NAME_PREFIX(s->name, "librdmacm") ||
	    NAME_PREFIX(s->name, "libmlx4") || NAME_PREFIX(s->name, "libmlx5") ||
	    NAME_PREFIX(s->name, "libefa") || NAME_PREFIX(s->name, "libmana") ||
	    NAME_PREFIX(s->name, "libhns") || NAME_PREFIX(s->name, "libirdma"))
		return true;
	for (int i = 0; i < RG_NAME_MAX - 6; i++) {
		char c = s->name[i];

		if (!c)
			break;
		if (c == '-' && s->name[i + 1] == 'r' && s->name[i + 2] == 'd' &&
		    s->name[i + 3] == 'm' && s->name[i + 4] == 'a' && s->name[i + 5] == 'v')
			return true;
	}
	if (read_dentry_name(BPF_CORE_READ(d, d_parent), s->name, 16) <= 0)
		return false;
	return NAME_IS(s->name, "libibverbs");
}

static __always_inline void emit_lib(struct file *file, __u32 prot, __u16 hook, __u16 flags)
{
	struct rg_rec_lib *r = RESERVE_HI(struct rg_rec_lib);
	struct inode *inode;

	if (!r)
		return;
	fill_hdr(&r->h, RG_REC_LIB, hook);
	r->h.flags |= flags;
	inode = BPF_CORE_READ(file, f_inode);
	r->ino = BPF_CORE_READ(inode, i_ino);
	r->dev = BPF_CORE_READ(inode, i_sb, s_dev);
	r->prot = prot;
	if (file_path(file, r->path) > 0)
		r->h.flags |= RG_RECF_TRUNC;
	rg_submit(r);
}
