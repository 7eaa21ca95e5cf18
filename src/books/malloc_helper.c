/* SPDX-License-Identifier: MIT */
/*
 * malloc_helper.c - libpmaps-malloc.so, the library `pmaps run` preloads
 * (LD_PRELOAD) into the command it starts, and only there, so that pmaps
 * can ask glibc's malloc for its books: malloc_info()'s XML and
 * mallinfo2()'s keepcost, which only the process itself can read.
 *
 * pmaps run passes one end of a socketpair as PMAPS_MALLOC_FD. The
 * constructor, before the command's main():
 *  - removes PMAPS_MALLOC_FD from the environment and its own path from the
 *    head of LD_PRELOAD (in place: what was there before pmaps run added
 *    it; LD_PRELOAD unset when that was nothing), so neither the command's
 *    children nor a program it exec's ever load the helper;
 *  - checks the descriptor (decimal, a stream socket) and sets FD_CLOEXEC
 *    on it, and closes it in a child the command forks;
 *  - starts one thread (every signal blocked, a small stack) that says
 *    hello, then answers each request byte 'i' and stops at end of file;
 *    and, were it left the process's last thread (the main one ended with
 *    pthread_exit() and the others after it), ends the process as glibc's
 *    last thread would have (exit(0)), within a second.
 *
 * The protocol, every frame a header line and LEN bytes:
 *   "pmaps-malloc 1 n=N keepcost=K len=LEN full=F\n" XML
 * N counts the requests read (0: the hello, with no XML), K is mallinfo2()'s
 * keepcost, F is 1 when malloc_info()'s XML did not fit the helper's buffer
 * (what was sent is cut: pmaps rejects it). Unknown request bytes are
 * ignored.
 *
 * Every allocation the helper makes is one the books it reports count, so
 * it makes them once, at start: the FILE malloc_info() writes to
 * (fopencookie(), unbuffered, over a buffer of its own from mmap(), not
 * malloc) and what pthread_create() allocates for the thread (its DTV). A
 * request allocates nothing, and the thread never calls malloc itself, so
 * glibc gives it no arena. The XML goes to memory first and to the socket
 * after: malloc_info() takes each arena's lock, and a socket pmaps is slow
 * to read must never hold one.
 *
 * Nothing is written to the command's standard streams; whatever fails, the
 * helper does nothing more and the command runs as it would without it.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <malloc.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

/* malloc_info()'s XML: pmaps's cap too (books_malloc.c), so nothing larger is ever sent. */
#define HELPER_BUF (4u << 20)
#define HELPER_STACK (128u << 10)

static int helper_fd = -1;
/*
 * The socket's identity: a command that closes the descriptors it inherited
 * (closefrom(3), as daemons do) may get the same number back for a file of
 * its own, which the helper must then never read, write or close. Every use
 * checks the number still names this socket first (a command that closes
 * and reuses the number between that check and the call is the one case
 * left; the number is moved above 511 at start, where few look).
 */
static dev_t helper_dev;
static ino_t helper_ino;

/* 1 when helper_fd still names the helper's socket. */
static int still_ours(void)
{
	struct stat st;

	return helper_fd >= 0 && fstat(helper_fd, &st) == 0 && S_ISSOCK(st.st_mode) &&
	       st.st_dev == helper_dev && st.st_ino == helper_ino;
}
static char *xml;       /* HELPER_BUF bytes, mmap()ed: touched only as far as written */
static size_t xml_len;
static int xml_full;
static FILE *xml_file;

/* fopencookie()'s write: appends to XML; past its end, keeps nothing and says it is full. */
static ssize_t xml_write(void *cookie, const char *buf, size_t n)
{
	size_t room = HELPER_BUF - xml_len, k = n < room ? n : room;

	(void)cookie;
	if (k < n)
		xml_full = 1;
	memcpy(xml + xml_len, buf, k);
	xml_len += k;
	/* All of it taken: malloc_info() runs to its end either way, FULL tells pmaps. */
	return (ssize_t)n;
}

/* Writes N bytes of BUF, across partial writes and EINTR. Returns 0, or -1. */
static int write_all(const char *buf, size_t n)
{
	while (n) {
		ssize_t w;
		if (!still_ours())
			return -1;
		w = send(helper_fd, buf, n, MSG_NOSIGNAL);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		buf += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Decimal V into the end of BUF; returns where its digits start. */
static char *dec(char *end, uint64_t v)
{
	*--end = '\0';
	do
		*--end = (char)('0' + v % 10);
	while (v /= 10);
	return end;
}

/* malloc_info() into XML, mallinfo2()'s keepcost into *KEEPCOST. */
static void books(uint64_t *keepcost)
{
	struct mallinfo2 mi;

	xml_len = 0;
	xml_full = 0;
	clearerr(xml_file);
	if (malloc_info(0, xml_file) != 0 || ferror(xml_file))
		xml_full = 1;
	fflush(xml_file);
	mi = mallinfo2();
	*keepcost = mi.keepcost;
}

/* One frame: the header line, then the XML (N 0: the hello, no XML). */
static int answer(uint64_t n, int with_xml)
{
	char line[128];
	size_t len = 0, k;
	uint64_t keepcost = 0;
	const char *parts[9];

	if (with_xml) {
		books(&keepcost);
		len = xml_len;
	}
	/* No stdio formatting here: the line is put together by hand, on the stack. */
	char nb[24], kb[24], lb[24];
	parts[0] = "pmaps-malloc 1 n=";
	parts[1] = dec(nb + sizeof(nb), n);
	parts[2] = " keepcost=";
	parts[3] = dec(kb + sizeof(kb), keepcost);
	parts[4] = " len=";
	parts[5] = dec(lb + sizeof(lb), len);
	parts[6] = " full=";
	parts[7] = xml_full && with_xml ? "1" : "0";
	parts[8] = "\n";
	k = 0;
	for (size_t i = 0; i < 9; i++) {
		size_t l = strlen(parts[i]);
		if (l > sizeof(line) - k)
			return -1;
		memcpy(line + k, parts[i], l);
		k += l;
	}
	if (write_all(line, k) < 0)
		return -1;
	return len ? write_all(xml, len) : 0;
}

/*
 * 1 when the helper is the process's last thread: the main thread ended
 * with pthread_exit() (a zombie: /proc/self/stat's state Z) and the other
 * threads with it (num_threads 2: the main one and the helper). Without
 * the helper, glibc would have ended the process there, with exit(0).
 * Read with system calls alone, on the stack.
 */
static int helper_alone(void)
{
	char buf[1024], *p, *end;
	ssize_t n;
	int fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC), field = 3;
	unsigned long threads = 0;

	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	end = buf + n;
	/* After the command's name, which may hold ") ": the last one ends it. */
	p = NULL;
	for (char *q = buf; q < end; q++)
		if (*q == ')')
			p = q;
	if (!p || p + 2 >= end || p[2] != 'Z')
		return 0;
	for (p += 2; p < end && field < 20; p++)
		if (*p == ' ')
			field++;
	for (; p < end && *p >= '0' && *p <= '9'; p++)
		threads = threads * 10 + (unsigned long)(*p - '0');
	return field == 20 && threads == 2;
}

static void *helper_main(void *arg)
{
	struct pollfd pf;
	uint64_t n = 0;
	char c;

	(void)arg;
	prctl(PR_SET_NAME, "pmaps-malloc", 0, 0, 0);
	/*
	 * Once for nothing: the pages of the stack and of the buffer a request
	 * touches are touched now, before the command runs much, not in the
	 * middle of what pmaps watches.
	 */
	books(&n);
	n = 0;
	if (answer(0, 0) < 0)
		return NULL;
	for (;;) {
		if (!still_ours())
			goto not_ours;
		pf.fd = helper_fd;
		pf.events = POLLIN;
		pf.revents = 0;
		/* Idle, a look once a second at whether the command's own threads are all gone. */
		int p = poll(&pf, 1, 1000);
		if (p == 0 && helper_alone()) {
			sigset_t none;
			/* As glibc's last thread would: a signal pending for the process first. */
			sigemptyset(&none);
			pthread_sigmask(SIG_SETMASK, &none, NULL);
			exit(0);
		}
		if (p <= 0)
			continue;
		if ((pf.revents & POLLNVAL) || !still_ours())
			goto not_ours; /* the command closed it */
		ssize_t r = read(helper_fd, &c, 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		if (c != 'i')
			continue;
		if (answer(++n, 1) < 0)
			break;
	}
	/* pmaps is gone: the socket too, so that nothing waits on it. */
	if (still_ours())
		close(helper_fd);
not_ours:
	helper_fd = -1;
	return NULL;
}

/* A child the command forks has no helper thread: nor the socket, whose end pmaps reads. */
static void helper_atfork_child(void)
{
	if (still_ours())
		close(helper_fd);
	helper_fd = -1;
}

/*
 * LD_PRELOAD without this library: pmaps run put SELF first, then ':' and
 * what was there before, if anything. Edited in place (no allocation);
 * unset when nothing else was preloaded; left alone when SELF is not first.
 */
static void unpreload(const char *self)
{
	static const char key[] = "LD_PRELOAD=";
	size_t sl = strlen(self);

	for (char **e = environ; e && *e; e++) {
		char *v = *e;
		if (strncmp(v, key, sizeof(key) - 1) != 0)
			continue;
		v += sizeof(key) - 1;
		if (strncmp(v, self, sl) != 0)
			return;
		if (v[sl] == '\0') {
			unsetenv("LD_PRELOAD");
		} else if (v[sl] == ':') {
			size_t rest = strlen(v + sl + 1);
			memmove(v, v + sl + 1, rest + 1);
			memset(v + rest + 1, '\0', sl);
		}
		return;
	}
}

/* PMAPS_MALLOC_FD's value: a descriptor number, decimal, no sign. Returns it, or -1. */
static int parse_fd(const char *s)
{
	long v = 0;

	if (!*s)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || v > (INT_MAX - 9) / 10)
			return -1;
		v = v * 10 + (*s - '0');
	}
	return (int)v;
}

__attribute__((constructor)) static void helper_start(void)
{
	static const cookie_io_functions_t io = {.write = xml_write};
	const char *s = getenv("PMAPS_MALLOC_FD");
	struct stat st;
	pthread_attr_t attr;
	sigset_t all, old;
	pthread_t t;
	Dl_info self;
	int fd, type;
	socklen_t tl = sizeof(type);

	if (!s)
		return;
	fd = parse_fd(s);
	/* First what the command's children must never inherit, whatever follows. */
	unsetenv("PMAPS_MALLOC_FD");
	if (dladdr((void *)helper_start, &self) && self.dli_fname && self.dli_fname[0] == '/')
		unpreload(self.dli_fname);
	if (fd < 3 || fstat(fd, &st) < 0 || !S_ISSOCK(st.st_mode) ||
	    getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &tl) < 0 || type != SOCK_STREAM)
		return;
	if (fcntl(fd, F_SETFD, FD_CLOEXEC) < 0)
		return;
	/* Above the numbers a command uses, where it can: the old one closed. */
	type = fcntl(fd, F_DUPFD_CLOEXEC, 512);
	if (type >= 0) {
		close(fd);
		fd = type;
	}
	helper_dev = st.st_dev;
	helper_ino = st.st_ino;
	xml = mmap(NULL, HELPER_BUF, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
	           -1, 0);
	if (xml == MAP_FAILED) {
		xml = NULL;
		return;
	}
	/* Named for whoever reads the maps (Linux 5.17 with CONFIG_ANON_VMA_NAME; else nothing). */
	prctl(PR_SET_VMA, PR_SET_VMA_ANON_NAME, (unsigned long)xml, HELPER_BUF,
	      (unsigned long)"pmaps-malloc");
	xml_file = fopencookie(NULL, "w", io);
	if (!xml_file || setvbuf(xml_file, NULL, _IONBF, 0) != 0)
		goto undo;
	helper_fd = fd;
	if (pthread_atfork(NULL, NULL, helper_atfork_child) != 0)
		goto undo;
	if (pthread_attr_init(&attr) != 0)
		goto undo;
	pthread_attr_setstacksize(&attr, HELPER_STACK);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	type = pthread_create(&t, &attr, helper_main, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);
	if (type == 0)
		return;
undo:
	/* pmaps sees no hello, then end of file: the helper did not answer. */
	helper_fd = -1;
	if (xml_file)
		fclose(xml_file);
	xml_file = NULL;
	munmap(xml, HELPER_BUF);
	xml = NULL;
	close(fd);
}
