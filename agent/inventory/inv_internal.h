/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Helpers shared by the inventory sources; not part of the public interface. */
#pragma once

#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>

#include "common/jsonc.h"
#include "common/listdir.h"
#include "common/log.h"
#include "common/macro.h"
#include "common/root.h"
#include "hw/hw_attr.h"
#include "hw/pci_ids.h"
#include "inventory/inv_errors.h"
#include "inventory/inv_read.h"
#include "inventory/inv_strings.h"
#include "inventory/inventory.h"
#include "inventory/line_reader.h"

/* Sources (one file each). They fill inv and record their own errors. */
void inv_sysfs_collect(const struct rg_root *root, struct inventory *inv);
/* The "pci" and "dma" sections from the hardware layer's scan and posture (inv->hw). */
void inv_pci_collect(struct inventory *inv);
void inv_dma_collect(struct inventory *inv);
void inv_devnodes_collect(const struct rg_root *root, struct inventory *inv);
void inv_modules_collect(const struct rg_root *root, struct inventory *inv);
void inv_verbs_collect(struct inventory *inv);
void inv_netlink_collect(struct inventory *inv);
void inv_udp_collect(const struct rg_root *root, struct inventory *inv);

/* Finds a device by name, or adds one (with the given source). NULL when full. */
struct inv_device *inv_device_get(struct inventory *inv, const char *name, unsigned source,
				  bool create);
void inv_device_free(struct inv_device *d);
void inv_pci_free(struct inv_pci *p);

/* JSON of each section's items. */
struct json_object *inv_devices_to_json(const struct inventory *inv);
struct json_object *inv_links_to_json(const struct inventory *inv);
struct json_object *inv_pci_to_json(const struct inventory *inv);
struct json_object *inv_pci_item_to_json(const struct inv_pci *p);
struct json_object *inv_dma_to_json(const struct inventory *inv);
struct json_object *inv_devnodes_to_json(const struct inventory *inv);
struct json_object *inv_modules_to_json(const struct inventory *inv);
struct json_object *inv_verbs_to_json(const struct inventory *inv);
struct json_object *inv_procs_to_json(const struct inventory *inv);
struct json_object *inv_udp_to_json(const struct inventory *inv);
