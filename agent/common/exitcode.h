/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Exit codes of every subcommand; documented in rdmaguard(8) and README.md. */
#pragma once

enum {
	RG_EXIT_OK = 0,	      /* success; audit/replay: no finding at or above the threshold */
	RG_EXIT_FINDINGS = 1, /* audit/replay: findings at or above the threshold */
	RG_EXIT_ERROR = 2,    /* bad usage, invalid input (policy, rules, events), or failure */
};
