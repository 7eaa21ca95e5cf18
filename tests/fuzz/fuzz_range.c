/* SPDX-License-Identifier: MIT */
/*
 * fuzz_range.c - libFuzzer target for the RANGE argument of pmaps pages
 * (src/range.c). The input is the argument; a parsed range is non-empty
 * and ordered, or a name; a refusal always says why.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/tool.h"
#include "write/writer.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char arg[256], err[256];
	struct range_arg r;

	if (size >= sizeof(arg))
		return 0;
	memcpy(arg, data, size);
	arg[size] = '\0';
	err[0] = '\0';
	if (parse_range(arg, &r, err, sizeof(err)) == 0) {
		if (r.name) {
			if (r.name != arg || r.name_len != strlen(arg))
				abort();
		} else if (r.end < r.start || (r.end == r.start && r.start != UINT64_MAX)) {
			abort();
		}
	} else if (err[0] == '\0') {
		abort();
	}
	return 0;
}
