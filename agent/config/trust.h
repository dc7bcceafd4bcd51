/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Whether a configuration file (a policy, a rule file) or the rules directory may be trusted by
 * a process that runs as root: opened first (O_NONBLOCK, so that a FIFO cannot block), then
 * checked on the open file (fstat): a regular file (or a directory where one is expected), and,
 * when the owner is checked, owned by root, not writable by group or other, and every directory
 * above it owned by root and not writable by group or other (or sticky, as /tmp: nobody else
 * can rename or remove root's entries there). Errors are "FILE: what" in err.
 */
#pragma once

#include <stdbool.h>

#include "common/rg_error.h"

/*
 * Opens name below dirfd (AT_FDCWD: path itself) for reading and checks it as above. path names
 * it in messages. Returns the fd, or a negative errno with err set: -EINVAL (not a regular
 * file), -EPERM (refused: owner, mode, a directory above it), or the open's error.
 */
int trust_open_file(int dirfd, const char *name, const char *path, bool check_owner,
		    struct rg_error *err);
/* The same for a directory (O_DIRECTORY): the rules directory. */
int trust_open_dir(const char *path, bool check_owner, struct rg_error *err);
