/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Every alert a unit test produces is appended to one JSON-lines file (Check forks per test, so a
 * file is the simple shared place); main() then validates the whole file against
 * rules/schema/alert.schema.json with tests/unit/validate_alerts.py (/usr/bin/python3 and
 * python3-jsonschema, TEST_DEPS) and fails the binary if any alert is invalid or none was seen.
 */
#pragma once

#include <fcntl.h>
#include <json-c/json.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;
static char alert_dump_path[512];

static void alert_dump_init(const char *name)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(alert_dump_path, sizeof(alert_dump_path), "%s/rg-alerts-%s-%d.jsonl",
		 tmp && *tmp ? tmp : "/tmp", name, (int)getpid());
	unlink(alert_dump_path);
}

static void alert_dump(struct json_object *o)
{
	const char *s = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
							      JSON_C_TO_STRING_NOSLASHESCAPE);
	int fd = open(alert_dump_path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);

	if (fd < 0)
		return;
	if (write(fd, s, strlen(s)) < 0 || write(fd, "\n", 1) < 0)
		perror("alert dump");
	close(fd);
}

/* 0 if every dumped alert is valid (and there was at least one). */
static int alert_dump_validate(void)
{
	const char *root = getenv("RG_SOURCE_ROOT");
	char script[512], schema[512];
	char *argv[5];
	pid_t pid;
	int status;

	if (!root) {
		fprintf(stderr, "RG_SOURCE_ROOT is not set\n");
		return 1;
	}
	snprintf(script, sizeof(script), "%s/tests/unit/validate_alerts.py", root);
	snprintf(schema, sizeof(schema), "%s/rules/schema/alert.schema.json", root);
	argv[0] = "/usr/bin/python3";
	argv[1] = script;
	argv[2] = schema;
	argv[3] = alert_dump_path;
	argv[4] = NULL;
	if (posix_spawn(&pid, argv[0], NULL, NULL, argv, environ) != 0) {
		perror("posix_spawn python3");
		return 1;
	}
	if (waitpid(pid, &status, 0) < 0)
		return 1;
	unlink(alert_dump_path);
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}
