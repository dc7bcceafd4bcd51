/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * write() on /dev/infiniband/rdma_cm (struct rdma_ucm_cmd_hdr and the command after it), and the
 * socket addresses its commands carry (also those of the sockets sensor, decode_sock.c). Field
 * positions come from the installed uapi headers (offsetof), the command numbers are pinned below.
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

/* ---- ABI numbers, checked against the headers (rdma-abi.md §1-3, bpf/events.h) ---- */
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
