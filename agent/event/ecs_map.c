/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The ECS names of the documents sent (ecs_map.h): the table of ECS's members of the objects
 * the documents use, the walk that moves every other member under rdmaguard.*, over a jsonw
 * document (alerts) and a json-c one (notices), and ECS's categorisation of each event type.
 * tests/integration/fleet/test_ecs.py checks the result against ECS's own field definitions.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "ecs_map.h"
#include "common/macro.h"

/* An object of the document: its ECS members. KEEP: a member whose whole value is ECS's. */
enum ecs_set { S_KEEP = -1, S_ROOT, S_EVENT, S_PROCESS, S_AGENT, S_RULE, S_DLL, S_FILE, S_NETWORK };

struct ecs_member {
	const char *key;
	int set;	    /* what the member's value is (an enum ecs_set) */
	const char *rename; /* its ECS name, where ours differs */
};

#define K(k)                                                                                       \
	{                                                                                          \
		(k), S_KEEP, NULL                                                                  \
	}
#define O(k, s)                                                                                    \
	{                                                                                          \
		(k), (s), NULL                                                                     \
	}
#define R(k, to)                                                                                   \
	{                                                                                          \
		(k), S_KEEP, (to)                                                                  \
	}

static const struct ecs_member root_m[] = {
    K("@timestamp"),
    K("message"),
    K("tags"),
    K("labels"),
    K("ecs"),
    K("rdmaguard"),
    K("host"),
    K("related"),
    K("threat"),
    K("source"),
    K("destination"),
    O("event", S_EVENT),
    O("process", S_PROCESS),
    O("agent", S_AGENT),
    O("rule", S_RULE),
    O("dll", S_DLL),
    O("file", S_FILE),
    O("network", S_NETWORK),
};
static const struct ecs_member event_m[] = {
    K("action"),     K("agent_id_status"),
    K("category"),   K("code"),
    K("created"),    K("dataset"),
    K("duration"),   K("end"),
    K("hash"),	     K("id"),
    K("ingested"),   K("kind"),
    K("module"),     K("original"),
    K("outcome"),    K("provider"),
    K("reason"),     K("reference"),
    K("risk_score"), K("risk_score_norm"),
    K("sequence"),   K("severity"),
    K("start"),	     K("timezone"),
    K("type"),	     K("url"),
};
/* The members that process and process.parent both have in ECS. */
static const struct ecs_member process_m[] = {
    K("args"),
    K("args_count"),
    K("code_signature"),
    K("command_line"),
    K("elf"),
    K("end"),
    K("entity_id"),
    K("executable"),
    K("exit_code"),
    K("group"),
    K("group_leader"),
    K("hash"),
    K("interactive"),
    K("macho"),
    K("name"),
    O("parent", S_PROCESS),
    K("pe"),
    K("pid"),
    K("real_group"),
    K("real_user"),
    K("saved_group"),
    K("saved_user"),
    K("start"),
    R("start_time", "start"),
    K("supplemental_groups"),
    K("thread"),
    K("title"),
    K("tty"),
    K("uptime"),
    K("user"),
    K("vpid"),
    K("working_directory"),
};
static const struct ecs_member agent_m[] = {
    K("build"), K("ephemeral_id"), K("id"), K("name"), K("type"), K("version"),
};
static const struct ecs_member rule_m[] = {
    K("author"), K("category"),	 K("description"), K("id"),   K("license"),
    K("name"),	 K("reference"), K("ruleset"),	   K("uuid"), K("version"),
};
static const struct ecs_member dll_m[] = {
    K("code_signature"), K("hash"), K("name"), K("origin_referrer_url"),
    K("origin_url"),	 K("path"), K("pe"),
};
static const struct ecs_member file_m[] = {
    K("accessed"),   K("attributes"),	K("code_signature"),
    K("created"),    K("ctime"),	K("device"),
    K("directory"),  K("drive_letter"), K("elf"),
    K("extension"),  K("fork_name"),	K("gid"),
    K("group"),	     K("hash"),		K("inode"),
    K("macho"),	     K("mime_type"),	K("mode"),
    K("mtime"),	     K("name"),		K("origin_referrer_url"),
    K("origin_url"), K("owner"),	K("path"),
    K("pe"),	     K("size"),		K("target_path"),
    K("type"),	     K("uid"),		K("x509"),
};
static const struct ecs_member network_m[] = {
    K("application"), K("bytes"), K("community_id"), K("direction"), K("forwarded_ip"),
    K("iana_number"), K("inner"), K("name"),	     K("packets"),   K("protocol"),
    K("transport"),   K("type"),  K("vlan"),
};

static const struct {
	const struct ecs_member *m;
	size_t n;
} sets[] = {
    [S_ROOT] = {root_m, ARRAY_SIZE(root_m)},
    [S_EVENT] = {event_m, ARRAY_SIZE(event_m)},
    [S_PROCESS] = {process_m, ARRAY_SIZE(process_m)},
    [S_AGENT] = {agent_m, ARRAY_SIZE(agent_m)},
    [S_RULE] = {rule_m, ARRAY_SIZE(rule_m)},
    [S_DLL] = {dll_m, ARRAY_SIZE(dll_m)},
    [S_FILE] = {file_m, ARRAY_SIZE(file_m)},
    [S_NETWORK] = {network_m, ARRAY_SIZE(network_m)},
};

static const struct ecs_member *find(int set, const char *key, size_t klen)
{
	size_t i;

	/* the first byte first: every member of every document is looked up here, and strncmp()
	 * on each of the table's keys was most of the walk's cost */
	for (i = 0; klen && i < sets[set].n; i++)
		if (sets[set].m[i].key[0] == key[0] &&
		    strncmp(sets[set].m[i].key, key, klen) == 0 && !sets[set].m[i].key[klen])
			return &sets[set].m[i];
	return NULL;
}

/* The path of the object being walked (its keys from the root), for rdmaguard.<path>. */
#define MAP_DEPTH 8
struct map_path {
	const char *key[MAP_DEPTH];
	size_t klen[MAP_DEPTH];
	size_t n;
};

static int map_jw_obj(struct jw *w, jw_node obj, int set, struct map_path *p)
{
	jw_node c, next, dest;
	size_t i, klen;

	for (c = jw_first(w, obj); c; c = next) {
		const char *key = jw_key(w, c, &klen);
		const struct ecs_member *m = find(set, key, klen);

		next = jw_next(w, c);
		if (m && m->rename) {
			jw_move(w, obj, c, obj, m->rename, strlen(m->rename));
		} else if (m && m->set != S_KEEP && jw_is_object(w, c) && p->n < MAP_DEPTH) {
			p->key[p->n] = key;
			p->klen[p->n++] = klen;
			map_jw_obj(w, c, m->set, p);
			p->n--;
		} else if (!m) {
			dest = jw_object(w, JW_ROOT, "rdmaguard");
			for (i = 0; i < p->n; i++)
				dest = jw_object_kl(w, dest, p->key[i], p->klen[i]);
			jw_move(w, obj, c, dest, key, klen);
		}
	}
	return jw_failed(w) ? -ENOMEM : 0;
}

int ecs_map_jw(struct jw *w)
{
	struct map_path p = {.n = 0};

	return map_jw_obj(w, JW_ROOT, S_ROOT, &p);
}

/* obj[key] as an object, made where missing (a value there that is no object is replaced). */
static struct json_object *json_obj(struct json_object *obj, const char *key)
{
	struct json_object *o;

	if (json_object_object_get_ex(obj, key, &o) && json_object_is_type(o, json_type_object))
		return o;
	o = json_object_new_object();
	if (o && json_object_object_add(obj, key, o) < 0) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

static int map_json_obj(struct json_object *root, struct json_object *obj, int set,
			const char **path, size_t depth)
{
	json_object_object_foreach(obj, key, val)
	{
		const struct ecs_member *m = find(set, key, strlen(key));
		struct json_object *dest = obj; /* a rename stays in obj */
		char name[128];
		size_t i;

		if (m && m->set != S_KEEP && !m->rename &&
		    json_object_is_type(val, json_type_object) && depth < MAP_DEPTH) {
			path[depth] = key;
			if (map_json_obj(root, val, m->set, path, depth + 1) < 0)
				return -ENOMEM;
			continue;
		}
		if (m && !m->rename)
			continue;
		if (!m) {
			dest = json_obj(root, "rdmaguard");
			for (i = 0; dest && i < depth; i++)
				dest = json_obj(dest, path[i]);
			if (!dest)
				return -ENOMEM;
		}
		/* The member is deleted (its key freed) before it is added again. */
		snprintf(name, sizeof(name), "%s", m ? m->rename : key);
		json_object_get(val);
		json_object_object_del(obj, key);
		if (json_object_object_add(dest, name, val) < 0) {
			json_object_put(val);
			return -ENOMEM;
		}
	}
	return 0;
}

int ecs_map_json(struct json_object *doc)
{
	const char *path[MAP_DEPTH];

	return map_json_obj(doc, doc, S_ROOT, path, 0);
}

int ecs_map_name(const char *event_name, char *buf, size_t size)
{
	const char *seg = event_name, *dot;
	size_t off = 0;
	int set = S_ROOT, n;

	while (set != S_KEEP) {
		const struct ecs_member *m;

		dot = strchr(seg, '.');
		m = find(set, seg, dot ? (size_t)(dot - seg) : strlen(seg));
		if (!m) {
			n = snprintf(buf, size, "rdmaguard.%s", event_name);
			return n < 0 || (size_t)n >= size ? -ENOSPC : 0;
		}
		if (m->rename) {
			n = snprintf(buf + off, size - off, "%s%s", m->rename, dot ? dot : "");
			return n < 0 || (size_t)n >= size - off ? -ENOSPC : 0;
		}
		if (!dot)
			break;
		set = m->set;
		seg = dot + 1;
		off = (size_t)(seg - event_name);
		if (off >= size)
			return -ENOSPC;
		memcpy(buf, event_name, off);
	}
	n = snprintf(buf + off, size - off, "%s", event_name + off);
	return n < 0 || (size_t)n >= size - off ? -ENOSPC : 0;
}

/* ECS's categorisation of each event type: event.category, event.type (values ECS allows for
 * that category) and the outcome when no flag says otherwise. */
struct ecs_cat {
	const char *category[3]; /* NULL-terminated */
	const char *type[3];
	const char *outcome;
};

static const struct ecs_cat cats[RG_EV__MAX] = {
    [RG_EV_NONE] = {{"host"}, {"info"}, "unknown"},
    [RG_EV_PROCESS_PRESENT] = {{"process"}, {"info"}, "unknown"},
    [RG_EV_EXEC] = {{"process"}, {"start"}, "success"},
    [RG_EV_FORK] = {{"process"}, {"start"}, "success"},
    [RG_EV_EXIT] = {{"process"}, {"end"}, "success"},
    [RG_EV_DEVICE_OPEN] = {{"file"}, {"access"}, "success"},
    [RG_EV_VERBS] = {{"api"}, {"access"}, "success"},
    [RG_EV_RDMA_CM] = {{"network"}, {"connection"}, "success"},
    [RG_EV_LIBRARY_LOAD] = {{"library"}, {"start"}, "success"},
    [RG_EV_MEMORY_ACCESS] = {{"process"}, {"access"}, "success"},
    [RG_EV_ROCE_TRAFFIC] = {{"network"}, {"info"}, "unknown"},
    [RG_EV_DEVICE_PRESENT] = {{"driver"}, {"info"}, "unknown"},
    [RG_EV_DEVICE_ADD] = {{"driver"}, {"start"}, "success"},
    [RG_EV_DEVICE_REMOVE] = {{"driver"}, {"end"}, "success"},
    [RG_EV_PCI_FUNCTION] = {{"host"}, {"info"}, "unknown"},
    [RG_EV_MODULE_PRESENT] = {{"driver"}, {"info"}, "unknown"},
    [RG_EV_MODULE_LOAD] = {{"driver"}, {"start"}, "success"},
    [RG_EV_QP_PRESENT] = {{"network"}, {"info"}, "unknown"},
    [RG_EV_MR_PRESENT] = {{"api"}, {"info"}, "unknown"},
    [RG_EV_AGENT_START] = {{"process"}, {"start"}, "success"},
    [RG_EV_AGENT_STOP] = {{"process"}, {"end"}, "success"},
    [RG_EV_AGENT_HEARTBEAT] = {{"host"}, {"info"}, "success"},
    [RG_EV_AGENT_LOST] = {{"host"}, {"info"}, "failure"},
    [RG_EV_AGENT_SENSOR] = {{"configuration"}, {"change"}, "unknown"},
    [RG_EV_AGENT_POLICY] = {{"configuration"}, {"change"}, "unknown"},
    [RG_EV_AGENT_TAMPER] = {{"intrusion_detection"}, {"info"}, "unknown"},
    [RG_EV_PCI_CHANGE] = {{"host"}, {"change"}, "success"},
    [RG_EV_DMA_FAULT] = {{"intrusion_detection"}, {"denied"}, "failure"},
    [RG_EV_IOMMU_POSTURE] = {{"configuration"}, {"info"}, "unknown"},
    [RG_EV_THUNDERBOLT] = {{"host"}, {"change"}, "success"},
    [RG_EV_HW_BASELINE] = {{"configuration"}, {"change"}, "unknown"},
    [RG_EV_RDMA_SOCKET] = {{"network"}, {"connection"}, "success"},
};

const char *const *ecs_event_category(enum rg_event_type t)
{
	return cats[(unsigned)t < RG_EV__MAX ? t : RG_EV_NONE].category;
}

const char *const *ecs_event_type(enum rg_event_type t)
{
	return cats[(unsigned)t < RG_EV__MAX ? t : RG_EV_NONE].type;
}

const char *ecs_event_outcome(enum rg_event_type t, uint32_t flags)
{
	if (flags & (RG_EVF_FAILED | RG_EVF_DENIED))
		return "failure";
	return cats[(unsigned)t < RG_EV__MAX ? t : RG_EV_NONE].outcome;
}

void ecs_add_jw(struct jw *w, const char *const *category, const char *const *type,
		const char *outcome)
{
	const char *const *v;
	jw_node o = jw_object(w, JW_ROOT, "event"), a;

	jw_string(w, jw_object(w, JW_ROOT, "ecs"), "version", ECS_VERSION);
	a = jw_new_array(w, o, "category");
	for (v = category; *v; v++)
		jw_string(w, a, NULL, *v);
	a = jw_new_array(w, o, "type");
	for (v = type; *v; v++)
		jw_string(w, a, NULL, *v);
	jw_string(w, o, "outcome", outcome);
	jw_int(w, jw_object(w, JW_ROOT, "rdmaguard"), "schema_version", ECS_SCHEMA_VERSION);
}

void ecs_add_event_jw(struct jw *w, enum rg_event_type t, uint32_t flags)
{
	ecs_add_jw(w, ecs_event_category(t), ecs_event_type(t), ecs_event_outcome(t, flags));
}

void ecs_add_event_json(struct json_object *doc, enum rg_event_type t, uint32_t flags)
{
	struct json_object *o = json_obj(doc, "event"), *e = json_obj(doc, "ecs"), *a;
	const char *const *v;
	int i;

	if (!o || !e)
		return;
	json_object_object_add(e, "version", json_object_new_string(ECS_VERSION));
	for (i = 0; i < 2; i++) {
		a = json_object_new_array();
		for (v = i ? ecs_event_type(t) : ecs_event_category(t); a && *v; v++)
			json_object_array_add(a, json_object_new_string(*v));
		json_object_object_add(o, i ? "type" : "category", a);
	}
	json_object_object_add(o, "outcome", json_object_new_string(ecs_event_outcome(t, flags)));
	if ((o = json_obj(doc, "rdmaguard")))
		json_object_object_add(o, "schema_version",
				       json_object_new_int(ECS_SCHEMA_VERSION));
}

/* obj's members from the ECS names back to the event's (set: what obj is). */
static void unrename(struct json_object *obj, int set)
{
	size_t i;

	for (i = 0; i < sets[set].n; i++) {
		const struct ecs_member *m = &sets[set].m[i];
		struct json_object *v;

		if (m->rename && json_object_object_get_ex(obj, m->rename, &v)) {
			json_object_get(v);
			json_object_object_del(obj, m->rename);
			json_object_object_add(obj, m->key, v);
		} else if (!m->rename && m->set != S_KEEP &&
			   json_object_object_get_ex(obj, m->key, &v) &&
			   json_object_is_type(v, json_type_object)) {
			unrename(v, m->set);
		}
	}
}

/* Every member of from into to, objects merged. */
static int merge(struct json_object *to, struct json_object *from, unsigned depth)
{
	json_object_object_foreach(from, key, val)
	{
		struct json_object *have;

		if (depth < MAP_DEPTH && json_object_object_get_ex(to, key, &have) &&
		    json_object_is_type(have, json_type_object) &&
		    json_object_is_type(val, json_type_object)) {
			if (merge(have, val, depth + 1) < 0)
				return -ENOMEM;
			continue;
		}
		if (json_object_object_add(to, key, json_object_get(val)) < 0) {
			json_object_put(val);
			return -ENOMEM;
		}
	}
	return 0;
}

int ecs_unmap_json(struct json_object *doc)
{
	struct json_object *rg, *copy;
	int r = 0;

	unrename(doc, S_ROOT);
	if (!json_object_object_get_ex(doc, "rdmaguard", &rg) ||
	    !json_object_is_type(rg, json_type_object))
		return 0;
	/* copies (shared references): rdmaguard.* stays for what reads it there
	 * (rdmaguard.incident.id) */
	copy = json_object_get(rg);
	r = merge(doc, copy, 0);
	json_object_put(copy);
	return r;
}
