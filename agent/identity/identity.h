/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The seat's identity, in ECS names, for every alert, heartbeat and `status`: host.name,
 * host.id (/etc/machine-id), host.ip[] and host.mac[] (non-loopback interfaces), host.os.*
 * (os-release, uname). Files are read below a root (rg_root: bounded, no symlink escapes), so
 * `audit --root` names the image's machine; addresses and the kernel only for the live host.
 *
 * The addresses change (DHCP, a cable moved): identity_refresh_addrs() re-reads them and says
 * whether anything changed; the daemon calls it on every heartbeat (one getifaddrs()).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include <json-c/json.h>

#define IDENTITY_MAX_ADDRS 32 /* per list: more interfaces than this on a seat is not a seat */
#define IDENTITY_IP_LEN	   46 /* INET6_ADDRSTRLEN */
#define IDENTITY_MAC_LEN   18 /* "AA-BB-CC-DD-EE-FF" */

struct rg_identity {
	char name[256];	      /* hostname */
	char id[33];	      /* machine-id: 32 lowercase hex digits; "" if missing or malformed */
	char os_name[128];    /* os-release NAME */
	char os_version[64];  /* VERSION_ID */
	char os_full[128];    /* PRETTY_NAME */
	char os_platform[64]; /* ID ("debian") */
	char os_family[64];   /* the first word of ID_LIKE, else ID */
	char kernel[128];     /* uname -r (live host only) */
	char arch[32];	      /* uname -m (live host only) */
	size_t n_ip, n_mac;
	char ip[IDENTITY_MAX_ADDRS][IDENTITY_IP_LEN];	/* sorted */
	char mac[IDENTITY_MAX_ADDRS][IDENTITY_MAC_LEN]; /* sorted, ECS form */
};

/*
 * Fills everything but the addresses. root: NULL or "/" for this machine (hostname from
 * gethostname(), kernel from uname()); another root: /etc/hostname below it, no kernel. Missing
 * or malformed files leave their fields empty. 0, or -errno if the root cannot be opened.
 */
int identity_collect(const char *root, struct rg_identity *id);
/* Re-reads host.ip and host.mac of this machine. 1 if they changed, 0 if not, -errno. */
int identity_refresh_addrs(struct rg_identity *id);
/* Parses os-release text into id's os_* fields (exposed for tests). */
void identity_parse_os_release(struct rg_identity *id, const char *text);

/* The "host" object: {"name", "hostname", "id", "ip": [], "mac": [], "os": {...}, ...}. */
struct json_object *identity_host_json(const struct rg_identity *id);
