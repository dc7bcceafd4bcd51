/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Which kernel module claims a PCI function: the PCI lines of modules.alias of the running
 * kernel (below a --root, the root's kernel: /lib/modules/<its osrelease>/modules.alias), matched
 * the way modprobe matches a device's modalias ("pci:v000010ECd00008168sv...bc02sc00i00" against
 * "pci:v000010ECd00008168sv*sd*bc*sc*i*", fnmatch(3)). A masked DMA card carries a real device's
 * IDs, so the kernel has a driver for it, and that driver's probe fails: a function with no
 * driver bound whose ID a module claims is a tell.
 *
 * The file is read through the root's confined reads (libkmod would open the image's paths
 * itself and needs the binary index), bounded in size, lines and entries; a line that is not a
 * well-formed PCI alias is skipped.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "common/root.h"
#include "hw/pci.h"

#define HW_MODALIAS_MAX_BYTES	(32u << 20) /* a Debian kernel's file is 1.3 MB */
#define HW_MODALIAS_MAX_ENTRIES 65536	    /* PCI aliases kept (Debian 6.1: 8,968) */

struct hw_modalias;

/* Parses modules.alias text; only "alias pci:PATTERN MODULE" lines are kept. 0, -ENOMEM. */
int hw_modalias_parse(const char *text, size_t len, struct hw_modalias **ret);
/* Reads the root's file. 0, -ENOENT (no file, or the release unknown), -ENOMEM, -errno. */
int hw_modalias_load(const struct rg_root *root, struct hw_modalias **ret);
void hw_modalias_free(struct hw_modalias *m);
DEFINE_TRIVIAL_CLEANUP_FUNC(struct hw_modalias *, hw_modalias_free);
size_t hw_modalias_size(const struct hw_modalias *m);

/* The function's modalias string, as the kernel writes it in sysfs "modalias". */
void hw_modalias_of(const struct hw_fn *fn, char buf[static 64]);
/* The first module claiming fn, copied to module; false when none (module ""). */
bool hw_modalias_lookup(const struct hw_modalias *m, const struct hw_fn *fn, char *module,
			size_t size);
