/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Reading sysfs below a root: paths, one-line attributes, links (inv_read.c). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/macro.h"
#include "common/root.h"
#include "inventory/inventory.h"

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
/* The same, then parsed as an unsigned number (base 0: 0x prefix means hex); garbage is recorded.
 */
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
/* The last component of a link target at path ("../../bus/pci/drivers/mlx5_core" -> "mlx5_core").
 */
int inv_link_basename(const struct rg_root *root, const char *path, char *out, size_t size);

/* Directory listings (root_list_dir(), strv_free()) and read_strerror(): common/listdir.h. */
