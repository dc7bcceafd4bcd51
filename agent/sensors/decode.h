/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Pure decoders of the RDMA userspace ABI, from the raw bytes the BPF sensors copied (bounded)
 * out of the calling process. No I/O, no allocation, no global state: a fuzzer drives them
 * directly. Every byte is hostile: short, truncated or inconsistent buffers set RG_EVF_TRUNC
 * (the bytes needed were not there) or RG_EVF_MALFORMED (the header is inconsistent, the kernel
 * would refuse it), leave the fields they could not read at zero, and never read out of bounds.
 *
 * ABI references: rdma/ib_user_ioctl_cmds.h, rdma/ib_user_verbs.h, rdma/rdma_user_cm.h (their
 * numbers are pinned with _Static_assert in decode_verbs_cmd.c, decode_verbs_ioctl.c and
 * decode_rdma_cm.c) and docs/verbs-abi.md.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "event/event.h"

/* The contents of a pointer attribute of an RDMA_VERBS_IOCTL call. */
struct uverbs_blob {
	uint16_t attr; /* index of the attribute in the call's attribute array */
	uint16_t len;  /* bytes in data (may be fewer than the attribute's len: cut by the copy) */
	const uint8_t *data;
};

/*
 * ioctl(fd, RDMA_VERBS_IOCTL, buf): buf holds struct ib_uverbs_ioctl_hdr and the attributes
 * (len bytes of them were copied), blobs the contents of attributes that point to user memory:
 * inputs longer than 8 bytes, and outputs (always pointers) such as CORE_OUT and the new QP number,
 * which are meaningful only for a call that succeeded.
 * Fills op, via (ioctl, or invoke_write for a tunnelled legacy command), object_id, method_id,
 * write_cmd, driver_id, handle and the MR/QP fields. Returns RG_EVF_* flags (0 if clean).
 */
uint32_t decode_uverbs_ioctl(const void *buf, size_t len, const struct uverbs_blob *blobs,
			     size_t nblobs, struct rg_ev_verbs *v);

/*
 * write(fd, buf, count) on a uverbs fd: buf holds the first len bytes of the caller's count,
 * resp (resp_len bytes, may be NULL) what the kernel wrote to the command's response buffer.
 */
uint32_t decode_uverbs_write(const void *buf, size_t len, uint64_t count, const void *resp,
			     size_t resp_len, struct rg_ev_verbs *v);

/*
 * A legacy command (struct ib_uverbs_* without its headers), as tunnelled by INVOKE_WRITE or
 * written: cmd is the command word (IB_USER_VERBS_CMD_*, | 0x80000000 for extended ones).
 */
uint32_t decode_uverbs_cmd(uint32_t cmd, const void *body, size_t body_len, const void *resp,
			   size_t resp_len, struct rg_ev_verbs *v);

/* write(fd, buf, count) on /dev/infiniband/rdma_cm (struct rdma_ucm_cmd_hdr + command). */
uint32_t decode_rdma_cm_write(const void *buf, size_t len, uint64_t count, const void *resp,
			      size_t resp_len, struct rg_ev_rdma_cm *cm);

/* A struct sockaddr (AF_INET, AF_INET6, AF_IB) of at most len bytes. Returns RG_EVF_* flags. */
uint32_t decode_sockaddr(const void *buf, size_t len, struct rg_addr *a);
