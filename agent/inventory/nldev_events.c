/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The parsed NLDEV tables (nldev.h) as events: one QP_PRESENT per queue pair and one MR_PRESENT
 * per memory region, owners resolved through the caller's lookup, for the rule engine.
 */
#include <string.h>

#include "inventory/nldev.h"

static void owner_task(const struct nldev_owner *w, struct rg_task *task,
		       void (*lookup)(uint32_t pid, struct rg_task *task, void *userdata),
		       void *userdata)
{
	memset(task, 0, sizeof(*task));
	if (w->has_pid) {
		task->pid = task->tid = w->pid;
		if (lookup)
			lookup(w->pid, task, userdata);
	} else if (w->kern_name[0]) {
		event_set_str(task->comm, sizeof(task->comm), w->kern_name, sizeof(w->kern_name));
	}
}

int nldev_foreach_event(const struct nldev_tables *t, uint64_t ts,
			void (*lookup)(uint32_t pid, struct rg_task *task, void *userdata),
			int (*cb)(const struct rg_event *ev, void *userdata), void *userdata)
{
	struct rg_event ev;
	unsigned i;
	int r;

	for (i = 0; i < t->n[NLDEV_T_QP]; i++) {
		const struct nldev_qp *q = &t->qps[i];

		memset(&ev, 0, sizeof(ev));
		ev.type = RG_EV_QP_PRESENT;
		ev.provider = RG_PROV_NETLINK;
		ev.ts = ts;
		owner_task(&q->owner, &ev.proc, lookup, userdata);
		ev.u.qp.lqpn = q->lqpn;
		ev.u.qp.rqpn = q->rqpn;
		ev.u.qp.type = q->type;
		ev.u.qp.state = q->state;
		ev.u.qp.port = q->port;
		ev.u.qp.pd = q->pdn;
		ev.u.qp.kernel = !q->owner.has_pid && q->owner.kern_name[0];
		event_set_str(ev.u.qp.device, sizeof(ev.u.qp.device), q->device, sizeof(q->device));
		r = cb(&ev, userdata);
		if (r)
			return r;
	}
	for (i = 0; i < t->n[NLDEV_T_MR]; i++) {
		const struct nldev_mr *m = &t->mrs[i];

		memset(&ev, 0, sizeof(ev));
		ev.type = RG_EV_MR_PRESENT;
		ev.provider = RG_PROV_NETLINK;
		ev.ts = ts;
		owner_task(&m->owner, &ev.proc, lookup, userdata);
		ev.u.mr.length = m->length;
		ev.u.mr.iova = m->iova;
		ev.u.mr.rkey = m->rkey;
		ev.u.mr.lkey = m->lkey;
		ev.u.mr.mrn = m->mrn;
		ev.u.mr.pd = m->pdn;
		ev.u.mr.kernel = !m->owner.has_pid && m->owner.kern_name[0];
		event_set_str(ev.u.mr.device, sizeof(ev.u.mr.device), m->device, sizeof(m->device));
		r = cb(&ev, userdata);
		if (r)
			return r;
	}
	return 0;
}
