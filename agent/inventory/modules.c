/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Loaded RDMA kernel modules: /proc/modules ("name size refcount users state address") matched
 * against the RDMA module list (docs/verbs-abi.md#kernel-modules, plus the kernel ULPs that only load when RDMA is in
 * use). A module of the list with no /proc/modules line but a /sys/module/NAME directory is built
 * into the kernel. Software RDMA (rdma_rxe, siw, and rdmavt, the software verbs layer of hfi1/qib)
 * is marked soft.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inv_internal.h"
#include "common/number.h"
#include "common/root.h"
#include "common/strutil.h"

static const struct {
	const char *name;
	unsigned kind;
} rdma_modules[] = {
	{"ib_core", INV_MOD_CORE},     {"ib_uverbs", INV_MOD_CORE},	{"ib_umad", INV_MOD_CORE},
	{"ib_cm", INV_MOD_CORE},       {"iw_cm", INV_MOD_CORE},		{"rdma_cm", INV_MOD_CORE},
	{"rdma_ucm", INV_MOD_CORE},    {"mlx5_ib", INV_MOD_HW},		{"mlx4_ib", INV_MOD_HW},
	{"irdma", INV_MOD_HW},	       {"bnxt_re", INV_MOD_HW},		{"qedr", INV_MOD_HW},
	{"iw_cxgb4", INV_MOD_HW},      {"hns_roce_hw_v2", INV_MOD_HW},	{"efa", INV_MOD_HW},
	{"erdma", INV_MOD_HW},	       {"mana_ib", INV_MOD_HW},		{"vmw_pvrdma", INV_MOD_HW},
	{"ocrdma", INV_MOD_HW},	       {"hfi1", INV_MOD_HW},		{"ib_qib", INV_MOD_HW},
	{"ib_mthca", INV_MOD_HW},      {"usnic_verbs", INV_MOD_HW},	{"ionic_rdma", INV_MOD_HW},
	{"rdma_rxe", INV_MOD_SOFT},    {"siw", INV_MOD_SOFT},		{"rdmavt", INV_MOD_SOFT},
	{"ib_ipoib", INV_MOD_ULP},     {"ib_srp", INV_MOD_ULP},		{"ib_srpt", INV_MOD_ULP},
	{"ib_iser", INV_MOD_ULP},      {"ib_isert", INV_MOD_ULP},	{"rpcrdma", INV_MOD_ULP},
	{"svcrdma", INV_MOD_ULP},      {"nvme_rdma", INV_MOD_ULP},	{"nvmet_rdma", INV_MOD_ULP},
	{"rds_rdma", INV_MOD_ULP},     {"smc", INV_MOD_ULP},		{"ksmbd", INV_MOD_ULP},
};

const char *inv_module_kind_to_string(unsigned k)
{
	static const char *const names[] = {"core", "hardware", "soft", "ulp"};

	return k < ARRAY_SIZE(names) ? names[k] : "unknown";
}

static int module_index(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(rdma_modules); i++)
		if (strcmp(rdma_modules[i].name, name) == 0)
			return (int)i;
	return -1;
}

/* "rdma_rxe 135168 0 - Live 0xffffffffc0a00000 (O)" */
static int parse_line(char *line, struct inv_module *m)
{
	char *f[6], *save = NULL;
	unsigned n = 0;
	uint64_t size;
	uint32_t ref;

	for (char *t = strtok_r(line, " \t", &save); t && n < ARRAY_SIZE(f);
	     t = strtok_r(NULL, " \t", &save))
		f[n++] = t;
	if (n < 5)
		return -EINVAL;
	if (safe_atou64(f[1], 10, &size) < 0 || safe_atou32(f[2], 10, &ref) < 0)
		return -EINVAL;
	inv_strcpy(m->name, sizeof(m->name), f[0]);
	m->size = size;
	m->refcount = ref;
	if (strcmp(f[3], "-") != 0) {
		size_t l;

		inv_strcpy(m->users, sizeof(m->users), f[3]);
		l = strlen(m->users);
		if (l > 0 && m->users[l - 1] == ',')
			m->users[l - 1] = 0;
	}
	inv_strcpy(m->state, sizeof(m->state), f[4]);
	return 0;
}

void inv_modules_collect(const struct rg_root *root, struct inventory *inv)
{
	struct line_reader *lr;
	bool seen[ARRAY_SIZE(rdma_modules)] = {0};
	unsigned lineno = 0;
	bool read_ok = false;
	size_t i;
	int r;

	inv->s_modules.collected = true;
	inv->modules = calloc(INV_MAX_MODULES, sizeof(*inv->modules));
	lr = malloc(sizeof(*lr));
	if (!inv->modules || !lr) {
		free(lr);
		inv_section_error(&inv->s_modules, "out of memory");
		return;
	}
	r = line_reader_open(lr, root, "/proc/modules");
	if (r == -ENOENT) {
		/* Then whatever RDMA code there is, is built in. */
		read_ok = true;
		inv_section_note(&inv->s_modules,
				 "/proc/modules does not exist: a kernel without loadable modules");
	} else if (r < 0) {
		inv_section_error(&inv->s_modules, "/proc/modules: %s", read_strerror(r));
	} else {
		read_ok = true;
		for (;;) {
			struct inv_module m = {0};
			char *line;
			bool overlong;
			int k;

			r = line_reader_next(lr, &line, &overlong);
			if (r < 0) {
				inv_section_error(&inv->s_modules, "/proc/modules: %s",
						  read_strerror(r));
				read_ok = false;
				break;
			}
			if (r == 0)
				break;
			if (++lineno > INV_MAX_MODULES_SCAN) {
				inv_section_truncated(&inv->s_modules,
						      "/proc/modules: more than %u lines, the rest "
						      "not examined",
						      INV_MAX_MODULES_SCAN);
				break;
			}
			inv->modules_scanned++;
			if (overlong || parse_line(line, &m) < 0) {
				inv_section_entry_error(&inv->s_modules,
							"/proc/modules:%u: not a module line", lineno);
				continue;
			}
			k = module_index(m.name);
			if (k < 0 || seen[k])
				continue;
			seen[k] = true;
			if (inv->n_modules >= INV_MAX_MODULES)
				continue;
			m.kind = rdma_modules[k].kind;
			m.soft = m.kind == INV_MOD_SOFT;
			inv->modules[inv->n_modules++] = m;
		}
		line_reader_close(lr);
	}
	free(lr);

	/* Built-in (=y) RDMA code: /sys/module/NAME without a /proc/modules line. */
	for (i = 0; i < ARRAY_SIZE(rdma_modules) && inv->n_modules < INV_MAX_MODULES; i++) {
		char path[128];
		struct stat st;

		if (seen[i])
			continue;
		if (inv_path(path, sizeof(path), "/sys/module/%s", rdma_modules[i].name) < 0)
			continue;
		if (root_stat(root, path, &st, true) < 0 || !S_ISDIR(st.st_mode))
			continue;
		/* A loaded module also has /sys/module/NAME; only trust this when /proc/modules
		 * could be read. */
		if (read_ok) {
			struct inv_module *m = &inv->modules[inv->n_modules++];

			memset(m, 0, sizeof(*m));
			inv_strcpy(m->name, sizeof(m->name), rdma_modules[i].name);
			m->kind = rdma_modules[i].kind;
			m->soft = m->kind == INV_MOD_SOFT;
			m->builtin = true;
			strcpy(m->state, "builtin");
		}
	}
}

struct json_object *inv_modules_to_json(const struct inventory *inv)
{
	struct json_object *sec = json_object_new_object(), *a = json_object_new_array();
	unsigned i;

	json_add_section(sec, &inv->s_modules);
	json_add_int(sec, "scanned", inv->modules_scanned);
	for (i = 0; i < inv->n_modules; i++) {
		const struct inv_module *m = &inv->modules[i];
		struct json_object *o = json_object_new_object(), *u;

		json_add_str(o, "name", m->name);
		json_add_str(o, "kind", inv_module_kind_to_string(m->kind));
		json_add_bool(o, "soft", m->soft);
		json_add_bool(o, "builtin", m->builtin);
		if (!m->builtin) {
			json_add_u64(o, "size", m->size);
			json_add_int(o, "refcount", m->refcount);
		}
		json_add_str_nonempty(o, "state", m->state);
		u = json_object_new_array();
		if (m->users[0]) {
			char copy[256], *t, *save = NULL;

			strscpy_ok(copy, m->users, sizeof(copy));
			for (t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save))
				json_arr_add(u, json_object_new_string(t));
		}
		json_add_obj(o, "used_by", u);
		json_arr_add(a, o);
	}
	json_add_obj(sec, "items", a);
	return sec;
}
