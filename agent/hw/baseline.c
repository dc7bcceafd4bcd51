/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The seat baseline (baseline.h). One JSON object per function, every value a string in the one
 * form this file writes, so that writing, reading, validating and comparing all go through the
 * same formatter (fp_format()): a value is valid when it is what the formatter could have
 * written, and two fingerprints differ exactly where their strings do.
 *
 *   {"version": 1, "kind": "rdmaguard-seat-baseline", "host": "seat-01", "functions": [
 *    {"address": "0000:00:1f.6", "vendor_id": "0x8086", "device_id": "0x15bc", ...},
 *   ]}
 *
 * Not in it, because they change on a healthy machine: the command and status registers, BAR
 * addresses, interrupt lines, the negotiated link (GPUs drop to 2.5 GT/s when idle: the link's
 * capabilities are kept), the IOMMU group numbers.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/jsonval.h"
#include "hw/baseline.h"
#include "hw/hw-internal.h"
#include "common/strutil.h"

#define BASELINE_MAX_FUNCTIONS HW_MAX_FUNCTIONS
#define FP_LEN		       1024

enum fp_field {
	FP_VENDOR,
	FP_DEVICE,
	FP_SUBSYS_VENDOR,
	FP_SUBSYS_DEVICE,
	FP_CLASS,
	FP_REVISION,
	FP_HEADER,
	FP_CAPS,
	FP_ECAPS,
	FP_DSN,
	FP_BARS,
	FP_ROM,
	FP_LINK,
	FP_DRIVER,
	FP__MAX,
};

static const char *const fp_names[FP__MAX] = {
    [FP_VENDOR] = "vendor_id",
    [FP_DEVICE] = "device_id",
    [FP_SUBSYS_VENDOR] = "subsystem_vendor_id",
    [FP_SUBSYS_DEVICE] = "subsystem_device_id",
    [FP_CLASS] = "class",
    [FP_REVISION] = "revision",
    [FP_HEADER] = "header_type",
    [FP_CAPS] = "capabilities",
    [FP_ECAPS] = "extended_capabilities",
    [FP_DSN] = "dsn",
    [FP_BARS] = "bar_sizes",
    [FP_ROM] = "rom_size",
    [FP_LINK] = "link",
    [FP_DRIVER] = "driver",
};

struct bl_entry {
	char addr[16];
	char *v[FP__MAX];
};

struct hw_baseline {
	struct bl_entry *e;
	size_t n;
	char host[64];
};

/* The one form of each field. */
static void fp_format(const struct hw_fn *fn, unsigned f, char *buf, size_t size)
{
	size_t off = 0;

	buf[0] = 0;
	switch (f) {
	case FP_VENDOR:
		snprintf(buf, size, "0x%04x", fn->vendor);
		break;
	case FP_DEVICE:
		snprintf(buf, size, "0x%04x", fn->device);
		break;
	case FP_SUBSYS_VENDOR:
		snprintf(buf, size, "0x%04x", fn->subsys_vendor);
		break;
	case FP_SUBSYS_DEVICE:
		snprintf(buf, size, "0x%04x", fn->subsys_device);
		break;
	case FP_CLASS:
		snprintf(buf, size, "0x%06x", fn->class_code);
		break;
	case FP_REVISION:
		snprintf(buf, size, "0x%02x", fn->revision);
		break;
	case FP_HEADER:
		snprintf(buf, size, "0x%02x", fn->header_type);
		break;
	case FP_CAPS:
		for (unsigned i = 0; i < fn->n_caps && off + 12 < size; i++)
			off += (size_t)snprintf(buf + off, size - off, "%s0x%02x@0x%02x",
						i ? " " : "", fn->caps[i], fn->cap_offsets[i]);
		if (!fn->n_caps)
			snprintf(buf, size, "none");
		break;
	case FP_ECAPS:
		for (unsigned i = 0; i < fn->n_ecaps && off + 16 < size; i++)
			off += (size_t)snprintf(buf + off, size - off, "%s0x%04x@0x%03x",
						i ? " " : "", fn->ecaps[i], fn->ecap_offsets[i]);
		if (!fn->n_ecaps)
			snprintf(buf, size, "none");
		break;
	case FP_DSN:
		if (fn->has_dsn && size >= 24)
			hw_dsn_format(fn->dsn, buf);
		else
			snprintf(buf, size, "none");
		break;
	case FP_BARS:
		for (unsigned i = 0; i < 6 && off + 22 < size; i++)
			off += (size_t)snprintf(buf + off, size - off, "%s%" PRIu64, i ? " " : "",
						fn->bars[i].size);
		break;
	case FP_ROM:
		snprintf(buf, size, "%" PRIu64, fn->rom_size);
		break;
	case FP_LINK:
		if (fn->pcie)
			snprintf(buf, size, "%ux%u", fn->link.max_speed, fn->link.max_width);
		else
			snprintf(buf, size, "none");
		break;
	case FP_DRIVER:
		snprintf(buf, size, "%s", fn->driver[0] ? fn->driver : "none");
		break;
	default:
		break;
	}
}

/* Whether s is in the form fp_format() writes for field f (checked by reading it back). */
static bool fp_valid(unsigned f, const char *s)
{
	struct hw_fn fn = {0};
	char again[FP_LEN];
	unsigned a, b;
	int n = -1;

	switch (f) {
	case FP_VENDOR:
	case FP_DEVICE:
	case FP_SUBSYS_VENDOR:
	case FP_SUBSYS_DEVICE:
		if (sscanf(s, "0x%4x%n", &a, &n) != 1)
			return false;
		fn.vendor = fn.device = fn.subsys_vendor = fn.subsys_device = (uint16_t)a;
		break;
	case FP_CLASS:
		if (sscanf(s, "0x%6x%n", &a, &n) != 1)
			return false;
		fn.class_code = a;
		break;
	case FP_REVISION:
	case FP_HEADER:
		if (sscanf(s, "0x%2x%n", &a, &n) != 1)
			return false;
		fn.revision = fn.header_type = (uint8_t)a;
		break;
	case FP_CAPS:
	case FP_ECAPS: {
		const char *p = s;

		if (strcmp(s, "none") == 0)
			return true;
		while (*p) {
			int k = -1;

			if (f == FP_CAPS ? fn.n_caps == HW_MAX_CAPS : fn.n_ecaps == HW_MAX_ECAPS)
				return false;
			if (sscanf(p, f == FP_CAPS ? "0x%2x@0x%2x%n" : "0x%4x@0x%3x%n", &a, &b,
				   &k) != 2 ||
			    k < 0)
				return false;
			if (f == FP_CAPS) {
				fn.caps[fn.n_caps] = (uint8_t)a;
				fn.cap_offsets[fn.n_caps++] = (uint16_t)b;
			} else {
				fn.ecaps[fn.n_ecaps] = (uint16_t)a;
				fn.ecap_offsets[fn.n_ecaps++] = (uint16_t)b;
			}
			p += k;
			if (*p == ' ' && p[1])
				p++;
			else if (*p)
				return false;
		}
		n = (int)strlen(s);
		break;
	}
	case FP_DSN: {
		unsigned x[8];

		if (strcmp(s, "none") == 0)
			return true;
		if (sscanf(s, "%2x-%2x-%2x-%2x-%2x-%2x-%2x-%2x%n", &x[0], &x[1], &x[2], &x[3],
			   &x[4], &x[5], &x[6], &x[7], &n) != 8)
			return false;
		fn.has_dsn = true;
		for (unsigned i = 0; i < 8; i++)
			fn.dsn = fn.dsn << 8 | x[i];
		break;
	}
	case FP_BARS: {
		unsigned long long v[6];

		if (sscanf(s, "%llu %llu %llu %llu %llu %llu%n", &v[0], &v[1], &v[2], &v[3], &v[4],
			   &v[5], &n) != 6)
			return false;
		for (unsigned i = 0; i < 6; i++)
			fn.bars[i].size = v[i];
		break;
	}
	case FP_ROM: {
		unsigned long long v;

		if (sscanf(s, "%llu%n", &v, &n) != 1)
			return false;
		fn.rom_size = v;
		break;
	}
	case FP_LINK:
		if (strcmp(s, "none") == 0)
			return true;
		if (sscanf(s, "%ux%u%n", &a, &b, &n) != 2)
			return false;
		fn.pcie = true;
		fn.link.max_speed = a;
		fn.link.max_width = b;
		break;
	case FP_DRIVER:
		if (strlen(s) >= sizeof(fn.driver) || strpbrk(s, " /"))
			return false;
		if (strcmp(s, "none") != 0)
			snprintf(fn.driver, sizeof(fn.driver), "%s", s);
		n = (int)strlen(s);
		break;
	default:
		return false;
	}
	if (n < 0 || s[n])
		return false;
	fp_format(&fn, f, again, sizeof(again));
	return strcmp(again, s) == 0;
}

static void entry_free(struct bl_entry *e)
{
	for (unsigned f = 0; f < FP__MAX; f++)
		free(e->v[f]);
}

void hw_baseline_free(struct hw_baseline *b)
{
	if (!b)
		return;
	for (size_t i = 0; i < b->n; i++)
		entry_free(&b->e[i]);
	free(b->e);
	free(b);
}

static int parse_entry(const struct jdoc *doc, struct json_object *o, size_t pos,
		       struct bl_entry *e, struct rg_error *err)
{
	static const char *keys[FP__MAX + 2];
	const char *s;
	int r;

	keys[0] = "address";
	for (unsigned f = 0; f < FP__MAX; f++)
		keys[f + 1] = fp_names[f];
	keys[FP__MAX + 1] = NULL;
	r = jv_check_object(doc, o, pos, "a baseline function", keys, err);
	if (r < 0)
		return r;
	r = jv_string(doc, o, "address", true, &s, err);
	if (r < 0)
		return r;
	if (!hw_is_pci_addr(s))
		return jdoc_error(
		    doc, jv_pos(doc, o, "address", false), err,
		    "\"address\" must be a PCI address (\"0000:05:00.0\"), not \"%s\"", s);
	memcpy(e->addr, s, 13);
	for (unsigned f = 0; f < FP__MAX; f++) {
		r = jv_string(doc, o, fp_names[f], true, &s, err);
		if (r < 0)
			return r;
		if (strlen(s) >= FP_LEN || !fp_valid(f, s))
			return jdoc_error(doc, jv_pos(doc, o, fp_names[f], false), err,
					  "\"%s\": \"%.64s\" is not a value `baseline save` writes",
					  fp_names[f], s);
		e->v[f] = strdup(s);
		if (!e->v[f])
			return -ENOMEM;
	}
	return 0;
}

static int baseline_from_doc(const struct jdoc *doc, struct hw_baseline **ret, struct rg_error *err)
{
	static const char *const keys[] = {"version", "kind", "host", "functions", NULL};
	struct json_object *root = jdoc_root(doc), *arr;
	struct hw_baseline *b;
	const char *s;
	uint64_t u;
	bool present;
	size_t n;
	int r;

	r = jv_check_object(doc, root, jdoc_value_pos(doc, root), "the baseline", keys, err);
	if (r < 0)
		return r;
	r = jv_u64(doc, root, "version", UINT64_MAX, &u, &present, err);
	if (r < 0)
		return r;
	if (!present || u != 1)
		return jdoc_error(doc, present ? jv_pos(doc, root, "version", false) : JDOC_NOPOS,
				  err, "a baseline needs \"version\": 1");
	r = jv_string(doc, root, "kind", true, &s, err);
	if (r < 0)
		return r;
	if (strcmp(s, "rdmaguard-seat-baseline") != 0)
		return jdoc_error(doc, jv_pos(doc, root, "kind", false), err,
				  "\"kind\" must be \"rdmaguard-seat-baseline\", not \"%s\"", s);
	if (!json_object_object_get_ex(root, "functions", &arr) ||
	    !json_object_is_type(arr, json_type_array))
		return jdoc_error(doc, arr ? jv_pos(doc, root, "functions", false) : JDOC_NOPOS,
				  err, "a baseline needs \"functions\": an array");
	n = json_object_array_length(arr);
	if (n > BASELINE_MAX_FUNCTIONS)
		return jdoc_error(doc, jv_pos(doc, root, "functions", false), err,
				  "\"functions\" has more than %d entries", BASELINE_MAX_FUNCTIONS);
	b = calloc(1, sizeof(*b));
	if (!b || (n && !(b->e = calloc(n, sizeof(*b->e))))) {
		free(b);
		return -ENOMEM;
	}
	r = jv_string(doc, root, "host", false, &s, err);
	if (r < 0)
		goto fail;
	if (s)
		(void)strscpy_ok(b->host, s, sizeof(b->host));
	for (size_t i = 0; i < n; i++) {
		r = parse_entry(doc, json_object_array_get_idx(arr, i),
				jdoc_element_pos(doc, arr, i), &b->e[i], err);
		b->n = i + 1;
		if (r < 0)
			goto fail;
		for (size_t k = 0; k < i; k++)
			if (strcmp(b->e[k].addr, b->e[i].addr) == 0) {
				r = jdoc_error(doc,
					       jv_pos(doc, json_object_array_get_idx(arr, i),
						      "address", false),
					       err, "function %s listed twice", b->e[i].addr);
				goto fail;
			}
	}
	*ret = b;
	return 0;
fail:
	hw_baseline_free(b);
	return r;
}

int hw_baseline_parse(const char *file, const char *text, size_t len, struct hw_baseline **ret,
		      struct rg_error *err)
{
	struct jdoc *doc;
	int r;

	r = jdoc_parse(file, text, len, &doc, err);
	if (r < 0)
		return r;
	r = baseline_from_doc(doc, ret, err);
	jdoc_free(doc);
	return r;
}

int hw_baseline_load(const char *path, bool check_owner, struct hw_baseline **ret,
		     struct rg_error *err)
{
	struct jdoc *doc;
	int r;

	/* Like a policy: what says which hardware is the machine's own must be root's alone. */
	r = jdoc_load(path, check_owner, &doc, err);
	if (r < 0)
		return r;
	r = baseline_from_doc(doc, ret, err);
	jdoc_free(doc);
	return r;
}

/* A JSON string: the values are the formatter's (printable ASCII) or a host name. */
static void put_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

int hw_baseline_write(const struct hw_scan *s, const char *hostname, FILE *f)
{
	char buf[FP_LEN];

	fprintf(f, "{\"version\": 1, \"kind\": \"rdmaguard-seat-baseline\", \"host\": ");
	put_string(f, hostname ? hostname : "");
	fprintf(f, ",\n \"functions\": [");
	for (unsigned i = 0; i < s->n; i++) {
		const struct hw_fn *fn = &s->fn[i];

		fprintf(f, "%s\n  {\"address\": \"%s\"", i ? "," : "", fn->addr);
		for (unsigned k = 0; k < FP__MAX; k++) {
			fp_format(fn, k, buf, sizeof(buf));
			fprintf(f, ", \"%s\": ", fp_names[k]);
			put_string(f, buf);
		}
		fputc('}', f);
	}
	fprintf(f, "\n ]}\n");
	return ferror(f) ? -EIO : 0;
}

static const struct bl_entry *find(const struct hw_baseline *b, const char *addr)
{
	for (size_t i = 0; i < b->n; i++)
		if (strcmp(b->e[i].addr, addr) == 0)
			return &b->e[i];
	return NULL;
}

static unsigned check_entry(const struct bl_entry *e, const struct hw_fn *fn, char *diff,
			    size_t size)
{
	char buf[FP_LEN];
	size_t off = 0;
	unsigned changed = 0;

	for (unsigned f = 0; f < FP__MAX; f++) {
		fp_format(fn, f, buf, sizeof(buf));
		if (strcmp(buf, e->v[f]) == 0)
			continue;
		changed++;
		if (off < size)
			off += (size_t)snprintf(diff + off, size - off, "%s%s %s -> %s",
						changed > 1 ? "; " : "", fp_names[f], e->v[f], buf);
	}
	if (off >= size && size > 4)
		memcpy(diff + size - 4, "...", 4);
	return changed ? RG_HW_CHANGED : RG_HW_NONE;
}

unsigned hw_baseline_check(const struct hw_baseline *b, const struct hw_fn *fn, char *diff,
			   size_t size)
{
	const struct bl_entry *e = find(b, fn->addr);

	if (size)
		diff[0] = 0;
	if (!e) {
		snprintf(diff, size, "not in the baseline");
		return RG_HW_ADDED;
	}
	return check_entry(e, fn, diff, size);
}

bool hw_baseline_covers(const struct hw_baseline *b, const struct hw_fn *fn, bool with_driver)
{
	const struct bl_entry *e = b ? find(b, fn->addr) : NULL;
	char buf[FP_LEN];

	if (!e)
		return false;
	for (unsigned f = 0; f < FP__MAX; f++) {
		if (f == FP_DRIVER && !with_driver)
			continue;
		fp_format(fn, f, buf, sizeof(buf));
		if (strcmp(buf, e->v[f]) != 0)
			return false;
	}
	return true;
}

unsigned hw_baseline_exempt(const struct hw_baseline *b, const struct hw_fn *fn)
{
	const struct bl_entry *e = b ? find(b, fn->addr) : NULL;

	if (!e || !hw_baseline_covers(b, fn, false))
		return HW_BL_NOT;
	/* the same driver, or none in the baseline (a driver installed since) */
	if (hw_baseline_covers(b, fn, true) || strcmp(e->v[FP_DRIVER], "none") == 0)
		return HW_BL_COVERED;
	/* the baseline has a driver there: driverless now is a clone's state, or a probe to come */
	return fn->driver[0] ? HW_BL_NOT : HW_BL_DRIVERLESS;
}

/* The function the baseline describes (for a removed one): what the event needs. */
static void entry_to_fn(const struct bl_entry *e, struct hw_fn *fn)
{
	unsigned v;

	memset(fn, 0, sizeof(*fn));
	fn->iommu_group = -1;
	memcpy(fn->addr, e->addr, sizeof(fn->addr));
	if (sscanf(e->v[FP_VENDOR], "0x%x", &v) == 1)
		fn->vendor = (uint16_t)v;
	if (sscanf(e->v[FP_DEVICE], "0x%x", &v) == 1)
		fn->device = (uint16_t)v;
	if (sscanf(e->v[FP_SUBSYS_VENDOR], "0x%x", &v) == 1)
		fn->subsys_vendor = (uint16_t)v;
	if (sscanf(e->v[FP_SUBSYS_DEVICE], "0x%x", &v) == 1)
		fn->subsys_device = (uint16_t)v;
	if (sscanf(e->v[FP_CLASS], "0x%x", &v) == 1)
		fn->class_code = v;
	if (strcmp(e->v[FP_DRIVER], "none") != 0)
		(void)strscpy_ok(fn->driver, e->v[FP_DRIVER], sizeof(fn->driver));
	hw_fn_lookup_names(fn);
}

int hw_baseline_compare(const struct hw_baseline *b, const struct hw_scan *s, uint64_t now_ns,
			int (*cb)(const struct rg_event *ev, void *userdata), void *userdata)
{
	struct rg_event ev;
	char diff[RG_TEXT_LEN];
	int r;

	for (unsigned i = 0; i < s->n; i++) {
		unsigned c = hw_baseline_check(b, &s->fn[i], diff, sizeof(diff));

		if (c == RG_HW_NONE)
			continue;
		hw_fn_to_event(&s->fn[i], RG_EV_HW_BASELINE, RG_PROV_INVENTORY, now_ns, &ev);
		ev.u.pci.change = c;
		event_set_str(ev.u.pci.text, sizeof(ev.u.pci.text), diff, sizeof(diff));
		r = cb(&ev, userdata);
		if (r)
			return r;
	}
	for (size_t i = 0; i < b->n; i++) {
		struct hw_fn fn;

		if (hw_scan_find(s, b->e[i].addr))
			continue;
		entry_to_fn(&b->e[i], &fn);
		hw_fn_to_event(&fn, RG_EV_HW_BASELINE, RG_PROV_INVENTORY, now_ns, &ev);
		ev.u.pci.change = RG_HW_REMOVED;
		event_set_str(ev.u.pci.text, sizeof(ev.u.pci.text), "not on this machine", 19);
		r = cb(&ev, userdata);
		if (r)
			return r;
	}
	return 0;
}

size_t hw_baseline_size(const struct hw_baseline *b)
{
	return b ? b->n : 0;
}
