/* SPDX-License-Identifier: MIT */
/*
 * books_jvm.c - asking a JVM for its books: jcmd PID GC.heap_info and
 * VM.native_memory summary scale=b, run as the JVM's own user, bounded in
 * time and in output, their text parsed by the library (pmaps_books_parse(),
 * which documents both).
 *
 * jcmd attaches by sending the process SIGQUIT when it has no attach
 * socket yet: a JVM starts its attach listener, anything else dies. So it
 * is run only where pmaps_books_jvm_attach() allows: a live HotSpot JVM,
 * not stopped, not one its signal would harm.
 *
 * Every byte of jcmd's output is the target's to choose (a JVM answers
 * through its attach socket): at most JVM_OUT_CAP bytes of it are read
 * (more is an error), its standard error kept to JVM_ERR_CAP for a why.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "books/books.h"
#include "common/num.h"

/* The most of jcmd's standard output read: its summaries are a few KiB. */
#define JVM_OUT_CAP (1u << 20)
/* What of its standard error is kept for a why (the rest is read and dropped). */
#define JVM_ERR_CAP 1024u

/* ---- running jcmd ---- */

/* What one jcmd run gave. */
struct jrun {
	char *out;       /* standard output: JVM_OUT_CAP + 1 bytes, the caller's */
	size_t len;
	char err[JVM_ERR_CAP];
	size_t errlen;
	int status;      /* the exit status when EXITED; 128 + signal; -errno when it was lost */
	int exited;
	int timed_out, too_big;
	const struct books_opts *o; /* its quit: a watch that ends cuts the run short, as a timeout */
	int fail_errno;  /* the child's errno before exec (FAIL_STAGE says where), or 0 */
	int fail_stage;  /* 1 setgroups, 2 setgid, 3 setuid, 4 exec */
};

/* JCMD on PATH (absolute directories only: pmaps may run as root), into DST. */
static int find_jcmd(char *dst, size_t dstsz)
{
	const char *path = getenv("PATH"), *p, *colon;
	struct stat st;

	if (!path || !*path)
		path = "/usr/bin:/bin";
	for (p = path; *p; p = colon + 1) {
		size_t n;
		colon = strchr(p, ':');
		if (!colon)
			colon = p + strlen(p);
		n = (size_t)(colon - p);
		if (n > 0 && p[0] == '/' && n + sizeof("/jcmd") <= dstsz) {
			memcpy(dst, p, n);
			memcpy(dst + n, "/jcmd", sizeof("/jcmd"));
			if (stat(dst, &st) == 0 && S_ISREG(st.st_mode) && access(dst, X_OK) == 0)
				return 0;
		}
		if (!*colon)
			break;
	}
	return -1;
}

/*
 * The target's state letter and effective uid and gid from /proc/PID/status.
 * Returns 0, or a negative errno.
 */

/* The child: jcmd ARGV as UID/GID (DROP), standard streams on the pipes, its errors on REP. */
static void jcmd_child(char *const argv[], int drop, uid_t uid, gid_t gid, int out, int err,
                       int rep)
{
	static char *const envp[] = {"PATH=/usr/bin:/bin", "LC_ALL=C", NULL};
	struct sigaction sa;
	sigset_t none;
	int fd, e[2];

	setpgid(0, 0);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	for (int s = 1; s < 32; s++)
		if (s != SIGKILL && s != SIGSTOP)
			sigaction(s, &sa, NULL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	fd = open("/dev/null", O_RDONLY);
	if (fd < 0 || dup2(fd, 0) < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0)
		goto fail_exec;
	if (chdir("/") < 0)
		goto fail_exec;
	if (drop) {
		if (setgroups(0, NULL) < 0) {
			e[0] = 1;
			goto fail;
		}
		if (setgid(gid) < 0) {
			e[0] = 2;
			goto fail;
		}
		if (setuid(uid) < 0) {
			e[0] = 3;
			goto fail;
		}
	}
	/* every other descriptor pmaps holds stays out of jcmd (REP closes at exec) */
	if ((rep > 3 && close_range(3, (unsigned)rep - 1, 0) < 0) ||
	    close_range((unsigned)rep + 1, ~0u, 0) < 0)
		for (int i = 3; i < 4096; i++)
			if (i != rep)
				close(i);
	execve(argv[0], argv, envp);
fail_exec:
	e[0] = 4;
fail:
	e[1] = errno;
	if (write(rep, e, sizeof(e)) < 0) {
		/* nothing more to say */
	}
	_exit(127);
}

/* Reads what is ready on FD into DST (CAP, *LEN so far; past it, read and dropped). 0 at EOF. */
static int drain(int fd, char *dst, size_t cap, size_t *len)
{
	char scratch[4096];
	ssize_t n;

	if (*len < cap)
		n = read(fd, dst + *len, cap - *len);
	else
		n = read(fd, scratch, sizeof(scratch));
	if (n < 0)
		return errno == EINTR || errno == EAGAIN ? 1 : -errno;
	if (n == 0)
		return 0;
	if (*len < cap)
		*len += (size_t)n;
	return 1;
}

static void kill_wait(pid_t pid)
{
	int st;

	kill(-pid, SIGKILL);
	kill(pid, SIGKILL);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
}

/*
 * Runs ARGV (jcmd) as UID/GID when DROP, bounded by TIMEOUT_MS and by
 * JVM_OUT_CAP bytes of output, into R. Returns 0 when it ran to its end
 * (R says how), or a negative errno when it could not be started.
 */
static int run_jcmd_reaped(char *const argv[], int drop, uid_t uid, gid_t gid,
                           unsigned timeout_ms, struct jrun *r)
{
	int out[2], err[2], rep[2], e[2], open_out = 1, open_err = 1, st;
	uint64_t deadline = now_ns() + (uint64_t)timeout_ms * 1000000u;
	ssize_t n;
	pid_t pid;

	r->len = r->errlen = 0;
	r->status = r->exited = r->timed_out = r->too_big = r->fail_errno = r->fail_stage = 0;
	if (pipe2(out, O_CLOEXEC) < 0)
		return -errno;
	if (pipe2(err, O_CLOEXEC) < 0) {
		int x = errno;
		close(out[0]), close(out[1]);
		return -x;
	}
	if (pipe2(rep, O_CLOEXEC) < 0) {
		int x = errno;
		close(out[0]), close(out[1]), close(err[0]), close(err[1]);
		return -x;
	}
	pid = fork();
	if (pid == 0) {
		close(out[0]), close(err[0]), close(rep[0]);
		jcmd_child(argv, drop, uid, gid, out[1], err[1], rep[1]);
	}
	close(out[1]), close(err[1]), close(rep[1]);
	if (pid < 0) {
		int x = errno;
		close(out[0]), close(err[0]), close(rep[0]);
		return -x;
	}
	/* the child's word before exec: nothing (EOF) when exec worked */
	while ((n = read(rep[0], e, sizeof(e))) < 0 && errno == EINTR)
		;
	close(rep[0]);
	if (n == (ssize_t)sizeof(e)) {
		r->fail_stage = e[0];
		r->fail_errno = e[1];
		close(out[0]), close(err[0]);
		kill_wait(pid);
		return 0;
	}
	while (open_out || open_err) {
		struct pollfd pf[2];
		uint64_t now = now_ns();
		int np = 0, k, ms;

		if (now >= deadline || (r->o && books_quit(r->o))) {
			r->timed_out = 1;
			break;
		}
		ms = (int)((deadline - now + 999999u) / 1000000u);
		if (r->o && r->o->quit && ms > 100)
			ms = 100; /* a look at quit ten times a second */
		if (open_out)
			pf[np++] = (struct pollfd){.fd = out[0], .events = POLLIN};
		if (open_err)
			pf[np++] = (struct pollfd){.fd = err[0], .events = POLLIN};
		k = poll(pf, (nfds_t)np, ms);
		if (k < 0 && errno != EINTR)
			break;
		for (int i = 0; k > 0 && i < np; i++) {
			int d;
			if (!pf[i].revents)
				continue;
			if (pf[i].fd == out[0]) {
				d = drain(out[0], r->out, JVM_OUT_CAP + 1, &r->len);
				if (r->len > JVM_OUT_CAP) {
					r->too_big = 1;
					d = 0, open_err = 0;
				}
				if (d <= 0)
					open_out = 0;
			} else {
				d = drain(err[0], r->err, sizeof(r->err), &r->errlen);
				if (d <= 0)
					open_err = 0;
			}
		}
		if (r->too_big)
			break;
	}
	close(out[0]), close(err[0]);
	if (r->timed_out || r->too_big || open_out || open_err) {
		kill_wait(pid);
		return 0;
	}
	/* both streams ended: the end of jcmd itself, within what is left of the time */
	for (;;) {
		pid_t w = waitpid(pid, &st, WNOHANG);
		if (w == pid)
			break;
		if (w < 0 && errno != EINTR) {
			r->status = -errno; /* ECHILD: reaped by someone else, its status lost */
			kill_wait(pid);
			return 0;
		}
		if (now_ns() >= deadline) {
			r->timed_out = 1;
			kill_wait(pid);
			return 0;
		}
		nanosleep(&(struct timespec){0, 2000000}, NULL);
	}
	if (WIFEXITED(st)) {
		r->exited = 1;
		r->status = WEXITSTATUS(st);
	} else {
		r->status = WIFSIGNALED(st) ? 128 + WTERMSIG(st) : 255;
	}
	return 0;
}

/*
 * run_jcmd_reaped() with SIGCHLD not ignored: a pmaps started with SIGCHLD
 * ignored (SIG_IGN or SA_NOCLDWAIT, which exec keeps) would have the kernel
 * reap jcmd and lose its exit status. Set to the default for the run, and
 * back: no handler is replaced, an ignored signal has none.
 */
/*
 * jcmd makes .attach_pidPID in the JVM's working directory (or /tmp) to ask
 * it to attach, and removes it once attached; killed before that it cannot.
 * So after a jcmd pmaps killed, the file it left goes too: only an empty
 * regular file of the user jcmd ran as, never through a symlink, so that
 * nothing of pmaps's stays behind in the target's directory.
 */
static void attach_file_gone(int pid, uid_t uid)
{
	char name[40], cwd[64];
	const char *dirs[2];

	snprintf(name, sizeof(name), ".attach_pid%d", pid);
	snprintf(cwd, sizeof(cwd), "/proc/%d/cwd", pid);
	dirs[0] = cwd;
	dirs[1] = "/tmp";
	for (int i = 0; i < 2; i++) {
		struct stat st;
		int d = open(dirs[i], O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (d < 0)
			continue;
		if (fstatat(d, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) &&
		    st.st_size == 0 && st.st_uid == uid)
			unlinkat(d, name, 0);
		close(d);
	}
}

static int run_jcmd(char *const argv[], int pid, int drop, uid_t uid, gid_t gid,
                    unsigned timeout_ms, struct jrun *r)
{
	struct sigaction was, dfl;
	int ignored, rc;

	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	ignored = sigaction(SIGCHLD, NULL, &was) == 0 &&
	          (was.sa_handler == SIG_IGN || (was.sa_flags & SA_NOCLDWAIT));
	if (ignored)
		sigaction(SIGCHLD, &dfl, NULL);
	rc = run_jcmd_reaped(argv, drop, uid, gid, timeout_ms, r);
	if (ignored)
		sigaction(SIGCHLD, &was, NULL);
	if (rc == 0 && (r->timed_out || r->too_big))
		attach_file_gone(pid, drop ? uid : geteuid());
	return rc;
}

/*
 * Why the run R of "jcmd PID CMD" gave nothing to parse, into WHY; 0 when
 * it ran and exited 0 (its output is to be parsed), -1 when not.
 */
static int run_why(const struct jrun *r, const char *jcmd, const char *cmd, int pid,
                   unsigned timeout_ms, int other_mntns, char *why, size_t whysz)
{
	static const char *const stage[] = {"", "setgroups", "setgid", "setuid", "exec"};

	if (r->fail_stage) {
		snprintf(why, whysz, "could not run %s (%s: %s)", jcmd,
		         stage[r->fail_stage >= 1 && r->fail_stage <= 4 ? r->fail_stage : 4],
		         strerror(r->fail_errno));
		return -1;
	}
	if (r->timed_out) {
		snprintf(why, whysz, "jcmd %d %s did not answer within %u ms (--books-timeout)", pid,
		         cmd, timeout_ms);
		return -1;
	}
	if (r->too_big) {
		snprintf(why, whysz, "jcmd %d %s wrote more than %u bytes: not read", pid, cmd,
		         JVM_OUT_CAP);
		return -1;
	}
	if (r->exited && r->status == 0)
		return 0;
	if (r->status < 0) {
		snprintf(why, whysz, "jcmd %d %s: its exit status was lost (%s)", pid, cmd,
		         strerror(-r->status));
		return -1;
	}
	pmaps_books_jcmd_failed(pid, cmd, r->status, r->err, r->errlen, r->out, r->len, other_mntns,
	                        why, whysz);
	return -1;
}


/* The head of BOOK in B: asked, its source, and a why until it is read. */
static struct pmaps_book_head *jvm_head(struct pmaps_books *b, enum pmaps_book book, int pid,
                                        const char *cmd)
{
	struct pmaps_book_head *h = &b->head[book];

	/* A record read before: nothing of that read stands for this one. */
	h->asked = 1;
	h->ok = 0;
	h->why[0] = '\0';
	snprintf(h->source, sizeof(h->source), "jcmd %d %s", pid, cmd);
	return h;
}

/*
 * Runs ARGV ("jcmd PID CMD") into R and parses its output as BOOK into B:
 * 1 when it ran (parsed or not), 0 when jcmd did not answer (an attach that
 * failed, a timeout: the other command would fail alike). H's why says.
 */
static int jvm_ask(struct pmaps_books *b, enum pmaps_book book, char *const argv[], const char *cmd,
                   int pid, int drop, const struct pmaps_jvm_attach *a, unsigned timeout,
                   struct jrun *r)
{
	struct pmaps_book_head *h = &b->head[book]; /* asked, its source set: jvm_head() */
	char why[200];
	uint64_t t0 = now_ns();
	int e, ran = 1;

	e = run_jcmd(argv, pid, drop, a->uid, a->gid, timeout, r);
	if (e < 0) {
		snprintf(h->why, sizeof(h->why), "could not start jcmd: %s", strerror(-e));
		ran = 0;
	} else if (run_why(r, argv[0], cmd, pid, timeout, a->other_mntns, h->why,
	                   sizeof(h->why)) < 0) {
		ran = 0;
	} else if (pmaps_books_parse(b, book, r->out, r->len, why, sizeof(why)) < 0) {
		snprintf(h->why, sizeof(h->why), "%s: %s", cmd, why);
	} else {
		h->why[0] = '\0';
	}
	book_stamp(h, t0);
	return ran;
}

void book_jvm_read(struct pmaps_books *b, const struct books_opts *o, struct pmaps_proc *proc)
{
	char jcmd[4096], pidstr[16], why[PMAPS_BOOK_WHY];
	char *heap_argv[] = {jcmd, "-J-XX:-UsePerfData", "-J-XX:+UseSerialGC",
	                     "-J-XX:TieredStopAtLevel=1", pidstr, "GC.heap_info", NULL};
	char *nmt_argv[] = {jcmd, "-J-XX:-UsePerfData", "-J-XX:+UseSerialGC",
	                    "-J-XX:TieredStopAtLevel=1", pidstr, "VM.native_memory", "summary",
	                    "scale=b", NULL};
	unsigned timeout = o && o->timeout_ms ? o->timeout_ms : BOOKS_TIMEOUT_MS;
	struct pmaps_jvm_attach a = {.size = sizeof(a)};
	int pid = pmaps_proc_pid(proc), drop = 0, e;
	uint64_t t0 = now_ns();
	struct jrun r;

	memset(&r, 0, sizeof(r));
	r.o = o;
	snprintf(pidstr, sizeof(pidstr), "%d", pid);
	jvm_head(b, PMAPS_BOOK_JVM_HEAP, pid, "GC.heap_info");
	jvm_head(b, PMAPS_BOOK_JVM_NMT, pid, "VM.native_memory summary scale=b");
	why[0] = '\0';
	e = pmaps_books_jvm_attach(proc, &a, why, sizeof(why));
	if (e < 0 && !why[0])
		snprintf(why, sizeof(why), "%s", pmaps_strerror(e));
	if (e <= 0)
		goto refused;
	if (find_jcmd(jcmd, sizeof(jcmd)) < 0) {
		snprintf(why, sizeof(why),
		         "jcmd not found on PATH: install a JDK (Debian openjdk-17-jdk-headless)");
		goto refused;
	}
	if (geteuid() == 0) {
		drop = a.uid != 0;
	} else if (a.uid != geteuid()) {
		snprintf(why, sizeof(why), "the JVM runs as uid %u: jcmd attaches only as the JVM's "
		         "user or root", a.uid);
		goto refused;
	}
	r.out = malloc(JVM_OUT_CAP + 1);
	if (!r.out) {
		snprintf(why, sizeof(why), "out of memory");
		goto refused;
	}
	/* GC.heap_info first: it answers with NMT off too; a JVM that did not, fails both. */
	if (jvm_ask(b, PMAPS_BOOK_JVM_HEAP, heap_argv, "GC.heap_info", pid, drop, &a, timeout, &r))
		jvm_ask(b, PMAPS_BOOK_JVM_NMT, nmt_argv, "VM.native_memory summary scale=b", pid, drop,
		        &a, timeout, &r);
	else
		memcpy(b->head[PMAPS_BOOK_JVM_NMT].why, b->head[PMAPS_BOOK_JVM_HEAP].why,
		       sizeof(b->head[PMAPS_BOOK_JVM_NMT].why));
	free(r.out);
	if (!b->head[PMAPS_BOOK_JVM_NMT].end_ns)
		book_stamp(&b->head[PMAPS_BOOK_JVM_NMT], t0);
	return;
refused:
	for (int k = PMAPS_BOOK_JVM_HEAP; k <= PMAPS_BOOK_JVM_NMT; k++) {
		snprintf(b->head[k].why, sizeof(b->head[k].why), "%s", why);
		book_stamp(&b->head[k], t0);
	}
}
