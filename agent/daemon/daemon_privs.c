/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The daemon's capabilities after start-up: once its programs are loaded and attached, its maps,
 * outputs and sockets open, it keeps only what it still uses, for good (permitted, effective,
 * inheritable; the bounding set too where it may change it, i.e. when run by hand as root; under
 * the unit the bounding set is the unit's and NoNewPrivileges= keeps exec from regaining any):
 *
 *   CAP_BPF, CAP_PERFMON  reload, enforcement refills (new policy maps, programs attached and
 *                         detached as the armed rules change), uprobes and kprobes attached as
 *                         libraries and modules come, the module programs loaded when
 *                         ib_uverbs/rdma_ucm appear
 *   CAP_NET_ADMIN         TC filters put back or attached to new netdevs; the RDMA netlink
 *                         tables with their keys (reconciliation)
 *   CAP_SYS_PTRACE,       /proc/PID/exe, fd, maps of every process; executables to hash
 *   CAP_DAC_READ_SEARCH
 *   CAP_SYS_ADMIN         only in the permitted set, and only while the sensors may still load
 *                         fentry programs on ib_uverbs/rdma_ucm (libbpf looks up the module's BTF
 *                         by id, which Linux lets only CAP_SYS_ADMIN do) or the hardware runtime
 *                         watches PCI hotplug (config space past 64 bytes is read only by an
 *                         opener with it): effective during that load or scan alone. On kernels
 *                         without CAP_BPF (before 5.8), and where perf_event_paranoid is above 2
 *                         (Debian's default 3: perf_event_open, with which tracepoints, kprobes and
 *                         uprobes attach, is CAP_SYS_ADMIN's there), it stays effective.
 *
 * Dropped: everything else, CAP_KILL included (kill enforcement signals from BPF).
 */
#include <cap-ng.h>
#include <errno.h>
#include <linux/capability.h>
#include <stdio.h>
#include <stdlib.h>

#include "daemon-internal.h"
#include "common/log.h"

static bool has_cap_bpf(void)
{
	char buf[16] = "";
	FILE *f = fopen("/proc/sys/kernel/cap_last_cap", "re");
	int last = 0;

	if (f) {
		if (fgets(buf, sizeof(buf), f))
			last = atoi(buf);
		fclose(f);
	}
	return last >= CAP_BPF;
}

/* perf_event_paranoid above 2 (Debian's kernels default to 3) refuses perf_event_open, with which
 * tracepoints, kprobes and uprobes are attached, to all but CAP_SYS_ADMIN: the daemon attaches
 * after start (enforcement arming, libraries, modules), so there it keeps CAP_SYS_ADMIN. */
static bool perf_needs_admin(void)
{
	char buf[16] = "";
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "re");
	int level = 2;

	if (f) {
		if (fgets(buf, sizeof(buf), f))
			level = atoi(buf);
		fclose(f);
	}
	return level > 2;
}

/* CAP_SYS_ADMIN stays effective for good (no CAP_BPF, or perf_needs_admin()). */
static bool admin_always;

int daemon_privs_drop(bool keep_admin)
{
	bool bpf = has_cap_bpf(), bounds;
	const char *admin = "";
	int r;

	capng_get_caps_process();
	bounds = capng_have_capability(CAPNG_EFFECTIVE, CAP_SETPCAP);
	capng_clear(bounds ? CAPNG_SELECT_BOTH : CAPNG_SELECT_CAPS);
	r = capng_updatev(CAPNG_ADD,
			  CAPNG_EFFECTIVE | CAPNG_PERMITTED | (bounds ? CAPNG_BOUNDING_SET : 0),
			  CAP_NET_ADMIN, CAP_SYS_PTRACE, CAP_DAC_READ_SEARCH, -1);
	if (r == 0 && bpf)
		r = capng_updatev(CAPNG_ADD,
				  CAPNG_EFFECTIVE | CAPNG_PERMITTED |
				      (bounds ? CAPNG_BOUNDING_SET : 0),
				  CAP_BPF, CAP_PERFMON, -1);
	admin_always = !bpf || perf_needs_admin();
	if (r == 0 && (keep_admin || admin_always))
		r = capng_update(CAPNG_ADD,
				 (admin_always ? CAPNG_EFFECTIVE : 0) | CAPNG_PERMITTED |
				     (bounds ? CAPNG_BOUNDING_SET : 0),
				 CAP_SYS_ADMIN);
	if (r < 0)
		return log_error_errno(-EINVAL, "Failed to compute the capabilities to keep.");
	r = capng_apply(bounds ? CAPNG_SELECT_BOTH : CAPNG_SELECT_CAPS);
	if (r < 0)
		return log_error_errno(-EPERM, "Failed to drop capabilities (libcap-ng %d).", r);
	if (admin_always)
		admin = bpf ? ", sys_admin (perf_event_paranoid > 2)" : ", sys_admin";
	else if (keep_admin)
		admin = " (sys_admin permitted, for module programs)";
	log_info("Capabilities dropped: kept bpf, perfmon, net_admin, sys_ptrace, "
		 "dac_read_search%s.",
		 admin);
	return 0;
}

void daemon_privs_admin(void *ud, bool raise)
{
	(void)ud;
	if (admin_always)
		return;
	capng_get_caps_process();
	if (!capng_have_capability(CAPNG_PERMITTED, CAP_SYS_ADMIN))
		return;
	if (capng_update(raise ? CAPNG_ADD : CAPNG_DROP, CAPNG_EFFECTIVE, CAP_SYS_ADMIN) < 0 ||
	    capng_apply(CAPNG_SELECT_CAPS) < 0)
		log_warning("Failed to %s CAP_SYS_ADMIN.", raise ? "raise" : "lower");
}
