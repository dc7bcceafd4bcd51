/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Reconciliation: the kernel's own QP and MR tables (RDMA netlink), read at start and on a
 * timer; an entry new since the last read becomes an event.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/log.h"
#include "common/macro.h"
#include "engine/engine.h"
#include "inventory/nldev.h"
#include "proctree/proctree.h"
#include "daemon-internal.h"

static uint64_t key_hash(const struct rg_event *ev)
{
	/* FNV-1a over what names a QP or MR in the kernel's tables. */
	uint64_t h = 1469598103934665603ull;
	const char *dev = ev->type == RG_EV_QP_PRESENT ? ev->u.qp.device : ev->u.mr.device;
	uint64_t parts[4] = {
		ev->type,
		ev->type == RG_EV_QP_PRESENT ? ev->u.qp.lqpn : ev->u.mr.mrn,
		ev->proc.pid,
		ev->type == RG_EV_QP_PRESENT ? ev->u.qp.state : ev->u.mr.length,
	};

	for (const char *p = dev; *p; p++)
		h = (h ^ (uint8_t)*p) * 1099511628211ull;
	for (size_t i = 0; i < ARRAY_SIZE(parts); i++)
		for (int b = 0; b < 8; b++)
			h = (h ^ ((parts[i] >> (8 * b)) & 0xff)) * 1099511628211ull;
	return h;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static int reconcile_event(const struct rg_event *ev, void *ud)
{
	struct daemon *d = ud;
	uint64_t k = key_hash(ev);

	if (d->nnext < DAEMON_RECONCILE_MAX_KEYS)
		d->next_keys[d->nnext++] = k;
	else
		d->keys_overflow = true;
	/* A QP in a new state (e.g. now RTS) is a new fact; one we saw last time is not. */
	if (d->nkeys && bsearch(&k, d->keys, d->nkeys, sizeof(k), cmp_u64))
		return 0;
	d->reconcile_new++;
	return daemon_event(ev, d);
}

static void reconcile_lookup(uint32_t pid, struct rg_task *task, void *ud)
{
	struct daemon *d = ud;
	const struct proc_node *n = proctree_find(engine_proctree(d->engine), PROC_KEY(pid, 0));

	task->pid = pid;
	if (!n || !proc_node_live(n))
		return;
	task->ppid = n->ppid;
	task->uid = n->uid;
	task->start_boot_ns = n->start_boot_ns;
	memcpy(task->comm, n->comm, sizeof(task->comm));
}

/*
 * The kernel's own QP and MR tables, so that what the sensors missed (hardware providers post
 * nothing through syscalls, an agent restart, a kernel-bypass trick) is still seen. Only entries
 * that are new since the last run become events.
 */
void daemon_reconcile(struct daemon *d)
{
	_cleanup_(nldev_tables_freep) struct nldev_tables *t = NULL;
	uint64_t *swap;
	int r;

	/* Opening RDMA netlink would load ib_core: do not, where nothing RDMA is loaded. */
	if (access("/sys/class/infiniband", F_OK) < 0) {
		d->nkeys = 0;
		return;
	}
	d->reconcile_runs++;
	r = nldev_dump(&t);
	if (r < 0) {
		d->reconcile_errors++;
		if (r != d->reconcile_last_error)
			log_warning_errno(r, "Failed to read the RDMA resource tables: %m");
		d->reconcile_last_error = r;
		return;
	}
	d->reconcile_last_error = 0;
	d->nnext = 0;
	d->keys_overflow = false;
	r = nldev_foreach_event(t, now_realtime_ns(), reconcile_lookup, reconcile_event, d);
	if (r < 0)
		log_warning_errno(r, "Failed to process the RDMA resource tables: %m");
	qsort(d->next_keys, d->nnext, sizeof(uint64_t), cmp_u64);
	swap = d->keys;
	d->keys = d->next_keys;
	d->next_keys = swap;
	d->nkeys = d->nnext;
	if (d->keys_overflow)
		log_warning("More than %u QPs and MRs: the excess is reported on every reconciliation.",
			    DAEMON_RECONCILE_MAX_KEYS);
}
