// SPDX-License-Identifier: GPL-2.0-only
/*
 * fexit/fentry on ib_uverbs and rdma_ucm: the zero-cost verbs hooks (they run only for RDMA
 * commands; unrelated syscalls pay nothing). Built as their own skeleton (sensors_mod) because
 * fentry programs are bound to the module's BTF at load time: the agent loads this object when
 * ib_uverbs (and rdma_ucm) are present, possibly long after start, and shares the maps of the
 * main object with it (bpf_map__reuse_fd). Their arguments are BTF pointers: fields are read with
 * plain loads, not a bpf_probe_read_kernel() call each (BPF_CORE_READ).
 */
/* its own map fd_cache, and none of the main object's alone (maps.bpf.h) */
#define RG_SENSORS_MOD_OBJECT
#include "cmd.bpf.h"
#define RG_ENF_DEFINE_FUNCS
#include "enforce.bpf.h"

char LICENSE[] SEC("license") = "GPL";

static __always_inline void remember_fd_cached(int fd, struct file *filp, __u32 node, __u32 rdev)
{
	struct rg_fd_cache *c = bpf_task_storage_get(&fd_cache, bpf_get_current_task_btf(), NULL,
						     BPF_LOCAL_STORAGE_GET_F_CREATE);
	__u64 inode = (__u64)filp->f_inode;

	if (c && c->fd == fd && c->file == (__u64)filp && c->inode == inode && c->rdev == rdev)
		return;
	remember_fd(current_tgid(), fd, filp, node, rdev);
	if (c) {
		c->fd = fd;
		c->file = (__u64)filp;
		c->inode = inode;
		c->rdev = rdev;
	}
}

static __always_inline int cur_fd(__s32 nr, int def)
{
	return (int)SYSCALL_ARG_IF(nr, 1, def);
}

SEC("fexit/ib_uverbs_ioctl")
int BPF_PROG(fx_uverbs_ioctl, struct file *filp, unsigned int cmd, unsigned long arg, long ret)
{
	__u32 rdev;
	int fd;

	if (cmd != RG_ABI_RDMA_VERBS_IOCTL || is_self())
		return 0;
	rdev = filp->f_inode->i_rdev;
	/* stopped by enforcement, which reports it */
	if (enf_reported(enf_check_ioctl(rdev, arg), ret, filp))
		return 0;
	fd = cur_fd(rg_nr_ioctl, -1);
	if (fd >= 0)
		remember_fd_cached(fd, filp, RG_NODE_UVERBS_FD, rdev);
	emit_ioctl(fd, arg, ret, rdev, RG_HOOK_FENTRY);
	return 0;
}

static __always_inline int fx_write(struct file *filp, const char *buf, size_t count_, long ret,
				    __u32 node)
{
	__u32 rdev;

	if (is_self())
		return 0;
	rdev = filp->f_inode->i_rdev;
	if (enf_reported(enf_check_write(node, rdev, (__u64)buf, count_), ret, filp))
		return 0;
	handle_write(cur_fd(rg_nr_write, -1), node, (__u64)buf, count_, ret, rdev, RG_HOOK_FENTRY,
		     0);
	return 0;
}

SEC("fexit/ib_uverbs_write")
int BPF_PROG(fx_uverbs_write, struct file *filp, const char *buf, size_t count_, loff_t *pos,
	     long ret)
{
	return fx_write(filp, buf, count_, ret, RG_NODE_UVERBS_FD);
}

SEC("fexit/ucma_write")
int BPF_PROG(fx_ucma_write, struct file *filp, const char *buf, size_t count_, loff_t *pos,
	     long ret)
{
	return fx_write(filp, buf, count_, ret, RG_NODE_RDMA_CM_FD);
}

SEC("fentry/ib_uverbs_mmap")
int BPF_PROG(fe_uverbs_mmap, struct file *filp, struct vm_area_struct *vma)
{
	__u32 rdev = filp->f_inode->i_rdev;

	if (is_self() || enf_takes_mmap(rdev))
		return 0;
	emit_mmap((int)SYSCALL_ARG_IF(rg_nr_mmap, 5, -1), RG_NODE_UVERBS_FD, rdev,
		  vma->vm_end - vma->vm_start, vma->vm_pgoff << 12, (__u32)(vma->vm_flags & 0x7),
		  RG_HOOK_FENTRY);
	return 0;
}
