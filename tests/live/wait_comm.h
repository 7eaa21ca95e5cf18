/* SPDX-License-Identifier: MIT */
/*
 * wait_comm.h - waits until a process runs a program of a given name, as
 * /proc/PID/comm shows it: for the live tests that make a target exec.
 */
#ifndef PMAPS_TESTS_WAIT_COMM_H
#define PMAPS_TESTS_WAIT_COMM_H

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

/* 1 once PID's comm starts with WANT, polled every millisecond for 2 s; 0 if never. */
static inline int wait_comm(pid_t pid, const char *want)
{
	for (int i = 0; i < 2000; i++) {
		char path[64], comm[32] = "";
		snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		ssize_t n = fd >= 0 ? read(fd, comm, sizeof(comm) - 1) : 0;
		if (fd >= 0)
			close(fd);
		if (n > 0 && strncmp(comm, want, strlen(want)) == 0)
			return 1;
		usleep(1000);
	}
	return 0;
}

#endif
