// SPDX-License-Identifier: GPL-2.0-only
/*
 * libibverbs entry points (uprobes on the system's libibverbs.so.1, every process that maps it):
 * ibv_get_device_list (a process looks for RDMA devices, even where there are none) and
 * ibv_open_device (which device).
 */
#include "common.bpf.h"

static __always_inline struct rg_rec_ucall *ucall_begin(__u32 fn)
{
	struct rg_rec_ucall *r;

	if (is_self())
		return NULL;
	r = RESERVE_HI(struct rg_rec_ucall);
	if (!r)
		return NULL;
	fill_hdr(&r->h, RG_REC_UCALL, RG_HOOK_UPROBE);
	r->h.flags |= RG_RECF_NORET;
	r->fn = fn;
	r->pad = 0;
	r->device[0] = 0;
	return r;
}

SEC("uprobe")
int BPF_KPROBE(up_ibv_get_device_list)
{
	struct rg_rec_ucall *r = ucall_begin(RG_UCALL_GET_DEVICE_LIST);

	if (r)
		rg_submit(r);
	return 0;
}

SEC("uprobe")
int BPF_KPROBE(up_ibv_open_device, void *device)
{
	struct rg_rec_ucall *r = ucall_begin(RG_UCALL_OPEN_DEVICE);

	if (!r)
		return 0;
	if (device && rg_ibv_device_name_off)
		bpf_probe_read_user_str(r->device, sizeof(r->device),
					(char *)device + rg_ibv_device_name_off);
	rg_submit(r);
	return 0;
}
