/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Random RFC 4122 version 4 UUIDs. */
#pragma once

/* 36 chars + NUL. 0 or -errno of getrandom(). */
int uuid_v4(char buf[static 37]);
