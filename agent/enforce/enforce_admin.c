/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Enforcement's administration without a running daemon (`rdmaguard enforce --status|--off`):
 * reads the pinned maps and links an earlier daemon left, and removes them. See enforce.h.
 */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bpf/events.h"
#include "common/log.h"
#include "common/macro.h"
#include "common/strutil.h"
#include "enforce.h"
#include "enforce-internal.h"

static bool path_exists(const char *path)
{
	return access(path, F_OK) == 0;
}

int enforce_unpin(const char *pin_dir, size_t *removed)
{
	static const char *const subs[] = {"links", "progs", "maps"};
	size_t n = 0;
	int r = 0;

	if (!pin_dir)
		pin_dir = ENFORCE_PIN_DIR;
	if (!path_exists(pin_dir)) {
		*removed = 0;
		return -ENOENT;
	}
	for (size_t s = 0; s < ARRAY_SIZE(subs); s++) {
		char dir[PATH_MAX], path[PATH_MAX + 256];
		struct dirent *de;
		DIR *d;

		if (!snprintf_ok(dir, sizeof(dir), "%s/%s", pin_dir, subs[s]))
			return -ENAMETOOLONG;
		d = opendir(dir);
		if (!d)
			continue;
		while ((de = readdir(d))) {
			if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
				continue;
			if (!snprintf_ok(path, sizeof(path), "%s/%s", dir, de->d_name))
				continue;
			if (unlink(path) == 0)
				n++;
			else if (r == 0)
				r = log_error_errno(-errno, "Failed to remove %s: %m", path);
		}
		closedir(d);
		if (rmdir(dir) < 0 && errno != ENOENT && r == 0)
			r = log_error_errno(-errno, "Failed to remove %s: %m", dir);
	}
	if (rmdir(pin_dir) < 0 && r == 0)
		r = log_error_errno(-errno, "Failed to remove %s: %m", pin_dir);
	*removed = n;
	return r;
}

static int64_t sum_counter(int fd, uint32_t key)
{
	int ncpu = libbpf_num_possible_cpus();
	uint64_t *v;
	int64_t sum = 0;

	if (ncpu <= 0 || !(v = calloc((size_t)ncpu, sizeof(*v))))
		return -1;
	if (bpf_map_lookup_elem(fd, &key, v) == 0)
		for (int i = 0; i < ncpu; i++)
			sum += (int64_t)v[i];
	else
		sum = -1;
	free(v);
	return sum;
}

int enforce_status(const char *pin_dir, struct json_object **ret)
{
	char path[PATH_MAX + 256], dir[PATH_MAX];
	int fds[ENFORCE_NMAPS];
	struct json_object *o, *links;
	struct rg_enf_state st = {0};
	__u32 zero = RG_ENF_STATE_DAEMON, one = RG_ENF_STATE_KERNEL, id = 0, k, next;
	size_t n_allow = 0, n_games = 0, n_pids = 0;
	struct dirent *de;
	DIR *d;

	if (!pin_dir)
		pin_dir = ENFORCE_PIN_DIR;
	snprintf_ok(path, sizeof(path), "%s/maps/%s", pin_dir, enforce_map_names[0]);
	if (!path_exists(path))
		return -ENOENT;
	o = json_object_new_object();
	if (!o)
		return -ENOMEM;
	for (size_t i = 0; i < ENFORCE_NMAPS; i++) {
		snprintf_ok(path, sizeof(path), "%s/maps/%s", pin_dir, enforce_map_names[i]);
		fds[i] = bpf_obj_get(path);
	}
	json_object_object_add(o, "pinned", json_object_new_boolean(1));
	json_object_object_add(o, "pin_dir", json_object_new_string(pin_dir));
	if (fds[0] >= 0 && bpf_map_lookup_elem(fds[0], &zero, &id) == 0 && id) {
		int inner = bpf_map_get_fd_by_id(id);
		struct rg_enf_key key, nk, *prev = NULL;
		struct rg_enf_val v;

		while (inner >= 0 && bpf_map_get_next_key(inner, prev, &nk) == 0) {
			key = nk;
			prev = &key;
			if (key.kind == RG_ENF_KEY_ALLOW)
				n_allow++;
			else if (key.kind == RG_ENF_KEY_GAME)
				n_games++;
			else if (key.kind == RG_ENF_KEY_CONFIG &&
				 bpf_map_lookup_elem(inner, &key, &v) == 0) {
				struct json_object *c = json_object_new_object();

				json_object_object_add(c, "enforce",
						       json_object_new_boolean(v.cfg.enforce));
				json_object_object_add(
				    c, "scope",
				    json_object_new_string(v.cfg.scope == RG_ENF_SCOPE_WHILE_GAME
							       ? "while_game"
							       : "always"));
				json_object_object_add(c, "lsm",
						       json_object_new_boolean(v.cfg.lsm));
				json_object_object_add(c, "kill",
						       json_object_new_int64(v.cfg.kill));
				json_object_object_add(
				    c, "role",
				    json_object_new_string(v.cfg.role ? "server" : "managed"));
				json_object_object_add(c, "generation",
						       json_object_new_int64(v.cfg.generation));
				json_object_object_add(o, "config", c);
			}
		}
		if (inner >= 0)
			close(inner);
	}
	json_object_object_add(o, "allow_executables", json_object_new_int64((int64_t)n_allow));
	json_object_object_add(o, "game_files", json_object_new_int64((int64_t)n_games));
	if (fds[1] >= 0) {
		__u32 *prev = NULL;

		while (bpf_map_get_next_key(fds[1], prev, &next) == 0 && n_pids < 1u << 20) {
			k = next;
			prev = &k;
			n_pids++;
		}
	}
	json_object_object_add(o, "game_processes", json_object_new_int64((int64_t)n_pids));
	if (fds[2] >= 0 && bpf_map_lookup_elem(fds[2], &one, &st) == 0)
		json_object_object_add(o, "games_live", json_object_new_int64(st.game_live));
	if (fds[2] >= 0 && bpf_map_lookup_elem(fds[2], &zero, &st) == 0) {
		json_object_object_add(o, "game_running_daemon",
				       json_object_new_boolean(st.game_daemon));
		json_object_object_add(o, "daemon_pid", json_object_new_int64(st.daemon_tgid));
		json_object_object_add(o, "abi", json_object_new_int64(st.abi));
	}
	if (fds[4] >= 0) {
		json_object_object_add(o, "denied",
				       json_object_new_int64(sum_counter(fds[4], RG_CNT_DENIED)));
		json_object_object_add(o, "killed",
				       json_object_new_int64(sum_counter(fds[4], RG_CNT_KILLED)));
		json_object_object_add(
		    o, "records_lost",
		    json_object_new_int64(sum_counter(fds[4], RG_CNT_RINGBUF_FULL)));
	}
	links = json_object_new_array();
	snprintf_ok(dir, sizeof(dir), "%s/%s", pin_dir, "links");
	d = opendir(dir);
	while (d && (de = readdir(d)))
		if (de->d_name[0] != '.')
			json_object_array_add(links, json_object_new_string(de->d_name));
	if (d)
		closedir(d);
	json_object_object_add(o, "links", links);
	for (size_t i = 0; i < ENFORCE_NMAPS; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	*ret = o;
	return 0;
}
