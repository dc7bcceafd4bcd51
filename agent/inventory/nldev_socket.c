/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Asking the kernel for its RDMA resource tables: NETLINK_RDMA, one RDMA_NLDEV_CMD_GET dump for the
 * device list, then for each device one dump per table (the kernel requires DEV_INDEX on resource
 * dumps). Replies go to the pure parser (nldev.c). Every receive has a timeout and every dump a
 * byte budget, so a misbehaving kernel cannot hang or bloat the agent.
 */
#include <errno.h>
#include <libmnl/libmnl.h>
#include <linux/netlink.h>
#include <rdma/rdma_netlink.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>

#include "common/log.h"
#include "inventory/nldev.h"

#define RECV_BUF (64 * 1024)

static const unsigned table_ops[NLDEV_T__MAX] = {
	[NLDEV_T_QP] = RDMA_NLDEV_CMD_RES_QP_GET,
	[NLDEV_T_MR] = RDMA_NLDEV_CMD_RES_MR_GET,
	[NLDEV_T_PD] = RDMA_NLDEV_CMD_RES_PD_GET,
	[NLDEV_T_CTX] = RDMA_NLDEV_CMD_RES_CTX_GET,
	[NLDEV_T_CM_ID] = RDMA_NLDEV_CMD_RES_CM_ID_GET,
};

static int dump(struct mnl_socket *nl, unsigned portid, uint32_t seq, unsigned op, bool with_dev,
		uint32_t dev_index, char *rbuf, struct nldev_tables *t)
{
	char req[MNL_NLMSG_HDRLEN + 64];
	struct nlmsghdr *nlh;
	size_t total = 0;

	memset(req, 0, sizeof(req));
	nlh = mnl_nlmsg_put_header(req);
	nlh->nlmsg_type = RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, op);
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	nlh->nlmsg_seq = seq;
	if (with_dev)
		mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_DEV_INDEX, dev_index);
	if (mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0)
		return -errno;
	t->last_op = (int)op;

	for (;;) {
		ssize_t n = mnl_socket_recvfrom(nl, rbuf, RECV_BUF);
		const struct nlmsghdr *m;
		int left;

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return errno == EAGAIN || errno == EWOULDBLOCK ? -ETIMEDOUT : -errno;
		}
		if (n == 0)
			return -ECONNRESET;
		total += (size_t)n;
		if (total > NLDEV_MAX_BYTES)
			return -EFBIG;
		left = (int)n;
		for (m = (const struct nlmsghdr *)rbuf; mnl_nlmsg_ok(m, left);
		     m = mnl_nlmsg_next(m, &left)) {
			int r;

			/* Only replies to this request. */
			if (m->nlmsg_seq != seq || (m->nlmsg_pid && m->nlmsg_pid != portid))
				continue;
			t->last_op = (int)op;
			r = nldev_parse_msg(m, m->nlmsg_len, t);
			if (r < 0)
				return r;
			if (r > 0)
				return 0;
		}
	}
}

int nldev_dump(struct nldev_tables **ret)
{
	_cleanup_(nldev_tables_freep) struct nldev_tables *t = NULL;
	struct mnl_socket *nl;
	struct timeval tv = {.tv_sec = NLDEV_TIMEOUT_MS / 1000,
			     .tv_usec = (NLDEV_TIMEOUT_MS % 1000) * 1000};
	char *rbuf;
	unsigned portid, i, k;
	uint32_t seq = (uint32_t)time(NULL);
	int r;

	t = nldev_tables_new();
	rbuf = malloc(RECV_BUF);
	if (!t || !rbuf) {
		free(rbuf);
		return -ENOMEM;
	}
	nl = mnl_socket_open2(NETLINK_RDMA, SOCK_CLOEXEC);
	if (!nl) {
		r = -errno;
		free(rbuf);
		return r;
	}
	if (setsockopt(mnl_socket_get_fd(nl), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0 ||
	    mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		r = -errno;
		goto out;
	}
	portid = mnl_socket_get_portid(nl);

	r = dump(nl, portid, ++seq, RDMA_NLDEV_CMD_GET, false, 0, rbuf, t);
	if (r < 0) {
		log_debug_errno(r, "RDMA netlink device dump failed: %m");
		goto out;
	}
	for (i = 0; i < t->n_devs; i++) {
		for (k = 0; k < NLDEV_T__MAX; k++) {
			if (t->table_error[k])
				continue; /* the kernel refused this table for another device */
			r = dump(nl, portid, ++seq, table_ops[k], true, t->devs[i].index, rbuf, t);
			if (r < 0) {
				/* A broken dump of one table does not lose the others. */
				t->table_error[k] = r;
				log_debug_errno(r, "RDMA netlink %s dump of %s failed: %m",
						nldev_table_name(k), t->devs[i].name);
			}
		}
	}
	r = 0;
	*ret = TAKE_PTR(t);
out:
	mnl_socket_close(nl);
	free(rbuf);
	return r;
}
