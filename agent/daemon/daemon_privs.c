/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The daemon's capabilities once started: which it keeps, computed from what it runs (sensors,
 * enforcement, the hardware layer) and the kernel, and the drop itself, for the event thread (the
 * threads started earlier, outputs and hashing, dropped all of theirs as they began: caps.h).
 * docs/security-model.md has the table of what is kept for what.
 *
 *   cap_sys_ptrace,       every exec and the reconciliation read /proc/PID/exe, fd, maps of any
 *   cap_dac_read_search   process and open executables to hash them, whatever their mode
 *   cap_net_admin         TC filters put back (self-protection) or attached to new netdevs; the
 *                         RDMA netlink tables with their details (reconciliation)
 *   cap_bpf, cap_perfmon  programs attached and detached after start: a reload arms kill rules or
 *                         turns enforcement on (new maps, programs), the sensors follow ib_uverbs
 *                         and rdma_ucm as they come and go (5.8+)
 *   cap_sys_admin         effective where the kernel has no CAP_BPF (before 5.8), and where
 *                         kernel.perf_event_paranoid is above 2 (Debian's default 3: its kernels
 *                         then refuse perf_event_open, with which tracepoints and kprobes attach,
 *                         to all but CAP_SYS_ADMIN) while anything may attach later (enforcement,
 *                         sensors on modules). Otherwise only permitted, raised around the calls
 *                         that need it (caps_raise()): the fentry programs on ib_uverbs/rdma_ucm
 *                         (libbpf reads the module's BTF by id), the config space of a PCI
 *                         function that appears (an opener without it reads 64 bytes), hardware
 *                         enforcement's config writes.
 *   cap_sys_rawio         on demand where the daemon has it (run by hand: the unit does not grant
 *                         it) and hardware enforcement clears bus mastering: with cap_sys_admin,
 *                         the switch of the function's identity IOMMU group to a translating one.
 *
 * Dropped: everything else, cap_syslog included (/dev/kmsg is open by then).
 */
#include <errno.h>
#include <linux/capability.h>
#include <json-c/json.h>
#include <stdio.h>
#include <string.h>

#include "common/caps.h"
#include "common/log.h"
#include "engine/engine.h"
#include "policy/policy.h"
#include "sensors/sensors.h"
#include "daemon-internal.h"

/* kernel.perf_event_paranoid; 2 (upstream's default) where it cannot be read */
static int perf_paranoid(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "re");
	int level = 2;

	if (f) {
		if (fscanf(f, "%d", &level) != 1)
			level = 2;
		fclose(f);
	}
	return level;
}

void daemon_privs_plan(const struct daemon *d, uint64_t *effective, uint64_t *on_demand)
{
	bool bpf = caps_kernel_has_bpf();
	bool later = d->enf || (d->sensors && sensors_may_attach_later(d->sensors));
	uint64_t e = CAPS_BIT(CAP_SYS_PTRACE) | CAPS_BIT(CAP_DAC_READ_SEARCH) |
		     CAPS_BIT(CAP_NET_ADMIN),
		 o = 0;

	if (bpf)
		e |= CAPS_BIT(CAP_BPF) | CAPS_BIT(CAP_PERFMON);
	if (!bpf || (later && perf_paranoid() > 2))
		e |= CAPS_BIT(CAP_SYS_ADMIN);
	else if (d->hw || (d->sensors && sensors_may_load_module_programs(d->sensors)))
		o |= CAPS_BIT(CAP_SYS_ADMIN);
	/* hardware enforcement's switch of an identity IOMMU group to DMA: the kernel wants
	 * CAP_SYS_RAWIO with CAP_SYS_ADMIN (the unit grants neither RAWIO nor so this) */
	if (d->hw && (d->cfg->enforce || engine_policy(d->engine)->enforce) &&
	    engine_policy(d->engine)->hw_enforce == RG_HW_ENFORCE_BUS_MASTER) {
		o |= CAPS_BIT(CAP_SYS_RAWIO);
		if (!(e & CAPS_BIT(CAP_SYS_ADMIN)))
			o |= CAPS_BIT(CAP_SYS_ADMIN);
	}
	*effective = e;
	*on_demand = o;
}

int daemon_privs_drop(struct daemon *d)
{
	uint64_t eff, demand, have_eff = 0, have_prm = 0;
	char a[256], b[128];
	bool bounded = false;
	int r;

	daemon_privs_plan(d, &eff, &demand);
	(void)caps_get(&have_eff, &have_prm, NULL);
	/* run by an unprivileged user (tests): nothing to keep that it does not have */
	eff &= have_prm;
	demand &= have_prm;
	r = caps_limit(eff, demand, &bounded);
	if (r < 0)
		return log_error_errno(r, "Failed to drop capabilities: %m");
	d->caps_effective = eff;
	d->caps_on_demand = demand;
	d->caps_bounded = bounded;
	d->caps_dropped = true;
	caps_format(eff, a, sizeof(a));
	caps_format(demand, b, sizeof(b));
	log_info("Capabilities kept: %s; on demand: %s; bounding set %s; no_new_privs.", a, b,
		 bounded ? "the same" : "the unit's (no cap_setpcap to cut it)");
	return 0;
}

static struct json_object *names(uint64_t mask)
{
	struct json_object *a = json_object_new_array();
	char buf[512], *save = NULL;

	caps_format(mask, buf, sizeof(buf));
	if (strcmp(buf, "none") == 0)
		return a;
	for (char *t = strtok_r(buf, " ", &save); t; t = strtok_r(NULL, " ", &save))
		json_object_array_add(a, json_object_new_string(t));
	return a;
}

struct json_object *daemon_privs_describe(const struct daemon *d)
{
	struct json_object *o = json_object_new_object();
	uint64_t eff = 0, prm = 0;

	(void)caps_get(&eff, &prm, NULL);
	json_object_object_add(o, "dropped", json_object_new_boolean(d->caps_dropped));
	json_object_object_add(o, "effective", names(eff));
	json_object_object_add(o, "on_demand", names(prm & ~eff));
	json_object_object_add(o, "bounding",
			       json_object_new_string(d->caps_bounded ? "cut" : "unchanged"));
	return o;
}
