/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rg-edu-dma: drives the DMA engine of qemu's `edu` card from user space, as a DMA-card cheat
 * would drive its FPGA, for the VM lab's hardware scenarios (tests/vm/scenarios/hw-*.sh). As root
 * in the guest: it sets bus mastering in the function's command register (a 2-byte write to its
 * `config` file), maps `resource0` and writes the DMA registers of qemu's docs/specs/edu.rst:
 * 0x80 source, 0x88 destination, 0x90 count, 0x98 command (bit 0 start, bit 1 card -> RAM).
 * The card's 4 KiB buffer is at card address 0x40000.
 *
 *   rg-edu-dma ADDR read IOVA     card reads 64 bytes at IOVA into its buffer (no check: with the
 *                                 IOMMU on, the kernel logs a DMAR fault for it)
 *   rg-edu-dma ADDR copy          the proof that DMA reaches memory: a page of the tool's own
 *                                 memory (physical address from /proc/self/pagemap) is copied
 *                                 (2 KiB) into the card and back into a second page; exit 0 when the
 *                                 second page then holds the first one's bytes, 1 when not
 *   rg-edu-dma ADDR master        print the bus-master bit (0 or 1) without changing it
 *
 * `read` and `copy` set bus mastering first unless --no-master is given (the enforcement
 * scenario checks that a cleared bit stops the card). Exit 2: usage or set-up error.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define EDU_BAR_SIZE	0x100000
#define EDU_IDENT	0x00
#define EDU_DMA_SRC	0x80
#define EDU_DMA_DST	0x88
#define EDU_DMA_CNT	0x90
#define EDU_DMA_CMD	0x98
#define EDU_DMA_RUN	0x1
#define EDU_DMA_TO_RAM	0x2
#define EDU_BUF		0x40000
#define COPY_LEN	2048
#define PCI_COMMAND	0x04
#define PCI_CMD_MASTER	0x4

static char sysdir[128];

static int die(const char *what)
{
	fprintf(stderr, "rg-edu-dma: %s: %s\n", what, strerror(errno));
	return 2;
}

static int command_reg(uint16_t *cmd, const uint16_t *set)
{
	char path[160];
	int fd, r = 0;

	snprintf(path, sizeof(path), "%s/config", sysdir);
	fd = open(path, (set ? O_RDWR : O_RDONLY) | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (set && pwrite(fd, set, 2, PCI_COMMAND) != 2)
		r = -errno;
	if (!r && pread(fd, cmd, 2, PCI_COMMAND) != 2)
		r = -EIO;
	close(fd);
	return r;
}

static uint64_t phys_of(const void *p)
{
	uint64_t e = 0, vpn = (uintptr_t)p / 4096;
	int fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	if (pread(fd, &e, 8, (off_t)(vpn * 8)) != 8)
		e = 0;
	close(fd);
	/* bit 63 present; bits 0-54 the PFN (0 without CAP_SYS_ADMIN) */
	if (!(e & (1ull << 63)) || !(e & ((1ull << 55) - 1)))
		return 0;
	return (e & ((1ull << 55) - 1)) * 4096;
}

static int dma(volatile uint8_t *bar, uint64_t src, uint64_t dst, uint64_t cnt, uint64_t cmd)
{
	struct timespec ts = {0, 20 * 1000 * 1000};

	*(volatile uint64_t *)(bar + EDU_DMA_SRC) = src;
	*(volatile uint64_t *)(bar + EDU_DMA_DST) = dst;
	*(volatile uint64_t *)(bar + EDU_DMA_CNT) = cnt;
	*(volatile uint64_t *)(bar + EDU_DMA_CMD) = cmd | EDU_DMA_RUN;
	/* the card starts its transfer 100 ms (virtual clock) later and clears RUN when done */
	for (int i = 0; i < 1500; i++) {
		if (!(*(volatile uint64_t *)(bar + EDU_DMA_CMD) & EDU_DMA_RUN))
			return 0;
		nanosleep(&ts, NULL);
	}
	fprintf(stderr, "rg-edu-dma: the DMA did not finish within 30 s\n");
	return -ETIMEDOUT;
}

int main(int argc, char **argv)
{
	bool master = true;
	volatile uint8_t *bar;
	uint16_t cmd;
	char path[160];
	int fd, r, a = 1;

	if (argc > 1 && strcmp(argv[1], "--no-master") == 0) {
		master = false;
		a++;
	}
	if (argc - a < 2 || strlen(argv[a]) > 16 || strchr(argv[a], '/')) {
		fprintf(stderr, "usage: rg-edu-dma [--no-master] ADDR (read IOVA | copy | master)\n");
		return 2;
	}
	snprintf(sysdir, sizeof(sysdir), "/sys/bus/pci/devices/%s", argv[a]);
	r = command_reg(&cmd, NULL);
	if (r < 0) {
		errno = -r;
		return die("reading the command register");
	}
	if (strcmp(argv[a + 1], "master") == 0) {
		printf("%d\n", !!(cmd & PCI_CMD_MASTER));
		return 0;
	}
	if (master) {
		uint16_t want = cmd | PCI_CMD_MASTER | 0x2; /* bus master, memory space */

		r = command_reg(&cmd, &want);
		if (r < 0) {
			errno = -r;
			return die("setting bus mastering");
		}
	}
	snprintf(path, sizeof(path), "%s/resource0", sysdir);
	fd = open(path, O_RDWR | O_SYNC | O_CLOEXEC);
	if (fd < 0)
		return die(path);
	bar = mmap(NULL, EDU_BAR_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (bar == MAP_FAILED)
		return die("mmap resource0");
	if ((*(volatile uint32_t *)(bar + EDU_IDENT) & 0xff) != 0xed) {
		fprintf(stderr, "rg-edu-dma: %s is not an edu card (ident %#x)\n", argv[a],
			*(volatile uint32_t *)(bar + EDU_IDENT));
		return 2;
	}
	if (strcmp(argv[a + 1], "read") == 0 && argc - a == 3) {
		uint64_t iova = strtoull(argv[a + 2], NULL, 0);

		if (dma(bar, iova, EDU_BUF, 64, 0) < 0)
			return 1;
		printf("rg-edu-dma: %s read 64 bytes at IOVA %#" PRIx64 " (bus master %d)\n",
		       argv[a], iova, !!(cmd & PCI_CMD_MASTER));
		return 0;
	}
	if (strcmp(argv[a + 1], "copy") == 0) {
		uint8_t *pg = aligned_alloc(4096, 2 * 4096);
		uint64_t pa, pb;

		if (!pg || mlock(pg, 2 * 4096) < 0)
			return die("mlock");
		for (int i = 0; i < 4096; i++) {
			pg[i] = (uint8_t)(i * 7 + 3);
			pg[4096 + i] = 0;
		}
		pa = phys_of(pg);
		pb = phys_of(pg + 4096);
		if (!pa || !pb) {
			fprintf(stderr, "rg-edu-dma: no physical address in /proc/self/pagemap\n");
			return 2;
		}
		/* COPY_LEN, not 4096: qemu 7.2's edu aborts on a transfer that ends at the
		 * buffer's end (its range check wants the end address inside the buffer) */
		if (dma(bar, pa, EDU_BUF, COPY_LEN, 0) < 0 ||
		    dma(bar, EDU_BUF, pb, COPY_LEN, EDU_DMA_TO_RAM) < 0)
			return 1;
		r = memcmp(pg, pg + 4096, COPY_LEN) == 0;
		printf("rg-edu-dma: %s copied page %#" PRIx64 " to %#" PRIx64 " through the card: %s\n",
		       argv[a], pa, pb, r ? "equal" : "not equal (the DMA did not reach memory)");
		return r ? 0 : 1;
	}
	fprintf(stderr, "rg-edu-dma: unknown command %s\n", argv[a + 1]);
	return 2;
}
