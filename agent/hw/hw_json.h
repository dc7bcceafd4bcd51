/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The hardware examination as JSON (hw_json.c): the audit report's "hardware" section. */
#pragma once

#include <json-c/json.h>

#include "hw/pci.h"

struct json_object *hw_fn_to_json(const struct hw_fn *fn);
struct json_object *hw_scan_to_json(const struct hw_scan *s);
