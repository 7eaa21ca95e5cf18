/* SPDX-License-Identifier: MIT */
/*
 * fuzz_stat.c - libFuzzer target for /proc/PID/stat's parser
 * (pmaps__parse_stat in lib/procfs.c), which the process list and the read
 * guard use. The input is the text, in a buffer of exactly its size.
 *
 * Checked against a second parser written here, field by field: the text is
 * refused when, and only when, it has no '(' before its last ')' followed by
 * a space and a byte; the comm is the bytes between the first '(' and the
 * last ')', a view into the text; the state is the byte after ") "; the
 * parent's pid is field 4 when it is a number up to INT_MAX (else -1); the
 * kernel-thread and exiting flags come from field 9 and the code addresses
 * from fields 26, 27, 28 and 48, the faults from 10 and 12 (both or neither)
 * (counted as the kernel does, the comm being
 * field 2, fields split at each space), each only when every field before it
 * read is a number. Parsing the text again gives the same.
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* What the second parser expects. */
struct expect {
	int rc;
	size_t comm_at, comm_len;
	char state;
	int kthread, exiting, ppid;
	uint64_t code_start, code_end, stack_start, arg_start;
	int have_faults;
	uint64_t minflt, majflt;
	int have_start;
	uint64_t starttime;
};

/*
 * The leading decimal digits of field K (3: the state) of the text after
 * ") ", starting at AT, into *V; 0 when the field is missing, starts with
 * no digit or its number does not fit in 64 bits.
 */
static int field(const char *t, size_t n, size_t at, int k, uint64_t *v)
{
	unsigned __int128 x = 0;
	size_t digits = 0;

	for (int f = 3; f < k; f++) {
		while (at < n && t[at] != ' ')
			at++;
		if (at == n)
			return 0;
		at++;
	}
	for (; at < n && t[at] >= '0' && t[at] <= '9'; at++, digits++) {
		x = x * 10 + (unsigned)(t[at] - '0');
		if (x > UINT64_MAX)
			return 0;
	}
	*v = (uint64_t)x;
	return digits > 0;
}

static void expect(const char *t, size_t n, struct expect *e)
{
	size_t open = n, close = n, at;
	uint64_t flags, v[4], pp;

	memset(e, 0, sizeof(*e));
	for (size_t i = 0; i < n; i++) {
		if (t[i] == '(' && open == n)
			open = i;
		if (t[i] == ')')
			close = i;
	}
	if (open == n || close == n || open > close || close + 2 >= n || t[close + 1] != ' ') {
		e->rc = -EBADMSG;
		return;
	}
	e->comm_at = open + 1;
	e->comm_len = close - open - 1;
	at = close + 2;
	e->state = t[at];
	e->ppid = field(t, n, at, 4, &pp) && pp <= INT_MAX ? (int)pp : -1;
	if (!field(t, n, at, 9, &flags))
		return;
	e->kthread = (flags & 0x00200000u) != 0;
	e->exiting = (flags & 0x00000004u) != 0;
	if (field(t, n, at, 10, &v[0]) && field(t, n, at, 12, &v[1])) {
		e->have_faults = 1;
		e->minflt = v[0];
		e->majflt = v[1];
	}
	if (field(t, n, at, 22, &v[2])) {
		e->have_start = 1;
		e->starttime = v[2];
	}
	if (!field(t, n, at, 26, &v[0]) || !field(t, n, at, 27, &v[1]) ||
	    !field(t, n, at, 28, &v[2]) || !field(t, n, at, 48, &v[3]))
		return;
	e->code_start = v[0];
	e->code_end = v[1];
	e->stack_start = v[2];
	e->arg_start = v[3];
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *t = malloc(size ? size : 1);
	struct pmaps__ident id, id2;
	struct pmaps_view comm = {NULL, 0}, comm2 = {NULL, 0};
	struct expect e;
	int rc, rc2;

	if (!t)
		return 0;
	memcpy(t, data, size);
	expect(t, size, &e);
	rc = pmaps__parse_stat(t, size, &id, &comm);
	if (rc != e.rc) {
		fprintf(stderr, "parse_stat: %d, expected %d\n", rc, e.rc);
		abort();
	}
	if (rc == 0) {
		struct pmaps__ident want = {
			.ok = 1, .state = e.state, .kthread = e.kthread, .exiting = e.exiting,
			.ppid = e.ppid,
			.code_start = e.code_start, .code_end = e.code_end,
			.stack_start = e.stack_start, .arg_start = e.arg_start,
		};
		if (comm.ptr != t + e.comm_at || comm.len != e.comm_len) {
			fprintf(stderr, "comm at %td, %zu bytes; expected at %zu, %zu bytes\n",
			        comm.ptr - t, comm.len, e.comm_at, e.comm_len);
			abort();
		}
		if (id.ok != 1 || id.state != want.state || id.kthread != want.kthread ||
		    id.exiting != want.exiting || id.ppid != want.ppid || id.code_start != want.code_start ||
		    id.code_end != want.code_end || id.stack_start != want.stack_start ||
		    id.arg_start != want.arg_start || id.have_faults != e.have_faults ||
		    (e.have_faults && (id.minflt != e.minflt || id.majflt != e.majflt)) ||
		    id.have_start != e.have_start || (e.have_start && id.starttime != e.starttime)) {
			fprintf(stderr, "faults %d %llu %llu, expected %d %llu %llu\n", id.have_faults,
			        (unsigned long long)id.minflt, (unsigned long long)id.majflt,
			        e.have_faults, (unsigned long long)e.minflt, (unsigned long long)e.majflt);
			fprintf(stderr, "ppid %d, expected %d\n", id.ppid, want.ppid);
			fprintf(stderr, "start %d %llu, expected %d %llu\n", id.have_start,
			        (unsigned long long)id.starttime, e.have_start,
			        (unsigned long long)e.starttime);
			fprintf(stderr, "state %d kthread %d exiting %d code %llx-%llx stack %llx args "
			        "%llx; expected %d %d %d %llx-%llx %llx %llx\n", id.state, id.kthread,
			        id.exiting, (unsigned long long)id.code_start,
			        (unsigned long long)id.code_end, (unsigned long long)id.stack_start,
			        (unsigned long long)id.arg_start, want.state, want.kthread, want.exiting,
			        (unsigned long long)want.code_start, (unsigned long long)want.code_end,
			        (unsigned long long)want.stack_start, (unsigned long long)want.arg_start);
			abort();
		}
	}
	/* Again, without the comm: the same. */
	rc2 = pmaps__parse_stat(t, size, &id2, NULL);
	if (rc2 != rc || memcmp(&id, &id2, sizeof(id)) != 0)
		abort();
	rc2 = pmaps__parse_stat(t, size, &id2, &comm2);
	if (rc2 != rc || memcmp(&id, &id2, sizeof(id)) != 0 || comm2.ptr != comm.ptr ||
	    comm2.len != comm.len)
		abort();
	free(t);
	return 0;
}
