/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>

#include "event_json.h"
#include "../common/util.h"

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

/* event_from_json() collects a type's values in an array of this many (common fields too). */
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

static void field_to_jw(const struct rg_event *ev, const struct event_field *f, struct jw *w)
{
	char buf[64];
	const char *key;
	jw_node obj;

	/* The one field that may have no value although it is not zero: no path made for it. */
	if (f->kind == EFK_GID_V4 && !gid_to_ipv4(CAT(ev, f, uint8_t), buf))
		return;
	obj = jw_path(w, JW_ROOT, f->name, &key);
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
		const char *p = CAT(ev, f, char);
		uint32_t len = *(const uint32_t *)((const char *)ev + f->aux), off = 0;
		jw_node a = jw_new_array(w, obj, key);

		if (len > f->size)
			len = f->size;
		while (off < len) {
			size_t n = strnlen(p + off, len - off);

			jw_string_len(w, a, NULL, p + off, n);
			off += (uint32_t)n + 1;
		}
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
		       size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (f[i].present ? f[i].present(ev) : !field_is_zero(ev, &f[i]))
			field_to_jw(ev, &f[i], w);
}

int event_to_jw(const struct rg_event *ev, struct jw *w)
{
	const struct event_field *f;
	size_t n = event_fields(ev->type, &f);

	add_fields(w, ev, common_fields, ARRAY_SIZE(common_fields));
	jw_string(w, jw_object(w, JW_ROOT, "event"), "kind", "event");
	add_fields(w, ev, f, n);
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

static int get_u64(struct json_object *v, uint64_t *ret)
{
	int64_t i;

	if (!json_object_is_type(v, json_type_int))
		return -EINVAL;
	i = json_object_get_int64(v);
	if (i < 0)
		return -ERANGE;
	/* json-c keeps numbers above INT64_MAX as uint64 and clamps get_int64 to INT64_MAX. */
	*ret = i == INT64_MAX ? json_object_get_uint64(v) : (uint64_t)i;
	return 0;
}

static int field_from_json(struct json_object *v, struct rg_event *ev, const struct event_field *f,
			   char *err, size_t errlen)
{
	const char *s = json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
	uint64_t u;
	int64_t i;
	size_t k, n;
	int r;

#define FAIL(...)                                                                                  \
	do {                                                                                       \
		snprintf(err, errlen, __VA_ARGS__);                                                \
		return -EINVAL;                                                                    \
	} while (0)

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
		if (!json_object_is_type(v, json_type_int))
			FAIL("%s: expected an integer", f->name);
		i = json_object_get_int64(v);
		if (i < INT32_MIN || i > INT32_MAX)
			FAIL("%s: out of range", f->name);
		*AT(ev, f, int32_t) = (int32_t)i;
		return 0;
	case EFK_HEX32:
		if (!s || safe_atou64(s, 16, &u) < 0 || u > UINT32_MAX)
			FAIL("%s: expected a hex string like \"0x15b3\"", f->name);
		*AT(ev, f, uint32_t) = (uint32_t)u;
		return 0;
	case EFK_STR:
		if (!s)
			FAIL("%s: expected a string", f->name);
		event_set_str(AT(ev, f, char), f->size, s, strlen(s));
		return 0;
	case EFK_ENUM:
		if (!s)
			FAIL("%s: expected a string", f->name);
		r = f->from_str(s);
		if (r < 0) {
			uint32_t x;
			if (safe_atou32(s, 10, &x) < 0)
				FAIL("%s: unknown value \"%s\"", f->name, s);
			r = (int)x;
		}
		if (f->size == 2) {
			if (r > UINT16_MAX)
				FAIL("%s: out of range", f->name);
			*AT(ev, f, uint16_t) = (uint16_t)r;
		} else
			*AT(ev, f, uint32_t) = (uint32_t)r;
		return 0;
	case EFK_ACCESS:
	case EFK_FLAGS: {
		uint32_t bits = 0;
		if (!json_object_is_type(v, json_type_array))
			FAIL("%s: expected an array of names", f->name);
		n = json_object_array_length(v);
		for (k = 0; k < n; k++) {
			const char *name = json_object_get_string(json_object_array_get_idx(v, k));
			uint32_t bit = 0;
			unsigned j;
			if (!json_object_is_type(json_object_array_get_idx(v, k), json_type_string))
				FAIL("%s[%zu]: expected a string", f->name, k);
			if (f->kind == EFK_ACCESS) {
				if (access_from_string(name, &bit) < 0)
					FAIL("%s[%zu]: unknown access flag \"%s\"", f->name, k, name);
			} else {
				for (j = 0; j < ARRAY_SIZE(flag_names); j++)
					if (strcmp(flag_names[j], name) == 0)
						bit = 1u << j;
				if (!bit)
					FAIL("%s[%zu]: unknown flag \"%s\"", f->name, k, name);
			}
			bits |= bit;
		}
		*AT(ev, f, uint32_t) = bits;
		return 0;
	}
	case EFK_GID: {
		struct rg_addr a;
		if (!s || addr_from_string(s, &a) < 0)
			FAIL("%s: expected an IPv6 GID", f->name);
		memcpy(AT(ev, f, uint8_t), a.addr, 16);
		return 0;
	}
	case EFK_GID_V4:
		return 0; /* derived */
	case EFK_ADDR: {
		struct rg_addr *a = AT(ev, f, struct rg_addr);
		uint16_t port = a->port;
		if (!s || addr_from_string(s, a) < 0)
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
		if (!json_object_is_type(v, json_type_array))
			FAIL("%s: expected an array of strings", f->name);
		n = json_object_array_length(v);
		for (k = 0; k < n && off < f->size; k++) {
			struct json_object *e = json_object_array_get_idx(v, k);
			size_t l;
			if (!json_object_is_type(e, json_type_string))
				FAIL("%s[%zu]: expected a string", f->name, k);
			l = strlen(json_object_get_string(e));
			if (k + 1 == n && off + l == f->size) {
				/* The last one may fill the buffer: the length ends it, not a NUL. */
				const char *a = json_object_get_string(e);

				for (size_t c = 0; c < l; c++)
					p[off + c] = ((unsigned char)a[c] < 0x20 || a[c] == 0x7f)
							     ? '?' : a[c];
				off += (uint32_t)l;
				break;
			}
			if (off + l + 1 > f->size) {
				ev->flags |= RG_EVF_TRUNC;
				break;
			}
			event_set_str(p + off, l + 1, json_object_get_string(e), l);
			off += (uint32_t)l + 1;
		}
		*(uint32_t *)((char *)ev + f->aux) = off;
		return 0;
	}
	case EFK_BOOLFLAG:
		if (!json_object_is_type(v, json_type_boolean))
			FAIL("%s: expected true or false", f->name);
		if (json_object_get_boolean(v))
			*AT(ev, f, uint32_t) |= f->aux;
		else
			*AT(ev, f, uint32_t) &= ~f->aux;
		return 0;
	case EFK_TIME:
		if (!s || parse_timestamp(s, &u) < 0)
			FAIL("%s: expected an RFC 3339 UTC time like 2026-01-02T03:04:05.000006Z", f->name);
		*AT(ev, f, uint64_t) = u;
		return 0;
	}
#undef FAIL
	return -EINVAL;
}

/*
 * Reading an event walks its JSON object once and finds each member's field in a hash table of
 * (event type, dotted path), instead of looking each known path up: an event has about 15 of
 * the 30 to 40 paths its type knows, and every lookup was a json-c hash lookup per path segment.
 */
#define FIELD_INDEX_SIZE 1024 /* power of two, > 2 x the entries */
#define NCOMMON		 ARRAY_SIZE(common_fields)

struct field_slot {
	const char *name; /* NULL: empty */
	uint8_t type;
	uint8_t idx; /* < NCOMMON: common_fields[idx], else type_fields[type].f[idx - NCOMMON] */
};

static struct field_slot field_index[FIELD_INDEX_SIZE];
static pthread_once_t field_index_once = PTHREAD_ONCE_INIT;

static uint32_t field_hash(unsigned type, const char *name, size_t len)
{
	uint32_t h = 2166136261u ^ type;
	size_t i;

	for (i = 0; i < len; i++)
		h = (h ^ (uint8_t)name[i]) * 16777619u;
	return h;
}

static void field_index_add(unsigned type, const char *name, unsigned idx)
{
	uint32_t h = field_hash(type, name, strlen(name)) & (FIELD_INDEX_SIZE - 1);

	while (field_index[h].name)
		h = (h + 1) & (FIELD_INDEX_SIZE - 1);
	field_index[h] = (struct field_slot){.name = name, .type = (uint8_t)type, .idx = (uint8_t)idx};
}

static void field_index_build(void)
{
	unsigned t, i;

	_Static_assert(RG_EV__MAX <= UINT8_MAX, "types fit the index");
	_Static_assert(ARRAY_SIZE(common_fields) + MAX_TYPE_FIELDS <= UINT8_MAX, "indexes fit");
	for (t = 1; t < RG_EV__MAX; t++) {
		for (i = 0; i < NCOMMON; i++)
			field_index_add(t, common_fields[i].name, i);
		for (i = 0; i < type_fields[t].n; i++)
			field_index_add(t, type_fields[t].f[i].name, (unsigned)(NCOMMON + i));
	}
}

/* Index of the field called path[0..len) for type, or -1. */
static int field_index_find(unsigned type, const char *path, size_t len)
{
	uint32_t h = field_hash(type, path, len) & (FIELD_INDEX_SIZE - 1);

	for (; field_index[h].name; h = (h + 1) & (FIELD_INDEX_SIZE - 1)) {
		const struct field_slot *s = &field_index[h];

		if (s->type == type && strncmp(s->name, path, len) == 0 && s->name[len] == 0)
			return s->idx;
	}
	return -1;
}

struct from_json {
	unsigned type;
	struct json_object *val[NCOMMON + MAX_TYPE_FIELDS];
};

#define FROM_JSON_MAX_PATH 128
#define FROM_JSON_MAX_DEPTH 8 /* the deepest path is 4 deep (target.process.start_boot_ns) */

/* Records obj's members that are fields (path[0..len) is obj's own path). Members with dots in
 * their names and unknown members are ignored, as are nulls; an object where a field is
 * expected is recorded, to be refused. */
static void collect(struct from_json *c, struct json_object *obj, char *path, size_t len,
		    unsigned depth)
{
	json_object_object_foreach(obj, key, v)
	{
		size_t kl = strlen(key), pl = len ? len + 1 + kl : kl;
		int idx;

		if (!v || kl == 0 || memchr(key, '.', kl) || pl >= FROM_JSON_MAX_PATH)
			continue;
		if (len)
			path[len] = '.';
		memcpy(path + (len ? len + 1 : 0), key, kl);
		idx = field_index_find(c->type, path, pl);
		if (idx >= 0)
			c->val[idx] = v;
		else if (json_object_is_type(v, json_type_object) && depth < FROM_JSON_MAX_DEPTH)
			collect(c, v, path, pl, depth + 1);
	}
}

static int read_fields(struct rg_event *ev, const struct event_field *f, struct json_object **val,
		       size_t n, char *err, size_t errlen)
{
	size_t i;

	for (i = 0; i < n; i++) {
		int r;

		if (!val[i])
			continue;
		r = field_from_json(val[i], ev, &f[i], err, errlen);
		if (r < 0)
			return r;
	}
	return 0;
}

int event_from_json(struct json_object *obj, struct rg_event *ev, char *err, size_t errlen)
{
	struct from_json c;
	const struct event_field *f;
	struct json_object *action;
	char path[FROM_JSON_MAX_PATH];
	size_t n;
	int r, qp_state;

	memset(ev, 0, sizeof(*ev));
	if (!json_object_is_type(obj, json_type_object)) {
		snprintf(err, errlen, "expected a JSON object");
		return -EINVAL;
	}
	action = json_get_path(obj, "event.action");
	if (!action || !json_object_is_type(action, json_type_string)) {
		snprintf(err, errlen, "event.action: missing");
		return -EINVAL;
	}
	r = event_type_from_string(json_object_get_string(action));
	if (r <= 0) {
		snprintf(err, errlen, "event.action: unknown event type \"%s\"",
			 json_object_get_string(action));
		return -EINVAL;
	}
	(void)pthread_once(&field_index_once, field_index_build);
	memset(&c, 0, sizeof(c));
	c.type = (unsigned)r;
	collect(&c, obj, path, 0, 0);
	r = read_fields(ev, common_fields, c.val, NCOMMON, err, errlen);
	if (r < 0)
		return r;
	n = event_fields(c.type, &f);
	r = read_fields(ev, f, c.val + NCOMMON, n, err, errlen);
	if (r < 0)
		return r;
	if (c.type == RG_EV_VERBS) {
		qp_state = field_index_find(c.type, "rdma.qp.state", strlen("rdma.qp.state"));
		if (qp_state >= 0 && c.val[qp_state])
			ev->u.verbs.qp_attr_mask |= 1;
	}
	return 0;
}
