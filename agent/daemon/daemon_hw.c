/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The daemon's side of the hardware layer at runtime (agent/hw/hw_runtime.h): its two fds in the
 * event loop, its bursts closed on the one-second tick and flushed at the stop, its events on
 * the daemon's one path (daemon_event()).
 */
#include "engine/engine.h"
#include "hw/hw_runtime.h"
#include "common/log.h"
#include "daemon-internal.h"

static int emit(const struct rg_event *ev, void *ud)
{
	return daemon_event(ev, ud);
}

int daemon_hw_open(struct daemon *d)
{
	int r = hw_runtime_open(NULL, &d->hw);

	if (r < 0)
		return log_warning_errno(r, "Failed to watch PCI hotplug and DMA faults: %m");
	return 0;
}

void daemon_hw_dispatch(struct daemon *d, int fd)
{
	if (fd < 0 || !d->hw)
		return;
	if (fd == hw_runtime_uevent_fd(d->hw))
		hw_runtime_uevents(d->hw, engine_policy(d->engine), emit, d);
	else if (fd == hw_runtime_kmsg_fd(d->hw))
		hw_runtime_kmsg(d->hw, engine_policy(d->engine), emit, d);
}

void daemon_hw_tick(struct daemon *d, bool flush)
{
	hw_runtime_tick(d->hw, flush, engine_policy(d->engine), emit, d);
}

struct json_object *daemon_hw_stats(struct daemon *d)
{
	struct json_object *o = json_object_new_object();
	struct hw_runtime_stats st;

	hw_runtime_stats(d->hw, &st);
#define U(k, v) json_object_object_add(o, k, json_object_new_uint64(v))
	U("uevents", st.uevents);
	U("pci_events", st.pci_events);
	U("thunderbolt_events", st.tb_events);
	U("kmsg_records", st.kmsg_records);
	U("kmsg_gaps", st.kmsg_gaps);
	U("kmsg_not_kernel", st.kmsg_user);
	U("kmsg_unparsable", st.kmsg_bad);
	U("dma_fault_lines", st.fault_lines);
	U("aer_lines", st.aer_lines);
	U("link_lines", st.link_lines);
	U("fault_reports", st.fault_reports);
	U("fault_lines_dropped", st.fault_dropped);
	U("describe_errors", st.describe_errors);
#undef U
	json_object_object_add(o, "uevent_socket",
			       json_object_new_boolean(hw_runtime_uevent_fd(d->hw) >= 0));
	json_object_object_add(o, "kernel_log",
			       json_object_new_boolean(hw_runtime_kmsg_fd(d->hw) >= 0));
	return o;
}
