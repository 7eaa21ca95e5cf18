/* SPDX-License-Identifier: MIT */
/*
 * classify.c - what kind of memory a mapping is, and the names of kinds and VmFlags.
 *
 * Decided from what maps shows (name, inode, device, permissions) and, with
 * smaps, VmFlags ("ht" marks hugetlb). The kernel chooses a name in this
 * order: file path, [anon_shmem:NAME], special mappings ([vdso] ...),
 * [heap], [stack], [anon:NAME], none. Shared
 * anonymous memory and memfds show as paths on internal tmpfs mounts (device
 * major 0): "/dev/zero (deleted)", "/memfd:NAME (deleted)",
 * "/SYSV%08x (deleted)"; MAP_HUGETLB shows as "/anon_hugepage (deleted)".
 */
#include <string.h>

#include "internal.h"

static const char *const kind_names[PMAPS_KIND_COUNT] = {
	[PMAPS_KIND_ANON] = "anon",
	[PMAPS_KIND_ANON_NAMED] = "anon-named",
	[PMAPS_KIND_HEAP] = "heap",
	[PMAPS_KIND_STACK] = "stack",
	[PMAPS_KIND_FILE_TEXT] = "file-text",
	[PMAPS_KIND_FILE_DATA] = "file-data",
	[PMAPS_KIND_FILE_RO] = "file-ro",
	[PMAPS_KIND_SHMEM] = "shmem",
	[PMAPS_KIND_HUGETLB] = "hugetlb",
	[PMAPS_KIND_VDSO] = "vdso",
	[PMAPS_KIND_GUARD] = "guard",
	[PMAPS_KIND_OTHER] = "other",
	[PMAPS_KIND_ROLLUP] = "rollup",
};

const char *pmaps_kind_name(enum pmaps_kind k)
{
	return (unsigned)k < PMAPS_KIND_COUNT ? kind_names[k] : NULL;
}

int pmaps_kind_lookup(const char *name, size_t len)
{
	for (int k = 0; k < PMAPS_KIND_COUNT; k++)
		if (strlen(kind_names[k]) == len && memcmp(kind_names[k], name, len) == 0)
			return k;
	return -1;
}

static const char vm_codes[PMAPS_VM_COUNT][3] = {
	"rd", "wr", "ex", "sh", "mr", "mw", "me", "ms", "gd", "pf", "gu", "lo", "io",
	"sr", "rr", "dc", "de", "lf", "ac", "nr", "ht", "sf", "ar", "wf", "dd", "sd",
	"mm", "hg", "nh", "mg", "um", "uw", "ss", "sl", "dp", "bt", "mt", "ui",
};
_Static_assert(PMAPS_VM_COUNT <= PMAPS_VM_UNKNOWN, "VmFlags codes and UNKNOWN share 64 bits");

const char *pmaps_vmflag_code(enum pmaps_vmflag f)
{
	if (f == PMAPS_VM_UNKNOWN)
		return "??";
	return (unsigned)f < PMAPS_VM_COUNT ? vm_codes[f] : NULL;
}

/* Bit + 1 of each two-letter code, indexed by its letters; 0 for unknown. */
#define C(x, y, f) [(x) - 'a'][(y) - 'a'] = PMAPS_VM_##f + 1,
const unsigned char pmaps__vmflag_table[26][26] = {
	C('r','d',RD) C('w','r',WR) C('e','x',EX) C('s','h',SH) C('m','r',MR) C('m','w',MW)
	C('m','e',ME) C('m','s',MS) C('g','d',GD) C('p','f',PF) C('g','u',GU) C('l','o',LO)
	C('i','o',IO) C('s','r',SR) C('r','r',RR) C('d','c',DC) C('d','e',DE) C('l','f',LF)
	C('a','c',AC) C('n','r',NR) C('h','t',HT) C('s','f',SF) C('a','r',AR) C('w','f',WF)
	C('d','d',DD) C('s','d',SD) C('m','m',MM) C('h','g',HG) C('n','h',NH) C('m','g',MG)
	C('u','m',UM) C('u','w',UW) C('s','s',SS) C('s','l',SL) C('d','p',DP) C('b','t',BT)
	C('m','t',MT) C('u','i',UI)
};
#undef C

static int starts(const struct pmaps_view *v, const char *s)
{
	size_t n = strlen(s);
	return v->len >= n && memcmp(v->ptr, s, n) == 0;
}

static int is(const struct pmaps_view *v, const char *s)
{
	size_t n = strlen(s);
	return v->len == n && memcmp(v->ptr, s, n) == 0;
}

void pmaps__classify(struct pmaps_mapping *m, enum pmaps_source source)
{
	const struct pmaps_view *n = &m->path;
	unsigned rwx = m->perms & (PMAPS_PERM_READ | PMAPS_PERM_WRITE | PMAPS_PERM_EXEC);

	if (source == PMAPS_SRC_ROLLUP) {
		m->kind = PMAPS_KIND_ROLLUP;
		return;
	}
	/* Nameless, the usual row of a big process: what the rules below give it, at once. */
	if (n->len == 0 && !(m->vm_flags & (1ull << PMAPS_VM_HT))) {
		m->kind = rwx == 0                          ? PMAPS_KIND_GUARD
		          : (m->perms & PMAPS_PERM_SHARED) ? PMAPS_KIND_SHMEM
		                                           : PMAPS_KIND_ANON;
		return;
	}
	if ((m->vm_flags & (1ull << PMAPS_VM_HT)) ||
	    (m->dev_major == 0 && starts(n, "/anon_hugepage"))) {
		m->kind = PMAPS_KIND_HUGETLB;
		return;
	}
	if (n->len > 0 && n->ptr[0] == '[') {
		if (is(n, "[heap]"))
			m->kind = PMAPS_KIND_HEAP;
		else if (is(n, "[stack]"))
			m->kind = PMAPS_KIND_STACK;
		else if (starts(n, "[anon:"))
			m->kind = PMAPS_KIND_ANON_NAMED;
		else if (starts(n, "[anon_shmem:"))
			m->kind = PMAPS_KIND_SHMEM;
		else if (is(n, "[vdso]") || is(n, "[vvar]") || is(n, "[vvar_vclock]") ||
		         is(n, "[vsyscall]") || is(n, "[uprobes]"))
			m->kind = PMAPS_KIND_VDSO;
		else
			m->kind = PMAPS_KIND_OTHER;
		return;
	}
	if (rwx == 0) {
		/* Nothing can touch it: a guard gap, a reservation, a library's padding. */
		m->kind = PMAPS_KIND_GUARD;
		return;
	}
	if (n->len == 0) {
		m->kind = (m->perms & PMAPS_PERM_SHARED) ? PMAPS_KIND_SHMEM : PMAPS_KIND_ANON;
		return;
	}
	if (m->dev_major == 0 && (starts(n, "/memfd:") || starts(n, "/SYSV") ||
	                          starts(n, "/dev/zero") || starts(n, "/dev/shm/"))) {
		m->kind = PMAPS_KIND_SHMEM;
		return;
	}
	if (m->perms & PMAPS_PERM_EXEC)
		m->kind = PMAPS_KIND_FILE_TEXT;
	else if (m->perms & PMAPS_PERM_WRITE)
		m->kind = PMAPS_KIND_FILE_DATA;
	else
		m->kind = PMAPS_KIND_FILE_RO;
}
