/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <arpa/inet.h>
#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include "event.h"
#include "common/macro.h"

static const char *const event_type_names[RG_EV__MAX] = {
	[RG_EV_NONE] = "none",
	[RG_EV_PROCESS_PRESENT] = "process_present",
	[RG_EV_EXEC] = "exec",
	[RG_EV_FORK] = "fork",
	[RG_EV_EXIT] = "exit",
	[RG_EV_DEVICE_OPEN] = "device_open",
	[RG_EV_VERBS] = "verbs",
	[RG_EV_RDMA_CM] = "rdma_cm",
	[RG_EV_LIBRARY_LOAD] = "library_load",
	[RG_EV_MEMORY_ACCESS] = "memory_access",
	[RG_EV_ROCE_TRAFFIC] = "roce_traffic",
	[RG_EV_DEVICE_PRESENT] = "device_present",
	[RG_EV_DEVICE_ADD] = "device_add",
	[RG_EV_DEVICE_REMOVE] = "device_remove",
	[RG_EV_PCI_FUNCTION] = "pci_function",
	[RG_EV_MODULE_PRESENT] = "module_present",
	[RG_EV_MODULE_LOAD] = "module_load",
	[RG_EV_QP_PRESENT] = "qp_present",
	[RG_EV_MR_PRESENT] = "mr_present",
	[RG_EV_AGENT_START] = "agent_start",
	[RG_EV_AGENT_STOP] = "agent_stop",
	[RG_EV_AGENT_HEARTBEAT] = "agent_heartbeat",
	[RG_EV_AGENT_LOST] = "agent_lost",
	[RG_EV_AGENT_SENSOR] = "agent_sensor",
	[RG_EV_AGENT_POLICY] = "agent_policy",
	[RG_EV_AGENT_TAMPER] = "agent_tamper",
	[RG_EV_PCI_CHANGE] = "pci_change",
	[RG_EV_DMA_FAULT] = "dma_fault",
	[RG_EV_IOMMU_POSTURE] = "iommu_posture",
	[RG_EV_THUNDERBOLT] = "thunderbolt_device",
	[RG_EV_HW_BASELINE] = "hw_baseline",
	[RG_EV_RDMA_SOCKET] = "rdma_socket",
};

static const char *const provider_names[RG_PROV__MAX] = {
	[RG_PROV_NONE] = "none",	     [RG_PROV_SENSOR] = "sensor",
	[RG_PROV_INVENTORY] = "inventory", [RG_PROV_NETLINK] = "netlink",
	[RG_PROV_AGENT] = "agent",
};

static const char *const via_names[RG_VIA__MAX] = {
	[RG_VIA_NONE] = "none",	    [RG_VIA_IOCTL] = "ioctl",	[RG_VIA_INVOKE] = "invoke_write",
	[RG_VIA_WRITE] = "write",   [RG_VIA_KERNEL] = "kernel", [RG_VIA_MMAP] = "mmap",
	[RG_VIA_LIBRARY] = "library",
};

static const char *const verbs_op_names[RG_OP__MAX] = {
	[RG_OP_OTHER] = "other",
	[RG_OP_GET_CONTEXT] = "get_context",
	[RG_OP_QUERY_DEVICE] = "query_device",
	[RG_OP_QUERY_PORT] = "query_port",
	[RG_OP_ALLOC_PD] = "alloc_pd",
	[RG_OP_DEALLOC_PD] = "dealloc_pd",
	[RG_OP_CREATE_AH] = "create_ah",
	[RG_OP_DESTROY_AH] = "destroy_ah",
	[RG_OP_REG_MR] = "reg_mr",
	[RG_OP_REG_DMABUF_MR] = "reg_dmabuf_mr",
	[RG_OP_REREG_MR] = "rereg_mr",
	[RG_OP_DEREG_MR] = "dereg_mr",
	[RG_OP_ALLOC_MW] = "alloc_mw",
	[RG_OP_DEALLOC_MW] = "dealloc_mw",
	[RG_OP_CREATE_COMP_CHANNEL] = "create_comp_channel",
	[RG_OP_CREATE_CQ] = "create_cq",
	[RG_OP_DESTROY_CQ] = "destroy_cq",
	[RG_OP_REQ_NOTIFY_CQ] = "req_notify_cq",
	[RG_OP_CREATE_QP] = "create_qp",
	[RG_OP_OPEN_QP] = "open_qp",
	[RG_OP_QUERY_QP] = "query_qp",
	[RG_OP_MODIFY_QP] = "modify_qp",
	[RG_OP_DESTROY_QP] = "destroy_qp",
	[RG_OP_POST_SEND] = "post_send",
	[RG_OP_POST_RECV] = "post_recv",
	[RG_OP_CREATE_SRQ] = "create_srq",
	[RG_OP_DESTROY_SRQ] = "destroy_srq",
	[RG_OP_MMAP] = "mmap",
	[RG_OP_GET_DEVICE_LIST] = "get_device_list",
	[RG_OP_OPEN_DEVICE] = "open_device",
};

static const char *const cm_op_names[RG_CM__MAX] = {
	[RG_CM_OTHER] = "other",
	[RG_CM_CREATE_ID] = "create_id",
	[RG_CM_DESTROY_ID] = "destroy_id",
	[RG_CM_BIND] = "bind",
	[RG_CM_BIND_IP] = "bind_ip",
	[RG_CM_RESOLVE_ADDR] = "resolve_addr",
	[RG_CM_RESOLVE_IP] = "resolve_ip",
	[RG_CM_RESOLVE_ROUTE] = "resolve_route",
	[RG_CM_CONNECT] = "connect",
	[RG_CM_LISTEN] = "listen",
	[RG_CM_ACCEPT] = "accept",
	[RG_CM_DISCONNECT] = "disconnect",
};

static const char *const sock_op_names[RG_SOCK_OP__MAX] = {
	[RG_SOCK_OP_OTHER] = "other",
	[RG_SOCK_OP_SOCKET] = "socket",
	[RG_SOCK_OP_BIND] = "bind",
	[RG_SOCK_OP_CONNECT] = "connect",
	[RG_SOCK_OP_ACCEPT] = "accept",
	[RG_SOCK_OP_SET_TRANSPORT] = "set_transport",
	[RG_SOCK_OP_GET_MR] = "get_mr",
	[RG_SOCK_OP_GET_MR_FOR_DEST] = "get_mr_for_dest",
	[RG_SOCK_OP_FREE_MR] = "free_mr",
	[RG_SOCK_OP_RDMA_MAP] = "rdma_map",
	[RG_SOCK_OP_RDMA_WRITE] = "rdma_write",
	[RG_SOCK_OP_RDMA_READ] = "rdma_read",
	[RG_SOCK_OP_RDMA_ATOMIC] = "rdma_atomic",
	[RG_SOCK_OP_RDMA_DEST] = "rdma_dest",
};

static const char *const sock_family_names[RG_SOCK_FAMILY__MAX] = {
	[RG_SOCK_FAMILY_NONE] = "none",
	[RG_SOCK_FAMILY_RDS] = "rds",
	[RG_SOCK_FAMILY_SMC] = "smc",
	[RG_SOCK_FAMILY_OTHER] = "other",
};

static const char *const rds_transport_names[RG_RDS_TRANS__MAX] = {
	[RG_RDS_TRANS_NONE] = "none",	[RG_RDS_TRANS_IB] = "ib",	[RG_RDS_TRANS_IWARP] = "iwarp",
	[RG_RDS_TRANS_TCP] = "tcp",	[RG_RDS_TRANS_UNSET] = "unset", [RG_RDS_TRANS_OTHER] = "other",
};

static const char *const mem_op_names[RG_MEM__MAX] = {
	[RG_MEM_OTHER] = "other",
	[RG_MEM_PROCESS_VM_READV] = "process_vm_readv",
	[RG_MEM_PROCESS_VM_WRITEV] = "process_vm_writev",
	[RG_MEM_PTRACE_ATTACH] = "ptrace_attach",
	[RG_MEM_PTRACE_SEIZE] = "ptrace_seize",
	[RG_MEM_PROC_MEM_OPEN] = "proc_mem_open",
	[RG_MEM_PTRACE_TRACEME] = "ptrace_traceme",
	[RG_MEM_PTRACE_AUTO] = "ptrace_auto_attach",
	[RG_MEM_PTRACE_EXEC] = "ptrace_exec",
};

static const char *const node_kind_names[RG_NODE__MAX] = {
	[RG_NODE_OTHER] = "other", [RG_NODE_UVERBS] = "uverbs", [RG_NODE_RDMA_CM] = "rdma_cm",
	[RG_NODE_UMAD] = "umad",   [RG_NODE_ISSM] = "issm",
};

static const char *const lib_kind_names[RG_LIB__MAX] = {
	[RG_LIB_OTHER] = "other",
	[RG_LIB_IBVERBS] = "libibverbs",
	[RG_LIB_RDMACM] = "librdmacm",
	[RG_LIB_PROVIDER] = "provider",
};

static const char *const transport_names[RG_TRANSPORT__MAX] = {
	[RG_TRANSPORT_UNKNOWN] = "unknown", [RG_TRANSPORT_IB] = "infiniband",
	[RG_TRANSPORT_ROCE] = "roce",	    [RG_TRANSPORT_IWARP] = "iwarp",
	[RG_TRANSPORT_USNIC] = "usnic",
};

/* enum ib_qp_type values (include/rdma/ib_verbs.h), as the uverbs ABI carries them. */
static const char *const qp_type_names[] = {
	[0] = "smi",	    [1] = "gsi",       [2] = "rc",	     [3] = "uc",
	[4] = "ud",	    [5] = "raw_ipv6",  [6] = "raw_ethertype", [8] = "raw_packet",
	[9] = "xrc_ini",    [10] = "xrc_tgt",
};

static const char *const qp_state_names[] = {
	[0] = "reset", [1] = "init", [2] = "rtr", [3] = "rts", [4] = "sqd", [5] = "sqe", [6] = "err",
};

static const char *const hw_change_names[RG_HW__MAX] = {
	[RG_HW_NONE] = "none",	       [RG_HW_ADD] = "add",	    [RG_HW_REMOVE] = "remove",
	[RG_HW_BIND] = "bind",	       [RG_HW_UNBIND] = "unbind",   [RG_HW_AUTHORIZE] = "authorize",
	[RG_HW_ADDED] = "added",       [RG_HW_REMOVED] = "removed", [RG_HW_CHANGED] = "changed",
	[RG_HW_GROUP_TYPE] = "group_type", [RG_HW_PROBE_FAILED] = "probe_failed",
};

static const char *const pci_fact_names[RG_PCI_NFACTS] = {
	"bus_master_no_driver", "fpga_vendor", "dma_card_id", "class_mismatch", "no_pm_cap",
	"caps_zero", "caps_malformed", "header_invalid", "multifunction_single",
	"link_above_upstream", "dsn_duplicate", "rdma_no_driver", "acs_missing", "external",
	"identity_domain", "driver_available", "irq_no_driver", "fpga_link", "dsn_zero",
	"imitated_no_driver", "config_unreadable", "driver_probe_failed", "not_breathing",
};
_Static_assert(RG_PCI_FACT_NOT_BREATHING == 1u << (RG_PCI_NFACTS - 1), "pci_fact_names");

static const char *lookup(const char *const *names, unsigned n, unsigned i)
{
	return i < n ? names[i] : NULL;
}

static int rlookup(const char *const *names, unsigned n, const char *s)
{
	unsigned i;

	if (!s)
		return -EINVAL;
	for (i = 0; i < n; i++)
		if (names[i] && strcmp(names[i], s) == 0)
			return (int)i;
	return -EINVAL;
}

#define NAME_TABLE(fn, table)                                                                      \
	const char *fn##_to_string(unsigned v)                                                     \
	{                                                                                          \
		return lookup(table, ARRAY_SIZE(table), v);                                        \
	}                                                                                          \
	int fn##_from_string(const char *s)                                                        \
	{                                                                                          \
		return rlookup(table, ARRAY_SIZE(table), s);                                       \
	}

NAME_TABLE(event_type, event_type_names)
NAME_TABLE(provider, provider_names)
NAME_TABLE(via, via_names)
NAME_TABLE(verbs_op, verbs_op_names)
NAME_TABLE(cm_op, cm_op_names)
NAME_TABLE(mem_op, mem_op_names)
NAME_TABLE(sock_op, sock_op_names)
NAME_TABLE(sock_family, sock_family_names)
NAME_TABLE(rds_transport, rds_transport_names)
NAME_TABLE(node_kind, node_kind_names)
NAME_TABLE(lib_kind, lib_kind_names)
NAME_TABLE(transport, transport_names)
NAME_TABLE(qp_type, qp_type_names)
NAME_TABLE(qp_state, qp_state_names)
NAME_TABLE(hw_change, hw_change_names)

const char *pci_fact_to_string(unsigned bit)
{
	return lookup(pci_fact_names, ARRAY_SIZE(pci_fact_names), bit);
}

const struct access_name access_names[] = {
	{RG_ACCESS_LOCAL_WRITE, "local_write"},
	{RG_ACCESS_REMOTE_WRITE, "remote_write"},
	{RG_ACCESS_REMOTE_READ, "remote_read"},
	{RG_ACCESS_REMOTE_ATOMIC, "remote_atomic"},
	{RG_ACCESS_MW_BIND, "mw_bind"},
	{RG_ACCESS_ZERO_BASED, "zero_based"},
	{RG_ACCESS_ON_DEMAND, "on_demand"},
	{RG_ACCESS_HUGETLB, "hugetlb"},
	{RG_ACCESS_RELAXED_ORDERING, "relaxed_ordering"},
};
const unsigned access_names_count = ARRAY_SIZE(access_names);

int access_from_string(const char *s, uint32_t *ret_bit)
{
	unsigned i;

	for (i = 0; i < access_names_count; i++)
		if (strcmp(access_names[i].name, s) == 0) {
			*ret_bit = access_names[i].bit;
			return 0;
		}
	return -EINVAL;
}

static const uint8_t v4mapped_prefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};

bool gid_to_ipv4(const uint8_t gid[16], char buf[static 16])
{
	char *o = buf;

	if (memcmp(gid, v4mapped_prefix, sizeof(v4mapped_prefix)) != 0)
		return false;
	/* Dotted decimal as inet_ntop() writes it (which formats through sprintf, slow for what
	 * it does, and rules and alerts ask for peer addresses often). */
	for (int i = 12; i < 16; i++) {
		unsigned v = gid[i];

		if (v >= 100)
			*o++ = (char)('0' + v / 100);
		if (v >= 10)
			*o++ = (char)('0' + v / 10 % 10);
		*o++ = (char)('0' + v % 10);
		*o++ = i < 15 ? '.' : 0;
	}
	return true;
}

void gid_to_string(const uint8_t gid[16], char buf[static 64])
{
	if (!inet_ntop(AF_INET6, gid, buf, 64))
		strcpy(buf, "?");
}

void addr_to_string(const struct rg_addr *a, char buf[static 64])
{
	char v4[16];

	buf[0] = 0;
	switch (a->family) {
	case AF_INET:
	case AF_INET6:
	case 27: /* AF_IB: a GID; IPv4-mapped (RoCE v2) reads as IPv4, as everywhere */
		if (gid_to_ipv4(a->addr, v4))
			strcpy(buf, v4);
		else
			gid_to_string(a->addr, buf);
		break;
	default:
		break;
	}
}

int addr_from_string(const char *s, struct rg_addr *a)
{
	struct in_addr v4;

	memset(a->addr, 0, sizeof(a->addr));
	if (inet_pton(AF_INET, s, &v4) == 1) {
		a->family = AF_INET;
		memcpy(a->addr, v4mapped_prefix, sizeof(v4mapped_prefix));
		memcpy(a->addr + 12, &v4, 4);
		return 0;
	}
	if (inet_pton(AF_INET6, s, a->addr) == 1) {
		a->family = AF_INET6;
		return 0;
	}
	return -EINVAL;
}

void event_set_str(char *dst, size_t size, const char *src, size_t srclen)
{
	const uint64_t ones = 0x0101010101010101ull, high = 0x8080808080808080ull;
	size_t i = 0, n;

	if (size == 0)
		return;
	n = MIN(srclen, size - 1);
	/* 8 at a time while no byte is a control character (a NUL is one) or DEL; the last word
	 * overlaps the one before it. What is left, from the first word that has one, a byte at a
	 * time. */
	while (n >= 8 && i < n) {
		size_t at = i + 8 <= n ? i : n - 8;
		uint64_t v, d;

		memcpy(&v, src + at, 8);
		d = v ^ (ones * 0x7f);
		if (((v - ones * 0x20) & ~v & high) | ((d - ones) & ~d & high))
			break;
		memcpy(dst + at, &v, 8);
		i = at + 8;
	}
	for (; i < n && src[i]; i++) {
		unsigned char c = (unsigned char)src[i];

		dst[i] = (c < 0x20 || c == 0x7f) ? '?' : (char)c;
	}
	dst[i] = 0;
}

bool event_peer(const struct rg_event *ev, struct rg_addr *peer, struct rg_addr *local)
{
	char v4[16];

	memset(local, 0, sizeof(*local));
	memset(peer, 0, sizeof(*peer));
	switch (ev->type) {
	case RG_EV_VERBS:
		if (!gid_to_ipv4(ev->u.verbs.dgid, v4))
			return false;
		peer->family = AF_INET;
		memcpy(peer->addr, ev->u.verbs.dgid, 16);
		return true;
	case RG_EV_RDMA_CM:
		*peer = ev->u.cm.dst;
		*local = ev->u.cm.src;
		break;
	case RG_EV_ROCE_TRAFFIC:
		*peer = ev->u.roce.peer;
		*local = ev->u.roce.local;
		break;
	case RG_EV_RDMA_SOCKET:
		*peer = ev->u.sock.peer;
		*local = ev->u.sock.local;
		break;
	default:
		return false;
	}
	return peer->family == AF_INET || peer->family == AF_INET6 || peer->family == 27;
}
/* The hardware events must not make every event bigger: the exec record is the union's size. */
_Static_assert(sizeof(struct rg_ev_pci) <= sizeof(struct rg_ev_exec), "rg_ev_pci size");
_Static_assert(sizeof(struct rg_ev_iommu) <= sizeof(struct rg_ev_exec), "rg_ev_iommu size");
_Static_assert(sizeof(struct rg_ev_tb) <= sizeof(struct rg_ev_exec), "rg_ev_tb size");
