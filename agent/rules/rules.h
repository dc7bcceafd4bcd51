/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Rules are data: JSON files (comments allowed) in a directory, each holding one rule object or an
 * array of them, loaded in file-name order. The format is documented in docs/rules-and-policy.md;
 * the default set lives in rules/ and is installed to datadir/rdmaguard/rules.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/action.h"
#include "common/severity.h"
#include "config/jsondoc.h"

struct cond;
struct cond_ctx;
struct field_ref;
struct tmpl;

#define RULES_MAX	   512
#define RULES_MAX_FILES	   256
#define RULE_MAX_TAGS	   32
#define RULE_MAX_AGG_BY	   8
#define RULE_MAX_EXCEPTIONS 64

struct rg_rule_threat {
	char *tactic_id, *tactic_name;	     /* TA0005, Defense Evasion */
	char *technique_id, *technique_name; /* T1055, Process Injection */
};

struct rg_rule_severity_when {
	struct cond *cond;
	int severity;
};

struct rg_rule {
	char *id;
	char *name;
	char *description;
	int severity; /* enum rg_severity */
	int action;   /* enum rg_action */
	bool enabled;
	char **tags;
	size_t n_tags;
	struct rg_rule_threat *threat; /* NULL if none */
	struct cond *cond;
	struct cond **exceptions;
	size_t n_exceptions;
	struct rg_rule_severity_when *sev_when; /* first match wins over severity */
	size_t n_sev_when;
	struct tmpl *message;
	bool aggregate; /* repeats aggregate (default true) */
	struct field_ref **agg_by; /* the "object" of a repeat, besides rule and process */
	size_t n_agg_by;
	uint64_t window_ns; /* 0: the policy's aggregate_window */
	char *file;
	unsigned line, column;
};

struct rg_ruleset {
	struct rg_rule *rules;
	size_t n;
	char *dir;
};

/*
 * Loads every *.json file of dir. Errors: -EINVAL with err at file:line:column (also for an empty
 * directory, a duplicate rule id, and a directory with more than RULES_MAX rules). check_owner:
 * the directory, each file and the directories above them pass the policy's checks (trust.h).
 */
int rules_load_dir(const char *dir, bool check_owner, struct rg_ruleset **ret,
		   struct rg_error *err);
/* Adds the rules of one file's text to set (for tests). */
int rules_parse(struct rg_ruleset *set, const char *file, const char *text, size_t len,
		struct rg_error *err);
int ruleset_new(struct rg_ruleset **ret);
void ruleset_free(struct rg_ruleset *set);
const struct rg_rule *ruleset_find(const struct rg_ruleset *set, const char *id);

/* --rules default: the installed rules, or the source tree's for a binary run from its build dir. */
const char *rules_default_dir(void);

/* Renders the rule's message for an event. */
void rule_render_message(const struct rg_rule *rule, struct cond_ctx *ctx, char *buf, size_t size);
/* The message template as written. */
const char *rule_message_text(const struct rg_rule *rule);
