/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The legacy verbs commands (struct ib_uverbs_* after their headers): write() on a uverbs fd and
 * the commands INVOKE_WRITE tunnels. One table row per command says which of its fields, and of
 * its response's, the event takes; MODIFY_QP, whose fields depend on its attr_mask, has a
 * function of its own. Field positions come from the installed uapi headers (offsetof), and the
 * numbers docs/verbs-abi.md documents and the BPF side uses are pinned against those headers below.
 */
#include <string.h>

#include <rdma/ib_user_ioctl_verbs.h>
#include <rdma/ib_user_verbs.h>

#include "bpf/events.h"
#include "common/macro.h"
#include "decode-internal.h"

/* ---- ABI numbers, checked against the headers (docs/verbs-abi.md, bpf/events.h) ---- */
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
	       "legacy commands per docs/verbs-abi.md");
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
	       "reg_mr per docs/verbs-abi.md");
_Static_assert(sizeof(struct ib_uverbs_modify_qp) == 112 &&
		   offsetof(struct ib_uverbs_modify_qp, qp_handle) == 64 &&
		   offsetof(struct ib_uverbs_modify_qp, attr_mask) == 68 &&
		   offsetof(struct ib_uverbs_modify_qp, dest_qp_num) == 84 &&
		   offsetof(struct ib_uverbs_modify_qp, qp_access_flags) == 88 &&
		   offsetof(struct ib_uverbs_modify_qp, qp_state) == 96 &&
		   offsetof(struct ib_uverbs_qp_dest, dgid) == 0,
	       "modify_qp per docs/verbs-abi.md");
_Static_assert(offsetof(struct ib_uverbs_ex_modify_qp, base) == 0, "ex modify_qp");
_Static_assert(offsetof(struct ib_uverbs_ex_create_qp_resp, base) == 0, "ex create_qp resp");
_Static_assert(offsetof(struct ib_uverbs_ex_create_cq_resp, base) == 0, "ex create_cq resp");

/* IB_QP_* attr_mask bits (include/rdma/ib_verbs.h; not in uapi). */
#define QP_STATE    (1u << 0)
#define QP_AV	    (1u << 7)
#define QP_DEST_QPN (1u << 20)

/* Field F of struct T into the event's field D. */
#define COPY(T, F, D) FIELD_COPY(T, F, struct rg_ev_verbs, D)

/* A command: its op, what it carries, what its response says. */
struct cmd_desc {
	uint32_t op;		  /* enum rg_verbs_op; RG_OP_OTHER (0): nothing decoded */
	struct field_copy in[5];  /* from the command: a short one is truncated (RG_EVF_TRUNC) */
	struct field_copy out[2]; /* from the response, when the call succeeded and it was copied */
	/* what a copy cannot say; returns RG_EVF_* flags */
	uint32_t (*decode)(const uint8_t *body, size_t blen, struct rg_ev_verbs *v);
};

/* Read field F of struct T from the body into *out; on a short body mark truncation. */
#define BODY(T, F, out)                                                                            \
	do {                                                                                       \
		if (!rdn(body, blen, offsetof(T, F), (out), sizeof(((T *)0)->F)))                  \
			flags |= RG_EVF_TRUNC;                                                     \
	} while (0)

/* MODIFY_QP (and the extended one, which starts with it): the fields its attr_mask names. */
static uint32_t modify_qp(const uint8_t *body, size_t blen, struct rg_ev_verbs *v)
{
	uint32_t flags = 0;
	uint8_t u8v = 0;

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
	return flags;
}

static const struct cmd_desc legacy_cmds[] = {
    [IB_USER_VERBS_CMD_GET_CONTEXT] = {RG_OP_GET_CONTEXT},
    [IB_USER_VERBS_CMD_QUERY_DEVICE] = {RG_OP_QUERY_DEVICE},
    [IB_USER_VERBS_CMD_QUERY_PORT] = {RG_OP_QUERY_PORT},
    [IB_USER_VERBS_CMD_ALLOC_PD] = {RG_OP_ALLOC_PD, .out = {COPY(struct ib_uverbs_alloc_pd_resp,
								 pd_handle, handle)}},
    [IB_USER_VERBS_CMD_DEALLOC_PD] = {RG_OP_DEALLOC_PD,
				      .in = {COPY(struct ib_uverbs_dealloc_pd, pd_handle, handle)}},
    [IB_USER_VERBS_CMD_CREATE_AH] = {RG_OP_CREATE_AH,
				     .in = {COPY(struct ib_uverbs_create_ah, attr.grh.dgid, dgid)},
				     .out = {COPY(struct ib_uverbs_create_ah_resp, ah_handle,
						  handle)}},
    [IB_USER_VERBS_CMD_DESTROY_AH] = {RG_OP_DESTROY_AH,
				      .in = {COPY(struct ib_uverbs_destroy_ah, ah_handle, handle)}},
    [IB_USER_VERBS_CMD_REG_MR] = {RG_OP_REG_MR,
				  .in = {COPY(struct ib_uverbs_reg_mr, start, mr_addr),
					 COPY(struct ib_uverbs_reg_mr, length, mr_length),
					 COPY(struct ib_uverbs_reg_mr, hca_va, mr_iova),
					 COPY(struct ib_uverbs_reg_mr, access_flags, mr_access)},
				  .out = {COPY(struct ib_uverbs_reg_mr_resp, mr_handle, handle)}},
    [IB_USER_VERBS_CMD_REREG_MR] = {RG_OP_REREG_MR,
				    .in = {COPY(struct ib_uverbs_rereg_mr, mr_handle, handle),
					   COPY(struct ib_uverbs_rereg_mr, start, mr_addr),
					   COPY(struct ib_uverbs_rereg_mr, length, mr_length),
					   COPY(struct ib_uverbs_rereg_mr, hca_va, mr_iova),
					   COPY(struct ib_uverbs_rereg_mr, access_flags,
						mr_access)}},
    [IB_USER_VERBS_CMD_DEREG_MR] = {RG_OP_DEREG_MR,
				    .in = {COPY(struct ib_uverbs_dereg_mr, mr_handle, handle)}},
    [IB_USER_VERBS_CMD_ALLOC_MW] = {RG_OP_ALLOC_MW, .out = {COPY(struct ib_uverbs_alloc_mw_resp,
								 mw_handle, handle)}},
    [IB_USER_VERBS_CMD_DEALLOC_MW] = {RG_OP_DEALLOC_MW,
				      .in = {COPY(struct ib_uverbs_dealloc_mw, mw_handle, handle)}},
    [IB_USER_VERBS_CMD_CREATE_COMP_CHANNEL] = {RG_OP_CREATE_COMP_CHANNEL},
    [IB_USER_VERBS_CMD_CREATE_CQ] = {RG_OP_CREATE_CQ, .out = {COPY(struct ib_uverbs_create_cq_resp,
								   cq_handle, handle)}},
    [IB_USER_VERBS_CMD_DESTROY_CQ] = {RG_OP_DESTROY_CQ,
				      .in = {COPY(struct ib_uverbs_destroy_cq, cq_handle, handle)}},
    [IB_USER_VERBS_CMD_REQ_NOTIFY_CQ] = {RG_OP_REQ_NOTIFY_CQ,
					 .in = {COPY(struct ib_uverbs_req_notify_cq, cq_handle,
						     handle)}},
    [IB_USER_VERBS_CMD_CREATE_QP] = {RG_OP_CREATE_QP,
				     .in = {COPY(struct ib_uverbs_create_qp, qp_type, qp_type)},
				     .out = {COPY(struct ib_uverbs_create_qp_resp, qp_handle,
						  handle),
					     COPY(struct ib_uverbs_create_qp_resp, qpn, qp_num)}},
    [IB_USER_VERBS_CMD_OPEN_QP] = {RG_OP_OPEN_QP,
				   .in = {COPY(struct ib_uverbs_open_qp, qpn, qp_num),
					  COPY(struct ib_uverbs_open_qp, qp_type, qp_type)},
				   .out = {COPY(struct ib_uverbs_create_qp_resp, qp_handle,
						handle)}},
    [IB_USER_VERBS_CMD_QUERY_QP] = {RG_OP_QUERY_QP,
				    .in = {COPY(struct ib_uverbs_query_qp, qp_handle, handle)}},
    [IB_USER_VERBS_CMD_MODIFY_QP] = {RG_OP_MODIFY_QP, .decode = modify_qp},
    [IB_USER_VERBS_CMD_DESTROY_QP] = {RG_OP_DESTROY_QP,
				      .in = {COPY(struct ib_uverbs_destroy_qp, qp_handle, handle)}},
    [IB_USER_VERBS_CMD_POST_SEND] = {RG_OP_POST_SEND,
				     .in = {COPY(struct ib_uverbs_post_send, qp_handle, handle),
					    COPY(struct ib_uverbs_post_send, wr_count, wr_count)}},
    [IB_USER_VERBS_CMD_POST_RECV] = {RG_OP_POST_RECV,
				     .in = {COPY(struct ib_uverbs_post_recv, qp_handle, handle),
					    COPY(struct ib_uverbs_post_recv, wr_count, wr_count)}},
    [IB_USER_VERBS_CMD_POST_SRQ_RECV] =
	{RG_OP_POST_RECV, .in = {COPY(struct ib_uverbs_post_srq_recv, srq_handle, handle),
				 COPY(struct ib_uverbs_post_srq_recv, wr_count, wr_count)}},
    [IB_USER_VERBS_CMD_CREATE_SRQ] = {RG_OP_CREATE_SRQ,
				      .out = {COPY(struct ib_uverbs_create_srq_resp, srq_handle,
						   handle)}},
    [IB_USER_VERBS_CMD_CREATE_XSRQ] = {RG_OP_CREATE_SRQ,
				       .out = {COPY(struct ib_uverbs_create_srq_resp, srq_handle,
						    handle)}},
    [IB_USER_VERBS_CMD_DESTROY_SRQ] = {RG_OP_DESTROY_SRQ, .in = {COPY(struct ib_uverbs_destroy_srq,
								      srq_handle, handle)}},
};

/* The extended commands (IB_USER_VERBS_CMD_FLAG_EXTENDED), by their number. */
static const struct cmd_desc extended_cmds[] = {
    [IB_USER_VERBS_EX_CMD_QUERY_DEVICE] = {RG_OP_QUERY_DEVICE},
    [IB_USER_VERBS_EX_CMD_CREATE_CQ] = {RG_OP_CREATE_CQ,
					.out = {COPY(struct ib_uverbs_ex_create_cq_resp,
						     base.cq_handle, handle)}},
    [IB_USER_VERBS_EX_CMD_CREATE_QP] =
	{RG_OP_CREATE_QP, .in = {COPY(struct ib_uverbs_ex_create_qp, qp_type, qp_type)},
	 .out = {COPY(struct ib_uverbs_ex_create_qp_resp, base.qp_handle, handle),
		 COPY(struct ib_uverbs_ex_create_qp_resp, base.qpn, qp_num)}},
    /* struct ib_uverbs_ex_modify_qp starts with the legacy one */
    [IB_USER_VERBS_EX_CMD_MODIFY_QP] = {RG_OP_MODIFY_QP, .decode = modify_qp},
};

uint32_t decode_access_known(struct rg_ev_verbs *v)
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
	static const struct cmd_desc none = {RG_OP_OTHER};
	const uint8_t *body = body_, *resp = resp_;
	bool ext = cmd_word & IB_USER_VERBS_CMD_FLAG_EXTENDED;
	uint32_t cmd = cmd_word & IB_USER_VERBS_CMD_COMMAND_MASK, flags = 0;
	const struct cmd_desc *d = &none;

	v->write_cmd = cmd_word;
	if (cmd_word & ~(IB_USER_VERBS_CMD_FLAG_EXTENDED | IB_USER_VERBS_CMD_COMMAND_MASK)) {
		v->op = RG_OP_OTHER;
		return RG_EVF_MALFORMED;
	}
	if (ext && cmd < ARRAY_SIZE(extended_cmds))
		d = &extended_cmds[cmd];
	else if (!ext && cmd < ARRAY_SIZE(legacy_cmds))
		d = &legacy_cmds[cmd];
	v->op = d->op;
	if (!decode_copy_fields(body, blen, d->in, ARRAY_SIZE(d->in), v))
		flags |= RG_EVF_TRUNC;
	/* a missing response (failed call, not copied) is not an error */
	if (resp && rlen)
		(void)decode_copy_fields(resp, rlen, d->out, ARRAY_SIZE(d->out), v);
	if (d->decode)
		flags |= d->decode(body, blen, v);
	return flags | decode_access_known(v);
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
