/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <bpf/bpf.h>
#include <errno.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/log.h"
#include "common/macro.h"
#include "ringwake.h"

#define MS 1000000ull

enum ringwake_action ringwake_step(struct ringwake_state *st, unsigned records, uint64_t now_ns,
				   bool ring_empty)
{
	if (records) {
		uint64_t prev = st->last_ns;

		st->last_ns = now_ns;
		switch (st->mode) {
		case RINGWAKE_WAKE:
			if (!prev || now_ns - prev >= RINGWAKE_POLL_MS * MS)
				return RINGWAKE_KEEP;
			st->bursts++;
			break;
		case RINGWAKE_CLOSING: /* records after the slot went back to 0: still a burst */
			break;
		case RINGWAKE_POLL:
			return RINGWAKE_KEEP;
		}
		st->mode = RINGWAKE_POLL;
		return RINGWAKE_SET_POLL;
	}
	if (st->mode == RINGWAKE_POLL && now_ns - st->last_ns >= RINGWAKE_LINGER_MS * MS) {
		st->mode = RINGWAKE_CLOSING;
		st->closing_ns = now_ns;
		return RINGWAKE_SET_WAKE;
	}
	if (st->mode == RINGWAKE_CLOSING && now_ns - st->closing_ns >= RINGWAKE_POLL_MS * MS &&
	    ring_empty)
		st->mode = RINGWAKE_WAKE;
	return RINGWAKE_KEEP;
}

int ringwake_timeout_ms(const struct ringwake_state *st, int want_ms)
{
	if (st->mode == RINGWAKE_WAKE || (want_ms >= 0 && want_ms <= RINGWAKE_POLL_MS))
		return want_ms;
	return RINGWAKE_POLL_MS;
}

const char *ringwake_mode_to_string(enum ringwake_mode m)
{
	switch (m) {
	case RINGWAKE_WAKE:
		return "wake";
	case RINGWAKE_POLL:
		return "poll";
	case RINGWAKE_CLOSING:
		return "closing";
	}
	return "?";
}

static int set_slot(struct ringwake *w, uint32_t v)
{
	uint32_t zero = 0;

	if (bpf_map_update_elem(w->poll_map_fd, &zero, &v, BPF_ANY) < 0)
		return -errno;
	return 0;
}

int ringwake_init(struct ringwake *w, int ring_map_fd, int poll_map_fd)
{
	long page = sysconf(_SC_PAGESIZE);
	void *p;
	int r;

	*w = (struct ringwake){.poll_map_fd = -1};
	if (page <= 0)
		return -EINVAL;
	/* The consumer page, then the producer page (the kernel allows them read-only). */
	p = mmap(NULL, 2 * (size_t)page, PROT_READ, MAP_SHARED, ring_map_fd, 0);
	if (p == MAP_FAILED)
		return log_warning_errno(-errno,
					 "Failed to map the ring buffer's positions, keeping "
					 "a wake-up per record: %m");
	w->pos = p;
	w->pos_len = 2 * (size_t)page;
	w->poll_map_fd = poll_map_fd;
	r = set_slot(w, 0);
	if (r < 0) {
		ringwake_close(w);
		return log_warning_errno(r,
					 "Failed to set the ring buffer's wake-up policy, keeping "
					 "a wake-up per record: %m");
	}
	return 0;
}

int ringwake_add_ring(struct ringwake *w, int ring_map_fd)
{
	void *p;

	if (!w->pos)
		return -EINVAL;
	p = mmap(NULL, w->pos_len, PROT_READ, MAP_SHARED, ring_map_fd, 0);
	if (p == MAP_FAILED) {
		int r = -errno;

		(void)set_slot(w, 0);
		ringwake_close(w);
		return log_warning_errno(r,
					 "Failed to map the RDMA ring buffer's positions, keeping "
					 "a wake-up per record: %m");
	}
	w->pos2 = p;
	return 0;
}

static bool positions_equal(const void *pos, size_t len)
{
	const unsigned long *cons = pos;
	const unsigned long *prod = (const unsigned long *)((const char *)pos + len / 2);

	return __atomic_load_n(prod, __ATOMIC_ACQUIRE) == __atomic_load_n(cons, __ATOMIC_ACQUIRE);
}

static bool ring_empty(const struct ringwake *w)
{
	return positions_equal(w->pos, w->pos_len) &&
	       (!w->pos2 || positions_equal(w->pos2, w->pos_len));
}

void ringwake_after_read(struct ringwake *w, unsigned records)
{
	struct ringwake_state before = w->st;
	enum ringwake_action a;
	int r = 0;

	if (!w->pos)
		return;
	a = ringwake_step(&w->st, records, now_monotonic_ns(),
			  w->st.mode == RINGWAKE_CLOSING && ring_empty(w));
	if (a == RINGWAKE_SET_POLL)
		r = set_slot(w, 1);
	else if (a == RINGWAKE_SET_WAKE)
		r = set_slot(w, 0);
	if (r < 0) {
		/* Not polling after all, or still polling: either way no record waits for a
		 * wake-up that will not come. */
		if (!w->errors++)
			log_warning_errno(r,
					  "Failed to change the ring buffer's wake-up policy: %m");
		w->st = before;
	}
}

void ringwake_close(struct ringwake *w)
{
	if (w->pos)
		munmap(w->pos, w->pos_len);
	if (w->pos2)
		munmap(w->pos2, w->pos_len);
	w->pos = w->pos2 = NULL;
	w->poll_map_fd = -1;
}
