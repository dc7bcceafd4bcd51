/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The TC programs' drop (bpf/roce.bpf.c): the policy's fleet into map fleet_nets, whether to drop
 * RoCE v2/iWARP traffic of peers outside it (map tc_cfg), and the drop counters (tc_drops). A new
 * fleet is written under a new generation, entries of older ones deleted after it: during a
 * reload a peer in both policies is never missing from the map.
 */
#include <bpf/bpf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "sensors_state.h"
#include "sensors.skel.h"

static int fleet_fd(struct rg_sensors *s)
{
	return bpf_map__fd(s->skel->maps.fleet_nets);
}

void sensors_fleet_begin(struct rg_sensors *s)
{
	s->fleet_gen++;
	s->fleet_n = 0;
	s->fleet_err = 0;
}

void sensors_fleet_add(struct rg_sensors *s, const uint8_t addr[16], unsigned prefix)
{
	struct rg_fleet_key k = {.prefixlen = prefix > 128 ? 128 : prefix};

	memcpy(k.addr, addr, 16);
	for (unsigned b = k.prefixlen; b < 128; b++) /* the policy rejects them; keep it so */
		k.addr[b / 8] &= (uint8_t) ~(0x80u >> (b % 8));
	if (bpf_map_update_elem(fleet_fd(s), &k, &s->fleet_gen, BPF_ANY) == 0)
		s->fleet_n++;
	else if (!s->fleet_err)
		s->fleet_err = -errno;
}

/* Deletes the entries of older generations: listed first (the next key of a deleted key is
 * the first one again), at most the map's size. */
static int fleet_prune(struct rg_sensors *s)
{
	_cleanup_free_ struct rg_fleet_key *old = NULL;
	struct rg_fleet_key k, next;
	size_t n = 0, max = bpf_map__max_entries(s->skel->maps.fleet_nets);
	void *prev = NULL;
	int fd = fleet_fd(s);

	old = calloc(max, sizeof(*old));
	if (!old)
		return -ENOMEM;
	while (n < max && bpf_map_get_next_key(fd, prev, &next) == 0) {
		uint32_t gen;

		k = next;
		prev = &k;
		if (bpf_map_lookup_elem(fd, &k, &gen) == 0 && gen != s->fleet_gen)
			old[n++] = k;
	}
	for (size_t i = 0; i < n; i++)
		(void)bpf_map_delete_elem(fd, &old[i]);
	return 0;
}

int sensors_fleet_commit(struct rg_sensors *s, bool drop)
{
	struct rg_tc_cfg c = {.drop = drop};
	uint32_t zero = 0;
	int r = s->fleet_err;

	if (r < 0) {
		/* a partial fleet would drop a managed peer: refuse to drop at all */
		log_error_errno(r, "Failed to load the fleet into the TC programs' map: %m");
		c.drop = 0;
	}
	if (!c.drop && bpf_map_update_elem(bpf_map__fd(s->skel->maps.tc_cfg), &zero, &c, 0) < 0)
		return log_error_errno(-errno, "Failed to turn off the TC drop: %m");
	if (fleet_prune(s) < 0 && r == 0)
		r = -ENOMEM; /* old entries stay: a peer of the old fleet passes */
	if (c.drop && bpf_map_update_elem(bpf_map__fd(s->skel->maps.tc_cfg), &zero, &c, 0) < 0)
		return log_error_errno(-errno, "Failed to turn on the TC drop: %m");
	s->fleet_drop = c.drop;
	if (r == 0 && drop && s->plan.hp[HP_ROCE].active < 0)
		return -EOPNOTSUPP;
	return r;
}

bool sensors_fleet_dropping(const struct rg_sensors *s)
{
	return s && s->fleet_drop && s->plan.hp[HP_ROCE].active >= 0;
}

int sensors_tc_drops(struct rg_sensors *s, uint64_t out[SENSORS_TC_DROP_REASONS])
{
	int ncpus = libbpf_num_possible_cpus(), fd = bpf_map__fd(s->skel->maps.tc_drops);
	_cleanup_free_ uint64_t *v = NULL;

	_Static_assert(SENSORS_TC_DROP_REASONS == RG_TC_DROP__MAX, "reasons");
	if (ncpus <= 0)
		return ncpus ? ncpus : -EINVAL;
	v = calloc((size_t)ncpus, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (uint32_t i = 0; i < RG_TC_DROP__MAX; i++) {
		out[i] = 0;
		if (bpf_map_lookup_elem(fd, &i, v) < 0)
			return -errno;
		for (int c = 0; c < ncpus; c++)
			out[i] += v[c];
	}
	return 0;
}
