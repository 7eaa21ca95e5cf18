/* SPDX-License-Identifier: MIT */
/*
 * pmaps.h - the public API of libpmaps.
 *
 * libpmaps reads where a Linux process's memory is from procfs: its mappings
 * (/proc/PID/maps, smaps, smaps_rollup), classified into kinds and grouped.
 * Everything declared here is API; nothing else is.
 *
 * Conventions
 *  - Functions return 0 (or a count) on success and a negative errno on
 *    failure. A process that exits or exec's while it is read is a normal
 *    outcome: -ESRCH (exited) or -ESTALE (exec'd). Malformed text is -EBADMSG,
 *    with the line number and byte offset in the cursor's message.
 *  - A read is whole or an error. A cursor reports the end (0) only when
 *    it read the whole address space of one program, of a process that did
 *    not die during the read; a process killed, exiting or exec'ing at any
 *    moment of it gives -ESRCH or -ESTALE, never a shorter list. A zombie is
 *    -ESRCH at open (the message says "zombie"), a kernel thread -ENODATA
 *    at open, for every source. When the main thread has left with
 *    pthread_exit(), the process is read through one of its live threads.
 *    An execve() with no program mapped yet is waited out, up to 50 ms,
 *    then -EAGAIN.
 *  - Values no kernel prints are -EBADMSG, never summed: a Size that is not
 *    the mapping's length, a page count (but Swap) larger than its mapping,
 *    Rss other than its four shared/private clean/dirty parts, Pss above
 *    Rss, a field twice in one record, a mapping whose end is not above the
 *    one before (a start below it is the kernel's: PMAPS_ROW_OVERLAP).
 *  - Files under the proc root are opened without following symlinks and
 *    without blocking, and read only if they are regular files (-EBADMSG
 *    otherwise): a fixture tree, or a target, cannot make pmaps read a FIFO,
 *    a device or a file outside the tree.
 *  - Cursors work like sqlite3_step(): pmaps_maps_next() returns 1 and a row,
 *    0 at the end, or a negative errno. The row lives inside the cursor and is
 *    valid until the next call on that cursor.
 *  - Sizes leave the library in bytes.
 *  - Every pointer a function returns says how long it stays valid: a row
 *    or result until the next call on the cursor or session that gave it
 *    (or its close); a name from a pmaps_*_name() or pmaps_*_key() function forever (a
 *    static string).
 *  - Figures are computed here, once: a front end shows records (mapping,
 *    group, page run, page summary, explain result) and chooses only words
 *    and layout. Derived values (USS, shared, effective RSS, ...) come from
 *    pmaps_mapping_value(), pmaps_group_value() and the explain result.
 *  - The library never prints, exits or aborts. It allocates only when a
 *    handle or cursor is opened: never per mapping, never when a cursor is
 *    rewound for a refresh. pmaps_set_allocator() lets a program count that.
 *  - The ABI (libpmaps.so.0) survives new kernel fields, categories and
 *    notes: an array in a struct a program sees, indexed by an enum, has a
 *    frozen capacity, PMAPS_*_MAX, while the enum's *_COUNT is how many
 *    entries this version knows (COUNT <= MAX); iterate to *_COUNT. Entries
 *    from COUNT to MAX are 0. A struct gets new members only at its end,
 *    and an existing member never moves or changes its type. An enum
 *    constant keeps its number: new ones come before *_COUNT (value keys
 *    start at PMAPS_F_MAX, PMAPS_VM_UNKNOWN is bit 63), so a new one
 *    renumbers none.
 *  - A struct the caller allocates and the library fills (struct
 *    pmaps_status, struct pmaps_page_summary, struct pmaps_explain, and
 *    pmaps_total()'s row) comes with its size, as the kernel's structs do:
 *    the caller sets its first member SIZE to sizeof the struct (or passes
 *    it, for the row). The library builds the whole result in its own
 *    storage and copies min(the caller's size, its own sizeof) bytes: never
 *    a byte past the caller's size, SIZE left as the caller set it. A size
 *    below the struct's size in ABI 0 (as libpmaps 0.1.0 declared it) is
 *    -EINVAL, with nothing written. A caller built with a newer header that
 *    zeroes the struct first reads 0 in the members an older library does
 *    not know (pmaps_version() tells which library it is). Structs the library
 *    hands out by pointer (rows, results, struct pmaps_proc_info) only ever
 *    grow at their end, and set their SIZE to their sizeof where they have one.
 *  - Handles and cursors are not thread-safe. A handle and the cursors
 *    opened on it share state (which thread's directory a process whose
 *    main thread exited is read through): use them from one thread at a
 *    time. Distinct handles, with their cursors, may be used from distinct
 *    threads at once (the allocator hook is global: set it first).
 */
#ifndef PMAPS_H
#define PMAPS_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PMAPS_VERSION "0.4.0"
/* The same version as a number, major * 10000 + minor * 100 + patch: 0.2.0 is 200. */
#define PMAPS_VERSION_NUMBER 400

/*
 * Marks what libpmaps exports. The library is built with hidden visibility:
 * a function without PMAPS_API is not part of the shared object's ABI.
 */
#if defined(__GNUC__) || defined(__clang__)
#define PMAPS_API __attribute__((visibility("default")))
#else
#define PMAPS_API
#endif

/*
 * PMAPS_VERSION_NUMBER of the library actually loaded, which may be newer
 * than the header a program was compiled with.
 */
PMAPS_API unsigned pmaps_version(void);

/* ------------------------------------------------------------------ */
/* Allocation                                                          */

/*
 * Replaces the allocator libpmaps uses (default: malloc/free). Pass NULLs to
 * restore the default. CTX is passed to both. Set it before opening
 * anything: memory is freed through the hook current at the time, so
 * switching hooks while handles or cursors are open is undefined.
 */
PMAPS_API void pmaps_set_allocator(void *(*alloc_fn)(size_t size, void *ctx),
                                   void (*free_fn)(void *ptr, void *ctx), void *ctx);

/* A human-readable description of a negative errno returned by libpmaps (a static string). */
PMAPS_API const char *pmaps_strerror(int err);

/* ------------------------------------------------------------------ */
/* Process handle                                                      */

struct pmaps_proc;

/*
 * Opens process PID under PROC_ROOT (NULL means "/proc"): a directory file
 * descriptor on PROC_ROOT/PID from which every later file is opened with
 * openat(), so a reused pid is never read by mistake. PID is a decimal pid or
 * "self" (which means the calling process, resolved to its pid so that the
 * handle keeps meaning it). PROC_ROOT may be a host's proc mounted inside a
 * container, or a fixture tree in the same layout.
 *
 * Returns 0 and *OUT, or: -ESRCH (no such process), -EINVAL (PID is not a
 * pid), -ENOENT (PROC_ROOT missing), -EACCES, -ENOMEM. *OUT is NULL on error.
 */
PMAPS_API int pmaps_proc_open(struct pmaps_proc **out, const char *proc_root, const char *pid);

/* Closes the handle. NULL is allowed. Close every cursor first. */
PMAPS_API void pmaps_proc_close(struct pmaps_proc *proc);

/* The pid the handle names (for "self", the resolved pid; 0 if unknown). */
PMAPS_API int pmaps_proc_pid(const struct pmaps_proc *proc);

/*
 * 1 when the process is a kernel thread (it has no user-space memory: its
 * maps and smaps are empty, its smaps_rollup cannot be opened), 0 when not
 * or when PROC_ROOT is not a live procfs, or a negative errno (-ESRCH gone).
 */
PMAPS_API int pmaps_proc_is_kernel_thread(const struct pmaps_proc *proc);

/* The directory fd on PROC_ROOT/PID, owned by the handle. */
PMAPS_API int pmaps_proc_dirfd(const struct pmaps_proc *proc);

/*
 * Since 0.4.0: the command line of process PID under PROC_ROOT (NULL:
 * /proc), its arguments NUL-separated as the kernel keeps them, into BUF
 * (SIZE bytes, at least 1): at most SIZE - 1 bytes, NUL-terminated, the
 * length in *LEN. Bytes the target chose: escape them before showing them.
 * Opened as every file of a process is (no symlink followed, a regular
 * file or procfs's own). Returns 0 (all of it; empty for a kernel thread
 * or a zombie), 1 (cut at SIZE - 1 bytes), or a negative errno (-ESRCH,
 * -EACCES, -EINVAL).
 */
PMAPS_API int pmaps_cmdline_read(const char *proc_root, int pid, char *buf, size_t size,
                                 size_t *len);

/* ------------------------------------------------------------------ */
/* Mapping rows                                                        */

/* A pointer and a length. Not NUL-terminated unless said so. */
struct pmaps_view {
	const char *ptr;
	size_t len;
};

/*
 * The smaps fields the library knows, in the kernel's print order. Sizes are
 * stored in bytes (the kernel prints kB = KiB); THP_ELIGIBLE and
 * PROTECTION_KEY are bare integers the kernel prints without a unit.
 */
enum pmaps_field {
	PMAPS_F_SIZE,
	PMAPS_F_KERNEL_PAGE_SIZE,
	PMAPS_F_MMU_PAGE_SIZE,
	PMAPS_F_RSS,
	PMAPS_F_PSS,
	PMAPS_F_PSS_DIRTY,      /* ~6.0 */
	PMAPS_F_PSS_ANON,       /* smaps_rollup only, ~5.7 */
	PMAPS_F_PSS_FILE,       /* smaps_rollup only, ~5.7 */
	PMAPS_F_PSS_SHMEM,      /* smaps_rollup only, ~5.7 */
	PMAPS_F_SHARED_CLEAN,
	PMAPS_F_SHARED_DIRTY,
	PMAPS_F_PRIVATE_CLEAN,
	PMAPS_F_PRIVATE_DIRTY,
	PMAPS_F_REFERENCED,
	PMAPS_F_ANONYMOUS,
	PMAPS_F_KSM,            /* ~6.6 */
	PMAPS_F_LAZY_FREE,      /* 4.12 */
	PMAPS_F_ANON_HUGE_PAGES,
	PMAPS_F_SHMEM_PMD_MAPPED, /* 4.8 */
	PMAPS_F_FILE_PMD_MAPPED,  /* ~5.4 */
	PMAPS_F_SHARED_HUGETLB, /* 4.4 */
	PMAPS_F_PRIVATE_HUGETLB, /* 4.4 */
	PMAPS_F_SWAP,
	PMAPS_F_SWAP_PSS,       /* 4.3 */
	PMAPS_F_LOCKED,
	PMAPS_F_THP_ELIGIBLE,   /* ~5.0, a 0/1 flag, not a size */
	PMAPS_F_PROTECTION_KEY, /* 4.9, only when pkeys are in use, not a size */
	PMAPS_F_COUNT
};
/* Room for smaps fields in a row's v[] (and bits in its present mask). */
#define PMAPS_F_MAX 64
/*
 * Smaps fields stay below this index of v[] (and bit of PRESENT); from it
 * on, a row holds the values a page source measures that no smaps field
 * holds (enum pmaps_value key K at PMAPS_F_MEASURED + K - PMAPS_F_MAX):
 * USS and shared from pagemap's exclusive bit, ZERO_PAGE. Read them through
 * pmaps_mapping_value(), which prefers them to sums of smaps fields.
 * Since 0.2.0, inside ABI 0's v[].
 */
#define PMAPS_F_MEASURED 48

/* The kernel's name of a field ("Private_Dirty"), or NULL when out of range. */
PMAPS_API const char *pmaps_field_name(enum pmaps_field f);
/* The snake_case name used in JSON and CSV ("private_dirty"). */
PMAPS_API const char *pmaps_field_key(enum pmaps_field f);
/* Looks a field up by kernel name or snake_case key, case-insensitively; -1 if none. */
PMAPS_API int pmaps_field_lookup(const char *name, size_t len);
/* 1 when the field is a size in bytes, 0 for THP_ELIGIBLE and PROTECTION_KEY. */
PMAPS_API int pmaps_field_is_size(enum pmaps_field f);

/*
 * Where figures come from (docs/internals/SOURCES.md), cheapest first for
 * the target: reading smaps or smaps_rollup holds its mmap_lock for a
 * whole walk of its page tables, which stalls its mmap()/munmap() for
 * milliseconds; the page sources walk in bounded steps that can pause.
 */
enum pmaps_source {
	PMAPS_SRC_MAPS,   /* /proc/PID/maps: no sizes, cheapest to read */
	PMAPS_SRC_SMAPS,  /* /proc/PID/smaps: every field, per mapping */
	PMAPS_SRC_ROLLUP, /* /proc/PID/smaps_rollup: one row, summed (4.14+) */
	/*
	 * The mappings from the PROCMAP_QUERY ioctl (6.11+; the maps text
	 * before) and their pages from PAGEMAP_SCAN (6.7+; pagemap before):
	 * Size, Rss, Anonymous, AnonHugePages, Swap (not of shared memory),
	 * FilePmdMapped and ShmemPmdMapped where the backing is known,
	 * KernelPageSize (PROCMAP_QUERY), and the values FILE_RSS and
	 * ZERO_PAGE. No VmFlags. Every other field is absent. PROCMAP_QUERY
	 * does not list [vsyscall], which is no VMA (and has no pages). Where
	 * it reads pagemap instead of PAGEMAP_SCAN (before 6.7) it has USS and
	 * shared too, and no huge pages (pmaps_source_keys() says).
	 */
	PMAPS_SRC_FAST,
	/*
	 * FAST, and pagemap's exclusive bit read over the present pages only:
	 * USS and shared (pmaps_mapping_value()). As root (CAP_SYS_ADMIN) also
	 * Pss from /proc/kpagecount and LazyFree from /proc/kpageflags.
	 */
	PMAPS_SRC_PAGES,
	/* /proc/PID/status: totals only (VmRSS and its parts, VmSwap) */
	PMAPS_SRC_STATUS,
	PMAPS_SRC_COUNT,
	/* Asks pmaps_source_choose() for the cheapest source that answers. */
	PMAPS_SRC_AUTO = 31
};
/* Its name ("smaps", "smaps_rollup", "fast", "pages", "status", "auto"), or NULL. */
PMAPS_API const char *pmaps_source_name(enum pmaps_source s);
/* Looks a source up by name ("rollup" too); -1 if none. */
PMAPS_API int pmaps_source_lookup(const char *name, size_t len);

/* Permission bits of a mapping (the maps "rwxp"/"rwxs" column). */
enum {
	PMAPS_PERM_READ = 1u << 0,
	PMAPS_PERM_WRITE = 1u << 1,
	PMAPS_PERM_EXEC = 1u << 2,
	PMAPS_PERM_SHARED = 1u << 3, /* 's': VM_MAYSHARE; else 'p' */
};

/* What a mapping is, decided from its name, inode, permissions and VmFlags. */
enum pmaps_kind {
	PMAPS_KIND_ANON,       /* private anonymous, nameless */
	PMAPS_KIND_ANON_NAMED, /* [anon:NAME] (PR_SET_VMA_ANON_NAME, 5.17+) */
	PMAPS_KIND_HEAP,       /* [heap]: the brk area */
	PMAPS_KIND_STACK,      /* [stack]: the main thread's stack */
	PMAPS_KIND_FILE_TEXT,  /* file-backed, executable */
	PMAPS_KIND_FILE_DATA,  /* file-backed, writable */
	PMAPS_KIND_FILE_RO,    /* file-backed, read-only, not executable */
	PMAPS_KIND_SHMEM,      /* memfd, SysV shm, /dev/zero shared, [anon_shmem:], /dev/shm */
	PMAPS_KIND_HUGETLB,    /* hugetlbfs or MAP_HUGETLB */
	PMAPS_KIND_VDSO,       /* [vdso] [vvar] [vvar_vclock] [vsyscall] [uprobes] */
	PMAPS_KIND_GUARD,      /* no access at all (---p): guard pages, reservations */
	PMAPS_KIND_OTHER,      /* a bracketed name the library does not know */
	PMAPS_KIND_ROLLUP,     /* the single row of smaps_rollup */
	PMAPS_KIND_COUNT
};

/* A short lower-case name for a kind ("file-text"), or NULL when out of range. */
PMAPS_API const char *pmaps_kind_name(enum pmaps_kind k);
/* Looks a kind up by its name; -1 if none. */
PMAPS_API int pmaps_kind_lookup(const char *name, size_t len);

/* VmFlags codes, in the kernel's bit order as printed by smaps. */
enum pmaps_vmflag {
	PMAPS_VM_RD, PMAPS_VM_WR, PMAPS_VM_EX, PMAPS_VM_SH, PMAPS_VM_MR, PMAPS_VM_MW,
	PMAPS_VM_ME, PMAPS_VM_MS, PMAPS_VM_GD, PMAPS_VM_PF, PMAPS_VM_GU, PMAPS_VM_LO,
	PMAPS_VM_IO, PMAPS_VM_SR, PMAPS_VM_RR, PMAPS_VM_DC, PMAPS_VM_DE, PMAPS_VM_LF,
	PMAPS_VM_AC, PMAPS_VM_NR, PMAPS_VM_HT, PMAPS_VM_SF, PMAPS_VM_AR, PMAPS_VM_WF,
	PMAPS_VM_DD, PMAPS_VM_SD, PMAPS_VM_MM, PMAPS_VM_HG, PMAPS_VM_NH, PMAPS_VM_MG,
	PMAPS_VM_UM, PMAPS_VM_UW, PMAPS_VM_SS, PMAPS_VM_SL, PMAPS_VM_DP, PMAPS_VM_BT,
	PMAPS_VM_MT, PMAPS_VM_UI,
	PMAPS_VM_COUNT, /* the codes this version knows: bits 0 to COUNT - 1 */
	/*
	 * Set when any code was not one of the known ones (or "??"): bit 63 in
	 * every version, new codes taking the bits from PMAPS_VM_COUNT on.
	 */
	PMAPS_VM_UNKNOWN = 63
};
/* The two-letter code of a VmFlags bit ("rd"; "??" for UNKNOWN), or NULL when none. */
PMAPS_API const char *pmaps_vmflag_code(enum pmaps_vmflag f);

/* Row flags. */
enum {
	/*
	 * The file has no name left: the name ends in " (deleted)", and where
	 * /proc/PID/map_files can be read (CAP_SYS_ADMIN), the mapped file's
	 * link count is 0 (a file really named "x (deleted)" is not).
	 */
	PMAPS_ROW_DELETED = 1u << 0,
	PMAPS_ROW_PATH_TRUNCATED = 1u << 1, /* the name did not fit: path holds its start */
	PMAPS_ROW_LINE_TRUNCATED = 1u << 2, /* a field line was longer than the buffer, or an
	                                       unknown field's name or text than its slot */
	PMAPS_ROW_UNKNOWN_DROPPED = 1u << 3, /* more unknown fields than PMAPS_MAX_UNKNOWN */
	PMAPS_ROW_VMFLAGS_TRUNCATED = 1u << 4, /* VmFlags text longer than its buffer */
	/*
	 * The name held "\012" escapes, now decoded into newlines. The kernel
	 * prints a name's four bytes \ 0 1 2 the same way: where map_files can
	 * be read, the name is taken from there instead, exact, and the flag
	 * says it holds a real newline.
	 */
	PMAPS_ROW_PATH_ESCAPED = 1u << 5,
	/*
	 * The mapping starts before the end of the row before it: it grew (or
	 * was remapped across) between two of the kernel's reads, which resume
	 * after the last end printed, and so it was listed again from its
	 * start. Its values are right for it, but a sum over the rows counts
	 * the overlap twice: read again for totals (pmaps does).
	 */
	PMAPS_ROW_OVERLAP = 1u << 6,
};
/*
 * The reader that gave a row (a mapping's, or a group's first member's),
 * kept in bits 24 to 27 of its FLAGS as the source plus 1, so that a row a
 * program builds (0 there) has none: PMAPS_ROW_SOURCE(flags) is the enum
 * pmaps_source, or -1. Since 0.2.0, inside ABI 0's FLAGS.
 */
#define PMAPS_ROW_SOURCE_SHIFT 24
#define PMAPS_ROW_SOURCE(flags) ((int)(((flags) >> PMAPS_ROW_SOURCE_SHIFT) & 0xfu) - 1)

/* Unknown fields a row keeps: frozen for ABI 0. */
#define PMAPS_MAX_UNKNOWN 16

/* A field line the library does not know, passed through. */
struct pmaps_unknown {
	struct pmaps_view name; /* as the kernel printed it, without the colon */
	uint64_t value;         /* in bytes when IS_KB, else as printed */
	int is_kb;              /* 1 when the line ended in " kB" */
	int is_number;          /* 0 when the value was not a number: see TEXT */
	struct pmaps_view text; /* the value as printed, spaces trimmed */
};

/*
 * One mapping (or the one rollup row). Views point into the cursor and stay
 * valid until the next call on it.
 */
struct pmaps_mapping {
	uint64_t start, end;     /* [start, end) */
	uint64_t offset;         /* file offset in bytes */
	uint64_t inode;
	uint32_t dev_major, dev_minor;
	unsigned perms;          /* PMAPS_PERM_* */
	unsigned flags;          /* PMAPS_ROW_* */
	enum pmaps_kind kind;
	/*
	 * The name exactly as the kernel gave it ("\012" decoded back into a
	 * newline), including any " (deleted)" suffix, or [heap], [anon:NAME],
	 * ... Empty for nameless mappings. NUL-terminated.
	 */
	struct pmaps_view path;
	uint64_t present;        /* bit (1 << f) set when field f was reported */
	/* values by enum pmaps_field, 0 when absent; measured ones from PMAPS_F_MEASURED */
	uint64_t v[PMAPS_F_MAX];
	uint64_t vm_flags;       /* bit (1 << enum pmaps_vmflag) */
	struct pmaps_view vm_flags_text; /* the VmFlags codes as printed, trimmed */
	unsigned n_unknown;
	struct pmaps_unknown unknown[PMAPS_MAX_UNKNOWN];
	unsigned line;           /* line number of the mapping's header, from 1 */
};

/*
 * Values of a mapping or group row by key: the smaps fields (enum
 * pmaps_field, 0 to PMAPS_F_COUNT - 1), then figures derived from them,
 * from PMAPS_F_MAX on (so that a new field renumbers none of them). Keys
 * from PMAPS_F_COUNT to PMAPS_F_MAX - 1 are no value.
 */
enum pmaps_value {
	PMAPS_V_SHARED = PMAPS_F_MAX, /* Shared_Clean + Shared_Dirty */
	PMAPS_V_USS,      /* Private_Clean + Private_Dirty: pages no other process maps */
	PMAPS_V_VSIZE,    /* end - start; a group: the sum (absent for smaps_rollup's row) */
	PMAPS_V_MAPPINGS, /* 1 for a mapping; a group: its members (absent for smaps_rollup's) */
	/* Rss - Anonymous: resident pages of files and of shared memory */
	PMAPS_V_FILE_RSS,
	/*
	 * Pages mapped to the shared (or huge) zero page: read, never written,
	 * not resident and not in Rss. Only the page sources see them
	 * (PMAPS_SRC_FAST, PMAPS_SRC_PAGES): smaps has no field for them.
	 */
	PMAPS_V_ZERO_PAGE,
	PMAPS_V_COUNT
};


/*
 * Value KEY (enum pmaps_field or enum pmaps_value) of a row into *V. Returns
 * 1 when the row has it, 0 when it is absent (*V is then 0: never show it as
 * a 0), -1 when KEY is out of range. A derived value is present when every
 * field it is made of is; its sum saturates at 2^64 - 1 (never wraps).
 */
PMAPS_API int pmaps_mapping_value(const struct pmaps_mapping *m, int key, uint64_t *v);
/* The snake_case key of a value ("shared", "uss", or a field's), or NULL. */
PMAPS_API const char *pmaps_value_key(int key);
/* Looks a value up by key (or a field by kernel name), case-insensitively; -1 if none. */
PMAPS_API int pmaps_value_lookup(const char *name, size_t len);

/* ------------------------------------------------------------------ */
/* /proc/PID/status                                                    */

/* The figures of /proc/PID/status the library reads (sizes in bytes). */
enum pmaps_status_field {
	PMAPS_ST_VM_SIZE,   /* VmSize */
	PMAPS_ST_VM_RSS,    /* VmRSS = RssAnon + RssFile + RssShmem */
	PMAPS_ST_RSS_ANON,  /* 4.5 */
	PMAPS_ST_RSS_FILE,
	PMAPS_ST_RSS_SHMEM,
	PMAPS_ST_VM_HWM,    /* peak RSS */
	PMAPS_ST_VM_PTE,    /* page tables */
	PMAPS_ST_VM_SWAP,
	PMAPS_ST_THREADS,   /* a count */
	PMAPS_ST_UID,       /* the real uid (first of the four Uid: values) */
	PMAPS_ST_EUID,      /* the effective uid */
	/* Since 0.4.0: */
	PMAPS_ST_GID,       /* the real gid (first of the four Gid: values) */
	PMAPS_ST_EGID,      /* the effective gid */
	PMAPS_ST_STATE,     /* the state letter's code ('S', 'R', 'T', 'Z', ...) */
	/*
	 * The pid in the process's own pid namespace: the last of NSpid (4.1+);
	 * the pid itself outside any namespace of its own
	 */
	PMAPS_ST_NSPID,
	PMAPS_ST_PPID,      /* the parent's pid (PPid:; 0 for a namespace's first process) */
	PMAPS_ST_VM_LCK,    /* VmLck: locked (mlock) memory (0.4.0) */
	PMAPS_ST_COUNT
};
/* Room for status figures in struct pmaps_status. */
#define PMAPS_ST_MAX 64

struct pmaps_status {
	uint32_t size;      /* sizeof(struct pmaps_status): set by the caller (Conventions) */
	uint64_t present;   /* bit (1 << enum pmaps_status_field) when the line was read */
	uint64_t v[PMAPS_ST_MAX];
};

/* The snake_case key of a status field ("vm_rss"), or NULL. */
PMAPS_API const char *pmaps_status_key(enum pmaps_status_field f);

/*
 * Reads PROC's /proc/PID/status into ST through a fixed buffer (no
 * allocation; a line longer than it, such as a long Groups list, is skipped).
 * ST->size is the caller's (Conventions); on an error but -EINVAL, ST holds
 * zeros. Returns 0, or a negative errno with a message in MSG (which may be
 * NULL): -EINVAL (ST->size too small),
 * -ESRCH (gone), -EACCES, -EBADMSG (a value read here that is not "N kB"
 * or a number, or VmRSS other than its three parts: no kernel prints that),
 * -EIO. A kernel thread reads fine, with no Vm lines.
 */
PMAPS_API int pmaps_status_read(struct pmaps_proc *proc, struct pmaps_status *st, char *msg,
                                size_t msgsz);

/* ------------------------------------------------------------------ */
/* What a read costs the target, and how gently to read                */

/*
 * What reading a source costs: estimated before (pmaps_cost_estimate()) or
 * spent (pmaps_maps_cost(), pmaps_total_from()). The caller sets SIZE
 * (Conventions).
 */
struct pmaps_cost {
	uint32_t size;
	uint64_t ns;       /* estimated: kernel time; spent: wall time of the read */
	/*
	 * The longest the target's mmap_lock is held at a time: estimated, or
	 * spent (the longest kernel call that holds it: a PAGEMAP_SCAN or a
	 * read() of smaps; 0 for sources that take no such lock).
	 */
	uint64_t hold_ns;
	uint64_t calls;    /* kernel calls: read()s, ioctls, preads */
	uint64_t pauses;   /* spent: pauses made for the target */
	/* spent, by a page source: how it read (else -1) */
	int query;         /* the VMA list: 1 PROCMAP_QUERY, 0 the maps text */
	int strategy;      /* the pages: enum pmaps_pages_strategy (SCAN or PAGEMAP) */
	/*
	 * Estimated (0 when spent; since 0.4.0): the longest the target's
	 * mmap(), munmap() or mprotect() may wait for the read. A read()
	 * of smaps: its hold. Calls that follow each other without pauses
	 * (a page walk without a policy's pauses): the whole walk, since a
	 * reader may take a read-held lock ahead of a waiting writer until
	 * the kernel hands it over. A paced walk: one call's hold.
	 */
	uint64_t wait_ns;
};

/*
 * How a page source walks (PMAPS_SRC_FAST, PMAPS_SRC_PAGES), and what a
 * read may cost. The kernel holds the target's mmap_lock for one
 * PAGEMAP_SCAN call, and a target's mmap(), munmap() or mprotect() waits
 * for it; calls that follow each other at once can keep it waiting for
 * milliseconds. So the walk goes in calls that report at most STEP_PAGES
 * pages, and after every HOLD_US of walking pauses PAUSE_US, which lets a
 * waiting writer in (docs/internals/SOURCES.md has the measurements).
 */
struct pmaps_policy {
	uint32_t size;       /* sizeof(struct pmaps_policy): the caller's (Conventions) */
	uint32_t step_pages; /* pages reported per call, at most (0: 4096) */
	uint32_t hold_us;    /* walking between two pauses (0: a pause after every call) */
	uint32_t pause_us;   /* each pause (0: none); under 50 us a wait on the clock */
	/*
	 * Time one read may take (0: no limit). pmaps_source_choose() leaves
	 * out sources whose estimate passes it; a page walk that passes it
	 * stops with -ETIME from pmaps_maps_next(), and the next call resumes
	 * where it stopped.
	 */
	uint64_t budget_ns;
};
/*
 * The gentle policy (pmaps --gentle): steps of 512 pages, and a pause of
 * 100 us after every call, long enough for a writer that had to sleep to
 * wake and take the lock (bench/README.md, "Target stall").
 */
#define PMAPS_POLICY_GENTLE_STEP 512u
#define PMAPS_POLICY_GENTLE_HOLD_US 0u
#define PMAPS_POLICY_GENTLE_PAUSE_US 100u
/* An initializer of that policy: struct pmaps_policy p = PMAPS_POLICY_GENTLE; */
#define PMAPS_POLICY_GENTLE                                                                  \
	{sizeof(struct pmaps_policy), PMAPS_POLICY_GENTLE_STEP, PMAPS_POLICY_GENTLE_HOLD_US,      \
	 PMAPS_POLICY_GENTLE_PAUSE_US, 0}

/*
 * Paced (since 0.4.0): the gentle steps and pauses, a pause after each
 * 50 us of walking instead of after every call. What the tool's one-shot
 * commands walk with where a read would hold a process's mmap() up longer
 * than PMAPS_EXPLAIN_HOLD_NS. In bench/stall (20k mappings, 4 GiB
 * resident) a read takes 3-6x the time of a walk without pauses (gentle:
 * 9-19x), and the target's mmap() p99.9 stays within 2.2x of what a reader
 * that only takes the lock every 100 us costs it (gentle: 1.4x), where a
 * walk without pauses stalls it milliseconds. That floor is the waiting
 * itself: an mmap() that meets any reader sleeps and is woken, ~40 us on a
 * VM, however short the reader's hold (bench/README.md, 2026-12-05).
 */
#define PMAPS_POLICY_PACED_HOLD_US 50u
#define PMAPS_POLICY_PACED                                                                   \
	{sizeof(struct pmaps_policy), PMAPS_POLICY_GENTLE_STEP, PMAPS_POLICY_PACED_HOLD_US,       \
	 PMAPS_POLICY_GENTLE_PAUSE_US, 0}

/*
 * An estimate of what reading SOURCE costs the process whose status is ST
 * (VmRSS, VmPTE) with NMAPS mappings (0 when not known: guessed from
 * VmPTE), walking with POLICY (NULL: the default), into OUT (SIZE set by
 * the caller). Coarse: constants measured on one machine
 * (docs/internals/SOURCES.md), good for telling a 1 ms read from a 1 s one.
 * Returns 0, or -EINVAL.
 */
PMAPS_API int pmaps_cost_estimate(const struct pmaps_status *st, uint64_t nmaps,
                                  enum pmaps_source source, const struct pmaps_policy *policy,
                                  struct pmaps_cost *out);

/*
 * The values SOURCE gives for PROC (its privilege and kernel decide: Pss
 * and LazyFree from PMAPS_SRC_PAGES need CAP_SYS_ADMIN), per mapping
 * (TOTAL 0) or in total (TOTAL 1): bit (1 << f) of enum pmaps_field in
 * *FIELDS, bit (1 << (k - PMAPS_F_MAX)) of enum pmaps_value in *VALUES.
 * Returns 0, or -EINVAL, or for a page source (which it opens to find out)
 * the errors of pmaps_maps_open(): -ESRCH, -EACCES, -ENODATA, ...
 * The cursor a page source was opened with is kept on PROC (its files open,
 * nothing read) for the read that usually follows: a pmaps_maps_open() of
 * the same source takes it over instead of opening again; another source's
 * keys, pmaps_source_choose() choosing another source, or pmaps_proc_close()
 * close it.
 */
PMAPS_API int pmaps_source_keys(struct pmaps_proc *proc, enum pmaps_source source, int total,
                                uint64_t *fields, uint64_t *values);

/*
 * The source that answers FIELDS and VALUES (as pmaps_source_keys()) for
 * PROC at the least cost to it, per mapping or in TOTAL: the page sources
 * before smaps and smaps_rollup, which hold its lock for a whole walk;
 * with a POLICY budget, only sources whose estimate fits it (reading
 * PROC's status for that). Returns 1 with *OUT when it answers every
 * value asked; 0 when none does (within the budget), with *OUT the
 * cheapest that answers the most and the reason in MSG; or a negative
 * errno (-ESRCH, -EACCES, ...) with MSG.
 */
PMAPS_API int pmaps_source_choose(struct pmaps_proc *proc, uint64_t fields, uint64_t values,
                                  int total, const struct pmaps_policy *policy,
                                  enum pmaps_source *out, char *msg, size_t msgsz);

/* ------------------------------------------------------------------ */
/* Mapping cursor                                                      */

struct pmaps_maps;

#define PMAPS_DEFAULT_BUFSIZE (64u * 1024u)

/*
 * Opens a cursor over PROC's mappings from SOURCE, reading through a buffer
 * of BUFSIZE bytes (0: PMAPS_DEFAULT_BUFSIZE; at least 4096). The buffer is
 * allocated here, once. Lines longer than the buffer are reported with
 * PMAPS_ROW_*_TRUNCATED, never dropped.
 *
 * Returns 0 and *OUT, or: -ESRCH (the process has gone, is exiting, or is a
 * zombie), -EACCES (smaps and smaps_rollup need ptrace-read access: the
 * same user, or CAP_SYS_PTRACE), -ENODATA (a kernel thread, which has no
 * user-space memory), -ENOENT (the file does not exist: e.g. smaps_rollup
 * before 4.14), -EBADMSG (not a regular file), -ENOMEM, -EINVAL. On any error but those two, *OUT is set all the same so
 * that pmaps_maps_errmsg() can say more: close it.
 */
PMAPS_API int pmaps_maps_open(struct pmaps_maps **out, struct pmaps_proc *proc,
                              enum pmaps_source source, size_t bufsize);

/*
 * Advances to the next mapping. Returns 1 with *ROW set, 0 at the end, or a
 * negative errno: -EBADMSG (malformed text; message has line and offset),
 * -ESRCH (the process exited while it was read), -ESTALE (it exec'd while it
 * was read: the rows so far described the old program), -EAGAIN (read
 * through a thread, the main thread having exited, and that thread ended:
 * read again), -EIO, -ENOMEM. They are checked before the last row is handed
 * out: a caller that stops at the first error has never been given the last
 * row of a cut-short read.
 * After an error the cursor stays in error until rewound. A page source
 * with a budget (pmaps_maps_set_policy()) also returns -ETIME, which is no
 * error: the next call goes on from where the walk stopped.
 */
PMAPS_API int pmaps_maps_next(struct pmaps_maps *c, const struct pmaps_mapping **row);

/*
 * Starts the cursor over on a fresh read of the same file, for a refresh.
 * Allocates nothing. Returns 0 or a negative errno as pmaps_maps_open().
 */
PMAPS_API int pmaps_maps_rewind(struct pmaps_maps *c);

/*
 * Points the cursor at another process (its source and buffer kept) and
 * starts a fresh read there, for a front end that visits many processes
 * with one cursor. Allocates nothing. Returns 0 or a negative errno as
 * pmaps_maps_open(); after an error the cursor stays usable for another
 * retarget. PROC must outlive the cursor's use of it.
 */
PMAPS_API int pmaps_maps_retarget(struct pmaps_maps *c, struct pmaps_proc *proc);

/* The last error's message, or "" when there was none. Valid until the next call. */
PMAPS_API const char *pmaps_maps_errmsg(const struct pmaps_maps *c);

/* Number of text lines parsed since the cursor was opened or rewound. */
PMAPS_API uint64_t pmaps_maps_lines(const struct pmaps_maps *c);

/*
 * How a page source walks from now on (a copy of POLICY; NULL: the default,
 * steps of 4096 pages with no pause, no budget). The text sources read the
 * way the kernel writes, and take no policy. Returns 0 or -EINVAL
 * (POLICY->size too small).
 */
PMAPS_API int pmaps_maps_set_policy(struct pmaps_maps *c, const struct pmaps_policy *policy);

/*
 * What the reads since the cursor was opened or last rewound cost (OUT's
 * SIZE set by the caller). Returns 0 or -EINVAL.
 */
PMAPS_API int pmaps_maps_cost(const struct pmaps_maps *c, struct pmaps_cost *out);

/*
 * The VMA list a page source reads: 1 when from the PROCMAP_QUERY ioctl
 * (Linux 6.11 to 6.16), 0 from the maps text (6.17 and later, where
 * pmaps_maps_text_unlocked() says so; kernels before 6.11), -1 for the text
 * sources.
 */
PMAPS_API int pmaps_maps_query(const struct pmaps_maps *c);

/*
 * 1 when this kernel reads a process's maps text under per-VMA locks, not
 * with its mmap_lock held across a read() (Linux 6.17+): the page sources
 * then list mappings from the text, which costs the kernel less than a
 * PROCMAP_QUERY per mapping. 0 otherwise.
 */
PMAPS_API int pmaps_maps_text_unlocked(void);

/* Closes the cursor and its file. NULL is allowed. */
PMAPS_API void pmaps_maps_close(struct pmaps_maps *c);

/* ------------------------------------------------------------------ */
/* Page cursor                                                         */

/*
 * The state of a run of pages. From PAGEMAP_SCAN (Linux 6.7+) or
 * /proc/PID/pagemap; the comment says which can see each flag.
 */
enum {
	PMAPS_PG_PRESENT = 1u << 0,    /* in memory (both); with ZERO, mapped but not
	                                  resident: smaps' Rss leaves the zero page out */
	PMAPS_PG_SWAPPED = 1u << 1,    /* swapped out, or any other non-present entry (both) */
	PMAPS_PG_FILE = 1u << 2,       /* a file page or shared anonymous memory (both) */
	PMAPS_PG_EXCLUSIVE = 1u << 3,  /* mapped by this process only (pagemap, 4.2+) */
	PMAPS_PG_HUGE = 1u << 4,       /* PMD-mapped THP or hugetlb (scan) */
	PMAPS_PG_ZERO = 1u << 5,       /* the shared (or huge) zero page (scan; pagemap
	                                  as pmaps_pages_known() says); never FILE */
	PMAPS_PG_SOFT_DIRTY = 1u << 6, /* written since soft-dirty was cleared (both;
	                                  CONFIG_MEM_SOFT_DIRTY) */
	PMAPS_PG_UFFD_WP = 1u << 7,    /* userfaultfd write-protected (both, 5.13+) */
	PMAPS_PG_GUARD = 1u << 8,      /* a guard region (both, 6.15+; its entries also
	                                  read as swapped: only GUARD is set) */
};
/* The flags both readers see; the other ones come from one reader only. */
#define PMAPS_PG_COMMON (PMAPS_PG_PRESENT | PMAPS_PG_SWAPPED | PMAPS_PG_FILE | \
	PMAPS_PG_SOFT_DIRTY | PMAPS_PG_UFFD_WP | PMAPS_PG_GUARD)

/* The short name of one PMAPS_PG_* bit ("present"), or NULL. */
PMAPS_API const char *pmaps_page_flag_name(unsigned flag);

/* A run of pages of equal state, [start, end), page-aligned. */
struct pmaps_page_range {
	uint64_t start, end;
	unsigned flags;    /* PMAPS_PG_* */
	/* With PMAPS_PAGES_KPAGE, of present pages (0 otherwise): */
	uint64_t kflags;   /* PMAPS_KPF_* bits of every page of the run */
	uint64_t mapcount; /* /proc/kpagecount: how many mappings share each page */
	uint64_t pfn;      /* with PMAPS_PAGES_PFN: the first page's frame number */
};

/* The run's length in pages (of the system's page size). */
PMAPS_API uint64_t pmaps_page_range_pages(const struct pmaps_page_range *r);

/*
 * Physical page flags from /proc/kpageflags (the kernel's KPF_* bits;
 * docs/internals/PAGES.md, "Physical state"), the ones that split runs. The
 * bit numbers are the kernel's; LAZYFREE is pmaps' own: an anonymous page
 * without SWAPBACKED, freed with MADV_FREE and not yet reclaimed.
 */
#define PMAPS_KPF_REFERENCED     (1ull << 2)
#define PMAPS_KPF_DIRTY          (1ull << 4)
#define PMAPS_KPF_LRU            (1ull << 5)
#define PMAPS_KPF_ACTIVE         (1ull << 6)
#define PMAPS_KPF_ANON           (1ull << 12)
#define PMAPS_KPF_SWAPCACHE      (1ull << 13)
#define PMAPS_KPF_SWAPBACKED     (1ull << 14)
#define PMAPS_KPF_HUGE           (1ull << 17) /* hugetlb */
#define PMAPS_KPF_UNEVICTABLE    (1ull << 18)
#define PMAPS_KPF_KSM            (1ull << 21)
#define PMAPS_KPF_THP            (1ull << 22) /* part of a large folio */
#define PMAPS_KPF_ZERO_PAGE      (1ull << 24)
#define PMAPS_KPF_IDLE           (1ull << 25) /* CONFIG_IDLE_PAGE_TRACKING */
#define PMAPS_KPF_MLOCKED        (1ull << 33)
#define PMAPS_KPF_LAZYFREE       (1ull << 63)
/* The name of one PMAPS_KPF_* bit ("dirty"), or NULL. */
PMAPS_API const char *pmaps_kpage_flag_name(uint64_t flag);

enum pmaps_pages_strategy {
	PMAPS_PAGES_AUTO,    /* PAGEMAP_SCAN when the kernel accepts it, else pagemap */
	PMAPS_PAGES_SCAN,    /* the PAGEMAP_SCAN ioctl (6.7+): -ENOTTY where missing */
	PMAPS_PAGES_PAGEMAP, /* pread() of /proc/PID/pagemap, 8 bytes a page */
};

enum {
	/* Walk as PMAPS_POLICY_GENTLE_* says: calls of 512 pages, a 100 us
	 * pause after each (across mappings), so that a target's
	 * mmap()/munmap() waiting for its mmap_lock get in
	 * (docs/internals/PAGES.md, "Gentle"). */
	PMAPS_PAGES_GENTLE = 1u << 0,
	/* Join /proc/kpageflags and /proc/kpagecount for present pages. Needs
	 * root (CAP_SYS_ADMIN: without it PFNs read as 0 and the files are
	 * closed); where it cannot, runs carry no kflags and
	 * pmaps_pages_kpage() says why. PAGEMAP_SCAN gives no PFNs: the
	 * present runs it finds are read again from pagemap. */
	PMAPS_PAGES_KPAGE = 1u << 1,
	/* With KPAGE: also split runs where the frames are not consecutive. */
	PMAPS_PAGES_PFN = 1u << 2,
	/* With PAGEMAP_SCAN: read pagemap's entries over the present runs it
	 * finds (and only there) for EXCLUSIVE, which the ioctl does not give
	 * (the pagemap strategy has it anyway). Since 0.2.0. */
	PMAPS_PAGES_EXCLUSIVE = 1u << 3,
	/* Walk as PMAPS_POLICY_PACED says (a pause after each 50 us of
	 * walking); GENTLE wins where both are given. Since 0.4.0. */
	PMAPS_PAGES_PACED = 1u << 4,
};

struct pmaps_pages;

/*
 * Opens a page cursor on PROC with STRATEGY (AUTO probes PAGEMAP_SCAN once)
 * and OPTIONS (PMAPS_PAGES_*). Allocates here, once: the cursor and a fixed
 * buffer; never per page or per range. Seek before reading.
 * Returns 0 and *OUT, or -ESRCH (gone, exiting, a zombie), -EACCES (pagemap
 * needs ptrace-read access), -ENODATA (a kernel thread), -EBADMSG (not a
 * regular file), -ENOTTY (SCAN asked for, the kernel lacks it),
 * -ENOMEM, -EINVAL. Whenever the cursor itself could be allocated, *OUT is
 * set, even on error, so its message can be read: close it.
 */
PMAPS_API int pmaps_pages_open(struct pmaps_pages **out, struct pmaps_proc *proc,
                               enum pmaps_pages_strategy strategy, unsigned options);

/* The strategy in use: PMAPS_PAGES_SCAN or PMAPS_PAGES_PAGEMAP. */
PMAPS_API enum pmaps_pages_strategy pmaps_pages_strategy(const struct pmaps_pages *c);

/*
 * The PMAPS_PG_* flags this cursor can report: PMAPS_PG_COMMON, plus HUGE
 * and ZERO with PAGEMAP_SCAN, EXCLUSIVE with pagemap, and ZERO with pagemap
 * where the kernel has PAGEMAP_SCAN (6.7) or the kpageflags join works
 * (root). Where ZERO is not among them, zero-page mappings read as present
 * pages. May lose ZERO at the first present page when PFNs read as 0.
 */
PMAPS_API unsigned pmaps_pages_known(const struct pmaps_pages *c);

/*
 * Restarts the cursor on [START, END): START is rounded down and END up to
 * pages. Unmapped addresses read as pages with no flags (both readers), so
 * to learn about mappings, seek to one mapping at a time (as pmaps pages
 * does, from a maps cursor). Allocates nothing. Returns 0 or -EINVAL.
 */
PMAPS_API int pmaps_pages_seek(struct pmaps_pages *c, uint64_t start, uint64_t end);

/*
 * Advances to the next run. Returns 1 with *RANGE (valid until the next
 * call), 0 at the end of the range, or a negative errno: -ESRCH (the process
 * exited), -EIO, -EINVAL, -EINTR. Runs never cross the sought range's ends;
 * adjacent runs differ in flags.
 */
PMAPS_API int pmaps_pages_next(struct pmaps_pages *c, const struct pmaps_page_range **range);

/*
 * 1 when runs carry kpageflags and kpagecount (KPAGE asked for and
 * possible), 0 when not asked for, or a negative errno saying why not
 * (-EPERM: no CAP_SYS_ADMIN, so PFNs read as 0 or the files are closed;
 * -ENOENT: the kernel has no /proc/kpageflags), with a message in
 * pmaps_pages_errmsg() until the next error.
 */
PMAPS_API int pmaps_pages_kpage(const struct pmaps_pages *c);

/* Kernel calls (ioctls or preads) made since the last seek. */
PMAPS_API uint64_t pmaps_pages_calls(const struct pmaps_pages *c);

/* Page counts of a range (pmaps_pages_summarize()), by what they count. */
enum pmaps_page_count {
	PMAPS_PC_PAGES,      /* every page of the range */
	PMAPS_PC_RESIDENT,   /* present but not the zero page: smaps' Rss */
	PMAPS_PC_SWAPPED,
	PMAPS_PC_FILE,       /* file pages or shared anonymous memory (not the zero page) */
	PMAPS_PC_ZERO,       /* mapped to the (huge) zero page: not resident */
	PMAPS_PC_HUGE,       /* resident in a PMD-mapped THP or hugetlb page */
	PMAPS_PC_EXCLUSIVE,  /* resident, mapped by this process only */
	PMAPS_PC_SHARED,     /* resident, not exclusive: EXCLUSIVE + SHARED = RESIDENT */
	/* With the kpageflags join (root), of resident pages: */
	PMAPS_PC_DIRTY, PMAPS_PC_ACTIVE, PMAPS_PC_REFERENCED, PMAPS_PC_IDLE,
	PMAPS_PC_LAZYFREE, PMAPS_PC_THP, PMAPS_PC_MLOCKED,
	PMAPS_PC_MAPPED_2,   /* kpagecount >= 2 */
	/* ... and by kpagecount; 0 is its own bin (a partly mapped large folio) */
	PMAPS_PC_MAPPED_BY_0, PMAPS_PC_MAPPED_BY_1, PMAPS_PC_MAPPED_BY_2,
	PMAPS_PC_MAPPED_BY_3_4, PMAPS_PC_MAPPED_BY_5_8, PMAPS_PC_MAPPED_BY_9,
	PMAPS_PC_COUNT
};
/* Room for page counts in struct pmaps_page_summary. */
#define PMAPS_PC_MAX 64
/* Its JSON/CSV key ("resident", "mapped_by_2_or_more"), or NULL. */
PMAPS_API const char *pmaps_page_count_key(enum pmaps_page_count k);

struct pmaps_page_summary {
	uint32_t size;                /* sizeof(struct pmaps_page_summary): the caller's */
	uint64_t start, end;          /* the range counted, page-aligned */
	uint64_t n[PMAPS_PC_MAX];     /* pages */
	/*
	 * Bit (1 << enum pmaps_page_count) of the counts this reader can see:
	 * the others read 0 but are unknown (show them as absent, never 0).
	 */
	uint64_t known;
	unsigned page_size;           /* bytes */
};

/*
 * Walks [START, END) of cursor C (a seek) and counts its pages into OUT,
 * whose size the caller set (Conventions). Allocates nothing. Returns 0, or
 * a negative errno as pmaps_pages_next(), or -EINVAL (OUT->size too small,
 * said in pmaps_pages_errmsg()).
 */
PMAPS_API int pmaps_pages_summarize(struct pmaps_pages *c, uint64_t start, uint64_t end,
                                    struct pmaps_page_summary *out);

/* The last error's message, or "". Valid until the next call on the cursor. */
PMAPS_API const char *pmaps_pages_errmsg(const struct pmaps_pages *c);

/*
 * Since 0.4.0: the state of a page, one classification for every table and
 * picture of pages (pmaps pages, its SVG, top's and the web page's
 * pictures, watch --pages). Each page is in exactly one state, the first
 * of these that holds, which is also the order that breaks a tie between
 * states of as many pages (pmaps_page_state_dominant()):
 *   SWAPPED   not present, a swap entry (or a migration entry, a marker)
 *   ZERO      mapped to the shared (or huge) zero page: read, never
 *             written, not resident
 *   LAZYFREE  anonymous, freed with MADV_FREE and not yet reclaimed
 *             (kpageflags: ANON without SWAPBACKED; root)
 *   HUGE      in a PMD-mapped transparent huge page, or a hugetlb page
 *   SHMEM     shared memory (a file page of a mapping of kind SHMEM)
 *   FILE      a file's page
 *   SHARED    anonymous, mapped more than once (kpagecount >= 2: a fork's
 *             copy-on-write, KSM; root)
 *   ANON      anonymous
 *   ABSENT    not present: never touched, dropped, a guard region
 * RESIDENT (what smaps counts in Rss) is every state from LAZYFREE to
 * ANON. The same words name the physical states that coincide (pmaps phys:
 * zero, lazyfree, shmem, file, anon).
 */
enum pmaps_page_state {
	PMAPS_PS_SWAPPED, PMAPS_PS_ZERO, PMAPS_PS_LAZYFREE, PMAPS_PS_HUGE, PMAPS_PS_SHMEM,
	PMAPS_PS_FILE, PMAPS_PS_SHARED, PMAPS_PS_ANON, PMAPS_PS_ABSENT, PMAPS_PS_COUNT
};
#define PMAPS_PS_MAX 16
/* Its key ("swapped", "zero", "lazyfree", "huge", "shmem", "file", "shared", "anon", "absent"), or NULL. */
PMAPS_API const char *pmaps_page_state_key(enum pmaps_page_state s);
/* 1 when S is a resident state (counted in smaps' Rss), else 0. */
PMAPS_API int pmaps_page_state_resident(enum pmaps_page_state s);
/*
 * The state of run R of a mapping of kind KIND (its file pages are SHMEM
 * when KIND is PMAPS_KIND_SHMEM). Without the kpageflags join, no page is
 * LAZYFREE or SHARED; where the reader cannot tell the zero page
 * (pmaps_pages_known()), it is ANON.
 */
PMAPS_API enum pmaps_page_state pmaps_page_state_of(const struct pmaps_page_range *r,
                                                    enum pmaps_kind kind);
/*
 * The state most of N[0, PMAPS_PS_COUNT) (pages per state) are in; a tie
 * goes to the state first in the order above, and no page at all is
 * ABSENT.
 */
PMAPS_API enum pmaps_page_state pmaps_page_state_dominant(const uint64_t *n);
/*
 * Walks [START, END) of a mapping of kind KIND with cursor C (a seek) and
 * counts its pages by state into N[0, PMAPS_PS_COUNT) (zeroed first).
 * Allocates nothing. Returns 0, or a negative errno as pmaps_pages_next().
 */
PMAPS_API int pmaps_pages_states(struct pmaps_pages *c, uint64_t start, uint64_t end,
                                 enum pmaps_kind kind, uint64_t *n);
PMAPS_API void pmaps_pages_close(struct pmaps_pages *c);

/* ------------------------------------------------------------------ */
/* Explain: where a process's RSS is                                   */

/* What the resident memory is for. */
enum pmaps_xcat {
	PMAPS_X_HEAP,         /* [heap]: the brk area (glibc malloc's main arena) */
	PMAPS_X_ANON,         /* anonymous mmap (allocators' large chunks and arenas) */
	PMAPS_X_ANON_NAMED,   /* [anon:NAME] */
	PMAPS_X_RUNTIME_HEAP, /* a language runtime's heap, where the evidence is solid */
	PMAPS_X_THREAD_STACK, /* a thread's stack */
	PMAPS_X_MAIN_STACK,   /* [stack] */
	PMAPS_X_FILE_TEXT,    /* file-backed code */
	PMAPS_X_FILE_DATA,    /* file-backed writable data */
	PMAPS_X_FILE_RO,      /* read-only file data */
	PMAPS_X_SHMEM,        /* shmem, memfd, SysV, shared anonymous */
	PMAPS_X_HUGETLB,
	PMAPS_X_OTHER,        /* vdso, guard, unknown names */
	PMAPS_X_COUNT
};
/* Room for categories in struct pmaps_explain. */
#define PMAPS_X_MAX 32
/* A short name of a category ("thread-stacks"), or NULL. */
PMAPS_API const char *pmaps_xcat_name(enum pmaps_xcat c);

/*
 * The state columns. RSS = PRIVATE_DIRTY + PRIVATE_CLEAN + SHARED exactly
 * (the kernel's own split); LAZYFREE, THP and LOCKED are parts of RSS; SWAP
 * is outside it.
 */
enum pmaps_xcol {
	PMAPS_XC_RSS, PMAPS_XC_PRIVATE_DIRTY, PMAPS_XC_PRIVATE_CLEAN, PMAPS_XC_SHARED,
	PMAPS_XC_LAZYFREE, PMAPS_XC_THP, PMAPS_XC_LOCKED, PMAPS_XC_SWAP, PMAPS_XC_PSS,
	PMAPS_XC_SWAP_PSS,
	PMAPS_XC_SHARED_CLEAN, /* the clean part of SHARED (so clean = PRIVATE_CLEAN + this) */
	/* PRIVATE_DIRTY + PRIVATE_CLEAN: pages no other process maps (USS). Since 0.2.0 */
	PMAPS_XC_PRIVATE,
	PMAPS_XC_COUNT
};
/* Room for state columns in struct pmaps_explain. */
#define PMAPS_XC_MAX 16
/* Its JSON key ("rss", "private_dirty", "lazy_free"), or NULL. */
PMAPS_API const char *pmaps_xcol_key(enum pmaps_xcol c);

/* The language runtime explain recognised. */
enum pmaps_runtime {
	PMAPS_RUNTIME_NONE,
	PMAPS_RUNTIME_GLIBC,
	PMAPS_RUNTIME_GO,
	PMAPS_RUNTIME_JVM,
	PMAPS_RUNTIME_CPYTHON,
	PMAPS_RUNTIME_COUNT
};
/* Its short name ("glibc", "go", "jvm", "cpython"; "" for NONE), or NULL. */
PMAPS_API const char *pmaps_runtime_name(enum pmaps_runtime r);

/* The largest mappings an explain result lists: frozen for ABI 0. */
#define PMAPS_EXPLAIN_TOP 10
#define PMAPS_ERRMSG_SIZE_PUBLIC 256

/* Page-level evidence per category, with PMAPS_EXPLAIN_PAGES (bytes). */
enum pmaps_xpage {
	PMAPS_XP_RESIDENT, /* present pages but the zero page: smaps' Rss */
	PMAPS_XP_DIRTY,    /* kpageflags DIRTY (root) */
	PMAPS_XP_LAZYFREE, /* anonymous without SWAPBACKED: freed with MADV_FREE (root) */
	PMAPS_XP_SHARED,   /* mapped more than once (kpagecount, root) */
	PMAPS_XP_THP,      /* part of a large folio (root) */
	PMAPS_XP_ZERO,     /* the (huge) zero page, not resident (PAGEMAP_SCAN, or root) */
	PMAPS_XP_COUNT
};
/* Room for page columns in struct pmaps_explain (and bits in pages_known). */
#define PMAPS_XP_MAX 16
/* Its JSON key ("resident", "lazy_free"), or NULL. */
PMAPS_API const char *pmaps_xpage_key(enum pmaps_xpage p);

enum {
	PMAPS_EXPLAIN_PAGES = 1u << 0, /* also walk every mapping's pages (the pages layer) */
	/*
	 * Since 0.2.0: the mappings from the page sources (PMAPS_SRC_PAGES)
	 * instead of smaps and smaps_rollup, which hold the target's mmap_lock
	 * for whole walks: RSS, PRIVATE, SHARED, THP and SWAP (not of shared
	 * memory) per category, and as root PSS and LAZYFREE; the clean/dirty
	 * split, LOCKED and SWAP_PSS are unknown (the result's xc_known says),
	 * and there is no smaps_rollup to reconcile with (status only).
	 */
	PMAPS_EXPLAIN_FAST = 1u << 1,
	/* With FAST: walk gently (PMAPS_POLICY_GENTLE_*: bounded steps, pauses). */
	PMAPS_EXPLAIN_GENTLE = 1u << 2,
	/* With FAST, instead of GENTLE: walk at PMAPS_POLICY_PACED (since 0.4.0). */
	PMAPS_EXPLAIN_PACED = 1u << 3,
};

/*
 * The notes explain gives: each is in the result only when its condition
 * holds, with the numbers it cites (bytes unless said) in n[]. The tool
 * words them.
 */
enum pmaps_note_kind {
	/* runtime Go, its heap found: n[0] the Go heap's RSS */
	PMAPS_NOTE_GO_HEAP,
	/* runtime Go, LazyFree in its heap: n[0] that LazyFree */
	PMAPS_NOTE_GO_LAZYFREE,
	/* runtime JVM, its heap found: n[0] its RSS, n[1] its reservation (-Xmx) */
	PMAPS_NOTE_JVM_HEAP,
	/* runtime JVM, its heap not found */
	PMAPS_NOTE_JVM,
	/* runtime CPython */
	PMAPS_NOTE_CPYTHON,
	/* runtime glibc with thread arenas: n[0] their count, n[1] their RSS */
	PMAPS_NOTE_GLIBC_ARENAS,
	/* private dirty [heap], anon and anon-named memory (a runtime's heap, the
	   runtime-heap category, is not in it): n[0] */
	PMAPS_NOTE_ANON_DIRTY,
	/* LazyFree outside a Go heap (which GO_LAZYFREE tells): n[0] */
	PMAPS_NOTE_LAZYFREE,
	/* file pages: n[0] their RSS, n[1] the clean part of it */
	PMAPS_NOTE_FILE,
	/* shared memory: n[0] its RSS, n[1] its PSS */
	PMAPS_NOTE_SHMEM,
	/* stacks (threads' and main): n[0] their RSS */
	PMAPS_NOTE_STACKS,
	/* transparent huge pages: n[0] */
	PMAPS_NOTE_THP,
	/* swapped out: n[0] */
	PMAPS_NOTE_SWAP,
	PMAPS_NOTE_COUNT
};
/* Room for notes in struct pmaps_explain. */
#define PMAPS_NOTE_MAX 32
/* The note's key ("go-heap", "lazy-free"), or NULL. */
PMAPS_API const char *pmaps_note_key(enum pmaps_note_kind k);
/*
 * The key of the I-th number note K cites ("rss", "clean", "arenas"), or
 * NULL when it cites fewer: the names JSON gives n[0] and n[1].
 */
PMAPS_API const char *pmaps_note_value_key(enum pmaps_note_kind k, unsigned i);

struct pmaps_note {
	enum pmaps_note_kind kind;
	uint64_t n[2];
};

/*
 * Room for any path a process can open by name (PATH_MAX, 4096 with its
 * NUL) and the " (deleted)" the kernel may add.
 */
#define PMAPS_EXPLAIN_PATH 4352

struct pmaps_explain_top {
	uint64_t start, end, rss;
	enum pmaps_xcat cat;
	/*
	 * The name as the kernel gave it (raw bytes, NUL-terminated). Longer
	 * names (only reachable through openat() from deep directories) are
	 * cut before a UTF-8 character, never inside one, and PATH_TRUNCATED
	 * is set; so it is when the maps reader itself had to cut it.
	 */
	int path_truncated;
	size_t path_len;
	char path[PMAPS_EXPLAIN_PATH];
};

/* An explain result: every figure a front end shows, in bytes. */
struct pmaps_explain {
	/* sizeof(struct pmaps_explain): the caller's for pmaps_explain(), the
	   library's in pmaps_explain_run()'s result (Conventions) */
	uint32_t size;
	uint64_t v[PMAPS_X_MAX][PMAPS_XC_MAX]; /* bytes, from smaps */
	uint64_t mappings[PMAPS_X_MAX];
	uint64_t total[PMAPS_XC_MAX];         /* the sums over categories */
	uint64_t nmappings;
	uint64_t uss;            /* the PRIVATE column's total (PRIVATE_DIRTY + PRIVATE_CLEAN) */
	uint64_t effective_rss;  /* RSS - LAZYFREE: what stays when the kernel needs memory */
	/* smaps_rollup, read right after smaps (0 when the kernel has none) */
	int have_rollup;
	uint64_t rollup[PMAPS_F_MAX];
	uint64_t rollup_apart;   /* |rollup Rss - total RSS|: the process changed between reads */
	/* /proc/PID/status, read before smaps (status.present 0 when unreadable) */
	struct pmaps_status status;
	uint64_t status_apart;   /* |VmRSS - total RSS| */
	int status_parts_agree;  /* VmRSS = RssAnon + RssFile + RssShmem */
	/* thread stacks */
	unsigned threads;        /* tasks listed */
	unsigned stacks_found;   /* located by a stack pointer */
	unsigned stacks_guessed; /* by the guard-page-below pattern (no pointer readable) */
	unsigned ntop;           /* the largest mappings by RSS, largest first */
	struct pmaps_explain_top top[PMAPS_EXPLAIN_TOP];
	/*
	 * The language runtime found, and the evidence for each rule: Go (the
	 * .go.buildinfo section of /proc/PID/exe; its heap is the run of
	 * contiguous anonymous mappings from an arena hint such as
	 * 0xc000000000, and those labelled "[anon: Go: heap]" by Go 1.25+),
	 * glibc (libc.so.6 mapped; its thread arenas: anonymous heaps at 64 MiB
	 * boundaries with their reserved rest; the main arena is [heap]), the
	 * JVM (libjvm.so mapped; its heap: the one run of contiguous anonymous
	 * mappings whose span is the heap size its hsperfdata file gives),
	 * CPython (named only: its arenas stay anon), or none.
	 *
	 * RUNTIME_VERSION and RUNTIME_EVIDENCE hold bytes the target chose (a
	 * directory name, a string from its executable or its hsperfdata file),
	 * raw: escape them before showing them. The evidence is sized so that
	 * it is never cut.
	 */
	enum pmaps_runtime runtime_kind;
	char runtime_version[32];
	char runtime_evidence[512];
	unsigned arenas;         /* glibc thread arenas found */
	unsigned go_labels;      /* mappings labelled as Go's heap */
	uint64_t jvm_heap_start, jvm_heap_end; /* the JVM's heap reservation, when found */
	/* The notes whose condition holds, in enum order. */
	unsigned nnotes;
	struct pmaps_note notes[PMAPS_NOTE_MAX];
	/* With PMAPS_EXPLAIN_PAGES: */
	int pages;               /* 1 when walked */
	int pages_kpage;         /* as pmaps_pages_kpage(): 1 with physical page state */
	enum pmaps_pages_strategy pages_strategy;
	unsigned pages_known;    /* bit (1 << enum pmaps_xpage) of the columns the walk saw */
	char pages_note[PMAPS_ERRMSG_SIZE_PUBLIC]; /* why no physical page state, or "" */
	uint64_t pg[PMAPS_X_MAX][PMAPS_XP_MAX];
	/* Since 0.2.0: */
	enum pmaps_source source; /* where the mappings came from: smaps, or pages (FAST) */
	/*
	 * Bit (1 << enum pmaps_xcol) of the state columns the source knows: all
	 * of them from smaps; the others read 0 but are unknown (show them as
	 * absent). EFFECTIVE_RSS holds only when LAZYFREE is known, and USS
	 * only when PRIVATE is.
	 */
	uint32_t xc_known;
	/*
	 * Bit (1 << enum pmaps_xcat) of the categories holding a mapping whose
	 * Swap the source cannot see (shared memory, from the pages source:
	 * its swapped pages are in its object, not in the page tables): their
	 * SWAP, and the total's, are unknown. pmaps_explain_known() applies both.
	 */
	uint32_t swap_unknown;
	/*
	 * Since 0.4.0: when the run read the process, CLOCK_MONOTONIC in ns
	 * from its first read (status) to its last (smaps_rollup, or the last
	 * page), and CLOCK_REALTIME (ns since the epoch) at its start. The
	 * join of a runtime's books to the result bounds the time between the
	 * two reads with them (pmaps_books_join()).
	 */
	uint64_t read_start_ns, read_end_ns, read_at_ns;
	/*
	 * Since 0.4.0: smaps' Referenced per category, in total and for each
	 * of top[]: the bytes of RSS the process touched since its referenced
	 * bits were last cleared. Only a working-set session clears them on
	 * purpose (pmaps_wss_reset()); otherwise reclaim does, when the kernel
	 * chooses, and the figure means little. REFERENCED_KNOWN is 0 (and the
	 * figures 0) from the page sources, which do not see the bits.
	 */
	int referenced_known;
	uint64_t referenced[PMAPS_X_MAX];
	uint64_t referenced_total;
	uint64_t top_referenced[PMAPS_EXPLAIN_TOP];
};

/*
 * 1 when state column COL of category CAT (enum pmaps_xcat, or -1 for the
 * total) is known to X's source (xc_known, swap_unknown), else 0: show it
 * as absent, never as 0.
 */
PMAPS_API int pmaps_explain_known(const struct pmaps_explain *x, int cat, enum pmaps_xcol col);

/*
 * An explain session, in the prepare/step/reset habit: opened once on a
 * process, run again and again (a live view, a time series). It keeps its
 * cursors, buffers and what it learnt of the runtime (the executable's
 * build info is read once); a run allocates nothing unless the process has
 * more threads than any run before.
 */
struct pmaps_explain_session;

/*
 * Opens a session on PROC with OPTIONS (PMAPS_EXPLAIN_*). Allocates here:
 * the session, its result, its cursors. Returns 0 and *OUT, or a negative
 * errno: -ENOMEM, -EINVAL; whenever the session could be allocated *OUT is
 * set even on error, so that pmaps_explain_errmsg() can say more: close it.
 * PROC must outlive the session.
 */
PMAPS_API int pmaps_explain_open(struct pmaps_explain_session **out, struct pmaps_proc *proc,
                                 unsigned options);

/*
 * Reads the process once: status, the threads' stack pointers, one pass over
 * smaps, then smaps_rollup; with PMAPS_EXPLAIN_PAGES also every mapping's
 * pages through a page cursor (physical page state as root). Returns 0 and
 * *OUT (valid until the next run or the close), or a negative errno with a
 * message in pmaps_explain_errmsg(): -ESRCH, -ESTALE, -EACCES, -ENODATA (a
 * kernel thread), -EBADMSG, -EAGAIN (kept changing), -ENOMEM.
 *
 * Besides /proc/PID it reads two files the process names, its executable
 * (Go's build info) and a JVM's hsperfdata file, and only as the regular
 * file it maps: through /proc/PID/exe and /proc/PID/map_files (which needs
 * CAP_SYS_ADMIN or CAP_CHECKPOINT_RESTORE), else by name under
 * /proc/PID/root with no symlink followed (openat2, Linux 5.6; O_NOFOLLOW
 * per component before). Opened with O_PATH until fstat shows a regular
 * file of the mapping's device and inode, then O_NONBLOCK, reads bounded;
 * never a symlink, FIFO or device node the process put there. Under a proc
 * root that is not procfs no symlink is followed at all.
 *
 * A mapping listed twice by the kernel (PMAPS_ROW_OVERLAP: it grew during
 * the read) would be counted twice: smaps is read again, PMAPS_MAX_READS
 * times at most, then -EAGAIN. Sums that would pass 2^64 bytes are -EBADMSG.
 */
PMAPS_API int pmaps_explain_run(struct pmaps_explain_session *s, const struct pmaps_explain **out);

/*
 * Since 0.3.0: points session S at another process PROC (a front end that
 * explains many processes one after another: the survey's breakdowns),
 * keeping its cursors and buffers; what it learnt of the last process goes
 * (the executable's build info is read again). Allocates nothing. Not for
 * a session opened with PMAPS_EXPLAIN_PAGES (-EINVAL). Returns 0, or
 * -EINVAL, -ENOMEM; the process's own errors (gone, no access) are the
 * next run's to report. PROC must outlive the session's use of it.
 */
PMAPS_API int pmaps_explain_retarget(struct pmaps_explain_session *s, struct pmaps_proc *proc);

/* The last error's message, or "". Valid until the next call on the session. */
PMAPS_API const char *pmaps_explain_errmsg(const struct pmaps_explain_session *s);

/*
 * What the last run's read of the mappings (smaps, or the page source)
 * cost, into OUT (SIZE set by the caller). Returns 0 or -EINVAL.
 */
PMAPS_API int pmaps_explain_cost(const struct pmaps_explain_session *s, struct pmaps_cost *out);

/* Closes the session and its cursors. NULL is allowed. */
PMAPS_API void pmaps_explain_close(struct pmaps_explain_session *s);

/*
 * One run in one call: opens a session, runs it, copies the result to OUT
 * (whose size the caller set: Conventions; zeros on error) and closes it.
 * Returns as pmaps_explain_run(), or -EINVAL (OUT->size too small); the
 * message in MSG.
 */
PMAPS_API int pmaps_explain(struct pmaps_proc *proc, struct pmaps_explain *out, unsigned options,
                            char *msg, size_t msgsz);

/* ------------------------------------------------------------------ */
/* Explain's source, chosen once for every front end (since 0.4.0)     */

/*
 * Why pmaps_explain_choose() chose its source. Keys from
 * pmaps_choice_reason_key(): "asked", "fits", "over", "no_status",
 * "no_pages".
 */
enum pmaps_choice_reason {
	PMAPS_CHOICE_ASKED,     /* the caller named the source */
	PMAPS_CHOICE_FITS,      /* smaps: one read holds the lock within the limit */
	PMAPS_CHOICE_OVER,      /* pages, gentle: one read of smaps would hold it longer */
	PMAPS_CHOICE_NO_STATUS, /* smaps: status could not be read to price the read */
	PMAPS_CHOICE_NO_PAGES,  /* smaps: the page source cannot be opened here */
	PMAPS_CHOICE_COUNT
};
/* Its key, or NULL. */
PMAPS_API const char *pmaps_choice_reason_key(enum pmaps_choice_reason r);

/*
 * The longest one read of smaps may hold the process's mmap_lock, by
 * pmaps_cost_estimate(), before explain reads the pages source instead,
 * gently: the survey's limit (PMAPS_SURVEY_HOLD_NS), so that pmaps
 * explain, top's drill-down, serve's endpoint and a binding choose alike.
 * A front end that reads again and again (watch) may pass less. The tool's
 * one-shot commands (maps, pages) hold their reads to it too.
 */
#define PMAPS_EXPLAIN_HOLD_NS (5ull * 1000000ull)

struct pmaps_explain_choice {
	uint32_t size;     /* sizeof(struct pmaps_explain_choice): the caller's (Conventions) */
	enum pmaps_source source;       /* PMAPS_SRC_SMAPS or PMAPS_SRC_PAGES */
	/* The options to open the session with: PMAPS_EXPLAIN_FAST | PMAPS_EXPLAIN_GENTLE, or 0 */
	unsigned options;
	enum pmaps_choice_reason reason;
	/*
	 * The estimated longest hold of explain's read of smaps: of a read() of
	 * smaps, or of smaps_rollup's walk read after it to reconcile
	 * (0 when status could not be read)
	 */
	uint64_t hold_ns;
	uint64_t limit_ns; /* the limit it was held to (0: none) */
	/*
	 * Bit (1 << enum pmaps_xcol) of the state columns the chosen source
	 * gives for this process, with this privilege (the pages source's Pss
	 * and LazyFree need CAP_SYS_ADMIN): what the result's xc_known will say.
	 */
	uint32_t xc_known;
};

/*
 * The source of an explain of PROC: ASKED when it is PMAPS_SRC_SMAPS or
 * PMAPS_SRC_PAGES (reason ASKED; the caller adds PMAPS_EXPLAIN_GENTLE to the
 * pages source's options if it wants it), else
 * (PMAPS_SRC_AUTO) smaps, which gives every state column, unless its read
 * (smaps, then smaps_rollup) would hold PROC's mmap_lock longer than
 * LIMIT_NS (0: no limit) by the estimate from PROC's status (VmRSS,
 * VmPTE): then the pages source,
 * walked gently (PMAPS_POLICY_GENTLE), whatever its privilege lets it
 * give. Into OUT (SIZE set by the caller). Reads status, and opens the
 * pages source's cursor to learn what it gives. Returns 0, or -EINVAL
 * (ASKED not a source explain reads, OUT's size); errors of the process
 * itself (gone, no access) are the run's to report: the choice is then
 * smaps, reason NO_STATUS or NO_PAGES, the errno in MSG's words.
 */
PMAPS_API int pmaps_explain_choose(struct pmaps_proc *proc, enum pmaps_source asked,
                                   uint64_t limit_ns, struct pmaps_explain_choice *out,
                                   char *msg, size_t msgsz);

/* ------------------------------------------------------------------ */
/* The runtime's own books (since 0.4.0)                                */

/*
 * What a language runtime says of its own memory where it publishes it:
 * a Go program's runtime.MemStats (net/http/pprof's
 * /debug/pprof/heap?debug=1), a HotSpot JVM's GC.heap_info and Native
 * Memory Tracking summary (jcmd), glibc malloc's malloc_info() and
 * mallinfo2() (asked in the process itself). Every figure is the
 * runtime's word: bytes it counts, resident or not. pmaps_books_join()
 * sets them against an explain result's resident bytes.
 *
 * The library parses the text and joins; it does no network and runs no
 * program: a front end fetches the text (the pmaps tool with libcurl and
 * jcmd, the Python binding with urllib and subprocess), asking the library
 * where and whether to ask (pmaps_books_go_listeners(),
 * pmaps_books_jvm_attach()). docs/internals/BOOKS.md has the whole model.
 */
enum pmaps_book {
	PMAPS_BOOK_GO,       /* runtime.MemStats, from the heap profile page */
	PMAPS_BOOK_JVM_HEAP, /* jcmd PID GC.heap_info */
	PMAPS_BOOK_JVM_NMT,  /* jcmd PID VM.native_memory summary scale=b */
	PMAPS_BOOK_MALLOC,   /* glibc malloc_info()'s XML; mallinfo2()'s keepcost set apart */
	PMAPS_BOOK_COUNT
};
#define PMAPS_BOOK_MAX 8
/* Its key ("go", "jvm_heap", "jvm_nmt", "malloc"), or NULL. */
PMAPS_API const char *pmaps_book_key(enum pmaps_book b);
/* The runtime whose book it is. */
PMAPS_API enum pmaps_runtime pmaps_book_runtime(enum pmaps_book b);

/* The books' figures, by key. */
enum pmaps_book_value {
	/* Go, runtime.MemStats: bytes, but HEAP_OBJECTS and NUM_GC (counts), LAST_GC (a time) */
	PMAPS_BV_GO_HEAP_ALLOC, PMAPS_BV_GO_HEAP_SYS, PMAPS_BV_GO_HEAP_IDLE,
	PMAPS_BV_GO_HEAP_INUSE, PMAPS_BV_GO_HEAP_RELEASED, PMAPS_BV_GO_HEAP_OBJECTS,
	PMAPS_BV_GO_STACK_INUSE, PMAPS_BV_GO_STACK_SYS, PMAPS_BV_GO_MSPAN_INUSE,
	PMAPS_BV_GO_MSPAN_SYS, PMAPS_BV_GO_MCACHE_INUSE, PMAPS_BV_GO_MCACHE_SYS,
	PMAPS_BV_GO_BUCK_HASH_SYS, PMAPS_BV_GO_GC_SYS, PMAPS_BV_GO_OTHER_SYS, PMAPS_BV_GO_SYS,
	PMAPS_BV_GO_TOTAL_ALLOC,
	PMAPS_BV_GO_NEXT_GC,     /* the heap goal; about 2^63 when the GC is off */
	PMAPS_BV_GO_NUM_GC,
	PMAPS_BV_GO_LAST_GC,     /* ns since the epoch; absent before the first GC */
	/* JVM, GC.heap_info: the Java heap; Metaspace where the JVM prints it */
	PMAPS_BV_JVM_HEAP_COMMITTED, PMAPS_BV_JVM_HEAP_USED, PMAPS_BV_JVM_METASPACE_USED,
	PMAPS_BV_JVM_METASPACE_COMMITTED, PMAPS_BV_JVM_METASPACE_RESERVED,
	/* JVM, Native Memory Tracking's total (its categories: pmaps_books.jvm_cat) */
	PMAPS_BV_JVM_NMT_RESERVED, PMAPS_BV_JVM_NMT_COMMITTED,
	/* glibc malloc: ARENAS and the *_COUNT are counts */
	PMAPS_BV_MALLOC_ARENAS,
	PMAPS_BV_MALLOC_SYSTEM,     /* the arenas' memory from the kernel (system current) */
	PMAPS_BV_MALLOC_IN_USE,     /* SYSTEM - FAST_BYTES - REST_BYTES + MMAP_BYTES */
	PMAPS_BV_MALLOC_FREE_HELD,  /* FAST_BYTES + REST_BYTES: free, kept by malloc */
	PMAPS_BV_MALLOC_FAST_COUNT, PMAPS_BV_MALLOC_FAST_BYTES,   /* free chunks in fastbins */
	PMAPS_BV_MALLOC_REST_COUNT, PMAPS_BV_MALLOC_REST_BYTES,   /* other bins, top chunks */
	PMAPS_BV_MALLOC_MMAP_COUNT, PMAPS_BV_MALLOC_MMAP_BYTES,   /* chunks of their own mmap() */
	PMAPS_BV_MALLOC_TOP,        /* the main arena's releasable top (mallinfo2 keepcost) */
	PMAPS_BV_COUNT
};
#define PMAPS_BV_MAX 128

/* What a figure counts. */
enum pmaps_book_unit { PMAPS_BU_BYTES, PMAPS_BU_COUNT, PMAPS_BU_TIME_NS };

/* Its key within its book's JSON object ("heap_alloc", "metaspace_used"), or NULL. */
PMAPS_API const char *pmaps_book_value_key(enum pmaps_book_value v);
/* The book it belongs to, or -1 when out of range. */
PMAPS_API int pmaps_book_value_book(enum pmaps_book_value v);
/* Its unit, or -1 when out of range. */
PMAPS_API int pmaps_book_value_unit(enum pmaps_book_value v);

/* What Native Memory Tracking said of itself (pmaps_books.jvm_nmt). */
enum pmaps_nmt_state {
	PMAPS_NMT_UNKNOWN,   /* not read */
	PMAPS_NMT_ON,        /* the summary was read */
	PMAPS_NMT_OFF,       /* the JVM runs without -XX:NativeMemoryTracking */
	PMAPS_NMT_SHUT_DOWN, /* jcmd VM.native_memory shutdown ended it */
};
/* Its key ("on", "off", "shut_down"; "" for UNKNOWN), or NULL. */
PMAPS_API const char *pmaps_nmt_state_key(enum pmaps_nmt_state s);

/* One book as a front end read it: written by the front end but OK (the parser's). */
#define PMAPS_BOOK_SOURCE 320
#define PMAPS_BOOK_WHY 256
struct pmaps_book_head {
	int asked;        /* 1: it was looked for */
	int ok;           /* 1: its text was parsed: its figures are in V (set by pmaps_books_parse()) */
	uint64_t at_ns;   /* CLOCK_REALTIME when it was read, ns since the epoch */
	/* CLOCK_MONOTONIC: the read, from its request to its answer (the join's skew) */
	uint64_t start_ns, end_ns;
	/* Where from ("http://127.0.0.1:6060/debug/pprof/heap?debug=1"): may hold target bytes */
	char source[PMAPS_BOOK_SOURCE];
	/* !OK: why not, one sentence; may hold bytes the target chose (a server's reply) */
	char why[PMAPS_BOOK_WHY];
};

/* NMT's categories a struct pmaps_books keeps. */
#define PMAPS_NMT_MAX 32
struct pmaps_nmt_category {
	char name[40];       /* as NMT names it ("Java Heap", "Class", ...), NUL-terminated */
	uint64_t reserved, committed;
};

/*
 * A process's books: the caller zeroes it and sets SIZE (Conventions),
 * fills each head it looks for and hands each text to pmaps_books_parse().
 */
struct pmaps_books {
	uint32_t size;
	/* bit (1 << enum pmaps_book_value, in two words) of the figures read */
	uint64_t present[2];
	uint64_t v[PMAPS_BV_MAX];
	struct pmaps_book_head head[PMAPS_BOOK_MAX];
	/*
	 * Go: GOGC, GOMEMLIMIT and GODEBUG from the process's environ as it
	 * started (pmaps_books_go_env(); the runtime may have changed them
	 * since), raw bytes the target chose, "" when unset; GO_ENV 0 when
	 * environ was not read.
	 */
	int go_env;
	char go_gogc[64], go_gomemlimit[64], go_godebug[256];
	/* JVM: the collector as GC.heap_info names it (JVM bytes, NUL-terminated) */
	char jvm_gc[48];
	/* JVM: enum pmaps_nmt_state, and with NMT on, its categories */
	int jvm_nmt;
	unsigned jvm_ncat;
	struct pmaps_nmt_category jvm_cat[PMAPS_NMT_MAX];
	/*
	 * The process's VmRSS right after the books were read
	 * (pmaps_books_finish()), which the join compares with the status of
	 * the explain read after them: AFTER_OK 0 when not read.
	 */
	int after_ok;
	uint64_t after_rss;
};

/*
 * The runtime of PROC whose books a front end can ask for, found cheaply
 * (no smaps): PMAPS_RUNTIME_GO when its executable has Go's .go.buildinfo
 * section, PMAPS_RUNTIME_JVM when it maps HotSpot's libjvm.so (its maps
 * text, read through a fixed buffer), else PMAPS_RUNTIME_NONE; or a negative
 * errno (-ESRCH, -EACCES). What explain calls the runtime: the books are read
 * before the explain, so that whatever asking costs the process (a JVM's
 * attach listener, a Go server's reply) is in both.
 */
PMAPS_API int pmaps_books_runtime(struct pmaps_proc *proc);

/* 1 when B has figure V (its book was parsed and gave it), else 0. */
PMAPS_API int pmaps_books_has(const struct pmaps_books *b, enum pmaps_book_value v);

/*
 * Parses TEXT (LEN bytes a target wrote: any bytes, any length) as book
 * BOOK into B: its figures (those of other books untouched), and its head's
 * ASKED and OK set to 1. The texts:
 *   GO        the heap profile page (or the MemStats block at its end):
 *             the block after the last line "# runtime.MemStats", up to
 *             the first line not starting with "# "; every figure once,
 *             decimal, at most 2^62 (NextGC 2^63 - 1), its line ended by a
 *             newline, and one snapshot's invariants (HeapIdle + HeapInuse
 *             = HeapSys, HeapReleased <= HeapIdle, HeapAlloc <= HeapInuse,
 *             each in use <= its Sys)
 *   JVM_HEAP  jcmd's GC.heap_info: G1, Serial, Parallel, Z or Shenandoah
 *   JVM_NMT   jcmd's VM.native_memory summary (any scale): B->jvm_nmt says
 *             on, off or shut down (off and shut down parse fine: OK 1,
 *             no figures)
 *   MALLOC    malloc_info()'s XML (glibc 2.36's, its one byte too many per
 *             binned chunk taken back: mallinfo2()'s figures to the byte)
 * Allocates nothing. Returns 0, or -EBADMSG with what is wrong (and where)
 * in MSG, the book's figures then cleared and OK 0; -EINVAL (BOOK, B's
 * size).
 */
PMAPS_API int pmaps_books_parse(struct pmaps_books *b, enum pmaps_book book, const char *text,
                                size_t len, char *msg, size_t msgsz);

/*
 * Sets figure V of B to X, for a figure no text holds (PMAPS_BV_MALLOC_TOP:
 * mallinfo2()'s keepcost, which its helper sends apart). Returns 0, or
 * -EINVAL (V, B's size), -ERANGE (X past 2^62).
 */
PMAPS_API int pmaps_books_set(struct pmaps_books *b, enum pmaps_book_value v, uint64_t x);

/*
 * GOGC, GOMEMLIMIT and GODEBUG of PROC's environ (its first 256 KiB) into
 * B (GO_ENV 1). Returns 0, or a negative errno (-EACCES: only the
 * process's user or root reads it; -ESRCH).
 */
PMAPS_API int pmaps_books_go_env(struct pmaps_books *b, struct pmaps_proc *proc);

/*
 * The process's VmRSS now, into B's AFTER_RSS: to be read right after the
 * last book and before the explain, so that the join can refuse books the
 * process's memory moved away from before the explain read it. Returns 0,
 * or status's errors.
 */
PMAPS_API int pmaps_books_finish(struct pmaps_books *b, struct pmaps_proc *proc);

/* ---- where to ask ---- */

/* A TCP listener of a process, reachable on this host's loopback. */
#define PMAPS_LISTENER_URL 80
struct pmaps_listener {
	unsigned port;
	int ipv6;                         /* 1: listens on ::1 or ::, asked through [::1] */
	char host[48];                    /* "127.0.0.1", "[::1]": where to connect */
	/* The Go heap page on it: http://HOST:PORT/debug/pprof/heap?debug=1 */
	char url[PMAPS_LISTENER_URL];
};

/*
 * PROC's TCP listeners that this host's loopback reaches (on a loopback
 * address, or on any address), at most MAX into OUT: the "socket:[INODE]"
 * links of PROC_ROOT/PID/fd matched against the LISTEN lines of its
 * net/tcp and net/tcp6 (which list its whole network namespace, 1024 of
 * them at most). Only for a process in this reader's network namespace
 * under a live procfs: elsewhere 127.0.0.1 is not the process's loopback.
 * Returns the count (0: none, MSG says so), or a negative errno with MSG:
 * -EXDEV (another network namespace, or a proc root that is not the live
 * /proc), -EACCES (its fds are the process's user's and root's), -ESRCH.
 */
PMAPS_API int pmaps_books_go_listeners(struct pmaps_proc *proc, struct pmaps_listener *out,
                                       unsigned max, char *msg, size_t msgsz);

/* Whether and how jcmd may ask a JVM (pmaps_books_jvm_attach()). */
struct pmaps_jvm_attach {
	uint32_t size;       /* sizeof(struct pmaps_jvm_attach): the caller's (Conventions) */
	uint32_t uid, gid;   /* the JVM's effective uid and gid: jcmd runs as them */
	int nspid;           /* the pid the JVM knows itself by (its pid namespace's) */
	int other_mntns;     /* 1: it runs in another mount namespace (a container) */
};

/*
 * Whether jcmd may be run against PROC: only a live process (under the
 * live /proc, not stopped) that maps libjvm.so (HotSpot's), not started
 * with -XX:+DisableAttachMechanism (jcmd's SIGQUIT would make it print a
 * thread dump) nor with -Xrs once its attach socket is gone (SIGQUIT would
 * end it), on its command line or in its environment (JAVA_TOOL_OPTIONS
 * and the like; an @argfile is not looked into). Reads status (uid, gid,
 * state, NSpid), the maps, cmdline and environ through PROC. Returns 1
 * with OUT filled when it may, 0 when it must not (MSG says why), or a
 * negative errno with MSG (-EINVAL OUT's size, -ESRCH, -EACCES).
 */
PMAPS_API int pmaps_books_jvm_attach(struct pmaps_proc *proc, struct pmaps_jvm_attach *out,
                                     char *msg, size_t msgsz);

/*
 * Why a run of "jcmd PID CMD" that exited with STATUS (not 0) gave no
 * book, in words, into WHY (always NUL-terminated): the words after
 * "Exception: " on the line that names jcmd's exception in ERR (its
 * standard error, ERRLEN bytes) or else OUT (its output), "jcmd could not
 * attach to the JVM: ..." when the exception is the attach mechanism's;
 * else the first line that says something; with OTHER_MNTNS, that the JVM
 * runs in another mount namespace. The words are the target's bytes, cut
 * before a UTF-8 sequence the room would split. So that every front end
 * that runs jcmd says a failure alike.
 */
PMAPS_API void pmaps_books_jcmd_failed(int pid, const char *cmd, int status, const char *err,
                                       size_t errlen, const char *out, size_t outlen,
                                       int other_mntns, char *why, size_t whysz);

/* ---- the join ---- */

/*
 * The parts of the resident memory a join splits, each the RSS of
 * explain's categories: RUNTIME_HEAP (runtime-heap), ANON ([heap], anon,
 * anon-named), STACKS (thread-stacks, main stack), FILES (file text, data,
 * read-only), SHMEM (shmem, hugetlb), OTHER. Keys: "runtime-heap", "anon",
 * "stacks", "files", "shmem", "other".
 */
enum pmaps_join_part {
	PMAPS_JP_RUNTIME_HEAP, PMAPS_JP_ANON, PMAPS_JP_STACKS, PMAPS_JP_FILES, PMAPS_JP_SHMEM,
	PMAPS_JP_OTHER, PMAPS_JP_COUNT
};
#define PMAPS_JP_MAX 16
PMAPS_API const char *pmaps_join_part_key(enum pmaps_join_part p);

/* Whose figure a term is: "kernel", "runtime", "remainder". */
enum pmaps_join_src { PMAPS_JS_KERNEL, PMAPS_JS_RUNTIME, PMAPS_JS_REMAINDER, PMAPS_JS_COUNT };
PMAPS_API const char *pmaps_join_src_key(enum pmaps_join_src s);

/* The terms of a join. Keys from pmaps_join_term_key(), the same words for JSON. */
enum pmaps_join_key {
	PMAPS_JK_GO_LIVE_OBJECTS,      /* HeapAlloc */
	PMAPS_JK_GO_SPAN_SLACK,        /* HeapInuse - HeapAlloc */
	PMAPS_JK_GO_HELD_FREE,         /* HeapIdle - HeapReleased */
	PMAPS_JK_GO_STACKS,            /* StackInuse */
	PMAPS_JK_GO_RETURNED_RESIDENT, /* the kernel's LazyFree of the part holding the Go heap */
	PMAPS_JK_GO_RUNTIME_METADATA,  /* MSpanInuse + MCacheInuse + GCSys + BuckHashSys + OtherSys
	                                  + (StackSys - StackInuse) */
	PMAPS_JK_JAVA_HEAP_USED,       /* GC.heap_info used */
	PMAPS_JK_JAVA_HEAP_FREE,       /* GC.heap_info committed - used */
	PMAPS_JK_JAVA_HEAP,            /* NMT's Java Heap committed (GC.heap_info not read) */
	PMAPS_JK_JVM_CLASS, PMAPS_JK_JVM_CODE, PMAPS_JK_JVM_GC, PMAPS_JK_JVM_INTERNAL,
	PMAPS_JK_JVM_OTHER,            /* NMT's categories but those named elsewhere */
	PMAPS_JK_JVM_THREADS,          /* NMT Thread */
	PMAPS_JK_JVM_SHARED_CLASSES,   /* NMT Shared class space */
	PMAPS_JK_MALLOC_IN_USE,        /* malloc_info: system - free + mmap */
	PMAPS_JK_MALLOC_FREE_HELD,     /* malloc_info: fast + rest */
	/* A part's remainder: its kernel bytes less its runtime terms (NEG: below 0) */
	PMAPS_JK_HEAP_UNEXPLAINED, PMAPS_JK_ANON_UNEXPLAINED, PMAPS_JK_STACKS_UNEXPLAINED,
	PMAPS_JK_FILES_UNEXPLAINED,
	/* A part the books do not split: its kernel bytes */
	PMAPS_JK_RUNTIME_HEAP, PMAPS_JK_ANON, PMAPS_JK_STACKS, PMAPS_JK_FILES, PMAPS_JK_SHMEM,
	PMAPS_JK_OTHER,
	PMAPS_JK_COUNT
};
PMAPS_API const char *pmaps_join_key(enum pmaps_join_key k);

struct pmaps_join_term {
	enum pmaps_join_key key;
	enum pmaps_join_src src;
	enum pmaps_join_part part;
	int neg;          /* 1: subtracted (a remainder: the runtime counts more than is resident) */
	uint64_t bytes;
};
/*
 * What a term is made of, a static string: the runtime's figures it sums
 * ("HeapInuse - HeapAlloc"), or the kernel's ("LazyFree of the Go heap"),
 * or for a remainder which way it goes. NULL for a term out of range.
 */
PMAPS_API const char *pmaps_join_term_how(const struct pmaps_join_term *t);

/* Why a join was not made (pmaps_join.refused). Keys: "", "none", "range", "skew", "moved". */
enum pmaps_join_refusal {
	PMAPS_JOIN_JOINED,  /* it was */
	PMAPS_JOIN_NONE,    /* no book was read */
	PMAPS_JOIN_RANGE,   /* a runtime figure past 2^57 bytes: no address space holds it */
	PMAPS_JOIN_SKEW,    /* the books and the explain were read further apart than allowed */
	PMAPS_JOIN_MOVED,   /* the RSS moved between the books' end and the explain's */
	PMAPS_JOIN_REFUSAL_COUNT
};
PMAPS_API const char *pmaps_join_refusal_key(enum pmaps_join_refusal r);

/*
 * How far apart the books and the explain may be read, by default: from
 * the first one's start to the last one's end (a JVM's two jcmd runs take
 * most of a second).
 */
#define PMAPS_JOIN_SKEW_NS (2ull * 1000000000ull)
/* The terms a join holds at most: frozen for ABI 0. */
#define PMAPS_JOIN_TERMS 32

struct pmaps_join {
	uint32_t size;     /* sizeof(struct pmaps_join): the caller's (Conventions) */
	int ok;            /* 1: joined; the terms add up to RSS */
	enum pmaps_join_refusal refused;
	uint64_t rss;      /* the explain result's RSS */
	uint64_t part[PMAPS_JP_MAX]; /* the resident bytes of each part: they add up to RSS */
	uint64_t as_of_ns; /* CLOCK_REALTIME of the oldest book joined */
	/* The span of the reads joined, the books' and the explain's, first start to last end */
	uint64_t skew_ns;
	uint64_t max_skew_ns; /* what it was allowed */
	/*
	 * How far the RSS moved from the books' end to the explain's end, the
	 * larger of |VmRSS after the books - VmRSS at the explain's start|
	 * (AFTER_OK) and the explain's own status_apart; and what was allowed
	 */
	uint64_t moved, max_moved;
	unsigned nterms;
	struct pmaps_join_term term[PMAPS_JOIN_TERMS];
};

/*
 * Joins books B to explain result X into OUT (SIZE set by the caller):
 * the kernel's RSS split into parts, each part's runtime figures (every one
 * into the part where that memory lives), and what they leave: its
 * remainder, a term of its own, below zero when the runtime counts memory
 * that is not resident. So the terms' signed sum is each part's RSS and
 * theirs the RSS, exactly; a runtime figure past 2^57 bytes refuses the
 * join (RANGE), so no sum wraps. The books must be of the moment X was:
 * read right before it, within MAX_SKEW_NS (0: PMAPS_JOIN_SKEW_NS), the books' first
 * start to X's end (else SKEW); and the process's memory must not have
 * moved after them: VmRSS from B's (AFTER_OK) to X's status, and X's status
 * to its own sum (status_apart), each at most max(1 MiB, VmRSS / 64) (else
 * MOVED).
 * Allocates nothing. Returns 1 joined, 0 not (OUT->refused says why; the
 * parts are filled all the same), or -EINVAL.
 */
PMAPS_API int pmaps_books_join(const struct pmaps_explain *x, const struct pmaps_books *b,
                               uint64_t max_skew_ns, struct pmaps_join *out);

/* ------------------------------------------------------------------ */
/* Grouping                                                            */

enum pmaps_group_by {
	PMAPS_GROUP_PATH, /* one group per name (nameless mappings share one) */
	PMAPS_GROUP_KIND, /* one group per enum pmaps_kind */
	PMAPS_GROUP_TOTAL, /* one group for everything */
};

struct pmaps_group_row {
	struct pmaps_view key;  /* the path (PATH), kind name (KIND) or "total" */
	enum pmaps_kind kind;   /* KIND: the kind; PATH: the first mapping's kind */
	uint32_t kinds;         /* bit (1 << kind) of every member's kind */
	uint64_t mappings;      /* how many mappings were added to the group */
	uint64_t vsize;         /* sum of end - start */
	uint64_t present;       /* OR of the members' present masks */
	/*
	 * Sums (measured values too, from PMAPS_F_MEASURED); the largest for the
	 * page sizes, THP_ELIGIBLE and PROTECTION_KEY.
	 */
	uint64_t v[PMAPS_F_MAX];
	/*
	 * PMAPS_GROUP_SATURATED: a sum (vsize or a field) would have passed
	 * 2^64 - 1 and stays there. Rows from a cursor never do (mappings do not
	 * overlap and no count exceeds its mapping); rows a program builds can.
	 */
	unsigned flags;          /* PMAPS_GROUP_*, and the source (PMAPS_ROW_SOURCE()) */
};

enum {
	PMAPS_GROUP_SATURATED = 1u << 0,
	/* A member had PMAPS_ROW_OVERLAP: the sums count that overlap twice. */
	PMAPS_GROUP_OVERLAP = 1u << 1,
	/*
	 * By path: the key is the start of a path too long for the reader
	 * (PMAPS_ROW_PATH_TRUNCATED). Such a group holds one file (device and
	 * inode), so two files whose long paths start alike stay apart.
	 */
	PMAPS_GROUP_PATH_TRUNCATED = 1u << 2,
	/*
	 * The row is smaps_rollup's, the kernel's own sum, which has no
	 * mapping count and no vsize: since 0.4.0 pmaps_total() counts them
	 * from the maps text read right after it (pmaps_total_count()), and
	 * PMAPS_GROUP_COUNTED is set.
	 */
	PMAPS_GROUP_ROLLUP = 1u << 3,
	/* The row is /proc/PID/status's (pmaps_total_best()): Rss and Swap, no count, no vsize. */
	PMAPS_GROUP_STATUS = 1u << 4,
	/*
	 * A rollup row's mappings and vsize were counted from the maps text
	 * (0.4.0); pmaps_group_value() gives them.
	 */
	PMAPS_GROUP_COUNTED = 1u << 5,
};

/* Value KEY of a group row, as pmaps_mapping_value(). */
PMAPS_API int pmaps_group_value(const struct pmaps_group_row *g, int key, uint64_t *v);

/*
 * The kind a group row shows: its kind's name when all its members are of
 * one kind, "file" when they are all file-backed (text, data, read-only,
 * an inaccessible file mapping), else "mixed". A static string.
 */
PMAPS_API const char *pmaps_group_kind_name(const struct pmaps_group_row *g);

struct pmaps_group;

/*
 * Opens an accumulator. Grouping by path stores each distinct path once in
 * storage that doubles when full (so allocations grow with log2 of the
 * number of distinct paths, never per mapping); by kind and in total it
 * allocates only here.
 */
PMAPS_API int pmaps_group_open(struct pmaps_group **out, enum pmaps_group_by by);
/* Adds a row. Returns 0 or -ENOMEM. */
PMAPS_API int pmaps_group_add(struct pmaps_group *g, const struct pmaps_mapping *m);
/* Number of groups so far (by kind: only the kinds seen). */
PMAPS_API size_t pmaps_group_count(const struct pmaps_group *g);
/*
 * Group I in first-seen order (by kind: enum order), 0 <= I < count. Valid
 * until the next add, reset or close (an add may move the rows).
 */
PMAPS_API const struct pmaps_group_row *pmaps_group_get(const struct pmaps_group *g, size_t i);
/* Forgets every group, keeping storage, for a refresh. */
PMAPS_API void pmaps_group_reset(struct pmaps_group *g);
PMAPS_API void pmaps_group_close(struct pmaps_group *g);

/* How many times a reader that must not count a mapping twice reads smaps, at most. */
#define PMAPS_MAX_READS 3

/*
 * Reads cursor C (freshly opened or rewound) whole, for a caller that keeps
 * every row (sums, a sort): RESET(CTX) is called before each read, ROW(CTX,
 * M) for each row (M valid only during the call; a negative errno from ROW
 * stops the read and is returned). A budget's -ETIME (pmaps_policy) is not
 * an end: the walk goes on. When a row was listed twice
 * (PMAPS_ROW_OVERLAP: a mapping grew during the read) or the thread read
 * through ended (-EAGAIN), C is rewound and read again, PMAPS_MAX_READS
 * reads in all. Returns 0, or a negative errno as pmaps_maps_next() with the
 * message in pmaps_maps_errmsg(C): -EAGAIN when the mappings kept changing.
 * Allocates nothing.
 */
PMAPS_API int pmaps_maps_read_whole(struct pmaps_maps *c,
                                    int (*row)(void *ctx, const struct pmaps_mapping *m),
                                    void (*reset)(void *ctx), void *ctx);

/*
 * Resets G and reads cursor C (freshly opened or rewound) whole into it,
 * through pmaps_maps_read_whole(). Returns 0 or a negative errno as that,
 * with the message in pmaps_maps_errmsg(C); also -EOVERFLOW when a sum
 * saturated (PMAPS_GROUP_SATURATED), -ENOMEM.
 */
PMAPS_API int pmaps_group_read(struct pmaps_group *g, struct pmaps_maps *c);

/*
 * PROC's totals into ROW, of ROW_SIZE bytes (sizeof(struct pmaps_group_row):
 * Conventions), left as it was on error: the one row of smaps_rollup, or
 * where the kernel has none (before 4.14) smaps summed through
 * pmaps_group_read(). *SOURCE says which (PMAPS_SRC_ROLLUP or
 * PMAPS_SRC_SMAPS); a rollup row has PMAPS_GROUP_ROLLUP set, and its
 * mapping count and vsize, which smaps_rollup lacks, are counted from the
 * maps text read right after it (PMAPS_GROUP_COUNTED; 0.4.0), left absent
 * where that text cannot be read. ROW's key is a
 * static string ("smaps_rollup" or "smaps"). Opens and closes its own
 * cursor. Returns 0, or a negative errno with the message in MSG (which may
 * be NULL): -EINVAL (ROW_SIZE too small), -ENODATA for a kernel thread, or
 * any error of the cursors and of pmaps_group_read().
 */
PMAPS_API int pmaps_total(struct pmaps_proc *proc, struct pmaps_group_row *row, size_t row_size,
                          enum pmaps_source *source, char *msg, size_t msgsz);

/*
 * PROC's totals from SOURCE into ROW (ROW_SIZE: Conventions), left as it was
 * on error: PMAPS_SRC_ROLLUP (smaps_rollup; -ENOENT before 4.14),
 * PMAPS_SRC_SMAPS (summed), PMAPS_SRC_FAST or PMAPS_SRC_PAGES (summed; Pss
 * from pages summed before it is rounded to kB, as smaps_rollup does), the
 * page sources walking with POLICY (NULL: the default). ROW's key is the
 * source's name. smaps_rollup's row is the kernel's as read, without a
 * mapping count or vsize (pmaps_total_count() adds them). SPENT, when not
 * NULL (its SIZE set), gets what the read cost. Returns 0 or a negative
 * errno as pmaps_total(), with MSG.
 */
PMAPS_API int pmaps_total_from(struct pmaps_proc *proc, enum pmaps_source source,
                               const struct pmaps_policy *policy, struct pmaps_group_row *row,
                               size_t row_size, struct pmaps_cost *spent, char *msg,
                               size_t msgsz);

/*
 * The mapping count and vsize of smaps_rollup's ROW (from
 * pmaps_total_from(); ROW_SIZE: Conventions), counted from PROC's maps
 * text, which costs about what the rollup read did on a process of many
 * mappings (hence apart: a caller that shows neither need not pay it);
 * PMAPS_GROUP_COUNTED is then set. Where no maps text can be read the two
 * stay absent and 0 is returned. SPENT, when not NULL (its SIZE set), gets
 * the read's cost. Since 0.4.0. Returns 0, or a negative errno with MSG:
 * -EINVAL (ROW_SIZE too small, or ROW not a rollup row), -ESRCH (the
 * process has exited since), or an error of the maps cursor.
 */
PMAPS_API int pmaps_total_count(struct pmaps_proc *proc, struct pmaps_group_row *row,
                                size_t row_size, struct pmaps_cost *spent, char *msg,
                                size_t msgsz);

/*
 * The best totals of PROC within POLICY (NULL: no limit), for a front end
 * that visits many processes (top, serve): the source
 * pmaps_source_choose() finds for FIELDS and VALUES in total, read into ROW
 * (ROW_SIZE: Conventions), PMAPS_ROW_SOURCE(ROW->flags) saying which.
 * When no source gives
 * them all within the budget, the cheapest that fits is read, and when
 * that is status (a process too large to walk within it), ROW holds Rss
 * (VmRSS) and Swap (VmSwap) from /proc/PID/status alone, key "status".
 * Returns 1 when ROW has every value asked, 0 when it has fewer (MSG says
 * why), or a negative errno as pmaps_total_from().
 */
PMAPS_API int pmaps_total_best(struct pmaps_proc *proc, uint64_t fields, uint64_t values,
                               const struct pmaps_policy *policy, struct pmaps_group_row *row,
                               size_t row_size, struct pmaps_cost *spent, char *msg,
                               size_t msgsz);

/* ------------------------------------------------------------------ */
/* Processes                                                           */

/* One process under a proc root, from its directory and its stat. */
struct pmaps_proc_info {
	int pid;
	uint32_t uid;        /* the owner of PROC_ROOT/PID: the effective uid (root when
	                        the process is not dumpable) */
	int kernel_thread;   /* PF_KTHREAD: no user-space memory */
	char state;          /* R S D Z T ... as stat says */
	/* The command name (stat's comm), bytes the target chose: escape them. */
	size_t comm_len;
	char comm[64];
	/*
	 * Since 0.3.0. The parent's pid as stat's field 4 says (0: none, as for
	 * init and kthreadd; -1 when the stat does not print it). A process
	 * whose parent exits is re-parented at once to the nearest subreaper
	 * (PR_SET_CHILD_SUBREAPER) or to init: the link is of the moment.
	 */
	int ppid;
};

struct pmaps_procs;

/*
 * Opens an enumerator of the processes (not threads) under PROC_ROOT
 * (NULL: "/proc"). Allocates here, once: the enumerator and its directory
 * buffer. Returns 0 and *OUT, or -ENOENT, -EACCES, -ENOTDIR, -ENOMEM.
 */
PMAPS_API int pmaps_procs_open(struct pmaps_procs **out, const char *proc_root);

/*
 * The next process, in the directory's order. Returns 1 with *INFO (valid
 * until the next call), 0 at the end, or a negative errno (-EIO). A process
 * that exits while it is listed, or whose directory this reader may not
 * enter (hidepid=), is skipped, never an error. A stat with no "(comm) S"
 * is -EBADMSG for that entry alone: the next call goes on after it.
 * Allocates nothing.
 */
PMAPS_API int pmaps_procs_next(struct pmaps_procs *it, const struct pmaps_proc_info **info);

/* Starts over, for a refresh. Allocates nothing. Returns 0 or a negative errno. */
PMAPS_API int pmaps_procs_rewind(struct pmaps_procs *it);

/* Closes the enumerator. NULL is allowed. */
PMAPS_API void pmaps_procs_close(struct pmaps_procs *it);

/* ------------------------------------------------------------------ */
/* Machine figures: /proc/meminfo                                      */

/* The lines of /proc/meminfo the library reads (bytes). */
enum pmaps_meminfo_field {
	PMAPS_MI_MEM_TOTAL,
	PMAPS_MI_MEM_FREE,
	PMAPS_MI_MEM_AVAILABLE, /* 3.14 */
	PMAPS_MI_BUFFERS,
	PMAPS_MI_CACHED,        /* the page cache, less swap cache and buffers */
	PMAPS_MI_SWAP_CACHED,
	PMAPS_MI_ANON_PAGES,
	PMAPS_MI_MAPPED,
	PMAPS_MI_SHMEM,
	PMAPS_MI_KRECLAIMABLE,
	PMAPS_MI_SLAB,
	PMAPS_MI_PAGE_TABLES,
	PMAPS_MI_SWAP_TOTAL,
	PMAPS_MI_SWAP_FREE,
	PMAPS_MI_DIRTY,
	PMAPS_MI_ANON_HUGE_PAGES,
	PMAPS_MI_HUGETLB,       /* 4.16: every huge page pool's size */
	PMAPS_MI_COUNT
};
#define PMAPS_MI_MAX 32

struct pmaps_meminfo {
	uint32_t size;    /* sizeof(struct pmaps_meminfo): the caller's (Conventions) */
	uint64_t present; /* bit (1 << enum pmaps_meminfo_field) when the line was read */
	uint64_t v[PMAPS_MI_MAX];
};

/* The snake_case key of a meminfo field ("mem_available"), or NULL. */
PMAPS_API const char *pmaps_meminfo_key(enum pmaps_meminfo_field f);

/*
 * Reads PROC_ROOT/meminfo (NULL: /proc) into MI through a fixed buffer.
 * Returns 0, or a negative errno with MSG: -EINVAL (MI->size too small),
 * -ENOENT, -EACCES, -EBADMSG (a value that is not "N kB"), -EIO.
 */
PMAPS_API int pmaps_meminfo_read(const char *proc_root, struct pmaps_meminfo *mi, char *msg,
                                 size_t msgsz);

/* ------------------------------------------------------------------ */
/* Machine figures: /proc/vmstat and /proc/pressure/memory (0.4.0)     */

/* The counters of /proc/vmstat the library reads, and memory's PSI. */
enum pmaps_vmstat_field {
	PMAPS_VMS_PGFAULT,              /* page faults, minor and major (a count) */
	PMAPS_VMS_PGMAJFAULT,           /* major page faults: read from disk or swap */
	PMAPS_VMS_OOM_KILL,             /* processes the OOM killer killed (4.13) */
	PMAPS_VMS_REFAULT_ANON,         /* workingset_refault_anon (5.9): evicted, needed again */
	PMAPS_VMS_REFAULT_FILE,         /* workingset_refault_file (5.9; "workingset_refault" before) */
	PMAPS_VMS_ACTIVATE_ANON,        /* workingset_activate_anon: refaults that were hot */
	PMAPS_VMS_ACTIVATE_FILE,
	PMAPS_VMS_PSWPIN,               /* pages swapped in */
	PMAPS_VMS_PSWPOUT,              /* pages swapped out */
	PMAPS_VMS_PGSCAN_DIRECT,        /* pages scanned by allocating tasks (direct reclaim) */
	PMAPS_VMS_PGSTEAL_DIRECT,       /* pages they reclaimed */
	PMAPS_VMS_PGSCAN_KSWAPD,        /* pages scanned by kswapd */
	PMAPS_VMS_PGSTEAL_KSWAPD,
	/*
	 * /proc/pressure/memory (4.20, CONFIG_PSI, psi=1): the time, in
	 * microseconds since boot, that some (SOME) or all (FULL) non-idle
	 * tasks stalled on memory, and the share of the last 10 s that they
	 * did, in hundredths of a percent (avg10=1.25: 125).
	 */
	PMAPS_VMS_PSI_SOME_US,
	PMAPS_VMS_PSI_FULL_US,
	PMAPS_VMS_PSI_SOME_AVG10,
	PMAPS_VMS_PSI_FULL_AVG10,
	PMAPS_VMS_COUNT
};
#define PMAPS_VMS_MAX 32

struct pmaps_vmstat {
	uint32_t size;    /* sizeof(struct pmaps_vmstat): the caller's (Conventions) */
	uint64_t present; /* bit (1 << enum pmaps_vmstat_field) when the figure was read */
	uint64_t v[PMAPS_VMS_MAX];
};

/* The snake_case key of a vmstat field ("pgmajfault", "psi_some_us"), or NULL. */
PMAPS_API const char *pmaps_vmstat_key(enum pmaps_vmstat_field f);

/*
 * Reads PROC_ROOT/vmstat and PROC_ROOT/pressure/memory (NULL: /proc) into
 * VM through a fixed buffer. A kernel without PSI (or booted psi=0) leaves
 * the PSI fields absent; so does a counter this kernel does not keep.
 * Returns 0, or a negative errno with MSG: -EINVAL (VM->size too small),
 * -ENOENT (no vmstat), -EACCES, -EBADMSG (a line no kernel writes), -EIO.
 */
PMAPS_API int pmaps_vmstat_read(const char *proc_root, struct pmaps_vmstat *vm, char *msg,
                                size_t msgsz);

/* ------------------------------------------------------------------ */
/* Memory cgroups, v2 and v1 (0.4.0)                                   */

/*
 * A memory cgroup's figures under one set of names, whichever hierarchy
 * holds the memory controller. Each names the v2 file it comes from; a v1
 * hierarchy gives the same figure from the file named after the "v1:",
 * where it means the same thing, and leaves it absent where it has none.
 * Bytes unless said.
 */
enum pmaps_cgroup_field {
	PMAPS_CG_CURRENT,        /* memory.current; v1: memory.usage_in_bytes */
	PMAPS_CG_PEAK,           /* memory.peak (5.19); v1: memory.max_usage_in_bytes */
	/* The limits: absent where unlimited ("max"; v1: PAGE_COUNTER_MAX pages). */
	PMAPS_CG_MAX,            /* memory.max; v1: memory.limit_in_bytes */
	PMAPS_CG_HIGH,           /* memory.high; v1: none */
	PMAPS_CG_LOW,            /* memory.low (0 when unset); v1: none */
	PMAPS_CG_MIN,            /* memory.min (0 when unset); v1: none */
	PMAPS_CG_SWAP_CURRENT,   /* memory.swap.current; v1: memory.stat total_swap */
	PMAPS_CG_SWAP_MAX,       /* memory.swap.max; v1: none */
	/* memory.stat (v1: its total_* lines, which count the subtree as v2's do) */
	PMAPS_CG_ANON,           /* anon; v1: total_rss */
	PMAPS_CG_FILE,           /* file; v1: total_cache */
	PMAPS_CG_KERNEL,         /* kernel (5.18); v1: memory.kmem.usage_in_bytes */
	PMAPS_CG_KERNEL_STACK,   /* kernel_stack; v1: none */
	PMAPS_CG_PAGETABLES,     /* pagetables; v1: none */
	PMAPS_CG_SLAB,           /* slab; v1: none */
	PMAPS_CG_SOCK,           /* sock; v1: none */
	PMAPS_CG_SHMEM,          /* shmem; v1: total_shmem */
	PMAPS_CG_FILE_MAPPED,    /* file_mapped; v1: total_mapped_file */
	PMAPS_CG_FILE_DIRTY,     /* file_dirty; v1: total_dirty */
	PMAPS_CG_FILE_WRITEBACK, /* file_writeback; v1: total_writeback */
	PMAPS_CG_ANON_THP,       /* anon_thp; v1: total_rss_huge */
	PMAPS_CG_INACTIVE_ANON,  /* inactive_anon; v1: total_inactive_anon */
	PMAPS_CG_ACTIVE_ANON,    /* active_anon; v1: total_active_anon */
	PMAPS_CG_INACTIVE_FILE,  /* inactive_file; v1: total_inactive_file */
	PMAPS_CG_ACTIVE_FILE,    /* active_file; v1: total_active_file */
	PMAPS_CG_UNEVICTABLE,    /* unevictable; v1: total_unevictable */
	/* memory.stat's counts (events, not bytes) */
	PMAPS_CG_PGFAULT,        /* pgfault; v1: total_pgfault */
	PMAPS_CG_PGMAJFAULT,     /* pgmajfault; v1: total_pgmajfault */
	PMAPS_CG_REFAULT_ANON,   /* workingset_refault_anon; v1: total_workingset_refault_anon */
	PMAPS_CG_REFAULT_FILE,   /* workingset_refault_file; v1: total_workingset_refault_file */
	/* memory.events: how often each boundary was met (counts) */
	PMAPS_CG_EVENTS_LOW,     /* low; v1: none */
	PMAPS_CG_EVENTS_HIGH,    /* high; v1: none */
	PMAPS_CG_EVENTS_MAX,     /* max; v1: memory.failcnt (the usage hit the limit) */
	PMAPS_CG_EVENTS_OOM,     /* oom; v1: none */
	PMAPS_CG_EVENTS_OOM_KILL, /* oom_kill; v1: memory.oom_control oom_kill (4.13) */
	/* memory.pressure (PSI; as PMAPS_VMS_PSI_*); v1: none */
	PMAPS_CG_PSI_SOME_US,
	PMAPS_CG_PSI_FULL_US,
	PMAPS_CG_PSI_SOME_AVG10,
	PMAPS_CG_PSI_FULL_AVG10,
	PMAPS_CG_COUNT
};
#define PMAPS_CG_MAX_FIELDS 64

struct pmaps_cgroup_mem {
	uint32_t size;    /* sizeof(struct pmaps_cgroup_mem): the caller's (Conventions) */
	int version;      /* 2 or 1: the hierarchy read */
	uint64_t present; /* bit (1 << enum pmaps_cgroup_field) when V holds the figure */
	uint64_t v[PMAPS_CG_MAX_FIELDS];
};

/* The snake_case key of a cgroup field ("current", "events_oom_kill"), or NULL. */
PMAPS_API const char *pmaps_cgroup_key(enum pmaps_cgroup_field f);

/*
 * Opens the root of the hierarchy that holds the memory controller under
 * CGROUP_ROOT (NULL: /sys/fs/cgroup): CGROUP_ROOT itself where it is a
 * cgroup2 whose cgroup.controllers lists memory (the unified layout), else
 * its memory/ (v1: the legacy and hybrid layouts). *VERSION: 2 or 1.
 * Returns an O_PATH directory fd (the caller closes it), or a negative
 * errno with MSG: -ENOENT (no memory controller under CGROUP_ROOT), -EACCES.
 */
PMAPS_API int pmaps_cgroup_root_open(const char *cgroup_root, int *version, char *msg,
                                     size_t msgsz);

/*
 * Opens cgroup PATH (LEN bytes, from the root of the hierarchy: "/a/b", as
 * /proc/PID/cgroup gives it) below ROOTFD (pmaps_cgroup_root_open()):
 * never through a symlink or out of ROOTFD (a "." or ".." component, an
 * empty one or a NUL is refused). Returns an O_PATH directory fd, or a
 * negative errno: -EINVAL (a path refused), -ENOENT (gone: its last
 * process left and it was removed), -EACCES.
 */
PMAPS_API int pmaps_cgroup_dir_open(int rootfd, const char *path, size_t len);

/*
 * Where this process's cgroup namespace root is in the tree below ROOTFD
 * (pmaps_cgroup_root_open() of a mount of the machine's hierarchy, VERSION
 * 2 or 1), for a reader in a container with a cgroup namespace of its own,
 * to which /proc/PID/cgroup gives other processes' paths from that root
 * ("/../../kubepods.slice/..."). The cgroup whose cgroup.procs lists this
 * process (numbered as its pid namespace numbers it), searched depth first
 * over at most PMAPS_CGROUP_SEARCH_DIRS directories, less the path
 * /proc/self/cgroup gives it: into OUT ("/" where the namespace's root is
 * the mount's), NUL-terminated. Returns its length, or a negative errno:
 * -ENOENT (no cgroup below ROOTFD lists this process: a mount of another
 * tree, or past the bound), -ENAMETOOLONG (ROOM short), -EBADMSG (the
 * found path does not end in the namespace's path).
 */
#define PMAPS_CGROUP_SEARCH_DIRS 100000
PMAPS_API int pmaps_cgroup_ns_root(int rootfd, int version, char *out, size_t room);

/*
 * PATH (PLEN bytes, as /proc/PID/cgroup gives it from a namespace's root,
 * ".." components included) from the tree's root: ROOT (RLEN bytes, as
 * pmaps_cgroup_ns_root() gives it) and PATH joined, each ".." taking one
 * component off, into OUT, NUL-terminated. Returns its length, or -EINVAL
 * (PATH not absolute, or it climbs above the tree's root), -ENAMETOOLONG.
 */
PMAPS_API int pmaps_cgroup_path_join(const char *root, size_t rlen, const char *path,
                                     size_t plen, char *out, size_t room);

/*
 * Reads the memory figures of the cgroup directory DIRFD (its hierarchy's
 * VERSION, 2 or 1) into M through fixed buffers; each file opened as a
 * regular file only, without following symlinks, never blocking. A file
 * this kernel does not have leaves its fields absent. The root cgroup of
 * v2 has none of the memory.* files but memory.stat and memory.pressure.
 * Returns 0, or a negative errno with MSG: -EINVAL (M->size too small, or
 * VERSION), -ENOENT (neither memory.current/usage_in_bytes nor memory.stat:
 * not a memory cgroup, or removed while read), -EBADMSG (a value that is
 * not a number).
 */
PMAPS_API int pmaps_cgroup_mem_read(int dirfd, int version, struct pmaps_cgroup_mem *m,
                                    char *msg, size_t msgsz);

/*
 * What a cgroup path says of the container, pod or unit a process runs in,
 * from the names container managers give their cgroups (no runtime is
 * asked): docker (docker-ID.scope, /docker/ID), containerd
 * (cri-containerd-ID.scope), CRI-O (crio-ID.scope; its conmon-ID scope is
 * not the container), podman (libpod-ID.scope), and bare 64-hex IDs below
 * kubepods; Kubernetes' pod slices (kubepods-QOS-podUID.slice under the
 * systemd driver, /kubepods/QOS/podUID under cgroupfs); the innermost
 * systemd .service or .scope. Each empty when the path has none.
 */
struct pmaps_cgroup_ident {
	char container_id[65];   /* the innermost container's 64 hex digits */
	char runtime[16];        /* "docker", "containerd", "crio", "podman", or "" (unknown) */
	char pod_uid[37];        /* the pod's UID, with dashes (8-4-4-4-12) */
	char qos[12];            /* "guaranteed", "burstable", "besteffort", or "" */
	struct pmaps_view unit;  /* the innermost systemd unit: a view into the path */
};

/* Fills ID from cgroup path PATH (LEN bytes). Never fails: what is not found is empty. */
PMAPS_API void pmaps_cgroup_ident(const char *path, size_t len, struct pmaps_cgroup_ident *id);

/* ------------------------------------------------------------------ */
/* Survey: every process's totals, refreshed again and again (top, serve) */

/*
 * A survey lists every process under a proc root with its memory in total,
 * refresh after refresh, at a bounded cost to the machine and to each
 * process. Each refresh reads every process's status (cheap: it walks
 * nothing, and takes no lock a process's mmap() waits for) and, for the
 * figures only a walk of the page tables gives (Pss, USS), a costly source:
 *
 *   - only for the processes that need it: new ones, those whose status
 *     figures (VmRSS, RssAnon, RssFile, RssShmem, VmSwap) moved, those whose
 *     figures are older than MAX_AGE_NS (spread over [3/4, 5/4) of it by
 *     pid; Pss moves when another process maps or drops shared pages), and
 *     those a budget left last time; a process listed before is read
 *     through statm (VmSize, VmRSS, RssFile + RssShmem) until one of those
 *     moves, its status then read again;
 *   - from smaps_rollup, unless reading it would hold the process's
 *     mmap_lock longer than HOLD_NS (a large process, priced from VmRSS and
 *     VmPTE by pmaps_cost_estimate()): then from the gentle page walk
 *     (PMAPS_SRC_PAGES with PMAPS_POLICY_GENTLE), which gives USS, and Pss
 *     with CAP_SYS_ADMIN; and never more than BUDGET_NS of reading in one
 *     refresh: what the budget leaves keeps its older figures, or status
 *     alone, marked, and goes first in the next refresh.
 *
 * Kernel threads are skipped; a process that exits during a refresh is
 * left out of it. Memory: the survey allocates its tables at open and
 * grows them only when there are more processes than ever before; a
 * refresh allocates nothing else.
 */
struct pmaps_survey;

/* pmaps_survey_opts.flags */
enum {
	/*
	 * No budget and no hold limit: every process whose costly figures are
	 * due is read from smaps_rollup in this refresh, however large.
	 */
	PMAPS_SURVEY_EXACT = 1u << 0,
	/* Read each process's cgroup (the v2 path of /proc/PID/cgroup). */
	PMAPS_SURVEY_CGROUP = 1u << 1,
	/* Also read /proc/meminfo at each refresh (pmaps_survey_meminfo()). */
	PMAPS_SURVEY_MEMINFO = 1u << 2,
	/*
	 * Since 0.3.0: the costly read is an explain run on one session
	 * re-pointed from process to process (pmaps_explain_retarget()): status,
	 * the threads' stack pointers, the executable's build info and smaps;
	 * or, for a large process, the gentle page walk (PMAPS_EXPLAIN_FAST |
	 * PMAPS_EXPLAIN_GENTLE), which pauses for the process's writers: one a
	 * read() of whose smaps would hold its lock longer than HOLD_NS (priced
	 * from VmRSS and VmPTE, or measured by the last read). Then
	 * smaps_rollup, which holds the lock through its whole walk, only where
	 * that walk is shorter than HOLD_NS (priced, and the last smaps read's
	 * whole time). Each row has a breakdown by category and state
	 * (pmaps_survey_breakdown()), its mapping count and its runtime; its
	 * Pss, USS, SwapPss and LazyFree are the breakdown's totals. A large
	 * process is walked whole in one refresh (its pauses not counted in the
	 * budget). Costs more than smaps_rollup alone (bench/README.md).
	 */
	PMAPS_SURVEY_BREAKDOWN = 1u << 3,
	/*
	 * Since 0.4.0: each process's page faults (PMAPS_SV_MINFLT,
	 * PMAPS_SV_MAJFLT) and start time (START_NS) from /proc/PID/stat,
	 * read at every refresh: one small read more a process (a fault moves
	 * no memory counter).
	 */
	PMAPS_SURVEY_FAULTS = 1u << 4,
	/*
	 * Since 0.4.0: each process's oom_score and oom_score_adj (OOM_SCORE,
	 * OOM_SCORE_ADJ), read with its status: two small reads more a
	 * process whose status is read, kept with the rest of a row whose
	 * counters did not move.
	 */
	PMAPS_SURVEY_OOM = 1u << 5,
	/*
	 * Since 0.4.0, with PMAPS_SURVEY_FAULTS: stat is read with status
	 * only, so a row kept because its memory counters did not move keeps
	 * its faults too, until MAX_AGE, as its other figures: an exporter's
	 * choice (a scraper takes rates over minutes), where each stat read
	 * costs about what the status read does (some 8 us a process here).
	 */
	PMAPS_SURVEY_FAULTS_AGED = 1u << 6,
};

/* Defaults of struct pmaps_survey_opts (0 in a field means its default). */
#define PMAPS_SURVEY_BUDGET_NS (100ull * 1000000ull)  /* reading per refresh: 100 ms */
#define PMAPS_SURVEY_HOLD_NS (5ull * 1000000ull)      /* one smaps_rollup read: 5 ms */
#define PMAPS_SURVEY_MAX_AGE_NS (10ull * 1000000000ull) /* 10 s */

struct pmaps_survey_opts {
	uint32_t size;       /* sizeof(struct pmaps_survey_opts): the caller's (Conventions) */
	uint32_t flags;      /* PMAPS_SURVEY_* */
	uint64_t budget_ns;  /* costly reading in one refresh, in all (wall time, pauses excluded) */
	uint64_t hold_ns;    /* the longest a smaps_rollup read may hold one process's lock */
	uint64_t max_age_ns; /* costly figures are read again at least this often */
};

/*
 * The figures of a survey row (enum pmaps_survey_value), in bytes; since
 * 0.4.0 three counts after them: threads, and the faults.
 */
enum pmaps_survey_value {
	PMAPS_SV_RSS,      /* status VmRSS, of this refresh */
	PMAPS_SV_PSS,      /* Pss from the costly source (smaps_rollup, pages as root) */
	PMAPS_SV_USS,      /* Private_Clean + Private_Dirty, or pages' exclusive pages */
	PMAPS_SV_SWAP,     /* status VmSwap, of this refresh */
	PMAPS_SV_SWAP_PSS, /* SwapPss from smaps_rollup */
	PMAPS_SV_ANON,     /* status RssAnon */
	PMAPS_SV_FILE,     /* status RssFile */
	PMAPS_SV_SHMEM,    /* status RssShmem */
	PMAPS_SV_LAZYFREE, /* LazyFree from the costly source */
	PMAPS_SV_VSIZE,    /* status VmSize */
	PMAPS_SV_THREADS,  /* status Threads: a count (0.4.0) */
	/* Page faults since the process started, counts (0.4.0; PMAPS_SURVEY_FAULTS): */
	PMAPS_SV_MINFLT,   /* stat minflt: served without I/O */
	PMAPS_SV_MAJFLT,   /* stat majflt: waited for I/O (a file read, swap) */
	/* Since 0.4.0, from status, in bytes: */
	PMAPS_SV_HWM,      /* VmHWM: the peak of VmRSS */
	PMAPS_SV_PAGE_TABLES, /* VmPTE: the process's page tables */
	PMAPS_SV_LOCKED,   /* VmLck: locked memory (mlock) */
	PMAPS_SV_COUNT
};
#define PMAPS_SV_MAX 16

/* The snake_case key of a survey value ("pss"), or NULL. */
PMAPS_API const char *pmaps_survey_value_key(enum pmaps_survey_value k);

/* struct pmaps_survey_row.flags */
enum {
	PMAPS_SURVEY_NEW = 1u << 0,     /* first seen in this refresh */
	PMAPS_SURVEY_FRESH = 1u << 1,   /* the costly figures were read in this refresh */
	/*
	 * Due a costly read that the budget left to a later refresh: the
	 * costly figures are older (AGE_NS), or absent when never read.
	 */
	PMAPS_SURVEY_SKIPPED = 1u << 2,
	/*
	 * Its memory files are not readable by this reader (another user's
	 * process: ptrace-read access, CAP_SYS_PTRACE as root, is needed):
	 * status figures only.
	 */
	PMAPS_SURVEY_DENIED = 1u << 3,
	/* Too large for one smaps_rollup read within HOLD_NS: walked gently, or left. */
	PMAPS_SURVEY_LARGE = 1u << 4,
	/* The source gave fewer figures than smaps_rollup would (pages without CAP_SYS_ADMIN: no Pss). */
	PMAPS_SURVEY_PARTIAL = 1u << 5,
	/* The cgroup path was longer than the row's room: CGROUP is its start. */
	PMAPS_SURVEY_CGROUP_TRUNCATED = 1u << 6,
	/*
	 * The costly source failed for another reason than privilege or exit
	 * (a proc tree without smaps_rollup, text no kernel writes): the
	 * costly figures are older, or absent; tried again next refresh.
	 */
	PMAPS_SURVEY_FAILED = 1u << 7,
};

/* One process of a survey. Valid until the next refresh or close. */
struct pmaps_survey_row {
	int pid;
	uint32_t uid;            /* the real uid (status Uid:) */
	char state;              /* status State: R S D T t X I */
	uint32_t flags;          /* PMAPS_SURVEY_* row flags */
	enum pmaps_source source; /* of the costly figures: ROLLUP, SMAPS, PAGES, or STATUS (none) */
	uint64_t present;        /* bit (1 << enum pmaps_survey_value) when V holds it */
	uint64_t v[PMAPS_SV_MAX];
	uint64_t age_ns;         /* since the costly figures were read (0: in this refresh) */
	uint64_t cost_ns;        /* what their read took (wall time, pauses excluded) */
	/* The command name (status Name:, as the kernel escapes it); bytes the target chose. */
	struct pmaps_view comm;
	/* The cgroup v2 path, with PMAPS_SURVEY_CGROUP; else empty. Bytes the target's manager chose. */
	struct pmaps_view cgroup;
	/* Everything the costly source gave (pmaps_group_value()), or NULL when never read. */
	const struct pmaps_group_row *total;
	/* This refresh's status (pmaps_status). */
	const struct pmaps_status *status;
	/*
	 * Since 0.3.0, with PMAPS_SURVEY_BREAKDOWN: the breakdown the costly
	 * figures came with (pmaps_survey_breakdown()), or NULL when they were
	 * never read; TOTAL is then NULL.
	 */
	const struct pmaps_survey_breakdown *breakdown;
	/*
	 * With BREAKDOWN: its mappings, VMAs as vm.max_map_count counts them:
	 * [vsyscall], which maps lists, is none.
	 */
	uint64_t mappings;
	enum pmaps_runtime runtime; /* with BREAKDOWN: the language runtime found */
	/* With BREAKDOWN: the runtime's version, or empty. Bytes the target chose. */
	struct pmaps_view runtime_version;
	/*
	 * Since 0.4.0, with PMAPS_SURVEY_FAULTS: when the process started, in
	 * ns after the machine booted (stat's starttime); 0 when unknown.
	 */
	uint64_t start_ns;
	/*
	 * Since 0.4.0, with PMAPS_SURVEY_OOM, when OOM_KNOWN: the kernel's
	 * badness of the process (/proc/PID/oom_score, 0 to 2000: the larger,
	 * the sooner the OOM killer picks it) and the adjustment it was given
	 * (oom_score_adj, -1000 to 1000; -1000: never).
	 */
	int oom_known;
	uint32_t oom_score;
	int32_t oom_score_adj;
	/*
	 * Since 0.4.0, with PMAPS_SURVEY_CGROUP: the path of the memory
	 * controller's cgroup (a v1 "N:memory:/path" line where the memory
	 * controller is on v1, as in the hybrid layout; else the v2 path), for
	 * pmaps_cgroup_dir_open(). Bytes the target's manager chose.
	 */
	struct pmaps_view memcg;
};

/* A survey row's breakdown by category (PMAPS_SURVEY_BREAKDOWN): opaque. */
struct pmaps_survey_breakdown;

/*
 * The bytes of category CAT (enum pmaps_xcat, or -1 for the sum over
 * categories) in state COL of breakdown B into *V. Returns 1, or 0 when
 * the source did not know that state (pmaps_explain_known()'s rules: the
 * clean/dirty split, LOCKED and SWAP_PSS from the page walk; PSS and
 * LAZYFREE there without CAP_SYS_ADMIN) or B is NULL, *V then 0. As in an
 * explain result, RSS = PRIVATE_DIRTY + PRIVATE_CLEAN + SHARED exactly, and
 * the categories add up to the total (-1) in every state but two: the
 * total's PSS and SWAP_PSS are smaps_rollup's when it was read right after
 * smaps at the same Rss (PMAPS_SURVEY_BREAKDOWN says when), and smaps
 * rounds each mapping's down to a KiB, so the categories' may fall short
 * of them by less than 1 KiB a mapping. Without smaps_rollup, the total's
 * are the categories' sums.
 */
PMAPS_API int pmaps_survey_breakdown(const struct pmaps_survey_breakdown *b, int cat,
                                     enum pmaps_xcol col, uint64_t *v);
/* The mappings of category CAT (-1: all) in breakdown B (0 for NULL). */
PMAPS_API uint64_t pmaps_survey_breakdown_mappings(const struct pmaps_survey_breakdown *b,
                                                   int cat);

/* What the last refresh did. */
struct pmaps_survey_stats {
	uint32_t size;           /* sizeof(struct pmaps_survey_stats): the caller's (Conventions) */
	uint64_t refreshes;      /* so far */
	uint64_t wall_ns;        /* the last refresh, in all */
	uint64_t read_ns;        /* its costly reads (what the budget counts) */
	uint64_t budget_ns;      /* the budget it had (0: none) */
	uint64_t hold_ns;        /* the hold limit it had (0: none) */
	uint32_t processes;      /* rows */
	uint32_t read;           /* costly reads made */
	uint32_t kept;           /* rows whose figures were still good (status did not move) */
	uint32_t skipped;        /* rows PMAPS_SURVEY_SKIPPED */
	uint32_t denied;         /* rows PMAPS_SURVEY_DENIED */
	uint32_t large;          /* rows PMAPS_SURVEY_LARGE */
	uint32_t vanished;       /* processes that exited during the refresh */
	uint32_t kernel_threads; /* skipped */
	uint32_t allocations;    /* allocations made in the refresh (the tables growing) */
	uint32_t unwanted;       /* due a costly read that pmaps_survey_want() declined */
	uint32_t failed;         /* rows PMAPS_SURVEY_FAILED */
};

/*
 * Opens a survey of the processes under PROC_ROOT (NULL: /proc) with OPTS
 * (NULL: the defaults). Reads nothing yet. Returns 0 and *OUT, or -EINVAL,
 * -ENOENT, -EACCES, -ENOMEM.
 */
PMAPS_API int pmaps_survey_open(struct pmaps_survey **out, const char *proc_root,
                                const struct pmaps_survey_opts *opts);

/*
 * One refresh. Returns the number of rows (sorted by pid), or a negative
 * errno with pmaps_survey_errmsg(): -ENOMEM (the tables could not grow: the
 * rows are the last refresh's), -EIO (the proc root could not be listed).
 */
PMAPS_API int pmaps_survey_refresh(struct pmaps_survey *s);

PMAPS_API size_t pmaps_survey_count(const struct pmaps_survey *s);
/* Row I (0 <= I < count), in pid order, or NULL. */
PMAPS_API const struct pmaps_survey_row *pmaps_survey_get(const struct pmaps_survey *s, size_t i);
/* The row of PID, or NULL. */
PMAPS_API const struct pmaps_survey_row *pmaps_survey_find(const struct pmaps_survey *s, int pid);
/* /proc/meminfo of the last refresh (PMAPS_SURVEY_MEMINFO), or NULL. */
PMAPS_API const struct pmaps_meminfo *pmaps_survey_meminfo(const struct pmaps_survey *s);
/* What the last refresh did, into OUT (SIZE set). Returns 0 or -EINVAL. */
PMAPS_API int pmaps_survey_stats(const struct pmaps_survey *s, struct pmaps_survey_stats *out);
PMAPS_API const char *pmaps_survey_errmsg(const struct pmaps_survey *s);
/*
 * Which processes the costly reads are for (a front end showing some of
 * them: top --pid, --user, --name): WANT(CTX, ROW) is asked in each refresh
 * about a process whose costly figures are due, with ROW's pid, uid, comm,
 * cgroup and status figures read; 0 leaves them unread (the row keeps
 * older ones, or has status figures alone, unflagged: counted as
 * unwanted, not skipped). NULL: every process (the default). Returns 0,
 * or -EINVAL.
 */
PMAPS_API int pmaps_survey_want(struct pmaps_survey *s,
                                int (*want)(void *ctx, const struct pmaps_survey_row *row),
                                void *ctx);
/* Closes the survey. NULL is allowed. */
PMAPS_API void pmaps_survey_close(struct pmaps_survey *s);

/*
 * A sum of survey rows (a user's, a cgroup's): SUM->v[k] += ROW->v[k] for
 * each figure ROW has, saturating at 2^64 - 1 (SUM->saturated then set).
 * PRESENT has the figures every row added had: a figure in SEEN but not in
 * PRESENT is the sum over the rows that had it, a part of the whole. Start
 * from a zeroed sum with SIZE set. Returns 0, or -EINVAL.
 */
struct pmaps_survey_sum {
	uint32_t size;       /* sizeof(struct pmaps_survey_sum): the caller's (Conventions) */
	uint32_t processes;  /* rows added */
	uint64_t present;    /* bit (1 << enum pmaps_survey_value): in every row added */
	uint64_t seen;       /* bit (1 << enum pmaps_survey_value): in some row added */
	uint64_t v[PMAPS_SV_MAX];
	uint32_t saturated;  /* a sum stopped at 2^64 - 1 */
};
PMAPS_API int pmaps_survey_sum_add(struct pmaps_survey_sum *sum,
                                   const struct pmaps_survey_row *row);
/*
 * Since 0.4.0: adds the sum FROM (of other rows) to SUM, as if each of its
 * rows had been added (a process tree's subtrees into their parent's).
 * Returns 0, or -EINVAL.
 */
PMAPS_API int pmaps_survey_sum_merge(struct pmaps_survey_sum *sum,
                                     const struct pmaps_survey_sum *from);

/* ------------------------------------------------------------------ */
/* Physical memory: /proc/kpageflags, page by page (pmaps phys)        */

/*
 * The machine's physical memory by page state, from /proc/kpageflags (and
 * /proc/kpagecount), read whole in large sequential reads into buffers
 * allocated at open: every page frame (PFN) the kernel lists is counted in
 * exactly one state (enum pmaps_phys_state, so the states add up to the
 * total), in any number of flags (enum pmaps_phys_flag), and each block of
 * BLOCK_PAGES frames keeps its pages per state, for a picture. Needs root: the files are mode 0400 (reading them needs uid 0 or
 * CAP_DAC_READ_SEARCH; without, -EACCES). Kernel 2.6.31+; a state whose
 * flag a kernel lacks (KPF_ZERO_PAGE before 4.0, KPF_PGTABLE before 4.14,
 * KPF_OFFLINE before 4.20) is counted in a later one. With THREADS in the
 * options, the files are read by that many threads at once.
 *
 * The state of a page, in this order of precedence (the first that holds):
 *   HOLE       no memory: KPF_NOPAGE (kernels before ~6.16), or a frame no
 *              "System RAM" range of PROC_ROOT/iomem touches (any depth,
 *              "System RAM (kmem)" and "System RAM (virtio_mem)" too) whose
 *              flags say nothing (0, NOPAGE, or RESERVED alone: a page
 *              whose flags show it in use is never a hole). When iomem
 *              cannot be read (pmaps_phys_result.holes_known 0; a container
 *              without CAP_SYS_ADMIN reads zeros) such frames read as
 *              flagless pages: KERNEL. iomem is read again by every reading.
 *   HWPOISON   KPF_HWPOISON: memory the kernel took out of use after errors
 *   OFFLINE    KPF_OFFLINE: logically offline (a balloon driver's, virtio-mem)
 *   ZERO       KPF_ZERO_PAGE: the shared zero page (also RESERVED) and the
 *              huge zero page
 *   RESERVED   KPF_RESERVED (bit 32): never handed to the allocator (firmware,
 *              the kernel image, memmap)
 *   FREE       KPF_BUDDY: free, in the buddy allocator
 *   HUGETLB    KPF_HUGE: a hugetlbfs page (in use or in the pool)
 *   SLAB       KPF_SLAB: the slab allocator's
 *   PGTABLE    KPF_PGTABLE: page tables
 *   LAZYFREE   KPF_ANON without KPF_SWAPBACKED: freed with MADV_FREE, not
 *              yet reclaimed
 *   ANON_THP   KPF_ANON and KPF_THP: anonymous, in a large folio (THP, mTHP)
 *   ANON       KPF_ANON: anonymous (KSM pages included)
 *   SWAPCACHE  KPF_SWAPCACHE (not anonymous): shared memory in the swap cache
 *   SHMEM      KPF_SWAPBACKED (not anonymous): tmpfs, shared anonymous, SysV
 *   FILE_THP   KPF_LRU and KPF_THP: page cache in a large folio
 *   FILE_MAPPED KPF_LRU and KPF_MMAP: page cache mapped by a process
 *   FILE       KPF_LRU: page cache no process maps
 *   KERNEL     none of these: in use by the kernel (vmalloc, stacks, buffers,
 *              drivers; KPF_MMAP without KPF_LRU: a driver's or vmalloc's
 *              pages mapped into userspace, GPU buffers, io_uring and perf
 *              rings), or a page between two states while it was read. Also
 *              free pages on the per-CPU lists (they carry no KPF_BUDDY: so
 *              FREE is below MemFree by those), and on 6.16+ an offlined
 *              memory block inside System RAM (its frames read as 0).
 *   UNINIT     (since 0.4.0) frames whose struct page the kernel has not
 *              initialised yet: a kernel that defers that work
 *              (CONFIG_DEFERRED_STRUCT_PAGE_INIT; some boot it lazily, on
 *              demand) counts them in MemTotal and most of them in MemFree,
 *              while kpageflags reads them as 0. A reading calls flagless
 *              frames UNINIT when they run, unmapped and charged to no
 *              cgroup, from a 128 MiB boundary to the end of their System RAM
 *              range, at least 128 MiB, and /proc/meminfo's MemFree exceeds
 *              FREE by at least half of them (such a run also holds the early
 *              allocations the kernel placed there, the memmap first: their
 *              frames are not initialised either). Otherwise such frames are
 *              KERNEL. A caller whose opts do not give STATES (before 0.4.0)
 *              gets them as KERNEL.
 * A compound tail page (KPF_COMPOUND_TAIL) following its head takes the
 * head's state (older kernels flag a tail by itself only), unless it has
 * KPF_HWPOISON or KPF_OFFLINE itself. Flags count each page's own bits.
 *
 * Counts are of pages (at most the file's size / 8: no sum can wrap); bytes
 * from pmaps_phys_bytes(), which saturates. A read is not atomic: the kernel
 * fills it frame by frame while memory changes, as page-types' reads.
 */
enum pmaps_phys_state {
	PMAPS_PHYS_HOLE,
	PMAPS_PHYS_HWPOISON,
	PMAPS_PHYS_OFFLINE,
	PMAPS_PHYS_ZERO,
	PMAPS_PHYS_RESERVED,
	PMAPS_PHYS_FREE,
	PMAPS_PHYS_HUGETLB,
	PMAPS_PHYS_SLAB,
	PMAPS_PHYS_PGTABLE,
	PMAPS_PHYS_LAZYFREE,
	PMAPS_PHYS_ANON_THP,
	PMAPS_PHYS_ANON,
	PMAPS_PHYS_SWAPCACHE,
	PMAPS_PHYS_SHMEM,
	PMAPS_PHYS_FILE_THP,
	PMAPS_PHYS_FILE_MAPPED,
	PMAPS_PHYS_FILE,
	PMAPS_PHYS_KERNEL,
	PMAPS_PHYS_UNINIT, /* since 0.4.0 */
	PMAPS_PHYS_COUNT
};
/* The states before 0.4.0: PMAPS_PHYS_COUNT of a caller built then. */
#define PMAPS_PHYS_COUNT_0_3 18
#define PMAPS_PHYS_MAX 32

/* Flags counted beside the state (a page has any number of them). */
enum pmaps_phys_flag {
	PMAPS_PHYS_F_MLOCKED,     /* KPF_MLOCKED (bit 33) */
	PMAPS_PHYS_F_UNEVICTABLE, /* KPF_UNEVICTABLE */
	PMAPS_PHYS_F_DIRTY,       /* KPF_DIRTY */
	PMAPS_PHYS_F_WRITEBACK,   /* KPF_WRITEBACK */
	PMAPS_PHYS_F_REFERENCED,  /* KPF_REFERENCED */
	PMAPS_PHYS_F_ACTIVE,      /* KPF_ACTIVE */
	PMAPS_PHYS_F_IDLE,        /* KPF_IDLE (page idle tracking or DAMON) */
	PMAPS_PHYS_F_KSM,         /* KPF_KSM, of anonymous pages (slab pages show stray
	                             ANON and KSM bits: not counted) */
	PMAPS_PHYS_F_SWAPCACHE,   /* KPF_SWAPCACHE (anonymous pages too) */
	PMAPS_PHYS_F_MMAP,        /* KPF_MMAP: mapped by a process */
	PMAPS_PHYS_F_MAPPED,      /* kpagecount >= 1 (PMAPS_PHYS_MAPCOUNT) */
	PMAPS_PHYS_F_SHARED,      /* kpagecount >= 2 (PMAPS_PHYS_MAPCOUNT) */
	PMAPS_PHYS_F_COUNT
};
#define PMAPS_PHYS_F_MAX 32

/* The snake_case key of a state ("file_mapped") or flag ("mlocked"), or NULL. */
PMAPS_API const char *pmaps_phys_state_key(enum pmaps_phys_state s);
PMAPS_API const char *pmaps_phys_flag_key(enum pmaps_phys_flag f);

/* pmaps_phys_opts.flags */
enum {
	/* Also read /proc/kpagecount: the MAPPED and SHARED flags. Where the
	 * file is missing they stay unknown (flags_known). */
	PMAPS_PHYS_MAPCOUNT = 1u << 0,
	/*
	 * Since 0.3.0. Also read /proc/kpagecgroup (Linux 4.3+, CONFIG_MEMCG;
	 * root only):
	 * the pages charged to each memory cgroup (pmaps_phys_result.cgroups).
	 * Where the file is missing, cgroups_known is 0 (not an error).
	 */
	PMAPS_PHYS_CGROUP = 1u << 1,
};
/* Since 0.3.0: the memory cgroups a handle counts apart (a table made at open). */
#define PMAPS_PHYS_MAX_CGROUPS 4096u

/*
 * Since 0.3.0. The pages charged to one memory cgroup: INODE is the inode
 * number of the cgroup's directory (in cgroup v2's mount, or the v1 memory
 * controller's), as /proc/kpagecgroup gives it; 0 is the row of the frames
 * charged to no cgroup (free pages, most kernel pages, and all frames on a
 * kernel booted with cgroup_disable=memory). STATE[s]: its pages in state s
 * (the frame's one state, as pmaps_phys_result.state); they add up to PAGES.
 */
struct pmaps_phys_cgroup {
	uint64_t inode;
	uint64_t pages;
	uint64_t state[PMAPS_PHYS_MAX];
};

/* Defaults of struct pmaps_phys_opts (0 in a field means its default). */
/*
 * 2 MiB of 4 KiB pages; on a machine of more than 2^16 such blocks (128 GiB),
 * as many frames as make 2^16 blocks: no picture shows more cells.
 */
#define PMAPS_PHYS_BLOCK_PAGES 512u
/* The most blocks a handle keeps (77 bytes each): a smaller BLOCK_PAGES is -E2BIG. */
#define PMAPS_PHYS_MAX_BLOCKS (1u << 20)
#define PMAPS_PHYS_BUF_BYTES (1u << 20)  /* per file read: 1 MiB, 131072 frames */

struct pmaps_phys_opts {
	uint32_t size;        /* sizeof(struct pmaps_phys_opts): the caller's (Conventions) */
	uint32_t flags;       /* PMAPS_PHYS_* */
	uint64_t block_pages; /* frames per block of the picture, 1 to 2^32 - 1
	                         (at most PMAPS_PHYS_MAX_BLOCKS blocks) */
	uint64_t buf_bytes;   /* bytes per read, a multiple of 8, 4 KiB to 64 MiB */
	/*
	 * Reader threads, 0 to 16: with 2 or more, the files are read by that
	 * many threads at once (the kernel's work per frame spread over CPUs;
	 * 2 * THREADS buffers), started and joined by each read, while the
	 * calling thread counts; 0 or 1, the calling thread reads. Where no
	 * thread can be started, the calling thread reads.
	 */
	uint32_t threads;
	/*
	 * NULL, or the caller's flag (a signal handler's, another thread's):
	 * nonzero makes a read stop before its next chunk (BUF_BYTES of
	 * frames) with -EINTR. The read never changes it.
	 */
	volatile sig_atomic_t *cancel;
	/*
	 * Since 0.4.0: the states the caller knows, PMAPS_PHYS_COUNT of its
	 * header (the entries of a BLOCK_STATE row, pmaps_phys_result.states).
	 * 0 (or opts from before 0.4.0, or NULL opts): PMAPS_PHYS_COUNT_0_3,
	 * and the states added since are counted as KERNEL. Above this
	 * library's PMAPS_PHYS_COUNT: this library's.
	 */
	uint32_t states;
};

/* The result of a read. Valid until the next read or the close. */
struct pmaps_phys_result {
	uint32_t size;             /* sizeof(struct pmaps_phys_result) */
	unsigned page_size;        /* bytes */
	uint64_t pages;            /* frames listed: kpageflags' length / 8 (total_pages) */
	uint64_t state[PMAPS_PHYS_MAX]; /* pages per state; states add up to PAGES */
	uint64_t flag[PMAPS_PHYS_F_MAX]; /* pages per flag */
	uint64_t flags_known;      /* bit (1 << enum pmaps_phys_flag): the others are unknown */
	int holes_known;           /* iomem was read: HOLE has frames without RAM too */
	uint64_t block_pages;
	/*
	 * Blocks pictured: PAGES / BLOCK_PAGES rounded up, at most the room
	 * made at open (memory added since then is counted, not pictured).
	 */
	uint64_t blocks;
	/* BLOCK[i] (enum pmaps_phys_state, as a byte): the state most frames of
	 * block i are in (a tie: the earlier state); the last block may be short. */
	const uint8_t *block;
	uint64_t read_ns;          /* the read's wall time */
	uint64_t reads;            /* pread() calls it made, its reader threads' too */
	/*
	 * BLOCK_STATE[i * STATES + s] (STATES below: PMAPS_PHYS_COUNT when the
	 * opts gave it): block i's pages in state s
	 * (BLOCKS rows; a block holds fewer than 2^32 frames). A picture's
	 * cell of several blocks adds these up: the state most of the cell's
	 * frames are in, not the one most of its blocks have.
	 */
	const uint32_t *block_state;
	/*
	 * Since 0.3.0, with PMAPS_PHYS_CGROUP. CGROUPS_KNOWN: kpagecgroup was
	 * read (0: not asked for, or the kernel has none; then NCGROUPS is 0).
	 * CGROUPS[0, NCGROUPS): one row per cgroup inode seen (inode 0 too),
	 * largest PAGES first (ties: smaller inode first); at most
	 * PMAPS_PHYS_MAX_CGROUPS rows. The frames of inodes seen after the table
	 * was full are counted in CGROUPS_OTHER (never dropped): the rows and
	 * CGROUPS_OTHER add up to PAGES. Valid until the next read or the close.
	 */
	int cgroups_known;
	uint64_t cgroups_other;
	size_t ncgroups;
	const struct pmaps_phys_cgroup *cgroups;
	/* Since 0.4.0: the entries of a BLOCK_STATE row (the states the opts asked for). */
	uint32_t states;
	/*
	 * Since 0.4.0: MEMINFO_KNOWN, PROC_ROOT/meminfo was read after the
	 * frames; MEMINFO_FREE, its MemFree in pages. FREE is below it by the
	 * free pages on the per-CPU lists and, on a kernel that defers struct
	 * page initialisation, by the UNINIT frames it counts free.
	 */
	int meminfo_known;
	uint64_t meminfo_free;
};

struct pmaps_phys;

/*
 * Opens PROC_ROOT/kpageflags (NULL: /proc), and kpagecount with
 * PMAPS_PHYS_MAPCOUNT, kpagecgroup with PMAPS_PHYS_CGROUP (and the table of
 * PMAPS_PHYS_MAX_CGROUPS rows, 1.1 MiB), and PROC_ROOT/iomem and
 * PROC_ROOT/meminfo when it can, and allocates the
 * buffers and the block arrays for the frames listed now (1 + 4 * STATES
 * bytes a block: 77 bytes for 2 MiB at the default block size, 39 MiB for
 * 1 TiB). OPTS may be NULL (defaults). Reads no page yet. Returns 0 and *OUT,
 * or: -EACCES/-EPERM (not root: the message says so), -ENOENT (no proc
 * root directory, or no kpageflags: a kernel without CONFIG_PROC_PAGE_MONITOR, or a proc tree
 * without it), -EBADMSG (not a regular file in a fixture tree, or a length
 * that is not whole 8-byte entries), -EINVAL (OPTS), -ENOMEM. With the
 * message in MSG (MSGSZ bytes; may be NULL). *OUT is NULL on error.
 */
PMAPS_API int pmaps_phys_open(struct pmaps_phys **out, const char *proc_root,
                              const struct pmaps_phys_opts *opts, char *msg, size_t msgsz);

/*
 * Reads every frame once, from the start: counts and blocks, and iomem
 * again. Allocates no memory; with THREADS it starts THREADS threads and
 * joins them before it returns. Returns 0 with *RES (valid until the next
 * read or the close), or a negative errno with pmaps_phys_errmsg(): -EIO (a
 * read failed, gave a part of an entry, or kpagecount or kpagecgroup was
 * shorter than kpageflags), -EINTR (the options' CANCEL flag was set); the previous
 * result is then gone (*RES NULL).
 */
PMAPS_API int pmaps_phys_read(struct pmaps_phys *p, const struct pmaps_phys_result **res);

/* PAGES of R's page size in bytes, saturating at 2^64 - 1. */
PMAPS_API uint64_t pmaps_phys_bytes(const struct pmaps_phys_result *r, uint64_t pages);

/* The last error's message, or "". */
PMAPS_API const char *pmaps_phys_errmsg(const struct pmaps_phys *p);

/* Closes every file and frees everything. NULL is allowed. */
PMAPS_API void pmaps_phys_close(struct pmaps_phys *p);

/* ------------------------------------------------------------------ */
/* The working set: what a process touched since a reset (since 0.4.0) */

/*
 * How a working-set session tells the bytes a process touched from those
 * it left idle. Each method changes something the kernel keeps about the
 * process, which is why nothing but a session asked for by name does it.
 */
enum pmaps_wss_method {
	PMAPS_WSS_AUTO,       /* pmaps_wss_open(): the best this kernel offers */
	/*
	 * Write "1" to /proc/PID/clear_refs (the process's owner or root),
	 * which clears the referenced bits of every page the process maps
	 * (the accessed bits of its page table entries, and its pages'
	 * referenced flags) under its mmap_lock held for writing; then read
	 * smaps' Referenced per mapping: the pages touched since. Reclaim
	 * reads those bits to choose what to evict, so the reset makes the
	 * process's pages look idle to it until they are touched again.
	 */
	PMAPS_WSS_CLEAR_REFS,
	PMAPS_WSS_METHOD_COUNT
};
/* Its key ("clear_refs"), or NULL (AUTO included). */
PMAPS_API const char *pmaps_wss_method_name(enum pmaps_wss_method m);

/*
 * What the running kernel offers for measuring a working set (each 1, 0,
 * or -1 where it cannot be told without changing something), whether or
 * not pmaps uses it. Read from /proc and /sys only; no kdamond is touched.
 */
struct pmaps_wss_kernel {
	uint32_t size;   /* sizeof(struct pmaps_wss_kernel): the caller's (Conventions) */
	int clear_refs;  /* /proc/self/clear_refs exists */
	int page_idle;   /* /sys/kernel/mm/page_idle/bitmap (CONFIG_IDLE_PAGE_TRACKING) */
	int damon;       /* DAMON's sysfs interface (/sys/kernel/mm/damon/admin) */
	/*
	 * DAMON's vaddr operations (per-process sampling), as a context that
	 * already exists lists them in avail_operations; -1 when there is no
	 * context to ask (making one would be a change to the machine).
	 */
	int damon_vaddr;
};
/* Fills OUT (SIZE set by the caller) under PROC_ROOT (NULL: /proc). Returns 0 or -EINVAL. */
PMAPS_API int pmaps_wss_kernel(const char *proc_root, struct pmaps_wss_kernel *out);

/* One reading of a working set: valid until the next call on its session. */
struct pmaps_wss_result {
	uint32_t size;               /* sizeof(struct pmaps_wss_result): the library's */
	enum pmaps_wss_method method;
	unsigned resets;             /* resets the session has made */
	uint64_t reset_at_ns;        /* the last reset, CLOCK_REALTIME (ns since the epoch) */
	/*
	 * CLOCK_MONOTONIC from the last reset to the start and to the end of
	 * the read: a page counts as touched when the process touched it
	 * between the reset and the moment the read passed its mapping.
	 */
	uint64_t since_start_ns, since_end_ns;
	/*
	 * The last reset's write, call to return: the wait for the process's
	 * mmap_lock, then the walk of every page table with it held for writing.
	 */
	uint64_t reset_took_ns;
	/*
	 * The explanation read with the bits: per category (and for each of
	 * its largest mappings) RSS in x->v[][PMAPS_XC_RSS] and x->top[].rss,
	 * the bytes touched since the reset in x->referenced[] and
	 * x->top_referenced[] (REFERENCED_KNOWN is 1).
	 */
	const struct pmaps_explain *x;
};

struct pmaps_wss;

enum {
	/* Each read also reads smaps_rollup after smaps, to reconcile (as explain does). */
	PMAPS_WSS_ROLLUP = 1u << 0,
};

/*
 * Opens a working-set session on PROC with METHOD (AUTO: the first this
 * kernel offers) and FLAGS (PMAPS_WSS_*). Allocates here the session and
 * its explain session; the first read sizes what explain keeps (the
 * threads' stack pointers), and a read allocates again only when the
 * process has more threads than any read before. Nothing is written to
 * the process until pmaps_wss_reset(). Returns 0 and *OUT, or a negative
 * errno: -ENOMEM, -EINVAL, -EOPNOTSUPP (no method here, or PROC's root is
 * no procfs: the message says which); *OUT is set whenever the session
 * could be allocated, for pmaps_wss_errmsg(): close it. PROC must outlive
 * the session.
 */
PMAPS_API int pmaps_wss_open(struct pmaps_wss **out, struct pmaps_proc *proc,
                             enum pmaps_wss_method method, unsigned flags);

/*
 * Resets the process's referenced bits (METHOD's write: see above) and
 * starts the interval; only a process whose smaps this reader can read
 * (ptrace access) is reset. Returns 0, or a negative errno with a message:
 * -ESRCH (exited, or a zombie), -EACCES or -EPERM (no ptrace access, or
 * not the process's owner or root), -ENODATA (a kernel thread), -EIO.
 */
PMAPS_API int pmaps_wss_reset(struct pmaps_wss *w);

/*
 * Reads what the process touched since the last reset (status, smaps, and
 * smaps_rollup with PMAPS_WSS_ROLLUP): *OUT valid until the next call.
 * Allocates as pmaps_wss_open() says. A process that exited or exec'd
 * since the reset is an error, never a reading: -ESRCH, -ESTALE (the new
 * program's bits were not reset). Also -EINVAL (no reset yet), -EBADMSG,
 * -EAGAIN, -EACCES, -EOPNOTSUPP (this kernel's smaps has no Referenced),
 * with a message.
 */
PMAPS_API int pmaps_wss_read(struct pmaps_wss *w, const struct pmaps_wss_result **out);

/* The last error's message, or "". */
PMAPS_API const char *pmaps_wss_errmsg(const struct pmaps_wss *w);

/* What the last read of smaps cost, as pmaps_explain_cost(). Returns 0 or -EINVAL. */
PMAPS_API int pmaps_wss_cost(const struct pmaps_wss *w, struct pmaps_cost *out);

/* Closes the session, its files and its explain session. NULL is allowed. */
PMAPS_API void pmaps_wss_close(struct pmaps_wss *w);

#ifdef __cplusplus
}
#endif
#endif /* PMAPS_H */
