/* SPDX-License-Identifier: MIT */
/*
 * hello.c - a program built against an installed libpmaps, as its users
 * build one (the `install` test builds it through pkg-config and through
 * find_package(pmaps)). Prints the loaded library's version, the file it
 * was loaded from (read from this program's own maps) and the RSS of PID
 * (default: itself) from smaps_rollup, in bytes:
 *
 *   version 100
 *   library /usr/local/lib/libpmaps.so.0.4.0
 *   rss 1605632
 *
 * Only the maps cursor, whose signatures are ABI 0's oldest.
 */
#include <pmaps.h>

#include <stdio.h>
#include <string.h>

/* Reads PID's mappings from SOURCE; FN sees each row. Returns 0 or 1 (said why). */
static int each_row(const char *pid, enum pmaps_source source,
                    void (*fn)(const struct pmaps_mapping *m))
{
	struct pmaps_proc *proc = NULL;
	struct pmaps_maps *c = NULL;
	const struct pmaps_mapping *m;
	int rc = pmaps_proc_open(&proc, NULL, pid);

	if (rc < 0) {
		fprintf(stderr, "hello: process %s: %s\n", pid, pmaps_strerror(rc));
		return 1;
	}
	rc = pmaps_maps_open(&c, proc, source, 0);
	while (rc >= 0 && (rc = pmaps_maps_next(c, &m)) > 0)
		fn(m);
	if (rc < 0)
		fprintf(stderr, "hello: process %s: %s%s%s\n", pid, pmaps_strerror(rc),
		        c && *pmaps_maps_errmsg(c) ? ": " : "", c ? pmaps_maps_errmsg(c) : "");
	pmaps_maps_close(c);
	pmaps_proc_close(proc);
	return rc < 0;
}

static void print_library(const struct pmaps_mapping *m)
{
	static const char name[] = "libpmaps.so";
	const char *p = m->path.ptr;
	size_t n = m->path.len, base = n;

	while (base > 0 && p[base - 1] != '/')
		base--;
	/* Its first mapping: the one at file offset 0. */
	if (m->offset == 0 && n - base >= sizeof name - 1 && memcmp(p + base, name, sizeof name - 1) == 0)
		printf("library %.*s\n", (int)n, p);
}

static void print_rss(const struct pmaps_mapping *m)
{
	printf("rss %llu\n", (unsigned long long)m->v[PMAPS_F_RSS]);
}

int main(int argc, char **argv)
{
	printf("version %u\n", pmaps_version());
	if (each_row("self", PMAPS_SRC_MAPS, print_library))
		return 1;
	return each_row(argc > 1 ? argv[1] : "self", PMAPS_SRC_ROLLUP, print_rss);
}
