/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The room-layout file of rdmaguard-console (--layout): "LABEL ROW COLUMN" lines, # comments,
 * read into the JSON object the page places its tiles by.
 */
#pragma once

#define LAYOUT_MAX 20000

/*
 * Reads path into *json ({"LABEL": [row, column], ...}, malloc'd); rows and columns 1 to 1000,
 * at most LAYOUT_MAX seats. A bad line is logged as "path:line:column: what" and -EINVAL
 * returned.
 */
int layout_load(const char *path, char **json);
