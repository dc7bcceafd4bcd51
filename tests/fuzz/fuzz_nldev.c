/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nldev_parse_stream(): RDMA netlink (NLDEV) replies, the kernel's own QP/MR/PD/context/cm_id
 * tables, as nldev_dump() receives them (seeds: replies captured from a real rxe kernel in the
 * VM lab, tests/fixtures/netlink/). Then everything the agent does with a parsed table: the
 * JSON of the audit report and the QP_PRESENT/MR_PRESENT events. Input: the byte stream, in an
 * exact-size allocation. Properties: counts within their caps, every event survives the JSON
 * round trip.
 */
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "inventory/nldev.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_quiet();
	return 0;
}

static void lookup(uint32_t pid, struct rg_task *task, void *userdata)
{
	if (pid & 1)
		task->start_boot_ns = (uint64_t)pid * 1000000000ull;
}

static int event(const struct rg_event *ev, void *userdata)
{
	fuzz_check_event(ev);
	(*(unsigned *)userdata)++;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct nldev_tables *t = nldev_tables_new();
	struct json_object *j;
	uint8_t *buf = malloc(size ? size : 1);
	unsigned events = 0, i;
	int r;

	if (!t || !buf)
		abort();
	if (size)
		memcpy(buf, data, size);
	r = nldev_parse_stream(buf, size, t);
	FUZZ_ASSERT(r >= 0 || r == -EBADMSG, "nldev_parse_stream returned %d", r);
	FUZZ_ASSERT(t->n_devs <= NLDEV_MAX_DEVICES, "%u devices", t->n_devs);
	for (i = 0; i < NLDEV_T__MAX; i++)
		FUZZ_ASSERT(t->n[i] <= NLDEV_MAX_ENTRIES && t->n[i] <= t->cap[i],
			    "table %u: %u entries, capacity %u", i, t->n[i], t->cap[i]);
	FUZZ_ASSERT(t->n_errors <= NLDEV_MAX_ERRORS, "%u errors", t->n_errors);
	j = nldev_to_json(t);
	FUZZ_ASSERT(j && json_object_to_json_string(j), "nldev_to_json failed");
	json_object_put(j);
	FUZZ_ASSERT(nldev_foreach_event(t, 1768003200ull * 1000000000ull, lookup, event, &events) ==
			    0,
		    "nldev_foreach_event");
	FUZZ_ASSERT(events == t->n[NLDEV_T_QP] + t->n[NLDEV_T_MR], "%u events for %u QPs, %u MRs",
		    events, t->n[NLDEV_T_QP], t->n[NLDEV_T_MR]);
	nldev_tables_free(t);
	free(buf);
	return 0;
}
