/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Kernel RDMA through sockets, for the sensors' tests: AF_RDS over its IB transport (a region
 * exposed with RDS_GET_MR, an RDMA write and an RDS_CMSG_RDMA_MAP send to a peer socket, the
 * region freed) and an SMC stream (AF_SMC connect and accept). No library: the syscalls
 * themselves. Prints what the kernel answered as key=value lines, for the test to hold the
 * agent's records against.
 *
 * usage: rg-sock-probe attempts          socket(AF_RDS), socket(AF_SMC), socket(AF_INET,
 *                                        IPPROTO_SMC), and RDS_GET_MR on a UDP socket: whatever
 *                                        this kernel answers (no rds or smc: EAFNOSUPPORT)
 *        rg-sock-probe rds ADDR PORT     two RDS sockets on ADDR:PORT and ADDR:PORT+1
 *        rg-sock-probe smc ADDR PORT     an SMC listener on ADDR:PORT and a client
 * Exit 0 when every step the mode needs worked (attempts: always), 1 otherwise, 2 on bad usage.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/rds.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#ifndef AF_SMC
#define AF_SMC 43
#endif
#define IPPROTO_SMC_ 256

static void say_ret(const char *key, long ret)
{
	printf("%s=%ld\n", key, ret < 0 ? -(long)errno : ret);
	fflush(stdout);
}

static int attempts(void)
{
	struct rds_get_mr_args mr = {.vec = {.addr = 0x10000, .bytes = 4096}};
	int fd;

	printf("pid=%d\n", getpid());
	fd = socket(AF_RDS, SOCK_SEQPACKET, 0);
	say_ret("rds_socket", fd);
	if (fd >= 0)
		close(fd);
	fd = socket(AF_SMC, SOCK_STREAM, 0);
	say_ret("smc_socket", fd);
	if (fd >= 0)
		close(fd);
	fd = socket(AF_INET, SOCK_STREAM, IPPROTO_SMC_);
	say_ret("smc_inet_socket", fd);
	if (fd >= 0)
		close(fd);
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	say_ret("udp_fd", fd);
	if (fd < 0)
		return 1;
	say_ret("udp_get_mr", setsockopt(fd, SOL_RDS, RDS_GET_MR, &mr, sizeof(mr)));
	close(fd);
	return 0;
}

static int addr_of(const char *ip, int port, struct sockaddr_in *sin)
{
	memset(sin, 0, sizeof(*sin));
	sin->sin_family = AF_INET;
	sin->sin_port = htons((uint16_t)port);
	return inet_pton(AF_INET, ip, &sin->sin_addr) == 1 ? 0 : -1;
}

/* recv() on an RDS socket, giving up after 20 s (a lost message must not hang the test). */
static long recv_timeout(int fd)
{
	struct timeval tv = {.tv_sec = 20};
	char buf[64];

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	return recv(fd, buf, sizeof(buf), 0);
}

/* sendmsg() from fd to dst with one control message and a 4-byte payload. */
static long send_cmsg(int fd, const struct sockaddr_in *dst, int type, const void *arg, size_t len)
{
	union {
		char buf[CMSG_SPACE(sizeof(struct rds_rdma_args))];
		struct cmsghdr align;
	} ctl;
	char payload[4] = "rds";
	struct iovec iov = {.iov_base = payload, .iov_len = sizeof(payload)};
	struct msghdr m = {.msg_name = (void *)dst,
			   .msg_namelen = sizeof(*dst),
			   .msg_iov = &iov,
			   .msg_iovlen = 1,
			   .msg_control = ctl.buf,
			   .msg_controllen = CMSG_SPACE(len)};
	struct cmsghdr *c;

	memset(&ctl, 0, sizeof(ctl));
	c = CMSG_FIRSTHDR(&m);
	c->cmsg_level = SOL_RDS;
	c->cmsg_type = type;
	c->cmsg_len = CMSG_LEN(len);
	memcpy(CMSG_DATA(c), arg, len);
	return sendmsg(fd, &m, 0);
}

/*
 * Two RDS sockets on ip: a on port, b on port + 1, both on the IB transport. What rds_rdma does
 * with them on Debian's 6.1 (checked on rxe0): RDS_GET_MR needs the address to be a device's,
 * which it is once a connection from it is up (rds_ib_update_ipaddr()), and even then a device
 * with fast registration only (every device since FMR's removal) refuses it with EOPNOTSUPP
 * ("TODO: Add FRWR support for RDS_GET_MR using proxy qp", net/rds/ib_frmr.c): the probe tries
 * it on a and reports the answer. A region is exposed with RDS_CMSG_RDMA_MAP on a send over a
 * connection: b maps its region for a; a then RDMA-writes into it, named by the cookie the
 * kernel wrote to b; b frees it.
 */
static int rds(const char *ip, int port)
{
	struct sockaddr_in a_addr, b_addr;
	int a, b, trans = RDS_TRANS_IB, ok = 1;
	uint64_t cookie = 0, cookie_a = 0;
	uint8_t *region, *local;
	long r;

	if (addr_of(ip, port, &a_addr) < 0 || addr_of(ip, port + 1, &b_addr) < 0)
		return 2;
	region = mmap(NULL, 3 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (region == MAP_FAILED)
		return 1;
	local = region + 2 * 4096;
	memset(region, 0x11, 2 * 4096);
	memset(local, 0xa5, 4096);
	printf("pid=%d\nregion=%lu\nlocal=%lu\n", getpid(), (unsigned long)region,
	       (unsigned long)local);
	a = socket(AF_RDS, SOCK_SEQPACKET, 0);
	say_ret("a_fd", a);
	b = socket(AF_RDS, SOCK_SEQPACKET, 0);
	say_ret("b_fd", b);
	if (a < 0 || b < 0)
		return 1;
	say_ret("a_transport", setsockopt(a, SOL_RDS, SO_RDS_TRANSPORT, &trans, sizeof(trans)));
	say_ret("b_transport", setsockopt(b, SOL_RDS, SO_RDS_TRANSPORT, &trans, sizeof(trans)));
	r = bind(a, (struct sockaddr *)&a_addr, sizeof(a_addr));
	say_ret("a_bind", r);
	ok &= r == 0;
	r = bind(b, (struct sockaddr *)&b_addr, sizeof(b_addr));
	say_ret("b_bind", r);
	ok &= r == 0;
	/* the connection (one for the address pair, over rxe0 to itself) */
	r = sendto(b, "hello", 6, 0, (struct sockaddr *)&a_addr, sizeof(a_addr));
	say_ret("hello", r);
	r = recv_timeout(a);
	say_ret("hello_recv", r);
	ok &= r == 6;
	{
		struct rds_get_mr_args mr = {.vec = {.addr = (uintptr_t)local, .bytes = 4096},
					     .cookie_addr = (uintptr_t)&cookie_a};

		say_ret("get_mr", setsockopt(a, SOL_RDS, RDS_GET_MR, &mr, sizeof(mr)));
	}
	{
		struct rds_get_mr_args map = {.vec = {.addr = (uintptr_t)region, .bytes = 8192},
					      .cookie_addr = (uintptr_t)&cookie};

		r = send_cmsg(b, &a_addr, RDS_CMSG_RDMA_MAP, &map, sizeof(map));
		say_ret("rdma_map", r);
		ok &= r >= 0;
		say_ret("rdma_map_recv", recv_timeout(a));
		printf("cookie=%llu\n", (unsigned long long)cookie);
	}
	{
		struct rds_iovec liov = {.addr = (uintptr_t)local, .bytes = 4096};
		/* the remote address is an offset into the region: rds_rdma maps it zero-based
		 * (ib_map_mr_sg_zbva()) */
		struct rds_rdma_args ra = {.cookie = cookie,
					   .remote_vec = {.addr = 0, .bytes = 4096},
					   .local_vec_addr = (uintptr_t)&liov,
					   .nr_local = 1,
					   .flags = RDS_RDMA_READWRITE};

		r = send_cmsg(a, &b_addr, RDS_CMSG_RDMA_ARGS, &ra, sizeof(ra));
		say_ret("rdma_write", r);
		ok &= r >= 0;
		/* the payload is delivered after the RDMA write has completed */
		r = recv_timeout(b);
		say_ret("rdma_write_recv", r);
		ok &= r == 4;
	}
	{
		/* the same through sendmmsg(), into the region's second page */
		struct rds_iovec liov = {.addr = (uintptr_t)local, .bytes = 4096};
		struct rds_rdma_args ra = {.cookie = cookie,
					   .remote_vec = {.addr = 4096, .bytes = 4096},
					   .local_vec_addr = (uintptr_t)&liov,
					   .nr_local = 1,
					   .flags = RDS_RDMA_READWRITE};
		union {
			char buf[CMSG_SPACE(sizeof(ra))];
			struct cmsghdr align;
		} ctl;
		char payload[4] = "mms";
		struct iovec iov = {.iov_base = payload, .iov_len = sizeof(payload)};
		struct mmsghdr mm = {.msg_hdr = {.msg_name = &b_addr,
						 .msg_namelen = sizeof(b_addr),
						 .msg_iov = &iov,
						 .msg_iovlen = 1,
						 .msg_control = ctl.buf,
						 .msg_controllen = sizeof(ctl.buf)}};
		struct cmsghdr *c;

		memset(&ctl, 0, sizeof(ctl));
		c = CMSG_FIRSTHDR(&mm.msg_hdr);
		c->cmsg_level = SOL_RDS;
		c->cmsg_type = RDS_CMSG_RDMA_ARGS;
		c->cmsg_len = CMSG_LEN(sizeof(ra));
		memcpy(CMSG_DATA(c), &ra, sizeof(ra));
		r = sendmmsg(a, &mm, 1, 0);
		say_ret("rdma_write_mmsg", r);
		ok &= r == 1;
		printf("rdma_write_mmsg_len=%u\n", mm.msg_len);
		r = recv_timeout(b);
		say_ret("rdma_write_mmsg_recv", r);
		ok &= r == 4;
	}
	/* what reached b's region: a's 0xa5 bytes, put there by the RDMA writes */
	printf("region_byte=%u\nregion_byte2=%u\n", region[0], region[4096]);
	{
		struct rds_free_mr_args fr = {.cookie = cookie};

		say_ret("free_mr", setsockopt(b, SOL_RDS, RDS_FREE_MR, &fr, sizeof(fr)));
	}
	close(a);
	close(b);
	return ok ? 0 : 1;
}

static int smc(const char *ip, int port)
{
	struct sockaddr_in addr, peer, local;
	socklen_t plen = sizeof(peer), llen = sizeof(local);
	int l, c, s;
	char buf[8] = "smc";
	long r;

	if (addr_of(ip, port, &addr) < 0)
		return 2;
	printf("pid=%d\n", getpid());
	l = socket(AF_SMC, SOCK_STREAM, 0);
	say_ret("listen_fd", l);
	if (l < 0)
		return 1;
	setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &(int){1}, sizeof(int));
	r = bind(l, (struct sockaddr *)&addr, sizeof(addr));
	say_ret("bind", r);
	if (r < 0 || listen(l, 1) < 0)
		return 1;
	c = socket(AF_SMC, SOCK_STREAM, 0);
	say_ret("client_fd", c);
	if (c < 0)
		return 1;
	r = connect(c, (struct sockaddr *)&addr, sizeof(addr));
	say_ret("connect", r);
	if (r < 0)
		return 1;
	if (getsockname(c, (struct sockaddr *)&local, &llen) == 0)
		printf("client_port=%u\n", ntohs(local.sin_port));
	s = accept(l, (struct sockaddr *)&peer, &plen);
	say_ret("accept", s);
	if (s < 0)
		return 1;
	printf("peer_port=%u\n", ntohs(peer.sin_port));
	say_ret("send", send(c, buf, 4, 0));
	say_ret("recv", recv(s, buf, sizeof(buf), 0));
	close(s);
	close(c);
	close(l);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 2 && strcmp(argv[1], "attempts") == 0)
		return attempts();
	if (argc == 4 && strcmp(argv[1], "rds") == 0)
		return rds(argv[2], atoi(argv[3]));
	if (argc == 4 && strcmp(argv[1], "smc") == 0)
		return smc(argv[2], atoi(argv[3]));
	fprintf(stderr, "usage: %s attempts | rds ADDR PORT | smc ADDR PORT\n", argv[0]);
	return 2;
}
