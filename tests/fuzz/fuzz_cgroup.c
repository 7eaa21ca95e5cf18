/* SPDX-License-Identifier: MIT */
/*
 * fuzz_cgroup.c - libFuzzer target for the memory cgroup readers and the
 * cgroup path's names (lib/cgroup.c).
 *
 * Input: byte 0 is the size of each piece a read returns (0: as much as
 * asked), byte 1 picks the hierarchy (even: v2, odd: v1) and, above 1, the
 * read that fails with EIO; the rest is the text. Each file of a cgroup
 * directory made once in $TMPDIR (every file the readers open, empty) reads
 * as the text through the read hook, from its start. Checked: the end is 0,
 * -EBADMSG or -EIO with a message naming a memory.* file; no value is set
 * without its present bit, none past PMAPS_CG_COUNT; a PSI share is at most
 * 100% (10000); read again in other pieces: the same end, message and
 * figures. Then the text as a cgroup path: a container ID is 64 hex digits
 * found in it, a pod UID 36 characters, the QoS class and runtime one of
 * their words, the unit a whole component of the path ending in .service or
 * .scope.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "readers.h"
#include "testhooks.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const uint8_t *text;
static size_t text_len, text_pos, piece, fail_at, reads;
static ino_t last_ino; /* the file of the last read: another one starts the text over */

static ssize_t mem_read(int fd, void *buf, size_t len)
{
	struct stat st;
	size_t n;

	if (++reads == fail_at) {
		errno = EIO;
		return -1;
	}
	if (fstat(fd, &st) < 0)
		abort();
	if (st.st_ino != last_ino) {
		text_pos = 0;
		last_ino = st.st_ino;
	}
	n = text_len - text_pos;
	if (n > len)
		n = len;
	if (piece && n > piece)
		n = piece;
	memcpy(buf, text + text_pos, n);
	memset((char *)buf + n, 0xa5, len - n);
	text_pos += n;
	return (ssize_t)n;
}

/* The directory, made once: every file either reader opens, empty. */
static int cgroup_dir(void)
{
	static int fd = -1;
	static const char *const files[] = {
		"memory.current", "memory.peak", "memory.max", "memory.high", "memory.low",
		"memory.min", "memory.swap.current", "memory.swap.max", "memory.stat",
		"memory.events", "memory.pressure", "memory.usage_in_bytes",
		"memory.max_usage_in_bytes", "memory.limit_in_bytes", "memory.failcnt",
		"memory.kmem.usage_in_bytes", "memory.oom_control",
	};
	char dir[256];

	if (fd >= 0)
		return fd;
	snprintf(dir, sizeof(dir), "%s/pmaps-fuzz-cg-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(dir))
		abort();
	fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		abort();
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		int f = openat(fd, files[i], O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
		if (f < 0)
			abort();
		close(f);
	}
	return fd;
}

struct result {
	int rc;
	struct pmaps_cgroup_mem m;
	char msg[PMAPS_ERRMSG_SIZE];
};

static void parse(struct result *r, int version, size_t piece_size)
{
	text_pos = 0;
	reads = 0;
	last_ino = 0;
	piece = piece_size;
	memset(r, 0, sizeof(*r));
	r->m.size = sizeof(r->m);
	r->rc = pmaps_cgroup_mem_read(cgroup_dir(), version, &r->m, r->msg, sizeof(r->msg));
}

static int in_text(const char *s, size_t n)
{
	for (size_t i = 0; n && i + n <= text_len; i++)
		if (memcmp(text + i, s, n) == 0)
			return 1;
	return 0;
}

static void check_ident(void)
{
	struct pmaps_cgroup_ident id;
	const char *p = (const char *)text;
	size_t n;

	pmaps_cgroup_ident(p, text_len, &id);
	n = strlen(id.container_id);
	if (n && (n != 64 || strspn(id.container_id, "0123456789abcdef") != 64 ||
	          !in_text(id.container_id, 64)))
		abort();
	if (id.pod_uid[0] && strlen(id.pod_uid) != 36)
		abort();
	if (id.qos[0] && strcmp(id.qos, "guaranteed") && strcmp(id.qos, "burstable") &&
	    strcmp(id.qos, "besteffort"))
		abort();
	if (id.runtime[0] && strcmp(id.runtime, "docker") && strcmp(id.runtime, "containerd") &&
	    strcmp(id.runtime, "crio") && strcmp(id.runtime, "podman"))
		abort();
	if (id.unit.len) {
		const char *u = id.unit.ptr;
		size_t l = id.unit.len;
		if (u < p || u + l > p + text_len || memchr(u, '/', l) ||
		    (u > p && u[-1] != '/') || (u + l < p + text_len && u[l] != '/'))
			abort();
		if (!(l >= 8 && memcmp(u + l - 8, ".service", 8) == 0) &&
		    !(l >= 6 && memcmp(u + l - 6, ".scope", 6) == 0))
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct result first, again;
	int version;

	if (size < 2)
		return 0;
	text = data + 2;
	text_len = size - 2;
	version = data[1] & 1 ? 1 : 2;
	fail_at = data[1] >> 1;
	pmaps__read_hook = mem_read;
	parse(&first, version, data[0]);
	if (first.rc == -EIO || first.rc == -EBADMSG || first.rc == -ENOENT) {
		if (strncmp(first.msg, "memory.", 7) != 0)
			abort();
	} else if (first.rc != 0) {
		abort();
	}
	if (first.rc == 0 && (first.m.version != version || first.m.present >> PMAPS_CG_COUNT))
		abort();
	for (int f = 0; f < PMAPS_CG_MAX_FIELDS; f++)
		if (!(first.m.present & 1ull << f) && first.m.v[f] != 0)
			abort();
	if (first.m.v[PMAPS_CG_PSI_SOME_AVG10] > 10000 || first.m.v[PMAPS_CG_PSI_FULL_AVG10] > 10000)
		abort();
	fail_at = 0;
	if (first.rc != -EIO) {
		parse(&again, version, (size_t)(data[0] ^ 1));
		if (again.rc != first.rc || strcmp(again.msg, first.msg) != 0 ||
		    memcmp(&again.m, &first.m, sizeof(first.m)) != 0)
			abort();
	}
	pmaps__read_hook = NULL;
	check_ident();
	return 0;
}
