/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * /proc scanning. For every process: stat (comm, state, ppid, pgrp, session, flags, start time),
 * status (uids), exe (target, inode, device), cmdline; and its RDMA traces: fds on /dev/infiniband/<node>
 * or the uverbs event/completion anon inode, RDMA libraries and uverbs device mappings in maps.
 * All reads are bounded; a process that exits while we read it is counted, not reported as an
 * error; a process whose files are garbage is kept with its errors.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "common/hostns.h"
#include "common/number.h"
#include "common/procstat.h"
#include "common/root.h"
#include "common/strutil.h"
#include "inv_internal.h"
#include "inventory/procs.h"
#include "procs-internal.h"

/*
 * One process's directory. On the host's procfs (checked once: fstatfs says PROC_SUPER_MAGIC) the
 * files are opened relative to an O_PATH fd on /proc/PID, so each open walks one component and
 * every file read belongs to the same process even if its pid is reused meanwhile; the kernel
 * makes these files, so the per-file type check is left out (O_NONBLOCK and bounded reads still
 * guard against a FIFO or device bound over one), and the single-record files (stat, status,
 * cmdline) are read with one read(): procfs returns all of them that fits. Below any other root
 * (an image, a fixture tree) every file is opened by its path below the root, type-checked and read
 * to its end, as root_read_file() does.
 */
struct proc_dir {
	const struct rg_root *root;
	uint32_t pid;
	bool fast; /* host procfs: dfd is /proc/PID */
	int dfd;
	struct hostns host; /* init's root and mount namespace (fast only) */
	bool host_ok;
	struct line_reader *lr; /* maps, reused from process to process */
	char dents[32768];	/* getdents64 of fd/ */
};

static int pd_path(const struct proc_dir *pd, const char *name, char *buf, size_t size)
{
	return inv_path(buf, size, "/proc/%u/%s", pd->pid, name);
}

/* Opens /proc/PID/name for reading: an fd, or -errno. */
static int pd_open(const struct proc_dir *pd, const char *name, int flags)
{
	char path[96];
	int fd, r;

	if (pd->fast) {
		fd = openat(pd->dfd, name, flags | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY);
		return fd < 0 ? -errno : fd;
	}
	r = pd_path(pd, name, path, sizeof(path));
	if (r < 0)
		return r;
	return root_open(pd->root, path, flags | O_NOCTTY);
}

/*
 * Reads at most size - 1 bytes of /proc/PID/name into buf (NUL-terminated). *ret_truncated: the
 * file had more. 0 or -errno (-EBADFD: not a regular file).
 */
static int pd_read(const struct proc_dir *pd, const char *name, char *buf, size_t size,
		   size_t *ret_len, bool *ret_truncated)
{
	_cleanup_free_ char *data = NULL;
	char path[96];
	size_t len;
	ssize_t n;
	int fd, r;

	if (!pd->fast) {
		r = pd_path(pd, name, path, sizeof(path));
		if (r < 0)
			return r;
		r = root_read_file(pd->root, path, size - 1, &data, &len, ret_truncated);
		if (r < 0)
			return r;
		memcpy(buf, data, len + 1);
		*ret_len = len;
		return 0;
	}
	fd = pd_open(pd, name, O_RDONLY | O_NONBLOCK);
	if (fd < 0)
		return fd;
	/* One byte more than kept tells whether there was more. */
	do
		n = read(fd, buf, size);
	while (n < 0 && errno == EINTR);
	r = n < 0 ? -errno : 0;
	close(fd);
	if (r < 0)
		return r;
	len = MIN((size_t)n, size - 1);
	buf[len] = 0;
	*ret_len = len;
	if (ret_truncated)
		*ret_truncated = (size_t)n == size;
	return 0;
}

static void proc_error(struct proc_info *p, const char *fmt, ...) _printf_(2, 3);
static void proc_error(struct proc_info *p, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	if (p->n_errors >= PROCS_MAX_ERRORS)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	str_sanitize(buf);
	p->errors[p->n_errors] = strdup(buf);
	if (p->errors[p->n_errors])
		p->n_errors++;
}

void proc_info_done(struct proc_info *p)
{
	unsigned i;

	free(p->exe);
	free(p->cmdline);
	free(p->fds);
	free(p->libs);
	for (i = 0; i < p->n_errors; i++)
		free(p->errors[i]);
	memset(p, 0, sizeof(*p));
}

void proc_table_free(struct proc_table *t)
{
	size_t i;

	if (!t)
		return;
	for (i = 0; i < t->n; i++)
		proc_info_done(&t->procs[i]);
	free(t->procs);
	free(t);
}

static int read_stat(const struct proc_dir *pd, struct proc_info *p)
{
	char data[4097];
	struct proc_stat st;
	size_t len;
	int r;

	r = pd_read(pd, "stat", data, sizeof(data), &len, NULL);
	if (r < 0)
		return r;
	r = proc_stat_parse(data, len, &st);
	if (r < 0) {
		proc_error(p, "/proc/%u/stat: %s", p->pid,
			   memchr(data, '(', len) && strrchr(data, ')') ? "malformed" : "no '(comm)'");
		return -EINVAL;
	}
	event_set_str(p->comm, sizeof(p->comm), st.comm, st.comm_len);
	p->ppid = st.ppid;
	p->pgid = st.pgid;
	p->sid = st.sid;
	p->state = st.state;
	p->kernel_thread = (st.flags & PF_KTHREAD) != 0;
	p->start_boot_ns = proc_ticks_to_ns(st.start_ticks);
	return 0;
}

static void read_status(const struct proc_dir *pd, struct proc_info *p)
{
	char data[16385], *line, *save = NULL;
	size_t len;
	int r;

	r = pd_read(pd, "status", data, sizeof(data), &len, NULL);
	if (r < 0) {
		if (r != -ENOENT)
			proc_error(p, "/proc/%u/status: %s", p->pid, read_strerror(r));
		return;
	}
	for (line = strtok_r(data, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		unsigned uid, euid;

		if (!startswith(line, "Uid:"))
			continue;
		if (sscanf(line + 4, "%u %u", &uid, &euid) == 2) {
			p->uid = uid;
			p->euid = euid;
		} else {
			proc_error(p, "/proc/%u/status: malformed Uid line", p->pid);
		}
		return;
	}
	proc_error(p, "/proc/%u/status: no Uid line", p->pid);
}

static void read_exe(const struct proc_dir *pd, struct proc_info *p)
{
	char path[64], target[4096];
	struct stat st;
	ssize_t n;
	int r;

	if (pd->fast) {
		n = readlinkat(pd->dfd, "exe", target, sizeof(target) - 1);
		r = n < 0 ? -errno : (size_t)n >= sizeof(target) - 1 ? -ENAMETOOLONG : (int)n;
		if (r >= 0)
			target[n] = 0;
	} else {
		/* A root other than / (fixtures): by path, here and for the stat below. */
		snprintf(path, sizeof(path), "/proc/%u/exe", p->pid);
		r = root_readlink(pd->root, path, target, sizeof(target));
	}
	if (r < 0) {
		/* Kernel threads have none; EACCES without privileges (or across namespaces). */
		p->exe_error = r;
		if (r != -ENOENT && r != -EACCES && !p->kernel_thread)
			proc_error(p, "/proc/%u/exe: %s", p->pid, read_strerror(r));
		return;
	}
	if (endswith(target, " (deleted)")) {
		p->exe_deleted = true;
		target[strlen(target) - strlen(" (deleted)")] = 0;
	}
	str_sanitize(target);
	p->exe = strdup(target);
	/* Seen from another root or mount namespace, the path is the user's to shape; unknown
	 * (the process gone, no right to look) counts as such. */
	if (pd->fast) {
		struct hostns h;

		p->exe_foreign = !pd->host_ok || hostns_of(pd->dfd, &h) < 0 ||
				 !hostns_same(&h, &pd->host);
	}
	/* The file itself (the magic link followed): its inode and device. */
	r = pd->fast ? (fstatat(pd->dfd, "exe", &st, 0) < 0 ? -errno : 0)
		     : root_stat(pd->root, path, &st, true);
	if (r == 0) {
		p->exe_ino = st.st_ino;
		p->exe_dev = (uint64_t)st.st_dev;
	}
}

static void read_cmdline(const struct proc_dir *pd, struct proc_info *p)
{
	char buf[PROCS_MAX_CMDLINE + 1], *data;
	size_t len = 0, i;
	bool truncated;
	int r;

	r = pd_read(pd, "cmdline", buf, sizeof(buf), &len, &truncated);
	if (r >= 0) {
		data = malloc(len + 1);
		if (!data)
			return;
		memcpy(data, buf, len + 1);
	}
	if (r < 0) {
		if (r != -ENOENT)
			proc_error(p, "/proc/%u/cmdline: %s", p->pid, read_strerror(r));
		return;
	}
	/* argv strings, each NUL-terminated; sanitise within them. */
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)data[i];

		if (c != 0 && (c < 0x20 || c == 0x7f))
			data[i] = '?';
	}
	while (len > 0 && data[len - 1] == 0)
		len--;
	p->cmdline = data;
	p->cmdline_len = len;
	p->cmdline_truncated = truncated;
}

int procs_lib_kind(const char *path)
{
	static const char *const providers[] = {
		"libmlx5.so",	 "libmlx4.so",	   "libefa.so",	     "libmana.so",
		"libhns.so",	 "libbnxt_re",	   "libirdma",	     "librxe",
		"libsiw",	 "libqedr",	   "libcxgb4",	     "libvmw_pvrdma",
		"libocrdma",	 "libhfi1verbs",   "libipathverbs",  "libmthca",
		"liberdma",	 "libionic",
	};
	const char *b = strrchr(path, '/');
	size_t i;

	b = b ? b + 1 : path;
	/* Most mappings are none of these: every name below starts with "lib". */
	if (!startswith(b, "lib") && !strstr(path, "/libibverbs/") && !strstr(b, "-rdmav"))
		return -1;
	if (startswith(b, "libibverbs.so"))
		return RG_LIB_IBVERBS;
	if (startswith(b, "librdmacm.so"))
		return RG_LIB_RDMACM;
	if (strstr(path, "/libibverbs/") || strstr(b, "-rdmav"))
		return RG_LIB_PROVIDER;
	for (i = 0; i < ARRAY_SIZE(providers); i++)
		if (startswith(b, providers[i]))
			return RG_LIB_PROVIDER;
	if (startswith(b, "libibumad.so") || startswith(b, "libibmad.so") ||
	    startswith(b, "libibnetdisc.so"))
		return RG_LIB_OTHER;
	return -1;
}

bool procs_fd_kind(const char *target, uint32_t *ret_kind)
{
	const char *name;

	if (strcmp(target, "anon_inode:[infinibandevent]") == 0) {
		*ret_kind = RG_NODE_OTHER;
		return true;
	}
	if (!startswith(target, "/dev/infiniband/"))
		return false;
	name = target + strlen("/dev/infiniband/");
	if (startswith(name, "uverbs"))
		*ret_kind = RG_NODE_UVERBS;
	else if (startswith(name, "rdma_cm"))
		*ret_kind = RG_NODE_RDMA_CM;
	else if (startswith(name, "umad"))
		*ret_kind = RG_NODE_UMAD;
	else if (startswith(name, "issm"))
		*ret_kind = RG_NODE_ISSM;
	else
		*ret_kind = RG_NODE_OTHER;
	return true;
}

/* The RDMA device and minor behind /dev/infiniband/NAME, from the class device. */
static void node_details(const struct rg_root *root, struct proc_fd *f)
{
	char node[64], path[160], buf[64];
	const char *cls;
	unsigned maj, min;
	struct stat st;

	if (f->node_kind == RG_NODE_UVERBS)
		cls = "infiniband_verbs";
	else if (f->node_kind == RG_NODE_UMAD || f->node_kind == RG_NODE_ISSM)
		cls = "infiniband_mad";
	else if (f->node_kind == RG_NODE_RDMA_CM)
		cls = "misc";
	else
		return;
	if (sscanf(f->path, "/dev/infiniband/%63[^ /]", node) != 1)
		return;
	if (snprintf(path, sizeof(path), "/sys/class/%s/%s/ibdev", cls, node) < (int)sizeof(path) &&
	    f->node_kind != RG_NODE_RDMA_CM)
		(void)root_read_line(root, path, f->device, sizeof(f->device));
	if (root_stat(root, f->path, &st, true) == 0 && S_ISCHR(st.st_mode)) {
		f->minor = minor(st.st_rdev);
		return;
	}
	if (snprintf(path, sizeof(path), "/sys/class/%s/%s/dev", cls, node) < (int)sizeof(path) &&
	    root_read_line(root, path, buf, sizeof(buf)) > 0 && sscanf(buf, "%u:%u", &maj, &min) == 2)
		f->minor = min;
}

/* One fd of /proc/PID/fd: kept when its target is an RDMA node or event file. */
static void fd_entry(struct proc_dir *pd, int fdfd, const char *name, struct proc_info *p)
{
	char target[4096];
	struct proc_fd *f;
	uint32_t kind;
	ssize_t n;
	int fd;

	if (safe_atoi(name, &fd) < 0 || fd < 0)
		return;
	n = readlinkat(fdfd, name, target, sizeof(target) - 1);
	if (n < 0 || (size_t)n >= sizeof(target) - 1)
		return;
	target[n] = 0;
	if (endswith(target, " (deleted)"))
		target[strlen(target) - strlen(" (deleted)")] = 0;
	if (!procs_fd_kind(target, &kind))
		return;
	if (p->n_fds >= PROCS_MAX_RDMA_FDS) {
		/* Keep the lowest-numbered ones, whatever the directory order. */
		unsigned hi = 0;

		p->fds_truncated = true;
		for (unsigned i = 1; i < p->n_fds; i++)
			if (p->fds[i].fd > p->fds[hi].fd)
				hi = i;
		if (fd > p->fds[hi].fd)
			return;
		f = &p->fds[hi];
		memset(f, 0, sizeof(*f));
	} else {
		if (!p->fds) {
			p->fds = calloc(PROCS_MAX_RDMA_FDS, sizeof(*p->fds));
			if (!p->fds)
				return;
		}
		f = &p->fds[p->n_fds++];
	}
	f->fd = fd;
	f->node_kind = kind;
	inv_strcpy(f->path, sizeof(f->path), target);
	node_details(pd->root, f);
}

/*
 * Every fd's link is read (readlinkat relative to fd/, one component each): a cheaper filter
 * (fstatat for a character device) costs the same lookup and would miss the anon-inode event file.
 */
static void read_fds(struct proc_dir *pd, struct proc_info *p)
{
	_cleanup_close_ int fdfd = -1;
	unsigned scanned = 0;
	ssize_t n;

	fdfd = pd_open(pd, "fd", O_RDONLY | O_DIRECTORY);
	if (fdfd < 0) {
		p->fd_error = fdfd;
		if (fdfd != -ENOENT && fdfd != -EACCES)
			proc_error(p, "/proc/%u/fd: %s", p->pid, read_strerror(fdfd));
		return;
	}
	while ((n = getdents64(fdfd, pd->dents, sizeof(pd->dents))) > 0) {
		for (size_t off = 0; off < (size_t)n;) {
			struct dirent64 *de = (struct dirent64 *)(pd->dents + off);

			if (de->d_reclen == 0)
				break;
			off += de->d_reclen;
			if (de->d_name[0] == '.')
				continue;
			if (++scanned > PROCS_MAX_FD_SCAN) {
				p->fds_truncated = true;
				goto done;
			}
			fd_entry(pd, fdfd, de->d_name, p);
		}
		/*
		 * procfs lists fds until the buffer is full: room left for another entry means
		 * that was all of them, and the read that would return 0 is saved.
		 */
		if (pd->fast && (size_t)n + 512 < sizeof(pd->dents))
			break;
	}
done:
	if (p->n_fds > 1) {
		/* readdir order is arbitrary; report by fd number. */
		for (unsigned i = 1; i < p->n_fds; i++)
			for (unsigned k = i; k > 0 && p->fds[k - 1].fd > p->fds[k].fd; k--) {
				struct proc_fd tmp = p->fds[k];

				p->fds[k] = p->fds[k - 1];
				p->fds[k - 1] = tmp;
			}
	}
}

/* A maps line's five fields before the path, NUL-terminated in place; what follows them (the
 * path), or NULL if they are not there. */
static char *maps_fields(char *line, char *f[static 5])
{
	char *s = line;
	unsigned n = 0;

	while (n < 5) {
		while (*s == ' ')
			s++;
		if (!*s)
			return NULL;
		f[n++] = s;
		s = strchr(s, ' ');
		if (!s)
			return NULL;
		*s++ = 0;
	}
	while (*s == ' ')
		s++;
	return s;
}

/*
 * "7f2c1a400000-7f2c1a421000 r-xp 00000000 fd:01 1234567   /usr/lib/.../libibverbs.so.1.14.44.0"
 * The path is found first (no other field has a '/'): most lines are anonymous, or the next
 * mapping of a file already looked at; the fields are split for what is kept. other: the path of
 * the line before if it was a file that is no RDMA library ("" if not).
 */
static void maps_line(char *line, struct proc_info *p, char other[static PATH_MAX])
{
	char *f[5], *path = strchr(line, '/');
	unsigned maj, min;
	uint64_t ino;
	bool exec;
	int kind;
	unsigned i;

	if (!path)
		return;
	if (startswith(path, "/dev/infiniband/uverbs")) {
		if (maps_fields(line, f) == path)
			p->uverbs_mappings++;
		return;
	}
	if (endswith(path, " (deleted)"))
		path[strlen(path) - strlen(" (deleted)")] = 0;
	if (strcmp(path, other) == 0)
		return;
	kind = procs_lib_kind(path);
	if (kind < 0) {
		if (strlen(path) < PATH_MAX)
			strcpy(other, path);
		return;
	}
	other[0] = 0;
	if (maps_fields(line, f) != path)
		return;
	exec = strlen(f[1]) >= 3 && f[1][2] == 'x';
	if (sscanf(f[3], "%x:%x", &maj, &min) != 2 || safe_atou64(f[4], 10, &ino) < 0)
		return;
	for (i = 0; i < p->n_libs; i++)
		if (strncmp(p->libs[i].path, path, sizeof(p->libs[i].path) - 1) == 0) {
			p->libs[i].executable |= exec;
			return;
		}
	if (p->n_libs >= PROCS_MAX_LIBS) {
		p->libs_truncated = true;
		return;
	}
	if (!p->libs) {
		p->libs = calloc(PROCS_MAX_LIBS, sizeof(*p->libs));
		if (!p->libs)
			return;
	}
	p->libs[p->n_libs].kind = (uint32_t)kind;
	p->libs[p->n_libs].ino = ino;
	p->libs[p->n_libs].dev = (uint64_t)makedev(maj, min);
	p->libs[p->n_libs].executable = exec;
	inv_strcpy(p->libs[p->n_libs].path, sizeof(p->libs[p->n_libs].path), path);
	p->n_libs++;
}

static void read_maps(struct proc_dir *pd, struct proc_info *p)
{
	struct line_reader *lr = pd->lr;
	char *line, other[PATH_MAX] = "";
	unsigned lines = 0;
	bool overlong;
	int fd, r;

	fd = pd_open(pd, "maps", O_RDONLY | O_NONBLOCK);
	r = fd < 0 ? fd : line_reader_open_fd(lr, fd, !pd->fast);
	if (r < 0) {
		p->maps_error = r;
		if (r != -ENOENT && r != -EACCES)
			proc_error(p, "/proc/%u/maps: %s", p->pid, read_strerror(r));
		return;
	}
	while ((r = line_reader_next(lr, &line, &overlong)) > 0) {
		if (++lines > PROCS_MAX_MAPS_LINES) {
			p->maps_truncated = true;
			break;
		}
		if (!overlong)
			maps_line(line, p, other);
	}
	if (r < 0) {
		p->maps_error = r;
		if (r != -ESRCH)
			proc_error(p, "/proc/%u/maps: %s", p->pid, read_strerror(r));
	}
	line_reader_close(lr);
}

/* Reads process pid into p with pd's buffers (procs-internal.h). -ENOENT when it is gone. */
int procs_read_pid(struct proc_dir *pd, int procfd, uint32_t pid, unsigned flags,
		   struct proc_info *p)
{
	char name[16];
	int r;

	memset(p, 0, sizeof(*p));
	p->pid = pid;
	pd->pid = pid;
	pd->dfd = -1;
	if (pd->fast) {
		snprintf(name, sizeof(name), "%u", pid);
		pd->dfd = openat(procfd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (pd->dfd < 0 && (errno == ENOENT || errno == ESRCH))
			return -ENOENT;
		if (pd->dfd < 0) {
			proc_error(p, "/proc/%u: %s", pid, read_strerror(-errno));
			return 0;
		}
	}
	r = read_stat(pd, p);
	if (r == -ENOENT || r == -ESRCH) {
		proc_info_done(p);
		r = -ENOENT;
		goto out;
	}
	if (r < 0 && r != -EINVAL)
		proc_error(p, "/proc/%u/stat: %s", pid, read_strerror(r));
	read_status(pd, p);
	if (pd->fast && p->kernel_thread) {
		/* The kernel says so: no exe (readlink fails ENOENT), argv, fds or mappings. */
		p->exe_error = -ENOENT;
		r = 0;
		goto out;
	}
	read_exe(pd, p);
	read_cmdline(pd, p);
	if (flags & PROCS_F_FDS)
		read_fds(pd, p);
	if (flags & PROCS_F_MAPS)
		read_maps(pd, p);
	r = 0;
out:
	if (pd->dfd >= 0)
		close(pd->dfd);
	pd->dfd = -1;
	return r;
}

struct proc_dir *proc_dir_new(const struct rg_root *root, int procfd)
{
	struct proc_dir *pd = calloc(1, sizeof(*pd));
	struct statfs sfs;

	if (!pd)
		return NULL;
	pd->lr = malloc(sizeof(*pd->lr));
	if (!pd->lr) {
		free(pd);
		return NULL;
	}
	pd->lr->fd = -1;
	pd->root = root;
	pd->dfd = -1;
	pd->fast = root->is_host && procfd >= 0 && fstatfs(procfd, &sfs) == 0 &&
		   sfs.f_type == PROC_SUPER_MAGIC;
	pd->host_ok = pd->fast && hostns_read(&pd->host) == 0;
	return pd;
}

void proc_dir_free(struct proc_dir *pd)
{
	if (!pd)
		return;
	free(pd->lr);
	free(pd);
}

int procs_read_one(const struct rg_root *root, uint32_t pid, unsigned flags, struct proc_info *ret)
{
	_cleanup_(proc_dir_freep) struct proc_dir *pd = NULL;
	_cleanup_close_ int procfd = root_open(root, "/proc", O_PATH | O_DIRECTORY);

	pd = proc_dir_new(root, procfd);
	if (!pd)
		return -ENOMEM;
	return procs_read_pid(pd, procfd, pid, flags, ret);
}

bool proc_info_uses_rdma(const struct proc_info *p)
{
	return p->n_fds > 0 || p->n_libs > 0 || p->uverbs_mappings > 0;
}

void proc_info_to_task(const struct proc_info *p, struct rg_task *task)
{
	memset(task, 0, sizeof(*task));
	task->pid = p->pid;
	task->tid = p->pid;
	task->ppid = p->ppid;
	task->uid = p->uid;
	task->start_boot_ns = p->start_boot_ns;
	memcpy(task->comm, p->comm, sizeof(task->comm));
	task->comm[sizeof(task->comm) - 1] = 0;
}

void proc_info_to_event(const struct proc_info *p, struct rg_event *ev)
{
	size_t n;

	memset(ev, 0, sizeof(*ev));
	ev->type = RG_EV_PROCESS_PRESENT;
	ev->provider = RG_PROV_INVENTORY;
	proc_info_to_task(p, &ev->proc);
	ev->u.exec.parent_start_boot_ns = p->parent_start_boot_ns;
	ev->u.exec.exe_ino = p->exe_ino;
	ev->u.exec.exe_dev = p->exe_dev;
	ev->u.exec.sid = p->sid;
	if (p->exe) {
		if (strlen(p->exe) >= sizeof(ev->u.exec.exe)) {
			ev->flags |= RG_EVF_TRUNC;
			ev->u.exec.exe_flags |= RG_EXE_TRUNC;
		}
		if (p->exe_foreign)
			ev->u.exec.exe_flags |= RG_EXE_FOREIGN;
		event_set_str(ev->u.exec.exe, sizeof(ev->u.exec.exe), p->exe, strlen(p->exe));
	}
	if (p->cmdline && p->cmdline_len) {
		n = MIN(p->cmdline_len, sizeof(ev->u.exec.args));
		memcpy(ev->u.exec.args, p->cmdline, n);
		if (n < p->cmdline_len || p->cmdline_truncated) {
			ev->flags |= RG_EVF_TRUNC;
			ev->u.exec.args[sizeof(ev->u.exec.args) - 1] = 0;
		}
		ev->u.exec.args_len = (uint32_t)n;
	}
}
