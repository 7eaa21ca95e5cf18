/* SPDX-License-Identifier: MIT */
/*
 * herd.c - many small processes for the benchmarks (herd.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "herd.h"

#define HERD_PAGE 4096ul

volatile pid_t herd_pgid;

void herd_kill(void)
{
	pid_t pg = herd_pgid;
	int st;

	if (pg <= 0)
		return;
	kill(-pg, SIGKILL);
	for (;;) {
		if (waitpid(-pg, &st, 0) > 0 || errno == EINTR)
			continue;
		break;
	}
	herd_pgid = 0;
}

void herd_on_signal(int sig)
{
	if (herd_pgid > 0)
		kill(-herd_pgid, SIGKILL);
	signal(sig, SIG_DFL);
	raise(sig);
}

void herd_guard(void (*on_signal)(int))
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal ? on_signal : herd_on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	atexit(herd_kill);
}

int herd_start_or_skip(struct herd *h, int n, const char *comm)
{
	char why[160];

	if (herd_room_for(n, why, sizeof(why)) < 0) {
		printf("\n%d processes: skipped, no room for them here: %s\n", n, why);
		return 0;
	}
	if (herd_start(h, n, comm) < 0) {
		herd_stop(h);
		return -1;
	}
	return 1;
}

static void child(int i, const char *comm, const char *shared, int ready, int hold)
{
	size_t len = HERD_PRIVATE_LEN + (size_t)(i % 5) * (32ul << 10);
	char *own, c;

	/* Ended with its siblings by the parent, never ending them itself. */
	herd_pgid = 0;
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	if (comm)
		prctl(PR_SET_NAME, comm);
	own = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (own == MAP_FAILED)
		_exit(3);
	for (size_t k = 0; k < len; k += HERD_PAGE)
		own[k] = (char)(i + (int)k);
	/* A read of each shared page maps it (volatile: the reads are kept). */
	for (size_t k = 0; k < HERD_SHARED_LEN; k += HERD_PAGE)
		(void)*(const volatile char *)&shared[k];
	if (write(ready, "k", 1) != 1)
		_exit(5);
	close(ready);
	while (read(hold, &c, 1) < 0 && errno == EINTR)
		;
	_exit(0);
}

int herd_room_for(int n, char *why, size_t whysz)
{
	char buf[256];
	long pid_max = 0, threads_max = 0, threads = 0, avail_kb = 0;
	int fd;
	ssize_t r;
	struct rlimit rl;
	char *p;

	if ((fd = open("/proc/sys/kernel/pid_max", O_RDONLY | O_CLOEXEC)) >= 0) {
		if ((r = read(fd, buf, sizeof(buf) - 1)) > 0)
			buf[r] = 0, pid_max = strtol(buf, NULL, 10);
		close(fd);
	}
	if ((fd = open("/proc/sys/kernel/threads-max", O_RDONLY | O_CLOEXEC)) >= 0) {
		if ((r = read(fd, buf, sizeof(buf) - 1)) > 0)
			buf[r] = 0, threads_max = strtol(buf, NULL, 10);
		close(fd);
	}
	/* "0.30 0.42 0.69 1/87 13095": runnable/threads alive */
	if ((fd = open("/proc/loadavg", O_RDONLY | O_CLOEXEC)) >= 0) {
		if ((r = read(fd, buf, sizeof(buf) - 1)) > 0 && (buf[r] = 0, p = strchr(buf, '/')))
			threads = strtol(p + 1, NULL, 10);
		close(fd);
	}
	if ((fd = open("/proc/meminfo", O_RDONLY | O_CLOEXEC)) >= 0) {
		static char mi[8192];
		if ((r = read(fd, mi, sizeof(mi) - 1)) > 0 && (mi[r] = 0, p = strstr(mi, "MemAvailable:")))
			avail_kb = strtol(p + 13, NULL, 10);
		close(fd);
	}
	if (pid_max && threads + n + 64 > pid_max) {
		snprintf(why, whysz, "pid_max is %ld and %ld threads are alive", pid_max, threads);
		return -1;
	}
	if (threads_max && threads + n + 64 > threads_max) {
		snprintf(why, whysz, "threads-max is %ld and %ld threads are alive", threads_max, threads);
		return -1;
	}
	if (avail_kb && (long)n * 1024 > avail_kb / 2) {
		snprintf(why, whysz, "MemAvailable is %ld MiB (about 1 MiB a child)", avail_kb >> 10);
		return -1;
	}
	/* RLIMIT_NPROC counts every thread of this uid (root is exempt from it). */
	if (getuid() != 0 && getrlimit(RLIMIT_NPROC, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
	    rl.rlim_cur < (rlim_t)(threads + n + 64)) {
		rl.rlim_cur = rl.rlim_max;
		if (setrlimit(RLIMIT_NPROC, &rl) < 0 ||
		    (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < (rlim_t)(threads + n + 64))) {
			snprintf(why, whysz, "RLIMIT_NPROC is %llu (hard) and %ld threads are alive",
			         (unsigned long long)rl.rlim_max, threads);
			return -1;
		}
	}
	return 0;
}

int herd_start(struct herd *h, int n, const char *comm)
{
	int ready[2], hold[2], got = 0;
	char buf[256];
	ssize_t r;

	memset(h, 0, sizeof(*h));
	h->pids = calloc((size_t)n, sizeof(*h->pids));
	h->shared = mmap(NULL, HERD_SHARED_LEN, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
	                 -1, 0);
	if (!h->pids || h->shared == MAP_FAILED || pipe2(ready, O_CLOEXEC) || pipe2(hold, O_CLOEXEC)) {
		fprintf(stderr, "%s: children: %s\n", program_invocation_short_name, strerror(errno));
		exit(1);
	}
	memset(h->shared, 7, HERD_SHARED_LEN);
	h->hold = hold[1];
	/*
	 * The children share this process's pages until they write them: give
	 * back what earlier surveys left in the heap, so that each size's
	 * children (and their smaps_rollup walks) are the same in any order.
	 */
	malloc_trim(0);
	for (int i = 0; i < n; i++) {
		pid_t parent = getpid(), p = fork();
		if (p < 0) {
			fprintf(stderr, "%s: fork: %s\n", program_invocation_short_name, strerror(errno));
			break;
		}
		if (p == 0) {
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			if (getppid() != parent)
				_exit(1);
			setpgid(0, h->pgid);
			close(ready[0]);
			close(hold[1]);
			child(i, comm, h->shared, ready[1], hold[0]);
		}
		/* Both sides set the group, so it is set whichever runs first. */
		if (setpgid(p, h->pgid ? h->pgid : p) < 0 && errno != EACCES) {
			fprintf(stderr, "%s: setpgid: %s\n", program_invocation_short_name, strerror(errno));
			kill(p, SIGKILL);
			waitpid(p, NULL, 0);
			break;
		}
		if (!h->pgid)
			herd_pgid = h->pgid = p;
		h->pids[h->n++] = p;
	}
	close(ready[1]);
	close(hold[0]);
	/* Each child writes one byte once its memory is in place, then closes its end. */
	while ((r = read(ready[0], buf, sizeof(buf))) > 0 || (r < 0 && errno == EINTR))
		got += r > 0 ? (int)r : 0;
	close(ready[0]);
	if (h->n < n || got < n) {
		fprintf(stderr, "%s: %d of %d children started, %d ready\n",
		        program_invocation_short_name, h->n, n, got);
		return -1;
	}
	return 0;
}

void herd_stop(struct herd *h)
{
	close(h->hold);
	herd_kill();
	munmap(h->shared, HERD_SHARED_LEN);
	free(h->pids);
	h->n = 0;
}
