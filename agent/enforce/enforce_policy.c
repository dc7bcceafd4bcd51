/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The policy as one map generation for the enforcement programs (bpf/enforce_abi.h). Pure but for
 * reading below a root (the policy's files, sysfs's device numbers), so that the unit tests drive
 * it on fixture trees.
 *
 * What the kernel can check of an allow entry, and how it never allows more than the entry does:
 *   exe      a literal path: that file's inode and device; a glob: the files it matches now
 *            (at most ENFORCE_MAX_FILES); a file created later is not allowed until a reload
 *   sha256   the file is hashed here; only a match goes in, with its ctime, which the kernel
 *            compares (a file changed in place loses the allowance)
 *   uid      up to RG_ENF_UIDS per variant (more: several variants)
 *   parent   the parent process's executable, resolved like exe (at most RG_ENF_VARIANTS files)
 *   devices  the uverbs/umad/issm device numbers of the named RDMA devices now; rdma_cm names no
 *            device and passes, as in the engine
 *   operations  RG_ENF_OP_* bits (enforce_ops_mask())
 *   expires  in CLOCK_BOOTTIME, checked by the kernel; the daemon also refills when one expires
 * Anything that does not fit (more than RG_ENF_VARIANTS variants for one executable, a parent
 * that names no file...) is left out, so the kernel denies it, and reported through warn.
 */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/globfiles.h"
#include "common/log.h"
#include "common/macro.h"
#include "common/root.h"
#include "common/sha256.h"
#include "common/strutil.h"
#include "enforce.h"
#include "engine/engine.h"

#define MAX_DEVNODES 256

struct devnode {
	char ibdev[RG_DEVNAME_LEN];
	uint32_t rdev; /* kernel encoding */
};

struct build {
	const struct rg_policy *p;
	const struct enforce_build_opts *o;
	struct enforce_tables *t;
	struct rg_root root;
	uint64_t now, offset;
	struct devnode nodes[MAX_DEVNODES];
	size_t n_nodes;
};

static uint32_t kdev(dev_t d)
{
	return (uint32_t)(major(d) << 20 | (minor(d) & 0xfffff));
}

uint32_t enforce_parse_devt(const char *s)
{
	unsigned maj, min;
	char end;

	if (!s || sscanf(s, "%u:%u%c", &maj, &min, &end) != 2 || maj > 0xfff || min > 0xfffff)
		return 0;
	return maj << 20 | min;
}

static void warnf(struct build *b, const struct rg_policy_allow *a, const char *fmt, ...)
    _printf_(3, 4);
static void warnf(struct build *b, const struct rg_policy_allow *a, const char *fmt, ...)
{
	char text[768], where[320] = "";
	va_list ap;

	if (a)
		snprintf(where, sizeof(where),
			 "%s:%u:%u: ", b->p->path ? b->p->path : "(built-in policy)", a->line,
			 a->column);
	else if (b->p->path)
		snprintf(where, sizeof(where), "%s: ", b->p->path);
	va_start(ap, fmt);
	vsnprintf(text + 0, sizeof(text), fmt, ap);
	va_end(ap);
	{
		char full[1100];

		snprintf(full, sizeof(full), "%s%s", where, text);
		if (b->o->warn)
			b->o->warn(b->o->warn_ud, full);
		else
			log_warning("Enforcement: %s", full);
	}
}

/* ---- files ---- */

/* ---- devices ---- */

static void read_nodes(struct build *b, const char *cls, const char *prefix)
{
	char dir[128], path[512], ibdev[RG_DEVNAME_LEN], dev[32];
	struct dirent *de;
	DIR *d;

	snprintf(dir, sizeof(dir), "/sys/class/%s", cls);
	d = root_opendir(&b->root, dir);
	if (!d)
		return;
	while ((de = readdir(d)) && b->n_nodes < MAX_DEVNODES) {
		uint32_t rdev;

		if (!startswith(de->d_name, prefix))
			continue;
		snprintf(path, sizeof(path), "%s/%s/ibdev", dir, de->d_name);
		if (root_read_line(&b->root, path, ibdev, sizeof(ibdev)) <= 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s/dev", dir, de->d_name);
		if (root_read_line(&b->root, path, dev, sizeof(dev)) <= 0)
			continue;
		rdev = enforce_parse_devt(dev);
		if (!rdev)
			continue;
		strscpy_ok(b->nodes[b->n_nodes].ibdev, ibdev, sizeof(b->nodes[0].ibdev));
		b->nodes[b->n_nodes++].rdev = rdev;
	}
	closedir(d);
}

/* ---- operations and kills ---- */

uint32_t enforce_ops_mask(const struct rg_policy_allow *a)
{
	uint32_t m = 0, other;

	if (!a->has_ops)
		return RG_ENF_OP_ALL;
	if (a->op_types & RG_EV_BIT(RG_EV_DEVICE_OPEN))
		m |= RG_ENF_OP_OPEN;
	if (a->op_types & RG_EV_BIT(RG_EV_VERBS))
		m |= RG_ENF_OP_ALL_VERBS;
	if (a->op_types & RG_EV_BIT(RG_EV_RDMA_CM))
		m |= RG_ENF_OP_ALL_CM;
	if (a->op_types & RG_EV_BIT(RG_EV_LIBRARY_LOAD))
		m |= RG_ENF_OP_LIBRARY;
	if (a->op_types & RG_EV_BIT(RG_EV_MODULE_LOAD))
		m |= RG_ENF_OP_MODULE;
	if (a->op_types & RG_EV_BIT(RG_EV_DEVICE_ADD))
		m |= RG_ENF_OP_LINK;
	if (a->op_verbs & (1u << RG_OP_REG_MR))
		m |= RG_ENF_OP_REG_MR;
	if (a->op_verbs & (1u << RG_OP_REREG_MR))
		m |= RG_ENF_OP_REREG_MR;
	if (a->op_verbs & (1u << RG_OP_REG_DMABUF_MR))
		m |= RG_ENF_OP_REG_DMABUF_MR;
	if (a->op_verbs & (1u << RG_OP_CREATE_QP))
		m |= RG_ENF_OP_CREATE_QP;
	if (a->op_verbs & (1u << RG_OP_OPEN_QP))
		m |= RG_ENF_OP_OPEN_QP;
	other = a->op_verbs &
		~((1u << RG_OP_REG_MR) | (1u << RG_OP_REREG_MR) | (1u << RG_OP_REG_DMABUF_MR) |
		  (1u << RG_OP_CREATE_QP) | (1u << RG_OP_OPEN_QP));
	if (other)
		m |= RG_ENF_OP_VERBS;
	if (a->op_cm & (1u << RG_CM_CONNECT))
		m |= RG_ENF_OP_CM_CONNECT;
	if (a->op_cm & (1u << RG_CM_LISTEN))
		m |= RG_ENF_OP_CM_LISTEN;
	if (a->op_cm & (1u << RG_CM_ACCEPT))
		m |= RG_ENF_OP_CM_ACCEPT;
	if (a->op_cm & ~((1u << RG_CM_CONNECT) | (1u << RG_CM_LISTEN) | (1u << RG_CM_ACCEPT)))
		m |= RG_ENF_OP_CM;
	return m;
}

/* The rules whose action `kill` the kernel carries out, and what it then kills on. */
static const struct {
	const char *rule;
	uint32_t bit;
} kill_rules[] = {
    {"RDMA-004", RG_ENF_KILL_OPEN},	{"RDMA-005", RG_ENF_KILL_MR},
    {"RDMA-006", RG_ENF_KILL_GAME_ANY}, {"RDMA-007", RG_ENF_KILL_GAME_SELF},
    {"RDMA-009", RG_ENF_KILL_CONNECT},
};

uint32_t enforce_kill_mask(const struct rg_engine *e, size_t *unarmed,
			   void (*warn)(void *ud, const char *text), void *ud)
{
	const struct rg_ruleset *rules = engine_rules(e);
	uint32_t mask = 0;
	size_t n = 0;

	for (size_t i = 0; i < rules->n; i++) {
		bool enabled, found = false;
		int action;

		if (engine_rule_effective(e, i, &enabled, &action) < 0 || !enabled ||
		    action != RG_ACTION_KILL)
			continue;
		for (size_t k = 0; k < ARRAY_SIZE(kill_rules); k++)
			if (strcmp(kill_rules[k].rule, rules->rules[i].id) == 0) {
				mask |= kill_rules[k].bit;
				found = true;
			}
		if (!found) {
			char text[256];

			n++;
			snprintf(
			    text, sizeof(text),
			    "rule %s: action kill has no trigger in the kernel: it only alerts",
			    rules->rules[i].id);
			if (warn)
				warn(ud, text);
			else
				log_warning("Enforcement: %s.", text);
		}
	}
	if (unarmed)
		*unarmed = n;
	return mask;
}

/* ---- the tables ---- */

static struct enforce_entry *entry_get(struct enforce_tables *t, uint64_t ino, uint32_t dev,
				       uint32_t kind, bool *created)
{
	struct enforce_entry *e;

	*created = false;
	for (size_t i = 0; i < t->n; i++)
		if (t->entries[i].key.ino == ino && t->entries[i].key.dev == dev &&
		    t->entries[i].key.kind == kind)
			return &t->entries[i];
	if (t->n + 1 >= RG_ENF_POLICY_MAX) /* one key stays for the config */
		return NULL;
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 16;
		struct enforce_entry *v = realloc(t->entries, cap * sizeof(*v));

		if (!v)
			return NULL;
		t->entries = v;
		t->cap = cap;
	}
	e = &t->entries[t->n++];
	memset(e, 0, sizeof(*e));
	e->key.ino = ino;
	e->key.dev = dev;
	e->key.kind = kind;
	*created = true;
	if (kind == RG_ENF_KEY_ALLOW)
		t->n_allow++;
	else
		t->n_games++;
	return e;
}

const struct enforce_entry *enforce_tables_find(const struct enforce_tables *t, uint64_t ino,
						uint32_t dev, uint32_t kind)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->entries[i].key.ino == ino && t->entries[i].key.dev == dev &&
		    t->entries[i].key.kind == kind)
			return &t->entries[i];
	return NULL;
}

static int hash_file(struct build *b, const char *path, const struct glob_file *f, char out[65])
{
	_cleanup_close_ int fd =
	    root_open(&b->root, path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	struct stat st;

	if (fd < 0)
		return fd;
	if (fstat(fd, &st) < 0)
		return -errno;
	if ((uint64_t)st.st_ino != f->ino || (uint64_t)st.st_dev != f->dev || !S_ISREG(st.st_mode))
		return -ESTALE;
	if ((uint64_t)st.st_size > ENGINE_HASH_MAX_BYTES)
		return -EFBIG;
	if (b->o->hash)
		return b->o->hash(b->o->hash_ud, fd, out);
	return sha256_fd(fd, ENGINE_HASH_MAX_BYTES, out);
}

static int add_allow(struct build *b, size_t idx)
{
	const struct rg_policy_allow *a = &b->p->allow[idx];
	struct glob_files exes = {.max = ENFORCE_MAX_FILES}, parents = {.max = RG_ENF_VARIANTS};
	uint32_t rdevs[RG_ENF_VARIANTS * RG_ENF_RDEVS], ops = enforce_ops_mask(a);
	size_t n_rdevs = 0, n_uid_chunks, n_rdev_chunks, n_parents;
	uint64_t expires = 0;
	bool full_warned = false;
	int r;

	if (a->expires_ns) {
		if (a->expires_ns <= b->now) {
			warnf(b, a, "allow entry for %s expired: not allowed", a->exe);
			return 0;
		}
		expires = a->expires_ns > b->offset ? a->expires_ns - b->offset : 1;
		if (!b->t->next_expiry_ns || a->expires_ns < b->t->next_expiry_ns)
			b->t->next_expiry_ns = a->expires_ns;
	}
	r = glob_files_resolve(&b->root, a->exe, FNM_PATHNAME, false, &exes);
	if (r < 0)
		goto out;
	if (exes.truncated)
		warnf(b, a, "%s matches more than %d files: the rest are not allowed", a->exe,
		      ENFORCE_MAX_FILES);
	if (exes.n == 0) {
		warnf(b, a, "%s names no file: enforcement denies it", a->exe);
		b->t->unresolved++;
		goto out;
	}
	if (a->parent) {
		r = glob_files_resolve(&b->root, a->parent, FNM_PATHNAME, false, &parents);
		if (r < 0)
			goto out;
		if (parents.n == 0) {
			warnf(b, a, "parent %s names no file: enforcement denies this entry",
			      a->parent);
			b->t->unresolved++;
			goto out;
		}
		if (parents.truncated)
			warnf(b, a,
			      "parent %s matches more than %d files: the rest are not allowed as "
			      "parents",
			      a->parent, RG_ENF_VARIANTS);
	}
	if (a->n_devices) {
		b->t->has_devices = true;
		for (size_t d = 0; d < a->n_devices; d++)
			for (size_t k = 0; k < b->n_nodes; k++)
				if (strcmp(b->nodes[k].ibdev, a->devices[d]) == 0 &&
				    n_rdevs < ARRAY_SIZE(rdevs))
					rdevs[n_rdevs++] = b->nodes[k].rdev;
		if (n_rdevs == 0)
			rdevs[n_rdevs++] =
			    0xffffffffu; /* no such device now: only rdma_cm passes */
	}
	n_parents = a->parent ? parents.n : 1;
	n_uid_chunks = a->n_uids ? (a->n_uids + RG_ENF_UIDS - 1) / RG_ENF_UIDS : 1;
	n_rdev_chunks = n_rdevs ? (n_rdevs + RG_ENF_RDEVS - 1) / RG_ENF_RDEVS : 1;

	for (size_t f = 0; f < exes.n; f++) {
		const struct glob_file *fid = &exes.v[f];
		struct enforce_entry *e;
		bool created;

		if (a->sha256[0]) {
			char sha[65];

			r = hash_file(b, fid->path, fid, sha);
			if (r < 0) {
				warnf(b, a, "%s: cannot hash it (%s): enforcement denies it",
				      fid->path, strerror(-r));
				b->t->unresolved++;
				r = 0;
				continue;
			}
			if (strcmp(sha, a->sha256) != 0) {
				warnf(b, a,
				      "%s: sha256 %s is not the policy's: enforcement denies it",
				      fid->path, sha);
				b->t->unresolved++;
				continue;
			}
		}
		e = entry_get(b->t, fid->ino, kdev((dev_t)fid->dev), RG_ENF_KEY_ALLOW, &created);
		if (!e) {
			r = -E2BIG;
			goto out;
		}
		for (size_t pi = 0; pi < n_parents; pi++)
			for (size_t uc = 0; uc < n_uid_chunks; uc++)
				for (size_t rc = 0; rc < n_rdev_chunks; rc++) {
					struct rg_enf_variant *v;

					if (e->val.n >= RG_ENF_VARIANTS) {
						if (!full_warned)
							warnf(b, a,
							      "%s: more than %d ways to allow it: "
							      "the rest are denied",
							      fid->path, RG_ENF_VARIANTS);
						full_warned = true;
						b->t->unresolved++;
						continue;
					}
					v = &e->val.v[e->val.n++];
					memset(v, 0, sizeof(*v));
					v->expires_ns = expires;
					v->ops = ops;
					if (a->parent) {
						v->parent_ino = parents.v[pi].ino;
						v->parent_dev = kdev((dev_t)parents.v[pi].dev);
					}
					for (size_t k = uc * RG_ENF_UIDS;
					     k < a->n_uids && k < (uc + 1) * RG_ENF_UIDS; k++)
						v->uids[v->n_uids++] = a->uids[k];
					for (size_t k = rc * RG_ENF_RDEVS;
					     k < n_rdevs && k < (rc + 1) * RG_ENF_RDEVS; k++)
						v->rdevs[v->n_rdevs++] = rdevs[k];
					if (a->sha256[0] && !b->o->no_ctime) {
						v->flags |= RG_ENF_VF_CTIME;
						v->ctime_sec = fid->ctime_sec;
						v->ctime_nsec = fid->ctime_nsec;
					}
				}
	}
	r = 0;
out:
	free(exes.v);
	free(parents.v);
	return r;
}

static int add_game(struct build *b, size_t gi)
{
	const struct rg_policy_game *g = &b->p->games[gi];
	struct glob_files files = {.max = ENFORCE_MAX_FILES};
	int r = 0;

	for (size_t i = 0; i < g->n_exe && r >= 0; i++) {
		r = glob_files_resolve(&b->root, g->exe[i], 0, true, &files);
		if (files.truncated) {
			warnf(b, NULL,
			      "game \"%s\": %s matches more than %d files: the kernel knows only "
			      "these (the daemon tells it the others when they run)",
			      g->name, g->exe[i], ENFORCE_MAX_FILES);
			files.truncated = false;
		}
	}
	for (size_t f = 0; f < files.n && r >= 0; f++) {
		bool created;
		struct enforce_entry *e =
		    entry_get(b->t, files.v[f].ino, kdev((dev_t)files.v[f].dev), RG_ENF_KEY_GAME,
			      &created);

		if (!e)
			r = -E2BIG;
		else if (created)
			e->val.game = (uint32_t)gi;
	}
	free(files.v);
	return r;
}

int enforce_tables_build(const struct rg_policy *p, const struct enforce_build_opts *o,
			 struct enforce_tables *t)
{
	struct build *b;
	char dev[32];
	int r;

	memset(t, 0, sizeof(*t));
	b = calloc(1, sizeof(*b));
	if (!b)
		return -ENOMEM;
	b->p = p;
	b->o = o;
	b->t = t;
	b->root.fd = -1;
	r = root_init(&b->root, o->root ? o->root : "/");
	if (r < 0)
		goto out;
	b->now = o->now_ns ? o->now_ns : now_realtime_ns();
	b->offset = o->boot_offset_ns ? o->boot_offset_ns : boot_to_realtime_offset_ns();
	read_nodes(b, "infiniband_verbs", "uverbs");
	read_nodes(b, "infiniband_mad", "umad");
	read_nodes(b, "infiniband_mad", "issm");

	t->cfg.abi = RG_ENF_ABI;
	t->cfg.enforce = 1;
	t->cfg.scope = p->enforce_scope == RG_ENFORCE_WHILE_GAME ? RG_ENF_SCOPE_WHILE_GAME
								 : RG_ENF_SCOPE_ALWAYS;
	t->cfg.lsm = o->lsm;
	t->cfg.kill = o->kill;
	t->cfg.role = p->role == RG_ROLE_SERVER ? 1 : 0;
	t->cfg.generation = o->generation;
	if (root_read_line(&b->root, "/sys/class/misc/rdma_cm/dev", dev, sizeof(dev)) > 0)
		t->cfg.rdma_cm_rdev = enforce_parse_devt(dev);

	for (size_t i = 0; i < p->n_allow && r >= 0; i++)
		r = add_allow(b, i);
	for (size_t i = 0; i < p->n_games && r >= 0; i++)
		r = add_game(b, i);
	if (r == -E2BIG)
		warnf(b, NULL, "more than %d allowlisted executables and game files",
		      RG_ENF_POLICY_MAX - 1);
out:
	root_done(&b->root);
	free(b);
	if (r < 0)
		enforce_tables_free(t);
	return r < 0 ? r : 0;
}

void enforce_tables_free(struct enforce_tables *t)
{
	free(t->entries);
	t->entries = NULL;
	t->n = t->cap = t->n_allow = t->n_games = 0;
}
