/* SPDX-License-Identifier: MIT */
/*
 * test_survey.c - the survey of every process (pmaps top, pmaps serve)
 * against children this test starts, whose memory it knows: each maps
 * private pages and pages it shares with its siblings, then waits on a
 * pipe. A byte on the pipe makes it touch more pages (its status moves);
 * closing the pipe makes it exit.
 *
 * Exact values come from each child's own smaps_rollup, read and parsed
 * here as text, never through the library.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/sched.h>

#include <cmocka.h>

#include "pmaps.h"
#include "testhooks.h"
#include "../count_alloc.h"

#define KIDS 6
#define SHARED_PAGES 64
#define PRIVATE_PAGES 32
#define MORE_PAGES 16
#define KID_NAME "survey-kid"

struct kid {
	pid_t pid;
	int wr; /* its pipe: a byte touches MORE_PAGES more; close: exit */
	int ack; /* it writes a byte here when the touching is done */
};

static struct kid kids[KIDS];
static int nkids;
static long page;

static void kid_main(unsigned char *shared, int rd, int ack)
{
	unsigned char *priv, *more;
	char c;
	size_t off = 0;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	/* A name of its own: under valgrind this program's would be the tool's. */
	prctl(PR_SET_NAME, KID_NAME);
	priv = mmap(NULL, PRIVATE_PAGES * page, PROT_READ | PROT_WRITE,
	            MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	more = mmap(NULL, 64 * MORE_PAGES * page, PROT_READ | PROT_WRITE,
	            MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (priv == MAP_FAILED || more == MAP_FAILED)
		_exit(2);
	for (long i = 0; i < PRIVATE_PAGES; i++)
		priv[i * page] = 1;
	for (long i = 0; i < SHARED_PAGES; i++)
		(void)*(volatile unsigned char *)&shared[i * page];
	if (write(ack, "r", 1) != 1)
		_exit(3);
	while (read(rd, &c, 1) == 1) {
		for (long i = 0; i < MORE_PAGES && off < 64u * MORE_PAGES; i++, off++)
			more[off * page] = 1;
		if (write(ack, "t", 1) != 1)
			_exit(3);
	}
	_exit(0);
}

static void start_kids(int n)
{
	unsigned char *shared;

	page = sysconf(_SC_PAGESIZE);
	shared = mmap(NULL, SHARED_PAGES * page, PROT_READ | PROT_WRITE,
	              MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	assert_true(shared != MAP_FAILED);
	memset(shared, 7, SHARED_PAGES * page);
	for (int i = 0; i < n; i++) {
		int p[2], a[2];
		char c;
		assert_int_equal(pipe2(p, O_CLOEXEC), 0);
		assert_int_equal(pipe2(a, O_CLOEXEC), 0);
		kids[i].pid = fork();
		assert_true(kids[i].pid >= 0);
		if (kids[i].pid == 0) {
			/* The other children's pipes are theirs: closing one must end its child. */
			for (int j = 0; j < i; j++) {
				close(kids[j].wr);
				close(kids[j].ack);
			}
			close(p[1]);
			close(a[0]);
			kid_main(shared, p[0], a[1]);
		}
		close(p[0]);
		close(a[1]);
		kids[i].wr = p[1];
		kids[i].ack = a[0];
		assert_int_equal(read(a[0], &c, 1), 1);
		nkids = i + 1;
	}
	munmap(shared, SHARED_PAGES * page);
}

static void touch_more(int i)
{
	char c;

	assert_int_equal(write(kids[i].wr, "m", 1), 1);
	assert_int_equal(read(kids[i].ack, &c, 1), 1);
}

static void end_kid(int i)
{
	int st;

	if (kids[i].pid <= 0)
		return;
	close(kids[i].wr);
	close(kids[i].ack);
	waitpid(kids[i].pid, &st, 0);
	kids[i].pid = 0;
}

/* Programs this test started (never sanitized: /bin/sleep, python3), killed in teardown. */
#define MAX_SPAWNED 512
static pid_t spawned[MAX_SPAWNED];
static int nspawned;

static pid_t spawn(char *const argv[], int out)
{
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (out >= 0)
			dup2(out, 1);
		execvp(argv[0], argv);
		_exit(127);
	}
	assert_true(nspawned < MAX_SPAWNED);
	spawned[nspawned++] = pid;
	return pid;
}

static int teardown(void **state)
{
	(void)state;
	for (int i = 0; i < nkids; i++)
		end_kid(i);
	nkids = 0;
	for (int i = 0; i < nspawned; i++)
		kill(spawned[i], SIGKILL);
	for (int i = 0; i < nspawned; i++)
		waitpid(spawned[i], NULL, 0);
	nspawned = 0;
	pmaps_set_allocator(NULL, NULL, NULL);
	return 0;
}

/* Pss and USS (Private_Clean + Private_Dirty) of PID's smaps_rollup, in bytes. */
static void rollup_of(pid_t pid, uint64_t *pss, uint64_t *uss, uint64_t *pss_file)
{
	char path[64], line[256];
	unsigned long long kb;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/smaps_rollup", (int)pid);
	f = fopen(path, "r");
	assert_non_null(f);
	*pss = *uss = *pss_file = 0;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "Pss: %llu kB", &kb) == 1)
			*pss = kb << 10;
		else if (sscanf(line, "Pss_File: %llu kB", &kb) == 1)
			*pss_file = kb << 10;
		else if (sscanf(line, "Private_Clean: %llu kB", &kb) == 1 ||
		         sscanf(line, "Private_Dirty: %llu kB", &kb) == 1)
			*uss += kb << 10;
	}
	fclose(f);
}

static uint64_t status_kb(pid_t pid, const char *key)
{
	char path[64], line[256];
	unsigned long long kb = 0;
	size_t kl = strlen(key);
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, key, kl) == 0 && line[kl] == ':')
			sscanf(line + kl + 1, " %llu", &kb);
	fclose(f);
	return (uint64_t)kb << 10;
}

static const struct pmaps_survey_row *row_of(struct pmaps_survey *s, pid_t pid)
{
	const struct pmaps_survey_row *r = pmaps_survey_find(s, pid);

	if (!r)
		fail_msg("no row for pid %d among %zu", (int)pid, pmaps_survey_count(s));
	return r;
}

#define EQ(what, pid, got, want)                                                            \
	do {                                                                                    \
		uint64_t g_ = (got), w_ = (want);                                                   \
		if (g_ != w_)                                                                       \
			fail_msg("pid %d %s: survey %llu, kernel %llu", (int)(pid), what,               \
			         (unsigned long long)g_, (unsigned long long)w_);                       \
	} while (0)

/*
 * The children's Pss counts their share of libc's pages, which moves
 * whenever any process on the machine maps or drops libc. So a comparison
 * with the kernel is made only when the children's smaps_rollup read the
 * same just before and just after the survey's read.
 */
struct kernel_view {
	uint64_t pss[KIDS], uss[KIDS], rss[KIDS], pss_file[KIDS];
};

static void kernel_now(struct kernel_view *k, int n)
{
	memset(k, 0, sizeof(*k));
	for (int i = 0; i < n; i++) {
		if (kids[i].pid <= 0)
			continue;
		rollup_of(kids[i].pid, &k->pss[i], &k->uss[i], &k->pss_file[i]);
		k->rss[i] = status_kb(kids[i].pid, "VmRSS");
	}
}

/*
 * REFRESH(S) (or, when REFRESH is NULL, pmaps_survey_refresh), with the
 * children's figures read before and after into *K; retried until the two
 * agree. BEFORE(ARG) runs before each try (a child touching more pages).
 */
static void bracketed(struct pmaps_survey *s, int n, struct kernel_view *k,
                      void (*before)(int), int arg)
{
	struct kernel_view k2;

	for (int tries = 0;; tries++) {
		if (before)
			before(arg);
		kernel_now(k, n);
		assert_true(pmaps_survey_refresh(s) > n);
		kernel_now(&k2, n);
		if (memcmp(k, &k2, sizeof(k2)) == 0)
			return;
		if (tries == 20) {
			for (int i = 0; i < n; i++)
				printf("child %d: pss %llu/%llu uss %llu/%llu rss %llu/%llu\n", i,
				       (unsigned long long)k->pss[i], (unsigned long long)k2.pss[i],
				       (unsigned long long)k->uss[i], (unsigned long long)k2.uss[i],
				       (unsigned long long)k->rss[i], (unsigned long long)k2.rss[i]);
			fail_msg("the children's smaps_rollup kept moving during 20 refreshes");
		}
	}
}

static void same_as_kernel(const struct pmaps_survey_row *r, const struct kernel_view *k, int i)
{
	assert_true(r->present & (1u << PMAPS_SV_PSS));
	assert_true(r->present & (1u << PMAPS_SV_USS));
	EQ("pss", r->pid, r->v[PMAPS_SV_PSS], k->pss[i]);
	EQ("uss", r->pid, r->v[PMAPS_SV_USS], k->uss[i]);
	EQ("rss", r->pid, r->v[PMAPS_SV_RSS], k->rss[i]);
	assert_int_equal(r->source, PMAPS_SRC_ROLLUP);
	assert_non_null(r->total);
	assert_non_null(r->status);
	assert_int_equal(r->comm.len, strlen(KID_NAME));
	assert_memory_equal(r->comm.ptr, KID_NAME, r->comm.len);
}

static int a_kid(void *ctx, const struct pmaps_survey_row *row);

/* Every child's Pss and USS are its smaps_rollup's; a second refresh reads none of them again. */
static void test_survey_exact(void **state)
{
	struct pmaps_survey_opts o = {.size = sizeof(o), .flags = PMAPS_SURVEY_MEMINFO};
	struct pmaps_survey_stats st = {.size = sizeof(st)};
	struct pmaps_survey *s = NULL;
	const struct pmaps_survey_row *r;
	struct kernel_view k;
	uint64_t pss0[KIDS];
	int n;
	(void)state;

	start_kids(KIDS);
	/* A new survey for each try: the first refresh is the one asserted. */
	for (int tries = 0;; tries++) {
		struct kernel_view k2;
		pmaps_survey_close(s);
		assert_int_equal(pmaps_survey_open(&s, NULL, &o), 0);
		/* The children's figures, whatever else runs and the budget (others: status). */
		assert_int_equal(pmaps_survey_want(s, a_kid, NULL), 0);
		kernel_now(&k, KIDS);
		n = pmaps_survey_refresh(s);
		kernel_now(&k2, KIDS);
		if (memcmp(&k, &k2, sizeof(k)) == 0)
			break;
		if (tries == 20)
			fail_msg("the children's smaps_rollup kept moving");
	}
	assert_true(n > KIDS);
	assert_int_equal((size_t)n, pmaps_survey_count(s));
	for (int i = 0; i < KIDS; i++) {
		r = row_of(s, kids[i].pid);
		same_as_kernel(r, &k, i);
		assert_true(r->flags & PMAPS_SURVEY_NEW);
		assert_true(r->flags & PMAPS_SURVEY_FRESH);
		assert_int_equal(r->age_ns, 0);
		/* They share SHARED_PAGES among KIDS: Pss below Rss. */
		assert_true(r->v[PMAPS_SV_PSS] < r->v[PMAPS_SV_RSS]);
		pss0[i] = r->v[PMAPS_SV_PSS];
	}
	/* Rows in pid order; no kernel thread (kthreadd, pid 2, is one). */
	for (size_t i = 1; i < pmaps_survey_count(s); i++)
		assert_true(pmaps_survey_get(s, i - 1)->pid < pmaps_survey_get(s, i)->pid);
	assert_null(pmaps_survey_find(s, 2));
	assert_int_equal(pmaps_survey_stats(s, &st), 0);
	assert_true(st.kernel_threads > 0);
	assert_true(st.read >= KIDS);
	assert_non_null(pmaps_survey_meminfo(s));
	assert_true(pmaps_survey_meminfo(s)->v[PMAPS_MI_MEM_TOTAL] > 0);

	/* Nothing of theirs moved: the children's rows are kept, older, with the same figures. */
	n = pmaps_survey_refresh(s);
	assert_true(n > KIDS);
	for (int i = 0; i < KIDS; i++) {
		r = row_of(s, kids[i].pid);
		assert_false(r->flags & (PMAPS_SURVEY_FRESH | PMAPS_SURVEY_NEW));
		assert_true(r->age_ns > 0);
		EQ("pss kept", r->pid, r->v[PMAPS_SV_PSS], pss0[i]);
	}
	assert_int_equal(pmaps_survey_stats(s, &st), 0);
	assert_true(st.kept >= KIDS);

	/* One child touches more pages: its status moved, so it alone of them is read again. */
	bracketed(s, KIDS, &k, touch_more, 2);
	for (int i = 0; i < KIDS; i++) {
		r = row_of(s, kids[i].pid);
		if (i == 2) {
			assert_true(r->flags & PMAPS_SURVEY_FRESH);
			same_as_kernel(r, &k, i);
		} else {
			assert_false(r->flags & PMAPS_SURVEY_FRESH);
			EQ("pss kept", r->pid, r->v[PMAPS_SV_PSS], pss0[i]);
		}
	}

	/* A child that exited is gone from the next refresh. */
	pid_t gone = kids[4].pid;
	end_kid(4);
	pmaps_survey_refresh(s);
	assert_null(pmaps_survey_find(s, gone));
	pmaps_survey_close(s);
}

/*
 * Figures older than max_age (spread over [3/4, 5/4) of it by pid) are read
 * again though nothing moved: Pss moves when other processes map or drop
 * the pages a process shares. Younger ones stand.
 */
static void test_survey_age(void **state)
{
	/*
	 * No budget in the way: under the sanitizers on a busy machine the first
	 * refresh's 100 ms left a child to the second, which then read it (a
	 * clean clone's ASan run failed so).
	 */
	struct pmaps_survey_opts o = {.size = sizeof(o), .max_age_ns = 1000000000,
	                              .budget_ns = UINT64_MAX / 4};
	struct pmaps_survey_stats st = {.size = sizeof(st)};
	struct timespec pause = {1, 300000000};
	struct pmaps_survey *s;
	(void)state;

	start_kids(KIDS);
	assert_int_equal(pmaps_survey_open(&s, NULL, &o), 0);
	assert_int_equal(pmaps_survey_want(s, a_kid, NULL), 0);
	assert_true(pmaps_survey_refresh(s) > KIDS);
	assert_true(pmaps_survey_refresh(s) > KIDS);
	for (int i = 0; i < KIDS; i++) {
		const struct pmaps_survey_row *r = row_of(s, kids[i].pid);
		if (r->flags & PMAPS_SURVEY_FRESH)
			fail_msg("pid %d: flags %#x, age %llu ns: read again in the second refresh, "
			         "nothing moved", (int)r->pid, r->flags, (unsigned long long)r->age_ns);
	}
	nanosleep(&pause, NULL); /* 1.3 s: past 5/4 of 1 s */
	assert_true(pmaps_survey_refresh(s) > KIDS);
	for (int i = 0; i < KIDS; i++) {
		const struct pmaps_survey_row *r = row_of(s, kids[i].pid);
		if (!(r->flags & PMAPS_SURVEY_FRESH) || r->age_ns != 0)
			fail_msg("pid %d: flags %#x, age %llu ns: want read again", (int)r->pid, r->flags,
			         (unsigned long long)r->age_ns);
		assert_int_equal(r->source, PMAPS_SRC_ROLLUP);
	}
	assert_int_equal(pmaps_survey_stats(s, &st), 0);
	assert_true(st.read >= KIDS);
	pmaps_survey_close(s);
}

/* After the first refresh, refreshes allocate nothing. */
static void test_survey_allocations(void **state)
{
	struct pmaps_survey_opts o = {.size = sizeof(o),
	                              .flags = PMAPS_SURVEY_MEMINFO | PMAPS_SURVEY_CGROUP};
	struct pmaps_survey_stats st = {.size = sizeof(st)};
	struct pmaps_survey *s;
	(void)state;

	start_kids(KIDS);
	pmaps_set_allocator(count_alloc, count_free, NULL);
	assert_int_equal(pmaps_survey_open(&s, NULL, &o), 0);
	/*
	 * The children alone past status: a large process elsewhere on the
	 * machine would have the walk's cursor opened (once) in any refresh.
	 */
	assert_int_equal(pmaps_survey_want(s, a_kid, NULL), 0);
	assert_true(pmaps_survey_refresh(s) > KIDS);
	size_t most = pmaps_survey_count(s);
	for (int round = 0; round < 20; round++) {
		unsigned long before = allocs;
		touch_more(round % KIDS);
		assert_true(pmaps_survey_refresh(s) > KIDS);
		assert_int_equal(pmaps_survey_stats(s, &st), 0);
		/* The tables grow only past the most processes ever listed (other tests' may come). */
		if (pmaps_survey_count(s) > most) {
			most = pmaps_survey_count(s);
			continue;
		}
		if (allocs != before)
			fail_msg("refresh %d: %lu allocations, want 0", round + 2, allocs - before);
		assert_int_equal(st.allocations, 0);
	}
	pmaps_survey_close(s);
	pmaps_set_allocator(NULL, NULL, NULL);
}

/*
 * A budget of 1 ns: each refresh reads one process (the budget is checked
 * before a read), marks the others SKIPPED with status figures only, and
 * the next refresh reads the skipped ones first, so that every child is
 * read in time.
 */
static void test_survey_budget(void **state)
{
	struct pmaps_survey_opts o = {.size = sizeof(o), .budget_ns = 1};
	struct pmaps_survey_stats st = {.size = sizeof(st)};
	struct pmaps_survey *s;
	int n, reads = 0;
	(void)state;

	start_kids(KIDS);
	assert_int_equal(pmaps_survey_open(&s, NULL, &o), 0);
	n = pmaps_survey_refresh(s);
	assert_int_equal(pmaps_survey_stats(s, &st), 0);
	/* One read: of a process, or the attempt on one whose files are denied. */
	assert_true(st.read <= 1);
	assert_int_equal(st.budget_ns, 1);
	assert_true(st.skipped >= (uint32_t)n - 1 - st.denied);
	for (int i = 0; i < KIDS; i++) {
		const struct pmaps_survey_row *r = row_of(s, kids[i].pid);
		if (r->flags & PMAPS_SURVEY_FRESH)
			continue;
		assert_true(r->flags & PMAPS_SURVEY_SKIPPED);
		assert_int_equal(r->source, PMAPS_SRC_STATUS);
		assert_false(r->present & (1u << PMAPS_SV_PSS));
		assert_true(r->present & (1u << PMAPS_SV_RSS));
		assert_null(r->total);
	}
	for (int round = 0; round < 10 * n; round++) {
		int unread = 0;
		pmaps_survey_refresh(s);
		reads++;
		for (int i = 0; i < KIDS; i++)
			unread += !(row_of(s, kids[i].pid)->present & (1u << PMAPS_SV_PSS));
		if (!unread)
			break;
	}
	for (int i = 0; i < KIDS; i++) {
		const struct pmaps_survey_row *r = row_of(s, kids[i].pid);
		if (r->source != PMAPS_SRC_ROLLUP)
			fail_msg("pid %d: source %s, flags %#x, after %d refreshes", (int)r->pid,
			         pmaps_source_name(r->source), r->flags, reads + 1);
		assert_true(r->present & (1u << PMAPS_SV_PSS));
	}
	printf("every child read after %d budgeted refreshes of %d processes\n", reads + 1, n);
	/* The machine's other processes come and go and take turns too: the count is not bounded. */
	pmaps_survey_close(s);
}

static int a_kid(void *ctx, const struct pmaps_survey_row *row)
{
	(void)ctx;
	for (int i = 0; i < nkids; i++)
		if (kids[i].pid == row->pid)
			return 1;
	for (int i = 0; i < nspawned; i++)
		if (spawned[i] == row->pid)
			return 1;
	return 0;
}

/*
 * A process too large for the budget's share of one refresh: a hold limit
 * of 1 ns sends it to the page walk, and a budget of 1 ms stops the walk
 * (256 MiB: 65,536 pages, 128 gentle steps of 512 with a pause after each)
 * in every refresh: it goes on in the next, until its figures are whole,
 * USS equal to smaps_rollup's. Meanwhile its row says SKIPPED and LARGE.
 */
static void test_survey_walk_resumes(void **state)
{
	struct pmaps_survey_opts o = {.size = sizeof(o), .hold_ns = 1, .budget_ns = 1000000};
	char *argv[] = {"python3", "-c",
	                "import sys\nb = bytearray(256 << 20)\nfor i in range(0, len(b), 4096): "
	                "b[i] = 1\nsys.stdout.write('r')\nsys.stdout.flush()\nsys.stdin.read()",
	                NULL};
	struct pmaps_survey *s;
	const struct pmaps_survey_row *r;
	int p[2], in[2], refreshes = 0, waited = 0;
	uint64_t pss, uss, pss_file;
	pid_t pid;
	char c;
	(void)state;

	assert_int_equal(pipe2(p, O_CLOEXEC), 0);
	assert_int_equal(pipe(in), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		dup2(p[1], 1);
		dup2(in[0], 0);
		execvp(argv[0], argv);
		_exit(127);
	}
	spawned[nspawned++] = pid;
	close(p[1]);
	close(in[0]);
	if (read(p[0], &c, 1) != 1) {
		printf("skipped: python3 did not start\n");
		skip();
	}
	assert_int_equal(pmaps_survey_open(&s, NULL, &o), 0);
	assert_int_equal(pmaps_survey_want(s, a_kid, NULL), 0);
	for (;;) {
		assert_true(pmaps_survey_refresh(s) > 0);
		refreshes++;
		r = row_of(s, pid);
		assert_true(r->flags & PMAPS_SURVEY_LARGE);
		if (r->flags & PMAPS_SURVEY_FRESH)
			break;
		assert_true(r->flags & PMAPS_SURVEY_SKIPPED);
		assert_int_equal(r->source, PMAPS_SRC_STATUS);
		waited++;
		assert_true(refreshes < 2000);
	}
	rollup_of(pid, &pss, &uss, &pss_file);
	printf("the walk of 256 MiB took %d refreshes of a 1 ms budget\n", refreshes);
	assert_true(waited > 0);
	assert_int_equal(r->source, PMAPS_SRC_PAGES);
	EQ("uss (a walk resumed)", pid, r->v[PMAPS_SV_USS], uss);
	close(in[1]);
	close(p[0]);
	pmaps_survey_close(s);
}

/*
 * The tables cannot grow in the middle of a refresh (the allocator says
 * no): the refresh fails with -ENOMEM, and the last refresh's rows stay
 * whole, every view in them readable (ASan and valgrind watch).
 */
static int fail_allocs;
static void *failing_alloc(size_t size, void *ctx)
{
	(void)ctx;
	if (fail_allocs == 0)
		return NULL;
	if (fail_allocs > 0)
		fail_allocs--;
	return malloc(size);
}

static void test_survey_enomem(void **state)
{
	char *argv[] = {"sleep", "60", NULL};
	struct pmaps_survey *s;
	size_t n, before;
	uint64_t sum = 0;
	(void)state;

	fail_allocs = -1; /* all */
	pmaps_set_allocator(failing_alloc, count_free, NULL);
	assert_int_equal(pmaps_survey_open(&s, NULL, NULL), 0);
	assert_true(pmaps_survey_refresh(s) > 0);
	before = pmaps_survey_count(s);
	/* 256 rows, then 384, then 576: room for 400 more needs two steps; the second fails. */
	for (int i = 0; i < 400; i++)
		spawn(argv, -1);
	fail_allocs = 3; /* one step: two tables and the waiting list */
	assert_int_equal(pmaps_survey_refresh(s), -ENOMEM);
	assert_non_null(strstr(pmaps_survey_errmsg(s), "memory"));
	n = pmaps_survey_count(s);
	assert_int_equal(n, before);
	{
		/* The stats are still those of the rows there. */
		struct pmaps_survey_stats st = {.size = sizeof(st)};
		assert_int_equal(pmaps_survey_stats(s, &st), 0);
		assert_int_equal(st.processes, n);
		assert_int_equal(st.refreshes, 1);
	}
	for (size_t i = 0; i < n; i++) {
		const struct pmaps_survey_row *r = pmaps_survey_get(s, i);
		for (size_t k = 0; k < r->comm.len; k++)
			sum += (unsigned char)r->comm.ptr[k];
		sum += r->status->v[PMAPS_ST_VM_RSS] + (r->total ? r->total->v[PMAPS_F_RSS] : 0);
	}
	assert_true(sum > 0);
	fail_allocs = -1;
	assert_true(pmaps_survey_refresh(s) > 400);
	pmaps_survey_close(s);
	pmaps_set_allocator(NULL, NULL, NULL);
}

/*
 * A hold limit of 1 ns makes every process too large for one smaps_rollup
 * read: the gentle page walk reads them, USS from pagemap's exclusive bit
 * (and Pss as root, from kpagecount), equal to smaps_rollup's.
 */
static void test_survey_large(void **state)
{
	struct pmaps_survey_opts o = {.size = sizeof(o), .hold_ns = 1,
	                              /* No budget to stop a walk: each refresh walks them whole. */
	                              .budget_ns = UINT64_MAX / 4,
	                              .max_age_ns = 1};
	struct pmaps_survey *s;
	struct kernel_view k;
	(void)state;

	start_kids(3);
	assert_int_equal(pmaps_survey_open(&s, NULL, &o), 0);
	/* The children alone: walking every process of the machine gently takes long. */
	assert_int_equal(pmaps_survey_want(s, a_kid, NULL), 0);
	/* Each refresh walks them again: max_age_ns is 1. */
	bracketed(s, 3, &k, NULL, 0);
	for (int i = 0; i < 3; i++) {
		const struct pmaps_survey_row *r = row_of(s, kids[i].pid);
		uint64_t pss = k.pss[i], uss = k.uss[i];
		if (!(r->flags & PMAPS_SURVEY_LARGE) || !(r->flags & PMAPS_SURVEY_FRESH) ||
		    r->source != PMAPS_SRC_PAGES)
			fail_msg("pid %d: flags %#x, source %s: want a fresh walk (large, pages)",
			         (int)r->pid, r->flags, pmaps_source_name(r->source));
		EQ("uss (pages)", r->pid, r->v[PMAPS_SV_USS], uss);
		if (r->present & (1u << PMAPS_SV_PSS)) {
			/*
			 * Pss from kpagecount is the kernel's own sum where pages are
			 * small: the children's anonymous and shared pages. libc's pages
			 * can sit in large folios, whose kpagecount is the folio's average
			 * (docs/internals/SOURCES.md): there the two may part, by no more
			 * than the file pages' whole Pss.
			 */
			uint64_t d = r->v[PMAPS_SV_PSS] > pss ? r->v[PMAPS_SV_PSS] - pss
			                                       : pss - r->v[PMAPS_SV_PSS];
			if (d > k.pss_file[i])
				fail_msg("pid %d pss (pages): survey %llu, kernel %llu, apart by more than "
				         "Pss_File %llu", (int)r->pid, (unsigned long long)r->v[PMAPS_SV_PSS],
				         (unsigned long long)pss, (unsigned long long)k.pss_file[i]);
			assert_false(r->flags & PMAPS_SURVEY_PARTIAL);
		} else {
			/* Without CAP_SYS_ADMIN pages have no Pss: said, not guessed. */
			assert_true(r->flags & PMAPS_SURVEY_PARTIAL);
			assert_true(geteuid() != 0);
		}
	}
	pmaps_survey_close(s);
}

/* The first two children alone. */
static int first_two(void *ctx, const struct pmaps_survey_row *row)
{
	(void)ctx;
	return row->pid == kids[0].pid || row->pid == kids[1].pid;
}

/*
 * Rss of PID's smaps_rollup, and its mappings (lines of maps but [vsyscall],
 * which is no VMA), from the kernel's text.
 */
static void rss_maps_of(pid_t pid, uint64_t *rss, uint64_t *maps)
{
	char path[64], line[4096];
	unsigned long long kb;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/smaps_rollup", (int)pid);
	f = fopen(path, "r");
	assert_non_null(f);
	*rss = 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Rss: %llu kB", &kb) == 1)
			*rss = kb << 10;
	fclose(f);
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "r");
	assert_non_null(f);
	*maps = 0;
	while (fgets(line, sizeof(line), f))
		if (strchr(line, '\n') && !strstr(line, "[vsyscall]"))
			(*maps)++;
	fclose(f);
}

/* The sum of breakdown B's categories in state COL; asserts each is known. */
static uint64_t categories_sum(const struct pmaps_survey_breakdown *b, enum pmaps_xcol col)
{
	uint64_t sum = 0, v;

	for (int c = 0; c < PMAPS_X_COUNT; c++) {
		assert_int_equal(pmaps_survey_breakdown(b, c, col, &v), 1);
		sum += v;
	}
	return sum;
}

/*
 * PMAPS_SURVEY_BREAKDOWN: each child's row has its breakdown by category,
 * from smaps through one session re-pointed from child to child. Pss and
 * USS equal smaps_rollup's; the categories add up to the total in every
 * state, the total's RSS is smaps_rollup's Rss, the mapping count is maps'
 * line count, the shared anonymous pages are in shmem; refreshes after the
 * first allocate nothing; with a hold limit of 1 ns the page walk reads
 * them (LARGE, source pages) with the same USS.
 */
static void test_survey_breakdown(void **state)
{
	/* Every refresh reads them again (max_age_ns 1). */
	struct pmaps_survey_opts o = {.size = sizeof(o), .flags = PMAPS_SURVEY_BREAKDOWN,
	                              .max_age_ns = 1};
	struct pmaps_survey_stats st = {.size = sizeof(st)};
	struct pmaps_survey *s;
	struct kernel_view k;
	uint64_t v;
	(void)state;

	start_kids(KIDS);
	pmaps_set_allocator(count_alloc, count_free, NULL);
	assert_int_equal(pmaps_survey_open(&s, NULL, &o), 0);
	assert_int_equal(pmaps_survey_want(s, a_kid, NULL), 0);
	size_t most = 0;
	for (int round = 0; round < 3; round++) {
		unsigned long before = allocs;
		int tries = 0, grew = 0;
		if (round)
			touch_more(round);
		/*
		 * The children's Pss counts their share of libc's pages, so a
		 * process that starts and ends elsewhere during the read moves it
		 * and puts it back: bracketed() cannot see that. Read again until
		 * the survey's Pss is the kernel's, before and after, for all.
		 */
		for (;; tries++) {
			int same = 1;
			bracketed(s, KIDS, &k, NULL, 0);
			/* The tables grow only past the most processes ever listed (other tests' may come). */
			if (pmaps_survey_count(s) > most) {
				grew = most != 0;
				most = pmaps_survey_count(s);
			}
			for (int i = 0; i < KIDS; i++)
				same &= row_of(s, kids[i].pid)->v[PMAPS_SV_PSS] == k.pss[i];
			if (same || tries == 20)
				break;
		}
		if (round && allocs != before && !grew)
			fail_msg("refresh %d: %lu allocations, want 0", round + 1, allocs - before);
		for (int i = 0; i < KIDS; i++) {
			const struct pmaps_survey_row *r = row_of(s, kids[i].pid);
			uint64_t rss, maps;
			rss_maps_of(kids[i].pid, &rss, &maps);
			if (!r->breakdown || r->source != PMAPS_SRC_SMAPS || r->total)
				fail_msg("pid %d: breakdown %p, source %s, total %p: want a breakdown from "
				         "smaps and no total", (int)r->pid, (const void *)r->breakdown,
				         pmaps_source_name(r->source), (const void *)r->total);
			EQ("pss", r->pid, r->v[PMAPS_SV_PSS], k.pss[i]);
			EQ("uss", r->pid, r->v[PMAPS_SV_USS], k.uss[i]);
			assert_int_equal(pmaps_survey_breakdown(r->breakdown, -1, PMAPS_XC_RSS, &v), 1);
			EQ("breakdown rss", r->pid, v, rss);
			EQ("categories' rss", r->pid, categories_sum(r->breakdown, PMAPS_XC_RSS), rss);
			/* smaps rounds each mapping's Pss down to a KiB; smaps_rollup rounds once. */
			v = categories_sum(r->breakdown, PMAPS_XC_PSS);
			if (v > k.pss[i] || k.pss[i] - v >= (maps << 10))
				fail_msg("pid %d: the categories' pss %llu, smaps_rollup's %llu: want at most "
				         "and less than 1 KiB a mapping (%llu) below", (int)r->pid,
				         (unsigned long long)v, (unsigned long long)k.pss[i],
				         (unsigned long long)maps);
			EQ("private dirty + clean + shared", r->pid,
			   categories_sum(r->breakdown, PMAPS_XC_PRIVATE_DIRTY) +
			   categories_sum(r->breakdown, PMAPS_XC_PRIVATE_CLEAN) +
			   categories_sum(r->breakdown, PMAPS_XC_SHARED), rss);
			EQ("mappings", r->pid, r->mappings, maps);
			EQ("mappings by category", r->pid, pmaps_survey_breakdown_mappings(r->breakdown, -1),
			   maps);
			assert_int_equal(pmaps_survey_breakdown(r->breakdown, PMAPS_X_SHMEM, PMAPS_XC_RSS, &v),
			                 1);
			EQ("shmem rss", r->pid, v, (uint64_t)SHARED_PAGES * page);
			assert_int_equal(r->runtime, PMAPS_RUNTIME_GLIBC);
		}
	}
	assert_int_equal(pmaps_survey_stats(s, &st), 0);
	assert_int_equal(st.allocations, 0);
	/* Out of range and absent: 0, never a stale figure. */
	assert_int_equal(pmaps_survey_breakdown(NULL, -1, PMAPS_XC_RSS, &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(pmaps_survey_breakdown(row_of(s, kids[0].pid)->breakdown, PMAPS_X_COUNT,
	                                        PMAPS_XC_RSS, &v), 0);
	assert_int_equal(pmaps_survey_breakdown_mappings(NULL, -1), 0);
	pmaps_survey_close(s);
	pmaps_set_allocator(NULL, NULL, NULL);

	/*
	 * Large: the gentle page walk, whole, with the same USS and its own
	 * breakdown. Two children: a sanitized child's walk crosses terabytes
	 * of shadow reservation, gently.
	 */
	o.hold_ns = 1;
	o.max_age_ns = 1;
	assert_int_equal(pmaps_survey_open(&s, NULL, &o), 0);
	assert_int_equal(pmaps_survey_want(s, first_two, NULL), 0);
	/*
	 * A gentle walk is read whole, and one refresh starts another only
	 * for a process that waited: the two children are walked in turn,
	 * one a refresh, the other kept (SKIPPED) and first next time.
	 */
	for (int round = 0; round < 3; round++) {
		int fresh = 0;
		bracketed(s, 2, &k, NULL, 0);
		for (int i = 0; i < 2; i++) {
			const struct pmaps_survey_row *r = row_of(s, kids[i].pid);
			if (r->flags & PMAPS_SURVEY_FRESH)
				fresh++;
			else if (!(r->flags & PMAPS_SURVEY_SKIPPED))
				fail_msg("pid %d: flags %#x: want fresh or skipped", (int)r->pid, r->flags);
		}
		if (fresh != 1)
			fail_msg("refresh %d: %d of the two walked, want 1", round + 1, fresh);
	}
	for (int i = 0; i < 2; i++) {
		const struct pmaps_survey_row *r = row_of(s, kids[i].pid);
		uint64_t rss, maps;
		rss_maps_of(kids[i].pid, &rss, &maps);
		if (!r->breakdown || r->source != PMAPS_SRC_PAGES || !(r->flags & PMAPS_SURVEY_LARGE))
			fail_msg("pid %d: flags %#x, source %s: want a page walk's breakdown", (int)r->pid,
			         r->flags, pmaps_source_name(r->source));
		EQ("uss (pages)", r->pid, r->v[PMAPS_SV_USS], k.uss[i]);
		EQ("categories' rss (pages)", r->pid, categories_sum(r->breakdown, PMAPS_XC_RSS), rss);
		/* The page walk has no clean/dirty split: unknown, not 0. */
		assert_int_equal(pmaps_survey_breakdown(r->breakdown, -1, PMAPS_XC_PRIVATE_DIRTY, &v), 0);
		EQ("mappings (pages)", r->pid, r->mappings, maps);
	}
	pmaps_survey_close(s);
}

/* Another user's processes: status figures, and DENIED; never an error. */
static void test_survey_denied(void **state)
{
	pid_t kid;
	int st;
	(void)state;

	if (geteuid() != 0) {
		printf("skipped: needs root to drop to another user and survey a root process\n");
		skip();
	}
	start_kids(1);
	kid = fork();
	if (kid == 0) {
		struct pmaps_survey *s;
		struct pmaps_survey_stats stats = {.size = sizeof(stats)};
		const struct pmaps_survey_row *r;
		if (setgid(65534) || setuid(65534))
			_exit(10);
		if (pmaps_survey_open(&s, NULL, NULL) != 0 || pmaps_survey_refresh(s) <= 0)
			_exit(11);
		r = pmaps_survey_find(s, kids[0].pid);
		if (!r)
			_exit(12);
		if (!(r->flags & PMAPS_SURVEY_DENIED) || r->source != PMAPS_SRC_STATUS)
			_exit(13);
		if (!(r->present & (1u << PMAPS_SV_RSS)) || (r->present & (1u << PMAPS_SV_PSS)))
			_exit(14);
		if (r->v[PMAPS_SV_RSS] == 0)
			_exit(15);
		if (pmaps_survey_stats(s, &stats) != 0 || stats.denied == 0)
			_exit(16);
		pmaps_survey_close(s);
		_exit(0);
	}
	assert_int_equal(waitpid(kid, &st, 0), kid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

static int want_100(void *ctx, const struct pmaps_survey_row *row)
{
	(*(int *)ctx)++;
	/* Asked with the row's status read: its name and RSS are there. */
	assert_true(row->comm.len > 0);
	assert_true(row->present & (1u << PMAPS_SV_RSS));
	return row->pid == 100;
}

/*
 * The fixture tree of pmaps top's tests: a read that fails is FAILED, not
 * SKIPPED, and so is the walk of a process too large for one rollup read
 * in a tree without pagemap; the kernel thread is left out; and a front end that
 * wants one process gets only that one read.
 */
static void test_survey_fixture(void **state)
{
	struct pmaps_survey_stats st = {.size = sizeof(st)};
	struct pmaps_survey *s;
	const struct pmaps_survey_row *r;
	int asked = 0;
	(void)state;

	assert_int_equal(pmaps_survey_open(&s, PMAPS_TEST_DATA "/top/proc", NULL), 0);
	assert_int_equal(pmaps_survey_refresh(s), 5);
	assert_null(pmaps_survey_find(s, 2));
	r = pmaps_survey_find(s, 200);
	assert_non_null(r);
	assert_int_equal(r->flags & (PMAPS_SURVEY_FAILED | PMAPS_SURVEY_SKIPPED), PMAPS_SURVEY_FAILED);
	assert_int_equal(r->source, PMAPS_SRC_STATUS);
	/* Too large for one rollup read, and a tree without pagemap: no walk either. */
	r = pmaps_survey_find(s, 300);
	assert_int_equal(r->flags & (PMAPS_SURVEY_FAILED | PMAPS_SURVEY_SKIPPED | PMAPS_SURVEY_LARGE),
	                 PMAPS_SURVEY_FAILED | PMAPS_SURVEY_LARGE);
	r = pmaps_survey_find(s, 100);
	assert_int_equal(r->v[PMAPS_SV_PSS], 71680ull << 10);
	assert_int_equal(r->v[PMAPS_SV_USS], (512ull + 20480) << 10);
	assert_int_equal(pmaps_survey_stats(s, &st), 0);
	assert_int_equal(st.failed, 2);
	assert_int_equal(st.skipped, 0);
	assert_int_equal(st.read, 3);
	assert_int_equal(st.kernel_threads, 1);
	pmaps_survey_close(s);

	assert_int_equal(pmaps_survey_open(&s, PMAPS_TEST_DATA "/top/proc", NULL), 0);
	assert_int_equal(pmaps_survey_want(s, want_100, &asked), 0);
	assert_int_equal(pmaps_survey_refresh(s), 5);
	assert_int_equal(asked, 5);
	assert_int_equal(pmaps_survey_stats(s, &st), 0);
	assert_int_equal(st.read, 1);
	assert_int_equal(st.unwanted, 4);
	assert_int_equal(st.skipped + st.failed, 0);
	assert_true(pmaps_survey_find(s, 100)->present & (1u << PMAPS_SV_PSS));
	r = pmaps_survey_find(s, 101);
	assert_false(r->present & (1u << PMAPS_SV_PSS));
	assert_int_equal(r->flags & ~PMAPS_SURVEY_NEW, 0);
	pmaps_survey_close(s);
}

static int leader_ack;

/* USS from the smaps_rollup of PID's thread other than its leader. */
static unsigned long long thread_uss(pid_t pid)
{
	char path[96], line[256];
	unsigned long long kb, uss = 0;
	int tid = 0;
	FILE *ls, *f;

	snprintf(line, sizeof(line), "ls /proc/%d/task", (int)pid);
	ls = popen(line, "r");
	assert_non_null(ls);
	while (fgets(line, sizeof(line), ls))
		if (atoi(line) != pid)
			tid = atoi(line);
	pclose(ls);
	assert_true(tid > 0);
	snprintf(path, sizeof(path), "/proc/%d/task/%d/smaps_rollup", (int)pid, tid);
	f = fopen(path, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Private_Clean: %llu kB", &kb) == 1 ||
		    sscanf(line, "Private_Dirty: %llu kB", &kb) == 1)
			uss += kb << 10;
	fclose(f);
	return uss;
}

static void *holder(void *arg)
{
	size_t len = 8u << 20;
	char *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	(void)arg;
	if (m == MAP_FAILED)
		_exit(2);
	memset(m, 1, len);
	if (write(leader_ack, "h", 1) != 1)
		_exit(3);
	for (;;)
		pause();
	return NULL;
}

/*
 * A process whose main thread has exited (pthread_exit) while another runs:
 * its leader is a zombie with no memory of its own to show, and the survey
 * reads it through the thread that runs, as smaps_rollup of that thread
 * says.
 */
static void test_survey_leader_exited(void **state)
{
	/* Read again at every refresh (max_age 1 ns), for the comparison's retries. */
	struct pmaps_survey_opts o = {.size = sizeof(o), .flags = PMAPS_SURVEY_EXACT,
	                              .max_age_ns = 1};
	struct pmaps_survey *s;
	const struct pmaps_survey_row *r;
	char path[64], line[256], c;
	unsigned long long uss = 0;
	int a[2];
	pid_t pid;
	FILE *f;
	(void)state;

	assert_int_equal(pipe2(a, O_CLOEXEC), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		pthread_t th;
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		prctl(PR_SET_NAME, "survey-leader");
		leader_ack = a[1];
		if (pthread_create(&th, NULL, holder, NULL) != 0)
			_exit(4);
		pthread_exit(NULL);
	}
	spawned[nspawned++] = pid;
	close(a[1]);
	assert_int_equal(read(a[0], &c, 1), 1);
	close(a[0]);
	/* The leader's own state: a zombie, its threads running. */
	for (int tries = 0;; tries++) {
		char st = 0;
		snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
		f = fopen(path, "r");
		assert_non_null(f);
		if (fgets(line, sizeof(line), f) && strrchr(line, ')'))
			st = strrchr(line, ')')[2];
		fclose(f);
		if (st == 'Z')
			break;
		assert_true(tries < 1000);
		usleep(1000);
	}
	assert_int_equal(pmaps_survey_open(&s, NULL, &o), 0);
	assert_int_equal(pmaps_survey_want(s, a_kid, NULL), 0);
	/* Compared when the thread's smaps_rollup reads the same before and after. */
	for (int tries = 0;; tries++) {
		unsigned long long before = thread_uss(pid);
		assert_true(pmaps_survey_refresh(s) > 0);
		uss = thread_uss(pid);
		if (uss == before)
			break;
		assert_true(tries < 20);
	}
	r = pmaps_survey_find(s, pid);
	if (!r)
		fail_msg("pid %d (its leader exited, a thread runs): no row", (int)pid);
	assert_int_equal(r->source, PMAPS_SRC_ROLLUP);
	EQ("uss (through a thread)", pid, r->v[PMAPS_SV_USS], uss);
	assert_true(r->v[PMAPS_SV_USS] >= 8u << 20);
	pmaps_survey_close(s);
}

/*
 * A pid taken by another process between the survey's reads by path: once
 * the status of the listed process (A) is read, A is killed and reaped, and
 * another (B) is started with its pid (clone3() with set_tid, as root),
 * before smaps_rollup is opened by that pid. That read is B's, and the
 * directory's inode is no longer the listed one: the process is read again
 * through its directory as it is now, so the row is B's, status and
 * smaps_rollup both (A's status beside B's figures would be named
 * survey-a).
 */
static pid_t reuse_a, reuse_b;
static int reuse_err; /* errno of a clone3() that could not take the pid */

static ssize_t reuse_read(int fd, void *buf, size_t len)
{
	ssize_t n = read(fd, buf, len);
	char link[64], got[64], want[64];
	ssize_t k;

	if (reuse_b || reuse_err || n <= 0)
		return n;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	k = readlink(link, got, sizeof(got) - 1);
	snprintf(want, sizeof(want), "/proc/%d/status", (int)reuse_a);
	if (k < 0 || (size_t)k != strlen(want) || memcmp(got, want, (size_t)k) != 0)
		return n;
	{
		pid_t tid = reuse_a;
		struct clone_args ca = {.exit_signal = SIGCHLD, .set_tid = (uint64_t)(uintptr_t)&tid,
		                        .set_tid_size = 1};
		int saved = errno, ready[2];
		char c;
		if (pipe2(ready, O_CLOEXEC) < 0) {
			reuse_err = errno;
			return n;
		}
		kill(reuse_a, SIGKILL);
		waitpid(reuse_a, NULL, 0);
		reuse_b = (pid_t)syscall(SYS_clone3, &ca, sizeof(ca));
		if (reuse_b == 0) {
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			prctl(PR_SET_NAME, "survey-b");
			if (write(ready[1], "", 1) != 1)
				_exit(3);
			for (;;)
				pause();
		}
		if (reuse_b < 0) {
			reuse_err = errno;
			reuse_b = 0;
		} else if (read(ready[0], &c, 1) != 1) {
			reuse_err = EIO;
		}
		close(ready[0]);
		close(ready[1]);
		errno = saved;
	}
	return n;
}

static int named(void *ctx, const struct pmaps_survey_row *row)
{
	(void)ctx;
	return row->pid == reuse_a;
}

static void test_survey_pid_reused(void **state)
{
	struct pmaps_survey_opts o = {.size = sizeof(o), .flags = PMAPS_SURVEY_EXACT};
	struct pmaps_survey_stats st = {.size = sizeof(st)};
	const struct pmaps_survey_row *r;
	struct pmaps_survey *s;
	int a[2];
	char c;
	(void)state;

	assert_int_equal(pipe2(a, O_CLOEXEC), 0);
	reuse_b = 0;
	reuse_err = 0;
	reuse_a = fork();
	assert_true(reuse_a >= 0);
	if (reuse_a == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		prctl(PR_SET_NAME, "survey-a");
		close(a[0]);
		if (write(a[1], "", 1) != 1)
			_exit(3);
		for (;;)
			pause();
	}
	close(a[1]);
	assert_int_equal(read(a[0], &c, 1), 1);
	close(a[0]);
	assert_int_equal(pmaps_survey_open(&s, NULL, &o), 0);
	assert_int_equal(pmaps_survey_want(s, named, NULL), 0);
	pmaps__read_hook = reuse_read;
	assert_true(pmaps_survey_refresh(s) > 0);
	pmaps__read_hook = NULL;
	if (reuse_b > 0) {
		assert_true(nspawned < MAX_SPAWNED);
		spawned[nspawned++] = reuse_b;
	}
	if (!reuse_b) {
		pmaps_survey_close(s);
		if (reuse_err == EPERM || reuse_err == ENOSYS) {
			/* clone3 (5.3) with set_tid (5.5) needs CAP_SYS_ADMIN, and may be filtered */
			print_message("skipped: clone3 with set_tid: %s\n", strerror(reuse_err));
			skip();
		}
		fail_msg("pid %d was not taken again: clone3: %s", (int)reuse_a, strerror(reuse_err));
	}
	assert_int_equal(reuse_b, reuse_a);
	assert_int_equal(pmaps_survey_stats(s, &st), 0);
	r = pmaps_survey_find(s, reuse_b);
	if (!r || r->comm.len != 8 || memcmp(r->comm.ptr, "survey-b", 8) != 0 ||
	    r->source != PMAPS_SRC_ROLLUP)
		fail_msg("pid %d, taken again during its reads: %s%.*s (source %d), expected the "
		         "row of survey-b from smaps_rollup (source %d)", (int)reuse_b,
		         r ? "" : "no row ", r ? (int)r->comm.len : 0, r ? r->comm.ptr : "",
		         r ? (int)r->source : -1, (int)PMAPS_SRC_ROLLUP);
	if (st.vanished != 0)
		fail_msg("vanished: %u, expected 0 (the try through the path counts for nothing)",
		         st.vanished);
	pmaps_survey_close(s);
}

/* Sums saturate rather than wrap, and say which figures every row had. */
static void test_survey_sum(void **state)
{
	struct pmaps_survey_row a = {0}, b = {0};
	struct pmaps_survey_sum sum = {.size = sizeof(sum)};
	(void)state;

	a.present = 1u << PMAPS_SV_RSS | 1u << PMAPS_SV_PSS;
	a.v[PMAPS_SV_RSS] = UINT64_MAX - 5;
	a.v[PMAPS_SV_PSS] = 100;
	b.present = 1u << PMAPS_SV_RSS;
	b.v[PMAPS_SV_RSS] = 10;
	assert_int_equal(pmaps_survey_sum_add(&sum, &a), 0);
	assert_int_equal(pmaps_survey_sum_add(&sum, &b), 0);
	assert_int_equal(sum.processes, 2);
	assert_true(sum.v[PMAPS_SV_RSS] == UINT64_MAX);
	assert_int_equal(sum.saturated, 1);
	assert_int_equal(sum.v[PMAPS_SV_PSS], 100);
	assert_int_equal(sum.present, 1u << PMAPS_SV_RSS);
	assert_int_equal(sum.seen, 1u << PMAPS_SV_RSS | 1u << PMAPS_SV_PSS);
	sum.size = 4;
	assert_int_equal(pmaps_survey_sum_add(&sum, &a), -EINVAL);
	sum.size = sizeof(sum);
	/* A merge is the rows added one by one: {b} merged into {a} as {a, b} above. */
	{
		struct pmaps_survey_sum sa = {.size = sizeof(sa)}, sb = {.size = sizeof(sb)},
		                        none = {.size = sizeof(none)};
		assert_int_equal(pmaps_survey_sum_add(&sa, &a), 0);
		assert_int_equal(pmaps_survey_sum_add(&sb, &b), 0);
		assert_int_equal(pmaps_survey_sum_merge(&sa, &none), 0); /* nothing: no change */
		assert_int_equal(sa.processes, 1);
		assert_int_equal(sa.present, a.present);
		assert_int_equal(pmaps_survey_sum_merge(&sa, &sb), 0);
		assert_int_equal(sa.processes, sum.processes);
		assert_int_equal(sa.present, sum.present);
		assert_int_equal(sa.seen, sum.seen);
		assert_int_equal(sa.saturated, sum.saturated);
		assert_memory_equal(sa.v, sum.v, sizeof(sum.v));
		/* A saturated sum stays saturated wherever it is merged. */
		assert_int_equal(pmaps_survey_sum_merge(&none, &sa), 0);
		assert_int_equal(none.saturated, 1);
		assert_int_equal(none.processes, 2);
		sb.size = 4;
		assert_int_equal(pmaps_survey_sum_merge(&sa, &sb), -EINVAL);
	}
}

/* meminfo: every field read here, from the machine's own file, equal to what it says. */
static void test_meminfo(void **state)
{
	struct pmaps_meminfo mi = {.size = sizeof(mi)};
	char line[256], name[64];
	unsigned long long kb;
	FILE *f;
	int checked = 0;
	(void)state;

	assert_int_equal(pmaps_meminfo_read(NULL, &mi, NULL, 0), 0);
	f = fopen("/proc/meminfo", "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%63[^:]: %llu kB", name, &kb) != 2)
			continue;
		if (strcmp(name, "MemTotal") == 0 || strcmp(name, "SwapTotal") == 0) {
			enum pmaps_meminfo_field k = name[0] == 'M' ? PMAPS_MI_MEM_TOTAL
			                                             : PMAPS_MI_SWAP_TOTAL;
			assert_true(mi.present & (1ull << k));
			EQ(name, 0, mi.v[k], (uint64_t)kb << 10);
			checked++;
		}
	}
	fclose(f);
	assert_int_equal(checked, 2);
	assert_string_equal(pmaps_meminfo_key(PMAPS_MI_MEM_AVAILABLE), "mem_available");
	assert_null(pmaps_meminfo_key(PMAPS_MI_COUNT));
	mi.size = 8;
	assert_int_equal(pmaps_meminfo_read(NULL, &mi, NULL, 0), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_survey_exact, teardown),
		cmocka_unit_test_teardown(test_survey_age, teardown),
		cmocka_unit_test_teardown(test_survey_allocations, teardown),
		cmocka_unit_test_teardown(test_survey_budget, teardown),
		cmocka_unit_test_teardown(test_survey_large, teardown),
		cmocka_unit_test_teardown(test_survey_walk_resumes, teardown),
		cmocka_unit_test_teardown(test_survey_enomem, teardown),
		cmocka_unit_test_teardown(test_survey_denied, teardown),
		cmocka_unit_test_teardown(test_survey_breakdown, teardown),
		cmocka_unit_test_teardown(test_survey_leader_exited, teardown),
		cmocka_unit_test_teardown(test_survey_pid_reused, teardown),
		cmocka_unit_test(test_survey_fixture),
		cmocka_unit_test(test_survey_sum),
		cmocka_unit_test(test_meminfo),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
