/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rdmaguard-console: the referee's room over the fleet store (docs/fleet.md#the-console).
 * Option parsing, the start-up checks (TLS and accounts beyond loopback), the room-layout file,
 * `adduser`, and the wait for SIGINT/SIGTERM.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include <arpa/inet.h>

#include "config.h"
#include "common/log.h"
#include "accounts.h"
#include "db.h"
#include "http.h"
#include "layout.h"

enum {
	EXIT_OK = 0,
	EXIT_RUNTIME = 1, /* the database, the listening socket */
	EXIT_USAGE = 2,	  /* bad usage, a file that does not read or parse */
	EXIT_INSECURE = 3 /* beyond loopback without TLS and accounts: refused */
};

static const char usage_text[] =
    "Usage: rdmaguard-console serve --db CONNINFO --listen ADDRESS:PORT\n"
    "                         [--tls-cert FILE --tls-key FILE] [--accounts FILE]\n"
    "                         [--layout FILE] [--static DIR]\n"
    "       rdmaguard-console adduser --accounts FILE --role viewer|referee NAME\n"
    "                         (the password is read from standard input)\n"
    "       rdmaguard-console --help | --version\n"
    "\n"
    "A web console for a room of seats over rdmaguard's PostgreSQL store. Beyond loopback\n"
    "(127.0.0.0/8, ::1) it refuses to start without --tls-cert, --tls-key and --accounts.\n"
    "Exit status: 0 stopped by a signal; 1 the database or the socket failed;\n"
    "2 bad usage or a file that does not parse; 3 refused: not loopback, no TLS or accounts.\n";

static int usage(FILE *f, int code)
{
	fputs(usage_text, f);
	return code;
}

static int slurp(const char *path, char **out)
{
	FILE *f = fopen(path, "re");
	size_t len = 0, cap = 0;
	char buf[4096];
	size_t n;

	if (!f)
		return -errno;
	*out = NULL;
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0) {
		char *p;

		if (len + n > 1024 * 1024) {
			free(*out);
			fclose(f);
			return -EFBIG;
		}
		if (len + n + 1 > cap) {
			cap = (len + n + 1) * 2;
			p = realloc(*out, cap);
			if (!p) {
				free(*out);
				fclose(f);
				return -ENOMEM;
			}
			*out = p;
		}
		memcpy(*out + len, buf, n);
		len += n;
		(*out)[len] = '\0';
	}
	fclose(f);
	return *out ? 0 : -ENODATA;
}

static int split_listen(char *s, struct console_cfg *cfg)
{
	char *colon = strrchr(s, ':');
	char *end;
	long port;

	if (!colon)
		return -EINVAL;
	*colon = '\0';
	port = strtol(colon + 1, &end, 10);
	if (*end || port < 1 || port > 65535)
		return -EINVAL;
	if (s[0] == '[' && colon > s + 1 && colon[-1] == ']') {
		colon[-1] = '\0';
		s++;
	}
	cfg->listen_host = s;
	cfg->port = (unsigned)port;
	return 0;
}

static bool loopback(const char *host)
{
	struct in_addr a4;
	struct in6_addr a6;

	if (inet_pton(AF_INET, host, &a4) == 1)
		return (ntohl(a4.s_addr) >> 24) == 127;
	if (inet_pton(AF_INET6, host, &a6) == 1)
		return IN6_IS_ADDR_LOOPBACK(&a6) ||
		       (IN6_IS_ADDR_V4MAPPED(&a6) && a6.s6_addr[12] == 127);
	return false;
}

static int wait_for_signal(void)
{
	sigset_t set;
	int sig;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	return sigwait(&set, &sig) == 0 ? sig : -1;
}

struct serve_opts {
	const char *db, *listen, *cert, *key, *accounts, *layout, *static_dir;
};

static int serve_files(const struct serve_opts *o, struct console_cfg *cfg, struct accounts *acc)
{
	char err[1024];
	int r;

	if (o->cert && (r = slurp(o->cert, &cfg->tls_cert)) < 0)
		return log_error_errno(r, "%s: %m", o->cert), EXIT_USAGE;
	if (o->key && (r = slurp(o->key, &cfg->tls_key)) < 0)
		return log_error_errno(r, "%s: %m", o->key), EXIT_USAGE;
	if (o->accounts) {
		r = accounts_load(o->accounts, acc, err, sizeof(err));
		if (r < 0)
			return log_error("%s", err), EXIT_USAGE;
		if (acc->n == 0)
			return log_error("%s: no accounts (rdmaguard-console adduser)",
					 o->accounts),
			       EXIT_USAGE;
		cfg->accounts = acc;
	}
	if (o->layout && layout_load(o->layout, &cfg->layout_json) < 0)
		return EXIT_USAGE;
	return EXIT_OK;
}

static int serve_run(const struct serve_opts *o)
{
	struct console_cfg cfg = {.static_dir = o->static_dir};
	struct accounts acc = {0};
	char listen[300], err[1024];
	sigset_t set;
	int code, r;

	snprintf(listen, sizeof(listen), "%s", o->listen);
	if (split_listen(listen, &cfg) < 0) {
		log_error("--listen %s: expected ADDRESS:PORT ([ADDRESS]:PORT for IPv6)",
			  o->listen);
		return EXIT_USAGE;
	}
	if (!!o->cert != !!o->key) {
		log_error("--tls-cert and --tls-key go together");
		return EXIT_USAGE;
	}
	if (!loopback(cfg.listen_host) && (!o->cert || !o->accounts)) {
		log_error("Refusing to listen on %s without TLS and accounts: beyond loopback the "
			  "console needs --tls-cert, --tls-key and --accounts",
			  cfg.listen_host);
		return EXIT_INSECURE;
	}
	code = serve_files(o, &cfg, &acc);
	if (code != EXIT_OK)
		goto out;
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	signal(SIGPIPE, SIG_IGN);
	if (db_init(o->db, err, sizeof(err)) < 0) {
		log_error("The database: %s", err);
		code = EXIT_RUNTIME;
		goto out;
	}
	r = db_listen_start();
	if (r == 0)
		r = http_start(&cfg, err, sizeof(err));
	if (r < 0) {
		log_error("%s", err);
		code = r == -EADDRINUSE ? EXIT_RUNTIME : EXIT_USAGE;
	} else {
		log_notice("Listening on %s port %u (%s%s)", cfg.listen_host, cfg.port,
			   cfg.tls_cert ? "https" : "http",
			   cfg.accounts ? ", accounts" : ", open, read-only");
		printf("ready\n");
		fflush(stdout);
		wait_for_signal();
	}
	db_listen_stop();
	http_stop();
	db_done();
out:
	accounts_free(&acc);
	free(cfg.tls_cert);
	free(cfg.tls_key);
	free(cfg.layout_json);
	return code;
}

static int serve(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"db", required_argument, NULL, 'd'},
	    {"listen", required_argument, NULL, 'l'},
	    {"tls-cert", required_argument, NULL, 'c'},
	    {"tls-key", required_argument, NULL, 'k'},
	    {"accounts", required_argument, NULL, 'a'},
	    {"layout", required_argument, NULL, 'L'},
	    {"static", required_argument, NULL, 's'},
	    {"help", no_argument, NULL, 'h'},
	    {0},
	};
	struct serve_opts o = {.static_dir = RGC_STATICDIR};
	int c;

#ifdef RGC_SOURCE_STATICDIR
	if (access(RGC_STATICDIR "/index.html", R_OK) < 0)
		o.static_dir = RGC_SOURCE_STATICDIR;
#endif
	while ((c = getopt_long(argc, argv, "", opts, NULL)) >= 0) {
		switch (c) {
		case 'd':
			o.db = optarg;
			break;
		case 'l':
			o.listen = optarg;
			break;
		case 'c':
			o.cert = optarg;
			break;
		case 'k':
			o.key = optarg;
			break;
		case 'a':
			o.accounts = optarg;
			break;
		case 'L':
			o.layout = optarg;
			break;
		case 's':
			o.static_dir = optarg;
			break;
		case 'h':
			return usage(stdout, EXIT_OK);
		default:
			return usage(stderr, EXIT_USAGE);
		}
	}
	if (!o.db || !o.listen || optind != argc) {
		log_error("serve needs --db and --listen (and nothing else)");
		return usage(stderr, EXIT_USAGE);
	}
	return serve_run(&o);
}

static int read_password(char *pw, size_t len)
{
	struct termios old, noecho;
	bool tty = isatty(STDIN_FILENO) && tcgetattr(STDIN_FILENO, &old) == 0;
	char *ok;

	if (tty) {
		fprintf(stderr, "Password: ");
		noecho = old;
		noecho.c_lflag &= ~(tcflag_t)ECHO;
		tcsetattr(STDIN_FILENO, TCSAFLUSH, &noecho);
	}
	ok = fgets(pw, (int)len, stdin);
	if (tty) {
		tcsetattr(STDIN_FILENO, TCSAFLUSH, &old);
		fprintf(stderr, "\n");
	}
	if (!ok)
		return -ENODATA;
	pw[strcspn(pw, "\r\n")] = '\0';
	return 0;
}

static int adduser(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"accounts", required_argument, NULL, 'a'},
	    {"role", required_argument, NULL, 'r'},
	    {0},
	};
	const char *path = NULL, *role = "viewer";
	enum console_role rl;
	char pw[1100], err[1024];
	int c;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) >= 0) {
		if (c == 'a')
			path = optarg;
		else if (c == 'r')
			role = optarg;
		else
			return usage(stderr, EXIT_USAGE);
	}
	if (!path || optind != argc - 1 || role_from_name(role, &rl) < 0) {
		log_error("adduser needs --accounts FILE, --role viewer|referee and one NAME");
		return usage(stderr, EXIT_USAGE);
	}
	if (read_password(pw, sizeof(pw)) < 0) {
		log_error("No password on standard input");
		return EXIT_USAGE;
	}
	if (accounts_add(path, argv[optind], rl, pw, err, sizeof(err)) < 0) {
		log_error("%s", err);
		return EXIT_USAGE;
	}
	log_notice("%s: %s is a %s", path, argv[optind], role_name(rl));
	return EXIT_OK;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return usage(stderr, EXIT_USAGE);
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)
		return usage(stdout, EXIT_OK);
	if (strcmp(argv[1], "--version") == 0) {
		printf("rdmaguard-console %s\n", RG_VERSION);
		return EXIT_OK;
	}
	if (strcmp(argv[1], "serve") == 0)
		return serve(argc - 1, argv + 1);
	if (strcmp(argv[1], "adduser") == 0)
		return adduser(argc - 1, argv + 1);
	log_error("Unknown command %s", argv[1]);
	return usage(stderr, EXIT_USAGE);
}
