/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The stdout and file:PATH sink: a thread that takes what piled up in the output's queue and
 * writes it as JSON lines, one writev() per batch; file outputs reopen their path on a reopen
 * mark (SIGUSR1, logrotate) and fdatasync() when a flush asks. A file+chain: output appends the
 * hash chain's member to every line (evidence/chain.h): the chain goes on across a reopen, and
 * at start from the file's last line.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/log.h"
#include "common/macro.h"
#include "evidence/chain.h"
#include "sink.h"

struct file_sink {
	int fd;
	/* file+chain: the chain, and room for one batch of chained lines */
	struct chain_state chain;
	char *cbuf;
	size_t ccap;
};

static int file_open(const char *path, int *ret)
{
	struct stat st;
	int fd, flags;

	/* O_NONBLOCK so that a FIFO planted at the path cannot hang us; refused below. */
	fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW |
				O_NONBLOCK,
		  0600);
	if (fd < 0)
		return errno == ENXIO ? -EBADFD : -errno; /* ENXIO: a FIFO without a reader */
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return -EBADFD;
	}
	flags = fcntl(fd, F_GETFL);
	if (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) < 0) {
		close(fd);
		return -errno;
	}
	*ret = fd;
	return 0;
}

/*
 * Writes the alerts of b[0..n) as lines, with one writev() for all of them where the kernel
 * takes it (a file output used to make one system call per alert). Returns how many were
 * written whole: n, or on an error (*err, else 0) the index of the one it stopped in. In a
 * regular file (file), a line that the failure cut short (ENOSPC, EFBIG halfway) is cut off
 * again, so that the file holds whole lines only.
 */
static size_t write_lines(int fd, bool file, const struct iovec *lines, size_t n, int *err)
{
	struct iovec iov[2 * OUTPUT_BATCH_MAX];
	size_t i, first = 0, niov = 2 * n;

	*err = 0;
	for (i = 0; i < n; i++) {
		iov[2 * i] = lines[i];
		iov[2 * i + 1] = (struct iovec){.iov_base = (void *)"\n", .iov_len = 1};
	}
	while (first < niov) {
		ssize_t w = writev(fd, iov + first, (int)MIN(niov - first, (size_t)IOV_MAX));

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			size_t r = first / 2, part;
			off_t end;

			*err = w < 0 ? -errno : -EIO;
			part = first % 2 ? lines[r].iov_len : lines[r].iov_len - iov[first].iov_len;
			if (file && part > 0 && (end = lseek(fd, 0, SEEK_END)) >= (off_t)part)
				(void)!ftruncate(fd, end - (off_t)part);
			return r;
		}
		/* Past what was written; a record is whole once its newline is. */
		while (first < niov && (size_t)w >= iov[first].iov_len) {
			w -= (ssize_t)iov[first].iov_len;
			first++;
		}
		if (w > 0) {
			iov[first].iov_base = (char *)iov[first].iov_base + w;
			iov[first].iov_len -= (size_t)w;
		}
	}
	return n;
}

static void file_reopen(struct output *out, struct file_sink *f)
{
	int fd, r;

	r = file_open(out->spec.path, &fd);
	if (r < 0) {
		log_error_errno(r, "output %s: failed to reopen, still writing to the old file: %m",
				out->spec.name);
		pthread_mutex_lock(&out->lock);
		output_set_error_locked(out, "reopen: %s", strerror(-r));
		pthread_mutex_unlock(&out->lock);
		return;
	}
	close(f->fd);
	f->fd = fd;
	log_debug("output %s: reopened", out->spec.name);
}

/* Publishes the chain's head for the stats (heartbeats, status). */
static void chain_publish(struct output *out, const struct chain_state *st)
{
	pthread_mutex_lock(&out->lock);
	out->chain_seq = st->seq;
	memcpy(out->chain_head, st->head, sizeof(out->chain_head));
	pthread_mutex_unlock(&out->lock);
}

/*
 * The lines of b[0..n) into lines[]: the records' text, or for a chained output their chained
 * form in f->cbuf, with states[k] the chain as it stands after k lines (states[0]: before).
 */
static int batch_lines(struct output *out, struct file_sink *f, const struct qent *b, size_t n,
		       struct iovec *lines, struct chain_state *states)
{
	size_t need = 0, off = 0;

	if (!out->spec.chain) {
		for (size_t i = 0; i < n; i++)
			lines[i] = (struct iovec){.iov_base = b[i].rec->json, .iov_len = b[i].rec->len};
		return 0;
	}
	for (size_t i = 0; i < n; i++)
		need += b[i].rec->len + CHAIN_SUFFIX_MAX;
	if (need > f->ccap) {
		char *c = realloc(f->cbuf, need);

		if (!c)
			return -ENOMEM;
		f->cbuf = c;
		f->ccap = need;
	}
	states[0] = f->chain;
	for (size_t i = 0; i < n; i++) {
		long len;

		states[i + 1] = states[i];
		len = chain_line(&states[i + 1], b[i].rec->json, b[i].rec->len, f->cbuf + off,
				 f->ccap - off);
		if (len < 0)
			return (int)len;
		lines[i] = (struct iovec){.iov_base = f->cbuf + off, .iov_len = (size_t)len};
		off += (size_t)len;
	}
	return 0;
}

static void *file_thread(void *arg)
{
	struct output *out = arg;
	struct file_sink *f = out->sink_state;
	struct qent batch[OUTPUT_BATCH_MAX];
	static __thread struct iovec lines[OUTPUT_BATCH_MAX];
	static __thread struct chain_state states[OUTPUT_BATCH_MAX + 1];
	struct sched_param sp = {0};
	int last_err = 0;

	/* Writing alerts is batch work: as SCHED_BATCH this thread does not preempt the event
	 * loop each time an alert wakes it, it runs when that loop waits or at the next tick and
	 * takes what piled up in one go. Best effort: on failure it stays SCHED_OTHER. */
	(void)pthread_setschedparam(pthread_self(), SCHED_BATCH, &sp);

	for (;;) {
		bool emptied, stop;
		uint64_t gen;
		size_t n, i;
		int timeout;

		n = output_take(out, batch, ARRAY_SIZE(batch), &emptied, &gen, &stop);
		for (i = 0; i < n;) {
			size_t end = i, w, k;
			uint64_t bytes;
			struct output_rec *rec;
			int r;

			if (batch[i].kind == QE_REOPEN) {
				if (out->spec.type == OUTPUT_FILE)
					file_reopen(out, f);
				i++;
				continue;
			}
			while (end < n && batch[end].kind == QE_ALERT)
				end++;
			/* The alerts up to the next reopen mark, in as few writes as can be. */
			r = batch_lines(out, f, batch + i, end - i, lines, states);
			w = r < 0 ? 0 : write_lines(f->fd, out->spec.type == OUTPUT_FILE, lines,
						    end - i, &r);
			if (out->spec.chain) {
				/* The chain stands after what was written whole, never past it. */
				f->chain = states[w];
				chain_publish(out, &f->chain);
			}
			bytes = 0;
			for (k = i; k < i + w; k++) {
				bytes += batch[k].rec->len + 1;
				output_rec_unref(batch[k].rec);
			}
			/* Written is delivered: the kernel has the whole line (synced at a flush). */
			atomic_fetch_add(&out->c.written, w);
			atomic_fetch_add(&out->c.written_bytes, bytes);
			atomic_fetch_add(&out->c.delivered, w);
			atomic_fetch_add(&out->c.delivered_bytes, bytes);
			i += w;
			if (!r) {
				last_err = 0;
				continue;
			}
			/* The one it stopped in is lost (counted); the rest are tried again. */
			rec = batch[i++].rec;
			output_count_failed(out, OUTPUT_FAIL_WRITE_ERROR, 1, rec->len + 1);
			pthread_mutex_lock(&out->lock);
			output_count_drop_locked(out, rec->sev, OUTPUT_DROP_WRITE_ERROR,
						 rec->flags & OUTPUT_SUBMIT_LOSS);
			output_set_error_locked(out, "write: %s", strerror(-r));
			pthread_mutex_unlock(&out->lock);
			if (r != last_err)
				log_error_errno(r, "output %s: failed to write an alert: %m",
						out->spec.name);
			last_err = r;
			output_rec_unref(rec);
		}
		if (emptied && atomic_exchange(&out->flush_req, false) && out->spec.type == OUTPUT_FILE)
			(void)fdatasync(f->fd);
		if (emptied)
			output_publish(out, true, gen, true);
		timeout = output_loss_tick(out, now_monotonic_ns());
		if (stop && emptied)
			break;
		if (n > 0 && !emptied)
			continue;
		{
			struct pollfd p = {.fd = out->wake_fd, .events = POLLIN};

			if (poll(&p, 1, timeout) > 0)
				output_drain_eventfd(out->wake_fd);
		}
	}
	return NULL;
}

static void file_free(void *state)
{
	struct file_sink *f = state;

	if (!f)
		return;
	if (f->fd >= 0)
		close(f->fd);
	free(f->cbuf);
	free(f);
}

static int file_new(struct output *out, void **ret)
{
	const struct output_spec *sp = &out->spec;
	struct file_sink *f;
	int r;

	f = calloc(1, sizeof(*f));
	if (!f)
		return log_oom();
	f->fd = -1;
	if (sp->type == OUTPUT_STDOUT) {
		f->fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
		if (f->fd < 0) {
			r = log_error_errno(-errno, "output stdout: failed to dup stdout: %m");
			goto fail;
		}
		*ret = f;
		return 0;
	}
	if (sp->path[0] != '/') {
		char cwd[PATH_MAX], abs[PATH_MAX];

		if (!getcwd(cwd, sizeof(cwd))) {
			r = log_error_errno(-errno, "output %s: getcwd: %m", sp->name);
			goto fail;
		}
		if ((size_t)snprintf(abs, sizeof(abs), "%s/%s", cwd, sp->path) >= sizeof(abs)) {
			r = log_error_errno(-ENAMETOOLONG, "output %s: path too long", sp->name);
			goto fail;
		}
		strcpy(out->spec.path, abs);
	}
	r = file_open(out->spec.path, &f->fd);
	if (r == -EBADFD)
		log_error_errno(r, "output %s: not a regular file", sp->name);
	else if (r == -ELOOP)
		log_error_errno(r, "output %s: is a symbolic link (refused)", sp->name);
	else if (r < 0)
		log_error_errno(r, "output %s: failed to open: %m", sp->name);
	if (r < 0)
		goto fail;
	if (sp->chain) {
		/* The output's fd is write-only: the tail is read through one of its own, which
		 * must be the same file. */
		int rfd = open(out->spec.path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		struct stat a, b;

		chain_init(&f->chain);
		if (rfd < 0 || fstat(rfd, &a) < 0 || fstat(f->fd, &b) < 0 || a.st_ino != b.st_ino ||
		    a.st_dev != b.st_dev)
			r = rfd < 0 ? -errno : -ESTALE;
		else
			r = chain_resume_fd(rfd, &f->chain);
		if (rfd >= 0)
			close(rfd);
		if (r == -EBADMSG)
			log_warning("output %s: the file does not end in a chained line: a new chain "
				    "starts (verify-log will fail on the lines before it)",
				    sp->name);
		else if (r < 0) {
			log_error_errno(r, "output %s: cannot read the chain's head: %m", sp->name);
			goto fail;
		}
		chain_publish(out, &f->chain);
	}
	*ret = f;
	return 0;
fail:
	file_free(f);
	return r;
}

const struct output_sink output_file_sink = {
	.new = file_new,
	.free = file_free,
	.thread = file_thread,
};
