/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The inventory's readers of /sys, /proc, /dev and /etc on a root built from the input: an
 * archive (fuzz.h) of files, directories, symbolic links (absolute ones too, which must stay in
 * the root) and FIFOs (which must never be opened for reading: that would hang), extracted into
 * a temporary directory; then inventory_collect() on it with every source that a non-host root
 * allows (sysfs devices, ports and GIDs, PCI, DMA exposure, device nodes, modules, processes with
 * their fds and maps, UDP sockets), the report (JSON and text) and the events for the engine.
 * Seeds: the fixture roots of tests/fixtures/roots/. Properties: no hang (libFuzzer's -timeout),
 * counts within the documented caps, every event survives the JSON round trip.
 */
#include <fcntl.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"
#include "inventory/inventory.h"
#include "common/root.h"

static int tmpfd = -1;
static char rootpath[128];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_quiet();
	tmpfd = open(fuzz_tmpdir(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (tmpfd < 0)
		abort();
	snprintf(rootpath, sizeof(rootpath), "%s/root", fuzz_tmpdir());
	return 0;
}

static int event(const struct rg_event *ev, void *userdata)
{
	fuzz_check_event(ev);
	(*(unsigned *)userdata)++;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct inventory *inv = NULL;
	struct inv_summary sum;
	struct json_object *report;
	struct rg_root root;
	unsigned events = 0;
	FILE *devnull;
	int dfd;

	FUZZ_ASSERT(fuzz_clear_dir(tmpfd) == 0, "cannot clear %s", fuzz_tmpdir());
	if (mkdirat(tmpfd, "root", 0755) < 0)
		abort();
	dfd = openat(tmpfd, "root", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		abort();
	fuzz_archive_extract(data, size, dfd);
	close(dfd);

	if (root_init(&root, rootpath) < 0)
		abort();
	FUZZ_ASSERT(!root.is_host, "the fuzz root is the host");
	FUZZ_ASSERT(inventory_collect(&root, INV_F_ALL, &inv) == 0, "inventory_collect failed");
	FUZZ_ASSERT(inv->n_devices <= INV_MAX_DEVICES && inv->n_modules <= INV_MAX_MODULES &&
			    inv->n_udp <= INV_MAX_UDP,
		    "%u devices, %u modules, %u udp", inv->n_devices, inv->n_modules, inv->n_udp);
	inventory_summary(inv, &sum);
	report = inventory_to_json(inv);
	FUZZ_ASSERT(report && json_object_to_json_string(report), "inventory_to_json failed");
	devnull = fopen("/dev/null", "we");
	if (!devnull)
		abort();
	inventory_print_text(report, devnull);
	fclose(devnull);
	json_object_put(report);
	FUZZ_ASSERT(inventory_foreach_event(inv, event, &events) == 0, "inventory_foreach_event");
	inventory_free(inv);
	root_done(&root);
	return 0;
}
