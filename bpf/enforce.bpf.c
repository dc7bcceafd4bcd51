// SPDX-License-Identifier: GPL-2.0-only
/*
 * Enforcement (docs/enforcement.md): the programs that deny (BPF LSM) or kill (any kernel) what the policy
 * does not allow. They decide alone, from the maps (bpf/enforce.bpf.h); the daemon only fills the
 * maps and reads the records. The daemon pins this object's maps, programs and links under
 * /sys/fs/bpf/rdmaguard/, so that they stay attached, with the last policy, when it dies.
 *
 * LSM hooks (where BPF LSM is active), each returning -EPERM:
 *   file_open            opening an RDMA node (char major 231, the rdma_cm misc device)
 *   file_ioctl           RDMA_VERBS_IOCTL on a uverbs fd (native methods and INVOKE_WRITE)
 *   file_permission      write() on a uverbs or rdma_cm fd (the legacy command path)
 *   mmap_file            mmap of a uverbs fd; executable mapping of an RDMA library in the game
 *   file_mprotect        making an RDMA library's mapping executable in the game
 *   kernel_module_request, kernel_read_file, kernel_load_data
 *                        loading rdma_rxe/siw (module requests and finit_module by name;
 *                        init_module from memory, which names nothing) while a game runs
 *   netlink_send         RDMA_NLDEV_CMD_NEWLINK (rdma link add) while a game runs
 * Kills where no LSM exists (syscall tracepoints): open of an RDMA node (open, openat, openat2,
 * creat, and their 32-bit forms), the verbs and rdma_cm commands at syscall entry (32-bit ioctl
 * and write too), executable mappings of RDMA libraries (bpf_send_signal(SIGKILL)). Each kill
 * marks the operation in enf_acted, so that the sensors leave out only what was reported here.
 * Game processes are followed with raw tracepoints (exec, fork, exit).
 */
#define RG_ENFORCE_OBJECT
#include "cmd.bpf.h"
#define RG_ENF_DEFINE_FUNCS
#include "enforce.bpf.h"
#include "compat_nr.h"

char LICENSE[] SEC("license") = "GPL";

#define ENF_MAX_NLMSGS 8

/* Carries out the verdict on an operation (kind RG_ENF_MARK_*, on file; 0 and NULL for those no
 * sensor reports on its own): the record's flags. A kill leaves the mark that tells the sensors
 * that this operation is reported here (enf_mark_take()). */
static __always_inline __u16 enf_apply(int act, __u32 kind, struct file *file)
{
	__u16 f = 0;

	if (act & ENF_KILL) {
		if (kind)
			enf_mark_set(kind, file);
		bpf_send_signal(ENF_SIGKILL);
		count(RG_CNT_KILLED);
		f |= RG_RECF_KILLED;
	}
	if (act & ENF_DENY) {
		count(RG_CNT_DENIED);
		f |= RG_RECF_DENIED;
	}
	return f;
}

static __always_inline void enf_emit_open(struct file *file, int fd, int ret, __u32 node,
					  __u32 rdev, __u16 flags, __u16 hook)
{
	struct rg_rec_open *r = RESERVE(struct rg_rec_open);
	struct inode *inode;

	if (!r)
		return;
	fill_hdr(&r->h, RG_REC_OPEN, hook);
	r->h.flags |= flags;
	inode = BPF_CORE_READ(file, f_inode);
	r->fd = fd;
	r->ret = ret;
	r->what = RG_OPEN_RDMA;
	r->rdev = rdev;
	r->mode = BPF_CORE_READ(inode, i_mode);
	r->node = node;
	r->ino = BPF_CORE_READ(inode, i_ino);
	r->target_pid = 0;
	r->pad = 0;
	r->target_start_boot_ns = 0;
	r->target_comm[0] = 0;
	if (file_path(file, r->path) > 0)
		r->h.flags |= RG_RECF_TRUNC;
	bpf_ringbuf_submit(r, 0);
}

static __always_inline void enf_emit_module(const char *name, bool user, __u16 flags)
{
	struct rg_rec_module *r = RESERVE(struct rg_rec_module);

	if (!r)
		return;
	fill_hdr(&r->h, RG_REC_MODULE, RG_HOOK_LSM);
	r->h.flags |= flags;
	if (user)
		bpf_probe_read_user_str(r->name, sizeof(r->name), name);
	else
		bpf_probe_read_kernel_str(r->name, sizeof(r->name), name);
	bpf_ringbuf_submit(r, 0);
}

/* ---- LSM: deny ---- */

SEC("lsm/file_open")
int BPF_PROG(enf_file_open, struct file *file, int ret)
{
	__u32 node = 0, rdev = 0;
	__u16 f;
	int act;

	if (ret)
		return ret;
	if (!enf_chardev(file, &node, &rdev))
		return 0;
	act = enf_check_open(node, rdev) & (ENF_DENY | ENF_KILL);
	if (!act)
		return 0;
	f = enf_apply(act, RG_ENF_MARK_OPEN, file);
	enf_emit_open(file, -1, (act & ENF_DENY) ? -1 : 0, node, rdev, f, RG_HOOK_LSM);
	return (act & ENF_DENY) ? -1 /* -EPERM */ : 0;
}

static __always_inline int enf_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	__u32 node = 0, rdev = 0;
	__u16 f;
	int act;

	if (cmd != RG_ABI_RDMA_VERBS_IOCTL)
		return 0;
	if (!enf_chardev(file, &node, &rdev) || node != RG_NODE_UVERBS_FD)
		return 0;
	act = enf_verdict_ioctl(rdev, arg) & (ENF_DENY | ENF_KILL);
	if (!act)
		return 0;
	f = enf_apply(act, RG_ENF_MARK_CMD, file);
	emit_ioctl_f((int)SYSCALL_ARG_IF(rg_nr_ioctl, 1, -1), arg, (act & ENF_DENY) ? -1 : 0, rdev,
		     RG_HOOK_LSM, f | ((act & ENF_DENY) ? 0 : RG_RECF_NORET));
	return (act & ENF_DENY) ? -1 : 0;
}

SEC("lsm/file_ioctl")
int BPF_PROG(enf_file_ioctl, struct file *file, unsigned int cmd, unsigned long arg, int ret)
{
	if (ret)
		return ret;
	return enf_ioctl(file, cmd, arg);
}

/* Linux 6.8 and later ask this one for 32-bit ioctls instead. */
SEC("lsm/file_ioctl_compat")
int BPF_PROG(enf_file_ioctl_compat, struct file *file, unsigned int cmd, unsigned long arg, int ret)
{
	if (ret)
		return ret;
	return enf_ioctl(file, cmd, arg);
}

SEC("lsm/file_permission")
int BPF_PROG(enf_file_permission, struct file *file, int mask, int ret)
{
	__u32 node = 0, rdev = 0;
	__u64 buf, cnt;
	__u16 f;
	int act, fd;

	if (ret)
		return ret;
	if (!(mask & ENF_MAY_WRITE) || !enf_chardev(file, &node, &rdev))
		return 0;
	if (node != RG_NODE_UVERBS_FD && node != RG_NODE_RDMA_CM_FD)
		return 0;
	/* The buffer is write()'s; writev() and others leave it unknown: every bit is needed. */
	fd = (int)SYSCALL_ARG_IF(rg_nr_write, 1, -1);
	buf = fd >= 0 ? (__u64)SYSCALL_ARG_IF(rg_nr_write, 2, 0) : 0;
	cnt = fd >= 0 ? (__u64)SYSCALL_ARG_IF(rg_nr_write, 3, 0) : 0;
	act = enf_verdict_write(node, rdev, buf, cnt) & (ENF_DENY | ENF_KILL);
	if (!act)
		return 0;
	f = enf_apply(act, RG_ENF_MARK_CMD, file);
	if (buf)
		emit_write(fd, node, buf, cnt, (act & ENF_DENY) ? -1 : 0, rdev, RG_HOOK_LSM, 1,
			   f | ((act & ENF_DENY) ? 0 : RG_RECF_NORET));
	return (act & ENF_DENY) ? -1 : 0;
}

static __always_inline int enf_lib(struct file *file, unsigned long prot)
{
	int act;

	if (!file || !(prot & PROT_EXEC) || !is_rdma_lib(file))
		return 0;
	act = enf_verdict_lib() & (ENF_DENY | ENF_KILL);
	if (!act)
		return 0;
	emit_lib(file, prot, RG_HOOK_LSM, enf_apply(act, 0, NULL));
	return (act & ENF_DENY) ? -1 : 0;
}

SEC("lsm/mmap_file")
int BPF_PROG(enf_mmap_file, struct file *file, unsigned long reqprot, unsigned long prot,
	     unsigned long flags, int ret)
{
	__u32 node = 0, rdev = 0;
	int act;

	if (ret || !file)
		return ret;
	if (enf_chardev(file, &node, &rdev)) {
		if (node != RG_NODE_UVERBS_FD)
			return 0;
		act = enf_verdict(ENF_W_VERBS, RG_ENF_OP_VERBS, rdev, 0) & (ENF_DENY | ENF_KILL);
		if (!act)
			return 0;
		emit_mmap_f((int)SYSCALL_ARG_IF(rg_nr_mmap, 5, -1), node, rdev, 0, 0, (__u32)prot,
			    RG_HOOK_LSM, (act & ENF_DENY) ? -1 : 0, enf_apply(act, 0, NULL));
		return (act & ENF_DENY) ? -1 : 0;
	}
	return enf_lib(file, prot);
}

SEC("lsm/file_mprotect")
int BPF_PROG(enf_file_mprotect, struct vm_area_struct *vma, unsigned long reqprot,
	     unsigned long prot, int ret)
{
	if (ret)
		return ret;
	if (BPF_CORE_READ(vma, vm_flags) & 0x4 /* VM_EXEC: already executable */)
		return 0;
	return enf_lib(BPF_CORE_READ(vma, vm_file), prot);
}

/* rdma_rxe, siw, and the aliases `rdma link add` asks for ("rdma-link-rxe"). */
static __always_inline bool soft_module_name(const char *n)
{
	return NAME_PREFIX(n, "rdma-link-") || NAME_PREFIX(n, "rdma_rxe") || NAME_IS(n, "siw") ||
	       NAME_PREFIX(n, "siw.ko") || NAME_IS(n, "rxe");
}

static __always_inline int enf_module(const char *name, bool name_user)
{
	int act = enf_verdict(ENF_W_MODULE, RG_ENF_OP_MODULE, 0, 0) & ENF_DENY;

	if (!act)
		return 0;
	enf_emit_module(name, name_user, enf_apply(act, 0, NULL));
	return -1;
}

SEC("lsm/kernel_module_request")
int BPF_PROG(enf_kmod_request, char *kmod_name, int ret)
{
	__u32 zero = 0;
	struct rg_scratch *s = bpf_map_lookup_elem(&scratch, &zero);

	if (ret || !s)
		return ret;
	if (bpf_probe_read_kernel_str(s->name, 32, kmod_name) <= 0 || !soft_module_name(s->name))
		return 0;
	return enf_module(kmod_name, false);
}

SEC("lsm/kernel_read_file")
int BPF_PROG(enf_kernel_read_file, struct file *file, enum kernel_read_file_id id, bool contents,
	     int ret)
{
	__u32 zero = 0;
	struct rg_scratch *s;

	if (ret || !file || id != bpf_core_enum_value(enum kernel_read_file_id, READING_MODULE))
		return ret;
	s = bpf_map_lookup_elem(&scratch, &zero);
	if (!s || read_dentry_name(BPF_CORE_READ(file, f_path.dentry), s->name, 32) <= 0 ||
	    !soft_module_name(s->name))
		return 0;
	return enf_module((const char *)BPF_CORE_READ(file, f_path.dentry, d_name.name), false);
}

/* init_module(2) from memory names no file: while a game runs, it is refused altogether. */
SEC("lsm/kernel_load_data")
int BPF_PROG(enf_kernel_load_data, enum kernel_load_data_id id, bool contents, int ret)
{
	static const char what[] = "init_module";

	if (ret || id != bpf_core_enum_value(enum kernel_load_data_id, LOADING_MODULE))
		return ret;
	return enf_module(what, false);
}

SEC("lsm/netlink_send")
int BPF_PROG(enf_netlink_send, struct sock *sk, struct sk_buff *skb, int ret)
{
	struct rg_rec_netlink *r;
	unsigned char *data;
	__u32 len, off = 0, found = 0, msg_len = 0;
	int act;

	if (ret || BPF_CORE_READ(sk, sk_protocol) != ENF_NETLINK_RDMA)
		return ret;
	data = BPF_CORE_READ(skb, data);
	len = BPF_CORE_READ(skb, len);
	/* every message of the batch: the kernel handles them all */
	for (int i = 0; i < ENF_MAX_NLMSGS; i++) {
		__u32 mlen = 0;
		__u16 type = 0;

		if (off + 16 > len)
			break;
		if (bpf_probe_read_kernel(&mlen, 4, data + off) ||
		    bpf_probe_read_kernel(&type, 2, data + off + 4))
			break;
		if (type == ((5 << 10) + 3)) { /* RDMA_NL_NLDEV, RDMA_NLDEV_CMD_NEWLINK */
			found = off + 1;
			msg_len = mlen;
			break;
		}
		if (mlen < 16)
			break;
		off += (mlen + 3) & ~3u;
	}
	if (!found && off + 16 <= len)
		found = 1; /* more messages than we look at: treat the batch as a link add */
	if (!found)
		return 0;
	act = enf_verdict(ENF_W_LINK, RG_ENF_OP_LINK, 0, 0) & ENF_DENY;
	if (!act)
		return 0;
	r = RESERVE(struct rg_rec_netlink);
	if (r) {
		__u32 n = len - (found - 1);

		fill_hdr(&r->h, RG_REC_NETLINK, RG_HOOK_LSM);
		r->h.flags |= enf_apply(act, 0, NULL);
		r->msg_len = msg_len;
		barrier_var(n);
		if (n > RG_REC_NLMSG)
			n = RG_REC_NLMSG;
		r->len = 0;
		if (n && !bpf_probe_read_kernel(r->data, n, data + (found - 1)))
			r->len = n;
		bpf_ringbuf_submit(r, 0);
	} else {
		enf_apply(act, 0, NULL);
	}
	return -1;
}

/* ---- game processes ---- */

static __always_inline void game_count(int delta)
{
	__u32 key = RG_ENF_STATE_KERNEL;
	struct rg_enf_state *st = bpf_map_lookup_elem(&enf_state, &key);

	if (!st)
		return;
	if (delta > 0)
		__sync_fetch_and_add(&st->game_live, 1);
	else if (st->game_live)
		__sync_fetch_and_sub(&st->game_live, 1);
}

static __always_inline void game_forget(__u32 tgid)
{
	__u32 *old = bpf_map_lookup_elem(&enf_game_pids, &tgid);
	__u32 flag;

	if (!old)
		return;
	flag = *old;
	if (bpf_map_delete_elem(&enf_game_pids, &tgid) == 0 && flag == RG_ENF_GAME_KERNEL)
		game_count(-1);
}

/*
 * tgid is a game process: flag RG_ENF_GAME_KERNEL counts it. The daemon may have pushed tgid
 * already (flag RG_ENF_GAME_DAEMON, uncounted): it reads the sensors' exec or fork record, on
 * another CPU, possibly before this program runs on the same tracepoint, and a launcher it knows
 * by hash keeps its entry when it execs the game file. The kernel's flag then takes that entry
 * over, so that the kernel counts every game it saw start, whoever added it first. No other
 * writer races: the daemon only adds (BPF_NOEXIST) and deletes its own entries of processes that
 * have exited (agent/enforce/enforce.c, pull_game()), and tgid's exec, exit and the fork that
 * made it run one after the other.
 */
static __always_inline void game_add(__u32 tgid, __u32 flag)
{
	__u32 *old;

	if (bpf_map_update_elem(&enf_game_pids, &tgid, &flag, BPF_NOEXIST) == 0) {
		if (flag == RG_ENF_GAME_KERNEL)
			game_count(1);
		return;
	}
	if (flag != RG_ENF_GAME_KERNEL)
		return;
	old = bpf_map_lookup_elem(&enf_game_pids, &tgid);
	if (old && *old == RG_ENF_GAME_DAEMON) {
		*old = RG_ENF_GAME_KERNEL;
		game_count(1);
	}
}

SEC("raw_tracepoint/sched_process_exec")
int enf_rtp_exec(struct bpf_raw_tracepoint_args *ctx)
{
	struct task_struct *task = (struct task_struct *)ctx->args[0];
	struct rg_enf_key k = {.kind = RG_ENF_KEY_GAME};
	__u32 zero = 0, tgid = BPF_CORE_READ(task, tgid), flag = RG_ENF_GAME_KERNEL;
	struct inode *inode;
	void *pol = bpf_map_lookup_elem(&enf_policy, &zero);

	if (!pol)
		return 0;
	exe_id(task, &inode, &k.ino, &k.dev);
	if (inode && bpf_map_lookup_elem(pol, &k)) {
		game_add(tgid, flag);
	} else {
		/* the game ran something else: no longer the game (the daemon re-adds games
		 * it recognises by hash) */
		game_forget(tgid);
	}
	return 0;
}

SEC("raw_tracepoint/sched_process_fork")
int enf_rtp_fork(struct bpf_raw_tracepoint_args *ctx)
{
	struct task_struct *parent = (struct task_struct *)ctx->args[0];
	struct task_struct *child = (struct task_struct *)ctx->args[1];
	__u32 pid = BPF_CORE_READ(child, pid), tgid = BPF_CORE_READ(child, tgid);
	__u32 ptgid = BPF_CORE_READ(parent, tgid), flag, *pf;

	if (pid != tgid)
		return 0; /* a thread */
	pf = bpf_map_lookup_elem(&enf_game_pids, &ptgid);
	if (!pf)
		return 0;
	flag = *pf;
	game_add(tgid, flag);
	return 0;
}

SEC("raw_tracepoint/sched_process_exit")
int enf_rtp_exit(struct bpf_raw_tracepoint_args *ctx)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();

	/* signal->live is decremented before this tracepoint: 0 means the last thread. */
	if (BPF_CORE_READ(task, signal, live.counter) != 0)
		return 0;
	game_forget(BPF_CORE_READ(task, tgid));
	return 0;
}

/* ---- kills where no LSM exists (syscall tracepoints) ---- */

/* Is any kill armed? Checked first: unrelated syscalls pay one lookup. */
static __always_inline bool kill_armed(void)
{
	__u32 zero = 0;
	struct rg_enf_key k = {.kind = RG_ENF_KEY_CONFIG};
	struct rg_enf_val *v;
	void *pol = bpf_map_lookup_elem(&enf_policy, &zero);

	if (!pol)
		return false;
	v = bpf_map_lookup_elem(pol, &k);
	return v && v->cfg.enforce && v->cfg.kill;
}

static __always_inline void enf_open_ret(long ret)
{
	struct file *file;
	__u32 node = 0, rdev = 0;
	int act;

	if (ret < 0 || !kill_armed())
		return;
	file = current_fd_file((int)ret);
	if (!file || classify_file(file, &node, &rdev) != RG_OPEN_RDMA)
		return;
	act = enf_check_open(node, rdev) & ENF_KILL;
	if (act)
		enf_emit_open(file, (int)ret, 0, node, rdev, enf_apply(act, RG_ENF_MARK_OPEN, file),
			      RG_HOOK_TRACEPOINT);
}

SEC("tracepoint/syscalls/sys_exit_openat")
int enf_tp_exit_openat(struct trace_event_raw_sys_exit *ctx)
{
	enf_open_ret(ctx->ret);
	return 0;
}

SEC("tracepoint/syscalls/sys_exit_open")
int enf_tp_exit_open(struct trace_event_raw_sys_exit *ctx)
{
	enf_open_ret(ctx->ret);
	return 0;
}

SEC("tracepoint/syscalls/sys_exit_openat2")
int enf_tp_exit_openat2(struct trace_event_raw_sys_exit *ctx)
{
	enf_open_ret(ctx->ret);
	return 0;
}

SEC("tracepoint/syscalls/sys_exit_creat")
int enf_tp_exit_creat(struct trace_event_raw_sys_exit *ctx)
{
	enf_open_ret(ctx->ret);
	return 0;
}

/* The RDMA node behind fd, for the syscall-entry kills (classify_file(): character devices only;
 * the tests' stand-ins are character devices in a directory "infiniband"): its file, or NULL. */
static __always_inline struct file *fd_node(int fd, __u32 *node, __u32 *rdev)
{
	struct file *file = fd >= 0 ? current_fd_file(fd) : NULL;

	return file && classify_file(file, node, rdev) == RG_OPEN_RDMA ? file : NULL;
}

static __always_inline void enf_write_enter(int fd, __u64 buf, __u64 cnt)
{
	__u32 node = 0, rdev = 0;
	struct file *file;
	int act;

	if (!kill_armed() || !(file = fd_node(fd, &node, &rdev)))
		return;
	act = enf_verdict_write(node, rdev, buf, cnt) & ENF_KILL;
	if (act)
		emit_write(fd, node, buf, cnt, 0, rdev, RG_HOOK_TRACEPOINT, 1,
			   enf_apply(act, RG_ENF_MARK_CMD, file) | RG_RECF_NORET);
}

SEC("tracepoint/syscalls/sys_enter_write")
int enf_tp_enter_write(struct trace_event_raw_sys_enter *ctx)
{
	enf_write_enter((int)ctx->args[0], ctx->args[1], ctx->args[2]);
	return 0;
}

/* writev(), pwritev2() at offset -1: each iovec is a command (enf_check_writev). */
static __always_inline void enf_writev_enter(int fd, __u64 iov, __u64 cnt)
{
	__u32 node = 0, rdev = 0;
	struct file *file;
	__u64 buf, len;
	int act;

	if (!kill_armed() || !(file = fd_node(fd, &node, &rdev)))
		return;
	act = enf_check_writev(node, rdev, iov, cnt, &buf, &len) & ENF_KILL;
	if (act)
		emit_write(fd, node, buf, len, 0, rdev, RG_HOOK_TRACEPOINT, 1,
			   enf_apply(act, RG_ENF_MARK_CMD, file) | RG_RECF_NORET);
}

SEC("tracepoint/syscalls/sys_enter_writev")
int enf_tp_enter_writev(struct trace_event_raw_sys_enter *ctx)
{
	enf_writev_enter((int)ctx->args[0], ctx->args[1], ctx->args[2]);
	return 0;
}

SEC("tracepoint/syscalls/sys_enter_pwritev2")
int enf_tp_enter_pwritev2(struct trace_event_raw_sys_enter *ctx)
{
	if (ctx->args[3] == (__u64)-1)
		enf_writev_enter((int)ctx->args[0], ctx->args[1], ctx->args[2]);
	return 0;
}

static __always_inline void enf_ioctl_enter(int fd, __u32 cmd, __u64 arg)
{
	__u32 node = 0, rdev = 0;
	struct file *file;
	int act;

	if (cmd != RG_ABI_RDMA_VERBS_IOCTL || !kill_armed())
		return;
	file = fd_node(fd, &node, &rdev);
	if (!file || node != RG_NODE_UVERBS_FD)
		return;
	act = enf_verdict_ioctl(rdev, arg) & ENF_KILL;
	if (act)
		emit_ioctl_f(fd, arg, 0, rdev, RG_HOOK_TRACEPOINT,
			     enf_apply(act, RG_ENF_MARK_CMD, file) | RG_RECF_NORET);
}

SEC("tracepoint/syscalls/sys_enter_ioctl")
int enf_tp_enter_ioctl(struct trace_event_raw_sys_enter *ctx)
{
	enf_ioctl_enter((int)ctx->args[0], (__u32)ctx->args[1], ctx->args[2]);
	return 0;
}

/*
 * 32-bit system calls (ia32, and int $0x80 from 64-bit code), which the syscalls:* tracepoints
 * skip: the raw_syscalls tracepoints see every call of the machine, so these return at once for
 * a 64-bit one (one load of thread_info.status). One program a syscall, as the native ones: two
 * inlined in one frame go past the 512-byte stack on 6.1. The ia32 open, openat, openat2 and creat at their
 * exit, ioctl and write at their entry; writev() and pwritev2(), whose 32-bit iovecs are not
 * read, and mmap are not killed (docs/enforcement.md).
 */
SEC("tracepoint/raw_syscalls/sys_enter")
int enf_tp_compat_enter_ioctl(struct trace_event_raw_sys_enter *ctx)
{
	if (ctx->id == RG_IA32_IOCTL && in_compat_syscall_())
		enf_ioctl_enter((int)ctx->args[0], (__u32)ctx->args[1], (__u32)ctx->args[2]);
	return 0;
}

SEC("tracepoint/raw_syscalls/sys_enter")
int enf_tp_compat_enter_write(struct trace_event_raw_sys_enter *ctx)
{
	if (ctx->id == RG_IA32_WRITE && in_compat_syscall_())
		enf_write_enter((int)ctx->args[0], (__u32)ctx->args[1], (__u32)ctx->args[2]);
	return 0;
}

SEC("tracepoint/raw_syscalls/sys_exit")
int enf_tp_compat_exit(struct trace_event_raw_sys_exit *ctx)
{
	long id = ctx->id;

	if (!in_compat_syscall_())
		return 0;
	if (id == RG_IA32_OPEN || id == RG_IA32_OPENAT || id == RG_IA32_OPENAT2 ||
	    id == RG_IA32_CREAT)
		enf_open_ret(ctx->ret);
	return 0;
}

SEC("tracepoint/syscalls/sys_enter_mmap")
int enf_tp_enter_mmap(struct trace_event_raw_sys_enter *ctx)
{
	struct file *file;
	int fd = (int)ctx->args[4], act;
	__u32 prot = (__u32)ctx->args[2];

	if (fd < 0 || !(prot & PROT_EXEC) || (ctx->args[3] & 0x20 /* MAP_ANONYMOUS */) ||
	    !kill_armed())
		return 0;
	file = current_fd_file(fd);
	if (!file || !is_rdma_lib(file))
		return 0;
	act = enf_verdict_lib() & ENF_KILL;
	if (act)
		emit_lib(file, prot, RG_HOOK_TRACEPOINT, enf_apply(act, 0, NULL));
	return 0;
}
