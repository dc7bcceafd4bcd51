/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Subcommands. Each takes argc/argv starting at its own name (argv[0] = "audit") and returns an
 * exit code from common/exitcode.h. Option parsing is getopt_long; each has --help.
 */
#pragma once

int cmd_audit(int argc, char **argv);
int cmd_baseline(int argc, char **argv);
int cmd_daemon(int argc, char **argv);
int cmd_enforce(int argc, char **argv);
int cmd_evidence(int argc, char **argv);
int cmd_explain(int argc, char **argv);
int cmd_incidents(int argc, char **argv);
int cmd_policy(int argc, char **argv);
int cmd_rules(int argc, char **argv);
int cmd_replay(int argc, char **argv);
int cmd_status(int argc, char **argv);
int cmd_version(int argc, char **argv);

struct incident_load_opts;
struct incident_set;
/* incidents.c: the incidents of a file, or of the daemon (file NULL; id: that one's log too). */
int cmd_incidents_load(const char *file, const char *socket, const char *id,
		       const struct incident_load_opts *o, struct incident_set *s);
/* incidents.c: the options both commands take. 0, 1 (--help: usage_fn ran), -1 (bad usage). */
int cmd_incidents_parse(const char *cmd, int argc, char **argv, void (*usage_fn)(void),
			const char **format, struct incident_load_opts *o, const char **socket);

/* Prints "rdmaguard CMD: unrecognised ... Try 'rdmaguard CMD --help'." and returns RG_EXIT_ERROR. */
int cmd_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
