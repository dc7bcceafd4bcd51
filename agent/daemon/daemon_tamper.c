/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Who stopped the daemon: a stop signal to the systemd service from anything but systemd is
 * tampering (AGENT-004), and the event names the sender.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/log.h"
#include "common/macro.h"
#include "common/strutil.h"
#include "engine/engine.h"
#include "proctree/proctree.h"
#include "sensors/sensors.h"
#include "daemon-internal.h"

static void sender_from_node(struct rg_task *t, char exe[static RG_PATH_LEN],
			     const struct proc_node *n)
{
	t->ppid = n->ppid;
	t->start_boot_ns = n->start_boot_ns;
	memcpy(t->comm, n->comm, sizeof(t->comm));
	strscpy_ok(exe, n->exe, RG_PATH_LEN);
}

/*
 * Who sent a stop signal: the process tree's live entry first (the ring buffer is drained
 * before), then /proc, then the tree's entry of a sender that has exited since (as kill(1) does
 * at once; its exit was drained too, and /proc has nothing left). *manager: the sender is the
 * service manager (PID 1, or a systemd executable).
 */
static void signal_sender(struct daemon *d, const struct signalfd_siginfo *si, struct rg_task *t,
			  char exe[static RG_PATH_LEN], bool *manager)
{
	const struct proc_node *n = proctree_find(engine_proctree(d->engine), PROC_KEY(si->ssi_pid, 0));
	char path[64], buf[RG_PATH_LEN];
	ssize_t len;

	memset(t, 0, sizeof(*t));
	exe[0] = 0;
	t->pid = si->ssi_pid;
	t->uid = si->ssi_uid;
	if (n && proc_node_live(n))
		sender_from_node(t, exe, n);
	if (si->ssi_pid && !exe[0]) {
		snprintf(path, sizeof(path), "/proc/%u/exe", si->ssi_pid);
		len = readlink(path, buf, sizeof(buf) - 1);
		if (len > 0) {
			buf[len] = 0;
			event_set_str(exe, RG_PATH_LEN, buf, (size_t)len);
		}
	}
	if (si->ssi_pid && !t->comm[0]) {
		_cleanup_close_ int fd = -1;

		snprintf(path, sizeof(path), "/proc/%u/comm", si->ssi_pid);
		fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
		len = fd >= 0 ? read(fd, buf, RG_COMM_LEN) : -1;
		if (len > 0) {
			if (buf[len - 1] == '\n')
				len--;
			event_set_str(t->comm, sizeof(t->comm), buf, (size_t)len);
		}
	}
	if (n && !proc_node_live(n) && !t->comm[0] && !exe[0])
		sender_from_node(t, exe, n);
	*manager = si->ssi_pid == 1 || (exe[0] && (strcmp(exe, "/usr/lib/systemd/systemd") == 0 ||
						   strcmp(exe, "/lib/systemd/systemd") == 0));
}

/* A stop signal to a systemd service from anything but systemd: AGENT-004 names the sender. */
void daemon_stop_signal(struct daemon *d, const struct signalfd_siginfo *si)
{
	struct rg_event ev = {0};
	char exe[RG_PATH_LEN];
	bool manager;
	int r;

	if (!d->service)
		return;
	/* The sender's exec and fork may still be in the ring buffer. */
	r = sensors_poll(d->sensors, 0, daemon_event, d);
	if (r < 0)
		log_warning_errno(r, "Failed to read the sensors: %m");
	signal_sender(d, si, &ev.proc, exe, &manager);
	if (manager)
		return;
	ev.type = RG_EV_AGENT_TAMPER;
	ev.provider = RG_PROV_AGENT;
	ev.ts = now_realtime_ns();
	ev.u.agent.ok = 1;
	ev.u.agent.count = si->ssi_signo;
	strscpy_ok(ev.u.agent.what, "signal", sizeof(ev.u.agent.what));
	if (si->ssi_pid)
		snprintf(ev.u.agent.text, sizeof(ev.u.agent.text),
			 "the agent (a systemd service) was stopped by %s from %s "
			 "(pid %u, uid %u%s%.160s), not by systemd",
			 strsignal((int)si->ssi_signo), ev.proc.comm[0] ? ev.proc.comm : "?",
			 si->ssi_pid, si->ssi_uid, exe[0] ? ", " : "", exe);
	else
		snprintf(ev.u.agent.text, sizeof(ev.u.agent.text),
			 "the agent (a systemd service) was stopped by %s from the kernel (a "
			 "terminal's interrupt key), not by systemd",
			 strsignal((int)si->ssi_signo));
	log_warning("Tampering: %s", ev.u.agent.text);
	(void)daemon_event(&ev, d);
}
