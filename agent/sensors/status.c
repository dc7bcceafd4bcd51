/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the sensors say about themselves: the plan with what is attached (sensors_describe()),
 * the ring buffer's wake-up mode, records lost per CPU (and, every second, an AGENT_LOST event
 * for each CPU that lost some, or AGENT_TAMPER if a counter went back), records dropped over a
 * process's budget (an AGENT_LOST event per process), BPF LSM, a map's fd.
 */
#include <bpf/bpf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/macro.h"
#include "common/strutil.h"
#include "sensors_state.h"
#include "sensors.skel.h"
#include "sensors_mod.skel.h"

/* What only a running instance knows: the netdevs the RoCE counters are on, the library. */
static void describe_extra(void *ud, unsigned hp, struct json_object *h)
{
	struct rg_sensors *s = ud;

	if (hp == HP_ROCE) {
		struct json_object *ifs = json_object_new_array();

		for (size_t i = 0; i < s->ntc; i++)
			json_object_array_add(ifs, json_object_new_string(s->tc[i].name));
		json_object_object_add(h, "interfaces", ifs);
	}
	if (hp == HP_LIBRARY && s->ibverbs_path[0])
		json_object_object_add(h, "library", json_object_new_string(s->ibverbs_path));
}

struct json_object *sensors_describe(struct rg_sensors *s)
{
	return plan_describe(&s->cfg, &s->feat, &s->plan, s->skel->obj, s->mod ? s->mod->obj : NULL,
			     describe_extra, s);
}

/* The processes whose records were dropped over their budget (the latest seen), as reported. */
static struct json_object *budget_describe(const struct rg_sensors *s)
{
	struct json_object *a = json_object_new_array();

	for (size_t i = 0; a && i < ARRAY_SIZE(s->budget_seen); i++) {
		const struct budget_seen *b = &s->budget_seen[i];
		struct json_object *p;

		if (!b->reported || !(p = json_object_new_object()))
			continue;
		json_object_object_add(p, "pid", json_object_new_uint64(b->tgid));
		json_object_object_add(p, "comm", json_object_new_string(b->comm));
		json_object_object_add(p, "start_boot_ns", json_object_new_uint64(b->start_boot_ns));
		json_object_object_add(p, "dropped", json_object_new_uint64(b->reported));
		json_object_array_add(a, p);
	}
	return a;
}

struct json_object *sensors_ring_describe(const struct rg_sensors *s)
{
	struct json_object *o = json_object_new_object();
	uint64_t dropped;

	if (!o)
		return NULL;
	json_object_object_add(o, "wakeups",
			       json_object_new_string(s->wake.pos
							  ? ringwake_mode_to_string(s->wake.st.mode)
							  : "always"));
	json_object_object_add(o, "bursts", json_object_new_uint64(s->wake.st.bursts));
	json_object_object_add(o, "policy_errors", json_object_new_uint64(s->wake.errors));
	json_object_object_add(
	    o, "rdma_ring_bytes",
	    json_object_new_uint64(bpf_map__max_entries(s->skel->maps.events_hi)));
	if (sensors_budget_dropped((struct rg_sensors *)s, &dropped) == 0)
		json_object_object_add(o, "budget_dropped", json_object_new_uint64(dropped));
	json_object_object_add(o, "budget_processes", budget_describe(s));
	return o;
}

/* A per-CPU counter, summed over the CPUs into *sum and, if per_cpu, given per CPU (n). */
static int read_counter(struct rg_sensors *s, uint32_t key, uint64_t *per_cpu, size_t n,
			uint64_t *sum)
{
	int ncpus = libbpf_num_possible_cpus();
	uint64_t *vals;

	if (ncpus <= 0)
		return ncpus < 0 ? ncpus : -EIO;
	vals = calloc((size_t)ncpus, sizeof(*vals));
	if (!vals)
		return -ENOMEM;
	if (bpf_map_lookup_elem(bpf_map__fd(s->skel->maps.counters), &key, vals) < 0) {
		int r = -errno;

		free(vals);
		return r;
	}
	if (sum)
		*sum = 0;
	for (size_t i = 0; i < (size_t)ncpus; i++) {
		if (per_cpu && i < n)
			per_cpu[i] += vals[i];
		if (sum)
			*sum += vals[i];
	}
	free(vals);
	return ncpus;
}

/* Records lost because a ring was full, the main one or the RDMA one, per CPU. */
int sensors_lost(struct rg_sensors *s, uint64_t *per_cpu, size_t n)
{
	int r;

	memset(per_cpu, 0, n * sizeof(*per_cpu));
	r = read_counter(s, RG_CNT_RINGBUF_FULL, per_cpu, n, NULL);
	if (r < 0)
		return r;
	return read_counter(s, RG_CNT_RINGBUF_HI_FULL, per_cpu, n, NULL);
}

int sensors_budget_dropped(struct rg_sensors *s, uint64_t *total)
{
	int r = read_counter(s, RG_CNT_BUDGET, NULL, 0, total);

	return r < 0 ? r : 0;
}

/*
 * Every second: an AGENT_LOST event ("budget") for each process whose low-value records were
 * dropped over its budget since the last look (bpf/events.h: struct rg_budget), at most
 * BUDGET_REPORTS_MAX a second (the rest next time; the total is in status). A process is told
 * apart from a later one with its pid by its start time.
 */
#define BUDGET_REPORTS_MAX 16

static struct budget_seen *budget_slot(struct rg_sensors *s, uint32_t tgid, uint64_t start)
{
	struct budget_seen *old = &s->budget_seen[0];

	for (size_t i = 0; i < ARRAY_SIZE(s->budget_seen); i++) {
		struct budget_seen *b = &s->budget_seen[i];

		if (b->tgid == tgid && b->start_boot_ns == start)
			return b;
		if (b->seen_ns < old->seen_ns)
			old = b;
	}
	*old = (struct budget_seen){.tgid = tgid, .start_boot_ns = start};
	return old;
}

static void check_budget(struct rg_sensors *s)
{
	int fd = bpf_map__fd(s->skel->maps.budget);
	uint32_t key, next, *prev = NULL;
	unsigned reported = 0, steps = 0;
	uint64_t now = now_monotonic_ns();

	while (reported < BUDGET_REPORTS_MAX && steps++ < 4096 &&
	       bpf_map_get_next_key(fd, prev, &next) == 0) {
		struct rg_budget v;
		struct budget_seen *b;
		struct rg_event ev = {0};
		char comm[sizeof(v.comm) + 1];
		uint64_t dropped;

		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, &v) < 0)
			continue;
		dropped = (uint64_t)v.dropped + v.game_dropped;
		if (!dropped)
			continue;
		b = budget_slot(s, key, v.start_boot_ns);
		b->seen_ns = now;
		if (dropped <= b->reported)
			continue;
		ev.type = RG_EV_AGENT_LOST;
		ev.provider = RG_PROV_AGENT;
		ev.ts = now_realtime_ns();
		ev.proc.pid = key;
		ev.proc.start_boot_ns = v.start_boot_ns;
		event_set_str(comm, sizeof(comm), v.comm, sizeof(v.comm));
		strscpy_ok(ev.proc.comm, comm, sizeof(ev.proc.comm));
		strscpy_ok(b->comm, comm, sizeof(b->comm));
		ev.u.agent.count = dropped - b->reported;
		ev.u.agent.count2 = dropped;
		strscpy_ok(ev.u.agent.what, "budget", sizeof(ev.u.agent.what));
		snprintf(ev.u.agent.text, sizeof(ev.u.agent.text),
			 "%" PRIu64 " memory-access records of %s (pid %u) dropped over its budget "
			 "(%u at once, %u a second; %u of them about a game, %u at once, %u a "
			 "second; %" PRIu64 " since it started)",
			 ev.u.agent.count, comm, key, RG_BUDGET_BURST, RG_BUDGET_PER_SEC,
			 v.game_dropped, RG_BUDGET_GAME_BURST, RG_BUDGET_GAME_PER_SEC, dropped);
		b->reported = dropped;
		reported++;
		if (deliver(s, &ev) < 0)
			break;
	}
}

/* Every second: an AGENT_LOST event for each CPU that lost records since the last look. */
void check_lost(struct rg_sensors *s)
{
	uint64_t *now;
	int n;

	if (s->ncpus <= 0)
		return;
	now = calloc((size_t)s->ncpus, sizeof(*now));
	if (!now)
		return;
	n = sensors_lost(s, now, (size_t)s->ncpus);
	for (int cpu = 0; cpu < n && cpu < s->ncpus; cpu++) {
		struct rg_event ev = {0};

		if (now[cpu] < s->lost_prev[cpu]) {
			/* Only the agent writes these counters, and they only grow. */
			tamper_event(s, "map_counters", (uint64_t)cpu,
				     "the sensors' loss counter on CPU %d went back from %" PRIu64
				     " to %" PRIu64 ": reset by another process",
				     cpu, s->lost_prev[cpu], now[cpu]);
			s->lost_prev[cpu] = now[cpu];
			continue;
		}
		if (now[cpu] == s->lost_prev[cpu])
			continue;
		ev.type = RG_EV_AGENT_LOST;
		ev.provider = RG_PROV_AGENT;
		ev.ts = now_realtime_ns();
		ev.u.agent.count = now[cpu] - s->lost_prev[cpu];
		ev.u.agent.count2 = (uint64_t)cpu;
		strscpy_ok(ev.u.agent.what, "ringbuf", sizeof(ev.u.agent.what));
		snprintf(ev.u.agent.text, sizeof(ev.u.agent.text),
			 "%" PRIu64 " sensor records lost on CPU %d (ring buffer full)",
			 ev.u.agent.count, cpu);
		s->lost_prev[cpu] = now[cpu];
		if (deliver(s, &ev) < 0)
			break;
	}
	free(now);
	check_budget(s);
}

bool sensors_lsm_active(const struct rg_sensors *s)
{
	return s->feat.lsm;
}

int sensors_map_fd(struct rg_sensors *s, const char *name)
{
	struct bpf_map *m = bpf_object__find_map_by_name(s->skel->obj, name);

	return m ? bpf_map__fd(m) : -ENOENT;
}

static void prog_stats_of(struct bpf_object *obj, sensors_prog_stats_fn cb, void *ud)
{
	struct bpf_program *prog;

	if (!obj)
		return;
	bpf_object__for_each_program(prog, obj)
	{
		struct bpf_prog_info info = {0};
		__u32 len = sizeof(info);
		int fd = bpf_program__fd(prog);

		if (fd < 0 || bpf_obj_get_info_by_fd(fd, &info, &len) < 0)
			continue;
		cb(ud, bpf_program__name(prog), info.run_cnt, info.run_time_ns);
	}
}

int sensors_prog_stats(struct rg_sensors *s, sensors_prog_stats_fn cb, void *ud)
{
	char buf[8];
	int fd = open("/proc/sys/kernel/bpf_stats_enabled", O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0 || buf[0] != '1')
		return 0;
	prog_stats_of(s->skel->obj, cb, ud);
	prog_stats_of(s->mod ? s->mod->obj : NULL, cb, ud);
	return 1;
}
