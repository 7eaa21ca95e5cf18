/* SPDX-License-Identifier: MIT */
/*
 * wss.c - pmaps wss: resets the process's referenced bits, waits an
 * interval, reads what it touched (the library's working-set session), and
 * again; each interval a table of categories (and the largest mappings), a
 * JSON Lines object or CSV rows; at the end the summary: per category the
 * median and the peak of the bytes touched per interval, and what stayed
 * idle.
 *
 * The figures are the library's; the summary's are write/wsum.h's (the
 * peak per category and the interval it was in, the median of the last
 * WSUM_RING intervals), as watch --wss keeps them too.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/num.h"
#include "write/wsum.h"
#include "wss/wss.h"

/* The longest interval: a day (a reset's bits mean little after that, and no sum wraps). */
#define WSS_INTERVAL_MAX (86400ull * 1000000000ull)

struct wss {
	const struct wss_opts *o;
	struct pmaps_proc *proc;
	struct pmaps_wss *s;
	struct pmaps_wss_kernel kernel;
	struct out out;
	char buf[OUT_FD_BUFSIZE];
	int pid;
	struct wsum sum;    /* the intervals read (sum.n), the last in sum.cur */
	uint64_t reset_max_ns;
};

static volatile sig_atomic_t stop_sig;

static void on_stop(int sig)
{
	stop_sig = sig;
}

/*
 * Sleeps until CLOCK_MONOTONIC DEADLINE_NS with the stop signals, blocked
 * everywhere else, let in (UNBLOCKED): one that came before the sleep is
 * taken as it starts, never missed for an interval. Returns 1 when a
 * signal asked to stop first.
 */
static int sleep_until(uint64_t deadline_ns, const sigset_t *unblocked)
{
	for (;;) {
		uint64_t now = now_ns(), left;
		struct timespec ts;
		if (stop_sig)
			return 1;
		if (now >= deadline_ns)
			return 0;
		left = deadline_ns - now;
		ts.tv_sec = (time_t)(left / 1000000000u);
		ts.tv_nsec = (long)(left % 1000000000u);
		(void)ppoll(NULL, 0, &ts, unblocked);
	}
}

/* ---- one interval's figures ---- */

static void put_size(struct wss *w, uint64_t v, size_t width)
{
	char d[32];
	size_t n = fmt_human(d, v);

	out_rjust(&w->out, d, n, width);
}

/* "17:30:01.123" (UTC) of NS since the epoch into D. */
static void clock_of(char *d, size_t size, uint64_t ns)
{
	time_t s = (time_t)(ns / 1000000000u);
	struct tm tm;

	gmtime_r(&s, &tm);
	snprintf(d, size, "%02d:%02d:%02d.%03u", tm.tm_hour, tm.tm_min, tm.tm_sec,
	         (unsigned)(ns % 1000000000u / 1000000u));
}

static void table_interval(struct wss *w, const struct pmaps_wss_result *res, size_t i)
{
	const struct wss_opts *o = w->o;
	const struct pmaps_explain *x = res->x;
	struct out *out = &w->out;
	const char *unit;
	char when[32];
	double v;

	clock_of(when, sizeof(when), res->reset_at_ns);
	if (i)
		out_ch(out, '\n');
	out_printf(out, "interval %zu", i + 1);
	if (o->count)
		out_printf(out, " of %llu", (unsigned long long)o->count);
	unit = dur_unit(res->since_end_ns, &v);
	out_printf(out, ": %.2f %s since the %s at %s UTC (%s)\n", v, unit,
	           o->cumulative ? "first reset" : "reset", when, pmaps_wss_method_name(res->method));
	w_wss_categories(out, x);
	if (!o->mappings || !x->ntop)
		return;
	out_str(out, "largest mappings by resident\n");
	out_str(out, "address                      resident   touched  category        name\n");
	for (unsigned j = 0; j < x->ntop; j++) {
		const struct pmaps_explain_top *tp = &x->top[j];
		const char *cat = pmaps_xcat_name(tp->cat);
		int room;
		char addr[40];
		int n = snprintf(addr, sizeof(addr), "%012llx-%012llx", (unsigned long long)tp->start,
		                 (unsigned long long)tp->end);
		out_ljust(out, addr, (size_t)n, 25);
		put_size(w, tp->rss, 12);
		put_size(w, x->top_referenced[j], 10);
		out_str(out, "  ");
		out_ljust(out, cat, strlen(cat), 16);
		/* The name last, in what the width leaves: its end, which names the file. */
		room = o->width > 65 ? o->width - 65 : o->width ? 4 : 0;
		if (tp->path_len)
			w_name_in(out, tp->path, tp->path_len, tp->path_truncated, room);
		else
			out_str(out, tp->path_truncated ? "[anon]..." : "[anon]");
		out_ch(out, '\n');
	}
}

static void json_u64(struct out *o, const char *key, uint64_t v)
{
	out_printf(o, ",\"%s\":", key);
	out_u64(o, v);
}

/* One interval as a JSON object (JSON Lines: with the process's name of itself). */
static void json_interval(struct wss *w, const struct pmaps_wss_result *res, size_t i, int line)
{
	const struct pmaps_explain *x = res->x;
	const struct wsum_tally *t = &w->sum.cur;
	struct out *o = &w->out;

	out_str(o, "{\"interval\":");
	out_u64(o, i + 1);
	if (line) {
		out_str(o, ",\"pmaps_version\":\"" PMAPS_VERSION "\",\"pid\":");
		out_u64(o, (uint64_t)w->pid);
		out_printf(o, ",\"method\":\"%s\"", pmaps_wss_method_name(res->method));
	}
	json_u64(o, "reset_at_ns", res->reset_at_ns);
	json_u64(o, "reset_took_ns", res->reset_took_ns);
	json_u64(o, "since_reset_start_ns", res->since_start_ns);
	json_u64(o, "since_reset_end_ns", res->since_end_ns);
	json_u64(o, "resident", t->rss[PMAPS_X_COUNT]);
	json_u64(o, "touched", t->ref[PMAPS_X_COUNT]);
	json_u64(o, "mappings", t->maps[PMAPS_X_COUNT]);
	out_str(o, ",\"categories\":[");
	for (int k = 0, first = 1; k < PMAPS_X_COUNT; k++) {
		if (!t->maps[k])
			continue;
		if (!first)
			out_ch(o, ',');
		first = 0;
		out_printf(o, "{\"category\":\"%s\"", pmaps_xcat_name((enum pmaps_xcat)k));
		json_u64(o, "mappings", t->maps[k]);
		json_u64(o, "resident", t->rss[k]);
		json_u64(o, "touched", t->ref[k]);
		out_ch(o, '}');
	}
	out_str(o, "],\"largest\":[");
	for (unsigned j = 0; j < x->ntop; j++) {
		const struct pmaps_explain_top *tp = &x->top[j];
		if (j)
			out_ch(o, ',');
		out_printf(o, "{\"start\":\"0x%llx\",\"end\":\"0x%llx\",\"category\":\"%s\",",
		           (unsigned long long)tp->start, (unsigned long long)tp->end,
		           pmaps_xcat_name(tp->cat));
		out_json_named(o, "path", 4, tp->path, tp->path_len);
		if (tp->path_truncated)
			out_str(o, ",\"path_truncated\":true");
		json_u64(o, "resident", tp->rss);
		json_u64(o, "touched", x->top_referenced[j]);
		out_ch(o, '}');
	}
	out_str(o, "]}");
}

static void csv_interval(struct wss *w, const struct pmaps_wss_result *res, size_t i)
{
	const struct wsum_tally *t = &w->sum.cur;

	if (i == 0)
		out_str(&w->out, "interval,reset_at_ns,since_reset_ns,category,mappings,resident,touched\n");
	for (int k = 0; k <= PMAPS_X_COUNT; k++) {
		if (k < PMAPS_X_COUNT && !t->maps[k])
			continue;
		out_printf(&w->out, "%zu,%llu,%llu,%s,%llu,%llu,%llu\n", i + 1,
		           (unsigned long long)res->reset_at_ns, (unsigned long long)res->since_end_ns,
		           k < PMAPS_X_COUNT ? pmaps_xcat_name((enum pmaps_xcat)k) : "total",
		           (unsigned long long)t->maps[k], (unsigned long long)t->rss[k],
		           (unsigned long long)t->ref[k]);
	}
}

/* ---- the summary ---- */

static void write_summary(struct wss *w, const char *ended, const struct failure *f)
{
	struct out *o = &w->out;
	const struct wss_opts *op = w->o;
	const char *unit;
	double v;

	if (op->fmt == FMT_JSON || op->fmt == FMT_JSONL) {
		if (op->fmt == FMT_JSONL) {
			out_str(o, "{\"pmaps_version\":\"" PMAPS_VERSION "\",\"pid\":");
			out_u64(o, (uint64_t)w->pid);
			out_ch(o, ',');
		}
		out_str(o, "\"summary\":{\"intervals\":");
		out_u64(o, w->sum.n);
		json_u64(o, "median_of", w->sum.n < WSUM_RING ? w->sum.n : WSUM_RING);
		out_printf(o, ",\"ended\":\"%s\",\"idle\":\"%s\",", ended,
		           op->cumulative ? "never_touched" : "idle_at_peak");
		wsum_json(o, &w->sum, op->cumulative);
		out_ch(o, '}');
		if (op->fmt == FMT_JSONL) {
			if (f->err) {
				out_ch(o, ',');
				out_json_named(o, "error", 5, f->msg[0] ? f->msg : pmaps_strerror(f->err),
				               strlen(f->msg[0] ? f->msg : pmaps_strerror(f->err)));
			}
			out_str(o, "}\n");
		}
		return;
	}
	if (op->fmt == FMT_CSV || !w->sum.n)
		return;
	unit = dur_unit(op->interval_ns, &v);
	out_printf(o, "\nworking set over %zu interval%s of %.2f %s%s:\n", w->sum.n,
	           w->sum.n == 1 ? "" : "s", v, unit,
	           strcmp(ended, "count") == 0 ? ""
	           : strcmp(ended, "interrupted") == 0 ? " (interrupted)"
	           : strcmp(ended, "exited") == 0 ? " (cut short: the process exited)"
	           : strcmp(ended, "exec") == 0 ? " (cut short: the process exec'd)"
	                                        : " (cut short: a read failed)");
	wsum_table(o, &w->sum, op->cumulative, 0, "");
	if (op->cumulative)
		out_str(o, "(one reset, at the start: each interval counts from it; never touched:\n"
		           " resident at the end, not touched since the reset)\n");
	else
		out_printf(o, "(median%s and peak of the bytes touched per interval; resident@pk and\n"
		           " idle at peak: resident in the category's busiest interval, and not touched)\n",
		           w->sum.n > WSUM_RING ? " of the last 16384" : "");
}

/* ---- the run ---- */

static void json_head(struct wss *w)
{
	const struct wss_opts *o = w->o;
	const struct pmaps_wss_kernel *k = &w->kernel;
	struct out *out = &w->out;

	out_str(out, "{\"pmaps_version\":\"" PMAPS_VERSION "\",\"pid\":");
	out_u64(out, (uint64_t)w->pid);
	out_printf(out, ",\"method\":\"%s\"", pmaps_wss_method_name(PMAPS_WSS_CLEAR_REFS));
	out_printf(out, ",\"kernel\":{\"clear_refs\":%s,\"page_idle\":%s,\"damon\":%s,"
	           "\"damon_vaddr\":%s}",
	           k->clear_refs == 1 ? "true" : "false", k->page_idle == 1 ? "true" : "false",
	           k->damon == 1 ? "true" : "false",
	           k->damon_vaddr < 0 ? "null" : k->damon_vaddr ? "true" : "false");
	json_u64(out, "interval_ns", o->interval_ns);
	json_u64(out, "count", o->count);
	out_printf(out, ",\"cumulative\":%s,\"intervals\":[", o->cumulative ? "true" : "false");
}

static void verbose_kernel(const struct wss *w)
{
	const struct pmaps_wss_kernel *k = &w->kernel;

	note_msg("method clear_refs: /proc/%d/clear_refs written (\"1\") %s, smaps' Referenced "
	         "read after each interval; this kernel has %s and %s",
	         w->pid, w->o->cumulative ? "once, at the start" : "before each interval",
	         k->page_idle == 1 ? "idle page tracking (not used by pmaps yet)"
	                           : "no idle page tracking (/sys/kernel/mm/page_idle)",
	         k->damon_vaddr == 1 ? "DAMON vaddr (not used by pmaps yet)"
	         : k->damon_vaddr == 0 ? "DAMON without vaddr"
	         : k->damon == 1 ? "DAMON, no context to say whether it has vaddr"
	                         : "no DAMON");
}

int wss_run(const struct wss_opts *o)
{
	static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
	struct sigaction sa, old[3];
	sigset_t block, unblocked;
	const struct pmaps_wss_result *res;
	const char *ended = "count";
	struct failure f;
	struct wss *w = calloc(1, sizeof(*w));
	int rc = EXIT_OK, r;

	if (!w) {
		die_msg("out of memory");
		return EXIT_FAIL;
	}
	w->o = o;
	if (wsum_init(&w->sum) < 0) {
		free(w);
		die_msg("out of memory");
		return EXIT_FAIL;
	}
	memset(&f, 0, sizeof(f));
	rc = tool_proc_open(&w->proc, &o->t);
	if (rc != 0) {
		wsum_free(&w->sum);
		free(w);
		return rc;
	}
	w->pid = pmaps_proc_pid(w->proc);
	w->kernel.size = sizeof(w->kernel);
	pmaps_wss_kernel(o->t.root, &w->kernel);
	r = pmaps_wss_open(&w->s, w->proc, PMAPS_WSS_AUTO, 0);
	if (r < 0) {
		failed(&f, "clear_refs", r, pmaps_wss_errmsg(w->s));
		rc = tool_fail(&o->t, &f);
		pmaps_wss_close(w->s);
		pmaps_proc_close(w->proc);
		wsum_free(&w->sum);
		free(w);
		return rc;
	}
	if (o->verbose)
		verbose_kernel(w);
	out_fd(&w->out, STDOUT_FILENO, w->buf, sizeof(w->buf));
	/*
	 * The stop signals end the run after the summary; they are let in only
	 * while it sleeps. A second one (the handler is then the default again)
	 * ends pmaps at once.
	 */
	stop_sig = 0;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sa.sa_flags = SA_RESETHAND;
	sigemptyset(&block);
	for (int i = 0; i < 3; i++) {
		sigaction(sigs[i], NULL, &old[i]);
		sigaction(sigs[i], &sa, NULL);
		sigaddset(&block, sigs[i]);
	}
	sigprocmask(SIG_BLOCK, &block, &unblocked);
	if (o->fmt == FMT_JSON)
		json_head(w);
	for (uint64_t i = 0; !o->count || i < o->count; i++) {
		uint64_t deadline;
		if (i == 0 || !o->cumulative) {
			r = pmaps_wss_reset(w->s);
			if (r < 0) {
				failed(&f, "clear_refs", r, pmaps_wss_errmsg(w->s));
				break;
			}
		}
		/* The interval is at most a day (cmd_wss.c): no sum wraps. */
		deadline = now_ns() + o->interval_ns;
		if (sleep_until(deadline, &unblocked)) {
			ended = "interrupted"; /* the interval under way is not read */
			break;
		}
		r = pmaps_wss_read(w->s, &res);
		if (r < 0) {
			failed(&f, "smaps", r, pmaps_wss_errmsg(w->s));
			break;
		}
		if (res->reset_took_ns > w->reset_max_ns)
			w->reset_max_ns = res->reset_took_ns;
		wsum_keep(&w->sum, res->x);
		switch (o->fmt) {
		case FMT_TABLE: table_interval(w, res, w->sum.n - 1); break;
		case FMT_JSON:
			if (w->sum.n > 1)
				out_ch(&w->out, ',');
			json_interval(w, res, w->sum.n - 1, 0);
			break;
		case FMT_JSONL:
			json_interval(w, res, w->sum.n - 1, 1);
			out_ch(&w->out, '\n');
			break;
		case FMT_CSV: csv_interval(w, res, w->sum.n - 1); break;
		}
		if (o->fmt != FMT_JSON)
			out_flush(&w->out); /* a line per interval, as it comes */
		if (w->out.err)
			break; /* nobody reads: no more resets (finish_output() says why) */
		if (stop_sig) {
			ended = "interrupted";
			break;
		}
	}
	if (f.err)
		ended = f.err == -ESRCH ? "exited" : f.err == -ESTALE ? "exec" : "failed";
	if (o->fmt == FMT_JSON)
		out_str(&w->out, "],");
	if (o->fmt != FMT_CSV && (w->sum.n > 1 || o->cumulative || o->fmt != FMT_TABLE))
		write_summary(w, ended, &f);
	if (!w->sum.n && strcmp(ended, "interrupted") == 0)
		note_msg("interrupted before the first interval ended: nothing measured");
	if (o->fmt == FMT_JSON) {
		if (f.err) {
			out_str(&w->out, ",\"error\":");
			out_json_str(&w->out, f.msg[0] ? f.msg : pmaps_strerror(f.err),
			             strlen(f.msg[0] ? f.msg : pmaps_strerror(f.err)));
		}
		out_str(&w->out, "}\n");
	}
	if (f.err) {
		out_flush(&w->out);
		rc = tool_fail(&o->t, &f);
	}
	rc = finish_output(&w->out, rc);
	if (o->verbose && w->sum.n)
		note_msg("%zu interval%s read; the longest reset took %.3f ms (the wait for the "
		         "process's mmap_lock, then the walk with it held for writing)", w->sum.n,
		         w->sum.n == 1 ? "" : "s", (double)w->reset_max_ns / 1e6);
	for (int i = 0; i < 3; i++)
		sigaction(sigs[i], &old[i], NULL);
	sigprocmask(SIG_SETMASK, &unblocked, NULL);
	pmaps_wss_close(w->s);
	pmaps_proc_close(w->proc);
	wsum_free(&w->sum);
	free(w);
	return rc;
}
