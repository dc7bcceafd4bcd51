// SPDX-License-Identifier: GPL-2.0-only
/*
 * Kernel RDMA behind sockets: no uverbs fd, no library, no verbs command. AF_RDS over its IB
 * transport (rds_rdma) registers user memory for remote access with setsockopt(SOL_RDS,
 * RDS_GET_MR / RDS_GET_MR_FOR_DEST) and runs RDMA reads, writes and atomics named by
 * RDS_CMSG_RDMA_* / RDS_CMSG_ATOMIC_* control messages of sendmsg(); SMC-R (AF_SMC, or AF_INET/6
 * with IPPROTO_SMC) runs TCP-like streams over RoCE. Reported: the creation of such a socket,
 * its bind, connect and accept (the addresses), every SOL_RDS option (the option's bytes, and
 * for RDS_GET_MR* the cookie the kernel wrote), and each message of a sendmsg() or sendmmsg() on
 * an RDS socket that carries control messages (its destination and the control bytes).
 * Userspace decodes (agent/sensors/decode_sock.c).
 *
 * Every program runs at the syscall's return and reads the arguments from the syscall's saved
 * registers, as self.bpf.c does: fexit or kretprobe on the syscall's entry function
 * (RG_SYSCALL_FN), else the sys_exit_* tracepoints; all three run the same code, so every flavour
 * sees the same. The socket is recognised by its own family and protocol (fd -> file ->
 * struct socket -> sock), whatever made the fd (socket(), dup, SCM_RIGHTS, a process older than
 * the agent); a SOL_RDS option is reported on any fd, since only RDS answers that level.
 * Cost for other sockets: socket() and setsockopt() compare arguments; bind, connect, accept and
 * sendmsg read the fd's file, inode mode and sock (a few loads) and stop there.
 */
#include "common.bpf.h"

#define S_IFMT	 00170000
#define S_IFSOCK 0140000

struct sock_id {
	__u32 family;
	__u32 type;
	__u32 protocol;
};

static __always_inline bool rdma_family(__u32 family, __u32 protocol)
{
	return family == RG_ABI_AF_RDS || family == RG_ABI_AF_SMC ||
	       ((family == RG_ABI_AF_INET || family == RG_ABI_AF_INET6) &&
		protocol == RG_ABI_IPPROTO_SMC);
}

/*
 * An SMC socket that fell back to TCP (no RoCE path to the peer, or the peer declined) hands its
 * file over to its internal TCP socket (smc_switch_to_fallback(): file->private_data becomes the
 * clcsock), so its connect() and accept() return on a TCP socket. That socket points back at
 * its SMC socket: sk_user_data = the smc_sock | SK_USER_DATA_NOCOPY (smc_fback_replace_callbacks(),
 * since 5.17), whose struct sock comes first. Any other owner of a NOCOPY sk_user_data would
 * have to hold AF_SMC at skc_family's place to be taken for one.
 */
#define SK_USER_DATA_NOCOPY  1ull
#define SK_USER_DATA_PTRMASK (~7ull) /* NOCOPY, BPF, PSOCK */

static __always_inline bool smc_fallback(struct sock *sk, struct sock_id *id)
{
	__u64 ud = (__u64)BPF_CORE_READ(sk, sk_user_data);
	struct sock *smc;
	__u32 family, protocol;

	if ((id->family != RG_ABI_AF_INET && id->family != RG_ABI_AF_INET6) ||
	    !(ud & SK_USER_DATA_NOCOPY))
		return false;
	smc = (struct sock *)(ud & SK_USER_DATA_PTRMASK);
	family = BPF_CORE_READ(smc, __sk_common.skc_family);
	protocol = BPF_CORE_READ(smc, sk_protocol);
	if (!rdma_family(family, protocol))
		return false;
	id->family = family;
	id->protocol = protocol;
	return true;
}

/* The socket at fd of the current task, if it is an RDS or SMC socket. */
static __always_inline bool rdma_sock_at(int fd, struct sock_id *id)
{
	struct file *file = current_fd_file(fd);
	struct socket *sock;
	struct sock *sk;

	if (!file || (BPF_CORE_READ(file, f_inode, i_mode) & S_IFMT) != S_IFSOCK)
		return false;
	/* sockfs files hold their struct socket here; an O_PATH file of a socket inode holds
	 * nothing */
	sock = BPF_CORE_READ(file, private_data);
	if (!sock)
		return false;
	sk = BPF_CORE_READ(sock, sk);
	if (!sk)
		return false;
	id->family = BPF_CORE_READ(sk, __sk_common.skc_family);
	id->protocol = BPF_CORE_READ(sk, sk_protocol);
	id->type = (__u16)BPF_CORE_READ(sock, type);
	if (rdma_family(id->family, id->protocol))
		return true;
	return smc_fallback(sk, id);
}

static __always_inline struct rg_rec_sock *sock_begin(__u32 call, int fd, long ret,
						      const struct sock_id *id, __u16 hook)
{
	struct rg_rec_sock *r = RESERVE_HI(struct rg_rec_sock);

	if (!r)
		return NULL;
	fill_hdr(&r->h, RG_REC_SOCK, hook);
	r->call = call;
	r->fd = fd;
	r->ret = ret;
	r->family = id->family;
	r->type = id->type;
	r->protocol = id->protocol;
	r->level = 0;
	r->optname = 0;
	r->optlen = 0;
	r->addr_len = 0;
	r->data_len = 0;
	r->cookie = 0;
	return r;
}

/* Copies len (at most RG_REC_SOCKADDR) bytes of a user sockaddr into r->addr. */
static __always_inline void sock_addr(struct rg_rec_sock *r, __u64 uaddr, __u64 len)
{
	__u32 n = len > RG_REC_SOCKADDR ? RG_REC_SOCKADDR : (__u32)len;

	barrier_var(n);
	if (n > RG_REC_SOCKADDR)
		n = RG_REC_SOCKADDR;
	if (!uaddr || !n)
		return;
	if (bpf_probe_read_user(r->addr, n, (void *)uaddr)) {
		r->h.flags |= RG_RECF_FAULT;
		count(RG_CNT_USER_FAULT);
		return;
	}
	r->addr_len = n;
	if (len > RG_REC_SOCKADDR)
		r->h.flags |= RG_RECF_TRUNC;
}

/* Copies len (at most RG_REC_SOCKDATA) bytes of user memory into r->data. */
static __always_inline void sock_data(struct rg_rec_sock *r, __u64 udata, __u64 len)
{
	__u32 n = len > RG_REC_SOCKDATA ? RG_REC_SOCKDATA : (__u32)len;

	barrier_var(n);
	if (n > RG_REC_SOCKDATA)
		n = RG_REC_SOCKDATA;
	if (!udata || !n)
		return;
	if (bpf_probe_read_user(r->data, n, (void *)udata)) {
		r->h.flags |= RG_RECF_FAULT;
		count(RG_CNT_USER_FAULT);
		return;
	}
	r->data_len = n;
	if (len > RG_REC_SOCKDATA)
		r->h.flags |= RG_RECF_TRUNC;
}

/* setsockopt(fd, SOL_RDS, ...): the option's bytes; for RDS_GET_MR*, the cookie the kernel wrote
 * to the caller's cookie_addr (the key a peer names the region by). */
static __always_inline void on_setsockopt(struct pt_regs *regs, long ret, __u16 hook)
{
	int fd = (int)PT_REGS_PARM1_CORE_SYSCALL(regs);
	__u32 level = (__u32)PT_REGS_PARM2_CORE_SYSCALL(regs);
	__u32 optname = (__u32)PT_REGS_PARM3_CORE_SYSCALL(regs);
	__u64 optval = PT_REGS_PARM4_CORE_SYSCALL(regs);
	__u32 optlen = (__u32)PT_REGS_PARM5_CORE_SYSCALL(regs);
	struct sock_id id = {};
	struct rg_rec_sock *r;
	__u64 cookie_addr = 0;

	if (level != RG_ABI_SOL_RDS)
		return;
	rdma_sock_at(fd, &id); /* the family is reported as it is, RDS or not */
	r = sock_begin(RG_SOCK_SETSOCKOPT, fd, ret, &id, hook);
	if (!r)
		return;
	r->level = level;
	r->optname = optname;
	r->optlen = optlen;
	sock_data(r, optval, optlen);
	if (ret == 0 && optname == RG_ABI_RDS_GET_MR &&
	    r->data_len >= RG_ABI_RDS_GET_MR_COOKIE_OFF + 8)
		cookie_addr = *(__u64 *)&r->data[RG_ABI_RDS_GET_MR_COOKIE_OFF];
	else if (ret == 0 && optname == RG_ABI_RDS_GET_MR_FOR_DEST &&
		 r->data_len >= RG_ABI_RDS_GET_MR_FOR_DEST_COOKIE_OFF + 8)
		cookie_addr = *(__u64 *)&r->data[RG_ABI_RDS_GET_MR_FOR_DEST_COOKIE_OFF];
	if (cookie_addr && bpf_probe_read_user(&r->cookie, sizeof(r->cookie), (void *)cookie_addr))
		r->h.flags |= RG_RECF_FAULT;
	rg_submit(r);
}

/* One message of sendmsg() or sendmmsg() on an RDS socket, if it has control messages: its
 * msg_name and the control bytes. */
static __always_inline void emit_msg(int fd, const struct sock_id *id, __u64 umsg, long ret,
				     __u16 hook)
{
	struct user_msghdr m;
	struct rg_rec_sock *r;

	if (bpf_probe_read_user(&m, sizeof(m), (void *)umsg)) {
		count(RG_CNT_USER_FAULT);
		return;
	}
	if (!m.msg_control || !m.msg_controllen)
		return; /* plain data: no RDMA without a control message */
	r = sock_begin(RG_SOCK_SENDMSG, fd, ret, id, hook);
	if (!r)
		return;
	r->optlen = m.msg_controllen > 0xffffffffull ? 0xffffffffu : (__u32)m.msg_controllen;
	sock_addr(r, (__u64)m.msg_name, m.msg_namelen < 0 ? 0 : (__u64)m.msg_namelen);
	sock_data(r, (__u64)m.msg_control, m.msg_controllen);
	rg_submit(r);
}

static __always_inline void on_sendmsg(struct pt_regs *regs, long ret, __u16 hook)
{
	int fd = (int)PT_REGS_PARM1_CORE_SYSCALL(regs);
	struct sock_id id = {};

	if (rdma_sock_at(fd, &id) && id.family == RG_ABI_AF_RDS)
		emit_msg(fd, &id, PT_REGS_PARM2_CORE_SYSCALL(regs), ret, hook);
}

/*
 * sendmmsg(): each message the kernel sent (ret of them), or the first when it failed, with
 * that message's byte count (msg_len) or the error; the first RG_SENDMMSG_MAX of them (a blind
 * spot past that, in the security model).
 */
#define RG_SENDMMSG_MAX 4

static __always_inline void on_sendmmsg(struct pt_regs *regs, long ret, __u16 hook)
{
	int fd = (int)PT_REGS_PARM1_CORE_SYSCALL(regs);
	__u64 vec = PT_REGS_PARM2_CORE_SYSCALL(regs);
	__u32 vlen = (__u32)PT_REGS_PARM3_CORE_SYSCALL(regs), len;
	struct sock_id id = {};

	if (!rdma_sock_at(fd, &id) || id.family != RG_ABI_AF_RDS)
		return;
	for (__u32 i = 0; i < RG_SENDMMSG_MAX; i++) {
		__u64 msg = vec + (__u64)i * sizeof(struct mmsghdr);

		if (i >= vlen || (ret >= 0 && i >= (__u64)ret) || (ret < 0 && i > 0))
			break;
		len = 0;
		if (ret >= 0 &&
		    bpf_probe_read_user(&len, sizeof(len),
					(void *)(msg + offsetof(struct mmsghdr, msg_len))))
			count(RG_CNT_USER_FAULT);
		emit_msg(fd, &id, msg, ret < 0 ? ret : (long)len, hook);
	}
}

static __always_inline void on_addr(__u32 call, struct pt_regs *regs, long ret, __u16 hook)
{
	int fd = (int)PT_REGS_PARM1_CORE_SYSCALL(regs);
	struct sock_id id = {};
	struct rg_rec_sock *r;

	if (!rdma_sock_at(fd, &id))
		return;
	r = sock_begin(call, fd, ret, &id, hook);
	if (!r)
		return;
	sock_addr(r, PT_REGS_PARM2_CORE_SYSCALL(regs), PT_REGS_PARM3_CORE_SYSCALL(regs));
	rg_submit(r);
}

/*
 * accept(), accept4(): the new socket, and the peer's address where the caller asked for it. A
 * connection an SMC listener accepted in fallback hands the new file straight to its TCP socket,
 * with no way back (smc_accept_dequeue()): the listener says what it is.
 */
static __always_inline void on_accept(struct pt_regs *regs, long ret, __u16 hook)
{
	__u64 uaddr = PT_REGS_PARM2_CORE_SYSCALL(regs), ulen = PT_REGS_PARM3_CORE_SYSCALL(regs);
	struct sock_id id = {};
	struct rg_rec_sock *r;
	int len = 0;

	if (ret < 0)
		return;
	if (!rdma_sock_at((int)ret, &id) &&
	    !rdma_sock_at((int)PT_REGS_PARM1_CORE_SYSCALL(regs), &id))
		return;
	r = sock_begin(RG_SOCK_ACCEPT, (int)ret, ret, &id, hook);
	if (!r)
		return;
	if (uaddr && ulen && bpf_probe_read_user(&len, sizeof(len), (void *)ulen) == 0 && len > 0)
		sock_addr(r, uaddr, (__u64)len);
	rg_submit(r);
}

static __always_inline void on_socket(struct pt_regs *regs, long ret, __u16 hook)
{
	struct sock_id id = {
	    .family = (__u32)PT_REGS_PARM1_CORE_SYSCALL(regs),
	    .type = (__u32)PT_REGS_PARM2_CORE_SYSCALL(regs),
	    .protocol = (__u32)PT_REGS_PARM3_CORE_SYSCALL(regs),
	};
	struct rg_rec_sock *r;

	/* attempts are reported too: a refused socket (module absent) still says who tried */
	if (!rdma_family(id.family, id.protocol))
		return;
	r = sock_begin(RG_SOCK_SOCKET, ret >= 0 ? (int)ret : -1, ret, &id, hook);
	if (r)
		rg_submit(r);
}

static __always_inline int sock_ret(__u32 call, long ret, __u16 hook)
{
	struct pt_regs *regs;

	if (is_self())
		return 0;
	regs = syscall_regs();
	switch (call) {
	case RG_SOCK_SOCKET:
		on_socket(regs, ret, hook);
		break;
	case RG_SOCK_BIND:
	case RG_SOCK_CONNECT:
		on_addr(call, regs, ret, hook);
		break;
	case RG_SOCK_ACCEPT:
		on_accept(regs, ret, hook);
		break;
	case RG_SOCK_SETSOCKOPT:
		on_setsockopt(regs, ret, hook);
		break;
	case RG_SOCK_SENDMSG:
		on_sendmsg(regs, ret, hook);
		break;
	case RG_SOCK_SENDMMSG:
		on_sendmmsg(regs, ret, hook);
		break;
	}
	return 0;
}

/* One program per syscall and flavour; the names are the plan's (agent/sensors/plan.c). */
#define SOCK_HOOKS(sys, call)                                                                      \
	SEC("fexit/" RG_SYSCALL_FN(#sys))                                                          \
	int BPF_PROG(fx_sys_##sys, const struct pt_regs *unused, long ret)                         \
	{                                                                                          \
		return sock_ret(call, ret, RG_HOOK_FENTRY);                                        \
	}                                                                                          \
	SEC("kretprobe/" RG_SYSCALL_FN(#sys))                                                      \
	int BPF_KRETPROBE(krp_sys_##sys, long ret)                                                 \
	{                                                                                          \
		return sock_ret(call, ret, RG_HOOK_KPROBE);                                        \
	}                                                                                          \
	SEC("tracepoint/syscalls/sys_exit_" #sys)                                                  \
	int tp_exit_##sys(struct trace_event_raw_sys_exit *ctx)                                    \
	{                                                                                          \
		long ret = ctx->ret;                                                               \
                                                                                                   \
		barrier_var(ret);                                                                  \
		return sock_ret(call, ret, RG_HOOK_TRACEPOINT);                                    \
	}

SOCK_HOOKS(socket, RG_SOCK_SOCKET)
SOCK_HOOKS(bind, RG_SOCK_BIND)
SOCK_HOOKS(connect, RG_SOCK_CONNECT)
SOCK_HOOKS(accept, RG_SOCK_ACCEPT)
SOCK_HOOKS(accept4, RG_SOCK_ACCEPT)
SOCK_HOOKS(setsockopt, RG_SOCK_SETSOCKOPT)
SOCK_HOOKS(sendmsg, RG_SOCK_SENDMSG)
SOCK_HOOKS(sendmmsg, RG_SOCK_SENDMMSG)
