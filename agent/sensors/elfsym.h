/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Where a dynamic symbol's code is in an ELF file, for uprobes. */
#pragma once

#include <stdint.h>

/*
 * File offset of the function called name in the ELF file at path. With several versions of the
 * symbol (libibverbs exports ibv_get_device_list@IBVERBS_1.0 and @@IBVERBS_1.1), the default
 * version wins. 0, -ENOENT, or -errno.
 */
int elf_func_offset(const char *path, const char *name, uint64_t *ret_off);
