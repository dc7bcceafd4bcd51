/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * When the sensors' ring buffer wakes its reader.
 *
 * By default (the kernel's), a record that finds the reader caught up wakes it: an irq_work on
 * the CPU that submits it (a self-IPI) and then the reader's wake-up, both inside the BPF program,
 * so inside the system call it reports. When records come one at a time, as a verbs program's
 * setup calls do, every record pays that, about ten times what the record costs without it
 * (bench/results/: the verbs command record path, one command at a time).
 *
 * So during a burst the reader drains the ring on a timer instead, every RINGWAKE_POLL_MS, and
 * sets the one-slot map rb_poll to 1: the programs then submit with BPF_RB_NO_WAKEUP. A burst is
 * two reads that found records less than RINGWAKE_POLL_MS apart (records coming faster than the
 * timer would read them, so the timer costs fewer wake-ups than the records would). After
 * RINGWAKE_LINGER_MS without a record the slot goes back to 0; the reader keeps its timer for
 * RINGWAKE_POLL_MS more, then blocks again only if the ring's producer position equals its
 * consumer position. That last check is what makes going back safe: a program reads the slot after
 * it reserved its record (bpf/common.bpf.h, rg_submit), so a program that still read 1 has
 * advanced the producer position by then, and the reader sees the ring as not empty and polls on;
 * a program that reserves later reads 0 (the store is long visible) and wakes the reader.
 *
 * Detection latency during a burst is at most RINGWAKE_POLL_MS more; an idle machine's first
 * record still wakes the reader at once, and an idle reader has no timer.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#define RINGWAKE_POLL_MS   2
#define RINGWAKE_LINGER_MS 50

enum ringwake_mode {
	RINGWAKE_WAKE,	  /* rb_poll 0; the reader blocks until a record wakes it */
	RINGWAKE_POLL,	  /* rb_poll 1; the reader drains the ring every RINGWAKE_POLL_MS */
	RINGWAKE_CLOSING, /* rb_poll back to 0; the reader polls until the ring is seen empty */
};

/* What the caller must do to rb_poll after ringwake_step(). */
enum ringwake_action {
	RINGWAKE_KEEP,
	RINGWAKE_SET_POLL, /* write 1 */
	RINGWAKE_SET_WAKE, /* write 0 */
};

struct ringwake_state {
	enum ringwake_mode mode;
	uint64_t last_ns;    /* the last read that found records (0: none yet) */
	uint64_t closing_ns; /* when rb_poll went back to 0 */
	uint64_t bursts;     /* times the reader went to its timer */
};

/*
 * The policy alone, without the map (for tests): after a read that delivered `records` at now_ns;
 * ring_empty: the ring's producer and consumer positions were equal after that read (looked at
 * only in RINGWAKE_CLOSING). A caller that cannot carry out the action puts back the state of
 * before the call.
 */
enum ringwake_action ringwake_step(struct ringwake_state *st, unsigned records, uint64_t now_ns,
				   bool ring_empty);

/* How long the reader may block when it wants `want_ms` (-1: forever). */
int ringwake_timeout_ms(const struct ringwake_state *st, int want_ms);

const char *ringwake_mode_to_string(enum ringwake_mode m);

/* The policy on a real ring buffer map and its rb_poll map. */
struct ringwake {
	struct ringwake_state st;
	int poll_map_fd;
	void *pos; /* the ring's consumer and producer pages, mapped read-only */
	void *pos2; /* the same of a second ring read by the same reader (NULL: none) */
	size_t pos_len;
	uint64_t errors; /* failed writes of rb_poll */
};

/* rb_poll is set to 0. On failure (-errno) the ring keeps the kernel's wake-ups: w stays usable,
 * in RINGWAKE_WAKE for good. */
int ringwake_init(struct ringwake *w, int ring_map_fd, int poll_map_fd);
/* A second ring whose programs read the same rb_poll (the reader drains both): the reader blocks
 * again only when both are empty. On failure (-errno) the policy is off: w in RINGWAKE_WAKE for
 * good, and rb_poll 0. */
int ringwake_add_ring(struct ringwake *w, int ring_map_fd);
/* After each read of the ring, with the number of records it delivered. */
void ringwake_after_read(struct ringwake *w, unsigned records);
void ringwake_close(struct ringwake *w);
