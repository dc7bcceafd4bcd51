/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What the evidence module's files share and do not export. */
#pragma once

#include <stddef.h>

/* Writes the message into err (errlen bytes; NULL/0: nowhere) and returns r. */
int evidence_err(char *err, size_t errlen, int r, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
