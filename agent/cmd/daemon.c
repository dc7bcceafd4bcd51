/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rdmaguard daemon: for now the sensors alone. Probes the kernel, attaches the sensors, writes every
 * event as a JSON line (stdout or --record FILE) until SIGTERM/SIGINT. --dry-run prints the hook
 * chosen for each hook point and exits.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "cmd.h"
#include "../common/exitcode.h"
#include "../common/log.h"
#include "../common/util.h"
#include "../event/event_json.h"
#include "../sensors/sensors.h"

struct daemon_out {
	FILE *f;
	uint64_t seq;
	int error;
};

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: rdmaguard daemon [OPTIONS]\n\n"
		"Watches the machine with eBPF sensors and writes each event as a JSON line.\n\n"
		"Options:\n"
		"  --sensor auto|fentry|kprobe|tracepoint\n"
		"                      hook flavour (default auto: the best the kernel allows)\n"
		"  --dry-run           print the hook chosen for each hook point as JSON, and exit\n"
		"  --record FILE|-     append events to FILE (default: standard output)\n"
		"  --ready-file FILE   create FILE once the sensors are attached\n"
		"  --roce-if IFACE     also count RoCE v2/iWARP traffic on IFACE (up to 8)\n"
		"  --roce-interval SEC report RoCE traffic every SEC seconds (default 10)\n"
		"  -h, --help          this help\n\n"
		"Stops on SIGTERM or SIGINT. Exit codes: 0 stopped, 2 error.\n");
}

static int emit(const struct rg_event *ev_in, void *userdata)
{
	struct daemon_out *out = userdata;
	struct rg_event ev = *ev_in;
	struct json_object *o;
	const char *s;

	ev.seq = ++out->seq;
	o = event_to_json(&ev);
	if (!o)
		return log_oom();
	s = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
	if (fputs(s, out->f) == EOF || fputc('\n', out->f) == EOF) {
		json_object_put(o);
		out->error = -errno;
		return log_error_errno(-errno ?: -EIO, "Failed to write an event: %m");
	}
	json_object_put(o);
	return 0;
}

static void agent_event(struct daemon_out *out, unsigned type, const char *what, const char *text)
{
	struct rg_event ev = {0};

	ev.type = (uint16_t)type;
	ev.provider = RG_PROV_AGENT;
	ev.ts = now_realtime_ns();
	ev.proc.pid = (uint32_t)getpid();
	ev.u.agent.ok = 1;
	strscpy_ok(ev.u.agent.what, what, sizeof(ev.u.agent.what));
	strscpy_ok(ev.u.agent.text, text, sizeof(ev.u.agent.text));
	(void)emit(&ev, out);
	fflush(out->f);
}

/* "process=tracepoint open=fentry ..." from the description, for the startup event. */
static void summarise(struct json_object *desc, char *buf, size_t size)
{
	struct json_object *hooks;
	size_t off = 0;

	buf[0] = 0;
	if (!json_object_object_get_ex(desc, "hooks", &hooks))
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

static int write_ready_file(const char *path)
{
	char tmp[4096];
	_cleanup_close_ int fd = -1;
	char pid[32];
	int n;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0)
		return -errno;
	n = snprintf(pid, sizeof(pid), "%d\n", (int)getpid());
	if (write(fd, pid, (size_t)n) != n)
		return -errno ?: -EIO;
	if (rename(tmp, path) < 0)
		return -errno;
	return 0;
}

int cmd_daemon(int argc, char **argv)
{
	static const struct option opts[] = {
		{"sensor", required_argument, NULL, 's'},
		{"dry-run", no_argument, NULL, 'n'},
		{"record", required_argument, NULL, 'r'},
		{"ready-file", required_argument, NULL, 'R'},
		{"roce-if", required_argument, NULL, 'I'},
		{"roce-interval", required_argument, NULL, 'T'},
		{"help", no_argument, NULL, 'h'},
		{},
	};
	struct sensors_config cfg = {.mode = SENSORS_AUTO};
	struct daemon_out out = {.f = stdout};
	const char *record = NULL, *ready = NULL;
	struct rg_sensors *s = NULL;
	struct json_object *desc;
	bool dry_run = false;
	size_t nifs = 0;
	uint32_t u;
	_cleanup_close_ int sfd = -1, epfd = -1;
	struct epoll_event e;
	char summary[RG_TEXT_LEN];
	sigset_t mask;
	int c, r, ret = RG_EXIT_ERROR;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			r = sensors_mode_from_string(optarg);
			if (r < 0)
				return cmd_usage_error("daemon", "unknown sensor '%s' (auto, fentry, "
								 "kprobe, tracepoint)", optarg);
			cfg.mode = (enum sensors_mode)r;
			break;
		case 'n':
			dry_run = true;
			break;
		case 'r':
			record = optarg;
			break;
		case 'R':
			ready = optarg;
			break;
		case 'I':
			if (nifs >= ARRAY_SIZE(cfg.roce_ifaces))
				return cmd_usage_error("daemon", "at most %zu --roce-if",
						       ARRAY_SIZE(cfg.roce_ifaces));
			cfg.roce_ifaces[nifs++] = optarg;
			break;
		case 'T':
			if (safe_atou32(optarg, 10, &u) < 0 || u == 0 || u > 86400)
				return cmd_usage_error("daemon", "--roce-interval: not a number of "
								 "seconds (1-86400): '%s'", optarg);
			cfg.roce_interval_s = u;
			break;
		case 'h':
			usage(stdout);
			return RG_EXIT_OK;
		default:
			return cmd_usage_error("daemon", "unrecognised option");
		}
	}
	if (optind < argc)
		return cmd_usage_error("daemon", "unexpected argument '%s'", argv[optind]);

	if (dry_run) {
		r = sensors_plan(&cfg, &desc);
		if (r < 0) {
			log_error_errno(r, "Failed to plan the sensors: %m");
			return RG_EXIT_ERROR;
		}
		puts(json_object_to_json_string_ext(desc, JSON_C_TO_STRING_PRETTY |
								  JSON_C_TO_STRING_SPACED));
		json_object_put(desc);
		return RG_EXIT_OK;
	}

	if (record && strcmp(record, "-") != 0) {
		int fd = open(record, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOCTTY, 0640);

		if (fd < 0 || !(out.f = fdopen(fd, "a"))) {
			log_error_errno(-errno, "Failed to open %s: %m", record);
			if (fd >= 0)
				close(fd);
			return RG_EXIT_ERROR;
		}
	}

	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGPIPE);
	if (sigprocmask(SIG_BLOCK, &mask, NULL) < 0 ||
	    (sfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK)) < 0) {
		log_error_errno(-errno, "Failed to set up signal handling: %m");
		goto out;
	}

	r = sensors_open(&cfg, &s);
	if (r < 0)
		goto out;
	desc = sensors_describe(s);
	summarise(desc, summary, sizeof(summary));
	if (desc)
		log_debug("Sensors: %s", json_object_to_json_string_ext(desc, JSON_C_TO_STRING_PLAIN));
	json_object_put(desc);
	agent_event(&out, RG_EV_AGENT_START, "sensors", summary);
	if (ready && (r = write_ready_file(ready)) < 0) {
		log_error_errno(r, "Failed to write %s: %m", ready);
		goto out;
	}

	epfd = epoll_create1(EPOLL_CLOEXEC);
	if (epfd < 0)
		goto out;
	e = (struct epoll_event){.events = EPOLLIN, .data.fd = sfd};
	if (epoll_ctl(epfd, EPOLL_CTL_ADD, sfd, &e) < 0)
		goto out;
	e = (struct epoll_event){.events = EPOLLIN, .data.fd = sensors_fd(s)};
	if (epoll_ctl(epfd, EPOLL_CTL_ADD, sensors_fd(s), &e) < 0)
		goto out;

	for (;;) {
		struct epoll_event evs[2];
		int n = epoll_wait(epfd, evs, 2, 1000);

		if (n < 0 && errno != EINTR) {
			log_error_errno(-errno, "epoll_wait failed: %m");
			goto out;
		}
		for (int i = 0; i < n; i++)
			if (evs[i].data.fd == sfd) {
				struct signalfd_siginfo si;

				if (read(sfd, &si, sizeof(si)) == sizeof(si) && si.ssi_signo != SIGPIPE) {
					log_info("Stopping on signal %u.", si.ssi_signo);
					ret = RG_EXIT_OK;
					goto stop;
				}
			}
		/* The sensors' timer needs service even when nothing else happens. */
		r = sensors_poll(s, 0, emit, &out);
		if (r < 0) {
			log_error_errno(r, "Failed to read the sensors: %m");
			goto out;
		}
		if (fflush(out.f) == EOF) {
			log_error_errno(-errno, "Failed to write events: %m");
			goto out;
		}
	}
stop:
	/* What the sensors still hold. */
	(void)sensors_poll(s, 0, emit, &out);
	agent_event(&out, RG_EV_AGENT_STOP, "sensors", "stopped");
out:
	sensors_close(s);
	if (ready)
		(void)unlink(ready);
	if (out.f != stdout)
		fclose(out.f);
	else
		fflush(stdout);
	return ret;
}
