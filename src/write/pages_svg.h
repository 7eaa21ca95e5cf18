/* SPDX-License-Identifier: MIT */
/*
 * pages_svg.h - `pmaps pages PID --svg FILE`: the address space as a
 * picture (pages_svg.c), and what it shares with cmd_pages.c.
 */
#ifndef PMAPS_PAGES_SVG_H
#define PMAPS_PAGES_SVG_H

#include "common/outfile.h"
#include "common/tool.h"

/* What a picture shows, for the line that says it was written. */
struct pages_svg_drawn {
	uint64_t mappings; /* drawn */
	uint64_t pages;    /* their pages */
	uint64_t resident; /* of which present in memory */
	int kpage;         /* with the physical pages' state (kpageflags) */
	int scan;          /* read with PAGEMAP_SCAN (else pagemap) */
	/* --wss: the bytes resident and touched since the reset (smaps), and when */
	int wss;
	uint64_t wss_resident, wss_touched, wss_since_ns;
};

/* What a picture is asked for. */
struct pages_svg_req {
	struct pmaps_proc *proc;
	enum pmaps_pages_strategy strategy;
	unsigned pace;  /* PMAPS_PAGES_GENTLE, PMAPS_PAGES_PACED or 0 */
	int verbose;
	const struct range_arg *range; /* NULL: the whole address space */
	struct outfile *out;           /* where the document goes: opened by the caller */
	/*
	 * With OUT NULL: the document goes to this file descriptor instead
	 * (pmaps serve's memory file), written from its current offset.
	 */
	int fd;
	/*
	 * No notes on stderr (no physical page state, a kernel thread): the
	 * picture says both, and a server's request is nobody's terminal.
	 */
	int quiet;
	struct pages_svg_drawn *drawn; /* filled after a 0, where not NULL */
	/*
	 * --wss: reset the process's referenced bits (a working-set session),
	 * wait this long, then walk smaps instead of maps and draw beside each
	 * band the share of its resident bytes touched since (smaps'
	 * Referenced: per mapping, for this kernel marks no page). 0: none.
	 */
	uint64_t wss_ns;
};

/*
 * Walks the pages REQ asks for and writes the picture to REQ->out
 * (outfile_begin(), then the document), or to REQ->fd. Nothing reaches
 * the file before the walk has ended well: the document is built in an
 * anonymous memory file and copied at the end, so a failed walk writes
 * nothing and does not begin the file. The caller commits REQ->out after
 * a 0, aborts it after an error. Returns 0, or a negative errno with the
 * failure in F.
 */
int pages_svg_write(const struct pages_svg_req *req, struct failure *f);

#endif
