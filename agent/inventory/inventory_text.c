/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * `rdmaguard audit --format text`: the JSON report rendered as readable tables. It reads only the
 * report object, so what the text shows is exactly what the JSON says.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inv_internal.h"

#define MAX_COLS  10
#define MAX_WIDTH 48

struct table {
	unsigned ncols;
	size_t nrows, cap;
	char **cells; /* nrows * ncols, row 0 = headers */
};

static void table_init(struct table *t, unsigned ncols, ...)
{
	va_list ap;
	unsigned i;

	memset(t, 0, sizeof(*t));
	t->ncols = ncols;
	va_start(ap, ncols);
	t->cells = calloc(ncols, sizeof(char *));
	if (t->cells) {
		t->cap = 1;
		t->nrows = 1;
		for (i = 0; i < ncols; i++)
			t->cells[i] = strdup(va_arg(ap, const char *));
	}
	va_end(ap);
}

static void table_row(struct table *t, ...)
{
	va_list ap;
	unsigned i;

	if (!t->cells)
		return;
	if (t->nrows == t->cap) {
		char **n = realloc(t->cells, t->cap * 2 * t->ncols * sizeof(char *));

		if (!n)
			return;
		t->cells = n;
		t->cap *= 2;
	}
	va_start(ap, t);
	for (i = 0; i < t->ncols; i++) {
		const char *s = va_arg(ap, const char *);

		t->cells[t->nrows * t->ncols + i] = strdup(s ? s : "-");
	}
	va_end(ap);
	t->nrows++;
}

static void table_print(struct table *t, FILE *f)
{
	size_t w[MAX_COLS] = {0}, r;
	unsigned c;

	if (!t->cells)
		return;
	for (r = 0; r < t->nrows; r++)
		for (c = 0; c < t->ncols && c < MAX_COLS; c++) {
			const char *s = t->cells[r * t->ncols + c];
			size_t l = s ? strlen(s) : 1;

			w[c] = MAX(w[c], MIN(l, (size_t)MAX_WIDTH));
		}
	for (r = 0; r < t->nrows; r++) {
		fputs("  ", f);
		for (c = 0; c < t->ncols && c < MAX_COLS; c++) {
			const char *s = t->cells[r * t->ncols + c];

			if (!s)
				s = "-";
			if (strlen(s) > MAX_WIDTH)
				fprintf(f, "%.*s...", MAX_WIDTH - 3, s);
			else if (c + 1 == t->ncols)
				fputs(s, f);
			else
				fprintf(f, "%-*s", (int)w[c], s);
			if (c + 1 < t->ncols)
				fputs("  ", f);
		}
		fputc('\n', f);
	}
	for (r = 0; r < t->nrows * t->ncols; r++)
		free(t->cells[r]);
	free(t->cells);
	t->cells = NULL;
}

static struct json_object *get(struct json_object *o, const char *key)
{
	struct json_object *v;

	return o && json_object_object_get_ex(o, key, &v) ? v : NULL;
}

static const char *str(struct json_object *o, const char *key)
{
	struct json_object *v = get(o, key);

	if (!v || json_object_is_type(v, json_type_null))
		return NULL;
	return json_object_get_string(v);
}

static size_t len(struct json_object *o, const char *key)
{
	struct json_object *v = get(o, key);

	return v && json_object_is_type(v, json_type_array) ? json_object_array_length(v) : 0;
}

static struct json_object *at(struct json_object *o, const char *key, size_t i)
{
	return json_object_array_get_idx(get(o, key), i);
}

static const char *yesno(struct json_object *o, const char *key)
{
	return json_object_get_boolean(get(o, key)) ? "yes" : "no";
}

/* Joins the strings of an array (or of one key of each object in it). */
static const char *join(struct json_object *arr, const char *key, char *buf, size_t size)
{
	size_t i, n = arr && json_object_is_type(arr, json_type_array) ?
			      json_object_array_length(arr) :
			      0, l = 0;

	buf[0] = 0;
	for (i = 0; i < n && l + 1 < size; i++) {
		struct json_object *e = json_object_array_get_idx(arr, i);
		const char *s = key ? str(e, key) : json_object_get_string(e);
		int k = snprintf(buf + l, size - l, "%s%s", i ? " " : "", s ? s : "?");

		if (k < 0)
			break;
		l += (size_t)k;
	}
	return n ? buf : "-";
}

static void print_errors(FILE *f, const char *prefix, struct json_object *o)
{
	size_t i;

	for (i = 0; i < len(o, "errors"); i++)
		fprintf(f, "  error: %s%s%s\n", prefix ? prefix : "", prefix ? ": " : "",
			json_object_get_string(at(o, "errors", i)));
}

static void section_head(FILE *f, const char *title, struct json_object *sec, size_t count,
			 bool show_count)
{
	const char *s;
	size_t i;

	if (show_count)
		fprintf(f, "\n== %s (%zu)\n", title, count);
	else
		fprintf(f, "\n== %s\n", title);
	if ((s = str(sec, "skipped")))
		fprintf(f, "  skipped: %s\n", s);
	if ((s = str(sec, "error")))
		fprintf(f, "  error: %s\n", s);
	if ((s = str(sec, "note")))
		fprintf(f, "  note: %s\n", s);
	for (i = 0; i < len(sec, "truncated"); i++)
		fprintf(f, "  truncated: %s\n", json_object_get_string(at(sec, "truncated", i)));
	print_errors(f, NULL, sec);
}

static void print_devices(FILE *f, struct json_object *r)
{
	struct json_object *sec = get(r, "devices");
	struct table t;
	size_t i, k, n = len(sec, "items");
	char b1[256], b2[512], b3[64];

	section_head(f, "RDMA devices", sec, n, true);
	if (!n)
		return;
	table_init(&t, 8, "NAME", "TRANSPORT", "SOFT", "DRIVER", "PCI", "NETDEVS", "SOURCES",
		   "PORTS");
	for (i = 0; i < n; i++) {
		struct json_object *d = at(sec, "items", i);
		size_t l = 0;

		b2[0] = 0;
		for (k = 0; k < len(d, "ports") && l + 1 < sizeof(b2); k++) {
			struct json_object *p = at(d, "ports", k);
			int w = snprintf(b2 + l, sizeof(b2) - l, "%s%s:%s/%s", k ? " " : "",
					 str(p, "port") ?: "?", str(p, "state") ?: "?",
					 str(p, "link_layer") ?: "?");

			if (w < 0)
				break;
			l += (size_t)w;
		}
		table_row(&t, str(d, "name"), str(d, "transport"),
			  get(d, "soft") ? (json_object_get_boolean(get(d, "soft")) ?
						    (str(d, "soft_kind") ?: "yes") :
						    "no") :
					   NULL,
			  str(d, "driver"), str(get(d, "pci"), "address"),
			  join(get(d, "netdevs"), NULL, b1, sizeof(b1)),
			  join(get(d, "sources"), NULL, b3, sizeof(b3)), b2[0] ? b2 : "-");
	}
	table_print(&t, f);
	for (i = 0; i < n; i++) {
		struct json_object *d = at(sec, "items", i);

		print_errors(f, str(d, "name"), d);
		for (k = 0; k < len(d, "ports"); k++) {
			struct json_object *p = at(d, "ports", k);
			size_t g;

			snprintf(b1, sizeof(b1), "%s port %s", str(d, "name") ?: "?",
				 str(p, "port") ?: "?");
			print_errors(f, b1, p);
			for (g = 0; g < len(p, "gids"); g++) {
				struct json_object *gi = at(p, "gids", g);

				fprintf(f, "  gid %s[%s]: %s%s%s%s%s\n", b1, str(gi, "index") ?: "?",
					str(gi, "gid") ?: "?", str(gi, "type") ? "  " : "",
					str(gi, "type") ?: "", str(gi, "netdev") ? "  " : "",
					str(gi, "netdev") ?: "");
			}
		}
	}
}

static void print_links(FILE *f, struct json_object *r)
{
	struct json_object *sec = get(r, "links");
	struct table t;
	size_t i, n = len(sec, "items");

	section_head(f, "RDMA links", sec, n, true);
	if (!n)
		return;
	table_init(&t, 6, "LINK", "STATE", "PHYSICAL", "NETDEV", "TRANSPORT", "SOFT");
	for (i = 0; i < n; i++) {
		struct json_object *l = at(sec, "items", i);

		table_row(&t, str(l, "link"), str(l, "state"), str(l, "physical_state"),
			  str(l, "netdev"), str(l, "transport"),
			  json_object_get_boolean(get(l, "soft")) ? (str(l, "type") ?: "yes") : "no");
	}
	table_print(&t, f);
}

static void pci_table(FILE *f, struct json_object *arr, bool dma)
{
	struct table t;
	size_t i, n = arr ? json_object_array_length(arr) : 0;
	char b1[128], b2[256], vd[32];

	if (!n)
		return;
	if (dma)
		table_init(&t, 7, "ADDRESS", "VENDOR:DEVICE", "CLASS", "DRIVER", "DRIVER KIND",
			   "BUS MASTER", "IOMMU GROUP");
	else
		table_init(&t, 7, "ADDRESS", "VENDOR:DEVICE", "CLASS", "VENDOR", "DRIVER", "EVIDENCE",
			   "IB DEVICES");
	for (i = 0; i < n; i++) {
		struct json_object *p = json_object_array_get_idx(arr, i);

		snprintf(vd, sizeof(vd), "%s:%s", str(p, "vendor_id") ?: "?",
			 str(p, "device_id") ?: "?");
		if (dma)
			table_row(&t, str(p, "address"), vd, str(p, "class"), str(p, "driver"),
				  str(p, "driver_kind"),
				  get(p, "bus_master") ? yesno(p, "bus_master") : "?",
				  str(p, "iommu_group"));
		else
			table_row(&t, str(p, "address"), vd, str(p, "class"), str(p, "vendor_name"),
				  str(p, "driver") ?: "(none)",
				  join(get(p, "rdma_evidence"), NULL, b1, sizeof(b1)),
				  join(get(p, "ib_devices"), NULL, b2, sizeof(b2)));
	}
	table_print(&t, f);
	for (i = 0; i < n; i++) {
		struct json_object *p = json_object_array_get_idx(arr, i);

		print_errors(f, str(p, "address"), p);
	}
}

static void print_pci(FILE *f, struct json_object *r)
{
	struct json_object *sec = get(r, "pci");

	section_head(f, "PCI functions, RDMA-capable", sec, len(sec, "items"), true);
	pci_table(f, get(sec, "items"), false);
}

static void print_dma(FILE *f, struct json_object *r)
{
	struct json_object *sec = get(r, "dma"), *io = get(sec, "iommu"), *tb = get(sec, "thunderbolt");
	char b1[512];
	size_t i;

	section_head(f, "DMA exposure", sec, 0, false);
	if (str(sec, "skipped"))
		return;
	fprintf(f, "  IOMMU: %s; units: %s; groups: %s; group types: %s\n",
		json_object_get_boolean(get(io, "enabled")) ? "enabled" : "not enabled",
		join(get(io, "units"), NULL, b1, sizeof(b1)), str(io, "groups") ?: "0",
		get(io, "group_types") && json_object_object_length(get(io, "group_types")) ?
			json_object_to_json_string_ext(get(io, "group_types"),
						       JSON_C_TO_STRING_PLAIN) :
			"-");
	fprintf(f, "  kernel command line (IOMMU/DMA options): %s\n",
		get(sec, "cmdline") ? join(get(sec, "cmdline"), NULL, b1, sizeof(b1)) :
				      "(unreadable)");
	if (!json_object_get_boolean(get(tb, "present"))) {
		fprintf(f, "  Thunderbolt: none\n");
	} else {
		for (i = 0; i < len(tb, "domains"); i++) {
			struct json_object *d = at(tb, "domains", i);

			fprintf(f, "  Thunderbolt %s: security %s, IOMMU DMA protection %s\n",
				str(d, "name") ?: "?", str(d, "security") ?: "?",
				get(d, "iommu_dma_protection") ? yesno(d, "iommu_dma_protection") :
								 "?");
			print_errors(f, str(d, "name"), d);
		}
		for (i = 0; i < len(tb, "devices"); i++) {
			struct json_object *d = at(tb, "devices", i);

			fprintf(f, "  Thunderbolt device %s: %s %s (%s:%s), authorized %s\n",
				str(d, "name") ?: "?", str(d, "vendor_name") ?: "",
				str(d, "device_name") ?: "", str(d, "vendor_id") ?: "?",
				str(d, "device_id") ?: "?", str(d, "authorized") ?: "-");
			print_errors(f, str(d, "name"), d);
		}
	}
	fprintf(f, "  PCI functions with no, a userspace or an out-of-tree driver: %zu\n",
		len(sec, "pci_functions"));
	pci_table(f, get(sec, "pci_functions"), true);
}

/* The hardware layer's section (agent/hw/hw_json.c): every function, facts first. */
static void print_hardware(FILE *f, struct json_object *r)
{
	struct json_object *sec = get(r, "hardware"), *io = get(sec, "iommu");
	char vd[32], b1[512];
	struct table t;
	size_t i, n = len(sec, "functions");

	if (!sec)
		return;
	section_head(f, "Hardware: PCI functions", sec, n, true);
	fprintf(f, "  IOMMU: %s, %s group(s), %s identity; weakening options: %s\n",
		json_object_get_boolean(get(io, "present")) ? "present" : "none",
		str(io, "groups") ?: "0", str(io, "identity_groups") ?: "0",
		str(io, "weakening_options") ?: "none");
	table_init(&t, 6, "ADDRESS", "VENDOR:DEVICE", "CLASS", "DRIVER", "IOMMU", "FACTS");
	for (i = 0; i < n; i++) {
		struct json_object *p = at(sec, "functions", i);

		snprintf(vd, sizeof(vd), "%s:%s", str(p, "vendor_id") ?: "?",
			 str(p, "device_id") ?: "?");
		table_row(&t, str(p, "address"), vd, str(p, "class"), str(p, "driver") ?: "(none)",
			  str(p, "iommu_group_type") ?: "-",
			  len(p, "facts") ? join(get(p, "facts"), NULL, b1, sizeof(b1)) : "-");
	}
	table_print(&t, f);
}

static void print_devnodes(FILE *f, struct json_object *r)
{
	struct json_object *sec = get(r, "device_nodes");
	struct table t;
	size_t i, n = len(sec, "items");
	char b[32];

	section_head(f, "Device nodes /dev/infiniband", sec, n, true);
	if (n) {
		table_init(&t, 6, "NAME", "TYPE", "MAJ:MIN", "MODE", "OWNER", "KIND");
		for (i = 0; i < n; i++) {
			struct json_object *d = at(sec, "items", i);
			char own[32];

			snprintf(b, sizeof(b), "%s:%s", str(d, "major") ?: "-", str(d, "minor") ?: "-");
			snprintf(own, sizeof(own), "%s:%s", str(d, "uid") ?: "?", str(d, "gid") ?: "?");
			table_row(&t, str(d, "name"), str(d, "type"), b, str(d, "mode"), own,
				  str(d, "kind"));
		}
		table_print(&t, f);
	}
	for (i = 0; i < len(sec, "uverbs"); i++) {
		struct json_object *u = at(sec, "uverbs", i);

		fprintf(f, "  %s -> %s (dev %s, abi %s)\n", str(u, "name") ?: "?",
			str(u, "ibdev") ?: "?", str(u, "dev") ?: "?", str(u, "abi_version") ?: "?");
		print_errors(f, str(u, "name"), u);
	}
	for (i = 0; i < len(sec, "umad"); i++) {
		struct json_object *u = at(sec, "umad", i);

		fprintf(f, "  %s -> %s port %s (dev %s)\n", str(u, "name") ?: "?",
			str(u, "ibdev") ?: "?", str(u, "port") ?: "?", str(u, "dev") ?: "?");
		print_errors(f, str(u, "name"), u);
	}
}

static void print_modules(FILE *f, struct json_object *r)
{
	struct json_object *sec = get(r, "modules");
	struct table t;
	size_t i, n = len(sec, "items");
	char b[256];

	section_head(f, "RDMA kernel modules", sec, n, true);
	if (!n)
		return;
	table_init(&t, 5, "NAME", "KIND", "STATE", "REFCOUNT", "USED BY");
	for (i = 0; i < n; i++) {
		struct json_object *m = at(sec, "items", i);

		table_row(&t, str(m, "name"), str(m, "kind"), str(m, "state"), str(m, "refcount"),
			  join(get(m, "used_by"), NULL, b, sizeof(b)));
	}
	table_print(&t, f);
}

static void print_netlink(FILE *f, struct json_object *r)
{
	struct json_object *sec = get(r, "netlink"), *te = get(sec, "table_errors");
	struct table t;
	size_t i, n;
	char b[64];

	section_head(f, "Kernel RDMA resource tables (netlink)", sec, 0, false);
	if (str(sec, "skipped") || !get(sec, "qps"))
		return;
	fprintf(f, "  %zu devices, %zu QPs, %zu MRs, %zu PDs, %zu contexts, %zu CM IDs\n",
		len(sec, "devices"), len(sec, "qps"), len(sec, "mrs"), len(sec, "pds"),
		len(sec, "contexts"), len(sec, "cm_ids"));
	if (te) {
		json_object_object_foreach(te, k, v)
			fprintf(f, "  error: %s table: %s\n", k, json_object_get_string(v));
	}
	if ((n = len(sec, "qps"))) {
		table_init(&t, 8, "DEVICE", "PORT", "LQPN", "RQPN", "TYPE", "STATE", "PID", "COMM");
		for (i = 0; i < n; i++) {
			struct json_object *q = at(sec, "qps", i);

			table_row(&t, str(q, "device"), str(q, "port"), str(q, "lqpn"), str(q, "rqpn"),
				  str(q, "type"), str(q, "state"), str(q, "pid"), str(q, "comm"));
		}
		table_print(&t, f);
	}
	if ((n = len(sec, "mrs"))) {
		table_init(&t, 7, "DEVICE", "MRN", "LENGTH", "IOVA", "RKEY", "PID", "COMM");
		for (i = 0; i < n; i++) {
			struct json_object *m = at(sec, "mrs", i);

			table_row(&t, str(m, "device"), str(m, "mrn"), str(m, "length"), str(m, "iova"),
				  str(m, "rkey"), str(m, "pid"), str(m, "comm"));
		}
		table_print(&t, f);
	}
	if ((n = len(sec, "cm_ids"))) {
		table_init(&t, 7, "DEVICE", "PS", "STATE", "SRC", "DST", "PID", "COMM");
		for (i = 0; i < n; i++) {
			struct json_object *c = at(sec, "cm_ids", i);
			char dst[96];

			snprintf(b, sizeof(b), "%s:%s", str(c, "src_addr") ?: "-",
				 str(c, "src_port") ?: "-");
			snprintf(dst, sizeof(dst), "%s:%s", str(c, "dst_addr") ?: "-",
				 str(c, "dst_port") ?: "-");
			table_row(&t, str(c, "device"), str(c, "ps"), str(c, "state"), b, dst,
				  str(c, "pid"), str(c, "comm"));
		}
		table_print(&t, f);
	}
}

static void print_procs(FILE *f, struct json_object *r)
{
	struct json_object *sec = get(r, "processes");
	struct table t;
	size_t i, n = len(sec, "items");
	char b1[256], b2[512], b3[512], title[96];

	snprintf(title, sizeof(title), "Processes using RDMA (of %s scanned)", str(sec, "scanned") ?: "0");
	section_head(f, title, sec, n, true);
	if (n) {
		table_init(&t, 7, "PID", "UID", "COMM", "EXE", "RDMA FDS", "LIBRARIES", "PARENTS");
		for (i = 0; i < n; i++) {
			struct json_object *p = at(sec, "items", i);
			table_row(&t, str(p, "pid"), str(p, "uid"), str(p, "comm"), str(p, "exe"),
				  join(get(p, "rdma_fds"), "path", b1, sizeof(b1)),
				  join(get(p, "libraries"), "path", b2, sizeof(b2)),
				  join(get(p, "parent_chain"), "comm", b3, sizeof(b3)));
		}
		table_print(&t, f);
		for (i = 0; i < n; i++)
			print_errors(f, str(at(sec, "items", i), "pid"), at(sec, "items", i));
	}
}

static void print_udp(FILE *f, struct json_object *r)
{
	struct json_object *sec = get(r, "roce_udp");
	struct table t;
	size_t i, n = len(sec, "sockets");

	section_head(f, "RoCE v2 sockets (UDP 4791)", sec, n, true);
	if (!n)
		return;
	table_init(&t, 5, "PROTO", "LOCAL ADDRESS", "UID", "INODE", "KERNEL SOCKET");
	for (i = 0; i < n; i++) {
		struct json_object *s = at(sec, "sockets", i);

		table_row(&t, str(s, "protocol"), str(s, "local_address"), str(s, "uid"),
			  str(s, "inode"), yesno(s, "kernel_socket"));
	}
	table_print(&t, f);
}

static void print_alerts(FILE *f, struct json_object *r)
{
	struct json_object *a = get(r, "alerts");
	size_t i, n = a ? json_object_array_length(a) : 0;
	const char *s;

	fprintf(f, "\n== Alerts (%zu)\n", n);
	if ((s = str(get(r, "evaluation"), "note")))
		fprintf(f, "  note: %s\n", s);
	for (i = 0; i < n; i++) {
		struct json_object *al = json_object_array_get_idx(a, i);
		struct json_object *rule = get(al, "rule");

		fprintf(f, "  [%s] %s %s: %s\n", str(get(al, "rdmaguard"), "severity") ?: "?",
			str(rule, "id") ?: "?", str(rule, "name") ?: "", str(al, "message") ?: "");
	}
}

int inventory_print_text(struct json_object *r, FILE *f)
{
	struct json_object *s = get(r, "summary"), *host = get(r, "host");
	char b[256];

	if (!r)
		return -EINVAL;
	fprintf(f, "rdmaguard %s audit of %s (kernel %s), root %s, at %s\n",
		str(get(r, "tool"), "version") ?: "?", str(host, "hostname") ?: "?",
		str(get(host, "os"), "kernel") ?: "?", str(r, "root") ?: "?",
		str(r, "@timestamp") ?: "?");
	fprintf(f, "RDMA present: %s; devices %s, soft devices %s, RDMA PCI functions %s, modules %s, "
		   "processes using RDMA %s, QPs %s, MRs %s; errors %s\n",
		yesno(s, "rdma_present"), str(s, "devices") ?: "0", str(s, "soft_devices") ?: "0",
		str(s, "pci_rdma") ?: "0", str(s, "modules") ?: "0",
		str(s, "rdma_processes") ?: "0", str(s, "qps") ?: "0", str(s, "mrs") ?: "0",
		str(s, "errors") ?: "0");
	if (len(s, "skipped"))
		fprintf(f, "Skipped: %s\n", join(get(s, "skipped"), NULL, b, sizeof(b)));
	if (len(s, "truncated"))
		fprintf(f, "Truncated (a cap was reached): %s\n",
			join(get(s, "truncated"), NULL, b, sizeof(b)));
	print_devices(f, r);
	print_links(f, r);
	print_pci(f, r);
	print_dma(f, r);
	print_hardware(f, r);
	print_devnodes(f, r);
	print_modules(f, r);
	section_head(f, "libibverbs", get(r, "verbs"), 0, false);
	if (get(get(r, "verbs"), "devices"))
		fprintf(f, "  devices found: %s\n", str(get(r, "verbs"), "devices"));
	print_netlink(f, r);
	print_procs(f, r);
	print_udp(f, r);
	print_alerts(f, r);
	return ferror(f) ? -EIO : 0;
}
