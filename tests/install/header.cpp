/* SPDX-License-Identifier: MIT */
/*
 * header.cpp - include/pmaps.h from C++: the `header_cxx` test compiles and
 * links this with g++ -std=c++17 -pedantic -Wall -Wextra -Werror against
 * libpmaps. The link is the check that matters: without the header's
 * extern "C" the calls below name mangled symbols the library lacks.
 */
#include <pmaps.h>

#include <cerrno>
#include <cstdio>

int main()
{
	struct pmaps_proc *proc = nullptr;
	struct pmaps_maps *c = nullptr;
	const struct pmaps_mapping *m = nullptr;
	int rc = pmaps_proc_open(&proc, nullptr, "self");

	if (rc == 0)
		rc = pmaps_maps_open(&c, proc, PMAPS_SRC_MAPS, 0);
	while (rc >= 0 && (rc = pmaps_maps_next(c, &m)) > 0)
		std::printf("%s\n", pmaps_kind_name(m->kind));
	pmaps_maps_close(c);
	pmaps_proc_close(proc);
	std::printf("%s\n", pmaps_strerror(-ENOENT));
	return rc < 0;
}
