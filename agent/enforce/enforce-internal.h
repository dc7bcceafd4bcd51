/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the running enforcement (enforce.c) and its administration (enforce_admin.c) share: the
 * names of the maps that outlive the daemon, in pin order (maps/NAME under the pin directory).
 */
#pragma once

#define ENFORCE_NMAPS 6
extern const char *const enforce_map_names[ENFORCE_NMAPS];
