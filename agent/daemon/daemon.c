/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The daemon's lifecycle: start-up (inventory, sensors, enforcement, outputs, the status socket,
 * readiness), the epoll loop over the ring buffer, signals, timers and status requests, and a
 * clean stop. Its configuration and reload (SIGHUP) are daemon_config.c's. The parts it drives live beside it
 * (daemon-internal.h).
 */
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
#include "common/clock.h"
#include "common/exitcode.h"
#include "common/log.h"
#include "common/macro.h"
#include "common/root.h"
#include "common/strutil.h"
#include "enforce/enforce.h"
#include "enforce/game_pids.h"
#include "engine/engine.h"
#include "policy/policy.h"
#include "rules/rules.h"
#include "hw/hw_runtime.h"
#include "event/event_json.h"
#include "inventory/inventory.h"
#include "inventory/nldev.h"
#include "output/output.h"
#include "proctree/proctree.h"
#include "daemon.h"
#include "daemon-internal.h"
#include "hw/baseline.h"
#include "metrics_http.h"

/* malloc: larger blocks are mmap()ed (and unmapped when freed), the heap is trimmed past it */
#define DAEMON_MALLOC_THRESHOLD (128 * 1024)

#define ADD(o, k, v) json_object_object_add((o), (k), (v))

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

static int open_record(struct daemon *d)
{
	const char *path = d->cfg->record_path;
	struct stat st;
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
	/* O_NONBLOCK: a FIFO put there must not block the daemon; only a regular file is taken. */
	fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW | O_NONBLOCK,
		  0600);
	if (fd < 0 && errno != ENXIO) /* ENXIO: a FIFO with no reader, or a socket */
		return log_error_errno(-errno, "Failed to open the record file %s: %m", path);
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		if (fd >= 0)
			close(fd);
		log_error("Failed to open the record file %s: not a regular file", path);
		return -EINVAL;
	}
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
	/* The fingerprint from the same scan (a scan of its own when there was none). */
	daemon_hw_print_update(d, inv->hw);
	hw_facts_baseline(inv->hw, d->baseline);
	r = inventory_foreach_event(inv, daemon_hw_inventory_event, d);
	if (r < 0)
		return r;
	/* The seat baseline (validated at start): every difference, once, at start-up. */
	if (inv->hw && engine_policy(d->engine)->baseline) {
		_cleanup_(hw_baseline_freep) struct hw_baseline *b = NULL;
		struct rg_error err;
		char buf[1200];

		r = hw_baseline_load(engine_policy(d->engine)->baseline, true, &b, &err);
		if (r < 0)
			log_error("%s", rg_error_format(&err, buf, sizeof(buf)));
		else
			r = hw_baseline_compare(b, inv->hw, inv->collected_ns, daemon_event, d);
		if (r < 0)
			return r;
	}
	if (!d->cfg->no_inventory)
		daemon_reconcile(d);
	return 0;
}

static int handle_signal(struct daemon *d, bool *stop)
{
	struct signalfd_siginfo si;
	ssize_t n;

	while ((n = read(d->sigfd, &si, sizeof(si))) == sizeof(si)) {
		switch (si.ssi_signo) {
		case SIGHUP:
			daemon_reload(d);
			break;
		case SIGUSR1:
			log_info("Reopening outputs.");
			(void)outputs_reopen(d->outputs);
			if (d->cfg->record_path && open_record(d) < 0)
				d->record_errors++;
			break;
		default:
			log_info("Stopping on signal %u from pid %u.", si.ssi_signo, si.ssi_pid);
			daemon_stop_signal(d, &si);
			*stop = true;
			break;
		}
	}
	return 0;
}

static int render_metrics(void *ud, bool sensitive, char **ret, size_t *ret_len)
{
	return daemon_metrics_render(ud, sensitive, ret, ret_len);
}

static void on_tick(struct daemon *d)
{
	uint64_t now = now_monotonic_ns(), exp;
	int r;

	while (read(d->timerfd, &exp, sizeof(exp)) == sizeof(exp))
		;
	metrics_http_run(d->metrics); /* its connections' timeouts */
	daemon_proctree_loss(d);
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
		daemon_agent_event(d, RG_EV_AGENT_SENSOR, false, "enforce_pins", text, 0, 0);
		daemon_enforce_sync_tc(d); /* and the TC drop with it */
	}
	daemon_hw_tick(d, false);
	if (now >= d->next_reconcile_ns) {
		daemon_reconcile(d);
		d->next_reconcile_ns = now + (uint64_t)d->cfg->reconcile_s * 1000000000ull;
	}
	if (now >= d->next_heartbeat_ns) {
		daemon_heartbeat(d);
		d->next_heartbeat_ns = now + (uint64_t)d->cfg->heartbeat_s * 1000000000ull;
	}
}

static void serve_status(struct daemon *d, int fd)
{
	struct json_object *doc = daemon_stats(d, true);
	const char *txt;

	if (!doc)
		return;
	daemon_identity_add(d, doc);
	if (d->metrics) {
		struct json_object *m = json_object_new_object();

		ADD(m, "listen", json_object_new_string(d->cfg->metrics_listen));
		ADD(m, "url", json_object_new_string(metrics_http_url(d->metrics)));
		ADD(m, "scrapes", json_object_new_uint64(metrics_http_served(d->metrics)));
		ADD(m, "refused", json_object_new_uint64(metrics_http_refused(d->metrics)));
		ADD(doc, "metrics", m);
	}
	txt = json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PLAIN);
	if (control_write(fd, txt, strlen(txt)) >= 0)
		(void)control_write(fd, "\n", 1);
	json_object_put(doc);
}

/* Every root client waiting on the status socket: its request answered (control.h). */
static void serve_control(struct daemon *d)
{
	char req[CONTROL_REQUEST_MAX];

	for (;;) {
		_cleanup_close_ int fd = control_accept(d->status_fd);

		if (fd == -EPERM)
			continue;
		if (fd < 0)
			break;
		if (control_read_request(fd, req, sizeof(req)) < 0)
			continue;
		if (!req[0] || strcmp(req, "status") == 0)
			serve_status(d, fd);
		else if (strcmp(req, "incidents") == 0)
			(void)daemon_incidents_serve(d, fd, NULL);
		else if (startswith(req, "incident "))
			(void)daemon_incidents_serve(d, fd, req + strlen("incident "));
		else
			(void)control_write(fd, "{\"error\":\"unknown request\"}\n", 28);
	}
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
				serve_control(d);
			else if (fd == outputs_get_fd(d->outputs))
				(void)outputs_dispatch(d->outputs);
			else if (d->metrics && fd == metrics_http_fd(d->metrics))
				metrics_http_run(d->metrics);
			else if (fd == engine_hash_fd(d->engine)) {
				engine_hash_done(d->engine);
				enforce_push_games(d->enf, d->engine);
				game_pids_push_all(d->game_pids_fd, d->engine,
						   PROC_F_GAME_SENSORS);
			}
			else
				daemon_hw_dispatch(d, fd);
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
	metrics_http_stop(d->metrics);
	daemon_hw_close(d);
	hw_baseline_free(d->baseline);
	free(d->irq_watch);
	if (d->sensors)
		sensors_close(d->sensors);
	if (d->outputs)
		outputs_free(d->outputs);
	engine_free(d->engine);
	daemon_evidence_done(d);
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

int daemon_dry_run(const struct daemon_config *cfg)
{
	struct output_spec specs[DAEMON_MAX_OUTPUTS];
	struct rg_policy *policy = NULL;
	struct rg_ruleset *rules = NULL;
	const char *policy_path = daemon_policy_path(cfg);
	struct json_object *plan = NULL, *doc;
	size_t n = 0;
	int r;

	r = daemon_load_config(policy_path, cfg->rules_dir, &policy, &rules, NULL);
	if (r < 0)
		return RG_EXIT_ERROR;
	r = daemon_parse_outputs(cfg, policy, specs, &n);
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

/* Defaults, the start's clocks and names, the reconciliation's key buffers. */
static int daemon_init(struct daemon *d, struct daemon_config *cfg)
{
	/*
	 * Memory (docs/performance.md, footprint): fixed malloc thresholds. With glibc's dynamic
	 * ones, freeing libbpf's parsed vmlinux BTF (two ~5.5 MiB blocks, at load) raises the mmap
	 * threshold to 5.5 MiB and the trim threshold to 11 MiB, so what is allocated after it
	 * stays on the heap and the heap is never given back: 1.2 MiB more RSS for good.
	 */
	(void)mallopt(M_MMAP_THRESHOLD, DAEMON_MALLOC_THRESHOLD);
	(void)mallopt(M_TRIM_THRESHOLD, DAEMON_MALLOC_THRESHOLD);
	if (!cfg->heartbeat_s)
		cfg->heartbeat_s = DAEMON_DEFAULT_HEARTBEAT_S;
	if (!cfg->reconcile_s)
		cfg->reconcile_s = DAEMON_DEFAULT_RECONCILE_S;
	if (!cfg->state_dir)
		cfg->state_dir = RG_STATEDIR;
	d->start_mono_ns = now_monotonic_ns();
	d->start_rt_ns = now_realtime_ns();
	if (gethostname(d->hostname, sizeof(d->hostname) - 1) < 0)
		strcpy(d->hostname, "-");
	d->service = getenv("INVOCATION_ID") != NULL;
	d->policy_path = daemon_policy_path(cfg);
	d->rules_dir = cfg->rules_dir ? cfg->rules_dir : rules_default_dir();
	d->keys = calloc(DAEMON_RECONCILE_MAX_KEYS, sizeof(uint64_t));
	d->next_keys = calloc(DAEMON_RECONCILE_MAX_KEYS, sizeof(uint64_t));
	if (!d->keys || !d->next_keys)
		return log_oom();
	return 0;
}

/*
 * Everything that can be wrong with the configuration fails here, before we touch the kernel:
 * the policy, the rules and the outputs; then the signals, the PID file, the record file, the
 * outputs and the engine (which takes the policy and the rules: *policy and *rules are NULL).
 */
static int daemon_configure(struct daemon *d, struct daemon_config *cfg,
			    struct rg_policy **policy, struct rg_ruleset **rules)
{
	_cleanup_free_ struct output_spec *specs = calloc(DAEMON_MAX_OUTPUTS, sizeof(*specs));
	struct outputs_config ocfg = {0};
	struct engine_config ecfg = {0};
	struct rg_error err;
	char buf[1200];
	size_t nspecs = 0;
	int r;

	if (!specs)
		return log_oom();
	if (daemon_load_config(d->policy_path, cfg->rules_dir, policy, rules, &d->baseline) < 0)
		return -EINVAL;
	if (daemon_parse_outputs(cfg, *policy, specs, &nspecs) < 0)
		return -EINVAL;
	/* The spools of network outputs and the seat key live there. Without a spool to keep,
	 * a state directory that cannot be made (a read-only root) costs the key alone. */
	r = mkdir_parents(cfg->state_dir, 0700);
	if (r < 0 && daemon_outputs_need_state_dir(specs, nspecs))
		return log_error_errno(r, "Failed to create the state directory %s: %m",
				       cfg->state_dir);
	if (r < 0)
		log_warning_errno(r, "Cannot create the state directory %s (%m): no seat key, "
				  "bundles and chain heads go unsigned.", cfg->state_dir);
	else if ((r = daemon_evidence_start(d, cfg->state_dir)) < 0)
		return r;
	r = setup_signals(d);
	if (r < 0)
		return log_error_errno(r, "Failed to set up signal handling: %m");
	if (cfg->pid_file) {
		d->pid_fd = pidfile_acquire(cfg->pid_file);
		if (d->pid_fd < 0)
			return log_error_errno(d->pid_fd, "Failed to take the PID file %s%s: %m",
					       cfg->pid_file,
					       d->pid_fd == -EBUSY ? " (another daemon runs)" : "");
	}
	if (open_record(d) < 0)
		return -EIO;

	ocfg.state_dir = cfg->state_dir;
	ocfg.hostname = d->hostname;
	ocfg.facility = cfg->facility;
	ocfg.loss_cb = daemon_loss_cb;
	ocfg.loss_userdata = d;
	r = outputs_new(specs, nspecs, &ocfg, &d->outputs);
	if (r < 0)
		return r;

	ecfg.hostname = d->hostname;
	ecfg.hash_live = true;
	ecfg.proc_capacity = cfg->proc_capacity;
	ecfg.hash_async = true; /* never on the event thread: the ring buffer must keep draining */
	ecfg.boot_realtime_ns = boot_to_realtime_offset_ns();
	r = engine_new(*policy, *rules, &ecfg, &d->engine, &err);
	if (r < 0) {
		log_error("%s", rg_error_format(&err, buf, sizeof(buf)));
		return r;
	}
	*policy = NULL; /* the engine's now */
	*rules = NULL;
	engine_set_incident_fn(d->engine, daemon_alert, d); /* next to the alerts */
	r = identity_collect(NULL, &d->id);
	if (r < 0)
		log_warning_errno(r, "Failed to read the seat's identity: %m");
	if (!d->id.id[0])
		log_warning("No valid /etc/machine-id: alerts carry no host.id.");
	daemon_identity_refresh(d, true);
	return 0;
}

/* Enforcement prepared, sensors attached, the inventory taken, enforcement started; summary
 * says what runs. */
static int daemon_attach(struct daemon *d, struct daemon_config *cfg, char *summary, size_t size)
{
	int r = daemon_enforce_prepare(d, cfg);

	if (r < 0)
		return log_error_errno(r, "Failed to prepare enforcement: %m");
	/* Sensors first: what happens during the inventory waits in their ring buffer. */
	r = sensors_open(&cfg->sensors, &d->sensors);
	if (r < 0)
		return log_error_errno(r, "Failed to attach the sensors: %m");
	daemon_game_pids_open(d, cfg);
	d->hooks = sensors_describe(d->sensors);
	/* The hardware layer's uevents and kernel log: what changes from now on waits in them. */
	(void)daemon_hw_open(d);
	daemon_hooks_summary(d->hooks, summary, size);

	r = startup_inventory(d);
	if (r < 0)
		log_warning_errno(r, "Start-up inventory incomplete: %m");
	r = sensors_poll(d->sensors, 0, daemon_event, d);
	if (r < 0)
		log_warning_errno(r, "Failed to read the sensors: %m");
	r = daemon_enforce_start(d);
	if (r < 0)
		return log_error_errno(r, "Failed to start enforcement: %m");
	daemon_hw_enforce_present(d);
	if (enforce_started(d->enf)) {
		char es[64];
		size_t len = strlen(summary);

		enforce_summary(d->enf, es, sizeof(es));
		if (len < size)
			snprintf(summary + len, size - len, " enforce=%s", es);
	}
	/* what the BPF load and the inventory freed goes back to the system */
	(void)malloc_trim(0);
	return 0;
}

/* The event loop's fds: signals, the timer, sensors, outputs, hasher, hardware, the status
 * socket and the metrics endpoint. */
static int daemon_listen(struct daemon *d, const struct daemon_config *cfg)
{
	struct itimerspec its = {.it_interval = {1, 0}, .it_value = {1, 0}};
	int r;

	d->epfd = epoll_create1(EPOLL_CLOEXEC);
	d->timerfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (d->epfd < 0 || d->timerfd < 0 || timerfd_settime(d->timerfd, 0, &its, NULL) < 0 ||
	    epoll_add(d->epfd, d->sigfd) < 0 || epoll_add(d->epfd, d->timerfd) < 0 ||
	    epoll_add(d->epfd, sensors_fd(d->sensors)) < 0 ||
	    epoll_add(d->epfd, outputs_get_fd(d->outputs)) < 0 ||
	    epoll_add(d->epfd, engine_hash_fd(d->engine)) < 0 ||
	    (hw_runtime_uevent_fd(d->hw) >= 0 && epoll_add(d->epfd, hw_runtime_uevent_fd(d->hw)) < 0) ||
	    (hw_runtime_kmsg_fd(d->hw) >= 0 && epoll_add(d->epfd, hw_runtime_kmsg_fd(d->hw)) < 0) ||
	    (daemon_hw_scanner_fd(d) >= 0 && epoll_add(d->epfd, daemon_hw_scanner_fd(d)) < 0))
		return log_error_errno(-errno, "Failed to set up the event loop: %m");
	if (!cfg->status_socket || *cfg->status_socket) {
		const char *path = cfg->status_socket ? cfg->status_socket : STATUS_SOCKET_DEFAULT;

		if (!cfg->status_socket)
			(void)mkdir(RG_RUNDIR, 0700);
		d->status_fd = status_listen(path);
		if (d->status_fd < 0)
			return log_error_errno(d->status_fd, "Failed to listen on %s: %m", path);
		r = epoll_add(d->epfd, d->status_fd);
		if (r < 0)
			return r;
	}

	if (cfg->metrics_listen) {
		r = metrics_http_start(cfg->metrics_listen, engine_policy(d->engine), render_metrics,
				       d, &d->metrics);
		if (r < 0) {
			if (r != -EPERM)
				log_error_errno(r, "Failed to serve metrics on %s: %m",
						cfg->metrics_listen);
			return r;
		}
		r = epoll_add(d->epfd, metrics_http_fd(d->metrics));
		if (r < 0)
			return r;
		log_info("Metrics at %s", metrics_http_url(d->metrics));
	}
	return 0;
}

/* Privileges dropped, the start told (event, notice, ready file, systemd). */
static int daemon_started(struct daemon *d, const struct daemon_config *cfg, const char *summary)
{
	struct json_object *agent;
	char msg[RG_TEXT_LEN + 32];
	int r;

	/* Loaded, attached, pinned, opened, bound: from here on only what the loop uses (all threads:
	 * the outputs' and the hasher's dropped theirs as they began). */
	r = daemon_privs_drop(d);
	if (r < 0)
		return r;

	daemon_agent_event(d, RG_EV_AGENT_START, true, "sensors", summary, 0, 0);
	agent = json_object_new_object();
	ADD(agent, "version", json_object_new_string(RG_VERSION));
	ADD(agent, "hooks", json_object_get(d->hooks));
	if (d->enf)
		ADD(agent, "enforce", enforce_describe(d->enf));
	ADD(agent, "capabilities", daemon_privs_describe(d));
	snprintf(msg, sizeof(msg), "rdmaguard started: %s", summary);
	daemon_notice(d, "agent_start", "event", msg, agent);
	d->next_heartbeat_ns = now_monotonic_ns() + (uint64_t)cfg->heartbeat_s * 1000000000ull;
	d->next_reconcile_ns = now_monotonic_ns() + (uint64_t)cfg->reconcile_s * 1000000000ull;
	if (d->record)
		fflush(d->record);
	if (cfg->ready_file && (r = write_ready_file(cfg->ready_file)) < 0)
		return log_error_errno(r, "Failed to write %s: %m", cfg->ready_file);
	notify_ready(summary);
	log_info("Running: %s", summary);
	return 0;
}

/* After the loop: what the sensors still hold, the last alerts and the stop, written out. */
static void daemon_shutdown(struct daemon *d)
{
	notify_stopping();
	(void)sensors_poll(d->sensors, 0, daemon_event, d);
	daemon_proctree_loss(d);
	daemon_hw_tick(d, true);
	(void)engine_flush(d->engine, daemon_alert, d);
	daemon_agent_event(d, RG_EV_AGENT_STOP, true, "signal", "stopped", 0, 0);
	daemon_notice(d, "agent_stop", "event", "rdmaguard stopping", json_object_new_object());
	if (outputs_flush(d->outputs, DAEMON_FLUSH_TIMEOUT_MS) < 0)
		log_warning("Not every alert was written before the stop; spooled ones follow at the "
			    "next start.");
	/* Losses not yet reported (their interval had not passed): reported now, and written as
	 * the outputs stop. */
	(void)outputs_dispatch_final(d->outputs);
}

int daemon_run(const struct daemon_config *cfg_in)
{
	struct daemon_config cfg = *cfg_in;
	struct daemon d = {.cfg = &cfg, .epfd = -1, .sigfd = -1, .timerfd = -1, .status_fd = -1,
			   .pid_fd = -1, .game_pids_fd = -1};
	struct rg_policy *policy = NULL;
	struct rg_ruleset *rules = NULL;
	char summary[RG_TEXT_LEN];
	int ret = RG_EXIT_ERROR;

	if (daemon_init(&d, &cfg) < 0 || daemon_configure(&d, &cfg, &policy, &rules) < 0 ||
	    daemon_attach(&d, &cfg, summary, sizeof(summary)) < 0 || daemon_listen(&d, &cfg) < 0 ||
	    daemon_started(&d, &cfg, summary) < 0 || run_loop(&d) < 0)
		goto out;
	daemon_shutdown(&d);
	ret = RG_EXIT_OK;
out:
	policy_free(policy);
	ruleset_free(rules);
	daemon_done(&d);
	return ret;
}
