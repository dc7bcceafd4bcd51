/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The sink interface: what the lifecycle (output.c) calls to set up, run and free the thread of
 * one output, and what each sink implements (file.c: stdout and file:PATH; net.c: syslog over
 * TCP and TLS; relp.c: RELP). A sink takes its records from the output's queue (queue.h); the
 * lifecycle knows a sink only through this struct.
 */
#pragma once

#include <stdbool.h>

#include "queue.h"

struct output_sink {
	/* Sets up the sink of out (files, TLS material, the spool) into *ret; logs a message that
	 * names the output on failure and leaves *ret alone. The queue is already set up. */
	int (*new)(struct output *out, void **ret);
	/* Frees what new() made, once the thread has stopped; NULL is fine. */
	void (*free)(void *state);
	/* The output's thread (arg: the struct output): takes from the queue, publishes flush
	 * progress and ticks the loss reports until output_stop() and an empty queue. */
	void *(*thread)(void *arg);
	/* Wake the thread for every record (it does not drain the queue before it sleeps). */
	bool wake_always;
	/* Records go through an on-disk spool and a connection: the spool and connection counters
	 * apply, outputs_flush_delivered() waits for the spool, the spool directory is needed. */
	bool spooled;
};

extern const struct output_sink output_file_sink; /* stdout, file:PATH */
extern const struct output_sink output_net_sink;  /* syslog+tcp://, syslog+tls:// */
extern const struct output_sink output_relp_sink; /* relp:// (relp.c) */
