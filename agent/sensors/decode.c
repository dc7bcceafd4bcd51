/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Pure decoders of the verbs (ioctl and write) and rdma_cm ABIs. Field positions come from the
 * installed uapi headers (offsetof), and the numbers rdma-abi.md documents and the BPF side uses
 * are pinned against those headers below, so that a drift fails the build.
 */
#include <netinet/in.h> /* before the uapi headers: linux/libc-compat.h then skips in6 */
#include <string.h>
#include <sys/socket.h>

#include <rdma/ib_user_ioctl_cmds.h>
#include <rdma/ib_user_ioctl_verbs.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/rdma_user_cm.h>
#include <rdma/rdma_user_ioctl_cmds.h>

#include "bpf/events.h"
#include "decode.h"
#include "common/macro.h"

#ifndef AF_IB
#define AF_IB 27
#endif

/* ---- ABI numbers, checked against the headers (rdma-abi.md §1-3, bpf/events.h) ---- */
_Static_assert(RDMA_VERBS_IOCTL == RG_ABI_RDMA_VERBS_IOCTL, "RDMA_VERBS_IOCTL");
_Static_assert(RDMA_VERBS_IOCTL == 0xc0181b01u, "RDMA_VERBS_IOCTL per rdma-abi.md");
_Static_assert(sizeof(struct ib_uverbs_ioctl_hdr) == RG_ABI_IOCTL_HDR_SIZE, "ioctl hdr");
_Static_assert(sizeof(struct ib_uverbs_attr) == RG_ABI_IOCTL_ATTR_SIZE, "ioctl attr");
_Static_assert(offsetof(struct ib_uverbs_ioctl_hdr, length) == 0, "hdr.length");
_Static_assert(offsetof(struct ib_uverbs_ioctl_hdr, object_id) == 2, "hdr.object_id");
_Static_assert(offsetof(struct ib_uverbs_ioctl_hdr, method_id) == 4, "hdr.method_id");
_Static_assert(offsetof(struct ib_uverbs_ioctl_hdr, num_attrs) == 6, "hdr.num_attrs");
_Static_assert(offsetof(struct ib_uverbs_ioctl_hdr, driver_id) == 16, "hdr.driver_id");
_Static_assert(offsetof(struct ib_uverbs_attr, attr_id) == 0, "attr.attr_id");
_Static_assert(offsetof(struct ib_uverbs_attr, len) == 2, "attr.len");
_Static_assert(offsetof(struct ib_uverbs_attr, data) == 8, "attr.data");
_Static_assert(UVERBS_ATTR_UHW_IN == 0x1000 && UVERBS_ATTR_UHW_OUT == 0x1001, "UHW");
_Static_assert(UVERBS_OBJECT_DEVICE == 0 && UVERBS_OBJECT_PD == 1 && UVERBS_OBJECT_CQ == 3 &&
		   UVERBS_OBJECT_QP == 4 && UVERBS_OBJECT_SRQ == 5 && UVERBS_OBJECT_AH == 6 &&
		   UVERBS_OBJECT_MR == 7 && UVERBS_OBJECT_MW == 8,
	       "uverbs objects");
_Static_assert(UVERBS_METHOD_INVOKE_WRITE == 0 && UVERBS_METHOD_QUERY_PORT == 2 &&
		   UVERBS_METHOD_GET_CONTEXT == 3,
	       "device methods");
_Static_assert(UVERBS_ATTR_CORE_IN == 0 && UVERBS_ATTR_CORE_OUT == 1 && UVERBS_ATTR_WRITE_CMD == 2,
	       "invoke_write attrs");
_Static_assert(UVERBS_OBJECT_DEVICE == RG_ABI_OBJECT_DEVICE &&
		   UVERBS_METHOD_INVOKE_WRITE == RG_ABI_METHOD_INVOKE_WRITE &&
		   UVERBS_ATTR_CORE_IN == RG_ABI_ATTR_CORE_IN &&
		   UVERBS_ATTR_CORE_OUT == RG_ABI_ATTR_CORE_OUT &&
		   UVERBS_OBJECT_QP == RG_ABI_OBJECT_QP &&
		   UVERBS_METHOD_QP_CREATE == RG_ABI_METHOD_QP_CREATE &&
		   UVERBS_ATTR_CREATE_QP_RESP_QP_NUM == RG_ABI_ATTR_QP_RESP_QP_NUM,
	       "the attributes BPF copies");
_Static_assert(UVERBS_METHOD_QP_CREATE == 0 && UVERBS_METHOD_QP_DESTROY == 1, "qp methods");
_Static_assert(UVERBS_ATTR_CREATE_QP_HANDLE == 0 && UVERBS_ATTR_CREATE_QP_TYPE == 9 &&
		   UVERBS_ATTR_CREATE_QP_RESP_QP_NUM == 14,
	       "create_qp attrs");
_Static_assert(UVERBS_METHOD_CQ_CREATE == 0 && UVERBS_METHOD_CQ_DESTROY == 1, "cq methods");
_Static_assert(UVERBS_METHOD_SRQ_CREATE == 0 && UVERBS_METHOD_SRQ_DESTROY == 1, "srq methods");
_Static_assert(UVERBS_METHOD_DM_MR_REG == 0 && UVERBS_METHOD_MR_DESTROY == 1 &&
		   UVERBS_METHOD_REG_DMABUF_MR == 4,
	       "mr methods");
_Static_assert(UVERBS_ATTR_REG_DM_MR_HANDLE == 0 && UVERBS_ATTR_REG_DM_MR_LENGTH == 2 &&
		   UVERBS_ATTR_REG_DM_MR_ACCESS_FLAGS == 4,
	       "dm mr attrs");
_Static_assert(UVERBS_ATTR_REG_DMABUF_MR_HANDLE == 0 && UVERBS_ATTR_REG_DMABUF_MR_OFFSET == 2 &&
		   UVERBS_ATTR_REG_DMABUF_MR_LENGTH == 3 && UVERBS_ATTR_REG_DMABUF_MR_IOVA == 4 &&
		   UVERBS_ATTR_REG_DMABUF_MR_FD == 5 && UVERBS_ATTR_REG_DMABUF_MR_ACCESS_FLAGS == 6,
	       "dmabuf mr attrs");
_Static_assert(UVERBS_METHOD_PD_DESTROY == 0 && UVERBS_METHOD_MW_DESTROY == 0 &&
		   UVERBS_METHOD_AH_DESTROY == 0,
	       "destroy methods");

/*
 * MR/REG_MR (method 5) is newer than these headers (Linux 6.17). Its attribute ids, from the
 * kernel's ib_user_ioctl_cmds.h: HANDLE 0, PD_HANDLE 1, DMA_HANDLE 2, IOVA 3, ADDR 4, LENGTH 5,
 * ACCESS_FLAGS 6, FD 7, FD_OFFSET 8, RESP_LKEY 9, RESP_RKEY 10.
 */
#define RG_METHOD_REG_MR      5
#define RG_ATTR_REG_MR_HANDLE 0
#define RG_ATTR_REG_MR_IOVA   3
#define RG_ATTR_REG_MR_ADDR   4
#define RG_ATTR_REG_MR_LENGTH 5
#define RG_ATTR_REG_MR_ACCESS 6
#define RG_ATTR_REG_MR_FD     7
_Static_assert(UVERBS_METHOD_REG_DMABUF_MR + 1 == RG_METHOD_REG_MR, "REG_MR follows");

_Static_assert(IB_USER_VERBS_CMD_FLAG_EXTENDED == RG_ABI_CMD_FLAG_EXTENDED, "extended flag");
_Static_assert(IB_USER_VERBS_CMD_COMMAND_MASK == RG_ABI_CMD_MASK, "command mask");
_Static_assert(IB_USER_VERBS_CMD_POST_SEND == RG_ABI_CMD_POST_SEND &&
		   IB_USER_VERBS_CMD_POST_RECV == RG_ABI_CMD_POST_RECV &&
		   IB_USER_VERBS_CMD_POST_SRQ_RECV == RG_ABI_CMD_POST_SRQ_RECV,
	       "post commands");
_Static_assert(IB_USER_VERBS_CMD_GET_CONTEXT == 0 && IB_USER_VERBS_CMD_ALLOC_PD == 3 &&
		   IB_USER_VERBS_CMD_REG_MR == 9 && IB_USER_VERBS_CMD_REREG_MR == 11 &&
		   IB_USER_VERBS_CMD_DEREG_MR == 13 && IB_USER_VERBS_CMD_CREATE_CQ == 18 &&
		   IB_USER_VERBS_CMD_CREATE_QP == 24 && IB_USER_VERBS_CMD_MODIFY_QP == 26 &&
		   IB_USER_VERBS_CMD_DESTROY_QP == 27 && IB_USER_VERBS_CMD_OPEN_QP == 40,
	       "legacy commands per rdma-abi.md");
_Static_assert(sizeof(struct ib_uverbs_cmd_hdr) == 8, "cmd hdr");
_Static_assert(sizeof(struct ib_uverbs_ex_cmd_hdr) == 16, "ex cmd hdr");
_Static_assert(offsetof(struct ib_uverbs_cmd_hdr, out_words) == 6, "out_words (BPF reads it)");
_Static_assert(offsetof(struct ib_uverbs_ex_cmd_hdr, response) == 0, "ex response (BPF)");
_Static_assert(offsetof(struct ib_uverbs_reg_mr, response) == 0, "response first (BPF)");
_Static_assert(sizeof(struct ib_uverbs_reg_mr) == 40 &&
		   offsetof(struct ib_uverbs_reg_mr, start) == 8 &&
		   offsetof(struct ib_uverbs_reg_mr, length) == 16 &&
		   offsetof(struct ib_uverbs_reg_mr, hca_va) == 24 &&
		   offsetof(struct ib_uverbs_reg_mr, pd_handle) == 32 &&
		   offsetof(struct ib_uverbs_reg_mr, access_flags) == 36,
	       "reg_mr per rdma-abi.md");
_Static_assert(sizeof(struct ib_uverbs_modify_qp) == 112 &&
		   offsetof(struct ib_uverbs_modify_qp, qp_handle) == 64 &&
		   offsetof(struct ib_uverbs_modify_qp, attr_mask) == 68 &&
		   offsetof(struct ib_uverbs_modify_qp, dest_qp_num) == 84 &&
		   offsetof(struct ib_uverbs_modify_qp, qp_access_flags) == 88 &&
		   offsetof(struct ib_uverbs_modify_qp, qp_state) == 96 &&
		   offsetof(struct ib_uverbs_qp_dest, dgid) == 0,
	       "modify_qp per rdma-abi.md");
_Static_assert(offsetof(struct ib_uverbs_ex_modify_qp, base) == 0, "ex modify_qp");
_Static_assert(offsetof(struct ib_uverbs_ex_create_qp_resp, base) == 0, "ex create_qp resp");
_Static_assert(offsetof(struct ib_uverbs_ex_create_cq_resp, base) == 0, "ex create_cq resp");

_Static_assert(sizeof(struct rdma_ucm_cmd_hdr) == 8, "cm hdr");
_Static_assert(RDMA_USER_CM_CMD_CREATE_ID == RG_ABI_CM_CREATE_ID, "cm create_id");
_Static_assert(offsetof(struct rdma_ucm_create_id, response) == 8, "create_id response (BPF)");
_Static_assert(RDMA_USER_CM_CMD_BIND_IP == 2 && RDMA_USER_CM_CMD_RESOLVE_IP == 3 &&
		   RDMA_USER_CM_CMD_RESOLVE_ROUTE == 4 && RDMA_USER_CM_CMD_CONNECT == 6 &&
		   RDMA_USER_CM_CMD_LISTEN == 7 && RDMA_USER_CM_CMD_ACCEPT == 8 &&
		   RDMA_USER_CM_CMD_RESOLVE_ADDR == 21,
	       "cm commands per rdma-abi.md");
_Static_assert(offsetof(struct rdma_ucm_destroy_id, response) == 0 &&
		   offsetof(struct rdma_ucm_bind_ip, response) == 0 &&
		   offsetof(struct rdma_ucm_query, response) == 0,
	       "cm response first (BPF)");

/* IB_QP_* attr_mask bits (include/rdma/ib_verbs.h; not in uapi). */
#define QP_STATE    (1u << 0)
#define QP_AV	    (1u << 7)
#define QP_DEST_QPN (1u << 20)

/* ---- bounded little-endian readers ---- */
static bool rd16(const uint8_t *b, size_t len, size_t off, uint16_t *out)
{
	if (!b || off > len || len - off < 2)
		return false;
	memcpy(out, b + off, 2);
	return true;
}

static bool rd64(const uint8_t *b, size_t len, size_t off, uint64_t *out)
{
	if (!b || off > len || len - off < 8)
		return false;
	memcpy(out, b + off, 8);
	return true;
}

static bool rdn(const uint8_t *b, size_t len, size_t off, void *out, size_t n)
{
	if (!b || off > len || len - off < n)
		return false;
	memcpy(out, b + off, n);
	return true;
}

/* Read field F of struct T from the body into *out; on a short body mark truncation. */
#define BODY(T, F, out)                                                                            \
	do {                                                                                       \
		if (!rdn(body, blen, offsetof(T, F), (out), sizeof(((T *)0)->F)))                  \
			flags |= RG_EVF_TRUNC;                                                     \
	} while (0)
/* Same from the response; a missing response (failed call, not copied) is not an error. */
#define RESP(T, F, out)                                                                            \
	do {                                                                                       \
		if (resp && rlen)                                                                  \
			(void)rdn(resp, rlen, offsetof(T, F), (out), sizeof(((T *)0)->F));         \
	} while (0)

/*
 * MR access flags as the kernel takes them (ib_check_mr_access(), IB_UVERBS_ACCESS_OPTIONAL_RANGE):
 * unknown bits in the optional range are dropped, unknown mandatory ones make the call fail.
 * Keeps the bits the event model names, so that an event and its JSON agree; MALFORMED when
 * the kernel would refuse the flags.
 */
static uint32_t access_known(struct rg_ev_verbs *v)
{
	const uint32_t known = RG_ACCESS_LOCAL_WRITE | RG_ACCESS_REMOTE_WRITE |
			       RG_ACCESS_REMOTE_READ | RG_ACCESS_REMOTE_ATOMIC | RG_ACCESS_MW_BIND |
			       RG_ACCESS_ZERO_BASED | RG_ACCESS_ON_DEMAND | RG_ACCESS_HUGETLB |
			       RG_ACCESS_RELAXED_ORDERING;
	const uint32_t optional = IB_UVERBS_ACCESS_OPTIONAL_RANGE;
	uint32_t unknown = v->mr_access & ~known;

	v->mr_access &= known;
	return unknown & ~optional ? RG_EVF_MALFORMED : 0;
}

uint32_t decode_uverbs_cmd(uint32_t cmd_word, const void *body_, size_t blen, const void *resp_,
			   size_t rlen, struct rg_ev_verbs *v)
{
	const uint8_t *body = body_, *resp = resp_;
	bool ext = cmd_word & IB_USER_VERBS_CMD_FLAG_EXTENDED;
	uint32_t cmd = cmd_word & IB_USER_VERBS_CMD_COMMAND_MASK, flags = 0;
	uint8_t u8v = 0;

	v->write_cmd = cmd_word;
	if (cmd_word & ~(IB_USER_VERBS_CMD_FLAG_EXTENDED | IB_USER_VERBS_CMD_COMMAND_MASK)) {
		v->op = RG_OP_OTHER;
		return RG_EVF_MALFORMED;
	}
	if (ext) {
		switch (cmd) {
		case IB_USER_VERBS_EX_CMD_QUERY_DEVICE:
			v->op = RG_OP_QUERY_DEVICE;
			break;
		case IB_USER_VERBS_EX_CMD_CREATE_CQ:
			v->op = RG_OP_CREATE_CQ;
			RESP(struct ib_uverbs_ex_create_cq_resp, base.cq_handle, &v->handle);
			break;
		case IB_USER_VERBS_EX_CMD_CREATE_QP:
			v->op = RG_OP_CREATE_QP;
			BODY(struct ib_uverbs_ex_create_qp, qp_type, &u8v);
			if (!(flags & RG_EVF_TRUNC))
				v->qp_type = u8v;
			RESP(struct ib_uverbs_ex_create_qp_resp, base.qp_handle, &v->handle);
			RESP(struct ib_uverbs_ex_create_qp_resp, base.qpn, &v->qp_num);
			break;
		case IB_USER_VERBS_EX_CMD_MODIFY_QP:
			goto modify_qp; /* struct ib_uverbs_ex_modify_qp starts with the legacy one
					 */
		default:
			v->op = RG_OP_OTHER;
			break;
		}
		return flags | access_known(v);
	}

	switch (cmd) {
	case IB_USER_VERBS_CMD_GET_CONTEXT:
		v->op = RG_OP_GET_CONTEXT;
		break;
	case IB_USER_VERBS_CMD_QUERY_DEVICE:
		v->op = RG_OP_QUERY_DEVICE;
		break;
	case IB_USER_VERBS_CMD_QUERY_PORT:
		v->op = RG_OP_QUERY_PORT;
		break;
	case IB_USER_VERBS_CMD_ALLOC_PD:
		v->op = RG_OP_ALLOC_PD;
		RESP(struct ib_uverbs_alloc_pd_resp, pd_handle, &v->handle);
		break;
	case IB_USER_VERBS_CMD_DEALLOC_PD:
		v->op = RG_OP_DEALLOC_PD;
		BODY(struct ib_uverbs_dealloc_pd, pd_handle, &v->handle);
		break;
	case IB_USER_VERBS_CMD_CREATE_AH:
		v->op = RG_OP_CREATE_AH;
		BODY(struct ib_uverbs_create_ah, attr.grh.dgid, v->dgid);
		RESP(struct ib_uverbs_create_ah_resp, ah_handle, &v->handle);
		break;
	case IB_USER_VERBS_CMD_DESTROY_AH:
		v->op = RG_OP_DESTROY_AH;
		BODY(struct ib_uverbs_destroy_ah, ah_handle, &v->handle);
		break;
	case IB_USER_VERBS_CMD_REG_MR:
		v->op = RG_OP_REG_MR;
		BODY(struct ib_uverbs_reg_mr, start, &v->mr_addr);
		BODY(struct ib_uverbs_reg_mr, length, &v->mr_length);
		BODY(struct ib_uverbs_reg_mr, hca_va, &v->mr_iova);
		BODY(struct ib_uverbs_reg_mr, access_flags, &v->mr_access);
		RESP(struct ib_uverbs_reg_mr_resp, mr_handle, &v->handle);
		break;
	case IB_USER_VERBS_CMD_REREG_MR:
		v->op = RG_OP_REREG_MR;
		BODY(struct ib_uverbs_rereg_mr, mr_handle, &v->handle);
		BODY(struct ib_uverbs_rereg_mr, start, &v->mr_addr);
		BODY(struct ib_uverbs_rereg_mr, length, &v->mr_length);
		BODY(struct ib_uverbs_rereg_mr, hca_va, &v->mr_iova);
		BODY(struct ib_uverbs_rereg_mr, access_flags, &v->mr_access);
		break;
	case IB_USER_VERBS_CMD_DEREG_MR:
		v->op = RG_OP_DEREG_MR;
		BODY(struct ib_uverbs_dereg_mr, mr_handle, &v->handle);
		break;
	case IB_USER_VERBS_CMD_ALLOC_MW:
		v->op = RG_OP_ALLOC_MW;
		RESP(struct ib_uverbs_alloc_mw_resp, mw_handle, &v->handle);
		break;
	case IB_USER_VERBS_CMD_DEALLOC_MW:
		v->op = RG_OP_DEALLOC_MW;
		BODY(struct ib_uverbs_dealloc_mw, mw_handle, &v->handle);
		break;
	case IB_USER_VERBS_CMD_CREATE_COMP_CHANNEL:
		v->op = RG_OP_CREATE_COMP_CHANNEL;
		break;
	case IB_USER_VERBS_CMD_CREATE_CQ:
		v->op = RG_OP_CREATE_CQ;
		RESP(struct ib_uverbs_create_cq_resp, cq_handle, &v->handle);
		break;
	case IB_USER_VERBS_CMD_DESTROY_CQ:
		v->op = RG_OP_DESTROY_CQ;
		BODY(struct ib_uverbs_destroy_cq, cq_handle, &v->handle);
		break;
	case IB_USER_VERBS_CMD_REQ_NOTIFY_CQ:
		v->op = RG_OP_REQ_NOTIFY_CQ;
		BODY(struct ib_uverbs_req_notify_cq, cq_handle, &v->handle);
		break;
	case IB_USER_VERBS_CMD_CREATE_QP:
		v->op = RG_OP_CREATE_QP;
		BODY(struct ib_uverbs_create_qp, qp_type, &u8v);
		if (!(flags & RG_EVF_TRUNC))
			v->qp_type = u8v;
		RESP(struct ib_uverbs_create_qp_resp, qp_handle, &v->handle);
		RESP(struct ib_uverbs_create_qp_resp, qpn, &v->qp_num);
		break;
	case IB_USER_VERBS_CMD_OPEN_QP:
		v->op = RG_OP_OPEN_QP;
		BODY(struct ib_uverbs_open_qp, qpn, &v->qp_num);
		BODY(struct ib_uverbs_open_qp, qp_type, &u8v);
		if (!(flags & RG_EVF_TRUNC))
			v->qp_type = u8v;
		RESP(struct ib_uverbs_create_qp_resp, qp_handle, &v->handle);
		break;
	case IB_USER_VERBS_CMD_QUERY_QP:
		v->op = RG_OP_QUERY_QP;
		BODY(struct ib_uverbs_query_qp, qp_handle, &v->handle);
		break;
	case IB_USER_VERBS_CMD_MODIFY_QP:
	modify_qp:
		v->op = RG_OP_MODIFY_QP;
		BODY(struct ib_uverbs_modify_qp, qp_handle, &v->handle);
		BODY(struct ib_uverbs_modify_qp, attr_mask, &v->qp_attr_mask);
		if (v->qp_attr_mask & QP_STATE) {
			BODY(struct ib_uverbs_modify_qp, qp_state, &u8v);
			v->qp_state = (flags & RG_EVF_TRUNC) ? 0 : u8v;
		}
		if (v->qp_attr_mask & QP_DEST_QPN)
			BODY(struct ib_uverbs_modify_qp, dest_qp_num, &v->dest_qp_num);
		if (v->qp_attr_mask & QP_AV)
			BODY(struct ib_uverbs_modify_qp, dest.dgid, v->dgid);
		break;
	case IB_USER_VERBS_CMD_DESTROY_QP:
		v->op = RG_OP_DESTROY_QP;
		BODY(struct ib_uverbs_destroy_qp, qp_handle, &v->handle);
		break;
	case IB_USER_VERBS_CMD_POST_SEND:
		v->op = RG_OP_POST_SEND;
		BODY(struct ib_uverbs_post_send, qp_handle, &v->handle);
		BODY(struct ib_uverbs_post_send, wr_count, &v->wr_count);
		break;
	case IB_USER_VERBS_CMD_POST_RECV:
		v->op = RG_OP_POST_RECV;
		BODY(struct ib_uverbs_post_recv, qp_handle, &v->handle);
		BODY(struct ib_uverbs_post_recv, wr_count, &v->wr_count);
		break;
	case IB_USER_VERBS_CMD_POST_SRQ_RECV:
		v->op = RG_OP_POST_RECV;
		BODY(struct ib_uverbs_post_srq_recv, srq_handle, &v->handle);
		BODY(struct ib_uverbs_post_srq_recv, wr_count, &v->wr_count);
		break;
	case IB_USER_VERBS_CMD_CREATE_SRQ:
	case IB_USER_VERBS_CMD_CREATE_XSRQ:
		v->op = RG_OP_CREATE_SRQ;
		RESP(struct ib_uverbs_create_srq_resp, srq_handle, &v->handle);
		break;
	case IB_USER_VERBS_CMD_DESTROY_SRQ:
		v->op = RG_OP_DESTROY_SRQ;
		BODY(struct ib_uverbs_destroy_srq, srq_handle, &v->handle);
		break;
	default:
		v->op = RG_OP_OTHER;
		break;
	}
	return flags | access_known(v);
}

uint32_t decode_uverbs_write(const void *buf_, size_t len, uint64_t count, const void *resp,
			     size_t rlen, struct rg_ev_verbs *v)
{
	const uint8_t *buf = buf_;
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_ex_cmd_hdr ex;
	uint32_t flags = 0;
	size_t have, hlen, declared;

	v->via = RG_VIA_WRITE;
	have = count < len ? (size_t)count : len;
	if (!rdn(buf, have, 0, &hdr, sizeof(hdr))) {
		v->op = RG_OP_OTHER;
		return RG_EVF_TRUNC | (count < sizeof(hdr) ? RG_EVF_MALFORMED : 0);
	}
	hlen = sizeof(hdr);
	if (hdr.command & IB_USER_VERBS_CMD_FLAG_EXTENDED) {
		if (!rdn(buf, have, hlen, &ex, sizeof(ex))) {
			v->write_cmd = hdr.command;
			v->op = RG_OP_OTHER;
			return RG_EVF_TRUNC |
			       (count < sizeof(hdr) + sizeof(ex) ? RG_EVF_MALFORMED : 0);
		}
		hlen += sizeof(ex);
		/* ABI 6: extended commands count 8-byte words after both headers */
		declared = ((size_t)hdr.in_words + ex.provider_in_words) * 8;
		if (declared != count - hlen)
			flags |= RG_EVF_MALFORMED;
		declared = (size_t)hdr.in_words * 8;
	} else {
		/* ABI 6: in_words counts 4-byte words including this header */
		declared = (size_t)hdr.in_words * 4;
		if (declared != count || declared < hlen)
			flags |= RG_EVF_MALFORMED;
		declared = declared > hlen ? declared - hlen : 0;
	}
	have -= hlen;
	/* The command is what the caller declared, cut to what was copied. */
	if (declared < have)
		have = declared;
	flags |= decode_uverbs_cmd(hdr.command, buf + hlen, have, resp, rlen, v);
	return flags;
}

static int blob_for(const struct uverbs_blob *blobs, size_t nblobs, size_t attr_index)
{
	for (size_t i = 0; i < nblobs; i++)
		if (blobs[i].attr == attr_index && blobs[i].data)
			return (int)i;
	return -1;
}

struct ioctl_view {
	const uint8_t *attrs;
	size_t n;
	const struct uverbs_blob *blobs;
	size_t nblobs;
};

/* Index of the attribute with that id, or -1. */
static int attr_find(const struct ioctl_view *iv, uint16_t id)
{
	for (size_t i = 0; i < iv->n; i++) {
		uint16_t aid;

		memcpy(&aid, iv->attrs + i * sizeof(struct ib_uverbs_attr), 2);
		if (aid == id)
			return (int)i;
	}
	return -1;
}

static void attr_get(const struct ioctl_view *iv, int i, uint16_t *len, uint64_t *data)
{
	const uint8_t *a = iv->attrs + (size_t)i * sizeof(struct ib_uverbs_attr);

	memcpy(len, a + offsetof(struct ib_uverbs_attr, len), 2);
	memcpy(data, a + offsetof(struct ib_uverbs_attr, data), 8);
}

/* An inline (len <= 8) attribute's value, masked to its length; false if absent or a pointer. */
static bool attr_value(const struct ioctl_view *iv, uint16_t id, uint64_t *out)
{
	int i = attr_find(iv, id);
	uint16_t len;
	uint64_t data;

	if (i < 0)
		return false;
	attr_get(iv, i, &len, &data);
	if (len > 8)
		return false;
	if (len && len < 8)
		data &= (1ull << (len * 8)) - 1;
	*out = data;
	return true;
}

static void set32(const struct ioctl_view *iv, uint16_t id, uint32_t *dst)
{
	uint64_t x;

	if (attr_value(iv, id, &x))
		*dst = (uint32_t)x;
}

static void set64(const struct ioctl_view *iv, uint16_t id, uint64_t *dst)
{
	uint64_t x;

	if (attr_value(iv, id, &x))
		*dst = x;
}

/* The bytes of an attribute: inline (len <= 8, little-endian in data) or its copied blob. */
static bool attr_bytes(const struct ioctl_view *iv, uint16_t id, uint8_t inl[8], const uint8_t **p,
		       size_t *plen, uint32_t *flags)
{
	int i = attr_find(iv, id), b;
	uint16_t len;
	uint64_t data;

	if (i < 0)
		return false;
	attr_get(iv, i, &len, &data);
	if (len <= 8) {
		memcpy(inl, &data, 8);
		*p = inl;
		*plen = len;
		return true;
	}
	b = blob_for(iv->blobs, iv->nblobs, (size_t)i);
	if (b < 0) {
		*flags |= RG_EVF_TRUNC; /* the sensor could not copy it */
		*p = NULL;
		*plen = 0;
		return true;
	}
	*p = iv->blobs[b].data;
	*plen = MIN((size_t)iv->blobs[b].len, (size_t)len);
	return true;
}

/* An output attribute's contents: always behind its pointer, whatever its size; copied by the
 * sensor only when the call succeeded. NULL when not there. */
static const uint8_t *attr_out(const struct ioctl_view *iv, uint16_t id, size_t *plen)
{
	int i = attr_find(iv, id), b;

	if (i < 0)
		return NULL;
	b = blob_for(iv->blobs, iv->nblobs, (size_t)i);
	if (b < 0)
		return NULL;
	*plen = iv->blobs[b].len;
	return iv->blobs[b].data;
}

uint32_t decode_uverbs_ioctl(const void *buf_, size_t len, const struct uverbs_blob *blobs,
			     size_t nblobs, struct rg_ev_verbs *v)
{
	const uint8_t *buf = buf_;
	struct ib_uverbs_ioctl_hdr hdr;
	struct ioctl_view iv = {.blobs = blobs, .nblobs = blobs ? nblobs : 0};
	uint32_t flags = 0;
	uint64_t x;

	v->via = RG_VIA_IOCTL;
	v->op = RG_OP_OTHER;
	if (!rdn(buf, len, 0, &hdr, sizeof(hdr)))
		return RG_EVF_TRUNC;
	v->object_id = hdr.object_id;
	v->method_id = hdr.method_id;
	v->driver_id = hdr.driver_id;
	if (hdr.length != sizeof(hdr) + (size_t)hdr.num_attrs * sizeof(struct ib_uverbs_attr) ||
	    hdr.reserved1 || hdr.reserved2)
		flags |= RG_EVF_MALFORMED;
	iv.attrs = buf + sizeof(hdr);
	iv.n = (len - sizeof(hdr)) / sizeof(struct ib_uverbs_attr);
	if (hdr.num_attrs < iv.n)
		iv.n = hdr.num_attrs;
	else if (hdr.num_attrs > iv.n)
		flags |= RG_EVF_TRUNC;

	switch (hdr.object_id) {
	case UVERBS_OBJECT_DEVICE:
		switch (hdr.method_id) {
		case UVERBS_METHOD_INVOKE_WRITE: {
			uint8_t in_inl[8];
			const uint8_t *in = NULL, *out = NULL;
			size_t in_len = 0, out_len = 0;

			v->via = RG_VIA_INVOKE;
			if (!attr_value(&iv, UVERBS_ATTR_WRITE_CMD, &x)) {
				/* Attributes beyond the copy may hold it. */
				flags |= (flags & RG_EVF_TRUNC) ? 0 : RG_EVF_MALFORMED;
				return flags;
			}
			/* CORE_IN is optional: libibverbs leaves it out when the command has
			 * nothing but its response pointer (GET_CONTEXT). */
			(void)attr_bytes(&iv, UVERBS_ATTR_CORE_IN, in_inl, &in, &in_len, &flags);
			if (x > UINT32_MAX) {
				flags |= RG_EVF_MALFORMED;
				return flags;
			}
			out = attr_out(&iv, UVERBS_ATTR_CORE_OUT, &out_len);
			flags |= decode_uverbs_cmd((uint32_t)x, in, in_len, out, out_len, v);
			return flags;
		}
		case UVERBS_METHOD_QUERY_PORT:
			v->op = RG_OP_QUERY_PORT;
			break;
		case UVERBS_METHOD_GET_CONTEXT:
			v->op = RG_OP_GET_CONTEXT;
			break;
		}
		break;
	case UVERBS_OBJECT_PD:
		if (hdr.method_id == UVERBS_METHOD_PD_DESTROY) {
			v->op = RG_OP_DEALLOC_PD;
			set32(&iv, UVERBS_ATTR_DESTROY_PD_HANDLE, &v->handle);
		}
		break;
	case UVERBS_OBJECT_CQ:
		if (hdr.method_id == UVERBS_METHOD_CQ_CREATE) {
			v->op = RG_OP_CREATE_CQ;
			set32(&iv, UVERBS_ATTR_CREATE_CQ_HANDLE, &v->handle);
		} else if (hdr.method_id == UVERBS_METHOD_CQ_DESTROY) {
			v->op = RG_OP_DESTROY_CQ;
			set32(&iv, UVERBS_ATTR_DESTROY_CQ_HANDLE, &v->handle);
		}
		break;
	case UVERBS_OBJECT_QP:
		if (hdr.method_id == UVERBS_METHOD_QP_CREATE) {
			v->op = RG_OP_CREATE_QP;
			set32(&iv, UVERBS_ATTR_CREATE_QP_HANDLE, &v->handle);
			set32(&iv, UVERBS_ATTR_CREATE_QP_TYPE, &v->qp_type);
			{
				size_t qlen = 0;
				const uint8_t *q =
				    attr_out(&iv, UVERBS_ATTR_CREATE_QP_RESP_QP_NUM, &qlen);

				if (q && qlen >= 4)
					memcpy(&v->qp_num, q, 4);
			}
		} else if (hdr.method_id == UVERBS_METHOD_QP_DESTROY) {
			v->op = RG_OP_DESTROY_QP;
			set32(&iv, UVERBS_ATTR_DESTROY_QP_HANDLE, &v->handle);
		}
		break;
	case UVERBS_OBJECT_SRQ:
		if (hdr.method_id == UVERBS_METHOD_SRQ_CREATE) {
			v->op = RG_OP_CREATE_SRQ;
			set32(&iv, UVERBS_ATTR_CREATE_SRQ_HANDLE, &v->handle);
		} else if (hdr.method_id == UVERBS_METHOD_SRQ_DESTROY) {
			v->op = RG_OP_DESTROY_SRQ;
			set32(&iv, UVERBS_ATTR_DESTROY_SRQ_HANDLE, &v->handle);
		}
		break;
	case UVERBS_OBJECT_AH:
		if (hdr.method_id == UVERBS_METHOD_AH_DESTROY) {
			v->op = RG_OP_DESTROY_AH;
			set32(&iv, UVERBS_ATTR_DESTROY_AH_HANDLE, &v->handle);
		}
		break;
	case UVERBS_OBJECT_MR:
		switch (hdr.method_id) {
		case UVERBS_METHOD_DM_MR_REG:
			v->op = RG_OP_REG_MR;
			set32(&iv, UVERBS_ATTR_REG_DM_MR_HANDLE, &v->handle);
			set64(&iv, UVERBS_ATTR_REG_DM_MR_LENGTH, &v->mr_length);
			set32(&iv, UVERBS_ATTR_REG_DM_MR_ACCESS_FLAGS, &v->mr_access);
			break;
		case UVERBS_METHOD_MR_DESTROY:
			v->op = RG_OP_DEREG_MR;
			set32(&iv, UVERBS_ATTR_DESTROY_MR_HANDLE, &v->handle);
			break;
		case UVERBS_METHOD_REG_DMABUF_MR:
			v->op = RG_OP_REG_DMABUF_MR;
			set32(&iv, UVERBS_ATTR_REG_DMABUF_MR_HANDLE, &v->handle);
			set64(&iv, UVERBS_ATTR_REG_DMABUF_MR_LENGTH, &v->mr_length);
			set64(&iv, UVERBS_ATTR_REG_DMABUF_MR_IOVA, &v->mr_iova);
			set32(&iv, UVERBS_ATTR_REG_DMABUF_MR_ACCESS_FLAGS, &v->mr_access);
			if (attr_value(&iv, UVERBS_ATTR_REG_DMABUF_MR_FD, &x))
				v->dmabuf_fd = (int32_t)x;
			break;
		case RG_METHOD_REG_MR:
			v->op = RG_OP_REG_MR;
			set32(&iv, RG_ATTR_REG_MR_HANDLE, &v->handle);
			set64(&iv, RG_ATTR_REG_MR_IOVA, &v->mr_iova);
			set64(&iv, RG_ATTR_REG_MR_ADDR, &v->mr_addr);
			set64(&iv, RG_ATTR_REG_MR_LENGTH, &v->mr_length);
			set32(&iv, RG_ATTR_REG_MR_ACCESS, &v->mr_access);
			if (attr_value(&iv, RG_ATTR_REG_MR_FD, &x)) {
				v->op = RG_OP_REG_DMABUF_MR;
				v->dmabuf_fd = (int32_t)x;
			}
			break;
		}
		break;
	case UVERBS_OBJECT_MW:
		if (hdr.method_id == UVERBS_METHOD_MW_DESTROY) {
			v->op = RG_OP_DEALLOC_MW;
			set32(&iv, UVERBS_ATTR_DESTROY_MW_HANDLE, &v->handle);
		}
		break;
	}
	return flags | access_known(v);
}

uint32_t decode_sockaddr(const void *buf_, size_t len, struct rg_addr *a)
{
	const uint8_t *buf = buf_;
	uint16_t family, port;
	uint64_t sid;

	memset(a, 0, sizeof(*a));
	if (!rd16(buf, len, 0, &family))
		return RG_EVF_TRUNC;
	switch (family) {
	case 0: /* unspecified (e.g. no source address) */
		return 0;
	case AF_INET:
		if (!rd16(buf, len, offsetof(struct sockaddr_in, sin_port), &port) ||
		    !rdn(buf, len, offsetof(struct sockaddr_in, sin_addr), a->addr + 12, 4))
			return RG_EVF_TRUNC;
		a->addr[10] = a->addr[11] = 0xff;
		a->family = AF_INET;
		a->port = ntohs(port);
		return 0;
	case AF_INET6:
		if (!rd16(buf, len, offsetof(struct sockaddr_in6, sin6_port), &port) ||
		    !rdn(buf, len, offsetof(struct sockaddr_in6, sin6_addr), a->addr, 16))
			return RG_EVF_TRUNC;
		a->family = AF_INET6;
		a->port = ntohs(port);
		return 0;
	case AF_IB: /* struct sockaddr_ib: family, pkey, flowinfo, the GID @8, service id @24 */
		if (!rdn(buf, len, 8, a->addr, 16) || !rd64(buf, len, 24, &sid))
			return RG_EVF_TRUNC;
		a->family = AF_IB;
		a->port = (uint16_t)(be64toh(sid) & 0xffff);
		return 0;
	default:
		return RG_EVF_MALFORMED;
	}
}

/* A sockaddr field inside a bounded buffer: off/size within it. */
static uint32_t sockaddr_at(const uint8_t *b, size_t len, size_t off, size_t size,
			    struct rg_addr *a)
{
	if (off >= len)
		return RG_EVF_TRUNC;
	return decode_sockaddr(b + off, MIN(size, len - off), a);
}

#define CMBODY(T, F, out)                                                                          \
	do {                                                                                       \
		if (!rdn(body, blen, offsetof(T, F), (out), sizeof(((T *)0)->F)))                  \
			flags |= RG_EVF_TRUNC;                                                     \
	} while (0)
#define CMADDR(T, F, a) (flags |= sockaddr_at(body, blen, offsetof(T, F), sizeof(((T *)0)->F), (a)))

uint32_t decode_rdma_cm_write(const void *buf_, size_t len, uint64_t count, const void *resp_,
			      size_t rlen, struct rg_ev_rdma_cm *cm)
{
	const uint8_t *buf = buf_, *resp = resp_, *body;
	struct rdma_ucm_cmd_hdr hdr;
	uint32_t flags = 0, option;
	uint16_t ps = 0;
	size_t have, blen;

	cm->op = RG_CM_OTHER;
	have = count < len ? (size_t)count : len;
	if (!rdn(buf, have, 0, &hdr, sizeof(hdr)))
		return RG_EVF_TRUNC | (count < sizeof(hdr) ? RG_EVF_MALFORMED : 0);
	cm->cmd = hdr.cmd;
	if ((uint64_t)hdr.in + sizeof(hdr) > count)
		flags |= RG_EVF_MALFORMED;
	body = buf + sizeof(hdr);
	blen = MIN(have - sizeof(hdr), (size_t)hdr.in);

	switch (hdr.cmd) {
	case RDMA_USER_CM_CMD_CREATE_ID:
		cm->op = RG_CM_CREATE_ID;
		CMBODY(struct rdma_ucm_create_id, ps, &ps);
		if (!(flags & RG_EVF_TRUNC))
			cm->port_space = ps;
		if (resp && rlen)
			(void)rdn(resp, rlen, offsetof(struct rdma_ucm_create_id_resp, id), &cm->id,
				  4);
		break;
	case RDMA_USER_CM_CMD_DESTROY_ID:
		cm->op = RG_CM_DESTROY_ID;
		CMBODY(struct rdma_ucm_destroy_id, id, &cm->id);
		break;
	case RDMA_USER_CM_CMD_BIND_IP:
		cm->op = RG_CM_BIND_IP;
		CMBODY(struct rdma_ucm_bind_ip, id, &cm->id);
		CMADDR(struct rdma_ucm_bind_ip, addr, &cm->src);
		break;
	case RDMA_USER_CM_CMD_BIND:
		cm->op = RG_CM_BIND;
		CMBODY(struct rdma_ucm_bind, id, &cm->id);
		CMADDR(struct rdma_ucm_bind, addr, &cm->src);
		break;
	case RDMA_USER_CM_CMD_RESOLVE_IP:
		cm->op = RG_CM_RESOLVE_IP;
		CMBODY(struct rdma_ucm_resolve_ip, id, &cm->id);
		CMADDR(struct rdma_ucm_resolve_ip, src_addr, &cm->src);
		CMADDR(struct rdma_ucm_resolve_ip, dst_addr, &cm->dst);
		break;
	case RDMA_USER_CM_CMD_RESOLVE_ADDR:
		cm->op = RG_CM_RESOLVE_ADDR;
		CMBODY(struct rdma_ucm_resolve_addr, id, &cm->id);
		CMADDR(struct rdma_ucm_resolve_addr, src_addr, &cm->src);
		CMADDR(struct rdma_ucm_resolve_addr, dst_addr, &cm->dst);
		break;
	case RDMA_USER_CM_CMD_RESOLVE_ROUTE:
		cm->op = RG_CM_RESOLVE_ROUTE;
		CMBODY(struct rdma_ucm_resolve_route, id, &cm->id);
		break;
	case RDMA_USER_CM_CMD_CONNECT:
		cm->op = RG_CM_CONNECT;
		CMBODY(struct rdma_ucm_connect, id, &cm->id);
		break;
	case RDMA_USER_CM_CMD_LISTEN:
		cm->op = RG_CM_LISTEN;
		CMBODY(struct rdma_ucm_listen, id, &cm->id);
		CMBODY(struct rdma_ucm_listen, backlog, &cm->backlog);
		break;
	case RDMA_USER_CM_CMD_ACCEPT:
		cm->op = RG_CM_ACCEPT;
		CMBODY(struct rdma_ucm_accept, id, &cm->id);
		break;
	case RDMA_USER_CM_CMD_DISCONNECT:
		cm->op = RG_CM_DISCONNECT;
		CMBODY(struct rdma_ucm_disconnect, id, &cm->id);
		break;
	case RDMA_USER_CM_CMD_QUERY:
		/* QUERY(ADDR) is how the passive side learns its peer's address. */
		CMBODY(struct rdma_ucm_query, id, &cm->id);
		if (rdn(body, blen, offsetof(struct rdma_ucm_query, option), &option, 4) &&
		    option == RDMA_USER_CM_QUERY_ADDR && resp && rlen) {
			uint32_t f = 0;

			f |= sockaddr_at(resp, rlen,
					 offsetof(struct rdma_ucm_query_addr_resp, src_addr),
					 sizeof(struct __kernel_sockaddr_storage), &cm->src);
			f |= sockaddr_at(resp, rlen,
					 offsetof(struct rdma_ucm_query_addr_resp, dst_addr),
					 sizeof(struct __kernel_sockaddr_storage), &cm->dst);
			flags |= f & RG_EVF_MALFORMED;
		}
		break;
	default:
		break;
	}
	return flags;
}
