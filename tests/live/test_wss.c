/* SPDX-License-Identifier: MIT */
/*
 * test_wss.c - a working-set session (lib/wss.c) on a process whose working
 * set is known (tests/live/wss_target.c): after a reset and one touch, each
 * of its three mappings has exactly the bytes it touched referenced (all
 * of W and R, none of I); after a reset and no touch, none; an exec or an
 * exit during the interval is an error, never a reading; a read before any
 * reset is refused; reset and read again allocate nothing, and the close
 * leaves no file open; smaps_rollup is read only with PMAPS_WSS_ROLLUP.
 */
#include <dirent.h>
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

#define WPAGES 1024
#define RPAGES 512
#define IPAGES 768

struct child {
	pid_t pid;
	FILE *in, *out;
	char name[24];
	uint64_t start[3], end[3]; /* W, R, I */
};

static void read_ranges(struct child *c)
{
	char line[256], tag[4];
	unsigned long s, e;

	for (int k = 0; k < 3; k++) {
		if (!fgets(line, sizeof(line), c->out) || sscanf(line, "%3s %lx %lx", tag, &s, &e) != 3)
			fail_msg("wss_target: no range line %d", k);
		c->start[k] = s;
		c->end[k] = e;
	}
	if (!fgets(line, sizeof(line), c->out) || strcmp(line, "ready\n") != 0)
		fail_msg("wss_target: no ready line");
}

static void start_child(struct child *c)
{
	int in[2], out[2];

	assert_int_equal(pipe(in), 0);
	assert_int_equal(pipe(out), 0);
	c->pid = fork();
	expect_sys(c->pid);
	if (c->pid == 0) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		close(in[0]);
		close(in[1]);
		close(out[0]);
		close(out[1]);
		execl(PMAPS_WSS_TARGET, "wss_target", (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	c->in = fdopen(in[1], "w");
	c->out = fdopen(out[0], "r");
	assert_non_null(c->in);
	assert_non_null(c->out);
	snprintf(c->name, sizeof(c->name), "%d", (int)c->pid);
	read_ranges(c);
}

static void say(struct child *c, const char *line)
{
	fprintf(c->in, "%s\n", line);
	fflush(c->in);
}

static void touch(struct child *c)
{
	char line[16];

	say(c, "t");
	if (!fgets(line, sizeof(line), c->out) || strcmp(line, "t\n") != 0)
		fail_msg("wss_target did not answer its touch");
}

static void stop_child(struct child *c, int code)
{
	int status;

	if (c->in)
		fclose(c->in);
	fclose(c->out);
	assert_int_equal(waitpid(c->pid, &status, 0), c->pid);
	expect_exited(status, code);
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
	return n - 1;
}

/* The referenced bytes of the child's mapping K, as the result's largest mappings give them. */
static uint64_t referenced_of(const struct child *c, const struct pmaps_explain *x, int k,
                              uint64_t *rss)
{
	for (unsigned i = 0; i < x->ntop; i++)
		if (x->top[i].start == c->start[k] && x->top[i].end == c->end[k]) {
			*rss = x->top[i].rss;
			return x->top_referenced[i];
		}
	fail_msg("mapping %d (%llx-%llx) is not among the %u largest", k,
	         (unsigned long long)c->start[k], (unsigned long long)c->end[k], x->ntop);
	return 0;
}

/* W and R touched WANT_TOUCHED (1: all their pages, 0: none), I none; every page resident. */
static void check_sets(const struct child *c, const struct pmaps_wss_result *res, int touched)
{
	static const long pages[3] = {WPAGES, RPAGES, IPAGES};
	const struct pmaps_explain *x = res->x;
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE), sum = 0;

	expect_eq(x->referenced_known, 1);
	for (int k = 0; k < 3; k++) {
		uint64_t rss = 0, ref = referenced_of(c, x, k, &rss);
		uint64_t want = k < 2 && touched ? (uint64_t)pages[k] * page : 0;
		printf("  mapping %c: rss %llu, referenced %llu (want %llu)\n", "WRI"[k],
		       (unsigned long long)rss, (unsigned long long)ref, (unsigned long long)want);
		expect_eq(rss, (uint64_t)pages[k] * page);
		expect_eq(ref, want);
	}
	/* Each category's touched bytes are part of its RSS; they add up to the total. */
	for (int k = 0; k < PMAPS_X_COUNT; k++) {
		expect_le(x->referenced[k], x->v[k][PMAPS_XC_RSS]);
		sum += x->referenced[k];
	}
	expect_eq(sum, x->referenced_total);
	if (touched)
		expect_ge(x->referenced[PMAPS_X_ANON], (uint64_t)(WPAGES + RPAGES) * page);
	expect_eq(res->method, PMAPS_WSS_CLEAR_REFS);
	expect_le(res->since_start_ns, res->since_end_ns);
}

static void test_exact(void **state)
{
	struct child c;
	struct pmaps_proc *p;
	struct pmaps_wss *w;
	const struct pmaps_wss_result *res;
	int fds;

	(void)state;
	start_child(&c);
	assert_int_equal(pmaps_proc_open(&p, NULL, c.name), 0);
	fds = count_fds();
	pmaps_set_allocator(count_alloc, count_free, NULL);
	assert_int_equal(pmaps_wss_open(&w, p, PMAPS_WSS_AUTO, 0), 0);
	/* Nothing reset yet: no reading. */
	expect_eq(pmaps_wss_read(w, &res), -EINVAL);
	expect_contains(pmaps_wss_errmsg(w), "reset");
	for (int round = 0; round < 3; round++) {
		if (pmaps_wss_reset(w) != 0)
			fail_msg("reset: %s", pmaps_wss_errmsg(w));
		touch(&c);
		if (pmaps_wss_read(w, &res) != 0)
			fail_msg("read: %s", pmaps_wss_errmsg(w));
		printf("round %d, touched:\n", round);
		check_sets(&c, res, 1);
		expect_eq(res->x->have_rollup, 0); /* not asked for: not read */
		expect_eq(res->resets, (unsigned)(2 * round + 1));
		if (round == 0)
			allocs = 0; /* the first read sized what it keeps */
		if (pmaps_wss_reset(w) != 0)
			fail_msg("reset: %s", pmaps_wss_errmsg(w));
		if (pmaps_wss_read(w, &res) != 0)
			fail_msg("read: %s", pmaps_wss_errmsg(w));
		printf("round %d, idle:\n", round);
		check_sets(&c, res, 0);
	}
	expect_eq(allocs, 0);
	pmaps_wss_close(w);
	pmaps_set_allocator(NULL, NULL, NULL);
	expect_eq(count_fds(), fds);
	pmaps_proc_close(p);
	say(&c, "q");
	stop_child(&c, 0);
}

/* An exec, then an exit, during an interval: errors, with what happened said. */
static void test_exec_exit(void **state)
{
	struct child c;
	struct pmaps_proc *p;
	struct pmaps_wss *w;
	const struct pmaps_wss_result *res;
	char cmd[4200];

	(void)state;
	start_child(&c);
	assert_int_equal(pmaps_proc_open(&p, NULL, c.name), 0);
	assert_int_equal(pmaps_wss_open(&w, p, PMAPS_WSS_CLEAR_REFS, PMAPS_WSS_ROLLUP), 0);
	if (pmaps_wss_reset(w) != 0)
		fail_msg("reset: %s", pmaps_wss_errmsg(w));
	snprintf(cmd, sizeof(cmd), "exec %s", PMAPS_WSS_TARGET);
	say(&c, cmd);
	read_ranges(&c); /* the new program is up */
	expect_eq(pmaps_wss_read(w, &res), -ESTALE);
	expect_contains(pmaps_wss_errmsg(w), "exec'd during the interval");
	expect_eq(res == NULL, 1);
	/* A new interval on the new program reads. */
	if (pmaps_wss_reset(w) != 0)
		fail_msg("reset after the exec: %s", pmaps_wss_errmsg(w));
	touch(&c);
	if (pmaps_wss_read(w, &res) != 0)
		fail_msg("read after the exec: %s", pmaps_wss_errmsg(w));
	check_sets(&c, res, 1);
	expect_eq(res->x->have_rollup, 1); /* PMAPS_WSS_ROLLUP */
	if (pmaps_wss_reset(w) != 0)
		fail_msg("reset: %s", pmaps_wss_errmsg(w));
	say(&c, "q");
	stop_child(&c, 0);
	c.in = NULL;
	expect_eq(pmaps_wss_read(w, &res), -ESRCH);
	expect_contains(pmaps_wss_errmsg(w), "exited");
	expect_eq(pmaps_wss_reset(w), -ESRCH);
	pmaps_wss_close(w);
	pmaps_proc_close(p);
}

/*
 * The main thread gone (pthread_exit), the process lives on in another:
 * the reset must reach its memory through a live thread (the main
 * thread's clear_refs has no mm behind it and clears nothing), or a page
 * touched before the reset would still read as touched after it.
 */
static void test_main_thread_gone(void **state)
{
	struct child c;
	struct pmaps_proc *p;
	struct pmaps_wss *w;
	const struct pmaps_wss_result *res;
	char line[32];

	(void)state;
	start_child(&c);
	assert_int_equal(pmaps_proc_open(&p, NULL, c.name), 0);
	assert_int_equal(pmaps_wss_open(&w, p, PMAPS_WSS_AUTO, 0), 0);
	say(&c, "thread");
	if (!fgets(line, sizeof(line), c.out) || strcmp(line, "thread\n") != 0)
		fail_msg("wss_target did not go on in a thread");
	usleep(50000); /* the main thread's exit done: a zombie leader */
	for (int round = 0; round < 2; round++) {
		if (pmaps_wss_reset(w) != 0)
			fail_msg("reset: %s", pmaps_wss_errmsg(w));
		touch(&c);
		if (pmaps_wss_read(w, &res) != 0)
			fail_msg("read: %s", pmaps_wss_errmsg(w));
		printf("main thread gone, round %d, touched:\n", round);
		check_sets(&c, res, 1);
		if (pmaps_wss_reset(w) != 0)
			fail_msg("reset: %s", pmaps_wss_errmsg(w));
		if (pmaps_wss_read(w, &res) != 0)
			fail_msg("read: %s", pmaps_wss_errmsg(w));
		printf("main thread gone, round %d, idle:\n", round);
		check_sets(&c, res, 0);
	}
	pmaps_wss_close(w);
	pmaps_proc_close(p);
	say(&c, "q");
	stop_child(&c, 0);
}

static void test_kernel(void **state)
{
	struct pmaps_wss_kernel k = {sizeof(k), 0, 0, 0, 0};

	(void)state;
	assert_int_equal(pmaps_wss_kernel(NULL, &k), 0);
	expect_eq(k.size, sizeof(k));
	expect_eq(k.clear_refs, access("/proc/self/clear_refs", F_OK) == 0);
	expect_eq(k.page_idle, access("/sys/kernel/mm/page_idle/bitmap", F_OK) == 0);
	expect_eq(k.damon, access("/sys/kernel/mm/damon/admin", F_OK) == 0);
	expect_eq(strcmp(pmaps_wss_method_name(PMAPS_WSS_CLEAR_REFS), "clear_refs"), 0);
	expect_eq(pmaps_wss_method_name(PMAPS_WSS_AUTO) == NULL, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kernel),
		cmocka_unit_test(test_exact),
		cmocka_unit_test(test_exec_exit),
		cmocka_unit_test(test_main_thread_gone),
	};

	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
