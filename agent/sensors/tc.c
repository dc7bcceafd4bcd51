/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The roce hook point: RoCE v2 and iWARP packet counters (bpf/roce.bpf.c) on TC clsact ingress
 * and egress of the netdevs that carry an RDMA device (sysfs.c) and of --roce-if; attached at
 * start and as devices come, checked every second (a filter removed or replaced by another
 * process is reported and put back), detached at close; and the per-peer traffic reports, the
 * deltas of map roce_flows every roce_interval_s (the drop itself: tc_fleet.c).
 */
#include <bpf/bpf.h>
#include <errno.h>
#include <net/if.h>
#include <string.h>
#include <sys/socket.h>

#include "common/clock.h"
#include "common/log.h"
#include "common/macro.h"
#include "common/strutil.h"
#include "sensors_state.h"
#include "sensors.skel.h"

static bool tc_attached(struct rg_sensors *s, int ifindex)
{
	for (size_t i = 0; i < s->ntc; i++)
		if (s->tc[i].ifindex == ifindex)
			return true;
	return false;
}

static struct bpf_program *tc_prog(struct rg_sensors *s, bool egress)
{
	return egress ? s->skel->progs.tc_roce_egress : s->skel->progs.tc_roce_ingress;
}

/*
 * Attaches one direction's counter, replacing what has our handle and priority there. TC filters
 * outlive the process that attached them: a daemon that was killed (SIGKILL, the OOM killer)
 * leaves its own behind, and a plain attach would then fail with EEXIST on every restart.
 */
static int tc_attach_dir(struct rg_sensors *s, int ifindex, bool egress)
{
	LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = ifindex,
		    .attach_point = egress ? BPF_TC_EGRESS : BPF_TC_INGRESS);
	LIBBPF_OPTS(bpf_tc_opts, o, .handle = RG_TC_HANDLE, .priority = 1,
		    .flags = BPF_TC_F_REPLACE, .prog_fd = bpf_program__fd(tc_prog(s, egress)));

	return bpf_tc_attach(&hook, &o);
}

static int tc_attach_if(struct rg_sensors *s, const char *ifname)
{
	int ifindex = (int)if_nametoindex(ifname), r;
	struct tc_if *t;

	if (ifindex <= 0 || tc_attached(s, ifindex))
		return 0;
	if (s->ntc >= MAX_TC_IFS)
		return -E2BIG;
	t = &s->tc[s->ntc];
	*t = (struct tc_if){.ifindex = ifindex};
	strscpy_ok(t->name, ifname, sizeof(t->name));
	{
		LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = ifindex, .attach_point = BPF_TC_INGRESS);
		LIBBPF_OPTS(bpf_tc_opts, in, .handle = RG_TC_HANDLE, .priority = 1);

		r = bpf_tc_hook_create(&hook);
		if (r == 0)
			t->created_hook = true;
		else if (r != -EEXIST) {
			/* Degraded, not silent: AGENT-002 names the netdev. */
			queue_sensor_event(s, HP_ROCE, false, "roce: no clsact qdisc on %s (%s)",
					   ifname, strerror(-r));
			return log_warning_errno(r, "Failed to add a clsact qdisc to %s: %m",
						 ifname);
		}
		r = tc_attach_dir(s, ifindex, false);
		if (r == 0)
			r = tc_attach_dir(s, ifindex, true);
		if (r < 0) {
			log_warning_errno(r, "Failed to attach the RoCE counters to %s: %m",
					  ifname);
			queue_sensor_event(s, HP_ROCE, false,
					   "roce: counters not attached to %s (%s)", ifname,
					   strerror(-r));
			(void)bpf_tc_detach(&hook, &in);
			if (t->created_hook) {
				hook.attach_point = BPF_TC_INGRESS | BPF_TC_EGRESS;
				(void)bpf_tc_hook_destroy(&hook);
			}
			return r;
		}
	}
	s->ntc++;
	log_info("RoCE counters attached to %s.", ifname);
	return 0;
}

void tc_detach_all(struct rg_sensors *s)
{
	for (size_t i = 0; i < s->ntc; i++) {
		LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = s->tc[i].ifindex,
			    .attach_point = BPF_TC_INGRESS);
		LIBBPF_OPTS(bpf_tc_opts, o, .handle = RG_TC_HANDLE, .priority = 1);

		(void)bpf_tc_detach(&hook, &o);
		hook.attach_point = BPF_TC_EGRESS;
		(void)bpf_tc_detach(&hook, &o);
		if (s->tc[i].created_hook) {
			hook.attach_point = BPF_TC_INGRESS | BPF_TC_EGRESS;
			(void)bpf_tc_hook_destroy(&hook);
		}
	}
	s->ntc = 0;
}

static uint32_t prog_id(struct bpf_program *prog)
{
	struct bpf_prog_info info;
	uint32_t len = sizeof(info);

	memset(&info, 0, sizeof(info));
	if (bpf_program__fd(prog) < 0 || bpf_obj_get_info_by_fd(bpf_program__fd(prog), &info, &len))
		return 0;
	return info.id;
}

/*
 * TC filters are removed over netlink (`tc filter del`), not bpf(): no kernel event names who
 * did it. Every second each RoCE counter filter must still be there with our program; one that
 * is gone or replaced is reported (AGENT-004) and put back.
 */
void tc_verify(struct rg_sensors *s)
{
	static const char *const dirs[] = {"ingress", "egress"};

	for (size_t i = 0; i < s->ntc;) {
		struct tc_if *t = &s->tc[i];
		char name[IF_NAMESIZE];

		if (!if_indextoname((unsigned)t->ifindex, name)) {
			/* The netdev is gone: nothing to protect (tc_scan attaches a new one). */
			s->tc[i] = s->tc[--s->ntc];
			continue;
		}
		for (int dir = 0; dir < 2; dir++) {
			LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = t->ifindex,
				    .attach_point = dir ? BPF_TC_EGRESS : BPF_TC_INGRESS);
			LIBBPF_OPTS(bpf_tc_opts, q, .handle = RG_TC_HANDLE, .priority = 1);
			uint32_t want = prog_id(tc_prog(s, dir));
			int r = bpf_tc_query(&hook, &q), r2;

			if (r == 0 && (!want || q.prog_id == want))
				continue;
			r2 = bpf_tc_hook_create(&hook);
			if (r2 == 0 || r2 == -EEXIST)
				r2 = tc_attach_dir(s, t->ifindex, dir);
			tamper_event(s, "tc_filter", (uint64_t)t->ifindex,
				     "the RoCE counters' %s filter on %s was %s by another process "
				     "(tc, netlink: the process is not known)%s",
				     dirs[dir], name, r == 0 ? "replaced" : "removed",
				     r2 == 0 ? "; put back" : "; could not be put back");
		}
		i++;
	}
}

static void tc_attach_cb(void *ud, const char *ifname)
{
	(void)tc_attach_if(ud, ifname);
}

/* The configured netdevs, and those that carry an RDMA device. */
void tc_scan(struct rg_sensors *s)
{
	if (s->plan.hp[HP_ROCE].active < 0)
		return;
	for (size_t i = 0; i < ARRAY_SIZE(s->cfg.roce_ifaces); i++)
		if (s->cfg.roce_ifaces[i])
			(void)tc_attach_if(s, s->cfg.roce_ifaces[i]);
	rdma_netdevs_foreach(tc_attach_cb, s);
}

static void v4mapped_to_addr(const uint8_t in[16], struct rg_addr *a)
{
	static const uint8_t prefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};

	memcpy(a->addr, in, 16);
	a->family = memcmp(in, prefix, 12) == 0 ? AF_INET : AF_INET6;
}

/* Reports the traffic of each flow since the previous report. */
void roce_harvest(struct rg_sensors *s)
{
	struct rg_flow_key k, next, *prev = NULL;
	int fd;

	if (!s->ntc)
		return;
	fd = bpf_map__fd(s->skel->maps.roce_flows);
	while (bpf_map_get_next_key(fd, prev, &next) == 0) {
		struct rg_flow_val v, delta;
		struct flow_ent *fe = NULL;
		struct rg_event ev = {0};

		k = next;
		prev = &k;
		if (bpf_map_lookup_elem(fd, &k, &v) < 0)
			continue;
		for (size_t i = 0; i < s->nflows; i++)
			if (memcmp(&s->flows[i].k, &k, sizeof(k)) == 0) {
				fe = &s->flows[i];
				break;
			}
		if (!fe) {
			if (s->nflows >= MAX_FLOWS)
				continue;
			fe = &s->flows[s->nflows++];
			fe->k = k;
			memset(&fe->v, 0, sizeof(fe->v));
		}
		delta.packets_in = v.packets_in - fe->v.packets_in;
		delta.bytes_in = v.bytes_in - fe->v.bytes_in;
		delta.packets_out = v.packets_out - fe->v.packets_out;
		delta.bytes_out = v.bytes_out - fe->v.bytes_out;
		delta.packets_dropped = v.packets_dropped - fe->v.packets_dropped;
		fe->v = v;
		if (!delta.packets_in && !delta.packets_out && !delta.packets_dropped)
			continue;
		ev.type = RG_EV_ROCE_TRAFFIC;
		ev.provider = RG_PROV_SENSOR;
		ev.ts = now_realtime_ns();
		v4mapped_to_addr(k.peer, &ev.u.roce.peer);
		v4mapped_to_addr(k.local, &ev.u.roce.local);
		ev.u.roce.packets_in = delta.packets_in;
		ev.u.roce.bytes_in = delta.bytes_in;
		ev.u.roce.packets_out = delta.packets_out;
		ev.u.roce.bytes_out = delta.bytes_out;
		ev.u.roce.packets_dropped = delta.packets_dropped;
		ev.u.roce.protocol = k.proto;
		if (!if_indextoname(k.ifindex, ev.u.roce.ifname))
			ev.u.roce.ifname[0] = 0;
		if (deliver(s, &ev) < 0)
			return;
	}
}
