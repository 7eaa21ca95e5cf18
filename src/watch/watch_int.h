/* SPDX-License-Identifier: MIT */
/*
 * watch_int.h - what the files of pmaps watch and run's loop share: the
 * state of one watch (struct watch), and the calls between the loop
 * (watch.c) and its lines, JSON and summary (watch_out.c).
 */
#ifndef PMAPS_WATCH_INT_H
#define PMAPS_WATCH_INT_H

#include <pthread.h>
#include <signal.h>
#include <stdint.h>

#include "books/books.h"
#include "common/num.h"
#include "common/tool.h"
#include "pmaps.h"
#include "watch/watch.h"
#include "watch/watch_kids.h"
#include "watch/watch_loop.h"
#include "write/writer.h"
#include "write/wsum.h"

#define KEY(o, lit) out_mem(o, lit, sizeof(lit) - 1)

/* A category "kept growing" when it rose in this share of at least this many intervals. */
#define KEPT_MIN_INTERVALS 5
#define KEPT_PERCENT 80
/* Changes --pages shows per sample: in the table, in JSON. The stats count all. */
#define PAGES_SHOW_TABLE 16
#define PAGES_SHOW_JSON 256
/* A breakdown whose smaps read would hold the mmap_lock longer reads the page tables. */
#define AUTO_HOLD_NS 2000000ull
/* The mappings that grew most, listed in the summary. */
#define GREW_SHOWN 5
/* --children's column: "RSS/COUNT+UNTRACKED". */
#define KIDS_WIDTH(w) ((w)->o->human ? 13u : 19u)

/* The table's category columns: explain's categories, some added up. */
enum { G_HEAP, G_RTHEAP, G_ANON, G_STACK, G_FILE, G_SHMEM, G_OTHER, G_COUNT };

enum end_why { END_NONE, END_COUNT, END_DURATION, END_EXITED, END_SIGNAL, END_FAILED };

struct watch {
	struct watch_opts *o;
	struct out out;
	char buf[OUT_FD_BUFSIZE];
	struct target t;
	char pidstr[24];
	int pid;
	struct pmaps_proc *proc;
	struct pmaps_explain_session *xs;
	/*
	 * --wss: the working-set session in XS's place (on XPROC, the thread's
	 * handle): a breakdown is its reading, then its reset. WSUM: the
	 * readings since the watch began or the program exec'd (the summary's);
	 * WS_RESET_MAX: the longest reset. WS_ERR: the reset after the last
	 * reading failed (WS_MSG says why): the next breakdown's error.
	 */
	struct pmaps_wss *ws;
	struct wsum wsum;
	uint64_t ws_reset_max;
	int ws_err;
	char ws_msg[256];
	enum pmaps_wss_method ws_method; /* the readings' (the library chooses) */
	struct wpages *wp;
	int probe; /* /proc/PID/maps, open on the program's address space: it reads 0 once that is gone */
	int pidfd; /* watch: the process's pidfd (readable once it exited), or -1 */
	enum pmaps_source src;
	char why[160];
	unsigned xopts;
	char msg[1024];
	char comm[64]; /* the program's name (comm) as the watch began, for the picture's title */
	size_t comm_len;
	/* timing */
	uint64_t t0, interval, late_limit;
	uint64_t samples, lines, full, late, missed, unread, execs;
	uint64_t late_max, late_sum, cost_max, cost_sum;
	/* what each kind of read took: status samples, breakdowns (the thread's too), page walks */
	uint64_t st_n, st_sum, st_max, bdc_n, bdc_sum, bdc_max, pw_n, pw_sum, pw_max;
	uint64_t next_full; /* when the next breakdown may be read (monotonic ns) */
	uint64_t bd_cost;   /* what the last breakdown took */
	/* the breakdown's thread: its state under MU */
	int bd_thread;      /* it runs */
	int bd_init;        /* MU and CV are initialised */
	pthread_t bd_tid;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int bd_want, bd_busy, bd_done, bd_quit, bd_err;
	const struct pmaps_explain *bd_x;
	struct pmaps_wss_result bd_wr; /* --wss: the thread's reading (its X is BD_X) */
	uint64_t bd_start, bd_end, bg;
	char bd_msg[512];
	struct pmaps_proc *xproc; /* the session's handle (the thread's) */
	/* the sample before, of any source; the breakdown before */
	int have_prev, have_prev_full;
	uint64_t prev_rss, prev_swap;
	int prev_swap_known;
	struct watch_sample prev_full;
	uint32_t prev_cats; /* categories holding a mapping in the breakdown before */
	/* the summary */
	uint64_t peak_rss, peak_t;
	const char *peak_src;
	int have_hwm;
	uint64_t hwm;
	struct watch_sample first, at_peak, last;
	uint32_t cats_seen;
	uint64_t cat_max[PMAPS_X_COUNT], lazy_max, swap_max;
	uint64_t grp_max[G_COUNT];  /* the largest sum of each live column's categories */
	uint64_t pairs;     /* consecutive breakdowns */
	uint64_t rises[PMAPS_X_COUNT], rise_first[PMAPS_X_COUNT], rise_last[PMAPS_X_COUNT];
	unsigned first_ntop, peak_ntop;
	uint64_t epoch_full; /* breakdowns of the program now watched (since its exec) */
	struct pmaps_explain_top first_top[PMAPS_EXPLAIN_TOP], peak_top[PMAPS_EXPLAIN_TOP];
	/* --pages: this sample's changes */
	uint64_t pages_shown;
	/* --children: the descendants; the peak of the process's RSS and theirs together */
	struct kids *kids;
	int have_total;
	uint64_t peak_total, peak_total_t, peak_total_proc;
	struct kids_sum peak_total_kids;
	enum end_why end;
	uint64_t t_end;
	/*
	 * The runtime's books: read by the breakdown's thread right before a
	 * breakdown, and joined to that one alone (pmaps_books_join(): within
	 * its skew, the RSS not moved between them), at most once a second and
	 * a tenth of the time (jcmd takes most of a second). Under MU: BD_BOOKS,
	 * the breakdown asked for carries books; BK_THR and BK_THR_JOIN, what
	 * the thread read. BK_CUR and BK_JOIN are the main thread's: the books
	 * of the last breakdown that had them (BK_HAVE), BK_NOW when it is the
	 * sample being written.
	 */
	int bk_on, bk_have, bk_now, bd_books, bd_books_done;
	/*
	 * The program's runtime as its books know it (pmaps_books_runtime()),
	 * found once per program (at the open, at each exec), and whether there
	 * is any book to read of it (BK_WANT): else no breakdown carries books.
	 */
	enum pmaps_runtime bk_rt;
	int bk_want;
	int bk_abort; /* set (atomically) at the end: a read in progress is cut short */
	uint64_t bk_next, bk_cost;
	struct books bk_thr, bk_cur;
	struct pmaps_join bk_thr_join, bk_join;
};

/* The table's category columns and the end's JSON words (watch_out.c). */
extern const char *const group_name[G_COUNT];
extern const unsigned char cat_group[PMAPS_X_COUNT];
extern const char *const end_key[];

/* How run's child ended, for the summary. */
struct ending {
	int have;       /* run: the child was reaped */
	int code, sig;  /* exit code, or the signal that killed it (0: none) */
	int core;
	uint64_t maxrss; /* ru_maxrss in bytes */
};

/* ---- watch_out.c: the lines, the JSON, the summary ---- */
void watch_cell(struct out *o, const char *s, size_t width);
size_t watch_fmt_size(const struct watch *w, char *d, uint64_t v);
void watch_json_lead(struct watch *w);
void watch_json_sample(struct watch *w, const struct watch_sample *s,
                       const struct pmaps_explain *x, const struct pmaps_wss_result *wr,
                       const struct pmaps_status *st, const struct kids_sum *ks, uint64_t late,
                       uint64_t cost);
void watch_json_summary(struct watch *w, const struct ending *en);
void watch_out_secs(struct out *o, uint64_t ns, int digits);
void watch_table_heading(struct watch *w);
void watch_table_line(struct watch *w, const struct watch_sample *s, int full, const char *source,
                      const struct pmaps_wss_result *wr, const struct kids_sum *ks);
void watch_table_summary(struct watch *w, const struct ending *en);

/* ---- watch.c: the loop ---- */
int watch_kept_growing(const struct watch *w, int k);

#endif
