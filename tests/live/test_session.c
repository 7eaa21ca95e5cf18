/* SPDX-License-Identifier: MIT */
/*
 * test_session.c - an explain session on a live process with 10,000
 * mappings (tests/live/session_target.c), opened once and run 100 times: no
 * allocation after the first run, the same totals every run, and every file
 * descriptor it opened closed again.
 */
#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "../count_alloc.h"
#include "pmaps.h"
#include "../expect.h"

#define NMAPS 10000
#define RUNS 100

struct child {
	pid_t pid;
	int release; /* write end: closing it lets the child exit */
	char name[24];
};

static void start_child(struct child *c)
{
	int ready[2], release[2];
	char b, a1[16], a2[16];

	assert_int_equal(pipe(ready), 0);
	assert_int_equal(pipe(release), 0);
	c->pid = fork();
	expect_sys(c->pid);
	if (c->pid == 0) {
		close(ready[0]);
		close(release[1]);
		snprintf(a1, sizeof(a1), "%d", ready[1]);
		snprintf(a2, sizeof(a2), "%d", release[0]);
		execl(PMAPS_SESSION_TARGET, "session_target", a1, a2, (char *)NULL);
		_exit(127);
	}
	close(ready[1]);
	close(release[0]);
	if (read(ready[0], &b, 1) != 1)
		fail_msg("the child did not build its %d mappings", NMAPS);
	close(ready[0]);
	c->release = release[1];
	snprintf(c->name, sizeof(c->name), "%d", (int)c->pid);
}

static void stop_child(struct child *c)
{
	int status;

	close(c->release);
	assert_int_equal(waitpid(c->pid, &status, 0), c->pid);
	assert_int_equal(WIFEXITED(status) ? WEXITSTATUS(status) : -1, 0);
}

static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)) != NULL)
		n += e->d_name[0] != '.';
	closedir(d);
	return n - 1; /* the directory's own fd */
}

/* Opens a session on the child, runs it RUNS times, checks, closes. */
static void run_session(unsigned options, int runs)
{
	static struct pmaps_explain first;
	struct child c;
	struct pmaps_proc *p;
	struct pmaps_explain_session *s;
	const struct pmaps_explain *x;
	int fds;

	start_child(&c);
	assert_int_equal(pmaps_proc_open(&p, NULL, c.name), 0);
	fds = count_fds();
	pmaps_set_allocator(count_alloc, count_free, NULL);
	assert_int_equal(pmaps_explain_open(&s, p, options), 0);
	if (pmaps_explain_run(s, &x) != 0)
		fail_msg("first run: %s", pmaps_explain_errmsg(s));
	memcpy(&first, x, sizeof(first));
	/* The child's NMAPS mappings, and its program's besides. */
	if (first.nmappings < NMAPS)
		fail_msg("%llu mappings, expected at least %d", (unsigned long long)first.nmappings,
		         NMAPS);
	if (first.mappings[PMAPS_X_ANON] < NMAPS)
		fail_msg("%llu anonymous mappings, expected at least %d",
		         (unsigned long long)first.mappings[PMAPS_X_ANON], NMAPS);
	allocs = 0;
	for (int i = 1; i < runs; i++) {
		if (pmaps_explain_run(s, &x) != 0)
			fail_msg("run %d: %s", i + 1, pmaps_explain_errmsg(s));
		/*
		 * PSS and the shared/private split of file pages follow what other
		 * processes map; the RSS, the mappings and the child's own
		 * anonymous memory do not.
		 */
		assert_int_equal(x->total[PMAPS_XC_RSS], first.total[PMAPS_XC_RSS]);
		assert_int_equal(x->nmappings, first.nmappings);
		for (int k = 0; k < PMAPS_X_COUNT; k++)
			assert_int_equal(x->mappings[k], first.mappings[k]);
		for (int col = 0; col < PMAPS_XC_COUNT; col++)
			assert_int_equal(x->v[PMAPS_X_ANON][col], first.v[PMAPS_X_ANON][col]);
		for (int col = 0; (options & PMAPS_EXPLAIN_PAGES) && col < PMAPS_XP_COUNT; col++)
			assert_int_equal(x->pg[PMAPS_X_ANON][col], first.pg[PMAPS_X_ANON][col]);
	}
	pmaps_set_allocator(NULL, NULL, NULL);
	if (allocs != 0)
		fail_msg("%lu allocations in %d runs after the first, expected 0", allocs, runs - 1);
	pmaps_explain_close(s);
	assert_int_equal(count_fds(), fds);
	pmaps_proc_close(p);
	stop_child(&c);
}

static void test_session_runs(void **state)
{
	(void)state;
	run_session(0, RUNS);
}

/* With the page walk: PAGEMAP_SCAN or pagemap over every mapping, each run. */
static void test_session_pages(void **state)
{
	(void)state;
	run_session(PMAPS_EXPLAIN_PAGES, 10);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_session_runs),
		cmocka_unit_test(test_session_pages),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
