/* SPDX-License-Identifier: MIT */
/*
 * wss.h - pmaps wss: the interval loop over a working-set session, its
 * lines (table, JSON, JSON Lines, CSV) and its summary.
 */
#ifndef PMAPS_WSS_H
#define PMAPS_WSS_H

#include <stdint.h>

#include "common/tool.h"
#include "write/writer.h"

struct wss_opts {
	struct target t;
	enum fmt fmt;
	uint64_t interval_ns;
	uint64_t count;     /* intervals; 0: until interrupted */
	int cumulative;     /* one reset, at the start */
	int mappings;       /* the table lists the largest mappings too */
	int verbose;
	int width;          /* the table's, or 0: whole */
};

/* Measures O->t's working set as O says; returns the exit code. */
int wss_run(const struct wss_opts *o);

#endif
