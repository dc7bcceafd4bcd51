/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rdmaguard baseline save [--root DIR] FILE
 * rdmaguard baseline check [--no-owner-check] FILE...
 * rdmaguard baseline digest [--root DIR]
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "common/exitcode.h"
#include "common/log.h"
#include "common/macro.h"
#include "common/root.h"
#include "common/strutil.h"
#include "hw/baseline.h"
#include "hw/fingerprint.h"

static void usage(FILE *f)
{
	fprintf(
	    f,
	    "Usage: rdmaguard baseline save [--root DIR] FILE\n"
	    "       rdmaguard baseline check [--no-owner-check] FILE...\n"
	    "       rdmaguard baseline digest [--root DIR]\n\n"
	    "save writes this machine's hardware fingerprint (every PCI function: IDs, class,\n"
	    "capability layout, serial number, BAR sizes, link capabilities, driver; never the\n"
	    "registers that change while it runs) to FILE (- for stdout), for the policy's\n"
	    "\"baseline\" key: audit and daemon then alert on every function added, removed or\n"
	    "changed against it. Take it on one known-good seat; it checks every identical one.\n"
	    "  --root DIR          examine the machine mounted at DIR\n\n"
	    "check validates baseline files as audit and daemon load them, owner and mode\n"
	    "included (--no-owner-check skips that). Errors: FILE:LINE:COLUMN: message.\n\n"
	    "digest prints the sha256 of what save would write with the host name left empty:\n"
	    "the hw.fingerprint of the daemon's heartbeats, the same on identical seats.\n\n"
	    "Exit status: 0 success, 2 an error.\n");
}

/* The machine below root_path, and its host name (host: 256 bytes). 0 or RG_EXIT_ERROR. */
static int scan(const char *root_path, struct hw_scan **ret, char *host)
{
	_cleanup_(hw_scan_freep) struct hw_scan *s = NULL;
	struct rg_root root = {.fd = -1};
	int r;

	r = root_init(&root, root_path);
	if (r < 0) {
		fprintf(stderr, "rdmaguard baseline: --root %s: %s\n", root_path, strerror(-r));
		return RG_EXIT_ERROR;
	}
	r = hw_scan(&root, &s);
	if (r >= 0 && (root_read_line(&root, "/proc/sys/kernel/hostname", host, 256) < 0))
		(void)root_read_line(&root, "/etc/hostname", host, 256);
	root_done(&root);
	if (r < 0) {
		log_error_errno(r, "Failed to examine the PCI functions: %m");
		return RG_EXIT_ERROR;
	}
	if (s->error[0] || s->n == 0) {
		fprintf(stderr, "rdmaguard baseline: no PCI function examined%s%s\n",
			s->error[0] ? ": " : "", s->error);
		return RG_EXIT_ERROR;
	}
	*ret = TAKE_PTR(s);
	return 0;
}

static int digest(const char *root_path)
{
	_cleanup_(hw_scan_freep) struct hw_scan *s = NULL;
	char host[256] = "", hex[65];
	int r;

	if (scan(root_path, &s, host))
		return RG_EXIT_ERROR;
	r = hw_print_digest(s, hex);
	if (r < 0) {
		log_error_errno(r, "Failed to compute the digest: %m");
		return RG_EXIT_ERROR;
	}
	printf("%s\n", hex);
	return fflush(stdout) ? RG_EXIT_ERROR : RG_EXIT_OK;
}

static int save(const char *root_path, const char *file)
{
	_cleanup_(hw_scan_freep) struct hw_scan *s = NULL;
	char host[256] = "", tmp[4200];
	FILE *f;
	int r, fd;

	if (scan(root_path, &s, host))
		return RG_EXIT_ERROR;
	if (strcmp(file, "-") == 0)
		return hw_baseline_write(s, host, stdout) < 0 || fflush(stdout) ? RG_EXIT_ERROR
										: RG_EXIT_OK;
	/* Written aside and renamed, so that a daemon never reads half a baseline. */
	if (!snprintf_ok(tmp, sizeof(tmp), "%s.tmp.XXXXXX", file)) {
		fprintf(stderr, "rdmaguard baseline: %s: name too long\n", file);
		return RG_EXIT_ERROR;
	}
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0 || fchmod(fd, 0644) < 0 || !(f = fdopen(fd, "w"))) {
		fprintf(stderr, "rdmaguard baseline: %s: %s\n", file, strerror(errno));
		if (fd >= 0) {
			close(fd);
			unlink(tmp);
		}
		return RG_EXIT_ERROR;
	}
	r = hw_baseline_write(s, host, f);
	if (fflush(f) != 0 || fsync(fileno(f)) < 0)
		r = -errno;
	if (fclose(f) != 0 && r >= 0)
		r = -errno;
	if (r >= 0 && rename(tmp, file) < 0)
		r = -errno;
	if (r < 0) {
		unlink(tmp);
		fprintf(stderr, "rdmaguard baseline: %s: %s\n", file, strerror(-r));
		return RG_EXIT_ERROR;
	}
	fprintf(stderr, "%s: %u PCI functions\n", file, s->n);
	return RG_EXIT_OK;
}

int cmd_baseline(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"help", no_argument, NULL, 'h'},
	    {"root", required_argument, NULL, 'r'},
	    {"no-owner-check", no_argument, NULL, 'O'},
	    {},
	};
	const char *root_path = "/";
	bool check_owner = true, root_given = false;
	struct rg_error err;
	char buf[1200];
	int c, status = RG_EXIT_OK;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			usage(stdout);
			return RG_EXIT_OK;
		case 'r':
			root_path = optarg;
			root_given = true;
			break;
		case 'O':
			check_owner = false;
			break;
		default:
			return cmd_usage_error("baseline", "invalid option");
		}
	}
	if (optind >= argc)
		return cmd_usage_error("baseline", "missing subcommand (save, check or digest)");
	if (strcmp(argv[optind], "save") == 0) {
		if (!check_owner)
			return cmd_usage_error("baseline", "--no-owner-check is for check");
		if (argc - optind != 2)
			return cmd_usage_error("baseline", "save needs exactly one FILE");
		return save(root_path, argv[optind + 1]);
	}
	if (strcmp(argv[optind], "digest") == 0) {
		if (!check_owner)
			return cmd_usage_error("baseline", "--no-owner-check is for check");
		if (argc - optind != 1)
			return cmd_usage_error("baseline", "digest takes no FILE");
		return digest(root_path);
	}
	if (strcmp(argv[optind], "check") != 0)
		return cmd_usage_error("baseline", "unknown subcommand '%s'", argv[optind]);
	if (root_given)
		return cmd_usage_error("baseline", "--root is for save");
	if (argc - optind < 2)
		return cmd_usage_error("baseline", "check needs at least one FILE");
	for (int i = optind + 1; i < argc; i++) {
		struct hw_baseline *b = NULL;
		int r = hw_baseline_load(argv[i], check_owner, &b, &err);

		if (r < 0) {
			if (r == -ENOMEM)
				rg_error_set(&err, argv[i], 0, 0, "out of memory");
			fprintf(stderr, "%s\n", rg_error_format(&err, buf, sizeof(buf)));
			status = RG_EXIT_ERROR;
			continue;
		}
		printf("%s: ok (%zu PCI functions)\n", argv[i], hw_baseline_size(b));
		hw_baseline_free(b);
	}
	return status;
}
