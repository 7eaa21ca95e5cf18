/* SPDX-License-Identifier: MIT */
/*
 * internal.h - what libpmaps' files share and its tests may use, but is not API.
 */
#ifndef PMAPS_INTERNAL_H
#define PMAPS_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "pmaps.h"

#define PMAPS_ERRMSG_SIZE 256
#define PMAPS_PATH_BUF 8192
#define PMAPS_VMFLAGS_BUF 256
#define PMAPS_UNKNOWN_NAME 48
#define PMAPS_UNKNOWN_TEXT 48

void *pmaps__alloc(size_t size);
void pmaps__free(void *ptr);

/* Formats into a fixed buffer; never fails, truncates. */
void pmaps__msg(char *buf, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

struct pmaps_proc {
	int rootfd;           /* the proc root directory */
	int dirfd;            /* ROOT/PID */
	int pid;
	int live;             /* the root is a real procfs, not a fixture tree */
	char pidname[24];
};

/*
 * What identifies the program a pid runs: fields of /proc/PID/stat that exec
 * changes (start_code, end_code, start_stack, arg_start; ASLR makes them
 * differ between two execs of one binary). The kernel shows them only with
 * ptrace-read access; without it they read 0 and exec goes unnoticed.
 */
struct pmaps__ident {
	int ok;               /* stat was read */
	char state;           /* R S D Z X ... */
	int kthread;          /* PF_KTHREAD: no user-space memory at all */
	uint64_t code_start, code_end, stack_start, arg_start;
};

/* Reads PROC's stat. Returns 0, or a negative errno (-ESRCH when gone). */
int pmaps__proc_ident(const struct pmaps_proc *proc, struct pmaps__ident *id);

/*
 * After a read ended early or failed: did the process exit (-ESRCH) or exec
 * (-ESTALE, compared with BEFORE) while WHAT was read? Writes a message into
 * MSG for either; 0 when neither (or PROC is not a live procfs).
 */
int pmaps__check_target(const struct pmaps_proc *proc, const struct pmaps__ident *before,
                        const char *what, char *msg, size_t size);

/* openat(PROC->dirfd, NAME, O_RDONLY|O_CLOEXEC), mapping "gone" errors to -ESRCH. */
int pmaps__openat(const struct pmaps_proc *proc, const char *name);

/*
 * Read hook for fault injection in tests: when set, every read the library
 * makes calls it instead of read(2). It returns what read(2) would, with
 * errno set on -1.
 */
typedef ssize_t (*pmaps__read_fn)(int fd, void *buf, size_t len);
extern pmaps__read_fn pmaps__read_hook;
ssize_t pmaps__read(int fd, void *buf, size_t len);
/* pread(2), or its hook: the page reader's reads, for fault injection. */
typedef ssize_t (*pmaps__pread_fn)(int fd, void *buf, size_t len, off_t off);
extern pmaps__pread_fn pmaps__pread_hook;
ssize_t pmaps__pread(int fd, void *buf, size_t len, off_t off);

/*
 * A cursor over text in memory instead of a file (the fuzz targets and the
 * parser tests). DATA must outlive the cursor; rewind starts it over.
 */
int pmaps__maps_open_mem(struct pmaps_maps **out, enum pmaps_source source,
                         const void *data, size_t len, size_t bufsize);

/* Test knob: hand in-memory text over in pieces of at most N bytes (0: all). */
void pmaps__maps_set_chunk(struct pmaps_maps *c, size_t n);

/* Sets M->kind from its name, inode, perms and VmFlags. */
void pmaps__classify(struct pmaps_mapping *m, enum pmaps_source source);

/* Looks up a VmFlags code; -1 when unknown. Once per code per VMA: a table. */
extern const unsigned char pmaps__vmflag_table[26][26];
static inline int pmaps__vmflag_lookup(char a, char b)
{
	unsigned x = (unsigned)(a - 'a'), y = (unsigned)(b - 'a');

	return x < 26 && y < 26 ? pmaps__vmflag_table[x][y] - 1 : -1;
}

/*
 * PAGEMAP_SCAN (Linux 6.7, include/uapi/linux/fs.h; the installed headers are
 * older), and how pages.c calls it and reads pagemap: shared with the
 * benchmark, whose bare walks must make the same calls.
 */
#include <sys/ioctl.h>

struct pmaps__page_region {
	uint64_t start, end, categories;
};

struct pmaps__pm_scan_arg {
	uint64_t size, flags, start, end, walk_end, vec, vec_len, max_pages;
	uint64_t category_inverted, category_mask, category_anyof_mask, return_mask;
};

#define PMAPS_PAGEMAP_SCAN _IOWR('f', 16, struct pmaps__pm_scan_arg)
#define PMAPS__CAT_WRITTEN (1u << 1)
#define PMAPS__CAT_FILE (1u << 2)
#define PMAPS__CAT_PRESENT (1u << 3)
#define PMAPS__CAT_SWAPPED (1u << 4)
#define PMAPS__CAT_PFNZERO (1u << 5)
#define PMAPS__CAT_HUGE (1u << 6)
#define PMAPS__CAT_SOFT_DIRTY (1u << 7)
#define PMAPS__CAT_GUARD (1u << 8) /* ~6.15: older kernels refuse it with EINVAL */

#define PMAPS__SCAN_VEC 512             /* regions per call */
#define PMAPS__SCAN_MAX_PAGES 4096      /* pages reported per call */
#define PMAPS__SCAN_SPAN (256ull << 20) /* address space walked per call, at most */
#define PMAPS__PM_ENTRIES 16384         /* pagemap entries per pread: 128 KiB */

#endif
