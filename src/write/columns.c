/* SPDX-License-Identifier: MIT */
/*
 * columns.c - the one column table: every column any command shows, with
 * its key, title, width, alignment, unit, records and library value.
 *
 * Keys, titles and JSON keys are literals with their lengths computed by
 * the compiler: writers copy them, and never measure them. test_writers
 * checks that every key of a library value is the library's own key.
 */
#include <strings.h>

#include "common/tool.h"
#include "write/columns.h"

#define LIT(s) {s, sizeof(s) - 1}
#define MAX(a, b) ((a) > (b) ? (a) : (b))
/* A column: its width is at least its title's. */
#define COL(key, title, width, left, unit, records, lib) \
	{LIT(key), LIT(title), ",\"" key "\":", sizeof(",\"" key "\":") - 1, \
	 MAX(sizeof(title) - 1, width), left, unit, records, lib}
/* An smaps field of mappings and groups: numbers right-aligned in 7 columns. */
#define FIELD(f, key, title, unit) COL(key, title, 7, 0, unit, REC_MAPPING | REC_GROUP, f)
#define SUMMARY(k, key, title) COL(key, title, 9, 0, UNIT_COUNT, REC_SUMMARY, k)
#define XCOL(k, key, title) COL(key, title, 8, 0, UNIT_BYTES, REC_XCAT, k)
#define XPAGE(k, key, title) COL(key, title, 9, 0, UNIT_BYTES, REC_XPAGE, k)

/* A figure of pmaps top's processes and groups: right-aligned in 7 columns. */
#define SURVEY(k, key, title) COL(key, title, 7, 0, UNIT_BYTES, REC_PROC | REC_PGROUP, k)

enum { MG = REC_MAPPING | REC_GROUP, PP = REC_PROC | REC_PGROUP };

const struct column columns[COL_COUNT] = {
	[PMAPS_F_SIZE] = FIELD(PMAPS_F_SIZE, "size", "Size", UNIT_BYTES),
	[PMAPS_F_KERNEL_PAGE_SIZE] = FIELD(PMAPS_F_KERNEL_PAGE_SIZE, "kernel_page_size", "KPageSz", UNIT_BYTES),
	[PMAPS_F_MMU_PAGE_SIZE] = FIELD(PMAPS_F_MMU_PAGE_SIZE, "mmu_page_size", "MMUPageSz", UNIT_BYTES),
	[PMAPS_F_RSS] = FIELD(PMAPS_F_RSS, "rss", "Rss", UNIT_BYTES),
	[PMAPS_F_PSS] = FIELD(PMAPS_F_PSS, "pss", "Pss", UNIT_BYTES),
	[PMAPS_F_PSS_DIRTY] = FIELD(PMAPS_F_PSS_DIRTY, "pss_dirty", "PssDirty", UNIT_BYTES),
	[PMAPS_F_PSS_ANON] = FIELD(PMAPS_F_PSS_ANON, "pss_anon", "PssAnon", UNIT_BYTES),
	[PMAPS_F_PSS_FILE] = FIELD(PMAPS_F_PSS_FILE, "pss_file", "PssFile", UNIT_BYTES),
	[PMAPS_F_PSS_SHMEM] = FIELD(PMAPS_F_PSS_SHMEM, "pss_shmem", "PssShmem", UNIT_BYTES),
	[PMAPS_F_SHARED_CLEAN] = FIELD(PMAPS_F_SHARED_CLEAN, "shared_clean", "ShClean", UNIT_BYTES),
	[PMAPS_F_SHARED_DIRTY] = FIELD(PMAPS_F_SHARED_DIRTY, "shared_dirty", "ShDirty", UNIT_BYTES),
	[PMAPS_F_PRIVATE_CLEAN] = FIELD(PMAPS_F_PRIVATE_CLEAN, "private_clean", "PrClean", UNIT_BYTES),
	[PMAPS_F_PRIVATE_DIRTY] = FIELD(PMAPS_F_PRIVATE_DIRTY, "private_dirty", "PrDirty", UNIT_BYTES),
	[PMAPS_F_REFERENCED] = FIELD(PMAPS_F_REFERENCED, "referenced", "Refd", UNIT_BYTES),
	[PMAPS_F_ANONYMOUS] = FIELD(PMAPS_F_ANONYMOUS, "anonymous", "Anon", UNIT_BYTES),
	[PMAPS_F_KSM] = FIELD(PMAPS_F_KSM, "ksm", "KSM", UNIT_BYTES),
	[PMAPS_F_LAZY_FREE] = FIELD(PMAPS_F_LAZY_FREE, "lazy_free", "LazyFree", UNIT_BYTES),
	[PMAPS_F_ANON_HUGE_PAGES] = FIELD(PMAPS_F_ANON_HUGE_PAGES, "anon_huge_pages", "AnonHuge", UNIT_BYTES),
	[PMAPS_F_SHMEM_PMD_MAPPED] = FIELD(PMAPS_F_SHMEM_PMD_MAPPED, "shmem_pmd_mapped", "ShmemPmd", UNIT_BYTES),
	[PMAPS_F_FILE_PMD_MAPPED] = FIELD(PMAPS_F_FILE_PMD_MAPPED, "file_pmd_mapped", "FilePmd", UNIT_BYTES),
	[PMAPS_F_SHARED_HUGETLB] = FIELD(PMAPS_F_SHARED_HUGETLB, "shared_hugetlb", "ShHugetlb", UNIT_BYTES),
	[PMAPS_F_PRIVATE_HUGETLB] = FIELD(PMAPS_F_PRIVATE_HUGETLB, "private_hugetlb", "PrHugetlb", UNIT_BYTES),
	[PMAPS_F_SWAP] = FIELD(PMAPS_F_SWAP, "swap", "Swap", UNIT_BYTES),
	[PMAPS_F_SWAP_PSS] = FIELD(PMAPS_F_SWAP_PSS, "swap_pss", "SwapPss", UNIT_BYTES),
	[PMAPS_F_LOCKED] = FIELD(PMAPS_F_LOCKED, "locked", "Locked", UNIT_BYTES),
	[PMAPS_F_THP_ELIGIBLE] = FIELD(PMAPS_F_THP_ELIGIBLE, "thp_eligible", "THPelig", UNIT_COUNT),
	[PMAPS_F_PROTECTION_KEY] = FIELD(PMAPS_F_PROTECTION_KEY, "protection_key", "PKey", UNIT_COUNT),

	[COL_ADDRESS] = COL("address", "Address", 25, 1, UNIT_ADDRESS, REC_MAPPING | REC_SUMMARY, -1),
	[COL_START] = COL("start", "Start", 12, 1, UNIT_ADDRESS, REC_MAPPING | REC_RUN | REC_SUMMARY, -1),
	[COL_END] = COL("end", "End", 12, 1, UNIT_ADDRESS, REC_MAPPING | REC_RUN | REC_SUMMARY, -1),
	[COL_PERMS] = COL("perms", "Perm", 4, 1, UNIT_TEXT, REC_MAPPING, -1),
	[COL_OFFSET] = COL("offset", "Offset", 8, 1, UNIT_ADDRESS, REC_MAPPING, -1),
	[COL_DEV] = COL("dev", "Dev", 5, 1, UNIT_TEXT, REC_MAPPING, -1),
	[COL_INODE] = COL("inode", "Inode", 9, 0, UNIT_COUNT, REC_MAPPING, -1),
	[COL_KIND] = COL("kind", "Kind", 10, 1, UNIT_TEXT, MG, -1),
	[COL_SHARED] = COL("shared", "Shared", 7, 0, UNIT_BYTES, MG, PMAPS_V_SHARED),
	[COL_MAPPINGS] = COL("mappings", "Maps", 6, 0, UNIT_COUNT, MG, PMAPS_V_MAPPINGS),
	[COL_VSIZE] = COL("vsize", "VSize", 7, 0, UNIT_BYTES, MG, PMAPS_V_VSIZE),
	[COL_USS] = COL("uss", "USS", 7, 0, UNIT_BYTES, MG, PMAPS_V_USS),
	[COL_FILE_RSS] = COL("file_rss", "FileRss", 7, 0, UNIT_BYTES, MG, PMAPS_V_FILE_RSS),
	[COL_ZERO_PAGE] = COL("zero_page", "ZeroPg", 7, 0, UNIT_BYTES, MG, PMAPS_V_ZERO_PAGE),
	[COL_VMFLAGS] = COL("vm_flags", "VmFlags", 30, 1, UNIT_TEXT, REC_MAPPING, -1),
	[COL_PATH] = COL("path", "Path", 0, 1, UNIT_TEXT, MG | REC_RUN | REC_SUMMARY, -1),

	[COL_PAGES] = COL("pages", "Pages", 9, 0, UNIT_COUNT, REC_RUN, -1),
	[COL_FLAGS] = COL("flags", "Flags", 32, 1, UNIT_TEXT, REC_RUN, -1),
	[COL_MAPCOUNT] = COL("mapcount", "MapCnt", 6, 0, UNIT_COUNT, REC_RUN, -1),
	[COL_PFN] = COL("pfn", "PFN", 12, 1, UNIT_ADDRESS, REC_RUN, -1),
	[COL_KFLAGS] = COL("kflags", "Page flags", 26, 1, UNIT_TEXT, REC_RUN, -1),
	[COL_PSTATE] = COL("state", "State", 8, 1, UNIT_TEXT, REC_RUN, -1),

	[COL_PC0 + PMAPS_PC_PAGES] = SUMMARY(PMAPS_PC_PAGES, "pages", "Pages"),
	[COL_PC0 + PMAPS_PC_RESIDENT] = SUMMARY(PMAPS_PC_RESIDENT, "resident", "Resident"),
	[COL_PC0 + PMAPS_PC_SWAPPED] = SUMMARY(PMAPS_PC_SWAPPED, "swapped", "Swapped"),
	[COL_PC0 + PMAPS_PC_FILE] = SUMMARY(PMAPS_PC_FILE, "file", "File"),
	[COL_PC0 + PMAPS_PC_ZERO] = SUMMARY(PMAPS_PC_ZERO, "zero", "Zero"),
	[COL_PC0 + PMAPS_PC_HUGE] = SUMMARY(PMAPS_PC_HUGE, "huge", "Huge"),
	[COL_PC0 + PMAPS_PC_EXCLUSIVE] = SUMMARY(PMAPS_PC_EXCLUSIVE, "exclusive", "Excl"),
	[COL_PC0 + PMAPS_PC_SHARED] = SUMMARY(PMAPS_PC_SHARED, "shared", "Shared"),
	/* kpageflags' bits (root): KPF in the title, never smaps' Dirty or Referenced */
	[COL_PC0 + PMAPS_PC_DIRTY] = SUMMARY(PMAPS_PC_DIRTY, "kpf_dirty", "KpfDirty"),
	[COL_PC0 + PMAPS_PC_ACTIVE] = SUMMARY(PMAPS_PC_ACTIVE, "kpf_active", "KpfActiv"),
	[COL_PC0 + PMAPS_PC_REFERENCED] = SUMMARY(PMAPS_PC_REFERENCED, "kpf_referenced", "KpfRefd"),
	[COL_PC0 + PMAPS_PC_IDLE] = SUMMARY(PMAPS_PC_IDLE, "kpf_idle", "KpfIdle"),
	[COL_PC0 + PMAPS_PC_LAZYFREE] = SUMMARY(PMAPS_PC_LAZYFREE, "lazyfree", "LazyFree"),
	[COL_PC0 + PMAPS_PC_THP] = SUMMARY(PMAPS_PC_THP, "kpf_thp", "KpfTHP"),
	[COL_PC0 + PMAPS_PC_MLOCKED] = SUMMARY(PMAPS_PC_MLOCKED, "kpf_mlocked", "KpfMlock"),
	[COL_PC0 + PMAPS_PC_MAPPED_2] = SUMMARY(PMAPS_PC_MAPPED_2, "mapped_by_2_or_more", "MapCnt>1"),
	/* The histogram is for programs: no title, never in the table. */
	[COL_PC0 + PMAPS_PC_MAPPED_BY_0] = SUMMARY(PMAPS_PC_MAPPED_BY_0, "mapped_by_0", ""),
	[COL_PC0 + PMAPS_PC_MAPPED_BY_1] = SUMMARY(PMAPS_PC_MAPPED_BY_1, "mapped_by_1", ""),
	[COL_PC0 + PMAPS_PC_MAPPED_BY_2] = SUMMARY(PMAPS_PC_MAPPED_BY_2, "mapped_by_2", ""),
	[COL_PC0 + PMAPS_PC_MAPPED_BY_3_4] = SUMMARY(PMAPS_PC_MAPPED_BY_3_4, "mapped_by_3_4", ""),
	[COL_PC0 + PMAPS_PC_MAPPED_BY_5_8] = SUMMARY(PMAPS_PC_MAPPED_BY_5_8, "mapped_by_5_8", ""),
	[COL_PC0 + PMAPS_PC_MAPPED_BY_9] = SUMMARY(PMAPS_PC_MAPPED_BY_9, "mapped_by_9_or_more", ""),

	[COL_XCAT] = COL("category", "Category", 14, 1, UNIT_TEXT, REC_XCAT | REC_XPAGE, -1),
	[COL_XMAPS] = COL("mappings", "Maps", 5, 0, UNIT_COUNT, REC_XCAT, -1),
	[COL_XC0 + PMAPS_XC_RSS] = XCOL(PMAPS_XC_RSS, "rss", "Rss"),
	[COL_XC0 + PMAPS_XC_PRIVATE_DIRTY] = XCOL(PMAPS_XC_PRIVATE_DIRTY, "private_dirty", "PrDirty"),
	[COL_XC0 + PMAPS_XC_PRIVATE_CLEAN] = XCOL(PMAPS_XC_PRIVATE_CLEAN, "private_clean", "PrClean"),
	[COL_XC0 + PMAPS_XC_SHARED] = XCOL(PMAPS_XC_SHARED, "shared", "Shared"),
	[COL_XC0 + PMAPS_XC_LAZYFREE] = XCOL(PMAPS_XC_LAZYFREE, "lazy_free", "LazyFree"),
	[COL_XC0 + PMAPS_XC_THP] = XCOL(PMAPS_XC_THP, "thp", "THP"),
	[COL_XC0 + PMAPS_XC_LOCKED] = XCOL(PMAPS_XC_LOCKED, "locked", "Locked"),
	[COL_XC0 + PMAPS_XC_SWAP] = XCOL(PMAPS_XC_SWAP, "swap", "Swap"),
	[COL_XC0 + PMAPS_XC_PSS] = XCOL(PMAPS_XC_PSS, "pss", "Pss"),
	[COL_XC0 + PMAPS_XC_SWAP_PSS] = XCOL(PMAPS_XC_SWAP_PSS, "swap_pss", "SwapPss"),
	[COL_XC0 + PMAPS_XC_SHARED_CLEAN] = XCOL(PMAPS_XC_SHARED_CLEAN, "shared_clean", "ShClean"),
	[COL_XC0 + PMAPS_XC_PRIVATE] = XCOL(PMAPS_XC_PRIVATE, "private", "Private"),
	[COL_XPCT] = COL("rss_percent", "%RSS", 7, 0, UNIT_TEXT, REC_XCAT, -1),
	[COL_XP0 + PMAPS_XP_RESIDENT] = XPAGE(PMAPS_XP_RESIDENT, "resident", "Resident"),
	[COL_XP0 + PMAPS_XP_DIRTY] = XPAGE(PMAPS_XP_DIRTY, "kpf_dirty", "KpfDirty"),
	[COL_XP0 + PMAPS_XP_LAZYFREE] = XPAGE(PMAPS_XP_LAZYFREE, "lazy_free", "LazyFree"),
	[COL_XP0 + PMAPS_XP_SHARED] = XPAGE(PMAPS_XP_SHARED, "mapped_by_2_or_more", "MapCnt>1"),
	[COL_XP0 + PMAPS_XP_THP] = XPAGE(PMAPS_XP_THP, "kpf_thp", "KpfTHP"),
	[COL_XP0 + PMAPS_XP_ZERO] = XPAGE(PMAPS_XP_ZERO, "zero", "Zero"),

	[COL_REFRESH] = COL("refresh", "Refresh", 7, 0, UNIT_COUNT, PP, -1),
	[COL_PID] = COL("pid", "PID", 7, 0, UNIT_COUNT, REC_PROC, -1),
	[COL_USER] = COL("user", "User", 8, 1, UNIT_TEXT, PP, -1),
	[COL_UID] = COL("uid", "UID", 6, 0, UNIT_COUNT, PP, -1),
	[COL_STATE] = COL("state", "S", 1, 1, UNIT_TEXT, REC_PROC, -1),
	[COL_COMMAND] = COL("command", "Command", 15, 1, UNIT_TEXT, REC_PROC, -1),
	[COL_SV0 + PMAPS_SV_RSS] = SURVEY(PMAPS_SV_RSS, "rss", "RSS"),
	[COL_SV0 + PMAPS_SV_PSS] = SURVEY(PMAPS_SV_PSS, "pss", "PSS"),
	[COL_SV0 + PMAPS_SV_USS] = SURVEY(PMAPS_SV_USS, "uss", "USS"),
	[COL_SV0 + PMAPS_SV_SWAP] = SURVEY(PMAPS_SV_SWAP, "swap", "Swap"),
	[COL_SV0 + PMAPS_SV_SWAP_PSS] = SURVEY(PMAPS_SV_SWAP_PSS, "swap_pss", "SwapPss"),
	[COL_SV0 + PMAPS_SV_ANON] = SURVEY(PMAPS_SV_ANON, "anon", "Anon"),
	[COL_SV0 + PMAPS_SV_FILE] = SURVEY(PMAPS_SV_FILE, "file", "File"),
	[COL_SV0 + PMAPS_SV_SHMEM] = SURVEY(PMAPS_SV_SHMEM, "shmem", "Shmem"),
	[COL_SV0 + PMAPS_SV_LAZYFREE] = SURVEY(PMAPS_SV_LAZYFREE, "lazyfree", "LazyFree"),
	[COL_SV0 + PMAPS_SV_VSIZE] = SURVEY(PMAPS_SV_VSIZE, "vsize", "VSize"),
	[COL_SV0 + PMAPS_SV_THREADS] = COL("threads", "Thr", 4, 0, UNIT_COUNT, PP, PMAPS_SV_THREADS),
	[COL_SV0 + PMAPS_SV_MINFLT] = COL("minflt", "MinFlt", 9, 0, UNIT_COUNT, PP, PMAPS_SV_MINFLT),
	[COL_SV0 + PMAPS_SV_MAJFLT] = COL("majflt", "MajFlt", 7, 0, UNIT_COUNT, PP, PMAPS_SV_MAJFLT),
	[COL_SV0 + PMAPS_SV_HWM] = SURVEY(PMAPS_SV_HWM, "hwm", "HWM"),
	[COL_SV0 + PMAPS_SV_PAGE_TABLES] = SURVEY(PMAPS_SV_PAGE_TABLES, "page_tables", "PTE"),
	[COL_SV0 + PMAPS_SV_LOCKED] = SURVEY(PMAPS_SV_LOCKED, "locked", "Locked"),
	[COL_PROCS] = COL("processes", "Procs", 5, 0, UNIT_COUNT, REC_PGROUP, -1),
	[COL_PARTIAL] = COL("partial", "Partial", 7, 1, UNIT_TEXT, REC_PGROUP, -1),
	[COL_PSOURCE] = COL("source", "Source", 6, 1, UNIT_TEXT, REC_PROC, -1),
	[COL_AGE] = COL("age_s", "Age", 5, 0, UNIT_TEXT, REC_PROC, -1),
	[COL_MARK] = COL("flags", "M", 1, 1, UNIT_TEXT, REC_PROC, -1),
	[COL_CGROUP] = COL("cgroup", "Cgroup", 0, 1, UNIT_TEXT, PP, -1),
	[COL_PMEM] = COL("mem_percent", "%MEM", 5, 0, UNIT_TEXT, PP, -1),
};

int col_lookup(const char *s, size_t n)
{
	int f;

	for (int c = 0; c < COL_MAPS_END; c++)
		if (columns[c].key.n == n && strncasecmp(columns[c].key.s, s, n) == 0)
			return c;
	/* The kernel's names ("Private_Dirty", "VmFlags") are accepted too. */
	if (n == 7 && strncasecmp(s, "vmflags", 7) == 0)
		return COL_VMFLAGS;
	f = pmaps_field_lookup(s, n);
	return f >= 0 && f < PMAPS_F_COUNT ? f : -1;
}

int col_sort_desc(int col)
{
	if (col < 0 || col >= COL_COUNT)
		return 0;
	return columns[col].unit == UNIT_BYTES || col < PMAPS_F_COUNT || col == COL_MAPPINGS ||
	       col == COL_PROCS || (col >= COL_SV0 && col < COL_SV0 + PMAPS_SV_COUNT) ||
	       col == COL_PMEM;
}

int col_top_lookup(const char *s, size_t n, unsigned records)
{
	for (int c = COL_REFRESH; c < COL_COUNT; c++)
		if ((columns[c].records & records) && columns[c].key.n == n &&
		    strncasecmp(columns[c].key.s, s, n) == 0)
			return c;
	return -1;
}

int parse_columns(const char *spec, int *cols, int max, int grouped)
{
	int n = 0;

	if (strcmp(spec, "all") == 0) {
		static const int lead[] = {COL_ADDRESS, COL_PERMS, COL_OFFSET, COL_DEV, COL_INODE, COL_KIND};
		if (grouped) {
			cols[n++] = COL_KIND;
			cols[n++] = COL_MAPPINGS;
			cols[n++] = COL_VSIZE;
		} else {
			for (size_t i = 0; i < sizeof(lead) / sizeof(lead[0]); i++)
				cols[n++] = lead[i];
		}
		for (int f = 0; f < PMAPS_F_COUNT; f++)
			cols[n++] = f;
		if (!grouped)
			cols[n++] = COL_VMFLAGS;
		cols[n++] = COL_PATH;
		return n;
	}
	if (!*spec) {
		die_msg("--fields: no field named (see pmaps maps --help)");
		return -1;
	}
	for (;;) {
		const char *e = strchr(spec, ',');
		size_t len = e ? (size_t)(e - spec) : strlen(spec);
		int c = len ? col_lookup(spec, len) : -1;
		if (len == 0) {
			die_msg("--fields: an empty name in the list (names are separated by one comma)");
			return -1;
		}
		if (c < 0) {
			die_msg("--fields: unknown field '%.*s' (see pmaps maps --help)", (int)len, spec);
			return -1;
		}
		if (grouped && !(columns[c].records & REC_GROUP)) {
			die_msg("--fields: '%.*s' is per mapping and cannot be shown with --group or --total",
			        (int)len, spec);
			return -1;
		}
		for (int i = 0; i < n; i++)
			if (cols[i] == c) {
				die_msg("--fields: '%.*s' is named twice", (int)len, spec);
				return -1;
			}
		if (n >= max) {
			die_msg("--fields: too many fields");
			return -1;
		}
		cols[n++] = c;
		spec += len;
		if (*spec != ',')
			break;
		spec++;
	}
	return n;
}
