/* SPDX-License-Identifier: MIT */
/*
 * svg_target.c - processes for the address-space picture's tests
 * (tests/cli/svg.py), besides layout.c's known page states:
 *
 *   svg_target hostile DIR   mappings whose names a target chose to hurt:
 *     hostile   a 4-page file in DIR named h<&'"\x01\x1b[31m\xff\xfe]> (with a
 *               newline in it too), mapped shared read-only, all read
 *     memfd     an 8-page memfd named m<&\x01\xff, mapped shared, all written
 *     long      a 4-page file in DIR with a 200-character name, all read
 *     deep      a 2-page file 6 directories of 100 e-acutes (U+00E9) down, all read
 *   and its command name (comm) t<&\x01\xff
 *   svg_target many N        N/2 mappings of 4 pages read-write between N/2
 *     PROT_NONE ones of 4 pages (so about N mappings): in the I-th
 *     read-write one, I % 5 pages written (all 4 when that is 4)
 *
 * On standard output, one line per region: NAME START END (hex), then
 * "ready". It then blocks until standard input closes, and exits. Never
 * sanitized (as layout.c): its memory is what is measured.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

static long page;

static void die(const char *what)
{
	fprintf(stderr, "svg_target: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* Maps N pages between two guard pages; FD < 0 for anonymous memory. */
static char *region(size_t n, int prot, int flags, int fd)
{
	char *g = mmap(NULL, (n + 2) * (size_t)page, PROT_NONE,
	               MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	char *r;

	if (g == MAP_FAILED)
		die("mmap guard");
	r = mmap(g + page, n * (size_t)page, prot, flags | MAP_FIXED, fd, 0);
	if (r == MAP_FAILED)
		die("mmap region");
	return r;
}

static void show(const char *name, const char *p, size_t n)
{
	printf("%s %lx %lx\n", name, (unsigned long)(uintptr_t)p,
	       (unsigned long)(uintptr_t)(p + n * (size_t)page));
}

/* A file of N pages at PATH, mapped shared read-only and read. */
static char *file_region(const char *path, size_t n)
{
	char buf[4096];
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	char *r;

	if (fd < 0)
		die(path);
	memset(buf, 'x', sizeof(buf));
	for (size_t i = 0; i < n * (size_t)page; i += sizeof(buf))
		if (write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf))
			die("write");
	r = region(n, PROT_READ, MAP_SHARED, fd);
	for (size_t i = 0; i < n; i++)
		(void)*(volatile char *)(r + i * (size_t)page);
	close(fd);
	return r;
}

static void hostile(const char *dir)
{
	char path[4096], longname[201];
	char *h, *m, *l, *deep;
	int fd;

	snprintf(path, sizeof(path), "%s/h<&'\"\x01\x1b[31m\xff\xfe\n]>", dir);
	h = file_region(path, 4);
	fd = memfd_create("m<&\x01\xff", MFD_CLOEXEC);
	if (fd < 0 || ftruncate(fd, 8 * page))
		die("memfd");
	m = region(8, PROT_READ | PROT_WRITE, MAP_SHARED, fd);
	memset(m, 5, 8 * (size_t)page);
	close(fd);
	memset(longname, 'L', 200);
	longname[200] = '\0';
	memcpy(longname + 190, "-tail-end!", 10);
	snprintf(path, sizeof(path), "%s/%s", dir, longname);
	l = file_region(path, 4);
	/*
	 * Six directories of 100 e-acutes (2 bytes each): a path longer than a
	 * tooltip's 1024 bytes, where byte 1024 is inside a character (a
	 * directory "ab" first when that puts it there).
	 */
	for (int pad = 0; pad < 2; pad++) {
		snprintf(path, sizeof(path), "%s%s", dir, pad ? "/ab" : ""); /* 3 bytes: the other parity */
		if (pad && mkdir(path, 0700) && errno != EEXIST)
			die("mkdir");
		for (int d = 0; d < 6; d++) {
			size_t k = strlen(path);
			path[k++] = '/';
			for (int i = 0; i < 100; i++, k += 2)
				memcpy(path + k, "\xc3\xa9", 2);
			path[k] = '\0';
			if (mkdir(path, 0700) && errno != EEXIST)
				die("mkdir");
		}
		if (((unsigned char)path[1024] & 0xc0) == 0x80)
			break;
	}
	strcat(path, "/deep");
	deep = file_region(path, 2);
	if (prctl(PR_SET_NAME, (unsigned long)"t<&\x01\xff", 0, 0, 0))
		die("PR_SET_NAME");
	show("hostile", h, 4);
	show("memfd", m, 8);
	show("long", l, 4);
	show("deep", deep, 2);
}

static void many(long n)
{
	size_t chunks = (size_t)(n > 2 ? n : 2), len = chunks * 4 * (size_t)page;
	char *r = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	if (r == MAP_FAILED)
		die("mmap");
	for (size_t i = 1; i < chunks; i += 2) {
		char *c = r + i * 4 * (size_t)page;
		size_t touch = (i / 2) % 5;
		if (mprotect(c, 4 * (size_t)page, PROT_READ | PROT_WRITE))
			die("mprotect (vm.max_map_count too low?)");
		for (size_t k = 0; k < touch && k < 4; k++)
			c[k * (size_t)page] = 1;
	}
	printf("many %lx %lx\n", (unsigned long)(uintptr_t)r, (unsigned long)(uintptr_t)(r + len));
}

int main(int argc, char **argv)
{
	char c;

	page = sysconf(_SC_PAGESIZE);
	if (argc == 3 && strcmp(argv[1], "hostile") == 0)
		hostile(argv[2]);
	else if (argc == 3 && strcmp(argv[1], "many") == 0)
		many(atol(argv[2]));
	else {
		fprintf(stderr, "usage: svg_target hostile DIR | many N\n");
		return 2;
	}
	printf("ready\n");
	fflush(stdout);
	while (read(0, &c, 1) > 0)
		;
	return 0;
}
