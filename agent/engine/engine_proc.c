/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the engine finds out about a process beyond its events: the identity (inode, device) and
 * sha256 of its executable, read from the live process and cached, whether its exe path can be
 * matched against a pattern at all, and whether an allow entry of the policy covers it for an
 * event (process.allowed).
 */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine-internal.h"
#include "common/clock.h"
#include "common/log.h"
#include "common/macro.h"
#include "common/procstat.h"

static const char *event_device(const struct rg_event *ev)
{
	switch (ev->type) {
	case RG_EV_DEVICE_OPEN:
		return ev->u.open.device;
	case RG_EV_VERBS:
		return ev->u.verbs.device;
	case RG_EV_QP_PRESENT:
		return ev->u.qp.device;
	case RG_EV_MR_PRESENT:
		return ev->u.mr.device;
	case RG_EV_DEVICE_PRESENT:
	case RG_EV_DEVICE_ADD:
	case RG_EV_DEVICE_REMOVE:
		return ev->u.dev.name;
	default:
		return NULL;
	}
}

static int read_start_ns(uint32_t pid, uint64_t *ret)
{
	char buf[4096];
	struct proc_stat st;
	int r;

	r = proc_stat_read(pid, buf, sizeof(buf), &st);
	if (r < 0)
		return r;
	*ret = proc_ticks_to_ns(st.start_ticks);
	return 0;
}

/*
 * Opens the executable of the live process n describes, checking that the pid still names that
 * process (start time) and, when n knows it, that the file is the one n ran.
 */
static int open_live_exe(const struct proc_node *n, struct stat *st)
{
	_cleanup_close_ int fd = -1;
	char path[64];
	uint64_t start = 0;
	int r;

	snprintf(path, sizeof(path), "/proc/%u/exe", n->pid);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	if (fstat(fd, st) < 0)
		return -errno;
	if (!S_ISREG(st->st_mode))
		return -EBADFD;
	if (n->exe_ino &&
	    ((uint64_t)st->st_ino != n->exe_ino || (uint64_t)st->st_dev != n->exe_dev))
		return -ESTALE;
	if (n->start_boot_ns) {
		r = read_start_ns(n->pid, &start);
		if (r < 0)
			return r;
		if (start != n->start_boot_ns)
			return -ESTALE;
	}
	return TAKE_FD(fd);
}

bool engine_proc_path_trusted(const struct proc_node *n)
{
	return (n->flags & PROC_F_EXEC_KNOWN) && !(n->flags & PROC_F_EXE_UNTRUSTED);
}

/* Live mode, when the events did not say: the executable's inode and device, once per exec. */
void engine_proc_exe_id(struct rg_engine *e, struct proc_node *n)
{
	struct stat st;
	int fd;

	if (n->exe_ino || !e->cfg.hash_live || (n->flags & PROC_F_EXE_STATTED) ||
	    !proc_node_live(n))
		return;
	n->flags |= PROC_F_EXE_STATTED;
	fd = open_live_exe(n, &st);
	if (fd < 0)
		return;
	close(fd);
	n->exe_ino = (uint64_t)st.st_ino;
	n->exe_dev = (uint64_t)st.st_dev;
}

static int hash_live(struct rg_engine *e, const struct proc_node *n, char out[65])
{
	_cleanup_close_ int fd = -1;
	struct stat st;

	fd = open_live_exe(n, &st);
	if (fd < 0)
		return fd;
	return hasher_get(e->hasher, fd, &st, out);
}

const char *engine_proc_sha256(struct rg_engine *e, struct proc_node *n)
{
	char out[65];
	int r = -ENOTSUP;

	if (n->flags & PROC_F_HASHED)
		return n->sha256;
	if (e->cfg.hash_exe)
		r = e->cfg.hash_exe(e->cfg.hash_ud, n, out);
	else if (e->hasher)
		r = hash_live(e, n, out);
	if (r == -EINPROGRESS || r == -EAGAIN) {
		/* Not known yet: matches nothing now; asked again at its next event, and when the
		 * worker is done (engine_hash_done()). */
		n->flags |= PROC_F_HASH_PENDING;
		return n->sha256;
	}
	n->flags &= ~PROC_F_HASH_PENDING;
	if (r >= 0 && strlen(out) == 64)
		proctree_set_sha256(e->tree, n, out);
	else {
		proctree_set_sha256(e->tree, n, "");
		if (r != -ENOTSUP)
			log_debug_errno(r, "Cannot hash the executable of pid %u: %m", n->pid);
	}
	n->flags |= PROC_F_HASHED;
	return n->sha256;
}

static bool allow_match(struct rg_engine *e, const struct rg_policy_allow *a, struct proc_node *n,
			const struct rg_event *ev)
{
	uint64_t now = ev->ts ? ev->ts : now_realtime_ns();
	const char *dev;
	size_t i;

	if (a->expires_ns && now >= a->expires_ns)
		return false;
	/* A literal path that could not be pinned cannot be verified: it allows nothing. */
	if (a->pin_failed)
		return false;
	if (!(n->flags & PROC_F_EXEC_KNOWN) || fnmatch(a->exe, n->exe, FNM_PATHNAME) != 0 ||
	    !engine_proc_path_trusted(n))
		return false;
	if (a->pinned) {
		engine_proc_exe_id(e, n);
		if (!glob_files_has(&a->exe_files, n->exe_ino, n->exe_dev))
			return false;
	}
	if (a->n_uids) {
		for (i = 0; i < a->n_uids; i++)
			if (a->uids[i] == n->uid)
				break;
		if (i == a->n_uids)
			return false;
	}
	if (a->parent) {
		struct proc_node *p = proctree_parent(e->tree, n);
		if (!p || !(p->flags & PROC_F_EXEC_KNOWN) ||
		    fnmatch(a->parent, p->exe, FNM_PATHNAME) || !engine_proc_path_trusted(p))
			return false;
		if (a->pinned) {
			engine_proc_exe_id(e, p);
			if (!glob_files_has(&a->parent_files, p->exe_ino, p->exe_dev))
				return false;
		}
	}
	if (a->n_devices) {
		dev = event_device(ev);
		if (dev && dev[0]) {
			for (i = 0; i < a->n_devices; i++)
				if (strcmp(a->devices[i], dev) == 0)
					break;
			if (i == a->n_devices)
				return false;
		}
	}
	if (a->has_ops) {
		bool ok = a->op_types & RG_EV_BIT(ev->type);
		if (ev->type == RG_EV_VERBS && ev->u.verbs.op < 32)
			ok = ok || (a->op_verbs & (1u << ev->u.verbs.op));
		if (ev->type == RG_EV_RDMA_CM && ev->u.cm.op < 32)
			ok = ok || (a->op_cm & (1u << ev->u.cm.op));
		if (!ok)
			return false;
	}
	/* Last: the only check that may read a file. */
	if (a->sha256[0] && strcmp(engine_proc_sha256(e, n), a->sha256) != 0)
		return false;
	return true;
}

bool engine_proc_allowed(void *ud, struct proc_node *n, const struct rg_event *ev)
{
	struct rg_engine *e = ud;
	bool ok = false;
	size_t i;

	for (i = 0; i < e->policy->n_allow && !ok; i++)
		ok = allow_match(e, &e->policy->allow[i], n, ev);
	return ok;
}
