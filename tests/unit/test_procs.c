/* SPDX-License-Identifier: MIT */
/*
 * test_procs.c - the directory reader (lib/dir.c) and the process
 * enumerator (pmaps_procs_*) on fixture trees, made-up directories and
 * this very process.
 */
#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "internal.h"
#include "testhooks.h"
#include "../count_alloc.h"

#define NFILES 200

/* A fresh directory with NFILES files f000..f199; its path in DIR. */
static void make_dir(char *dir, size_t size)
{
	snprintf(dir, size, "%s/pmaps-dir-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	assert_non_null(mkdtemp(dir));
	for (int i = 0; i < NFILES; i++) {
		char p[4200];
		int fd;
		snprintf(p, sizeof(p), "%s/f%03d", dir, i);
		fd = open(p, O_WRONLY | O_CREAT | O_EXCL, 0600);
		assert_int_not_equal(fd, -1);
		close(fd);
	}
}

static void remove_dir(const char *dir)
{
	for (int i = 0; i < NFILES; i++) {
		char p[4200];
		snprintf(p, sizeof(p), "%s/f%03d", dir, i);
		unlink(p);
	}
	rmdir(dir);
}

/* Lists D to its end; every name must be f000..f199, each once. Returns the count. */
static int list_all(struct pmaps__dir *d)
{
	unsigned char seen[NFILES] = {0};
	const char *name;
	int n = 0, r;

	while ((r = pmaps__dir_next(d, &name)) == 1) {
		int i = atoi(name + 1);
		if (name[0] != 'f' || strlen(name) != 4 || i < 0 || i >= NFILES || seen[i])
			fail_msg("unexpected entry '%s' (entry %d)", name, n);
		assert_int_equal(d->type, DT_REG);
		seen[i] = 1;
		n++;
	}
	assert_int_equal(r, 0);
	return n;
}

static void test_dir_lists_and_rewinds(void **state)
{
	char dir[4096], buf[PMAPS__DIR_MIN];
	struct pmaps__dir d;
	const char *name;
	int dfd;

	(void)state;
	make_dir(dir, sizeof(dir));
	dfd = open(dir, O_RDONLY | O_DIRECTORY);
	assert_int_not_equal(dfd, -1);
	/* A buffer of PMAPS__DIR_MIN holds ~40 of these: several calls. */
	assert_int_equal(pmaps__dir_open(&d, AT_FDCWD, dir, buf, sizeof(buf)), 0);
	assert_int_equal(list_all(&d), NFILES);
	assert_int_equal(pmaps__dir_next(&d, &name), 0); /* the end stays the end */
	assert_int_equal(pmaps__dir_rewind(&d), 0);
	assert_int_equal(list_all(&d), NFILES);
	pmaps__dir_close(&d);
	assert_int_equal(d.fd, -1);
	pmaps__dir_close(&d); /* idempotent */
	/* A directory fd handed over is owned, and closed, by the reader. */
	pmaps__dir_init(&d, dfd, buf, sizeof(buf));
	assert_int_equal(list_all(&d), NFILES);
	pmaps__dir_close(&d);
	assert_int_equal(fcntl(dfd, F_GETFD), -1);
	assert_int_equal(errno, EBADF);
	remove_dir(dir);
}

static void test_dir_small_buffer(void **state)
{
	char buf[PMAPS__DIR_MIN - 1];
	struct pmaps__dir d;

	(void)state;
	assert_int_equal(pmaps__dir_open(&d, AT_FDCWD, "/", buf, sizeof(buf)), -EINVAL);
	assert_int_equal(d.fd, -1);
}

static void test_dir_missing(void **state)
{
	char buf[PMAPS__DIR_MIN];
	struct pmaps__dir d;

	(void)state;
	assert_int_equal(pmaps__dir_open(&d, AT_FDCWD, "/nonexistent-pmaps", buf, sizeof(buf)),
	                 -ENOENT);
	assert_int_equal(d.fd, -1);
	assert_int_equal(pmaps__dir_open(&d, AT_FDCWD, "/etc/passwd", buf, sizeof(buf)), -ENOTDIR);
	assert_int_equal(d.fd, -1);
}

/* The hook's script: what each call does, in turn; then the real call. */
static int script[8], script_n, script_pos;
enum { REAL, INTR, NOENT, BAD_RECLEN, NO_NUL, TOO_LONG };

static ssize_t scripted(int fd, void *buf, size_t len)
{
	int what = script_pos < script_n ? script[script_pos++] : REAL;
	unsigned char *b = buf;
	unsigned short rl;

	switch (what) {
	case INTR:
		errno = EINTR;
		return -1;
	case NOENT:
		errno = ENOENT;
		return -1;
	case BAD_RECLEN:
	case NO_NUL:
		memset(b, 'x', 32);
		rl = what == BAD_RECLEN ? 4 : 32;
		memcpy(b + 16, &rl, 2);
		return 32;
	case TOO_LONG:
		return (ssize_t)len + 1;
	default:
		return syscall(SYS_getdents64, fd, buf, len);
	}
}

static int run_script(const int *steps, int n, int *count)
{
	char dir[4096], buf[PMAPS__DIR_MIN];
	struct pmaps__dir d;
	const char *name;
	int r;

	make_dir(dir, sizeof(dir));
	memcpy(script, steps, (size_t)n * sizeof(*steps));
	script_n = n;
	script_pos = 0;
	assert_int_equal(pmaps__dir_open(&d, AT_FDCWD, dir, buf, sizeof(buf)), 0);
	pmaps__getdents_hook = scripted;
	*count = 0;
	while ((r = pmaps__dir_next(&d, &name)) == 1)
		(*count)++;
	pmaps__getdents_hook = NULL;
	pmaps__dir_close(&d);
	remove_dir(dir);
	return r;
}

static void test_dir_faults(void **state)
{
	static const int intr[] = {INTR, REAL, INTR, INTR};
	static const int noent[] = {NOENT};
	static const int later_noent[] = {REAL, NOENT};
	static const int reclen[] = {BAD_RECLEN};
	static const int nonul[] = {NO_NUL};
	static const int toolong[] = {TOO_LONG};
	int n;

	(void)state;
	/* EINTR is retried, never seen. */
	assert_int_equal(run_script(intr, 4, &n), 0);
	assert_int_equal(n, NFILES);
	assert_int_equal(run_script(noent, 1, &n), -ENOENT);
	assert_int_equal(n, 0);
	assert_int_equal(run_script(later_noent, 2, &n), -ENOENT);
	if (n <= 0 || n >= NFILES)
		fail_msg("an error on the second call: %d entries before it, expected 1..%d", n,
		         NFILES - 1);
	/* Records the kernel never writes are -EIO, never read past. */
	assert_int_equal(run_script(reclen, 1, &n), -EIO);
	assert_int_equal(n, 0);
	assert_int_equal(run_script(nonul, 1, &n), -EIO);
	assert_int_equal(n, 0);
	assert_int_equal(run_script(toolong, 1, &n), -EIO);
	assert_int_equal(n, 0);
}

/* stat's text TEXT: its comm, state, kernel-thread flag and parent, or an error. */
static void expect_stat_pp(const char *text, int err, const char *comm, char state, int kthread,
                           int ppid)
{
	struct pmaps__ident id;
	struct pmaps_view v = {NULL, 0};

	assert_int_equal(pmaps__parse_stat(text, strlen(text), &id, &v), err);
	if (err || !comm)
		return;
	assert_int_equal(v.len, strlen(comm));
	assert_memory_equal(v.ptr, comm, v.len);
	assert_int_equal(id.state, state);
	assert_int_equal(id.kthread, kthread);
	assert_int_equal(id.ppid, ppid);
}

#define expect_stat(text, err, comm, state, kthread) \
	expect_stat_pp(text, err, comm, state, kthread, 1)

static void test_parse_stat(void **state)
{
	(void)state;
	expect_stat("7 (sh) S 1 7 7 0 -1 4194304 0", 0, "sh", 'S', 0);
	expect_stat_pp("2 (kthreadd) S 0 0 0 0 -1 2129984 0", 0, "kthreadd", 'S', 1, 0);
	expect_stat("7 ()) R 1", 0, ")", 'R', 0);
	expect_stat("7 (() R 1", 0, "(", 'R', 0);
	expect_stat_pp("7 () R", 0, "", 'R', 0, -1); /* no parent printed: unknown */
	expect_stat("7 (a\nb) c) Z 1 7 7 0 -1 2097152", 0, "a\nb) c", 'Z', 1);
	expect_stat_pp("7 (sh) S", 0, "sh", 'S', 0, -1); /* no flags: not a kernel thread */
	/* The parent: the largest pid there can be, one beyond, not a number, a gap. */
	expect_stat_pp("7 (sh) S 2147483647 7 7 0 -1 0", 0, "sh", 'S', 0, 2147483647);
	expect_stat_pp("7 (sh) S 2147483648 7 7 0 -1 0", 0, "sh", 'S', 0, -1);
	expect_stat_pp("7 (sh) S x 7 7 0 -1 2097152", 0, "sh", 'S', 1, -1);
	expect_stat_pp("7 (sh) S  7 7 0 -1 0", 0, "sh", 'S', 0, -1);
	expect_stat_pp("7 (s) 9) S 4242 7", 0, "s) 9", 'S', 0, 4242);
	expect_stat("7 sh S 1", -EBADMSG, NULL, 0, 0);
	expect_stat("7 )sh( S 1", -EBADMSG, NULL, 0, 0);
	expect_stat("7 (sh)", -EBADMSG, NULL, 0, 0);
	expect_stat("7 (sh) ", -EBADMSG, NULL, 0, 0);
	expect_stat("7 (sh)S 1", -EBADMSG, NULL, 0, 0);
	expect_stat("", -EBADMSG, NULL, 0, 0);
}

/* ---- the process enumerator ---- */

#define MAX_SEEN 4096

struct seen {
	int n, errors, last_error;
	struct pmaps_proc_info p[MAX_SEEN];
};

/* Lists IT to its end into S; errors are counted and the listing goes on. */
static void list_procs(struct pmaps_procs *it, struct seen *s)
{
	const struct pmaps_proc_info *info;
	int r;

	s->n = s->errors = s->last_error = 0;
	while ((r = pmaps_procs_next(it, &info)) != 0) {
		if (r < 0) {
			s->errors++;
			s->last_error = r;
			if (s->errors > 100)
				fail_msg("more than 100 errors, the last %d", r);
			continue;
		}
		assert_int_equal(r, 1);
		if (s->n < MAX_SEEN)
			s->p[s->n++] = *info;
	}
}

static const struct pmaps_proc_info *find(const struct seen *s, int pid)
{
	for (int i = 0; i < s->n; i++)
		if (s->p[i].pid == pid)
			return &s->p[i];
	return NULL;
}

static uint32_t owner(const char *tree, const char *pid)
{
	char path[4096];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s/proc/%s", PMAPS_TEST_DATA, tree, pid);
	assert_int_equal(stat(path, &st), 0);
	return (uint32_t)st.st_uid;
}

static void expect_proc_pp(const struct seen *s, int pid, const char *comm, size_t comm_len,
                           char state, int kthread, uint32_t uid, int ppid)
{
	const struct pmaps_proc_info *p = find(s, pid);

	if (!p)
		fail_msg("process %d not listed (%d listed)", pid, s->n);
	assert_int_equal(p->comm_len, comm_len);
	assert_memory_equal(p->comm, comm, comm_len + 1); /* NUL-terminated too */
	assert_int_equal(p->state, state);
	assert_int_equal(p->kernel_thread, kthread);
	assert_int_equal(p->uid, uid);
	if (p->ppid != ppid)
		fail_msg("process %d: ppid %d, want %d", pid, p->ppid, ppid);
}

static struct seen seen;

static struct pmaps_procs *open_tree(const char *tree)
{
	char root[4096];
	struct pmaps_procs *it;

	snprintf(root, sizeof(root), "%s/%s/proc", PMAPS_TEST_DATA, tree);
	assert_int_equal(pmaps_procs_open(&it, root), 0);
	return it;
}

static void test_procs_fixture(void **state)
{
	struct pmaps_procs *it = open_tree("procs-basic");

	(void)state;
	for (int pass = 0; pass < 2; pass++) {
		list_procs(it, &seen);
		/*
		 * Not 4243 (no stat: gone), sys and 12a (not all digits), 77 (a
		 * file), self (a symlink).
		 */
		assert_int_equal(seen.errors, 0);
		assert_int_equal(seen.n, 4);
		/* The parents as the fixtures' stat files give them (field 4). */
		expect_proc_pp(&seen, 1, "init", 4, 'S', 0, owner("procs-basic", "1"), 0);
		expect_proc_pp(&seen, 2, "kthreadd", 8, 'S', 1, owner("procs-basic", "2"), 0);
		/* The last ')' ends comm; its bytes are kept raw. */
		expect_proc_pp(&seen, 4242, "a) x (\nb", 8, 'T', 0, owner("procs-basic", "4242"), 1);
		/* Longer than any kernel prints: cut to fit, NUL-terminated. */
		expect_proc_pp(&seen, 4244,
		               "ccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc", 63, 'D',
		               0, owner("procs-basic", "4244"), 1);
		assert_int_equal(pmaps_procs_rewind(it), 0);
	}
	pmaps_procs_close(it);
	pmaps_procs_close(NULL);
}

static void test_procs_malformed(void **state)
{
	struct pmaps_procs *it = open_tree("procs-malformed");

	(void)state;
	list_procs(it, &seen);
	/* A stat with no "(comm)" is an error for that entry; the next one still comes. */
	assert_int_equal(seen.errors, 1);
	assert_int_equal(seen.last_error, -EBADMSG);
	assert_int_equal(seen.n, 1);
	expect_proc_pp(&seen, 6, "ok", 2, 'S', 0, owner("procs-malformed", "6"), 0);
	pmaps_procs_close(it);
}

static void test_procs_open_errors(void **state)
{
	struct pmaps_procs *it = (void *)1;
	char root[4096];

	(void)state;
	assert_int_equal(pmaps_procs_open(&it, "/nonexistent-pmaps"), -ENOENT);
	assert_null(it);
	snprintf(root, sizeof(root), "%s/procs-basic/proc/77", PMAPS_TEST_DATA);
	assert_int_equal(pmaps_procs_open(&it, root), -ENOTDIR);
	assert_null(it);
}

/* A child named NAME, stopped: it stays listed, in state T, until killed. */
static pid_t stopped_child(const char *name)
{
	pid_t pid = fork();
	int st;

	assert_int_not_equal(pid, -1);
	if (pid == 0) {
		prctl(PR_SET_NAME, name, 0, 0, 0);
		raise(SIGSTOP);
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &st, WUNTRACED), pid);
	assert_true(WIFSTOPPED(st));
	return pid;
}

static int tid_pipe[2], stop_pipe[2];
static int thread_tid;

/* Says its tid, then waits for the stop pipe's write end to close. */
static void *thread_main(void *arg)
{
	int tid = (int)gettid();
	char c;

	(void)arg;
	if (write(tid_pipe[1], &tid, sizeof(tid)) != sizeof(tid))
		return NULL;
	while (read(stop_pipe[0], &c, 1) > 0)
		;
	return NULL;
}

static void test_procs_live(void **state)
{
	struct pmaps_procs *it;
	pthread_t th;
	const char *name = "pm x) (\ny";
	pid_t child;
	unsigned long opened;

	(void)state;
	child = stopped_child(name);
	assert_int_equal(pipe(tid_pipe), 0);
	assert_int_equal(pipe(stop_pipe), 0);
	assert_int_equal(pthread_create(&th, NULL, thread_main, NULL), 0);
	assert_int_equal(read(tid_pipe[0], &thread_tid, sizeof(thread_tid)), sizeof(thread_tid));
	pmaps_set_allocator(count_alloc, count_free, NULL);
	assert_int_equal(pmaps_procs_open(&it, NULL), 0);
	opened = allocs;
	list_procs(it, &seen);
	assert_int_equal(seen.errors, 0);
	/* This process, by its name (the executable's) and effective uid. */
	expect_proc_pp(&seen, getpid(), "test_procs", 10, 'R', 0, geteuid(), (int)getppid());
	/* The child's parent is this process: the link --children follows. */
	expect_proc_pp(&seen, child, name, strlen(name), 'T', 0, geteuid(), (int)getpid());
	/* A thread is no process: its tid is not listed. */
	if (find(&seen, thread_tid))
		fail_msg("thread %d of process %d listed as a process", thread_tid, (int)getpid());
	/* Gone: the next listing does not have it. */
	kill(child, SIGKILL);
	assert_int_equal(waitpid(child, NULL, 0), child);
	assert_int_equal(pmaps_procs_rewind(it), 0);
	list_procs(it, &seen);
	assert_null(find(&seen, child));
	expect_proc_pp(&seen, getpid(), "test_procs", 10, 'R', 0, geteuid(), (int)getppid());
	/* Listing and rewinding allocated nothing. */
	assert_int_equal(allocs, opened);
	pmaps_procs_close(it);
	pmaps_set_allocator(NULL, NULL, NULL);
	close(stop_pipe[1]); /* the thread's read ends */
	assert_int_equal(pthread_join(th, NULL), 0);
	close(stop_pipe[0]);
	close(tid_pipe[0]);
	close(tid_pipe[1]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dir_lists_and_rewinds),
		cmocka_unit_test(test_dir_small_buffer),
		cmocka_unit_test(test_dir_missing),
		cmocka_unit_test(test_dir_faults),
		cmocka_unit_test(test_parse_stat),
		cmocka_unit_test(test_procs_fixture),
		cmocka_unit_test(test_procs_malformed),
		cmocka_unit_test(test_procs_open_errors),
		cmocka_unit_test(test_procs_live),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
