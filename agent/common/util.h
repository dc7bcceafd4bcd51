/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Every part of the former grab bag at once, for code written before it was split: include the
 * part that you use instead (root.h, number.h, strutil.h, clock.h, timestamp.h, hex.h, uuid.h,
 * sha256.h, globcheck.h). Nothing in the tree includes this file.
 */
#pragma once

#include "clock.h"
#include "globcheck.h"
#include "hex.h"
#include "number.h"
#include "root.h"
#include "sha256.h"
#include "strutil.h"
#include "timestamp.h"
#include "uuid.h"
