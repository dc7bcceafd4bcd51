/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The calling thread's capabilities: limit, raise on demand, read, name (caps.h). libcap-ng acts
 * on the calling thread only (its state is thread-local, capset() names the caller's tid), which is
 * what Linux offers: a thread's capabilities, bounding set and no_new_privs are its own, and a
 * thread created later copies its creator's.
 */
#include <cap-ng.h>
#include <errno.h>
#include <linux/capability.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "caps.h"

static int last_cap(void)
{
	static int last = -1;
	char buf[16] = "";
	FILE *f;

	if (last >= 0)
		return last;
	f = fopen("/proc/sys/kernel/cap_last_cap", "re");
	last = CAP_AUDIT_READ; /* 4.x; what any kernel we run on has */
	if (f) {
		int v;

		if (fgets(buf, sizeof(buf), f) && sscanf(buf, "%d", &v) == 1 && v > 0 && v < 64)
			last = v;
		fclose(f);
	}
	return last;
}

bool caps_kernel_has_bpf(void)
{
	return last_cap() >= CAP_BPF;
}

int caps_limit(uint64_t effective, uint64_t on_demand, bool *bounded)
{
	uint64_t permitted = effective | on_demand;
	bool setpcap;
	int r, last = last_cap();

	if (capng_get_caps_process() < 0)
		return -EPERM;
	setpcap = capng_have_capability(CAPNG_EFFECTIVE, CAP_SETPCAP);
	capng_clear(setpcap ? CAPNG_SELECT_BOTH : CAPNG_SELECT_CAPS);
	for (int c = 0; c <= last; c++) {
		unsigned what = 0;

		if (permitted & CAPS_BIT(c))
			what |= CAPNG_PERMITTED | (setpcap ? CAPNG_BOUNDING_SET : 0);
		if (effective & CAPS_BIT(c))
			what |= CAPNG_EFFECTIVE;
		if (what && capng_update(CAPNG_ADD, what, (unsigned)c) < 0)
			return -EINVAL;
	}
	/* the bounding set first, while CAP_SETPCAP is still effective (libcap-ng's order) */
	r = capng_apply(setpcap ? CAPNG_SELECT_BOTH : CAPNG_SELECT_CAPS);
	if (r < 0)
		return -EPERM;
	/* ambient capabilities not in the permitted and inheritable sets went with the capset() */
	(void)prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return -errno;
	if (bounded)
		*bounded = setpcap;
	return 0;
}

int caps_limit_worker(void)
{
	return caps_limit(0, 0, NULL);
}

bool caps_raise(int cap)
{
	if (capng_get_caps_process() < 0 ||
	    !capng_have_capability(CAPNG_PERMITTED, (unsigned)cap) ||
	    capng_have_capability(CAPNG_EFFECTIVE, (unsigned)cap))
		return false;
	if (capng_update(CAPNG_ADD, CAPNG_EFFECTIVE, (unsigned)cap) < 0 ||
	    capng_apply(CAPNG_SELECT_CAPS) < 0)
		return false;
	return true;
}

void caps_lower(int cap)
{
	if (capng_get_caps_process() < 0 ||
	    capng_update(CAPNG_DROP, CAPNG_EFFECTIVE, (unsigned)cap) < 0)
		return;
	(void)capng_apply(CAPNG_SELECT_CAPS);
}

int caps_get(uint64_t *effective, uint64_t *permitted, uint64_t *bounding)
{
	struct __user_cap_header_struct hdr = {.version = _LINUX_CAPABILITY_VERSION_3,
					       .pid = (int)syscall(SYS_gettid)};
	struct __user_cap_data_struct data[2] = {{0}};
	uint64_t b = 0;

	if (syscall(SYS_capget, &hdr, data) < 0)
		return -errno;
	if (effective)
		*effective = data[0].effective | (uint64_t)data[1].effective << 32;
	if (permitted)
		*permitted = data[0].permitted | (uint64_t)data[1].permitted << 32;
	for (int c = 0; bounding && c <= last_cap(); c++)
		if (prctl(PR_CAPBSET_READ, c, 0, 0, 0) == 1)
			b |= CAPS_BIT(c);
	if (bounding)
		*bounding = b;
	return 0;
}

void caps_format(uint64_t mask, char *buf, size_t size)
{
	size_t len = 0;

	if (!size)
		return;
	buf[0] = 0;
	for (int c = 0; c < 64; c++) {
		const char *name;
		int n;

		if (!(mask & CAPS_BIT(c)))
			continue;
		name = capng_capability_to_name((unsigned)c);
		n = name ? snprintf(buf + len, size - len, "%scap_%s", len ? " " : "", name)
			 : snprintf(buf + len, size - len, "%scap_%d", len ? " " : "", c);
		if (n < 0 || (size_t)n >= size - len) {
			buf[len] = 0; /* only whole names */
			break;
		}
		len += (size_t)n;
	}
	if (!len)
		snprintf(buf, size, "none");
}
