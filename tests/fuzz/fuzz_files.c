/* SPDX-License-Identifier: MIT */
/*
 * fuzz_files.c - libFuzzer target for the two readers of binary files a
 * process names: a JVM's hsperfdata file (lib/hsperf.c) and Go's build info
 * in an executable (lib/elf.c). The input is the file: a fixture tree made
 * at the first run has it as both PID/root/tmp/hsperfdata_u/PID and PID/exe
 * (one inode, truncated to the input's size), and the pread hook serves it.
 *
 * The hook aborts on a read at a negative offset or longer than the
 * readers' buffers, returns only the file's bytes and poisons the rest of
 * the buffer. Checked for hsperfdata: the collector's name is NUL-terminated
 * in its buffer and, when not empty, bytes of the file; a size is only ever
 * given with a collector named, for G1 the larger of two 8-byte values read
 * rounded down to the page, for Serial and Parallel the sum of two (a value
 * not read counts as 0). For the ELF reader: it finds .go.buildinfo, and its
 * version, exactly when a second reader written here does, with offsets
 * added in 128 bits. Both read again under another poison: the same results.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "readers.h"
#include "testhooks.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define PID "100"
#define HSPERF "/tmp/hsperfdata_u/" PID
#define MAX_READ 192 /* the largest buffer either reader passes */
#define MAX_VALUES 8192

static const uint8_t *file;
static size_t file_len;
static unsigned char poison;
/* The values of the 8-byte reads: the candidates for the generations' sizes. */
static uint64_t values[MAX_VALUES];
static size_t n_values;

static ssize_t mem_pread(int fd, void *buf, size_t len, off_t off)
{
	size_t n;

	(void)fd;
	if (off < 0 || len > MAX_READ) {
		fprintf(stderr, "pread of %zu bytes at %lld\n", len, (long long)off);
		abort();
	}
	n = (size_t)off < file_len ? file_len - (size_t)off : 0;
	n = n < len ? n : len;
	if (n)
		memcpy(buf, file + off, n);
	memset((char *)buf + n, poison, len - n);
	if (len == 8 && n == 8 && n_values < MAX_VALUES)
		memcpy(&values[n_values++], buf, 8);
	return (ssize_t)n;
}

/* The fixture tree, made once, removed at exit. */
static char root[64], paths[6][128];
static int file_fd = -1;

static void tree_remove(void)
{
	for (int i = 5; i >= 0; i--)
		if (unlink(paths[i]) != 0)
			rmdir(paths[i]);
	rmdir(root);
}

static struct pmaps_proc *tree_make(void)
{
	static const char *const rel[6] = {PID, PID "/root", PID "/root/tmp",
	                                   PID "/root/tmp/hsperfdata_u", PID "/root" HSPERF,
	                                   PID "/exe"};
	struct pmaps_proc *proc;
	const char *tmp = getenv("TMPDIR");

	snprintf(root, sizeof(root), "%s/pmaps-fuzz-XXXXXX", tmp && strlen(tmp) < 32 ? tmp : "/tmp");
	if (!mkdtemp(root))
		abort();
	for (int i = 0; i < 6; i++)
		snprintf(paths[i], sizeof(paths[i]), "%s/%s", root, rel[i]);
	for (int i = 0; i < 4; i++)
		if (mkdir(paths[i], 0700) != 0)
			abort();
	file_fd = open(paths[4], O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (file_fd < 0 || link(paths[4], paths[5]) != 0)
		abort();
	atexit(tree_remove);
	if (pmaps_proc_open(&proc, root, PID) != 0)
		abort();
	return proc;
}

static uint64_t le(const uint8_t *p, int n)
{
	uint64_t v = 0;

	while (n-- > 0)
		v = v << 8 | p[n];
	return v;
}

/* The second ELF reader: 1 when the file has .go.buildinfo, its version in VERSION. */
static int elf_expect(char *version, size_t vsize)
{
	const uint8_t *d = file;
	unsigned __int128 n = file_len, shoff, stroff, at;
	unsigned shnum, shstrndx;

	version[0] = '\0';
	if (n < 64 || memcmp(d, "\177ELF", 4) != 0 || d[4] != 2 || d[5] != 1)
		return 0;
	shoff = le(d + 0x28, 8);
	shnum = (unsigned)le(d + 0x3c, 2);
	shstrndx = (unsigned)le(d + 0x3e, 2);
	if (le(d + 0x3a, 2) != 64 || shnum > 4096 || shstrndx >= shnum || shoff > n)
		return 0;
	at = shoff + (unsigned __int128)shstrndx * 64;
	if (at + 64 > n)
		return 0;
	stroff = le(d + at + 0x18, 8);
	for (unsigned i = 0; i < shnum; i++) {
		const uint8_t *sh = d + (size_t)(shoff + (unsigned __int128)i * 64);
		unsigned __int128 name, boff, got;
		if (shoff + (unsigned __int128)i * 64 + 64 > n)
			return 0;
		name = stroff + le(sh, 4);
		if (le(sh, 4) > n || name + 14 > n || memcmp(d + (size_t)name, ".go.buildinfo", 14) != 0)
			continue;
		boff = le(sh + 0x18, 8);
		if (boff >= n)
			return 1;
		got = n - boff < 64 ? n - boff : 64;
		const uint8_t *bi = d + (size_t)boff;
		if (got >= 33 && memcmp(bi, "\377 Go buildinf:", 14) == 0 && (bi[15] & 2) &&
		    bi[32] < 0x80 && bi[32] < vsize && 33u + bi[32] <= got) {
			memcpy(version, bi + 33, bi[32]);
			version[bi[32]] = '\0';
		}
		return 1;
	}
	return 0;
}

/* 1 when SIZE is what a collector named GC gives for two of the values read. */
static int heap_consistent(uint64_t size, const char *gc)
{
	int g1 = strcmp(gc, "GarbageFirst") == 0;

	if (size == 0)
		return 1;
	if (!g1 && strcmp(gc, "Copy:MSC") != 0 && strcmp(gc, "ParScav:MSC") != 0)
		return 0;
	for (size_t i = 0; i <= n_values; i++) {
		uint64_t a = i < n_values ? values[i] : 0;
		for (size_t j = 0; j <= n_values; j++) {
			uint64_t b = j < n_values ? values[j] : 0, sum;
			if (g1 ? ((a > b ? a : b) & ~(uint64_t)4095) == size
			       : !__builtin_add_overflow(a, b, &sum) && sum == size)
				return 1;
		}
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct pmaps_proc *proc;
	static struct pmaps__mapped f = {.path = HSPERF};
	char gc[32], gc2[32], ver[32], ver2[32], want[32];
	uint64_t heap, heap2;
	int go, go2, go_want;

	if (!proc)
		proc = tree_make();
	if (ftruncate(file_fd, (off_t)size) != 0)
		abort();
	file = data;
	file_len = size;
	pmaps__pread_hook = mem_pread;

	poison = 0xa5;
	n_values = 0;
	memset(gc, 'x', sizeof(gc));
	heap = pmaps__jvm_heap_size(proc, &f, gc, sizeof(gc));
	if (!memchr(gc, '\0', sizeof(gc)) || (gc[0] && !memmem(data, size, gc, strlen(gc))))
		abort();
	if (!heap_consistent(heap, gc)) {
		fprintf(stderr, "hsperfdata: a heap of %llu bytes, collector \"%s\", from %zu values "
		        "read\n", (unsigned long long)heap, gc, n_values);
		abort();
	}
	memset(ver, 'x', sizeof(ver));
	go = pmaps__go_buildinfo(proc, ver, sizeof(ver));
	go_want = elf_expect(want, sizeof(want));
	if (!memchr(ver, '\0', sizeof(ver)) || go != go_want || strcmp(ver, want) != 0) {
		fprintf(stderr, "ELF: %d \"%s\"; the second reader: %d \"%s\"\n", go, ver, go_want,
		        want);
		abort();
	}

	/* Again, under another poison: the same. */
	poison = 0;
	n_values = 0;
	heap2 = pmaps__jvm_heap_size(proc, &f, gc2, sizeof(gc2));
	go2 = pmaps__go_buildinfo(proc, ver2, sizeof(ver2));
	pmaps__pread_hook = NULL;
	if (heap2 != heap || strcmp(gc2, gc) != 0 || go2 != go || strcmp(ver2, ver) != 0)
		abort();
	return 0;
}
