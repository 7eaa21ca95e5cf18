/* SPDX-License-Identifier: MIT */
/*
 * uapi.h - kernel interfaces copied here because the installed headers are
 * older than they are (PAGEMAP_SCAN, Linux 6.7) or never had them (the
 * task flags /proc/PID/stat prints), and the calls pmaps makes with them:
 * shared with the benchmark, whose bare walks must make the same calls.
 */
#ifndef PMAPS_UAPI_H
#define PMAPS_UAPI_H

#include <stdint.h>
#include <sys/ioctl.h>

/*
 * Valgrind (3.19, Debian 12) knows neither PAGEMAP_SCAN nor PROCMAP_QUERY:
 * it cannot see the kernel fill what they return and would call every read
 * of it uninitialised. Under valgrind the memory is marked written;
 * elsewhere the client request is a few instructions that do nothing.
 */
#if defined(__has_include)
#if __has_include(<valgrind/memcheck.h>)
#include <valgrind/memcheck.h>
#endif
#endif
#ifndef VALGRIND_MAKE_MEM_DEFINED
#define VALGRIND_MAKE_MEM_DEFINED(addr, len) ((void)(addr), (void)(len))
#endif

/* The PAGEMAP_SCAN ioctl on /proc/PID/pagemap (Linux 6.7): struct page_region. */
struct pmaps__page_region {
	uint64_t start, end, categories;
};

/* Its struct pm_scan_arg. */
struct pmaps__pm_scan_arg {
	uint64_t size, flags, start, end, walk_end, vec, vec_len, max_pages;
	uint64_t category_inverted, category_mask, category_anyof_mask, return_mask;
};

#define PMAPS_PAGEMAP_SCAN _IOWR('f', 16, struct pmaps__pm_scan_arg)

/* The PROCMAP_QUERY ioctl on /proc/PID/maps (Linux 6.11): struct procmap_query. */
struct pmaps__procmap_query {
	uint64_t size, query_flags, query_addr, vma_start, vma_end, vma_flags, vma_page_size;
	uint64_t vma_offset, inode;
	uint32_t dev_major, dev_minor, vma_name_size, build_id_size;
	uint64_t vma_name_addr, build_id_addr;
};
_Static_assert(sizeof(struct pmaps__procmap_query) == 104, "struct procmap_query");
#define PMAPS_PROCMAP_QUERY _IOWR('f', 17, struct pmaps__procmap_query)
#define PMAPS__QUERY_COVERING_OR_NEXT_VMA 0x10
/* Its page categories (PAGE_IS_*). */
#define PMAPS__CAT_WRITTEN (1u << 1)
#define PMAPS__CAT_FILE (1u << 2)
#define PMAPS__CAT_PRESENT (1u << 3)
#define PMAPS__CAT_SWAPPED (1u << 4)
#define PMAPS__CAT_PFNZERO (1u << 5)
#define PMAPS__CAT_HUGE (1u << 6)
#define PMAPS__CAT_SOFT_DIRTY (1u << 7)
#define PMAPS__CAT_GUARD (1u << 8) /* ~6.15: older kernels refuse it with EINVAL */

/* How pages.c calls it and reads pagemap. */
#define PMAPS__SCAN_VEC 512             /* regions per call */
#define PMAPS__SCAN_MAX_PAGES 4096      /* pages reported per call */
#define PMAPS__SCAN_SPAN (256ull << 20) /* address space walked per call, at first */
/*
 * A call that found nothing in its whole span, quickly (SCAN_QUICK_NS),
 * doubles the next one's span, up to SCAN_SPAN_MAX; a call that found pages
 * or took longer starts again from SCAN_SPAN. Sparse space (a sanitizer's
 * 16 TiB shadow, a runtime's reservations) then takes hundreds of calls,
 * not 65,536; where page tables are populated, the walk keeps small steps.
 */
#define PMAPS__SCAN_SPAN_MAX (16ull << 30)
#define PMAPS__SCAN_QUICK_NS 20000u
#define PMAPS__PM_ENTRIES 16384         /* pagemap entries per pread: 128 KiB */
/*
 * The end of x86-64's 4-level user address space (TASK_SIZE_MAX):
 * PAGEMAP_SCAN fails with EFAULT for a range that passes the real end, so a
 * range that crosses this one is cut here before it is given up.
 */
#define PMAPS__USER_TOP47 ((1ull << 47) - 4096)

/* Task flags, the 9th field of /proc/PID/stat (PF_*: no header exports them). */
#define PMAPS__PF_EXITING 0x00000004u   /* in do_exit() */
#define PMAPS__PF_KTHREAD 0x00200000u   /* a kernel thread: no user-space memory */

#endif
