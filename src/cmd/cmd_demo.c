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
 *
 * With --svg PREFIX the child pauses between its steps, the parent samples
 * it as pmaps watch does (an explain session run every 25 ms) while it
 * builds its layout, and then draws the two pictures: the timeline of those
 * samples (timeline.c) and its address space as pmaps pages --svg does.
 * Both files are checked before the child starts (outfile.h) and put in
 * place, each whole, only when the demo has succeeded: a demo that fails
 * leaves what was at those paths untouched.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "common/num.h"
#include "common/tool.h"
#include "watch/watch.h"
#include "write/pages_svg.h"
#include "write/writer.h"

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
	"      --svg PREFIX  also draw it: the child builds its layout step by step while\n"
	"                    it is sampled, then PREFIX-timeline.svg shows the samples (as\n"
	"                    pmaps watch --svg) and PREFIX-pages.svg its address space (as\n"
	"                    pmaps pages --svg)\n"
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

/* Between two steps of the layout, when the parent samples it: long enough for a few samples. */
static void pause_step(int paced)
{
	struct timespec ts = {0, 150 * 1000 * 1000};

	if (paced)
		while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
			;
}

/* The child: build the layout, say ready (or why not), wait for EOF on HOLD. */
static void child(uint64_t size, const char *path, int ready, int hold, int paced)
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
	pause_step(paced);
	touch(a, anon);
	pause_step(paced);
	/* Half "freed" the lazy way, a quarter the eager way, a quarter kept. */
	if (madvise(a + anon / 4, anon / 2, MADV_FREE) < 0) {
		snprintf(msg, sizeof(msg), "madvise(MADV_FREE): %s (needs Linux 4.5)", strerror(errno));
		goto say;
	}
	pause_step(paced);
	if (madvise(a + 3 * (anon / 4), anon / 4, MADV_DONTNEED) < 0) {
		snprintf(msg, sizeof(msg), "madvise(MADV_DONTNEED): %s", strerror(errno));
		goto say;
	}
	pause_step(paced);
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
	pause_step(paced);
	mfd = memfd_create("pmaps-demo", MFD_CLOEXEC);
	if (mfd < 0 || ftruncate(mfd, (off_t)shm) < 0 ||
	    (m = mmap(NULL, shm, PROT_READ | PROT_WRITE, MAP_SHARED, mfd, 0)) == MAP_FAILED) {
		snprintf(msg, sizeof(msg), "memfd: %s", strerror(errno));
		goto say;
	}
	touch(m, shm);
	pause_step(paced);
	n = mmap(NULL, named, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (n != MAP_FAILED) {
		/* Fails without CONFIG_ANON_VMA_NAME: the region then shows as anon. */
		(void)prctl(PR_SET_VMA, PR_SET_VMA_ANON_NAME, (unsigned long)n, named,
		            (unsigned long)"pmaps-demo");
		touch(n, named / 2);
	}
	pause_step(paced);
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

/* The pictures of --svg PREFIX: their files are checked before the child starts. */
struct pictures {
	char timeline[PATH_MAX], pages[PATH_MAX];
	char title[64];
	struct timeline *tl;
	struct outfile pages_file; /* the pages picture, written by draw(), committed at the end */
	uint64_t t0;
};

/* Opens both files (outfile.h), so that an unwritable PREFIX fails before anything starts. */
static int pictures_open(struct pictures *p, const char *prefix)
{
	char msg[512] = "";
	int err, a, b;

	a = snprintf(p->timeline, sizeof(p->timeline), "%s-timeline.svg", prefix);
	b = snprintf(p->pages, sizeof(p->pages), "%s-pages.svg", prefix);
	if (a < 0 || b < 0 || (size_t)a >= sizeof(p->timeline) || (size_t)b >= sizeof(p->pages)) {
		die_msg("--svg: the prefix is too long for a file name");
		return EXIT_USAGE;
	}
	err = timeline_open(&p->tl, p->timeline, msg, sizeof(msg));
	if (err < 0) {
		die_msg("--svg: '%s': %s", p->timeline, msg[0] ? msg : strerror(-err));
		return EXIT_FAIL;
	}
	err = outfile_open(&p->pages_file, p->pages, msg, sizeof(msg));
	if (err < 0) {
		die_msg("--svg: '%s': %s", p->pages, msg);
		timeline_close(p->tl); /* never written: nothing left behind */
		return EXIT_FAIL;
	}
	p->t0 = now_ns();
	return 0;
}

/*
 * The demo succeeded: the timeline is written and put in place, then the
 * pages picture draw() wrote. Returns an exit code; on a failure the
 * pages picture is not put in place.
 */
static int pictures_commit(struct pictures *p)
{
	char msg[512] = "";
	int err;

	err = timeline_write(p->tl, p->title, strlen(p->title), msg, sizeof(msg));
	if (err < 0) {
		die_msg("--svg: '%s': %s", p->timeline, msg[0] ? msg : strerror(-err));
		return EXIT_FAIL;
	}
	err = outfile_commit(&p->pages_file, msg, sizeof(msg));
	if (err < 0) {
		die_msg("--svg: '%s': %s", p->pages, msg);
		return EXIT_FAIL;
	}
	return EXIT_OK;
}

/* Closes the files; a picture not committed is given up: what was at its path stays. */
static void pictures_close(struct pictures *p)
{
	timeline_close(p->tl);
	p->tl = NULL;
	outfile_abort(&p->pages_file);
}

/* One sample of the child into the timeline; a reading that failed is no sample. */
static void sample(struct pictures *p, struct pmaps_explain_session *xs)
{
	const struct pmaps_explain *x;
	struct watch_sample s;

	if (xs && pmaps_explain_run(xs, &x) == 0) {
		watch_sample_from(&s, x, now_ns() - p->t0);
		timeline_add(p->tl, &s);
	}
}

/*
 * Samples the child every 25 ms until READY has its answer, then once more,
 * and draws both pictures. Returns an exit code; the answer is left in READY.
 */
static int draw(struct pictures *p, const struct target *t, int ready)
{
	struct pmaps_explain_session *xs = NULL;
	struct pages_svg_req req = {0};
	struct pollfd pfd = {ready, POLLIN, 0};
	struct pmaps_proc *proc = NULL;
	struct failure f = {0};
	int err, rc;

	rc = tool_proc_open(&proc, t);
	if (rc != EXIT_OK)
		return rc;
	if (pmaps_explain_open(&xs, proc, 0) < 0) {
		pmaps_explain_close(xs);
		xs = NULL; /* no samples: the timeline says so */
	}
	for (;;) {
		sample(p, xs);
		err = poll(&pfd, 1, 25);
		if (err > 0 || (err < 0 && errno != EINTR))
			break;
	}
	sample(p, xs); /* the whole layout */
	pmaps_explain_close(xs);
	req.proc = proc;
	req.strategy = PMAPS_PAGES_AUTO;
	req.out = &p->pages_file;
	err = pages_svg_write(&req, &f);
	pmaps_proc_close(proc);
	if (err < 0)
		return tool_fail(t, &f);
	snprintf(p->title, sizeof(p->title), "pmaps demo: process %s", t->pid);
	return EXIT_OK;
}

int cmd_demo(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"size", required_argument, NULL, 'S'},
		{"svg", required_argument, NULL, 'G'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	uint64_t size = 256u << 20;
	const char *path = tmp_path;
	char pid[16], msg[161], all[24], quarter[24], eighth[24], buf[4096];
	struct target t = {NULL, pid};
	struct out o;
	struct pictures pics;
	const char *svg = NULL;
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
		case 'G':
			if (svg || !*optarg) {
				die_msg(svg ? "--svg is given twice" : "--svg needs a prefix");
				return EXIT_USAGE;
			}
			/* Two files are named after it: neither standard output nor a directory. */
			if (strcmp(optarg, "-") == 0 || optarg[strlen(optarg) - 1] == '/') {
				die_msg("--svg takes a prefix for two file names (PREFIX-timeline.svg, "
				        "PREFIX-pages.svg), not '%s'", optarg);
				return EXIT_USAGE;
			}
			svg = optarg;
			break;
		case 'h': return print_usage(demo_usage);
		default: return option_error("demo", argv, "h", longopts);
		}
	}
	if (optind != argc) {
		die_msg("demo takes no arguments (see pmaps demo --help)");
		return EXIT_USAGE;
	}
	if (svg && (rc = pictures_open(&pics, svg)) != EXIT_OK)
		return rc;
	/* No signal between creating the file and knowing to remove it. */
	catch_fatal();
	sigfillset(&block);
	sigprocmask(SIG_BLOCK, &block, &old);
	fd = mkstemp(tmp_path);
	tmp_made = fd >= 0;
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (fd < 0) {
		die_msg("cannot create %s: %s", path, strerror(errno));
		if (svg)
			pictures_close(&pics);
		return EXIT_FAIL;
	}
	close(fd);
	if (pipe2(ready, O_CLOEXEC) < 0 || pipe2(hold, O_CLOEXEC) < 0) {
		die_msg("pipe: %s", strerror(errno));
		remove_tmp();
		if (svg)
			pictures_close(&pics);
		return EXIT_FAIL;
	}
	kid = fork();
	if (kid < 0) {
		die_msg("fork: %s", strerror(errno));
		remove_tmp();
		if (svg)
			pictures_close(&pics);
		return EXIT_FAIL;
	}
	if (kid == 0) {
		close(ready[0]);
		close(hold[1]);
		child(size, path, ready[1], hold[0], svg != NULL);
	}
	close(ready[1]);
	close(hold[0]);
	snprintf(pid, sizeof(pid), "%d", (int)kid);
	if (svg) {
		rc = draw(&pics, &t, ready[0]);
		if (rc != EXIT_OK)
			goto out;
	}
	n = read(ready[0], msg, sizeof(msg) - 1);
	close(ready[0]);
	ready[0] = -1;
	msg[n > 0 ? n : 0] = '\0';
	if (strcmp(msg, "ok") != 0) {
		die_msg("the demo workload could not start: %s", n > 0 ? msg : "it died");
		rc = EXIT_FAIL;
		goto out;
	}
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
	if (rc == EXIT_OK && svg)
		rc = pictures_commit(&pics);
	if (rc == EXIT_OK && svg) {
		out_str(&o, "\nPictures: ");
		out_table_str(&o, pics.timeline, strlen(pics.timeline));
		out_str(&o, " (samples taken as it built its layout) and ");
		out_table_str(&o, pics.pages, strlen(pics.pages));
		out_str(&o, " (its address space).\n");
		rc = finish_output(&o, EXIT_OK);
	}
out:
	if (svg)
		pictures_close(&pics);
	if (ready[0] >= 0)
		close(ready[0]);
	close(hold[1]); /* the child's threads and main see EOF and exit */
	while (waitpid(kid, &status, 0) < 0 && errno == EINTR)
		;
	remove_tmp();
	return rc;
}
