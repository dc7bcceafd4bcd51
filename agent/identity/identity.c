/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The seat's identity (identity.h): hostname, machine-id and os-release read below a root with
 * the bounded, contained readers of common/root.h; addresses from getifaddrs().
 */
#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "common/jsonc.h"
#include "common/macro.h"
#include "common/root.h"
#include "common/strutil.h"
#include "identity.h"

#define OS_RELEASE_MAX (64 * 1024)

static bool valid_machine_id(const char *s)
{
	size_t i;

	for (i = 0; i < 32; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return s[32] == 0;
}

/* One value of os-release: unquoted, '\' escapes taken, control bytes already replaced. */
static void os_value(char *dst, size_t size, const char *v, size_t len)
{
	size_t o = 0, i = 0;
	char q = 0;

	if (len && (v[0] == '"' || v[0] == '\'')) {
		q = v[0];
		i = 1;
	}
	for (; i < len && o + 1 < size; i++) {
		if (q && v[i] == q)
			break;
		if (q == '"' && v[i] == '\\' && i + 1 < len)
			i++;
		dst[o++] = v[i];
	}
	dst[o] = 0;
	str_sanitize(dst);
}

void identity_parse_os_release(struct rg_identity *id, const char *text)
{
	char like[64] = "";
	const char *p = text;

	while (p && *p) {
		const char *nl = strchr(p, '\n'), *eq;
		size_t len = nl ? (size_t)(nl - p) : strlen(p);

		eq = memchr(p, '=', len);
		if (eq && p[0] != '#') {
			size_t klen = (size_t)(eq - p), vlen = len - klen - 1;
			const char *v = eq + 1;
#define KEY(k) (klen == sizeof(k) - 1 && memcmp(p, k, klen) == 0)
			if (KEY("NAME"))
				os_value(id->os_name, sizeof(id->os_name), v, vlen);
			else if (KEY("VERSION_ID"))
				os_value(id->os_version, sizeof(id->os_version), v, vlen);
			else if (KEY("PRETTY_NAME"))
				os_value(id->os_full, sizeof(id->os_full), v, vlen);
			else if (KEY("ID"))
				os_value(id->os_platform, sizeof(id->os_platform), v, vlen);
			else if (KEY("ID_LIKE"))
				os_value(like, sizeof(like), v, vlen);
#undef KEY
		}
		p = nl ? nl + 1 : NULL;
	}
	like[strcspn(like, " \t")] = 0;
	strscpy_ok(id->os_family, like[0] ? like : id->os_platform, sizeof(id->os_family));
}

int identity_collect(const char *root, struct rg_identity *id)
{
	struct rg_root rt = {.fd = -1};
	char *text = NULL;
	int r;

	memset(id, 0, sizeof(*id));
	r = root_init(&rt, root ? root : "/");
	if (r < 0)
		return r;
	if (rt.is_host) {
		struct utsname u;

		if (gethostname(id->name, sizeof(id->name) - 1) < 0)
			id->name[0] = 0;
		str_sanitize(id->name);
		if (uname(&u) == 0) {
			strscpy_ok(id->kernel, u.release, sizeof(id->kernel));
			strscpy_ok(id->arch, u.machine, sizeof(id->arch));
		}
	} else if (root_read_line(&rt, "/etc/hostname", id->name, sizeof(id->name)) < 0) {
		id->name[0] = 0;
	}
	if (root_read_line(&rt, "/etc/machine-id", id->id, sizeof(id->id)) < 0 ||
	    !valid_machine_id(id->id))
		id->id[0] = 0;
	if (root_read_file(&rt, "/etc/os-release", OS_RELEASE_MAX, &text, NULL, NULL) < 0 &&
	    root_read_file(&rt, "/usr/lib/os-release", OS_RELEASE_MAX, &text, NULL, NULL) < 0)
		text = NULL;
	if (text) {
		/* a NUL inside ends the text: what follows it is not os-release */
		identity_parse_os_release(id, text);
		free(text);
	}
	root_done(&rt);
	return 0;
}

static int cmp_ip(const void *a, const void *b)
{
	return strcmp(a, b);
}

/* Whether s is among the n strings of stride bytes at list. */
static bool has(const char *list, size_t stride, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(list + i * stride, s) == 0)
			return true;
	return false;
}

int identity_refresh_addrs(struct rg_identity *id)
{
	char ip[IDENTITY_MAX_ADDRS][IDENTITY_IP_LEN], mac[IDENTITY_MAX_ADDRS][IDENTITY_MAC_LEN];
	size_t nip = 0, nmac = 0;
	struct ifaddrs *ifa, *i;
	bool changed;

	if (getifaddrs(&ifa) < 0)
		return -errno;
	for (i = ifa; i; i = i->ifa_next) {
		char buf[IDENTITY_IP_LEN];

		if (!i->ifa_addr || (i->ifa_flags & IFF_LOOPBACK))
			continue;
		if (i->ifa_addr->sa_family == AF_INET && nip < IDENTITY_MAX_ADDRS) {
			const struct sockaddr_in *s = (const void *)i->ifa_addr;

			if (inet_ntop(AF_INET, &s->sin_addr, buf, sizeof(buf)) &&
			    !has(ip[0], sizeof(ip[0]), nip, buf))
				strcpy(ip[nip++], buf);
		} else if (i->ifa_addr->sa_family == AF_INET6 && nip < IDENTITY_MAX_ADDRS) {
			const struct sockaddr_in6 *s = (const void *)i->ifa_addr;

			/* link-local addresses name no seat beyond its own link */
			if (IN6_IS_ADDR_LINKLOCAL(&s->sin6_addr))
				continue;
			if (inet_ntop(AF_INET6, &s->sin6_addr, buf, sizeof(buf)) &&
			    !has(ip[0], sizeof(ip[0]), nip, buf))
				strcpy(ip[nip++], buf);
		} else if (i->ifa_addr->sa_family == AF_PACKET && nmac < IDENTITY_MAX_ADDRS) {
			const struct sockaddr_ll *s = (const void *)i->ifa_addr;
			const unsigned char *a = s->sll_addr;

			if (s->sll_halen != 6 || !(a[0] | a[1] | a[2] | a[3] | a[4] | a[5]))
				continue;
			snprintf(buf, sizeof(buf), "%02X-%02X-%02X-%02X-%02X-%02X", a[0], a[1],
				 a[2], a[3], a[4], a[5]);
			if (!has(mac[0], sizeof(mac[0]), nmac, buf))
				strcpy(mac[nmac++], buf);
		}
	}
	freeifaddrs(ifa);
	qsort(ip, nip, sizeof(ip[0]), cmp_ip);
	qsort(mac, nmac, sizeof(mac[0]), cmp_ip);
	changed = nip != id->n_ip || nmac != id->n_mac ||
		  memcmp(ip, id->ip, nip * sizeof(ip[0])) != 0 ||
		  memcmp(mac, id->mac, nmac * sizeof(mac[0])) != 0;
	memcpy(id->ip, ip, nip * sizeof(ip[0]));
	memcpy(id->mac, mac, nmac * sizeof(mac[0]));
	id->n_ip = nip;
	id->n_mac = nmac;
	return changed;
}

struct json_object *identity_host_json(const struct rg_identity *id)
{
	struct json_object *h = json_object_new_object(), *os = json_object_new_object(), *a;

	json_add_str_nonempty(h, "name", id->name);
	json_add_str_nonempty(h, "hostname", id->name);
	json_add_str_nonempty(h, "id", id->id);
	json_add_str_nonempty(h, "architecture", id->arch);
	a = json_object_new_array();
	for (size_t i = 0; i < id->n_ip; i++)
		json_object_array_add(a, json_object_new_string(id->ip[i]));
	json_add_obj(h, "ip", a);
	a = json_object_new_array();
	for (size_t i = 0; i < id->n_mac; i++)
		json_object_array_add(a, json_object_new_string(id->mac[i]));
	json_add_obj(h, "mac", a);
	json_add_obj(os, "type", json_object_new_string("linux"));
	json_add_str_nonempty(os, "family", id->os_family);
	json_add_str_nonempty(os, "platform", id->os_platform);
	json_add_str_nonempty(os, "name", id->os_name);
	json_add_str_nonempty(os, "version", id->os_version);
	json_add_str_nonempty(os, "full", id->os_full);
	json_add_str_nonempty(os, "kernel", id->kernel);
	json_add_obj(h, "os", os);
	return h;
}
