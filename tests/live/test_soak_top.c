/* SPDX-License-Identifier: MIT */
/*
 * test_soak_top.c - a survey (what `pmaps top` refreshes) refreshed every
 * 20 ms for PMAPS_SOAK_SECONDS (120 by default) while processes come and go
 * around it: this program's children, 20 to 80 of them at a time, each
 * living a random short while (some map and touch memory, some exec
 * /bin/true, some exit at once and stay zombies until reaped later).
 *
 * It holds the survey to its promises over the run:
 *   - after the table's high-water mark, a refresh allocates nothing (the
 *     allocator hook counts; a refresh that lists more processes than any
 *     before may grow the tables, three allocations a step);
 *   - this process's RSS at the end is within a small bound of its RSS
 *     after the first 10 s, and it holds as many fds as at the start;
 *   - every refresh has rows, this process's among them, and none for a
 *     child reaped before the refresh began or known to be a zombie by then.
 *
 * PMAPS_SOAK_SECONDS=N runs it longer (run the program itself then: ctest's
 * timeout is set for the default). PMAPS_SOAK_SEED=N repeats a run's churn.
 */
#include <dirent.h>
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
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "pmaps.h"
#include "../expect.h"
#include "../count_alloc.h"

#define INTERVAL_NS 20000000ull /* 20 ms between refreshes */
#define MIN_KIDS 20
#define MAX_KIDS 80
/*
 * RSS growth allowed from the 10 s mark to the end: RSS_GROWTH_KB, plus
 * ROW_BYTES for each row the table's high rose by after the mark.
 *
 * What may grow after the mark: the survey's table pages touched for the
 * first time when the row count passes its earlier high. A row holds its
 * status and its costly figures (what row->status and row->total point
 * to), its names and bookkeeping (1 KiB is room to spare), in two tables
 * (this refresh's and the last one's).
 * The churn reaches MAX_KIDS in its first seconds, so on a quiet machine
 * the high is reached before the mark and only the machine's own
 * processes can raise it; other programs running beside the test do.
 *
 * Measured on the development machine (2 cores, Linux 6.18), 60-120 s:
 * +0 KiB with the high unchanged after the mark (dev build), +64 KiB with
 * a mark at 2.5 s (code and stack pages first used after it), +608 KiB
 * when other programs raised the high from 130 to 281 rows (the tables
 * grew once), +3376 KiB from 90 to 1078 rows (3.4 KiB a row).
 * 256 KiB is a leak of 45 bytes a refresh over 120 s.
 */
#define RSS_GROWTH_KB 256
#define ROW_BYTES                                                                           \
	(2 * (sizeof(struct pmaps_survey_row) + sizeof(struct pmaps_status) +                   \
	      sizeof(struct pmaps_group_row) + 1024))

enum kind { K_MEMORY, K_EXEC, K_ZOMBIE, K_SLEEP, K_KINDS };

struct kid {
	pid_t pid;
	enum kind kind;
	int exited;          /* seen exited (a zombie) through waitid(WNOWAIT) */
	uint64_t reap_after; /* monotonic ns: reaped no earlier */
};

static struct kid kids[MAX_KIDS];
static int nkids;
static uint64_t rng;

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* xorshift64: the churn repeats from its seed. */
static uint64_t rnd(uint64_t below)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng % below;
}

static void sleep_ns(uint64_t ns)
{
	struct timespec ts = {(time_t)(ns / 1000000000ull), (long)(ns % 1000000000ull)};
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static void end_kids(void)
{
	for (int i = 0; i < nkids; i++) {
		kill(kids[i].pid, SIGKILL);
		waitpid(kids[i].pid, NULL, 0);
	}
	nkids = 0;
}

static struct pmaps_survey *survey;

/* After a failed assertion too: the children ended, the survey closed. */
static int teardown(void **state)
{
	(void)state;
	end_kids();
	pmaps_survey_close(survey);
	survey = NULL;
	pmaps_set_allocator(NULL, NULL, NULL);
	return 0;
}

/* The child's life: decided before the fork, so it allocates nothing after it. */
static void kid_run(enum kind kind, uint64_t life_ns, size_t bytes)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	switch (kind) {
	case K_MEMORY: {
		char *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			_exit(3);
		for (size_t k = 0; k < bytes; k += 4096)
			p[k] = (char)k;
		sleep_ns(life_ns);
		break;
	}
	case K_EXEC:
		sleep_ns(life_ns / 8);
		execl("/bin/true", "true", (char *)NULL);
		_exit(127);
	case K_ZOMBIE:
		break;
	default:
		sleep_ns(life_ns);
	}
	_exit(0);
}

static void spawn(uint64_t now)
{
	enum kind kind = (enum kind)rnd(K_KINDS);
	uint64_t life = 10000000ull + rnd(400000000ull); /* 10 to 410 ms */
	size_t bytes = (size_t)(16 + rnd(1024)) * 4096;  /* 64 KiB to 4 MiB */
	pid_t p = fork();

	expect_sys(p);
	if (p == 0)
		kid_run(kind, life, bytes);
	kids[nkids].pid = p;
	kids[nkids].kind = kind;
	kids[nkids].exited = 0;
	/* A zombie waits 20 to 300 ms for its reaping; the others up to a refresh or two. */
	kids[nkids].reap_after = now + (kind == K_ZOMBIE ? 20000000ull + rnd(280000000ull)
	                                                 : rnd(40000000ull));
	nkids++;
}

/*
 * Notes which children have exited (without reaping them), reaps those
 * whose time has come into REAPED (*NREAPED of them), keeps WANT alive.
 */
static void churn(uint64_t now, int want, pid_t *reaped, int *nreaped, int max_reaped)
{
	for (int i = 0; i < nkids;) {
		struct kid *k = &kids[i];
		if (!k->exited) {
			siginfo_t si;
			memset(&si, 0, sizeof(si));
			expect_sys(waitid(P_PID, (id_t)k->pid, &si, WEXITED | WNOHANG | WNOWAIT));
			k->exited = si.si_pid == k->pid;
		}
		if (k->exited && now >= k->reap_after) {
			int st;
			assert_int_equal(waitpid(k->pid, &st, 0), k->pid);
			if (*nreaped < max_reaped)
				reaped[(*nreaped)++] = k->pid;
			*k = kids[--nkids];
			continue;
		}
		i++;
	}
	while (nkids < want)
		spawn(now);
}

/* KEY's value in kB in /proc/self/FILE (status, smaps_rollup). */
static long self_kb(const char *file, const char *key)
{
	char buf[4096], path[64];
	int fd;
	ssize_t n;
	const char *p;

	snprintf(path, sizeof(path), "/proc/self/%s", file);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	expect_sys(fd);
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	expect_sys(n);
	buf[n] = '\0';
	p = strstr(buf, key);
	assert_non_null(p);
	return strtol(p + strlen(key), NULL, 10);
}

/*
 * This process's RSS, exact: smaps_rollup walks the page tables. VmRSS is
 * summed from per-CPU counters that may lag; two reads of status a few
 * microseconds apart here differed by 144 KiB.
 */
static long self_rss_kb(void)
{
	return self_kb("smaps_rollup", "\nRss:");
}

static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	const struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

/* A pid some process has again (reused since it was reaped). */
static int pid_alive(pid_t pid)
{
	return kill(pid, 0) == 0 || errno == EPERM;
}

static void test_soak(void **state)
{
	const char *env = getenv("PMAPS_SOAK_SECONDS");
	const char *seed = getenv("PMAPS_SOAK_SEED");
	uint64_t seconds = env && *env ? strtoull(env, NULL, 10) : 120;
	uint64_t t0, end, mark, next, refreshes = 0, grown = 0, most_allocs = 0;
	uint64_t min_rows = UINT64_MAX, max_rows = 0, reaped_total = 0, zombies_seen = 0;
	struct pmaps_survey *s;
	struct pmaps_survey_stats st = {.size = sizeof(st)};
	size_t high = 0, high_mark = 0;
	long rss_mark = -1, rss_end, bound_kb;
	int fds_start, fds_open, want = MAX_KIDS, r;
	pid_t reaped[4 * MAX_KIDS], zombies[MAX_KIDS];
	pid_t self = getpid();
	(void)state;

	if (seconds < 1)
		seconds = 1;
	rng = seed && *seed ? strtoull(seed, NULL, 10) : (uint64_t)now_ns() ^ (uint64_t)self;
	if (!rng)
		rng = 1;
	print_message("soak: %llu s, seed %llu (PMAPS_SOAK_SEED repeats this churn)\n",
	              (unsigned long long)seconds, (unsigned long long)rng);
	fds_start = count_fds();
	pmaps_set_allocator(count_alloc, count_free, NULL);
	/*
	 * No process counts as large (hold limit 2^62 ns): a large one elsewhere
	 * on the machine would have the page walk's cursor opened, once, in
	 * whichever refresh first meets it (test_survey covers the walk).
	 */
	{
		struct pmaps_survey_opts so = {.size = sizeof(so), .hold_ns = 1ull << 62};
		assert_int_equal(pmaps_survey_open(&survey, NULL, &so), 0);
	}
	s = survey;
	r = pmaps_survey_refresh(s);
	if (r <= 0)
		print_error("first refresh: %d, %s\n", r, pmaps_survey_errmsg(s));
	expect_gt(r, 0);
	high = (size_t)r;
	fds_open = count_fds();

	t0 = now_ns();
	end = t0 + seconds * 1000000000ull;
	/* The RSS to hold the end to: after 10 s, or a quarter of a shorter run. */
	mark = t0 + (seconds >= 40 ? 10000000000ull : seconds * 250000000ull);
	next = t0;
	while (now_ns() < end) {
		uint64_t now = now_ns(), a0;
		int nreaped = 0, nzombies = 0;
		size_t rows;
		const struct pmaps_survey_row *row;

		/* The most children in the first seconds, so the table's high comes early. */
		if (now - t0 > 2000000000ull && rnd(25) == 0)
			want = MIN_KIDS + (int)rnd(MAX_KIDS - MIN_KIDS + 1);
		churn(now, want, reaped, &nreaped, (int)(sizeof(reaped) / sizeof(reaped[0])));
		reaped_total += (uint64_t)nreaped;
		for (int i = 0; i < nkids; i++)
			if (kids[i].exited)
				zombies[nzombies++] = kids[i].pid;
		zombies_seen += (uint64_t)nzombies;

		a0 = allocs;
		r = pmaps_survey_refresh(s);
		if (r <= 0)
			print_error("refresh %llu: %d, %s\n", (unsigned long long)refreshes, r,
			            pmaps_survey_errmsg(s));
		expect_gt(r, 0);
		rows = (size_t)r;
		assert_int_equal(pmaps_survey_count(s), rows);
		assert_int_equal(pmaps_survey_stats(s, &st), 0);
		refreshes++;
		min_rows = rows < min_rows ? rows : min_rows;
		max_rows = rows > max_rows ? rows : max_rows;

		/* Allocations: none unless this refresh listed more processes than any before. */
		{
			uint64_t made = allocs - a0;
			size_t listed = rows + st.vanished;
			if (made != st.allocations)
				print_error("refresh %llu: the hook counted %llu allocations, the survey "
				            "says %u\n", (unsigned long long)refreshes,
				            (unsigned long long)made, st.allocations);
			assert_int_equal(made, st.allocations);
			if (made) {
				/*
				 * The tables (three arrays) grow by half when a pid is listed
				 * and they are full, before it is known to be a process still
				 * (hence >=, and vanished): as many times as it takes from the
				 * high to what was listed, plus one for a full table at the high.
				 */
				uint64_t steps = 1;
				for (double c = (double)high; c < (double)listed; c *= 1.5)
					steps++;
				if (listed < high || made > 3 * steps)
					print_error("refresh %llu: %llu allocations with %zu rows and %u "
					            "vanished; the high so far %zu rows (growth: %llu at most, "
					            "and only past it)\n",
					            (unsigned long long)refreshes, (unsigned long long)made,
					            rows, st.vanished, high, (unsigned long long)(3 * steps));
				expect_ge(listed, high);
				expect_le(made, 3 * steps);
				grown++;
			}
			most_allocs = made > most_allocs ? made : most_allocs;
			high = rows > high ? rows : high;
		}

		/* This process is there; no child reaped or seen a zombie before the refresh is. */
		row = pmaps_survey_find(s, self);
		assert_non_null(row);
		assert_int_equal(row->pid, self);
		for (int i = 0; i < nreaped; i++) {
			row = pmaps_survey_find(s, reaped[i]);
			if (row && !pid_alive(reaped[i])) {
				print_error("refresh %llu: a row for pid %d, reaped before it began\n",
				            (unsigned long long)refreshes, (int)reaped[i]);
				fail();
			}
		}
		for (int i = 0; i < nzombies; i++) {
			row = pmaps_survey_find(s, zombies[i]);
			if (row) {
				print_error("refresh %llu: a row for pid %d, a zombie before it began "
				            "(state %c)\n", (unsigned long long)refreshes, (int)zombies[i],
				            row->state);
				fail();
			}
		}
		for (size_t i = 0; i < rows; i++) {
			row = pmaps_survey_get(s, i);
			assert_non_null(row);
			expect_gt(row->pid, 0);
			if (i > 0)
				expect_gt(row->pid, pmaps_survey_get(s, i - 1)->pid);
		}

		if (rss_mark < 0 && now_ns() >= mark) {
			rss_mark = self_rss_kb();
			high_mark = high;
			print_message("soak: at the mark Rss %ld KiB (VmRSS %ld KiB)\n", rss_mark,
			              self_kb("status", "VmRSS:"));
		}
		next += INTERVAL_NS;
		now = now_ns();
		if (next > now)
			sleep_ns(next - now);
		else
			next = now; /* late: no catching up in a burst */
	}
	rss_end = self_rss_kb();
	print_message("soak: at the end Rss %ld KiB (VmRSS %ld KiB)\n", rss_end,
	              self_kb("status", "VmRSS:"));
	expect_ge(rss_mark, 0);
	bound_kb = RSS_GROWTH_KB + (long)((high - high_mark) * ROW_BYTES / 1024);
	print_message("soak: %llu refreshes, %llu to %llu rows, %llu children reaped, %llu "
	              "zombie sightings; %llu refreshes grew the tables (at most %llu allocations); "
	              "RSS %ld KiB at the mark, %ld KiB at the end (%+ld, bound %ld); the most "
	              "rows %zu at the mark, %zu at the end\n",
	              (unsigned long long)refreshes, (unsigned long long)min_rows,
	              (unsigned long long)max_rows, (unsigned long long)reaped_total,
	              (unsigned long long)zombies_seen, (unsigned long long)grown,
	              (unsigned long long)most_allocs, rss_mark, rss_end, rss_end - rss_mark,
	              bound_kb, high_mark, high);
	expect_le(rss_end - rss_mark, bound_kb);
	/* Refreshes opened and closed as many fds as they left; the close leaves none. */
	assert_int_equal(count_fds(), fds_open);
	teardown(NULL);
	assert_int_equal(count_fds(), fds_start);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_soak, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
