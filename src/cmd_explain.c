/* SPDX-License-Identifier: MIT */
/*
 * cmd_explain.c - `pmaps explain PID`: where the RSS is, in numbers that add
 * up to what the kernel reports, and notes on why a heap profiler shows less.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "tool.h"

static const char explain_usage[] =
	"Usage: pmaps explain [OPTIONS] PID\n"
	"\n"
	"Explain where the resident memory (RSS) of process PID (a number, or 'self')\n"
	"is: by category (heap, anonymous mmap, thread stacks, file code and data,\n"
	"shared memory, ...) and state (private dirty or clean, shared, lazily freed,\n"
	"huge pages, locked, swapped), reconciled with smaps_rollup and status, with\n"
	"the largest mappings and notes on the usual gaps to a heap profile.\n"
	"\n"
	"Options:\n"
	"  -j, --json             JSON for programs (bytes)\n"
	"      --pages            also walk every mapping's pages: per category, resident,\n"
	"                         zero-page and (as root) dirty, lazily freed, shared and\n"
	"                         THP pages\n"
	"  -v, --verbose          show the evidence behind each rule\n"
	"      --proc-root DIR    read DIR/PID instead of /proc/PID\n"
	"  -h, --help             show this help\n"
	"\n"
	"Exit status: 0 on success, 1 when the process cannot be read, 2 on a usage error.\n";

static const char *const col_keys[PMAPS_XC_COUNT] = {
	"rss", "private_dirty", "private_clean", "shared", "lazy_free", "thp", "locked",
	"swap", "pss", "swap_pss", "shared_clean"};
static const char *const col_titles[] = {"Rss", "PrDirty", "PrClean", "Shared", "LazyFree",
                                         "THP", "Locked", "Swap"};

/*
 * S, which holds bytes the target chose, through the text escape into B
 * (at least 4 * strlen(S) + 4 bytes for all of it): a terminal sees data.
 */
static const char *esc(char *b, size_t size, const char *s)
{
	esc_text(b, size, s, strlen(s));
	return b;
}

static void h(char *b, uint64_t v)
{
	fmt_human(b, v);
}

static void explain_json(struct out *o, const struct pmaps_explain *x, int pid, int kthread)
{
	out_str(o, "{\"pmaps_version\":\"" PMAPS_VERSION "\",\"pid\":");
	out_u64(o, (uint64_t)pid);
	if (kthread)
		out_str(o, ",\"kernel_thread\":true");
	out_key_u64(o, ",\"rss\":", x->total[PMAPS_XC_RSS]);
	out_key_u64(o, ",\"effective_rss\":", x->total[PMAPS_XC_RSS] - x->total[PMAPS_XC_LAZYFREE]);
	out_key_u64(o, ",\"pss\":", x->total[PMAPS_XC_PSS]);
	out_key_u64(o, ",\"uss\":", x->total[PMAPS_XC_PRIVATE_DIRTY] + x->total[PMAPS_XC_PRIVATE_CLEAN]);
	out_key_u64(o, ",\"swap\":", x->total[PMAPS_XC_SWAP]);
	out_key_u64(o, ",\"swap_pss\":", x->total[PMAPS_XC_SWAP_PSS]);
	out_key_u64(o, ",\"mappings\":", x->nmappings);
	if (x->status.present) {
		out_key_u64(o, ",\"status\":{\"vm_rss\":", x->status.v[PMAPS_ST_VM_RSS]);
		out_key_u64(o, ",\"rss_anon\":", x->status.v[PMAPS_ST_RSS_ANON]);
		out_key_u64(o, ",\"rss_file\":", x->status.v[PMAPS_ST_RSS_FILE]);
		out_key_u64(o, ",\"rss_shmem\":", x->status.v[PMAPS_ST_RSS_SHMEM]);
		out_key_u64(o, ",\"vm_hwm\":", x->status.v[PMAPS_ST_VM_HWM]);
		out_key_u64(o, ",\"vm_pte\":", x->status.v[PMAPS_ST_VM_PTE]);
		out_key_u64(o, ",\"vm_swap\":", x->status.v[PMAPS_ST_VM_SWAP]);
		out_ch(o, '}');
	}
	if (x->have_rollup) {
		out_key_u64(o, ",\"smaps_rollup\":{\"rss\":", x->rollup[PMAPS_F_RSS]);
		out_key_u64(o, ",\"pss\":", x->rollup[PMAPS_F_PSS]);
		out_key_u64(o, ",\"lazy_free\":", x->rollup[PMAPS_F_LAZY_FREE]);
		out_key_u64(o, ",\"swap\":", x->rollup[PMAPS_F_SWAP]);
		out_ch(o, '}');
	}
	if (x->runtime_kind != PMAPS_RUNTIME_NONE) {
		out_str(o, ",\"runtime\":{\"name\":\"");
		out_str(o, pmaps_runtime_name(x->runtime_kind));
		out_str(o, "\",");
		out_json_named(o, "version", x->runtime_version, strlen(x->runtime_version));
		out_ch(o, ',');
		out_json_named(o, "evidence", x->runtime_evidence, strlen(x->runtime_evidence));
		if (x->runtime_kind == PMAPS_RUNTIME_GO) {
			out_key_u64(o, ",\"heap_labels\":", x->go_labels);
		}
		if (x->jvm_heap_end) {
			out_key_u64(o, ",\"heap_start\":", x->jvm_heap_start);
			out_key_u64(o, ",\"heap_end\":", x->jvm_heap_end);
		}
		out_ch(o, '}');
	}
	out_key_u64(o, ",\"glibc_arenas\":", x->arenas);
	out_key_u64(o, ",\"threads\":{\"count\":", x->threads);
	out_key_u64(o, ",\"stacks_found\":", x->stacks_found);
	out_key_u64(o, ",\"stacks_guessed\":", x->stacks_guessed);
	out_str(o, "},\"categories\":[");
	for (int k = 0, first = 1; k < PMAPS_X_COUNT; k++) {
		if (!x->mappings[k])
			continue;
		out_str(o, first ? "\n{\"category\":\"" : ",\n{\"category\":\"");
		first = 0;
		out_str(o, pmaps_xcat_name((enum pmaps_xcat)k));
		out_key_u64(o, "\",\"mappings\":", x->mappings[k]);
		for (int c = 0; c < PMAPS_XC_COUNT; c++) {
			out_str(o, ",\"");
			out_str(o, col_keys[c]);
			out_str(o, "\":");
			out_u64(o, x->v[k][c]);
		}
		out_ch(o, '}');
	}
	out_str(o, "\n]");
	if (x->pages) {
		static const char *const pkeys[PMAPS_XP_COUNT] = {"resident", "dirty", "lazy_free",
		                                                  "shared", "thp", "zero"};
		int phys = x->pages_kpage == 1;
		out_str(o, ",\"pages\":{\"strategy\":\"");
		out_str(o, x->pages_strategy == PMAPS_PAGES_SCAN ? "scan" : "pagemap");
		out_str(o, phys ? "\",\"kpageflags\":true,\"categories\":[" :
		                  "\",\"kpageflags\":false,\"categories\":[");
		for (int k = 0, first = 1; k < PMAPS_X_COUNT; k++) {
			if (!x->mappings[k])
				continue;
			out_str(o, first ? "{\"category\":\"" : ",{\"category\":\"");
			first = 0;
			out_str(o, pmaps_xcat_name((enum pmaps_xcat)k));
			out_ch(o, '"');
			for (int col = 0; col < PMAPS_XP_COUNT; col++) {
				if (col != PMAPS_XP_RESIDENT &&
				    !((col == PMAPS_XP_ZERO && x->pages_strategy == PMAPS_PAGES_SCAN) || phys))
					continue;
				out_str(o, ",\"");
				out_str(o, pkeys[col]);
				out_str(o, "\":");
				out_u64(o, x->pg[k][col]);
			}
			out_ch(o, '}');
		}
		out_str(o, "]}");
	}
	out_str(o, ",\"largest\":[");
	for (unsigned i = 0; i < x->ntop; i++) {
		const struct pmaps_explain_top *t = &x->top[i];
		out_str(o, i ? ",\n{\"start\":\"0x" : "\n{\"start\":\"0x");
		out_hex(o, t->start, 1);
		out_str(o, "\",\"end\":\"0x");
		out_hex(o, t->end, 1);
		out_key_u64(o, "\",\"rss\":", t->rss);
		out_str(o, ",\"category\":\"");
		out_str(o, pmaps_xcat_name(t->cat));
		out_str(o, "\",");
		out_json_named(o, "path", t->path, t->path_len);
		if (t->path_truncated)
			out_str(o, ",\"path_truncated\":true");
		out_ch(o, '}');
	}
	out_str(o, "\n]}\n");
}

/* PART of WHOLE as "12.3%" into B (at least 24 bytes). */
static void pct(char *b, uint64_t part, uint64_t whole)
{
	/* Tenths of a percent, in floating point: PART * 1000 could overflow. */
	unsigned t = whole ? (unsigned)((double)part * 1000.0 / (double)whole + 0.5) : 0;
	snprintf(b, 24, "%u.%u%%", t / 10, t % 10);
}

static void explain_text(const struct pmaps_explain *x, int pid, int verbose)
{
	const uint64_t *t = x->total;
	uint64_t rss = t[PMAPS_XC_RSS], lazy = t[PMAPS_XC_LAZYFREE];
	uint64_t file = 0, file_clean = 0, anon_dirty = 0;
	char a[24], b[24], c[24], d[24];
	static char e[4 * sizeof(x->top[0].path) + 4];

	h(a, rss);
	h(b, rss - lazy);
	h(c, lazy);
	printf("pmaps explain: process %d\n\n", pid);
	printf("RSS %s: what ps and top show.", a);
	if (lazy)
		printf(" Effective RSS %s (minus %s LazyFree).", b, c);
	printf("\n");
	h(a, t[PMAPS_XC_PSS]);
	h(b, t[PMAPS_XC_PRIVATE_DIRTY] + t[PMAPS_XC_PRIVATE_CLEAN]);
	h(c, t[PMAPS_XC_SWAP]);
	h(d, t[PMAPS_XC_SWAP_PSS]);
	printf("PSS %s, USS %s (pages no other process maps), swap %s (SwapPss %s).\n", a, b, c, d);
	if (x->status.present) {
		h(a, x->status.v[PMAPS_ST_VM_HWM]);
		h(b, x->status.v[PMAPS_ST_VM_PTE]);
		printf("Peak RSS (VmHWM) %s, page tables (VmPTE) %s.\n", a, b);
	}
	if (x->runtime_kind != PMAPS_RUNTIME_NONE)
		printf("Runtime: %s.\n", esc(e, sizeof(e), x->runtime_evidence));
	printf("\nWhere it is (%llu mappings):\n", (unsigned long long)x->nmappings);
	printf("%-14s %5s", "Category", "Maps");
	for (size_t k = 0; k < sizeof(col_titles) / sizeof(col_titles[0]); k++)
		printf(" %8s", col_titles[k]);
	printf(" %7s\n", "%RSS");
	for (int k = 0; k <= PMAPS_X_COUNT; k++) {
		const uint64_t *v = k < PMAPS_X_COUNT ? x->v[k] : t;
		if (k < PMAPS_X_COUNT && !x->mappings[k])
			continue;
		printf("%-14s %5llu", k < PMAPS_X_COUNT ? pmaps_xcat_name((enum pmaps_xcat)k) : "total",
		       (unsigned long long)(k < PMAPS_X_COUNT ? x->mappings[k] : x->nmappings));
		for (size_t col = 0; col < sizeof(col_titles) / sizeof(col_titles[0]); col++) {
			h(a, v[col]);
			printf(" %8s", a);
		}
		pct(a, v[PMAPS_XC_RSS], rss);
		printf(" %7s\n", a);
	}
	printf("\nReconciled: the categories add up to %llu KiB of RSS",
	       (unsigned long long)(rss >> 10));
	if (x->have_rollup) {
		uint64_t r = x->rollup[PMAPS_F_RSS];
		if (r == rss)
			printf("; smaps_rollup, the kernel's own sum, says the same.\n");
		else
			printf("; smaps_rollup says %llu KiB, %llu KiB apart: the process changed between "
			       "the two reads.\n",
			       (unsigned long long)(r >> 10),
			       (unsigned long long)((r > rss ? r - rss : rss - r) >> 10));
	} else {
		printf(" (this kernel has no smaps_rollup to compare with).\n");
	}
	if (x->status.present) {
		uint64_t sum = x->status.v[PMAPS_ST_RSS_ANON] + x->status.v[PMAPS_ST_RSS_FILE] + x->status.v[PMAPS_ST_RSS_SHMEM];
		printf("status: VmRSS %llu KiB = RssAnon %llu + RssFile %llu + RssShmem %llu KiB",
		       (unsigned long long)(x->status.v[PMAPS_ST_VM_RSS] >> 10), (unsigned long long)(x->status.v[PMAPS_ST_RSS_ANON] >> 10),
		       (unsigned long long)(x->status.v[PMAPS_ST_RSS_FILE] >> 10), (unsigned long long)(x->status.v[PMAPS_ST_RSS_SHMEM] >> 10));
		printf(".\n");
		if (sum != x->status.v[PMAPS_ST_VM_RSS] || x->status.v[PMAPS_ST_VM_RSS] != rss)
			printf("  %llu KiB from the sum above: status was read first, and its counters are\n"
			       "  approximate before Linux 6.16.\n",
			       (unsigned long long)((x->status.v[PMAPS_ST_VM_RSS] > rss ? x->status.v[PMAPS_ST_VM_RSS] - rss : rss - x->status.v[PMAPS_ST_VM_RSS]) >> 10));
	}
	if (x->threads) {
		printf("Threads: %u; stacks found by their stack pointer: %u", x->threads,
		       x->stacks_found);
		if (x->stacks_guessed)
			printf(", guessed from the guard page below them: %u", x->stacks_guessed);
		printf(" (the main thread's is [stack]).\n");
	}
	if (verbose) {
		printf("\nEvidence:\n");
		if (x->runtime_kind != PMAPS_RUNTIME_NONE)
			printf("- runtime-heap: %s.\n", esc(e, sizeof(e), x->runtime_evidence));
		else
			printf("- runtime-heap: no runtime recognised (Go: .go.buildinfo; glibc: "
			       "libc.so.6), so none.\n");
		printf("- thread-stacks: %u of %u threads' stack pointers read from "
		       "/proc/PID/task/TID/syscall and found in a mapping", x->stacks_found, x->threads);
		if (x->stacks_guessed)
			printf("; %u more guessed: an anonymous mapping right above a guard page",
			       x->stacks_guessed);
		printf(".\n");
	}
	if (x->pages) {
		static const char *const ptitles[PMAPS_XP_COUNT] = {"Resident", "Dirty", "LazyFree",
		                                                    "Shared", "THP", "Zero"};
		int phys = x->pages_kpage == 1;
		printf("\nPage by page (%s%s):\n",
		       x->pages_strategy == PMAPS_PAGES_SCAN ? "PAGEMAP_SCAN" : "pagemap",
		       phys ? ", with kpageflags and kpagecount" : "");
		if (!phys)
			printf("  (%s)\n", esc(e, sizeof(e), x->pages_note));
		printf("%-14s", "Category");
		for (int k = 0; k < PMAPS_XP_COUNT; k++)
			printf(" %9s", ptitles[k]);
		printf("\n");
		for (int k = 0; k < PMAPS_X_COUNT; k++) {
			if (!x->mappings[k])
				continue;
			printf("%-14s", pmaps_xcat_name((enum pmaps_xcat)k));
			for (int col = 0; col < PMAPS_XP_COUNT; col++) {
				int seen = col == PMAPS_XP_RESIDENT ||
				           ((col == PMAPS_XP_ZERO && x->pages_strategy == PMAPS_PAGES_SCAN) || phys);
				if (seen)
					h(a, x->pg[k][col]);
				printf(" %9s", seen ? a : "-");
			}
			printf("\n");
		}
	}
	if (x->ntop) {
		printf("\nLargest mappings by RSS:\n");
		for (unsigned i = 0; i < x->ntop; i++) {
			const struct pmaps_explain_top *tp = &x->top[i];
			h(a, tp->rss);
			if (tp->path_len)
				esc_text(e, sizeof(e), tp->path, tp->path_len);
			/* A cut name says so: the "..." is outside the escape, which never makes one. */
			printf("  %012llx-%012llx %8s  %-13s %s%s\n", (unsigned long long)tp->start,
			       (unsigned long long)tp->end, a, pmaps_xcat_name(tp->cat),
			       tp->path_len ? e : "[anon]", tp->path_truncated ? "..." : "");
		}
	}
	for (int k = PMAPS_X_FILE_TEXT; k <= PMAPS_X_FILE_RO; k++) {
		file += x->v[k][PMAPS_XC_RSS];
		file_clean += x->v[k][PMAPS_XC_PRIVATE_CLEAN] + x->v[k][PMAPS_XC_SHARED_CLEAN];
	}
	anon_dirty = x->v[PMAPS_X_HEAP][PMAPS_XC_PRIVATE_DIRTY] +
	             x->v[PMAPS_X_ANON][PMAPS_XC_PRIVATE_DIRTY] +
	             x->v[PMAPS_X_ANON_NAMED][PMAPS_XC_PRIVATE_DIRTY];
	printf("\nNotes:\n");
	if (x->runtime_kind == PMAPS_RUNTIME_GO) {
		const uint64_t *g = x->v[PMAPS_X_RUNTIME_HEAP];
		h(a, g[PMAPS_XC_RSS]);
		h(b, g[PMAPS_XC_LAZYFREE]);
		printf("- The Go heap holds %s of RSS. A pprof heap profile shows sampled live objects\n"
		       "  (inuse_space) or what was allocated (alloc_space): never idle spans, pages\n"
		       "  returned but still resident, goroutine stacks or runtime metadata.\n", a);
		if (g[PMAPS_XC_LAZYFREE])
			printf("- %s of the Go heap was returned with MADV_FREE (GODEBUG=madvdontneed=0, or\n"
			       "  Go 1.12 to 1.15): resident until the kernel needs it. With\n"
			       "  GODEBUG=madvdontneed=1 the runtime returns it with MADV_DONTNEED and RSS\n"
			       "  drops at once.\n", b);
	}
	if (x->runtime_kind == PMAPS_RUNTIME_JVM && x->jvm_heap_end) {
		h(a, x->v[PMAPS_X_RUNTIME_HEAP][PMAPS_XC_RSS]);
		h(b, x->jvm_heap_end - x->jvm_heap_start);
		printf("- The Java heap holds %s of RSS in its %s reservation (-Xmx). The JVM keeps\n"
		       "  what it commits; a heap dump counts live objects only. The rest of the\n"
		       "  anonymous memory is metaspace, code cache, GC structures and native\n"
		       "  allocations: Native Memory Tracking (-XX:NativeMemoryTracking=summary,\n"
		       "  jcmd PID VM.native_memory) splits it.\n", a, b);
	} else if (x->runtime_kind == PMAPS_RUNTIME_JVM) {
		printf("- This is a JVM: it reserves its heap up front (-Xmx) and keeps what it commits;\n"
		       "  a heap dump counts live objects, not the committed heap, metaspace, code\n"
		       "  cache, thread stacks or GC structures. Native Memory Tracking\n"
		       "  (-XX:NativeMemoryTracking=summary, jcmd PID VM.native_memory) splits it.\n");
	}
	if (x->runtime_kind == PMAPS_RUNTIME_CPYTHON)
		printf("- This is CPython: its object allocator keeps arenas (1 MiB since 3.10) while\n"
		       "  any object in them lives, and glibc keeps what Python frees; tracemalloc\n"
		       "  counts live allocations only.\n");
	if (x->runtime_kind == PMAPS_RUNTIME_GLIBC && x->arenas) {
		h(a, x->v[PMAPS_X_RUNTIME_HEAP][PMAPS_XC_RSS]);
		printf("- glibc's %u thread arena(s) hold %s: a thread that mallocs gets its own arena\n"
		       "  (up to 8 per core), and chunks freed there stay until malloc_trim(0) or the\n"
		       "  arena's top shrinks.\n", x->arenas, a);
	}
	if (anon_dirty) {
		h(a, anon_dirty);
		if (x->runtime_kind == PMAPS_RUNTIME_GO)
			printf("- %s of other anonymous memory is private and dirty, outside the Go heap:\n"
			       "  goroutine stacks, runtime metadata, and C allocations through cgo.\n", a);
		else
			printf("- %s of heap and anonymous memory is private and dirty: what allocators got\n"
			       "  from the kernel and wrote. A heap profile counts live objects in it; the\n"
			       "  rest is memory kept after free (glibc: malloc_trim returns it), metadata\n"
			       "  and fragmentation.\n", a);
	}
	/* For Go the note above names the cause; the rest of LazyFree is told here. */
	if (x->runtime_kind == PMAPS_RUNTIME_GO)
		lazy -= x->v[PMAPS_X_RUNTIME_HEAP][PMAPS_XC_LAZYFREE];
	if (lazy) {
		h(a, lazy);
		printf("- %s are pages freed with MADV_FREE (LazyFree): still resident and counted in\n"
		       "  RSS until the kernel needs the memory. Go 1.12 to 1.15 freed this way by\n"
		       "  default (GODEBUG=madvdontneed=1 returns pages at once).\n", a);
	}
	if (file) {
		h(a, file);
		h(b, file_clean);
		printf("- %s are file pages (code, data and files mapped): in RSS but in no heap\n"
		       "  profile; %s of them are clean, and the kernel can drop those at any time.\n",
		       a, b);
	}
	if (x->v[PMAPS_X_SHMEM][PMAPS_XC_RSS]) {
		h(a, x->v[PMAPS_X_SHMEM][PMAPS_XC_RSS]);
		h(b, x->v[PMAPS_X_SHMEM][PMAPS_XC_PSS]);
		printf("- %s is shared memory (shmem, memfd, SysV): counted whole in the RSS of every\n"
		       "  process that maps it; PSS splits it (%s here).\n", a, b);
	}
	if (x->v[PMAPS_X_THREAD_STACK][PMAPS_XC_RSS] || x->v[PMAPS_X_MAIN_STACK][PMAPS_XC_RSS]) {
		h(a, x->v[PMAPS_X_THREAD_STACK][PMAPS_XC_RSS] + x->v[PMAPS_X_MAIN_STACK][PMAPS_XC_RSS]);
		printf("- %s are stacks: touched stack pages stay resident after the calls return.\n", a);
	}
	if (t[PMAPS_XC_THP]) {
		h(a, t[PMAPS_XC_THP]);
		printf("- %s are transparent huge pages: touching one byte can make 2 MiB resident.\n", a);
	}
	if (t[PMAPS_XC_SWAP]) {
		h(a, t[PMAPS_XC_SWAP]);
		printf("- %s are swapped out: not in RSS, back in it when touched.\n", a);
	}
}

int explain_report(const char *root, const char *pid, int json, unsigned options, int verbose)
{
	static struct pmaps_explain x;
	static struct out out;
	struct pmaps_proc *proc;
	char msg[256];
	int err, kthread = 0;

	err = tool_proc_open(&proc, root, pid);
	if (err != 0)
		return err;
	err = pmaps_explain(proc, &x, options, msg, sizeof(msg));
	if (err == -ENODATA) {
		/* A kernel thread: the note, and zero in every figure. */
		kthread = 1;
		memset(&x, 0, sizeof(x));
		kernel_thread_note(pmaps_proc_pid(proc));
	} else if (err < 0) {
		die_msg("process %s: %s", pid, msg[0] ? msg : pmaps_strerror(err));
		pmaps_proc_close(proc);
		return EXIT_FAIL;
	}
	if (json) {
		out_init(&out, STDOUT_FILENO);
		explain_json(&out, &x, pmaps_proc_pid(proc), kthread);
		err = finish_output(&out, EXIT_OK);
	} else {
		if (kthread)
			printf("pmaps explain: process %d\n\nRSS 0: a kernel thread has no user-space "
			       "memory.\n", pmaps_proc_pid(proc));
		else
			explain_text(&x, pmaps_proc_pid(proc), verbose);
		err = finish_stdout(EXIT_OK);
	}
	pmaps_proc_close(proc);
	return err;
}

int cmd_explain(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"json", no_argument, NULL, 'j'},
		{"pages", no_argument, NULL, 'P'},
		{"verbose", no_argument, NULL, 'v'},
		{"proc-root", required_argument, NULL, 'R'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *root = NULL;
	int ch, json = 0, pages = 0, verbose = 0;

	opterr = 0;
	optind = 1;
	while ((ch = getopt_long(argc, argv, "jvh", longopts, NULL)) != -1) {
		switch (ch) {
		case 'j': json = 1; break;
		case 'P': pages = 1; break;
		case 'v': verbose = 1; break;
		case 'R': root = optarg; break;
		case 'h': return print_usage(explain_usage);
		default: return option_error("explain", argv, "jvh", longopts);
		}
	}
	if (optind + 1 != argc) {
		die_msg(optind == argc ? "which process? (pmaps explain PID; see --help)"
		                       : "one PID only (see pmaps explain --help)");
		return EXIT_USAGE;
	}
	return explain_report(root, argv[optind], json, pages ? PMAPS_EXPLAIN_PAGES : 0, verbose);
}
