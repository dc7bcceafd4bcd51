/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The kernel's own RDMA resource tables over RDMA netlink (NETLINK_RDMA, RDMA_NL_NLDEV), the view
 * `rdma resource show` prints: devices, QPs, MRs, PDs, user contexts and rdma_cm IDs, each with the
 * pid (or kernel owner) that holds it.
 *
 * Two halves: a pure parser over message bytes (nldev_parse_stream: no socket, no global state,
 * every length checked; what a fuzzer and the captured-fixture tests drive), and nldev_dump(),
 * which asks the kernel (one RDMA_NLDEV_CMD_GET dump for the device list, then one dump per device
 * and resource type, as iproute2 does) and feeds the replies to the parser.
 */
#pragma once

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/macro.h"
#include "event/event.h"

#define NLDEV_MAX_DEVICES  64
#define NLDEV_MAX_ENTRIES  16384	     /* per resource table */
#define NLDEV_MAX_BYTES	   (64u << 20)	     /* reply bytes accepted per dump */
#define NLDEV_TIMEOUT_MS   5000		     /* per receive */
#define NLDEV_MAX_ERRORS   8

/* Resource tables, in the order nldev_dump() asks for them. */
enum nldev_table {
	NLDEV_T_QP = 0,
	NLDEV_T_MR,
	NLDEV_T_PD,
	NLDEV_T_CTX,
	NLDEV_T_CM_ID,
	NLDEV_T__MAX,
};

/* Owner of a resource: a user process (pid) or a kernel ULP (kern_name). */
struct nldev_owner {
	bool has_pid;
	uint32_t pid;
	char kern_name[64]; /* "" for user resources */
};

struct nldev_dev {
	uint32_t index;
	char name[64];
	uint32_t node_type; /* RDMA_NODE_*: 1 CA, 4 RNIC ... */
	char protocol[16];  /* "ib", "roce", "iw", "opa", "usnic" (DEV_PROTOCOL, kernel >= 5.x) */
	char fw[64];
	uint64_t node_guid, sys_image_guid; /* host order (the kernel converts from be64) */
	uint32_t ports;
	bool has_ports;
};

struct nldev_qp {
	uint32_t dev_index;
	char device[64];
	uint32_t port; /* 0 when not bound to a port */
	uint32_t lqpn;
	bool has_rqpn;
	uint32_t rqpn;
	bool has_rq_psn;
	uint32_t rq_psn, sq_psn;
	uint8_t type;  /* IB_QPT_* */
	uint8_t state; /* IB_QPS_* */
	bool has_path_mig;
	uint8_t path_mig_state;
	bool has_pdn;
	uint32_t pdn;
	struct nldev_owner owner;
};

struct nldev_mr {
	uint32_t dev_index;
	char device[64];
	bool has_mrn;
	uint32_t mrn;
	bool has_keys; /* rkey/lkey are only given to CAP_NET_ADMIN */
	uint32_t rkey, lkey;
	bool has_iova;
	uint64_t iova;
	uint64_t length;
	bool has_pdn;
	uint32_t pdn;
	struct nldev_owner owner;
};

struct nldev_pd {
	uint32_t dev_index;
	char device[64];
	uint32_t pdn;
	bool has_ctxn;
	uint32_t ctxn;
	bool has_local_dma_lkey, has_unsafe_global_rkey;
	uint32_t local_dma_lkey, unsafe_global_rkey; /* a global rkey exposes all memory */
	uint64_t users;
	struct nldev_owner owner;
};

struct nldev_ctx {
	uint32_t dev_index;
	char device[64];
	uint32_t ctxn;
	struct nldev_owner owner;
};

struct nldev_sockaddr {
	uint16_t family; /* AF_INET, AF_INET6, AF_IB or 0 */
	uint16_t port;
	uint8_t addr[16]; /* IPv4 stored IPv4-mapped */
};

struct nldev_cm_id {
	uint32_t dev_index; /* 0 and device "" for an ID not yet bound to a device */
	char device[64];
	uint32_t port;
	bool has_lqpn;
	uint32_t lqpn;
	bool has_type;
	uint8_t type; /* IB_QPT_* */
	uint32_t ps;  /* RDMA_PS_TCP 0x106, RDMA_PS_UDP 0x111, RDMA_PS_IB 0x13f, RDMA_PS_IPOIB 0x2 */
	uint8_t state; /* enum rdma_cm_state */
	bool has_cm_idn;
	uint32_t cm_idn;
	struct nldev_sockaddr src, dst;
	struct nldev_owner owner;
};

struct nldev_tables {
	struct nldev_dev *devs;
	unsigned n_devs;
	struct nldev_qp *qps;
	struct nldev_mr *mrs;
	struct nldev_pd *pds;
	struct nldev_ctx *ctxs;
	struct nldev_cm_id *cm_ids;
	unsigned n[NLDEV_T__MAX];
	unsigned cap[NLDEV_T__MAX];
	unsigned dropped[NLDEV_T__MAX]; /* entries beyond NLDEV_MAX_ENTRIES, counted */
	unsigned devs_dropped;
	int last_op;			/* the NLDEV command of the last reply (0 none) */
	unsigned messages;		/* netlink messages parsed */
	unsigned done;			/* NLMSG_DONE seen */
	/* Per table: the kernel's answer when it refused the dump (-EOPNOTSUPP on old kernels). */
	int table_error[NLDEV_T__MAX];
	unsigned n_errors, errors_dropped;
	char *errors[NLDEV_MAX_ERRORS]; /* "what: why" */
};

struct nldev_tables *nldev_tables_new(void);
void nldev_tables_free(struct nldev_tables *t);
DEFINE_TRIVIAL_CLEANUP_FUNC(struct nldev_tables *, nldev_tables_free);

/*
 * Parses a stream of netlink messages (one or more datagrams as the kernel sent them, concatenated:
 * NLDEV GET / RES_*_GET replies, NLMSG_DONE, NLMSG_ERROR) and appends what they hold to t.
 * Returns the number of NLMSG_DONE messages seen (>= 0), or -EBADMSG when the stream is malformed
 * (what was parsed before stays in t and the reason is in t->errors), -ENOMEM.
 * A reply for an unknown command or attribute is skipped, never an error.
 */
int nldev_parse_stream(const void *buf, size_t len, struct nldev_tables *t);
/* One message (its nlmsg_len bytes). 1 for NLMSG_DONE, 0 otherwise, or as above. */
int nldev_parse_msg(const void *msg, size_t len, struct nldev_tables *t);

/*
 * Asks the kernel for every device and each resource table. Returns 0 with *ret set (per-table
 * refusals are in (*ret)->table_error), or -errno when RDMA netlink is not usable at all
 * (-EPROTONOSUPPORT: no RDMA support in this kernel; -EACCES; ...).
 */
int nldev_dump(struct nldev_tables **ret);

/* Name tables ("rc", "rts"; cm states "established"; port spaces "tcp"). NULL when unknown. */
const char *nldev_qp_type_name(unsigned t);
const char *nldev_cm_state_name(unsigned s);
const char *nldev_ps_name(unsigned ps);
const char *nldev_table_name(unsigned t); /* "qp", "mr", "pd", "ctx", "cm_id" */

/* {"devices": [...], "qps": [...], "mrs": [...], "pds": [...], "contexts": [...], "cm_ids": [...]} */
struct json_object *nldev_to_json(const struct nldev_tables *t);

/*
 * QP_PRESENT and MR_PRESENT events (provider netlink), one per entry. lookup (may be NULL) fills
 * the process part of an event from the owner's pid (comm, start time, ppid, uid); without it only
 * the pid is set. Kernel-owned resources get the kernel name as comm and u.qp.kernel/u.mr.kernel = 1.
 */
int nldev_foreach_event(const struct nldev_tables *t, uint64_t ts,
			void (*lookup)(uint32_t pid, struct rg_task *task, void *userdata),
			int (*cb)(const struct rg_event *ev, void *userdata), void *userdata);
