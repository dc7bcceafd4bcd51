/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * write() on /dev/infiniband/rdma_cm (struct rdma_ucm_cmd_hdr and the command after it), and the
 * socket addresses its commands carry (also those of the sockets sensor, decode_sock.c). One
 * table row per command says which of its fields and addresses the event takes. Field positions
 * come from the installed uapi headers (offsetof), the command numbers are pinned below.
 */
#include <netinet/in.h> /* before the uapi headers: linux/libc-compat.h then skips in6 */
#include <string.h>
#include <sys/socket.h>

#include <rdma/rdma_user_cm.h>

#include "bpf/events.h"
#include "common/macro.h"
#include "decode-internal.h"

#ifndef AF_IB
#define AF_IB 27
#endif

/* ---- ABI numbers, checked against the headers (docs/verbs-abi.md, bpf/events.h) ---- */
_Static_assert(sizeof(struct rdma_ucm_cmd_hdr) == 8, "cm hdr");
_Static_assert(RDMA_USER_CM_CMD_CREATE_ID == RG_ABI_CM_CREATE_ID, "cm create_id");
_Static_assert(offsetof(struct rdma_ucm_create_id, response) == 8, "create_id response (BPF)");
_Static_assert(RDMA_USER_CM_CMD_BIND_IP == 2 && RDMA_USER_CM_CMD_RESOLVE_IP == 3 &&
		   RDMA_USER_CM_CMD_RESOLVE_ROUTE == 4 && RDMA_USER_CM_CMD_CONNECT == 6 &&
		   RDMA_USER_CM_CMD_LISTEN == 7 && RDMA_USER_CM_CMD_ACCEPT == 8 &&
		   RDMA_USER_CM_CMD_RESOLVE_ADDR == 21,
	       "cm commands per docs/verbs-abi.md");
_Static_assert(offsetof(struct rdma_ucm_destroy_id, response) == 0 &&
		   offsetof(struct rdma_ucm_bind_ip, response) == 0 &&
		   offsetof(struct rdma_ucm_query, response) == 0,
	       "cm response first (BPF)");

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

/* A socket address in the command, into the event's source or destination. */
struct cm_addr {
	uint16_t from, size; /* in the command; size 0 ends a list */
	uint16_t to;	     /* offsetof(struct rg_ev_rdma_cm, src or dst) */
};

/* Field F of struct T into the event's field D. */
#define CM_COPY(T, F, D) FIELD_COPY(T, F, struct rg_ev_rdma_cm, D)
/* The sockaddr F of struct T into the event's src or dst. */
#define CM_ADDR(T, F, D)                                                                           \
	{                                                                                          \
		.from = offsetof(T, F), .size = FIELD_SIZE(T, F),                                  \
		.to = offsetof(struct rg_ev_rdma_cm, D),                                           \
	}

/* A command: its op, the ids and numbers it carries, its addresses, what its response says. */
struct cm_desc {
	uint32_t op; /* enum rg_cm_op; RG_CM_OTHER (0): none (QUERY is one) */
	struct field_copy in[2];
	struct cm_addr addrs[2];
	struct field_copy out[1];
	/* what a copy cannot say; returns RG_EVF_* flags */
	uint32_t (*decode)(const uint8_t *body, size_t blen, const uint8_t *resp, size_t rlen,
			   struct rg_ev_rdma_cm *cm);
};

/* QUERY(ADDR) is how the passive side learns its peer's address: both, from the response. */
static uint32_t query_addr(const uint8_t *body, size_t blen, const uint8_t *resp, size_t rlen,
			   struct rg_ev_rdma_cm *cm)
{
	uint32_t option, f = 0;

	if (!rdn(body, blen, offsetof(struct rdma_ucm_query, option), &option, 4) ||
	    option != RDMA_USER_CM_QUERY_ADDR || !resp || !rlen)
		return 0;
	f |= sockaddr_at(resp, rlen, offsetof(struct rdma_ucm_query_addr_resp, src_addr),
			 sizeof(struct __kernel_sockaddr_storage), &cm->src);
	f |= sockaddr_at(resp, rlen, offsetof(struct rdma_ucm_query_addr_resp, dst_addr),
			 sizeof(struct __kernel_sockaddr_storage), &cm->dst);
	return f & RG_EVF_MALFORMED;
}

static const struct cm_desc cm_cmds[] = {
    [RDMA_USER_CM_CMD_CREATE_ID] = {RG_CM_CREATE_ID,
				    .in = {CM_COPY(struct rdma_ucm_create_id, ps, port_space)},
				    .out = {CM_COPY(struct rdma_ucm_create_id_resp, id, id)}},
    [RDMA_USER_CM_CMD_DESTROY_ID] = {RG_CM_DESTROY_ID,
				     .in = {CM_COPY(struct rdma_ucm_destroy_id, id, id)}},
    [RDMA_USER_CM_CMD_BIND_IP] = {RG_CM_BIND_IP, .in = {CM_COPY(struct rdma_ucm_bind_ip, id, id)},
				  .addrs = {CM_ADDR(struct rdma_ucm_bind_ip, addr, src)}},
    [RDMA_USER_CM_CMD_BIND] = {RG_CM_BIND, .in = {CM_COPY(struct rdma_ucm_bind, id, id)},
			       .addrs = {CM_ADDR(struct rdma_ucm_bind, addr, src)}},
    [RDMA_USER_CM_CMD_RESOLVE_IP] = {RG_CM_RESOLVE_IP,
				     .in = {CM_COPY(struct rdma_ucm_resolve_ip, id, id)},
				     .addrs = {CM_ADDR(struct rdma_ucm_resolve_ip, src_addr, src),
					       CM_ADDR(struct rdma_ucm_resolve_ip, dst_addr, dst)}},
    [RDMA_USER_CM_CMD_RESOLVE_ADDR] =
	{RG_CM_RESOLVE_ADDR, .in = {CM_COPY(struct rdma_ucm_resolve_addr, id, id)},
	 .addrs = {CM_ADDR(struct rdma_ucm_resolve_addr, src_addr, src),
		   CM_ADDR(struct rdma_ucm_resolve_addr, dst_addr, dst)}},
    [RDMA_USER_CM_CMD_RESOLVE_ROUTE] = {RG_CM_RESOLVE_ROUTE,
					.in = {CM_COPY(struct rdma_ucm_resolve_route, id, id)}},
    [RDMA_USER_CM_CMD_CONNECT] = {RG_CM_CONNECT, .in = {CM_COPY(struct rdma_ucm_connect, id, id)}},
    [RDMA_USER_CM_CMD_LISTEN] = {RG_CM_LISTEN,
				 .in = {CM_COPY(struct rdma_ucm_listen, id, id),
					CM_COPY(struct rdma_ucm_listen, backlog, backlog)}},
    [RDMA_USER_CM_CMD_ACCEPT] = {RG_CM_ACCEPT, .in = {CM_COPY(struct rdma_ucm_accept, id, id)}},
    [RDMA_USER_CM_CMD_DISCONNECT] = {RG_CM_DISCONNECT,
				     .in = {CM_COPY(struct rdma_ucm_disconnect, id, id)}},
    [RDMA_USER_CM_CMD_QUERY] = {RG_CM_OTHER, .in = {CM_COPY(struct rdma_ucm_query, id, id)},
				.decode = query_addr},
};

uint32_t decode_rdma_cm_write(const void *buf_, size_t len, uint64_t count, const void *resp_,
			      size_t rlen, struct rg_ev_rdma_cm *cm)
{
	static const struct cm_desc none = {RG_CM_OTHER};
	const uint8_t *buf = buf_, *resp = resp_, *body;
	const struct cm_desc *d = &none;
	struct rdma_ucm_cmd_hdr hdr;
	uint32_t flags = 0;
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

	if (hdr.cmd < ARRAY_SIZE(cm_cmds))
		d = &cm_cmds[hdr.cmd];
	cm->op = d->op;
	if (!decode_copy_fields(body, blen, d->in, ARRAY_SIZE(d->in), cm))
		flags |= RG_EVF_TRUNC;
	for (size_t i = 0; i < ARRAY_SIZE(d->addrs) && d->addrs[i].size; i++)
		flags |= sockaddr_at(body, blen, d->addrs[i].from, d->addrs[i].size,
				     (struct rg_addr *)((uint8_t *)cm + d->addrs[i].to));
	if (resp && rlen)
		(void)decode_copy_fields(resp, rlen, d->out, ARRAY_SIZE(d->out), cm);
	if (d->decode)
		flags |= d->decode(body, blen, resp, rlen, cm);
	return flags;
}
