/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Helpers shared by the inventory sources; not part of the public interface. */
#pragma once

#include <json-c/json.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/log.h"
#include "common/macro.h"
#include "common/root.h"
#include "inventory/inventory.h"
#include "inventory/pci_ids.h"

/* Error strings next to an object. Formats "what: why"; never fails (drops on OOM). */
void inv_errors_add(struct inv_errors *e, const char *fmt, ...) _printf_(2, 3);
void inv_errors_addv(struct inv_errors *e, const char *fmt, va_list ap) _printf_(2, 0);
void inv_errors_free(struct inv_errors *e);
void inv_section_free(struct inv_section *s);
void inv_section_error(struct inv_section *s, const char *fmt, ...) _printf_(2, 3);
void inv_section_note(struct inv_section *s, const char *fmt, ...) _printf_(2, 3);
/* A problem with one entry of the section (not the section as a whole). */
#define inv_section_entry_error(s, ...) inv_errors_add(&(s)->errors, __VA_ARGS__)
void inv_section_truncated(struct inv_section *s, const char *fmt, ...) _printf_(2, 3);

/* A short description of a read failure: "empty", "not a regular file", "value too long", ... */
const char *inv_strerror(int r);

/* snprintf into a path buffer; -ENAMETOOLONG when it does not fit. */
int inv_path(char *buf, size_t size, const char *fmt, ...) _printf_(3, 4);

enum {
	INV_ATTR_OPTIONAL = 0, /* a missing or empty file is not an error */
	INV_ATTR_REQUIRED = 1, /* a missing or empty file is an error too */
};
/*
 * Reads a one-line attribute at path into buf. Returns its length, or -errno; failures other than
 * an absent optional file are recorded in errs (if not NULL) as "path: why".
 */
int inv_attr(const struct rg_root *root, struct inv_errors *errs, int mode, const char *path,
	     char *buf, size_t size);
/* The same, then parsed as an unsigned number (base 0: 0x prefix means hex); garbage is recorded. */
int inv_attr_u32(const struct rg_root *root, struct inv_errors *errs, int mode, const char *path,
		 int base, uint32_t *ret);
/* "N: text" (node_type, port state): the number and the text. */
int inv_attr_numbered(const struct rg_root *root, struct inv_errors *errs, int mode,
		      const char *path, uint32_t *ret_num, char *text, size_t textsize);

/*
 * Resolves one level of symbolic link at path, textually, to an absolute normalised path below
 * the root ("/sys/class/infiniband/x" -> "/sys/devices/.../infiniband/x"). A path that is not a
 * link is returned as is (normalised). -errno on failure.
 */
int inv_resolve(const struct rg_root *root, const char *path, char *out, size_t size);
/* Normalises an absolute path ("." and ".." removed). -EINVAL if not absolute, -ENAMETOOLONG. */
int inv_normalize(const char *in, char *out, size_t size);
/* The last component of a link target at path ("../../bus/pci/drivers/mlx5_core" -> "mlx5_core"). */
int inv_link_basename(const struct rg_root *root, const char *path, char *out, size_t size);

/*
 * Lists a directory's entry names (without "." and ".."), sorted in version order, at most max
 * (*ret_truncated then set). Names are sanitised copies. Returns the count or -errno.
 */
int inv_list_dir(const struct rg_root *root, const char *path, unsigned max, char ***ret,
		 bool *ret_truncated);
void inv_strv_free(char **v, unsigned n);

/* A bounded line reader over a regular file below the root (FIFOs and devices are refused). */
struct line_reader {
	int fd;
	size_t start, end;
	bool eof;
	bool skipping; /* the rest of an overlong line */
	char buf[65536];
};
int line_reader_open(struct line_reader *lr, const struct rg_root *root, const char *path);
/* The same over an open fd, which it takes (closed on failure); check_regular: refuse others. */
int line_reader_open_fd(struct line_reader *lr, int fd, bool check_regular);
/* 1 with *line (NUL-terminated, no newline) set; 0 at the end; -errno. *overlong: cut at 64 KiB. */
int line_reader_next(struct line_reader *lr, char **line, bool *overlong);
void line_reader_close(struct line_reader *lr);

/* Parses a sysfs GID "fe80:0000:0000:0000:0202:c9ff:fe31:7e40" into 16 bytes. */
int inv_parse_gid(const char *s, uint8_t gid[16]);
/* True if s looks like a PCI address "dddd:bb:dd.f". */
bool inv_is_pci_addr(const char *s);
/* Copies a sanitised, bounded string (control bytes become '?'). */
void inv_strcpy(char *dst, size_t size, const char *src);
/* Appends name to a fixed list of names if not there yet; false when full. */
bool inv_name_add(char (*list)[64], unsigned *n, unsigned max, const char *name);

/* RDMA PCI IDs and drivers: pci_ids.h. */

/* JSON helpers that tolerate allocation failure (a failed value becomes null). */
void json_add_str(struct json_object *o, const char *key, const char *val); /* skips NULL */
void json_add_str_nonempty(struct json_object *o, const char *key, const char *val);
void json_add_int(struct json_object *o, const char *key, int64_t val);
void json_add_u64(struct json_object *o, const char *key, uint64_t val);
void json_add_bool(struct json_object *o, const char *key, bool val);
void json_add_hex(struct json_object *o, const char *key, uint32_t val, int width); /* "0x15b3" */
void json_add_obj(struct json_object *o, const char *key, struct json_object *val);
void json_arr_add(struct json_object *a, struct json_object *val);
void json_add_errors(struct json_object *o, const struct inv_errors *e); /* "errors": [...] */
void json_add_section(struct json_object *o, const struct inv_section *s);

/* Sources (one file each). They fill inv and record their own errors. */
void inv_sysfs_collect(const struct rg_root *root, struct inventory *inv);
void inv_pci_collect(const struct rg_root *root, struct inventory *inv);
void inv_dma_collect(const struct rg_root *root, struct inventory *inv);
void inv_devnodes_collect(const struct rg_root *root, struct inventory *inv);
void inv_modules_collect(const struct rg_root *root, struct inventory *inv);
void inv_verbs_collect(struct inventory *inv);
void inv_netlink_collect(struct inventory *inv);
void inv_udp_collect(const struct rg_root *root, struct inventory *inv);

/* Finds a device by name, or adds one (with the given source). NULL when full. */
struct inv_device *inv_device_get(struct inventory *inv, const char *name, unsigned source,
				  bool create);
void inv_device_free(struct inv_device *d);
void inv_pci_free(struct inv_pci *p);

/* JSON of each section's items. */
struct json_object *inv_devices_to_json(const struct inventory *inv);
struct json_object *inv_links_to_json(const struct inventory *inv);
struct json_object *inv_pci_to_json(const struct inventory *inv);
struct json_object *inv_pci_item_to_json(const struct inv_pci *p);
struct json_object *inv_dma_to_json(const struct inventory *inv);
struct json_object *inv_devnodes_to_json(const struct inventory *inv);
struct json_object *inv_modules_to_json(const struct inventory *inv);
struct json_object *inv_verbs_to_json(const struct inventory *inv);
struct json_object *inv_procs_to_json(const struct inventory *inv);
struct json_object *inv_udp_to_json(const struct inventory *inv);

/* Port state names as the kernel prints them, and as `rdma link` prints them. */
const char *inv_port_state_name(uint32_t state);
const char *inv_phys_state_name(uint32_t state);
