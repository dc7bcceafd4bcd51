/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Pure decoder of the RDMA socket records (bpf/events.h struct rg_rec_sock): socket(), bind,
 * connect and accept of AF_RDS and SMC sockets, SOL_RDS options (SO_RDS_TRANSPORT, RDS_GET_MR,
 * RDS_GET_MR_FOR_DEST, RDS_FREE_MR) and the RDMA and atomic control messages of an RDS sendmsg().
 * No I/O, no allocation: a fuzzer drives it directly. Every byte is hostile: short buffers set
 * RG_EVF_TRUNC, inconsistent ones RG_EVF_MALFORMED, and nothing is read out of bounds. ABI:
 * linux/rds.h (numbers pinned with _Static_assert in decode_sock.c).
 */
#pragma once

#include <stddef.h>

#include "bpf/events.h"
#include "event/event.h"

/*
 * Fills ev->u.sock (and RG_EVF_* flags) from the record r, whose first size bytes were received.
 * The caller has set ev->type and ev->proc. Returns 1 when the event is to be reported, 0 when
 * the record holds no RDMA operation (a sendmsg() whose control messages ask for none),
 * -EBADMSG when the record itself is inconsistent.
 */
int decode_sock(const struct rg_rec_sock *r, size_t size, struct rg_event *ev);
