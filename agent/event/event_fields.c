/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The event field table: which named fields each event type has (event_fields(),
 * event_field_find()), where they live in struct rg_event, their kinds and the names of their
 * enum values and flags. The writer (event_writer.c), the reader (event_reader.c), the rule
 * engine and the generated field reference all go by it. Also the dotted-path helpers over
 * json-c objects, which name fields the same way.
 */
#include <stddef.h>
#include <string.h>

#include "event_json-internal.h"
#include "common/macro.h"

#define EV(m)	 offsetof(struct rg_event, m)
#define F(n, k, m)                                                                                 \
	{                                                                                          \
		.name = (n), .kind = (k), .offset = EV(m), .size = sizeof(((struct rg_event *)0)->m) \
	}
#define FE(n, m, fn)                                                                               \
	{                                                                                          \
		.name = (n), .kind = EFK_ENUM, .offset = EV(m),                                   \
		.size = sizeof(((struct rg_event *)0)->m), .to_str = fn##_to_string,               \
		.from_str = fn##_from_string                                                       \
	}

_Static_assert(RG_EVF_HISTORICAL == 1u << (EVENT_NFLAGS - 1), "event_flag_names[] follows RG_EVF_*");

const char *const event_flag_names[EVENT_NFLAGS] = {"denied", "killed", "truncated", "malformed",
						    "soft", "failed", "historical"};

static int has_qp_state(const struct rg_event *ev)
{
	return ev->u.verbs.op == RG_OP_MODIFY_QP && (ev->u.verbs.qp_attr_mask & 1);
}

static int has_ret(const struct rg_event *ev)
{
	return ev->flags & RG_EVF_FAILED;
}

const struct event_field event_common_fields[EVENT_NCOMMON] = {
	F("@timestamp", EFK_TIME, ts),
	FE("event.action", type, event_type),
	FE("event.provider", provider, provider),
	F("event.sequence", EFK_U64, seq),
	F("event.flags", EFK_FLAGS, flags),
	F("process.pid", EFK_U32, proc.pid),
	F("process.thread.id", EFK_U32, proc.tid),
	F("process.parent.pid", EFK_U32, proc.ppid),
	F("process.user.id", EFK_U32, proc.uid),
	F("process.name", EFK_STR, proc.comm),
	F("process.start_boot_ns", EFK_U64, proc.start_boot_ns),
};
_Static_assert(ARRAY_SIZE(event_common_fields) == EVENT_NCOMMON, "EVENT_NCOMMON");

static const struct event_field exec_fields[] = {
	F("process.executable", EFK_STR, u.exec.exe),
	{.name = "process.args", .kind = EFK_ARGS, .offset = EV(u.exec.args),
	 .size = RG_ARGS_LEN, .aux = EV(u.exec.args_len)},
	F("process.parent.start_boot_ns", EFK_U64, u.exec.parent_start_boot_ns),
	F("process.session.id", EFK_U32, u.exec.sid),
	F("process.exe_inode", EFK_U64, u.exec.exe_ino),
	F("process.exe_device", EFK_U64, u.exec.exe_dev),
	{.name = "process.exe_truncated", .kind = EFK_BOOLFLAG, .offset = EV(u.exec.exe_flags),
	 .aux = RG_EXE_TRUNC},
	{.name = "process.exe_foreign_root", .kind = EFK_BOOLFLAG, .offset = EV(u.exec.exe_flags),
	 .aux = RG_EXE_FOREIGN},
};

static const struct event_field fork_fields[] = {
	F("process.parent.start_boot_ns", EFK_U64, u.fork.parent_start_boot_ns),
};

static const struct event_field exit_fields[] = {
	F("process.exit_code", EFK_I32, u.exit.code),
};

static const struct event_field open_fields[] = {
	F("file.path", EFK_STR, u.open.path),
	FE("rdma.node", u.open.node_kind, node_kind),
	F("rdma.device", EFK_STR, u.open.device),
	F("rdma.fd", EFK_I32, u.open.fd),
	{.name = "rdma.ret", .kind = EFK_I32, .offset = EV(u.open.ret), .present = has_ret},
	F("rdma.minor", EFK_U32, u.open.minor),
};

static const struct event_field verbs_fields[] = {
	FE("rdma.op", u.verbs.op, verbs_op),
	FE("rdma.via", u.verbs.via, via),
	F("rdma.device", EFK_STR, u.verbs.device),
	F("rdma.fd", EFK_I32, u.verbs.fd),
	{.name = "rdma.ret", .kind = EFK_I32, .offset = EV(u.verbs.ret), .present = has_ret},
	F("rdma.object_id", EFK_U32, u.verbs.object_id),
	F("rdma.method_id", EFK_U32, u.verbs.method_id),
	F("rdma.write_cmd", EFK_U32, u.verbs.write_cmd),
	F("rdma.driver_id", EFK_U32, u.verbs.driver_id),
	F("rdma.handle", EFK_U32, u.verbs.handle),
	F("rdma.mr.addr", EFK_U64, u.verbs.mr_addr),
	F("rdma.mr.length", EFK_U64, u.verbs.mr_length),
	F("rdma.mr.iova", EFK_U64, u.verbs.mr_iova),
	F("rdma.mr.access", EFK_ACCESS, u.verbs.mr_access),
	F("rdma.mr.dmabuf_fd", EFK_I32, u.verbs.dmabuf_fd),
	FE("rdma.qp.type", u.verbs.qp_type, qp_type),
	F("rdma.qp.num", EFK_U32, u.verbs.qp_num),
	{.name = "rdma.qp.state", .kind = EFK_ENUM, .offset = EV(u.verbs.qp_state), .size = 4,
	 .to_str = qp_state_to_string, .from_str = qp_state_from_string, .present = has_qp_state},
	F("rdma.qp.attr_mask", EFK_U32, u.verbs.qp_attr_mask),
	F("rdma.qp.dest_num", EFK_U32, u.verbs.dest_qp_num),
	F("rdma.wr_count", EFK_U32, u.verbs.wr_count),
	F("rdma.calls", EFK_U32, u.verbs.calls),
	F("rdma.peer.gid", EFK_GID, u.verbs.dgid),
	F("rdma.peer.address", EFK_GID_V4, u.verbs.dgid),
	F("destination.ip", EFK_GID_V4, u.verbs.dgid),
	F("rdma.mmap.length", EFK_U64, u.verbs.mmap_len),
};

static const struct event_field cm_fields[] = {
	FE("rdma.op", u.cm.op, cm_op),
	F("rdma.fd", EFK_I32, u.cm.fd),
	{.name = "rdma.ret", .kind = EFK_I32, .offset = EV(u.cm.ret), .present = has_ret},
	F("rdma.cm.cmd", EFK_U32, u.cm.cmd),
	F("rdma.cm.id", EFK_U32, u.cm.id),
	F("rdma.cm.port_space", EFK_HEX32, u.cm.port_space),
	F("rdma.cm.backlog", EFK_U32, u.cm.backlog),
	F("rdma.local.address", EFK_ADDR, u.cm.src),
	F("rdma.local.port", EFK_PORT, u.cm.src),
	F("rdma.peer.address", EFK_ADDR, u.cm.dst),
	F("rdma.peer.port", EFK_PORT, u.cm.dst),
	F("source.ip", EFK_ADDR, u.cm.src),
	F("source.port", EFK_PORT, u.cm.src),
	F("destination.ip", EFK_ADDR, u.cm.dst),
	F("destination.port", EFK_PORT, u.cm.dst),
};

static int sock_has_transport(const struct rg_event *ev)
{
	return ev->u.sock.op == RG_SOCK_OP_SET_TRANSPORT;
}

static const struct event_field sock_fields[] = {
	FE("rdma.op", u.sock.op, sock_op),
	FE("rdma.socket.family", u.sock.family, sock_family),
	F("rdma.fd", EFK_I32, u.sock.fd),
	{.name = "rdma.ret", .kind = EFK_I32, .offset = EV(u.sock.ret), .present = has_ret},
	F("rdma.socket.type", EFK_U32, u.sock.type),
	F("rdma.socket.protocol", EFK_U32, u.sock.protocol),
	F("rdma.socket.option", EFK_U32, u.sock.option),
	{.name = "rdma.socket.transport", .kind = EFK_ENUM, .offset = EV(u.sock.transport),
	 .size = 4, .to_str = rds_transport_to_string, .from_str = rds_transport_from_string,
	 .present = sock_has_transport},
	F("rdma.mr.addr", EFK_U64, u.sock.mr_addr),
	F("rdma.mr.length", EFK_U64, u.sock.mr_length),
	F("rdma.mr.access", EFK_ACCESS, u.sock.mr_access),
	F("rdma.mr.cookie", EFK_U64, u.sock.cookie),
	F("rdma.rds.flags", EFK_HEX32, u.sock.rdma_flags),
	F("rdma.rds.cmsgs", EFK_U32, u.sock.cmsgs),
	F("rdma.remote.addr", EFK_U64, u.sock.remote_addr),
	F("rdma.remote.length", EFK_U64, u.sock.remote_length),
	F("rdma.local.address", EFK_ADDR, u.sock.local),
	F("rdma.local.port", EFK_PORT, u.sock.local),
	F("rdma.peer.address", EFK_ADDR, u.sock.peer),
	F("rdma.peer.port", EFK_PORT, u.sock.peer),
	F("source.ip", EFK_ADDR, u.sock.local),
	F("source.port", EFK_PORT, u.sock.local),
	F("destination.ip", EFK_ADDR, u.sock.peer),
	F("destination.port", EFK_PORT, u.sock.peer),
};

static const struct event_field lib_fields[] = {
	F("dll.path", EFK_STR, u.lib.path),
	FE("rdma.library", u.lib.lib_kind, lib_kind),
	F("dll.inode", EFK_U64, u.lib.ino),
	F("dll.device", EFK_U64, u.lib.dev),
};

static const struct event_field mem_fields[] = {
	FE("memory.op", u.mem.op, mem_op),
	{.name = "memory.ret", .kind = EFK_I32, .offset = EV(u.mem.ret), .present = has_ret},
	F("memory.bytes", EFK_U64, u.mem.bytes),
	F("target.process.pid", EFK_U32, u.mem.target_pid),
	F("target.process.start_boot_ns", EFK_U64, u.mem.target_start_boot_ns),
	F("target.process.name", EFK_STR, u.mem.target_comm),
};

static const struct event_field roce_fields[] = {
	F("rdma.peer.address", EFK_ADDR, u.roce.peer),
	F("rdma.local.address", EFK_ADDR, u.roce.local),
	F("destination.ip", EFK_ADDR, u.roce.peer),
	F("source.ip", EFK_ADDR, u.roce.local),
	F("rdma.traffic.packets_in", EFK_U64, u.roce.packets_in),
	F("rdma.traffic.bytes_in", EFK_U64, u.roce.bytes_in),
	F("rdma.traffic.packets_out", EFK_U64, u.roce.packets_out),
	F("rdma.traffic.bytes_out", EFK_U64, u.roce.bytes_out),
	F("rdma.traffic.packets_dropped", EFK_U64, u.roce.packets_dropped),
	F("network.iana_number", EFK_U32, u.roce.protocol),
	F("rdma.netdev", EFK_STR, u.roce.ifname),
};

static const struct event_field device_fields[] = {
	F("rdma.device", EFK_STR, u.dev.name),
	FE("rdma.transport", u.dev.transport, transport),
	F("rdma.node_type", EFK_U32, u.dev.node_type),
	F("rdma.driver", EFK_STR, u.dev.driver),
	F("rdma.netdev", EFK_STR, u.dev.parent),
	{.name = "rdma.soft", .kind = EFK_BOOLFLAG, .offset = EV(flags), .aux = RG_EVF_SOFT},
	F("rdma.ports", EFK_U32, u.dev.ports),
	F("rdma.ports_active", EFK_U32, u.dev.ports_active),
	F("pci.vendor_id", EFK_HEX32, u.dev.pci_vendor),
	F("pci.device_id", EFK_HEX32, u.dev.pci_device),
	F("pci.class", EFK_HEX32, u.dev.pci_class),
	F("pci.address", EFK_STR, u.dev.pci_addr),
};

static int has_iommu_group(const struct rg_event *ev)
{
	return ev->u.pci.has_iommu_group != 0;
}

static int has_posture_group(const struct rg_event *ev)
{
	return ev->u.iommu.has_group != 0;
}

static int has_tb_domain(const struct rg_event *ev)
{
	return ev->u.iommu.has_tb != 0;
}

#define FACT(n, bit)                                                                               \
	{.name = "pci.fact." n, .kind = EFK_BOOLFLAG, .offset = EV(u.pci.facts), .aux = (bit)}

/* One PCI function's fingerprint and facts (agent/hw/): every hardware event about a function. */
#define PCI_FIELDS                                                                                 \
	F("pci.address", EFK_STR, u.pci.addr), F("pci.vendor_id", EFK_HEX32, u.pci.vendor),      \
	F("pci.device_id", EFK_HEX32, u.pci.device), F("pci.class", EFK_HEX32, u.pci.class_code), \
	F("pci.driver", EFK_STR, u.pci.driver), F("pci.rdma_class", EFK_U32, u.pci.rdma_class),  \
	F("pci.known_vendor", EFK_U32, u.pci.known_vendor),                                     \
	F("pci.has_driver", EFK_U32, u.pci.has_driver),                                         \
	F("pci.subsystem_vendor_id", EFK_HEX32, u.pci.subsys_vendor),                           \
	F("pci.subsystem_device_id", EFK_HEX32, u.pci.subsys_device),                           \
	F("pci.revision", EFK_U32, u.pci.revision), F("pci.header_type", EFK_HEX32, u.pci.header_type), \
	F("pci.bus_master", EFK_U32, u.pci.bus_master), F("pci.rdma", EFK_U32, u.pci.rdma),      \
	{.name = "pci.iommu.group", .kind = EFK_U32, .offset = EV(u.pci.iommu_group), .size = 4, \
	 .aux = EV(u.pci.has_iommu_group), .present = has_iommu_group},                            \
	F("pci.iommu.type", EFK_STR, u.pci.iommu_type),                                         \
	F("pci.link.speed", EFK_U32, u.pci.link_speed), F("pci.link.width", EFK_U32, u.pci.link_width), \
	F("pci.upstream.address", EFK_STR, u.pci.upstream),                                     \
	F("pci.upstream.link.speed", EFK_U32, u.pci.upstream_speed),                            \
	F("pci.upstream.link.width", EFK_U32, u.pci.upstream_width),                            \
	F("pci.vendor_name", EFK_STR, u.pci.vendor_name),                                       \
	F("pci.device_name", EFK_STR, u.pci.device_name), F("pci.dsn", EFK_STR, u.pci.dsn),      \
	{.name = "pci.driver_probe_failed", .kind = EFK_BOOLFLAG, .offset = EV(u.pci.probe_failed), \
	 .aux = 1},                                                                               \
	F("pci.probe_failed_driver", EFK_STR, u.pci.probe_driver),                               \
	FACT("bus_master_no_driver", RG_PCI_FACT_BUS_MASTER_NO_DRIVER),                          \
	FACT("fpga_vendor", RG_PCI_FACT_FPGA_VENDOR), FACT("dma_card_id", RG_PCI_FACT_DMA_CARD_ID), \
	FACT("class_mismatch", RG_PCI_FACT_CLASS_MISMATCH),                                      \
	FACT("no_pm_cap", RG_PCI_FACT_NO_PM_CAP), FACT("caps_zero", RG_PCI_FACT_CAPS_ZERO),      \
	FACT("caps_malformed", RG_PCI_FACT_CAPS_MALFORMED),                                      \
	FACT("header_invalid", RG_PCI_FACT_HEADER_INVALID),                                      \
	FACT("multifunction_single", RG_PCI_FACT_MULTIFUNCTION_SINGLE),                          \
	FACT("link_above_upstream", RG_PCI_FACT_LINK_ABOVE_UPSTREAM),                            \
	FACT("dsn_duplicate", RG_PCI_FACT_DSN_DUPLICATE),                                        \
	FACT("rdma_no_driver", RG_PCI_FACT_RDMA_NO_DRIVER),                                      \
	FACT("acs_missing", RG_PCI_FACT_ACS_MISSING), FACT("external", RG_PCI_FACT_EXTERNAL),    \
	FACT("identity_domain", RG_PCI_FACT_IDENTITY_DOMAIN),                                    \
	FACT("driver_available", RG_PCI_FACT_DRIVER_AVAILABLE),                                  \
	FACT("irq_no_driver", RG_PCI_FACT_IRQ_NO_DRIVER), FACT("fpga_link", RG_PCI_FACT_FPGA_LINK), \
	FACT("dsn_zero", RG_PCI_FACT_DSN_ZERO),                                                  \
	FACT("imitated_no_driver", RG_PCI_FACT_IMITATED_NO_DRIVER),                              \
	FACT("config_unreadable", RG_PCI_FACT_CONFIG_UNREADABLE),                                \
	FACT("driver_probe_failed", RG_PCI_FACT_DRIVER_PROBE_FAILED),                            \
	FACT("not_breathing", RG_PCI_FACT_NOT_BREATHING),                                        \
	F("pci.driver_state", EFK_STR, u.pci.driver_state),                                     \
	F("pci.driver_available", EFK_STR, u.pci.driver_available),                             \
	F("pci.dsn_original", EFK_STR, u.pci.dsn_original),                                     \
	F("pci.in_baseline", EFK_U32, u.pci.in_baseline)

static const struct event_field pci_fields[] = {
	PCI_FIELDS,
};

static const struct event_field pci_change_fields[] = {
	PCI_FIELDS,
	FE("pci.change", u.pci.change, hw_change),
	F("pci.enforcement", EFK_STR, u.pci.text), /* what hardware enforcement did (denied) */
};

static const struct event_field dma_fault_fields[] = {
	PCI_FIELDS,
	F("dma.fault.count", EFK_U32, u.pci.count),
	F("dma.fault.address", EFK_U64, u.pci.fault_addr),
	F("dma.fault.reason", EFK_STR, u.pci.text),
};

static const struct event_field baseline_fields[] = {
	PCI_FIELDS,
	FE("baseline.change", u.pci.change, hw_change),
	F("baseline.diff", EFK_STR, u.pci.text),
};

static const struct event_field iommu_fields[] = {
	F("iommu.present", EFK_U32, u.iommu.present),
	F("iommu.units", EFK_U32, u.iommu.units),
	F("iommu.groups", EFK_U32, u.iommu.groups),
	F("iommu.identity_groups", EFK_U32, u.iommu.identity_groups),
	F("iommu.weakened", EFK_U32, u.iommu.weakened),
	F("iommu.cmdline", EFK_STR, u.iommu.cmdline),
	FE("iommu.change", u.iommu.change, hw_change),
	{.name = "iommu.group", .kind = EFK_U32, .offset = EV(u.iommu.group), .size = 4,
	 .aux = EV(u.iommu.has_group), .present = has_posture_group},
	F("iommu.type", EFK_STR, u.iommu.group_type),
	F("iommu.previous_type", EFK_STR, u.iommu.previous_type),
	F("iommu.summary", EFK_STR, u.iommu.summary),
	F("thunderbolt.present", EFK_U32, u.iommu.has_tb),
	{.name = "thunderbolt.iommu_dma_protection", .kind = EFK_U32,
	 .offset = EV(u.iommu.tb_dma_protection), .size = 4, .aux = EV(u.iommu.has_tb),
	 .present = has_tb_domain},
	F("thunderbolt.security", EFK_STR, u.iommu.tb_security),
};

static const struct event_field tb_fields[] = {
	F("thunderbolt.device", EFK_STR, u.tb.name),
	F("thunderbolt.vendor_id", EFK_HEX32, u.tb.vendor),
	F("thunderbolt.device_id", EFK_HEX32, u.tb.device),
	F("thunderbolt.authorized", EFK_U32, u.tb.authorized),
	FE("thunderbolt.change", u.tb.change, hw_change),
	F("thunderbolt.security", EFK_STR, u.tb.security),
	F("thunderbolt.vendor_name", EFK_STR, u.tb.vendor_name),
	F("thunderbolt.device_name", EFK_STR, u.tb.device_name),
};

static const struct event_field module_fields[] = {
	F("module.name", EFK_STR, u.mod.name),
	F("module.refcount", EFK_U32, u.mod.refcount),
	{.name = "rdma.soft", .kind = EFK_BOOLFLAG, .offset = EV(flags), .aux = RG_EVF_SOFT},
};

static const struct event_field qp_fields[] = {
	F("rdma.device", EFK_STR, u.qp.device),
	F("rdma.qp.num", EFK_U32, u.qp.lqpn),
	F("rdma.qp.dest_num", EFK_U32, u.qp.rqpn),
	FE("rdma.qp.type", u.qp.type, qp_type),
	FE("rdma.qp.state", u.qp.state, qp_state),
	F("rdma.port", EFK_U32, u.qp.port),
	F("rdma.pd", EFK_U32, u.qp.pd),
	F("rdma.kernel", EFK_U32, u.qp.kernel),
};

static const struct event_field mr_fields[] = {
	F("rdma.device", EFK_STR, u.mr.device),
	F("rdma.mr.length", EFK_U64, u.mr.length),
	F("rdma.mr.iova", EFK_U64, u.mr.iova),
	F("rdma.mr.rkey", EFK_U32, u.mr.rkey),
	F("rdma.mr.lkey", EFK_U32, u.mr.lkey),
	F("rdma.mr.id", EFK_U32, u.mr.mrn),
	F("rdma.pd", EFK_U32, u.mr.pd),
	F("rdma.kernel", EFK_U32, u.mr.kernel),
};

static const struct event_field agent_fields[] = {
	F("agent.count", EFK_U64, u.agent.count),
	F("agent.count2", EFK_U64, u.agent.count2),
	F("agent.error", EFK_I32, u.agent.error),
	F("agent.ok", EFK_U32, u.agent.ok),
	F("agent.what", EFK_STR, u.agent.what),
	F("agent.text", EFK_STR, u.agent.text),
};

struct field_list {
	const struct event_field *f;
	size_t n;
};

/* The most fields one event type has (besides the common ones): the event reader's table. */
#define MAX_TYPE_FIELDS EVENT_MAX_TYPE_FIELDS
#define FL(a) {a, ARRAY_SIZE(a) + 0 * sizeof(char[ARRAY_SIZE(a) <= MAX_TYPE_FIELDS ? 1 : -1])}
static const struct field_list type_fields[RG_EV__MAX] = {
	[RG_EV_PROCESS_PRESENT] = FL(exec_fields),
	[RG_EV_EXEC] = FL(exec_fields),
	[RG_EV_FORK] = FL(fork_fields),
	[RG_EV_EXIT] = FL(exit_fields),
	[RG_EV_DEVICE_OPEN] = FL(open_fields),
	[RG_EV_VERBS] = FL(verbs_fields),
	[RG_EV_RDMA_CM] = FL(cm_fields),
	[RG_EV_LIBRARY_LOAD] = FL(lib_fields),
	[RG_EV_MEMORY_ACCESS] = FL(mem_fields),
	[RG_EV_ROCE_TRAFFIC] = FL(roce_fields),
	[RG_EV_DEVICE_PRESENT] = FL(device_fields),
	[RG_EV_DEVICE_ADD] = FL(device_fields),
	[RG_EV_DEVICE_REMOVE] = FL(device_fields),
	[RG_EV_PCI_FUNCTION] = FL(pci_fields),
	[RG_EV_MODULE_PRESENT] = FL(module_fields),
	[RG_EV_MODULE_LOAD] = FL(module_fields),
	[RG_EV_QP_PRESENT] = FL(qp_fields),
	[RG_EV_MR_PRESENT] = FL(mr_fields),
	[RG_EV_AGENT_START] = FL(agent_fields),
	[RG_EV_AGENT_STOP] = FL(agent_fields),
	[RG_EV_AGENT_HEARTBEAT] = FL(agent_fields),
	[RG_EV_AGENT_LOST] = FL(agent_fields),
	[RG_EV_AGENT_SENSOR] = FL(agent_fields),
	[RG_EV_AGENT_POLICY] = FL(agent_fields),
	[RG_EV_AGENT_TAMPER] = FL(agent_fields),
	[RG_EV_PCI_CHANGE] = FL(pci_change_fields),
	[RG_EV_DMA_FAULT] = FL(dma_fault_fields),
	[RG_EV_IOMMU_POSTURE] = FL(iommu_fields),
	[RG_EV_THUNDERBOLT] = FL(tb_fields),
	[RG_EV_HW_BASELINE] = FL(baseline_fields),
	[RG_EV_RDMA_SOCKET] = FL(sock_fields),
};

size_t event_fields_common(const struct event_field **ret)
{
	*ret = event_common_fields;
	return EVENT_NCOMMON;
}

size_t event_fields(unsigned type, const struct event_field **ret)
{
	if (type >= RG_EV__MAX) {
		*ret = NULL;
		return 0;
	}
	*ret = type_fields[type].f;
	return type_fields[type].n;
}

const struct event_field *event_field_find(unsigned type, const char *name)
{
	const struct event_field *f;
	size_t i, n;

	for (i = 0; i < EVENT_NCOMMON; i++)
		if (strcmp(event_common_fields[i].name, name) == 0)
			return &event_common_fields[i];
	n = event_fields(type, &f);
	for (i = 0; i < n; i++)
		if (strcmp(f[i].name, name) == 0)
			return &f[i];
	return NULL;
}

struct json_object *json_get_path(struct json_object *obj, const char *path)
{
	char key[128];
	const char *dot;

	/* A literal key with dots (e.g. "@timestamp" has none, but be lenient) wins. */
	while (obj) {
		struct json_object *v;

		if (!json_object_is_type(obj, json_type_object))
			return NULL;
		dot = strchr(path, '.');
		if (!dot)
			return json_object_object_get_ex(obj, path, &v) ? v : NULL;
		if ((size_t)(dot - path) >= sizeof(key))
			return NULL;
		memcpy(key, path, (size_t)(dot - path));
		key[dot - path] = 0;
		if (!json_object_object_get_ex(obj, key, &v))
			return NULL;
		obj = v;
		path = dot + 1;
	}
	return NULL;
}

int json_set_path(struct json_object *obj, const char *path, struct json_object *val)
{
	char key[128];
	const char *dot;

	for (;;) {
		struct json_object *next;

		dot = strchr(path, '.');
		if (!dot) {
			/* The path outlives obj (see the header): its last key is not copied. */
			if (json_object_object_add_ex(obj, path, val, JSON_C_OBJECT_ADD_CONSTANT_KEY) <
			    0) {
				json_object_put(val);
				return -ENOMEM;
			}
			return 0;
		}
		if ((size_t)(dot - path) >= sizeof(key)) {
			json_object_put(val);
			return -ENAMETOOLONG;
		}
		memcpy(key, path, (size_t)(dot - path));
		key[dot - path] = 0;
		if (!json_object_object_get_ex(obj, key, &next) ||
		    !json_object_is_type(next, json_type_object)) {
			next = json_object_new_object();
			if (!next || json_object_object_add(obj, key, next) < 0) {
				json_object_put(next);
				json_object_put(val);
				return -ENOMEM;
			}
		}
		obj = next;
		path = dot + 1;
	}
}
