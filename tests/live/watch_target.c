/* SPDX-License-Identifier: MIT */
/*
 * watch_target.c - the workload pmaps watch and run are tested on
 * (tests/cli/watch_test.py). It does one step per command line read from
 * standard input, then holds still and answers on standard output with
 * one line of the kernel's own figures for itself, read after the step:
 *
 *   step NAME rollup_rss R lazy_free L vm_rss V vm_hwm H
 *
 * (bytes; rollup_* from /proc/self/smaps_rollup, vm_* from status). The
 * commands:
 *
 *   report     nothing: the figures as they are
 *   grow       the heap (brk) grows by 16 MiB, every page written
 *   free       MADV_FREE of the last 16 MiB grown: LazyFree, still resident
 *   dontneed   MADV_DONTNEED of the 16 MiB below that: RSS falls
 *   file PATH  writes 8 MiB to PATH (made here), maps it private read-only
 *              and reads every page: the file-ro category
 *   ramp       the heap grows by 64 KiB every 2 ms until the next command
 *              (a separate thread-free loop polling standard input)
 *   exit N     writes "step exit vm_hwm H" and exits with status N
 *   child N NAME
 *              forks a child that maps N MiB anonymous and writes every
 *              page, names itself NAME (prctl PR_SET_NAME: the first 15
 *              bytes, any but NUL and newline), answers for itself
 *              "step child pid P vm_rss V" and holds still until killed
 *   grandchild N NAME
 *              forks a child named "mid" that forks one as child N NAME
 *              does and then holds still too: the answer is the
 *              grandchild's, "step grandchild pid P mid M vm_rss V"
 *
 * (The parent answers only once its child has answered; it never waits for
 * them: killed, they stay zombies until it exits.)
 *
 * `watch_target churn N` is another workload (the allocation test's): N
 * one-page mappings, every other one writable (so that none merge), then
 * "ready PID" and, until killed, a page of a 4 MiB region written and one
 * dropped (MADV_DONTNEED) every millisecond, a new one-page mapping every
 * 10 ms (the count grows, up to N more), and on SIGUSR1 an exec of itself
 * as `churn N` again ("ready PID" again from the new program).
 *
 * Built without sanitizers (as layout.c): ASan's allocator would add
 * mappings of its own. No allocation after start: stdio's buffers are
 * warmed before the first command.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#define STEP (16ul << 20)
#define FILE_SIZE (8ul << 20)

static char *heap_base; /* page-aligned start of what grow added */
static size_t heap_len;

/* "Key:   N kB" of FILE's text in BUF: the value in bytes, or 0. */
static unsigned long long field(const char *buf, const char *key)
{
	const char *p = strstr(buf, key);
	unsigned long long v = 0;

	if (!p)
		return 0;
	p += strlen(key);
	while (*p == ' ' || *p == '\t')
		p++;
	while (*p >= '0' && *p <= '9')
		v = v * 10 + (unsigned long long)(*p++ - '0');
	return v * 1024;
}

static void slurp(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t n = 0;
	ssize_t r;

	buf[0] = '\0';
	if (fd < 0)
		return;
	while (n + 1 < size && (r = read(fd, buf + n, size - 1 - n)) > 0)
		n += (size_t)r;
	buf[n] = '\0';
	close(fd);
}

static void report(const char *step)
{
	char roll[4096], st[8192];

	slurp("/proc/self/smaps_rollup", roll, sizeof(roll));
	slurp("/proc/self/status", st, sizeof(st));
	printf("step %s rollup_rss %llu lazy_free %llu vm_rss %llu vm_hwm %llu\n", step,
	       field(roll, "\nRss:"), field(roll, "\nLazyFree:"), field(st, "\nVmRSS:"),
	       field(st, "\nVmHWM:"));
	fflush(stdout);
}

static int grow(size_t n)
{
	char *p = sbrk((intptr_t)n);

	if (p == (void *)-1)
		return -1;
	for (size_t i = 0; i < n; i += 4096)
		p[i] = 1;
	heap_len += n;
	return 0;
}

/*
 * The child (and grandchild) steps: in the new process, N MiB written, the
 * name, the answer on standard output (write(2): stdio's buffer is the
 * parent's), a byte on DONE, then still until killed.
 */
__attribute__((noreturn)) static void hold(const char *step, unsigned long mib,
                                          const char *name, int mid, int done)
{
	char st[8192], line[160];
	size_t n = mib << 20;
	char *p = mmap(NULL, n ? n : 1, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int len;

	if (p == MAP_FAILED)
		_exit(89);
	for (size_t i = 0; i < n; i += 4096)
		p[i] = 1;
	prctl(PR_SET_NAME, name, 0, 0, 0);
	slurp("/proc/self/status", st, sizeof(st));
	if (mid)
		len = snprintf(line, sizeof(line), "step %s pid %d mid %d vm_rss %llu\n", step,
		               (int)getpid(), mid, field(st, "\nVmRSS:"));
	else
		len = snprintf(line, sizeof(line), "step %s pid %d vm_rss %llu\n", step,
		               (int)getpid(), field(st, "\nVmRSS:"));
	if (write(1, line, (size_t)len) != len || write(done, "x", 1) != 1)
		_exit(88);
	for (;;)
		pause();
}

/* "N NAME" of a child step: N into *MIB, the name's start returned (NULL: malformed). */
static const char *child_args(const char *s, unsigned long *mib)
{
	*mib = 0;
	if (*s < '0' || *s > '9')
		return NULL;
	while (*s >= '0' && *s <= '9')
		*mib = *mib * 10 + (unsigned long)(*s++ - '0');
	if (*s != ' ' || *mib > 4096)
		return NULL;
	return s + 1;
}

static void sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000};

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static volatile sig_atomic_t exec_asked;

static void on_usr1(int sig)
{
	(void)sig;
	exec_asked = 1;
}

static int churn(const char *arg)
{
	long ps = sysconf(_SC_PAGESIZE);
	unsigned long n = strtoul(arg, NULL, 10), grown = 0;
	size_t region = 4ul << 20, pages = region / (size_t)ps;
	char *r, *base;
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sigaction(SIGUSR1, &sa, NULL);
	/* the mappings: one reserved range, every page its own mapping by protection */
	base = mmap(NULL, 2 * n * (size_t)ps, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	r = mmap(NULL, region, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (base == MAP_FAILED || r == MAP_FAILED)
		return 80;
	for (unsigned long i = 0; i < n; i += 2) {
		if (mprotect(base + i * (size_t)ps, (size_t)ps, PROT_READ | PROT_WRITE) < 0)
			return 79;
		base[i * (size_t)ps] = 1;
	}
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	for (unsigned long k = 0;; k++) {
		r[(k % pages) * (size_t)ps] = 1;
		size_t drop = ((k + pages / 2) % pages) * (size_t)ps;
		if (madvise(r + drop, (size_t)ps, MADV_DONTNEED) < 0)
			return 78;
		/* every 10th: one page more of the reserved half past N (a new mapping) */
		if (k % 10 == 0 && grown < n / 2 &&
		    mprotect(base + (n + 1 + 2 * grown++) * (size_t)ps, (size_t)ps, PROT_READ) < 0)
			return 77;
		if (exec_asked) {
			char *argv[] = {"watch_target", "churn", (char *)arg, NULL};
			execv("/proc/self/exe", argv);
			return 76;
		}
		sleep_ms(1);
	}
}

int main(int argc, char **argv)
{
	char line[4200];
	long ps = sysconf(_SC_PAGESIZE);
	char *cur = sbrk(0);

	/* The heap's growth from a page boundary, so that each step is whole pages. */
	if ((uintptr_t)cur % (uintptr_t)ps && sbrk(ps - (intptr_t)((uintptr_t)cur % (uintptr_t)ps))
	                                      == (void *)-1)
		return 99;
	heap_base = sbrk(0);
	if (argc == 3 && strcmp(argv[1], "churn") == 0)
		return churn(argv[2]);
	/* stdio's buffers, allocated now rather than in the first step */
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	while (fgets(line, sizeof(line), stdin)) {
		line[strcspn(line, "\n")] = '\0';
		if (strcmp(line, "report") == 0) {
			report("report");
		} else if (strcmp(line, "grow") == 0) {
			if (grow(STEP) < 0)
				return 98;
			report("grow");
		} else if (strcmp(line, "free") == 0) {
			if (heap_len < STEP || madvise(heap_base + heap_len - STEP, STEP, MADV_FREE) < 0)
				return 97;
			report("free");
		} else if (strcmp(line, "dontneed") == 0) {
			if (heap_len < 2 * STEP ||
			    madvise(heap_base + heap_len - 2 * STEP, STEP, MADV_DONTNEED) < 0)
				return 96;
			report("dontneed");
		} else if (strncmp(line, "file ", 5) == 0) {
			int fd = open(line + 5, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
			volatile const char *m;
			unsigned long sum = 0;
			static char chunk[65536];
			memset(chunk, 0x5a, sizeof(chunk));
			if (fd < 0)
				return 95;
			/* Real data: a hole might read as the zero page on some file systems. */
			for (size_t i = 0; i < FILE_SIZE; i += sizeof(chunk))
				if (write(fd, chunk, sizeof(chunk)) != (ssize_t)sizeof(chunk))
					return 95;
			m = mmap(NULL, FILE_SIZE, PROT_READ, MAP_PRIVATE, fd, 0);
			close(fd);
			if (m == MAP_FAILED)
				return 94;
			for (size_t i = 0; i < FILE_SIZE; i += (size_t)ps)
				sum += (unsigned long)m[i];
			if (sum != 0x5aul * (FILE_SIZE / (size_t)ps))
				return 93;
			report("file");
		} else if (strcmp(line, "ramp") == 0) {
			struct pollfd p = {0, POLLIN, 0};
			while (poll(&p, 1, 0) == 0) {
				if (grow(64u << 10) < 0)
					return 92;
				sleep_ms(2);
			}
			report("ramp");
		} else if (strncmp(line, "child ", 6) == 0 || strncmp(line, "grandchild ", 11) == 0) {
			int grand = line[0] == 'g', fds[2];
			unsigned long mib;
			const char *name = child_args(line + (grand ? 11 : 6), &mib);
			pid_t pid;
			char c;
			if (!name || pipe(fds) < 0)
				return 87;
			pid = fork();
			if (pid < 0)
				return 86;
			if (pid == 0) {
				close(fds[0]);
				if (!grand)
					hold("child", mib, name, 0, fds[1]);
				prctl(PR_SET_NAME, "mid", 0, 0, 0);
				pid = fork();
				if (pid < 0)
					_exit(86);
				if (pid == 0)
					hold("grandchild", mib, name, (int)getppid(), fds[1]);
				close(fds[1]);
				for (;;)
					pause();
			}
			close(fds[1]);
			/* The answer is the child's: wait until it is written. */
			if (read(fds[0], &c, 1) != 1)
				return 85;
			close(fds[0]);
		} else if (strncmp(line, "exit ", 5) == 0) {
			char st[8192];
			slurp("/proc/self/status", st, sizeof(st));
			printf("step exit vm_hwm %llu\n", field(st, "\nVmHWM:"));
			fflush(stdout);
			return atoi(line + 5);
		} else {
			fprintf(stderr, "watch_target: unknown command '%s'\n", line);
			return 90;
		}
	}
	return 0;
}
