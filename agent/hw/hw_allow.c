/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The policy's hardware allowlist for a function as examined (hw_allowed()): the same test the
 * engine makes for the rules' pci.allowed, on the function's event fields, so that the two can
 * never disagree.
 */
#include "policy/policy.h"
#include "hw/pci.h"

bool hw_allowed(const struct rg_policy *policy, const struct hw_fn *fn, uint64_t now_ns)
{
	struct rg_event ev;

	if (!policy || !fn)
		return false;
	hw_fn_to_event(fn, RG_EV_PCI_FUNCTION, RG_PROV_INVENTORY, now_ns, &ev);
	return policy_hw_allowed(policy, &ev.u.pci, now_ns);
}
