/* SPDX-License-Identifier: MIT */
/*
 * stall_harness.c - the victim of the stall benchmarks and its latency
 * figures (stall.h). The victim loops: mmap() 64 KiB, write one page of it
 * (a fault), munmap() it, timing each of the three with CLOCK_MONOTONIC into
 * arrays in shared memory, while the caller's phase lasts.
 */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "stall.h"

#define LOOP_BYTES (64u << 10)     /* what the victim maps and unmaps */

/*
 * Shared with the victim. CMD is the parent's: odd means idle, even means
 * record (a new phase each time it changes). ACK is the victim's echo of
 * the CMD it acts on; when it echoes an idle CMD, N and LOOPS hold the
 * phase just ended and the arrays are the parent's until CMD changes again.
 */
struct shared {
	_Atomic uint32_t cmd, ack;
	uint64_t n;     /* samples stored */
	uint64_t loops; /* loops done (more than N when the arrays filled) */
	uint64_t cap;
	uint32_t *mmap_ns, *fault_ns, *munmap_ns;
};

static struct shared *sh;
static size_t sh_bytes;
static pid_t victim = -1;
static uint32_t cmd = 1;

static void warn(const char *what, const char *msg)
{
	fprintf(stderr, "%s: %s: %s\n", program_invocation_short_name, what, msg);
}

uint64_t stall_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void stall_sleep_ns(long ns)
{
	struct timespec ts = { ns / 1000000000, ns % 1000000000 };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

int stall_pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set) < 0 ? -errno : 0;
}

/* ------------------------------------------------------------------ */
/* The victim                                                          */

static void victim_fail(const char *what)
{
	fprintf(stderr, "%s: victim: %s: %s\n", program_invocation_short_name, what,
	        strerror(errno));
	_exit(1);
}

static void touch(volatile char *p, size_t len, size_t step)
{
	for (size_t i = 0; i < len; i += step)
		p[i] = 1;
}

_Noreturn static void victim_main(pid_t parent, long vmas, long resident_mib)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), chunk = 4 * page;
	uint32_t seen = 0;
	uint64_t n = 0, loops = 0;
	char *p;

	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0)
		victim_fail("prctl");
	if (getppid() != parent)
		_exit(1);
	if (stall_pin(0) < 0)
		fprintf(stderr, "%s: victim: not pinned to CPU 0: %s\n",
		        program_invocation_short_name, strerror(errno));
	/* The arrays, faulted in now rather than while timing. */
	touch((volatile char *)sh->mmap_ns, sh->cap * 3 * sizeof(uint32_t), page);

	/* VMAs of 4 pages: every other one read-only, so none merge. */
	p = mmap(NULL, (size_t)vmas * chunk, PROT_READ | PROT_WRITE,
	         MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		victim_fail("mmap of the small VMAs");
	touch(p, (size_t)vmas * chunk, chunk);
	for (long i = 1; i < vmas; i += 2)
		if (mprotect(p + (size_t)i * chunk, chunk, PROT_READ) < 0)
			victim_fail("mprotect");
	p = mmap(NULL, (size_t)resident_mib << 20, PROT_READ | PROT_WRITE,
	         MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		victim_fail("mmap of the resident region");
	touch(p, (size_t)resident_mib << 20, page);

	for (;;) {
		uint32_t c = atomic_load_explicit(&sh->cmd, memory_order_acquire);
		uint64_t t0, t1, t2, t3;
		char *q;

		if (c != seen) {
			if (seen && !(seen & 1)) {
				sh->n = n;
				sh->loops = loops;
			}
			seen = c;
			n = loops = 0;
			atomic_store_explicit(&sh->ack, c, memory_order_release);
		}
		if (c & 1) {
			stall_sleep_ns(100000);
			continue;
		}
		t0 = stall_now_ns();
		q = mmap(NULL, LOOP_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		t1 = stall_now_ns();
		if (q == MAP_FAILED)
			victim_fail("mmap");
		*(volatile char *)q = 1;
		t2 = stall_now_ns();
		if (munmap(q, LOOP_BYTES) < 0)
			victim_fail("munmap");
		t3 = stall_now_ns();
		if (n < sh->cap) {
			sh->mmap_ns[n] = t1 - t0 > UINT32_MAX ? UINT32_MAX : (uint32_t)(t1 - t0);
			sh->fault_ns[n] = t2 - t1 > UINT32_MAX ? UINT32_MAX : (uint32_t)(t2 - t1);
			sh->munmap_ns[n] = t3 - t2 > UINT32_MAX ? UINT32_MAX : (uint32_t)(t3 - t2);
			n++;
		}
		loops++;
	}
}

/* ------------------------------------------------------------------ */
/* The parent                                                          */

/* 0 while the victim lives; -1 (said why) once it has died, reaped. */
static int victim_check(void)
{
	int status;
	pid_t w = waitpid(victim, &status, WNOHANG);

	if (w == 0)
		return 0;
	if (w < 0)
		warn("waitpid", strerror(errno));
	else if (WIFSIGNALED(status))
		fprintf(stderr, "%s: the victim died of signal %d\n", program_invocation_short_name,
		        WTERMSIG(status));
	else
		fprintf(stderr, "%s: the victim exited (%d)\n", program_invocation_short_name,
		        WEXITSTATUS(status));
	victim = -1;
	return -1;
}

/* Sets CMD and waits up to TIMEOUT_S for the victim to act on it. */
static int victim_command(uint32_t c, double timeout_s)
{
	uint64_t until = stall_now_ns() + (uint64_t)(timeout_s * 1e9);

	if (victim <= 0)
		return -1;
	atomic_store_explicit(&sh->cmd, c, memory_order_release);
	while (atomic_load_explicit(&sh->ack, memory_order_acquire) != c) {
		if (victim_check() < 0)
			return -1;
		if (stall_now_ns() > until) {
			warn("victim", "does not answer");
			return -1;
		}
		stall_sleep_ns(200000);
	}
	return 0;
}

pid_t stall_start(long vmas, long resident_mib, double secs)
{
	/* Room for 1.5M loops a second, more than the victim manages. */
	uint64_t cap = (uint64_t)(secs * 1.5e6) + 4096;
	pid_t parent = getpid();
	int err;

	sh_bytes = sizeof(*sh) + cap * 3 * sizeof(uint32_t);
	sh = mmap(NULL, sh_bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED) {
		warn("mmap of the shared arrays", strerror(errno));
		sh = NULL;
		return -1;
	}
	sh->cap = cap;
	sh->mmap_ns = (uint32_t *)(sh + 1);
	sh->fault_ns = sh->mmap_ns + cap;
	sh->munmap_ns = sh->fault_ns + cap;
	cmd = 1;
	atomic_store(&sh->cmd, cmd);
	atomic_store(&sh->ack, 0);

	fflush(stdout);
	victim = fork();
	if (victim < 0) {
		warn("fork", strerror(errno));
		return -1;
	}
	if (victim == 0)
		victim_main(parent, vmas, resident_mib);
	if ((err = stall_pin(1)) < 0)
		fprintf(stderr, "%s: note: not pinned to CPU 1: %s\n", program_invocation_short_name,
		        strerror(-err));
	/* Setup: touching GiBs takes a while. */
	if (victim_command(cmd, 60 + (double)resident_mib / 64) < 0)
		return -1;
	return victim;
}

int stall_record(void)
{
	cmd += 1; /* even: record */
	return victim_command(cmd, 10);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/* The Q-quantile of sorted V[N] (nearest rank). */
static uint32_t quantile(const uint32_t *v, uint64_t n, double q)
{
	uint64_t i = (uint64_t)(q * (double)n + 0.999999);

	if (n == 0)
		return 0;
	return v[i == 0 ? 0 : i > n ? n - 1 : i - 1];
}

int stall_stop(struct stall_stats *st, double secs)
{
	uint64_t n;

	cmd += 1; /* odd: idle, the arrays are ours */
	if (victim_command(cmd, 10) < 0)
		return -1;
	n = sh->n;
	st->n = n;
	st->loops = sh->loops;
	st->secs = secs;
	qsort(sh->mmap_ns, n, sizeof(uint32_t), cmp_u32);
	qsort(sh->fault_ns, n, sizeof(uint32_t), cmp_u32);
	qsort(sh->munmap_ns, n, sizeof(uint32_t), cmp_u32);
	st->mmap_p50 = quantile(sh->mmap_ns, n, 0.5);
	st->mmap_p99 = quantile(sh->mmap_ns, n, 0.99);
	st->mmap_p999 = quantile(sh->mmap_ns, n, 0.999);
	st->munmap_p999 = quantile(sh->munmap_ns, n, 0.999);
	st->fault_p999 = quantile(sh->fault_ns, n, 0.999);
	st->max = n ? sh->mmap_ns[n - 1] : 0;
	if (n && sh->munmap_ns[n - 1] > st->max)
		st->max = sh->munmap_ns[n - 1];
	if (n && sh->fault_ns[n - 1] > st->max)
		st->max = sh->fault_ns[n - 1];
	return 0;
}

void stall_end(void)
{
	if (victim > 0) {
		if (kill(victim, SIGKILL) < 0)
			warn("kill", strerror(errno));
		while (waitpid(victim, NULL, 0) < 0)
			if (errno != EINTR) {
				warn("waitpid", strerror(errno));
				break;
			}
	}
	victim = -1;
	if (sh && munmap(sh, sh_bytes) < 0)
		warn("munmap", strerror(errno));
	sh = NULL;
}

static double us(uint32_t ns)
{
	return ns / 1e3;
}

double stall_base_p999_us(const struct stall_stats *a, const struct stall_stats *b)
{
	return (us(a->mmap_p999) + us(b->mmap_p999)) / 2;
}

void stall_print_header(void)
{
	printf("%-44s %7s %9s %8s %8s %9s %9s %9s %9s %8s %7s\n", "reader", "reads", "ms/read",
	       "mmap p50", "p99", "p99.9", "munmap", "fault", "max", "x base", "kloop/s");
	printf("%-44s %7s %9s %8s %8s %9s %9s %9s\n", "", "", "(median)", "", "", "", "p99.9",
	       "p99.9");
}

void stall_print_row(const char *name, const char *reads, const char *ms,
                     const struct stall_stats *st, double base_p999)
{
	printf("%-44s %7s %9s %8.1f %8.1f %9.1f %9.1f %9.1f %9.1f %8.1f %7.0f%s\n", name, reads, ms,
	       us(st->mmap_p50), us(st->mmap_p99), us(st->mmap_p999), us(st->munmap_p999),
	       us(st->fault_p999), us(st->max), base_p999 > 0 ? us(st->mmap_p999) / base_p999 : 0,
	       st->secs > 0 ? (double)st->loops / st->secs / 1e3 : 0,
	       st->loops > st->n ? " (capped)" : "");
}
