/* SPDX-License-Identifier: GPL-2.0-or-later */
/* SHA-256 as 64 lowercase hex chars + NUL. */
#pragma once

#include <stddef.h>
#include <stdint.h>

/* Of a file. At most max bytes are read (-EFBIG beyond). */
int sha256_fd(int fd, uint64_t max, char out[static 65]);
/* Of n bytes. 0 or -EIO. */
int sha256_mem(const void *p, size_t n, char out[static 65]);
