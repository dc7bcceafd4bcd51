/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The table of hook points and their variants (hooks.h). */
#include <stddef.h>

#include "bpf/events.h"
#include "hooks.h"

const char *const flavor_names[] = {
    [FL_NONE] = "none",	    [FL_TRACEPOINT] = "tracepoint",
    [FL_KPROBE] = "kprobe", [FL_FENTRY] = "fentry",
    [FL_LSM] = "lsm",	    [FL_UPROBE] = "uprobe",
    [FL_TC] = "tc",	    [FL_UEVENT] = "uevent",
};

#define TP_MEM                                                                                     \
	{                                                                                          \
		"tp_enter_pvm_readv", "tp_exit_pvm_readv", "tp_enter_pvm_writev",                  \
		    "tp_exit_pvm_writev", "tp_enter_ptrace", "tp_exit_ptrace"                      \
	}

#define SOCK_PROGS(p)                                                                              \
	{                                                                                          \
		#p "socket", #p "bind", #p "connect", #p "accept", #p "accept4", #p "setsockopt",  \
		    #p "sendmsg", #p "sendmmsg"                                                    \
	}

const struct hook_def hook_defs[HP__MAX] = {
    [HP_PROCESS] = {"process",
		    {{FL_TRACEPOINT, {"tp_sched_exec", "rawtp_sched_fork", "tp_sched_exit"}}}},
    [HP_OPEN] = {"open",
		 /* the LSM's file_open check, which every open passes, and fd_install() */
		 {{FL_LSM, {"lsm_file_open", "fe_fd_install"}, "bpf_lsm_file_open"},
		  {FL_FENTRY, {"fx_security_file_open", "fe_fd_install"}, "security_file_open"},
		  {FL_KPROBE, {"kp_security_file_open", "kp_fd_install"}, "security_file_open"},
		  {FL_TRACEPOINT, {"tp_exit_openat", "tp_exit_open", "tp_exit_openat2", "tp_exit_creat"}}}},
    [HP_VERBS] = {"verbs",
		  {{FL_FENTRY,
		    {"fx_uverbs_ioctl", "fx_uverbs_write", "fe_uverbs_mmap"},
		    "ib_uverbs_ioctl",
		    "ib_uverbs",
		    true},
		   {FL_KPROBE,
		    {"kp_uverbs_ioctl", "krp_uverbs_ioctl", "kp_uverbs_write", "krp_uverbs_write",
		     "kp_uverbs_mmap"},
		    "ib_uverbs_ioctl",
		    "ib_uverbs"},
		   /* the syscall level, while ib_uverbs is absent */
		   {FL_FENTRY,
		    {"fe_sys_ioctl", "fx_sys_ioctl", "fe_sys_write", "fx_sys_write",
		     "fe_sys_writev", "fx_sys_writev", "fe_sys_pwritev2", "fx_sys_pwritev2"},
		    RG_SYSCALL_FN("ioctl")},
		   {FL_TRACEPOINT,
		    {"tp_enter_ioctl", "tp_exit_ioctl", "tp_enter_write", "tp_exit_write",
		     "tp_enter_writev", "tp_exit_writev", "tp_enter_pwritev2",
		     "tp_exit_pwritev2"}}}},
    [HP_RDMA_CM] = {"rdma_cm",
		    {{FL_FENTRY, {"fx_ucma_write"}, "ucma_write", "rdma_ucm", true},
		     {FL_KPROBE, {"kp_ucma_write", "krp_ucma_write"}, "ucma_write", "rdma_ucm"},
		     {FL_FENTRY,
		      {"fe_sys_write", "fx_sys_write", "fe_sys_writev", "fx_sys_writev",
		       "fe_sys_pwritev2", "fx_sys_pwritev2"},
		      RG_SYSCALL_FN("write")},
		     {FL_TRACEPOINT,
		      {"tp_enter_write", "tp_exit_write", "tp_enter_writev", "tp_exit_writev",
		       "tp_enter_pwritev2", "tp_exit_pwritev2"}}}},
    [HP_MMAP] = {"mmap",
		 {{FL_LSM, {"lsm_mmap_file", "lsm_file_mprotect"}, "bpf_lsm_mmap_file"},
		  {FL_FENTRY,
		   {"fe_security_mmap_file", "fx_security_file_mprotect"},
		   "security_mmap_file"},
		  {FL_KPROBE,
		   {"kp_security_mmap_file", "kp_security_file_mprotect"},
		   "security_mmap_file"},
		  {FL_TRACEPOINT, {"tp_enter_mmap"}}}},
    [HP_MEMORY] = {"memory",
		   {{FL_LSM,
		     {"lsm_ptrace_access_check", "lsm_ptrace_traceme"},
		     "bpf_lsm_ptrace_access_check"},
		    {FL_FENTRY,
		     {"fx_ptrace_access_check", "fx_ptrace_traceme"},
		     "security_ptrace_access_check"},
		    {FL_KPROBE,
		     {"kp_ptrace_access_check", "kp_ptrace_traceme"},
		     "security_ptrace_access_check"},
		    {FL_TRACEPOINT, TP_MEM}}},
    [HP_LIBRARY] = {"library", {{FL_UPROBE, {"up_ibv_get_device_list", "up_ibv_open_device"}}}},
    [HP_MODULES] = {"modules", {{FL_TRACEPOINT, {"tp_module_load"}}, {FL_UEVENT}}},
    [HP_DEVICES] = {"devices", {{FL_UEVENT}}},
    [HP_ROCE] = {"roce", {{FL_TC, {"tc_roce_ingress", "tc_roce_egress"}}}},
    [HP_SELF] = {"self",
		 {{FL_FENTRY, {"fx_sys_bpf"}, RG_SYSCALL_FN("bpf")},
		  {FL_KPROBE, {"krp_sys_bpf"}, RG_SYSCALL_FN("bpf")},
		  {FL_TRACEPOINT, {"tp_enter_bpf", "tp_exit_bpf"}}}},
    /* AF_RDS and AF_SMC sockets (sockets.bpf.c): the same programs at every syscall's return */
    [HP_SOCKETS] = {"sockets",
		    {{FL_FENTRY, SOCK_PROGS(fx_sys_), RG_SYSCALL_FN("socket")},
		     {FL_KPROBE, SOCK_PROGS(krp_sys_), RG_SYSCALL_FN("socket")},
		     {FL_TRACEPOINT, SOCK_PROGS(tp_exit_)}}},
    /* attached only while a hook point is on the syscall level (links.c) */
    [HP_COMPAT] = {"compat32",
		   {{FL_TRACEPOINT,
		     {"tp_compat_exit_open", "tp_compat_enter_mmap", "tp_compat_enter_ioctl",
		      "tp_compat_exit_ioctl", "tp_compat_enter_write", "tp_compat_exit_write",
		      "tp_compat_enter_mem", "tp_compat_exit_mem"}}}},
};

const struct variant *variant_of(unsigned hp, int idx)
{
	if (idx < 0 || idx >= 4 || hook_defs[hp].v[idx].flavor == FL_NONE)
		return NULL;
	return &hook_defs[hp].v[idx];
}
