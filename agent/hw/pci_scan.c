/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The scan: every PCI function through libpci's linux-sysfs method (IDs, class, revision,
 * subsystem, BARs and sizes, config space, capabilities, pci.ids names), the rest from sysfs
 * below the root (driver, IOMMU group and type, removable, the devices hanging off the function,
 * the bridge above).
 *
 * --root: libpci opens paths with plain open(), so symbolic links in an image could lead it out
 * of the root. Below a root other than "/" it therefore never sees the image: it reads a private
 * copy of each function's files (config, resource, vendor, device, class, irq) made in a fresh
 * temporary directory from the root's confined reads (openat2 RESOLVE_IN_ROOT), then removed.
 * The pci.ids database is the agent's own (the host's), like its rules.
 *
 * libpci's error handler must not return; it is replaced by one that jumps back here, so a
 * function libpci cannot read is an error of the scan, never an exit of the agent.
 */
#include <linux/capability.h>
#include <errno.h>
#include <fcntl.h>
#include <pci/pci.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/caps.h"
#include "common/listdir.h"
#include "common/number.h"
#include "common/root.h"
#include "common/strutil.h"
#include "hw/hw-internal.h"
#include "hw/iommu.h"
#include "hw/modalias.h"
#include "hw/pci_caps.h"

#define SYS_PCI "/sys/bus/pci/devices"

static __thread jmp_buf *pci_jmp;
static __thread char pci_msg[256];

__attribute__((noreturn, format(printf, 1, 2))) static void pci_error_cb(char *msg, ...)
{
	va_list ap;

	va_start(ap, msg);
	vsnprintf(pci_msg, sizeof(pci_msg), msg, ap);
	va_end(ap);
	if (pci_jmp)
		longjmp(*pci_jmp, 1);
	abort(); /* libpci called outside a guarded section: a bug here, not bad input */
}

__attribute__((format(printf, 1, 2))) static void pci_warning_cb(char *msg, ...)
{
	va_list ap;

	va_start(ap, msg);
	vsnprintf(pci_msg, sizeof(pci_msg), msg, ap);
	va_end(ap);
}

__attribute__((format(printf, 1, 2))) static void pci_debug_cb(char *msg, ...)
{
	(void)msg;
}

static int cmp_addr(const void *a, const void *b)
{
	return strcmp(a, b); /* elements are char[16] */
}

/* The addresses under /sys/bus/pci/devices, sorted; at most HW_MAX_FUNCTIONS. Entries that are
 * no PCI address are named in the scan. */
static int list_functions(const struct rg_root *root, struct hw_scan *s, char (**ret)[16],
			  unsigned *ret_n)
{
	char **names = NULL, (*v)[16];
	unsigned n = 0;
	int k;

	k = root_list_dir(root, SYS_PCI, HW_MAX_FUNCTIONS, &names, &s->truncated);
	if (k < 0)
		return k;
	v = calloc(k ? (size_t)k : 1, sizeof(*v));
	if (!v) {
		strv_free(names, (unsigned)k);
		return -ENOMEM;
	}
	for (int i = 0; i < k; i++) {
		if (hw_is_pci_addr(names[i]))
			(void)strscpy_ok(v[n++], names[i], 16);
		else if (s->n_not_addr < HW_MAX_NOT_ADDR)
			(void)strscpy_ok(s->not_addr[s->n_not_addr++], names[i], 64);
	}
	strv_free(names, (unsigned)k);
	if (n)
		qsort(v, n, sizeof(*v), cmp_addr);
	*ret = v;
	*ret_n = n;
	return 0;
}

/* ---- the private copy libpci reads below a --root ---- */

static int write_file(int dirfd, const char *name, const void *data, size_t len)
{
	int fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	ssize_t w;

	if (fd < 0)
		return -errno;
	w = write(fd, data, len);
	close(fd);
	return w == (ssize_t)len ? 0 : -EIO;
}

static const char *const shadow_files[] = {"config", "resource", "vendor",
					   "device", "class",	 "irq"};

static void shadow_remove(const char *dir, char (*addrs)[16], unsigned n)
{
	char p[4200];

	for (unsigned i = 0; i < n; i++) {
		for (size_t k = 0; k < ARRAY_SIZE(shadow_files); k++) {
			snprintf(p, sizeof(p), "%s/devices/%s/%s", dir, addrs[i], shadow_files[k]);
			(void)unlink(p);
		}
		snprintf(p, sizeof(p), "%s/devices/%s", dir, addrs[i]);
		(void)rmdir(p);
	}
	snprintf(p, sizeof(p), "%s/devices", dir);
	(void)rmdir(p);
	(void)rmdir(dir);
}

/* One function's files, copied through the root's confined reads. Attributes the image lacks
 * are derived from config space (or zero), so that libpci never fails on a missing file. */
static int shadow_function(const struct rg_root *root, int devfd, const char *addr)
{
	_cleanup_free_ char *cfg = NULL, *res = NULL;
	char path[128], buf[64];
	size_t cfg_len = 0, res_len = 0;
	int dfd, r;

	if (mkdirat(devfd, addr, 0700) < 0)
		return -errno;
	dfd = openat(devfd, addr, O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0)
		return -errno;
	snprintf(path, sizeof(path), SYS_PCI "/%s/config", addr);
	r = root_read_file(root, path, 4096, &cfg, &cfg_len, NULL);
	if (r < 0)
		cfg_len = 0;
	r = write_file(dfd, "config", cfg_len ? cfg : "", cfg_len);
	snprintf(path, sizeof(path), SYS_PCI "/%s/resource", addr);
	if (r == 0 && root_read_file(root, path, 4096, &res, &res_len, NULL) == 0 && res_len)
		r = write_file(dfd, "resource", res, res_len);
	else if (r == 0) {
		static const char zero[] = "0x0 0x0 0x0\n";
		char all[7 * sizeof(zero)];

		for (unsigned i = 0; i < 7; i++)
			memcpy(all + i * (sizeof(zero) - 1), zero, sizeof(zero) - 1);
		r = write_file(dfd, "resource", all, 7 * (sizeof(zero) - 1));
	}
	for (unsigned k = 0; r == 0 && k < 4; k++) {
		static const char *const names[] = {"vendor", "device", "class", "irq"};
		uint32_t v = 0;

		snprintf(path, sizeof(path), SYS_PCI "/%s/%s", addr, names[k]);
		if (root_read_line(root, path, buf, sizeof(buf)) > 0 &&
		    safe_atou32(buf, 0, &v) == 0)
			;
		else if (k == 0 && cfg_len >= 2)
			v = (uint8_t)cfg[0] | (uint8_t)cfg[1] << 8;
		else if (k == 1 && cfg_len >= 4)
			v = (uint8_t)cfg[2] | (uint8_t)cfg[3] << 8;
		else if (k == 2 && cfg_len >= 12)
			v = (uint32_t)(uint8_t)cfg[9] | (uint32_t)(uint8_t)cfg[10] << 8 |
			    (uint32_t)(uint8_t)cfg[11] << 16;
		snprintf(buf, sizeof(buf), "0x%x\n", v);
		r = write_file(dfd, names[k], buf, strlen(buf));
	}
	close(dfd);
	return r;
}

static int shadow_create(const struct rg_root *root, char (*addrs)[16], unsigned n, char *dir,
			 size_t size)
{
	const char *tmp = getenv("TMPDIR");
	int dfd, r = 0;

	if (!tmp || tmp[0] != '/')
		tmp = "/tmp";
	if (!snprintf_ok(dir, size, "%s/rdmaguard-pci.XXXXXX", tmp) || !mkdtemp(dir))
		return -errno ? -errno : -ENAMETOOLONG;
	dfd = open(dir, O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0 || mkdirat(dfd, "devices", 0700) < 0) {
		r = -errno;
		goto out;
	}
	{
		int devfd = openat(dfd, "devices", O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

		if (devfd < 0) {
			r = -errno;
			goto out;
		}
		for (unsigned i = 0; i < n && r == 0; i++)
			r = shadow_function(root, devfd, addrs[i]);
		close(devfd);
	}
out:
	if (dfd >= 0)
		close(dfd);
	if (r < 0)
		shadow_remove(dir, addrs, n);
	return r;
}

/* ---- sysfs facts about a function, below the root ---- */

/* The last step of a link's target ("../../bus/pci/drivers/igc" -> "igc"): 0 or -errno. */
static int link_basename(const struct rg_root *root, const char *path, char *out, size_t size)
{
	char buf[512];
	const char *slash;
	int r;

	out[0] = 0;
	r = root_readlink(root, path, buf, sizeof(buf));
	if (r < 0)
		return r;
	while (r > 1 && buf[r - 1] == '/')
		buf[--r] = 0;
	slash = strrchr(buf, '/');
	snprintf(out, size, "%s", slash ? slash + 1 : buf);
	str_sanitize(out);
	return out[0] ? 0 : -EINVAL;
}

/* What hangs off the function: netdevs, RDMA devices, block devices, USB buses, searched two
 * directory levels down (virtio puts its netdev below virtioN/). Bounded: 256 entries a level. */
static void find_children(const struct rg_root *root, const char *dir, unsigned depth,
			  struct hw_fn *fn)
{
	struct dirent *de;
	unsigned seen = 0;
	DIR *d;

	d = root_opendir(root, dir);
	if (!d)
		return;
	while ((de = readdir(d)) && seen++ < 256) {
		char sub[600];

		if (de->d_name[0] == '.' || de->d_type != DT_DIR)
			continue;
		if (strcmp(de->d_name, "net") == 0)
			fn->has_netdev = true;
		else if (strcmp(de->d_name, "infiniband") == 0)
			fn->has_ib_device = true;
		else if (strcmp(de->d_name, "block") == 0 || strcmp(de->d_name, "nvme") == 0 ||
			 startswith(de->d_name, "host") || startswith(de->d_name, "ata"))
			fn->has_block = true;
		else if (startswith(de->d_name, "usb") && de->d_name[3] >= '0' &&
			 de->d_name[3] <= '9')
			fn->has_usb_bus = true;
		else if (depth > 0 && strcmp(de->d_name, "power") != 0 &&
			 !hw_is_pci_addr(de->d_name) &&
			 snprintf_ok(sub, sizeof(sub), "%s/%s", dir, de->d_name))
			find_children(root, sub, depth - 1, fn);
	}
	closedir(d);
}

/* The MSI/MSI-X vectors the kernel allocated to the function (sysfs msi_irqs/N): only a driver
 * allocates them. Bounded like every directory walk here. */
static unsigned count_msi_irqs(const struct rg_root *root, const char *addr)
{
	char path[128];
	struct dirent *de;
	unsigned n = 0, seen = 0;
	DIR *d;

	snprintf(path, sizeof(path), SYS_PCI "/%s/msi_irqs", addr);
	d = root_opendir(root, path);
	if (!d)
		return 0;
	while ((de = readdir(d)) && seen++ < 4096) {
		uint32_t v;

		if (safe_atou32(de->d_name, 10, &v) == 0)
			n++;
	}
	closedir(d);
	return n;
}

/* The attributes the report shows as the kernel has them, and what could not be read of them:
 * IDs and class (required), subsystem, the driver's module and its taint, the bus-master bit
 * of the first 64 bytes of config space (what any reader gets), the netdevs' names. */
static void read_report_attrs(const struct rg_root *root, struct hw_fn *fn)
{
	static const char *const ids[] = {"vendor", "device", "class"};
	_cleanup_free_ char *config = NULL;
	char path[256], **names = NULL;
	uint32_t v, sv = 0, sd = 0;
	size_t len = 0;
	int r, k;

	for (size_t i = 0; i < ARRAY_SIZE(ids); i++) {
		snprintf(path, sizeof(path), SYS_PCI "/%s/%s", fn->addr, ids[i]);
		(void)hw_attr_u32(root, &fn->errors, true, path, 16, &v);
	}
	snprintf(path, sizeof(path), SYS_PCI "/%s/subsystem_vendor", fn->addr);
	r = hw_attr_u32(root, &fn->errors, false, path, 16, &sv);
	snprintf(path, sizeof(path), SYS_PCI "/%s/subsystem_device", fn->addr);
	if (r == 0 && hw_attr_u32(root, &fn->errors, false, path, 16, &sd) == 0 && sv <= 0xffff &&
	    sd <= 0xffff) {
		fn->subsys_vendor = (uint16_t)sv;
		fn->subsys_device = (uint16_t)sd;
	}
	if (fn->driver[0]) {
		snprintf(path, sizeof(path), SYS_PCI "/%s/driver/module", fn->addr);
		link_basename(root, path, fn->driver_module, sizeof(fn->driver_module));
		if (fn->driver_module[0] &&
		    snprintf_ok(path, sizeof(path), "/sys/module/%s/taint", fn->driver_module))
			(void)hw_attr(root, NULL, false, path, fn->driver_taint,
				      sizeof(fn->driver_taint));
	}
	fn->config_bus_master = -1;
	snprintf(path, sizeof(path), SYS_PCI "/%s/config", fn->addr);
	r = root_read_file(root, path, 64, &config, &len, NULL);
	if (r == 0 && len >= 6)
		fn->config_bus_master = (config[4] & 0x4) ? 1 : 0;
	else if (r < 0 && r != -ENOENT)
		hw_errors_add(&fn->errors, "%s: %s", path, read_strerror(r));
	else if (r == 0)
		hw_errors_add(&fn->errors, "%s: only %zu bytes", path, len);
	snprintf(path, sizeof(path), SYS_PCI "/%s/net", fn->addr);
	k = root_list_dir(root, path, HW_MAX_NETDEVS, &names, NULL);
	for (int i = 0; i < k; i++)
		(void)strscpy_ok(fn->netdevs[fn->n_netdevs++], names[i], sizeof(fn->netdevs[0]));
	strv_free(names, k > 0 ? (unsigned)k : 0);
}

static void read_sysfs(const struct rg_root *root, struct hw_fn *fn)
{
	char path[256], buf[512];
	uint32_t v;
	int r;

	snprintf(path, sizeof(path), SYS_PCI "/%s/driver", fn->addr);
	r = link_basename(root, path, fn->driver, sizeof(fn->driver));
	if (r < 0 && r != -ENOENT)
		hw_errors_add(&fn->errors, "%s: %s", path, read_strerror(r));
	fn->iommu_group = -1;
	snprintf(path, sizeof(path), SYS_PCI "/%s/iommu_group", fn->addr);
	link_basename(root, path, buf, sizeof(buf));
	if (buf[0] && safe_atou32(buf, 10, &v) == 0 && v <= INT32_MAX) {
		fn->iommu_group = (int)v;
		snprintf(path, sizeof(path), "/sys/kernel/iommu_groups/%u/type", v);
		if (root_read_line(root, path, fn->iommu_type, sizeof(fn->iommu_type)) < 0)
			fn->iommu_type[0] = 0;
	} else if (buf[0]) {
		hw_errors_add(&fn->errors, SYS_PCI "/%s/iommu_group: unexpected target '%.32s'",
			      fn->addr, buf);
	}
	read_report_attrs(root, fn);
	snprintf(path, sizeof(path), SYS_PCI "/%s/removable", fn->addr);
	if (root_read_line(root, path, buf, sizeof(buf)) > 0 && strcmp(buf, "removable") == 0)
		fn->external = true;
	/* The bridge above: the directory holding the function's, when it is a PCI function. */
	snprintf(path, sizeof(path), SYS_PCI "/%s", fn->addr);
	if (root_readlink(root, path, buf, sizeof(buf)) > 0) {
		char *last = strrchr(buf, '/'), *prev;

		if (last) {
			*last = 0;
			prev = strrchr(buf, '/');
			prev = prev ? prev + 1 : buf;
			if (hw_is_pci_addr(prev))
				(void)strscpy_ok(fn->upstream, prev, sizeof(fn->upstream));
		}
	}
	snprintf(path, sizeof(path), SYS_PCI "/%s", fn->addr);
	find_children(root, path, 2, fn);
	fn->msi_vectors = count_msi_irqs(root, fn->addr);
}

/* The drivers the kernel has for the functions left without one (modalias.h). */
static void find_available_drivers(const struct rg_root *root, struct hw_scan *s)
{
	_cleanup_(hw_modalias_freep) struct hw_modalias *m = NULL;
	bool any = false;

	for (unsigned i = 0; i < s->n && !any; i++)
		any = !s->fn[i].driver[0];
	if (!any || hw_modalias_load(root, &m) < 0)
		return;
	for (unsigned i = 0; i < s->n; i++)
		if (!s->fn[i].driver[0])
			(void)hw_modalias_lookup(m, &s->fn[i], s->fn[i].driver_available,
						 sizeof(s->fn[i].driver_available));
}

/* ---- libpci ---- */

static void lookup_names(struct pci_access *a, struct hw_fn *fn)
{
	char buf[256], *s;

	s = pci_lookup_name(a, buf, sizeof(buf),
			    PCI_LOOKUP_VENDOR | PCI_LOOKUP_NO_NUMBERS | PCI_LOOKUP_NO_HWDB,
			    fn->vendor);
	if (s)
		snprintf(fn->vendor_name, sizeof(fn->vendor_name), "%s", s);
	s = pci_lookup_name(a, buf, sizeof(buf),
			    PCI_LOOKUP_DEVICE | PCI_LOOKUP_NO_NUMBERS | PCI_LOOKUP_NO_HWDB,
			    fn->vendor, fn->device);
	if (s)
		snprintf(fn->device_name, sizeof(fn->device_name), "%s", s);
	str_sanitize(fn->vendor_name);
	str_sanitize(fn->device_name);
}

void hw_fn_lookup_names(struct hw_fn *fn)
{
	struct pci_access *volatile a = NULL;
	jmp_buf jb;

	/* Names only: no bus is scanned, the database is the agent's own pci.ids. */
	if (setjmp(jb)) {
		pci_jmp = NULL;
		return;
	}
	pci_jmp = &jb;
	a = pci_alloc();
	a->error = pci_error_cb;
	a->warning = pci_warning_cb;
	a->debug = pci_debug_cb;
	lookup_names(a, fn);
	pci_cleanup(a);
	pci_jmp = NULL;
}

static void examine(struct pci_access *a, struct pci_dev *d, struct hw_fn *fn)
{
	static const unsigned lens[] = {4096, 256, 64};
	uint8_t cfg[4096];
	struct pci_cap *cap;
	size_t len = 0;

	pci_fill_info(d, PCI_FILL_IDENT | PCI_FILL_CLASS | PCI_FILL_BASES | PCI_FILL_SIZES |
			     PCI_FILL_ROM_BASE | PCI_FILL_CLASS_EXT | PCI_FILL_SUBSYS);
	fn->vendor = d->vendor_id;
	fn->device = d->device_id;
	fn->class_code = (uint32_t)d->device_class << 8 | d->prog_if;
	fn->revision = d->rev_id;
	fn->subsys_vendor = d->subsys_vendor_id == 0xffff ? 0 : d->subsys_vendor_id;
	fn->subsys_device = d->subsys_id == 0xffff ? 0 : d->subsys_id;
	for (unsigned i = 0; i < 6; i++) {
		pciaddr_t b = d->base_addr[i];

		fn->bars[i].size = d->size[i];
		if (b & PCI_BASE_ADDRESS_SPACE_IO)
			fn->bars[i].flags = 1;
		else
			fn->bars[i].flags =
			    ((b & PCI_BASE_ADDRESS_MEM_TYPE_MASK) == PCI_BASE_ADDRESS_MEM_TYPE_64
				 ? 2
				 : 0) |
			    (b & PCI_BASE_ADDRESS_MEM_PREFETCH ? 4 : 0);
	}
	fn->rom_size = d->rom_size;
	for (unsigned i = 0; i < ARRAY_SIZE(lens) && !len; i++)
		if (pci_read_block(d, 0, cfg, (int)lens[i]))
			len = lens[i];
	if (!len) {
		(void)snprintf_ok(fn->error, sizeof(fn->error), "config space unreadable%s%.80s",
				  pci_msg[0] ? ": " : "", pci_msg);
		/* Could not be examined: what the card says about itself is unknown, which is
		 * not one of its tells (a sysfs read can fail for the kernel's own reasons). */
		fn->facts |= RG_PCI_FACT_CONFIG_UNREADABLE;
		fn->aspm = fn->l0s_exit = fn->l1_exit = -1;
		return;
	}
	hw_caps_walk(cfg, len, fn);
	/* libpci's own walk (it stops at loops too) names the DSN; the values must agree. */
	if (!(fn->facts & RG_PCI_FACT_HEADER_INVALID)) {
		pci_fill_info(d, PCI_FILL_CAPS | PCI_FILL_EXT_CAPS);
		cap = pci_find_cap(d, PCI_EXT_CAP_ID_DSN, PCI_CAP_EXTENDED);
		if (cap && (size_t)cap->addr + 12 <= len && !fn->has_dsn) {
			fn->has_dsn = true;
			fn->dsn = (uint64_t)pci_read_long(d, cap->addr + 8) << 32 |
				  pci_read_long(d, cap->addr + 4);
		}
	}
	lookup_names(a, fn);
}

static int fn_cmp(const void *a, const void *b)
{
	return strcmp(((const struct hw_fn *)a)->addr, ((const struct hw_fn *)b)->addr);
}

/* libpci over sysfs (the host's, or a private copy), the bus scanned; its errors longjmp to
 * pci_jmp, which the caller has set. */
static struct pci_access *libpci_open(const char *sysfs)
{
	struct pci_access *a = pci_alloc();

	a->error = pci_error_cb;
	a->warning = pci_warning_cb;
	a->debug = pci_debug_cb;
	a->method = PCI_ACCESS_SYS_BUS_PCI;
	pci_set_param(a, "sysfs.path", (char *)sysfs);
	pci_init(a);
	pci_scan_bus(a);
	return a;
}

static int run_libpci(const char *sysfs, struct hw_scan *s, char (*addrs)[16], unsigned n)
{
	struct pci_access *volatile a = NULL;
	jmp_buf jb;
	int r = 0;

	pci_msg[0] = 0;
	if (setjmp(jb)) {
		pci_jmp = NULL;
		snprintf(s->error, sizeof(s->error), "libpci: %s", pci_msg);
		/* What libpci allocated before it gave up is left: cleaning it up could touch the
		 * state it was in the middle of changing. */
		return -EIO;
	}
	pci_jmp = &jb;
	a = libpci_open(sysfs);
	for (struct pci_dev *d = a->devices; d && s->n < n; d = d->next) {
		struct hw_fn *fn = &s->fn[s->n];
		char addr[16];
		bool listed = false;

		snprintf(addr, sizeof(addr), "%04x:%02x:%02x.%u", (unsigned)d->domain & 0xfffffff,
			 (unsigned)d->bus & 0xff, (unsigned)d->dev & 0x1f, (unsigned)d->func & 7);
		for (unsigned i = 0; i < n && !listed; i++)
			listed = strcmp(addrs[i], addr) == 0;
		if (!listed)
			continue;
		memset(fn, 0, sizeof(*fn));
		snprintf(fn->addr, sizeof(fn->addr), "%s", addr);
		pci_msg[0] = 0;
		examine(a, d, fn);
		s->n++;
	}
	pci_cleanup(a);
	pci_jmp = NULL;
	return r;
}

int hw_scan(const struct rg_root *root, struct hw_scan **ret)
{
	_cleanup_(hw_scan_freep) struct hw_scan *s = NULL;
	char(*addrs)[16] = NULL, shadow[4096];
	unsigned n = 0;
	int r;

	if (!root || !ret)
		return -EINVAL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	r = list_functions(root, s, &addrs, &n);
	if (r == -ENOMEM)
		return r;
	if (r < 0) {
		s->list_errno = r;
		snprintf(s->error, sizeof(s->error), SYS_PCI ": %s", strerror(-r));
		n = 0;
	}
	if (n) {
		s->fn = calloc(n, sizeof(*s->fn));
		if (!s->fn) {
			free(addrs);
			return -ENOMEM;
		}
		if (root->is_host) {
			/* Linux gives an opener of config without CAP_SYS_ADMIN only its first 64
			 * bytes: the daemon keeps it permitted for this after start (caps.h) */
			bool raised = caps_raise(CAP_SYS_ADMIN);

			(void)run_libpci("/sys/bus/pci", s, addrs, n);
			if (raised)
				caps_lower(CAP_SYS_ADMIN);
		} else {
			r = shadow_create(root, addrs, n, shadow, sizeof(shadow));
			if (r < 0)
				snprintf(s->error, sizeof(s->error), "private copy for libpci: %s",
					 strerror(-r));
			else {
				(void)run_libpci(shadow, s, addrs, n);
				shadow_remove(shadow, addrs, n);
			}
		}
	}
	free(addrs);
	if (s->n)
		qsort(s->fn, s->n, sizeof(*s->fn), fn_cmp);
	for (unsigned i = 0; i < s->n; i++)
		read_sysfs(root, &s->fn[i]);
	find_available_drivers(root, s);
	s->posture = calloc(1, sizeof(*s->posture));
	if (!s->posture)
		return -ENOMEM;
	r = hw_posture_read(root, s->posture);
	if (r == -ENOMEM)
		return r;
	hw_facts_compute(s);
	*ret = TAKE_PTR(s);
	return 0;
}

void hw_scan_free(struct hw_scan *s)
{
	if (!s)
		return;
	if (s->posture)
		hw_posture_done(s->posture);
	free(s->posture);
	free(s->fn);
	free(s);
}

int hw_describe(const struct rg_root *root, const char *addr, struct hw_fn *ret)
{
	_cleanup_(hw_scan_freep) struct hw_scan *s = NULL;
	const struct hw_fn *fn;
	int r;

	if (!addr || !hw_is_pci_addr(addr))
		return -EINVAL;
	r = hw_scan(root, &s);
	if (r < 0)
		return r;
	fn = hw_scan_find(s, addr);
	if (!fn)
		return -ENOENT;
	*ret = *fn;
	return 0;
}

int hw_scan_host(struct hw_scan **ret)
{
	struct rg_root root = {.fd = -1};
	int r = root_init(&root, "/");

	if (r < 0)
		return r;
	r = hw_scan(&root, ret);
	root_done(&root);
	return r;
}

/* The config space of the function addr through libpci at sysfs, as examine() reads it. */
static int read_config_libpci(const char *sysfs, const char *addr, uint8_t *buf, size_t *len)
{
	static const unsigned lens[] = {4096, 256, 64};
	struct pci_access *volatile a = NULL;
	volatile int r = -ENOENT;
	jmp_buf jb;

	pci_msg[0] = 0;
	if (setjmp(jb)) {
		pci_jmp = NULL;
		return -EIO; /* as run_libpci(): what libpci had allocated is left */
	}
	pci_jmp = &jb;
	a = libpci_open(sysfs);
	for (struct pci_dev *d = a->devices; d; d = d->next) {
		char here[16];

		snprintf(here, sizeof(here), "%04x:%02x:%02x.%u", (unsigned)d->domain & 0xffff,
			 (unsigned)d->bus & 0xff, (unsigned)d->dev & 0x1f, (unsigned)d->func & 7);
		if (strcmp(here, addr) != 0)
			continue;
		r = -EIO;
		for (unsigned i = 0; i < ARRAY_SIZE(lens); i++)
			if (pci_read_block(d, 0, buf, (int)lens[i])) {
				*len = lens[i];
				r = 0;
				break;
			}
		break;
	}
	pci_cleanup(a);
	pci_jmp = NULL;
	return r;
}

int hw_read_config(const struct rg_root *root, const char *addr, uint8_t buf[static 4096],
		   size_t *len)
{
	char shadow[4096], one[1][16];
	int r;

	if (!root || !addr || !hw_is_pci_addr(addr))
		return -EINVAL;
	if (root->is_host) {
		bool raised = caps_raise(CAP_SYS_ADMIN); /* past the first 64 bytes */

		r = read_config_libpci("/sys/bus/pci", addr, buf, len);
		if (raised)
			caps_lower(CAP_SYS_ADMIN);
		return r;
	}
	snprintf(one[0], sizeof(one[0]), "%s", addr);
	r = shadow_create(root, one, 1, shadow, sizeof(shadow));
	if (r < 0)
		return r;
	r = read_config_libpci(shadow, addr, buf, len);
	shadow_remove(shadow, one, 1);
	return r;
}
