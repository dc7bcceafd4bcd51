/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The stages of an incident (incident.h): the stage of each shipped rule (the table below, which
 * docs/incidents.md shows and a unit test holds to rules/), the stage an event shows by its
 * action for the rules that span several (and for a site's own rules), and the decisive facts of
 * each stage, read from the alert's event with the rule language's own field names.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "incident-internal.h"
#include "common/macro.h"
#include "common/number.h"
#include "common/strutil.h"
#include "event/event.h"
#include "proctree/proctree.h"

static const char *const stage_names[INCIDENT_STAGE__MAX] = {
    [INCIDENT_STAGE_PRESENCE] = "presence",	    [INCIDENT_STAGE_ACCESS] = "access",
    [INCIDENT_STAGE_CAPABILITY] = "capability",	    [INCIDENT_STAGE_TARGET] = "target",
    [INCIDENT_STAGE_EXFILTRATION] = "exfiltration",
};

const char *incident_stage_to_string(unsigned stage)
{
	if (stage < INCIDENT_STAGE__MAX)
		return stage_names[stage];
	if (stage == INCIDENT_STAGE_NONE)
		return "none";
	if (stage == INCIDENT_STAGE_EVENT)
		return "event";
	return NULL;
}

int incident_stage_from_string(const char *s)
{
	for (unsigned i = 0; i < INCIDENT_STAGE__MAX; i++)
		if (strcmp(s, stage_names[i]) == 0)
			return (int)i;
	if (strcmp(s, "none") == 0)
		return INCIDENT_STAGE_NONE;
	if (strcmp(s, "event") == 0)
		return INCIDENT_STAGE_EVENT;
	return -EINVAL;
}

const char *incident_kind_to_string(unsigned kind)
{
	switch (kind) {
	case INCIDENT_KIND_ACTOR:
		return "actor";
	case INCIDENT_KIND_PCI:
		return "pci";
	case INCIDENT_KIND_SEAT:
		return "seat";
	}
	return NULL;
}

/* Every shipped rule's stage (rules/): what the rule's condition establishes. */
static const struct {
	const char *rule;
	int stage;
} rule_stages[] = {
    {"AGENT-001", INCIDENT_STAGE_NONE},	       /* events lost */
    {"AGENT-002", INCIDENT_STAGE_NONE},	       /* sensor degraded */
    {"AGENT-003", INCIDENT_STAGE_NONE},	       /* policy reloaded */
    {"AGENT-004", INCIDENT_STAGE_NONE},	       /* agent tampered with */
    {"DMA-001", INCIDENT_STAGE_PRESENCE},      /* RDMA-capable function, no driver */
    {"DMA-002", INCIDENT_STAGE_PRESENCE},      /* DMA-card tells */
    {"DMA-003", INCIDENT_STAGE_EXFILTRATION},  /* untranslated DMA */
    {"DMA-004", INCIDENT_STAGE_CAPABILITY},    /* IOMMU weakened: DMA reaches memory */
    {"DMA-005", INCIDENT_STAGE_PRESENCE},      /* function appeared at runtime */
    {"DMA-006", INCIDENT_STAGE_EXFILTRATION},  /* DMA faults */
    {"DMA-007", INCIDENT_STAGE_PRESENCE},      /* Thunderbolt device authorised */
    {"DMA-008", INCIDENT_STAGE_PRESENCE},      /* differs from the seat baseline */
    {"DMA-009", INCIDENT_STAGE_PRESENCE},      /* removed or stopped by enforcement */
    {"DMA-010", INCIDENT_STAGE_PRESENCE},      /* RDMA driver refused */
    {"DMA-011", INCIDENT_STAGE_PRESENCE},      /* a masked card's tells */
    {"DMA-012", INCIDENT_STAGE_PRESENCE},      /* driverless, bus-mastering, imitated kind */
    {"DMA-013", INCIDENT_STAGE_PRESENCE},      /* another device's DSN */
    {"DMA-014", INCIDENT_STAGE_PRESENCE},      /* untranslated, imitated kind, no tell */
    {"RDMA-001", INCIDENT_STAGE_PRESENCE},     /* RDMA device present */
    {"RDMA-002", INCIDENT_STAGE_PRESENCE},     /* soft RDMA link or module */
    {"RDMA-003", INCIDENT_STAGE_ACCESS},       /* RDMA library loaded */
    {"RDMA-004", INCIDENT_STAGE_ACCESS},       /* uverbs opened */
    {"RDMA-005", INCIDENT_STAGE_CAPABILITY},   /* MR with remote access */
    {"RDMA-006", INCIDENT_STAGE_EVENT},	       /* any RDMA activity during a game */
    {"RDMA-007", INCIDENT_STAGE_TARGET},       /* RDMA code in the game */
    {"RDMA-008", INCIDENT_STAGE_TARGET},       /* the game's memory accessed */
    {"RDMA-009", INCIDENT_STAGE_CAPABILITY},   /* connection to a peer */
    {"RDMA-010", INCIDENT_STAGE_CAPABILITY},   /* implicit or oversized MR */
    {"RDMA-011", INCIDENT_STAGE_EVENT},	       /* enforcement stopped an operation */
    {"RDMA-012", INCIDENT_STAGE_EXFILTRATION}, /* traffic with an unmanaged peer */
};

int incident_rule_stage(const char *rule_id)
{
	for (size_t i = 0; rule_id && i < ARRAY_SIZE(rule_stages); i++)
		if (strcmp(rule_stages[i].rule, rule_id) == 0)
			return rule_stages[i].stage;
	return -ENOENT;
}

const char *incident_rule_stage_at(size_t i, int *stage)
{
	if (i >= ARRAY_SIZE(rule_stages))
		return NULL;
	*stage = rule_stages[i].stage;
	return rule_stages[i].rule;
}

int incident_event_stage(const struct cond_ctx *ctx)
{
	return incident_action_stage(ctx->ev->type);
}

int incident_action_stage(unsigned type)
{
	switch (type) {
	case RG_EV_DEVICE_PRESENT:
	case RG_EV_DEVICE_ADD:
	case RG_EV_MODULE_PRESENT:
	case RG_EV_MODULE_LOAD:
	case RG_EV_PCI_FUNCTION:
	case RG_EV_PCI_CHANGE:
	case RG_EV_THUNDERBOLT:
	case RG_EV_HW_BASELINE:
		return INCIDENT_STAGE_PRESENCE;
	case RG_EV_DEVICE_OPEN:
	case RG_EV_LIBRARY_LOAD:
		return INCIDENT_STAGE_ACCESS;
	case RG_EV_VERBS:
	case RG_EV_RDMA_CM:
	case RG_EV_RDMA_SOCKET:
	case RG_EV_QP_PRESENT:
	case RG_EV_MR_PRESENT:
	case RG_EV_IOMMU_POSTURE:
		return INCIDENT_STAGE_CAPABILITY;
	case RG_EV_MEMORY_ACCESS:
		return INCIDENT_STAGE_TARGET;
	case RG_EV_ROCE_TRAFFIC:
	case RG_EV_DMA_FAULT:
		return INCIDENT_STAGE_EXFILTRATION;
	default:
		return INCIDENT_STAGE_NONE;
	}
}

int incident_alert_stage(struct incident_store *s, const char *rule_id, const struct cond_ctx *ctx)
{
	/* the table by the rule id's pointer: two alerts in three are of a rule seen before */
	size_t slot = ((uintptr_t)rule_id >> 4) % ARRAY_SIZE(s->stage_cache);
	int stage;

	if (s->stage_cache[slot].rule != rule_id) {
		s->stage_cache[slot].rule = rule_id;
		s->stage_cache[slot].stage = incident_rule_stage(rule_id);
	}
	stage = s->stage_cache[slot].stage;

	return stage == INCIDENT_STAGE_EVENT || stage < 0 ? incident_event_stage(ctx) : stage;
}

/* The decisive facts of each stage: the fields that say what was done, to what, where. */
static const char *const stage_facts[INCIDENT_STAGE__MAX][8] = {
    [INCIDENT_STAGE_PRESENCE] = {"rdma.device", "rdma.transport", "module.name", "pci.address",
				 "pci.vendor_name", "pci.device_name", "thunderbolt.device", NULL},
    [INCIDENT_STAGE_ACCESS] = {"file.path", "dll.path", "rdma.device", NULL},
    [INCIDENT_STAGE_CAPABILITY] = {"rdma.op", "rdma.device", "rdma.mr.length", "rdma.mr.access",
				   "destination.ip", "rdma.socket.family", "iommu.type", NULL},
    [INCIDENT_STAGE_TARGET] = {"game.name", "memory.op", "target.process.pid",
			       "target.process.name", "memory.bytes", "dll.path", NULL},
    [INCIDENT_STAGE_EXFILTRATION] = {"destination.ip", "rdma.traffic.bytes_out",
				     "rdma.traffic.packets_dropped", "dma.fault.address",
				     "dma.fault.reason", "pci.address", NULL},
};

const char *const *incident_stage_fact_fields(unsigned stage)
{
	return stage < INCIDENT_STAGE__MAX ? stage_facts[stage] : NULL;
}

static int ref(const char *name, struct field_ref **ret)
{
	char err[128];

	return field_ref_new(name, ret, err, sizeof(err));
}

int incident_facts_init(struct incident_store *s)
{
	int r;

	for (unsigned st = 0; st < INCIDENT_STAGE__MAX; st++) {
		size_t n = 0;

		while (n < ARRAY_SIZE(stage_facts[st]) && stage_facts[st][n])
			n++;
		s->facts[st] = calloc(n, sizeof(*s->facts[st]));
		if (!s->facts[st])
			return -ENOMEM;
		for (size_t i = 0; i < n; i++) {
			r = ref(stage_facts[st][i], &s->facts[st][i]);
			if (r < 0)
				return r;
			s->n_facts[st]++;
		}
	}
	r = ref("pci.address", &s->f_pci);
	if (r >= 0)
		r = ref("rdma.device", &s->f_device);
	if (r >= 0)
		r = ref("destination.ip", &s->f_peer);
	if (r >= 0)
		r = ref("rdma.mr.length", &s->f_mr_len);
	if (r >= 0)
		r = ref("rdma.mr.access", &s->f_mr_access);
	if (r >= 0)
		r = ref("memory.op", &s->f_mem_op);
	if (r >= 0)
		r = ref("dll.path", &s->f_dll);
	return r;
}

void incident_facts_free(struct incident_store *s)
{
	for (unsigned st = 0; st < INCIDENT_STAGE__MAX; st++) {
		for (size_t i = 0; i < s->n_facts[st]; i++)
			field_ref_free(s->facts[st][i]);
		free(s->facts[st]);
		s->facts[st] = NULL;
		s->n_facts[st] = 0;
	}
	field_ref_free(s->f_pci);
	field_ref_free(s->f_device);
	field_ref_free(s->f_peer);
	field_ref_free(s->f_mr_len);
	field_ref_free(s->f_mr_access);
	field_ref_free(s->f_mem_op);
	field_ref_free(s->f_dll);
}

static void add_fact(struct inc_stage *st, const char *name, const char *value)
{
	char fact[INC_FACT_LEN];
	size_t n = strlen(name);

	if (n + 2 > sizeof(fact))
		return;
	memcpy(fact, name, n);
	fact[n] = '=';
	strscpy_ok(fact + n + 1, value, sizeof(fact) - n - 1);
	for (size_t i = 0; i < st->n_facts; i++)
		if (strcmp(st->facts[i], fact) == 0)
			return;
	if (st->n_facts < INC_MAX_FACTS)
		memcpy(st->facts[st->n_facts++], fact, sizeof(fact));
}

void incident_add_game_fact(struct incident *inc, struct cond_ctx *ctx)
{
	const struct game_session *g = ctx->game;

	if (g && g->name) {
		add_fact(&inc->st[INCIDENT_STAGE_TARGET], "game.running", g->name);
		if (!inc->target_game[0])
			strscpy_ok(inc->target_game, g->name, sizeof(inc->target_game));
	}
}

static bool fmt(struct field_ref *f, struct cond_ctx *ctx, char *buf, size_t size)
{
	return f && field_ref_format(f, ctx, buf, size) && buf[0] && strcmp(buf, "0") != 0;
}

void incident_add_facts(struct incident_store *s, struct incident *inc, unsigned stage,
			struct cond_ctx *ctx)
{
	struct inc_stage *st = &inc->st[stage];
	char v[INC_FACT_LEN];

	/* The decisive facts are the first ones: the later alerts of a stage repeat them. */
	for (size_t i = 0; st->alerts <= INC_FACT_ALERTS && i < s->n_facts[stage]; i++)
		if (fmt(s->facts[stage][i], ctx, v, sizeof(v)))
			add_fact(st, field_ref_name(s->facts[stage][i]), v);
	/* What the summary says: the device, the largest remote-access MR, the peer, the game. */
	if (!inc->device[0] && fmt(s->f_device, ctx, v, sizeof(v)))
		strscpy_ok(inc->device, v, sizeof(inc->device));
	if (!inc->peer[0] && fmt(s->f_peer, ctx, v, sizeof(v)))
		strscpy_ok(inc->peer, v, sizeof(inc->peer));
	if (stage == INCIDENT_STAGE_CAPABILITY && fmt(s->f_mr_access, ctx, v, sizeof(v)) &&
	    strstr(v, "remote")) {
		char len[32];
		uint64_t n = 0;

		if (fmt(s->f_mr_len, ctx, len, sizeof(len)))
			(void)safe_atou64(len, 10, &n);
		if (n >= inc->mr_bytes) {
			inc->mr_bytes = n;
			strscpy_ok(inc->mr_access, v, sizeof(inc->mr_access));
			if (fmt(s->f_device, ctx, v, sizeof(v)))
				strscpy_ok(inc->device, v, sizeof(inc->device));
		}
	}
	if (stage == INCIDENT_STAGE_TARGET) {
		if (ctx->game && ctx->game->name && !inc->target_game[0])
			strscpy_ok(inc->target_game, ctx->game->name, sizeof(inc->target_game));
		if (ctx->ev->type == RG_EV_MEMORY_ACCESS && fmt(s->f_mem_op, ctx, v, sizeof(v))) {
			strscpy_ok(inc->target_op, v, sizeof(inc->target_op));
			inc->target_pid = ctx->target ? ctx->target->pid : 0;
		}
		if (ctx->ev->type == RG_EV_LIBRARY_LOAD && ctx->proc &&
		    (ctx->proc->flags & PROC_F_GAME) && fmt(s->f_dll, ctx, v, sizeof(v)))
			strscpy_ok(inc->library, v, sizeof(inc->library));
	}
}
