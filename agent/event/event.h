/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The event model: every fact the agent learns becomes one struct rg_event, whatever its origin:
 * a BPF sensor (decoded from bpf/events.h records), the inventory (audit and daemon start-up),
 * the kernel's RDMA resource tables (netlink reconciliation), the agent itself, or a replayed
 * JSON-lines file. The rule engine, the process tree and the recorder only ever see this struct.
 *
 * Events are fixed-size and self-contained (no pointers), so that they can sit in ring buffers and
 * queues without allocation. Strings are NUL-terminated and already sanitised (no control bytes).
 *
 * JSON form (one object per line, `rdmaguard daemon --record FILE`, `rdmaguard replay FILE`):
 * see event_json.h; field names follow ECS where ECS has one.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#define RG_COMM_LEN   16
#define RG_PATH_LEN   256
#define RG_ARGS_LEN   256
#define RG_DEVNAME_LEN 64
#define RG_IFNAME_LEN 16
#define RG_TEXT_LEN   256

enum rg_event_type {
	RG_EV_NONE = 0,
	/* Process lifecycle. PROCESS_PRESENT is a process that existed before the agent looked. */
	RG_EV_PROCESS_PRESENT,
	RG_EV_EXEC,
	RG_EV_FORK,
	RG_EV_EXIT,
	/* RDMA use by a process. */
	RG_EV_DEVICE_OPEN,   /* open of a /dev/infiniband node, or (inventory) an fd held on one */
	RG_EV_VERBS,	     /* a verbs command on a uverbs fd (ioctl or write), or its mmap */
	RG_EV_RDMA_CM,	     /* a command on /dev/infiniband/rdma_cm */
	RG_EV_LIBRARY_LOAD,  /* executable mapping of an RDMA library (or, inventory, one mapped) */
	RG_EV_MEMORY_ACCESS, /* process_vm_readv/writev, ptrace attach, open of /proc/PID/mem */
	RG_EV_ROCE_TRAFFIC,  /* RoCE v2 / iWARP packet counters per peer address, periodic */
	/* The machine. */
	RG_EV_DEVICE_PRESENT, /* an RDMA device (verbs device) exists */
	RG_EV_DEVICE_ADD,     /* an RDMA device appeared (hotplug, `rdma link add`) */
	RG_EV_DEVICE_REMOVE,
	RG_EV_PCI_FUNCTION,   /* a PCI function, its fingerprint and facts (agent/hw/pci.h) */
	RG_EV_MODULE_PRESENT, /* an RDMA kernel module is loaded */
	RG_EV_MODULE_LOAD,    /* an RDMA kernel module was loaded while we watched */
	RG_EV_QP_PRESENT,     /* a QP in the kernel's resource table (netlink) */
	RG_EV_MR_PRESENT,     /* an MR in the kernel's resource table (netlink) */
	/* The agent itself. */
	RG_EV_AGENT_START,
	RG_EV_AGENT_STOP,
	RG_EV_AGENT_HEARTBEAT,
	RG_EV_AGENT_LOST,   /* events lost (ring buffer full, queue full, spool limit) */
	RG_EV_AGENT_SENSOR, /* a sensor attached, degraded, detached or tampered with */
	RG_EV_AGENT_POLICY, /* policy/rules loaded, reloaded or rejected */
	RG_EV_AGENT_TAMPER, /* another process changed the agent's BPF objects or stopped it; proc
			     * is that process (when known) */
	/* The hardware layer (agent/hw/): PCI functions, DMA, the IOMMU. u.pci unless noted. */
	RG_EV_PCI_CHANGE,     /* a PCI function added, removed, bound or unbound (uevents) */
	RG_EV_DMA_FAULT,      /* the IOMMU refused a function's DMA (kernel log); a burst is one */
	RG_EV_IOMMU_POSTURE,  /* u.iommu: IOMMU and Thunderbolt posture; a group's type changed */
	RG_EV_THUNDERBOLT,    /* u.tb: a Thunderbolt device added, authorised or removed */
	RG_EV_HW_BASELINE,    /* a function added, removed or changed against the seat baseline */
	/* RDMA use by a process, through a socket: AF_RDS, AF_SMC (numbered after the others so that
	 * the older numbers stay) */
	RG_EV_RDMA_SOCKET,
	RG_EV__MAX,
};

/* A set of event types, a bit each (rules' and allowlists' event.action). */
#define RG_EV_BIT(t) ((uint64_t)1 << (t))
_Static_assert(RG_EV__MAX <= 64, "event type sets are 64-bit");

enum rg_provider {
	RG_PROV_NONE = 0,
	RG_PROV_SENSOR,	   /* BPF */
	RG_PROV_INVENTORY, /* sysfs, /proc, libibverbs */
	RG_PROV_NETLINK,   /* RDMA netlink resource tables, uevents */
	RG_PROV_AGENT,
	RG_PROV__MAX,
};

/* How a verbs command reached the kernel. */
enum rg_via {
	RG_VIA_NONE = 0,
	RG_VIA_IOCTL,	 /* ioctl(RDMA_VERBS_IOCTL), native method */
	RG_VIA_INVOKE,	 /* ioctl(RDMA_VERBS_IOCTL) DEVICE/INVOKE_WRITE tunnelling a legacy command */
	RG_VIA_WRITE,	 /* write() with struct ib_uverbs_cmd_hdr */
	RG_VIA_KERNEL,	 /* observed inside ib_core/ib_uverbs (fentry/kprobe), kernel's own copy */
	RG_VIA_MMAP,
	RG_VIA_LIBRARY,	 /* a libibverbs entry point (uprobe), before any syscall */
	RG_VIA__MAX,
};

enum rg_verbs_op {
	RG_OP_OTHER = 0,
	RG_OP_GET_CONTEXT,
	RG_OP_QUERY_DEVICE,
	RG_OP_QUERY_PORT,
	RG_OP_ALLOC_PD,
	RG_OP_DEALLOC_PD,
	RG_OP_CREATE_AH,
	RG_OP_DESTROY_AH,
	RG_OP_REG_MR,
	RG_OP_REG_DMABUF_MR,
	RG_OP_REREG_MR,
	RG_OP_DEREG_MR,
	RG_OP_ALLOC_MW,
	RG_OP_DEALLOC_MW,
	RG_OP_CREATE_COMP_CHANNEL,
	RG_OP_CREATE_CQ,
	RG_OP_DESTROY_CQ,
	RG_OP_REQ_NOTIFY_CQ,
	RG_OP_CREATE_QP,
	RG_OP_OPEN_QP,
	RG_OP_QUERY_QP,
	RG_OP_MODIFY_QP,
	RG_OP_DESTROY_QP,
	RG_OP_POST_SEND,
	RG_OP_POST_RECV,
	RG_OP_CREATE_SRQ,
	RG_OP_DESTROY_SRQ,
	RG_OP_MMAP,
	RG_OP_GET_DEVICE_LIST, /* via library: ibv_get_device_list() */
	RG_OP_OPEN_DEVICE,     /* via library: ibv_open_device() */
	RG_OP__MAX,
};

enum rg_cm_op {
	RG_CM_OTHER = 0,
	RG_CM_CREATE_ID,
	RG_CM_DESTROY_ID,
	RG_CM_BIND,
	RG_CM_BIND_IP,
	RG_CM_RESOLVE_ADDR,
	RG_CM_RESOLVE_IP,
	RG_CM_RESOLVE_ROUTE,
	RG_CM_CONNECT,
	RG_CM_LISTEN,
	RG_CM_ACCEPT,
	RG_CM_DISCONNECT,
	RG_CM__MAX,
};

enum rg_mem_op {
	RG_MEM_OTHER = 0,
	RG_MEM_PROCESS_VM_READV,
	RG_MEM_PROCESS_VM_WRITEV,
	RG_MEM_PTRACE_ATTACH,
	RG_MEM_PTRACE_SEIZE,
	RG_MEM_PROC_MEM_OPEN,
	RG_MEM_PTRACE_TRACEME, /* the target asked its parent, the actor, to trace it */
	RG_MEM_PTRACE_AUTO,    /* a new process attached to the actor at fork (PTRACE_O_TRACE*) */
	RG_MEM_PTRACE_EXEC,    /* a process the actor traces executed a new program */
	RG_MEM__MAX,
};

/* What an RDMA socket event is (rdma_socket). */
enum rg_sock_op {
	RG_SOCK_OP_OTHER = 0,	   /* another SOL_RDS option */
	RG_SOCK_OP_SOCKET,	   /* socket(AF_RDS | AF_SMC, ...), or AF_INET/6 with IPPROTO_SMC */
	RG_SOCK_OP_BIND,	   /* the local address (RDS: picks the transport's device) */
	RG_SOCK_OP_CONNECT,	   /* the peer */
	RG_SOCK_OP_ACCEPT,	   /* the new socket and its peer */
	RG_SOCK_OP_SET_TRANSPORT,  /* setsockopt SO_RDS_TRANSPORT */
	RG_SOCK_OP_GET_MR,	   /* setsockopt RDS_GET_MR: memory exposed for remote access */
	RG_SOCK_OP_GET_MR_FOR_DEST, /* setsockopt RDS_GET_MR_FOR_DEST: the same, for one peer */
	RG_SOCK_OP_FREE_MR,	   /* setsockopt RDS_FREE_MR */
	RG_SOCK_OP_RDMA_MAP,	   /* sendmsg RDS_CMSG_RDMA_MAP: a region registered with the send */
	RG_SOCK_OP_RDMA_WRITE,	   /* sendmsg RDS_CMSG_RDMA_ARGS with RDS_RDMA_READWRITE */
	RG_SOCK_OP_RDMA_READ,	   /* sendmsg RDS_CMSG_RDMA_ARGS without it */
	RG_SOCK_OP_RDMA_ATOMIC,	   /* sendmsg RDS_CMSG_ATOMIC_* / RDS_CMSG_MASKED_ATOMIC_* */
	RG_SOCK_OP_RDMA_DEST,	   /* sendmsg RDS_CMSG_RDMA_DEST: names a region for the peer */
	RG_SOCK_OP__MAX,
};

enum rg_sock_family {
	RG_SOCK_FAMILY_NONE = 0,
	RG_SOCK_FAMILY_RDS,
	RG_SOCK_FAMILY_SMC,   /* AF_SMC, or AF_INET/AF_INET6 with IPPROTO_SMC */
	RG_SOCK_FAMILY_OTHER, /* a SOL_RDS option on a socket of another family */
	RG_SOCK_FAMILY__MAX,
};

/* SO_RDS_TRANSPORT values (linux/rds.h RDS_TRANS_*), +1: 0 is "not set here". */
enum rg_rds_transport {
	RG_RDS_TRANS_NONE = 0,
	RG_RDS_TRANS_IB,
	RG_RDS_TRANS_IWARP,
	RG_RDS_TRANS_TCP,
	RG_RDS_TRANS_UNSET, /* RDS_TRANS_NONE (~0): back to the default choice at bind */
	RG_RDS_TRANS_OTHER,
	RG_RDS_TRANS__MAX,
};

/* The /dev/infiniband node kinds. */
enum rg_node_kind {
	RG_NODE_OTHER = 0,
	RG_NODE_UVERBS,
	RG_NODE_RDMA_CM,
	RG_NODE_UMAD,
	RG_NODE_ISSM,
	RG_NODE__MAX,
};

enum rg_lib_kind {
	RG_LIB_OTHER = 0,
	RG_LIB_IBVERBS,
	RG_LIB_RDMACM,
	RG_LIB_PROVIDER, /* libibverbs/lib<x>-rdmav*.so, libmlx5.so, libefa.so, ... */
	RG_LIB__MAX,
};

enum rg_transport {
	RG_TRANSPORT_UNKNOWN = 0,
	RG_TRANSPORT_IB,
	RG_TRANSPORT_ROCE,
	RG_TRANSPORT_IWARP,
	RG_TRANSPORT_USNIC,
	RG_TRANSPORT__MAX,
};

/* IB_UVERBS_ACCESS_* / IBV_ACCESS_* bits (rdma/ib_user_ioctl_verbs.h). */
#define RG_ACCESS_LOCAL_WRITE	    0x1u
#define RG_ACCESS_REMOTE_WRITE	    0x2u
#define RG_ACCESS_REMOTE_READ	    0x4u
#define RG_ACCESS_REMOTE_ATOMIC	    0x8u
#define RG_ACCESS_MW_BIND	    0x10u
#define RG_ACCESS_ZERO_BASED	    0x20u
#define RG_ACCESS_ON_DEMAND	    0x40u
#define RG_ACCESS_HUGETLB	    0x80u
#define RG_ACCESS_RELAXED_ORDERING  (1u << 20)
#define RG_ACCESS_REMOTE_ANY (RG_ACCESS_REMOTE_WRITE | RG_ACCESS_REMOTE_READ | RG_ACCESS_REMOTE_ATOMIC)

/* Flags on any event. */
#define RG_EVF_DENIED	0x1u /* enforcement refused the operation */
#define RG_EVF_KILLED	0x2u /* enforcement killed the process */
#define RG_EVF_TRUNC	0x4u /* a buffer was truncated while decoding */
#define RG_EVF_MALFORMED 0x8u /* the user buffer did not decode; fields are partial */
#define RG_EVF_SOFT	0x10u /* software RDMA (rxe/siw) device, module or link */
#define RG_EVF_FAILED	0x20u /* the syscall returned an error (ret < 0) */
#define RG_EVF_HISTORICAL 0x40u /* from the kernel's log as it was before the daemon read it */

/* A network endpoint: IPv4 is stored IPv4-mapped (::ffff:a.b.c.d), as RoCE v2 GIDs are. */
struct rg_addr {
	uint16_t family; /* 0 (none), AF_INET, AF_INET6, AF_IB (27) */
	uint16_t port;	 /* host order */
	uint8_t addr[16];
};

/* The acting process. start_boot_ns is the start time in ns since boot rounded down to a clock
 * tick, exactly what /proc/PID/stat gives, so (pid, start_boot_ns) names a process for life. */
struct rg_task {
	uint32_t pid;
	uint32_t tid;
	uint32_t ppid;
	uint32_t uid;
	uint64_t start_boot_ns;
	char comm[RG_COMM_LEN];
};

/*
 * rg_ev_exec.exe_flags: exe is a path the user shapes, which never matches an allow, parent or
 * game pattern. TRUNC: not the whole path the kernel resolved (its tail, or head, of a longer
 * one; or execve's own argument). FOREIGN: resolved from another root directory or mount
 * namespace than init's (a chroot, a user namespace's bind mounts; common/hostns.h).
 */
#define RG_EXE_TRUNC   0x1u
#define RG_EXE_FOREIGN 0x2u

struct rg_ev_exec { /* PROCESS_PRESENT, EXEC */
	uint64_t parent_start_boot_ns;
	uint64_t exe_ino;
	uint64_t exe_dev;
	uint32_t sid;	    /* session id */
	uint32_t args_len;  /* bytes used in args: NUL-separated argv */
	uint32_t exe_flags; /* RG_EXE_* */
	uint32_t pad;
	char exe[RG_PATH_LEN];
	char args[RG_ARGS_LEN];
};

struct rg_ev_fork { /* proc is the child; parent is proc.ppid */
	uint64_t parent_start_boot_ns;
};

struct rg_ev_exit {
	int32_t code; /* wait status */
};

struct rg_ev_device_open {
	int32_t fd;  /* fd returned (or held), -1 if unknown */
	int32_t ret; /* 0 or -errno of the open */
	uint32_t node_kind; /* enum rg_node_kind */
	uint32_t minor;
	char path[64];
	char device[RG_DEVNAME_LEN]; /* ib device behind uverbsN/umadN when known */
};

struct rg_ev_verbs {
	uint32_t op;	    /* enum rg_verbs_op */
	uint32_t via;	    /* enum rg_via */
	int32_t fd;
	int32_t ret;	    /* 0 or -errno; RG_EVF_FAILED set when < 0 */
	uint16_t object_id; /* ioctl path: UVERBS_OBJECT_* */
	uint16_t method_id; /* ioctl path: UVERBS_METHOD_* */
	uint32_t write_cmd; /* write/INVOKE_WRITE path: IB_USER_VERBS_CMD_* (| 0x80000000 extended) */
	uint32_t driver_id; /* RDMA_DRIVER_* from the ioctl header */
	uint32_t handle;    /* object handle (qp/mr/cq) where the command names one */
	/* MR */
	uint64_t mr_addr;
	uint64_t mr_length;
	uint64_t mr_iova;
	uint32_t mr_access; /* RG_ACCESS_* */
	int32_t dmabuf_fd;
	/* QP */
	uint32_t qp_type;     /* IB_QPT_*: RC 2, UC 3, UD 4, RAW_PACKET 8, XRC_INI 9, XRC_TGT 10 */
	uint32_t qp_num;
	uint32_t qp_state;    /* IB_QPS_*: RESET 0, INIT 1, RTR 2, RTS 3, SQD 4, SQE 5, ERR 6 */
	uint32_t qp_attr_mask;
	uint32_t dest_qp_num;
	uint32_t wr_count;    /* post_send/post_recv */
	uint32_t calls;	      /* post_send/post_recv: syscalls this event summarises (>= 1) */
	uint8_t dgid[16];     /* MODIFY_QP to RTR: destination GID (RoCE v2: IPv4-mapped address) */
	uint64_t mmap_len;
	char device[RG_DEVNAME_LEN];
};

struct rg_ev_rdma_cm {
	uint32_t op; /* enum rg_cm_op */
	int32_t fd;
	int32_t ret;
	uint32_t cmd; /* RDMA_USER_CM_CMD_* */
	uint32_t id;
	uint32_t port_space; /* RDMA_PS_TCP 0x106, RDMA_PS_UDP 0x111, RDMA_PS_IB 0x13f */
	uint32_t backlog;
	struct rg_addr src;
	struct rg_addr dst;
};

struct rg_ev_sock { /* RDMA_SOCKET */
	uint32_t op;	    /* enum rg_sock_op */
	uint32_t family;    /* enum rg_sock_family */
	int32_t fd;
	int32_t ret;	    /* 0 or -errno; RG_EVF_FAILED set when < 0 */
	uint32_t type;	    /* SOCK_SEQPACKET 5 (RDS), SOCK_STREAM 1 (SMC) */
	uint32_t protocol;  /* socket(): SMCPROTO_SMC 0, SMCPROTO_SMC6 1, IPPROTO_SMC 256 */
	uint32_t option;    /* setsockopt: the SOL_RDS option */
	uint32_t transport; /* enum rg_rds_transport (set_transport) */
	uint32_t mr_access; /* RG_ACCESS_*: what rds_rdma registers a region with */
	uint32_t rdma_flags; /* RDS_RDMA_* of the RDMA or MR arguments */
	uint32_t cmsgs;	    /* sendmsg: RDMA and atomic control messages in it */
	uint32_t pad;
	uint64_t mr_addr;   /* the local region (GET_MR*, RDMA_MAP) */
	uint64_t mr_length;
	uint64_t cookie;    /* the region's cookie: written by the kernel (GET_MR*), or named */
	uint64_t remote_addr; /* RDMA ops: the peer's region */
	uint64_t remote_length;
	struct rg_addr local;
	struct rg_addr peer;
};

struct rg_ev_library {
	uint32_t lib_kind; /* enum rg_lib_kind */
	uint32_t pad;
	uint64_t ino;
	uint64_t dev;
	char path[RG_PATH_LEN];
};

struct rg_ev_memory {
	uint32_t op; /* enum rg_mem_op */
	int32_t ret;
	uint32_t target_pid;
	uint32_t pad;
	uint64_t target_start_boot_ns; /* 0 when unknown */
	uint64_t bytes;
	char target_comm[RG_COMM_LEN];
};

struct rg_ev_roce {
	struct rg_addr peer;
	struct rg_addr local;
	uint64_t packets_in, bytes_in, packets_out, bytes_out; /* passed */
	uint64_t packets_dropped; /* both ways, by enforcement: the peer is outside the fleet */
	uint32_t protocol; /* 17 (UDP 4791, RoCE v2) or 6 (TCP, iWARP) */
	uint32_t pad;
	char ifname[RG_IFNAME_LEN];
};

struct rg_ev_device { /* DEVICE_PRESENT, DEVICE_ADD, DEVICE_REMOVE */
	uint32_t transport; /* enum rg_transport */
	uint32_t node_type; /* 1 CA, 2 switch, 3 router, 4 RNIC */
	uint32_t pci_vendor, pci_device, pci_class;
	uint32_t ports;
	uint32_t ports_active;
	uint32_t pad;
	char name[RG_DEVNAME_LEN];
	char driver[32];
	char parent[RG_IFNAME_LEN]; /* netdev of a software device */
	char pci_addr[16];
};

/* What changed, for the hardware events: pci.change, baseline.change, thunderbolt.change,
 * iommu.change. */
enum rg_hw_change {
	RG_HW_NONE = 0,
	RG_HW_ADD,	 /* pci_change, thunderbolt_device: appeared */
	RG_HW_REMOVE,	 /* disappeared */
	RG_HW_BIND,	 /* pci_change: a driver was bound */
	RG_HW_UNBIND,	 /* pci_change: its driver was unbound */
	RG_HW_AUTHORIZE, /* thunderbolt_device: authorised */
	RG_HW_ADDED,	 /* hw_baseline: on the machine, not in the baseline */
	RG_HW_REMOVED,	 /* hw_baseline: in the baseline, not on the machine */
	RG_HW_CHANGED,	 /* hw_baseline: differs from the baseline (baseline.diff says how) */
	RG_HW_GROUP_TYPE, /* iommu_posture: a group's domain type changed */
	RG_HW_PROBE_FAILED, /* pci_change: a driver's probe of it failed (the kernel's log) */
	RG_HW__MAX,
};

/* Facts about a PCI function (agent/hw/pci_facts.c): heuristics the rules weigh. Each is the
 * field "pci.fact.<name>" (pci_fact_to_string() gives the name of bit i). */
enum rg_pci_fact {
	RG_PCI_FACT_BUS_MASTER_NO_DRIVER = 1u << 0, /* bus mastering on, no driver bound */
	RG_PCI_FACT_FPGA_VENDOR = 1u << 1,	    /* Xilinx, Altera/Intel FPGA, Lattice IDs */
	RG_PCI_FACT_DMA_CARD_ID = 1u << 2,	    /* DMA-card firmware default IDs (10ee:0666) */
	RG_PCI_FACT_CLASS_MISMATCH = 1u << 3,	    /* net/RDMA/storage/USB class with no netdev,
						     * ib_device, block device or USB bus */
	RG_PCI_FACT_NO_PM_CAP = 1u << 4,	    /* a PCIe endpoint with no power management */
	RG_PCI_FACT_CAPS_ZERO = 1u << 5,	    /* an all-zero capability entry */
	RG_PCI_FACT_CAPS_MALFORMED = 1u << 6,	    /* a list that loops or points out of bounds */
	RG_PCI_FACT_HEADER_INVALID = 1u << 7,	    /* header type not 0, 1 or 2 */
	RG_PCI_FACT_MULTIFUNCTION_SINGLE = 1u << 8, /* multi-function bit, one function */
	RG_PCI_FACT_LINK_ABOVE_UPSTREAM = 1u << 9,  /* link faster or wider than the port above */
	RG_PCI_FACT_DSN_DUPLICATE = 1u << 10,	    /* the same DSN on another function */
	RG_PCI_FACT_RDMA_NO_DRIVER = 1u << 11,	    /* RDMA-capable, no driver bound */
	RG_PCI_FACT_ACS_MISSING = 1u << 12,	    /* a downstream port above has no ACS */
	RG_PCI_FACT_EXTERNAL = 1u << 13,	    /* behind an external-facing/Thunderbolt port */
	RG_PCI_FACT_IDENTITY_DOMAIN = 1u << 14,	    /* its IOMMU group is identity, or no group */
	/* What a card that imitates a real device still shows (docs/hardware.md): */
	RG_PCI_FACT_DRIVER_AVAILABLE = 1u << 15, /* no driver bound, the kernel has one for its ID
						  * (modules.alias): pci.driver_available */
	RG_PCI_FACT_IRQ_NO_DRIVER = 1u << 16,	 /* MSI/MSI-X enabled or vectors allocated, no
						  * driver (not the IOMMU's own function) */
	RG_PCI_FACT_FPGA_LINK = 1u << 17,	 /* Link Capabilities of the Xilinx 7-series PCIe
						  * block: ASPM L0s only, both exit latencies 7 */
	RG_PCI_FACT_DSN_ZERO = 1u << 18,	 /* a DSN capability holding 0 or all ones */
	RG_PCI_FACT_IMITATED_NO_DRIVER = 1u << 19, /* no driver, of a kind cheats imitate: network,
						    * wireless, storage, USB, multimedia */
	RG_PCI_FACT_CONFIG_UNREADABLE = 1u << 20,  /* config space could not be read: the function
						    * could not be examined (not a tell) */
	RG_PCI_FACT_DRIVER_PROBE_FAILED = 1u << 21, /* the kernel logged a failed driver probe */
	RG_PCI_FACT_NOT_BREATHING = 1u << 22, /* a busy class whose interrupt counters stayed at
					       * zero over the daemon's window */
};
#define RG_PCI_NFACTS 23

struct rg_ev_pci { /* PCI_FUNCTION, PCI_CHANGE, DMA_FAULT, HW_BASELINE */
	uint32_t vendor, device, class_code;
	uint32_t rdma_class; /* class 0x0207/0x0208/0x0c06 */
	uint32_t known_vendor;
	uint32_t has_driver;
	char addr[16];
	char driver[32];
	/* The fingerprint (agent/hw/pci.h). */
	uint32_t subsys_vendor, subsys_device;
	uint32_t revision, header_type;
	uint32_t bus_master;
	uint32_t rdma;	     /* RDMA-capable by class, vendor:device, driver or ib_device */
	uint32_t facts;	     /* enum rg_pci_fact */
	uint32_t has_iommu_group, iommu_group;
	uint32_t link_speed, link_width;       /* MT/s, lanes (negotiated) */
	uint32_t upstream_speed, upstream_width; /* the port above */
	uint32_t change;     /* pci_change, hw_baseline: enum rg_hw_change */
	uint32_t count;	     /* dma_fault: faults in the burst */
	uint32_t probe_failed; /* the kernel logged a failed probe of a driver for it */
	uint64_t fault_addr; /* dma_fault: the first faulting address */
	char iommu_type[16]; /* DMA, DMA-FQ, identity, blocked; "none" no group */
	char vendor_name[40], device_name[64]; /* pci.ids; "Vendor 10ee", "Device 0666" unknown */
	char upstream[14];   /* the bridge above (a 5-digit VMD domain fits) */
	char dsn[24];	     /* Device Serial Number "01-23-45-67-89-ab-cd-ef", "" none */
	char text[144];	     /* hw_baseline: what changed; dma_fault: the kernel's reason */
	char probe_driver[24]; /* that driver (a PCI driver's name, as the kernel log has it) */
	char driver_state[32]; /* "driver igc", "no driver": never empty; the name cut at 24 */
	char driver_available[32]; /* DRIVER_AVAILABLE: the module the kernel has for it */
	char dsn_original[14];	   /* DSN_DUPLICATE: the other holder, the original if known */
	uint32_t in_baseline;	   /* the seat baseline has it as it is, driver included */
};

struct rg_ev_iommu { /* IOMMU_POSTURE */
	uint32_t present;	  /* an IOMMU unit translates (/sys/class/iommu not empty) */
	uint32_t units, groups;
	uint32_t identity_groups; /* groups of type identity */
	uint32_t weakened;	  /* the command line weakens it (iommu=pt, intel_iommu=off, ...) */
	uint32_t has_tb, tb_dma_protection; /* Thunderbolt: a domain; its iommu_dma_protection */
	uint32_t change;	  /* enum rg_hw_change: 0 the posture, GROUP_TYPE a change */
	uint32_t has_group, group;
	char cmdline[96];	  /* the weakening options */
	char tb_security[16];	  /* none, user, secure, dponly, usbonly, nopcie */
	char group_type[16], previous_type[16];
	char summary[160]; /* what weakens it, for messages (hw_posture_event_summary()) */
};

struct rg_ev_tb { /* THUNDERBOLT */
	uint32_t vendor, device;
	uint32_t authorized; /* 0, 1, 2 (secure) */
	uint32_t change;     /* enum rg_hw_change: ADD, AUTHORIZE, REMOVE */
	char name[32];	     /* "0-1" */
	char security[16];   /* the domain's security level */
	char vendor_name[48], device_name[48];
};

struct rg_ev_module {
	uint32_t refcount;
	uint32_t pad;
	char name[64];
};

struct rg_ev_qp { /* QP_PRESENT, from the kernel's table */
	uint32_t lqpn, rqpn;
	uint32_t type, state;
	uint32_t port;
	uint32_t pd;
	uint32_t kernel; /* owned by a kernel ULP (then res_kern_name in comm) */
	uint32_t pad;
	char device[RG_DEVNAME_LEN];
};

struct rg_ev_mr {
	uint64_t length;
	uint64_t iova;
	uint32_t rkey, lkey;
	uint32_t mrn;
	uint32_t pd;
	uint32_t kernel;
	uint32_t pad;
	char device[RG_DEVNAME_LEN];
};

struct rg_ev_agent { /* AGENT_* */
	uint64_t count;	 /* LOST: events lost; HEARTBEAT: events seen; TAMPER: object id, signal */
	uint64_t count2; /* LOST: per-cpu index or alerts lost; HEARTBEAT: alerts sent */
	int32_t error;	 /* -errno where relevant */
	uint32_t ok;	 /* POLICY: 1 loaded, 0 rejected; SENSOR: 1 attached, 0 degraded/detached;
			  * TAMPER: 1 the change was made, 0 the kernel refused it */
	char what[64];	 /* LOST: "ringbuf", "queue", "spool"; SENSOR: hook; POLICY: file;
			  * TAMPER: "bpf_map_update_elem", "bpf_link_detach", "tc_filter",
			  * "map_counters", "signal" ... */
	char text[RG_TEXT_LEN];
};

struct rg_event {
	uint16_t type;	   /* enum rg_event_type */
	uint16_t provider; /* enum rg_provider */
	uint32_t flags;	   /* RG_EVF_* */
	uint64_t seq;	   /* per agent run, increasing */
	uint64_t ts;	   /* wall clock, ns since the epoch */
	struct rg_task proc;
	union {
		struct rg_ev_exec exec;
		struct rg_ev_fork fork;
		struct rg_ev_exit exit;
		struct rg_ev_device_open open;
		struct rg_ev_verbs verbs;
		struct rg_ev_rdma_cm cm;
		struct rg_ev_sock sock;
		struct rg_ev_library lib;
		struct rg_ev_memory mem;
		struct rg_ev_roce roce;
		struct rg_ev_device dev;
		struct rg_ev_pci pci;
		struct rg_ev_iommu iommu;
		struct rg_ev_tb tb;
		struct rg_ev_module mod;
		struct rg_ev_qp qp;
		struct rg_ev_mr mr;
		struct rg_ev_agent agent;
	} u;
};

/* Names used in JSON and rules ("verbs", "reg_mr", "remote_read", ...). NULL when out of range. */
const char *event_type_to_string(unsigned type);
int event_type_from_string(const char *s); /* -EINVAL if unknown */
const char *provider_to_string(unsigned p);
int provider_from_string(const char *s);
const char *via_to_string(unsigned v);
int via_from_string(const char *s);
const char *verbs_op_to_string(unsigned op);
int verbs_op_from_string(const char *s);
const char *cm_op_to_string(unsigned op);
int cm_op_from_string(const char *s);
const char *mem_op_to_string(unsigned op);
int mem_op_from_string(const char *s);
const char *node_kind_to_string(unsigned k);
int node_kind_from_string(const char *s);
const char *lib_kind_to_string(unsigned k);
int lib_kind_from_string(const char *s);
const char *transport_to_string(unsigned t);
int transport_from_string(const char *s);
const char *sock_op_to_string(unsigned op);
int sock_op_from_string(const char *s);
const char *sock_family_to_string(unsigned f);
int sock_family_from_string(const char *s);
const char *rds_transport_to_string(unsigned t);
int rds_transport_from_string(const char *s);
const char *qp_type_to_string(unsigned t); /* "rc", "uc", "ud", "raw_packet", ...; NULL unknown */
int qp_type_from_string(const char *s);
const char *qp_state_to_string(unsigned s); /* "reset", "init", "rtr", "rts", ... */
int qp_state_from_string(const char *s);
const char *hw_change_to_string(unsigned c); /* "add", "remove", "bind", ..., "changed" */
int hw_change_from_string(const char *s);
const char *pci_fact_to_string(unsigned bit); /* bit index: "bus_master_no_driver", ... */

/* Access flags: names of the set bits, in bit order ("local_write", "remote_write", ...). */
struct access_name {
	uint32_t bit;
	const char *name;
};
extern const struct access_name access_names[];
extern const unsigned access_names_count;
int access_from_string(const char *s, uint32_t *ret_bit);

/* Formats an address (IPv4-mapped shown as dotted quad) without port. */
void addr_to_string(const struct rg_addr *a, char buf[static 64]);
int addr_from_string(const char *s, struct rg_addr *a);
/*
 * The remote party of an event, as ECS destination.ip names it: rdma_cm's destination, a RoCE
 * flow's peer, a QP's destination GID when it is IPv4-mapped (RoCE v2 over IPv4: the IPv4
 * address). local gets the local address where the event has one (family 0 otherwise).
 * false when the event has no peer.
 */
bool event_peer(const struct rg_event *ev, struct rg_addr *peer, struct rg_addr *local);
/* A GID as IPv6 text (fe80::..., ::ffff:192.0.2.1). */
void gid_to_string(const uint8_t gid[16], char buf[static 64]);
/* If the GID is IPv4-mapped (RoCE v2 over IPv4), writes the dotted quad and returns true. */
bool gid_to_ipv4(const uint8_t gid[16], char buf[static 16]);

/* Copies a possibly unterminated kernel/user string into a fixed field, sanitised: src up to
 * its first NUL, at most srclen and size - 1 bytes (src[0..srclen) may all be read), control
 * characters and DEL as '?', NUL-terminated. */
void event_set_str(char *dst, size_t size, const char *src, size_t srclen);
