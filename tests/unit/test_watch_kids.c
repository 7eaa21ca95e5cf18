/* SPDX-License-Identifier: MIT */
/*
 * test_watch_kids.c - pmaps watch --children's follower (src/watch_kids.c)
 * on proc trees made here: descendants found through parent links in any
 * order of the list, zombies and strangers left out, the sums exact and
 * saturating, a process that exits or is re-parented ended as such, a
 * reused pid read as a new process, and the table's bound (256 read, the
 * rest counted).
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "watch/watch_kids.h"

#define KB 1024u

static char root[4096];

static void put(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	assert_int_not_equal(fd, -1);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

/*
 * Process PID named COMM in state STATE with parent PPID; RSS_KB as its
 * parts ANON, FILE, SHMEM (kB), SWAP and HWM. A kernel thread with KTHREAD.
 */
static void proc(int pid, const char *comm, char state, int ppid, int kthread,
                 unsigned long long anon, unsigned long long file, unsigned long long shmem,
                 unsigned long long swap, unsigned long long hwm)
{
	char dir[4200], path[4300], text[1024];

	snprintf(dir, sizeof(dir), "%s/%d", root, pid);
	assert_int_equal(mkdir(dir, 0755), 0);
	snprintf(path, sizeof(path), "%s/stat", dir);
	snprintf(text, sizeof(text), "%d (%s) %c %d %d %d 0 -1 %u 0 0 0\n", pid, comm, state, ppid,
	         pid, pid, kthread ? 0x200000u : 0x400000u);
	put(path, text);
	snprintf(path, sizeof(path), "%s/status", dir);
	if (state == 'Z')
		snprintf(text, sizeof(text), "Name:\t%s\nState:\tZ (zombie)\nThreads:\t1\n", comm);
	else
		snprintf(text, sizeof(text),
		         "Name:\t%s\nVmHWM:\t%llu kB\nVmRSS:\t%llu kB\nRssAnon:\t%llu kB\n"
		         "RssFile:\t%llu kB\nRssShmem:\t%llu kB\nVmSwap:\t%llu kB\nThreads:\t1\n",
		         comm, hwm, anon + file + shmem, anon, file, shmem, swap);
	put(path, text);
}

static void unproc(int pid)
{
	char path[4300];

	snprintf(path, sizeof(path), "%s/%d/stat", root, pid);
	unlink(path);
	snprintf(path, sizeof(path), "%s/%d/status", root, pid);
	unlink(path);
	snprintf(path, sizeof(path), "%s/%d", root, pid);
	assert_int_equal(rmdir(path), 0);
}

static void make_root(void)
{
	snprintf(root, sizeof(root), "%s/pmaps-kids-XXXXXX",
	         getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	assert_non_null(mkdtemp(root));
}

static void remove_root(void)
{
	char cmd[4200];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	assert_int_equal(system(cmd), 0);
}

static const struct kid_record *rec(const struct kid_record *r, size_t n, int pid, int nth)
{
	for (size_t i = 0; i < n; i++)
		if (r[i].pid == pid && nth-- == 0)
			return &r[i];
	fail_msg("pid %d not in the summary's %zu", pid, n);
	return NULL;
}

#define EQ(a, b)                                                                         \
	do {                                                                             \
		unsigned long long a_ = (a), b_ = (b);                                   \
		if (a_ != b_)                                                            \
			fail_msg("%s = %llu, want %s = %llu", #a, a_, #b, b_);           \
	} while (0)

static void test_tree(void **state)
{
	struct kids *k;
	struct kids_sum s;
	struct kid_record r[KIDS_SHOWN];
	uint64_t seen, untracked;
	char msg[256];
	size_t n;

	(void)state;
	make_root();
	/*
	 * 10 is watched. 20 its child; 5 a child of 20 and 7 of 5 (pids below
	 * their parents': found in later passes); 31 a zombie child; 30 a
	 * stranger; 40 a kernel thread; 1 init.
	 */
	proc(1, "init", 'S', 0, 0, 100, 0, 0, 0, 100);
	proc(10, "root", 'S', 1, 0, 50, 0, 0, 0, 50);
	proc(20, "child", 'S', 10, 0, 600, 300, 100, 50, 1200);
	proc(5, "grand", 'S', 20, 0, 2000, 0, 0, 0, 2500);
	proc(7, "great", 'R', 5, 0, 0, 400, 0, 8, 400);
	proc(31, "zomb", 'Z', 10, 0, 0, 0, 0, 0, 0);
	proc(30, "other", 'S', 1, 0, 9999, 0, 0, 0, 9999);
	proc(40, "kworker", 'I', 10, 1, 0, 0, 0, 0, 0);
	assert_int_equal(kids_open(&k, root, 10, msg, sizeof(msg)), 0);
	assert_int_equal(kids_sample(k, 0, &s, msg, sizeof(msg)), 0);
	EQ(s.count, 3);
	EQ(s.untracked, 0);
	EQ(s.rss, (1000ull + 2000 + 400) * KB);
	EQ(s.anon, (600ull + 2000) * KB);
	EQ(s.file, (300ull + 400) * KB);
	EQ(s.shmem, 100ull * KB);
	EQ(s.swap, 58ull * KB);
	/* Later: 7 exits, 5 is re-parented to init (20 still lives), 20 grows. */
	unproc(7);
	{
		/* 5's stat rewritten in place: the same process, a new parent. */
		char path[4300];
		snprintf(path, sizeof(path), "%s/5/stat", root);
		put(path, "5 (grand) S 1 5 5 0 -1 4194304 0 0 0\n");
	}
	unproc(20);
	/* The same pid, a new directory: what a reused pid looks like to a handle. */
	proc(20, "child2", 'S', 10, 0, 3000, 0, 0, 0, 3000);
	assert_int_equal(kids_sample(k, 100, &s, msg, sizeof(msg)), 0);
	EQ(s.count, 1);
	EQ(s.rss, 3000ull * KB);
	kids_end(k);
	n = kids_summary(k, r, &seen, &untracked);
	EQ(n, 4);
	EQ(seen, 4);
	EQ(untracked, 0);
	/* Largest peak first: the new 20, 5, the old 20, 7. */
	EQ(r[0].pid, 20);
	EQ(r[1].pid, 5);
	EQ(r[2].pid, 20);
	EQ(r[3].pid, 7);
	{
		const struct kid_record *a = &r[0], *b = rec(r, n, 5, 0), *c = &r[2],
		                        *d = rec(r, n, 7, 0);
		EQ(a->end, KID_RUNNING);
		EQ(a->first_t, 100);
		EQ(a->last_t, 100);
		EQ(a->peak_rss, 3000ull * KB);
		assert_string_equal(a->comm, "child2");
		EQ(b->end, KID_LEFT);
		EQ(b->ppid, 20);
		EQ(b->first_t, 0);
		EQ(b->last_t, 0);
		EQ(b->peak_rss, 2000ull * KB);
		EQ(b->hwm, 2500ull * KB);
		EQ(c->end, KID_EXITED);
		EQ(c->ppid, 10);
		assert_string_equal(c->comm, "child");
		EQ(c->peak_rss, 1000ull * KB);
		EQ(d->end, KID_EXITED);
		EQ(d->peak_rss, 400ull * KB);
		EQ(d->comm_len, 5);
	}
	EQ(kids_grows(k), 0);
	kids_close(k);
	kids_close(NULL);
	remove_root();
}

static void test_saturates(void **state)
{
	struct kids *k;
	struct kids_sum s;
	char msg[256];
	/* (2^54 - 1) kB: 2^64 - 1024 bytes, the most a status line can say here. */
	const unsigned long long big = (1ull << 54) - 1;

	(void)state;
	make_root();
	proc(10, "root", 'S', 1, 0, 1, 0, 0, 0, 1);
	proc(11, "a", 'S', 10, 0, big, 0, 0, big, big);
	proc(12, "b", 'S', 10, 0, big, 0, 0, big, big);
	assert_int_equal(kids_open(&k, root, 10, msg, sizeof(msg)), 0);
	assert_int_equal(kids_sample(k, 0, &s, msg, sizeof(msg)), 0);
	EQ(s.count, 2);
	EQ(s.rss, UINT64_MAX);
	EQ(s.anon, UINT64_MAX);
	EQ(s.swap, UINT64_MAX);
	kids_close(k);
	remove_root();
}

static void test_bound(void **state)
{
	struct kids *k;
	struct kids_sum s;
	struct kid_record r[KIDS_SHOWN];
	uint64_t seen, untracked;
	char msg[256];
	size_t n;

	(void)state;
	make_root();
	proc(10, "root", 'S', 1, 0, 1, 0, 0, 0, 1);
	/* 260 children, child I with I kB: 256 read, 4 counted. */
	for (int i = 1; i <= KIDS_MAX + 4; i++)
		proc(1000 + i, "c", 'S', 10, 0, (unsigned long long)i, 0, 0, 0, (unsigned long long)i);
	assert_int_equal(kids_open(&k, root, 10, msg, sizeof(msg)), 0);
	for (int t = 0; t < 3; t++) {
		assert_int_equal(kids_sample(k, (uint64_t)t, &s, msg, sizeof(msg)), 0);
		EQ(s.count, KIDS_MAX);
		EQ(s.untracked, 4);
	}
	n = kids_summary(k, r, &seen, &untracked);
	EQ(n, KIDS_SHOWN);
	EQ(seen, KIDS_MAX);
	EQ(untracked, 4);
	for (size_t i = 1; i < n; i++)
		if (r[i].peak_rss > r[i - 1].peak_rss)
			fail_msg("summary not by peak: %zu", i);
	kids_close(k);
	remove_root();
}

static void test_open_errors(void **state)
{
	struct kids *k = (void *)1;
	char msg[256];

	(void)state;
	msg[0] = '\0';
	assert_int_equal(kids_open(&k, "/nonexistent-pmaps", 10, msg, sizeof(msg)), -ENOENT);
	assert_null(k);
	assert_non_null(strstr(msg, "process list"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tree),
		cmocka_unit_test(test_saturates),
		cmocka_unit_test(test_bound),
		cmocka_unit_test(test_open_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
