/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The spool directory, STATE_DIR/spool/: one spool (spool.h) per syslog output, named after the
 * output's transport, host and port, so that a restart finds the spool of the same output.
 */
#pragma once

#include "queue.h"

struct spool;

/* Creates (0700) and opens STATE_DIR and STATE_DIR/spool into *ret; logs. */
int output_spool_dir_open(const char *state_dir, int *ret);
/* Warns about every spool below dfd that holds records and belongs to none of specs[0..n). */
void output_spool_dir_warn_orphans(int dfd, const char *state_dir,
				   const struct output_spec *specs, size_t n);
/* Opens the spool of the syslog output out below out->shared->spool_dfd; logs. */
int output_spool_open(struct output *out, struct spool **ret);
