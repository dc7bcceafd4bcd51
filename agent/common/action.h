/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Rule actions: the one enum and name table that rules, per-rule policy overrides, the alerts'
 * "rule.action" and enforcement use.
 */
#pragma once

enum rg_action {
	RG_ACTION_ALERT = 0,
	RG_ACTION_DENY, /* enforcement: refuse the operation (docs/enforcement.md) */
	RG_ACTION_KILL, /* enforcement fallback: SIGKILL the process */
};

/* "alert" "deny" "kill", exactly (case matters). */
int action_from_string(const char *s); /* the enum value, or -EINVAL if unknown or NULL */
const char *action_to_string(int a);   /* NULL if out of range */
