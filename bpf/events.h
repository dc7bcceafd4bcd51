/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The records the BPF sensors send to userspace through the one ring buffer, and the keys and
 * values of the maps userspace also reads or fills. Shared by the BPF programs (bpf/) and
 * the agent (agent/sensors/): plain __u8/__u16/__u32/__u64 fields, explicit padding, every size
 * pinned with _Static_assert in agent/sensors/convert.c.
 *
 * Records carry raw bytes (the ioctl header and attributes, the write() buffer, pointed-to
 * attribute contents) rather than decoded fields: decoding happens in userspace, in pure functions
 * (agent/sensors/decode.h) that a fuzzer can drive. BPF only copies, bounded.
 */
#pragma once

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

#define RG_REC_COMM	   16
#define RG_REC_PATH	   256 /* paths built from dentries; longer ones keep their tail */
#define RG_REC_ARGS	   256
#define RG_REC_DATA	   320 /* ioctl: header + 16 attributes (280 B); write(): first bytes */
#define RG_REC_BLOB_SLOTS  8
#define RG_REC_BLOB_SLOT   128 /* bytes kept of each pointed-to attribute */
#define RG_REC_BLOB	   (RG_REC_BLOB_SLOTS * RG_REC_BLOB_SLOT)
#define RG_REC_RESP_MAX	   256 /* write(): response bytes copied into blob[] (slots 0-1) */
#define RG_IOCTL_MAX_ATTRS 16
#define RG_REC_DEVNAME	   64

/* ABI numbers BPF needs to filter and copy (checked against the uapi headers in
 * agent/sensors/decode_*.c). */
#define RG_ABI_RDMA_VERBS_IOCTL	   0xc0181b01u
#define RG_ABI_IOCTL_HDR_SIZE	   24
#define RG_ABI_IOCTL_ATTR_SIZE	   16
#define RG_ABI_OBJECT_DEVICE	   0
#define RG_ABI_METHOD_INVOKE_WRITE 0 /* DEVICE's legacy command tunnel */
#define RG_ABI_ATTR_CORE_IN	   0 /* DEVICE/INVOKE_WRITE's command */
#define RG_ABI_ATTR_CORE_OUT	   1 /* DEVICE/INVOKE_WRITE's response */
#define RG_ABI_OBJECT_QP	   4
#define RG_ABI_METHOD_QP_CREATE	   0
#define RG_ABI_ATTR_QP_RESP_QP_NUM 14 /* QP/QP_CREATE's new QP number */
#define RG_ABI_CMD_FLAG_EXTENDED   0x80000000u
#define RG_ABI_CMD_MASK		   0xffu
#define RG_ABI_CMD_POST_SEND	   28
#define RG_ABI_CMD_POST_RECV	   29
#define RG_ABI_CMD_POST_SRQ_RECV   36
#define RG_ABI_CM_CREATE_ID	   0

/*
 * The function a syscall enters the kernel by (its architecture's syscall wrapper, e.g.
 * __x64_sys_bpf): what fentry and kprobe hooks on a whole syscall attach to, rather than a syscall
 * tracepoint, which puts every syscall of every task on the kernel's slow path. Used by the BPF
 * programs' section names and by the agent's feature check; an architecture without a wrapper
 * gets "sys_NAME", which the check then finds or not.
 */
#if defined(__TARGET_ARCH_x86) || defined(__x86_64__)
#define RG_SYSCALL_FN(name) "__x64_sys_" name
#elif defined(__TARGET_ARCH_arm64) || defined(__aarch64__)
#define RG_SYSCALL_FN(name) "__arm64_sys_" name
#elif defined(__TARGET_ARCH_s390) || defined(__s390x__)
#define RG_SYSCALL_FN(name) "__s390x_sys_" name
#elif defined(__TARGET_ARCH_riscv) || defined(__riscv)
#define RG_SYSCALL_FN(name) "__riscv_sys_" name
#else
#define RG_SYSCALL_FN(name) "sys_" name
#endif

enum rg_rec_type {
	RG_REC_NONE = 0,
	RG_REC_EXEC,
	RG_REC_FORK,
	RG_REC_EXIT,
	RG_REC_OPEN,   /* an RDMA node or /proc/PID/mem was opened (the fd is known) */
	RG_REC_CMD,    /* a command on a uverbs or rdma_cm fd: ioctl, write() or mmap */
	RG_REC_LIB,    /* executable mapping of a file that looks like an RDMA library */
	RG_REC_MEM,    /* process_vm_readv/writev, ptrace attach/seize */
	RG_REC_UCALL,  /* a libibverbs entry point (uprobe) */
	RG_REC_MODULE, /* a kernel module was loaded (module:module_load), or refused (enforce) */
	RG_REC_BPF,    /* another process changed one of the agent's own BPF maps or links */
	RG_REC_NETLINK, /* an RDMA netlink message (rdma link add) refused by enforcement */
	RG_REC_SOCK,	/* a syscall on an RDMA socket (AF_RDS, AF_SMC), or a SOL_RDS option */
	RG_REC__MAX,
};

/* Which kind of hook produced a record (for the startup description and tests). */
enum rg_hook_kind {
	RG_HOOK_TRACEPOINT = 1,
	RG_HOOK_RAW_TP,
	RG_HOOK_KPROBE,
	RG_HOOK_FENTRY,
	RG_HOOK_LSM,
	RG_HOOK_UPROBE,
};

/* rg_rec_hdr.flags */
#define RG_RECF_TRUNC  0x1  /* a copy was cut at its bound */
#define RG_RECF_FAULT  0x2  /* a user-memory read failed (partial data) */
#define RG_RECF_NORET  0x4  /* ret is unknown (aggregated or entry-only hook) */
#define RG_RECF_DENIED 0x8  /* enforcement refused the operation (bpf/enforce.bpf.c) */
#define RG_RECF_KILLED 0x10 /* enforcement sent SIGKILL to the process */

struct rg_rec_hdr {
	__u16 type;  /* enum rg_rec_type */
	__u16 flags; /* RG_RECF_* */
	__u16 hook;  /* enum rg_hook_kind */
	__u16 pad;
	__u64 ts_boot_ns; /* bpf_ktime_get_boot_ns() */
	__u32 pid;	  /* tgid */
	__u32 tid;
	__u32 ppid; /* real_parent's tgid */
	__u32 uid;
	__u64 start_boot_ns; /* group leader's start_boottime, rounded down to a clock tick */
	char comm[RG_REC_COMM];
};

/* rg_rec_exec.exe_flags */
#define RG_REC_EXE_FOREIGN 0x1 /* the task's root or mount namespace is not init's */

struct rg_rec_exec {
	struct rg_rec_hdr h;
	__u64 parent_start_boot_ns;
	__u64 exe_ino;
	__u32 exe_dev; /* kernel dev_t encoding: major << 20 | minor */
	__u32 sid;
	__u32 args_len;	 /* bytes valid in args (NUL-separated) */
	__u32 args_size; /* arg_end - arg_start: args was cut when larger than args_len */
	__u32 exe_flags; /* RG_REC_EXE_* */
	__u32 pad;
	char filename[RG_REC_PATH]; /* as given to execve */
	char exe[RG_REC_PATH];	    /* mm->exe_file, built from dentries; RG_RECF_TRUNC: cut */
	char args[RG_REC_ARGS];
};

struct rg_rec_fork { /* hdr describes the child; ppid is its parent */
	struct rg_rec_hdr h;
	__u64 parent_start_boot_ns;
};

struct rg_rec_exit {
	struct rg_rec_hdr h;
	__s32 code; /* exit_code (wait status) */
	__u32 rdma; /* 1 if the process held RDMA fds (the agent then forgets them) */
};

/* rg_rec_open.what */
#define RG_OPEN_RDMA 1 /* char major 231, rdma_cm, a char device in a dir "infiniband" */
#define RG_OPEN_PROC_MEM 2 /* /proc/PID/mem */

struct rg_rec_open {
	struct rg_rec_hdr h;
	__s32 fd;
	__s32 ret;
	__u32 what;
	__u32 rdev; /* kernel dev_t encoding */
	__u32 mode;
	__u32 node; /* RG_NODE_*_FD for RG_OPEN_RDMA */
	__u64 ino;
	/* RG_OPEN_PROC_MEM: the process whose memory it is, seen from the proc inode */
	__u32 target_pid;
	__u32 pad;
	__u64 target_start_boot_ns;
	char target_comm[RG_REC_COMM];
	char path[RG_REC_PATH];
};

/* rg_rec_cmd.via */
#define RG_CMD_IOCTL 1
#define RG_CMD_WRITE 2
#define RG_CMD_MMAP  3
#define RG_CMD_POSTS                                                                               \
	4 /* post_send/post_recv calls not yet reported, flushed at process exit:                  \
	   * data holds the command number (u32), calls the count */

/* rg_rec_cmd.node, also rg_fd_val.node */
#define RG_NODE_UVERBS_FD  1
#define RG_NODE_RDMA_CM_FD 2
#define RG_NODE_UMAD_FD	   3
#define RG_NODE_OTHER_FD   4

struct rg_rec_cmd {
	struct rg_rec_hdr h;
	__s32 fd;   /* -1 when not known */
	__u32 node; /* RG_NODE_*_FD */
	__s64 ret;
	__u32 via; /* RG_CMD_* */
	__u32 rdev;
	__u64 count;	 /* write(): bytes the caller passed; mmap: length */
	__u64 mmap_off;	 /* mmap: offset */
	__u32 mmap_prot; /* mmap: prot */
	__u32 calls;	 /* post_send/post_recv: calls summarised by this record (>= 1) */
	__u32 data_len;	 /* bytes valid in data */
	__u32 nblobs;	 /* ioctl: slots filled in (blob_len 0: inline attribute, or not copied);
			  * write(): 1 if the response was copied */
	__u16
	    blob_attr[RG_REC_BLOB_SLOTS];  /* ioctl: index of the attribute (slot i: attribute i) */
	__u16 blob_len[RG_REC_BLOB_SLOTS]; /* bytes valid in each slot (write(): slot 0 spans) */
	/* ioctl: outputs of 8 bytes or less (pointers too), by attribute index, any of the 16 */
	__u8 out_small_len[RG_IOCTL_MAX_ATTRS];
	__u64 out_small[RG_IOCTL_MAX_ATTRS];
	__u8 data[RG_REC_DATA];
	__u8 blob[RG_REC_BLOB];
};

struct rg_rec_lib {
	struct rg_rec_hdr h;
	__u64 ino;
	__u32 dev; /* kernel dev_t encoding */
	__u32 prot;
	char path[RG_REC_PATH];
};

/* rg_rec_mem.op: values of enum rg_mem_op (agent/event/event.h) */
struct rg_rec_mem {
	struct rg_rec_hdr h;
	__u32 op;
	__u32 target_pid; /* as the caller named it (pid or tid) */
	__s64 ret;
	__u64 target_start_boot_ns; /* 0 when the hook could not see the target task */
	char target_comm[RG_REC_COMM];
};

/* rg_rec_ucall.fn */
#define RG_UCALL_GET_DEVICE_LIST 1
#define RG_UCALL_OPEN_DEVICE	 2

struct rg_rec_ucall {
	struct rg_rec_hdr h;
	__u32 fn;
	__u32 pad;
	char device[RG_REC_DEVNAME]; /* open_device: ibv_device.name */
};

#define RG_REC_MODNAME 56

struct rg_rec_module {
	struct rg_rec_hdr h; /* the process that loaded it */
	char name[RG_REC_MODNAME]; /* enforcement: the module file's or request's name */
};

#define RG_REC_NLMSG 256

/* An RDMA netlink message enforcement refused: its first bytes (nlmsghdr and attributes). */
struct rg_rec_netlink {
	struct rg_rec_hdr h;
	__u32 len;     /* bytes valid in data */
	__u32 msg_len; /* the message's nlmsg_len */
	__u8 data[RG_REC_NLMSG];
};

/*
 * Kernel RDMA behind a socket (bpf/sockets.bpf.c): AF_RDS (rds_rdma registers user memory for
 * remote access and runs RDMA reads and writes for the caller) and SMC-R (AF_SMC, or AF_INET/6
 * with IPPROTO_SMC: TCP-like streams over RoCE). One record per syscall, taken at its return:
 * the arguments' raw bytes, decoded in userspace (agent/sensors/decode_sock.c).
 */
#define RG_ABI_AF_INET	     2
#define RG_ABI_AF_INET6	     10
#define RG_ABI_AF_RDS	     21
#define RG_ABI_AF_SMC	     43
#define RG_ABI_IPPROTO_SMC   256
#define RG_ABI_SOL_RDS	     276
#define RG_ABI_RDS_GET_MR    2
#define RG_ABI_RDS_GET_MR_FOR_DEST 7
#define RG_ABI_RDS_GET_MR_COOKIE_OFF 16		/* rds_get_mr_args.cookie_addr */
#define RG_ABI_RDS_GET_MR_FOR_DEST_COOKIE_OFF 144 /* rds_get_mr_for_dest_args.cookie_addr */

/* rg_rec_sock.call: the syscall */
#define RG_SOCK_SOCKET	   1
#define RG_SOCK_BIND	   2
#define RG_SOCK_CONNECT	   3
#define RG_SOCK_ACCEPT	   4 /* accept() and accept4(): fd is the new socket */
#define RG_SOCK_SETSOCKOPT 5
#define RG_SOCK_SENDMSG	   6 /* also each message of a sendmmsg() */
#define RG_SOCK_SENDMMSG   7 /* BPF only: the programs' switch; records say RG_SOCK_SENDMSG */

#define RG_REC_SOCKADDR 32  /* sockaddr_in6 is 28 bytes */
#define RG_REC_SOCKDATA 256 /* setsockopt: optval; sendmsg: the control messages */

struct rg_rec_sock {
	struct rg_rec_hdr h;
	__u32 call; /* RG_SOCK_* */
	__s32 fd;   /* the socket (accept: the new one; socket(): its return value) */
	__s64 ret;
	__u32 family;	/* socket(): the argument; else the socket's own (sk_family) */
	__u32 type;	/* socket(): the argument; else sock->type */
	__u32 protocol; /* socket(): the argument; else sk_protocol */
	__u32 level;	/* setsockopt */
	__u32 optname;	/* setsockopt */
	__u32 optlen;	/* setsockopt: as given; sendmsg: msg_controllen as given */
	__u32 addr_len; /* bytes valid in addr (bind, connect, accept, sendmsg's msg_name) */
	__u32 data_len; /* bytes valid in data */
	__u64 cookie;	/* setsockopt RDS_GET_MR*: the MR cookie the kernel wrote, when it succeeded */
	__u8 addr[RG_REC_SOCKADDR];
	__u8 data[RG_REC_SOCKDATA];
};

/*
 * Self-protection: the agent's own BPF objects (map "self_objs", key rg_self_key, filled by the
 * agent after load), and the record of a bpf() command by another process that changes one of
 * them (sys_enter_bpf/sys_exit_bpf): which command, on which object, and what the kernel said.
 */
#define RG_SELF_MAP  1
#define RG_SELF_LINK 2

struct rg_self_key {
	__u32 kind; /* RG_SELF_* */
	__u32 id;   /* the kernel's map or link id */
};

struct rg_rec_bpf {
	struct rg_rec_hdr h; /* the process that ran the command */
	__u32 cmd;	     /* enum bpf_cmd */
	__u32 kind;	     /* RG_SELF_* */
	__u32 id;
	__s32 fd; /* the caller's fd on the object */
	__s64 ret;
	char exe[RG_REC_PATH]; /* the caller's executable */
};

/* Map: fds known to be RDMA nodes, key (tgid, fd). Filled at open, learnt at first use, seeded
 * from /proc by the agent at start. file/inode are kernel pointers that validate the entry
 * against fd reuse; 0 in an entry seeded from userspace (validated and filled at first use). */
struct rg_fd_key {
	__u32 tgid;
	__s32 fd;
};

struct rg_fd_val {
	__u64 file;
	__u64 inode;
	__u32 node; /* RG_NODE_*_FD */
	__u32 rdev;
};

/* Per-CPU counters (map "counters"): the agent sums or reports them per CPU. */
enum rg_counter {
	RG_CNT_RINGBUF_FULL = 0, /* a record was lost: the ring buffer was full */
	RG_CNT_PENDING_FULL,	 /* a syscall entry could not be remembered for its exit */
	RG_CNT_FDMAP_FULL,	 /* an RDMA fd could not be remembered */
	RG_CNT_USER_FAULT,	 /* a user-memory copy failed */
	RG_CNT_POSTS,		 /* post_send/post_recv calls seen (aggregated) */
	RG_CNT_DENIED,		 /* enforcement: operations refused */
	RG_CNT_KILLED,		 /* enforcement: processes sent SIGKILL */
	RG_CNT_RINGBUF_HI_FULL,	 /* a record was lost: the RDMA ring (events_hi) was full */
	RG_CNT_BUDGET,		 /* a low-value record dropped: its process was over budget */
	RG_CNT__MAX,
};

/*
 * The budget of low-value records (map "budget", per process): a /proc/PID/mem open or a memory
 * call (process_vm_readv/writev, ptrace) by a process that never used RDMA. RG_BUDGET_BURST
 * records at once, then RG_BUDGET_PER_SEC a second, to the main ring; those about a game
 * process's memory have a bucket of their own (RG_BUDGET_GAME_*), and go to the RDMA ring, so that
 * a flood of other records cannot hide them. Past a bucket a record is dropped and counted, here
 * (per process) and in RG_CNT_BUDGET. The same records by an RDMA process go to the RDMA ring,
 * whatever the budget.
 */
#define RG_BUDGET_BURST	       32
#define RG_BUDGET_PER_SEC      16
#define RG_BUDGET_GAME_BURST   64
#define RG_BUDGET_GAME_PER_SEC 32

struct rg_budget {
	__u64 last_ns; /* bpf_ktime_get_ns() of the last refill */
	__u32 tokens;
	__u32 dropped; /* records dropped, since the process's first */
	__u64 game_last_ns; /* the same, for records about a game's memory */
	__u32 game_tokens;
	__u32 game_dropped;
	__u64 start_boot_ns;
	char comm[RG_REC_COMM];
};

/* TC program map "roce_flows": RoCE v2 (UDP 4791) and iWARP (TCP) packets per peer. */
struct rg_flow_key {
	__u8 peer[16]; /* IPv4-mapped for IPv4 */
	__u8 local[16];
	__u32 ifindex;
	__u16 proto; /* 17 or 6 */
	__u16 pad;
};

struct rg_flow_val {
	__u64 packets_in; /* passed */
	__u64 bytes_in;
	__u64 packets_out;
	__u64 bytes_out;
	__u64 packets_dropped; /* both ways: the peer is no seat and no server (below) */
};

/*
 * Dropping RoCE v2 and iWARP traffic of peers outside the fleet (docs/enforcement.md). Map
 * "fleet_nets" (LPM trie): the policy's seats and servers, IPv4 as IPv4-mapped IPv6 (prefix + 96);
 * the value is the generation that put the entry there (the agent adds a policy's entries under
 * a new generation, then deletes the older ones: a reload never leaves a managed peer out).
 */
struct rg_fleet_key {
	__u32 prefixlen;
	__u8 addr[16];
};

/* Map "tc_cfg", one entry: drop is 1 while enforcement is in force and the policy has a fleet. */
struct rg_tc_cfg {
	__u32 drop;
	__u32 pad;
};

/* Per-CPU map "tc_drops": packets dropped, by reason. */
enum rg_tc_drop_reason {
	RG_TC_DROP_ROCE_V2 = 0, /* UDP to port 4791 */
	RG_TC_DROP_IWARP,	/* TCP on a port in iwarp_ports */
	RG_TC_DROP__MAX,
};
