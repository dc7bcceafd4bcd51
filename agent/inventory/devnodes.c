/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The doors into RDMA from userspace: /dev/infiniband/<node> (uverbsN char 231:192+N, umadN 231:N,
 * issmN 231:64+N, rdma_cm misc 10:dyn), the class devices that name the RDMA device behind each
 * (/sys/class/infiniband_verbs/uverbsN/{ibdev,abi_version,dev}, /sys/class/infiniband_mad/
 * {umad,issm}N/{ibdev,port,dev}) and /sys/class/misc/rdma_cm/dev.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "inv_internal.h"
#include "common/root.h"
#include "common/strutil.h"

#define DEV_IB	  "/dev/infiniband"
#define SYS_VERBS "/sys/class/infiniband_verbs"
#define SYS_MAD	  "/sys/class/infiniband_mad"

static uint32_t node_kind_of(const char *name)
{
	if (startswith(name, "uverbs"))
		return RG_NODE_UVERBS;
	if (strcmp(name, "rdma_cm") == 0)
		return RG_NODE_RDMA_CM;
	if (startswith(name, "umad"))
		return RG_NODE_UMAD;
	if (startswith(name, "issm"))
		return RG_NODE_ISSM;
	return RG_NODE_OTHER;
}

static void read_devnodes(const struct rg_root *root, struct inventory *inv)
{
	char **names = NULL, path[600];
	bool truncated;
	int n, i, r;

	n = root_list_dir(root, DEV_IB, INV_MAX_DEVNODES, &names, &truncated);
	if (n == -ENOENT)
		return;
	if (n < 0) {
		inv_section_error(&inv->s_devnodes, DEV_IB ": %s", read_strerror(n));
		return;
	}
	inv->devnodes_dir_present = true;
	if (truncated)
		inv_section_truncated(&inv->s_devnodes, DEV_IB ": more than %u entries",
				      INV_MAX_DEVNODES);
	inv->devnodes = calloc(n > 0 ? (size_t)n : 1, sizeof(*inv->devnodes));
	if (!inv->devnodes) {
		strv_free(names, (unsigned)n);
		inv_section_error(&inv->s_devnodes, "out of memory");
		return;
	}
	for (i = 0; i < n; i++) {
		struct inv_devnode *dn = &inv->devnodes[inv->n_devnodes];
		struct stat st;

		if (inv_path(path, sizeof(path), DEV_IB "/%s", names[i]) < 0)
			continue;
		inv_strcpy(dn->name, sizeof(dn->name), names[i]);
		dn->kind = node_kind_of(names[i]);
		r = root_stat(root, path, &st, false);
		if (r < 0) {
			inv_section_entry_error(&inv->s_devnodes, "%s: %s", path, read_strerror(r));
			continue;
		}
		inv->n_devnodes++;
		if (S_ISCHR(st.st_mode))
			strcpy(dn->type, "char");
		else if (S_ISBLK(st.st_mode))
			strcpy(dn->type, "block");
		else if (S_ISLNK(st.st_mode))
			strcpy(dn->type, "link");
		else if (S_ISDIR(st.st_mode))
			strcpy(dn->type, "dir");
		else if (S_ISREG(st.st_mode))
			strcpy(dn->type, "file");
		else
			strcpy(dn->type, "other");
		if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)) {
			dn->major = major(st.st_rdev);
			dn->minor = minor(st.st_rdev);
		}
		if (S_ISLNK(st.st_mode))
			(void)root_readlink(root, path, dn->target, sizeof(dn->target));
		str_sanitize(dn->target);
		dn->mode = st.st_mode & 07777;
		dn->uid = st.st_uid;
		dn->gid = st.st_gid;
	}
	strv_free(names, (unsigned)n);
}

static void read_classdevs(const struct rg_root *root, struct inventory *inv, const char *dir,
			   bool mad)
{
	char **names = NULL, path[600];
	bool truncated;
	int n, i;

	if (inv_path(path, sizeof(path), "%s/abi_version", dir) == 0)
		(void)inv_attr(root, NULL, INV_ATTR_OPTIONAL, path, mad ? inv->umad_abi : inv->uverbs_abi,
			       sizeof(inv->uverbs_abi));
	n = root_list_dir(root, dir, INV_MAX_CLASSDEVS, &names, &truncated);
	if (n == -ENOENT)
		return;
	if (n < 0) {
		inv_section_error(&inv->s_devnodes, "%s: %s", dir, read_strerror(n));
		return;
	}
	if (truncated)
		inv_section_truncated(&inv->s_devnodes, "%s: more than %u entries", dir,
				      INV_MAX_CLASSDEVS);
	for (i = 0; i < n; i++) {
		struct inv_classdev *c;

		if (strcmp(names[i], "abi_version") == 0)
			continue;
		if (inv->n_uverbs + inv->n_umad >= 2 * INV_MAX_CLASSDEVS)
			break;
		c = &inv->classdevs[inv->n_uverbs + inv->n_umad];
		memset(c, 0, sizeof(*c));
		if (mad)
			inv->n_umad++;
		else
			inv->n_uverbs++;
		inv_strcpy(c->name, sizeof(c->name), names[i]);
#define ATTR(a) (inv_path(path, sizeof(path), "%s/%s/" a, dir, names[i]) < 0 ? "" : path)
		(void)inv_attr(root, &c->errors, INV_ATTR_REQUIRED, ATTR("ibdev"), c->ibdev,
			       sizeof(c->ibdev));
		(void)inv_attr(root, &c->errors, INV_ATTR_REQUIRED, ATTR("dev"), c->dev,
			       sizeof(c->dev));
		if (mad)
			(void)inv_attr_u32(root, &c->errors, INV_ATTR_REQUIRED, ATTR("port"), 10,
					   &c->port);
		else
			(void)inv_attr(root, &c->errors, INV_ATTR_OPTIONAL, ATTR("abi_version"),
				       c->abi_version, sizeof(c->abi_version));
#undef ATTR
	}
	strv_free(names, (unsigned)n);
}

void inv_devnodes_collect(const struct rg_root *root, struct inventory *inv)
{
	inv->s_devnodes.collected = true;
	read_devnodes(root, inv);
	inv->classdevs = calloc(2 * INV_MAX_CLASSDEVS, sizeof(*inv->classdevs));
	if (!inv->classdevs) {
		inv_section_error(&inv->s_devnodes, "out of memory");
		return;
	}
	read_classdevs(root, inv, SYS_VERBS, false);
	read_classdevs(root, inv, SYS_MAD, true);
	(void)inv_attr(root, NULL, INV_ATTR_OPTIONAL, "/sys/class/misc/rdma_cm/dev", inv->rdma_cm_dev,
		       sizeof(inv->rdma_cm_dev));
	if (!inv->devnodes_dir_present && inv->n_uverbs == 0 && inv->n_umad == 0)
		inv_section_note(&inv->s_devnodes, "no " DEV_IB " and no uverbs/umad class devices");
}

struct json_object *inv_devnodes_to_json(const struct inventory *inv)
{
	struct json_object *sec = json_object_new_object(), *a, *o;
	char buf[32];
	unsigned i;

	json_add_section(sec, &inv->s_devnodes);
	json_add_bool(sec, "dev_infiniband_present", inv->devnodes_dir_present);
	a = json_object_new_array();
	for (i = 0; i < inv->n_devnodes; i++) {
		const struct inv_devnode *dn = &inv->devnodes[i];

		o = json_object_new_object();
		json_add_str(o, "name", dn->name);
		json_add_str(o, "type", dn->type);
		json_add_str(o, "kind", node_kind_to_string(dn->kind));
		if (strcmp(dn->type, "char") == 0 || strcmp(dn->type, "block") == 0) {
			json_add_int(o, "major", dn->major);
			json_add_int(o, "minor", dn->minor);
		}
		snprintf(buf, sizeof(buf), "%04o", dn->mode);
		json_add_str(o, "mode", buf);
		json_add_int(o, "uid", dn->uid);
		json_add_int(o, "gid", dn->gid);
		json_add_bool(o, "world_accessible", (dn->mode & 06) != 0);
		json_add_str_nonempty(o, "target", dn->target);
		json_arr_add(a, o);
	}
	json_add_obj(sec, "items", a);

	a = json_object_new_array();
	for (i = 0; i < inv->n_uverbs; i++) {
		const struct inv_classdev *c = &inv->classdevs[i];

		o = json_object_new_object();
		json_add_str(o, "name", c->name);
		json_add_str_nonempty(o, "ibdev", c->ibdev);
		json_add_str_nonempty(o, "dev", c->dev);
		json_add_str_nonempty(o, "abi_version", c->abi_version);
		json_add_errors(o, &c->errors);
		json_arr_add(a, o);
	}
	json_add_obj(sec, "uverbs", a);
	json_add_str_nonempty(sec, "uverbs_abi_version", inv->uverbs_abi);
	a = json_object_new_array();
	for (i = 0; i < inv->n_umad; i++) {
		const struct inv_classdev *c = &inv->classdevs[inv->n_uverbs + i];

		o = json_object_new_object();
		json_add_str(o, "name", c->name);
		json_add_str_nonempty(o, "ibdev", c->ibdev);
		json_add_int(o, "port", c->port);
		json_add_str_nonempty(o, "dev", c->dev);
		json_add_errors(o, &c->errors);
		json_arr_add(a, o);
	}
	json_add_obj(sec, "umad", a);
	json_add_str_nonempty(sec, "umad_abi_version", inv->umad_abi);
	json_add_str_nonempty(sec, "rdma_cm_dev", inv->rdma_cm_dev);
	return sec;
}
