/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The spool directory of the syslog outputs (spooldir.h): creating it, the name of each
 * output's spool in it, opening that spool with the configured caps, and spools left behind by
 * outputs no longer configured.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "common/log.h"
#include "common/macro.h"
#include "common/strutil.h"
#include "spool.h"
#include "spooldir.h"

int output_spool_dir_open(const char *state_dir, int *ret)
{
	_cleanup_close_ int sfd = -1;
	int dfd;

	if (mkdir(state_dir, 0700) < 0 && errno != EEXIST)
		return log_error_errno(-errno, "Failed to create state directory %s: %m",
				       state_dir);
	sfd = open(state_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (sfd < 0)
		return log_error_errno(-errno, "Failed to open state directory %s: %m", state_dir);
	if (mkdirat(sfd, "spool", 0700) < 0 && errno != EEXIST)
		return log_error_errno(-errno, "Failed to create %s/spool: %m", state_dir);
	dfd = openat(sfd, "spool", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0)
		return log_error_errno(-errno, "Failed to open %s/spool: %m", state_dir);
	*ret = dfd;
	return 0;
}

/*
 * Spool directory name of a syslog output: tcp-HOST-PORT (or tls-), HOST with odd bytes
 * hex-escaped; a host too long for a file name is cut and followed by its CRC-32.
 */
#define SPOOL_HOST_SHOWN 160
static void spool_name(const struct output_spec *sp, char *buf, size_t size)
{
	char host[3 * OUTPUT_HOST_MAX + 1];
	size_t o = 0, i;

	for (i = 0; sp->host[i]; i++) {
		char c = sp->host[i];

		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		    c == '.' || c == '-')
			host[o++] = c;
		else
			o += (size_t)snprintf(host + o, sizeof(host) - o, "_%02x", (unsigned char)c);
	}
	host[o] = 0;
	if (o > SPOOL_HOST_SHOWN)
		snprintf(host + SPOOL_HOST_SHOWN, sizeof(host) - SPOOL_HOST_SHOWN, "_%08lx",
			 crc32(0L, (const Bytef *)sp->host, (uInt)strlen(sp->host)));
	snprintf(buf, size, "%s-%s-%u",
		 sp->type == OUTPUT_SYSLOG_TLS	? "tls"
		 : sp->type == OUTPUT_RELP	? "relp"
		 : sp->type == OUTPUT_RELP_TLS ? "relptls"
					       : "tcp",
		 host, sp->port);
}

static bool spool_dir_has_records(int parent_fd, const char *name)
{
	int fd = openat(parent_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct dirent *de;
	bool found = false;
	DIR *d;

	if (fd < 0)
		return false;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return false;
	}
	while (!found && (de = readdir(d)))
		found = endswith(de->d_name, ".seg");
	closedir(d);
	return found;
}

void output_spool_dir_warn_orphans(int dfd, const char *state_dir,
				   const struct output_spec *specs, size_t n)
{
	DIR *d;
	struct dirent *de;
	int fd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return;
	}
	while ((de = readdir(d))) {
		char name[300];
		bool used = false;
		size_t i;

		if (de->d_name[0] == '.')
			continue;
		for (i = 0; i < n; i++) {
			if (!output_type_is_network(specs[i].type))
				continue;
			spool_name(&specs[i], name, sizeof(name));
			if (strcmp(name, de->d_name) == 0)
				used = true;
		}
		if (!used && spool_dir_has_records(dfd, de->d_name))
			log_warning("Spool %s/spool/%s belongs to no configured output; alerts in it "
				    "are not delivered",
				    state_dir, de->d_name);
	}
	closedir(d);
}

int output_spool_open(struct output *out, struct spool **ret)
{
	const struct outputs_shared *o = out->shared;
	struct spool_config sc = {
		.max_bytes = o->cfg.spool_max_bytes,
		.max_records = o->cfg.spool_max_records,
		.loss_max_bytes = o->cfg.spool_loss_reserve,
		.max_record_bytes = o->cfg.max_alert_bytes + 4096,
	};
	char name[300];
	int r;

	sc.segment_bytes = MIN(MAX(sc.max_bytes / 16, 64ull << 10), 8ull << 20);
	spool_name(&out->spec, name, sizeof(name));
	r = spool_open(o->spool_dfd, name, &sc, ret);
	if (r == -EBUSY)
		return log_error_errno(r, "output %s: spool %s/spool/%s is in use by another process",
				       out->spec.name, o->cfg.state_dir, name);
	if (r < 0)
		return log_error_errno(r, "output %s: failed to open spool %s/spool/%s: %m",
				       out->spec.name, o->cfg.state_dir, name);
	return 0;
}
