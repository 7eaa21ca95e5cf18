/* SPDX-License-Identifier: MIT */
/*
 * malloc_target.c - a command for `pmaps run` whose malloc state is known
 * (tests/cli/books_malloc.py), never sanitized (ASan's allocator has no
 * glibc arenas): with the mmap threshold fixed at 512 KiB, 256 chunks of
 * 64 KiB, touched, every other one freed (128 holes that cannot merge:
 * 8 MiB free and held by malloc), and 4 chunks of 1 MiB of their own
 * mmap(). Then "ready" on standard output, and on standard input:
 *
 *   m   one line of mallinfo2(): "mallinfo arena=A uordblks=U fordblks=F
 *       fsmblks=S hblks=H hblkhd=D keepcost=K"
 *   s   starts sh, which says what it inherited: "child preload=[...]
 *       fd=[...] helper=N" (N: libpmaps-malloc.so's lines in its maps)
 *   f   a daemon's habit: closes every descriptor from 3 up, then makes a
 *       pipe holding 44 bytes ("i" repeated: the helper's request) and puts
 *       its read end on every number from 3 to 1023, waits 2.5 s and says
 *       how many bytes it reads back: "pipe N" (44: nobody else read them)
 *
 * and at end of file exits with the status given as its argument (0).
 * "malloc_target pexit": no pattern; a thread that ends after 300 ms, and
 * the main thread ended at once with pthread_exit(): the process ends with
 * the thread, status 0.
 * Nothing here allocates after the pattern, but the sh of 's' (fork, and
 * the parent's waitpid): the books stay as the pattern left them.
 */
#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define CHUNK (64u << 10)
#define NCHUNK 256
#define BIG (1u << 20)
#define NBIG 4

static void say(const char *s, size_t n)
{
	while (n) {
		ssize_t w = write(1, s, n);
		if (w <= 0)
			exit(1);
		s += w;
		n -= (size_t)w;
	}
}

static void *linger(void *arg)
{
	struct timespec ts = {0, 300000000};

	(void)arg;
	nanosleep(&ts, NULL);
	return NULL;
}

int main(int argc, char **argv)
{
	static char *chunk[NCHUNK], *big[NBIG];
	char line[512], c;
	int status = argc > 1 ? atoi(argv[1]) : 0;

	if (argc > 1 && strcmp(argv[1], "pexit") == 0) {
		pthread_t t;
		if (pthread_create(&t, NULL, linger, NULL) != 0)
			return 1;
		pthread_exit(NULL);
	}

	/* Fixed: glibc's sliding threshold would move with the frees below. */
	mallopt(M_MMAP_THRESHOLD, 512 << 10);
	mallopt(M_TRIM_THRESHOLD, 256 << 20);
	for (int i = 0; i < NCHUNK; i++) {
		chunk[i] = malloc(CHUNK);
		if (!chunk[i])
			return 1;
		memset(chunk[i], 0x5a, CHUNK);
	}
	for (int i = 0; i < NCHUNK; i += 2)
		free(chunk[i]);
	for (int i = 0; i < NBIG; i++) {
		big[i] = malloc(BIG);
		if (!big[i])
			return 1;
		memset(big[i], 0xa5, BIG);
	}
	say("ready\n", 6);
	while (read(0, &c, 1) == 1) {
		if (c == 'm') {
			struct mallinfo2 mi = mallinfo2();
			int n = snprintf(line, sizeof(line),
			                 "mallinfo arena=%zu uordblks=%zu fordblks=%zu fsmblks=%zu hblks=%zu "
			                 "hblkhd=%zu keepcost=%zu\n",
			                 mi.arena, mi.uordblks, mi.fordblks, mi.fsmblks, mi.hblks, mi.hblkhd,
			                 mi.keepcost);
			say(line, (size_t)n);
		} else if (c == 's') {
			pid_t pid = fork();
			if (pid == 0) {
				execl("/bin/sh", "sh", "-c",
				      "echo \"child preload=[${LD_PRELOAD-unset}] fd=[${PMAPS_MALLOC_FD-unset}] "
				      "helper=$(grep -c libpmaps-malloc /proc/$$/maps)\"",
				      (char *)NULL);
				_exit(127);
			}
			if (pid > 0)
				waitpid(pid, NULL, 0);
		} else if (c == 'f') {
			int p[2], got = 0;
			char buf[64];
			syscall(SYS_close_range, 3u, ~0u, 0u);
			if (pipe(p) < 0)
				return 1;
			memset(buf, 'i', 44);
			if (write(p[1], buf, 44) != 44)
				return 1;
			close(p[1]);
			for (int fd = 3; fd < 1024; fd++)
				if (fd != p[0])
					dup2(p[0], fd);
			usleep(2500000);
			fcntl(p[0], F_SETFL, O_NONBLOCK);
			for (ssize_t r; (r = read(p[0], buf, sizeof(buf))) > 0;)
				got += (int)r;
			for (int fd = 3; fd < 1024; fd++)
				close(fd);
			int n = snprintf(line, sizeof(line), "pipe %d\n", got);
			say(line, (size_t)n);
		}
	}
	(void)big;
	return status;
}
