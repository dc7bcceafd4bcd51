/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The process table: every process below a root read in parallel (procs_scan()), then found by
 * pid or walked in start-time order. How one process is read is procs.c's.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "inv_internal.h"
#include "inventory/procs.h"
#include "procs-internal.h"
#include "common/clock.h"
#include "common/number.h"
#include "common/root.h"

static int pid_cmp(const void *a, const void *b)
{
	const struct proc_info *x = a, *y = b;

	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

const struct proc_info *proc_table_find(const struct proc_table *t, uint32_t pid)
{
	struct proc_info key = {.pid = pid};

	if (!t || t->n == 0)
		return NULL;
	return bsearch(&key, t->procs, t->n, sizeof(*t->procs), pid_cmp);
}

/*
 * Reading /proc is nearly all system time spent in procfs (maps, status, fd links), which scales
 * over CPUs: a scan of many processes has a few readers, each taking the next pid in turn.
 */
#define PROCS_READER_MIN     256 /* processes per reader for another to be worth starting */
#define PROCS_READ_SKIPPED   1	 /* a slot's result: not read (our own pid) */

struct scan_job {
	const struct rg_root *root;
	int procfd;
	unsigned flags;
	const uint32_t *pids; /* in /proc's order */
	struct proc_info *procs;
	int *res; /* procs_read_pid()'s result for each pid */
	size_t n;
	size_t next; /* the next slot to read (atomic) */
};

static void scan_job_run(struct scan_job *j, struct proc_dir *pd)
{
	size_t i;

	while ((i = __atomic_fetch_add(&j->next, 1, __ATOMIC_RELAXED)) < j->n)
		if (j->res[i] != PROCS_READ_SKIPPED)
			j->res[i] = procs_read_pid(pd, j->procfd, j->pids[i], j->flags, &j->procs[i]);
}

static void *scan_reader(void *userdata)
{
	struct scan_job *j = userdata;
	_cleanup_(proc_dir_freep) struct proc_dir *pd = proc_dir_new(j->root, j->procfd);

	/* Without memory this reader does nothing: the caller's reads every slot left. */
	if (pd)
		scan_job_run(j, pd);
	return NULL;
}

static unsigned scan_readers(size_t n)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	size_t k = n / PROCS_READER_MIN;

	if (cpus < 1)
		cpus = 1;
	k = MIN(k, (size_t)MIN(cpus, PROCS_MAX_READERS));
	return k < 1 ? 1 : (unsigned)k;
}

/* Reads every slot of j: the calling thread and up to PROCS_MAX_READERS - 1 more. */
static int scan_job_read(struct scan_job *j)
{
	_cleanup_(proc_dir_freep) struct proc_dir *pd = proc_dir_new(j->root, j->procfd);
	pthread_t threads[PROCS_MAX_READERS - 1];
	unsigned n_threads = 0, want = scan_readers(j->n);

	if (!pd)
		return -ENOMEM;
	(void)clock_ticks_per_sec(); /* cached before the readers use it */
	while (n_threads + 1 < want && pthread_create(&threads[n_threads], NULL, scan_reader, j) == 0)
		n_threads++;
	scan_job_run(j, pd);
	while (n_threads > 0)
		pthread_join(threads[--n_threads], NULL);
	return 0;
}

int procs_scan(const struct rg_root *root, unsigned flags, struct proc_table **ret)
{
	_cleanup_(proc_table_freep) struct proc_table *t = NULL;
	_cleanup_free_ uint32_t *pids = NULL;
	_cleanup_free_ int *res = NULL;
	struct scan_job job = {.root = root, .flags = flags};
	size_t listed = 0, cap = 0, i;
	struct dirent *de;
	DIR *d;
	int r;

	if (!root || !ret)
		return -EINVAL;
	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	if (root->is_host)
		t->self_pid = (uint32_t)getpid();
	d = root_opendir(root, "/proc");
	if (!d) {
		t->error = -errno;
		*ret = TAKE_PTR(t);
		return 0;
	}
	/* The pids first (one past the cap tells that there were more)... */
	while ((de = readdir(d)) && listed <= PROCS_MAX_SCAN) {
		uint32_t pid;

		if (!isdigit((unsigned char)de->d_name[0]) || safe_atou32(de->d_name, 10, &pid) < 0 ||
		    pid == 0)
			continue;
		if (listed == cap) {
			size_t ncap = cap ? cap * 2 : 1024;
			uint32_t *np = realloc(pids, ncap * sizeof(*np));

			if (!np) {
				closedir(d);
				return -ENOMEM;
			}
			pids = np;
			cap = ncap;
		}
		pids[listed++] = pid;
	}
	/* ...then each process, read by one of the readers into its own slot... */
	t->procs = calloc(MAX(listed, 1), sizeof(*t->procs));
	res = calloc(MAX(listed, 1), sizeof(*res));
	if (!t->procs || !res) {
		closedir(d);
		return -ENOMEM;
	}
	for (i = 0; i < listed; i++)
		if (pids[i] == t->self_pid)
			res[i] = PROCS_READ_SKIPPED;
	job.procfd = dirfd(d);
	job.pids = pids;
	job.procs = t->procs;
	job.res = res;
	job.n = listed;
	r = scan_job_read(&job);
	closedir(d);
	if (r < 0)
		return r;
	/* ...then kept in /proc's order, within the caps (slots of those not kept are freed). */
	for (i = 0; i < listed; i++) {
		if (t->truncated) {
			proc_info_done(&t->procs[i]);
			continue;
		}
		if (++t->scanned > PROCS_MAX_SCAN || t->n >= PROCS_MAX) {
			t->truncated = true;
			proc_info_done(&t->procs[i]);
			continue;
		}
		if (res[i] == PROCS_READ_SKIPPED)
			continue;
		if (res[i] == -ENOENT) {
			t->vanished++;
			continue;
		}
		if (t->n != i)
			t->procs[t->n] = t->procs[i];
		t->n++;
	}
	if (t->n > 1)
		qsort(t->procs, t->n, sizeof(*t->procs), pid_cmp);
	for (i = 0; i < t->n; i++) {
		const struct proc_info *parent = proc_table_find(t, t->procs[i].ppid);

		if (parent && parent != &t->procs[i] && parent->start_boot_ns <= t->procs[i].start_boot_ns)
			t->procs[i].parent_start_boot_ns = parent->start_boot_ns;
	}
	*ret = TAKE_PTR(t);
	return 0;
}

static int start_cmp(const void *a, const void *b, void *arg)
{
	const struct proc_table *t = arg;
	const struct proc_info *x = &t->procs[*(const size_t *)a];
	const struct proc_info *y = &t->procs[*(const size_t *)b];

	if (x->start_boot_ns != y->start_boot_ns)
		return x->start_boot_ns < y->start_boot_ns ? -1 : 1;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

int proc_table_foreach_by_start(const struct proc_table *t,
				int (*cb)(const struct proc_info *p, void *userdata), void *userdata)
{
	_cleanup_free_ size_t *idx = NULL;
	size_t i;
	int r = 0;

	if (!t || t->n == 0)
		return 0;
	idx = malloc(t->n * sizeof(*idx));
	if (!idx)
		return -ENOMEM;
	for (i = 0; i < t->n; i++)
		idx[i] = i;
	qsort_r(idx, t->n, sizeof(*idx), start_cmp, (void *)t);
	for (i = 0; i < t->n && r == 0; i++)
		r = cb(&t->procs[idx[i]], userdata);
	return r;
}
