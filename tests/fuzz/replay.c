/* SPDX-License-Identifier: MIT */
/*
 * replay.c - runs a libFuzzer target over files and directories of inputs,
 * so the ordinary (gcc, ASan) test run replays the committed corpus.
 * Prints "N passed, 0 failed"; a failing input aborts with its name first.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
	int fd = open(path, O_RDONLY);
	struct stat st;
	uint8_t *buf;
	ssize_t n;

	if (fd < 0 || fstat(fd, &st) < 0) {
		perror(path);
		return -1;
	}
	buf = malloc((size_t)st.st_size + 1);
	n = read(fd, buf, (size_t)st.st_size);
	close(fd);
	if (n != st.st_size) {
		fprintf(stderr, "%s: short read\n", path);
		free(buf);
		return -1;
	}
	fprintf(stderr, "%s\n", path); /* named before it runs, in case it aborts */
	LLVMFuzzerTestOneInput(buf, (size_t)n);
	free(buf);
	return 0;
}

int main(int argc, char **argv)
{
	int runs = 0;

	for (int i = 1; i < argc; i++) {
		struct stat st;
		if (stat(argv[i], &st) < 0) {
			perror(argv[i]);
			return 1;
		}
		if (!S_ISDIR(st.st_mode)) {
			if (run_file(argv[i]) < 0)
				return 1;
			runs++;
			continue;
		}
		DIR *d = opendir(argv[i]);
		struct dirent *e;
		while ((e = readdir(d)) != NULL) {
			char path[4096];
			if (e->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "%s/%s", argv[i], e->d_name);
			if (run_file(path) < 0)
				return 1;
			runs++;
		}
		closedir(d);
	}
	if (runs == 0) {
		fprintf(stderr, "replay: no inputs\n");
		return 1;
	}
	printf("%d passed, 0 failed\n", runs);
	return 0;
}
