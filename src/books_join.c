/* SPDX-License-Identifier: MIT */
/*
 * books_join.c - the runtime's books joined to explain's kernel figures,
 * and their words in text and JSON (what every writer links; no reader).
 *
 * The join splits the kernel's resident memory into parts (the runtime's
 * heap, the rest of the anonymous memory, stacks, files, shared memory,
 * other), each part's bytes explain's categories' RSS. A runtime figure
 * goes into the part where that memory lives; what the figures of a part
 * do not cover is its remainder, a term of its own: positive when the
 * kernel holds more than the runtime counts, negative when the runtime
 * counts memory that is not resident (committed but never touched, or
 * released). So every part's terms add up to its kernel figure, and the
 * parts to the RSS, exactly.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "books.h"
#include "escape.h"
#include "out.h"

#define KEY(o, lit) out_mem(o, lit, sizeof(lit) - 1)

/* ---- the join ---- */

static const char *const part_name[JP_COUNT] = {"runtime-heap", "anon", "stacks", "files",
                                                 "shmem", "other"};
static const char *const part_words[JP_COUNT] = {
	"the runtime's heap", "[heap] and anonymous mmap", "stacks", "files", "shared memory",
	"other"};

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static uint64_t sub0(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

static void term(struct books_join *j, int part, const char *key, const char *words,
                 const char *how, enum join_src src, uint64_t bytes)
{
	struct join_term *t;

	if (j->n >= JOIN_MAX)
		return;
	t = &j->t[j->n++];
	t->key = key;
	t->words = words;
	t->how = how;
	t->src = src;
	t->neg = 0;
	t->bytes = bytes;
	t->part = part;
	if (src == JOIN_RUNTIME && bytes > JOIN_FIGURE_MAX)
		j->ok = 0; /* books_join() says why */
}

/*
 * The remainder of PART: its kernel bytes less the terms since FIRST, as a
 * term of its own (signed: WORDS_LESS when the runtime counts more).
 */
static void rest_term(struct books_join *j, int part, unsigned first, const char *key,
                      const char *words, const char *words_less)
{
	uint64_t sum = 0, have = j->part[part];
	struct join_term *t;

	for (unsigned i = first; i < j->n; i++)
		sum = sat_add(sum, j->t[i].bytes);
	term(j, part, key, have >= sum ? words : words_less,
	     have >= sum ? "the kernel's figure less the runtime's" :
	                   "the runtime's figures less the kernel's", JOIN_REMAINDER,
	     have >= sum ? have - sum : sum - have);
	t = &j->t[j->n - 1];
	t->neg = have < sum;
}

static void part_kernel(struct books_join *j, int part, const char *key, const char *words)
{
	if (j->part[part])
		term(j, part, key, words, part_words[part], JOIN_KERNEL, j->part[part]);
}

/* The oldest of the books read: the join's "as of". */
static void oldest(struct books_join *j, const struct book_head *h)
{
	if (!h->ok)
		return;
	if (!j->at.tv_sec || h->at.tv_sec < j->at.tv_sec ||
	    (h->at.tv_sec == j->at.tv_sec && h->at.tv_nsec < j->at.tv_nsec))
		j->at = h->at;
}

/* The sum of NMT's categories named in NAMES (NULL-terminated), committed. */
static uint64_t nmt_sum(const struct book_jvm *jv, const char *const *names, int others)
{
	static const char *const known[] = {"Java Heap", "Class", "Thread", "Code", "GC",
	                                    "Internal", "Shared class space", NULL};
	uint64_t sum = 0;

	for (unsigned i = 0; i < jv->ncat && i < BOOK_JVM_CATS; i++) {
		int in = 0;
		const char *const *l = others ? known : names;
		for (; *l; l++)
			if (strcmp(jv->cat[i].name, *l) == 0)
				in = 1;
		if (in != others)
			sum = sat_add(sum, jv->cat[i].committed);
	}
	return sum;
}

static void join_go(struct books_join *j, const struct book_go *g, int heap_part)
{
	term(j, heap_part, "go_live_objects", "Go live objects", "HeapAlloc", JOIN_RUNTIME,
	     g->heap_alloc);
	term(j, heap_part, "go_span_slack", "span slack", "HeapInuse - HeapAlloc", JOIN_RUNTIME,
	     sub0(g->heap_inuse, g->heap_alloc));
	term(j, heap_part, "go_held_free", "held free", "HeapIdle - HeapReleased", JOIN_RUNTIME,
	     sub0(g->heap_idle, g->heap_released));
	term(j, heap_part, "go_stacks", "goroutine stacks", "StackInuse", JOIN_RUNTIME,
	     g->stack_inuse);
}

/* The Java heap into PART: GC.heap_info's used and committed, else NMT's Java Heap. */
static void join_java_heap(struct books_join *j, int part, const struct book_jvm *jv)
{
	static const char *const nmt_heap[] = {"Java Heap", NULL};

	if (jv->heap_ok) {
		term(j, part, "java_heap_used", "Java heap in use", "GC.heap_info used", JOIN_RUNTIME,
		     jv->heap_used);
		term(j, part, "java_heap_free", "Java heap committed, free",
		     "GC.heap_info committed - used", JOIN_RUNTIME,
		     sub0(jv->heap_committed, jv->heap_used));
	} else if (jv->nmt) {
		term(j, part, "java_heap", "Java heap committed", "NMT Java Heap committed", JOIN_RUNTIME,
		     nmt_sum(jv, nmt_heap, 0));
	}
}

void books_join(struct books_join *j, const struct books *b, const struct pmaps_explain *x)
{
	static const char *const nmt_class[] = {"Class", NULL};
	static const char *const nmt_thread[] = {"Thread", NULL};
	static const char *const nmt_code[] = {"Code", NULL};
	static const char *const nmt_gc[] = {"GC", NULL};
	static const char *const nmt_internal[] = {"Internal", NULL};
	static const char *const nmt_cds[] = {"Shared class space", NULL};
	static const int cat_part[PMAPS_X_COUNT] = {
		[PMAPS_X_HEAP] = JP_ANON, [PMAPS_X_ANON] = JP_ANON, [PMAPS_X_ANON_NAMED] = JP_ANON,
		[PMAPS_X_RUNTIME_HEAP] = JP_RUNTIME_HEAP, [PMAPS_X_THREAD_STACK] = JP_STACKS,
		[PMAPS_X_MAIN_STACK] = JP_STACKS, [PMAPS_X_FILE_TEXT] = JP_FILES,
		[PMAPS_X_FILE_DATA] = JP_FILES, [PMAPS_X_FILE_RO] = JP_FILES,
		[PMAPS_X_SHMEM] = JP_SHMEM, [PMAPS_X_HUGETLB] = JP_SHMEM, [PMAPS_X_OTHER] = JP_OTHER};
	const struct book_go *g = b->go.h.ok ? &b->go : NULL;
	const struct book_jvm *jv = b->jvm.h.ok ? &b->jvm : NULL;
	const struct book_malloc *m = b->mal.h.ok ? &b->mal : NULL;
	int lazy_known = pmaps_explain_known(x, PMAPS_X_RUNTIME_HEAP, PMAPS_XC_LAZYFREE);
	int heap_part;
	unsigned first;

	memset(j, 0, sizeof(*j));
	j->rss = x->total[PMAPS_XC_RSS];
	for (int c = 0; c < PMAPS_X_COUNT; c++)
		j->part[cat_part[c]] += x->v[c][PMAPS_XC_RSS]; /* parts of the RSS: no wrap */
	if (!g && !jv && !m)
		return;
	/*
	 * glibc's runtime heap is malloc's thread arenas: with malloc's books
	 * alone, they and [heap] are one part, whose terms malloc's figures are.
	 */
	if (m && !g && !jv && x->runtime_kind == PMAPS_RUNTIME_GLIBC) {
		j->part[JP_ANON] += j->part[JP_RUNTIME_HEAP];
		j->part[JP_RUNTIME_HEAP] = 0;
	}
	j->ok = 1; /* until a figure out of range */
	if (g)
		oldest(j, &g->h);
	if (jv)
		oldest(j, &jv->h);
	if (m)
		oldest(j, &m->h);
	/*
	 * The runtime's heap: where explain found it, else (its evidence
	 * missing) among the anonymous memory, which then takes its terms.
	 */
	heap_part = j->part[JP_RUNTIME_HEAP] ? JP_RUNTIME_HEAP : JP_ANON;
	if (heap_part == JP_RUNTIME_HEAP && (g || (jv && (jv->heap_ok || jv->nmt)))) {
		first = j->n;
		if (g) {
			join_go(j, g, JP_RUNTIME_HEAP);
			if (lazy_known)
				term(j, JP_RUNTIME_HEAP, "go_returned_resident",
				     "returned but resident (LazyFree)", "LazyFree of the Go heap",
				     JOIN_KERNEL, x->v[PMAPS_X_RUNTIME_HEAP][PMAPS_XC_LAZYFREE]);
		} else {
			join_java_heap(j, JP_RUNTIME_HEAP, jv);
		}
		rest_term(j, JP_RUNTIME_HEAP, first, "heap_unexplained", "heap neither explains",
		          "heap counted, not resident");
	} else {
		part_kernel(j, JP_RUNTIME_HEAP, "runtime_heap", "runtime heap");
	}
	/* The anonymous memory outside it. */
	first = j->n;
	if (g && heap_part == JP_ANON) {
		join_go(j, g, JP_ANON);
		if (lazy_known)
			term(j, JP_ANON, "go_returned_resident", "returned but resident (LazyFree)",
			     "LazyFree of the anonymous memory", JOIN_KERNEL,
			     x->v[PMAPS_X_ANON][PMAPS_XC_LAZYFREE]);
	}
	if (g)
		term(j, JP_ANON, "go_runtime_metadata", "runtime metadata",
		     "MSpanInuse + MCacheInuse + GCSys + BuckHashSys + OtherSys + (StackSys - StackInuse)",
		     JOIN_RUNTIME,
		     sat_add(sat_add(sat_add(g->mspan_inuse, g->mcache_inuse), sat_add(g->gc_sys,
		             g->buck_hash_sys)), sat_add(g->other_sys, sub0(g->stack_sys, g->stack_inuse))));
	if (jv && heap_part == JP_ANON)
		join_java_heap(j, JP_ANON, jv);
	if (jv && jv->nmt) {
		term(j, JP_ANON, "jvm_class", "class metadata", "NMT Class committed", JOIN_RUNTIME,
		     nmt_sum(jv, nmt_class, 0));
		term(j, JP_ANON, "jvm_code", "code cache", "NMT Code committed", JOIN_RUNTIME,
		     nmt_sum(jv, nmt_code, 0));
		term(j, JP_ANON, "jvm_gc", "GC", "NMT GC committed", JOIN_RUNTIME,
		     nmt_sum(jv, nmt_gc, 0));
		term(j, JP_ANON, "jvm_internal", "internal", "NMT Internal committed", JOIN_RUNTIME,
		     nmt_sum(jv, nmt_internal, 0));
		term(j, JP_ANON, "jvm_other", "other JVM native", "NMT's other categories committed",
		     JOIN_RUNTIME, nmt_sum(jv, NULL, 1));
	}
	if (m && !(jv && jv->nmt)) { /* NMT counts the JVM's own mallocs already */
		term(j, JP_ANON, "malloc_in_use", "malloc'd and live", "malloc_info: system - free + mmap",
		     JOIN_RUNTIME, m->in_use);
		term(j, JP_ANON, "malloc_free_held", "free held by malloc", "malloc_info: fast + rest",
		     JOIN_RUNTIME, m->free_held);
	}
	if (j->n > first)
		rest_term(j, JP_ANON, first, "anon_unexplained", "other anon",
		          "anon counted, not resident");
	else
		part_kernel(j, JP_ANON, "anon", "anon");
	/* Stacks: the JVM's threads (NMT), else the kernel's. */
	if (jv && jv->nmt) {
		first = j->n;
		term(j, JP_STACKS, "jvm_threads", "threads", "NMT Thread committed", JOIN_RUNTIME,
		     nmt_sum(jv, nmt_thread, 0));
		rest_term(j, JP_STACKS, first, "stacks_unexplained", "other stacks",
		          "thread stacks counted, not resident");
		first = j->n;
		term(j, JP_FILES, "jvm_shared_classes", "shared class archive",
		     "NMT Shared class space committed", JOIN_RUNTIME, nmt_sum(jv, nmt_cds, 0));
		rest_term(j, JP_FILES, first, "files_unexplained", "other files",
		          "class archive counted, not resident");
	} else {
		part_kernel(j, JP_STACKS, "stacks", "thread stacks");
		part_kernel(j, JP_FILES, "files", "files");
	}
	part_kernel(j, JP_SHMEM, "shmem", "shared memory");
	part_kernel(j, JP_OTHER, "other", "other");
	if (!j->ok) {
		/* Every figure of a term is at most JOIN_FIGURE_MAX, so no sum above wrapped. */
		j->why = "a figure of the runtime's passes what an address space can hold (2^57 bytes)";
		j->n = 0;
	}
}

/* ---- words ---- */

static const char *src_name(enum join_src s)
{
	return s == JOIN_KERNEL ? "kernel" : s == JOIN_RUNTIME ? "runtime" : "remainder";
}

/* H's time as HH:MM:SS (local time) into B (16 bytes). */
static const char *hms(char *b, const struct timespec *at)
{
	struct tm tm;
	time_t t = at->tv_sec;

	if (!localtime_r(&t, &tm) || !strftime(b, 16, "%H:%M:%S", &tm))
		snprintf(b, 16, "?");
	return b;
}

static const char *hu(char *b, uint64_t v)
{
	fmt_human(b, v);
	return b;
}

/* Bytes the target chose, escaped for a terminal. */
static void tstr(struct out *o, const char *s)
{
	out_table_str(o, s, strnlen(s, 4096));
}

void books_write_equation(struct out *o, const struct books_join *j)
{
	char a[24], t[16];
	int first = 1;

	out_printf(o, "RSS %s =", hu(a, j->rss));
	for (unsigned i = 0; i < j->n; i++) {
		const struct join_term *tm = &j->t[i];
		if (!tm->bytes)
			continue;
		out_printf(o, "%s%s %s", first ? " " : tm->neg ? " - " : " + ", tm->words,
		           hu(a, tm->bytes));
		if (first && tm->neg) /* a first term below zero: its sign before it */
			out_str(o, " (negative)");
		first = 0;
	}
	if (first)
		out_str(o, " 0");
	out_printf(o, " (all sums exact to the kernel; the runtime's figures as of %s)",
	           hms(t, &j->at));
}

static void head_text(struct out *o, const char *name, const struct book_head *h)
{
	char t[16];

	out_printf(o, "  %s: ", name);
	if (!h->ok) {
		out_str(o, "not read: ");
		tstr(o, h->why);
		out_str(o, "\n");
		return;
	}
	out_str(o, "from ");
	tstr(o, h->source);
	out_printf(o, ", read at %s in %llu ms\n", hms(t, &h->at),
	           (unsigned long long)(h->took_ns / 1000000));
}

/* The NMT categories, committed, as "Java Heap 64M, Class 10M, ...". */
static void nmt_text(struct out *o, const struct book_jvm *jv)
{
	char a[24];

	for (unsigned i = 0; i < jv->ncat && i < BOOK_JVM_CATS; i++) {
		if (!jv->cat[i].committed)
			continue;
		out_str(o, i ? ", " : "");
		tstr(o, jv->cat[i].name);
		out_printf(o, " %s", hu(a, jv->cat[i].committed));
	}
}

/* One environment variable as NAME=VALUE or "NAME unset". */
static void env_text(struct out *o, const char *name, const char *v, const char *sep)
{
	out_printf(o, "%s%s", sep, name);
	if (!v[0]) {
		out_str(o, " unset");
		return;
	}
	out_ch(o, '=');
	tstr(o, v);
}

void books_write_text(struct out *o, const struct books *b, const struct books_join *j)
{
	char a[24], c[24], d[24], e[24], f[24];
	int any = b->go.h.asked || b->jvm.h.asked || b->mal.h.asked;
	int part = -1;

	if (!any) {
		if (b->runtime == PMAPS_RUNTIME_GLIBC && b->run)
			out_str(o, "\nThe runtime's books: for glibc malloc's, add --malloc-books (run then puts\n"
			           "its helper in the command).\n");
		else if (b->runtime == PMAPS_RUNTIME_GLIBC)
			out_str(o, "\nThe runtime's books: glibc malloc tells its own only to a command pmaps\n"
			           "run starts (pmaps run --malloc-books -- CMD): its helper is never put in\n"
			           "another process.\n");
		return;
	}
	out_str(o, "\nThe runtime's books (its own figures: bytes it counts, resident or not):\n");
	if (b->go.h.asked) {
		const struct book_go *g = &b->go;
		head_text(o, "Go, runtime.MemStats", &g->h);
		if (g->h.ok) {
			out_printf(o, "    HeapAlloc %s (%llu objects), HeapInuse %s, HeapIdle %s, HeapReleased %s,\n",
			           hu(a, g->heap_alloc), (unsigned long long)g->heap_objects,
			           hu(c, g->heap_inuse), hu(d, g->heap_idle), hu(e, g->heap_released));
			out_printf(o, "    HeapSys %s; StackInuse %s of StackSys %s; Sys %s; NumGC %llu, ",
			           hu(a, g->heap_sys), hu(c, g->stack_inuse), hu(d, g->stack_sys),
			           hu(e, g->sys), (unsigned long long)g->num_gc);
			/* With the GC off (GOGC=off, no limit) Go's goal is about 2^63: no goal. */
			if (g->next_gc >= (uint64_t)1 << 62)
				out_str(o, "no GC goal (GC off).\n");
			else
				out_printf(o, "NextGC %s.\n", hu(f, g->next_gc));
			if (g->env_ok) {
				out_str(o, "    As the process started: ");
				env_text(o, "GOGC", g->gogc, "");
				env_text(o, "GOMEMLIMIT", g->gomemlimit, ", ");
				env_text(o, "GODEBUG", g->godebug, ", ");
				out_str(o, ".\n");
			}
		}
	}
	if (b->jvm.h.asked) {
		const struct book_jvm *jv = &b->jvm;
		head_text(o, "JVM, jcmd", &jv->h);
		if (jv->h.ok) {
			if (jv->nmt) {
				out_printf(o, "    Native Memory Tracking: %s committed of %s reserved: ",
				           hu(a, jv->committed), hu(c, jv->reserved));
				nmt_text(o, jv);
				out_str(o, ".\n");
			} else {
				out_str(o, "    ");
				tstr(o, jv->nmt_why);
				out_str(o, "\n");
			}
			if (jv->heap_ok) {
				out_str(o, "    Java heap (");
				tstr(o, jv->gc);
				out_printf(o, "): %s committed, %s in use", hu(a, jv->heap_committed),
				           hu(c, jv->heap_used));
				if (jv->meta_ok)
					out_printf(o, "; Metaspace %s used, %s committed", hu(d, jv->meta_used),
					           hu(e, jv->meta_committed));
				out_str(o, ".\n");
			} else {
				out_str(o, "    GC.heap_info: ");
				tstr(o, jv->heap_why);
				out_str(o, "\n");
			}
		}
	}
	if (b->mal.h.asked) {
		const struct book_malloc *m = &b->mal;
		head_text(o, "glibc malloc, malloc_info()", &m->h);
		if (m->h.ok) {
			char g[24];
			out_printf(o, "    Live malloc'd bytes %s, free held by malloc %s (fastbins %s, other bins\n"
			           "    and top chunks %s); %u arena%s holding %s from the kernel",
			           hu(a, m->in_use), hu(c, m->free_held), hu(d, m->fast_bytes),
			           hu(e, m->rest_bytes), m->arenas, m->arenas == 1 ? "" : "s",
			           hu(g, m->system));
			if (m->mmap_count)
				out_printf(o, ", and %llu chunk%s of their own mmap(), %s",
				           (unsigned long long)m->mmap_count, m->mmap_count == 1 ? "" : "s",
				           hu(f, m->mmap_bytes));
			out_str(o, ".\n");
			out_printf(o, "    malloc_trim() would return at most %s (the free chunks' whole pages;\n"
			           "    the main arena's top alone %s).\n", hu(a, m->free_held), hu(c, m->top));
		}
	}
	if (!j->ok) {
		if (j->why)
			out_printf(o, "\nNot joined to the kernel's figures: %s.\n", j->why);
		return;
	}
	out_str(o, "\nJoined to the kernel's figures (each part's lines add up to its RSS):\n");
	for (unsigned i = 0; i < j->n; i++) {
		const struct join_term *t = &j->t[i];
		size_t n;
		if (t->part != part) {
			part = t->part;
			/* A part of the runtime's terms gets a heading with the kernel's figure. */
			if (t->src != JOIN_KERNEL || (i + 1 < j->n && j->t[i + 1].part == part)) {
				out_str(o, "  ");
				out_ljust(o, part_name[part], strlen(part_name[part]), 36);
				n = fmt_human(a, j->part[part]);
				out_rjust(o, a, n, 7);
				out_str(o, "  kernel\n");
			}
		}
		if (t->src == JOIN_KERNEL && t->bytes == j->part[part] &&
		    !(i + 1 < j->n && j->t[i + 1].part == part) && !(i && j->t[i - 1].part == part)) {
			/* A part the books do not split: the kernel's figure alone. */
			out_str(o, "  ");
			out_ljust(o, t->words, strlen(t->words), 36);
			n = fmt_human(a, t->bytes);
			out_rjust(o, a, n, 7);
			out_str(o, "  kernel\n");
			continue;
		}
		out_str(o, "    ");
		out_ljust(o, t->words, strlen(t->words), 34);
		n = fmt_human(a + 1, t->bytes);
		if (t->neg)
			a[0] = '-';
		out_rjust(o, t->neg ? a : a + 1, n + (t->neg != 0), 7);
		out_str(o, "  ");
		out_ljust(o, src_name(t->src), strlen(src_name(t->src)), 10);
		out_str(o, t->how);
		out_ch(o, '\n');
	}
	if (b->mal.h.ok && b->jvm.h.ok && b->jvm.nmt)
		out_str(o, "  (malloc's books are not joined: NMT's categories count the JVM's mallocs.)\n");
	out_ch(o, '\n');
	books_write_equation(o, j);
	out_ch(o, '\n');
}

/* ---- JSON ---- */

static void jkey_u64(struct out *o, const char *key, uint64_t v)
{
	out_ch(o, ',');
	out_ch(o, '"');
	out_str(o, key);
	KEY(o, "\":");
	out_u64(o, v);
}

/* "KEY":"bytes the target chose" (always valid UTF-8; KEY_hex beside when not). */
static void jkey_str(struct out *o, const char *key, const char *s)
{
	out_ch(o, ',');
	out_json_named(o, key, strlen(key), s, strnlen(s, 4096));
}

/* The time as 2026-12-01T14:03:22.123Z. */
static void jkey_at(struct out *o, const char *key, const struct timespec *at)
{
	struct tm tm;
	char b[40];
	time_t t = at->tv_sec;

	if (!gmtime_r(&t, &tm) || !strftime(b, sizeof(b), "%Y-%m-%dT%H:%M:%S", &tm))
		snprintf(b, sizeof(b), "?");
	out_printf(o, ",\"%s\":\"%s.%03ldZ\"", key, b, at->tv_nsec / 1000000);
}

/* {"ok":...,"source","at","took_ms" or "why"; the book's figures follow when ok. */
static int head_json(struct out *o, const struct book_head *h)
{
	if (!h->ok) {
		KEY(o, "{\"ok\":false");
		jkey_str(o, "why", h->why);
		return 0;
	}
	KEY(o, "{\"ok\":true");
	jkey_str(o, "source", h->source);
	jkey_at(o, "at", &h->at);
	out_printf(o, ",\"took_ms\":%.3f", (double)h->took_ns / 1e6);
	return 1;
}

void books_write_json(struct out *o, const struct books *b, const struct books_join *j)
{
	const char *sep = "";

	out_ch(o, '{');
	if (b->go.h.asked) {
		const struct book_go *g = &b->go;
		KEY(o, "\"go\":");
		if (head_json(o, &g->h)) {
			jkey_u64(o, "heap_alloc", g->heap_alloc);
			jkey_u64(o, "heap_sys", g->heap_sys);
			jkey_u64(o, "heap_idle", g->heap_idle);
			jkey_u64(o, "heap_inuse", g->heap_inuse);
			jkey_u64(o, "heap_released", g->heap_released);
			jkey_u64(o, "heap_objects", g->heap_objects);
			jkey_u64(o, "stack_inuse", g->stack_inuse);
			jkey_u64(o, "stack_sys", g->stack_sys);
			jkey_u64(o, "mspan_inuse", g->mspan_inuse);
			jkey_u64(o, "mspan_sys", g->mspan_sys);
			jkey_u64(o, "mcache_inuse", g->mcache_inuse);
			jkey_u64(o, "mcache_sys", g->mcache_sys);
			jkey_u64(o, "buck_hash_sys", g->buck_hash_sys);
			jkey_u64(o, "gc_sys", g->gc_sys);
			jkey_u64(o, "other_sys", g->other_sys);
			jkey_u64(o, "sys", g->sys);
			jkey_u64(o, "total_alloc", g->total_alloc);
			jkey_u64(o, "next_gc", g->next_gc);
			jkey_u64(o, "num_gc", g->num_gc);
			if (g->last_gc_ns) {
				struct timespec lg = {(time_t)(g->last_gc_ns / 1000000000u),
				                      (long)(g->last_gc_ns % 1000000000u)};
				jkey_at(o, "last_gc", &lg);
			}
		}
		if (g->h.ok && g->env_ok) {
			KEY(o, ",\"env\":{");
			out_json_named(o, "GOGC", 4, g->gogc, strnlen(g->gogc, sizeof(g->gogc)));
			out_ch(o, ',');
			out_json_named(o, "GOMEMLIMIT", 10, g->gomemlimit,
			               strnlen(g->gomemlimit, sizeof(g->gomemlimit)));
			out_ch(o, ',');
			out_json_named(o, "GODEBUG", 7, g->godebug, strnlen(g->godebug, sizeof(g->godebug)));
			out_ch(o, '}');
		}
		out_ch(o, '}');
		sep = ",";
	}
	if (b->jvm.h.asked) {
		const struct book_jvm *jv = &b->jvm;
		out_str(o, sep);
		KEY(o, "\"jvm\":");
		if (head_json(o, &jv->h)) {
			out_printf(o, ",\"nmt\":%s", jv->nmt ? "true" : "false");
			if (jv->nmt) {
				jkey_u64(o, "reserved", jv->reserved);
				jkey_u64(o, "committed", jv->committed);
				KEY(o, ",\"categories\":[");
				for (unsigned i = 0; i < jv->ncat && i < BOOK_JVM_CATS; i++) {
					out_str(o, i ? ",{" : "{");
					out_json_named(o, "name", 4, jv->cat[i].name,
					               strnlen(jv->cat[i].name, sizeof(jv->cat[i].name)));
					jkey_u64(o, "reserved", jv->cat[i].reserved);
					jkey_u64(o, "committed", jv->cat[i].committed);
					out_ch(o, '}');
				}
				out_ch(o, ']');
			} else {
				jkey_str(o, "nmt_why", jv->nmt_why);
			}
			if (jv->heap_ok) {
				jkey_str(o, "gc", jv->gc);
				jkey_u64(o, "heap_committed", jv->heap_committed);
				jkey_u64(o, "heap_used", jv->heap_used);
			} else {
				jkey_str(o, "heap_why", jv->heap_why);
			}
			if (jv->meta_ok) {
				jkey_u64(o, "metaspace_used", jv->meta_used);
				jkey_u64(o, "metaspace_committed", jv->meta_committed);
				jkey_u64(o, "metaspace_reserved", jv->meta_reserved);
			}
		}
		out_ch(o, '}');
		sep = ",";
	}
	if (b->mal.h.asked) {
		const struct book_malloc *m = &b->mal;
		out_str(o, sep);
		KEY(o, "\"malloc\":");
		if (head_json(o, &m->h)) {
			jkey_u64(o, "arenas", m->arenas);
			jkey_u64(o, "system", m->system);
			jkey_u64(o, "in_use", m->in_use);
			jkey_u64(o, "free_held", m->free_held);
			jkey_u64(o, "fast_count", m->fast_count);
			jkey_u64(o, "fast_bytes", m->fast_bytes);
			jkey_u64(o, "rest_count", m->rest_count);
			jkey_u64(o, "rest_bytes", m->rest_bytes);
			jkey_u64(o, "mmap_count", m->mmap_count);
			jkey_u64(o, "mmap_bytes", m->mmap_bytes);
			jkey_u64(o, "top", m->top);
		}
		out_ch(o, '}');
		sep = ",";
	}
	if (!j->ok && j->why) {
		out_str(o, sep);
		KEY(o, "\"join\":{\"ok\":false,\"why\":\"");
		out_str(o, j->why);
		KEY(o, "\"}");
	} else if (j->ok) {
		out_str(o, sep);
		KEY(o, "\"join\":{\"ok\":true,\"rss\":");
		out_u64(o, j->rss);
		jkey_at(o, "as_of", &j->at);
		KEY(o, ",\"parts\":{");
		for (int p = 0; p < JP_COUNT; p++)
			out_printf(o, "%s\"%s\":%llu", p ? "," : "", part_name[p],
			           (unsigned long long)j->part[p]);
		KEY(o, "},\"terms\":[");
		for (unsigned i = 0; i < j->n; i++) {
			const struct join_term *t = &j->t[i];
			out_printf(o, "%s{\"key\":\"%s\",\"words\":\"%s\",\"how\":\"%s\",\"source\":\"%s\","
			           "\"part\":\"%s\",\"bytes\":%s%llu}", i ? "," : "", t->key, t->words,
			           t->how, src_name(t->src), part_name[t->part], t->neg ? "-" : "",
			           (unsigned long long)t->bytes);
		}
		KEY(o, "]}");
	}
	out_ch(o, '}');
}
