/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rdmaguard-console's accounts file and room-layout file (console/accounts.c, layout.c) on any
 * bytes, through a file as the console reads them. Properties: the accounts read are valid
 * (a valid name, a known role, a crypt hash without ':'), an error names the file with a line
 * and a column, and a layout read is a JSON object of [row, column] pairs within 1..1000.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "fuzz.h"
#include "accounts.h"
#include "layout.h"

static char path[64];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	int fd;

	fuzz_quiet();
	snprintf(path, sizeof(path), "/tmp/rg-fuzz-console-XXXXXX");
	fd = mkstemp(path);
	if (fd < 0)
		abort();
	close(fd);
	return 0;
}

static void write_file(const uint8_t *data, size_t size)
{
	FILE *f = fopen(path, "we");

	if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f) != 0)
		abort();
}

static void check_accounts(void)
{
	struct accounts a;
	char err[1024];
	size_t n = strlen(path);

	if (accounts_load(path, &a, err, sizeof(err)) < 0) {
		unsigned line, col;

		FUZZ_ASSERT(strncmp(err, path, n) == 0 && err[n] == ':', "error: %s", err);
		FUZZ_ASSERT(sscanf(err + n, ":%u:%u:", &line, &col) == 2 && line >= 1 && col >= 1,
			    "no line and column: %s", err);
		return;
	}
	FUZZ_ASSERT(a.n <= ACCOUNTS_MAX, "%zu accounts", a.n);
	for (size_t i = 0; i < a.n; i++) {
		FUZZ_ASSERT(account_name_valid(a.v[i].name), "name %s", a.v[i].name);
		FUZZ_ASSERT(a.v[i].role == ROLE_VIEWER || a.v[i].role == ROLE_REFEREE, "role %d",
			    a.v[i].role);
		FUZZ_ASSERT(a.v[i].hash[0] == '$' && !strchr(a.v[i].hash, ':'), "hash %s",
			    a.v[i].hash);
	}
	accounts_free(&a);
}

static void check_layout(void)
{
	char *json = NULL;
	json_object *o;

	if (layout_load(path, &json) < 0) {
		FUZZ_ASSERT(!json, "JSON after an error");
		return;
	}
	o = json_tokener_parse(json);
	FUZZ_ASSERT(o && json_object_is_type(o, json_type_object), "not an object: %s", json);
	FUZZ_ASSERT(json_object_object_length(o) <= LAYOUT_MAX, "too many seats");
	json_object_object_foreach(o, label, v)
	{
		FUZZ_ASSERT(label[0] && json_object_array_length(v) == 2, "seat %s", label);
		for (size_t i = 0; i < 2; i++) {
			int x = json_object_get_int(json_object_array_get_idx(v, i));

			FUZZ_ASSERT(x >= 1 && x <= 1000, "seat %s: %d", label, x);
		}
	}
	json_object_put(o);
	free(json);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	write_file(data, size);
	check_accounts();
	check_layout();
	return 0;
}
