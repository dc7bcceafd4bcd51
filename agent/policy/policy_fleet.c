/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The policy's fleet part (policy.h): the seat's label ("seat"), the network of the fleet
 * ("fleet": {"seats": [CIDRs], "servers": [CIDRs or {"address", "name"}]}), the policy's
 * sha256, and the classification of a peer address as seat, server or unknown; who may reach the
 * seat's metrics endpoint ("metrics": TLS files, token file, scrapers, the opt-out).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "config/jsonval.h"
#include "policy.h"
#include "common/hex.h"
#include "common/macro.h"
#include "common/number.h"
#include "common/strutil.h"

static const char *const peer_class_names[RG_PEER__MAX] = {
	[RG_PEER_NONE] = NULL,
	[RG_PEER_SEAT] = "seat",
	[RG_PEER_SERVER] = "server",
	[RG_PEER_UNKNOWN] = "unknown",
};

const char *peer_class_to_string(unsigned c)
{
	return c < RG_PEER__MAX ? peer_class_names[c] : NULL;
}

/* "10.0.0.0/24", "10.0.0.7", "fd00::/64": the IPv4-mapped 128-bit form and its prefix. */
int fleet_parse_cidr(const char *s, struct rg_fleet_net *n)
{
	char buf[64], *slash;
	struct in_addr v4;
	uint32_t prefix, max;
	bool is4;

	if (!strscpy_ok(buf, s, sizeof(buf)))
		return -EINVAL;
	slash = strchr(buf, '/');
	if (slash)
		*slash++ = 0;
	memset(n->addr, 0, sizeof(n->addr));
	if (inet_pton(AF_INET, buf, &v4) == 1) {
		is4 = true;
		n->addr[10] = n->addr[11] = 0xff;
		memcpy(n->addr + 12, &v4, 4);
		max = 32;
	} else if (inet_pton(AF_INET6, buf, n->addr) == 1) {
		is4 = false;
		max = 128;
	} else {
		return -EINVAL;
	}
	if (slash) {
		if (!*slash || safe_atou32(slash, 10, &prefix) < 0 || prefix > max)
			return -EINVAL;
	} else {
		prefix = max;
	}
	n->prefix = (uint8_t)(is4 ? prefix + 96 : prefix);
	/* host bits set: a typo ("10.0.0.1/8" meant "10.0.0.0/8"?) */
	for (unsigned b = n->prefix; b < 128; b++)
		if (n->addr[b / 8] & (0x80u >> (b % 8)))
			return -EDOM;
	return 0;
}

static bool net_match(const struct rg_fleet_net *n, const uint8_t addr[16])
{
	unsigned full = n->prefix / 8, rest = n->prefix % 8;

	if (memcmp(n->addr, addr, full) != 0)
		return false;
	return !rest || ((n->addr[full] ^ addr[full]) & (0xffu << (8 - rest)) & 0xff) == 0;
}

int policy_fleet_classify(const struct rg_policy *p, const uint8_t addr[16], const char **name)
{
	static const uint8_t zero[16];

	if (name)
		*name = NULL;
	if (!p->has_fleet || memcmp(addr, zero, 16) == 0)
		return RG_PEER_NONE;
	/* a server first: a server inside the seats' range is still the server */
	for (size_t i = 0; i < p->n_fleet_servers; i++)
		if (net_match(&p->fleet_servers[i], addr)) {
			if (name)
				*name = p->fleet_servers[i].name;
			return RG_PEER_SERVER;
		}
	for (size_t i = 0; i < p->n_fleet_seats; i++)
		if (net_match(&p->fleet_seats[i], addr))
			return RG_PEER_SEAT;
	return RG_PEER_UNKNOWN;
}

static int net_from(const struct jdoc *doc, size_t pos, const char *s, struct rg_fleet_net *n,
		    struct rg_error *err)
{
	int r = fleet_parse_cidr(s, n);

	if (r == -EDOM)
		return jdoc_error(doc, pos, err, "\"%s\" has host bits set beyond its prefix", s);
	if (r < 0)
		return jdoc_error(doc, pos, err,
				  "\"%s\" is not an address or CIDR (10.0.0.0/24, fd00::/64)", s);
	return 0;
}

static bool valid_label(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > POLICY_SEAT_MAX)
		return false;
	for (; *s; s++)
		if (!((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'z') ||
		      (*s >= 'A' && *s <= 'Z') || strchr("-_.:/ ", *s)))
			return false;
	return true;
}

static int parse_list(const struct jdoc *doc, struct json_object *fleet, const char *key,
		      bool servers, struct rg_fleet_net **ret, size_t *ret_n, struct rg_error *err)
{
	static const char *const server_keys[] = {"address", "name", NULL};
	struct json_object *arr;
	size_t n;

	if (!json_object_object_get_ex(fleet, key, &arr))
		return 0;
	if (!json_object_is_type(arr, json_type_array))
		return jdoc_error(doc, jv_pos(doc, fleet, key, false), err,
				  "\"%s\" must be an array, not %s", key, json_type_words(arr));
	n = json_object_array_length(arr);
	if (n > POLICY_MAX_FLEET)
		return jdoc_error(doc, jv_pos(doc, fleet, key, false), err,
				  "\"%s\" has more than %d entries", key, POLICY_MAX_FLEET);
	if (!n)
		return 0;
	*ret = calloc(n, sizeof(**ret));
	if (!*ret)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		struct json_object *v = json_object_array_get_idx(arr, i);
		size_t pos = jdoc_element_pos(doc, arr, i);
		struct rg_fleet_net *net = &(*ret)[i];
		const char *addr, *name = NULL;
		int r;

		*ret_n = i + 1;
		if (json_object_is_type(v, json_type_string)) {
			addr = json_object_get_string(v);
		} else if (servers && json_object_is_type(v, json_type_object)) {
			r = jv_check_object(doc, v, pos, "a server", server_keys, err);
			if (r >= 0)
				r = jv_string(doc, v, "address", true, &addr, err);
			if (r >= 0)
				r = jv_string(doc, v, "name", false, &name, err);
			if (r < 0)
				return r;
			if (name && !valid_label(name))
				return jdoc_error(doc, jv_pos(doc, v, "name", false), err,
						  "a server's name is 1-%d letters, digits or "
						  "\"-_.:/ \"",
						  POLICY_SEAT_MAX);
			pos = jv_pos(doc, v, "address", false);
		} else {
			return jdoc_error(doc, pos, err,
					  servers ? "a server is a CIDR string or {\"address\", "
						    "\"name\"}, not %s"
						  : "a seat range is a CIDR string, not %s",
					  json_type_words(v));
		}
		r = net_from(doc, pos, addr, net, err);
		if (r < 0)
			return r;
		if (name && !(net->name = strdup(name)))
			return -ENOMEM;
	}
	return 0;
}

bool fleet_nets_match(const struct rg_fleet_net *v, size_t n, const uint8_t addr[16])
{
	for (size_t i = 0; i < n; i++)
		if (net_match(&v[i], addr))
			return true;
	return false;
}

/* An absolute path, strdup'ed into *ret; absent: NULL. */
static int abs_path(const struct jdoc *doc, struct json_object *o, const char *key, char **ret,
		    struct rg_error *err)
{
	const char *s;
	int r = jv_string(doc, o, key, false, &s, err);

	if (r < 0 || !s)
		return r;
	if (s[0] != '/' || strlen(s) >= PATH_MAX)
		return jdoc_error(doc, jv_pos(doc, o, key, false), err,
				  "\"%s\" must be an absolute path", key);
	*ret = strdup(s);
	return *ret ? 0 : -ENOMEM;
}

static int parse_metrics(const struct jdoc *doc, struct json_object *root, struct rg_policy *p,
			 struct rg_error *err)
{
	static const char *const keys[] = {"cert", "key", "token_file", "scrapers",
					   "plaintext_lan", NULL};
	struct rg_policy_metrics *m = &p->metrics;
	struct json_object *o;
	int r, b;

	if (!json_object_object_get_ex(root, "metrics", &o))
		return 0;
	r = jv_check_object(doc, o, jv_pos(doc, root, "metrics", false), "\"metrics\"", keys, err);
	if (r >= 0)
		r = abs_path(doc, o, "cert", &m->cert, err);
	if (r >= 0)
		r = abs_path(doc, o, "key", &m->key, err);
	if (r >= 0)
		r = abs_path(doc, o, "token_file", &m->token_file, err);
	if (r >= 0)
		r = jv_bool(doc, o, "plaintext_lan", &b, err);
	if (r < 0)
		return r;
	m->plaintext_lan = b == 1;
	if (!m->cert != !m->key)
		return jdoc_error(doc, jv_pos(doc, root, "metrics", false), err,
				  "\"metrics\" needs both \"cert\" and \"key\", or neither");
	return parse_list(doc, o, "scrapers", false, &m->scrapers, &m->n_scrapers, err);
}

int policy_parse_fleet(const struct jdoc *doc, struct json_object *root, struct rg_policy *p,
		       struct rg_error *err)
{
	static const char *const keys[] = {"seats", "servers", NULL};
	struct json_object *fleet;
	const char *s;
	size_t len;
	int r;

	if (doc) {
		const char *text = jdoc_text(doc, &len);
		unsigned char md[EVP_MAX_MD_SIZE];
		unsigned mdlen = 0;

		if (EVP_Digest(text, len, md, &mdlen, EVP_sha256(), NULL) != 1 || mdlen != 32)
			return -ENOMEM;
		hex_encode(md, 32, p->sha256);
	}
	r = jv_string(doc, root, "seat", false, &s, err);
	if (r < 0)
		return r;
	if (s && !valid_label(s))
		return jdoc_error(doc, jv_pos(doc, root, "seat", false), err,
				  "\"seat\" is 1-%d letters, digits or \"-_.:/ \" (\"B-12\")",
				  POLICY_SEAT_MAX);
	if (s && !(p->seat = strdup(s)))
		return -ENOMEM;
	r = parse_metrics(doc, root, p, err);
	if (r < 0)
		return r;
	if (!json_object_object_get_ex(root, "fleet", &fleet))
		return 0;
	r = jv_check_object(doc, fleet, jv_pos(doc, root, "fleet", false), "\"fleet\"", keys, err);
	if (r < 0)
		return r;
	p->has_fleet = true;
	r = parse_list(doc, fleet, "seats", false, &p->fleet_seats, &p->n_fleet_seats, err);
	if (r < 0)
		return r;
	return parse_list(doc, fleet, "servers", true, &p->fleet_servers, &p->n_fleet_servers, err);
}

void policy_fleet_done(struct rg_policy *p)
{
	for (size_t i = 0; i < p->n_fleet_servers; i++)
		free(p->fleet_servers[i].name);
	free(p->fleet_servers);
	free(p->fleet_seats);
	free(p->seat);
	free(p->metrics.cert);
	free(p->metrics.key);
	free(p->metrics.token_file);
	free(p->metrics.scrapers);
}
