/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rg-memread-sim PID [DEVICE]: the VM lab's stand-in for a DMA cheat's reader
 * (tests/vm/scenarios/incidents.sh): registers 1 MiB of memory open to remote reads on an RDMA
 * device (default rxe0), then copies the first readable page of process PID's memory into it
 * with process_vm_readv(2), where a peer could read it over RDMA. Prints key=value facts
 * (pid, mr_length, rkey, bytes). Exit 0, or 1 with a message.
 */
#include <errno.h>
#include <infiniband/verbs.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#define MR_LENGTH (1u << 20)

static int die(const char *what)
{
	fprintf(stderr, "rg-memread-sim: %s: %s\n", what, strerror(errno));
	return 1;
}

/* The start of the first readable mapping of pid (its /proc/PID/maps). */
static int first_readable(pid_t pid, unsigned long *addr)
{
	char path[64], line[512], perm[8];
	unsigned long lo, hi;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%lx-%lx %7s", &lo, &hi, perm) == 3 && perm[0] == 'r') {
			*addr = lo;
			fclose(f);
			return 0;
		}
	fclose(f);
	errno = ENOENT;
	return -1;
}

int main(int argc, char **argv)
{
	const char *dev = argc > 2 ? argv[2] : "rxe0";
	struct ibv_device **list;
	struct ibv_context *ctx = NULL;
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	struct iovec local, remote;
	unsigned long addr;
	void *buf;
	ssize_t n;
	pid_t pid;
	int i, count;

	if (argc < 2 || (pid = (pid_t)atoi(argv[1])) <= 0) {
		fprintf(stderr, "usage: rg-memread-sim PID [DEVICE]\n");
		return 1;
	}
	list = ibv_get_device_list(&count);
	for (i = 0; list && i < count && !ctx; i++)
		if (strcmp(ibv_get_device_name(list[i]), dev) == 0)
			ctx = ibv_open_device(list[i]);
	if (!ctx)
		return die(dev);
	pd = ibv_alloc_pd(ctx);
	if (!pd)
		return die("ibv_alloc_pd");
	if (posix_memalign(&buf, 4096, MR_LENGTH))
		return die("posix_memalign");
	memset(buf, 0, MR_LENGTH);
	mr = ibv_reg_mr(pd, buf, MR_LENGTH, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ);
	if (!mr)
		return die("ibv_reg_mr");
	if (first_readable(pid, &addr) < 0)
		return die("/proc/PID/maps");
	local = (struct iovec){.iov_base = buf, .iov_len = 4096};
	remote = (struct iovec){.iov_base = (void *)addr, .iov_len = 4096};
	n = process_vm_readv(pid, &local, 1, &remote, 1, 0);
	if (n < 0)
		return die("process_vm_readv");
	printf("pid=%d\nmr_length=%u\nrkey=%" PRIu32 "\nbytes=%zd\n", (int)getpid(), MR_LENGTH,
	       mr->rkey, n);
	fflush(stdout);
	ibv_dereg_mr(mr);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	ibv_free_device_list(list);
	free(buf);
	return 0;
}
