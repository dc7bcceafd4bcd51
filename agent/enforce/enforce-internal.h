/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the running enforcement (enforce.c) and its administration (enforce_admin.c) share: the
 * names of the maps that outlive the daemon, in pin order (maps/NAME under the pin directory);
 * and what enforce_pins.c does for enforce.c in the pin directory.
 */
#pragma once

#include <stdbool.h>

#define ENFORCE_NMAPS 6
extern const char *const enforce_map_names[ENFORCE_NMAPS];

/* enforce_pins.c: the pin directory's parent must be bpffs; /sys/fs/bpf is mounted if nothing is.
 * 0 or -errno, logged. */
int enforce_pins_ensure_bpffs(const char *pin_dir);
/* Pins fd's object at PIN_DIR/sub/name, replacing what is there by a rename. 0 or -errno,
 * logged. */
int enforce_pin_replace(const char *pin_dir, const char *sub, const char *name, int fd);
/* Removes the links/ and progs/ pins whose name known() does not know (another version's). */
void enforce_pins_drop_stale(const char *pin_dir, bool (*known)(const char *name));
