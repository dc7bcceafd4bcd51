/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * /proc scanning: fixture processes with exact fields, the inventory's events (what the daemon
 * seeds its state from), a real child process of this test, caps, and hostile /proc files.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>

#include "event/event_json.h"
#include "inv_testutil.h"
#include "inventory/procs.h"
#include "common/clock.h"
#include "common/root.h"

static struct proc_table *scan_at(const char *path, unsigned flags)
{
	struct rg_root root;
	struct proc_table *t = NULL;

	ck_assert_int_eq(root_init(&root, path), 0);
	ck_assert_int_eq(procs_scan(&root, flags, &t), 0);
	root_done(&root);
	ck_assert_ptr_nonnull(t);
	return t;
}

static size_t args_count(const struct proc_info *p)
{
	size_t n = 0, off = 0;

	while (off < p->cmdline_len) {
		off += strnlen(p->cmdline + off, p->cmdline_len - off) + 1;
		n++;
	}
	return n;
}

static const char *arg(const struct proc_info *p, size_t idx)
{
	size_t off = 0;

	while (idx-- > 0 && off < p->cmdline_len)
		off += strnlen(p->cmdline + off, p->cmdline_len - off) + 1;
	return off < p->cmdline_len ? p->cmdline + off : NULL;
}

/* --- core -------------------------------------------------------------------------------------- */

START_TEST(test_mlx5_processes)
{
	_cleanup_(proc_table_freep) struct proc_table *t = scan_at(fixture_root("mlx5-roce"), PROCS_F_ALL);
	const struct proc_info *p;
	static const char *const args[] = {"ib_write_bw", "-d", "mlx5_0", "-x", "3", "192.0.2.20"};

	ck_assert_int_eq(t->error, 0);
	ck_assert_uint_eq(t->n, 5);
	ck_assert_uint_eq(t->self_pid, 0); /* not the host: nothing excluded */
	ck_assert_uint_eq(t->procs[0].pid, 1);
	ck_assert_uint_eq(t->procs[4].pid, 4242);

	p = proc_table_find(t, 4242);
	ck_assert_ptr_nonnull(p);
	ck_assert_str_eq(p->comm, "ib_write_bw");
	ck_assert_int_eq(p->state, 'S');
	ck_assert_uint_eq(p->ppid, 4200);
	ck_assert_uint_eq(p->pgid, 4242);
	ck_assert_uint_eq(p->sid, 4200);
	ck_assert_uint_eq(p->uid, 1000);
	ck_assert_uint_eq(p->euid, 1000);
	ck_assert_uint_eq(p->start_boot_ns, 61234ull * (1000000000ull / clock_ticks_per_sec()));
	ck_assert_uint_eq(p->parent_start_boot_ns, 52000ull * (1000000000ull / clock_ticks_per_sec()));
	ck_assert(!p->kernel_thread);
	ck_assert_str_eq(p->exe, "/usr/bin/ib_write_bw");
	ck_assert(!p->exe_deleted);
	ck_assert_uint_eq(args_count(p), 6);
	for (size_t i = 0; i < 6; i++)
		ck_assert_str_eq(arg(p, i), args[i]);
	ck_assert(!p->cmdline_truncated);

	ck_assert_uint_eq(p->n_fds, 3);
	ck_assert_int_eq(p->fds[0].fd, 3);
	ck_assert_str_eq(p->fds[0].path, "/dev/infiniband/uverbs0");
	ck_assert_uint_eq(p->fds[0].node_kind, RG_NODE_UVERBS);
	ck_assert_uint_eq(p->fds[0].minor, 192);
	ck_assert_str_eq(p->fds[0].device, "mlx5_0");
	ck_assert_int_eq(p->fds[1].fd, 4);
	ck_assert_str_eq(p->fds[1].path, "anon_inode:[infinibandevent]");
	ck_assert_uint_eq(p->fds[1].node_kind, RG_NODE_OTHER);
	ck_assert_int_eq(p->fds[2].fd, 5);
	ck_assert_uint_eq(p->fds[2].node_kind, RG_NODE_RDMA_CM);
	ck_assert_uint_eq(p->fds[2].minor, 58);
	ck_assert_str_eq(p->fds[2].device, "");

	ck_assert_uint_eq(p->n_libs, 3);
	ck_assert_str_eq(p->libs[0].path, "/usr/lib/x86_64-linux-gnu/libibverbs.so.1.14.44.0");
	ck_assert_uint_eq(p->libs[0].kind, RG_LIB_IBVERBS);
	ck_assert_uint_eq(p->libs[0].ino, 1055201);
	ck_assert_uint_eq(p->libs[0].dev, makedev(0xfd, 1));
	ck_assert(p->libs[0].executable);
	ck_assert_str_eq(p->libs[1].path, "/usr/lib/x86_64-linux-gnu/libmlx5.so.1.24.44.0");
	ck_assert_uint_eq(p->libs[1].kind, RG_LIB_PROVIDER);
	ck_assert_str_eq(p->libs[2].path, "/usr/lib/x86_64-linux-gnu/librdmacm.so.1.3.44.0");
	ck_assert_uint_eq(p->libs[2].kind, RG_LIB_RDMACM);
	ck_assert_uint_eq(p->uverbs_mappings, 2);
	ck_assert_uint_eq(p->n_errors, 0);
	ck_assert(proc_info_uses_rdma(p));

	p = proc_table_find(t, 2);
	ck_assert(p->kernel_thread);
	ck_assert_ptr_null(p->exe);
	ck_assert_int_eq(p->exe_error, -ENOENT);
	ck_assert_uint_eq(p->n_errors, 0);
	ck_assert(!proc_info_uses_rdma(p));

	p = proc_table_find(t, 1);
	ck_assert_str_eq(p->comm, "systemd");
	ck_assert_str_eq(p->exe, "/usr/lib/systemd/systemd");
	ck_assert_str_eq(arg(p, 0), "/sbin/init");
	ck_assert_str_eq(arg(p, 1), "splash");
	ck_assert_uint_eq(p->parent_start_boot_ns, 0);
	ck_assert(!proc_info_uses_rdma(p)); /* libc and an eventpoll fd are not RDMA */
	ck_assert_ptr_null(proc_table_find(t, 3));
}
END_TEST

START_TEST(test_umad_and_provider_dir)
{
	_cleanup_(proc_table_freep) struct proc_table *ib = scan_at(fixture_root("ib-hca"), PROCS_F_ALL);
	_cleanup_(proc_table_freep) struct proc_table *rxe = scan_at(fixture_root("rxe"), PROCS_F_ALL);
	const struct proc_info *p = proc_table_find(ib, 900);

	ck_assert_uint_eq(p->n_fds, 2);
	ck_assert_uint_eq(p->fds[0].node_kind, RG_NODE_UMAD);
	ck_assert_uint_eq(p->fds[0].minor, 0);
	ck_assert_str_eq(p->fds[0].device, "mlx4_0");
	ck_assert_uint_eq(p->fds[1].node_kind, RG_NODE_ISSM);
	ck_assert_uint_eq(p->fds[1].minor, 64);
	ck_assert_uint_eq(p->n_libs, 1); /* libibumad; libopensm is not an RDMA library */
	ck_assert_uint_eq(p->libs[0].kind, RG_LIB_OTHER);

	p = proc_table_find(rxe, 5000);
	ck_assert_uint_eq(p->n_libs, 2);
	ck_assert_str_eq(p->libs[1].path, "/usr/lib/x86_64-linux-gnu/libibverbs/librxe-rdmav34.so");
	ck_assert_uint_eq(p->libs[1].kind, RG_LIB_PROVIDER);
	ck_assert_uint_eq(p->uverbs_mappings, 1);
	ck_assert_str_eq(p->fds[0].device, "rxe0");
}
END_TEST

START_TEST(test_classify)
{
	uint32_t k;

	ck_assert_int_eq(procs_lib_kind("/usr/lib/x86_64-linux-gnu/libibverbs.so.1"), RG_LIB_IBVERBS);
	ck_assert_int_eq(procs_lib_kind("/opt/x/librdmacm.so.1.3.44.0"), RG_LIB_RDMACM);
	ck_assert_int_eq(procs_lib_kind("/usr/lib/x86_64-linux-gnu/libibverbs/libsiw-rdmav34.so"),
			 RG_LIB_PROVIDER);
	ck_assert_int_eq(procs_lib_kind("/tmp/libfoo-rdmav34.so"), RG_LIB_PROVIDER);
	ck_assert_int_eq(procs_lib_kind("/usr/lib/libefa.so.1.1.44.0"), RG_LIB_PROVIDER);
	ck_assert_int_eq(procs_lib_kind("/usr/lib/libibumad.so.3"), RG_LIB_OTHER);
	ck_assert_int_eq(procs_lib_kind("/usr/lib/x86_64-linux-gnu/libc.so.6"), -1);
	ck_assert_int_eq(procs_lib_kind("/usr/lib/libibverbsX.so"), -1);
	/* Names without "lib" in front: only the provider directory and -rdmav count. */
	ck_assert_int_eq(procs_lib_kind("/opt/libibverbs/foo.so"), RG_LIB_PROVIDER);
	ck_assert_int_eq(procs_lib_kind("/opt/mlx5-rdmav34.so"), RG_LIB_PROVIDER);
	ck_assert_int_eq(procs_lib_kind("/usr/lib/ibverbs.so.1"), -1);
	ck_assert_int_eq(procs_lib_kind("/usr/lib/li"), -1);
	ck_assert_int_eq(procs_lib_kind("/usr/lib/"), -1);
	ck_assert_int_eq(procs_lib_kind("lib"), -1);
	ck_assert(procs_fd_kind("/dev/infiniband/uverbs12", &k) && k == RG_NODE_UVERBS);
	ck_assert(procs_fd_kind("/dev/infiniband/rdma_cm", &k) && k == RG_NODE_RDMA_CM);
	ck_assert(procs_fd_kind("/dev/infiniband/issm1", &k) && k == RG_NODE_ISSM);
	ck_assert(procs_fd_kind("anon_inode:[infinibandevent]", &k) && k == RG_NODE_OTHER);
	ck_assert(!procs_fd_kind("/dev/null", &k));
	ck_assert(!procs_fd_kind("anon_inode:[eventfd]", &k));
}
END_TEST

START_TEST(test_process_event)
{
	_cleanup_(proc_table_freep) struct proc_table *t = scan_at(fixture_root("mlx5-roce"), PROCS_F_ALL);
	const struct proc_info *p = proc_table_find(t, 4242);
	struct rg_event ev;
	struct json_object *j, *a;
	static const char packed[] = "ib_write_bw\0-d\0mlx5_0\0-x\0" "3\0" "192.0.2.20";

	proc_info_to_event(p, &ev);
	ck_assert_uint_eq(ev.type, RG_EV_PROCESS_PRESENT);
	ck_assert_uint_eq(ev.provider, RG_PROV_INVENTORY);
	ck_assert_uint_eq(ev.flags, 0);
	ck_assert_uint_eq(ev.proc.pid, 4242);
	ck_assert_uint_eq(ev.proc.tid, 4242);
	ck_assert_uint_eq(ev.proc.ppid, 4200);
	ck_assert_uint_eq(ev.proc.uid, 1000);
	ck_assert_uint_eq(ev.proc.start_boot_ns, p->start_boot_ns);
	ck_assert_str_eq(ev.proc.comm, "ib_write_bw");
	ck_assert_uint_eq(ev.u.exec.parent_start_boot_ns, p->parent_start_boot_ns);
	ck_assert_uint_eq(ev.u.exec.sid, 4200);
	ck_assert_str_eq(ev.u.exec.exe, "/usr/bin/ib_write_bw");
	ck_assert_uint_eq(ev.u.exec.args_len, sizeof(packed) - 1);
	ck_assert_mem_eq(ev.u.exec.args, packed, sizeof(packed) - 1);

	j = event_to_json(&ev);
	ck_assert_str_eq(json_object_get_string(json_get_path(j, "event.action")), "process_present");
	a = json_get_path(j, "process.args");
	ck_assert_uint_eq(json_object_array_length(a), 6);
	ck_assert_str_eq(json_object_get_string(json_object_array_get_idx(a, 5)), "192.0.2.20");
	ck_assert_str_eq(json_object_get_string(json_get_path(j, "process.executable")),
			 "/usr/bin/ib_write_bw");
	json_object_put(j);
}
END_TEST

static int collect_pids(const struct proc_info *p, void *userdata)
{
	uint32_t **out = userdata;

	*(*out)++ = p->pid;
	return 0;
}

START_TEST(test_start_order)
{
	_cleanup_(proc_table_freep) struct proc_table *t = scan_at(fixture_root("mlx5-roce"), PROCS_F_ALL);
	uint32_t pids[8] = {0}, *w = pids;

	ck_assert_int_eq(proc_table_foreach_by_start(t, collect_pids, &w), 0);
	ck_assert_uint_eq((size_t)(w - pids), 5);
	ck_assert_uint_eq(pids[0], 1);
	ck_assert_uint_eq(pids[1], 2);
	ck_assert_uint_eq(pids[2], 1200);
	ck_assert_uint_eq(pids[3], 4200);
	ck_assert_uint_eq(pids[4], 4242);
}
END_TEST

struct seen {
	unsigned n;
	unsigned types[64];
	struct rg_event ev[64];
	unsigned stop_at;
};

static int record(const struct rg_event *ev, void *userdata)
{
	struct seen *s = userdata;

	if (s->n < 64) {
		s->types[s->n] = ev->type;
		s->ev[s->n] = *ev;
	}
	s->n++;
	return s->stop_at && s->n == s->stop_at ? 7 : 0;
}

START_TEST(test_inventory_events)
{
	_cleanup_(inventory_freep) struct inventory *inv = collect("mlx5-roce", INV_F_ALL);
	static struct seen s;
	static const unsigned expect[] = {
		RG_EV_PROCESS_PRESENT, RG_EV_PROCESS_PRESENT, RG_EV_PROCESS_PRESENT,
		RG_EV_PROCESS_PRESENT, RG_EV_PROCESS_PRESENT, RG_EV_MODULE_PRESENT,
		RG_EV_MODULE_PRESENT,  RG_EV_MODULE_PRESENT,  RG_EV_MODULE_PRESENT,
		RG_EV_MODULE_PRESENT,  RG_EV_MODULE_PRESENT,  RG_EV_MODULE_PRESENT,
		RG_EV_PCI_FUNCTION,    RG_EV_PCI_FUNCTION,	  RG_EV_IOMMU_POSTURE,
		RG_EV_DEVICE_PRESENT,  RG_EV_LIBRARY_LOAD,    RG_EV_LIBRARY_LOAD,
		RG_EV_LIBRARY_LOAD,    RG_EV_DEVICE_OPEN,     RG_EV_DEVICE_OPEN,
		RG_EV_DEVICE_OPEN,
	};
	const struct rg_event *e;
	struct json_object *j;

	memset(&s, 0, sizeof(s));
	ck_assert_int_eq(inventory_foreach_event(inv, record, &s), 0);
	ck_assert_uint_eq(s.n, ARRAY_SIZE(expect));
	for (unsigned i = 0; i < s.n; i++) {
		ck_assert_msg(s.types[i] == expect[i], "event %u: %s", i,
			      event_type_to_string(s.types[i]));
		ck_assert_uint_eq(s.ev[i].seq, i + 1);
		ck_assert_uint_eq(s.ev[i].ts, inv->collected_ns);
		ck_assert_uint_eq(s.ev[i].provider, RG_PROV_INVENTORY);
	}
	e = &s.ev[5];
	ck_assert_str_eq(e->u.mod.name, "mlx5_ib");
	ck_assert_uint_eq(e->flags, 0);
	/* Every function of the hardware scan, the root port above the NIC first. */
	ck_assert_str_eq(s.ev[12].u.pci.addr, "0000:00:02.0");
	e = &s.ev[13];
	ck_assert_str_eq(e->u.pci.addr, "0000:03:00.0");
	ck_assert_uint_eq(e->u.pci.vendor, 0x15b3);
	ck_assert_uint_eq(e->u.pci.device, 0x1017);
	ck_assert_uint_eq(e->u.pci.class_code, 0x020000);
	ck_assert_uint_eq(e->u.pci.known_vendor, 1);
	ck_assert_uint_eq(e->u.pci.rdma_class, 0);
	ck_assert_uint_eq(e->u.pci.has_driver, 1);
	ck_assert_str_eq(e->u.pci.driver, "mlx5_core");
	ck_assert_uint_eq(e->u.pci.rdma, 1);
	ck_assert_str_eq(s.ev[13].u.pci.upstream, "0000:00:02.0");
	ck_assert_str_eq(s.ev[14].u.iommu.cmdline, "");
	e = &s.ev[15];
	ck_assert_str_eq(e->u.dev.name, "mlx5_0");
	ck_assert_uint_eq(e->u.dev.transport, RG_TRANSPORT_ROCE);
	ck_assert_uint_eq(e->u.dev.node_type, 1);
	ck_assert_uint_eq(e->u.dev.ports, 1);
	ck_assert_uint_eq(e->u.dev.ports_active, 1);
	ck_assert_uint_eq(e->u.dev.pci_vendor, 0x15b3);
	ck_assert_str_eq(e->u.dev.pci_addr, "0000:03:00.0");
	ck_assert_str_eq(e->u.dev.driver, "mlx5_core");
	ck_assert_str_eq(e->u.dev.parent, "");
	ck_assert_uint_eq(e->flags & RG_EVF_SOFT, 0);
	e = &s.ev[16];
	ck_assert_uint_eq(e->proc.pid, 4242);
	ck_assert_uint_eq(e->proc.ppid, 4200);
	ck_assert_str_eq(e->proc.comm, "ib_write_bw");
	ck_assert_uint_eq(e->u.lib.lib_kind, RG_LIB_IBVERBS);
	ck_assert_uint_eq(e->u.lib.ino, 1055201);
	e = &s.ev[19];
	ck_assert_uint_eq(e->proc.pid, 4242);
	ck_assert_int_eq(e->u.open.fd, 3);
	ck_assert_uint_eq(e->u.open.node_kind, RG_NODE_UVERBS);
	ck_assert_uint_eq(e->u.open.minor, 192);
	ck_assert_str_eq(e->u.open.path, "/dev/infiniband/uverbs0");
	ck_assert_str_eq(e->u.open.device, "mlx5_0");
	j = event_to_json(e);
	ck_assert_str_eq(json_object_get_string(json_get_path(j, "event.action")), "device_open");
	ck_assert_str_eq(json_object_get_string(json_get_path(j, "rdma.device")), "mlx5_0");
	ck_assert_str_eq(json_object_get_string(json_get_path(j, "rdma.node")), "uverbs");
	json_object_put(j);

	/* A callback can stop the walk; its value comes back. */
	memset(&s, 0, sizeof(s));
	s.stop_at = 3;
	ck_assert_int_eq(inventory_foreach_event(inv, record, &s), 7);
	ck_assert_uint_eq(s.n, 3);
}
END_TEST

START_TEST(test_soft_events)
{
	_cleanup_(inventory_freep) struct inventory *inv = collect("rxe", INV_F_ALL);
	static struct seen s;
	bool dev = false, mod = false;

	memset(&s, 0, sizeof(s));
	ck_assert_int_eq(inventory_foreach_event(inv, record, &s), 0);
	for (unsigned i = 0; i < s.n && i < 64; i++) {
		const struct rg_event *e = &s.ev[i];

		if (e->type == RG_EV_DEVICE_PRESENT) {
			ck_assert_str_eq(e->u.dev.name, "rxe0");
			ck_assert_uint_eq(e->flags, RG_EVF_SOFT);
			ck_assert_str_eq(e->u.dev.parent, "eth0");
			ck_assert_str_eq(e->u.dev.driver, "rdma_rxe");
			ck_assert_str_eq(e->u.dev.pci_addr, "");
			dev = true;
		}
		if (e->type == RG_EV_MODULE_PRESENT && strcmp(e->u.mod.name, "rdma_rxe") == 0) {
			ck_assert_uint_eq(e->flags, RG_EVF_SOFT);
			mod = true;
		}
	}
	ck_assert(dev && mod);
}
END_TEST

/* A real process: a child of this test that maps libibverbs. */
START_TEST(test_host_child)
{
	int pfd[2];
	pid_t child;
	char c;
	uint64_t t0 = now_boottime_ns();
	_cleanup_(proc_table_freep) struct proc_table *t = NULL;
	const struct proc_info *p;
	bool found = false;

	ck_assert_int_eq(pipe(pfd), 0);
	child = fork();
	ck_assert_int_ge(child, 0);
	if (child == 0) {
		void *h = dlopen("libibverbs.so.1", RTLD_NOW);

		/* libibverbs is a build dependency: failing to load it is a broken set-up. */
		if (!h)
			fprintf(stderr, "dlopen(libibverbs.so.1): %s\n", dlerror());
		(void)!write(pfd[1], h ? "y" : "n", 1);
		pause();
		_exit(0);
	}
	ck_assert_int_eq(read(pfd[0], &c, 1), 1);
	if (c != 'y') {
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
		ck_abort_msg("the child could not load libibverbs.so.1 (a build dependency)");
	}
	t = scan_at("/", PROCS_F_ALL);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);

	ck_assert_uint_eq(t->self_pid, (uint32_t)getpid());
	ck_assert_ptr_null(proc_table_find(t, (uint32_t)getpid()));
	p = proc_table_find(t, (uint32_t)child);
	ck_assert_ptr_nonnull(p);
	ck_assert_uint_eq(p->ppid, (uint32_t)getpid());
	ck_assert_uint_eq(p->uid, getuid());
	/* Start time: since boot, rounded down to a clock tick. */
	ck_assert_uint_ge(p->start_boot_ns + 1000000000ull / clock_ticks_per_sec(), t0);
	ck_assert_uint_le(p->start_boot_ns, now_boottime_ns());
	ck_assert_uint_eq(p->start_boot_ns % (1000000000ull / clock_ticks_per_sec()), 0);
	ck_assert_ptr_nonnull(p->exe);
	{
		/* The child runs our binary (under valgrind: valgrind's); exe and its inode agree. */
		struct stat st;

		ck_assert_int_eq(p->exe[0], '/');
		ck_assert_int_eq(stat(p->exe, &st), 0);
		ck_assert_uint_eq(st.st_ino, p->exe_ino);
		ck_assert_uint_eq(st.st_dev, p->exe_dev);
	}
	ck_assert_uint_ne(p->exe_ino, 0);
	for (unsigned i = 0; i < p->n_libs; i++)
		if (p->libs[i].kind == RG_LIB_IBVERBS && p->libs[i].executable)
			found = true;
	ck_assert_msg(found, "the child's libibverbs mapping was not seen");
}
END_TEST

/* Waits (at most 5 s) until pid runs exe: after its execve. */
static void wait_exe(pid_t pid, const char *exe)
{
	char path[64], target[256];

	snprintf(path, sizeof(path), "/proc/%d/exe", pid);
	for (int i = 0; i < 500; i++) {
		ssize_t n = readlink(path, target, sizeof(target) - 1);

		if (n > 0) {
			target[n] = 0;
			if (strcmp(target, exe) == 0)
				return;
		}
		usleep(10000);
	}
	ck_abort_msg("%s did not exec %s", path, exe);
}

/* Waits until /proc/PID/cmdline holds at least min bytes. */
static void wait_cmdline(pid_t pid, size_t min)
{
	char path[64], buf[4096];

	snprintf(path, sizeof(path), "/proc/%d/cmdline", pid);
	for (int i = 0; i < 500; i++) {
		size_t total = 0;
		ssize_t n;
		int fd = open(path, O_RDONLY | O_CLOEXEC);

		if (fd >= 0) {
			while (total < min && (n = read(fd, buf, sizeof(buf))) > 0)
				total += (size_t)n;
			close(fd);
			if (total >= min)
				return;
		}
		usleep(10000);
	}
	ck_abort_msg("%s never held %zu bytes", path, min);
}

/*
 * The host's procfs (read relative to /proc/PID): a name with spaces and parentheses, an argv
 * longer than kept, thousands of fds (several getdents64 buffers, the scan cap), a kernel thread.
 */
START_TEST(test_host_hostile)
{
	char realexe[PATH_MAX], *big;
	int pfd[2];
	pid_t named, sleeper, fds;
	char c;
	struct rg_root root;
	struct proc_info p;

	ck_assert_int_eq(pipe(pfd), 0);
	named = fork();
	ck_assert_int_ge(named, 0);
	if (named == 0) {
		(void)prctl(PR_SET_NAME, ") x (y) z");
		(void)!write(pfd[1], "y", 1);
		pause();
		_exit(0);
	}
	ck_assert_int_eq(read(pfd[0], &c, 1), 1);
	fds = fork();
	ck_assert_int_ge(fds, 0);
	if (fds == 0) {
		const rlim_t need = PROCS_MAX_FD_SCAN + 64;
		struct rlimit rl;
		int null = open("/dev/null", O_RDONLY | O_CLOEXEC), ok = null >= 0;

		/*
		 * The fd cap case needs the fds: a limit that cannot be raised is a broken set-up,
		 * said and failed. Only the soft limit moves where the hard one allows it (anyone
		 * may; valgrind refuses any other hard limit than its own, which
		 * tests/hardening/valgrind.sh makes large enough).
		 */
		if (ok && getrlimit(RLIMIT_NOFILE, &rl) < 0)
			ok = 0;
		if (ok && rl.rlim_cur < need) {
			rl.rlim_cur = need;
			if (rl.rlim_max < need)
				rl.rlim_max = need;
			if (setrlimit(RLIMIT_NOFILE, &rl) < 0) {
				fprintf(stderr, "setrlimit(RLIMIT_NOFILE, %llu): %m\n",
					(unsigned long long)need);
				ok = 0;
			}
		}
		for (int i = 0; ok && i < PROCS_MAX_FD_SCAN + 8; i++)
			if (dup2(null, 32 + i) < 0) {
				fprintf(stderr, "dup2(fd %d): %m\n", 32 + i);
				ok = 0;
			}
		(void)!write(pfd[1], ok ? "y" : "n", 1);
		pause();
		_exit(0);
	}
	ck_assert_int_eq(read(pfd[0], &c, 1), 1);
	if (c != 'y') {
		kill(named, SIGKILL);
		kill(fds, SIGKILL);
		waitpid(named, NULL, 0);
		waitpid(fds, NULL, 0);
		ck_abort_msg("could not open %d fds in a child for the fd cap case",
			     PROCS_MAX_FD_SCAN + 8);
	}
	big = malloc(PROCS_MAX_CMDLINE + 1000);
	ck_assert_ptr_nonnull(big);
	memset(big, '0', PROCS_MAX_CMDLINE + 999);
	big[PROCS_MAX_CMDLINE + 999] = 0;
	ck_assert_ptr_nonnull(realpath("/bin/sleep", realexe));
	sleeper = fork();
	ck_assert_int_ge(sleeper, 0);
	if (sleeper == 0) {
		/* sleep adds its arguments up: 60 + 0. */
		execl(realexe, "sleep", "60", big, (char *)NULL);
		_exit(127);
	}
	free(big);
	wait_exe(sleeper, realexe);
	/* /proc/PID/exe changes before execve() sets the new argv's bounds */
	wait_cmdline(sleeper, PROCS_MAX_CMDLINE);

	ck_assert_int_eq(root_init(&root, "/"), 0);
	ck_assert_int_eq(procs_read_one(&root, (uint32_t)named, PROCS_F_ALL, &p), 0);
	ck_assert_str_eq(p.comm, ") x (y) z");
	ck_assert_uint_eq(p.ppid, (uint32_t)getpid());
	ck_assert_uint_eq(p.uid, getuid());
	ck_assert_uint_eq(p.euid, geteuid());
	ck_assert(!p.kernel_thread);
	ck_assert_uint_ne(p.start_boot_ns, 0);
	ck_assert_uint_eq(p.n_errors, 0);
	proc_info_done(&p);

	ck_assert_int_eq(procs_read_one(&root, (uint32_t)sleeper, PROCS_F_ALL, &p), 0);
	ck_assert_str_eq(p.comm, "sleep");
	ck_assert_str_eq(p.exe, realexe);
	ck_assert(p.cmdline_truncated);
	ck_assert_uint_eq(p.cmdline_len, PROCS_MAX_CMDLINE);
	ck_assert_str_eq(arg(&p, 0), "sleep");
	ck_assert_str_eq(arg(&p, 1), "60");
	ck_assert_uint_eq(strlen(arg(&p, 2)), PROCS_MAX_CMDLINE - strlen("sleep") - strlen("60") - 2);
	proc_info_done(&p);

	ck_assert_int_eq(procs_read_one(&root, (uint32_t)fds, PROCS_F_FDS, &p), 0);
	ck_assert(p.fds_truncated);
	ck_assert_uint_eq(p.n_fds, 0); /* all /dev/null */
	ck_assert_int_eq(p.fd_error, 0);
	proc_info_done(&p);

	/* kthreadd: no exe, argv, fds or mappings, and no errors for lacking them. */
	ck_assert_int_eq(procs_read_one(&root, 2, PROCS_F_ALL, &p), 0);
	ck_assert(p.kernel_thread);
	ck_assert_ptr_null(p.exe);
	ck_assert_int_eq(p.exe_error, -ENOENT);
	ck_assert_uint_eq(p.cmdline_len, 0);
	ck_assert_uint_eq(p.n_fds + p.n_libs + p.uverbs_mappings, 0);
	ck_assert_uint_eq(p.n_errors, 0);
	proc_info_done(&p);

	ck_assert_int_eq(procs_read_one(&root, (uint32_t)sleeper, PROCS_F_ALL, &p), 0);
	proc_info_done(&p);
	root_done(&root);
	kill(named, SIGKILL);
	kill(fds, SIGKILL);
	kill(sleeper, SIGKILL);
	waitpid(named, NULL, 0);
	waitpid(fds, NULL, 0);
	waitpid(sleeper, NULL, 0);
	ck_assert_int_eq(root_init(&root, "/"), 0);
	ck_assert_int_eq(procs_read_one(&root, (uint32_t)sleeper, PROCS_F_ALL, &p), -ENOENT);
	root_done(&root);
}
END_TEST

START_TEST(test_read_one)
{
	struct rg_root root;
	struct proc_info p;

	ck_assert_int_eq(root_init(&root, fixture_root("rxe")), 0);
	ck_assert_int_eq(procs_read_one(&root, 5000, PROCS_F_FDS, &p), 0);
	ck_assert_str_eq(p.comm, "ibv_rc_pingpong");
	ck_assert_uint_eq(p.n_fds, 2);
	ck_assert_uint_eq(p.n_libs, 0); /* maps not asked for */
	proc_info_done(&p);
	ck_assert_int_eq(procs_read_one(&root, 77777, PROCS_F_ALL, &p), -ENOENT);
	root_done(&root);
}
END_TEST

/* --- limits -------------------------------------------------------------------------------------- */

static void fake_proc(unsigned pid)
{
	char rel[128];

	snprintf(rel, sizeof(rel), "proc/%u/stat", pid);
	writef(rel, "%u (fake) S 1 %u %u 0 -1 4194560 0 0 0 0 0 0 0 0 20 0 1 0 777 0 0\n", pid, pid,
	       pid);
	snprintf(rel, sizeof(rel), "proc/%u/status", pid);
	writef(rel, "Name:\tfake\nUid:\t0\t0\t0\t0\n");
}

START_TEST(test_limits)
{
	_cleanup_(proc_table_freep) struct proc_table *t = NULL;
	const struct proc_info *p;
	char rel[PATH_MAX], target[256], *big;
	FILE *f;
	struct rg_event ev;

	fake_proc(10);
	for (unsigned i = 0; i < PROCS_MAX_RDMA_FDS + 36; i++) {
		snprintf(rel, sizeof(rel), "proc/10/fd/%u", i + 3);
		symlink_rel("/dev/infiniband/rdma_cm", rel);
	}
	mkdirs("proc/10");
	sp(rel, sizeof(rel), "proc/10/maps");
	f = fopen(rel, "w");
	ck_assert_ptr_nonnull(f);
	for (unsigned i = 0; i < 40; i++)
		fprintf(f, "7f00%08x-7f00%08x r-xp 00000000 fd:01 %u   /usr/lib/libibverbs/libp%u-rdmav34.so\n",
			i * 4096, i * 4096 + 4096, 2000 + i, i);
	for (unsigned i = 0; i < PROCS_MAX_MAPS_LINES; i++)
		fprintf(f, "7f10%08x-7f10%08x r--p 00000000 fd:01 1 /usr/lib/libz.so.1\n", i, i + 1);
	fclose(f);
	big = malloc(10000);
	ck_assert_ptr_nonnull(big);
	for (unsigned i = 0; i < 10000; i++)
		big[i] = (i % 100 == 99) ? 0 : 'a';
	write_rel("proc/10/cmdline", big, 10000);
	free(big);
	snprintf(target, sizeof(target), "/usr/bin/%0200d", 0);
	symlink_rel(target, "proc/10/exe");

	t = scan_at(scratch, PROCS_F_ALL);
	p = proc_table_find(t, 10);
	ck_assert_ptr_nonnull(p);
	ck_assert_uint_eq(p->n_fds, PROCS_MAX_RDMA_FDS);
	ck_assert(p->fds_truncated);
	ck_assert_int_eq(p->fds[0].fd, 3);
	ck_assert_uint_eq(p->n_libs, PROCS_MAX_LIBS);
	ck_assert(p->libs_truncated);
	ck_assert(p->maps_truncated);
	ck_assert_uint_eq(p->cmdline_len, PROCS_MAX_CMDLINE);
	ck_assert(p->cmdline_truncated);
	ck_assert_uint_eq(strlen(p->exe), 209);

	proc_info_to_event(p, &ev);
	ck_assert_uint_eq(ev.flags & RG_EVF_TRUNC, RG_EVF_TRUNC);
	ck_assert_uint_eq(ev.u.exec.args_len, RG_ARGS_LEN);
	ck_assert_int_eq(ev.u.exec.args[RG_ARGS_LEN - 1], 0);
	ck_assert_uint_eq(strlen(ev.u.exec.exe), 209);
}
END_TEST

START_TEST(test_many_processes)
{
	_cleanup_(proc_table_freep) struct proc_table *t = NULL;

	for (unsigned pid = 100; pid < 400; pid++)
		fake_proc(pid);
	mkdirs("proc/self"); /* not a pid: ignored */
	t = scan_at(scratch, PROCS_F_ALL);
	ck_assert_uint_eq(t->n, 300);
	ck_assert_uint_eq(t->scanned, 300);
	ck_assert(!t->truncated);
	for (size_t i = 1; i < t->n; i++)
		ck_assert_uint_lt(t->procs[i - 1].pid, t->procs[i].pid);
}
END_TEST

/* Processes for several readers: each read once, kept in pid order, vanished ones counted. */
START_TEST(test_many_readers)
{
	_cleanup_(proc_table_freep) struct proc_table *t = NULL;
	char rel[64];
	unsigned kept = 0;

	for (unsigned pid = 1000; pid < 3000; pid++) {
		if (pid % 7 == 0) {
			/* Exited between the listing and the read: a directory without stat. */
			snprintf(rel, sizeof(rel), "proc/%u", pid);
			mkdirs(rel);
			continue;
		}
		fake_proc(pid);
		snprintf(rel, sizeof(rel), "proc/%u/cmdline", pid);
		writef(rel, "prog%u", pid);
		kept++;
	}
	t = scan_at(scratch, PROCS_F_ALL);
	ck_assert_uint_eq(t->n, kept);
	ck_assert_uint_eq(t->scanned, 2000);
	ck_assert_uint_eq(t->vanished, 2000 - kept);
	ck_assert(!t->truncated);
	for (size_t i = 0; i < t->n; i++) {
		char want[32];

		ck_assert(i == 0 || t->procs[i - 1].pid < t->procs[i].pid);
		ck_assert_uint_ne(t->procs[i].pid % 7, 0);
		ck_assert_uint_eq(t->procs[i].sid, t->procs[i].pid);
		snprintf(want, sizeof(want), "prog%u", t->procs[i].pid);
		ck_assert_str_eq(arg(&t->procs[i], 0), want);
		ck_assert_uint_eq(t->procs[i].n_errors, 0);
	}
}
END_TEST

/* --- errors -------------------------------------------------------------------------------------- */

START_TEST(test_hostile)
{
	_cleanup_(proc_table_freep) struct proc_table *t = NULL;
	const struct proc_info *p;

	copy_fixture("broken");
	fifo_rel("proc/124/maps");
	fifo_rel("proc/124/status");
	huge_rel("proc/125/cmdline", 1 << 20);
	write_rel("proc/125/fd", "not a directory", 15);
	huge_rel("proc/126/stat", 1 << 20);
	mkdirs("proc/127"); /* exited between readdir and open: no stat */

	t = scan_at(scratch, PROCS_F_ALL);
	ck_assert_uint_eq(t->vanished, 1);
	ck_assert_ptr_null(proc_table_find(t, 127));

	p = proc_table_find(t, 123);
	ck_assert_ptr_nonnull(p);
	ck_assert_uint_ge(p->n_errors, 1);
	ck_assert_str_eq(p->errors[0], "/proc/123/stat: no '(comm)'");

	p = proc_table_find(t, 124);
	ck_assert_str_eq(p->comm, "a) (b c");
	ck_assert_uint_eq(p->ppid, 1);
	ck_assert_str_eq(arg(p, 0), "weird?");
	ck_assert_str_eq(arg(p, 1), "--x?[31m");
	ck_assert_int_eq(p->maps_error, -EBADFD);
	ck_assert_uint_eq(p->n_fds, 1);
	ck_assert_uint_eq(p->fds[0].minor, 192); /* the node is a link loop: sysfs `dev` says */
	ck_assert_str_eq(p->fds[0].device, "");	 /* and its ibdev file is empty */
	ck_assert_str_eq(p->errors[0], "/proc/124/status: not a regular file");
	ck_assert_str_eq(p->errors[1], "/proc/124/maps: not a regular file");

	p = proc_table_find(t, 125);
	ck_assert_str_eq(p->errors[0], "/proc/125/stat: malformed");
	ck_assert(p->cmdline_truncated);
	ck_assert_uint_eq(p->cmdline_len, PROCS_MAX_CMDLINE);
	ck_assert_int_eq(p->fd_error, -ENOTDIR);

	p = proc_table_find(t, 126);
	ck_assert_str_eq(p->errors[0], "/proc/126/stat: no '(comm)'");
}
END_TEST

/* A truncated stat, a comm of parentheses and spaces, maps lines longer than the line buffer. */
START_TEST(test_hostile_parsers)
{
	_cleanup_(proc_table_freep) struct proc_table *t = NULL;
	const struct proc_info *p;
	char rel[PATH_MAX], *line;
	size_t n = 200000;
	FILE *f;

	fake_proc(30);
	writef("proc/30/stat", "30 (fake) S 1 30 30 0 -1 4194560 0 0 0\n");
	fake_proc(31);
	writef("proc/31/stat", "31 ( ) (x) ) R 7 8 9 0 -1 4194560 0 0 0 0 0 0 0 0 20 0 1 0 5 0 0\n");
	fake_proc(32);
	line = malloc(n + 1);
	ck_assert_ptr_nonnull(line);
	memset(line, 'a', n);
	line[n] = 0;
	sp(rel, sizeof(rel), "proc/32/maps");
	f = fopen(rel, "w");
	ck_assert_ptr_nonnull(f);
	/* An overlong line naming a library: not reported (it is cut), and the next line is read. */
	fprintf(f, "7f00-7f01 r-xp 00000000 fd:01 1 /usr/lib/libibverbs.so.1%s\n", line);
	fprintf(f, "7f01-7f02 r-xp 00000000 fd:01 2 /usr/lib/librdmacm.so.1\n");
	fprintf(f, "%s\n", line);
	fprintf(f, "7f03-7f04 r--p 00000000 fd:01 3 /usr/lib/x/libibverbs/libmlx5-rdmav34.so\n");
	fprintf(f, "7f04-7f05 r-xp 00000000 fd:01\n");
	fprintf(f, "7f05-7f06 r-xp 00000000 zz:01 4 /usr/lib/libibumad.so.3\n");
	fclose(f);
	free(line);

	t = scan_at(scratch, PROCS_F_ALL);
	p = proc_table_find(t, 30);
	ck_assert_ptr_nonnull(p);
	ck_assert_str_eq(p->errors[0], "/proc/30/stat: malformed");
	p = proc_table_find(t, 31);
	ck_assert_ptr_nonnull(p);
	ck_assert_uint_eq(p->n_errors, 0);
	ck_assert_str_eq(p->comm, " ) (x) "); /* first "(" to last ")" */
	ck_assert_int_eq(p->state, 'R');
	ck_assert_uint_eq(p->ppid, 7);
	ck_assert_uint_eq(p->sid, 9);
	p = proc_table_find(t, 32);
	ck_assert_ptr_nonnull(p);
	ck_assert_uint_eq(p->n_errors, 0);
	ck_assert_uint_eq(p->n_libs, 2);
	ck_assert_str_eq(p->libs[0].path, "/usr/lib/librdmacm.so.1");
	ck_assert_uint_eq(p->libs[0].ino, 2);
	ck_assert(p->libs[0].executable);
	ck_assert_str_eq(p->libs[1].path, "/usr/lib/x/libibverbs/libmlx5-rdmav34.so");
	ck_assert(!p->libs[1].executable);
	ck_assert(!p->maps_truncated);
}
END_TEST

/* maps: the path is looked for first and a file's next mappings are skipped; what is kept
 * must still have its five fields, and names of anonymous mappings are not paths. */
START_TEST(test_maps_lines)
{
	_cleanup_(proc_table_freep) struct proc_table *t = NULL;
	const struct proc_info *p;

	fake_proc(33);
	writef("proc/33/maps", "%s",
	       /* a file that is no RDMA library, its next mappings, then one that is */
	       "7f00-7f01 r--p 00000000 fd:01 10 /usr/lib/libc.so.6\n"
	       "7f01-7f02 r-xp 00001000 fd:01 10 /usr/lib/libc.so.6\n"
	       "7f02-7f03 r--p 00000000 fd:01 11 /usr/lib/libibverbs.so.1 (deleted)\n"
	       "7f03-7f04 rw-p 00000000 00:00 0 \n"
	       "7f04-7f05 r-xp 00001000 fd:01 11 /usr/lib/libibverbs.so.1 (deleted)\n"
	       "7f05-7f06 r--p 00000000 fd:01 10 /usr/lib/libc.so.6\n"
	       /* anonymous names with a slash: not paths */
	       "7f06-7f07 rw-p 00000000 00:00 0 [anon:x/usr/lib/librdmacm.so.1]\n"
	       "7f07-7f08 rw-s 00000000 00:00 0 [anon:/dev/infiniband/uverbs0]\n"
	       /* a path without the fields before it */
	       "7f08-7f09 r-xp /usr/lib/librdmacm.so.1\n"
	       "7f09-7f0a rw-s 00000000 /dev/infiniband/uverbs0\n"
	       /* the real thing */
	       "7f0a-7f0b rw-s 00000000 00:06 500 /dev/infiniband/uverbs0\n"
	       "7f0b-7f0c r-xp 00000000 fd:01 12 /usr/lib/librdmacm.so.1\n");
	t = scan_at(scratch, PROCS_F_ALL);
	p = proc_table_find(t, 33);
	ck_assert_ptr_nonnull(p);
	ck_assert_uint_eq(p->n_errors, 0);
	ck_assert_uint_eq(p->n_libs, 2);
	ck_assert_str_eq(p->libs[0].path, "/usr/lib/libibverbs.so.1");
	ck_assert_uint_eq(p->libs[0].ino, 11);
	ck_assert(p->libs[0].executable); /* its second mapping */
	ck_assert_str_eq(p->libs[1].path, "/usr/lib/librdmacm.so.1");
	ck_assert_uint_eq(p->libs[1].ino, 12);
	ck_assert_uint_eq(p->uverbs_mappings, 1);
}
END_TEST

START_TEST(test_no_proc)
{
	_cleanup_(proc_table_freep) struct proc_table *t = scan_at(scratch, PROCS_F_ALL);

	ck_assert_int_eq(t->error, -ENOENT);
	ck_assert_uint_eq(t->n, 0);
	ck_assert_int_eq(procs_scan(NULL, 0, &t), -EINVAL);
}
END_TEST

static Suite *procs_suite(void)
{
	Suite *s = suite_create("procs");
	TCase *core = tcase_create("core"), *limits = tcase_create("limits");
	TCase *errors = tcase_create("errors");

	tcase_add_test(core, test_mlx5_processes);
	tcase_add_test(core, test_umad_and_provider_dir);
	tcase_add_test(core, test_classify);
	tcase_add_test(core, test_process_event);
	tcase_add_test(core, test_start_order);
	tcase_add_test(core, test_inventory_events);
	tcase_add_test(core, test_soft_events);
	tcase_add_test(core, test_host_child);
	tcase_add_test(core, test_read_one);
	tcase_add_test(core, test_host_hostile);
	tcase_add_checked_fixture(limits, scratch_setup, scratch_teardown);
	tcase_add_test(limits, test_limits);
	tcase_add_test(limits, test_many_processes);
	tcase_add_test(limits, test_many_readers);
	tcase_add_checked_fixture(errors, scratch_setup, scratch_teardown);
	tcase_add_test(errors, test_hostile);
	tcase_add_test(errors, test_hostile_parsers);
	tcase_add_test(errors, test_maps_lines);
	tcase_add_test(errors, test_no_proc);
	suite_add_tcase(s, core);
	suite_add_tcase(s, limits);
	suite_add_tcase(s, errors);
	return s;
}

int main(void)
{
	return run_check(procs_suite());
}
