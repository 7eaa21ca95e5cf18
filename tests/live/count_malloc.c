/* SPDX-License-Identifier: MIT */
/*
 * count_malloc.c - an LD_PRELOAD object that counts a program's calls to
 * malloc, calloc, realloc, posix_memalign, aligned_alloc and free, and at
 * exit writes "allocs N frees N\n" to the file named by COUNT_MALLOC_OUT
 * (nothing when it is unset). The real functions come from
 * dlsym(RTLD_NEXT); while dlsym itself allocates (it may call calloc),
 * requests are served from a small static arena and never freed.
 *
 * The watch test (tests/cli/watch_test.py) runs pmaps watch with --count 20
 * and --count 80 under it: a loop that allocates nothing per sample makes
 * the same number of calls both times.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void *(*real_malloc)(size_t);
static void *(*real_calloc)(size_t, size_t);
static void *(*real_realloc)(void *, size_t);
static int (*real_posix_memalign)(void **, size_t, size_t);
static void *(*real_aligned_alloc)(size_t, size_t);
static void (*real_free)(void *);
static unsigned long allocs, frees;
static int resolving;

static _Alignas(16) unsigned char arena[65536];
static size_t arena_used;

static void *arena_alloc(size_t n)
{
	void *p;

	n = (n + 15) & ~(size_t)15;
	if (n > sizeof(arena) - arena_used)
		return NULL;
	p = arena + arena_used;
	arena_used += n;
	return p;
}

static int in_arena(const void *p)
{
	return (const unsigned char *)p >= arena && (const unsigned char *)p < arena + sizeof(arena);
}

static void resolve(void)
{
	if (real_free || resolving)
		return;
	resolving = 1;
	real_malloc = (void *(*)(size_t))dlsym(RTLD_NEXT, "malloc");
	real_calloc = (void *(*)(size_t, size_t))dlsym(RTLD_NEXT, "calloc");
	real_realloc = (void *(*)(void *, size_t))dlsym(RTLD_NEXT, "realloc");
	real_posix_memalign = (int (*)(void **, size_t, size_t))dlsym(RTLD_NEXT, "posix_memalign");
	real_aligned_alloc = (void *(*)(size_t, size_t))dlsym(RTLD_NEXT, "aligned_alloc");
	real_free = (void (*)(void *))dlsym(RTLD_NEXT, "free");
	resolving = 0;
}

void *malloc(size_t n)
{
	resolve();
	if (!real_malloc)
		return arena_alloc(n);
	allocs++;
	return real_malloc(n);
}

void *calloc(size_t k, size_t n)
{
	resolve();
	if (!real_calloc) {
		void *p = n && k > SIZE_MAX / n ? NULL : arena_alloc(k * n);
		return p; /* the arena is zeroed and never reused */
	}
	allocs++;
	return real_calloc(k, n);
}

void *realloc(void *p, size_t n)
{
	resolve();
	if (in_arena(p) || !real_realloc) {
		void *q = malloc(n);
		if (q && p) {
			/* The old block's size is not kept: copy what the arena can hold of it. */
			size_t room = (size_t)(arena + sizeof(arena) - (unsigned char *)p);
			memcpy(q, p, n < room ? n : room);
		}
		return q;
	}
	allocs++;
	return real_realloc(p, n);
}

int posix_memalign(void **out, size_t align, size_t n)
{
	resolve();
	allocs++;
	return real_posix_memalign(out, align, n);
}

void *aligned_alloc(size_t align, size_t n)
{
	resolve();
	allocs++;
	return real_aligned_alloc(align, n);
}

void free(void *p)
{
	if (!p || in_arena(p))
		return;
	resolve();
	frees++;
	real_free(p);
}

static size_t put_u(char *d, unsigned long v)
{
	char t[24];
	size_t n = 0, k = 0;

	do
		t[n++] = (char)('0' + v % 10);
	while ((v /= 10) != 0);
	while (n)
		d[k++] = t[--n];
	return k;
}

__attribute__((destructor)) static void dump(void)
{
	const char *path = getenv("COUNT_MALLOC_OUT");
	char line[80];
	size_t n = 0;
	int fd;

	if (!path || !*path)
		return;
	memcpy(line, "allocs ", 7);
	n = 7 + put_u(line + 7, allocs);
	memcpy(line + n, " frees ", 7);
	n += 7;
	n += put_u(line + n, frees);
	line[n++] = '\n';
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	if (write(fd, line, n) < 0)
		n = 0;
	close(fd);
}
