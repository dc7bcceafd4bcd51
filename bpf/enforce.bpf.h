/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Enforcement decisions, made in the kernel from the maps the daemon fills from the policy
 * (bpf/enforce_abi.h). Used by the enforcement programs (bpf/enforce.bpf.c), and by the sensors, which
 * ask the same question so that what enforcement denies or kills, and reports itself, is not
 * reported a second time by them.
 *
 * Who is allowed: the executable of the process (mm->exe_file: inode and device) must be an
 * allowlisted one, for that operation (and uid, parent executable, device, expiry, as the policy
 * entry says). Who is the game: its executable is a game file, or the kernel saw it start as one
 * (or fork from one), or the daemon told us (games matched by hash). A game runs: the kernel saw
 * one start and not end, or the daemon says so.
 *
 * Every loop is bounded; user memory is read with bpf_probe_read_user (hooks cannot sleep).
 */
#pragma once

#include "common.bpf.h"
#include "enforce_abi.h"

#define ENF_SIGKILL	  9
#define ENF_MAY_WRITE	  0x2
#define ENF_NETLINK_RDMA  20
#define ENF_ACCESS_REMOTE 0xeu /* IB_ACCESS_REMOTE_WRITE | _READ | _ATOMIC */
#define ENF_REREG_ACCESS  0x4u /* IB_MR_REREG_ACCESS */

/* verdicts (ENF_LSM: set by the enf_check_* helpers when the LSM programs run) */
#define ENF_DENY 0x1
#define ENF_KILL 0x2
#define ENF_LSM	 0x4

/* what is being done */
#define ENF_W_OPEN   1 /* open of an RDMA node */
#define ENF_W_VERBS  2 /* a command on a uverbs fd (ioctl, write, mmap) */
#define ENF_W_CM     3 /* a command on an rdma_cm fd */
#define ENF_W_LIB    4 /* executable mapping of an RDMA library */
#define ENF_W_MODULE 5 /* loading rdma_rxe or siw */
#define ENF_W_LINK   6 /* rdma link add */

/* what the operation is, for kill triggers */
#define ENF_F_UVERBS	0x1 /* the node is a uverbs node */
#define ENF_F_RDMA_NODE 0x2 /* uverbs, rdma_cm or umad */
#define ENF_F_MR_REMOTE 0x4 /* an MR with remote read/write/atomic access */
#define ENF_F_CONNECT	0x8 /* QP to RTR/RTS, rdma_cm connect or accept */

/* Sizes, not __type(): libbpf 1.1 cannot size a typed key of an inner map. */
struct rg_enf_inner {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, RG_ENF_POLICY_MAX);
	__uint(key_size, sizeof(struct rg_enf_key));
	__uint(value_size, sizeof(struct rg_enf_val));
};

/* The policy in force: one slot, swapped whole by the daemon. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 1);
	__type(key, __u32);
	__array(values, struct rg_enf_inner);
} enf_policy __weak SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 2); /* RG_ENF_STATE_DAEMON, RG_ENF_STATE_KERNEL */
	__type(key, __u32);
	__type(value, struct rg_enf_state);
} enf_state __weak SEC(".maps");

/* What enforcement acted on and reported, per thread (enforce_abi.h: struct rg_enf_mark). */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, RG_ENF_ACTED_MAX);
	__type(key, __u32);
	__type(value, struct rg_enf_mark);
} enf_acted __weak SEC(".maps");

/* Enforcement: it acted on this operation of the current thread (kind, on file), and reports it. */
static __always_inline void enf_mark_set(__u32 kind, struct file *file)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct rg_enf_mark m = {
	    .file = (__u64)file,
	    .start_ns = bpf_get_current_task_btf()->start_time,
	    .kind = kind,
	};

	if (file)
		bpf_map_update_elem(&enf_acted, &tid, &m, BPF_ANY);
}

/* The sensors: did enforcement act on this operation (kind, on file) of the current thread and
 * report it? Takes the mark: one operation, one mark. */
static __always_inline bool enf_mark_take(__u32 kind, struct file *file)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct rg_enf_mark *m = bpf_map_lookup_elem(&enf_acted, &tid);

	if (!m || !file || m->kind != kind || m->file != (__u64)file ||
	    m->start_ns != bpf_get_current_task_btf()->start_time)
		return false;
	bpf_map_delete_elem(&enf_acted, &tid);
	return true;
}

/* The inode's ctime, at the offsets the agent found in the kernel's BTF; false if unknown. */
static __always_inline bool inode_ctime(struct inode *inode, __u64 *sec, __u32 *nsec)
{
	__s64 s = 0;
	__u64 ns = 0;

	if (!rg_ctime_sec_off || !rg_ctime_nsec_off)
		return false;
	if (bpf_probe_read_kernel(&s, sizeof(s), (void *)inode + rg_ctime_sec_off) ||
	    bpf_probe_read_kernel(&ns, sizeof(__u32), (void *)inode + rg_ctime_nsec_off))
		return false;
	*sec = (__u64)s;
	/* Linux 6.13+ keeps a flag in the top bit of i_ctime_nsec (I_CTIME_QUERIED, set once stat()
	 * has seen it: multigrain timestamps); nanoseconds fit in 30 bits */
	*nsec = (__u32)ns & 0x3fffffffu;
	return true;
}

struct enf_ctx {
	void *pol;
	struct rg_enf_val *allow; /* NULL: the executable is not allowlisted */
	struct inode *exe;
	struct task_struct *task;
	__u32 lsm, scope, kill, role;
	bool game, running;
};

static __always_inline void exe_id(struct task_struct *task, struct inode **inode, __u64 *ino,
				   __u32 *dev)
{
	struct file *exe = BPF_CORE_READ(task, mm, exe_file);

	*inode = exe ? BPF_CORE_READ(exe, f_inode) : NULL;
	*ino = *inode ? BPF_CORE_READ(*inode, i_ino) : 0;
	*dev = *inode ? BPF_CORE_READ(*inode, i_sb, s_dev) : 0;
}

/*
 * Is enforcement on for the current process? Fills c; false when the policy is off, for kernel
 * threads and for the daemon itself (its inventory opens the devices it watches).
 */
static __always_inline bool enf_begin(struct enf_ctx *c)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	struct rg_enf_key k = {.kind = RG_ENF_KEY_CONFIG};
	struct rg_enf_state *st, *kst;
	struct rg_enf_val *v;
	__u32 zero = 0, one = RG_ENF_STATE_KERNEL, tgid;
	__u64 ino;
	__u32 dev;

	c->pol = bpf_map_lookup_elem(&enf_policy, &zero);
	if (!c->pol)
		return false;
	v = bpf_map_lookup_elem(c->pol, &k);
	if (!v || !v->cfg.enforce)
		return false;
	c->lsm = v->cfg.lsm;
	c->scope = v->cfg.scope;
	c->kill = v->cfg.kill;
	c->role = v->cfg.role;
	if (!BPF_CORE_READ(task, mm))
		return false;
	tgid = current_tgid();
	st = bpf_map_lookup_elem(&enf_state, &zero);
	if (st && st->daemon_tgid == tgid && st->daemon_start_ns == task_start_ns(task))
		return false;
	c->task = task;
	kst = bpf_map_lookup_elem(&enf_state, &one);
	c->running = (st && st->game_daemon) || (kst && kst->game_live);
	exe_id(task, &c->exe, &ino, &dev);
	c->allow = NULL;
	c->game = false;
	if (c->exe) {
		k.ino = ino;
		k.dev = dev;
		k.kind = RG_ENF_KEY_ALLOW;
		c->allow = bpf_map_lookup_elem(c->pol, &k);
		k.kind = RG_ENF_KEY_GAME;
		c->game = bpf_map_lookup_elem(c->pol, &k) != NULL;
	}
	if (!c->game)
		c->game = bpf_map_lookup_elem(&enf_game_pids, &tgid) != NULL;
	return true;
}

struct enf_allow_loop {
	struct rg_enf_val *a;
	__u64 now, pino, csec;
	__u32 op, rdev, uid, pdev, cnsec, n;
	bool cok, found;
};

/* One allow variant (a bpf_loop callback: verified once, whatever the caller). */
static long enf_variant_cb(__u32 i, void *data)
{
	struct enf_allow_loop *l = data;
	struct rg_enf_variant *v;
	bool ok;

	if (i >= RG_ENF_VARIANTS || i >= l->n)
		return 1;
	v = &l->a->v[i];
	if ((v->ops & l->op) != l->op)
		return 0;
	if (v->expires_ns && l->now >= v->expires_ns)
		return 0;
	if (v->flags & RG_ENF_VF_CTIME) {
		/* the file changed in place since its hash was checked */
		if (!l->cok || l->csec != v->ctime_sec || l->cnsec != v->ctime_nsec)
			return 0;
	}
	if (v->parent_ino && (l->pino != v->parent_ino || l->pdev != v->parent_dev))
		return 0;
	if (v->n_uids) {
		ok = false;
		for (__u32 j = 0; j < RG_ENF_UIDS; j++) {
			if (j >= v->n_uids)
				break;
			if (v->uids[j] == l->uid) {
				ok = true;
				break;
			}
		}
		if (!ok)
			return 0;
	}
	if (v->n_rdevs && l->rdev) {
		ok = false;
		for (__u32 j = 0; j < RG_ENF_RDEVS; j++) {
			if (j >= v->n_rdevs)
				break;
			if (v->rdevs[j] == l->rdev) {
				ok = true;
				break;
			}
		}
		if (!ok)
			return 0;
	}
	l->found = true;
	return 1;
}

/* Does an allow variant cover every bit of op for the current process (and device rdev)? */
static __always_inline bool enf_allowed(struct enf_ctx *c, __u32 op, __u32 rdev)
{
	struct enf_allow_loop l = {.a = c->allow, .op = op, .rdev = rdev};
	struct task_struct *task = c->task, *parent;
	struct inode *pexe;

	if (!l.a)
		return false;
	l.n = l.a->n;
	l.now = bpf_ktime_get_boot_ns();
	l.uid = BPF_CORE_READ(task, cred, uid.val);
	parent = BPF_CORE_READ(task, real_parent);
	exe_id(parent, &pexe, &l.pino, &l.pdev);
	l.cok = inode_ctime(c->exe, &l.csec, &l.cnsec);
	if (rg_have_loop) {
		bpf_loop(RG_ENF_VARIANTS, enf_variant_cb, &l, 0);
	} else {
		/* before 5.17: the verifier walks each variant */
		for (__u32 i = 0; i < RG_ENF_VARIANTS; i++)
			if (enf_variant_cb(i, &l))
				break;
	}
	return l.found;
}

/*
 * The verdict on an operation: ENF_DENY (only where the LSM programs run) and/or ENF_KILL (rule
 * actions `kill`, see RG_ENF_KILL_*). rdev: the node's device (0: none, e.g. rdma_cm).
 */
static __always_inline int enf_action(struct enf_ctx *c, __u32 what, __u32 op, __u32 rdev,
				      __u32 flags)
{
	bool scope = c->scope == RG_ENF_SCOPE_ALWAYS || c->running;
	bool managed = c->role == 0;
	bool use = what == ENF_W_OPEN || what == ENF_W_VERBS || what == ENF_W_CM;
	bool allowed;
	int act = 0;

	allowed = enf_allowed(c, op, rdev);
	if (c->lsm && !allowed &&
	    ((use && scope) || (what == ENF_W_LIB && c->game) ||
	     ((what == ENF_W_MODULE || what == ENF_W_LINK) && c->running)))
		act |= ENF_DENY;
	if (!c->kill)
		return act;
	if ((c->kill & RG_ENF_KILL_OPEN) && what == ENF_W_OPEN && (flags & ENF_F_UVERBS) &&
	    !allowed && managed && scope)
		act |= ENF_KILL;
	if ((c->kill & RG_ENF_KILL_MR) && what == ENF_W_VERBS && (flags & ENF_F_MR_REMOTE) &&
	    !allowed && (managed || c->running) && scope)
		act |= ENF_KILL;
	if ((c->kill & RG_ENF_KILL_CONNECT) && (what == ENF_W_VERBS || what == ENF_W_CM) &&
	    (flags & ENF_F_CONNECT) && !allowed && (managed || c->running) && scope)
		act |= ENF_KILL;
	if ((c->kill & RG_ENF_KILL_GAME_ANY) && (use || what == ENF_W_LIB) && c->running &&
	    !c->game && !allowed)
		act |= ENF_KILL;
	if ((c->kill & RG_ENF_KILL_GAME_SELF) && c->game &&
	    (what == ENF_W_LIB || what == ENF_W_VERBS || what == ENF_W_CM ||
	     (what == ENF_W_OPEN && (flags & ENF_F_RDMA_NODE))))
		act |= ENF_KILL;
	return act;
}

/* Where the hooks can deny: character devices only (major 231, the rdma_cm misc device, or a
 * character device in a directory "infiniband"). Regular files never are. file: an LSM hook's
 * argument, a BTF pointer (plain loads: file_permission runs on every write() of the machine). */
static __always_inline bool enf_chardev(struct file *file, __u32 *node, __u32 *rdev)
{
	if (!S_ISCHR(file->f_inode->i_mode))
		return false;
	return classify_file_btf(file, node, rdev) == RG_OPEN_RDMA;
}

static __always_inline __u32 node_flags(__u32 node)
{
	if (node == RG_NODE_UVERBS_FD)
		return ENF_F_UVERBS | ENF_F_RDMA_NODE;
	if (node == RG_NODE_RDMA_CM_FD || node == RG_NODE_UMAD_FD)
		return ENF_F_RDMA_NODE;
	return 0;
}

/*
 * A legacy verbs command (write() or ioctl INVOKE_WRITE): its operation and flags. body: user
 * pointer to the command's struct after the header(s); offsets are checked against the uapi
 * headers in agent/enforce/enforce.c.
 */
static __always_inline void enf_classify_cmd(__u32 cmd, __u64 body, __u32 *op, __u32 *flags)
{
	bool ext = cmd & RG_ABI_CMD_FLAG_EXTENDED;
	__u32 v = 0, mask = 0;
	__u8 state = 0;

	*flags = 0;
	switch (cmd & RG_ABI_CMD_MASK) {
	case 9: /* REG_MR */
		*op = ext ? RG_ENF_OP_VERBS : RG_ENF_OP_REG_MR;
		if (!ext && body && !bpf_probe_read_user(&v, sizeof(v), (void *)(body + 36)) &&
		    (v & ENF_ACCESS_REMOTE))
			*flags |= ENF_F_MR_REMOTE;
		return;
	case 11: /* REREG_MR: flags @12, access_flags @44 */
		*op = ext ? RG_ENF_OP_VERBS : RG_ENF_OP_REREG_MR;
		if (!ext && body &&
		    !bpf_probe_read_user(&mask, sizeof(mask), (void *)(body + 12)) &&
		    (mask & ENF_REREG_ACCESS) &&
		    !bpf_probe_read_user(&v, sizeof(v), (void *)(body + 44)) &&
		    (v & ENF_ACCESS_REMOTE))
			*flags |= ENF_F_MR_REMOTE;
		return;
	case 24: /* CREATE_QP, also extended */
		*op = RG_ENF_OP_CREATE_QP;
		return;
	case 40: /* OPEN_QP */
		*op = ext ? RG_ENF_OP_VERBS : RG_ENF_OP_OPEN_QP;
		return;
	case 26: /* MODIFY_QP (extended: the same struct first): attr_mask @68, qp_state @96 */
		*op = RG_ENF_OP_VERBS;
		if (body && !bpf_probe_read_user(&mask, sizeof(mask), (void *)(body + 68)) &&
		    (mask & 1) &&
		    !bpf_probe_read_user(&state, sizeof(state), (void *)(body + 96)) &&
		    (state == 2 || state == 3))
			*flags |= ENF_F_CONNECT;
		return;
	default:
		*op = RG_ENF_OP_VERBS;
		return;
	}
}

/*
 * ioctl(RDMA_VERBS_IOCTL, arg): the header and up to 16 attributes, read from user memory as the
 * kernel is about to read them. Returns false (and needs every verbs bit) when unreadable.
 */
static __always_inline bool enf_decode_ioctl(__u64 arg, __u32 *op, __u32 *flags)
{
	__u32 zero = 0;
	struct rg_scratch *s = bpf_map_lookup_elem(&scratch, &zero);
	__u16 obj, meth, num;
	__u64 wcmd = 0, core_in = 0, access = 0;
	bool have_cmd = false;
	__u32 n, sz;

	*op = RG_ENF_OP_ALL_VERBS;
	*flags = 0;
	if (!s || bpf_probe_read_user(s->path, RG_ABI_IOCTL_HDR_SIZE, (void *)arg))
		return false;
	obj = *(__u16 *)&s->path[2];
	meth = *(__u16 *)&s->path[4];
	num = *(__u16 *)&s->path[6];
	n = num > RG_IOCTL_MAX_ATTRS ? RG_IOCTL_MAX_ATTRS : num;
	sz = n * RG_ABI_IOCTL_ATTR_SIZE;
	barrier_var(sz);
	if (sz > RG_IOCTL_MAX_ATTRS * RG_ABI_IOCTL_ATTR_SIZE)
		sz = RG_IOCTL_MAX_ATTRS * RG_ABI_IOCTL_ATTR_SIZE;
	if (sz && bpf_probe_read_user(&s->path[RG_ABI_IOCTL_HDR_SIZE], sz,
				      (void *)(arg + RG_ABI_IOCTL_HDR_SIZE)))
		return false;
	for (__u32 i = 0; i < RG_IOCTL_MAX_ATTRS; i++) {
		__u32 off = RG_ABI_IOCTL_HDR_SIZE + i * RG_ABI_IOCTL_ATTR_SIZE;
		__u16 id, len;
		__u64 data;

		if (i >= n)
			break;
		id = *(__u16 *)&s->path[off];
		len = *(__u16 *)&s->path[off + 2];
		data = *(__u64 *)&s->path[off + 8];
		if (obj == 0 && meth == 0 && id == 2) { /* UVERBS_ATTR_WRITE_CMD, inline */
			wcmd = data;
			have_cmd = true;
		} else if (obj == 0 && meth == 0 && id == 0 && len > 8) { /* CORE_IN, pointer */
			core_in = data;
		} else if (obj == 7 && id == 6) { /* MR ACCESS_FLAGS, inline */
			access = data;
		}
	}
	if (obj == 0 && meth == 0) {
		if (!have_cmd)
			return false;
		enf_classify_cmd((__u32)wcmd, core_in, op, flags);
	} else if (obj == 4 && meth == 0) {
		*op = RG_ENF_OP_CREATE_QP;
	} else if (obj == 7 && (meth == 4 || meth == 5)) {
		/* REG_DMABUF_MR, REG_MR (newer kernels) */
		*op = meth == 4 ? RG_ENF_OP_REG_DMABUF_MR : RG_ENF_OP_REG_MR;
		if (access & ENF_ACCESS_REMOTE)
			*flags |= ENF_F_MR_REMOTE;
	} else {
		*op = RG_ENF_OP_VERBS;
	}
	return true;
}

/* write() on a uverbs or rdma_cm fd: the command's operation and flags. */
static __always_inline bool enf_decode_write(__u32 node, __u64 buf, __u64 count, __u32 *op,
					     __u32 *flags)
{
	__u32 cmd = 0;

	*flags = 0;
	*op = node == RG_NODE_RDMA_CM_FD ? RG_ENF_OP_ALL_CM : RG_ENF_OP_ALL_VERBS;
	if (!buf || count < 8 || bpf_probe_read_user(&cmd, sizeof(cmd), (void *)buf))
		return false;
	if (node == RG_NODE_RDMA_CM_FD) {
		switch (cmd) {
		case 6: /* RDMA_USER_CM_CMD_CONNECT */
			*op = RG_ENF_OP_CM_CONNECT;
			*flags = ENF_F_CONNECT;
			break;
		case 7: /* LISTEN */
			*op = RG_ENF_OP_CM_LISTEN;
			break;
		case 8: /* ACCEPT */
			*op = RG_ENF_OP_CM_ACCEPT;
			*flags = ENF_F_CONNECT;
			break;
		default:
			*op = RG_ENF_OP_CM;
			break;
		}
		return true;
	}
	enf_classify_cmd(cmd, buf + ((cmd & RG_ABI_CMD_FLAG_EXTENDED) ? 24 : 8), op, flags);
	return true;
}

/*
 * ---- verdicts, as global functions ----
 *
 * Verified once each, on their own, whatever the caller's state: inlined into the sensors' exit
 * handlers, which also decode and copy, the combination is too much for the verifier. Scalars in,
 * a verdict out (ENF_DENY | ENF_KILL | ENF_LSM; 0 when enforcement is off or does not apply).
 * One .bpf.c file of each object defines them (RG_ENF_DEFINE_FUNCS); the others declare them.
 */
#ifdef RG_ENF_DEFINE_FUNCS
#define ENF_FUNC __attribute__((noinline))
#else
#define ENF_FUNC extern
#endif

ENF_FUNC int enf_verdict(__u32 what, __u32 op, __u32 rdev, __u32 flags)
#ifdef RG_ENF_DEFINE_FUNCS
{
	struct enf_ctx c;

	if (!enf_begin(&c))
		return 0;
	return enf_action(&c, what, op, rdev, flags) | (c.lsm ? ENF_LSM : 0);
}
#else
    ;
#endif

/* ioctl(RDMA_VERBS_IOCTL, arg) on a uverbs fd of device rdev. */
ENF_FUNC int enf_verdict_ioctl(__u32 rdev, __u64 arg)
#ifdef RG_ENF_DEFINE_FUNCS
{
	struct enf_ctx c;
	__u32 op, flags;

	if (!enf_begin(&c))
		return 0;
	enf_decode_ioctl(arg, &op, &flags);
	return enf_action(&c, ENF_W_VERBS, op, rdev, flags) | (c.lsm ? ENF_LSM : 0);
}
#else
    ;
#endif

/* write(fd, buf, count) on a uverbs or rdma_cm fd (buf 0: not known). */
ENF_FUNC int enf_verdict_write(__u32 node, __u32 rdev, __u64 buf, __u64 count)
#ifdef RG_ENF_DEFINE_FUNCS
{
	struct enf_ctx c;
	__u32 op, flags;

	if (node != RG_NODE_UVERBS_FD && node != RG_NODE_RDMA_CM_FD)
		return 0;
	if (!enf_begin(&c))
		return 0;
	enf_decode_write(node, buf, count, &op, &flags);
	if (node == RG_NODE_RDMA_CM_FD)
		return enf_action(&c, ENF_W_CM, op, 0, flags) | (c.lsm ? ENF_LSM : 0);
	return enf_action(&c, ENF_W_VERBS, op, rdev, flags) | (c.lsm ? ENF_LSM : 0);
}
#else
    ;
#endif

/* An executable mapping of an RDMA library (the caller checked is_rdma_lib()). */
ENF_FUNC int enf_verdict_lib(void)
#ifdef RG_ENF_DEFINE_FUNCS
{
	struct enf_ctx c;

	if (!enf_begin(&c))
		return 0;
	if (!c.game && !(c.kill & RG_ENF_KILL_GAME_ANY))
		return 0;
	return enf_action(&c, ENF_W_LIB, RG_ENF_OP_LIBRARY, 0, 0) | (c.lsm ? ENF_LSM : 0);
}
#else
    ;
#endif

/* ---- for the sensors: does enforcement act on this (and report it itself)? ---- */

static __always_inline int enf_check_open(__u32 node, __u32 rdev)
{
	return enf_verdict(ENF_W_OPEN, RG_ENF_OP_OPEN, node == RG_NODE_RDMA_CM_FD ? 0 : rdev,
			   node_flags(node));
}

static __always_inline int enf_check_ioctl(__u32 rdev, __u64 arg)
{
	return enf_verdict_ioctl(rdev, arg);
}

static __always_inline int enf_check_write(__u32 node, __u32 rdev, __u64 buf, __u64 count)
{
	return enf_verdict_write(node, rdev, buf, count);
}

/* writev()/pwritev2(): the verdict on the first iovec whose command kills (0 if none), with that
 * iovec in *buf and *len; past the first RG_WRITEV_MAX + 1 iovecs, unread, a process must be
 * allowed every command (*buf and *len 0). An iovec that cannot be read fails the whole call
 * before any command. */
static __always_inline int enf_check_writev(__u32 node, __u32 rdev, __u64 iov, __u64 cnt,
					    __u64 *buf, __u64 *len)
{
	struct iovec v;
	int act = 0;

	*buf = *len = 0;
	for (__u32 i = 0; i <= RG_WRITEV_MAX && i < cnt && !(act & ENF_KILL); i++) {
		if (bpf_probe_read_user(&v, sizeof(v), (void *)(iov + i * sizeof(v))))
			return 0;
		*buf = (__u64)v.iov_base;
		*len = v.iov_len;
		if (*len)
			act = enf_verdict_write(node, rdev, *buf, *len);
	}
	if (!(act & ENF_KILL) && cnt > RG_WRITEV_MAX + 1) {
		*buf = *len = 0;
		act = enf_verdict_write(node, rdev, 0, 0);
	}
	return (act & ENF_KILL) ? act : 0;
}

/* mmap of a uverbs fd: only the LSM programs act on it. */
static __always_inline bool enf_takes_mmap(__u32 rdev)
{
	int act = enf_verdict(ENF_W_VERBS, RG_ENF_OP_VERBS, rdev, 0);

	return (act & ENF_LSM) && (act & (ENF_DENY | ENF_KILL));
}

/* An executable mapping of an RDMA library (is_rdma_lib() said so). */
static __always_inline bool enf_takes_lib(void)
{
	return (enf_verdict_lib() & (ENF_DENY | ENF_KILL)) != 0;
}

/* Whether a sensor's record of a command on file that returned ret is enforcement's to report:
 * it killed the process for that very command (its program, which ran first, at the syscall's
 * entry or in the LSM hook, left a mark), or denied the command (which then failed with EPERM:
 * the LSM hooks see every path to the driver). A kill predicted by the verdict alone is not
 * enough: no kill program runs on a 32-bit call, io_uring or a path it does not hook. */
static __always_inline bool enf_reported(int act, long ret, struct file *file)
{
	if ((act & ENF_DENY) && ret == -1 /* -EPERM */)
		return true;
	return (act & ENF_KILL) && enf_mark_take(RG_ENF_MARK_CMD, file);
}
