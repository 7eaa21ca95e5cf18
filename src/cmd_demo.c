/* SPDX-License-Identifier: MIT */
/*
 * cmd_demo.c - `pmaps demo`: start a child with a known memory layout, show
 * where its memory is, clean up.
 *
 * The child holds an anonymous buffer (all touched, then half freed with
 * MADV_FREE: still resident, counted as LazyFree; a quarter dropped with
 * MADV_DONTNEED), a file mapping read through (page cache, counted in Rss),
 * a memfd (shmem), a named anonymous region where the kernel supports
 * names, and two threads; pmaps explain then says where its RSS is. It
 * dies with its parent (PR_SET_PDEATHSIG) and its file is removed on
 * every path, a fatal signal's too (SIGINT, SIGTERM, SIGHUP, SIGQUIT,
 * SIGPIPE: removed in the handler, then the signal is re-raised so that the
 * exit status still says which one).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tool.h"

#ifndef PR_SET_VMA
#define PR_SET_VMA 0x53564d41
#define PR_SET_VMA_ANON_NAME 0
#endif

static const char demo_usage[] =
	"Usage: pmaps demo [OPTIONS]\n"
	"\n"
	"Start a child that reproduces the classic gap between RSS and a heap profile\n"
	"(a buffer allocated and touched, half freed with MADV_FREE, a quarter with\n"
	"MADV_DONTNEED; a file mapped and read; shared memory; threads) and run\n"
	"pmaps explain on it. The child and its file are removed afterwards.\n"
	"\n"
	"Options:\n"
	"      --size SIZE   the anonymous buffer (K, M or G suffix; 1M to 64G; default 256M)\n"
	"  -h, --help        show this help\n";

static const int fatal[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE};
static char tmp_path[] = "/tmp/pmaps-demo.XXXXXX";
static volatile sig_atomic_t tmp_made; /* tmp_path names a file to remove */

static void on_fatal(int sig)
{
	int e = errno;

	/* unlink and raise are async-signal-safe; SA_RESETHAND restored the default. */
	if (tmp_made)
		unlink(tmp_path);
	tmp_made = 0;
	raise(sig); /* blocked here: delivered when the handler returns, and fatal */
	errno = e;
}

/* Removes the file on a fatal signal; a signal the caller ignores stays ignored. */
static void catch_fatal(void)
{
	struct sigaction sa, old;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_fatal;
	sa.sa_flags = SA_RESETHAND;
	sigfillset(&sa.sa_mask); /* one handler at a time */
	for (size_t i = 0; i < sizeof(fatal) / sizeof(fatal[0]); i++)
		if (sigaction(fatal[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN)
			sigaction(fatal[i], &sa, NULL);
}

/* Removes the file now, where no signal handler can race with it. */
static void remove_tmp(void)
{
	sigset_t all, old;

	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, &old);
	if (tmp_made)
		unlink(tmp_path);
	tmp_made = 0;
	sigprocmask(SIG_SETMASK, &old, NULL);
}

static void *idle_thread(void *arg)
{
	int fd = *(int *)arg;
	char c;

	/* Blocks until the parent lets the child go. */
	while (read(fd, &c, 1) < 0 && errno == EINTR)
		;
	return NULL;
}

static void touch(char *p, size_t n)
{
	for (size_t i = 0; i < n; i += 4096)
		p[i] = 1;
}

/* The child: build the layout, say ready (or why not), wait for EOF on HOLD. */
static void child(uint64_t size, const char *path, int ready, int hold)
{
	size_t anon = (size_t)size, file = anon / 4, shm = anon / 8, named = 4u << 20;
	pthread_t t[2];
	char msg[160] = "ok";
	char *a, *f, *m, *n;
	int fd, mfd;

	tmp_made = 0; /* the parent removes it */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() == 1)
		_exit(1);
	a = mmap(NULL, anon, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (a == MAP_FAILED) {
		snprintf(msg, sizeof(msg), "mmap %zu bytes: %s", anon, strerror(errno));
		goto say;
	}
	touch(a, anon);
	/* Half "freed" the lazy way, a quarter the eager way, a quarter kept. */
	if (madvise(a + anon / 4, anon / 2, MADV_FREE) < 0) {
		snprintf(msg, sizeof(msg), "madvise(MADV_FREE): %s (needs Linux 4.5)", strerror(errno));
		goto say;
	}
	if (madvise(a + 3 * (anon / 4), anon / 4, MADV_DONTNEED) < 0) {
		snprintf(msg, sizeof(msg), "madvise(MADV_DONTNEED): %s", strerror(errno));
		goto say;
	}
	fd = open(path, O_RDWR);
	if (fd < 0 || ftruncate(fd, (off_t)file) < 0) {
		snprintf(msg, sizeof(msg), "%s: %s", path, strerror(errno));
		goto say;
	}
	f = mmap(NULL, file, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (f == MAP_FAILED) {
		snprintf(msg, sizeof(msg), "mmap %s: %s", path, strerror(errno));
		goto say;
	}
	touch(f, file); /* written once, so the file has pages */
	munmap(f, file);
	fsync(fd); /* clean pages: the page cache could drop them at once */
	f = mmap(NULL, file, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (f == MAP_FAILED) {
		snprintf(msg, sizeof(msg), "mmap %s: %s", path, strerror(errno));
		goto say;
	}
	for (size_t i = 0; i < file; i += 4096)
		(void)*(volatile char *)(f + i);
	mfd = memfd_create("pmaps-demo", MFD_CLOEXEC);
	if (mfd < 0 || ftruncate(mfd, (off_t)shm) < 0 ||
	    (m = mmap(NULL, shm, PROT_READ | PROT_WRITE, MAP_SHARED, mfd, 0)) == MAP_FAILED) {
		snprintf(msg, sizeof(msg), "memfd: %s", strerror(errno));
		goto say;
	}
	touch(m, shm);
	n = mmap(NULL, named, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (n != MAP_FAILED) {
		/* Fails without CONFIG_ANON_VMA_NAME: the region then shows as anon. */
		(void)prctl(PR_SET_VMA, PR_SET_VMA_ANON_NAME, (unsigned long)n, named,
		            (unsigned long)"pmaps-demo");
		touch(n, named / 2);
	}
	for (int i = 0; i < 2; i++)
		if (pthread_create(&t[i], NULL, idle_thread, &hold) != 0) {
			snprintf(msg, sizeof(msg), "pthread_create failed");
			goto say;
		}
say:
	if (write(ready, msg, strlen(msg)) < 0)
		_exit(1);
	close(ready);
	idle_thread(&hold);
	_exit(0);
}

int cmd_demo(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"size", required_argument, NULL, 'S'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	uint64_t size = 256u << 20;
	const char *path = tmp_path;
	char pid[16], msg[161], all[24], quarter[24], eighth[24], buf[4096];
	struct target t = {NULL, pid};
	struct out o;
	int ready[2], hold[2], ch, rc = EXIT_OK, status;
	sigset_t block, old;
	ssize_t n;
	pid_t kid;
	int fd;

	opterr = 0;
	optind = 1;
	while ((ch = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (ch) {
		case 'S':
			if (parse_size(optarg, &size) < 0 || size < (1u << 20) || size > (64ull << 30)) {
				die_msg("--size: '%s' is not a size from 1M to 64G", optarg);
				return EXIT_USAGE;
			}
			size &= ~(uint64_t)0xfffff;
			break;
		case 'h': return print_usage(demo_usage);
		default: return option_error("demo", argv, "h", longopts);
		}
	}
	if (optind != argc) {
		die_msg("demo takes no arguments (see pmaps demo --help)");
		return EXIT_USAGE;
	}
	/* No signal between creating the file and knowing to remove it. */
	catch_fatal();
	sigfillset(&block);
	sigprocmask(SIG_BLOCK, &block, &old);
	fd = mkstemp(tmp_path);
	tmp_made = fd >= 0;
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (fd < 0) {
		die_msg("cannot create %s: %s", path, strerror(errno));
		return EXIT_FAIL;
	}
	close(fd);
	if (pipe2(ready, O_CLOEXEC) < 0 || pipe2(hold, O_CLOEXEC) < 0) {
		die_msg("pipe: %s", strerror(errno));
		remove_tmp();
		return EXIT_FAIL;
	}
	kid = fork();
	if (kid < 0) {
		die_msg("fork: %s", strerror(errno));
		remove_tmp();
		return EXIT_FAIL;
	}
	if (kid == 0) {
		close(ready[0]);
		close(hold[1]);
		child(size, path, ready[1], hold[0]);
	}
	close(ready[1]);
	close(hold[0]);
	n = read(ready[0], msg, sizeof(msg) - 1);
	close(ready[0]);
	msg[n > 0 ? n : 0] = '\0';
	if (strcmp(msg, "ok") != 0) {
		die_msg("the demo workload could not start: %s", n > 0 ? msg : "it died");
		rc = EXIT_FAIL;
		goto out;
	}
	snprintf(pid, sizeof(pid), "%d", (int)kid);
	fmt_human(all, size);
	fmt_human(quarter, size / 4);
	fmt_human(eighth, size / 8);
	out_fd(&o, STDOUT_FILENO, buf, sizeof(buf));
	out_printf(&o, "pmaps demo: process %s allocated %s and touched all of it, then\n"
	           "freed half of it with MADV_FREE (as some allocators do) and a quarter\n"
	           "with MADV_DONTNEED; it maps a file of %s and reads it, holds %s in a\n"
	           "memfd and runs two threads. A heap profile would say: %s in use.\n"
	           "Here is where its RSS really is (pmaps explain %s):\n\n",
	           pid, all, quarter, eighth, quarter, pid);
	rc = finish_output(&o, EXIT_OK);
	if (rc == EXIT_OK)
		rc = explain_report(&t, FMT_TABLE, 0, 0);
out:
	close(hold[1]); /* the child's threads and main see EOF and exit */
	while (waitpid(kid, &status, 0) < 0 && errno == EINTR)
		;
	remove_tmp();
	return rc;
}
