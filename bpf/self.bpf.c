// SPDX-License-Identifier: GPL-2.0-only
/*
 * Self-protection: a bpf() command by another process that changes one of the agent's own maps
 * (update, delete, freeze, batch) or links (update, detach). The caller's fd is resolved to the
 * object it names (an anonymous inode named "bpf-map", or "bpf_link", "bpf-link" on 6.18: nothing
 * else is read as one), and only the agent's own objects (map self_objs, filled by the agent after
 * load) are reported, at the syscall's exit with the kernel's answer: a refused attempt is
 * reported too.
 */
#include "common.bpf.h"

char LICENSE[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 256);
	__type(key, struct rg_self_key);
	__type(value, __u32);
} self_objs SEC(".maps");

SEC("tracepoint/syscalls/sys_enter_bpf")
int tp_enter_bpf(struct trace_event_raw_sys_enter *ctx)
{
	__u32 cmd = (__u32)ctx->args[0], fd = 0, off = 0, kind;
	void *uattr = (void *)ctx->args[1];
	struct rg_self_key k = {};
	struct pending p = {};
	struct dentry *dentry;
	struct file *file;
	char name[16];
	void *priv;

	if (is_self())
		return 0;
	switch (cmd) {
	case BPF_MAP_UPDATE_ELEM:
	case BPF_MAP_DELETE_ELEM:
	case BPF_MAP_LOOKUP_AND_DELETE_ELEM:
	case BPF_MAP_FREEZE:
		kind = RG_SELF_MAP;
		break;
	case BPF_MAP_LOOKUP_AND_DELETE_BATCH:
	case BPF_MAP_UPDATE_BATCH:
	case BPF_MAP_DELETE_BATCH:
		kind = RG_SELF_MAP;
		off = __builtin_offsetof(union bpf_attr, batch.map_fd);
		break;
	case BPF_LINK_UPDATE:
	case BPF_LINK_DETACH:
		kind = RG_SELF_LINK;
		break;
	default:
		return 0;
	}
	if (bpf_probe_read_user(&fd, sizeof(fd), uattr + off) != 0)
		return 0;
	file = current_fd_file((int)fd);
	if (!file)
		return 0;
	dentry = BPF_CORE_READ(file, f_path.dentry);
	if (read_dentry_name(dentry, name, sizeof(name)) < 0)
		return 0;
	priv = BPF_CORE_READ(file, private_data);
	if (!priv)
		return 0;
	if (kind == RG_SELF_MAP) {
		if (!NAME_IS(name, "bpf-map") && !NAME_IS(name, "bpf_map"))
			return 0;
		k.id = BPF_CORE_READ((struct bpf_map *)priv, id);
	} else {
		if (!NAME_IS(name, "bpf_link") && !NAME_IS(name, "bpf-link"))
			return 0;
		k.id = BPF_CORE_READ((struct bpf_link *)priv, id);
	}
	k.kind = kind;
	if (!bpf_map_lookup_elem(&self_objs, &k))
		return 0;
	p.kind = PK_BPF;
	p.fd = (int)fd;
	p.op = cmd;
	p.node = kind;
	p.a0 = k.id;
	pending_put(PK_BPF, &p);
	return 0;
}

SEC("tracepoint/syscalls/sys_exit_bpf")
int tp_exit_bpf(struct trace_event_raw_sys_exit *ctx)
{
	struct task_struct *task;
	struct rg_rec_bpf *r;
	struct pending p;
	struct file *exe;

	if (!pending_take(PK_BPF, &p))
		return 0;
	r = RESERVE(struct rg_rec_bpf);
	if (!r)
		return 0;
	task = (struct task_struct *)bpf_get_current_task();
	fill_hdr_task(&r->h, task, RG_REC_BPF, RG_HOOK_TRACEPOINT);
	r->cmd = p.op;
	r->kind = p.node;
	r->id = (__u32)p.a0;
	r->fd = p.fd;
	r->ret = ctx->ret;
	r->exe[0] = 0;
	exe = BPF_CORE_READ(task, mm, exe_file);
	if (exe && file_path(exe, r->exe) > 0)
		r->h.flags |= RG_RECF_TRUNC;
	bpf_ringbuf_submit(r, 0);
	return 0;
}
