/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>

#include "event_json.h"
#include "common/util.h"

#define EV(m)	 offsetof(struct rg_event, m)
#define F(n, k, m)                                                                                 \
	{                                                                                          \
		.name = (n), .kind = (k), .offset = EV(m), .size = sizeof(((struct rg_event *)0)->m) \
	}
#define FE(n, m, fn)                                                                               \
	{                                                                                          \
		.name = (n), .kind = EFK_ENUM, .offset = EV(m),                                   \
		.size = sizeof(((struct rg_event *)0)->m), .to_str = fn##_to_string,               \
		.from_str = fn##_from_string                                                       \
	}

static const char *flag_names[] = {"denied", "killed", "truncated", "malformed", "soft", "failed"};

static int has_qp_state(const struct rg_event *ev)
{
	return ev->u.verbs.op == RG_OP_MODIFY_QP && (ev->u.verbs.qp_attr_mask & 1);
}

static int has_ret(const struct rg_event *ev)
{
	return ev->flags & RG_EVF_FAILED;
}

static const struct event_field common_fields[] = {
	F("@timestamp", EFK_TIME, ts),
	FE("event.action", type, event_type),
	FE("event.provider", provider, provider),
	F("event.sequence", EFK_U64, seq),
	F("event.flags", EFK_FLAGS, flags),
	F("process.pid", EFK_U32, proc.pid),
	F("process.thread.id", EFK_U32, proc.tid),
	F("process.parent.pid", EFK_U32, proc.ppid),
	F("process.user.id", EFK_U32, proc.uid),
	F("process.name", EFK_STR, proc.comm),
	F("process.start_boot_ns", EFK_U64, proc.start_boot_ns),
};

static const struct event_field exec_fields[] = {
	F("process.executable", EFK_STR, u.exec.exe),
	{.name = "process.args", .kind = EFK_ARGS, .offset = EV(u.exec.args),
	 .size = RG_ARGS_LEN, .aux = EV(u.exec.args_len)},
	F("process.parent.start_boot_ns", EFK_U64, u.exec.parent_start_boot_ns),
	F("process.session.id", EFK_U32, u.exec.sid),
	F("process.exe_inode", EFK_U64, u.exec.exe_ino),
	F("process.exe_device", EFK_U64, u.exec.exe_dev),
};

static const struct event_field fork_fields[] = {
	F("process.parent.start_boot_ns", EFK_U64, u.fork.parent_start_boot_ns),
};

static const struct event_field exit_fields[] = {
	F("process.exit_code", EFK_I32, u.exit.code),
};

static const struct event_field open_fields[] = {
	F("file.path", EFK_STR, u.open.path),
	FE("rdma.node", u.open.node_kind, node_kind),
	F("rdma.device", EFK_STR, u.open.device),
	F("rdma.fd", EFK_I32, u.open.fd),
	{.name = "rdma.ret", .kind = EFK_I32, .offset = EV(u.open.ret), .present = has_ret},
	F("rdma.minor", EFK_U32, u.open.minor),
};

static const struct event_field verbs_fields[] = {
	FE("rdma.op", u.verbs.op, verbs_op),
	FE("rdma.via", u.verbs.via, via),
	F("rdma.device", EFK_STR, u.verbs.device),
	F("rdma.fd", EFK_I32, u.verbs.fd),
	{.name = "rdma.ret", .kind = EFK_I32, .offset = EV(u.verbs.ret), .present = has_ret},
	F("rdma.object_id", EFK_U32, u.verbs.object_id),
	F("rdma.method_id", EFK_U32, u.verbs.method_id),
	F("rdma.write_cmd", EFK_U32, u.verbs.write_cmd),
	F("rdma.driver_id", EFK_U32, u.verbs.driver_id),
	F("rdma.handle", EFK_U32, u.verbs.handle),
	F("rdma.mr.addr", EFK_U64, u.verbs.mr_addr),
	F("rdma.mr.length", EFK_U64, u.verbs.mr_length),
	F("rdma.mr.iova", EFK_U64, u.verbs.mr_iova),
	F("rdma.mr.access", EFK_ACCESS, u.verbs.mr_access),
	F("rdma.mr.dmabuf_fd", EFK_I32, u.verbs.dmabuf_fd),
	FE("rdma.qp.type", u.verbs.qp_type, qp_type),
	F("rdma.qp.num", EFK_U32, u.verbs.qp_num),
	{.name = "rdma.qp.state", .kind = EFK_ENUM, .offset = EV(u.verbs.qp_state), .size = 4,
	 .to_str = qp_state_to_string, .from_str = qp_state_from_string, .present = has_qp_state},
	F("rdma.qp.attr_mask", EFK_U32, u.verbs.qp_attr_mask),
	F("rdma.qp.dest_num", EFK_U32, u.verbs.dest_qp_num),
	F("rdma.wr_count", EFK_U32, u.verbs.wr_count),
	F("rdma.calls", EFK_U32, u.verbs.calls),
	F("rdma.peer.gid", EFK_GID, u.verbs.dgid),
	F("rdma.peer.address", EFK_GID_V4, u.verbs.dgid),
	F("rdma.mmap.length", EFK_U64, u.verbs.mmap_len),
};

static const struct event_field cm_fields[] = {
	FE("rdma.op", u.cm.op, cm_op),
	F("rdma.fd", EFK_I32, u.cm.fd),
	{.name = "rdma.ret", .kind = EFK_I32, .offset = EV(u.cm.ret), .present = has_ret},
	F("rdma.cm.cmd", EFK_U32, u.cm.cmd),
	F("rdma.cm.id", EFK_U32, u.cm.id),
	F("rdma.cm.port_space", EFK_HEX32, u.cm.port_space),
	F("rdma.cm.backlog", EFK_U32, u.cm.backlog),
	F("rdma.local.address", EFK_ADDR, u.cm.src),
	F("rdma.local.port", EFK_PORT, u.cm.src),
	F("rdma.peer.address", EFK_ADDR, u.cm.dst),
	F("rdma.peer.port", EFK_PORT, u.cm.dst),
};

static const struct event_field lib_fields[] = {
	F("dll.path", EFK_STR, u.lib.path),
	FE("rdma.library", u.lib.lib_kind, lib_kind),
	F("dll.inode", EFK_U64, u.lib.ino),
	F("dll.device", EFK_U64, u.lib.dev),
};

static const struct event_field mem_fields[] = {
	FE("memory.op", u.mem.op, mem_op),
	{.name = "memory.ret", .kind = EFK_I32, .offset = EV(u.mem.ret), .present = has_ret},
	F("memory.bytes", EFK_U64, u.mem.bytes),
	F("target.process.pid", EFK_U32, u.mem.target_pid),
	F("target.process.start_boot_ns", EFK_U64, u.mem.target_start_boot_ns),
	F("target.process.name", EFK_STR, u.mem.target_comm),
};

static const struct event_field roce_fields[] = {
	F("rdma.peer.address", EFK_ADDR, u.roce.peer),
	F("rdma.local.address", EFK_ADDR, u.roce.local),
	F("rdma.traffic.packets_in", EFK_U64, u.roce.packets_in),
	F("rdma.traffic.bytes_in", EFK_U64, u.roce.bytes_in),
	F("rdma.traffic.packets_out", EFK_U64, u.roce.packets_out),
	F("rdma.traffic.bytes_out", EFK_U64, u.roce.bytes_out),
	F("network.iana_number", EFK_U32, u.roce.protocol),
	F("rdma.netdev", EFK_STR, u.roce.ifname),
};

static const struct event_field device_fields[] = {
	F("rdma.device", EFK_STR, u.dev.name),
	FE("rdma.transport", u.dev.transport, transport),
	F("rdma.node_type", EFK_U32, u.dev.node_type),
	F("rdma.driver", EFK_STR, u.dev.driver),
	F("rdma.netdev", EFK_STR, u.dev.parent),
	{.name = "rdma.soft", .kind = EFK_BOOLFLAG, .offset = EV(flags), .aux = RG_EVF_SOFT},
	F("rdma.ports", EFK_U32, u.dev.ports),
	F("rdma.ports_active", EFK_U32, u.dev.ports_active),
	F("pci.vendor_id", EFK_HEX32, u.dev.pci_vendor),
	F("pci.device_id", EFK_HEX32, u.dev.pci_device),
	F("pci.class", EFK_HEX32, u.dev.pci_class),
	F("pci.address", EFK_STR, u.dev.pci_addr),
};

static const struct event_field pci_fields[] = {
	F("pci.address", EFK_STR, u.pci.addr),
	F("pci.vendor_id", EFK_HEX32, u.pci.vendor),
	F("pci.device_id", EFK_HEX32, u.pci.device),
	F("pci.class", EFK_HEX32, u.pci.class_code),
	F("pci.driver", EFK_STR, u.pci.driver),
	F("pci.rdma_class", EFK_U32, u.pci.rdma_class),
	F("pci.known_vendor", EFK_U32, u.pci.known_vendor),
	F("pci.has_driver", EFK_U32, u.pci.has_driver),
};

static const struct event_field module_fields[] = {
	F("module.name", EFK_STR, u.mod.name),
	F("module.refcount", EFK_U32, u.mod.refcount),
	{.name = "rdma.soft", .kind = EFK_BOOLFLAG, .offset = EV(flags), .aux = RG_EVF_SOFT},
};

static const struct event_field qp_fields[] = {
	F("rdma.device", EFK_STR, u.qp.device),
	F("rdma.qp.num", EFK_U32, u.qp.lqpn),
	F("rdma.qp.dest_num", EFK_U32, u.qp.rqpn),
	FE("rdma.qp.type", u.qp.type, qp_type),
	FE("rdma.qp.state", u.qp.state, qp_state),
	F("rdma.port", EFK_U32, u.qp.port),
	F("rdma.pd", EFK_U32, u.qp.pd),
	F("rdma.kernel", EFK_U32, u.qp.kernel),
};

static const struct event_field mr_fields[] = {
	F("rdma.device", EFK_STR, u.mr.device),
	F("rdma.mr.length", EFK_U64, u.mr.length),
	F("rdma.mr.iova", EFK_U64, u.mr.iova),
	F("rdma.mr.rkey", EFK_U32, u.mr.rkey),
	F("rdma.mr.lkey", EFK_U32, u.mr.lkey),
	F("rdma.mr.id", EFK_U32, u.mr.mrn),
	F("rdma.pd", EFK_U32, u.mr.pd),
	F("rdma.kernel", EFK_U32, u.mr.kernel),
};

static const struct event_field agent_fields[] = {
	F("agent.count", EFK_U64, u.agent.count),
	F("agent.count2", EFK_U64, u.agent.count2),
	F("agent.error", EFK_I32, u.agent.error),
	F("agent.ok", EFK_U32, u.agent.ok),
	F("agent.what", EFK_STR, u.agent.what),
	F("agent.text", EFK_STR, u.agent.text),
};

struct field_list {
	const struct event_field *f;
	size_t n;
};

/* The most fields one event type has (besides the common ones): the event reader's table. */
#define MAX_TYPE_FIELDS 32
#define FL(a) {a, ARRAY_SIZE(a) + 0 * sizeof(char[ARRAY_SIZE(a) <= MAX_TYPE_FIELDS ? 1 : -1])}
static const struct field_list type_fields[RG_EV__MAX] = {
	[RG_EV_PROCESS_PRESENT] = FL(exec_fields),
	[RG_EV_EXEC] = FL(exec_fields),
	[RG_EV_FORK] = FL(fork_fields),
	[RG_EV_EXIT] = FL(exit_fields),
	[RG_EV_DEVICE_OPEN] = FL(open_fields),
	[RG_EV_VERBS] = FL(verbs_fields),
	[RG_EV_RDMA_CM] = FL(cm_fields),
	[RG_EV_LIBRARY_LOAD] = FL(lib_fields),
	[RG_EV_MEMORY_ACCESS] = FL(mem_fields),
	[RG_EV_ROCE_TRAFFIC] = FL(roce_fields),
	[RG_EV_DEVICE_PRESENT] = FL(device_fields),
	[RG_EV_DEVICE_ADD] = FL(device_fields),
	[RG_EV_DEVICE_REMOVE] = FL(device_fields),
	[RG_EV_PCI_FUNCTION] = FL(pci_fields),
	[RG_EV_MODULE_PRESENT] = FL(module_fields),
	[RG_EV_MODULE_LOAD] = FL(module_fields),
	[RG_EV_QP_PRESENT] = FL(qp_fields),
	[RG_EV_MR_PRESENT] = FL(mr_fields),
	[RG_EV_AGENT_START] = FL(agent_fields),
	[RG_EV_AGENT_STOP] = FL(agent_fields),
	[RG_EV_AGENT_HEARTBEAT] = FL(agent_fields),
	[RG_EV_AGENT_LOST] = FL(agent_fields),
	[RG_EV_AGENT_SENSOR] = FL(agent_fields),
	[RG_EV_AGENT_POLICY] = FL(agent_fields),
	[RG_EV_AGENT_TAMPER] = FL(agent_fields),
};

size_t event_fields(unsigned type, const struct event_field **ret)
{
	if (type >= RG_EV__MAX) {
		*ret = NULL;
		return 0;
	}
	*ret = type_fields[type].f;
	return type_fields[type].n;
}

const struct event_field *event_field_find(unsigned type, const char *name)
{
	const struct event_field *f;
	size_t i, n;

	for (i = 0; i < ARRAY_SIZE(common_fields); i++)
		if (strcmp(common_fields[i].name, name) == 0)
			return &common_fields[i];
	n = event_fields(type, &f);
	for (i = 0; i < n; i++)
		if (strcmp(f[i].name, name) == 0)
			return &f[i];
	return NULL;
}

struct json_object *json_get_path(struct json_object *obj, const char *path)
{
	char key[128];
	const char *dot;

	/* A literal key with dots (e.g. "@timestamp" has none, but be lenient) wins. */
	while (obj) {
		struct json_object *v;

		if (!json_object_is_type(obj, json_type_object))
			return NULL;
		dot = strchr(path, '.');
		if (!dot)
			return json_object_object_get_ex(obj, path, &v) ? v : NULL;
		if ((size_t)(dot - path) >= sizeof(key))
			return NULL;
		memcpy(key, path, (size_t)(dot - path));
		key[dot - path] = 0;
		if (!json_object_object_get_ex(obj, key, &v))
			return NULL;
		obj = v;
		path = dot + 1;
	}
	return NULL;
}

int json_set_path(struct json_object *obj, const char *path, struct json_object *val)
{
	char key[128];
	const char *dot;

	for (;;) {
		struct json_object *next;

		dot = strchr(path, '.');
		if (!dot) {
			/* The path outlives obj (see the header): its last key is not copied. */
			if (json_object_object_add_ex(obj, path, val, JSON_C_OBJECT_ADD_CONSTANT_KEY) <
			    0) {
				json_object_put(val);
				return -ENOMEM;
			}
			return 0;
		}
		if ((size_t)(dot - path) >= sizeof(key)) {
			json_object_put(val);
			return -ENAMETOOLONG;
		}
		memcpy(key, path, (size_t)(dot - path));
		key[dot - path] = 0;
		if (!json_object_object_get_ex(obj, key, &next) ||
		    !json_object_is_type(next, json_type_object)) {
			next = json_object_new_object();
			if (!next || json_object_object_add(obj, key, next) < 0) {
				json_object_put(next);
				json_object_put(val);
				return -ENOMEM;
			}
		}
		obj = next;
		path = dot + 1;
	}
}

#define AT(ev, f, T) ((T *)((char *)(ev) + (f)->offset))
#define CAT(ev, f, T) ((const T *)((const char *)(ev) + (f)->offset))

static unsigned enum_get(const struct rg_event *ev, const struct event_field *f)
{
	return f->size == 2 ? *CAT(ev, f, uint16_t) : *CAT(ev, f, uint32_t);
}

static int field_is_zero(const struct rg_event *ev, const struct event_field *f)
{
	switch (f->kind) {
	case EFK_ENUM:
		return enum_get(ev, f) == 0;
	case EFK_U32:
		/* also 16-bit fields (rdma.object_id, rdma.method_id) */
		return f->size == 2 ? *CAT(ev, f, uint16_t) == 0 : *CAT(ev, f, uint32_t) == 0;
	case EFK_I32:
	case EFK_HEX32:
	case EFK_ACCESS:
	case EFK_FLAGS:
		return *CAT(ev, f, uint32_t) == 0;
	case EFK_U64:
	case EFK_TIME:
		return *CAT(ev, f, uint64_t) == 0;
	case EFK_STR:
		return *CAT(ev, f, char) == 0;
	case EFK_ARGS:
		return *(const uint32_t *)((const char *)ev + f->aux) == 0;
	case EFK_GID:
	case EFK_GID_V4: {
		static const uint8_t zero[16];
		return memcmp(CAT(ev, f, uint8_t), zero, 16) == 0;
	}
	case EFK_ADDR:
		return CAT(ev, f, struct rg_addr)->family == 0;
	case EFK_PORT:
		return CAT(ev, f, struct rg_addr)->port == 0;
	case EFK_BOOLFLAG:
		return !(*CAT(ev, f, uint32_t) & f->aux);
	}
	return 1;
}

static void names_to_jw(struct jw *w, jw_node obj, const char *key, const struct event_field *f,
			uint32_t bits)
{
	jw_node a = jw_new_array(w, obj, key);
	unsigned i;

	if (f->kind == EFK_ACCESS) {
		for (i = 0; i < access_names_count; i++)
			if (bits & access_names[i].bit)
				jw_string(w, a, NULL, access_names[i].name);
	} else {
		for (i = 0; i < ARRAY_SIZE(flag_names); i++)
			if (bits & (1u << i))
				jw_string(w, a, NULL, flag_names[i]);
	}
}

/* The object of the last field's path ("rdma.mr" of "rdma.mr.length"): the fields that follow
 * under the same one (the tables keep them together) skip jw_path's walk. Within one event. */
struct path_cache {
	const char *name;
	size_t plen;
	jw_node obj;
};

static jw_node field_obj(struct jw *w, const char *name, const char **key, struct path_cache *pc)
{
	const char *dot = strrchr(name, '.');
	size_t plen = dot ? (size_t)(dot - name) : 0;
	jw_node obj;

	if (pc->name && plen && plen == pc->plen && memcmp(name, pc->name, plen) == 0) {
		*key = dot + 1;
		return pc->obj;
	}
	obj = jw_path(w, JW_ROOT, name, key);
	*pc = (struct path_cache){.name = name, .plen = plen, .obj = obj};
	return obj;
}

static void field_to_jw(const struct rg_event *ev, const struct event_field *f, struct jw *w,
			struct path_cache *pc)
{
	char buf[64];
	const char *key;
	jw_node obj;

	/* The one field that may have no value although it is not zero: no path made for it. */
	if (f->kind == EFK_GID_V4 && !gid_to_ipv4(CAT(ev, f, uint8_t), buf))
		return;
	obj = field_obj(w, f->name, &key, pc);
	switch (f->kind) {
	case EFK_U32:
		jw_int(w, obj, key, f->size == 2 ? *CAT(ev, f, uint16_t) : *CAT(ev, f, uint32_t));
		return;
	case EFK_I32:
		jw_int(w, obj, key, *CAT(ev, f, int32_t));
		return;
	case EFK_U64:
		jw_uint(w, obj, key, *CAT(ev, f, uint64_t));
		return;
	case EFK_HEX32:
		snprintf(buf, sizeof(buf), "0x%04x", *CAT(ev, f, uint32_t));
		jw_string(w, obj, key, buf);
		return;
	case EFK_STR:
		jw_string_len(w, obj, key, CAT(ev, f, char), strnlen(CAT(ev, f, char), f->size));
		return;
	case EFK_ENUM: {
		const char *s = f->to_str(enum_get(ev, f));

		if (!s) {
			snprintf(buf, sizeof(buf), "%u", enum_get(ev, f));
			s = buf;
		}
		jw_string(w, obj, key, s);
		return;
	}
	case EFK_ACCESS:
	case EFK_FLAGS:
		names_to_jw(w, obj, key, f, *CAT(ev, f, uint32_t));
		return;
	case EFK_GID:
		gid_to_string(CAT(ev, f, uint8_t), buf);
		jw_string(w, obj, key, buf);
		return;
	case EFK_GID_V4:
		jw_string(w, obj, key, buf);
		return;
	case EFK_ADDR:
		addr_to_string(CAT(ev, f, struct rg_addr), buf);
		jw_string(w, obj, key, buf);
		return;
	case EFK_PORT:
		jw_int(w, obj, key, CAT(ev, f, struct rg_addr)->port);
		return;
	case EFK_ARGS: {
		uint32_t len = *(const uint32_t *)((const char *)ev + f->aux);

		jw_string_list(w, obj, key, CAT(ev, f, char), MIN(len, (uint32_t)f->size));
		return;
	}
	case EFK_BOOLFLAG:
		jw_bool(w, obj, key, true);
		return;
	case EFK_TIME:
		format_timestamp(*CAT(ev, f, uint64_t), buf);
		jw_string(w, obj, key, buf);
		return;
	}
}

static void add_fields(struct jw *w, const struct rg_event *ev, const struct event_field *f,
		       size_t n, struct path_cache *pc)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (f[i].present ? f[i].present(ev) : !field_is_zero(ev, &f[i]))
			field_to_jw(ev, &f[i], w, pc);
}

int event_to_jw(const struct rg_event *ev, struct jw *w)
{
	const struct event_field *f;
	size_t n = event_fields(ev->type, &f);
	struct path_cache pc = {0};

	add_fields(w, ev, common_fields, ARRAY_SIZE(common_fields), &pc);
	jw_string(w, jw_object(w, JW_ROOT, "event"), "kind", "event");
	add_fields(w, ev, f, n, &pc);
	return jw_failed(w) ? -ENOMEM : 0;
}

struct json_object *event_to_json(const struct rg_event *ev)
{
	struct json_object *o = NULL;
	struct jw *w = jw_new();
	const char *text;
	size_t len;

	if (w && event_to_jw(ev, w) == 0 && jw_finish(w, &text, &len) == 0)
		o = json_tokener_parse(text);
	jw_free(w);
	return o;
}

/*
 * Reading events: a strict JSON reader (RFC 8259) that goes straight from the text to struct
 * rg_event, for replay's hot path: json-c built a hash table per object and a heap value per
 * member, three quarters of what replaying an event cost. It keeps only what it needs: the value
 * at each dotted path that is a field of some event type (a slot), strings unescaped into one
 * scratch buffer, array elements in one pool, both sized from the line's length. Then the
 * event's type (event.action) picks which slots are its fields, converted in table order.
 * event_from_json() (json-c objects: tests, the cold paths) prints the object and reads that.
 *
 * Member names are looked up one at a time in the tree of the objects that lead to fields
 * (node 0 is the top level, then "process", "process.parent", ...): no path is built or
 * hashed. The text ends in a NUL byte, which stops every scanning loop, so the end of the text
 * is looked for only where a NUL turns up.
 */
#define MAX_SLOTS	 256
#define MAX_NODES	 64
#define MAX_ENUMS	 16
#define ENUM_VALUES	 256 /* looked up in the table: values below this */
#define ENUM_NODE(e)	 (MAX_NODES + (e)) /* an enum's names, under a node of their own */
#define MAX_KEYS	 1024
#define KEY_HASH_SIZE	 2048 /* power of two, > 2 x MAX_KEYS */
#define MAX_DEPTH	 32 /* json-c's default nesting limit */
#define NCOMMON		 ARRAY_SIZE(common_fields)

/* A member name under a node: a field (slot >= 0) or an object on the way to fields; under
 * ENUM_NODE(e), a name of enum e (slot: its value). */
struct key_entry {
	const char *key; /* not NUL-terminated: len bytes */
	uint64_t w0;	 /* its first 8 bytes, as key_hash() loads them */
	uint16_t len;
	uint16_t parent;
	int16_t slot;
	int16_t node;
	uint16_t id; /* its index in schema.key */
};

static struct {
	unsigned n; /* slots */
	uint16_t common[NCOMMON];
	uint16_t type[RG_EV__MAX][MAX_TYPE_FIELDS];
	int qp_state, action;
	struct key_entry key[MAX_KEYS];
	unsigned nkey, nnode;
	/* The enum fields' names, by their from_str (a field name may have two: rdma.op). */
	int (*enum_from[MAX_ENUMS])(const char *);
	unsigned nenum, action_enum;
	int16_t hash[KEY_HASH_SIZE]; /* key + 1; 0: empty */
	/* The slots below each node: a member met again replaces the first one whole, as in
	 * json-c, so entering one forgets what an earlier member of that name left in them. */
	uint64_t below[MAX_NODES][MAX_SLOTS / 64];
} schema;
static pthread_once_t schema_once = PTHREAD_ONCE_INIT;

#define GOLDEN 0x9e3779b97f4a7c15ull

/* The n (< 8) bytes at s as a little-endian word, zero above them; s[0..8) is read whole where
 * it lies before end. */
static inline uint64_t load_tail(const char *s, size_t n, const char *end)
{
	uint64_t w = 0;

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	if (end - s >= 8) {
		memcpy(&w, s, 8);
		return n ? w & (~0ull >> (64 - 8 * n)) : 0;
	}
#endif
	memcpy(&w, s, n);
	return w;
}

/* A member name's hash under its parent node, a word at a time; *w0: its first 8 bytes. */
static inline uint32_t key_hash(unsigned parent, const char *s, size_t len, const char *end,
				uint64_t *w0)
{
	uint64_t h = (parent + 1) * GOLDEN ^ len, w;
	size_t i;

	for (i = 0; i + 8 <= len; i += 8) {
		memcpy(&w, s + i, 8);
		if (i == 0)
			*w0 = w;
		h = (h ^ w) * GOLDEN;
		h ^= h >> 29;
	}
	w = load_tail(s + i, len - i, end);
	if (i == 0)
		*w0 = w;
	h = (h ^ w) * GOLDEN;
	return (uint32_t)(h >> 40) & (KEY_HASH_SIZE - 1);
}

/* Whether the text at s (before end, where a NUL is) is entry k's name and its closing
 * quote. */
static inline bool key_at(const struct key_entry *k, const char *s, const char *end)
{
	size_t len = k->len, i = 8;
	uint64_t w0;

	if ((size_t)(end - s) < len + 1 || s[len] != '"')
		return false;
	if (len >= 8)
		memcpy(&w0, s, 8);
	else
		w0 = load_tail(s, len, end);
	if (k->w0 != w0)
		return false;
	while (i < len && k->key[i] == s[i])
		i++;
	return i >= len;
}

/* The entry for the name s[0..len) under parent, or NULL; end: where the text ends. */
static inline const struct key_entry *key_find(unsigned parent, const char *s, size_t len,
					       const char *end)
{
	uint64_t w0;
	uint32_t h = key_hash(parent, s, len, end, &w0);

	for (; schema.hash[h]; h = (h + 1) & (KEY_HASH_SIZE - 1)) {
		const struct key_entry *k = &schema.key[schema.hash[h] - 1];
		size_t i = 8;

		if (k->w0 != w0 || k->parent != parent || k->len != len)
			continue;
		while (i < len && k->key[i] == s[i])
			i++;
		if (i >= len)
			return k;
	}
	return NULL;
}

static struct key_entry *key_add(unsigned parent, const char *s, size_t len)
{
	uint64_t w0;
	uint32_t h = key_hash(parent, s, len, s + len, &w0);
	struct key_entry *k;

	if (schema.nkey >= MAX_KEYS)
		abort(); /* the field tables outgrew MAX_KEYS: a build-time mistake */
	while (schema.hash[h])
		h = (h + 1) & (KEY_HASH_SIZE - 1);
	k = &schema.key[schema.nkey];
	*k = (struct key_entry){.key = s, .w0 = w0, .len = (uint16_t)len,
				.parent = (uint16_t)parent, .slot = -1, .node = -1,
				.id = (uint16_t)schema.nkey};
	schema.hash[h] = (int16_t)++schema.nkey;
	return k;
}

/* The slot of a dotted field name, made (with the nodes on its way) if it is new. */
static uint16_t slot_add(const char *name)
{
	unsigned node = 0, path[MAX_DEPTH], depth = 0, i;
	const char *c = name, *dot;
	struct key_entry *k;

	while ((dot = strchr(c, '.'))) {
		k = (struct key_entry *)key_find(node, c, (size_t)(dot - c), dot);
		if (!k) {
			if (schema.nnode + 1 >= MAX_NODES)
				abort();
			k = key_add(node, c, (size_t)(dot - c));
			k->node = (int16_t)++schema.nnode;
		}
		if (k->slot >= 0 || depth >= MAX_DEPTH)
			abort(); /* a field inside a field: a table mistake */
		node = (unsigned)k->node;
		path[depth++] = node;
		c = dot + 1;
	}
	k = (struct key_entry *)key_find(node, c, strlen(c), c + strlen(c));
	if (k) {
		if (k->slot < 0)
			abort(); /* a field that is also an object on the way to others */
		return (uint16_t)k->slot;
	}
	if (schema.n >= MAX_SLOTS)
		abort();
	k = key_add(node, c, strlen(c));
	k->slot = (int16_t)schema.n;
	for (i = 0; i < depth; i++)
		schema.below[path[i]][schema.n / 64] |= 1ull << (schema.n % 64);
	return (uint16_t)schema.n++;
}

/* The enum of field f (by its from_str), made with its names if it is new. Only names that
 * from_str gives back the same value for are taken, so a lookup here answers as from_str. */
static unsigned enum_add(const struct event_field *f)
{
	unsigned e, v;

	for (e = 0; e < schema.nenum; e++)
		if (schema.enum_from[e] == f->from_str)
			return e;
	if (schema.nenum >= MAX_ENUMS)
		abort();
	schema.enum_from[e = schema.nenum++] = f->from_str;
	for (v = 0; v < ENUM_VALUES; v++) {
		const char *name = f->to_str(v);

		if (name && f->from_str(name) == (int)v &&
		    !key_find(ENUM_NODE(e), name, strlen(name), name + strlen(name)))
			key_add(ENUM_NODE(e), name, strlen(name))->slot = (int16_t)v;
	}
	return e;
}

static void fields_add(const struct event_field *f, size_t n, uint16_t *slots)
{
	size_t i;

	for (i = 0; i < n; i++) {
		slots[i] = slot_add(f[i].name);
		if (f[i].kind == EFK_ENUM && f[i].from_str && f[i].to_str)
			(void)enum_add(&f[i]);
	}
}

static void schema_build(void)
{
	unsigned t;

	fields_add(common_fields, NCOMMON, schema.common);
	for (t = 1; t < RG_EV__MAX; t++)
		fields_add(type_fields[t].f, type_fields[t].n, schema.type[t]);
	schema.qp_state = slot_add("rdma.qp.state");
	schema.action = slot_add("event.action");
	schema.action_enum = enum_add(event_field_find(RG_EV_EXEC, "event.action"));
}

/* A value the reader kept. A string without escapes (most) points into the line, s[0..len);
 * one with escapes is unescaped into the scratch buffer, NUL-terminated (a \u0000 inside ends
 * it early, as it did with json-c's strings), and so is any string jv_cstr() is asked for.
 * Numbers keep their grammar. */
enum { JV_NULL, JV_BOOL, JV_NUM, JV_STR, JV_ARR, JV_OBJ };

struct jv {
	uint32_t gen;	/* the value is this read's when gen is the reader's (no clearing) */
	uint8_t type;
	bool b;		/* JV_BOOL */
	bool is_int;	/* JV_NUM: no fraction, no exponent, and fits 64 bits */
	bool neg;	/* JV_NUM: a minus sign */
	bool term;	/* JV_STR: s is NUL-terminated (in the scratch buffer) */
	uint32_t len;	/* JV_STR: its length (strlen(s) where term) */
	uint64_t mag;	/* JV_NUM: |value| when is_int */
	const char *s;	/* JV_STR */
	uint32_t first; /* JV_ARR: elements in the pool */
	uint32_t n;
};

struct event_reader {
	char *scratch;
	size_t cap, used;
	struct jv *items;
	size_t icap, iused;
	size_t max_len;
	struct jv val[MAX_SLOTS];
	uint32_t gen;
	uint32_t node_gen[MAX_NODES]; /* a node met in this read has the reader's gen */
	/* Lines of a kind have their members in the same order: the entry (index + 1; 0: none)
	 * that came first below each node, and after each entry, in the last line that had them.
	 * A guess is checked (key_at) before it is taken; a wrong one costs the lookup. */
	uint16_t first_key[MAX_NODES];
	uint16_t next_key[MAX_KEYS];
	struct ts_cache ts; /* lines come in time order: most stamps share a minute */
	/* the read */
	const char *start, *end, *err_at;
	const char *err_what;
};

/* Forgets the values kept below a node if it was met before in this read. */
static void forget(struct event_reader *r, unsigned node)
{
	unsigned w;

	if (r->node_gen[node] != r->gen) {
		r->node_gen[node] = r->gen;
		return;
	}
	for (w = 0; w < MAX_SLOTS / 64; w++) {
		uint64_t b = schema.below[node][w];

		while (b) {
			r->val[w * 64 + (unsigned)__builtin_ctzll(b)].gen = 0;
			b &= b - 1;
		}
	}
}

int event_reader_new(size_t max_len, struct event_reader **ret)
{
	struct event_reader *r;

	if (max_len > (64u << 20))
		return -E2BIG;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	/* Unescaping never makes a string longer; each one gains a NUL: at most 2 x the line.
	 * An array element takes at least two bytes of text ("x," or "1,"). */
	r->cap = 2 * max_len + 2;
	r->icap = max_len / 2 + 2;
	r->max_len = max_len;
	r->scratch = malloc(r->cap);
	r->items = malloc(r->icap * sizeof(*r->items));
	if (!r->scratch || !r->items) {
		event_reader_free(r);
		return -ENOMEM;
	}
	(void)pthread_once(&schema_once, schema_build);
	*ret = r;
	return 0;
}

void event_reader_free(struct event_reader *r)
{
	if (!r)
		return;
	free(r->scratch);
	free(r->items);
	free(r);
}

/* Records the first error; NULL, for the callers to return. */
static const char *fail(struct event_reader *r, const char *at, const char *what)
{
	if (!r->err_what) {
		r->err_at = at;
		r->err_what = what;
	}
	return NULL;
}

static const char *unexpected(struct event_reader *r, const char *at)
{
	return fail(r, at, at == r->end ? "unexpected end of line" : "unexpected character");
}

static inline const char *ws(const char *p)
{
	while ((uint8_t)*p <= ' ' && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t'))
		p++;
	return p;
}

static inline bool is_digit(char c)
{
	return (unsigned)(c - '0') < 10;
}

static const char *read_hex4(struct event_reader *r, const char *p, uint32_t *ret)
{
	uint32_t v = 0;
	int i;

	if (r->end - p < 4)
		return fail(r, p, "invalid \\u escape");
	for (i = 0; i < 4; i++) {
		int h = hex_digit(p[i]);

		if (h < 0)
			return fail(r, p + i, "invalid \\u escape");
		v = v << 4 | (uint32_t)h;
	}
	*ret = v;
	return p + 4;
}

static char *put_utf8(char *o, uint32_t c)
{
	if (c < 0x80) {
		*o++ = (char)c;
	} else if (c < 0x800) {
		*o++ = (char)(0xc0 | c >> 6);
		*o++ = (char)(0x80 | (c & 0x3f));
	} else if (c < 0x10000) {
		*o++ = (char)(0xe0 | c >> 12);
		*o++ = (char)(0x80 | (c >> 6 & 0x3f));
		*o++ = (char)(0x80 | (c & 0x3f));
	} else {
		*o++ = (char)(0xf0 | c >> 18);
		*o++ = (char)(0x80 | (c >> 12 & 0x3f));
		*o++ = (char)(0x80 | (c >> 6 & 0x3f));
		*o++ = (char)(0x80 | (c & 0x3f));
	}
	return o;
}

/*
 * The rest of a string that has escapes (or is broken): p is past the opening quote, q at the
 * first byte that is not plain. Unescaped into out (room for the text's length + 1) and
 * NUL-terminated. Bytes from 0x80 up are taken as they are (json-c does not check UTF-8
 * either); a lone surrogate becomes U+FFFD.
 */
static const char *unescape(struct event_reader *r, const char *p, const char *q, char *out,
			    const char **s, size_t *len)
{
	char *o = out;

	for (;;) {
		uint32_t c, lo;

		memcpy(o, p, (size_t)(q - p));
		o += q - p;
		if (q == r->end)
			return fail(r, q, "unterminated string");
		if (*q == '"')
			break;
		if ((uint8_t)*q < 0x20)
			return fail(r, q, "control character in a string");
		/* A backslash. */
		if (q + 1 == r->end)
			return fail(r, q + 1, "unterminated string");
		p = q + 2;
		switch (q[1]) {
		case '"':
		case '\\':
		case '/':
			c = (uint8_t)q[1];
			break;
		case 'b':
			c = '\b';
			break;
		case 'f':
			c = '\f';
			break;
		case 'n':
			c = '\n';
			break;
		case 'r':
			c = '\r';
			break;
		case 't':
			c = '\t';
			break;
		case 'u':
			if (!(p = read_hex4(r, p, &c)))
				return NULL;
			if (c >= 0xd800 && c < 0xdc00) {
				if (r->end - p >= 6 && p[0] == '\\' && p[1] == 'u') {
					const char *after = read_hex4(r, p + 2, &lo);

					if (!after)
						return NULL;
					if (lo >= 0xdc00 && lo < 0xe000) {
						c = 0x10000 + ((c - 0xd800) << 10) + (lo - 0xdc00);
						p = after;
					} else
						c = 0xfffd; /* the next escape stands on its own */
				} else
					c = 0xfffd;
			} else if (c >= 0xdc00 && c < 0xe000)
				c = 0xfffd;
			break;
		default:
			return fail(r, q + 1, "invalid escape");
		}
		o = put_utf8(o, c);
		q = p + jw_clean_run(p, (size_t)(r->end - p));
	}
	*o = 0;
	*s = out;
	*len = (size_t)(o - out);
	return q + 1;
}

/*
 * A string at p (on its opening quote): without escapes, as most are, *s points into the text
 * and nothing is copied; else it is unescaped into out (see unescape()). *len: its length in
 * bytes. The byte after the closing quote, or NULL.
 */
static inline const char *scan_string(struct event_reader *r, const char *p, char *out,
				      const char **s, size_t *len)
{
	const char *q = ++p;

	q += jw_clean_run(q, (size_t)(r->end - q));
	if (*q == '"') {
		*s = p;
		*len = (size_t)(q - p);
		return q + 1;
	}
	return unescape(r, p, q, out, s, len);
}

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
/* How many of the 8 bytes of w (the first in its lowest byte) are digits before the first
 * byte that is not one, and (*val) what number they write. */
static inline unsigned digits8(uint64_t w, uint64_t *val)
{
	const uint64_t ones = 0x0101010101010101ull, high = 0x8080808080808080ull;
	/* A byte that is not '0'..'9' gets its high bit: below '0' by the subtraction, above '9'
	 * by the addition (bytes from 0x80 by one or the other). A borrow or carry only reaches
	 * the bytes above it, so the lowest bit set is exact. */
	uint64_t x = w - ones * '0', m = (x | (w + ones * (0x80 - '9' - 1))) & high;
	unsigned k = m ? (unsigned)__builtin_ctzll(m) >> 3 : 8;

	if (k == 0) {
		*val = 0;
		return 0;
	}
	/* The k digits to the top bytes, zeros below (leading zeros), then pairs, fours, eight. */
	x <<= 8 * (8 - k);
	x = (x * 10 + (x >> 8)) & 0x00ff00ff00ff00ffull;
	x = (x * 100 + (x >> 16)) & 0x0000ffff0000ffffull;
	*val = (x * 10000 + (x >> 32)) & 0xffffffffull;
	return k;
}
#endif

/* A number (RFC 8259 grammar) at p into *v. Inline: read_object's loop reads fields' numbers
 * without a call. */
static _always_inline_ const char *read_number(struct event_reader *r, const char *p, struct jv *v)
{
	const char *q = p, *d;
	uint64_t mag = 0;
	bool overflow = false;

	v->gen = r->gen;
	v->type = JV_NUM;
	v->neg = *q == '-';
	q += v->neg;
	if (!is_digit(*q))
		return fail(r, q, "invalid number");
	if (*q == '0' && is_digit(q[1]))
		return fail(r, q + 1, "invalid number: a leading zero");
	d = q + 19; /* 19 digits always fit 64 bits; past them, check */
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	/* Up to 16 digits 8 at a time, where 16 bytes are there to load. */
	if (r->end - q >= 16) {
		static const uint64_t pow10[9] = {1, 10, 100, 1000, 10000, 100000, 1000000,
						  10000000, 100000000};
		uint64_t w, val;
		unsigned k;

		memcpy(&w, q, 8);
		k = digits8(w, &mag);
		q += k;
		if (k == 8) {
			memcpy(&w, q, 8);
			k = digits8(w, &val);
			mag = mag * pow10[k] + val;
			q += k;
		}
	}
#endif
	for (; is_digit(*q) && q < d; q++)
		mag = mag * 10 + (uint64_t)(*q - '0');
	for (; is_digit(*q); q++) {
		uint64_t m;

		if (__builtin_mul_overflow(mag, 10, &m) ||
		    __builtin_add_overflow(m, (uint64_t)(*q - '0'), &m))
			overflow = true;
		else
			mag = m;
	}
	v->is_int = !overflow;
	if (*q == '.') {
		if (!is_digit(*++q))
			return fail(r, q, "invalid number");
		while (is_digit(*q))
			q++;
		v->is_int = false;
	}
	if (*q == 'e' || *q == 'E') {
		q++;
		if (*q == '+' || *q == '-')
			q++;
		if (!is_digit(*q))
			return fail(r, q, "invalid number");
		while (is_digit(*q))
			q++;
		v->is_int = false;
	}
	/* A negative integer must fit int64_t, as json-c's did. */
	if (v->neg && mag > (uint64_t)INT64_MAX + 1)
		v->is_int = false;
	v->mag = mag;
	return q;
}

static const char *read_literal(struct event_reader *r, const char *p, const char *word, size_t n)
{
	if ((size_t)(r->end - p) < n || memcmp(p, word, n) != 0)
		return fail(r, p, "unexpected character");
	return p + n;
}

static inline const char *read_value(struct event_reader *r, const char *p, struct jv *keep,
				     unsigned depth);
static const char *read_other(struct event_reader *r, const char *p, struct jv *keep,
			      unsigned depth);

/* A string at p ('"'), kept where keep is not NULL: in the line where it has no escapes, else
 * unescaped in the scratch buffer. */
static inline const char *read_string(struct event_reader *r, const char *p, struct jv *keep)
{
	char *out = r->scratch + r->used;
	const char *s;
	size_t len;

	p = scan_string(r, p, out, &s, &len);
	if (!p || !keep)
		return p;
	if (s == out) {
		len = strlen(out);
		r->used += len + 1;
	}
	*keep = (struct jv){.gen = r->gen, .type = JV_STR, .term = s == out, .s = s,
			    .len = (uint32_t)len};
	return p;
}

/* A kept string as a C string: one in the line is copied into the scratch buffer once (only
 * after the read: the buffer holds every string once at most, as its size allows). */
static const char *jv_cstr(struct event_reader *r, struct jv *v)
{
	char *out;

	if (v->term)
		return v->s;
	out = r->scratch + r->used;
	memcpy(out, v->s, v->len);
	out[v->len] = 0;
	r->used += v->len + 1;
	v->s = out;
	v->term = true;
	return out;
}

/*
 * The members of an object at p ('{'); node: its place in the tree of names that lead to
 * fields, -1 if none of its members can be a field (checked, never kept).
 */
static const char *read_object(struct event_reader *r, const char *p, int node, unsigned depth)
{
	uint16_t *guess = node >= 0 ? &r->first_key[node] : NULL;

	p = ws(p + 1);
	if (*p == '}')
		return p + 1;
	for (;;) {
		const struct key_entry *k = NULL;
		const char *key, *kend;
		size_t klen;

		if (*p != '"')
			return unexpected(r, p);
		if (guess && *guess && key_at(&schema.key[*guess - 1], p + 1, r->end)) {
			/* The guessed name, quotes and all (names in the table have no escapes). */
			k = &schema.key[*guess - 1];
			p += k->len + 2;
		} else {
			/* An escaped key is unescaped past what is kept: the value overwrites it. */
			p = scan_string(r, p, r->scratch + r->used, &key, &klen);
			if (!p)
				return NULL;
			if (node >= 0) {
				kend = key == r->scratch + r->used ? key + klen : r->end;
				k = key_find((unsigned)node, key, klen, kend);
				if (guess)
					*guess = k ? (uint16_t)(k->id + 1) : 0;
			}
		}
		/* After a name that is not in the table, no guess for the next. */
		if (node >= 0)
			guess = k ? &r->next_key[k->id] : NULL;
		/* Lines are mostly without blanks: ':' and ',' are looked for first. */
		if (*p != ':') {
			p = ws(p);
			if (*p != ':')
				return unexpected(r, p);
		}
		p = ws(p + 1);
		if (k && k->slot >= 0) {
			/* A field (never deep: no nesting check): strings and numbers here. */
			struct jv *keep = &r->val[k->slot];

			if (*p == '"')
				p = read_string(r, p, keep);
			else if (*p == '-' || is_digit(*p))
				p = read_number(r, p, keep);
			else
				p = read_other(r, p, keep, depth + 1);
		} else {
			if (k)
				forget(r, (unsigned)k->node);
			if (*p == '{') {
				/* Not a field: its members may be (process -> process.parent.pid). */
				if (depth + 1 > MAX_DEPTH)
					return fail(r, p, "nesting too deep");
				p = read_object(r, p, k ? k->node : -1, depth + 1);
			} else
				p = read_value(r, p, NULL, depth + 1);
		}
		if (!p)
			return NULL;
		if (*p != ',') {
			p = ws(p);
			if (*p == '}')
				return p + 1;
			if (*p != ',')
				return unexpected(r, p);
		}
		p = ws(p + 1);
	}
}

/*
 * Any value at p; keep: where to keep it (a field's slot, an array element), or NULL: only
 * checked. Strings and numbers here (inline: most values are), the rest in read_other().
 */
static inline const char *read_value(struct event_reader *r, const char *p, struct jv *keep,
				     unsigned depth)
{
	struct jv tmp;

	if (depth > MAX_DEPTH)
		return fail(r, p, "nesting too deep");
	if (*p == '"')
		return read_string(r, p, keep);
	if (*p == '-' || is_digit(*p))
		return read_number(r, p, keep ? keep : &tmp);
	return read_other(r, p, keep, depth);
}

/* An object, an array or a literal at p (read_value() for the rest). An object is kept as
 * JV_OBJ without its members (no field is an object), an array with its elements in the pool. */
static const char *read_other(struct event_reader *r, const char *p, struct jv *keep,
			      unsigned depth)
{
	switch (*p) {
	case '{':
		if (keep)
			*keep = (struct jv){.gen = r->gen, .type = JV_OBJ};
		return read_object(r, p, -1, depth);
	case '[': {
		uint32_t first = (uint32_t)r->iused, n = 0;

		p = ws(p + 1);
		if (*p == ']') {
			p++;
		} else {
			for (;;) {
				struct jv *item = NULL;

				if (keep) {
					/* Cannot run out (two bytes of text an element at least). */
					if (r->iused >= r->icap)
						return fail(r, p, "too many array elements");
					item = &r->items[r->iused++];
					n++;
				}
				if (!(p = read_value(r, p, item, depth + 1)))
					return NULL;
				p = ws(p);
				if (*p == ']') {
					p++;
					break;
				}
				if (*p != ',')
					return unexpected(r, p);
				p = ws(p + 1);
			}
		}
		if (keep)
			*keep = (struct jv){.gen = r->gen, .type = JV_ARR, .first = first, .n = n};
		return p;
	}
	case 't':
	case 'f': {
		bool b = *p == 't';

		if (!(p = read_literal(r, p, b ? "true" : "false", b ? 4 : 5)))
			return NULL;
		if (keep)
			*keep = (struct jv){.gen = r->gen, .type = JV_BOOL, .b = b};
		return p;
	}
	case 'n':
		if (!(p = read_literal(r, p, "null", 4)))
			return NULL;
		if (keep)
			*keep = (struct jv){.gen = r->gen, .type = JV_NULL};
		return p;
	default:
		return unexpected(r, p);
	}
}

/* The value of the string v in f's enum: from the table, else from_str (values past
 * ENUM_VALUES), else a number. -1 if none. */
static int64_t enum_value(struct event_reader *r, const struct event_field *f, struct jv *v)
{
	const struct key_entry *k;
	const char *s;
	uint32_t n;
	unsigned e;
	int x;

	for (e = 0; e < schema.nenum; e++)
		if (schema.enum_from[e] == f->from_str) {
			k = key_find(ENUM_NODE(e), v->s, v->len, v->s + v->len);
			if (k)
				return k->slot;
			break;
		}
	s = jv_cstr(r, v);
	x = f->from_str(s);
	if (x >= 0)
		return x;
	return safe_atou32(s, 10, &n) < 0 ? -1 : (int64_t)n;
}

static int get_u64(const struct jv *v, uint64_t *ret)
{
	if (v->type != JV_NUM || !v->is_int)
		return -EINVAL;
	if (v->neg && v->mag)
		return -ERANGE;
	*ret = v->mag;
	return 0;
}

static int get_i64(const struct jv *v, int64_t *ret)
{
	if (v->type != JV_NUM || !v->is_int || (!v->neg && v->mag > (uint64_t)INT64_MAX))
		return -EINVAL;
	*ret = v->neg ? (int64_t)(0 - v->mag) : (int64_t)v->mag;
	return 0;
}

/* -EINVAL with the message in err (out of line: field_from_jv()'s path is the one without). */
static __attribute__((cold, noinline)) _printf_(3, 4) int field_error(char *err, size_t errlen,
								     const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static int field_from_jv(struct event_reader *r, struct jv *v, struct rg_event *ev,
			 const struct event_field *f, char *err, size_t errlen)
{
	bool str = v->type == JV_STR;
	uint64_t u;
	int64_t i, x;
	size_t k;

#define FAIL(...) return field_error(err, errlen, __VA_ARGS__)

	switch (f->kind) {
	case EFK_U32:
		if (f->size == 2) {
			if (get_u64(v, &u) < 0 || u > UINT16_MAX)
				FAIL("%s: expected an unsigned 16-bit integer", f->name);
			*AT(ev, f, uint16_t) = (uint16_t)u;
			return 0;
		}
		if (get_u64(v, &u) < 0 || u > UINT32_MAX)
			FAIL("%s: expected an unsigned 32-bit integer", f->name);
		*AT(ev, f, uint32_t) = (uint32_t)u;
		return 0;
	case EFK_U64:
		if (get_u64(v, &u) < 0)
			FAIL("%s: expected an unsigned 64-bit integer", f->name);
		*AT(ev, f, uint64_t) = u;
		return 0;
	case EFK_I32:
		if (get_i64(v, &i) < 0)
			FAIL("%s: expected an integer", f->name);
		if (i < INT32_MIN || i > INT32_MAX)
			FAIL("%s: out of range", f->name);
		*AT(ev, f, int32_t) = (int32_t)i;
		return 0;
	case EFK_HEX32:
		if (!str || safe_atou64(jv_cstr(r, v), 16, &u) < 0 || u > UINT32_MAX)
			FAIL("%s: expected a hex string like \"0x15b3\"", f->name);
		*AT(ev, f, uint32_t) = (uint32_t)u;
		return 0;
	case EFK_STR:
		if (!str)
			FAIL("%s: expected a string", f->name);
		event_set_str(AT(ev, f, char), f->size, v->s, v->len);
		return 0;
	case EFK_ENUM:
		if (!str)
			FAIL("%s: expected a string", f->name);
		x = enum_value(r, f, v);
		if (x < 0)
			FAIL("%s: unknown value \"%s\"", f->name, jv_cstr(r, v));
		if (f->size == 2) {
			if (x > UINT16_MAX)
				FAIL("%s: out of range", f->name);
			*AT(ev, f, uint16_t) = (uint16_t)x;
		} else
			*AT(ev, f, uint32_t) = (uint32_t)x;
		return 0;
	case EFK_ACCESS:
	case EFK_FLAGS: {
		uint32_t bits = 0;

		if (v->type != JV_ARR)
			FAIL("%s: expected an array of names", f->name);
		for (k = 0; k < v->n; k++) {
			struct jv *e = &r->items[v->first + k];
			uint32_t bit = 0;
			unsigned j;

			if (e->type != JV_STR)
				FAIL("%s[%zu]: expected a string", f->name, k);
			jv_cstr(r, e);
			if (f->kind == EFK_ACCESS) {
				if (access_from_string(e->s, &bit) < 0)
					FAIL("%s[%zu]: unknown access flag \"%s\"", f->name, k, e->s);
			} else {
				for (j = 0; j < ARRAY_SIZE(flag_names); j++)
					if (strcmp(flag_names[j], e->s) == 0)
						bit = 1u << j;
				if (!bit)
					FAIL("%s[%zu]: unknown flag \"%s\"", f->name, k, e->s);
			}
			bits |= bit;
		}
		*AT(ev, f, uint32_t) = bits;
		return 0;
	}
	case EFK_GID: {
		struct rg_addr a;

		if (!str || addr_from_string(jv_cstr(r, v), &a) < 0)
			FAIL("%s: expected an IPv6 GID", f->name);
		memcpy(AT(ev, f, uint8_t), a.addr, 16);
		return 0;
	}
	case EFK_GID_V4:
		return 0; /* derived */
	case EFK_ADDR: {
		struct rg_addr *a = AT(ev, f, struct rg_addr);
		uint16_t port = a->port;

		if (!str || addr_from_string(jv_cstr(r, v), a) < 0)
			FAIL("%s: expected an IP address", f->name);
		a->port = port;
		return 0;
	}
	case EFK_PORT:
		if (get_u64(v, &u) < 0 || u > 65535)
			FAIL("%s: expected a port number", f->name);
		AT(ev, f, struct rg_addr)->port = (uint16_t)u;
		return 0;
	case EFK_ARGS: {
		char *p = AT(ev, f, char);
		uint32_t off = 0;

		if (v->type != JV_ARR)
			FAIL("%s: expected an array of strings", f->name);
		for (k = 0; k < v->n && off < f->size; k++) {
			const struct jv *e = &r->items[v->first + k];
			size_t l;

			if (e->type != JV_STR)
				FAIL("%s[%zu]: expected a string", f->name, k);
			l = e->len;
			if (k + 1 == v->n && off + l == f->size) {
				/* The last one may fill the buffer: the length ends it, not a NUL. */
				for (size_t c = 0; c < l; c++)
					p[off + c] = ((unsigned char)e->s[c] < 0x20 || e->s[c] == 0x7f)
							     ? '?' : e->s[c];
				off += (uint32_t)l;
				break;
			}
			if (off + l + 1 > f->size) {
				ev->flags |= RG_EVF_TRUNC;
				break;
			}
			event_set_str(p + off, l + 1, e->s, l);
			off += (uint32_t)l + 1;
		}
		*(uint32_t *)((char *)ev + f->aux) = off;
		return 0;
	}
	case EFK_BOOLFLAG:
		if (v->type != JV_BOOL)
			FAIL("%s: expected true or false", f->name);
		if (v->b)
			*AT(ev, f, uint32_t) |= f->aux;
		else
			*AT(ev, f, uint32_t) &= ~f->aux;
		return 0;
	case EFK_TIME:
		if (!str || parse_timestamp_cached(v->s, v->len, &u, &r->ts) < 0)
			FAIL("%s: expected an RFC 3339 UTC time like 2026-01-02T03:04:05.000006Z", f->name);
		*AT(ev, f, uint64_t) = u;
		return 0;
	}
#undef FAIL
	return -EINVAL;
}

/* The value this read kept in a slot, NULL if none (or a JSON null). */
static struct jv *kept(struct event_reader *r, int slot)
{
	struct jv *v = &r->val[slot];

	return v->gen == r->gen && v->type != JV_NULL ? v : NULL;
}

static int apply_fields(struct event_reader *r, struct rg_event *ev,
			const struct event_field *f, const uint16_t *slot, size_t n, char *err,
			size_t errlen)
{
	size_t i;

	for (i = 0; i < n; i++) {
		struct jv *v = kept(r, slot[i]);
		uint64_t u;
		int ret;

		if (!v)
			continue;
		/* The most common kinds without the call (field_from_jv's answer; it reports the
		 * errors). */
		if (f[i].kind == EFK_U64 && get_u64(v, &u) == 0) {
			*AT(ev, &f[i], uint64_t) = u;
			continue;
		}
		if (f[i].kind == EFK_U32 && f[i].size == 4 && get_u64(v, &u) == 0 && u <= UINT32_MAX) {
			*AT(ev, &f[i], uint32_t) = (uint32_t)u;
			continue;
		}
		if (f[i].kind == EFK_STR && v->type == JV_STR) {
			event_set_str(AT(ev, &f[i], char), f[i].size, v->s, v->len);
			continue;
		}
		ret = field_from_jv(r, v, ev, &f[i], err, errlen);
		if (ret < 0)
			return ret;
	}
	return 0;
}

int event_reader_read(struct event_reader *r, const char *text, size_t len, struct rg_event *ev,
		      size_t *col, char *err, size_t errlen)
{
	const struct event_field *f;
	struct jv *action;
	const struct key_entry *k;
	const char *p;
	size_t n;
	int t, ret;

	memset(ev, 0, sizeof(*ev));
	*col = 0;
	if (len > r->max_len) {
		snprintf(err, errlen, "longer than %zu bytes", r->max_len);
		return -E2BIG;
	}
	if (++r->gen == 0) { /* wrapped: old stamps could match again */
		memset(r->val, 0, sizeof(r->val));
		memset(r->node_gen, 0, sizeof(r->node_gen));
		r->gen = 1;
	}
	r->used = r->iused = 0;
	r->start = text;
	r->end = text + len;
	r->err_what = NULL;
	if (text[len] != 0) {
		snprintf(err, errlen, "text not NUL-terminated");
		return -EINVAL;
	}
	p = ws(text);
	if (*p != '{') {
		if (*p && memchr("[\"-0123456789tfn", *p, 15))
			fail(r, p, "not an object");
		else
			unexpected(r, p);
	} else if ((p = read_object(r, p, 0, 1))) {
		p = ws(p);
		if (p != r->end)
			fail(r, p, "unexpected character after the object");
	}
	if (r->err_what) {
		*col = (size_t)(r->err_at - r->start) + 1;
		snprintf(err, errlen, "%s", r->err_what);
		return -EINVAL;
	}
	action = kept(r, schema.action);
	if (!action || action->type != JV_STR) {
		snprintf(err, errlen, "event.action: missing");
		return -EINVAL;
	}
	k = key_find(ENUM_NODE(schema.action_enum), action->s, action->len,
		     action->s + action->len);
	t = k ? k->slot : -EINVAL;
	if (t <= 0) {
		snprintf(err, errlen, "event.action: unknown event type \"%s\"",
			 jv_cstr(r, action));
		return -EINVAL;
	}
	ret = apply_fields(r, ev, common_fields, schema.common, NCOMMON, err, errlen);
	if (ret < 0)
		return ret;
	n = event_fields((unsigned)t, &f);
	ret = apply_fields(r, ev, f, schema.type[t], n, err, errlen);
	if (ret < 0)
		return ret;
	if (t == RG_EV_VERBS && kept(r, schema.qp_state))
		ev->u.verbs.qp_attr_mask |= 1;
	return 0;
}

int event_from_json(struct json_object *obj, struct rg_event *ev, char *err, size_t errlen)
{
	struct event_reader *r;
	const char *text;
	size_t len, col;
	int ret;

	memset(ev, 0, sizeof(*ev));
	if (!json_object_is_type(obj, json_type_object)) {
		snprintf(err, errlen, "expected a JSON object");
		return -EINVAL;
	}
	text = json_object_to_json_string_ext(obj, JSON_C_TO_STRING_PLAIN |
						     JSON_C_TO_STRING_NOSLASHESCAPE);
	if (!text) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	len = strlen(text);
	ret = event_reader_new(len, &r);
	if (ret < 0) {
		snprintf(err, errlen, "out of memory");
		return ret;
	}
	ret = event_reader_read(r, text, len, ev, &col, err, errlen);
	event_reader_free(r);
	return ret;
}
