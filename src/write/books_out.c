/* SPDX-License-Identifier: MIT */
/*
 * books_out.c - the runtime's books and their join in words: explain's
 * section of text (each book's figures, the join's lines part by part, the
 * equation) and JSON's "runtime_books". The figures, the terms and their
 * sums are the library's (pmaps_books_parse(), pmaps_books_join()); this
 * file chooses words and layout only.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "common/escape.h"
#include "common/out.h"
#include "write/books_out.h"

#define KEY(o, lit) out_mem(o, lit, sizeof(lit) - 1)

/* B's figure V (0 when absent: the writers ask pmaps_books_has() where it matters). */
#define FIG(bk, name) ((bk)->b.v[PMAPS_BV_##name])

/* The words of each term in the table and the equation; a remainder's below zero apart. */
static const struct {
	const char *words, *words_neg;
} term_words[PMAPS_JK_COUNT] = {
	[PMAPS_JK_GO_LIVE_OBJECTS] = {"Go live objects", NULL},
	[PMAPS_JK_GO_SPAN_SLACK] = {"span slack", NULL},
	[PMAPS_JK_GO_HELD_FREE] = {"held free", NULL},
	[PMAPS_JK_GO_STACKS] = {"goroutine stacks", NULL},
	[PMAPS_JK_GO_RETURNED_RESIDENT] = {"returned but resident (LazyFree)", NULL},
	[PMAPS_JK_GO_RUNTIME_METADATA] = {"runtime metadata", NULL},
	[PMAPS_JK_JAVA_HEAP_USED] = {"Java heap in use", NULL},
	[PMAPS_JK_JAVA_HEAP_FREE] = {"Java heap committed, free", NULL},
	[PMAPS_JK_JAVA_HEAP] = {"Java heap committed", NULL},
	[PMAPS_JK_JVM_CLASS] = {"class metadata", NULL},
	[PMAPS_JK_JVM_CODE] = {"code cache", NULL},
	[PMAPS_JK_JVM_GC] = {"GC", NULL},
	[PMAPS_JK_JVM_INTERNAL] = {"internal", NULL},
	[PMAPS_JK_JVM_OTHER] = {"other JVM native", NULL},
	[PMAPS_JK_JVM_THREADS] = {"threads", NULL},
	[PMAPS_JK_JVM_SHARED_CLASSES] = {"shared class archive", NULL},
	[PMAPS_JK_MALLOC_IN_USE] = {"malloc'd and live", NULL},
	[PMAPS_JK_MALLOC_FREE_HELD] = {"free held by malloc", NULL},
	[PMAPS_JK_HEAP_UNEXPLAINED] = {"heap neither explains", "heap counted, not resident"},
	[PMAPS_JK_ANON_UNEXPLAINED] = {"other anon", "anon counted, not resident"},
	[PMAPS_JK_STACKS_UNEXPLAINED] = {"other stacks", "thread stacks counted, not resident"},
	[PMAPS_JK_FILES_UNEXPLAINED] = {"other files", "class archive counted, not resident"},
	[PMAPS_JK_RUNTIME_HEAP] = {"runtime heap", NULL},
	[PMAPS_JK_ANON] = {"anon", NULL},
	[PMAPS_JK_STACKS] = {"thread stacks", NULL},
	[PMAPS_JK_FILES] = {"files", NULL},
	[PMAPS_JK_SHMEM] = {"shared memory", NULL},
	[PMAPS_JK_OTHER] = {"other", NULL},
};

static const char *words(const struct pmaps_join_term *t)
{
	if ((unsigned)t->key >= PMAPS_JK_COUNT)
		return "?";
	return t->neg && term_words[t->key].words_neg ? term_words[t->key].words_neg
	                                              : term_words[t->key].words;
}

/* A time (ns since the epoch) as HH:MM:SS (local time) into B (16 bytes). */
static const char *hms(char *b, uint64_t at_ns)
{
	struct tm tm;
	time_t t = (time_t)(at_ns / 1000000000u);

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
static void tstr(struct out *o, const char *s, size_t max)
{
	out_table_str(o, s, strnlen(s, max));
}

int books_asked(const struct books *b)
{
	for (int k = 0; k < PMAPS_BOOK_COUNT; k++)
		if (b->b.head[k].asked)
			return 1;
	return 0;
}

const char *books_refusal_words(const struct pmaps_join *j, char *buf, size_t size)
{
	char a[24], c[24];

	switch (j->refused) {
	case PMAPS_JOIN_RANGE:
		snprintf(buf, size, "a figure of the runtime's passes what an address space can hold "
		         "(2^57 bytes)");
		return buf;
	case PMAPS_JOIN_SKEW:
		snprintf(buf, size, "the books and the kernel's figures were read %llu ms apart, more "
		         "than the %llu ms a join allows",
		         (unsigned long long)(j->skew_ns / 1000000u),
		         (unsigned long long)(j->max_skew_ns / 1000000u));
		return buf;
	case PMAPS_JOIN_MOVED:
		snprintf(buf, size, "the process's RSS moved by %s between its books and the kernel's "
		         "figures (a join allows %s)", hu(a, j->moved), hu(c, j->max_moved));
		return buf;
	default:
		return NULL;
	}
}

void books_write_equation(struct out *o, const struct pmaps_join *j)
{
	char a[24], t[16];
	int first = 1;

	out_printf(o, "RSS %s =", hu(a, j->rss));
	for (unsigned i = 0; i < j->nterms && i < PMAPS_JOIN_TERMS; i++) {
		const struct pmaps_join_term *tm = &j->term[i];
		if (!tm->bytes)
			continue;
		out_printf(o, "%s%s %s", first ? " " : tm->neg ? " - " : " + ", words(tm),
		           hu(a, tm->bytes));
		if (first && tm->neg) /* a first term below zero: its sign before it */
			out_str(o, " (negative)");
		first = 0;
	}
	if (first)
		out_str(o, " 0");
	out_printf(o, " (all sums exact to the kernel; the runtime's figures as of %s)",
	           hms(t, j->as_of_ns));
}

/* "  NAME: from SOURCE, read at HH:MM:SS in N ms" or "  NAME: not read: WHY". 1 when read. */
static int head_text(struct out *o, const char *name, const struct pmaps_book_head *h)
{
	char t[16];

	out_printf(o, "  %s: ", name);
	if (!h->ok) {
		out_str(o, "not read: ");
		tstr(o, h->why, sizeof(h->why));
		out_str(o, "\n");
		return 0;
	}
	out_str(o, "from ");
	tstr(o, h->source, sizeof(h->source));
	out_printf(o, ", read at %s in %llu ms\n", hms(t, h->at_ns),
	           (unsigned long long)((h->end_ns - h->start_ns) / 1000000u));
	return 1;
}

/* One environment variable as NAME=VALUE or "NAME unset". */
static void env_text(struct out *o, const char *name, const char *v, size_t max,
                     const char *sep)
{
	out_printf(o, "%s%s", sep, name);
	if (!v[0]) {
		out_str(o, " unset");
		return;
	}
	out_ch(o, '=');
	tstr(o, v, max);
}

static void go_text(struct out *o, const struct books *b)
{
	const struct pmaps_books *k = &b->b;
	char a[24], c[24], d[24], e[24], f[24];

	if (!head_text(o, "Go, runtime.MemStats", &k->head[PMAPS_BOOK_GO]))
		return;
	out_printf(o, "    HeapAlloc %s (%llu objects), HeapInuse %s, HeapIdle %s, HeapReleased %s,\n",
	           hu(a, FIG(b, GO_HEAP_ALLOC)), (unsigned long long)FIG(b, GO_HEAP_OBJECTS),
	           hu(c, FIG(b, GO_HEAP_INUSE)), hu(d, FIG(b, GO_HEAP_IDLE)),
	           hu(e, FIG(b, GO_HEAP_RELEASED)));
	out_printf(o, "    HeapSys %s; StackInuse %s of StackSys %s; Sys %s; NumGC %llu, ",
	           hu(a, FIG(b, GO_HEAP_SYS)), hu(c, FIG(b, GO_STACK_INUSE)),
	           hu(d, FIG(b, GO_STACK_SYS)), hu(e, FIG(b, GO_SYS)),
	           (unsigned long long)FIG(b, GO_NUM_GC));
	/* With the GC off (GOGC=off, no limit) Go's goal is about 2^63: no goal. */
	if (FIG(b, GO_NEXT_GC) >= (uint64_t)1 << 62)
		out_str(o, "no GC goal (GC off).\n");
	else
		out_printf(o, "NextGC %s.\n", hu(f, FIG(b, GO_NEXT_GC)));
	if (k->go_env) {
		out_str(o, "    As the process started: ");
		env_text(o, "GOGC", k->go_gogc, sizeof(k->go_gogc), "");
		env_text(o, "GOMEMLIMIT", k->go_gomemlimit, sizeof(k->go_gomemlimit), ", ");
		env_text(o, "GODEBUG", k->go_godebug, sizeof(k->go_godebug), ", ");
		out_str(o, ".\n");
	}
}

static void jvm_text(struct out *o, const struct books *b)
{
	const struct pmaps_books *k = &b->b;
	const struct pmaps_book_head *hh = &k->head[PMAPS_BOOK_JVM_HEAP];
	const struct pmaps_book_head *hn = &k->head[PMAPS_BOOK_JVM_NMT];
	char a[24], c[24], d[24], e[24];

	/* jcmd not run at all (or failing both alike): one line says why. */
	if (!hh->ok && !hn->ok && strcmp(hh->why, hn->why) == 0) {
		head_text(o, "JVM, jcmd", hh);
		return;
	}
	if (head_text(o, "JVM, GC.heap_info", hh)) {
		out_str(o, "    Java heap (");
		tstr(o, k->jvm_gc, sizeof(k->jvm_gc));
		out_printf(o, "): %s committed, %s in use", hu(a, FIG(b, JVM_HEAP_COMMITTED)),
		           hu(c, FIG(b, JVM_HEAP_USED)));
		if (pmaps_books_has(k, PMAPS_BV_JVM_METASPACE_USED))
			out_printf(o, "; Metaspace %s used, %s committed",
			           hu(d, FIG(b, JVM_METASPACE_USED)), hu(e, FIG(b, JVM_METASPACE_COMMITTED)));
		out_str(o, ".\n");
	}
	if (!head_text(o, "JVM, Native Memory Tracking", hn))
		return;
	if (k->jvm_nmt == PMAPS_NMT_OFF) {
		out_str(o, "    It is off: start the JVM with -XX:NativeMemoryTracking=summary.\n");
		return;
	}
	if (k->jvm_nmt == PMAPS_NMT_SHUT_DOWN) {
		out_str(o, "    It was shut down (jcmd VM.native_memory shutdown): restart the JVM to "
		           "track again.\n");
		return;
	}
	out_printf(o, "    %s committed of %s reserved: ", hu(a, FIG(b, JVM_NMT_COMMITTED)),
	           hu(c, FIG(b, JVM_NMT_RESERVED)));
	for (unsigned i = 0, n = 0; i < k->jvm_ncat && i < PMAPS_NMT_MAX; i++) {
		if (!k->jvm_cat[i].committed)
			continue;
		out_str(o, n++ ? ", " : "");
		tstr(o, k->jvm_cat[i].name, sizeof(k->jvm_cat[i].name));
		out_printf(o, " %s", hu(a, k->jvm_cat[i].committed));
	}
	out_str(o, ".\n");
}

static void malloc_text(struct out *o, const struct books *b)
{
	char a[24], c[24], d[24], e[24], f[24], g[24];
	uint64_t arenas = FIG(b, MALLOC_ARENAS), mmaps = FIG(b, MALLOC_MMAP_COUNT);

	if (!head_text(o, "glibc malloc, malloc_info()", &b->b.head[PMAPS_BOOK_MALLOC]))
		return;
	out_printf(o, "    Live malloc'd bytes %s, free held by malloc %s (fastbins %s, other bins\n"
	           "    and top chunks %s); %llu arena%s holding %s from the kernel",
	           hu(a, FIG(b, MALLOC_IN_USE)), hu(c, FIG(b, MALLOC_FREE_HELD)),
	           hu(d, FIG(b, MALLOC_FAST_BYTES)), hu(e, FIG(b, MALLOC_REST_BYTES)),
	           (unsigned long long)arenas, arenas == 1 ? "" : "s", hu(g, FIG(b, MALLOC_SYSTEM)));
	if (mmaps)
		out_printf(o, ", and %llu chunk%s of their own mmap(), %s", (unsigned long long)mmaps,
		           mmaps == 1 ? "" : "s", hu(f, FIG(b, MALLOC_MMAP_BYTES)));
	out_str(o, ".\n");
	out_printf(o, "    malloc_trim() would return at most %s (the free chunks' whole pages;\n"
	           "    the main arena's top alone %s).\n", hu(a, FIG(b, MALLOC_FREE_HELD)),
	           hu(c, FIG(b, MALLOC_TOP)));
}

/* The join's lines, part by part: a part the books split gets a heading, its lines below. */
static void join_text(struct out *o, const struct pmaps_join *j)
{
	char a[24];
	int part = -1;

	out_str(o, "\nJoined to the kernel's figures (each part's lines add up to its RSS):\n");
	for (unsigned i = 0; i < j->nterms && i < PMAPS_JOIN_TERMS; i++) {
		const struct pmaps_join_term *t = &j->term[i];
		const char *w = words(t), *src = pmaps_join_src_key(t->src);
		const char *pk = pmaps_join_part_key(t->part);
		int alone = t->src == PMAPS_JS_KERNEL && t->bytes == j->part[t->part] &&
		            !(i + 1 < j->nterms && j->term[i + 1].part == t->part) &&
		            !(i && j->term[i - 1].part == t->part);
		size_t n;

		if (!src || !pk)
			continue;
		if ((int)t->part != part) {
			part = (int)t->part;
			if (!alone) {
				out_str(o, "  ");
				out_ljust(o, pk, strlen(pk), 36);
				n = fmt_human(a, j->part[part]);
				out_rjust(o, a, n, 7);
				out_str(o, "  kernel\n");
			}
		}
		if (alone) {
			/* A part the books do not split: the kernel's figure alone. */
			out_str(o, "  ");
			out_ljust(o, w, strlen(w), 36);
			n = fmt_human(a, t->bytes);
			out_rjust(o, a, n, 7);
			out_str(o, "  kernel\n");
			continue;
		}
		out_str(o, "    ");
		out_ljust(o, w, strlen(w), 34);
		n = fmt_human(a + 1, t->bytes);
		if (t->neg)
			a[0] = '-';
		out_rjust(o, t->neg ? a : a + 1, n + (t->neg != 0), 7);
		out_str(o, "  ");
		out_ljust(o, src, strlen(src), 10);
		out_str(o, pmaps_join_term_how(t));
		out_ch(o, '\n');
	}
}

void books_write_text(struct out *o, const struct books *b, const struct pmaps_join *j)
{
	const struct pmaps_books *k = &b->b;
	char why[200];

	if (!books_asked(b)) {
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
	if (k->head[PMAPS_BOOK_GO].asked)
		go_text(o, b);
	if (k->head[PMAPS_BOOK_JVM_HEAP].asked || k->head[PMAPS_BOOK_JVM_NMT].asked)
		jvm_text(o, b);
	if (k->head[PMAPS_BOOK_MALLOC].asked)
		malloc_text(o, b);
	if (!j->ok) {
		if (books_refusal_words(j, why, sizeof(why)))
			out_printf(o, "\nNot joined to the kernel's figures: %s.\n", why);
		return;
	}
	join_text(o, j);
	if (k->head[PMAPS_BOOK_MALLOC].ok && k->head[PMAPS_BOOK_JVM_NMT].ok &&
	    k->jvm_nmt == PMAPS_NMT_ON)
		out_str(o, "  (malloc's books are not joined: NMT's categories count the JVM's mallocs.)\n");
	out_ch(o, '\n');
	books_write_equation(o, j);
	out_ch(o, '\n');
}

/* ---- JSON ---- */

/* ,"KEY":"2026-12-01T14:03:22.123Z" of a time in ns since the epoch. */
static void jkey_at(struct out *o, const char *key, uint64_t ns)
{
	struct tm tm;
	char b[40];
	time_t t = (time_t)(ns / 1000000000u);

	if (!gmtime_r(&t, &tm) || !strftime(b, sizeof(b), "%Y-%m-%dT%H:%M:%S", &tm))
		snprintf(b, sizeof(b), "?");
	out_printf(o, ",\"%s\":\"%s.%03uZ\"", key, b, (unsigned)(ns % 1000000000u / 1000000u));
}

/* "KEY":"bytes the target chose" (always valid UTF-8; KEY_hex beside when not). */
static void jkey_str(struct out *o, const char *key, const char *s, size_t max)
{
	out_ch(o, ',');
	out_json_named(o, key, strlen(key), s, strnlen(s, max));
}

/* Milliseconds with three decimals, from nanoseconds: exact, no float. */
static void jkey_ms(struct out *o, const char *key, uint64_t ns)
{
	out_printf(o, ",\"%s\":%llu.%03llu", key, (unsigned long long)(ns / 1000000u),
	           (unsigned long long)(ns % 1000000u / 1000u));
}

/* Book K's object: its head, and when read its figures by key and what else it holds. */
static void book_json(struct out *o, const struct pmaps_books *b, enum pmaps_book k)
{
	const struct pmaps_book_head *h = &b->head[k];

	out_ch(o, '"');
	out_str(o, pmaps_book_key(k));
	KEY(o, "\":");
	if (!h->ok) {
		KEY(o, "{\"ok\":false");
		jkey_str(o, "why", h->why, sizeof(h->why));
		out_ch(o, '}');
		return;
	}
	KEY(o, "{\"ok\":true");
	jkey_str(o, "source", h->source, sizeof(h->source));
	jkey_at(o, "at", h->at_ns);
	jkey_ms(o, "took_ms", h->end_ns - h->start_ns);
	if (k == PMAPS_BOOK_JVM_HEAP)
		jkey_str(o, "gc", b->jvm_gc, sizeof(b->jvm_gc));
	if (k == PMAPS_BOOK_JVM_NMT) {
		KEY(o, ",\"nmt\":\"");
		out_str(o, pmaps_nmt_state_key((enum pmaps_nmt_state)b->jvm_nmt));
		out_ch(o, '"');
	}
	for (int v = 0; v < PMAPS_BV_COUNT; v++) {
		if (pmaps_book_value_book((enum pmaps_book_value)v) != (int)k ||
		    !pmaps_books_has(b, (enum pmaps_book_value)v))
			continue;
		if (pmaps_book_value_unit((enum pmaps_book_value)v) == PMAPS_BU_TIME_NS) {
			jkey_at(o, pmaps_book_value_key((enum pmaps_book_value)v), b->v[v]);
			continue;
		}
		out_printf(o, ",\"%s\":", pmaps_book_value_key((enum pmaps_book_value)v));
		out_u64(o, b->v[v]);
	}
	if (k == PMAPS_BOOK_GO && b->go_env) {
		KEY(o, ",\"env\":{");
		out_json_named(o, "GOGC", 4, b->go_gogc, strnlen(b->go_gogc, sizeof(b->go_gogc)));
		out_ch(o, ',');
		out_json_named(o, "GOMEMLIMIT", 10, b->go_gomemlimit,
		               strnlen(b->go_gomemlimit, sizeof(b->go_gomemlimit)));
		out_ch(o, ',');
		out_json_named(o, "GODEBUG", 7, b->go_godebug, strnlen(b->go_godebug,
		                                                        sizeof(b->go_godebug)));
		out_ch(o, '}');
	}
	if (k == PMAPS_BOOK_JVM_NMT && b->jvm_nmt == PMAPS_NMT_ON) {
		KEY(o, ",\"categories\":[");
		for (unsigned i = 0; i < b->jvm_ncat && i < PMAPS_NMT_MAX; i++) {
			const struct pmaps_nmt_category *c = &b->jvm_cat[i];
			out_str(o, i ? ",{" : "{");
			out_json_named(o, "name", 4, c->name, strnlen(c->name, sizeof(c->name)));
			KEY(o, ",\"reserved\":");
			out_u64(o, c->reserved);
			KEY(o, ",\"committed\":");
			out_u64(o, c->committed);
			out_ch(o, '}');
		}
		out_ch(o, ']');
	}
	out_ch(o, '}');
}

void books_write_json(struct out *o, const struct books *b, const struct pmaps_join *j)
{
	const char *sep = "";

	out_ch(o, '{');
	for (int k = 0; k < PMAPS_BOOK_COUNT; k++) {
		if (!b->b.head[k].asked)
			continue;
		out_str(o, sep);
		book_json(o, &b->b, (enum pmaps_book)k);
		sep = ",";
	}
	out_str(o, sep);
	KEY(o, "\"join\":{\"ok\":");
	out_str(o, j->ok ? "true" : "false");
	if (!j->ok) {
		KEY(o, ",\"refused\":\"");
		out_str(o, pmaps_join_refusal_key(j->refused));
		out_ch(o, '"');
	}
	if (j->refused != PMAPS_JOIN_NONE) {
		jkey_at(o, "as_of", j->as_of_ns);
		jkey_ms(o, "skew_ms", j->skew_ns);
		jkey_ms(o, "max_skew_ms", j->max_skew_ns);
		KEY(o, ",\"moved\":");
		out_u64(o, j->moved);
		KEY(o, ",\"max_moved\":");
		out_u64(o, j->max_moved);
	}
	if (j->ok) {
		KEY(o, ",\"rss\":");
		out_u64(o, j->rss);
		KEY(o, ",\"parts\":{");
		for (int p = 0; p < PMAPS_JP_COUNT; p++)
			out_printf(o, "%s\"%s\":%llu", p ? "," : "",
			           pmaps_join_part_key((enum pmaps_join_part)p),
			           (unsigned long long)j->part[p]);
		KEY(o, "},\"terms\":[");
		for (unsigned i = 0; i < j->nterms && i < PMAPS_JOIN_TERMS; i++) {
			const struct pmaps_join_term *t = &j->term[i];
			out_printf(o, "%s{\"key\":\"%s\",\"how\":\"%s\",\"source\":\"%s\",\"part\":\"%s\","
			           "\"bytes\":%s%llu}", i ? "," : "", pmaps_join_key(t->key),
			           pmaps_join_term_how(t), pmaps_join_src_key(t->src),
			           pmaps_join_part_key(t->part), t->neg ? "-" : "",
			           (unsigned long long)t->bytes);
		}
		out_ch(o, ']');
	}
	KEY(o, "}}");
}
