/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The incident store (incident.h): a bounded table of slots with open incidents found by their
 * key, opening with counted eviction, ids, closing (quiet, game ended, evicted) and forgetting
 * the oldest closed, and the accessors, the kept log's included. Which incident an alert joins
 * is incident_assign.c's, what it adds incident_add.c's.
 */
#include <errno.h>
#include <inttypes.h>
#include <openssl/evp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "incident-internal.h"
#include "common/hex.h"
#include "common/macro.h"
#include "common/strutil.h"
#include "event/event_json.h"
#include "proctree/proctree.h"

#define INCIDENT_CHECK_NS (10ull * 1000000000ull)

/* Open incidents are found by their key through hash chains (buckets, hnext). */
static uint32_t key_hash(uint8_t kind, struct proc_key root, const char *pci)
{
	uint64_t h = 1469598103934665603ull ^ kind;

	h = (h ^ root.pid) * 1099511628211ull;
	h = (h ^ root.start_boot_ns) * 1099511628211ull;
	for (; pci && *pci; pci++)
		h = (h ^ (unsigned char)*pci) * 1099511628211ull;
	return (uint32_t)(h ^ (h >> 32));
}

static void hash_add(struct incident_store *s, struct incident *inc)
{
	uint32_t b = key_hash(inc->kind, inc->root, inc->pci) & s->bucket_mask;

	inc->hnext = s->buckets[b];
	s->buckets[b] = (int32_t)(inc - s->inc);
}

static void hash_remove(struct incident_store *s, struct incident *inc)
{
	int32_t *p = &s->buckets[key_hash(inc->kind, inc->root, inc->pci) & s->bucket_mask];

	for (; *p >= 0; p = &s->inc[*p].hnext)
		if (*p == (int32_t)(inc - s->inc)) {
			*p = inc->hnext;
			return;
		}
}

int incident_store_new(const struct incident_config *cfg, struct incident_store **ret)
{
	struct incident_store *s = calloc(1, sizeof(*s));
	int r;

	if (!s)
		return -ENOMEM;
	if (cfg)
		s->cfg = *cfg;
	if (!s->cfg.max_open)
		s->cfg.max_open = INCIDENT_DEFAULT_MAX_OPEN;
	if (!s->cfg.max_closed)
		s->cfg.max_closed = INCIDENT_DEFAULT_MAX_CLOSED;
	if (!s->cfg.quiet_ns)
		s->cfg.quiet_ns = INCIDENT_DEFAULT_QUIET_NS;
	if (!s->cfg.grace_ns)
		s->cfg.grace_ns = INCIDENT_DEFAULT_GRACE_NS;
	if (!s->cfg.max_log_records)
		s->cfg.max_log_records = INCIDENT_DEFAULT_LOG_RECORDS;
	if (!s->cfg.max_log_bytes)
		s->cfg.max_log_bytes = INCIDENT_DEFAULT_LOG_BYTES;
	if (!s->cfg.max_log_total)
		s->cfg.max_log_total = INCIDENT_DEFAULT_LOG_TOTAL;
	strscpy_ok(s->boot_id, s->cfg.boot_id ? s->cfg.boot_id : "", sizeof(s->boot_id));
	strscpy_ok(s->seat, s->cfg.seat ? s->cfg.seat : "", sizeof(s->seat));
	s->cfg.boot_id = NULL;
	s->cfg.seat = NULL;
	if (s->cfg.max_open > INCIDENT_MAX_CAPACITY || s->cfg.max_closed > INCIDENT_MAX_CAPACITY) {
		free(s);
		return -EINVAL;
	}
	s->cap = s->cfg.max_open + s->cfg.max_closed;
	s->inc = calloc(s->cap, sizeof(*s->inc));
	s->order = calloc(s->cap, sizeof(*s->order));
	s->bucket_mask = 15;
	while (s->bucket_mask < 2 * s->cfg.max_open)
		s->bucket_mask = s->bucket_mask * 2 + 1;
	s->buckets = malloc(((size_t)s->bucket_mask + 1) * sizeof(*s->buckets));
	if (!s->inc || !s->order || !s->buckets) {
		incident_store_free(s);
		return -ENOMEM;
	}
	memset(s->buckets, 0xff, ((size_t)s->bucket_mask + 1) * sizeof(*s->buckets));
	s->sha256 = EVP_MD_fetch(NULL, "SHA256", NULL);
	s->md_ctx = EVP_MD_CTX_new();
	r = incident_facts_init(s);
	if (r < 0) {
		incident_store_free(s);
		return r;
	}
	*ret = s;
	return 0;
}

static void log_clear(struct incident_store *s, struct incident *inc)
{
	while (inc->blocks) {
		struct inc_log_block *b = inc->blocks;

		inc->blocks = b->next;
		free(b);
	}
	free(inc->log);
	s->log_total -= inc->log_bytes;
	inc->log = NULL;
	inc->n_log = inc->log_cap = inc->log_bytes = 0;
}

void incident_store_free(struct incident_store *s)
{
	if (!s)
		return;
	for (size_t i = 0; s->inc && i < s->cap; i++)
		log_clear(s, &s->inc[i]);
	incident_facts_free(s);
	EVP_MD_CTX_free(s->md_ctx);
	free(s->raw);
	EVP_MD_free(s->sha256);
	jw_free(s->jw);
	free(s->buckets);
	free(s->inc);
	free(s->order);
	free(s);
}

void incident_store_set_seat(struct incident_store *s, const char *seat)
{
	strscpy_ok(s->seat, seat ? seat : "", sizeof(s->seat));
	/* a reload: the rule ids the stage cache knows by address are gone */
	memset(s->stage_cache, 0, sizeof(s->stage_cache));
}

void incident_store_stats(const struct incident_store *s, struct incident_stats *ret)
{
	*ret = s->st;
	ret->open = s->n_open;
	ret->closed_kept = s->n_closed;
}

size_t incident_store_count(const struct incident_store *s)
{
	return s->n_order;
}

const struct incident *incident_store_at(const struct incident_store *s, size_t i)
{
	return i < s->n_order ? &s->inc[s->order[i]] : NULL;
}

const struct incident *incident_store_find(const struct incident_store *s, const char *id)
{
	for (size_t i = 0; id && i < s->n_order; i++)
		if (strcmp(s->inc[s->order[i]].id, id) == 0)
			return &s->inc[s->order[i]];
	return NULL;
}

const char *incident_id(const struct incident *inc)
{
	return inc->id;
}

bool incident_is_open(const struct incident *inc)
{
	return inc->open;
}

uint64_t incident_alerts(const struct incident *inc)
{
	return inc->alerts;
}

size_t incident_log_count(const struct incident *inc)
{
	return inc->n_log;
}

int incident_log_get(const struct incident *inc, size_t i, enum incident_log_kind *kind,
		     const char **json, size_t *len)
{
	struct incident_store *s = inc->store;

	if (i >= inc->n_log)
		return -ENOENT;
	*kind = inc->log[i].kind;
	if (*kind == INCIDENT_LOG_ALERT) {
		*json = inc->log[i].data;
		*len = inc->log[i].len;
		return 0;
	}
	if (!s->jw && !(s->jw = jw_new()))
		return -ENOMEM;
	jw_reset(s->jw);
	if (event_to_jw(inc->log[i].data, s->jw) < 0)
		return -ENOMEM;
	return jw_finish(s->jw, json, len);
}

/* Forgets the oldest closed incident (its slot and log go). */
void incident_forget_oldest_closed(struct incident_store *s)
{
	for (size_t i = 0; i < s->n_order; i++) {
		struct incident *inc = &s->inc[s->order[i]];

		if (inc->open)
			continue;
		log_clear(s, inc);
		inc->in_use = false;
		memmove(&s->order[i], &s->order[i + 1], (s->n_order - i - 1) * sizeof(*s->order));
		s->n_order--;
		s->n_closed--;
		s->st.forgotten++;
		return;
	}
}

void incident_close(struct incident_store *s, struct incident *inc, uint64_t at,
		    const char *reason, incident_record_fn rec, void *ud)
{
	hash_remove(s, inc);
	inc->open = false;
	inc->closed_ns = MAX(at, inc->last_ns);
	inc->close_reason = reason;
	s->n_open--;
	s->n_closed++;
	s->st.closed++;
	inc->records++;
	if (rec)
		rec(inc, "closed", ud);
	while (s->n_closed > s->cfg.max_closed)
		incident_forget_oldest_closed(s);
}

/* When the incident's game session ended (0: it is bound to none, or it still runs). */
uint64_t incident_game_end(struct incident *inc, const struct game_session *games, size_t n_games)
{
	const struct game_session *g;

	if (inc->game < 0)
		return 0;
	if (inc->game_ended_ns)
		return inc->game_ended_ns;
	g = (size_t)inc->game < n_games ? &games[inc->game] : NULL;
	if (g && g->started_ns == inc->game_started_ns && g->running)
		return 0;
	/* Ended (or the policy lost the game on reload): its end, else what we last saw. */
	inc->game_ended_ns = g && g->started_ns == inc->game_started_ns && g->ended_ns
				 ? g->ended_ns
				 : MAX(inc->last_ns, 1);
	return inc->game_ended_ns;
}

/* When inc is due to close (UINT64_MAX: not yet foreseeable), and why. */
uint64_t incident_due_at(struct incident_store *s, struct incident *inc, struct proctree *tree,
			const struct game_session *games, size_t n_games, const char **why)
{
	uint64_t end = incident_game_end(inc, games, n_games), quiet = inc->last_ns;

	*why = "quiet";
	if (end) {
		*why = "game_ended";
		return end + s->cfg.grace_ns;
	}
	for (size_t i = 0; inc->kind == INCIDENT_KIND_ACTOR && i < inc->n_actors; i++) {
		const struct proc_node *n = tree ? proctree_find(tree, inc->actors[i].key) : NULL;

		if (n && n->start_boot_ns == inc->actors[i].key.start_boot_ns) {
			if (proc_node_live(n))
				return UINT64_MAX;
			quiet = MAX(quiet, n->exit_ns);
		}
	}
	return quiet + s->cfg.quiet_ns;
}

void incident_expire(struct incident_store *s, uint64_t now, struct proctree *tree,
		     const struct game_session *games, size_t n_games, incident_record_fn rec,
		     void *ud)
{
	/* Checked once every 10 s of event time: closing is not urgent, events are (the close time
	 * is when it was due; an alert checks its own incident, incident_assign()). */
	if (now < s->next_check)
		return;
	s->next_check = now + INCIDENT_CHECK_NS;
	for (size_t i = 0; i < s->n_order; i++) {
		struct incident *inc = &s->inc[s->order[i]];
		const char *why;
		uint64_t due;

		if (!inc->open)
			continue;
		due = incident_due_at(s, inc, tree, games, n_games, &why);
		if (due <= now)
			incident_close(s, inc, due, why, rec, ud);
	}
}

struct incident *incident_new_slot(struct incident_store *s, uint64_t now, incident_record_fn rec,
				   void *ud)
{
	struct incident *inc = NULL;

	if (s->n_open >= s->cfg.max_open) {
		struct incident *victim = NULL;

		for (size_t i = 0; i < s->n_order; i++) {
			struct incident *c = &s->inc[s->order[i]];

			if (c->open && (!victim || c->last_ns < victim->last_ns))
				victim = c;
		}
		if (victim) {
			s->st.evicted++;
			incident_close(s, victim, now, "evicted", rec, ud);
		}
	}
	if (s->n_order == s->cap)
		incident_forget_oldest_closed(s);
	for (size_t i = 0; i < s->cap; i++)
		if (!s->inc[i].in_use) {
			inc = &s->inc[i];
			break;
		}
	if (!inc)
		return NULL;
	/* 12 KiB a slot, most of it arrays read only up to their counts */
	memset(inc, 0, offsetof(struct incident, st));
	for (size_t i = 0; i < INCIDENT_STAGE__MAX; i++)
		memset(&inc->st[i], 0, offsetof(struct inc_stage, ids));
	inc->store = s;
	inc->in_use = inc->open = true;
	inc->seq = ++s->seq;
	inc->game = -1;
	inc->max_alert_severity = -1;
	s->order[s->n_order++] = (uint32_t)(inc - s->inc);
	s->n_open++;
	s->st.opened++;
	return inc;
}

static void make_id(struct incident_store *s, struct incident *inc)
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;
	char buf[256];
	size_t len;
	bool ok;
	int n;

	/* Only what a recording keeps of the events: a game's start time may come from the boot
	 * time, which a replay need not know, and a recorded time has microseconds. */
	n = snprintf(buf, sizeof(buf), "%s|%u|%u:%" PRIu64 "|%s|%" PRIu64, s->boot_id, inc->kind,
		     inc->root.pid, inc->root.start_boot_ns, inc->pci,
		     inc->first_ns - inc->first_ns % 1000);
	memcpy(inc->id, "INC-", 4);
	len = (size_t)MIN(n, (int)sizeof(buf) - 1);
	if (s->sha256 && s->md_ctx)
		ok = EVP_DigestInit_ex(s->md_ctx, s->sha256, NULL) == 1 &&
		     EVP_DigestUpdate(s->md_ctx, buf, len) == 1 &&
		     EVP_DigestFinal_ex(s->md_ctx, md, &mdlen) == 1;
	else
		ok = EVP_Digest(buf, len, md, &mdlen, EVP_sha256(), NULL) == 1;
	if (ok && mdlen >= 8)
		hex_encode(md, 8, inc->id + 4);
	else
		snprintf(inc->id + 4, INCIDENT_ID_LEN - 4, "%016" PRIx64, inc->seq);
}

struct incident *incident_find_open(struct incident_store *s, uint8_t kind, struct proc_key root,
				    const char *pci)
{
	for (int32_t i = s->buckets[key_hash(kind, root, pci) & s->bucket_mask]; i >= 0;
	     i = s->inc[i].hnext) {
		struct incident *inc = &s->inc[i];

		if (!inc->open || inc->kind != kind)
			continue;
		if (kind == INCIDENT_KIND_ACTOR &&
		    (inc->root.pid != root.pid || inc->root.start_boot_ns != root.start_boot_ns))
			continue;
		if (kind == INCIDENT_KIND_PCI && strcmp(inc->pci, pci) != 0)
			continue;
		return inc;
	}
	return NULL;
}

void incident_file(struct incident_store *s, struct incident *inc)
{
	make_id(s, inc);
	hash_add(s, inc);
}
