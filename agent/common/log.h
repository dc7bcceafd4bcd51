/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Logging to stderr (or the journal when run by systemd: stderr is the journal then).
 * Functions return 0 or a negative errno; log_*_errno() logs and returns that value so that
 * "return log_error_errno(r, "Failed to ...: %m");" is the idiom. %m prints strerror(-r).
 */
#pragma once

#include <errno.h>
#include <stdbool.h>
#include "macro.h"

enum log_level {
	LOG_LEVEL_ERR = 3,
	LOG_LEVEL_WARNING = 4,
	LOG_LEVEL_NOTICE = 5,
	LOG_LEVEL_INFO = 6,
	LOG_LEVEL_DEBUG = 7,
};

void log_set_max_level(enum log_level level);
enum log_level log_get_max_level(void);
/* Prefix each line with "<N>" (sd-daemon priority) instead of "rdmaguard: ". */
void log_set_journal_prefix(bool on);

int log_internal(enum log_level level, int error, const char *file, int line, const char *fmt, ...)
	_printf_(5, 6);

#define log_full_errno(level, error, ...)                                                          \
	log_internal((level), (error), __FILE__, __LINE__, __VA_ARGS__)

#define log_debug(...)   log_full_errno(LOG_LEVEL_DEBUG, 0, __VA_ARGS__)
#define log_info(...)    log_full_errno(LOG_LEVEL_INFO, 0, __VA_ARGS__)
#define log_notice(...)  log_full_errno(LOG_LEVEL_NOTICE, 0, __VA_ARGS__)
#define log_warning(...) log_full_errno(LOG_LEVEL_WARNING, 0, __VA_ARGS__)
#define log_error(...)   log_full_errno(LOG_LEVEL_ERR, 0, __VA_ARGS__)

#define log_debug_errno(e, ...)   log_full_errno(LOG_LEVEL_DEBUG, (e), __VA_ARGS__)
#define log_info_errno(e, ...)    log_full_errno(LOG_LEVEL_INFO, (e), __VA_ARGS__)
#define log_warning_errno(e, ...) log_full_errno(LOG_LEVEL_WARNING, (e), __VA_ARGS__)
#define log_error_errno(e, ...)   log_full_errno(LOG_LEVEL_ERR, (e), __VA_ARGS__)

/* For allocation failures: logs and returns -ENOMEM. */
#define log_oom() log_error_errno(-ENOMEM, "Out of memory.")
