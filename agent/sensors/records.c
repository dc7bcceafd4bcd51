/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The sensor records: each record of the ring buffer (and of the rings added with
 * sensors_add_ringbuf()) becomes an event through convert.c, with the lookups it needs (device
 * names, a target process's start time, the agent's own objects); exits reported twice are
 * dropped, an RDMA process's exit forgets its fds. rdma_cm commands get the addresses their id
 * had in earlier commands (CONNECT, ACCEPT and LISTEN carry none), and iWARP's ports go to the
 * RoCE counters.
 */
#include <bpf/bpf.h>
#include <errno.h>

#include "common/log.h"
#include "common/procstat.h"
#include "sensors_state.h"
#include "sensors.skel.h"

/* ---- lookups for the conversion ---- */

static void devname_lookup(void *ud, uint32_t rdev, char *buf, size_t size)
{
	struct rg_sensors *s = ud;

	devcache_lookup(&s->devcache, rdev, buf, size);
}

static int proc_info(void *ud, uint32_t pid, uint64_t *start, char comm[RG_COMM_LEN])
{
	struct rg_sensors *s = ud;
	struct proc_stat st;
	char buf[4096];
	int r;

	/* What the ring said this pid was first: /proc is now, and the target may be gone. */
	if (task_cache_find(&s->tasks, pid, start, comm) == 0)
		return 0;
	r = proc_stat_read(pid, buf, sizeof(buf), &st);
	if (r < 0)
		return r;
	event_set_str(comm, RG_COMM_LEN, st.comm, st.comm_len);
	*start = st.start_ticks * s->tick_ns;
	return 0;
}

/* ---- rdma_cm id table: CONNECT/ACCEPT/LISTEN carry no address; earlier commands did ---- */

static struct cm_ent *cm_find(struct rg_sensors *s, uint32_t pid, int32_t fd, uint32_t id)
{
	for (size_t i = 0; i < MAX_CM_IDS; i++)
		if (s->cm[i].used && s->cm[i].pid == pid && s->cm[i].fd == fd && s->cm[i].id == id)
			return &s->cm[i];
	return NULL;
}

static struct cm_ent *cm_get(struct rg_sensors *s, uint32_t pid, int32_t fd, uint32_t id)
{
	struct cm_ent *e = cm_find(s, pid, fd, id);

	if (e)
		return e;
	for (size_t i = 0; i < MAX_CM_IDS; i++)
		if (!s->cm[i].used) {
			e = &s->cm[i];
			break;
		}
	if (!e) /* full: replace round-robin (bounded memory) */
		e = &s->cm[s->cm_next++ % MAX_CM_IDS];
	*e = (struct cm_ent){.used = true, .pid = pid, .fd = fd, .id = id};
	return e;
}

static void iwarp_port(struct rg_sensors *s, uint16_t port)
{
	uint8_t one = 1;

	if (port && s->ntc)
		(void)bpf_map_update_elem(bpf_map__fd(s->skel->maps.iwarp_ports), &port, &one,
					  BPF_ANY);
}

static void cm_track(struct rg_sensors *s, struct rg_event *ev)
{
	struct rg_ev_rdma_cm *cm = &ev->u.cm;
	struct cm_ent *e;

	if (ev->flags & RG_EVF_FAILED)
		return;
	switch (cm->op) {
	case RG_CM_CREATE_ID:
		if (cm->id || cm->port_space) {
			e = cm_get(s, ev->proc.pid, cm->fd, cm->id);
			e->ps = cm->port_space;
		}
		return;
	case RG_CM_DESTROY_ID:
		e = cm_find(s, ev->proc.pid, cm->fd, cm->id);
		if (e) {
			if (!cm->src.family)
				cm->src = e->src;
			if (!cm->dst.family)
				cm->dst = e->dst;
			e->used = false;
		}
		return;
	default:
		break;
	}
	e = cm_get(s, ev->proc.pid, cm->fd, cm->id);
	if (cm->src.family)
		e->src = cm->src;
	else
		cm->src = e->src;
	if (cm->dst.family)
		e->dst = cm->dst;
	else
		cm->dst = e->dst;
	if (!cm->port_space)
		cm->port_space = e->ps;
	iwarp_port(s, cm->src.port);
	iwarp_port(s, cm->dst.port);
}

/* An RDMA process exited: its rdma_cm ids and its entries in rdma_fds go. */
static void forget_process(struct rg_sensors *s, uint32_t pid)
{
	int fd = bpf_map__fd(s->skel->maps.rdma_fds);
	struct rg_fd_key k, next, *prev = NULL, dead[256];
	size_t n = 0;

	for (size_t i = 0; i < MAX_CM_IDS; i++)
		if (s->cm[i].used && s->cm[i].pid == pid)
			s->cm[i].used = false;
	while (bpf_map_get_next_key(fd, prev, &next) == 0 && n < ARRAY_SIZE(dead)) {
		k = next;
		prev = &k;
		if (k.tgid == pid)
			dead[n++] = k;
	}
	for (size_t i = 0; i < n; i++)
		(void)bpf_map_delete_elem(fd, &dead[i]);
}

/* ---- records ---- */

int on_record(void *ctx, void *data, size_t size)
{
	struct rg_sensors *s = ctx;
	const struct rg_rec_hdr *h = data;
	struct rg_event ev;
	int r;

	r = record_to_event(data, size, &s->cctx, &ev);
	if (r < 0) {
		log_debug("Dropped a malformed sensor record (type %u, %zu bytes).",
			  size >= sizeof(*h) ? h->type : 0, size);
		return 0;
	}
	if (h->type == RG_REC_EXIT && size >= sizeof(struct rg_rec_exit) &&
	    ((const struct rg_rec_exit *)data)->rdma)
		forget_process(s, h->pid);
	if (r == 0)
		return 0;
	/* two threads exiting together can both report the process's exit (convert.h) */
	if (ev.type == RG_EV_EXIT &&
	    exit_ring_seen(&s->exits, PROC_KEY(ev.proc.pid, ev.proc.start_boot_ns)))
		return 0;
	if (ev.type == RG_EV_FORK || ev.type == RG_EV_EXEC)
		task_cache_note(&s->tasks, PROC_KEY(ev.proc.pid, ev.proc.start_boot_ns),
				ev.proc.comm);
	if (ev.type == RG_EV_RDMA_CM)
		cm_track(s, &ev);
	return deliver(s, &ev);
}

/* The conversion's lookups, on s. */
void records_init(struct rg_sensors *s)
{
	s->cctx = (struct convert_ctx){
	    .devname = devname_lookup, .proc_info = proc_info, .self_name = self_name, .ud = s};
}
