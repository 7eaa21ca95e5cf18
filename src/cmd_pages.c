/* SPDX-License-Identifier: MIT */
/*
 * cmd_pages.c - `pmaps pages PID [RANGE|MAPPING]`: every mapping's pages as
 * runs of equal state, or counted per mapping (--summary).
 *
 * Mappings come from /proc/PID/maps (the cheapest source: no page-table
 * walk, and since 6.17 no mmap_lock); each mapping that meets the range is
 * walked on its own, so runs never cross mappings and gaps are never shown.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "tool.h"

static const char pages_usage[] =
	"Usage: pmaps pages [OPTIONS] PID [RANGE|MAPPING]\n"
	"\n"
	"Show the pages of process PID (a number, or 'self') as runs of equal state:\n"
	"start-end, page count, flags, path. Unmapped gaps are not shown.\n"
	"\n"
	"RANGE: ADDR, START-END or START+LEN (addresses in hex as maps prints them,\n"
	"0x optional; LEN decimal or 0x hex, with K, M, G or T); MAPPING: a name such\n"
	"as [heap], [stack], [anon:NAME] or a path. Only that range is read.\n"
	"\n"
	"Options:\n"
	"  -s, --summary             per mapping: pages by state instead of runs\n"
	"      --strategy scan|pagemap  the reader: the PAGEMAP_SCAN ioctl (Linux 6.7+) or\n"
	"                            pagemap reads; default: PAGEMAP_SCAN when the kernel has it\n"
	"      --gentle              pause 50 us every 200 us of page-table walking, so the\n"
	"                            target's mmap()/munmap() are not held up (slower)\n"
	"  -j, --json                JSON for programs\n"
	"      --csv                 CSV for programs\n"
	"      --proc-root DIR       read DIR/PID instead of /proc/PID\n"
	"      --pfn                 as root: split runs where physical frames are not\n"
	"                            consecutive, and show each run's first frame number\n"
	"  -v, --verbose             say which reader ran and how many kernel calls it made\n"
	"  -h, --help                show this help\n"
	"\n"
	"Flags: present, swapped, file (a file page or shared anonymous memory),\n"
	"exclusive (pagemap only), huge (PAGEMAP_SCAN only), zero (the shared zero\n"
	"page: mapped, not resident, as smaps counts it; pagemap tells it only where\n"
	"the kernel has PAGEMAP_SCAN, or as root), soft-dirty, uffd-wp, guard. A run\n"
	"with none is pages never touched (or dropped).\n"
	"As root, present runs are split further by /proc/kpageflags (referenced,\n"
	"dirty, lru, active, anon, swapcache, swapbacked, hugetlb, unevictable, ksm,\n"
	"thp, zero-page, idle, mlocked; lazyfree: anonymous without swapbacked, freed\n"
	"with MADV_FREE) and by /proc/kpagecount (MapCnt: mappings sharing the page).\n"
	"\n"
	"Exit status: 0 on success, 1 when the process cannot be read or the range\n"
	"meets no mapping, 2 on a usage error.\n";

enum { SUM_PAGES, SUM_RESIDENT, SUM_SWAPPED, SUM_FILE, SUM_ZERO, SUM_HUGE, SUM_EXCL, SUM_SHARED,
       /* with the kpageflags join */
       SUM_DIRTY, SUM_ACTIVE, SUM_REFERENCED, SUM_IDLE, SUM_LAZY, SUM_THP, SUM_MLOCKED,
       SUM_MAPPED2,
       /* the shared-by-N histogram (JSON and CSV only); map count 0 is its own bin */
       SUM_BY0, SUM_BY1, SUM_BY2, SUM_BY3_4, SUM_BY5_8, SUM_BY9,
       SUM_N };
#define SUM_TABLE SUM_BY0 /* the table stops before the histogram */
static const char *const sum_keys[SUM_N] = {
	"pages", "resident", "swapped", "file", "zero", "huge", "exclusive", "shared",
	"dirty", "active", "referenced", "idle", "lazyfree", "thp", "mlocked",
	"mapped_by_2_or_more", "mapped_by_0", "mapped_by_1", "mapped_by_2", "mapped_by_3_4",
	"mapped_by_5_8", "mapped_by_9_or_more"};
static const char *const sum_titles[SUM_N] = {
	"Pages", "Resident", "Swapped", "File", "Zero", "Huge", "Excl", "Shared",
	"Dirty", "Active", "Refd", "Idle", "LazyFree", "THP", "Mlocked", "MapCnt>1",
	"", "", "", "", "", ""};

struct pages_opts {
	const char *proc_root, *pid;
	struct range_arg range;
	int have_range, summary, gentle, verbose, pfn;
	int joined; /* set by the report: runs carry kpageflags */
	enum fmt fmt;
	enum pmaps_pages_strategy strategy;
};

static void out_flags(struct out *o, unsigned flags, char sep, int json)
{
	int first = 1;

	for (unsigned b = 1; b <= PMAPS_PG_GUARD; b <<= 1) {
		if (!(flags & b))
			continue;
		if (!first)
			out_ch(o, sep);
		if (json)
			out_ch(o, '"');
		out_str(o, pmaps_page_flag_name(b));
		if (json)
			out_ch(o, '"');
		first = 0;
	}
	if (first && !json)
		out_ch(o, '-');
}

/* Whether the reader can see the counter at all ("-" / absent when not). */
static int sum_visible(int k, unsigned known, int joined)
{
	if (k >= SUM_DIRTY)
		return joined;
	if (k == SUM_ZERO)
		return (known & PMAPS_PG_ZERO) != 0;
	if (k == SUM_HUGE)
		return (known & PMAPS_PG_HUGE) != 0;
	if (k == SUM_EXCL || k == SUM_SHARED)
		return (known & PMAPS_PG_EXCLUSIVE) != 0;
	return 1;
}

/*
 * Adds a run to a mapping's counts. Resident is what smaps calls Rss:
 * present pages other than the shared zero page (or the huge zero page),
 * which count as zero and nowhere else; Excl + Shared = Resident, and every
 * physical count (THP among them) is of resident pages only.
 */
static void count(uint64_t *sum, const struct pmaps_page_range *r, unsigned shift)
{
	uint64_t n = (r->end - r->start) >> shift, mc = r->mapcount;
	unsigned f = r->flags;

	sum[SUM_PAGES] += n;
	sum[SUM_SWAPPED] += f & PMAPS_PG_SWAPPED ? n : 0;
	if ((f & PMAPS_PG_PRESENT) && (f & PMAPS_PG_ZERO)) {
		sum[SUM_ZERO] += n;
		return;
	}
	sum[SUM_FILE] += f & PMAPS_PG_FILE ? n : 0;
	if (!(f & PMAPS_PG_PRESENT))
		return;
	sum[SUM_RESIDENT] += n;
	sum[f & PMAPS_PG_EXCLUSIVE ? SUM_EXCL : SUM_SHARED] += n;
	sum[SUM_HUGE] += f & PMAPS_PG_HUGE ? n : 0;
	sum[SUM_DIRTY] += r->kflags & PMAPS_KPF_DIRTY ? n : 0;
	sum[SUM_ACTIVE] += r->kflags & PMAPS_KPF_ACTIVE ? n : 0;
	sum[SUM_REFERENCED] += r->kflags & PMAPS_KPF_REFERENCED ? n : 0;
	sum[SUM_LAZY] += r->kflags & PMAPS_KPF_LAZYFREE ? n : 0;
	sum[SUM_THP] += r->kflags & PMAPS_KPF_THP ? n : 0;
	sum[SUM_MLOCKED] += r->kflags & PMAPS_KPF_MLOCKED ? n : 0;
	sum[SUM_IDLE] += r->kflags & PMAPS_KPF_IDLE ? n : 0;
	sum[SUM_MAPPED2] += mc >= 2 ? n : 0;
	/*
	 * Map count 0 on a resident page is no "mapped once": kpagecount
	 * averages over a large folio (a partly mapped one rounds to 0) and
	 * reads 0 for a page unmapped since pagemap was read.
	 */
	sum[mc == 0 ? SUM_BY0 : mc == 1 ? SUM_BY1 : mc == 2 ? SUM_BY2 : mc <= 4 ? SUM_BY3_4
	    : mc <= 8 ? SUM_BY5_8 : SUM_BY9] += n;
}

/* The kpageflags names of KF joined with SEP ('-' for none); returns the length. */
static size_t kflags_str(char *dst, size_t size, uint64_t kf, char sep)
{
	size_t k = 0;

	for (int b = 0; b < 64; b++) {
		const char *name = (kf >> b) & 1 ? pmaps_kpage_flag_name(1ull << b) : NULL;
		size_t n = name ? strlen(name) : 0;
		if (!name || k + n + 2 > size)
			continue;
		if (k)
			dst[k++] = sep;
		memcpy(dst + k, name, n);
		k += n;
	}
	if (!k)
		dst[k++] = '-';
	dst[k] = '\0';
	return k;
}

static void out_addr(struct out *o, uint64_t a, int json)
{
	if (json) {
		out_str(o, "\"0x");
		out_hex(o, a, 1);
		out_ch(o, '"');
	} else {
		out_hex(o, a, 12);
	}
}

/* A record's start: JSON '{"start":..,"end":..' or CSV '0x..,0x..'. */
static void span_open(struct out *o, const struct pages_opts *po, uint64_t start, uint64_t end,
                      uint64_t rows)
{
	if (po->fmt == FMT_JSON) {
		out_str(o, rows ? ",\n{\"start\":" : "\n{\"start\":");
		out_addr(o, start, 1);
		out_str(o, ",\"end\":");
		out_addr(o, end, 1);
	} else {
		out_str(o, "0x");
		out_hex(o, start, 1);
		out_str(o, ",0x");
		out_hex(o, end, 1);
	}
}

/* A record's end: JSON ',"kind":..,"path":..}' or CSV ',PATH\n'. */
static void span_close(struct out *o, const struct pages_opts *po, const struct pmaps_mapping *m)
{
	if (po->fmt == FMT_JSON) {
		out_str(o, ",\"kind\":\"");
		out_str(o, pmaps_kind_name(m->kind));
		out_str(o, "\",");
		out_json_named(o, "path", m->path.ptr, m->path.len);
		if (m->flags & PMAPS_ROW_PATH_TRUNCATED)
			out_str(o, ",\"path_truncated\":true");
		out_ch(o, '}');
	} else {
		out_ch(o, ',');
		out_csv_str(o, m->path.ptr, m->path.len);
		out_ch(o, '\n');
	}
}

static void header(struct out *o, const struct pages_opts *po, int pid,
                   enum pmaps_pages_strategy s)
{
	if (po->fmt == FMT_JSON) {
		out_str(o, "{\"pmaps_version\":\"" PMAPS_VERSION "\",\"pid\":");
		out_u64(o, (uint64_t)pid);
		out_str(o, ",\"strategy\":\"");
		out_str(o, s == PMAPS_PAGES_SCAN ? "scan" : "pagemap");
		out_str(o, po->joined ? "\",\"kpageflags\":true" : "\",\"kpageflags\":false");
		out_str(o, po->summary ? ",\"mappings\":[" : ",\"ranges\":[");
		return;
	}
	if (po->fmt == FMT_CSV) {
		if (po->summary) {
			out_str(o, "start,end");
			for (int k = 0; k < SUM_N; k++) {
				if (k >= SUM_DIRTY && !po->joined)
					break;
				out_ch(o, ',');
				out_str(o, sum_keys[k]);
			}
			out_str(o, ",path\n");
		} else {
			out_str(o, "start,end,pages,flags,");
			if (po->joined)
				out_str(o, po->pfn ? "mapcount,kflags,pfn," : "mapcount,kflags,");
			out_str(o, "path\n");
		}
		return;
	}
	if (po->summary) {
		out_ljust(o, "Address", 7, 25);
		for (int k = 0; k < SUM_TABLE; k++) {
			if (k >= SUM_DIRTY && !po->joined)
				break;
			out_ch(o, ' ');
			out_rjust(o, sum_titles[k], strlen(sum_titles[k]), 9);
		}
		out_str(o, " Path\n");
	} else {
		out_str(o, "Start        End             Pages Flags                           ");
		if (po->joined)
			out_str(o, po->pfn ? " MapCnt PFN          Page flags                " :
			                     " MapCnt Page flags                ");
		out_str(o, " Path\n");
	}
}

static void run_row(struct out *o, const struct pages_opts *po, const struct pmaps_page_range *r,
                    const struct pmaps_mapping *m, unsigned shift, uint64_t *rows)
{
	uint64_t pages = (r->end - r->start) >> shift;
	char b[24];
	size_t n;

	if (po->fmt == FMT_JSON) {
		span_open(o, po, r->start, r->end, *rows);
		out_key_u64(o, ",\"pages\":", pages);
		out_str(o, ",\"flags\":[");
		out_flags(o, r->flags, ',', 1);
		out_ch(o, ']');
		if (po->joined && (r->flags & PMAPS_PG_PRESENT)) {
			char kf[256];
			size_t k = kflags_str(kf, sizeof(kf), r->kflags, ' ');
			out_key_u64(o, ",\"mapcount\":", r->mapcount);
			out_str(o, ",\"kflags\":[");
			for (size_t i = 0, w = 0; r->kflags && i <= k; i++) {
				if (i == k || kf[i] == ' ') {
					if (w)
						out_ch(o, ',');
					out_json_str(o, kf + w, i - w);
					w = i + 1;
				}
			}
			out_ch(o, ']');
			if (po->pfn) {
				out_str(o, ",\"pfn\":\"0x");
				out_hex(o, r->pfn, 1);
				out_ch(o, '"');
			}
		}
		span_close(o, po, m);
	} else if (po->fmt == FMT_CSV) {
		int present = (r->flags & PMAPS_PG_PRESENT) != 0;
		span_open(o, po, r->start, r->end, *rows);
		out_ch(o, ',');
		out_u64(o, pages);
		out_ch(o, ',');
		out_flags(o, r->flags, '|', 0);
		if (po->joined) {
			char kf[256];
			out_ch(o, ',');
			if (present)
				out_u64(o, r->mapcount);
			out_ch(o, ',');
			if (present) {
				kflags_str(kf, sizeof(kf), r->kflags, '|');
				out_str(o, kf);
			}
			if (po->pfn) {
				out_ch(o, ',');
				if (present) {
					out_str(o, "0x");
					out_hex(o, r->pfn, 1);
				}
			}
		}
		span_close(o, po, m);
	} else {
		out_addr(o, r->start, 0);
		out_ch(o, ' ');
		out_addr(o, r->end, 0);
		n = fmt_u64(b, pages);
		out_rjust(o, b, n, 10);
		out_ch(o, ' ');
		{
			/* Flags padded to a column: written to a scratch writer first. */
			char fl[128];
			size_t k = 0;
			for (unsigned bit = 1; bit <= PMAPS_PG_GUARD; bit <<= 1) {
				if (!(r->flags & bit))
					continue;
				const char *name = pmaps_page_flag_name(bit);
				if (k)
					fl[k++] = ',';
				memcpy(fl + k, name, strlen(name));
				k += strlen(name);
			}
			if (!k)
				fl[k++] = '-';
			out_ljust(o, fl, k, 32);
		}
		if (po->joined) {
			char kf[256];
			size_t k;
			out_ch(o, ' ');
			if (r->flags & PMAPS_PG_PRESENT) {
				n = fmt_u64(b, r->mapcount);
				out_rjust(o, b, n, 6);
			} else {
				out_rjust(o, "-", 1, 6);
			}
			if (po->pfn) {
				out_ch(o, ' ');
				if (r->flags & PMAPS_PG_PRESENT) {
					out_hex(o, r->pfn, 12);
				} else {
					out_ljust(o, "-", 1, 12);
				}
			}
			out_ch(o, ' ');
			k = r->flags & PMAPS_PG_PRESENT ? kflags_str(kf, sizeof(kf), r->kflags, ',') : 1;
			if (!(r->flags & PMAPS_PG_PRESENT))
				kf[0] = '-';
			out_ljust(o, kf, k, 26);
		}
		out_ch(o, ' ');
		out_table_str(o, m->path.ptr, m->path.len);
		if (m->flags & PMAPS_ROW_PATH_TRUNCATED)
			out_str(o, "..."); /* cut to fit the reader: never shown as whole */
		out_ch(o, '\n');
	}
	(*rows)++;
}

static void summary_row(struct out *o, const struct pages_opts *po, const uint64_t *sum,
                        uint64_t start, uint64_t end, const struct pmaps_mapping *m,
                        unsigned known, uint64_t *rows)
{
	char b[24];

	if (po->fmt == FMT_JSON) {
		span_open(o, po, start, end, *rows);
		for (int k = 0; k < SUM_N; k++) {
			if (!sum_visible(k, known, po->joined))
				continue;
			out_str(o, ",\"");
			out_str(o, sum_keys[k]);
			out_str(o, "\":");
			out_u64(o, sum[k]);
		}
		span_close(o, po, m);
	} else if (po->fmt == FMT_CSV) {
		span_open(o, po, start, end, *rows);
		for (int k = 0; k < SUM_N && (k < SUM_DIRTY || po->joined); k++) {
			out_ch(o, ',');
			if (sum_visible(k, known, po->joined))
				out_u64(o, sum[k]);
		}
		span_close(o, po, m);
	} else {
		out_addr(o, start, 0);
		out_ch(o, '-');
		out_addr(o, end, 0);
		for (int k = 0; k < SUM_TABLE && (k < SUM_DIRTY || po->joined); k++) {
			size_t n = sum_visible(k, known, po->joined) ? fmt_u64(b, sum[k]) : 1;
			if (!sum_visible(k, known, po->joined))
				b[0] = '-';
			out_ch(o, ' ');
			out_rjust(o, b, n, 9);
		}
		out_ch(o, ' ');
		out_table_str(o, m->path.ptr, m->path.len);
		if (m->flags & PMAPS_ROW_PATH_TRUNCATED)
			out_str(o, "..."); /* cut to fit the reader: never shown as whole */
		out_ch(o, '\n');
	}
	(*rows)++;
}

static int pages_report(struct pages_opts *po)
{
	static struct out out;
	struct pmaps_proc *proc = NULL;
	struct pmaps_maps *maps = NULL;
	struct pmaps_pages *pg = NULL;
	const struct pmaps_mapping *m;
	const struct pmaps_page_range *r;
	enum pmaps_pages_strategy s;
	uint64_t rows = 0, met = 0, calls = 0;
	unsigned shift = (unsigned)__builtin_ctzl((unsigned long)sysconf(_SC_PAGESIZE));
	const char *error = NULL;
	int rc = EXIT_OK, err;

	out_init(&out, STDOUT_FILENO);
	rc = tool_proc_open(&proc, po->proc_root, po->pid);
	if (rc != 0)
		return rc;
	err = pmaps_pages_open(&pg, proc, po->strategy,
	                       PMAPS_PAGES_KPAGE | (po->pfn ? PMAPS_PAGES_PFN : 0) |
	                       (po->gentle ? PMAPS_PAGES_GENTLE : 0));
	if (err == -ENODATA) {
		/* A kernel thread: the note and a result with no rows, as every command gives. */
		kernel_thread_note(pmaps_proc_pid(proc));
		header(&out, po, pmaps_proc_pid(proc), po->strategy);
		if (po->fmt == FMT_JSON)
			out_str(&out, "\n]}\n");
		rc = finish_output(&out, EXIT_OK);
		goto done;
	}
	if (err < 0) {
		die_msg("process %s: %s", po->pid, pg && pmaps_pages_errmsg(pg)[0] ?
		        pmaps_pages_errmsg(pg) : pmaps_strerror(err));
		rc = EXIT_FAIL;
		goto done;
	}
	s = pmaps_pages_strategy(pg);
	/* Root gets physical page state; anyone else is told once, and carries on. */
	po->joined = pmaps_pages_kpage(pg) == 1;
	if (!po->joined)
		note_msg("%s", pmaps_pages_errmsg(pg));
	err = pmaps_maps_open(&maps, proc, PMAPS_SRC_MAPS, 0);
	if (err < 0) {
		die_msg("process %s: %s", po->pid, maps ? pmaps_maps_errmsg(maps) : pmaps_strerror(err));
		rc = EXIT_FAIL;
		goto done;
	}
	header(&out, po, pmaps_proc_pid(proc), s);
	while ((err = pmaps_maps_next(maps, &m)) > 0) {
		uint64_t start = m->start, end = m->end, sum[SUM_N] = {0};
		if (po->have_range && po->range.name) {
			if (m->path.len != po->range.name_len ||
			    memcmp(m->path.ptr, po->range.name, m->path.len) != 0)
				continue;
		} else if (po->have_range) {
			if (end <= po->range.start || start >= po->range.end)
				continue;
			start = start < po->range.start ? po->range.start : start;
			end = end > po->range.end ? po->range.end : end;
		}
		met++;
		if ((err = pmaps_pages_seek(pg, start, end)) < 0)
			break;
		while ((err = pmaps_pages_next(pg, &r)) > 0) {
			if (po->summary)
				count(sum, r, shift);
			else
				run_row(&out, po, r, m, shift, &rows);
		}
		calls += pmaps_pages_calls(pg);
		if (err < 0)
			break;
		if (po->summary)
			summary_row(&out, po, sum, start, end, m, pmaps_pages_known(pg), &rows);
	}
	if (err < 0) {
		error = pg && pmaps_pages_errmsg(pg)[0] ? pmaps_pages_errmsg(pg)
		        : pmaps_maps_errmsg(maps)[0] ? pmaps_maps_errmsg(maps) : pmaps_strerror(err);
		rc = EXIT_FAIL;
	}
	if (po->fmt == FMT_JSON) {
		out_str(&out, "\n]");
		if (error) {
			out_ch(&out, ',');
			out_json_named(&out, "error", error, strlen(error));
		}
		out_str(&out, "}\n");
	}
	out_flush(&out);
	if (error) {
		die_msg("process %s: %s", po->pid, error);
	} else if (po->have_range && met == 0) {
		if (po->range.name)
			die_msg("process %s: no mapping named '%s'", po->pid, po->range.name);
		else
			die_msg("process %s: no mapping meets 0x%llx-0x%llx", po->pid,
			        (unsigned long long)po->range.start, (unsigned long long)po->range.end);
		rc = EXIT_FAIL;
	}
	if (po->verbose)
		note_msg("read with %s: %llu kernel calls over %llu mappings",
		         s == PMAPS_PAGES_SCAN ? "PAGEMAP_SCAN" : "pagemap", (unsigned long long)calls,
		         (unsigned long long)met);
	if (out.err && rc == EXIT_OK) {
		die_msg("writing output: %s", strerror(out.err));
		rc = EXIT_FAIL;
	}
done:
	pmaps_maps_close(maps);
	pmaps_pages_close(pg);
	pmaps_proc_close(proc);
	return rc;
}

int cmd_pages(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"summary", no_argument, NULL, 's'},
		{"strategy", required_argument, NULL, 'S'},
		{"gentle", no_argument, NULL, 'G'},
		{"json", no_argument, NULL, 'j'},
		{"csv", no_argument, NULL, 'C'},
		{"proc-root", required_argument, NULL, 'R'},
		{"verbose", no_argument, NULL, 'v'},
		{"pfn", no_argument, NULL, 'P'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct pages_opts po = {.fmt = FMT_TABLE, .strategy = PMAPS_PAGES_AUTO};
	char err[256];
	int ch;

	opterr = 0;
	optind = 1;
	while ((ch = getopt_long(argc, argv, "sjvh", longopts, NULL)) != -1) {
		switch (ch) {
		case 's': po.summary = 1; break;
		case 'S':
			if (strcmp(optarg, "scan") == 0)
				po.strategy = PMAPS_PAGES_SCAN;
			else if (strcmp(optarg, "pagemap") == 0)
				po.strategy = PMAPS_PAGES_PAGEMAP;
			else {
				die_msg("--strategy takes 'scan' or 'pagemap', not '%s'", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'G': po.gentle = 1; break;
		case 'j':
		case 'C':
			if (set_format(&po.fmt, ch == 'j' ? FMT_JSON : FMT_CSV) < 0)
				return EXIT_USAGE;
			break;
		case 'R': po.proc_root = optarg; break;
		case 'v': po.verbose = 1; break;
		case 'P': po.pfn = 1; break;
		case 'h': return print_usage(pages_usage);
		default: return option_error("pages", argv, "sjvh", longopts);
		}
	}
	if (optind == argc || argc - optind > 2) {
		die_msg(optind == argc ? "which process? (pmaps pages PID [RANGE]; see --help)"
		                       : "too many arguments (see pmaps pages --help)");
		return EXIT_USAGE;
	}
	po.pid = argv[optind];
	if (optind + 1 < argc) {
		if (parse_range(argv[optind + 1], &po.range, err, sizeof(err)) < 0) {
			die_msg("%s", err);
			return EXIT_USAGE;
		}
		po.have_range = 1;
	}
	return pages_report(&po);
}
