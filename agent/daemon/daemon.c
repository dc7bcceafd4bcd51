/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "config.h"
#include "control.h"
#include "daemon.h"
#include "common/exitcode.h"
#include "common/log.h"
#include "common/util.h"
#include "enforce/enforce.h"
#include "engine/engine.h"
#include "engine/policy.h"
#include "engine/rules.h"
#include "event/event_json.h"
#include "inventory/inventory.h"
#include "inventory/nldev.h"
#include "output/output.h"
#include "proctree/proctree.h"

#define DEFAULT_POLICY RG_SYSCONFDIR "/policy.json"
/* malloc: larger blocks are mmap()ed (and unmapped when freed), the heap is trimmed past it */
#define DAEMON_MALLOC_THRESHOLD (128 * 1024)

struct daemon {
	const struct daemon_config *cfg;
	const char *policy_path; /* NULL: built-in default */
	const char *rules_dir;
	struct rg_engine *engine;
	struct rg_outputs *outputs;
	struct rg_sensors *sensors;
	struct rg_enforce *enf;	   /* NULL: no enforcement */
	struct json_object *hooks; /* sensors_describe() at start */
	int epfd, sigfd, timerfd, status_fd, pid_fd;
	FILE *record;
	struct jw *record_jw; /* --record: each event written here, then to the file */
	uint64_t seq;
	uint64_t start_mono_ns, start_rt_ns;
	uint64_t next_heartbeat_ns, next_reconcile_ns;
	unsigned submit_flags; /* OUTPUT_SUBMIT_LOSS while a loss report goes through the engine */
	char hostname[256];
	/* counters for heartbeat and status */
	uint64_t alerts_sent, alerts_below_threshold, alerts_too_large, submit_errors;
	uint64_t record_errors;
	uint64_t reloads_ok, reloads_rejected;
	uint64_t reconcile_runs, reconcile_new, reconcile_errors;
	int reconcile_last_error;
	bool service; /* started by systemd (INVOCATION_ID): a stop from elsewhere is tampering */
	/* QPs and MRs of the last reconciliation (sorted keys): only new ones become events. */
	uint64_t *keys, *next_keys;
	size_t nkeys, nnext;
	bool keys_overflow;
};

static int daemon_alert(const struct rg_alert *alert, void *ud)
{
	struct daemon *d = ud;
	int r;

	/* The threshold keeps low-value alerts off the SIEM; the agent's own alerts always go. */
	if (alert->severity < engine_policy(d->engine)->threshold &&
	    !startswith(alert->rule_id, "AGENT-")) {
		d->alerts_below_threshold++;
		return 0;
	}
	r = outputs_submit_alert(d->outputs, alert, d->submit_flags);
	if (r == -E2BIG)
		d->alerts_too_large++; /* counted and reported by the outputs as a loss */
	else if (r < 0)
		d->submit_errors++;
	else
		d->alerts_sent++;
	return 0;
}

static void record_event(struct daemon *d, const struct rg_event *ev)
{
	const char *s;
	size_t len;

	if (!d->record)
		return;
	if (!d->record_jw)
		d->record_jw = jw_new();
	if (!d->record_jw) {
		d->record_errors++;
		return;
	}
	jw_reset(d->record_jw);
	if (event_to_jw(ev, d->record_jw) < 0 || jw_finish(d->record_jw, &s, &len) < 0 ||
	    fwrite(s, 1, len, d->record) != len || fputc('\n', d->record) == EOF)
		d->record_errors++;
}

/* Every event, whatever its source, goes through here: numbered, recorded, evaluated. */
static int daemon_event(const struct rg_event *in, void *ud)
{
	struct daemon *d = ud;
	struct rg_event ev = *in;
	int r;

	ev.seq = ++d->seq;
	if (!ev.ts)
		ev.ts = now_realtime_ns();
	record_event(d, &ev);
	r = engine_process(d->engine, &ev, daemon_alert, d);
	if (r < 0)
		log_warning_errno(r, "Rule engine failed on event %llu: %m", (unsigned long long)ev.seq);
	enforce_event(d->enf, &ev, d->engine);
	return 0; /* one bad event must not stop the sensors */
}

static void agent_event(struct daemon *d, unsigned type, bool ok, const char *what,
			const char *text, uint64_t count, uint64_t count2)
{
	struct rg_event ev = {0};

	ev.type = (uint16_t)type;
	ev.provider = RG_PROV_AGENT;
	ev.ts = now_realtime_ns();
	ev.proc.pid = (uint32_t)getpid();
	strscpy_ok(ev.proc.comm, "rdmaguard", sizeof(ev.proc.comm));
	ev.u.agent.ok = ok;
	ev.u.agent.count = count;
	ev.u.agent.count2 = count2;
	strscpy_ok(ev.u.agent.what, what, sizeof(ev.u.agent.what));
	strscpy_ok(ev.u.agent.text, text, sizeof(ev.u.agent.text));
	(void)daemon_event(&ev, d);
}

static uint64_t rss_bytes(void)
{
	char buf[128];
	unsigned long long size, rss;
	FILE *f = fopen("/proc/self/statm", "re");

	if (!f)
		return 0;
	if (!fgets(buf, sizeof(buf), f) || sscanf(buf, "%llu %llu", &size, &rss) != 2)
		rss = 0;
	fclose(f);
	return (uint64_t)rss * (uint64_t)sysconf(_SC_PAGESIZE);
}

#define ADD(o, k, v) json_object_object_add((o), (k), (v))

/* Counters for the heartbeat and `rdmaguard status`. */
static struct json_object *daemon_stats(struct daemon *d, bool with_hooks)
{
	struct json_object *o = json_object_new_object(), *ev, *by, *al, *rl, *sev, *sn, *lost, *pt;
	const struct rg_ruleset *rules = engine_rules(d->engine);
	struct engine_stats es;
	uint64_t per_cpu[1024], lost_total = 0;
	char ts[32];
	int ncpu;

	if (!o)
		return NULL;
	engine_get_stats(d->engine, &es);
	format_timestamp(d->start_rt_ns, ts);
	ADD(o, "version", json_object_new_string(RG_VERSION));
	ADD(o, "pid", json_object_new_int64(getpid()));
	ADD(o, "started", json_object_new_string(ts));
	ADD(o, "uptime_s", json_object_new_uint64((now_monotonic_ns() - d->start_mono_ns) / 1000000000ull));
	ADD(o, "policy", d->policy_path ? json_object_new_string(d->policy_path) : NULL);
	ADD(o, "rules_dir", json_object_new_string(d->rules_dir));
	ADD(o, "rules", json_object_new_uint64(rules->n));

	ev = json_object_new_object();
	by = json_object_new_object();
	ADD(ev, "total", json_object_new_uint64(es.events));
	for (unsigned t = 1; t < RG_EV__MAX; t++)
		if (es.events_by_type[t])
			ADD(by, event_type_to_string(t), json_object_new_uint64(es.events_by_type[t]));
	ADD(ev, "by_type", by);
	ADD(ev, "record_errors", json_object_new_uint64(d->record_errors));
	ADD(o, "events", ev);

	al = json_object_new_object();
	rl = json_object_new_object();
	sev = json_object_new_object();
	ADD(al, "total", json_object_new_uint64(es.alerts));
	ADD(al, "sent", json_object_new_uint64(d->alerts_sent));
	ADD(al, "below_threshold", json_object_new_uint64(d->alerts_below_threshold));
	ADD(al, "too_large", json_object_new_uint64(d->alerts_too_large));
	ADD(al, "submit_errors", json_object_new_uint64(d->submit_errors));
	ADD(al, "pending_repeats", json_object_new_uint64(es.agg_pending));
	for (size_t i = 0; i < rules->n; i++) {
		uint64_t n, m;

		engine_rule_stats(d->engine, i, &n, &m);
		if (n)
			ADD(rl, rules->rules[i].id, json_object_new_uint64(n));
	}
	for (int s = 0; s < RG_SEV__MAX; s++)
		if (es.alerts_by_severity[s])
			ADD(sev, severity_to_string(s), json_object_new_uint64(es.alerts_by_severity[s]));
	ADD(al, "by_rule", rl);
	ADD(al, "by_severity", sev);
	ADD(o, "alerts", al);

	sn = json_object_new_object();
	lost = json_object_new_array();
	ncpu = sensors_lost(d->sensors, per_cpu, ARRAY_SIZE(per_cpu));
	for (int c = 0; c < ncpu && c < (int)ARRAY_SIZE(per_cpu); c++) {
		json_object_array_add(lost, json_object_new_uint64(per_cpu[c]));
		lost_total += per_cpu[c];
	}
	ADD(sn, "lost_per_cpu", lost);
	ADD(sn, "lost_total", json_object_new_uint64(lost_total));
	ADD(sn, "ring", sensors_ring_describe(d->sensors));
	if (with_hooks && d->hooks)
		ADD(sn, "hooks", json_object_get(d->hooks));
	ADD(o, "sensors", sn);

	outputs_stats(d->outputs, o);
	if (d->enf)
		ADD(o, "enforce", enforce_describe(d->enf));

	pt = json_object_new_object();
	ADD(pt, "capacity", json_object_new_uint64(es.proc.capacity));
	ADD(pt, "live", json_object_new_uint64(es.proc.live));
	ADD(pt, "exited", json_object_new_uint64(es.proc.exited));
	ADD(pt, "evicted_live", json_object_new_uint64(es.proc.evicted_live));
	ADD(pt, "evicted_exited", json_object_new_uint64(es.proc.evicted_exited));
	ADD(pt, "games_running", json_object_new_uint64(es.games_running));
	ADD(o, "proctree", pt);

	ev = json_object_new_object();
	ADD(ev, "ok", json_object_new_uint64(d->reloads_ok));
	ADD(ev, "rejected", json_object_new_uint64(d->reloads_rejected));
	ADD(o, "reloads", ev);
	ev = json_object_new_object();
	ADD(ev, "runs", json_object_new_uint64(d->reconcile_runs));
	ADD(ev, "new", json_object_new_uint64(d->reconcile_new));
	ADD(ev, "errors", json_object_new_uint64(d->reconcile_errors));
	if (d->reconcile_last_error)
		ADD(ev, "last_error", json_object_new_string(strerror(-d->reconcile_last_error)));
	ADD(o, "reconcile", ev);
	ADD(o, "rss_bytes", json_object_new_uint64(rss_bytes()));
	return o;
}

/* Start, stop and heartbeat notices for the SIEM: not alerts, but it must see a live agent. */
static void notice(struct daemon *d, const char *action, const char *kind, const char *message,
		   struct json_object *agent)
{
	struct json_object *o = json_object_new_object(), *ev = json_object_new_object();
	char ts[32];

	format_timestamp(now_realtime_ns(), ts);
	ADD(o, "@timestamp", json_object_new_string(ts));
	ADD(ev, "kind", json_object_new_string(kind));
	ADD(ev, "action", json_object_new_string(action));
	ADD(ev, "dataset", json_object_new_string("rdmaguard.agent"));
	ADD(o, "event", ev);
	ADD(o, "severity", json_object_new_string("info"));
	ADD(o, "message", json_object_new_string(message));
	ev = json_object_new_object();
	ADD(ev, "hostname", json_object_new_string(d->hostname));
	ADD(o, "host", ev);
	ADD(o, "agent", agent);
	if (outputs_submit(d->outputs, o) < 0)
		d->submit_errors++;
	json_object_put(o);
}

static void loss_cb(const struct output_loss *loss, void *ud)
{
	struct daemon *d = ud;
	const char *what;
	char text[RG_TEXT_LEN];

	(void)output_loss_describe(loss, &what, text, sizeof(text));
	log_warning("%s", text);
	/* The loss report must not be lost itself: it rides in the spool's reserve. */
	d->submit_flags = OUTPUT_SUBMIT_LOSS;
	agent_event(d, RG_EV_AGENT_LOST, false, what, text, loss->total, loss->total_since_start);
	d->submit_flags = 0;
}

static uint64_t key_hash(const struct rg_event *ev)
{
	/* FNV-1a over what names a QP or MR in the kernel's tables. */
	uint64_t h = 1469598103934665603ull;
	const char *dev = ev->type == RG_EV_QP_PRESENT ? ev->u.qp.device : ev->u.mr.device;
	uint64_t parts[4] = {
		ev->type,
		ev->type == RG_EV_QP_PRESENT ? ev->u.qp.lqpn : ev->u.mr.mrn,
		ev->proc.pid,
		ev->type == RG_EV_QP_PRESENT ? ev->u.qp.state : ev->u.mr.length,
	};

	for (const char *p = dev; *p; p++)
		h = (h ^ (uint8_t)*p) * 1099511628211ull;
	for (size_t i = 0; i < ARRAY_SIZE(parts); i++)
		for (int b = 0; b < 8; b++)
			h = (h ^ ((parts[i] >> (8 * b)) & 0xff)) * 1099511628211ull;
	return h;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static int reconcile_event(const struct rg_event *ev, void *ud)
{
	struct daemon *d = ud;
	uint64_t k = key_hash(ev);

	if (d->nnext < DAEMON_RECONCILE_MAX_KEYS)
		d->next_keys[d->nnext++] = k;
	else
		d->keys_overflow = true;
	/* A QP in a new state (e.g. now RTS) is a new fact; one we saw last time is not. */
	if (d->nkeys && bsearch(&k, d->keys, d->nkeys, sizeof(k), cmp_u64))
		return 0;
	d->reconcile_new++;
	return daemon_event(ev, d);
}

static void reconcile_lookup(uint32_t pid, struct rg_task *task, void *ud)
{
	struct daemon *d = ud;
	const struct proc_node *n = proctree_find(engine_proctree(d->engine), PROC_KEY(pid, 0));

	task->pid = pid;
	if (!n || !proc_node_live(n))
		return;
	task->ppid = n->ppid;
	task->uid = n->uid;
	task->start_boot_ns = n->start_boot_ns;
	memcpy(task->comm, n->comm, sizeof(task->comm));
}

/*
 * The kernel's own QP and MR tables, so that what the sensors missed (hardware providers post
 * nothing through syscalls, an agent restart, a kernel-bypass trick) is still seen. Only entries
 * that are new since the last run become events.
 */
static void reconcile(struct daemon *d)
{
	_cleanup_(nldev_tables_freep) struct nldev_tables *t = NULL;
	uint64_t *swap;
	int r;

	/* Opening RDMA netlink would load ib_core: do not, where nothing RDMA is loaded. */
	if (access("/sys/class/infiniband", F_OK) < 0) {
		d->nkeys = 0;
		return;
	}
	d->reconcile_runs++;
	r = nldev_dump(&t);
	if (r < 0) {
		d->reconcile_errors++;
		if (r != d->reconcile_last_error)
			log_warning_errno(r, "Failed to read the RDMA resource tables: %m");
		d->reconcile_last_error = r;
		return;
	}
	d->reconcile_last_error = 0;
	d->nnext = 0;
	d->keys_overflow = false;
	r = nldev_foreach_event(t, now_realtime_ns(), reconcile_lookup, reconcile_event, d);
	if (r < 0)
		log_warning_errno(r, "Failed to process the RDMA resource tables: %m");
	qsort(d->next_keys, d->nnext, sizeof(uint64_t), cmp_u64);
	swap = d->keys;
	d->keys = d->next_keys;
	d->next_keys = swap;
	d->nkeys = d->nnext;
	if (d->keys_overflow)
		log_warning("More than %u QPs and MRs: the excess is reported on every reconciliation.",
			    DAEMON_RECONCILE_MAX_KEYS);
}

static void heartbeat(struct daemon *d)
{
	struct json_object *stats = daemon_stats(d, false);
	struct engine_stats es;
	char msg[160];

	engine_get_stats(d->engine, &es);
	snprintf(msg, sizeof(msg), "rdmaguard alive: %llu events, %llu alerts, uptime %llu s",
		 (unsigned long long)es.events, (unsigned long long)es.alerts,
		 (unsigned long long)((now_monotonic_ns() - d->start_mono_ns) / 1000000000ull));
	agent_event(d, RG_EV_AGENT_HEARTBEAT, true, "heartbeat", msg, es.events, es.alerts);
	if (stats)
		notice(d, "agent_heartbeat", "metric", msg, stats);
}

/* mkdir -p: the directory and its missing parents. */
static int mkdir_parents(const char *path, mode_t mode)
{
	char p[PATH_MAX];

	if (!strscpy_ok(p, path, sizeof(p)))
		return -ENAMETOOLONG;
	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = 0;
		if (mkdir(p, 0755) < 0 && errno != EEXIST)
			return -errno;
		*s = '/';
	}
	if (mkdir(p, mode) < 0 && errno != EEXIST)
		return -errno;
	return 0;
}

static const char *resolve_policy(const struct daemon_config *cfg)
{
	if (cfg->policy_path)
		return cfg->policy_path;
	return access(DEFAULT_POLICY, F_OK) == 0 ? DEFAULT_POLICY : NULL;
}

static int load_config(const char *policy_path, const char *rules_dir, struct rg_policy **policy,
		       struct rg_ruleset **rules)
{
	struct rg_error err;
	char buf[1200];
	int r;

	/* The daemon always refuses policy files that others could write. */
	r = engine_load_config(policy_path, true, rules_dir, output_spec_check, policy, rules,
			       &err);
	if (r < 0) {
		log_error("%s", rg_error_format(&err, buf, sizeof(buf)));
		return r;
	}
	r = policy_resolve_inodes(*policy, NULL);
	if (r < 0)
		log_warning_errno(r, "Failed to resolve the allowlist's executables: %m");
	return 0;
}

static int parse_outputs(const struct daemon_config *cfg, const struct rg_policy *policy,
			 struct output_spec *specs, size_t *n)
{
	static const char *const fallback[] = {"stdout"};
	const char *const *src = cfg->n_outputs ? cfg->outputs : (const char *const *)policy->outputs;
	size_t count = cfg->n_outputs ? cfg->n_outputs : policy->n_outputs;
	char err[512];

	if (count > DAEMON_MAX_OUTPUTS) {
		log_error("At most %d outputs.", DAEMON_MAX_OUTPUTS);
		return -E2BIG;
	}
	if (count == 0) {
		count = 1;
		src = fallback;
	}
	for (size_t i = 0; i < count; i++)
		if (output_spec_parse(src[i], &specs[i], err, sizeof(err)) < 0) {
			log_error("%s", err);
			return -EINVAL;
		}
	*n = count;
	return 0;
}

static void enforce_after_reload(struct daemon *d);

static void reload(struct daemon *d)
{
	struct rg_policy *policy = NULL;
	struct rg_ruleset *rules = NULL;
	struct rg_error err;
	struct rg_event ev;
	char buf[1200];
	int r;

	notify_reloading();
	log_info("Reloading policy %s and rules %s.", d->policy_path ? d->policy_path : "(built-in)",
		 d->rules_dir);
	r = engine_load_config(d->policy_path, true, d->rules_dir, output_spec_check, &policy,
			       &rules, &err);
	if (r >= 0) {
		(void)policy_resolve_inodes(policy, NULL);
		r = engine_reload(d->engine, policy, rules, daemon_alert, d, &err);
	}
	if (r < 0) {
		/* The old set stays in force; the sensors never stopped. */
		policy_free(policy);
		ruleset_free(rules);
		rg_error_format(&err, buf, sizeof(buf));
		log_error("Reload rejected, keeping the previous policy and rules: %s", buf);
		d->reloads_rejected++;
		engine_policy_event(&ev, now_realtime_ns(), false, r, d->policy_path ? d->policy_path : d->rules_dir, buf);
	} else {
		d->reloads_ok++;
		if (engine_policy(d->engine)->n_outputs && !d->cfg->n_outputs)
			log_notice("Outputs named in the policy take effect at the next start.");
		enforce_after_reload(d);
		engine_policy_event(&ev, now_realtime_ns(), true, 0,
				    d->policy_path ? d->policy_path : d->rules_dir, "reloaded");
	}
	ev.proc.pid = (uint32_t)getpid();
	(void)daemon_event(&ev, d);
	notify_ready("running");
}

static int open_record(struct daemon *d)
{
	const char *path = d->cfg->record_path;
	int fd;

	if (!path)
		return 0;
	if (d->record && d->record != stdout)
		fclose(d->record);
	d->record = NULL;
	if (strcmp(path, "-") == 0) {
		d->record = stdout;
		return 0;
	}
	fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW, 0600);
	if (fd < 0)
		return log_error_errno(-errno, "Failed to open the record file %s: %m", path);
	d->record = fdopen(fd, "a");
	if (!d->record) {
		close(fd);
		return log_error_errno(-errno, "Failed to open the record file %s: %m", path);
	}
	return 0;
}

static int write_ready_file(const char *path)
{
	char tmp[PATH_MAX], pid[32];
	_cleanup_close_ int fd = -1;
	int n;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0)
		return -errno;
	n = snprintf(pid, sizeof(pid), "%d\n", (int)getpid());
	if (write(fd, pid, (size_t)n) != n)
		return -EIO;
	if (rename(tmp, path) < 0)
		return -errno;
	return 0;
}

/* "process=tracepoint verbs=kprobe ..." for the start event's text. */
static void hooks_summary(struct json_object *desc, char *buf, size_t size)
{
	struct json_object *hooks;
	size_t off = 0;

	buf[0] = 0;
	if (!desc || !json_object_object_get_ex(desc, "hooks", &hooks))
		return;
	json_object_object_foreach(hooks, name, h)
	{
		struct json_object *act;
		int n;

		if (!json_object_object_get_ex(h, "active", &act))
			continue;
		n = snprintf(buf + off, size - off, "%s%s=%s", off ? " " : "", name,
			     json_object_get_string(act));
		if (n < 0 || (size_t)n >= size - off)
			break;
		off += (size_t)n;
	}
}

static int epoll_add(int epfd, int fd)
{
	struct epoll_event e = {.events = EPOLLIN, .data.fd = fd};

	return epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &e) < 0 ? -errno : 0;
}

static int setup_signals(struct daemon *d)
{
	sigset_t mask;

	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&mask);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGUSR1);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	if (sigprocmask(SIG_BLOCK, &mask, NULL) < 0)
		return -errno;
	d->sigfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	return d->sigfd < 0 ? -errno : 0;
}

/* Inventory at start: what existed before us, and the seed of the process tree. */
static int startup_inventory(struct daemon *d)
{
	_cleanup_(inventory_freep) struct inventory *inv = NULL;
	struct rg_root root = {.fd = -1};
	int r;

	r = root_init(&root, "/");
	if (r < 0)
		return r;
	/* Netlink's QPs and MRs come from the first reconciliation, which remembers them. */
	r = inventory_collect(&root, d->cfg->no_inventory ? INV_F_PROCS : INV_F_ALL & ~INV_F_NETLINK,
			      &inv);
	root_done(&root);
	if (r < 0)
		return r;
	r = inventory_foreach_event(inv, daemon_event, d);
	if (r < 0)
		return r;
	if (!d->cfg->no_inventory)
		reconcile(d);
	return 0;
}

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
static void stop_signal(struct daemon *d, const struct signalfd_siginfo *si)
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

static int handle_signal(struct daemon *d, bool *stop)
{
	struct signalfd_siginfo si;
	ssize_t n;

	while ((n = read(d->sigfd, &si, sizeof(si))) == sizeof(si)) {
		switch (si.ssi_signo) {
		case SIGHUP:
			reload(d);
			break;
		case SIGUSR1:
			log_info("Reopening outputs.");
			(void)outputs_reopen(d->outputs);
			if (d->cfg->record_path && open_record(d) < 0)
				d->record_errors++;
			break;
		default:
			log_info("Stopping on signal %u from pid %u.", si.ssi_signo, si.ssi_pid);
			stop_signal(d, &si);
			*stop = true;
			break;
		}
	}
	return 0;
}

static void on_tick(struct daemon *d)
{
	uint64_t now = now_monotonic_ns(), exp;
	int r;

	while (read(d->timerfd, &exp, sizeof(exp)) == sizeof(exp))
		;
	r = engine_tick(d->engine, now_realtime_ns(), daemon_alert, d);
	if (r < 0)
		log_warning_errno(r, "Rule engine tick failed: %m");
	if (enforce_tick(d->enf, d->engine) > 0) {
		char text[RG_TEXT_LEN];

		snprintf(text, sizeof(text),
			 "enforcement lifted: the pins in %s were removed (rdmaguard enforce --off, "
			 "or tampering)",
			 d->cfg->pin_dir ? d->cfg->pin_dir : ENFORCE_PIN_DIR);
		/* its own agent.what: AGENT-002 aggregates by it, and this must not wait */
		agent_event(d, RG_EV_AGENT_SENSOR, false, "enforce_pins", text, 0, 0);
	}
	if (now >= d->next_reconcile_ns) {
		reconcile(d);
		d->next_reconcile_ns = now + (uint64_t)d->cfg->reconcile_s * 1000000000ull;
	}
	if (now >= d->next_heartbeat_ns) {
		heartbeat(d);
		d->next_heartbeat_ns = now + (uint64_t)d->cfg->heartbeat_s * 1000000000ull;
	}
}

static void serve_status(struct daemon *d)
{
	struct json_object *doc = daemon_stats(d, true);
	int r;

	if (!doc)
		return;
	while ((r = status_serve_one(d->status_fd, doc)) != -EAGAIN)
		if (r < 0 && r != -EPERM && r != -ETIMEDOUT && r != -EPIPE)
			break;
	json_object_put(doc);
}

static int run_loop(struct daemon *d)
{
	bool stop = false;

	while (!stop) {
		struct epoll_event evs[8];
		int n = epoll_wait(d->epfd, evs, ARRAY_SIZE(evs), sensors_timeout_ms(d->sensors, 1000)),
		    r;

		if (n < 0 && errno != EINTR)
			return log_error_errno(-errno, "epoll_wait failed: %m");
		for (int i = 0; i < n; i++) {
			int fd = evs[i].data.fd;

			if (fd == d->sigfd)
				handle_signal(d, &stop);
			else if (fd == d->timerfd)
				on_tick(d);
			else if (fd == d->status_fd)
				serve_status(d);
			else if (fd == outputs_get_fd(d->outputs))
				(void)outputs_dispatch(d->outputs);
		}
		/* The sensors' own timers (RoCE counters) need service even when idle. */
		r = sensors_poll(d->sensors, 0, daemon_event, d);
		if (r < 0)
			log_warning_errno(r, "Failed to read the sensors: %m");
		if (d->record && fflush(d->record) == EOF)
			d->record_errors++;
	}
	return 0;
}

static void daemon_done(struct daemon *d)
{
	if (enforce_started(d->enf))
		log_notice("Enforcement stays in force, pinned in %s: `rdmaguard enforce --off` lifts "
			   "it.",
			   d->cfg->pin_dir ? d->cfg->pin_dir : ENFORCE_PIN_DIR);
	enforce_close(d->enf);
	if (d->sensors)
		sensors_close(d->sensors);
	if (d->outputs)
		outputs_free(d->outputs);
	engine_free(d->engine);
	json_object_put(d->hooks);
	if (d->record && d->record != stdout)
		fclose(d->record);
	else if (d->record)
		fflush(stdout);
	jw_free(d->record_jw);
	if (d->status_fd >= 0) {
		close(d->status_fd);
		(void)unlink(d->cfg->status_socket && *d->cfg->status_socket ? d->cfg->status_socket
									     : STATUS_SOCKET_DEFAULT);
	}
	if (d->cfg->ready_file)
		(void)unlink(d->cfg->ready_file);
	pidfile_release(d->pid_fd, d->cfg->pid_file);
	if (d->timerfd >= 0)
		close(d->timerfd);
	if (d->sigfd >= 0)
		close(d->sigfd);
	if (d->epfd >= 0)
		close(d->epfd);
	free(d->keys);
	free(d->next_keys);
}

/* Enforcement is wanted: asked for on the command line or by the policy. */
static bool enforce_wanted(const struct daemon *d)
{
	return d->cfg->enforce || engine_policy(d->engine)->enforce;
}

/* Before the sensors: pins of an earlier daemon are shared with them. */
static int enforce_prepare_daemon(struct daemon *d, struct daemon_config *cfg)
{
	struct enforce_opts o = {.pin_dir = cfg->pin_dir};
	char path[PATH_MAX];
	int r;

	snprintf(path, sizeof(path), "%s/maps", cfg->pin_dir ? cfg->pin_dir : ENFORCE_PIN_DIR);
	if (!enforce_wanted(d) && access(path, F_OK) < 0)
		return 0;
	r = enforce_prepare(&o, &d->enf);
	if (r < 0)
		return r;
	enforce_shared_maps(d->enf, cfg->sensors.shared_maps);
	return 0;
}

/* After the inventory: start (or take over) enforcement; AGENT-002 where it cannot deny. */
static int enforce_start_daemon(struct daemon *d)
{
	char text[RG_TEXT_LEN];
	int r;

	if (!d->enf)
		return 0;
	if (!enforce_wanted(d) && !enforce_pinned(d->enf))
		return 0;
	if (!enforce_wanted(d))
		log_warning("Enforcement pinned in %s by an earlier run stays in force, with this "
			    "policy's allowlist, although the policy does not ask for it: `rdmaguard "
			    "enforce --off` lifts it.",
			    d->cfg->pin_dir ? d->cfg->pin_dir : ENFORCE_PIN_DIR);
	enforce_set_lsm(d->enf, sensors_lsm_active(d->sensors));
	r = enforce_start(d->enf, d->sensors, engine_policy(d->engine), d->engine);
	if (r < 0)
		return r;
	if (!sensors_lsm_active(d->sensors)) {
		struct json_object *feat = NULL, *lsms = NULL;

		if (d->hooks)
			json_object_object_get_ex(d->hooks, "features", &feat);
		if (feat)
			json_object_object_get_ex(feat, "lsms", &lsms);
		snprintf(text, sizeof(text),
			 "enforcement cannot deny: BPF LSM is not active (lsm=%s); only rule actions "
			 "kill act (SIGKILL from the tracepoint programs); soft RDMA (rdma_rxe, siw, "
			 "rdma link add) is only alerted",
			 lsms ? json_object_get_string(lsms) : "?");
		log_warning("%s.", text);
		agent_event(d, RG_EV_AGENT_SENSOR, false, "enforce", text, 0, 0);
	}
	return 0;
}

/* A reload that asks for enforcement starts it; enforcement in force takes the new policy. */
static void enforce_after_reload(struct daemon *d)
{
	int r;

	if (enforce_started(d->enf) || (d->enf && enforce_pinned(d->enf))) {
		if (!enforce_wanted(d))
			log_notice("The policy no longer asks for enforcement, but it is pinned: it "
				   "stays in force with this policy's allowlist.");
		r = enforce_reload(d->enf, engine_policy(d->engine), d->engine);
	} else if (enforce_wanted(d)) {
		struct enforce_opts o = {.pin_dir = d->cfg->pin_dir};

		r = d->enf ? 0 : enforce_prepare(&o, &d->enf);
		if (r == 0)
			r = enforce_start_daemon(d);
	} else {
		return;
	}
	if (r < 0)
		log_error_errno(r, "Failed to apply the new policy to enforcement: %m");
}

int daemon_dry_run(const struct daemon_config *cfg)
{
	struct output_spec specs[DAEMON_MAX_OUTPUTS];
	struct rg_policy *policy = NULL;
	struct rg_ruleset *rules = NULL;
	const char *policy_path = resolve_policy(cfg);
	struct json_object *plan = NULL, *doc;
	size_t n = 0;
	int r;

	r = load_config(policy_path, cfg->rules_dir, &policy, &rules);
	if (r < 0)
		return RG_EXIT_ERROR;
	r = parse_outputs(cfg, policy, specs, &n);
	if (r >= 0) {
		r = sensors_plan(&cfg->sensors, &plan);
		if (r < 0)
			log_error_errno(r, "Failed to probe the sensors: %m");
	}
	if (r >= 0) {
		doc = json_object_new_object();
		struct json_object *outs = json_object_new_array();

		for (size_t i = 0; i < n; i++)
			json_object_array_add(outs, json_object_new_string(specs[i].name));
		ADD(doc, "policy", policy_path ? json_object_new_string(policy_path) : NULL);
		ADD(doc, "rules_dir",
		    json_object_new_string(cfg->rules_dir ? cfg->rules_dir : rules_default_dir()));
		ADD(doc, "rules", json_object_new_uint64(rules->n));
		ADD(doc, "outputs", outs);
		{
			struct json_object *en = json_object_new_object(), *feat = NULL, *lsm = NULL;
			const char *pin_dir = cfg->pin_dir ? cfg->pin_dir : ENFORCE_PIN_DIR;
			char maps[PATH_MAX];
			bool want = cfg->enforce || policy->enforce, pinned;

			snprintf(maps, sizeof(maps), "%s/maps", pin_dir);
			pinned = access(maps, F_OK) == 0;
			if (json_object_object_get_ex(plan, "features", &feat))
				json_object_object_get_ex(feat, "lsm", &lsm);
			ADD(en, "requested", json_object_new_boolean(want));
			ADD(en, "pinned", json_object_new_boolean(pinned));
			ADD(en, "pin_dir", json_object_new_string(pin_dir));
			ADD(en, "mode", json_object_new_string(!want && !pinned ? "off"
								: json_object_get_boolean(lsm) ? "deny"
												: "kill"));
			ADD(en, "scope", json_object_new_string(policy->enforce_scope ==
										RG_ENFORCE_WHILE_GAME
									    ? "while_game"
									    : "always"));
			ADD(doc, "enforcement", en);
		}
		ADD(doc, "sensors", plan);
		puts(json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PRETTY |
								 JSON_C_TO_STRING_SPACED |
								 JSON_C_TO_STRING_NOSLASHESCAPE));
		json_object_put(doc);
	}
	policy_free(policy);
	ruleset_free(rules);
	return r < 0 ? RG_EXIT_ERROR : RG_EXIT_OK;
}

int daemon_run(const struct daemon_config *cfg_in)
{
	struct daemon_config cfg = *cfg_in;
	struct daemon d = {.cfg = &cfg, .epfd = -1, .sigfd = -1, .timerfd = -1, .status_fd = -1,
			   .pid_fd = -1};
	struct output_spec *specs = NULL;
	struct outputs_config ocfg = {0};
	struct engine_config ecfg = {0};
	struct rg_policy *policy = NULL;
	struct rg_ruleset *rules = NULL;
	struct rg_error err;
	struct itimerspec its = {.it_interval = {1, 0}, .it_value = {1, 0}};
	char buf[1200], summary[RG_TEXT_LEN];
	size_t nspecs = 0;
	int r, ret = RG_EXIT_ERROR;

	/*
	 * Memory (README "Performance", footprint): fixed malloc thresholds. With glibc's dynamic
	 * ones, freeing libbpf's parsed vmlinux BTF (two ~5.5 MiB blocks, at load) raises the mmap
	 * threshold to 5.5 MiB and the trim threshold to 11 MiB, so what is allocated after it
	 * stays on the heap and the heap is never given back: 1.2 MiB more RSS for good.
	 */
	(void)mallopt(M_MMAP_THRESHOLD, DAEMON_MALLOC_THRESHOLD);
	(void)mallopt(M_TRIM_THRESHOLD, DAEMON_MALLOC_THRESHOLD);
	if (!cfg.heartbeat_s)
		cfg.heartbeat_s = DAEMON_DEFAULT_HEARTBEAT_S;
	if (!cfg.reconcile_s)
		cfg.reconcile_s = DAEMON_DEFAULT_RECONCILE_S;
	if (!cfg.state_dir)
		cfg.state_dir = RG_STATEDIR;
	d.start_mono_ns = now_monotonic_ns();
	d.start_rt_ns = now_realtime_ns();
	if (gethostname(d.hostname, sizeof(d.hostname) - 1) < 0)
		strcpy(d.hostname, "-");
	d.service = getenv("INVOCATION_ID") != NULL;
	d.policy_path = resolve_policy(&cfg);
	d.rules_dir = cfg.rules_dir ? cfg.rules_dir : rules_default_dir();
	d.keys = calloc(DAEMON_RECONCILE_MAX_KEYS, sizeof(uint64_t));
	d.next_keys = calloc(DAEMON_RECONCILE_MAX_KEYS, sizeof(uint64_t));
	specs = calloc(DAEMON_MAX_OUTPUTS, sizeof(*specs));
	if (!d.keys || !d.next_keys || !specs) {
		log_oom();
		goto out;
	}

	/* Everything that can be wrong with the configuration fails here, before we touch the kernel. */
	if (load_config(d.policy_path, cfg.rules_dir, &policy, &rules) < 0)
		goto out;
	if (parse_outputs(&cfg, policy, specs, &nspecs) < 0)
		goto out;
	/* Only network outputs keep state (their spools). */
	for (size_t i = 0; i < nspecs; i++)
		if (specs[i].type == OUTPUT_SYSLOG_TCP || specs[i].type == OUTPUT_SYSLOG_TLS) {
			r = mkdir_parents(cfg.state_dir, 0700);
			if (r < 0) {
				log_error_errno(r, "Failed to create the state directory %s: %m",
						cfg.state_dir);
				goto out;
			}
			break;
		}
	r = setup_signals(&d);
	if (r < 0) {
		log_error_errno(r, "Failed to set up signal handling: %m");
		goto out;
	}
	if (cfg.pid_file) {
		d.pid_fd = pidfile_acquire(cfg.pid_file);
		if (d.pid_fd < 0) {
			log_error_errno(d.pid_fd, "Failed to take the PID file %s%s: %m", cfg.pid_file,
					d.pid_fd == -EBUSY ? " (another daemon runs)" : "");
			goto out;
		}
	}
	if (open_record(&d) < 0)
		goto out;

	ocfg.state_dir = cfg.state_dir;
	ocfg.hostname = d.hostname;
	ocfg.facility = cfg.facility;
	ocfg.loss_cb = loss_cb;
	ocfg.loss_userdata = &d;
	r = outputs_new(specs, nspecs, &ocfg, &d.outputs);
	if (r < 0)
		goto out;

	ecfg.hostname = d.hostname;
	ecfg.hash_live = true;
	ecfg.boot_realtime_ns = boot_to_realtime_offset_ns();
	r = engine_new(policy, rules, &ecfg, &d.engine, &err);
	if (r < 0) {
		log_error("%s", rg_error_format(&err, buf, sizeof(buf)));
		goto out;
	}
	policy = NULL; /* the engine's now */
	rules = NULL;

	r = enforce_prepare_daemon(&d, &cfg);
	if (r < 0) {
		log_error_errno(r, "Failed to prepare enforcement: %m");
		goto out;
	}
	/* Sensors first: what happens during the inventory waits in their ring buffer. */
	r = sensors_open(&cfg.sensors, &d.sensors);
	if (r < 0) {
		log_error_errno(r, "Failed to attach the sensors: %m");
		goto out;
	}
	d.hooks = sensors_describe(d.sensors);
	hooks_summary(d.hooks, summary, sizeof(summary));

	r = startup_inventory(&d);
	if (r < 0)
		log_warning_errno(r, "Start-up inventory incomplete: %m");
	r = sensors_poll(d.sensors, 0, daemon_event, &d);
	if (r < 0)
		log_warning_errno(r, "Failed to read the sensors: %m");
	r = enforce_start_daemon(&d);
	if (r < 0) {
		log_error_errno(r, "Failed to start enforcement: %m");
		goto out;
	}
	if (enforce_started(d.enf)) {
		char es[64];
		size_t len = strlen(summary);

		enforce_summary(d.enf, es, sizeof(es));
		if (len < sizeof(summary))
			snprintf(summary + len, sizeof(summary) - len, " enforce=%s", es);
	}
	/* what the BPF load and the inventory freed goes back to the system */
	(void)malloc_trim(0);

	d.epfd = epoll_create1(EPOLL_CLOEXEC);
	d.timerfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (d.epfd < 0 || d.timerfd < 0 || timerfd_settime(d.timerfd, 0, &its, NULL) < 0 ||
	    epoll_add(d.epfd, d.sigfd) < 0 || epoll_add(d.epfd, d.timerfd) < 0 ||
	    epoll_add(d.epfd, sensors_fd(d.sensors)) < 0 ||
	    epoll_add(d.epfd, outputs_get_fd(d.outputs)) < 0) {
		log_error_errno(-errno, "Failed to set up the event loop: %m");
		goto out;
	}
	if (!cfg.status_socket || *cfg.status_socket) {
		const char *path = cfg.status_socket ? cfg.status_socket : STATUS_SOCKET_DEFAULT;

		if (!cfg.status_socket)
			(void)mkdir(RG_RUNDIR, 0700);
		d.status_fd = status_listen(path);
		if (d.status_fd < 0) {
			log_error_errno(d.status_fd, "Failed to listen on %s: %m", path);
			goto out;
		}
		if (epoll_add(d.epfd, d.status_fd) < 0)
			goto out;
	}

	agent_event(&d, RG_EV_AGENT_START, true, "sensors", summary, 0, 0);
	{
		struct json_object *agent = json_object_new_object();
		char msg[RG_TEXT_LEN + 32];

		ADD(agent, "version", json_object_new_string(RG_VERSION));
		ADD(agent, "hooks", json_object_get(d.hooks));
		if (d.enf)
			ADD(agent, "enforce", enforce_describe(d.enf));
		snprintf(msg, sizeof(msg), "rdmaguard started: %s", summary);
		notice(&d, "agent_start", "event", msg, agent);
	}
	d.next_heartbeat_ns = now_monotonic_ns() + (uint64_t)cfg.heartbeat_s * 1000000000ull;
	d.next_reconcile_ns = now_monotonic_ns() + (uint64_t)cfg.reconcile_s * 1000000000ull;
	if (d.record)
		fflush(d.record);
	if (cfg.ready_file && (r = write_ready_file(cfg.ready_file)) < 0) {
		log_error_errno(r, "Failed to write %s: %m", cfg.ready_file);
		goto out;
	}
	notify_ready(summary);
	log_info("Running: %s", summary);

	if (run_loop(&d) < 0)
		goto out;

	notify_stopping();
	(void)sensors_poll(d.sensors, 0, daemon_event, &d);
	(void)engine_flush(d.engine, daemon_alert, &d);
	agent_event(&d, RG_EV_AGENT_STOP, true, "signal", "stopped", 0, 0);
	notice(&d, "agent_stop", "event", "rdmaguard stopping", json_object_new_object());
	if (outputs_flush(d.outputs, DAEMON_FLUSH_TIMEOUT_MS) < 0)
		log_warning("Not every alert was written before the stop; spooled ones follow at the "
			    "next start.");
	/* Losses not yet reported (their interval had not passed): reported now, and written as
	 * the outputs stop. */
	(void)outputs_dispatch_final(d.outputs);
	ret = RG_EXIT_OK;
out:
	policy_free(policy);
	ruleset_free(rules);
	free(specs);
	daemon_done(&d);
	return ret;
}
