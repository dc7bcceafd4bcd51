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
