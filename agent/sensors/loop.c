/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The event loop: sensors_poll() waits on one epoll fd for the ring buffer, the uevent socket
 * (devices.c) and a one-second timer (lost records, TC checks, module changes, and every
 * roce_interval_s the RoCE traffic reports), then drains the ring buffers every time (during a
 * burst their records wake nobody: ringwake.h): the main one, then the RDMA one, whose records
 * never come before the exec that explains them (on_record_hi).
 */
#include <errno.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/log.h"
#include "common/macro.h"
#include "sensors_state.h"

int epoll_add(int epfd, int fd)
{
	struct epoll_event e = {.events = EPOLLIN, .data.fd = fd};

	return epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &e) < 0 ? -errno : 0;
}

static void on_timer(struct rg_sensors *s)
{
	uint64_t expirations;
	unsigned period = s->cfg.roce_interval_s ? s->cfg.roce_interval_s : DEFAULT_ROCE_S;

	if (read(s->timer_fd, &expirations, sizeof(expirations)) != sizeof(expirations))
		return;
	s->ticks++;
	check_lost(s);
	tc_verify(s);
	/* Modules may come and go without a uevent reaching us (socket overrun, no listener). */
	modules_changed(s);
	if (s->ticks % period == 0) {
		tc_scan(s);
		roce_harvest(s);
	}
}

int sensors_fd(struct rg_sensors *s)
{
	return s->epfd;
}

int sensors_poll(struct rg_sensors *s, int timeout_ms, sensors_cb cb, void *userdata)
{
	struct epoll_event evs[8];
	int n, r;

	s->cb = cb;
	s->ud = userdata;
	s->delivered = 0;
	s->cb_error = 0;
	s->cctx.boot_to_real_ns = boot_to_realtime_offset_ns();
	r = deliver_queued(s);
	if (r < 0)
		return r;
	n = epoll_wait(s->epfd, evs, ARRAY_SIZE(evs),
		       s->delivered ? 0 : ringwake_timeout_ms(&s->wake.st, timeout_ms));
	if (n < 0)
		return errno == EINTR ? s->delivered : -errno;
	for (int i = 0; i < n; i++) {
		int fd = evs[i].data.fd;

		if (fd == s->uevent_fd)
			handle_uevents(s);
		else if (fd == s->timer_fd)
			on_timer(s);
		if (s->cb_error < 0)
			return s->cb_error;
	}
	/* Always drain the ring buffers: records may be ready without a wake-up (ringwake.h).
	 * The main ring first, then the RDMA ring (on_record_hi, below). */
	r = sensors_read_main(s);
	if (r < 0)
		return r;
	n = ring_buffer__consume(s->rb_hi);
	if (s->cb_error < 0)
		return s->cb_error;
	if (n < 0)
		return n;
	ringwake_after_read(&s->wake, (unsigned)r + (unsigned)n);
	return s->delivered;
}

int sensors_read_main(struct rg_sensors *s)
{
	int r;

	s->rb_read_at = now_boottime_ns();
	r = ring_buffer__consume(s->rb);
	if (s->cb_error < 0)
		return s->cb_error;
	return r;
}

int sensors_timeout_ms(const struct rg_sensors *s, int want_ms)
{
	return ringwake_timeout_ms(&s->wake.st, want_ms);
}

int sensors_add_ringbuf(struct rg_sensors *s, int map_fd)
{
	int r;

	if (s->n_extra_rb >= ARRAY_SIZE(s->extra_rb))
		return -E2BIG;
	r = ring_buffer__add(s->rb, map_fd, on_record, s);
	if (r < 0)
		return log_error_errno(r, "Failed to read ring buffer map %d: %m", map_fd);
	s->extra_rb[s->n_extra_rb++] = map_fd;
	return 0;
}

/*
 * A record of the RDMA ring. Its process's exec (fork, exit) went to the main ring before it,
 * but may have been written after the main ring was last read: then that exec would be applied
 * after this record, which would be charged to the image the process ran before (a launcher on
 * the allowlist that execs a cheat). The exec came before this record's time stamp: a reading of
 * the main ring that starts after it sees it.
 */
int on_record_hi(void *ctx, void *data, size_t size)
{
	struct rg_sensors *s = ctx;
	const struct rg_rec_hdr *h = data;

	if (size >= sizeof(*h) && h->ts_boot_ns >= s->rb_read_at) {
		int r = sensors_read_main(s);

		if (r < 0)
			return r;
	}
	return on_record(ctx, data, size);
}
