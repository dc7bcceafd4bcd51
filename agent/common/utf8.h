/* SPDX-License-Identifier: GPL-2.0-or-later */
/* UTF-8 as RFC 3629 defines it: what the JSON lexer accepts and the syslog writer passes on. */
#pragma once

#include <stddef.h>

/* The length of the valid UTF-8 sequence at s (n bytes there), or 0: no overlong forms, no
 * surrogates, nothing above U+10FFFF. */
size_t utf8_seq_len(const char *s, size_t n);
