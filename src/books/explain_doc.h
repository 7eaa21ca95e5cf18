/* SPDX-License-Identifier: MIT */
/*
 * explain_doc.h - one explain of a process, read the same way by every
 * front end that shows one (pmaps explain, top's drill-down, serve's
 * /api/process/PID/explain): the source chosen by the library
 * (pmaps_explain_choose()), the runtime's books read right before the run
 * (so that what asking costs the process is in both), the run, and their
 * join (pmaps_books_join()). The writers then word it as one document.
 */
#ifndef PMAPS_EXPLAIN_DOC_H
#define PMAPS_EXPLAIN_DOC_H

#include "books/books.h"
#include "common/tool.h"
#include "write/writer.h"

/* What a front end asks of an explain. */
struct explain_ask {
	int source;          /* PMAPS_SRC_SMAPS, PMAPS_SRC_PAGES or PMAPS_SRC_AUTO */
	uint64_t limit_ns;   /* auto's hold limit (PMAPS_EXPLAIN_HOLD_NS) */
	int pages;           /* also walk every mapping's pages (PMAPS_EXPLAIN_PAGES) */
	int gentle;          /* the pages source, asked for: walk it gently */
	/*
	 * A one-shot read (pmaps explain): where auto chose the pages source over
	 * the limit, walk it paced (PMAPS_POLICY_PACED) rather than gently.
	 */
	int paced;
	/* The books' options; NULL, or OFF set: none are asked (a CSV has no room for them) */
	const struct books_opts *books;
	/*
	 * explain --wss: reset the process's referenced bits, wait this long,
	 * then read (smaps, whatever SOURCE says): the result carries what was
	 * touched (pmaps_wss_*). 0: no reset, nothing written to the process.
	 */
	uint64_t wss_ns;
};

/* One explain read: valid until explain_doc_close(). */
struct explain_doc {
	int pid;
	struct pmaps_explain_choice choice;
	struct pmaps_explain_session *s;
	const struct pmaps_explain *x;  /* the result (a kernel thread's: empty, all known) */
	int kernel_thread;
	int have_books;
	struct books books;
	struct pmaps_join join;
	struct pmaps_explain none;      /* a kernel thread's result */
	struct pmaps_wss *wss;          /* ASK->wss_ns: the working-set session */
	const struct pmaps_wss_result *wss_res; /* and its reading */
	/* what the run cost (pmaps_explain_cost()): HAVE_COST 0 when nothing was read */
	int have_cost;
	struct pmaps_cost cost;
};

/*
 * Reads PROC as ASK says into E (which may be large: the caller's, heap or
 * static). Returns 0, or a negative errno with the failure in F (the
 * library's message). A kernel thread is 0 with E->kernel_thread set.
 * Close E after either.
 */
int explain_doc_read(struct explain_doc *e, struct pmaps_proc *proc, const struct explain_ask *ask,
                     struct failure *f);
/* Sets D (a DOC_EXPLAIN for E's pid) to show E: the books, the join, the choice. */
void explain_doc_fill(const struct explain_doc *e, struct doc *d);
void explain_doc_close(struct explain_doc *e);

#endif
