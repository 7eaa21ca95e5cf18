/* SPDX-License-Identifier: MIT */
/*
 * run.c - the child `pmaps run` starts, and its end: CMD found and started
 * the way a shell does (fork, then execvp() in the child), the malloc
 * helper preloaded into it, the signals passed on, CMD reaped.
 *
 * Its standard streams and the terminal are CMD's; pmaps ignores SIGINT,
 * SIGQUIT (as time(1) does) and SIGPIPE while it runs and passes SIGTERM and
 * SIGHUP on until CMD is reaped (not those ignored when pmaps started: CMD
 * gets the dispositions and mask pmaps started with), and exits with CMD's
 * status once it started (128 + the signal that killed it). A pipe
 * closed on exec tells pmaps that CMD runs, so the first sample is never of
 * pmaps's own forked copy; an exec that fails comes back on it as the
 * errno: 127 for a command not found, 126 for one found but not executable.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <elf.h>

#include "common/tool.h"
#include "watch/watch_loop.h"

static volatile sig_atomic_t run_child; /* the pid SIGTERM and SIGHUP go on to; 0 once reaped */

static void pass_on(int sig)
{
	if (run_child > 0)
		kill((pid_t)run_child, sig);
}

/* The signals run changes, as they were when pmaps started (restored in CMD and at the end). */
static const int run_sigs[] = {SIGINT, SIGQUIT, SIGTERM, SIGHUP, SIGPIPE, SIGCHLD};
#define RUN_NSIGS (sizeof(run_sigs) / sizeof(run_sigs[0]))

int run_reap(pid_t pid, int *status, struct rusage *ru)
{
	sigset_t fwd, old;
	siginfo_t si;
	int r;

	/*
	 * Until the child is reaped its pid is its own (a zombie's too), so
	 * SIGTERM and SIGHUP go on to it while pmaps waits; the forwarding pid
	 * is cleared with those two blocked, before the wait that frees the pid.
	 */
	do {
		memset(&si, 0, sizeof(si));
		r = waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT);
	} while (r < 0 && errno == EINTR);
	sigemptyset(&fwd);
	sigaddset(&fwd, SIGTERM);
	sigaddset(&fwd, SIGHUP);
	sigprocmask(SIG_BLOCK, &fwd, &old);
	run_child = 0;
	do
		r = (int)wait4(pid, status, 0, ru);
	while (r < 0 && errno == EINTR);
	sigprocmask(SIG_SETMASK, &old, NULL);
	return r < 0 ? -errno : 0;
}

/*
 * The child: each signal run changed back to what it was when pmaps
 * started (one ignored then stays ignored, as under nohup; a handler is
 * the default after the exec), the signal mask pmaps started with, then
 * CMD. An exec that fails writes its errno to FD (closed on a successful
 * exec) and exits 127.
 */
__attribute__((noreturn)) static void child_exec(char **argv, int fd,
                                                 const struct sigaction *was,
                                                 const sigset_t *mask, char **envp)
{
	struct sigaction sa;
	int e;

	memset(&sa, 0, sizeof(sa));
	for (size_t i = 0; i < RUN_NSIGS; i++) {
		sa.sa_handler = was[i].sa_handler == SIG_IGN ? SIG_IGN : SIG_DFL;
		sigaction(run_sigs[i], &sa, NULL);
	}
	sigprocmask(SIG_SETMASK, mask, NULL);
	if (envp) /* run's malloc helper: CMD's environment made before the fork */
		execvpe(argv[0], argv, envp);
	else
		execvp(argv[0], argv);
	e = errno;
	if (write(fd, &e, sizeof(e)) < 0)
		_exit(127);
	_exit(127);
}

/* ---- run's malloc helper (libpmaps-malloc.so, malloc_helper.c; books_malloc.c reads it) ---- */

#ifndef PMAPS_MALLOC_HELPER
#define PMAPS_MALLOC_HELPER ""
#define PMAPS_MALLOC_HELPER_REL ""
#endif

/*
 * What run gives CMD for its malloc's books: one end of a socketpair
 * (FD[1], passed on; FD[0] pmaps's, closed on exec) and an environment
 * with the helper first in LD_PRELOAD and PMAPS_MALLOC_FD, made before the
 * fork (the child only sets FD[1] open across its exec). ENV NULL: CMD gets
 * pmaps's environment and no helper (--no-books, or WHY says why not).
 */
struct run_malloc {
	int fd[2];
	char **env;
	char *preload, *fdvar;
	char why[200];
};

/* DIR/NAME (NAME alone when DIR is "") into PATH: 1 when it is a regular file, else 0. */
static int helper_at(char *path, size_t size, const char *dir, const char *name)
{
	struct stat st;
	int n = snprintf(path, size, "%s%s%s", dir, *dir ? "/" : "", name);

	return n > 0 && (size_t)n < size && *name && stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/*
 * The helper: next to pmaps (the build tree), LIBDIR/pmaps under the
 * directory above pmaps's (an install moved with --prefix), or where it was
 * installed. Returns 0 with PATH, or -1.
 */
static int helper_find(char *path, size_t size)
{
	char exe[4096], *slash;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n > 0 && exe[0] == '/') {
		exe[n] = '\0';
		if ((slash = strrchr(exe, '/')) != NULL) {
			*slash = '\0';
			if (helper_at(path, size, exe, "libpmaps-malloc.so"))
				return 0;
			if ((slash = strrchr(exe, '/')) != NULL) {
				*slash = '\0';
				if (helper_at(path, size, exe, PMAPS_MALLOC_HELPER_REL))
					return 0;
			}
		}
	}
	return helper_at(path, size, "", PMAPS_MALLOC_HELPER) ? 0 : -1;
}

/*
 * CMD as execvp() would find it (a name with '/' as it is, else the first
 * executable regular file of that name in PATH) into PATH. 0, or -1.
 */
static int cmd_path(char *path, size_t size, const char *cmd)
{
	const char *dirs = getenv("PATH"), *p, *e;
	struct stat st;

	if (strchr(cmd, '/'))
		return snprintf(path, size, "%s", cmd) < (int)size ? 0 : -1;
	if (!dirs)
		dirs = "/bin:/usr/bin";
	for (p = dirs;; p = e + 1) {
		size_t n;
		e = strchr(p, ':');
		n = e ? (size_t)(e - p) : strlen(p);
		if (snprintf(path, size, "%.*s%s%s", (int)n, p, n ? "/" : "", cmd) < (int)size &&
		    stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0)
			return 0;
		if (!e)
			return -1;
	}
}

/*
 * Whether the helper can enter CMD, and CMD alone: a dynamically linked ELF
 * program (one with an interpreter, ld.so, which honours LD_PRELOAD), not
 * set-user-ID or set-group-ID (ld.so would drop the preload but leave the
 * socket and its variable to CMD's children); for a script, its interpreter
 * likewise (one level). A static CMD never loads the helper and would pass
 * both on to a dynamic child. Returns 1, or 0 with WHY; -1 when CMD is not
 * found or readable (its exec then fails as it would).
 */
static int cmd_dynamic(const char *cmd, char *why, size_t whysz, int depth)
{
	char path[4096];
	unsigned char buf[4096];
	struct stat st;
	ssize_t n;
	int fd;

	if (cmd_path(path, sizeof(path), cmd) < 0)
		return -1;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return -1;
	}
	n = pread(fd, buf, sizeof(buf), 0);
	if (n >= 4 && buf[0] == '#' && buf[1] == '!' && depth == 0) {
		/* #!INTERPRETER [ARG]: the interpreter is what runs */
		char interp[256];
		size_t i = 2, k = 0;
		close(fd);
		while (i < (size_t)n && (buf[i] == ' ' || buf[i] == '\t'))
			i++;
		while (i < (size_t)n && buf[i] != ' ' && buf[i] != '\t' && buf[i] != '\n' &&
		       k + 1 < sizeof(interp))
			interp[k++] = (char)buf[i++];
		interp[k] = '\0';
		if (interp[0] != '/')
			return -1;
		return cmd_dynamic(interp, why, whysz, 1);
	}
	if (st.st_mode & (S_ISUID | S_ISGID)) {
		close(fd);
		snprintf(why, whysz, "the command is set-user-ID or set-group-ID: the helper is not "
		         "put in it (ld.so would not load it, and its children would get the rest)");
		return 0;
	}
	if (n < (ssize_t)sizeof(Elf64_Ehdr) || memcmp(buf, ELFMAG, SELFMAG) != 0 ||
	    buf[EI_CLASS] != ELFCLASS64) {
		close(fd);
		return -1; /* no 64-bit ELF program: nothing a preload is known to enter */
	}
	{
		Elf64_Ehdr eh;
		memcpy(&eh, buf, sizeof(eh));
		if (eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phnum > 256) {
			close(fd);
			return -1;
		}
		for (unsigned i = 0; i < eh.e_phnum; i++) {
			Elf64_Phdr ph;
			if (pread(fd, &ph, sizeof(ph), (off_t)(eh.e_phoff + (uint64_t)i * sizeof(ph))) !=
			    (ssize_t)sizeof(ph))
				break;
			if (ph.p_type == PT_INTERP) {
				close(fd);
				return 1;
			}
		}
	}
	close(fd);
	snprintf(why, whysz, "the command is statically linked: no helper can enter it (nor is "
	         "one put in its children)");
	return 0;
}

/* Sets RM up for CMD (nothing with --no-books); what fails leaves the why in O->books. */
static void run_malloc_prepare(struct run_malloc *rm, struct watch_opts *o)
{
	char path[4096];
	const char *old = getenv("LD_PRELOAD");
	size_t n = 0, k = 0;
	int e;

	memset(rm, 0, sizeof(*rm));
	rm->fd[0] = rm->fd[1] = -1;
	if (o->books.off || !o->books.malloc_books)
		return;
	o->books.malloc_why = rm->why;
	if (cmd_dynamic(o->cmd, rm->why, sizeof(rm->why), 0) == 0)
		return;
	if (helper_find(path, sizeof(path)) < 0) {
		snprintf(rm->why, sizeof(rm->why),
		         "no libpmaps-malloc.so next to pmaps nor in %s: pmaps run preloads it to "
		         "read malloc's books",
		         PMAPS_MALLOC_HELPER);
		return;
	}
	/* LD_PRELOAD's separators: such a path would name other files. */
	if (strpbrk(path, ": \t\n")) {
		snprintf(rm->why, sizeof(rm->why),
		         "the helper's path has a ':' or a blank, which LD_PRELOAD cannot carry");
		return;
	}
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, rm->fd) < 0)
		goto fail;
	/* Each answer then says which process sent it: CMD's alone count. */
	if (setsockopt(rm->fd[0], SOL_SOCKET, SO_PASSCRED, &(int){1}, sizeof(int)) < 0)
		goto fail;
	/* Not among CMD's standard streams, were one of them closed when pmaps started. */
	for (int i = 0; i < 2; i++) {
		if (rm->fd[i] < 3) {
			int d = fcntl(rm->fd[i], F_DUPFD_CLOEXEC, 3);
			if (d < 0)
				goto fail;
			close(rm->fd[i]);
			rm->fd[i] = d;
		}
	}
	while (environ && environ[n])
		n++;
	rm->env = calloc(n + 3, sizeof(*rm->env));
	if (!rm->env ||
	    asprintf(&rm->preload, "LD_PRELOAD=%s%s%s", path, old && *old ? ":" : "",
	             old && *old ? old : "") < 0 ||
	    asprintf(&rm->fdvar, "PMAPS_MALLOC_FD=%d", rm->fd[1]) < 0) {
		rm->preload = rm->fdvar = NULL;
		errno = ENOMEM;
		goto fail;
	}
	for (size_t i = 0; i < n; i++)
		if (strncmp(environ[i], "LD_PRELOAD=", 11) != 0 &&
		    strncmp(environ[i], "PMAPS_MALLOC_FD=", 16) != 0)
			rm->env[k++] = environ[i];
	rm->env[k++] = rm->preload;
	rm->env[k++] = rm->fdvar;
	rm->env[k] = NULL;
	o->books.malloc_why = NULL;
	return;
fail:
	e = errno;
	snprintf(rm->why, sizeof(rm->why), "the helper's socket: %s", strerror(e));
	free(rm->env);
	free(rm->preload);
	free(rm->fdvar);
	rm->env = NULL;
	rm->preload = rm->fdvar = NULL;
	for (int i = 0; i < 2; i++)
		if (rm->fd[i] >= 0)
			close(rm->fd[i]);
	rm->fd[0] = rm->fd[1] = -1;
}

/* In the child, after the fork: CMD's end open across the exec (async-signal-safe). */
static void run_malloc_child(const struct run_malloc *rm)
{
	if (rm->env)
		fcntl(rm->fd[1], F_SETFD, 0);
}

/* In pmaps after the fork: CMD's end closed, the environment freed; RUNS: CMD started. */
static void run_malloc_parent(struct run_malloc *rm, struct watch_opts *o, int runs)
{
	if (rm->fd[1] >= 0)
		close(rm->fd[1]);
	rm->fd[1] = -1;
	free(rm->env);
	free(rm->preload);
	free(rm->fdvar);
	rm->env = NULL;
	rm->preload = rm->fdvar = NULL;
	if (runs && rm->fd[0] >= 0) {
		o->books.malloc_fd = rm->fd[0];
		return;
	}
	if (rm->fd[0] >= 0)
		close(rm->fd[0]);
	rm->fd[0] = -1;
}

/* Once watched: the helper sees end of file and its thread ends. */
static void run_malloc_end(struct run_malloc *rm, struct watch_opts *o)
{
	if (rm->fd[0] >= 0)
		close(rm->fd[0]);
	rm->fd[0] = -1;
	o->books.malloc_fd = -1;
}

/* ---- end of run's malloc helper ---- */

/* The sink run writes to: --output, or standard error. Returns the fd, or -1 with the message. */
static int run_sink(const char *path)
{
	int fd;

	if (!path)
		return STDERR_FILENO;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOCTTY, 0666);
	if (fd < 0)
		die_msg("--output '%s': %s", path, strerror(errno));
	return fd;
}

int run_start(struct watch_opts *o, char **argv, const char *output)
{
	struct sigaction sa, was[RUN_NSIGS];
	sigset_t block, mask;
	struct run_malloc rm;
	int rc, pfd[2], e = 0, fd;
	ssize_t got;
	pid_t pid;

	o->run = 1;
	o->books.run = 1;
	o->cmd = argv[0];
	/* What can fail before CMD starts, fails before it starts. */
	fd = run_sink(output);
	if (fd < 0)
		return EXIT_FAIL;
	o->out_fd = fd;
	rc = watch_prepare(o);
	if (rc != 0) {
		if (fd != STDERR_FILENO)
			close(fd);
		return rc;
	}
	if (pipe2(pfd, O_CLOEXEC) < 0) {
		die_msg("run: pipe: %s", strerror(errno));
		watch_unprepare(o);
		if (fd != STDERR_FILENO)
			close(fd);
		return EXIT_FAIL;
	}
	/*
	 * The dispositions as pmaps found them, then the signals blocked across
	 * the fork until pmaps's own are in place: a Ctrl-C or SIGTERM in
	 * between would kill pmaps and leave CMD running. SIGCHLD to the
	 * default first: one inherited as ignored would have the kernel reap
	 * CMD and lose its status.
	 */
	for (size_t i = 0; i < RUN_NSIGS; i++)
		sigaction(run_sigs[i], NULL, &was[i]);
	sigemptyset(&block);
	for (size_t i = 0; i < RUN_NSIGS; i++)
		sigaddset(&block, run_sigs[i]);
	sigprocmask(SIG_BLOCK, &block, &mask);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	sigaction(SIGCHLD, &sa, NULL);
	run_malloc_prepare(&rm, o); /* malloc's books: the helper, unless --no-books */
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		close(pfd[0]);
		run_malloc_child(&rm);
		child_exec(argv, pfd[1], was, &mask, rm.env);
	}
	o->books.malloc_pid = (int)pid;
	run_malloc_parent(&rm, o, pid > 0);
	if (pid < 0) {
		e = errno;
		sigaction(SIGCHLD, &was[RUN_NSIGS - 1], NULL);
		sigprocmask(SIG_SETMASK, &mask, NULL);
		die_msg("run: fork: %s", strerror(e));
		close(pfd[0]);
		close(pfd[1]);
		watch_unprepare(o);
		if (fd != STDERR_FILENO)
			close(fd);
		return EXIT_FAIL;
	}
	close(pfd[1]);
	/* As time(1): the terminal's Ctrl-C and Ctrl-\ are CMD's to take. */
	sa.sa_handler = SIG_IGN;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGQUIT, &sa, NULL);
	/* A reader that goes away is an EPIPE: pmaps stops writing and waits for CMD. */
	sigaction(SIGPIPE, &sa, NULL);
	run_child = pid;
	/* SIGTERM and SIGHUP go on to CMD, unless pmaps started with them ignored (nohup). */
	sa.sa_handler = pass_on;
	if (was[2].sa_handler != SIG_IGN)
		sigaction(SIGTERM, &sa, NULL);
	if (was[3].sa_handler != SIG_IGN)
		sigaction(SIGHUP, &sa, NULL);
	sigprocmask(SIG_SETMASK, &mask, NULL);
	do
		got = read(pfd[0], &e, sizeof(e));
	while (got < 0 && errno == EINTR);
	close(pfd[0]);
	if (got == (ssize_t)sizeof(e)) {
		int status;
		run_malloc_end(&rm, o);
		struct rusage ru;
		run_reap(pid, &status, &ru);
		watch_unprepare(o);
		if (fd != STDERR_FILENO)
			close(fd);
		struct stat st;
		if (e == ENOENT && !strchr(o->cmd, '/')) {
			die_msg("run: %s: command not found", o->cmd); /* PATH's lookup found none */
			rc = 127;
		} else if (e == ENOENT) {
			die_msg("run: %s: %s", o->cmd, strerror(e)); /* as a shell: a path is not looked up */
			rc = 127;
		} else if (e == EACCES && strchr(o->cmd, '/') && stat(o->cmd, &st) == 0 &&
		           S_ISDIR(st.st_mode)) {
			die_msg("run: %s: %s", o->cmd, strerror(EISDIR));
			rc = 126;
		} else {
			die_msg("run: %s: %s", o->cmd, strerror(e));
			rc = 126;
		}
	} else {
		/* CMD runs (the pipe closed on its exec): watch it. */
		o->child = pid;
		rc = watch_pid(o);
		run_malloc_end(&rm, o);
	}
	run_child = 0;
	for (size_t i = 0; i < RUN_NSIGS; i++)
		sigaction(run_sigs[i], &was[i], NULL);
	return rc;
}
