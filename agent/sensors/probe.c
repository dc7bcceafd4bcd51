/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/log.h"
#include "common/macro.h"
#include "common/root.h"
#include "common/strutil.h"
#include "probe.h"

#define TRACEFS		"/sys/kernel/tracing"
#define DEBUGFS_TRACING "/sys/kernel/debug/tracing"

static bool exists(const char *path)
{
	return access(path, F_OK) == 0;
}

const char *tracefs_events_dir(void)
{
	/* libbpf prefers the debugfs path when it exists; so do we, to agree with it. */
	if (exists(DEBUGFS_TRACING "/events"))
		return DEBUGFS_TRACING "/events";
	return TRACEFS "/events";
}

bool tracepoint_exists(const char *category, const char *name)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s/%s/id", tracefs_events_dir(), category, name);
	return exists(path);
}

static bool mount_tracefs(void)
{
	if (exists(TRACEFS "/events") || exists(DEBUGFS_TRACING "/events"))
		return true;
	if (mount("tracefs", TRACEFS, "tracefs", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0) {
		log_warning_errno(-errno, "Failed to mount tracefs on " TRACEFS ": %m");
		return false;
	}
	log_info("Mounted tracefs on " TRACEFS ".");
	return exists(TRACEFS "/events");
}

static void read_lsms(struct sensors_features *f)
{
	_cleanup_close_ int fd = -1;
	char *buf = NULL;
	size_t len;

	if (!exists("/sys/kernel/security/lsm") &&
	    mount("securityfs", "/sys/kernel/security", "securityfs",
		  MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0)
		log_debug_errno(-errno, "Failed to mount securityfs: %m");
	fd = open("/sys/kernel/security/lsm", O_RDONLY | O_CLOEXEC);
	if (fd < 0 || read_fd_bounded(fd, sizeof(f->lsms) - 1, &buf, &len, NULL) < 0)
		return;
	strscpy_ok(f->lsms, strstrip(buf), sizeof(f->lsms));
	free(buf);
}

static bool lsm_listed(const char *lsms, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = lsms; (p = strstr(p, name)); p += n)
		if ((p == lsms || p[-1] == ',') && (p[n] == 0 || p[n] == ','))
			return true;
	return false;
}

/* Loads "r0 = 0; exit" as a tracing/LSM program on func and attaches it. */
static bool probe_btf_prog(enum bpf_prog_type type, enum bpf_attach_type at, const char *func)
{
	struct bpf_insn insns[] = {
	    {.code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0},
	    {.code = BPF_JMP | BPF_EXIT},
	};
	struct btf *vmlinux = btf__load_vmlinux_btf();
	int id, fd, lfd;
	LIBBPF_OPTS(bpf_prog_load_opts, opts);

	if (!vmlinux)
		return false;
	id = btf__find_by_name_kind(vmlinux, func, BTF_KIND_FUNC);
	btf__free(vmlinux);
	if (id < 0)
		return false;
	opts.expected_attach_type = at;
	opts.attach_btf_id = (unsigned)id;
	fd = bpf_prog_load(type, NULL, "GPL", insns, ARRAY_SIZE(insns), &opts);
	if (fd < 0) {
		log_debug_errno(-errno, "Probe: %s program on %s refused: %m",
				type == BPF_PROG_TYPE_LSM ? "LSM" : "fentry", func);
		return false;
	}
	lfd = bpf_raw_tracepoint_open(NULL, fd);
	if (lfd < 0)
		log_debug_errno(-errno, "Probe: attaching to %s refused: %m", func);
	else
		close(lfd);
	close(fd);
	return lfd >= 0;
}

void sensors_probe_features(struct sensors_features *f)
{
	int r;

	memset(f, 0, sizeof(*f));
	f->tracefs = mount_tracefs();
	f->syscall_tp = f->tracefs && tracepoint_exists("syscalls", "sys_enter_ioctl");
	f->module_tp = f->tracefs && tracepoint_exists("module", "module_load");
	f->raw_tp = libbpf_probe_bpf_prog_type(BPF_PROG_TYPE_RAW_TRACEPOINT, NULL) == 1;
	f->ringbuf = libbpf_probe_bpf_map_type(BPF_MAP_TYPE_RINGBUF, NULL) == 1;
	if (!f->ringbuf) {
		/* Tell an unprivileged caller from an old kernel: even a plain array is refused. */
		r = bpf_map_create(BPF_MAP_TYPE_ARRAY, NULL, 4, 4, 1, NULL);
		if (r >= 0)
			close(r);
		f->ringbuf_error = r < 0 ? -errno : 0;
	}
	f->tc = libbpf_probe_bpf_prog_type(BPF_PROG_TYPE_SCHED_CLS, NULL) == 1;
	f->kprobe = libbpf_probe_bpf_prog_type(BPF_PROG_TYPE_KPROBE, NULL) == 1 &&
		    (exists("/sys/bus/event_source/devices/kprobe/type") ||
		     exists(TRACEFS "/kprobe_events") || exists(DEBUGFS_TRACING "/kprobe_events"));
	f->uprobe = libbpf_probe_bpf_prog_type(BPF_PROG_TYPE_KPROBE, NULL) == 1 &&
		    (exists("/sys/bus/event_source/devices/uprobe/type") ||
		     exists(TRACEFS "/uprobe_events") || exists(DEBUGFS_TRACING "/uprobe_events"));
	f->fentry = probe_btf_prog(BPF_PROG_TYPE_TRACING, BPF_TRACE_FENTRY, "security_mmap_file");
	read_lsms(f);
	f->lsm = lsm_listed(f->lsms, "bpf") &&
		 probe_btf_prog(BPF_PROG_TYPE_LSM, BPF_LSM_MAC, "bpf_lsm_mmap_file");
}

bool kfunc_in_btf(const char *func, const char *module)
{
	struct btf *vmlinux = btf__load_vmlinux_btf(), *btf = NULL;
	char path[256];
	bool found = false;

	if (!vmlinux)
		return false;
	if (!module) {
		found = btf__find_by_name_kind(vmlinux, func, BTF_KIND_FUNC) > 0;
	} else {
		snprintf(path, sizeof(path), "/sys/kernel/btf/%s", module);
		btf = btf__parse_split(path, vmlinux);
		if (btf)
			found = btf__find_by_name_kind(btf, func, BTF_KIND_FUNC) > 0;
		btf__free(btf);
	}
	btf__free(vmlinux);
	return found;
}

bool kfunc_in_kallsyms(const char *func)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	char line[512];
	size_t n = strlen(func);
	bool found = false;

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		/* "ADDR TYPE NAME [MODULE]": a text symbol (t/T) called func */
		char *p = strchr(line, ' '), *name;

		if (!p || (p[1] != 't' && p[1] != 'T') || p[2] != ' ')
			continue;
		name = p + 3;
		if (strncmp(name, func, n) == 0 &&
		    (name[n] == '\n' || name[n] == '\t' || name[n] == ' ' || name[n] == 0)) {
			found = true;
			break;
		}
	}
	fclose(f);
	return found;
}

bool module_present(const char *name)
{
	char path[256], buf[32] = "";
	_cleanup_close_ int fd = -1;
	ssize_t n;

	snprintf(path, sizeof(path), "/sys/module/%s", name);
	if (!exists(path))
		return false;
	snprintf(path, sizeof(path), "/sys/module/%s/initstate", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT; /* built in: no initstate */
	n = read(fd, buf, sizeof(buf) - 1);
	return n > 0 && startswith(buf, "live");
}

bool module_has_btf(const char *name)
{
	char path[256];

	snprintf(path, sizeof(path), "/sys/kernel/btf/%s", name);
	return exists(path);
}

/* Offset in bytes of member name of struct type id (0 if none), and its type id. */
static bool btf_member(const struct btf *btf, int id, const char *name, uint32_t *off,
		       uint32_t *type)
{
	const struct btf_type *t = btf__type_by_id(btf, (uint32_t)id);
	const struct btf_member *m;

	if (!t || !btf_is_struct(t))
		return false;
	m = btf_members(t);
	for (unsigned i = 0; i < btf_vlen(t); i++, m++) {
		const char *n = btf__name_by_offset(btf, m->name_off);

		if (n && strcmp(n, name) == 0) {
			if (btf_member_bitfield_size(t, i))
				return false;
			*off = btf_member_bit_offset(t, i) / 8;
			*type = m->type;
			return true;
		}
	}
	return false;
}

static int have_bpf_loop = -1;

bool kernel_has_bpf_loop(void)
{
	if (have_bpf_loop < 0)
		have_bpf_loop =
		    libbpf_probe_bpf_helper(BPF_PROG_TYPE_TRACEPOINT, BPF_FUNC_loop, NULL) > 0;
	return have_bpf_loop;
}

void probe_assume_no_bpf_loop(void)
{
	have_bpf_loop = 0;
}

int kernel_inode_ctime_offsets(uint32_t *sec, uint32_t *nsec)
{
	static int cached = 1;
	static uint32_t csec, cnsec;
	struct btf *btf;
	uint32_t off, type, o2, t2;
	int id;

	if (cached <= 0) {
		*sec = csec;
		*nsec = cnsec;
		return cached;
	}
	cached = -ENOENT;
	btf = btf__load_vmlinux_btf();
	if (!btf)
		return cached;
	id = btf__find_by_name_kind(btf, "inode", BTF_KIND_STRUCT);
	if (id > 0) {
		if (btf_member(btf, id, "i_ctime_sec", &off, &type) &&
		    btf_member(btf, id, "i_ctime_nsec", &o2, &t2)) {
			csec = off;
			cnsec = o2;
			cached = 0;
		} else if (btf_member(btf, id, "__i_ctime", &off, &type) ||
			   btf_member(btf, id, "i_ctime", &off, &type)) {
			int ts = btf__find_by_name_kind(btf, "timespec64", BTF_KIND_STRUCT);

			if (ts > 0 && btf_member(btf, ts, "tv_sec", &o2, &t2) &&
			    btf_member(btf, ts, "tv_nsec", &cnsec, &t2)) {
				csec = off + o2;
				cnsec += off;
				cached = 0;
			}
		}
	}
	btf__free(btf);
	*sec = csec;
	*nsec = cnsec;
	return cached;
}
