/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rg-segv: crashes at once on a store to address 0, in its own code, so that the kernel's
 * segfault line ("NAME[PID]: segfault at 0 ip ... in FILE[...]") names its file. The VM lab's
 * hw-start scenario copies it to files named after IOMMU fault lines and runs them as nobody:
 * the forged text ends up in kernel records, and the daemon must take none of it.
 */
int main(void)
{
	*(volatile int *)0 = 1;
	return 0;
}
