/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The inventory as a whole: runs the sources, builds the report body, walks the facts as events. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>

#include "config.h"
#include "inv_internal.h"
#include "hw/hw_json.h"
#include "hw/iommu.h"
#include "common/clock.h"
#include "common/root.h"
#include "common/timestamp.h"

#define SCHEMA_VERSION 1

static const char *const host_only =
	"cannot be redirected below --root (it asks the running kernel); run without --root";
static const char *const no_ib_core =
	"RDMA core (ib_core) not loaded: /sys/class/infiniband does not exist; not probing, since "
	"opening RDMA netlink or libibverbs would load it";

void inv_netlink_collect(struct inventory *inv)
{
	int r;

	inv->s_netlink.collected = true;
	r = nldev_dump(&inv->nl);
	if (r == -EPROTONOSUPPORT) {
		inv_section_note(&inv->s_netlink,
				 "RDMA netlink is not available: no RDMA support in this kernel");
		return;
	}
	if (r < 0) {
		inv_section_error(&inv->s_netlink, "RDMA netlink: %s", strerror(-r));
		return;
	}
	for (unsigned i = 0; i < inv->nl->n_devs; i++) {
		struct inv_device *d =
			inv_device_get(inv, inv->nl->devs[i].name, INV_SRC_NETLINK, true);

		if (d)
			d->nl_index = inv->nl->devs[i].index;
		else
			inv_section_truncated(&inv->s_netlink, "devices: more than %u",
					      INV_MAX_DEVICES);
	}
	if (inv->nl->n_devs == 0)
		inv_section_note(&inv->s_netlink, "the kernel lists no RDMA device");
}

static void read_host(const struct rg_root *root, struct inventory *inv)
{
	struct utsname u;

	if (root->is_host && uname(&u) == 0) {
		inv_strcpy(inv->hostname, sizeof(inv->hostname), u.nodename);
		inv_strcpy(inv->kernel_release, sizeof(inv->kernel_release), u.release);
		inv_strcpy(inv->kernel_version, sizeof(inv->kernel_version), u.version);
		return;
	}
	/* An image or a fixture: what its /proc (if any) or /etc says. */
	if (root_read_line(root, "/proc/sys/kernel/hostname", inv->hostname, sizeof(inv->hostname)) <
	    0)
		(void)root_read_line(root, "/etc/hostname", inv->hostname, sizeof(inv->hostname));
	(void)root_read_line(root, "/proc/sys/kernel/osrelease", inv->kernel_release,
			     sizeof(inv->kernel_release));
	(void)root_read_line(root, "/proc/sys/kernel/version", inv->kernel_version,
			     sizeof(inv->kernel_version));
}

static bool ib_core_present(const struct rg_root *root)
{
	struct stat st;

	return root_stat(root, "/sys/class/infiniband", &st, true) == 0;
}

int inventory_collect(const struct rg_root *root, unsigned flags, struct inventory **ret)
{
	struct inventory *inv;
	int r;

	if (!root || !ret || root->fd < 0)
		return -EINVAL;
	inv = calloc(1, sizeof(*inv));
	if (!inv)
		return -ENOMEM;
	inv->devices = calloc(INV_MAX_DEVICES, sizeof(*inv->devices));
	if (!inv->devices) {
		free(inv);
		return -ENOMEM;
	}
	inv_strcpy(inv->root, sizeof(inv->root), root->path);
	inv->is_host = root->is_host;
	inv->flags = flags;
	inv->collected_ns = now_realtime_ns();
	read_host(root, inv);

	if (flags & INV_F_DEVICES)
		inv_sysfs_collect(root, inv);
	if (flags & INV_F_VERBS) {
		if (!root->is_host)
			inv->s_verbs.skipped = host_only;
		else if (!ib_core_present(root))
			inv->s_verbs.skipped = no_ib_core;
		else
			inv_verbs_collect(inv);
	}
	if (flags & INV_F_NETLINK) {
		if (!root->is_host)
			inv->s_netlink.skipped = host_only;
		else if (!ib_core_present(root))
			inv->s_netlink.skipped = no_ib_core;
		else
			inv_netlink_collect(inv);
	}
	/* The hardware layer reads PCI, the IOMMU and Thunderbolt once; the "pci" and "dma"
	 * sections are rendered from its scan, after the devices (to tie functions to them). */
	if (flags & (INV_F_HW | INV_F_PCI | INV_F_DMA)) {
		r = hw_scan(root, &inv->hw);
		if (r < 0) {
			inventory_free(inv);
			return r;
		}
	}
	if (flags & (INV_F_PCI | INV_F_DMA))
		inv_pci_collect(inv);
	if (flags & INV_F_DMA)
		inv_dma_collect(inv);
	if (flags & INV_F_DEVNODES)
		inv_devnodes_collect(root, inv);
	if (flags & INV_F_MODULES)
		inv_modules_collect(root, inv);
	if (flags & INV_F_PROCS) {
		inv->s_procs.collected = true;
		r = procs_scan(root, PROCS_F_ALL, &inv->procs);
		if (r < 0) {
			inventory_free(inv);
			return r;
		}
		if (inv->procs->error)
			inv_section_error(&inv->s_procs, "/proc: %s", read_strerror(inv->procs->error));
		if (inv->procs->truncated)
			inv_section_truncated(&inv->s_procs,
					      "processes: more than %u, the rest not examined",
					      PROCS_MAX);
		{
			unsigned denied = 0;

			for (size_t i = 0; i < inv->procs->n; i++)
				denied += inv->procs->procs[i].fd_error == -EACCES ||
					  inv->procs->procs[i].maps_error == -EACCES;
			if (denied)
				inv_section_note(&inv->s_procs,
						 "%u processes' fds or maps could not be read "
						 "(permission denied): run as root to see them all",
						 denied);
		}
	}
	if (flags & INV_F_UDP)
		inv_udp_collect(root, inv);
	*ret = inv;
	return 0;
}

void inventory_free(struct inventory *inv)
{
	unsigned i;

	if (!inv)
		return;
	for (i = 0; i < inv->n_devices; i++)
		inv_device_free(&inv->devices[i]);
	free(inv->devices);
	for (i = 0; i < inv->n_pci; i++)
		inv_pci_free(&inv->pci[i]);
	free(inv->pci);
	for (i = 0; i < inv->dma.n_tb; i++)
		inv_errors_free(&inv->dma.tb[i].errors);
	free(inv->dma.tb);
	free(inv->dma.cmdline_iommu);
	inv_errors_free(&inv->dma.errors);
	free(inv->devnodes);
	if (inv->classdevs)
		for (i = 0; i < inv->n_uverbs + inv->n_umad; i++)
			inv_errors_free(&inv->classdevs[i].errors);
	free(inv->classdevs);
	free(inv->modules);
	nldev_tables_free(inv->nl);
	proc_table_free(inv->procs);
	free(inv->udp);
	hw_scan_free(inv->hw);
	inv_section_free(&inv->s_devices);
	inv_section_free(&inv->s_pci);
	inv_section_free(&inv->s_dma);
	inv_section_free(&inv->s_devnodes);
	inv_section_free(&inv->s_modules);
	inv_section_free(&inv->s_verbs);
	inv_section_free(&inv->s_netlink);
	inv_section_free(&inv->s_procs);
	inv_section_free(&inv->s_udp);
	free(inv);
}

static unsigned errs(const struct inv_errors *e)
{
	return e->n + e->dropped;
}

static unsigned section_errs(const struct inv_section *s)
{
	return (s->error ? 1 : 0) + errs(&s->errors);
}

void inventory_summary(const struct inventory *inv, struct inv_summary *s)
{
	unsigned i, k;

	memset(s, 0, sizeof(*s));
	s->devices = inv->n_devices;
	for (i = 0; i < inv->n_devices; i++) {
		const struct inv_device *d = &inv->devices[i];

		s->soft_devices += d->soft;
		s->links += d->n_ports;
		if (d->soft)
			s->soft_links += d->n_ports;
		s->errors += errs(&d->errors);
		for (k = 0; k < d->n_ports; k++) {
			s->ports_active += d->ports[k].state == 4;
			s->errors += errs(&d->ports[k].errors);
		}
		s->errors += d->verbs.error[0] != 0;
	}
	for (i = 0; i < inv->n_pci; i++) {
		const struct inv_pci *p = &inv->pci[i];

		if (p->rdma) {
			s->pci_rdma++;
			s->pci_rdma_no_driver += !p->driver[0];
		}
		s->dma_functions += p->dma;
		s->errors += errs(&p->errors);
	}
	for (i = 0; i < inv->dma.n_tb; i++)
		s->errors += errs(&inv->dma.tb[i].errors);
	s->errors += errs(&inv->dma.errors);
	s->device_nodes = inv->n_devnodes;
	s->uverbs = inv->n_uverbs;
	for (i = 0; inv->classdevs && i < inv->n_uverbs + inv->n_umad; i++)
		s->errors += errs(&inv->classdevs[i].errors);
	s->modules = inv->n_modules;
	for (i = 0; i < inv->n_modules; i++)
		s->soft_modules += inv->modules[i].soft;
	if (inv->nl) {
		s->qps = inv->nl->n[NLDEV_T_QP];
		s->mrs = inv->nl->n[NLDEV_T_MR];
		s->pds = inv->nl->n[NLDEV_T_PD];
		s->contexts = inv->nl->n[NLDEV_T_CTX];
		s->cm_ids = inv->nl->n[NLDEV_T_CM_ID];
		s->errors += inv->nl->n_errors + inv->nl->errors_dropped;
	}
	if (inv->procs) {
		s->processes_scanned = (unsigned)inv->procs->n;
		for (i = 0; i < inv->procs->n; i++) {
			s->rdma_processes += proc_info_uses_rdma(&inv->procs->procs[i]);
			s->errors += inv->procs->procs[i].n_errors;
		}
	}
	s->udp_4791 = inv->n_udp;
	s->errors += section_errs(&inv->s_devices) + section_errs(&inv->s_pci) +
		     section_errs(&inv->s_dma) + section_errs(&inv->s_devnodes) +
		     section_errs(&inv->s_modules) + section_errs(&inv->s_verbs) +
		     section_errs(&inv->s_netlink) + section_errs(&inv->s_procs) +
		     section_errs(&inv->s_udp);

	/* A known vendor's NIC alone (an Intel desktop NIC) does not make RDMA present. */
	for (i = 0; i < inv->n_pci; i++)
		if (inv->pci[i].rdma && (inv->pci[i].evidence & ~(unsigned)INV_PCI_EV_VENDOR))
			s->rdma_present = true;
	/* The machine has an RDMA stack. A process that maps libibverbs (qemu does, for pvrdma)
	 * does not make one: that is rdma_processes. */
	if (s->devices || s->modules || s->device_nodes || s->uverbs || s->qps || s->mrs ||
	    s->udp_4791)
		s->rdma_present = true;
}

/* Processes */

static struct json_object *chain_to_json(const struct proc_table *t, const struct proc_info *p)
{
	struct json_object *a = json_object_new_array();
	uint32_t pid = p->ppid;
	unsigned depth;

	for (depth = 0; pid != 0 && depth < 32; depth++) {
		const struct proc_info *q = proc_table_find(t, pid);
		struct json_object *o;

		if (!q)
			break;
		o = json_object_new_object();
		json_add_int(o, "pid", q->pid);
		json_add_str(o, "comm", q->comm);
		json_add_str(o, "exe", q->exe);
		json_add_u64(o, "start_boot_ns", q->start_boot_ns);
		json_add_int(o, "uid", q->uid);
		json_arr_add(a, o);
		if (q->ppid == q->pid)
			break;
		pid = q->ppid;
	}
	return a;
}

static struct json_object *args_to_json(const struct proc_info *p)
{
	struct json_object *a = json_object_new_array();
	size_t off = 0;

	while (p->cmdline && off < p->cmdline_len) {
		size_t n = strnlen(p->cmdline + off, p->cmdline_len - off);

		json_arr_add(a, json_object_new_string_len(p->cmdline + off, (int)n));
		off += n + 1;
	}
	return a;
}

static struct json_object *proc_to_json(const struct proc_table *t, const struct proc_info *p)
{
	struct json_object *o = json_object_new_object(), *a;
	unsigned i;

	json_add_int(o, "pid", p->pid);
	json_add_int(o, "ppid", p->ppid);
	json_add_u64(o, "start_boot_ns", p->start_boot_ns);
	json_add_int(o, "uid", p->uid);
	json_add_int(o, "euid", p->euid);
	json_add_int(o, "session", p->sid);
	json_add_str(o, "comm", p->comm);
	if (p->exe)
		json_add_str(o, "exe", p->exe);
	else
		json_add_obj(o, "exe", NULL);
	if (p->exe_deleted)
		json_add_bool(o, "exe_deleted", true);
	json_add_u64(o, "exe_inode", p->exe_ino);
	json_add_obj(o, "cmdline", args_to_json(p));
	if (p->cmdline_truncated)
		json_add_bool(o, "cmdline_truncated", true);
	a = json_object_new_array();
	for (i = 0; i < p->n_fds; i++) {
		struct json_object *f = json_object_new_object();

		json_add_int(f, "fd", p->fds[i].fd);
		json_add_str(f, "path", p->fds[i].path);
		json_add_str(f, "kind", node_kind_to_string(p->fds[i].node_kind));
		json_add_str_nonempty(f, "device", p->fds[i].device);
		if (p->fds[i].minor)
			json_add_int(f, "minor", p->fds[i].minor);
		json_arr_add(a, f);
	}
	json_add_obj(o, "rdma_fds", a);
	if (p->fds_truncated)
		json_add_bool(o, "fds_truncated", true);
	a = json_object_new_array();
	for (i = 0; i < p->n_libs; i++) {
		struct json_object *l = json_object_new_object();

		json_add_str(l, "path", p->libs[i].path);
		json_add_str(l, "kind", lib_kind_to_string(p->libs[i].kind));
		json_add_bool(l, "executable", p->libs[i].executable);
		json_add_u64(l, "inode", p->libs[i].ino);
		json_add_u64(l, "device", p->libs[i].dev);
		json_arr_add(a, l);
	}
	json_add_obj(o, "libraries", a);
	if (p->libs_truncated)
		json_add_bool(o, "libraries_truncated", true);
	if (p->maps_truncated)
		json_add_bool(o, "maps_truncated", true);
	json_add_int(o, "uverbs_mappings", p->uverbs_mappings);
	json_add_obj(o, "parent_chain", chain_to_json(t, p));
	if (p->n_errors) {
		a = json_object_new_array();
		for (i = 0; i < p->n_errors; i++)
			json_arr_add(a, json_object_new_string(p->errors[i]));
		json_add_obj(o, "errors", a);
	}
	return o;
}

struct json_object *inv_procs_to_json(const struct inventory *inv)
{
	struct json_object *sec = json_object_new_object(), *items = json_object_new_array();
	struct json_object *errors = NULL;
	const struct proc_table *t = inv->procs;
	unsigned fd_denied = 0, maps_denied = 0, exe_denied = 0;
	size_t i;

	json_add_section(sec, &inv->s_procs);
	if (!t) {
		json_add_obj(sec, "items", items);
		return sec;
	}
	json_add_int(sec, "scanned", (int64_t)t->n);
	json_add_int(sec, "vanished", t->vanished);
	if (t->self_pid)
		json_add_int(sec, "self_pid", t->self_pid);
	for (i = 0; i < t->n; i++) {
		const struct proc_info *p = &t->procs[i];

		fd_denied += p->fd_error == -EACCES;
		exe_denied += p->exe_error == -EACCES;
		maps_denied += p->maps_error == -EACCES;
		if (proc_info_uses_rdma(p)) {
			json_arr_add(items, proc_to_json(t, p));
			continue;
		}
		/* Errors of processes not listed still show (up to a bound). */
		for (unsigned k = 0; k < p->n_errors; k++) {
			if (!errors) {
				errors = json_object_new_array();
				json_add_obj(sec, "errors", errors);
			}
			if (json_object_array_length(errors) < 32)
				json_arr_add(errors, json_object_new_string(p->errors[k]));
		}
	}
	if (fd_denied || maps_denied || exe_denied) {
		struct json_object *o = json_object_new_object();

		json_add_int(o, "exe", exe_denied);
		json_add_int(o, "fd", fd_denied);
		json_add_int(o, "maps", maps_denied);
		json_add_obj(sec, "permission_denied", o);
	}
	json_add_obj(sec, "items", items);
	return sec;
}

/* The netlink section, with each owner's comm from the process scan, as `rdma res` shows it. */
static void add_comms(struct json_object *arr, const struct proc_table *t)
{
	size_t i, n = arr ? json_object_array_length(arr) : 0;

	for (i = 0; i < n; i++) {
		struct json_object *o = json_object_array_get_idx(arr, i), *pid, *kn;
		const struct proc_info *p;

		if (json_object_object_get_ex(o, "kern_name", &kn)) {
			json_add_str(o, "comm", json_object_get_string(kn));
			continue;
		}
		if (!json_object_object_get_ex(o, "pid", &pid))
			continue;
		p = proc_table_find(t, (uint32_t)json_object_get_int64(pid));
		if (p) {
			json_add_str(o, "comm", p->comm);
			json_add_u64(o, "start_boot_ns", p->start_boot_ns);
		}
	}
}

static struct json_object *netlink_to_json(const struct inventory *inv)
{
	struct json_object *sec, *v;
	static const char *const tables[] = {"qps", "mrs", "pds", "contexts", "cm_ids"};
	size_t i;

	sec = inv->nl ? nldev_to_json(inv->nl) : json_object_new_object();
	json_add_section(sec, &inv->s_netlink);
	if (!inv->nl)
		return sec;
	for (i = 0; i < ARRAY_SIZE(tables); i++)
		if (json_object_object_get_ex(sec, tables[i], &v))
			add_comms(v, inv->procs);
	return sec;
}

static void section_or_skipped(struct json_object *report, const char *key,
			       const struct inv_section *s, struct json_object *body)
{
	if (!s->collected && !s->skipped) {
		json_object_put(body);
		body = json_object_new_object();
		json_add_str(body, "skipped", "not requested");
	}
	json_add_obj(report, key, body);
}

struct json_object *inventory_to_json(const struct inventory *inv)
{
	struct json_object *r = json_object_new_object(), *o, *os, *a;
	struct inv_summary s;
	char ts[32];

	if (!r)
		return NULL;
	json_add_int(r, "schema_version", SCHEMA_VERSION);
	o = json_object_new_object();
	json_add_str(o, "name", "rdmaguard");
	json_add_str(o, "version", RG_VERSION);
	json_add_obj(r, "tool", o);
	format_timestamp(inv->collected_ns, ts);
	json_add_str(r, "@timestamp", ts);
	o = json_object_new_object();
	json_add_str(o, "hostname", inv->hostname);
	os = json_object_new_object();
	json_add_str(os, "kernel", inv->kernel_release);
	json_add_str_nonempty(os, "kernel_version", inv->kernel_version);
	json_add_obj(o, "os", os);
	json_add_obj(r, "host", o);
	json_add_str(r, "root", inv->root);

	inventory_summary(inv, &s);
	o = json_object_new_object();
	json_add_bool(o, "rdma_present", s.rdma_present);
	json_add_int(o, "devices", s.devices);
	json_add_int(o, "soft_devices", s.soft_devices);
	json_add_int(o, "ports_active", s.ports_active);
	json_add_int(o, "links", s.links);
	json_add_int(o, "soft_links", s.soft_links);
	json_add_int(o, "pci_rdma", s.pci_rdma);
	json_add_int(o, "pci_rdma_no_driver", s.pci_rdma_no_driver);
	json_add_int(o, "dma_functions", s.dma_functions);
	json_add_int(o, "device_nodes", s.device_nodes);
	json_add_int(o, "uverbs", s.uverbs);
	json_add_int(o, "modules", s.modules);
	json_add_int(o, "soft_modules", s.soft_modules);
	json_add_int(o, "qps", s.qps);
	json_add_int(o, "mrs", s.mrs);
	json_add_int(o, "pds", s.pds);
	json_add_int(o, "contexts", s.contexts);
	json_add_int(o, "cm_ids", s.cm_ids);
	json_add_int(o, "processes_scanned", s.processes_scanned);
	json_add_int(o, "rdma_processes", s.rdma_processes);
	json_add_int(o, "udp_4791", s.udp_4791);
	json_add_int(o, "errors", s.errors);
	a = json_object_new_array();
	{
		const struct {
			const char *name;
			const struct inv_section *s;
		} secs[] = {
			{"devices", &inv->s_devices},	  {"pci", &inv->s_pci},
			{"dma", &inv->s_dma},		  {"device_nodes", &inv->s_devnodes},
			{"modules", &inv->s_modules},	  {"verbs", &inv->s_verbs},
			{"netlink", &inv->s_netlink},	  {"processes", &inv->s_procs},
			{"roce_udp", &inv->s_udp},
		};
		struct json_object *t = json_object_new_array();

		for (size_t i = 0; i < ARRAY_SIZE(secs); i++) {
			if (secs[i].s->skipped || !secs[i].s->collected)
				json_arr_add(a, json_object_new_string(secs[i].name));
			if (secs[i].s->truncated.n)
				json_arr_add(t, json_object_new_string(secs[i].name));
		}
		json_add_obj(o, "skipped", a);
		json_add_obj(o, "truncated", t);
	}
	json_add_obj(r, "summary", o);

	section_or_skipped(r, "devices", &inv->s_devices, inv_devices_to_json(inv));
	section_or_skipped(r, "links", &inv->s_devices, inv_links_to_json(inv));
	section_or_skipped(r, "pci", &inv->s_pci, inv_pci_to_json(inv));
	section_or_skipped(r, "dma", &inv->s_dma, inv_dma_to_json(inv));
	if (inv->hw)
		json_add_obj(r, "hardware", hw_scan_to_json(inv->hw));
	section_or_skipped(r, "device_nodes", &inv->s_devnodes, inv_devnodes_to_json(inv));
	section_or_skipped(r, "modules", &inv->s_modules, inv_modules_to_json(inv));
	section_or_skipped(r, "verbs", &inv->s_verbs, inv_verbs_to_json(inv));
	section_or_skipped(r, "netlink", &inv->s_netlink, netlink_to_json(inv));
	section_or_skipped(r, "processes", &inv->s_procs, inv_procs_to_json(inv));
	section_or_skipped(r, "roce_udp", &inv->s_udp, inv_udp_to_json(inv));
	return r;
}

/* Events */

struct walk {
	const struct inventory *inv;
	int (*cb)(const struct rg_event *ev, void *userdata);
	void *userdata;
	uint64_t seq;
};

static int emit(struct walk *w, struct rg_event *ev)
{
	ev->seq = ++w->seq;
	ev->ts = w->inv->collected_ns;
	return w->cb(ev, w->userdata);
}

static int emit_process(const struct proc_info *p, void *userdata)
{
	struct rg_event ev;

	proc_info_to_event(p, &ev);
	return emit(userdata, &ev);
}

static int emit_netlink(const struct rg_event *ev, void *userdata)
{
	struct rg_event copy = *ev;

	return emit(userdata, &copy);
}

static void lookup_task(uint32_t pid, struct rg_task *task, void *userdata)
{
	const struct walk *w = userdata;
	const struct proc_info *p = proc_table_find(w->inv->procs, pid);

	if (p)
		proc_info_to_task(p, task);
}

int inventory_foreach_event(const struct inventory *inv,
			    int (*cb)(const struct rg_event *ev, void *userdata), void *userdata)
{
	struct walk w = {.inv = inv, .cb = cb, .userdata = userdata};
	struct rg_event ev;
	unsigned i, k;
	int r;

	if (!inv || !cb)
		return -EINVAL;
	if (inv->procs) {
		r = proc_table_foreach_by_start(inv->procs, emit_process, &w);
		if (r)
			return r;
	}
	for (i = 0; i < inv->n_modules; i++) {
		const struct inv_module *m = &inv->modules[i];

		memset(&ev, 0, sizeof(ev));
		ev.type = RG_EV_MODULE_PRESENT;
		ev.provider = RG_PROV_INVENTORY;
		ev.flags = m->soft ? RG_EVF_SOFT : 0;
		ev.u.mod.refcount = m->refcount;
		event_set_str(ev.u.mod.name, sizeof(ev.u.mod.name), m->name, sizeof(m->name));
		r = emit(&w, &ev);
		if (r)
			return r;
	}
	for (i = 0; inv->hw && i < inv->hw->n; i++) {
		hw_fn_to_event(&inv->hw->fn[i], RG_EV_PCI_FUNCTION, RG_PROV_INVENTORY, 0, &ev);
		r = emit(&w, &ev);
		if (r)
			return r;
	}
	if (inv->hw && inv->hw->posture) {
		hw_posture_to_event(inv->hw->posture, 0, &ev);
		r = emit(&w, &ev);
		if (r)
			return r;
	}
	for (i = 0; i < inv->n_devices; i++) {
		const struct inv_device *d = &inv->devices[i];

		memset(&ev, 0, sizeof(ev));
		ev.type = RG_EV_DEVICE_PRESENT;
		ev.provider = (d->sources & (INV_SRC_SYSFS | INV_SRC_VERBS)) ? RG_PROV_INVENTORY :
									      RG_PROV_NETLINK;
		ev.flags = d->soft ? RG_EVF_SOFT : 0;
		ev.u.dev.transport = d->transport;
		ev.u.dev.node_type = d->node_type;
		ev.u.dev.pci_vendor = d->pci_vendor;
		ev.u.dev.pci_device = d->pci_device;
		ev.u.dev.pci_class = d->pci_class;
		ev.u.dev.ports = d->n_ports;
		for (k = 0; k < d->n_ports; k++)
			ev.u.dev.ports_active += d->ports[k].state == 4;
		event_set_str(ev.u.dev.name, sizeof(ev.u.dev.name), d->name, sizeof(d->name));
		event_set_str(ev.u.dev.driver, sizeof(ev.u.dev.driver), d->driver, sizeof(d->driver));
		if (d->soft) {
			const char *nd = d->parent[0] ? d->parent : d->n_netdevs ? d->netdevs[0] : "";

			event_set_str(ev.u.dev.parent, sizeof(ev.u.dev.parent), nd, strlen(nd));
		}
		if (d->has_pci)
			event_set_str(ev.u.dev.pci_addr, sizeof(ev.u.dev.pci_addr), d->pci_addr,
				      sizeof(d->pci_addr));
		r = emit(&w, &ev);
		if (r)
			return r;
	}
	for (i = 0; inv->procs && i < inv->procs->n; i++) {
		const struct proc_info *p = &inv->procs->procs[i];

		for (k = 0; k < p->n_libs; k++) {
			memset(&ev, 0, sizeof(ev));
			ev.type = RG_EV_LIBRARY_LOAD;
			ev.provider = RG_PROV_INVENTORY;
			proc_info_to_task(p, &ev.proc);
			ev.u.lib.lib_kind = p->libs[k].kind;
			ev.u.lib.ino = p->libs[k].ino;
			ev.u.lib.dev = p->libs[k].dev;
			event_set_str(ev.u.lib.path, sizeof(ev.u.lib.path), p->libs[k].path,
				      sizeof(p->libs[k].path));
			r = emit(&w, &ev);
			if (r)
				return r;
		}
	}
	for (i = 0; inv->procs && i < inv->procs->n; i++) {
		const struct proc_info *p = &inv->procs->procs[i];

		for (k = 0; k < p->n_fds; k++) {
			memset(&ev, 0, sizeof(ev));
			ev.type = RG_EV_DEVICE_OPEN;
			ev.provider = RG_PROV_INVENTORY;
			proc_info_to_task(p, &ev.proc);
			ev.u.open.fd = p->fds[k].fd;
			ev.u.open.node_kind = p->fds[k].node_kind;
			ev.u.open.minor = p->fds[k].minor;
			event_set_str(ev.u.open.path, sizeof(ev.u.open.path), p->fds[k].path,
				      sizeof(p->fds[k].path));
			event_set_str(ev.u.open.device, sizeof(ev.u.open.device), p->fds[k].device,
				      sizeof(p->fds[k].device));
			r = emit(&w, &ev);
			if (r)
				return r;
		}
	}
	if (inv->nl)
		return nldev_foreach_event(inv->nl, inv->collected_ns, lookup_task, emit_netlink, &w);
	return 0;
}
