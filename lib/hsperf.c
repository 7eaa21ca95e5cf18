/* SPDX-License-Identifier: MIT */
/*
 * hsperf.c - a JVM's heap size from its hsperfdata file.
 *
 * HotSpot publishes its performance counters in /tmp/hsperfdata_USER/PID,
 * which it maps shared (unless -XX:-UsePerfData). The format (HotSpot's
 * perfMemory.hpp, PerfDataPrologue and PerfDataEntry): a 32-byte prologue,
 * magic 0xcafec0c0 (big-endian), byte order (1: little-endian), major
 * version 2, ..., the first entry's offset at 24 and the entry count at 28
 * (4 bytes each, in the file's byte order); then entries of entry_length
 * (4), name_offset (4), vector_length (4), data_type (1: 'B' a byte array,
 * a string; 'J' a 64-bit integer), flags, units, variability, data_offset
 * (4), the NUL-terminated name at name_offset and the value at data_offset,
 * both from the entry's start. Only little-endian files are read, at most
 * 4096 entries of 192 bytes each.
 */
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "readers.h"

#define MAX_ENTRIES 4096

int pmaps__is_hsperfdata(const struct pmaps_view *p)
{
	return p->len > 12 && memmem(p->ptr, p->len, "/hsperfdata_", 12) != NULL;
}

/*
 * For G1 each generation's maxCapacity is the heap's (plus a few bytes of
 * accounting, dropped by rounding to the page); for Serial and Parallel the
 * young and old generations' sum. The file is the very one mapped (see
 * pmaps__open_mapped()): the same whichever mount namespace it is in.
 */
uint64_t pmaps__jvm_heap_size(const struct pmaps_proc *proc, const struct pmaps__mapped *f,
                              char *gc, size_t gcsize)
{
	struct stat st;
	unsigned char b[192];
	uint64_t gen[2] = {0}, off, size = 0, fsize;
	unsigned entries;
	int fd;

	gc[0] = '\0';
	fd = pmaps__open_mapped(proc, f, &st);
	if (fd < 0)
		return 0;
	fsize = (uint64_t)st.st_size;
	if (!pmaps__pread_in(fd, b, 32, 0, fsize) || memcmp(b, "\xca\xfe\xc0\xc0", 4) != 0 ||
	    b[4] != 1 || b[5] != 2)
		goto out;
	off = pmaps__le(b + 24, 4);
	entries = (unsigned)pmaps__le(b + 28, 4);
	for (unsigned i = 0; i < entries && i < MAX_ENTRIES; i++) {
		ssize_t n = off < fsize ? pmaps__pread(fd, b, sizeof(b), (off_t)off) : 0;
		uint64_t len, noff, vlen, doff;
		const char *nm;
		size_t k;

		if (n < 20)
			break;
		len = pmaps__le(b, 4);
		noff = pmaps__le(b + 4, 4);
		vlen = pmaps__le(b + 8, 4);
		doff = pmaps__le(b + 16, 4);
		if (len < 20 || len > 65536 || noff >= (uint64_t)n)
			break;
		nm = (const char *)b + noff;
		k = strnlen(nm, (size_t)n - noff);
		if (k == 18 && memcmp(nm, "sun.gc.policy.name", 18) == 0 && b[12] == 'B') {
			size_t want = vlen < gcsize ? (size_t)vlen : gcsize - 1;
			ssize_t got = pmaps__pread(fd, gc, want, (off_t)(off + doff));
			gc[got > 0 ? strnlen(gc, (size_t)got) : 0] = '\0';
		} else if (k == 31 && memcmp(nm, "sun.gc.generation.", 18) == 0 && nm[18] >= '0' &&
		           nm[18] <= '1' && memcmp(nm + 19, ".maxCapacity", 12) == 0 && b[12] == 'J') {
			unsigned char q[8];
			if (pmaps__pread_in(fd, q, 8, off + doff, fsize))
				gen[nm[18] - '0'] = pmaps__le(q, 8);
		}
		off += len;
	}
	if (strcmp(gc, "GarbageFirst") == 0)
		size = (gen[0] > gen[1] ? gen[0] : gen[1]) & ~(uint64_t)4095;
	else if ((strcmp(gc, "Copy:MSC") == 0 || strcmp(gc, "ParScav:MSC") == 0) &&
	         __builtin_add_overflow(gen[0], gen[1], &size))
		size = 0; /* no heap is that large: the file is no JVM's */
out:
	close(fd);
	return size;
}
