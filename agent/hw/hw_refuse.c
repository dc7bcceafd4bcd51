/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Refusing RDMA drivers to new PCI functions while a game runs: the decision and the table of
 * appearances (hw_refuse.h).
 */
#include <string.h>

#include "common/macro.h"
#include "common/strutil.h"
#include "event/event.h"
#include "hw_refuse.h"

static int find(const struct hw_added_table *t, const char *addr)
{
	for (unsigned i = 0; i < t->n; i++)
		if (strncmp(t->e[i].addr, addr, sizeof(t->e[i].addr)) == 0)
			return (int)i;
	return -1;
}

static void drop(struct hw_added_table *t, unsigned i)
{
	t->e[i] = t->e[--t->n];
}

void hw_added_note(struct hw_added_table *t, unsigned change, const char *addr, uint64_t ns)
{
	int i;

	if (!addr[0] || (change != RG_HW_ADD && change != RG_HW_REMOVE))
		return;
	i = find(t, addr);
	if (change == RG_HW_REMOVE) {
		if (i >= 0)
			drop(t, (unsigned)i);
		return;
	}
	if (i < 0 && t->n == HW_ADDED_MAX) {
		/* room for the newest: the oldest appearance is the least likely to be in a game */
		unsigned old = 0;

		for (unsigned k = 1; k < t->n; k++)
			if (t->e[k].ns < t->e[old].ns)
				old = k;
		drop(t, old);
	}
	if (i < 0) {
		i = (int)t->n++;
		(void)strscpy_ok(t->e[i].addr, addr, sizeof(t->e[i].addr));
	}
	t->e[i].ns = ns ? ns : 1;
}

uint64_t hw_added_at(const struct hw_added_table *t, const char *addr)
{
	int i = find(t, addr);

	return i < 0 ? 0 : t->e[i].ns;
}

static bool listed(const struct hw_refuse_in *in)
{
	for (size_t i = 0; i < in->n_drivers; i++)
		if (strcmp(in->drivers[i], in->driver) == 0)
			return true;
	return false;
}

unsigned hw_refuse_decide(const struct hw_refuse_in *in)
{
	if (!in->enforcing || !in->n_drivers)
		return HW_REFUSE_OFF;
	if (in->change != RG_HW_BIND || !in->driver || !in->driver[0])
		return HW_REFUSE_NOT_BIND;
	if (!listed(in))
		return HW_REFUSE_NOT_LISTED;
	if (!in->game_since)
		return HW_REFUSE_NO_GAME;
	/* present at the daemon's start, or appeared before the session began */
	if (!in->added_ns || in->added_ns < in->game_since)
		return HW_REFUSE_PRESENT;
	/* a bridge by what it is, not by the class it claims */
	if (in->bridge)
		return HW_REFUSE_BRIDGE;
	if (in->allowed)
		return HW_REFUSE_ALLOWED;
	if (in->baseline)
		return HW_REFUSE_BASELINE;
	return HW_REFUSE_YES;
}

const char *hw_refuse_verdict_to_string(unsigned v)
{
	static const char *const names[] = {
	    [HW_REFUSE_OFF] = "off",	       [HW_REFUSE_NOT_BIND] = "not_bind",
	    [HW_REFUSE_NOT_LISTED] = "not_listed", [HW_REFUSE_NO_GAME] = "no_game",
	    [HW_REFUSE_PRESENT] = "present",   [HW_REFUSE_BRIDGE] = "bridge",
	    [HW_REFUSE_ALLOWED] = "allowed",   [HW_REFUSE_BASELINE] = "baseline",
	    [HW_REFUSE_YES] = "refuse",
	};

	return v < ARRAY_SIZE(names) ? names[v] : NULL;
}
