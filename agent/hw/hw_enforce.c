/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Hardware enforcement's actions and their undo (hw_enforce.h).
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/macro.h"
#include "common/root.h"
#include "common/strutil.h"
#include "dma_fault.h"
#include "hw_enforce.h"
#include "hw_refuse.h"

#define PCI_COMMAND	   0x04
#define PCI_COMMAND_MASTER 0x4
#define PCI_HEADER_TYPE	   0x0e
#define PCI_CAP_PTR	   0x34
#define PCI_CAP_EXP	   0x10
#define PCI_EXP_FLAGS	   0x02 /* Device/Port Type in bits 4-7 */
#define PCI_EXP_LNKCTL	   0x10
#define PCI_EXP_LNKCTL_LD  0x10 /* Link Disable */
#define STATE_MAX	   (64 * 1024)

static const char *sysfs(const struct hw_enforce_paths *p)
{
	return p && p->sysfs ? p->sysfs : "/sys";
}

static const char *state(const struct hw_enforce_paths *p)
{
	return p && p->state ? p->state : HW_ENFORCE_STATE_FILE;
}

/* ROOT/bus/pci/devices/ADDR/FILE for a canonical address only */
static int dev_path(const struct hw_enforce_paths *p, const char *addr, const char *file,
		    char *buf, size_t size)
{
	char canon[16];

	if (strlen(addr) != 12 || hw_parse_bdf(addr, canon) != 12 || strcmp(canon, addr) != 0)
		return -EINVAL;
	return snprintf_ok(buf, size, "%s/bus/pci/devices/%s/%s", sysfs(p), addr, file)
		       ? 0
		       : -ENAMETOOLONG;
}

/* one write of s, as `echo -n s >` does: sysfs takes an attribute in one write */
static int write_str(const char *path, const char *s)
{
	size_t n = strlen(s);
	int fd = open(path, O_WRONLY | O_CLOEXEC | O_NOFOLLOW), r = 0;
	ssize_t w;

	if (fd < 0)
		return -errno;
	w = write(fd, s, n);
	if (w < 0)
		r = -errno;
	else if ((size_t)w != n)
		r = -EIO;
	close(fd);
	return r;
}

static int write_one(const char *path)
{
	return write_str(path, "1");
}

int hw_enforce_remove(const struct hw_enforce_paths *p, const char *addr)
{
	char path[256];
	int r = dev_path(p, addr, "remove", path, sizeof(path));

	return r < 0 ? r : write_one(path);
}

static int set_master(const struct hw_enforce_paths *p, const char *addr, bool on, bool *was_set)
{
	char path[256];
	uint16_t cmd, want;
	int fd, r = dev_path(p, addr, "config", path, sizeof(path));

	if (r < 0)
		return r;
	fd = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	if (pread(fd, &cmd, 2, PCI_COMMAND) != 2) {
		r = -EIO;
		goto out;
	}
	if (was_set)
		*was_set = cmd & PCI_COMMAND_MASTER;
	want = on ? (uint16_t)(cmd | PCI_COMMAND_MASTER) : (uint16_t)(cmd & ~PCI_COMMAND_MASTER);
	if (want != cmd && pwrite(fd, &want, 2, PCI_COMMAND) != 2)
		r = -errno;
out:
	close(fd);
	return r;
}

int hw_enforce_clear_master(const struct hw_enforce_paths *p, const char *addr, bool *was_set)
{
	return set_master(p, addr, false, was_set);
}

/* The first bytes of ADDR's config space (what anyone may read: 64). 0 or -errno. */
static int read_config(const struct hw_enforce_paths *p, const char *addr, uint8_t *buf,
		       size_t off, size_t n)
{
	char path[256];
	int fd, r = dev_path(p, addr, "config", path, sizeof(path));
	ssize_t got;

	if (r < 0)
		return r;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	got = pread(fd, buf, n, (off_t)off);
	r = got < 0 ? -errno : (size_t)got == n ? 0 : -EIO;
	close(fd);
	return r;
}

/* whether ADDR's sysfs directory has a subordinate bus below it (a pci_bus/ entry): the kernel
 * made one for it, which it does for a bridge it configured only */
static bool has_subordinate_bus(const struct hw_enforce_paths *p, const char *addr)
{
	char path[256];
	struct stat st;

	return dev_path(p, addr, "pci_bus", path, sizeof(path)) == 0 && lstat(path, &st) == 0 &&
	       S_ISDIR(st.st_mode);
}

bool hw_enforce_is_bridge(const struct hw_enforce_paths *p, const char *addr)
{
	uint8_t ht;

	return read_config(p, addr, &ht, PCI_HEADER_TYPE, 1) == 0 && (ht & 0x7f) == 1 &&
	       has_subordinate_bus(p, addr);
}

/* The offset of the PCI Express capability in ADDR's config space (needs root for past 64
 * bytes), 0 none. A list that loops ends after 48 steps. */
static unsigned find_exp_cap(int fd)
{
	uint8_t pos = 0, hdr[2];

	if (pread(fd, &pos, 1, PCI_CAP_PTR) != 1)
		return 0;
	for (unsigned i = 0; i < 48 && pos >= 0x40; i++) {
		pos &= 0xfc;
		if (pread(fd, hdr, 2, pos) != 2)
			return 0;
		if (hdr[0] == PCI_CAP_EXP)
			return pos;
		pos = hdr[1];
	}
	return 0;
}

/* the PCI address that is the last component of path's parent ("/.../0000:00:03.0/X"), "" */
static void parent_addr(const char *path, char out[16])
{
	char buf[512], *slash;
	unsigned n;

	out[0] = 0;
	if (!strscpy_ok(buf, path, sizeof(buf)) || !(slash = strrchr(buf, '/')))
		return;
	*slash = 0;
	slash = strrchr(buf, '/');
	n = hw_parse_bdf(slash ? slash + 1 : buf, out);
	if (n != 12 || (slash ? slash[13] : buf[12]) != 0)
		out[0] = 0;
}

int hw_enforce_port_above(const struct hw_enforce_paths *p, const char *addr, char port[16])
{
	char path[256], real[PATH_MAX], me[16], dir[300];
	struct dirent *de;
	uint8_t hdr[2];
	unsigned cap;
	DIR *d;
	int fd, r = dev_path(p, addr, "", path, sizeof(path));

	port[0] = 0;
	if (r < 0)
		return r;
	path[strlen(path) - 1] = 0;
	if (!realpath(path, real))
		return -errno;
	parent_addr(real, me);
	if (!me[0] || !hw_enforce_is_bridge(p, me))
		return -ENODEV;
	/* a root port (4) or a switch's downstream port (6): its link is the card's alone */
	r = dev_path(p, me, "config", path, sizeof(path));
	if (r < 0)
		return r;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	cap = find_exp_cap(fd);
	r = cap && pread(fd, hdr, 2, cap + PCI_EXP_FLAGS) == 2 ? 0 : -ENODEV;
	close(fd);
	if (r < 0 || (((hdr[0] >> 4) & 0xf) != 4 && ((hdr[0] >> 4) & 0xf) != 6))
		return -ENODEV;
	/* nothing below it but ADDR's device (its other functions) */
	r = dev_path(p, me, "", dir, sizeof(dir));
	if (r < 0)
		return r;
	d = opendir(dir);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		char other[16];

		if (hw_parse_bdf(de->d_name, other) == 12 && strlen(de->d_name) == 12 &&
		    strncmp(other, addr, 10) != 0) {
			closedir(d);
			return -EBUSY;
		}
	}
	closedir(d);
	memcpy(port, me, sizeof(me));
	return 0;
}

/* Link Disable set (the card is off the link) or cleared (the link trains again) on port.
 * 0 or -errno. */
static int set_link_disable(const struct hw_enforce_paths *p, const char *port, bool disable)
{
	char path[256];
	uint16_t lnk, want;
	unsigned cap;
	int fd, r = dev_path(p, port, "config", path, sizeof(path));

	if (r < 0)
		return r;
	fd = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	cap = find_exp_cap(fd);
	if (!cap || pread(fd, &lnk, 2, cap + PCI_EXP_LNKCTL) != 2) {
		r = -ENODEV;
	} else {
		want = disable ? (uint16_t)(lnk | PCI_EXP_LNKCTL_LD)
			       : (uint16_t)(lnk & ~PCI_EXP_LNKCTL_LD);
		if (want != lnk && pwrite(fd, &want, 2, cap + PCI_EXP_LNKCTL) != 2)
			r = -errno;
	}
	close(fd);
	return r;
}

int hw_enforce_port_stop(const struct hw_enforce_paths *p, const char *port, bool link)
{
	return link ? set_link_disable(p, port, true) : set_master(p, port, false, NULL);
}

/* a sysfs attribute's first line, "" when unreadable */
static void read_attr(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	ssize_t n = -1;

	buf[0] = 0;
	if (fd >= 0) {
		n = read(fd, buf, size - 1);
		close(fd);
	}
	buf[n > 0 ? n : 0] = 0;
	buf[strcspn(buf, "\n")] = 0;
}

int hw_enforce_translate(const struct hw_enforce_paths *p, const char *addr, int *group,
			 char *after, size_t after_size)
{
	char path[256], link[256], type[32], *base, *end;
	long n;
	ssize_t len;
	int fd, r;

	if (group)
		*group = -1;
	if (after && after_size)
		after[0] = 0;
	r = dev_path(p, addr, "iommu_group", path, sizeof(path));
	if (r < 0)
		return r;
	len = readlink(path, link, sizeof(link) - 1);
	if (len < 0)
		return errno == ENOENT ? 0 : -errno;
	link[len] = 0;
	base = strrchr(link, '/');
	base = base ? base + 1 : link;
	errno = 0;
	n = strtol(base, &end, 10);
	if (errno || end == base || *end || n < 0 || n > 1000000)
		return -EINVAL;
	if (group)
		*group = (int)n;
	if (!snprintf_ok(path, sizeof(path), "%s/kernel/iommu_groups/%ld/type", sysfs(p), n))
		return -ENAMETOOLONG;
	read_attr(path, type, sizeof(type));
	if (strcmp(type, "identity") != 0)
		return 0;
	fd = open(path, O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	r = write(fd, "DMA\n", 4) == 4 ? 0 : -errno;
	close(fd);
	read_attr(path, type, sizeof(type));
	if (after && after_size)
		(void)strscpy_ok(after, type, after_size);
	if (r < 0)
		return r;
	return strcmp(type, "DMA") == 0 || strcmp(type, "DMA-FQ") == 0 ? 1 : -EIO;
}

int hw_enforce_override(const struct hw_enforce_paths *p, const char *addr, const char *name)
{
	char path[256];
	int r = dev_path(p, addr, "driver_override", path, sizeof(path));

	/* "\n" clears it (the kernel takes an empty write as "no change" on some versions) */
	return r < 0 ? r : write_str(path, name[0] ? name : "\n");
}

static bool driver_name_ok(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > 31)
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '_' || *s == '-'))
			return false;
	return true;
}

int hw_enforce_unbind(const struct hw_enforce_paths *p, const char *addr, const char *driver)
{
	char path[256];
	int r = dev_path(p, addr, "", path, sizeof(path));

	if (r < 0)
		return r;
	if (!driver_name_ok(driver))
		return -EINVAL;
	if (!snprintf_ok(path, sizeof(path), "%s/bus/pci/drivers/%s/unbind", sysfs(p), driver))
		return -ENAMETOOLONG;
	return write_str(path, addr);
}

int hw_enforce_note(const struct hw_enforce_paths *p, const char *what, const char *addr)
{
	char line[64], dir[256], *slash;
	int fd, n, r = 0;

	n = snprintf(line, sizeof(line), "%s %s\n", what, addr);
	if (n < 0 || n >= (int)sizeof(line))
		return -EINVAL;
	if (strscpy_ok(dir, state(p), sizeof(dir)) && (slash = strrchr(dir, '/')) && slash != dir) {
		*slash = 0;
		(void)mkdir(dir, 0700);
	}
	fd = open(state(p), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return -errno;
	if (write(fd, line, (size_t)n) != n)
		r = -EIO;
	close(fd);
	return r;
}

/* driver_override cleared where it is still ours, then the function probed: 1 done, 0 not ours
 * (left alone), -errno */
static int undo_override(const struct hw_enforce_paths *p, const char *addr)
{
	char path[256], cur[64];
	int fd, r = dev_path(p, addr, "driver_override", path, sizeof(path));

	if (r < 0)
		return r;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	r = (int)read(fd, cur, sizeof(cur) - 1);
	close(fd);
	if (r < 0)
		return -errno;
	cur[r] = 0;
	cur[strcspn(cur, "\n")] = 0;
	if (strcmp(cur, HW_REFUSE_OVERRIDE) != 0)
		return 0;
	r = hw_enforce_override(p, addr, "");
	if (r < 0)
		return r;
	if (!snprintf_ok(path, sizeof(path), "%s/bus/pci/drivers_probe", sysfs(p)))
		return -ENAMETOOLONG;
	r = write_str(path, addr);
	return r < 0 ? r : 1;
}

/* whether the line at l was seen before it in buf (the same action noted twice: undone once) */
static bool seen_before(const char *buf, const char *l)
{
	for (const char *q = buf; q < l; q += strlen(q) + 1)
		if (strcmp(q, l) == 0)
			return true;
	return false;
}

int hw_enforce_undo(const struct hw_enforce_paths *p, struct hw_enforce_undone *ret)
{
	_cleanup_free_ char *buf = NULL;
	unsigned rescans = 0, masters = 0, overrides = 0, ports = 0;
	bool removed = false;
	char path[256];
	size_t len;
	int fd, r, first = 0;

	fd = open(state(p), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	r = read_fd_bounded(fd, STATE_MAX, &buf, &len, NULL);
	close(fd);
	if (r < 0)
		return r;
	for (char *l = buf, *nl; l && *l; l = nl) {
		nl = strchr(l, '\n');
		if (nl)
			*nl++ = 0;
		if (startswith(l, "remove "))
			removed = true;
	}
	/* the ports above stopped cards first: a rescan finds nothing behind a disabled link */
	for (char *l = buf; l < buf + len; l += strlen(l) + 1) {
		if (seen_before(buf, l))
			continue;
		if (startswith(l, "port_master "))
			r = set_master(p, l + 12, true, NULL);
		else if (startswith(l, "port_link "))
			r = set_link_disable(p, l + 10, false);
		else
			continue;
		if (r == 0)
			ports++;
		else if (r != -ENOENT && !first)
			first = r;
	}
	if (ports)
		usleep(200 * 1000); /* a link trains within 100 ms of being enabled (PCIe 6.6.1) */
	/* the rescan first: a removed function comes back with bus mastering off anyway */
	if (removed) {
		if (snprintf_ok(path, sizeof(path), "%s/bus/pci/rescan", sysfs(p)) &&
		    (r = write_one(path)) < 0)
			first = r;
		else
			rescans++;
	}
	for (char *l = buf; l < buf + len; l += strlen(l) + 1) {
		if (!startswith(l, "bus_master ") || seen_before(buf, l))
			continue;
		r = set_master(p, l + 11, true, NULL);
		if (r == 0)
			masters++;
		else if (r != -ENOENT && !first)
			first = r;
	}
	/* after the rescan, which a driver_override would keep from binding anyway */
	for (char *l = buf; l < buf + len; l += strlen(l) + 1) {
		if (!startswith(l, "override "))
			continue;
		r = undo_override(p, l + 9);
		if (r > 0)
			overrides++;
		else if (r < 0 && r != -ENOENT && !first)
			first = r;
	}
	if (unlink(state(p)) < 0 && !first)
		first = -errno;
	if (ret)
		*ret = (struct hw_enforce_undone){rescans, masters, overrides, ports};
	return first;
}
