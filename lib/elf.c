/* SPDX-License-Identifier: MIT */
/*
 * elf.c - Go's build info in a process's executable.
 *
 * The format: a 64-bit little-endian ELF file (the header's e_ident class 2,
 * data 1) whose section headers (e_shoff, 64 bytes each, e_shnum of them,
 * names in section e_shstrndx) include .go.buildinfo (Go 1.13+). That
 * section opens with a 32-byte header: "\xff Go buildinf:", pointer size,
 * flags; with flags bit 2 (Go 1.18+) the version string follows inline,
 * its length a varint. The executable is read through /proc/PID/exe, as a
 * regular file only (files.c), at most 4096 section headers: about 300 KiB.
 */
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "readers.h"

#define MAX_SECTIONS 4096

int pmaps__go_buildinfo(const struct pmaps_proc *proc, char *version, size_t vsize)
{
	unsigned char eh[64], sh[64], name[16], bi[64];
	uint64_t shoff, stroff = 0, size;
	unsigned shentsize, shnum, shstrndx;
	struct stat st;
	int fd = pmaps__open_exe(proc, &st), found = 0;

	version[0] = '\0';
	if (fd < 0)
		return 0;
	size = (uint64_t)st.st_size;
	if (!pmaps__pread_in(fd, eh, sizeof(eh), 0, size) || memcmp(eh, "\177ELF", 4) != 0 ||
	    eh[4] != 2 || eh[5] != 1)
		goto out;
	shoff = pmaps__le(eh + 0x28, 8);
	shentsize = (unsigned)pmaps__le(eh + 0x3a, 2);
	shnum = (unsigned)pmaps__le(eh + 0x3c, 2);
	shstrndx = (unsigned)pmaps__le(eh + 0x3e, 2);
	if (shentsize != 64 || shnum > MAX_SECTIONS || shstrndx >= shnum || shoff > size)
		goto out;
	if (!pmaps__pread_in(fd, sh, 64, shoff + (uint64_t)shstrndx * 64, size))
		goto out;
	stroff = pmaps__le(sh + 0x18, 8);
	if (stroff > size)
		goto out; /* no name can be read there; and STROFF + a name's offset never wraps */
	for (unsigned i = 0; i < shnum && !found; i++) {
		uint64_t boff;
		ssize_t n;
		if (!pmaps__pread_in(fd, sh, 64, shoff + (uint64_t)i * 64, size))
			break;
		if (pmaps__le(sh, 4) > size ||
		    !pmaps__pread_in(fd, name, 14, stroff + pmaps__le(sh, 4), size) ||
		    memcmp(name, ".go.buildinfo", 14) != 0)
			continue;
		found = 1;
		boff = pmaps__le(sh + 0x18, 8);
		if (boff >= size)
			break;
		n = pmaps__pread(fd, bi, sizeof(bi), (off_t)boff);
		if (n >= 33 && memcmp(bi, "\377 Go buildinf:", 14) == 0 && (bi[15] & 2)) {
			size_t len = bi[32]; /* a one-byte varint: versions are short */
			if (len < 0x80 && len < vsize && 33 + len <= (size_t)n) {
				memcpy(version, bi + 33, len);
				version[len] = '\0';
			}
		}
	}
out:
	close(fd);
	return found;
}
