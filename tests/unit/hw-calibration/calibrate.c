/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * How often each hardware fact and each DMA rule fires on real, honest machines: the agent's own
 * code (hw_caps_walk(), hw_facts_compute(), hw_fn_to_event(), the rule engine with the shipped
 * rules and the built-in policy) run over the parsed `lspci -vvnn` records of real machines
 * (data/functions.csv, data/machines.csv; data/README.md says where they come from).
 *
 * Each record becomes the config space lspci read: the header (IDs, class, command, header
 * type, subsystem), the capability list it printed (PM, MSI and MSI-X with their Enable bits,
 * PCI Express with its type and Link Capabilities/Status) and a DSN capability; 64 bytes only
 * where lspci ran without root, as the kernel gives an unprivileged reader. Kernel modules:
 * lines are the running kernel's modules.alias lookup, so they stand for driver_available.
 * What lspci does not print is not measured: the IOMMU (every function is put in a DMA group),
 * netdevs (a bound network driver counts as one), DSN values (hw-probe masks them), sysfs MSI
 * vectors.
 *
 * Each machine is measured twice: as recorded (an IOMMU translating every function) and with
 * the IOMMU taken away (no group: off, absent or every group identity), where the rules on
 * untranslated DMA (DMA-003, DMA-014) have their own rows.
 *
 * usage: calibrate RULES_DIR DATA_DIR [--markdown] [--check]
 * --check: exit 1 when a rule raises an alert of severity high or above on any machine, in
 * either pass.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine.h"
#include "hw/hw-internal.h"
#include "hw/pci_caps.h"

#define MAX_MACHINES 256
#define MAX_FUNCS    512 /* per machine */
#define MAX_COLS     40
#define MAX_HITS     64 /* rows of the table: facts, rules, variants */
#define MAX_DEVS     12 /* triggering devices named per row */

struct row {
	char name[48];
	bool high; /* a rule whose alert on these machines was high or above */
	unsigned machines, functions;
	char devs[MAX_DEVS][96];
	unsigned dev_count[MAX_DEVS], n_devs;
	bool seen_on_machine; /* scratch: this machine counted */
};

static struct row rows[MAX_HITS];
static unsigned n_rows;

static struct row *row_get(const char *name)
{
	for (unsigned i = 0; i < n_rows; i++)
		if (strcmp(rows[i].name, name) == 0)
			return &rows[i];
	if (n_rows == MAX_HITS)
		return NULL;
	snprintf(rows[n_rows].name, sizeof(rows[n_rows].name), "%s", name);
	return &rows[n_rows++];
}

static void row_hit(const char *name, const struct hw_fn *fn)
{
	struct row *r = row_get(name);
	char dev[96];
	unsigned i;

	if (!r)
		return;
	r->functions++;
	if (!r->seen_on_machine) {
		r->seen_on_machine = true;
		r->machines++;
	}
	snprintf(dev, sizeof(dev), "%04x:%04x %.40s%s%.24s", fn->vendor, fn->device,
		 fn->device_name[0] ? fn->device_name : fn->vendor_name,
		 fn->driver[0] ? ", driver " : "", fn->driver);
	for (i = 0; i < r->n_devs; i++)
		if (strcmp(r->devs[i], dev) == 0)
			break;
	if (i == r->n_devs && r->n_devs < MAX_DEVS)
		snprintf(r->devs[r->n_devs++], sizeof(r->devs[0]), "%s", dev);
	if (i < r->n_devs)
		r->dev_count[i]++;
}

/* ---- CSV (RFC 4180: quoted fields, "" inside quotes) ---- */

static int csv_split(char *line, char **cols, int max)
{
	int n = 0;
	char *p = line, *w;

	while (n < max) {
		cols[n++] = w = p;
		if (*p == '"') {
			p++;
			for (;;) {
				if (*p == 0)
					break;
				if (*p == '"' && p[1] == '"') {
					*w++ = '"';
					p += 2;
				} else if (*p == '"') {
					p++;
					break;
				} else
					*w++ = *p++;
			}
			while (*p && *p != ',')
				p++;
		} else {
			while (*p && *p != ',' && *p != '\n' && *p != '\r')
				*w++ = *p++;
		}
		if (*p != ',') {
			*w = 0;
			break;
		}
		*w = 0;
		p++;
	}
	return n;
}

static int col_index(char **hdr, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (strcmp(hdr[i], name) == 0)
			return i;
	fprintf(stderr, "calibrate: no column %s\n", name);
	exit(2);
}

/* ---- a record as the config space lspci read ---- */

enum {
	C_HWID,
	C_ROOT,
	C_MODS_KNOWN,
	C_ADDR,
	C_CLASS,
	C_VID,
	C_DID,
	C_SUBSYS,
	C_NAME,
	C_DRIVER,
	C_MODULES,
	C_BM,
	C_MSI,
	C_MSIX,
	C_PM,
	C_EXP,
	C_LSPEED,
	C_LWIDTH,
	C_ASPM,
	C_L0S,
	C_L1,
	C_SSPEED,
	C_SWIDTH,
	C_DSN,
	C_CAPMINUS,
	C_PARENT,
	C__N
};

static const char *const col_names[C__N] = {
    "hwid",	   "root",	   "has_mods",	   "addr",	  "class",
    "vid",	   "did",	   "svid_sdid",	   "name",	  "driver",
    "modules",	   "busmaster",	   "msi_en",	   "msix_en",	  "pm_cap",
    "exp_type",	   "lnkcap_speed", "lnkcap_width", "lnkcap_aspm", "lnkcap_l0s",
    "lnkcap_l1",   "lnksta_speed", "lnksta_width", "dsn_cap",	  "status_cap_minus",
    "parent_addr",
};

static unsigned speed_code(const char *s)
{
	static const char *const v[] = {"", "2.5", "5.0", "8.0", "16.0", "32.0", "64.0"};

	for (unsigned i = 1; i < 7; i++)
		if (strcmp(s, v[i]) == 0)
			return i;
	return 0;
}

static unsigned latency_code(const char *s, bool l1)
{
	static const char *const l0s[] = {"<64ns", "<128ns", "<256ns", "<512ns",
					  "<1us",  "<2us",   "<4us",   "unl"};
	static const char *const l1s[] = {"<1us",  "<2us",  "<4us",  "<8us",
					  "<16us", "<32us", "<64us", "unl"};

	for (unsigned i = 0; i < 8; i++)
		if (strcmp(s, l1 ? l1s[i] : l0s[i]) == 0)
			return i;
	return 0; /* "-": not printed, ASPM does not name it */
}

static unsigned exp_type(const char *s)
{
	static const struct {
		const char *name;
		unsigned type;
	} t[] = {{"E", 0}, {"LE", 1}, {"RP", 4}, {"UP", 5}, {"DP", 6}, {"PB", 7}, {"RC", 9}};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (strcmp(s, t[i].name) == 0)
			return t[i].type;
	return 0;
}

static void put16(uint8_t *c, unsigned off, unsigned v)
{
	c[off] = v & 0xff;
	c[off + 1] = (v >> 8) & 0xff;
}

static void put32(uint8_t *c, unsigned off, uint32_t v)
{
	put16(c, off, v & 0xffff);
	put16(c, off + 2, v >> 16);
}

static size_t synth_config(char **col, uint8_t cfg[4096], uint64_t serial)
{
	unsigned cls = (unsigned)strtoul(col[C_CLASS], NULL, 16), prev = 0x34, off = 0x40;
	bool root = strcmp(col[C_ROOT], "1") == 0, caps = strcmp(col[C_CAPMINUS], "1") != 0;

	memset(cfg, 0, 4096);
	put16(cfg, 0x00, (unsigned)strtoul(col[C_VID], NULL, 16));
	put16(cfg, 0x02, (unsigned)strtoul(col[C_DID], NULL, 16));
	put16(cfg, 0x04, 0x0002 | (strcmp(col[C_BM], "1") == 0 ? 0x0004 : 0));
	put16(cfg, 0x06, caps ? 0x0010 : 0);
	put32(cfg, 0x08, cls << 16);
	cfg[0x0e] = cls == 0x0604 ? 1 : 0;
	if (strchr(col[C_SUBSYS], ':') && cfg[0x0e] == 0) {
		put16(cfg, 0x2c, (unsigned)strtoul(col[C_SUBSYS], NULL, 16));
		put16(cfg, 0x2e, (unsigned)strtoul(strchr(col[C_SUBSYS], ':') + 1, NULL, 16));
	}
	if (!caps)
		return root ? 4096 : 64;
	if (!root) {
		cfg[0x34] = 0x40; /* what lies there was not readable */
		return 64;
	}
#define LINK(id)                                                                                   \
	do {                                                                                       \
		cfg[prev == 0x34 ? 0x34 : prev + 1] = (uint8_t)off;                                \
		cfg[off] = (id);                                                                   \
		prev = off;                                                                        \
		off += 0x10;                                                                       \
	} while (0)
	if (strcmp(col[C_PM], "1") == 0)
		LINK(PCI_CAP_PM);
	if (col[C_MSI][0]) {
		LINK(PCI_CAP_MSI);
		put16(cfg, prev + 2, strcmp(col[C_MSI], "1") == 0 ? 1 : 0);
	}
	if (col[C_MSIX][0]) {
		LINK(PCI_CAP_MSIX);
		put16(cfg, prev + 2, strcmp(col[C_MSIX], "1") == 0 ? 0x8000 : 0);
	}
	if (col[C_EXP][0]) {
		unsigned aspm = 0, lcap;

		LINK(PCI_CAP_EXP);
		off += 0x30;
		put16(cfg, prev + 2, exp_type(col[C_EXP]) << 4 | 2);
		if (strcmp(col[C_ASPM], "L0s") == 0)
			aspm = 1;
		else if (strcmp(col[C_ASPM], "L1") == 0)
			aspm = 2;
		else if (strcmp(col[C_ASPM], "L0sL1") == 0)
			aspm = 3;
		lcap = speed_code(col[C_LSPEED]) | (unsigned)atoi(col[C_LWIDTH]) << 4 | aspm << 10 |
		       latency_code(col[C_L0S], false) << 12 | latency_code(col[C_L1], true) << 15;
		put32(cfg, prev + 0x0c, lcap);
		put16(cfg, prev + 0x12,
		      speed_code(col[C_SSPEED]) | (unsigned)atoi(col[C_SWIDTH]) << 4);
	}
#undef LINK
	if (strcmp(col[C_DSN], "1") == 0) {
		/* hw-probe masks the value: one of its own per function */
		put32(cfg, 0x100, 0x0003 | 1u << 16);
		put32(cfg, 0x104, (uint32_t)serial);
		put32(cfg, 0x108, (uint32_t)(serial >> 32));
	}
	return 4096;
}

static void fill_fn(char **col, struct hw_fn *fn, uint64_t serial)
{
	static uint8_t cfg[4096];
	size_t len = synth_config(col, cfg, serial);
	const char *sp;

	memset(fn, 0, sizeof(*fn));
	snprintf(fn->addr, sizeof(fn->addr), "0000:%.7s", col[C_ADDR]);
	fn->vendor = (uint16_t)strtoul(col[C_VID], NULL, 16);
	fn->device = (uint16_t)strtoul(col[C_DID], NULL, 16);
	fn->class_code = (uint32_t)strtoul(col[C_CLASS], NULL, 16) << 8;
	fn->subsys_vendor = cfg[0x2c] | cfg[0x2d] << 8;
	fn->subsys_device = cfg[0x2e] | cfg[0x2f] << 8;
	hw_caps_walk(cfg, len, fn);
	snprintf(fn->driver, sizeof(fn->driver), "%s", col[C_DRIVER]);
	/* "Kernel modules:" is lspci's modules.alias lookup on that machine's kernel */
	if (!fn->driver[0] && col[C_MODULES][0]) {
		sp = strchr(col[C_MODULES], ' ');
		snprintf(fn->driver_available, sizeof(fn->driver_available), "%.*s",
			 (int)(sp ? (size_t)(sp - col[C_MODULES]) : strlen(col[C_MODULES])),
			 col[C_MODULES]);
	}
	/* not in lspci's output: an IOMMU is assumed, a bound network driver has its netdev */
	fn->iommu_group = 1;
	snprintf(fn->iommu_type, sizeof(fn->iommu_type), "DMA-FQ");
	if (fn->driver[0]) {
		unsigned base = fn->class_code >> 16, sub = (fn->class_code >> 8) & 0xff;

		fn->has_netdev = base == 0x02 || base == 0x0d;
		fn->has_block = base == 0x01;
		fn->has_usb_bus = base == 0x0c && sub == 0x03;
	}
	if (col[C_PARENT][0])
		snprintf(fn->upstream, sizeof(fn->upstream), "0000:%.7s", col[C_PARENT]);
	snprintf(fn->device_name, sizeof(fn->device_name), "%.90s", col[C_NAME]);
}

/* drvscan's is_xilinx: ASPM support + L0s + L1 exit latency codes summing to 15. */
static bool drvscan_is_xilinx(const struct hw_fn *fn)
{
	return fn->aspm >= 0 && fn->l0s_exit >= 0 && fn->l1_exit >= 0 &&
	       fn->aspm + fn->l0s_exit + fn->l1_exit == 15;
}

/* ---- the engine ---- */

struct emit_ctx {
	const struct hw_fn *fn;
	bool high;
	bool no_iommu; /* the pass that takes the IOMMU away: the untranslated-DMA rules' rows */
};

/* The rules on untranslated DMA: their rows in the pass without an IOMMU. */
static bool untranslated_rule(const char *id)
{
	return strcmp(id, "DMA-003") == 0 || strcmp(id, "DMA-014") == 0;
}

static int on_alert(const struct rg_alert *a, void *ud)
{
	struct emit_ctx *c = ud;
	char name[48];
	struct row *r;

	if (c->no_iommu && !untranslated_rule(a->rule_id)) {
		/* another rule's high alert counts all the same, on the row of the pass with one */
		if (a->severity >= RG_SEV_HIGH) {
			snprintf(name, sizeof(name), "rule %s", a->rule_id);
			if ((r = row_get(name)))
				r->high = true;
			c->high = true;
		}
		return 0;
	}
	snprintf(name, sizeof(name), c->no_iommu ? "rule %s without an IOMMU" : "rule %s",
		 a->rule_id);
	r = row_get(name);
	if (!r)
		return 0;
	if (a->severity >= RG_SEV_HIGH) {
		r->high = true;
		c->high = true;
	}
	row_hit(name, c->fn);
	return 0;
}

static int run_machine(struct rg_engine *e, struct hw_scan *s, bool *high)
{
	for (unsigned i = 0; i < n_rows; i++)
		rows[i].seen_on_machine = false;
	hw_facts_compute(s);
	for (unsigned i = 0; i < s->n; i++) {
		const struct hw_fn *fn = &s->fn[i];
		struct emit_ctx c = {.fn = fn};
		struct rg_event ev;

		for (unsigned b = 0; b < RG_PCI_NFACTS; b++)
			if (fn->facts & (1u << b)) {
				char name[48];

				snprintf(name, sizeof(name), "fact %s", pci_fact_to_string(b));
				row_hit(name, fn);
			}
		if (drvscan_is_xilinx(fn))
			row_hit("drvscan is_xilinx (sum 15)", fn);
		hw_fn_to_event(fn, RG_EV_PCI_FUNCTION, RG_PROV_INVENTORY, 0, &ev);
		ev.ts = 1767225600ull * 1000000000ull + i;
		if (engine_process(e, &ev, on_alert, &c) < 0)
			return -EIO;
		*high |= c.high;
	}
	return 0;
}

/*
 * The same machine as if it had no IOMMU (or it were off, or every group identity), on a fresh
 * engine (no aggregation across passes): what the untranslated-DMA rules raise there. A high
 * alert of any rule fails --check as in the other pass.
 */
static int run_machine_no_iommu(const char *rules_dir, struct hw_scan *s, bool *high)
{
	struct rg_policy *policy = NULL;
	struct rg_ruleset *rules = NULL;
	struct rg_engine *e = NULL;
	struct rg_error err;

	if (engine_load_config(NULL, false, rules_dir, NULL, &policy, &rules, &err) < 0 ||
	    engine_new(policy, rules, NULL, &e, &err) < 0)
		return -EIO;
	for (unsigned i = 0; i < s->n; i++) {
		s->fn[i].iommu_group = -1;
		s->fn[i].iommu_type[0] = 0;
	}
	hw_facts_compute(s);
	for (unsigned i = 0; i < s->n; i++) {
		struct emit_ctx c = {.fn = &s->fn[i], .no_iommu = true};
		struct rg_event ev;

		hw_fn_to_event(&s->fn[i], RG_EV_PCI_FUNCTION, RG_PROV_INVENTORY, 0, &ev);
		ev.ts = 1767225600ull * 1000000000ull + i;
		if (engine_process(e, &ev, on_alert, &c) < 0) {
			engine_free(e);
			return -EIO;
		}
		*high |= c.high;
	}
	engine_free(e);
	return 0;
}

/* ---- Clopper-Pearson 95% interval of k in n ---- */

static double binom_cdf(unsigned k, unsigned n, double p)
{
	double sum = 0, term = pow(1 - p, n);

	for (unsigned i = 0; i <= k; i++) {
		sum += term;
		term *= (double)(n - i) / (i + 1) * p / (1 - p);
	}
	return sum;
}

static void clopper_pearson(unsigned k, unsigned n, double *lo, double *hi)
{
	double a, b;

	*lo = 0;
	*hi = 1;
	if (k > 0) { /* P(X >= k | lo) = 0.025 */
		for (a = 0, b = 1; b - a > 1e-9;) {
			double m = (a + b) / 2;

			if (1 - binom_cdf(k - 1, n, m) < 0.025)
				a = m;
			else
				b = m;
		}
		*lo = a;
	}
	if (k < n) { /* P(X <= k | hi) = 0.025 */
		for (a = 0, b = 1; b - a > 1e-9;) {
			double m = (a + b) / 2;

			if (binom_cdf(k, n, m) > 0.025)
				a = m;
			else
				b = m;
		}
		*hi = b;
	}
}

static void print_table(unsigned n, bool markdown)
{
	printf(markdown ? "| fact or rule | machines | share | 95%% interval | functions | "
			  "devices that trigger it |\n|---|---|---|---|---|---|\n"
			: "%-34s %8s %6s %15s %5s  devices\n",
	       "fact or rule", "machines", "share", "95% interval", "funcs");
	for (unsigned i = 0; i < n_rows; i++) {
		const struct row *r = &rows[i];
		double lo, hi;
		char devs[1200] = "";

		clopper_pearson(r->machines, n, &lo, &hi);
		for (unsigned d = 0; d < r->n_devs; d++) {
			size_t l = strlen(devs);

			snprintf(devs + l, sizeof(devs) - l, "%s%s (%u)", d ? "; " : "", r->devs[d],
				 r->dev_count[d]);
		}
		if (markdown)
			printf("| %s%s | %u/%u | %.1f%% | %.1f-%.1f%% | %u | %s |\n", r->name,
			       r->high ? " (high)" : "", r->machines, n, 100.0 * r->machines / n,
			       100 * lo, 100 * hi, r->functions, devs);
		else
			printf("%-34s %4u/%-3u %5.1f%% %6.1f-%5.1f%% %5u  %s\n", r->name,
			       r->machines, n, 100.0 * r->machines / n, 100 * lo, 100 * hi,
			       r->functions, devs);
	}
}

static char *read_file(const char *dir, const char *name)
{
	char path[1024];
	FILE *f;
	long len;
	char *buf;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "rb");
	if (!f || fseek(f, 0, SEEK_END) < 0 || (len = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) < 0) {
		fprintf(stderr, "calibrate: %s: %s\n", path, strerror(errno));
		exit(2);
	}
	buf = malloc((size_t)len + 1);
	if (!buf || fread(buf, 1, (size_t)len, f) != (size_t)len)
		exit(2);
	buf[len] = 0;
	fclose(f);
	return buf;
}

static void seed_rows(void)
{
	/* Every fact and every DMA rule has a row, also those that never fire. */
	for (unsigned b = 0; b < RG_PCI_NFACTS; b++) {
		char name[48];

		snprintf(name, sizeof(name), "fact %s", pci_fact_to_string(b));
		(void)row_get(name);
	}
	(void)row_get("drvscan is_xilinx (sum 15)");
}

int main(int argc, char **argv)
{
	bool markdown = false, check = false, any_high = false;
	struct rg_policy *policy = NULL;
	struct rg_ruleset *rules = NULL;
	struct rg_engine *e = NULL;
	struct rg_error err;
	char *text, *line, *save = NULL, *hdr[MAX_COLS], *cols[MAX_COLS], buf[1200];
	int idx[C__N], nh;
	char machine[32] = "";
	struct hw_scan s = {0};
	unsigned n_machines = 0;
	const struct rg_ruleset *rs;

	for (int i = 3; i < argc; i++) {
		if (strcmp(argv[i], "--markdown") == 0)
			markdown = true;
		else if (strcmp(argv[i], "--check") == 0)
			check = true;
	}
	if (argc < 3) {
		fprintf(stderr, "usage: calibrate RULES_DIR DATA_DIR [--markdown] [--check]\n");
		return 2;
	}
	if (engine_load_config(NULL, false, argv[1], NULL, &policy, &rules, &err) < 0 ||
	    engine_new(policy, rules, NULL, &e, &err) < 0) {
		fprintf(stderr, "calibrate: %s\n", rg_error_format(&err, buf, sizeof(buf)));
		return 2;
	}
	seed_rows();
	rs = engine_rules(e);
	for (size_t i = 0; i < rs->n; i++)
		if (strncmp(rs->rules[i].id, "DMA-", 4) == 0) {
			char name[48];

			snprintf(name, sizeof(name), "rule %s", rs->rules[i].id);
			(void)row_get(name);
		}
	for (size_t i = 0; i < rs->n; i++)
		if (untranslated_rule(rs->rules[i].id)) {
			char name[48];

			snprintf(name, sizeof(name), "rule %s without an IOMMU", rs->rules[i].id);
			(void)row_get(name);
		}
	s.fn = calloc(MAX_FUNCS, sizeof(*s.fn));
	if (!s.fn)
		return 2;
	text = read_file(argv[2], "functions.csv");
	line = strtok_r(text, "\n", &save);
	nh = csv_split(line, hdr, MAX_COLS);
	for (int c = 0; c < C__N; c++)
		idx[c] = col_index(hdr, nh, col_names[c]);
	for (line = strtok_r(NULL, "\n", &save);; line = strtok_r(NULL, "\n", &save)) {
		int n = line ? csv_split(line, cols, MAX_COLS) : 0;
		char *col[C__N];

		if (line && n != nh) {
			fprintf(stderr, "calibrate: functions.csv: a row of %d columns, not %d\n",
				n, nh);
			return 2;
		}
		if (!line || strcmp(cols[idx[C_HWID]], machine) != 0) {
			if (s.n) {
				if (run_machine(e, &s, &any_high) < 0 ||
				    run_machine_no_iommu(argv[1], &s, &any_high) < 0)
					return 2;
				n_machines++;
			}
			s.n = 0;
			if (!line)
				break;
			snprintf(machine, sizeof(machine), "%s", cols[idx[C_HWID]]);
		}
		for (int c = 0; c < C__N; c++)
			col[c] = cols[idx[c]];
		if (s.n < MAX_FUNCS) {
			uint64_t serial = 0x5eed0000ull + (uint64_t)n_machines * MAX_FUNCS + s.n;

			fill_fn(col, &s.fn[s.n], serial);
			s.n++;
		}
	}
	printf(markdown ? "Measured on %u machines.\n\n" : "%u machines\n", n_machines);
	print_table(n_machines, markdown);
	engine_free(e);
	free(s.fn);
	free(text);
	if (check && any_high) {
		fprintf(stderr, "calibrate: a rule raised a high alert on an honest machine\n");
		return 1;
	}
	return 0;
}
