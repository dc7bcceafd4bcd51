/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * `rdmaguard daemon` as if the kernel had no bpf_loop() (before 5.17): the BPF objects are loaded
 * with rg_have_loop = 0, so the verifier takes the unrolled walk of the allow variants instead.
 * For tests/integration/host/test_enforce.py on kernels that have bpf_loop. Arguments: the
 * daemon's options.
 */
#include <stdarg.h>
#include <stdio.h>

#include "cmd/cmd.h"
#include "common/exitcode.h"
#include "sensors/probe.h"

int cmd_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "rg-daemon-noloop %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return RG_EXIT_ERROR;
}

int main(int argc, char **argv)
{
	probe_assume_no_bpf_loop();
	return cmd_daemon(argc, argv);
}
