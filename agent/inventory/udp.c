/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Sockets bound to the RoCE v2 port, UDP 4791, from /proc/net/udp and /proc/net/udp6. rdma_rxe
 * opens one as a kernel socket (uid 0, held by no process) when its first link is created; a RoCE NIC does its
 * UDP in hardware and shows none. Addresses are printed by the kernel as the in-memory 32-bit words
 * in hex (%08X), so they are read back the same way.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "inv_internal.h"
#include "common/number.h"
#include "common/root.h"
#include "common/strutil.h"

#define ROCE_V2_PORT 4791

static int parse_hex_words(const char *s, size_t nwords, uint8_t *out)
{
	size_t i;

	if (strlen(s) != nwords * 8)
		return -EINVAL;
	for (i = 0; i < nwords; i++) {
		char word[9];
		uint32_t v;

		memcpy(word, s + i * 8, 8);
		word[8] = 0;
		if (safe_atou32(word, 16, &v) < 0)
			return -EINVAL;
		memcpy(out + i * 4, &v, 4);
	}
	return 0;
}

/* "  12: 00000000:12B7 00000000:0000 07 00000000:00000000 00:00000000 00000000     0        0 0 ..." */
static int parse_line(char *line, bool v6, struct inv_udp *u)
{
	char *f[10], *save = NULL, *t, *colon;
	unsigned n = 0;
	uint32_t port, st;
	uint8_t raw[16] = {0};

	for (t = strtok_r(line, " \t", &save); t && n < ARRAY_SIZE(f); t = strtok_r(NULL, " \t", &save))
		f[n++] = t;
	if (n < 10 || !endswith(f[0], ":"))
		return -EINVAL;
	colon = strchr(f[1], ':');
	if (!colon)
		return -EINVAL;
	*colon = 0;
	if (parse_hex_words(f[1], v6 ? 4 : 1, raw) < 0 || safe_atou32(colon + 1, 16, &port) < 0 ||
	    port > 0xffff || safe_atou32(f[3], 16, &st) < 0 || st > 0xff)
		return -EINVAL;
	memset(u, 0, sizeof(*u));
	u->v6 = v6;
	if (v6) {
		memcpy(u->addr, raw, 16);
	} else {
		u->addr[10] = u->addr[11] = 0xff;
		memcpy(u->addr + 12, raw, 4);
	}
	u->port = (uint16_t)port;
	u->state = (uint8_t)st;
	if (safe_atou32(f[7], 10, &u->uid) < 0 || safe_atou64(f[9], 10, &u->inode) < 0)
		return -EINVAL;
	return 0;
}

static void read_table(const struct rg_root *root, struct inventory *inv, const char *path,
		       bool v6)
{
	struct line_reader *lr = malloc(sizeof(*lr));
	unsigned lineno = 0;
	char *line;
	bool overlong;
	int r;

	if (!lr)
		return;
	r = line_reader_open(lr, root, path);
	if (r < 0) {
		/* No IPv6 (or no /proc/net at all in an image) is not an error. */
		if (r != -ENOENT)
			inv_section_error(&inv->s_udp, "%s: %s", path, read_strerror(r));
		free(lr);
		return;
	}
	while ((r = line_reader_next(lr, &line, &overlong)) > 0) {
		struct inv_udp u;

		if (++lineno == 1)
			continue; /* the header */
		if (lineno > INV_MAX_UDP_SCAN) {
			inv_section_truncated(&inv->s_udp, "%s: more than %u lines, the rest not examined",
					      path, INV_MAX_UDP_SCAN);
			break;
		}
		if (overlong || parse_line(line, v6, &u) < 0) {
			inv_section_entry_error(&inv->s_udp, "%s:%u: not a socket line", path,
						lineno);
			continue;
		}
		if (u.port != ROCE_V2_PORT)
			continue;
		if (inv->n_udp >= INV_MAX_UDP) {
			if (inv->s_udp.truncated.n == 0)
				inv_section_truncated(&inv->s_udp, "udp 4791 sockets: more than %u",
						      INV_MAX_UDP);
			continue;
		}
		inv->udp[inv->n_udp++] = u;
	}
	if (r < 0)
		inv_section_error(&inv->s_udp, "%s: %s", path, read_strerror(r));
	line_reader_close(lr);
	free(lr);
}

/*
 * Which process holds each socket (an fd "socket:[INODE]"): none means the kernel opened it, as
 * rxe does. Only run when there are 4791 sockets at all; bounded like the process scan.
 */
static void find_owners(const struct rg_root *root, struct inventory *inv)
{
	unsigned scanned = 0, left = inv->n_udp;
	struct dirent *de;
	DIR *d;

	d = root_opendir(root, "/proc");
	if (!d)
		return;
	while (left > 0 && (de = readdir(d))) {
		char path[64], link[128];
		struct dirent *fe;
		uint32_t pid;
		unsigned fds = 0;
		DIR *fdd;

		if (safe_atou32(de->d_name, 10, &pid) < 0 || ++scanned > PROCS_MAX_SCAN)
			continue;
		snprintf(path, sizeof(path), "/proc/%u/fd", pid);
		fdd = root_opendir(root, path);
		if (!fdd)
			continue;
		while (left > 0 && (fe = readdir(fdd)) && ++fds <= PROCS_MAX_FD_SCAN) {
			char fpath[96];
			uint64_t ino;
			int n = -1;

			if (fe->d_name[0] == '.' ||
			    inv_path(fpath, sizeof(fpath), "%s/%s", path, fe->d_name) < 0 ||
			    root_readlink(root, fpath, link, sizeof(link)) < 0 ||
			    sscanf(link, "socket:[%" SCNu64 "]%n", &ino, &n) != 1 || n < 0 ||
			    link[n] != 0)
				continue;
			for (unsigned i = 0; i < inv->n_udp; i++)
				if (inv->udp[i].inode == ino && !inv->udp[i].owner_pid) {
					inv->udp[i].owner_pid = pid;
					left--;
				}
		}
		closedir(fdd);
	}
	closedir(d);
}

void inv_udp_collect(const struct rg_root *root, struct inventory *inv)
{
	inv->s_udp.collected = true;
	inv->udp = calloc(INV_MAX_UDP, sizeof(*inv->udp));
	if (!inv->udp) {
		inv_section_error(&inv->s_udp, "out of memory");
		return;
	}
	read_table(root, inv, "/proc/net/udp", false);
	read_table(root, inv, "/proc/net/udp6", true);
	if (inv->n_udp)
		find_owners(root, inv);
}

struct json_object *inv_udp_to_json(const struct inventory *inv)
{
	struct json_object *sec = json_object_new_object(), *a = json_object_new_array();
	unsigned i;

	json_add_section(sec, &inv->s_udp);
	json_add_int(sec, "port", ROCE_V2_PORT);
	for (i = 0; i < inv->n_udp; i++) {
		const struct inv_udp *u = &inv->udp[i];
		struct json_object *o = json_object_new_object();
		char buf[64], v4[16];

		json_add_str(o, "protocol", u->v6 ? "udp6" : "udp");
		if (gid_to_ipv4(u->addr, v4))
			json_add_str(o, "local_address", v4);
		else {
			gid_to_string(u->addr, buf);
			json_add_str(o, "local_address", buf);
		}
		json_add_int(o, "local_port", u->port);
		json_add_int(o, "state", u->state);
		json_add_int(o, "uid", u->uid);
		json_add_u64(o, "inode", u->inode);
		/* No process holds it: the kernel's own (rxe's). */
		json_add_bool(o, "kernel_socket", u->owner_pid == 0);
		if (u->owner_pid) {
			const struct proc_info *p = proc_table_find(inv->procs, u->owner_pid);

			json_add_int(o, "owner_pid", u->owner_pid);
			if (p)
				json_add_str(o, "owner_comm", p->comm);
		}
		json_arr_add(a, o);
	}
	json_add_obj(sec, "sockets", a);
	return sec;
}
