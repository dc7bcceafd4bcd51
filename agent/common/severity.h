/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Alert severities: the one enum and name table that rules, policies, the engine's counters,
 * the outputs' drop accounting and the spool's eviction order all use.
 */
#pragma once

/* Lowest first: thresholds compare them, and the spool evicts in this order. */
enum rg_severity {
	RG_SEV_INFO = 0,
	RG_SEV_LOW,
	RG_SEV_MEDIUM,
	RG_SEV_HIGH,
	RG_SEV_CRITICAL,
	RG_SEV__MAX,
};

/* "info" "low" "medium" "high" "critical", exactly (case matters). */
int severity_from_string(const char *s); /* the enum value, or -EINVAL if unknown or NULL */
const char *severity_to_string(int sev); /* NULL if out of range */
