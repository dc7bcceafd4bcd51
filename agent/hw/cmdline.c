/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The kernel command line's IOMMU options (cmdline.h), after the kernel's own parsers on x86:
 * kernel/params.c (next_arg(), parameq()), arch/x86/kernel/pci-dma.c (iommu=),
 * drivers/iommu/intel/iommu.c (intel_iommu=), drivers/iommu/amd/init.c (amd_iommu=),
 * drivers/iommu/intel/irq_remapping.c (intremap=), drivers/iommu/iommu.c (iommu.passthrough=),
 * drivers/firmware/efi (efi=), lib/kstrtox.c (kstrtobool()).
 */
#include <string.h>

#include "cmdline.h"

enum {
	W_INTEL,
	W_AMD,
	W_NO_IOMMU,
	W_PT,
	W_SOFT,
	W_INTREMAP,
	W_EFI,
	W__MAX,
};

struct state {
	bool on[W__MAX];
	const char *arg[W__MAX]; /* the argument that set it last */
	size_t arg_len[W__MAX];
};

static void set(struct state *s, unsigned w, bool on, const char *arg, size_t n)
{
	s->on[w] = on;
	s->arg[w] = arg;
	s->arg_len[w] = n;
}

/* parameq(): '-' and '_' are the same in a parameter's name */
static bool name_is(const char *p, size_t n, const char *name)
{
	if (strlen(name) != n)
		return false;
	for (size_t i = 0; i < n; i++) {
		char a = p[i] == '-' ? '_' : p[i], b = name[i] == '-' ? '_' : name[i];

		if (a != b)
			return false;
	}
	return true;
}

/* strncmp(tok, word, strlen(word)) == 0 within the token's n bytes, as the drivers match */
static bool prefix(const char *tok, size_t n, const char *word)
{
	size_t w = strlen(word);

	return n >= w && memcmp(tok, word, w) == 0;
}

/* kstrtobool(): 1 true, 0 false, -1 neither */
static int kbool(const char *v, size_t n)
{
	if (n == 0)
		return -1;
	switch (v[0]) {
	case 'y':
	case 'Y':
	case 't':
	case 'T':
	case '1':
		return 1;
	case 'n':
	case 'N':
	case 'f':
	case 'F':
	case '0':
		return 0;
	case 'o':
	case 'O':
		if (n >= 2 && (v[1] == 'n' || v[1] == 'N'))
			return 1;
		if (n >= 2 && (v[1] == 'f' || v[1] == 'F'))
			return 0;
		return -1;
	default:
		return -1;
	}
}

/* One value's comma list, each token to fn (the kernel skips empty tokens). */
static void tokens(struct state *s, const char *v, size_t n, const char *arg, size_t arg_n,
		   void (*fn)(struct state *, const char *, size_t, const char *, size_t))
{
	while (n) {
		const char *c = memchr(v, ',', n);
		size_t t = c ? (size_t)(c - v) : n;

		if (t)
			fn(s, v, t, arg, arg_n);
		if (!c)
			break;
		n -= t + 1;
		v = c + 1;
	}
}

static void x86_iommu(struct state *s, const char *t, size_t n, const char *arg, size_t an)
{
	/* arch/x86/kernel/pci-dma.c iommu_setup(): every test applies, in this order */
	if (prefix(t, n, "off"))
		set(s, W_NO_IOMMU, true, arg, an);
	if (prefix(t, n, "soft"))
		set(s, W_SOFT, true, arg, an);
	if (prefix(t, n, "pt"))
		set(s, W_PT, true, arg, an);
	if (prefix(t, n, "nopt"))
		set(s, W_PT, false, arg, an);
}

static void intel(struct state *s, const char *t, size_t n, const char *arg, size_t an)
{
	if (prefix(t, n, "on"))
		set(s, W_INTEL, false, arg, an);
	else if (prefix(t, n, "off"))
		set(s, W_INTEL, true, arg, an);
	else if (prefix(t, n, "tboot_noforce"))
		set(s, W_INTEL, true, arg, an);
}

static void amd(struct state *s, const char *t, size_t n, const char *arg, size_t an)
{
	if (prefix(t, n, "off"))
		set(s, W_AMD, true, arg, an);
	else if (prefix(t, n, "force_enable"))
		set(s, W_AMD, false, arg, an);
}

static void intremap(struct state *s, const char *t, size_t n, const char *arg, size_t an)
{
	if (prefix(t, n, "on"))
		set(s, W_INTREMAP, false, arg, an);
	else if (prefix(t, n, "off"))
		set(s, W_INTREMAP, true, arg, an);
}

static void efi(struct state *s, const char *t, size_t n, const char *arg, size_t an)
{
	/* parse_option_str(): whole tokens */
	if (n == strlen("no_disable_early_pci_dma") && prefix(t, n, "no_disable_early_pci_dma"))
		set(s, W_EFI, true, arg, an);
	else if (n == strlen("disable_early_pci_dma") && prefix(t, n, "disable_early_pci_dma"))
		set(s, W_EFI, false, arg, an);
}

static void one(struct state *s, const char *name, size_t nn, const char *val, size_t vn,
		bool has_val, const char *arg, size_t an)
{
	int b;

	if (!has_val)
		return; /* these early parameters all want a value */
	if (name_is(name, nn, "iommu"))
		tokens(s, val, vn, arg, an, x86_iommu);
	else if (name_is(name, nn, "intel_iommu"))
		tokens(s, val, vn, arg, an, intel);
	else if (name_is(name, nn, "amd_iommu"))
		tokens(s, val, vn, arg, an, amd);
	else if (name_is(name, nn, "intremap"))
		tokens(s, val, vn, arg, an, intremap);
	else if (name_is(name, nn, "efi"))
		tokens(s, val, vn, arg, an, efi);
	else if (name_is(name, nn, "iommu.passthrough") && (b = kbool(val, vn)) >= 0)
		set(s, W_PT, b == 1, arg, an);
}

static bool space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

bool hw_cmdline_relevant(const char *arg, size_t n)
{
	static const char *const prefixes[] = {
	    "intel_iommu=", "amd_iommu=", "amd_iommu_", "iommu=", "iommu.", "iommu_", "vfio",
	    "swiotlb=", "pci=", "thunderbolt.", "efi=", "module_blacklist=", "modprobe.blacklist=",
	    "initcall_blacklist=", "lockdown=", "nomodule", "module.sig_enforce",
	};

	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (prefix(arg, n, prefixes[i]))
			return true;
	return false;
}

/* Appends one argument to the report, space-separated, unprintable bytes as '?'. */
static void report_add(char *report, size_t size, size_t *used, const char *arg, size_t n)
{
	if (!report || *used + n + 2 > size)
		return;
	if (*used)
		report[(*used)++] = ' ';
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)arg[i];

		report[(*used)++] = c < 0x20 || c >= 0x7f ? '?' : (char)c;
	}
	report[*used] = 0;
}

/* The arguments that weaken, in the order they were written, each once. */
static void describe(const struct state *s, struct hw_cmdline *ret)
{
	size_t used = 0;
	const char *last = NULL;

	ret->weakening[0] = 0;
	for (;;) {
		const char *next = NULL;
		size_t n = 0;

		for (unsigned w = 0; w < W__MAX; w++)
			if (s->on[w] && s->arg[w] > last && (!next || s->arg[w] < next)) {
				next = s->arg[w];
				n = s->arg_len[w];
			}
		if (!next)
			break;
		last = next;
		if (used + n + 2 > sizeof(ret->weakening))
			continue;
		if (used)
			ret->weakening[used++] = ' ';
		for (size_t i = 0; i < n; i++) {
			unsigned char c = (unsigned char)next[i];

			ret->weakening[used++] = c < 0x20 || c >= 0x7f ? '?' : (char)c;
		}
		ret->weakening[used] = 0;
	}
}

void hw_cmdline_parse(const char *line, size_t len, struct hw_cmdline *ret)
{
	hw_cmdline_parse_report(line, len, ret, NULL, 0);
}

void hw_cmdline_parse_report(const char *line, size_t len, struct hw_cmdline *ret, char *report,
			     size_t size)
{
	struct state s = {0};
	const char *p = line, *end;
	size_t used = 0;

	memset(ret, 0, sizeof(*ret));
	if (report && size)
		report[0] = 0;
	if (!line)
		return;
	end = memchr(line, 0, len);
	if (!end)
		end = line + len;
	for (;;) {
		const char *arg, *arg_end, *tail, *eq = NULL, *name, *val;
		size_t nn, vn;
		bool quoted = false, lead;

		while (p < end && space(*p))
			p++;
		if (p == end)
			break;
		arg = p;
		/* next_arg(): up to a space outside double quotes; '=' the first one anywhere */
		for (; p < end && (quoted || !space(*p)); p++) {
			if (*p == '=' && !eq)
				eq = p;
			if (*p == '"')
				quoted = !quoted;
		}
		arg_end = tail = p;
		lead = *arg == '"';
		name = lead ? arg + 1 : arg;
		/* no quotes in the value; a quoted argument loses its closing quote */
		if (tail[-1] == '"' && tail - 1 > (eq ? eq : name) &&
		    (lead || (eq && eq + 1 < arg_end && eq[1] == '"')))
			tail--;
		if (eq) {
			nn = (size_t)(eq - name);
			val = eq + 1;
			if (val < tail && *val == '"')
				val++;
			vn = tail > val ? (size_t)(tail - val) : 0;
		} else {
			nn = (size_t)(tail - name);
			val = tail;
			vn = 0;
		}
		if (!eq && !lead && nn == 2 && memcmp(name, "--", 2) == 0)
			break; /* what follows is init's */
		if (hw_cmdline_relevant(name, (size_t)(arg_end - name)))
			report_add(report, size, &used, arg, (size_t)(arg_end - arg));
		one(&s, name, nn, val, vn, eq != NULL, arg, (size_t)(arg_end - arg));
	}
	ret->intel_off = s.on[W_INTEL];
	ret->amd_off = s.on[W_AMD];
	ret->no_iommu = s.on[W_NO_IOMMU];
	ret->passthrough = s.on[W_PT];
	ret->soft = s.on[W_SOFT];
	ret->intremap_off = s.on[W_INTREMAP];
	ret->efi_early_dma = s.on[W_EFI];
	describe(&s, ret);
}
