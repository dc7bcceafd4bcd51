/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Decoding of the RDMA socket records: decode_sock.h says what and how.
 */
#include <errno.h>
#include <linux/rds.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

#include "common/macro.h"
#include "decode.h"
#include "decode_sock.h"

/* The numbers the BPF side filters on, and the layouts read here. */
_Static_assert(RG_ABI_AF_RDS == AF_RDS && RG_ABI_AF_SMC == AF_SMC && RG_ABI_AF_INET == AF_INET &&
		   RG_ABI_AF_INET6 == AF_INET6,
	       "address families");
_Static_assert(RG_ABI_SOL_RDS == SOL_RDS && RG_ABI_RDS_GET_MR == RDS_GET_MR &&
		   RG_ABI_RDS_GET_MR_FOR_DEST == RDS_GET_MR_FOR_DEST,
	       "SOL_RDS options");
_Static_assert(RG_ABI_RDS_GET_MR_COOKIE_OFF == offsetof(struct rds_get_mr_args, cookie_addr) &&
		   RG_ABI_RDS_GET_MR_FOR_DEST_COOKIE_OFF ==
		       offsetof(struct rds_get_mr_for_dest_args, cookie_addr),
	       "cookie_addr offsets");
_Static_assert(RG_REC_SOCKDATA >= sizeof(struct rds_get_mr_for_dest_args), "optval copy");
_Static_assert(sizeof(struct rds_get_mr_args) == 32 && sizeof(struct rds_free_mr_args) == 16 &&
		   sizeof(struct rds_rdma_args) == 56 && sizeof(struct rds_atomic_args) == 72,
	       "RDS argument sizes");
_Static_assert(RDS_TRANS_IB == 0 && RDS_TRANS_TCP == 2 && RDS_TRANS_IWARP == 1,
	       "rg_rds_transport follows RDS_TRANS_*");
_Static_assert(sizeof(struct cmsghdr) == 16, "cmsghdr (64-bit)");

/* IB_ACCESS_* of every region rds_rdma registers (net/rds/ib_frmr.c, rds_ib_post_reg_frmr()):
 * what a peer may do with it, whatever the caller asked. */
#define RDS_MR_ACCESS (RG_ACCESS_LOCAL_WRITE | RG_ACCESS_REMOTE_READ | RG_ACCESS_REMOTE_WRITE)

static uint64_t get64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static uint32_t get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static uint32_t family_of(uint32_t family, uint32_t protocol)
{
	if (family == AF_RDS)
		return RG_SOCK_FAMILY_RDS;
	if (family == AF_SMC ||
	    ((family == AF_INET || family == AF_INET6) && protocol == RG_ABI_IPPROTO_SMC))
		return RG_SOCK_FAMILY_SMC;
	return RG_SOCK_FAMILY_OTHER;
}

static void set_addr(const struct rg_rec_sock *r, struct rg_addr *a, struct rg_event *ev)
{
	size_t n = MIN((size_t)r->addr_len, sizeof(r->addr));

	if (n)
		ev->flags |= decode_sockaddr(r->addr, n, a);
}

/* The region of a struct rds_get_mr_args (GET_MR, RDMA_MAP) at p. */
static void mr_args(const uint8_t *p, struct rg_ev_sock *s)
{
	s->mr_addr = get64(p + offsetof(struct rds_get_mr_args, vec.addr));
	s->mr_length = get64(p + offsetof(struct rds_get_mr_args, vec.bytes));
	s->rdma_flags = (uint32_t)get64(p + offsetof(struct rds_get_mr_args, flags));
	s->mr_access = RDS_MR_ACCESS;
}

static int decode_option(const struct rg_rec_sock *r, const uint8_t *d, size_t n,
			 struct rg_event *ev)
{
	struct rg_ev_sock *s = &ev->u.sock;
	int32_t t;

	s->option = r->optname;
	switch (r->optname) {
	case SO_RDS_TRANSPORT:
		s->op = RG_SOCK_OP_SET_TRANSPORT;
		if (n < sizeof(t)) {
			ev->flags |= RG_EVF_TRUNC;
			break;
		}
		memcpy(&t, d, sizeof(t));
		s->transport = t == RDS_TRANS_IB	      ? RG_RDS_TRANS_IB
			       : t == RDS_TRANS_IWARP	      ? RG_RDS_TRANS_IWARP
			       : t == RDS_TRANS_TCP	      ? RG_RDS_TRANS_TCP
			       : t == (int32_t)RDS_TRANS_NONE ? RG_RDS_TRANS_UNSET
							      : RG_RDS_TRANS_OTHER;
		break;
	case RDS_GET_MR:
		s->op = RG_SOCK_OP_GET_MR;
		if (n < sizeof(struct rds_get_mr_args)) {
			ev->flags |= RG_EVF_TRUNC;
			break;
		}
		mr_args(d, s);
		s->cookie = r->cookie;
		break;
	case RDS_GET_MR_FOR_DEST:
		s->op = RG_SOCK_OP_GET_MR_FOR_DEST;
		if (n < sizeof(struct rds_get_mr_for_dest_args)) {
			ev->flags |= RG_EVF_TRUNC;
			break;
		}
		ev->flags |= decode_sockaddr(d, sizeof(struct __kernel_sockaddr_storage), &s->peer);
		mr_args(d + offsetof(struct rds_get_mr_for_dest_args, vec), s);
		s->cookie = r->cookie;
		break;
	case RDS_FREE_MR:
		s->op = RG_SOCK_OP_FREE_MR;
		if (n < sizeof(struct rds_free_mr_args)) {
			ev->flags |= RG_EVF_TRUNC;
			break;
		}
		s->cookie = get64(d + offsetof(struct rds_free_mr_args, cookie));
		s->rdma_flags = (uint32_t)get64(d + offsetof(struct rds_free_mr_args, flags));
		break;
	default:
		s->op = RG_SOCK_OP_OTHER;
		break;
	}
	return 1;
}

/* Which operation a sendmsg() stands for when it carries several: the one that exposes or moves
 * the most (a region mapped with the send, then writes, atomics, reads, a named region). */
static const uint8_t op_rank[RG_SOCK_OP__MAX] = {
    [RG_SOCK_OP_RDMA_MAP] = 5,	[RG_SOCK_OP_RDMA_WRITE] = 4, [RG_SOCK_OP_RDMA_ATOMIC] = 3,
    [RG_SOCK_OP_RDMA_READ] = 2, [RG_SOCK_OP_RDMA_DEST] = 1,
};

static int decode_cmsgs(const uint8_t *d, size_t n, bool cut, struct rg_event *ev)
{
	struct rg_ev_sock *s = &ev->u.sock;
	size_t off = 0;

	if (cut) /* the control bytes past n were not copied */
		ev->flags |= RG_EVF_TRUNC;
	while (off + sizeof(struct cmsghdr) <= n) {
		uint64_t clen = get64(d + off);
		uint32_t level = get32(d + off + 8), type = get32(d + off + 12);
		const uint8_t *p = d + off + sizeof(struct cmsghdr);
		size_t plen;
		uint32_t op = RG_SOCK_OP_OTHER;

		if (clen < sizeof(struct cmsghdr)) {
			ev->flags |= RG_EVF_MALFORMED;
			break;
		}
		if (clen > n - off) {
			if (!cut)
				ev->flags |= RG_EVF_MALFORMED;
			break;
		}
		plen = (size_t)clen - sizeof(struct cmsghdr);
		if (level == SOL_RDS) {
			switch (type) {
			case RDS_CMSG_RDMA_ARGS:
				if (plen < sizeof(struct rds_rdma_args))
					goto short_arg;
				op = (get64(p + offsetof(struct rds_rdma_args, flags)) &
				      RDS_RDMA_READWRITE)
					 ? RG_SOCK_OP_RDMA_WRITE
					 : RG_SOCK_OP_RDMA_READ;
				break;
			case RDS_CMSG_RDMA_DEST:
				if (plen < sizeof(uint64_t))
					goto short_arg;
				op = RG_SOCK_OP_RDMA_DEST;
				break;
			case RDS_CMSG_RDMA_MAP:
				if (plen < sizeof(struct rds_get_mr_args))
					goto short_arg;
				op = RG_SOCK_OP_RDMA_MAP;
				break;
			case RDS_CMSG_ATOMIC_FADD:
			case RDS_CMSG_ATOMIC_CSWP:
			case RDS_CMSG_MASKED_ATOMIC_FADD:
			case RDS_CMSG_MASKED_ATOMIC_CSWP:
				if (plen < sizeof(struct rds_atomic_args))
					goto short_arg;
				op = RG_SOCK_OP_RDMA_ATOMIC;
				break;
			default:
				break;
			}
		}
		if (op != RG_SOCK_OP_OTHER) {
			s->cmsgs++;
			if (op_rank[op] > op_rank[s->op]) {
				s->op = op;
				switch (op) {
				case RG_SOCK_OP_RDMA_WRITE:
				case RG_SOCK_OP_RDMA_READ:
					s->cookie =
					    get64(p + offsetof(struct rds_rdma_args, cookie));
					s->remote_addr = get64(
					    p + offsetof(struct rds_rdma_args, remote_vec.addr));
					s->remote_length = get64(
					    p + offsetof(struct rds_rdma_args, remote_vec.bytes));
					s->rdma_flags = (uint32_t)get64(
					    p + offsetof(struct rds_rdma_args, flags));
					break;
				case RG_SOCK_OP_RDMA_ATOMIC:
					s->cookie =
					    get64(p + offsetof(struct rds_atomic_args, cookie));
					s->remote_addr = get64(
					    p + offsetof(struct rds_atomic_args, remote_addr));
					s->remote_length = sizeof(uint64_t);
					s->rdma_flags = (uint32_t)get64(
					    p + offsetof(struct rds_atomic_args, flags));
					break;
				case RG_SOCK_OP_RDMA_MAP:
					s->cookie = 0;
					mr_args(p, s);
					break;
				default: /* RDMA_DEST */
					s->cookie = get64(p);
					break;
				}
			}
		}
		/* CMSG_NXTHDR: the next header starts at the aligned length */
		clen = (clen + sizeof(size_t) - 1) & ~(uint64_t)(sizeof(size_t) - 1);
		if (clen >= n - off)
			break;
		off += (size_t)clen;
		continue;
	short_arg:
		ev->flags |= RG_EVF_MALFORMED;
		break;
	}
	return s->cmsgs ? 1 : 0;
}

int decode_sock(const struct rg_rec_sock *r, size_t size, struct rg_event *ev)
{
	struct rg_ev_sock *s = &ev->u.sock;
	size_t n;

	if (!r || size < sizeof(*r))
		return -EBADMSG;
	n = MIN((size_t)r->data_len, sizeof(r->data));
	if (r->h.flags & RG_RECF_TRUNC)
		ev->flags |= RG_EVF_TRUNC;
	s->fd = r->fd;
	s->ret = 0;
	if (r->ret < 0) {
		s->ret = r->ret < INT32_MIN ? INT32_MIN : (int32_t)r->ret;
		ev->flags |= RG_EVF_FAILED;
	}
	s->family = family_of(r->family, r->protocol);
	s->type = r->call == RG_SOCK_SOCKET ? (r->type & 0xf) : r->type; /* less SOCK_CLOEXEC... */
	s->protocol = r->protocol;
	switch (r->call) {
	case RG_SOCK_SOCKET:
		if (s->family == RG_SOCK_FAMILY_OTHER)
			return -EBADMSG; /* the BPF side reports only these */
		s->op = RG_SOCK_OP_SOCKET;
		return 1;
	case RG_SOCK_BIND:
		s->op = RG_SOCK_OP_BIND;
		set_addr(r, &s->local, ev);
		return 1;
	case RG_SOCK_CONNECT:
		s->op = RG_SOCK_OP_CONNECT;
		set_addr(r, &s->peer, ev);
		return 1;
	case RG_SOCK_ACCEPT:
		s->op = RG_SOCK_OP_ACCEPT;
		set_addr(r, &s->peer, ev);
		return 1;
	case RG_SOCK_SETSOCKOPT:
		if (r->level != SOL_RDS)
			return -EBADMSG;
		return decode_option(r, r->data, n, ev);
	case RG_SOCK_SENDMSG:
		set_addr(r, &s->peer, ev);
		return decode_cmsgs(r->data, n, n < r->optlen, ev);
	default:
		return -EBADMSG;
	}
}
