/* SPDX-License-Identifier: MIT */
/*
 * num.h - the small sums every front end file needs: sums and products of
 * counters that never wrap, and the monotonic clock in nanoseconds.
 */
#ifndef PMAPS_NUM_H
#define PMAPS_NUM_H

#include <stdint.h>
#include <time.h>

/* A + B, or UINT64_MAX where it would wrap: sums never wrap. */
static inline uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* A * B, or UINT64_MAX where it would wrap. */
static inline uint64_t sat_mul(uint64_t a, uint64_t b)
{
	return b && a > UINT64_MAX / b ? UINT64_MAX : a * b;
}

/*
 * A duration for a person, as "%.2f %s" takes it: in ms below 100 ms (a
 * 1 ms interval read "0.00 s"), else in s. Returns the unit; *V the value.
 */
static inline const char *dur_unit(uint64_t ns, double *v)
{
	if (ns < 100000000u) {
		*v = (double)ns / 1e6;
		return "ms";
	}
	*v = (double)ns / 1e9;
	return "s";
}

/* CLOCK_MONOTONIC in nanoseconds. */
static inline uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#endif
