/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The TLS outputs' certificate files, checked before a TLS library reads them (tls_files.h). */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tls_files.h"
#include "common/log.h"
#include "common/macro.h"
#include "config/trust.h"

static int check_one(const struct output_spec *sp, const char *what, const char *path)
{
	_cleanup_close_ int fd = -1;
	struct rg_error err = {0};
	char msg[sizeof(err.file) + sizeof(err.msg) + 8];
	struct stat st;

	if (!path[0])
		return 0;
	fd = trust_open_file(AT_FDCWD, path, path, geteuid() == 0, &err);
	if (fd == -EINVAL)
		fd = -EBADFD; /* not a regular file: as the file: output says it */
	if (fd < 0)
		return log_error_errno(fd, "output %s: %s %s", sp->name, what,
				       rg_error_format(&err, msg, sizeof(msg)));
	if (fstat(fd, &st) < 0)
		return log_error_errno(-errno, "output %s: %s %s: %m", sp->name, what, path);
	/* Also where the owner is not checked (not root): nobody else may replace it. */
	if (st.st_mode & (S_IWGRP | S_IWOTH))
		return log_error_errno(-EPERM,
				       "output %s: %s %s: refused: writable by group or other "
				       "(mode %04o)",
				       sp->name, what, path, (unsigned)(st.st_mode & 07777));
	if (path == sp->key && (st.st_mode & (S_IRGRP | S_IROTH)))
		log_warning("output %s: private key %s is accessible to group or others", sp->name,
			    path);
	return 0;
}

int output_tls_files_check(const struct output_spec *sp)
{
	int r;

	r = check_one(sp, "CA file", sp->ca);
	if (r == 0)
		r = check_one(sp, "certificate", sp->cert);
	if (r == 0)
		r = check_one(sp, "key", sp->key);
	return r;
}
