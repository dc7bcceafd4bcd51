/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * 32-bit system calls (compat.c): what of them the sensors do not see with a given plan, for the
 * sensor plan (`daemon --dry-run`) and `status`.
 */
#pragma once

#include <json-c/json.h>

#include "hooks.h"

/* The 32-bit calls the chosen flavours leave unseen, as a list of sentences (empty: none). */
struct json_object *compat_not_seen(const struct plan *p);
