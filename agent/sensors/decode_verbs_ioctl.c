/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ioctl(RDMA_VERBS_IOCTL): the header, the attribute array, and the attributes behind pointers
 * the sensor copied. A table indexed by object and method says which attributes the event takes;
 * INVOKE_WRITE hands its tunnelled command to the legacy decoder (decode_verbs_cmd.c). Attribute
 * ids come from the installed uapi headers, pinned below against the numbers docs/verbs-abi.md
 * documents and the BPF side uses.
 */
#include <string.h>

#include <rdma/ib_user_ioctl_cmds.h>
#include <rdma/ib_user_ioctl_verbs.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/rdma_user_ioctl_cmds.h>

#include "bpf/events.h"
#include "common/macro.h"
#include "decode-internal.h"

/* ---- ABI numbers, checked against the headers (docs/verbs-abi.md, bpf/events.h) ---- */
_Static_assert(RDMA_VERBS_IOCTL == RG_ABI_RDMA_VERBS_IOCTL, "RDMA_VERBS_IOCTL");
_Static_assert(RDMA_VERBS_IOCTL == 0xc0181b01u, "RDMA_VERBS_IOCTL per docs/verbs-abi.md");
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

/* An attribute's value into a field of 4 (the low half) or 8 bytes. */
static void store_attr(uint8_t *to, size_t size, uint64_t x)
{
	uint32_t u32 = (uint32_t)x;

	if (size == 4)
		memcpy(to, &u32, 4);
	else
		memcpy(to, &x, 8);
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

/* An inline attribute copied into struct rg_ev_verbs (the low half into a 4-byte field). */
struct attr_copy {
	uint16_t attr;	 /* its id */
	uint8_t to_size; /* 4 or 8 (0 ends a list) */
	uint16_t to;	 /* offset in struct rg_ev_verbs */
};

#define ATTR(id, D)                                                                                \
	{                                                                                          \
		.attr = (id), .to_size = sizeof(((struct rg_ev_verbs *)0)->D),                     \
		.to = offsetof(struct rg_ev_verbs, D),                                             \
	}

/* A method of an object: its op, the attributes it carries, what a copy cannot say. */
struct method_desc {
	uint32_t op; /* enum rg_verbs_op */
	struct attr_copy attrs[5];
	void (*decode)(const struct ioctl_view *iv, struct rg_ev_verbs *v);
};

/* QP_CREATE: the new QP's number, in its output attribute (a call that succeeded). */
static void qp_create(const struct ioctl_view *iv, struct rg_ev_verbs *v)
{
	size_t qlen = 0;
	const uint8_t *q = attr_out(iv, UVERBS_ATTR_CREATE_QP_RESP_QP_NUM, &qlen);

	if (q && qlen >= 4)
		memcpy(&v->qp_num, q, 4);
}

/* MR/REG_MR: with an fd, the MR is a dma-buf's. */
static void reg_mr(const struct ioctl_view *iv, struct rg_ev_verbs *v)
{
	uint64_t x;

	if (attr_value(iv, RG_ATTR_REG_MR_FD, &x)) {
		v->op = RG_OP_REG_DMABUF_MR;
		v->dmabuf_fd = (int32_t)x;
	}
}

/* Indexed by object, then method: the objects and methods the decoder knows. */
static const struct method_desc methods[UVERBS_OBJECT_MW + 1][RG_METHOD_REG_MR + 1] =
    {
	[UVERBS_OBJECT_DEVICE] =
	    {
		[UVERBS_METHOD_QUERY_PORT] = {RG_OP_QUERY_PORT},
		[UVERBS_METHOD_GET_CONTEXT] = {RG_OP_GET_CONTEXT},
	    },
	[UVERBS_OBJECT_PD] =
	    {
		[UVERBS_METHOD_PD_DESTROY] = {RG_OP_DEALLOC_PD,
					      {ATTR(UVERBS_ATTR_DESTROY_PD_HANDLE, handle)}},
	    },
	[UVERBS_OBJECT_CQ] =
	    {
		[UVERBS_METHOD_CQ_CREATE] = {RG_OP_CREATE_CQ,
					     {ATTR(UVERBS_ATTR_CREATE_CQ_HANDLE, handle)}},
		[UVERBS_METHOD_CQ_DESTROY] = {RG_OP_DESTROY_CQ,
					      {ATTR(UVERBS_ATTR_DESTROY_CQ_HANDLE, handle)}},
	    },
	[UVERBS_OBJECT_QP] =
	    {
		[UVERBS_METHOD_QP_CREATE] = {RG_OP_CREATE_QP,
					     {ATTR(UVERBS_ATTR_CREATE_QP_HANDLE, handle),
					      ATTR(UVERBS_ATTR_CREATE_QP_TYPE, qp_type)},
					     qp_create},
		[UVERBS_METHOD_QP_DESTROY] = {RG_OP_DESTROY_QP,
					      {ATTR(UVERBS_ATTR_DESTROY_QP_HANDLE, handle)}},
	    },
	[UVERBS_OBJECT_SRQ] =
	    {
		[UVERBS_METHOD_SRQ_CREATE] = {RG_OP_CREATE_SRQ,
					      {ATTR(UVERBS_ATTR_CREATE_SRQ_HANDLE, handle)}},
		[UVERBS_METHOD_SRQ_DESTROY] = {RG_OP_DESTROY_SRQ,
					       {ATTR(UVERBS_ATTR_DESTROY_SRQ_HANDLE, handle)}},
	    },
	[UVERBS_OBJECT_AH] =
	    {
		[UVERBS_METHOD_AH_DESTROY] = {RG_OP_DESTROY_AH,
					      {ATTR(UVERBS_ATTR_DESTROY_AH_HANDLE, handle)}},
	    },
	[UVERBS_OBJECT_MR] =
	    {
		[UVERBS_METHOD_DM_MR_REG] = {RG_OP_REG_MR,
					     {ATTR(UVERBS_ATTR_REG_DM_MR_HANDLE, handle),
					      ATTR(UVERBS_ATTR_REG_DM_MR_LENGTH, mr_length),
					      ATTR(UVERBS_ATTR_REG_DM_MR_ACCESS_FLAGS, mr_access)}},
		[UVERBS_METHOD_MR_DESTROY] = {RG_OP_DEREG_MR,
					      {ATTR(UVERBS_ATTR_DESTROY_MR_HANDLE, handle)}},
		[UVERBS_METHOD_REG_DMABUF_MR] = {RG_OP_REG_DMABUF_MR,
						 {ATTR(UVERBS_ATTR_REG_DMABUF_MR_HANDLE, handle),
						  ATTR(UVERBS_ATTR_REG_DMABUF_MR_LENGTH, mr_length),
						  ATTR(UVERBS_ATTR_REG_DMABUF_MR_IOVA, mr_iova),
						  ATTR(UVERBS_ATTR_REG_DMABUF_MR_ACCESS_FLAGS,
						       mr_access),
						  ATTR(UVERBS_ATTR_REG_DMABUF_MR_FD, dmabuf_fd)}},
		[RG_METHOD_REG_MR] = {RG_OP_REG_MR,
				      {ATTR(RG_ATTR_REG_MR_HANDLE, handle),
				       ATTR(RG_ATTR_REG_MR_IOVA, mr_iova),
				       ATTR(RG_ATTR_REG_MR_ADDR, mr_addr),
				       ATTR(RG_ATTR_REG_MR_LENGTH, mr_length),
				       ATTR(RG_ATTR_REG_MR_ACCESS, mr_access)},
				      reg_mr},
	    },
	[UVERBS_OBJECT_MW] =
	    {
		[UVERBS_METHOD_MW_DESTROY] = {RG_OP_DEALLOC_MW,
					      {ATTR(UVERBS_ATTR_DESTROY_MW_HANDLE, handle)}},
	    },
};

/* DEVICE/INVOKE_WRITE: a legacy command in attributes (WRITE_CMD, CORE_IN, CORE_OUT). */
static uint32_t invoke_write(const struct ioctl_view *iv, uint32_t flags, struct rg_ev_verbs *v)
{
	uint8_t in_inl[8];
	const uint8_t *in = NULL, *out = NULL;
	size_t in_len = 0, out_len = 0;
	uint64_t x;

	v->via = RG_VIA_INVOKE;
	if (!attr_value(iv, UVERBS_ATTR_WRITE_CMD, &x)) {
		/* Attributes beyond the copy may hold it. */
		flags |= (flags & RG_EVF_TRUNC) ? 0 : RG_EVF_MALFORMED;
		return flags;
	}
	/* CORE_IN is optional: libibverbs leaves it out when the command has
	 * nothing but its response pointer (GET_CONTEXT). */
	(void)attr_bytes(iv, UVERBS_ATTR_CORE_IN, in_inl, &in, &in_len, &flags);
	if (x > UINT32_MAX) {
		flags |= RG_EVF_MALFORMED;
		return flags;
	}
	out = attr_out(iv, UVERBS_ATTR_CORE_OUT, &out_len);
	flags |= decode_uverbs_cmd((uint32_t)x, in, in_len, out, out_len, v);
	return flags;
}

uint32_t decode_uverbs_ioctl(const void *buf_, size_t len, const struct uverbs_blob *blobs,
			     size_t nblobs, struct rg_ev_verbs *v)
{
	const uint8_t *buf = buf_;
	struct ib_uverbs_ioctl_hdr hdr;
	struct ioctl_view iv = {.blobs = blobs, .nblobs = blobs ? nblobs : 0};
	uint32_t flags = 0;

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

	if (hdr.object_id == UVERBS_OBJECT_DEVICE && hdr.method_id == UVERBS_METHOD_INVOKE_WRITE)
		return invoke_write(&iv, flags, v);
	if (hdr.object_id < ARRAY_SIZE(methods) && hdr.method_id < ARRAY_SIZE(methods[0])) {
		const struct method_desc *m = &methods[hdr.object_id][hdr.method_id];

		v->op = m->op;
		for (size_t k = 0; k < ARRAY_SIZE(m->attrs) && m->attrs[k].to_size; k++) {
			uint64_t x;

			if (attr_value(&iv, m->attrs[k].attr, &x))
				store_attr((uint8_t *)v + m->attrs[k].to, m->attrs[k].to_size, x);
		}
		if (m->decode)
			m->decode(&iv, v);
	}
	return flags | decode_access_known(v);
}
