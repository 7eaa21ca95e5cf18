/* SPDX-License-Identifier: MIT */
/*
 * header.c - include/pmaps.h alone is ISO C17: the `header_c17` test compiles
 * this with -std=c17 -pedantic -Wall -Wextra -Werror, no _GNU_SOURCE, so a
 * GNU extension or a missing include in the public header fails the test.
 */
#include <pmaps.h>

int main(void)
{
	struct pmaps_proc *proc = NULL;

	return pmaps_proc_open(&proc, NULL, "self") == 0 ? 0 : 1;
}
