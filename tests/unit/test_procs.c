/* SPDX-License-Identifier: MIT */
/*
 * test_procs.c - the directory reader (lib/dir.c) and the process
 * enumerator (pmaps_procs_*) on fixture trees, made-up directories and
 * this very process.
 */
#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cmocka.h>

#include "internal.h"
#include "testhooks.h"

#define NFILES 200

/* A fresh directory with NFILES files f000..f199; its path in DIR. */
static void make_dir(char *dir, size_t size)
{
	snprintf(dir, size, "%s/pmaps-dir-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	assert_non_null(mkdtemp(dir));
	for (int i = 0; i < NFILES; i++) {
		char p[4200];
		int fd;
		snprintf(p, sizeof(p), "%s/f%03d", dir, i);
		fd = open(p, O_WRONLY | O_CREAT | O_EXCL, 0600);
		assert_int_not_equal(fd, -1);
		close(fd);
	}
}

static void remove_dir(const char *dir)
{
	for (int i = 0; i < NFILES; i++) {
		char p[4200];
		snprintf(p, sizeof(p), "%s/f%03d", dir, i);
		unlink(p);
	}
	rmdir(dir);
}

/* Lists D to its end; every name must be f000..f199, each once. Returns the count. */
static int list_all(struct pmaps__dir *d)
{
	unsigned char seen[NFILES] = {0};
	const char *name;
	int n = 0, r;

	while ((r = pmaps__dir_next(d, &name)) == 1) {
		int i = atoi(name + 1);
		if (name[0] != 'f' || strlen(name) != 4 || i < 0 || i >= NFILES || seen[i])
			fail_msg("unexpected entry '%s' (entry %d)", name, n);
		assert_int_equal(d->type, DT_REG);
		seen[i] = 1;
		n++;
	}
	assert_int_equal(r, 0);
	return n;
}

static void test_dir_lists_and_rewinds(void **state)
{
	char dir[4096], buf[PMAPS__DIR_MIN];
	struct pmaps__dir d;
	const char *name;
	int dfd;

	(void)state;
	make_dir(dir, sizeof(dir));
	dfd = open(dir, O_RDONLY | O_DIRECTORY);
	assert_int_not_equal(dfd, -1);
	/* A buffer of PMAPS__DIR_MIN holds ~40 of these: several calls. */
	assert_int_equal(pmaps__dir_open(&d, AT_FDCWD, dir, buf, sizeof(buf)), 0);
	assert_int_equal(list_all(&d), NFILES);
	assert_int_equal(pmaps__dir_next(&d, &name), 0); /* the end stays the end */
	assert_int_equal(pmaps__dir_rewind(&d), 0);
	assert_int_equal(list_all(&d), NFILES);
	pmaps__dir_close(&d);
	assert_int_equal(d.fd, -1);
	pmaps__dir_close(&d); /* idempotent */
	/* A directory fd handed over is owned, and closed, by the reader. */
	pmaps__dir_init(&d, dfd, buf, sizeof(buf));
	assert_int_equal(list_all(&d), NFILES);
	pmaps__dir_close(&d);
	assert_int_equal(fcntl(dfd, F_GETFD), -1);
	assert_int_equal(errno, EBADF);
	remove_dir(dir);
}

static void test_dir_small_buffer(void **state)
{
	char buf[PMAPS__DIR_MIN - 1];
	struct pmaps__dir d;

	(void)state;
	assert_int_equal(pmaps__dir_open(&d, AT_FDCWD, "/", buf, sizeof(buf)), -EINVAL);
	assert_int_equal(d.fd, -1);
}

static void test_dir_missing(void **state)
{
	char buf[PMAPS__DIR_MIN];
	struct pmaps__dir d;

	(void)state;
	assert_int_equal(pmaps__dir_open(&d, AT_FDCWD, "/nonexistent-pmaps", buf, sizeof(buf)),
	                 -ENOENT);
	assert_int_equal(d.fd, -1);
	assert_int_equal(pmaps__dir_open(&d, AT_FDCWD, "/etc/passwd", buf, sizeof(buf)), -ENOTDIR);
	assert_int_equal(d.fd, -1);
}

/* The hook's script: what each call does, in turn; then the real call. */
static int script[8], script_n, script_pos;
enum { REAL, INTR, NOENT, BAD_RECLEN, NO_NUL, TOO_LONG };

static ssize_t scripted(int fd, void *buf, size_t len)
{
	int what = script_pos < script_n ? script[script_pos++] : REAL;
	unsigned char *b = buf;
	unsigned short rl;

	switch (what) {
	case INTR:
		errno = EINTR;
		return -1;
	case NOENT:
		errno = ENOENT;
		return -1;
	case BAD_RECLEN:
	case NO_NUL:
		memset(b, 'x', 32);
		rl = what == BAD_RECLEN ? 4 : 32;
		memcpy(b + 16, &rl, 2);
		return 32;
	case TOO_LONG:
		return (ssize_t)len + 1;
	default:
		return syscall(SYS_getdents64, fd, buf, len);
	}
}

static int run_script(const int *steps, int n, int *count)
{
	char dir[4096], buf[PMAPS__DIR_MIN];
	struct pmaps__dir d;
	const char *name;
	int r;

	make_dir(dir, sizeof(dir));
	memcpy(script, steps, (size_t)n * sizeof(*steps));
	script_n = n;
	script_pos = 0;
	assert_int_equal(pmaps__dir_open(&d, AT_FDCWD, dir, buf, sizeof(buf)), 0);
	pmaps__getdents_hook = scripted;
	*count = 0;
	while ((r = pmaps__dir_next(&d, &name)) == 1)
		(*count)++;
	pmaps__getdents_hook = NULL;
	pmaps__dir_close(&d);
	remove_dir(dir);
	return r;
}

static void test_dir_faults(void **state)
{
	static const int intr[] = {INTR, REAL, INTR, INTR};
	static const int noent[] = {NOENT};
	static const int later_noent[] = {REAL, NOENT};
	static const int reclen[] = {BAD_RECLEN};
	static const int nonul[] = {NO_NUL};
	static const int toolong[] = {TOO_LONG};
	int n;

	(void)state;
	/* EINTR is retried, never seen. */
	assert_int_equal(run_script(intr, 4, &n), 0);
	assert_int_equal(n, NFILES);
	assert_int_equal(run_script(noent, 1, &n), -ENOENT);
	assert_int_equal(n, 0);
	assert_int_equal(run_script(later_noent, 2, &n), -ENOENT);
	if (n <= 0 || n >= NFILES)
		fail_msg("an error on the second call: %d entries before it, expected 1..%d", n,
		         NFILES - 1);
	/* Records the kernel never writes are -EIO, never read past. */
	assert_int_equal(run_script(reclen, 1, &n), -EIO);
	assert_int_equal(n, 0);
	assert_int_equal(run_script(nonul, 1, &n), -EIO);
	assert_int_equal(n, 0);
	assert_int_equal(run_script(toolong, 1, &n), -EIO);
	assert_int_equal(n, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dir_lists_and_rewinds),
		cmocka_unit_test(test_dir_small_buffer),
		cmocka_unit_test(test_dir_missing),
		cmocka_unit_test(test_dir_faults),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
